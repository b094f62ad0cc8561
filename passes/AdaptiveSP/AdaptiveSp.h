//===- AdaptiveSp.h - FlexSP's adaptive SP planner --------------*- C++ -*-===//
//
// The planner of FlexSP (Wang et al., ASPLOS'25; reference flexsp_dpp.md
// sections 1.3-1.5 and 3.1): for one global batch of sequence lengths on N
// GPUs, choose micro-batches and, inside each, a set of Ulysses SP groups of
// power-of-two degrees summing to N with every sequence in one group, so
// that the modelled iteration time (sum over micro-batches of the slowest
// group, cost model of passes/Cost/ProfiledCostModel.h) is as small as the
// search finds. Steps, for the counts M_min ... M_min + 4:
//  1. partitions of the batch into M micro-batches: the sequence blaster's
//     contiguous cut of the length-sorted batch, and (dealtPartitions) two
//     deals by work (PlanPolish.h dealByWork): equal shares, and micro-batch
//     0 filled to the time its longest sequence needs anyway;
//  2. per micro-batch: buckets, the polished greedy plan over every degree
//     multiset, dealt with real lengths, a lower bound; with solveMilp
//     (opt-in, see docs/flexsp.md) also the MILP with CBC from that plan
//     (unless the partition is pruned, below);
//  3. the complete plans of every partition, and the balanced homogeneous
//     plan of every candidate degree (passes/Baselines/StaticSp.h), are
//     polished on real lengths (PlanPolish.h) and the fastest is kept, so
//     the plan is never slower than the best balanced homogeneous plan;
//  4. groups get node-aligned rank ranges.
// The plan carries a lower bound on any plan (IterationBound.h). Planning a
// 512-sequence batch on 64 GPUs takes well under a second on two cores
// (bench/flexsp). The same entry point also returns the two
// baselines (one static degree, and the best homogeneous degree per batch,
// from passes/Baselines/StaticSp.h, balanced) in the same plan form. Plain
// C++, deterministic, errors as values.
//
// Choices where the reference is silent:
//  - Candidate degrees are the powers of two up to N that the bandwidth
//    table lists, plus 1 when allowSp1 is set (off by default, as in the
//    reference's code).
//  - Real sequences are dealt into the MILP's groups bucket by bucket,
//    longest first, each to the group (among those the MILP gave a
//    sequence of that bucket) where it would finish earliest with its real
//    length; ties go to the earlier group. The reference's code pops them
//    at random.
//  - Within a micro-batch groups are listed by ascending degree (equal
//    degrees: slowest first) and take consecutive ranks from 0. With a
//    power-of-two chipsPerNode and N a multiple of it, every group then
//    starts at a multiple of its own degree, so no group of at most
//    chipsPerNode GPUs straddles a node; the plan is checked anyway.
//  - When every candidate M is infeasible, the next M' counts are tried,
//    up to one sequence per micro-batch.
//  - Pruning (with solveMilp): a partition whose summed micro-batch lower
//    bounds exceed the summed greedy plans of another cannot win through
//    its MILPs, which only improve on its greedy start; they are skipped
//    and its greedy plans kept. Exact, so the plan is the same with
//    pruning off.
//  - Per micro-batch we keep the MILP's plan dealt with real lengths, or
//    the dealt greedy start when that is faster with real lengths (bucket
//    bounds overstate lengths, so the two can rank differently).
//  - The winner has the least modelled iteration time after polish, ties
//    to the earlier candidate (counts ascending; contiguous, dealt,
//    filled; then homogeneous degrees ascending). Micro-batches and
//    candidates are planned on `threads` threads; each result depends only
//    on its inputs, so the plan does not depend on the thread count or on
//    finishing order.
//  - The trials report, per count, its best partition before polish.
//  - The best-homogeneous baseline skips SP=1 unless allowSp1 is set; the
//    static baseline runs whatever degree it is given.
//  - Empty groups exist only in the baselines (a static degree may leave
//    some of a micro-batch's N/d groups idle); they cost 0 ms.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_ADAPTIVESP_H
#define PLEXUS_PASSES_ADAPTIVESP_ADAPTIVESP_H

