//===- StepPlan.h - A training step as planned ------------------*- C++ -*-===//
//
// The plan data every planner writes and every later stage reads: what a
// step's cost depends on besides the plan (TrainModel), how a group's ranks
// split the work (GroupLayout), and a step planned as micro-batches of
// parallel groups (StepPlan). A step planned as 1F1B pipelines of chunks is
// PipelinePlan.h. Plain C++ (no MLIR, no planner, no lowering), so that the
// planners (passes/AdaptiveSP, DynamicPP, Baselines), the lowering
// (passes/Lower) and the drivers share it without depending on each other.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_STEPMODEL_STEPPLAN_H
#define PLEXUS_PASSES_STEPMODEL_STEPPLAN_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/TransformerShape.h"
#include "passes/Cost/TransformerCost.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plexus::step {

/// What the cost of a step depends on besides the plan.
struct TrainModel {
  cost::TransformerShape shape;
  cost::ChipSpec chip;
  /// Achieved fraction of the chip's dense BF16 peak on GEMMs (0, 1].
  double efficiency = cost::kDefaultMatmulEfficiency;
  /// The attention core's and the memory-bound kernels' rates; unset, the
  /// flat model (cost::ComputeRates). A job's model takes its chip's
  /// (train::trainSetupOf).
  std::optional<cost::KernelRates> kernels;
  cost::ComputeRates rates() const {
    return {chip.bf16Flops, chip.hbmBandwidth, efficiency, kernels,
            chip.fp8Flops};
  }
  cost::Checkpointing checkpointing = cost::Checkpointing::Selective;
  /// The strategy's checkpoint_layers: `checkpointing` applies to the
  /// model's first this many layers (Megatron-LM's --recompute-method block
  /// --recompute-num-layers on an unpipelined model) and the others run as
  /// checkpointingPast() says; 0: every layer. A plan that picks another
  /// mode than the job's applies it to every layer (withCheckpointing).
  int64_t checkpointLayers = 0;
  /// How layer `layer` checkpoints.
  cost::Checkpointing checkpointingAt(int64_t layer) const {
    return checkpointLayers <= 0 || layer < checkpointLayers
               ? checkpointing
               : checkpointingPast();
  }
  /// The layers past checkpointLayers: under attention_mlp or full with a
  /// fused attention kernel they keep what the kernel keeps and its
  /// backward recomputes the scores (the cost model's selective, as
  /// flash-attention runs such as FlexSP's 7B scripts do); otherwise
  /// (selective limited to the first layers, or eager attention) they
  /// keep everything (none).
  cost::Checkpointing checkpointingPast() const {
    const bool beyondCore =
        checkpointing == cost::Checkpointing::AttentionMlp ||
        checkpointing == cost::Checkpointing::Full;
    return beyondCore && attention == cost::AttentionKernel::Fused
               ? cost::Checkpointing::Selective
               : cost::Checkpointing::None;
  }
  /// Full recomputation on every layer.
  bool fullEverywhere() const {
    return checkpointing == cost::Checkpointing::Full &&
           (checkpointLayers <= 0 || checkpointLayers >= shape.layers);
  }
  /// This model with `mode` on every layer, or unchanged when `mode` is
  /// its own.
  TrainModel withCheckpointing(cost::Checkpointing mode) const {
    TrainModel m = *this;
    if (mode != checkpointing) {
      m.checkpointing = mode;
      m.checkpointLayers = 0;
    }
    return m;
  }
  int64_t zero = 3; ///< ZeRO stage 0..3 over the data-parallel ranks
  /// The attention kernel's activations without checkpointing (fused
  /// unless the strategy says `attention = eager`).
  cost::AttentionKernel attention = cost::AttentionKernel::Fused;
  /// ZeRO-3 as a pipeline's tailored FSDP does it (InfiniPipe): each rank
  /// gathers its stage's weights once, layer by layer in its first forward
  /// of the step, keeps them and accumulates its gradients whole, and
  /// reduce-scatters them once, layer by layer in its last backward.
  /// Otherwise every forward gathers and every backward gathers again and
  /// reduce-scatters (DeepSpeed's ZeRO-3 per micro-batch). Set by the
  /// dynamic-pipeline planner (docs/lowering.md, "ZeRO-3").
  bool zeroOncePerStep = false;
  /// Layers ZeRO-3 gathers ahead on the communication stream (the
  /// strategy's zero_prefetch): 1 gathers the next layer beside the
  /// current one's compute; 0 gathers each layer on demand, and the
  /// gather waits for the stream's earlier collectives (one NCCL queue per
  /// device), so none of ZeRO-3's traffic hides under compute
  /// (docs/cost-model.md, "ZeRO-3 prefetch").
  int64_t zeroPrefetch = 1;
};

/// How a group's ranks split the work. degree() = ulysses * tp * cp * pp.
/// Local rank ((stage * ulysses + u) * cp + c) * tp + t: tensor innermost,
/// then context (together the tensor ring of passes/Instantiate/JobGroups.h),
/// then Ulysses, then stages.
struct GroupLayout {
  int64_t ulysses = 1, tp = 1, cp = 1, pp = 1;
  /// Model chunks per pipeline stage (Megatron-LM's virtual pipeline
  /// size): with vpp > 1 the layers split into pp * vpp virtual stages,
  /// virtual stage j on stage j mod pp, run by interleaved 1F1B
  /// (step::interleavedStageOrder). It does not change the degree.
  int64_t vpp = 1;
  int64_t degree() const { return ulysses * tp * cp * pp; }
  bool operator==(const GroupLayout &o) const {
    return ulysses == o.ulysses && tp == o.tp && cp == o.cp && pp == o.pp &&
           vpp == o.vpp;
  }
};

/// Where a rank sits inside its group.
struct RankPosition {
  int64_t stage = 0, c = 0, u = 0, t = 0;
};
RankPosition positionOf(const GroupLayout &layout, int64_t localRank);
int64_t localRankOf(const GroupLayout &layout, const RankPosition &pos);

struct PlannedGroup {
  GroupLayout layout;
  int64_t firstRank = 0;
  std::vector<int64_t> seqs; ///< sequence ids (indices into the lengths)
  double seconds = 0;        ///< the planner's estimate
  int64_t memBytes = 0;      ///< the planner's per-rank memory estimate
};

struct PlannedMicroBatch {
  std::vector<PlannedGroup> groups; ///< disjoint, together every rank
  double seconds = 0;
};

struct StepPlan {
  std::string strategy;         ///< e.g. "static-sp-64"
  int64_t world = 0;            ///< ranks
  std::vector<int64_t> lengths; ///< tokens of each sequence id
  std::vector<PlannedMicroBatch> microBatches;
  double seconds = 0;
  int64_t peakMemBytes = 0;
};

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_STEPPLAN_H
