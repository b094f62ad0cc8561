//===- StepPlanners.h - Static layouts as planned training steps -*- C++
//-*-===//
//
// The plans users run today, as step::StepPlan values that plx-lower-to-rt
// and the simulator take as they are: one static layout (Ulysses degree,
// tensor, context and pipeline degrees) for the whole step, sequences packed
// into micro-batches by best-fit-decreasing (StaticSp.h) under each chip's
// memory, and each group, micro-batch and the step timed analytically from
// the same per-layer work the lowering emits (passes/StepModel/LayerWork.h: compute at the
// chip's achieved rate, communication through the caller's duration
// callback, e.g. the fabric's collective models). Named as reports show
// them: static-sp-<d> (DeepSpeed-Ulysses), megatron-tp<t>-cp<c>
// (Megatron-LM tensor + context parallelism), pp<p>-tp<t>-1f1b (pipeline
// with 1F1B). Plain C++, deterministic, errors as values; an infeasible
// layout says which sequence does not fit, the memory it needs against what
// a chip holds, and which knob would help.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_BASELINES_STEPPLANNERS_H
#define PLEXUS_PASSES_BASELINES_STEPPLANNERS_H

#include "passes/Baselines/StaticSp.h"
#include "passes/Program/Program.h"
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/PipelinePlan.h"
#include "passes/StepModel/StepPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plexus::baselines {

/// A training job as the planners see it.
struct TrainSetup {
  step::TrainModel model;
  int64_t world = 0;        ///< chips of the job
  int64_t chipsPerNode = 1; ///< ranks r and r' share a node iff r/c == r'/c
  int64_t memoryBytes = 0;  ///< usable bytes per chip (HBM less the reserve)
  int64_t memoryReserveBytes = 0; ///< held back of the HBM (reported)
  /// Sequences each group takes per micro-batch (0: as many as memory
  /// holds, packed best-fit-decreasing and balanced).
  int64_t microBatchSeqs = 0;
};

/// Activation bytes per token one chip keeps for its layers when a group of
/// `layout` runs a sequence of `maxLength` tokens, before dividing by the
/// group's ranks: the sum over all layers of the kept bytes plus the largest
/// recompute transient and the loss's logits (cost::logitBytesPerToken;
/// sequence length only matters without checkpointing, where attention
/// scores grow with it).
int64_t activationBytesPerToken(const step::TrainModel &model,
                                int64_t maxLength);

/// Tokens per chip a layout can hold: (memory - resident) / bytes per
/// token, with the resident states of the first stage (the busiest under
/// 1F1B, which keeps p micro-batches of its L/p layers, i.e. L layers'
/// worth). An error names the memory the model states alone need.
struct Capacity {
  int64_t tokensPerChip = 0;
  int64_t residentBytes = 0;
  int64_t bytesPerToken = 0;
  std::string error;
};
Capacity layoutCapacity(const TrainSetup &setup,
                        const step::GroupLayout &layout, int64_t maxLength);

/// A named plan, or why the layout cannot run the batch.
struct NamedPlan {
  std::string name;
  step::GroupLayout layout;
  step::TrainModel model; ///< what the plan was costed with (its ZeRO)
  std::optional<step::StepPlan> plan;
  /// Set instead of `plan` by the dynamic pipeline planner
  /// (passes/Train/DppPlanning.h): 1F1B pipelines of chunks.
  std::optional<step::PipelinedStepPlan> pipelined;
  std::string error;
  /// Wall-clock seconds a solver spent on the plan (FlexSP's MILPs):
  /// reported, never used; 0 for the static planners.
  double solverSeconds = 0;
  /// Why the job's own planner did not make this plan, when a fallback did
  /// (reported; empty otherwise).
  std::string note;
  /// How the plan checkpoints, as reports name it ("none", "selective",
  /// "attention_mlp", "full"; a DPP planner's "adaptive" or "uniform");
  /// empty: from
  /// model.checkpointing.
  std::string checkpointLabel;
  std::string checkpointName() const {
    if (!checkpointLabel.empty())
      return checkpointLabel;
    return cost::checkpointingName(model.checkpointing);
  }
  bool ok() const { return plan.has_value() || pipelined.has_value(); }
  /// The planner's modelled step time (a plan must be set).
  double seconds() const { return plan ? plan->seconds : pipelined->seconds; }
};

/// The name reports use for a static layout: static-sp-<d> when only
/// Ulysses is used, megatron-tp<t>-cp<c> without pipeline or Ulysses,
/// pp<p>-tp<t>-1f1b with a pipeline, else sp<d>-tp<t>-cp<c>-pp<p>.
std::string layoutName(const step::GroupLayout &layout);