#include "passes/AdaptiveSP/Bucketing.h"
#include "passes/AdaptiveSP/SequenceBlaster.h"
#include "passes/AdaptiveSP/SpMilp.h"
#include "passes/Cost/ProfiledCostModel.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace plexus::adaptivesp {

/// Which plan planAdaptiveSp makes.
enum class SpStrategy {
  Adaptive,        // FlexSP: heterogeneous groups per micro-batch
  Static,          // one given degree for the whole batch (DeepSpeed)
  BestHomogeneous, // the best single degree for this batch (BatchAda)
};

struct AdaptiveSpOptions {
  SpStrategy strategy = SpStrategy::Adaptive;
  int64_t staticDegree = 0;     // Static only
  bool allowSp1 = false;        // SP=1 groups (the reference's code has none)
  int64_t microBatchTrials = 5; // M': counts M_min ... M_min + M' - 1
  int64_t initialBuckets = 16;  // Q
  bool growBuckets = true;      // the reference code's rule for raising Q
  SpMilpOptions milp;
  /// Skip the MILPs of a micro-batch count whose lower bound exceeds the
  /// greedy plan of another count (it cannot win). Exact: changes only
  /// the time taken, never the plan.
  bool pruneByBound = true;
  /// Solve each micro-batch's MILP with CBC (else the polished greedy plan
  /// stands). See docs/flexsp.md for what it buys.
  bool solveMilp = false;
  /// Also deal each count's micro-batches by work (dealByWork), beside the
  /// blaster's contiguous cut.
  bool dealtPartitions = true;
  /// Polish every candidate plan on real lengths (polishPlan).
  bool polish = true;
  /// Iterated local search (iteratedPolish) on the fastest polished
  /// candidate, in each of two seeded chains: iteratedWork / (10 + M)
  /// rounds for a plan of M micro-batches, as a round's
  /// polish costs about 1 + 0.1 M ms here; 0 turns it off. A work count,
  /// not a clock, so the plan depends only on the input. See
  /// docs/flexsp.md for what it buys and costs.
  int64_t iteratedWork = 3000;
  int64_t threads = 0; // 0: one per hardware thread
  /// Told what the planner does now and how far it is ("micro-batch 12 of
  /// 40"); may be called from worker threads, one at a time or at once.
  std::function<void(const std::string &)> progress;
};

/// One SP group of a micro-batch.
struct SpGroupPlan {
  int64_t degree = 0;
  int64_t firstRank = 0, lastRank = 0; // inclusive
  std::vector<int64_t> sequenceIds;    // descending length, ties by id
  int64_t tokens = 0;
  double timeMs = 0; // cost::groupTimeMs; 0 for an idle group
};

struct SpMicroBatchPlan {
  std::vector<SpGroupPlan> groups; // ascending ranks
  int64_t tokens = 0;
  double timeMs = 0; // slowest group
  // The adaptive planner's solve (zero in the baselines, and on a
  // micro-batch the polish changed):
  int64_t buckets = 0;
  double bucketTokenError = 0;
  double milpObjectiveMs = 0;  // at bucket upper bounds
  double milpLowerBoundMs = 0; // what CBC proved
  bool provenOptimal = false;
  bool fromWarmStart = false; // the polished greedy plan was kept
  bool timeLimitReached = false;
  bool milpSolved = false; // false: a pruned count's greedy plan
};

/// One candidate micro-batch count of the adaptive planner.
struct MicroBatchCountTrial {
  int64_t microBatches = 0;
  bool feasible = false;
  double iterationMs = 0;  // when feasible
  double lowerBoundMs = 0; // sum of microBatchLowerBoundMs
  bool milpSolved = false; // false: pruned by its bound, greedy plans only
  std::string reason;      // when not feasible
};

