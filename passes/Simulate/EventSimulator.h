//===- EventSimulator.h - Discrete-event simulation of a step ---*- C++ -*-===//
//
// A deterministic discrete-event simulator over per-rank programs. The
// structs here mirror the ops of the `rt` dialect (rt.compute, rt.send,
// rt.recv and the four collectives) without depending on MLIR, so that the
// simulation can be tested and reused on its own.
//
// Semantics:
//  * each rank runs its ops in order, one at a time;
//  * a compute op takes its `seconds`;
//  * a send and the recv that matches it (same sender, receiver and tag;
//    the k-th send of a (sender, receiver, tag) triple matches the k-th
//    recv of it) both complete at max(both ready) + transfer time;
//  * a collective starts once every rank of its group has reached it (the
//    k-th collective a rank issues on a group id matches the k-th of every
//    other member) and completes for all members at start + duration;
//  * an asynchronous collective (Op::async) goes to the rank's
//    communication stream instead and the rank carries on at once; each
//    rank's stream runs its asynchronous collectives one at a time in issue
//    order, each reaching its instance when the previous one is done. A
//    wait op blocks the rank until at most `pending` of its asynchronous
//    collectives are unfinished; a program's end waits for all of them.
//    (This is how ZeRO-3 prefetches parameters under compute.)
//  * the durations of transfers and collectives come from a callback, so
//    that the fabric's collective models (and any contention model) plug in.
//
// Malformed programs, unmatched sends/recvs, disagreeing collectives and
// deadlocks are reported as error values; nothing here throws or aborts.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H
#define PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace plexus::sim {

/// What an op does.
enum class OpKind { Compute, Send, Recv, Collective, Wait };

/// The pass a compute op runs (rt.compute's `kind`).
enum class ComputeKind { Fwd, Bwd, Recompute };

/// The kind of a communication handed to the duration callback.
enum class CommKind {
  PointToPoint,
  AllToAll,
  AllReduce,
  AllGather,
  ReduceScatter
};

/// Printable names: "fwd", "send", "all_reduce", ...
const char *toString(OpKind k);
const char *toString(ComputeKind k);
const char *toString(CommKind k);

/// One op of a rank's program. Only the fields of its kind are meaningful;
/// build ops with the factory functions.
struct Op {
  OpKind kind = OpKind::Compute;
  // Compute.
  std::string label;
  ComputeKind computeKind = ComputeKind::Fwd;
  double seconds = 0;
  int64_t memoryDeltaBytes = 0; ///< applied when the op starts
  // What a compute op covers (rt.compute's fields; the simulator only
  // carries them): layers [layerBegin, layerEnd) of pipeline stage `stage`
  // over sequences `seqs` (slice `slices[i]` of seqs[i] when `slices` is
  // not empty), performing `flops` floating-point operations on this rank.
  int64_t layerBegin = 0, layerEnd = 1, stage = 0;
  std::vector<int64_t> seqs;
  std::vector<int64_t> slices;
  double flops = 0;
  // Compute: the Ulysses group its attention runs in (rt.compute's
  // `ulysses`); none when ulyssesRanks is empty. Carried, not simulated:
  // the group's rt.all_to_all ops account for its traffic.
  std::string ulysses;
  std::vector<int64_t> ulyssesRanks;
  // Send / Recv.
  int64_t peer = -1;
  int64_t tag = 0;
  // Send / Recv: with `carries`, the message holds the forward's hidden
  // states (computeKind Fwd) or the backward's gradient (Bwd) of `seqs`,
  // slice `slices[i]` of seqs[i] (rt's `carries`). Collective: with
  // `carriesLayers`, the buffer holds the parameters or gradients of
  // layers [layerBegin, layerEnd) (rt's `layers`). Neither is simulated.
  bool carries = false;
  bool carriesLayers = false;
  // Send / Recv / Collective: bytes of the message or of each rank's buffer.
  int64_t bytes = 0;
  // Collective.
  CommKind commKind = CommKind::AllReduce;
  std::string group;          ///< communicator id, the same on every member
  std::vector<int64_t> ranks; ///< members in ring order
  bool async = false;         ///< runs on the rank's communication stream
  // Wait: how many asynchronous collectives may still be unfinished.
  int64_t pending = 0;

  static Op compute(std::string label, ComputeKind kind, double seconds,
                    int64_t memoryDeltaBytes = 0);
  static Op send(int64_t peer, int64_t bytes, int64_t tag = 0);
  static Op recv(int64_t peer, int64_t bytes, int64_t tag = 0);
  static Op collective(CommKind kind, std::string group,
                       std::vector<int64_t> ranks, int64_t bytes,
                       bool async = false);
  static Op wait(int64_t pending = 0);