/// Forward FLOPs of a whole sequence of `tokens` over all layers.
double sequenceForwardFlops(const cost::TransformerShape &shape,
                            int64_t tokens);

/// Rebalances a best-fit-decreasing packing: keeping its number of
/// micro-batches and groups, sequences by descending forward FLOPs (ties by
/// id) go to the least loaded group (ties to the earliest: micro-batch
/// major) that still has room for their tokens (`groupCapacity`). Capacity
/// packing alone fills groups one after another, leaving the last ones
/// nearly idle; balancing is what a tuned static baseline does. When some
/// sequence finds no room, the packing is returned unchanged. Result:
/// [micro-batch][group] -> sequence ids.
std::vector<std::vector<std::vector<int64_t>>>
balanceBins(const step::TrainModel &model, const std::vector<int64_t> &lengths,
            const StaticSpPlan &packed, int64_t groupCapacity);

/// The micro-batch counts a pipelined layout is also tried with, beyond the
/// `fewest` memory allows: about 1.5x steps from fewest + 1 up to one
/// sequence per group (ceil(sequences / groups)), which is always included.
std::vector<int64_t> pipelineMicroBatchCounts(int64_t fewest,
                                              int64_t sequences,
                                              int64_t groups);

/// Deals the sequences into exactly `microBatches` x `groups` bins the way
/// balanceBins does (descending FLOPs to the least loaded bin with room);
/// empty micro-batches are dropped. Empty when some sequence finds no room.
std::vector<std::vector<std::vector<int64_t>>>
dealIntoMicroBatches(const step::TrainModel &model,
                     const std::vector<int64_t> &lengths, int64_t microBatches,
                     int64_t groups, int64_t groupCapacity);

/// The inverse of layoutName: the layout a name stands for, or nullopt for
/// a name of none of the four forms (degrees must be positive integers).
std::optional<step::GroupLayout> parseLayoutName(const std::string &name);

/// Fills the planner's estimates of `plan` in place: every group's time and
/// memory, every micro-batch's time (its slowest group), the step time (the
/// micro-batches one after the other, or (m + p - 1) times the slowest
/// stage under 1F1B, plus the data-parallel gradient synchronisation) and
/// the peak memory. Returns an error when the work cannot be costed or the
/// callback fails.
std::string estimateStep(step::StepPlan &plan, const TrainSetup &setup,
                         const prog::CommTimeFn &commTime);

/// One static layout for the whole batch: groups of layout.degree() ranks
/// (world / degree side by side), sequences packed best-fit-decreasing
/// into micro-batches under each chip's memory and balanced (or, with
/// setup.microBatchSeqs = k, dealt in dataset order: sequence j to
/// micro-batch j / (G k), group (j / k) mod G), then estimated. Errors:
/// a degree that does not divide the world or the heads, a pipeline with
/// more stages than layers or ZeRO-3, model states that alone overflow a
/// chip, a sequence longer than a group holds.
NamedPlan planStaticLayout(const TrainSetup &setup,
                           const std::vector<int64_t> &lengths,
                           const step::GroupLayout &layout,
                           const prog::CommTimeFn &commTime);

/// Model chunks per stage of the interleaved pipelines the baselines and
/// the static search try beside plain 1F1B (Megatron-LM's interleaved
/// schedule; 2 is the smallest interleaving and halves the bubble).
constexpr int64_t kBaselineVirtualStages = 2;

/// The baselines a report compares against, in this order: static-sp-<d>
/// for every power-of-two d dividing the world and the heads; the fastest
/// feasible Megatron tensor x context layout (tp a power of two within a
/// node and dividing the heads, cp a power of two); the fastest feasible
/// 1F1B pipeline (p a power of two from 2 up to min(layers, world / tp),
/// tp as above); the fastest feasible interleaved 1F1B pipeline of the
/// same degrees with kBaselineVirtualStages model chunks per stage (p times
/// that at most the layers); both planned with ZeRO-1 as Megatron-LM does.
/// Infeasible static SP degrees are kept with their error; a family with no
/// feasible layout is kept with the error of its largest layout.
std::vector<NamedPlan> standardBaselines(const TrainSetup &setup,
                                         const std::vector<int64_t> &lengths,
                                         const prog::CommTimeFn &commTime);

} // namespace plexus::baselines

#endif // PLEXUS_PASSES_BASELINES_STEPPLANNERS_H
