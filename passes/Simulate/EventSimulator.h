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
// Malformed programs, unmatched sends/recvs, disagreeing collectives and
// deadlocks are reported as error values; nothing here throws or aborts.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H
#define PLEXUS_PASSES_SIMULATE_EVENTSIMULATOR_H

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