  /// Marks a send or recv as carrying `kind`'s tensor of these slices.
  void carry(ComputeKind kind, std::vector<int64_t> seqIds,
             std::vector<int64_t> sliceIds) {
    carries = true;
    computeKind = kind;
    seqs = std::move(seqIds);
    slices = std::move(sliceIds);
  }
  /// Marks a collective as carrying layers [begin, end).
  void carryLayers(int64_t begin, int64_t end) {
    carriesLayers = true;
    layerBegin = begin;
    layerEnd = end;
  }
};

/// Everything one rank does in a step. Rank r's program is programs[r];
/// peers and group members are indices into that vector.
struct Program {
  std::vector<Op> ops;
  int64_t initialMemoryBytes = 0; ///< resident before the first op
};

/// Sum of the `flops` of every compute op of every program.
double totalComputeFlops(const std::vector<Program> &programs);

/// One communication whose duration the callback decides.
struct CommRequest {
  CommKind kind = CommKind::PointToPoint;
  /// Point to point: {sender, receiver}. Collective: the group's members.
  std::vector<int64_t> ranks;
  std::string group; ///< empty for point to point
  int64_t bytes = 0;
  int64_t tag = 0;         ///< point to point only
  double startSeconds = 0; ///< when the transfer begins
};

/// A callback's answer: a duration, or why there is none.
struct CommTime {
  double seconds = 0;
  std::string error; ///< empty on success
  CommTime() = default;
  CommTime(double s) : seconds(s) {} // NOLINT: implicit on purpose
  static CommTime failure(std::string why) {
    CommTime t;
    t.error = std::move(why);
    return t;
  }
};

/// Duration of a transfer or collective. Called in non-decreasing order of
/// startSeconds (ties broken by rank), so a stateful contention model sees
/// communications in time order.
using CommTimeFn = std::function<CommTime(const CommRequest &)>;

struct SimOptions {
  /// Required as soon as a program communicates.
  CommTimeFn commTime;
  /// FLOPs of the whole step (all ranks together) and peak FLOP/s of one
  /// rank; MFU is reported when both are given.
  std::optional<double> totalFlops;
  std::optional<double> peakFlopsPerRank;
};

/// Why a simulation has no result.
enum class SimErrorKind {
  None,
  InvalidProgram,       ///< bad peer, negative time or size, bad group, ...
  MismatchedP2P,        ///< a send and its recv disagree, or one has no match
  MismatchedCollective, ///< members disagree on kind, bytes or ranks
  Deadlock,             ///< ranks wait on each other forever
  CommTimeFailed,       ///< the callback failed or gave an invalid duration
};
const char *toString(SimErrorKind k);

/// One interval of a rank's timeline.
struct Span {
  std::string name;     ///< e.g. "fwd mb3", "send ->2 tag 5", "all_reduce dp"
  std::string category; ///< "fwd", "bwd", "recompute", "send", "recv",
                        ///< "all_to_all", "all_reduce", ...
  double start = 0, end = 0;
  int64_t opIndex = 0; ///< index of the op in the rank's program
  int64_t bytes = 0;   ///< communication only
  bool isCompute = false;
  bool async = false; ///< on the communication stream, beside the rank's ops
};

struct RankResult {
  double computeSeconds = 0;        ///< sum of compute spans
  double commSeconds = 0;           ///< blocking communication and waits on the
                                    ///< stream: communication not hidden
  double overlappedCommSeconds = 0; ///< asynchronous collectives' time
  double idleSeconds = 0;           ///< stepSeconds - compute - comm (bubble)
  double finishSeconds = 0;         ///< when its last op completed
  int64_t peakMemoryBytes = 0;      ///< max of the running sum of memory deltas
  std::vector<Span> spans;          ///< the rank's own ops, in time order, then
                                    ///< its stream's collectives (async)
};

struct SimResult {
  SimErrorKind errorKind = SimErrorKind::None;
  std::string error;               ///< empty on success
  std::vector<int64_t> errorRanks; ///< the ranks the error is about, sorted
  double stepSeconds = 0;          ///< max over ranks of finishSeconds
  std::vector<RankResult> ranks;
  std::optional<double> mfu; ///< totalFlops / (step * ranks * peak)
  bool ok() const { return errorKind == SimErrorKind::None; }
  /// Sum of idle over sum of (step) over ranks: the average bubble fraction.
  double bubbleFraction() const;
};

/// Runs one step of `programs`. Deterministic: the same input (and a
/// deterministic callback) gives an identical result.
SimResult simulate(const std::vector<Program> &programs,
                   const SimOptions &options);

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H
