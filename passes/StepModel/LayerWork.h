//===- LayerWork.h - Per-layer work of a planned group ----------*- C++ -*-===//
//
// What one rank of a group does per layer (FLOPs, kept and recomputed
// activation bytes, the bytes of its layout's collectives), which layers a
// pipeline stage holds and what it keeps resident. The planners estimate
// with these and the lowering emits ops from them, so a plan's estimate and
// its lowered programs count the same work. Plain C++ over the cost model.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_STEPMODEL_LAYERWORK_H
#define PLEXUS_PASSES_STEPMODEL_LAYERWORK_H

#include "passes/Cost/TransformerCost.h"
#include "passes/StepModel/PipelinePlan.h"
#include "passes/StepModel/StepPlan.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace plexus::step {

/// The per-layer work of one group over its sequences, for one rank of it
/// (every rank of a stage does the same amount).
struct LayerWork {
  double forwardFlops = 0;   ///< this rank's share, the head's included
  double recomputeFlops = 0; ///< spent again before the backward
  double backwardFlops = 0;
  /// The same work in seconds on the model's chip (its rates()).
  double forwardSeconds = 0, recomputeSeconds = 0, backwardSeconds = 0;
  int64_t keptBytes = 0;        ///< kept from fwd to bwd (logits included)
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

/// One layer of one chunk (slices of sequences) for one rank of a group
/// with `layout`: tokens split over ulysses * cp ranks, heads and
/// activations over tp as well. What the lowering emits (StepLowering.h).
struct ChunkLayerCost {
  double forwardFlops = 0; ///< this rank's share
  /// The output head's forward, this rank's share (the model's last layer
  /// only; vocab-parallel over tp like Megatron-LM's output layer). Its
  /// backward is twice this and checkpointing never recomputes it.
  double headFlops = 0;
  /// The recomputation `activations` implies (the attention core under
  /// Selective, 0 under None), this rank's share.
  double coreFlops = 0;
  /// forwardFlops, headFlops and coreFlops in seconds on the model's chip
  /// at its rates(): the rank's GEMMs once over all its tokens
  /// (cost::layerGemmSeconds, tokens / (ulysses x cp) rows, weights over
  /// tp) and each slice's attention core and elementwise kernels
  /// (cost::layerKernelSeconds over the layout's split); a backward takes
  /// twice its forward's seconds.
  double forwardSeconds = 0, headSeconds = 0, coreSeconds = 0;
  /// Kept from forward to backward when the layer is not checkpointed
  /// (under `activations` and the model's attention kernel).
  int64_t fullBytes = 0;
  /// Kept when it is checkpointed: its input (Checkpointing::Full's bytes)
  /// plus the K and V of split slices, which later slices attend to.
  int64_t checkpointBytes = 0;
  /// dK / dV of split slices' context, held from forward to backward.
  int64_t dkvBytes = 0;
  /// The loss's fp32 softmax of the logits (cost::logitBytesPerToken), held
  /// from forward to backward by the model's last layer only, checkpointed
  /// or not.
  int64_t logitBytes = 0;
  int64_t allToAllBytes = 0;    ///< Ulysses, per pass
  int64_t tpAllReduceBytes = 0; ///< tensor parallel, per pass
  int64_t cpKvBytes = 0;        ///< context parallel: this rank's K and V
  int64_t paramBytes = 0;       ///< the layer's weights / tp
  int64_t paramShardBytes = 0;  ///< ZeRO: this rank's shard of them
};

/// Cost of layer `layer` for `slices` (sequence ids into `lengths`; a
/// slice [b, e) attends to its b context tokens; a slice that is not its
/// whole sequence is split) on one rank of a group with `layout`, ZeRO over
/// `zeroWays` ranks. With no slices, only the parameter fields are set.
/// Problems as cost::layerForwardFlops.
cost::CostResult<ChunkLayerCost>
chunkLayerCost(const TrainModel &model, const GroupLayout &layout,
               cost::Checkpointing activations,
               const std::vector<ChunkSlice> &slices,
               const std::vector<int64_t> &lengths, int64_t layer,
               int64_t zeroWays);

/// The layers [begin, end) of stage `stage` of `stages`: L / p each, the
/// first L mod p stages one more.
std::pair<int64_t, int64_t> stageLayers(int64_t layers, int64_t stages,
                                        int64_t stage);

/// The layer ranges stage `stage` of `layout` holds, in model order: one,
/// stageLayers(L, pp, stage), or with vpp > 1 one per model chunk c,
/// stageLayers(L, pp * vpp, c * pp + stage).
std::vector<std::pair<int64_t, int64_t>>
rankLayerRanges(int64_t layers, const GroupLayout &layout, int64_t stage);

/// Parameters that travel with layers [begin, end) when a collective
/// carries them (ZeRO-3 gathers and reductions, the data-parallel sync):
/// the layers', plus the token embedding when begin = 0, plus the final
/// norm and (untied) output head when end is the model's last layer.
int64_t carriedParameters(const cost::TransformerShape &shape, int64_t begin,
                          int64_t end);

/// A rank's ZeRO shard of what layers [begin, end) carry beyond their own
/// parameters (the embedding, the final norm and the head): the extra
/// parameters' bytes split over `tp`, then over `zeroWays` ranks. The
/// lowering adds it to the range's gathers and reductions; the planners'
/// ZeRO-3 stream estimates add it alike.
int64_t carriedExtraShardBytes(const cost::TransformerShape &shape,
                               int64_t begin, int64_t end, int64_t tp,
                               int64_t zeroWays);

/// What residentBytes is made of: the mixed-precision model states split as
/// bf16 weights, bf16 gradients and the fp32 optimizer states (master
/// weights, Adam m and v), each as ZeRO shards it, and the gathered
/// weights ZeRO-3 adds (two prefetch buffers, or the stage's whole weights
/// and gradients when it runs once per step). total() == residentBytes.
struct ResidentParts {
  int64_t weights = 0, gradients = 0, optimizer = 0, gathered = 0;
  int64_t total() const { return weights + gradients + optimizer + gathered; }
};
ResidentParts residentParts(const TrainModel &model, const GroupLayout &layout,
                            int64_t stage, int64_t zeroWays,
                            int64_t layersPerOp = 1);

/// Bytes a rank holds for the whole step: model states of its stage's
/// parameters (divided by tp) under ZeRO over `zeroWays` ranks, plus (ZeRO
/// 3) two gathered layer buffers (one in use, one prefetched).
int64_t residentBytes(const TrainModel &model, const GroupLayout &layout,
                      int64_t stage, int64_t zeroWays, int64_t layersPerOp = 1);

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_LAYERWORK_H
