//===- EventSimulator.h - Discrete-event simulation of a step ---*- C++ -*-===//
//
// A deterministic discrete-event simulator over per-rank programs
// (passes/Program/Program.h: the ops of the `rt` dialect as plain data, so
// that the simulation can be tested and reused without MLIR).
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
// Symmetry: ranks whose programs are equal op for op (and that neither send
// nor receive) live the same timeline. They attend the same collective
// instances (equal programs name the same groups), so by induction over
// their ops every op starts and ends at the same time on each of them. The
// simulator runs one representative of each such class, counting its
// arrival at a collective once per member, and orders events by (time,
// highest rank of the class): the duration callback is then called for
// the same communications in the same order as when every rank is run
// (a full run calls it when the last member arrives, which is the class's
// highest rank), so even a stateful contention model gives the same
// answers. Every rank's result is its representative's. Memory and time
// grow with the distinct programs' ops (plus one pass over all ops to find
// the classes), not with ranks x ops of the event loop. A malformed step
// may be reported on another rank of the same class than a full run
// would name.
//
// Malformed programs, unmatched sends/recvs, disagreeing collectives and
// deadlocks are reported as error values; nothing here throws or aborts.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H
#define PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H

#include "passes/Cost/Overlap.h"
#include "passes/Program/Program.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace plexus::sim {

// The programs the simulator runs and the communications it times are the
// shared vocabulary of passes/Program (what the lowering writes and the rt
// conversion reads and writes).
using prog::CommKind;
using prog::CommRequest;
using prog::CommTime;
using prog::CommTimeFn;
using prog::ComputeKind;
using prog::GroupKind;
using prog::Op;
using prog::OpKind;
using prog::Program;
using prog::toString;

/// What SimOptions::symmetry starts as: true unless a driver turned it off
/// (plxc --simulate-every-rank, which the corpus test compares against).
/// Set it before simulating, not while simulations run.
bool defaultSymmetry();
void setDefaultSymmetry(bool on);

struct SimOptions {
  /// Required as soon as a program communicates.
  CommTimeFn commTime;
  /// FLOPs of the whole step (all ranks together) and peak FLOP/s of one
  /// rank; MFU is reported when both are given.
  std::optional<double> totalFlops;
  std::optional<double> peakFlopsPerRank;
  /// Keep every rank's spans (a trace needs them). Without, the result has
  /// the same totals and no spans, which saves most of a large step's time
  /// and memory.
  bool keepSpans = true;
  /// Simulate each class of ranks with equal programs once (the rank
  /// classes of the file comment); off simulates every rank. The result is
  /// the same to the bit either way.
  bool symmetry = defaultSymmetry();
  /// The programs are one of `replicas` identical data-parallel replicas:
  /// rank r + k * n of replica k (n = programs.size()) runs rank r's
  /// program with every member renamed by + k * n. A collective may then
  /// name members up to replicas * n - 1; for each rank of the programs
  /// its list holds either that rank alone or all of its images (a group
  /// across the replicas), and a member of another replica arrives when
  /// the rank it images does. The duration callback sees the whole member
  /// list. Contention is modelled between the programs' transfers, not
  /// between copies of one transfer in other replicas.
  int64_t replicas = 1;
  /// Compute and stream collectives contending (passes/Cost/Overlap.h): a
  /// collective on the communication stream runs at commEfficiency of its
  /// duration callback's bandwidth, and compute that runs while one does
  /// is slowed by computeSlowdown for as long as the overlap lasts. The
  /// drivers set the chip's figures; the default is no contention.
  cost::Overlap overlap = cost::Overlap::none();
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
  /// The duration of each of its recompute ops, in span order.
  std::vector<double> recomputeSpanSeconds;
  /// The rank's own ops and its stream's collectives (async), by start
  /// time, op index among equal starts.
  std::vector<Span> spans;
};

struct SimResult {
  SimErrorKind errorKind = SimErrorKind::None;
  std::string error;               ///< empty on success
  std::vector<int64_t> errorRanks; ///< the ranks the error is about, sorted
  double stepSeconds = 0;          ///< max over ranks of finishSeconds
  std::vector<RankResult> ranks;
  std::optional<double> mfu; ///< totalFlops / (step * ranks * peak)
  /// Ranks the event loop ran: one per class of equal programs with
  /// SimOptions::symmetry, every rank without.
  int64_t simulatedRanks = 0;
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
