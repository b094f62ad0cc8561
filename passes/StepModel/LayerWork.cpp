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

std::vector<std::pair<int64_t, int64_t>>
rankLayerRanges(int64_t layers, const GroupLayout &layout, int64_t stage) {
  if (layout.vpp <= 1)
    return {stageLayers(layers, layout.pp, stage)};
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t c = 0; c < layout.vpp; ++c)
    out.push_back(
        stageLayers(layers, layout.pp * layout.vpp, c * layout.pp + stage));
  return out;
}

cost::CostResult<ChunkLayerCost>
chunkLayerCost(const TrainModel &model, const GroupLayout &layout,
               cost::Checkpointing activations,
               const std::vector<ChunkSlice> &slices,
               const std::vector<int64_t> &lengths, int64_t layer,
               int64_t zeroWays) {
  cost::CostResult<ChunkLayerCost> result;
  ChunkLayerCost &c = result.value;
  const cost::TransformerShape &shape = model.shape;
  const int64_t e = cost::bytesPerElement(shape.dtype);
  c.paramBytes = ceilDiv(cost::layerParameters(shape, layer) * e, layout.tp);
  c.paramShardBytes = ceilDiv(c.paramBytes, zeroWays);
  if (slices.empty())
    return result;
  const double split =
      static_cast<double>(layout.ulysses * layout.tp * layout.cp);
  const double tokenSplit = static_cast<double>(layout.ulysses * layout.cp);
  const int64_t d = cost::effectiveHeadDim(shape);
  const cost::ComputeRates rates = model.rates();
  double fwd = 0, head = 0, core = 0, full = 0, input = 0, tokens = 0,
         splitTokens = 0;
  // The slices' attention cores and elementwise kernels, whole slices'.
  cost::LayerSeconds kernels;
  for (const ChunkSlice &s : slices) {
    const cost::Slice slice{s.tokens(), s.begin};
    auto flops = cost::layerForwardFlops(shape, layer, slice);
    if (!flops.ok()) {
      result.problems = flops.problems;
      return result;
    }
    auto seconds =
        cost::layerKernelSeconds(shape, layer, slice, rates, model.attention);
    if (!seconds.ok()) {
      result.problems = seconds.problems;
      return result;
    }
    fwd += flops.value.total();
    kernels.attentionProjections += seconds.value.attentionProjections;
    kernels.attentionCore += seconds.value.attentionCore;
    kernels.feedForward += seconds.value.feedForward;
    if (layer == shape.layers - 1)
      head += cost::headForwardFlops(shape, s.tokens());
    core += cost::recomputeFlops(flops.value, activations);
    auto kept = cost::activationBytesPerToken(shape, layer, slice, activations,
                                              model.attention);
    if (!kept.ok()) {
      result.problems = kept.problems;
      return result;
    }
    const double n = static_cast<double>(s.tokens());
    full += static_cast<double>(kept.value) * n;
    input += static_cast<double>(cost::activationBytesPerToken(
                                     shape, layer, slice,
                                     cost::Checkpointing::Full)
                                     .value) *
             n;
    tokens += n;
    if (s.begin > 0 ||
        s.end < lengths[static_cast<size_t>(s.sequence)])
      splitTokens += n;
  }
  c.forwardFlops = fwd / split;
  c.headFlops = head / split;
  c.coreFlops = core / split;
  // The rank's GEMMs run once over all its tokens (the slices packed), on
  // tokens / (ulysses x cp) rows with the weights split over tp.
  const double rankTokens = tokens / tokenSplit;
  auto gemms =
      cost::layerGemmSeconds(shape, layer, rankTokens, layout.tp, rates);
  if (!gemms.ok()) {
    result.problems = gemms.problems;
    return result;
  }
  cost::LayerSeconds rank = gemms.value;
  rank.attentionProjections += kernels.attentionProjections / split;
  rank.attentionCore += kernels.attentionCore / split;
  rank.feedForward += kernels.feedForward / split;
  c.forwardSeconds = rank.total();
  if (layer == shape.layers - 1)
    c.headSeconds =
        cost::headForwardSeconds(shape, rankTokens, rates, layout.tp);
  c.coreSeconds = cost::recomputeSeconds(rank, activations);
  c.fullBytes = roundBytes(full / split);
  c.dkvBytes = roundBytes(
      splitTokens * static_cast<double>(cost::kvBytesPerToken(shape)) / split);
  c.checkpointBytes = roundBytes(input / split) + c.dkvBytes;
  if (layer == shape.layers - 1)
    c.logitBytes = roundBytes(
        tokens * static_cast<double>(cost::logitBytesPerToken(shape)) / split);
  if (layout.ulysses > 1) {
    // Q and the attention output (heads x d each) and K, V (kv heads x d
    // each) of this rank's tokens; heads are already split by tp. The
    // all-to-all moves whole blocks: a multiple of ulysses.
    const double width =
        static_cast<double>(2 * shape.heads * d + 2 * shape.kvHeads * d) /
        static_cast<double>(layout.tp);
    const int64_t bytes =
        roundBytes(rankTokens * width * static_cast<double>(e));
    c.allToAllBytes = ceilDiv(bytes, layout.ulysses) * layout.ulysses;
  }
  if (layout.tp > 1)
    c.tpAllReduceBytes =
        roundBytes(2 * rankTokens * static_cast<double>(shape.hidden * e));
  if (layout.cp > 1) {
    const int64_t bytes = roundBytes(
        rankTokens * static_cast<double>(cost::kvBytesPerToken(shape)) /
        static_cast<double>(layout.tp));
    c.cpKvBytes = ceilDiv(bytes, layout.cp) * layout.cp;
  }
  return result;
}

