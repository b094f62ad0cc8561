#include "passes/StepModel/LayerWork.h"

#include <algorithm>
#include <cmath>

namespace plexus::step {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t roundBytes(double bytes) {
  return static_cast<int64_t>(std::llround(bytes));
}

} // namespace

std::pair<int64_t, int64_t> stageLayers(int64_t layers, int64_t stages,
                                        int64_t stage) {
  int64_t base = layers / stages, extra = layers % stages;
  int64_t begin = stage * base + std::min(stage, extra);
  return {begin, begin + base + (stage < extra ? 1 : 0)};
}

double computeSecondsFor(const TrainModel &model, double flops) {
  return flops / (model.chip.bf16Flops * model.efficiency);
}

cost::CostResult<LayerWork> layerWork(const TrainModel &model,
                                      const GroupLayout &layout,
                                      const std::vector<int64_t> &lengths,
                                      int64_t layer, int64_t zeroWays) {
  cost::CostResult<LayerWork> result;
  const cost::TransformerShape &shape = model.shape;
  const double split =
      static_cast<double>(layout.ulysses * layout.tp * layout.cp);
  const double tokenSplit = static_cast<double>(layout.ulysses * layout.cp);
  const int64_t e = cost::bytesPerElement(shape.dtype);
  const int64_t d = cost::effectiveHeadDim(shape);

  double fwd = 0, rec = 0, kept = 0, recBytes = 0, tokens = 0;
  for (int64_t len : lengths) {
    cost::Slice slice{len, 0};
    auto flops = cost::layerForwardFlops(shape, layer, slice);
    if (!flops.ok()) {
      result.problems = flops.problems;
      return result;
    }
    fwd += flops.value.total();
    rec += cost::recomputeFlops(flops.value, model.checkpointing);
    auto act =
        cost::activationBytesPerToken(shape, layer, slice, model.checkpointing,
                                      model.attention);
    if (!act.ok()) {
      result.problems = act.problems;
      return result;
    }
    kept += static_cast<double>(act.value) * static_cast<double>(len);
    if (model.checkpointing == cost::Checkpointing::Full) {
      auto full = cost::activationBytesPerToken(shape, layer, slice,
                                                cost::Checkpointing::Selective);
      recBytes += static_cast<double>(full.value - act.value) *
                  static_cast<double>(len);
    }
    tokens += static_cast<double>(len);
  }
  LayerWork &w = result.value;
  w.forwardFlops = fwd / split;
  w.recomputeFlops = rec / split;
  w.backwardFlops = cost::backwardFlops(cost::LayerFlops{0, 0, fwd}) / split;
  w.keptBytes = roundBytes(kept / split);
  w.recomputeBytes = roundBytes(recBytes / split);
  const double localTokens = tokens / tokenSplit;
  if (layout.ulysses > 1) {
    // Q and the attention output (heads x d each) and K, V (kv heads x d
    // each) of this rank's tokens; heads are already split by tp.
    double width =
        static_cast<double>(2 * shape.heads * d + 2 * shape.kvHeads * d) /
        static_cast<double>(layout.tp);
    // The all-to-all moves whole blocks: round up to a multiple of ulysses.
    int64_t bytes = roundBytes(localTokens * width * static_cast<double>(e));
    w.allToAllBytes = ceilDiv(bytes, layout.ulysses) * layout.ulysses;
  }
  if (layout.tp > 1)
    w.tpAllReduceBytes =
        roundBytes(2 * localTokens * static_cast<double>(shape.hidden * e));
  if (layout.cp > 1) {
    int64_t bytes = roundBytes(
        localTokens * static_cast<double>(cost::kvBytesPerToken(shape)) /
        static_cast<double>(layout.tp));
    w.cpKvBytes = ceilDiv(bytes, layout.cp) * layout.cp;
  }
  w.paramBytes = ceilDiv(cost::layerParameters(shape, layer) * e, layout.tp);
  w.paramShardBytes = ceilDiv(w.paramBytes, zeroWays);
  return result;
}

int64_t carriedParameters(const cost::TransformerShape &shape, int64_t begin,
                          int64_t end) {
  int64_t params = 0;
  for (int64_t l = begin; l < end; ++l)
    params += cost::layerParameters(shape, l);
  const int64_t embedding = shape.vocab * shape.hidden;
  if (begin == 0)
    params += embedding;
  if (end == shape.layers)
    params += shape.hidden + (shape.tiedEmbeddings ? 0 : embedding);
  return params;
}

int64_t residentBytes(const TrainModel &model, const GroupLayout &layout,
                      int64_t stage, int64_t zeroWays, int64_t layersPerOp) {
  auto [begin, end] = stageLayers(model.shape.layers, layout.pp, stage);
  const int64_t e = cost::bytesPerElement(model.shape.dtype);
  // The stage's parameters, the embedding on stage 0 and the final norm
  // and head on the last. The two prefetch buffers of ZeRO-3 are sized by
  // the largest chunk of layers: the embedding and head travel with their
  // chunks' gathers but are not counted in those buffers (docs/lowering.md).
  int64_t params = carriedParameters(model.shape, begin, end), largestOp = 0;
  for (int64_t l = begin; l < end; l += layersPerOp) {
    int64_t chunk = 0;
    for (int64_t k = l; k < std::min(end, l + layersPerOp); ++k)
      chunk += cost::layerParameters(model.shape, k);
    largestOp = std::max(largestOp, chunk);
  }
  params = ceilDiv(params, layout.tp);
  auto states = cost::modelStateBytesPerChip(params, model.zero, zeroWays);
  int64_t bytes = states.ok() ? states.value : 0;
  if (model.zero == 3 && zeroWays > 1)
    bytes += 2 * ceilDiv(largestOp, layout.tp) * e;
  return bytes;
}

} // namespace plexus::step