struct AdaptiveSpPlan {
  SpStrategy strategy = SpStrategy::Adaptive;
  int64_t gpus = 0, chipsPerNode = 0, capacityPerGpu = 0;
  std::vector<SpMicroBatchPlan> microBatches;
  double iterationMs = 0;
  /// Wall-clock seconds planAdaptiveSp took; reported, never used.
  double solverSeconds = 0;
  int64_t minMicroBatches = 0;              // Adaptive: M_min
  int64_t chosenMicroBatches = 0;           // the M of `microBatches`
  std::vector<MicroBatchCountTrial> trials; // Adaptive: every M tried
  /// BestHomogeneous: (degree, iteration ms) of every feasible degree.
  std::vector<std::pair<int64_t, double>> homogeneousTimes;
  /// Adaptive: iterationLowerBound of the batch (IterationBound.h).
  double lowerBoundMs = 0;
  /// Adaptive: the candidate the plan was polished from ("contiguous M=2",
  /// "dealt M=3", "balanced homogeneous SP8") and its time before polish.
  std::string origin;
  double unpolishedMs = 0;
};

/// Candidate SP degrees: powers of two up to `gpus` that `bw` lists, plus
/// 1 when `allowSp1`; ascending.
std::vector<int64_t> candidateDegrees(const cost::AllToAllBandwidthTable &bw,
                                      int64_t gpus, bool allowSp1);

/// First ranks for groups of the given degrees, laid out consecutively in
/// the given order from rank 0. Errors: the degrees do not sum to `gpus`,
/// or a group of at most chipsPerNode GPUs would straddle a node boundary.
Result<std::vector<int64_t>>
nodeAlignedFirstRanks(const std::vector<int64_t> &degrees, int64_t gpus,
                      int64_t chipsPerNode);

/// A lower bound on the modelled time of any plan of one micro-batch (ids
/// into `lengths`) with the given candidate degrees: beta1 plus the larger
/// of the slowest single sequence at its fastest fitting degree and the
/// balanced work, sum over sequences of min_d d * t1(s, d), over N GPUs.
Result<double> microBatchLowerBoundMs(const cost::ProfiledModel &model,
                                      const cost::AllToAllBandwidthTable &bw,
                                      const std::vector<int64_t> &lengths,
                                      const std::vector<int64_t> &ids,
                                      const std::vector<int64_t> &degrees,
                                      int64_t gpus, int64_t capacityPerGpu);

/// Plans one micro-batch (sequence ids into `lengths`) with the adaptive
/// method: bucketing, the polished greedy start, the MILP, dealing real
/// sequences (the better of the MILP's and the start's plan with real
/// lengths, ties to the MILP's), rank layout.
/// `clusterTokens` (N * capacity) drives the bucket-count rule.
Result<SpMicroBatchPlan> planMicroBatch(const cost::ProfiledModel &model,
                                        const cost::AllToAllBandwidthTable &bw,
                                        const std::vector<int64_t> &lengths,
                                        const std::vector<int64_t> &ids,
                                        int64_t gpus, int64_t chipsPerNode,
                                        int64_t capacityPerGpu,
                                        const AdaptiveSpOptions &options = {});

/// Plans a global batch with `options.strategy`. Errors (never throws):
/// bad sizes or options, a non-positive length, a sequence that no
/// candidate SP group can hold (the message names the sequence, its tokens,
/// the activation memory it needs and what the cluster or the largest group
/// has), or no feasible micro-batch count.
Result<AdaptiveSpPlan> planAdaptiveSp(const cost::ProfiledModel &model,
                                      const cost::AllToAllBandwidthTable &bw,
                                      const std::vector<int64_t> &lengths,
                                      int64_t gpus, int64_t chipsPerNode,
                                      int64_t capacityPerGpu,
                                      const AdaptiveSpOptions &options = {});

/// Checks a plan against the batch: every sequence in exactly one group,
/// each micro-batch's degrees sum to N over consecutive ranks from 0, no
/// group of at most chipsPerNode GPUs straddles a node, every group holds
/// at most capacity * degree tokens, and the token counts add up. Empty
/// string when all hold; else the first violation.
std::string planViolation(const AdaptiveSpPlan &plan,
                          const std::vector<int64_t> &lengths);

/// A micro-batch's degrees, largest first, runs written as "degree x
/// count": "<32, 16, 8x2>".
std::string degreeSummary(const SpMicroBatchPlan &mb);

/// Whether two plans are equal in everything but solverSeconds.
bool samePlan(const AdaptiveSpPlan &a, const AdaptiveSpPlan &b);

/// "adaptive", "static", "best-homogeneous".
const char *strategyName(SpStrategy s);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_ADAPTIVESP_H