cost::CostResult<LayerWork> layerWork(const TrainModel &model,
                                      const GroupLayout &layout,
                                      const std::vector<int64_t> &lengths,
                                      int64_t layer, int64_t zeroWays) {
  // Whole sequences are chunk slices [0, length); full checkpointing is a
  // checkpointed layer over selective activations.
  std::vector<ChunkSlice> slices;
  for (size_t i = 0; i < lengths.size(); ++i)
    slices.push_back({static_cast<int64_t>(i), 0, lengths[i]});
  const cost::Checkpointing mode = model.checkpointingAt(layer);
  const bool full = mode == cost::Checkpointing::Full;
  auto c = chunkLayerCost(model, layout,
                          full ? cost::Checkpointing::Selective : mode, slices,
                          lengths, layer, zeroWays);
  cost::CostResult<LayerWork> result;
  if (!c.ok()) {
    result.problems = c.problems;
    return result;
  }
  LayerWork &w = result.value;
  w.forwardFlops = c.value.forwardFlops + c.value.headFlops;
  w.recomputeFlops = full ? c.value.forwardFlops : c.value.coreFlops;
  w.backwardFlops = 2 * w.forwardFlops;
  w.forwardSeconds = c.value.forwardSeconds + c.value.headSeconds;
  w.recomputeSeconds = full ? c.value.forwardSeconds : c.value.coreSeconds;
  w.backwardSeconds = 2 * w.forwardSeconds;
  w.keptBytes =
      (full ? c.value.checkpointBytes : c.value.fullBytes) + c.value.logitBytes;
  w.recomputeBytes = full ? c.value.fullBytes - c.value.checkpointBytes : 0;
  w.allToAllBytes = c.value.allToAllBytes;
  w.tpAllReduceBytes = c.value.tpAllReduceBytes;
  w.cpKvBytes = c.value.cpKvBytes;
  w.paramShardBytes = c.value.paramShardBytes;
  w.paramBytes = c.value.paramBytes;
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

int64_t carriedExtraShardBytes(const cost::TransformerShape &shape,
                               int64_t begin, int64_t end, int64_t tp,
                               int64_t zeroWays) {
  int64_t layers = 0;
  for (int64_t l = begin; l < end; ++l)
    layers += cost::layerParameters(shape, l);
  const int64_t extra = carriedParameters(shape, begin, end) - layers;
  if (extra <= 0)
    return 0;
  return ceilDiv(ceilDiv(extra * cost::bytesPerElement(shape.dtype),
                         std::max<int64_t>(1, tp)),
                 std::max<int64_t>(1, zeroWays));
}

int64_t residentBytes(const TrainModel &model, const GroupLayout &layout,
                      int64_t stage, int64_t zeroWays, int64_t layersPerOp) {
  return residentParts(model, layout, stage, zeroWays, layersPerOp).total();
}

ResidentParts residentParts(const TrainModel &model, const GroupLayout &layout,
                            int64_t stage, int64_t zeroWays,
                            int64_t layersPerOp) {
  const int64_t e = cost::bytesPerElement(model.shape.dtype);
  // The stage's parameters (every model chunk's), the embedding on stage 0
  // and the final norm and head on the last. The two prefetch buffers of
  // ZeRO-3 are sized by the largest chunk of layers: the embedding and head
  // travel with their chunks' gathers but are not counted in those buffers
  // (docs/lowering.md).
  int64_t params = 0, largestOp = 0;
  for (auto [begin, end] : rankLayerRanges(model.shape.layers, layout, stage)) {
    params += carriedParameters(model.shape, begin, end);
    for (int64_t l = begin; l < end; l += layersPerOp) {
      int64_t chunk = 0;
      for (int64_t k = l; k < std::min(end, l + layersPerOp); ++k)
        chunk += cost::layerParameters(model.shape, k);
      largestOp = std::max(largestOp, chunk);
    }
  }
  params = ceilDiv(params, layout.tp);
  auto states = cost::modelStateBytesPerChip(params, model.zero, zeroWays);
  ResidentParts parts;
  if (states.ok()) {
    // 2 bytes of weights and 2 of gradients per parameter, sharded from
    // ZeRO 3 and 2 on; the optimizer's 12 take the rest of the total, so
    // the parts add up to its rounding.
    const int64_t ways = std::max<int64_t>(1, zeroWays);
    parts.weights = model.zero >= 3 ? ceilDiv(2 * params, ways) : 2 * params;
    parts.gradients = model.zero >= 2 ? ceilDiv(2 * params, ways) : 2 * params;
    parts.optimizer = states.value - parts.weights - parts.gradients;
  }
  if (model.zero == 3 && zeroWays > 1) {
    if (model.zeroOncePerStep)
      parts.gathered = 2 * params * e; // the stage's weights and gradients
    else
      parts.gathered = 2 * ceilDiv(largestOp, layout.tp) * e;
  }
  return parts;
}

} // namespace plexus::step
