//===- StaticSp.h - DeepSpeed-Ulysses static SP baseline -------*- C++ -*-===//
//
// The static sequence-parallel baseline users run today: one Ulysses degree d
// for the whole batch on N GPUs, so every micro-batch runs N/d SP groups side
// by side. Sequences are packed into micro-batches by best-fit-decreasing
// under the per-GPU token capacity, and timed with the FlexSP profiled cost
// model (passes/Cost/ProfiledCostModel.h): group = sum of t1 + beta1,
// micro-batch = slowest group, iteration = sum of micro-batches. Also picks
// the best homogeneous degree for a batch. Plain C++, deterministic, errors
// as values (plexus::Result, passes/Support/Result.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_BASELINES_STATICSP_H
#define PLEXUS_PASSES_BASELINES_STATICSP_H

#include "passes/Cost/ProfiledCostModel.h"
#include "passes/Support/Result.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plexus::baselines {

using ::plexus::Result; // passes/Support/Result.h

/// The static SP layout: N GPUs, one degree d (d divides N), and how many
/// tokens one GPU's memory holds. `activationMBPerToken` (> 0) only adds the
/// memory figures to infeasibility messages; 0 leaves them out.
struct StaticSpConfig {
  int64_t gpus = 0;           // N
  int64_t degree = 0;         // d
  int64_t capacityPerGpu = 0; // tokens
  double activationMBPerToken = 0;
  /// planStaticSp balances the best-fit packing (balanceStaticSp), as the
  /// plxc static planners do (StepPlanners' balanceBins); false keeps the
  /// best-fit packing as it is.
  bool balance = true;
};

/// One SP group of a micro-batch: sequence ids (indices into the batch) in
/// placement order, i.e. by descending length, ties by ascending id.
struct StaticSpGroup {
  std::vector<int64_t> sequenceIds;
  int64_t tokens = 0;
  double timeMs = 0; // 0 for an empty (idle) group
};

struct StaticSpMicroBatch {
  std::vector<StaticSpGroup> groups; // always N/d of them
  double timeMs = 0;                 // slowest non-empty group
};

struct StaticSpPlan {
  int64_t gpus = 0;
  int64_t degree = 0;
  int64_t capacityPerGpu = 0;
  std::vector<StaticSpMicroBatch> microBatches;
  double iterationMs = 0; // 0 when only packed, not timed
};

/// Best-fit-decreasing packing, no timing. Sequences go in order of
/// descending length (stable: equal lengths by ascending id). Each goes into
/// the group, over all open micro-batches, whose room (capacity * d minus
/// tokens already placed) is the smallest that still fits it; ties go to the
/// earliest micro-batch, then the lowest group index (so empty groups are
/// filled left to right). When no group fits, a new micro-batch is opened
/// and the sequence goes into its group 0. Errors: bad config, a
/// non-positive length, or a sequence longer than capacity * d (the message
/// names the sequence, its tokens and memory per GPU against what a GPU
/// holds, and the smallest degree that would fit it).
Result<StaticSpPlan> packStaticSp(const std::vector<int64_t> &lengths,
                                  const StaticSpConfig &config);

/// Rebalances a packing over the same micro-batches and groups with the
/// rule of the plxc static planners (StepPlanners' balanceBins): sequences
/// by descending work t1(s, d) (ties by id), each to the least loaded group
/// (load = sum of t1; ties to the earliest group, micro-batch major) that
/// still has room for its tokens. When some sequence finds no room, the
/// packing is returned unchanged. Groups list their sequences in placement
/// order; times are left at 0. Errors: a degree the bandwidth table lacks.
Result<StaticSpPlan> balanceStaticSp(const cost::ProfiledModel &model,
                                     const cost::AllToAllBandwidthTable &bw,
                                     const std::vector<int64_t> &lengths,
                                     const StaticSpPlan &packed);

/// packStaticSp, balanceStaticSp when config.balance, then times every group,
/// micro-batch and the iteration with the profiled model (cost::groupTimeMs /
/// microBatchTimeMs / iterationTimeMs; idle groups cost nothing).
Result<StaticSpPlan> planStaticSp(const cost::ProfiledModel &model,
                                  const cost::AllToAllBandwidthTable &bw,
                                  const std::vector<int64_t> &lengths,
                                  const StaticSpConfig &config);

/// Best homogeneous degree for one batch ("BatchAda"): every power-of-two d
/// dividing N is tried (packed and balanced by planStaticSp); infeasible
/// degrees are skipped and recorded; the minimum modeled iteration time wins,
/// ties to the smaller d.
struct HomogeneousChoice {
  StaticSpPlan best;
  std::vector<std::pair<int64_t, double>> timed;        // (d, iteration ms)
  std::vector<std::pair<int64_t, std::string>> skipped; // (d, why)
};

/// Errors when no degree is feasible: the message of the largest degree
/// tried (for a too-long sequence, "no degree <= N fits ...").
Result<HomogeneousChoice> bestHomogeneousSp(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, int64_t gpus, int64_t capacityPerGpu,
    double activationMBPerToken = 0, bool balance = true);

/// "1,234,567": the thousands-grouped integers the messages use.
std::string groupedInt(int64_t v);

} // namespace plexus::baselines

#endif // PLEXUS_PASSES_BASELINES_STATICSP_H
