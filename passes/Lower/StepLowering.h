//===- StepLowering.h - A planned step as per-rank programs -----*- C++ -*-===//
//
// Turns one planned training step (micro-batches of parallel groups, each
// with a layout of Ulysses SP, tensor, context and pipeline parallelism and
// the sequences it processes) into the program of every rank: compute ops
// with their FLOPs, time and memory, the collectives each layout needs, and
// the point-to-point messages of a 1F1B pipeline. Times come from the cost
// model (passes/Cost/TransformerCost.h); the programs mirror the rt dialect
// (passes/Simulate/EventSimulator.h's Op), so the simulator runs them as they
// are and `plx-lower-to-rt` prints them as rt ops. The lowering never
// re-plans: a plan it cannot run is an error. Plain C++, deterministic,
// errors as values. Communication volumes and layouts: docs/lowering.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_LOWER_STEPLOWERING_H
#define PLEXUS_PASSES_LOWER_STEPLOWERING_H

#include "passes/Cost/ChipCatalog.h"
#include "passes/Cost/TransformerCost.h"
#include "passes/Cost/TransformerShape.h"
#include "passes/Simulate/EventSimulator.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace plexus::lower {

/// What the cost of a step depends on besides the plan.
struct TrainModel {
  cost::TransformerShape shape;
  cost::ChipSpec chip;
  /// Achieved fraction of the chip's dense BF16 peak (0, 1].
  double efficiency = cost::kDefaultMatmulEfficiency;
  cost::Checkpointing checkpointing = cost::Checkpointing::Selective;
  int64_t zero = 3; ///< ZeRO stage 0..3 over the data-parallel ranks
  /// The attention kernel's activations without checkpointing (fused
  /// unless the strategy says `attention = eager`).
  cost::AttentionKernel attention = cost::AttentionKernel::Fused;
};

/// How a group's ranks split the work. degree() = ulysses * tp * cp * pp.
/// Local rank ((stage * ulysses + u) * cp + c) * tp + t: tensor innermost,
/// then context (together the tensor ring of passes/Instantiate/JobGroups.h),
/// then Ulysses, then stages.
struct GroupLayout {
  int64_t ulysses = 1, tp = 1, cp = 1, pp = 1;
  int64_t degree() const { return ulysses * tp * cp * pp; }
  bool operator==(const GroupLayout &o) const {
    return ulysses == o.ulysses && tp == o.tp && cp == o.cp && pp == o.pp;
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

struct LoweringOptions {
  /// Layers per compute op (and per ZeRO-3 gather): 1 is the finest grain.
  /// A stage's last op takes what is left.
  int64_t layersPerOp = 1;
};

/// The per-layer work of one group over its sequences, for one rank of it
/// (every rank of a stage does the same amount).
struct LayerWork {
  double forwardFlops = 0;   ///< this rank's share
  double recomputeFlops = 0; ///< spent again before the backward
  double backwardFlops = 0;
  int64_t keptBytes = 0;        ///< activations kept from fwd to bwd
  int64_t recomputeBytes = 0;   ///< extra bytes live from recompute to bwd
  int64_t allToAllBytes = 0;    ///< Ulysses, per pass (fwd and bwd alike)
  int64_t tpAllReduceBytes = 0; ///< tensor parallel, per pass
  int64_t cpKvBytes = 0;        ///< context parallel: this rank's K and V
  int64_t paramShardBytes = 0;  ///< ZeRO-3: this rank's bf16 shard
  int64_t paramBytes = 0;       ///< the layer's bf16 weights / tp
};

/// Work of layer `layer` for one rank of a group with `layout` running the
/// sequences of `lengths` (tokens each), with ZeRO sharding over
/// `zeroWays` ranks. Problems as cost::layerForwardFlops.
cost::CostResult<LayerWork> layerWork(const TrainModel &model,
                                      const GroupLayout &layout,
                                      const std::vector<int64_t> &lengths,
                                      int64_t layer, int64_t zeroWays);

/// The layers [begin, end) of stage `stage` of `stages`: L / p each, the
/// first L mod p stages one more.
std::pair<int64_t, int64_t> stageLayers(int64_t layers, int64_t stages,
                                        int64_t stage);

/// Parameters that travel with layers [begin, end) when a collective
/// carries them (ZeRO-3 gathers and reductions, the data-parallel sync):
/// the layers', plus the token embedding when begin = 0, plus the final
/// norm and (untied) output head when end is the model's last layer.
int64_t carriedParameters(const cost::TransformerShape &shape, int64_t begin,
                          int64_t end);

/// Bytes a rank holds for the whole step: model states of its stage's
/// parameters (divided by tp) under ZeRO over `zeroWays` ranks, plus (ZeRO
/// 3) two gathered layer buffers (one in use, one prefetched).
int64_t residentBytes(const TrainModel &model, const GroupLayout &layout,
                      int64_t stage, int64_t zeroWays, int64_t layersPerOp = 1);

/// A communicator's name: its kind and its ranks, ranges compressed
/// ("sp:0-7", "dp:0-56/8", "tp:3,9,12"). Equal rank sets of one kind get
/// the same name, so a runtime can create each communicator once.
std::string communicatorName(const std::string &kind,
                             const std::vector<int64_t> &ranks);

/// The 1F1B order of stage `stage` of `stages` over `m` micro-batches:
/// +i is the forward of micro-batch i, -(i+1) its backward. Warm-up
/// min(p - s - 1, m) forwards, then one forward / one backward, then the
/// remaining backwards.
std::vector<int64_t> oneFOneBOrder(int64_t stages, int64_t stage, int64_t m);

struct LoweredStep {
  std::vector<sim::Program> programs; ///< programs[r] runs on rank r
  double totalFlops = 0;              ///< over every rank
  std::string error;                  ///< empty on success
  bool ok() const { return error.empty(); }
};

/// The ring orders placement chose (plan.comm_group's `order`), keyed by
/// the communicator's members in increasing order.
using RingOrders = std::map<std::vector<int64_t>, std::vector<int64_t>>;

/// Lists every communicator of `programs` whose members placement ordered
/// (a key of `orders`) in that order: collectives' ranks and compute ops'
/// Ulysses groups. Every op over one rank set names it the same way
/// afterwards, so the j-th listed rank is the same on every member (ZeRO
/// shard j, Ulysses part j), and a runtime builds its NCCL or MPI
/// communicator in the ring order placement chose.
void applyRingOrders(std::vector<sim::Program> &programs,
                     const RingOrders &orders);

/// Lowers `plan` to one program per rank. Checks that every micro-batch's
/// groups are disjoint and cover [0, world), that sequence ids have
/// lengths, that tensor and pipeline degrees are the same in every group of
/// the step (they decide which ranks share parameters), that a pipelined
/// step keeps the same groups in every micro-batch and uses ZeRO <= 2, and
/// that layers and heads split as the layout needs.
LoweredStep lowerStep(const StepPlan &plan, const TrainModel &model,
                      const LoweringOptions &options = {});

/// Seconds of `flops` on the model's chip at its efficiency.
double computeSecondsFor(const TrainModel &model, double flops);

} // namespace plexus::lower

#endif // PLEXUS_PASSES_LOWER_STEPLOWERING_H
