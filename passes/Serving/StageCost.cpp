//===- StageCost.cpp - Time of a micro-batch on a pipeline stage ----------===//

#include "passes/Serving/StageCost.h"

#include <algorithm>
#include <cmath>

namespace plexus::serving {

double PrefillWeight::operator()(int64_t cached, int64_t fresh) const {
  double c = double(cached), x = double(fresh);
  // (c + x)^2 - c^2 = x (2c + x), without the cancellation.
  return alpha * x + beta * x * (2 * c + x);
}

//===----------------------------------------------------------------------===//
// LinearStageCost
//===----------------------------------------------------------------------===//

double LinearStageCost::prefillSeconds(int64_t stage,
                                       const PrefillBatch &b) const {
  if (b.requests == 0)
    return 0;
  const LinearStageCoefficients &k = c[size_t(stage)];
  return k.prefillFixed + k.prefillPerToken * double(b.tokens) +
         k.prefillPerQuad * b.quadratic;
}

double LinearStageCost::decodeSeconds(int64_t stage,
                                      const DecodeBatch &b) const {
  if (b.requests == 0)
    return 0;
  const LinearStageCoefficients &k = c[size_t(stage)];
  return k.decodeFixed + k.decodePerToken * double(b.tokens()) +
         k.decodePerKv * double(b.kvTokens);
}

double LinearStageCost::hopSeconds(int64_t stage, int64_t tokens) const {
  const LinearStageCoefficients &k = c[size_t(stage)];
  return k.hopFixed + k.hopPerToken * double(tokens);
}

PrefillWeight LinearStageCost::prefillWeight() const {
  PrefillWeight w;
  for (const LinearStageCoefficients &k : c) {
    w.alpha += k.prefillPerToken;
    w.beta += k.prefillPerQuad;
    w.gamma = std::max(w.gamma, k.prefillFixed);
  }
  return w;
}

//===----------------------------------------------------------------------===//
// TransformerStageCost
//===----------------------------------------------------------------------===//

Result<std::shared_ptr<const TransformerStageCost>>
TransformerStageCost::create(const cost::TransformerShape &shape,
                             const ServingHardware &hw,
                             const ServingLayout &layout,
                             const ServingCostOptions &options) {
  using R = Result<std::shared_ptr<const TransformerStageCost>>;
  std::string problem = checkServingLayout(shape, layout);
  if (!problem.empty())
    return R::fail(problem);
  if (!(hw.chip.bf16Flops > 0) || !(hw.chip.hbmBandwidth > 0))
    return R::fail("the chip needs a BF16 peak and an HBM bandwidth");
  if (!(hw.intraBandwidth() > 0) || !(hw.interNodeBandwidth > 0))
    return R::fail("the intra- and inter-node bandwidths must be positive");
  for (double f : {options.gemmEfficiency, options.attentionEfficiency,
                   options.memoryEfficiency, options.linkEfficiency})
    if (!(f > 0 && f <= 1))
      return R::fail("every efficiency must be in (0, 1]");
  if (!(options.commOverlap >= 0 && options.commOverlap <= 1))
    return R::fail("the communication overlap must be in [0, 1]");

  std::shared_ptr<TransformerStageCost> m(new TransformerStageCost());
  m->shape = shape;
  m->hw = hw;
  m->layout = layout;
  m->options = options;
  std::vector<int64_t> counts = stageLayerCounts(shape, layout);
  int64_t first = 0;
  for (int64_t n : counts) {
    int64_t denseEnd = shape.isMoE() ? shape.denseLayers : shape.layers;
    int64_t d = std::max<int64_t>(0, std::min(first + n, denseEnd) - first);
    m->firstLayer.push_back(first);
    m->dense.push_back(d);
    m->moe.push_back(n - d);
    first += n;
  }
  bool fp8 = shape.dtype == cost::DType::FP8 && hw.chip.fp8Flops > 0;
  m->gemmPeak =
      (fp8 ? hw.chip.fp8Flops : hw.chip.bf16Flops) * options.gemmEfficiency;
  m->attnPeak = hw.chip.bf16Flops * options.attentionEfficiency;
  m->hbm = hw.chip.hbmBandwidth * options.memoryEfficiency;

  m->denseBytes = layerBytesPerChip(shape, layout, 0);
  m->moeBytes = layerBytesPerChip(shape, layout, shape.layers - 1);
  m->mtpBytes = m->moeBytes;
  m->mtpBytes.fixedMlp += 2.0 * double(shape.hidden) * double(shape.hidden) *
                          double(cost::bytesPerElement(shape.dtype));
  m->attnParams = double(cost::attentionParameters(shape));
  m->denseActive = double(cost::mlpParameters(shape, shape.ffn));
  m->moeActive =
      shape.isMoE() ? double(shape.topK + shape.sharedExperts) *
                              double(cost::mlpParameters(shape, shape.moeFfn)) +
                          double(shape.hidden) * double(shape.experts)
                    : m->denseActive;
  double kvHeads = layout.dpAttention
                       ? double(shape.kvHeads)
                       : double((shape.kvHeads + layout.ep - 1) / layout.ep);
  m->kvPerTokenLayer = 2.0 * kvHeads * double(cost::effectiveHeadDim(shape)) *
                       double(options.kvBytesPerElement);

  // Expected distinct remote ranks (and nodes) a token's top-k experts live
  // on, with experts spread evenly and routing uniform.
  const double ep = double(layout.ep);
  const double k = double(shape.isMoE() ? shape.topK : 0);
  if (layout.ep > 1 && shape.isMoE()) {
    double n = double(nodesPerEpGroup(layout, hw));
    double perRank = 1 - std::pow(1 - 1 / ep, k);
    if (n > 1 && options.interNodeDedup)
      m->remoteNodes = (n - 1) * (1 - std::pow(1 - 1 / n, k));
    else if (n > 1)
      m->remoteNodes = (ep - ep / n) * perRank; // one copy per remote rank
    m->remoteRanks = (std::min(ep, double(hw.chipsPerNode)) - 1) * perRank;
  }
  return R::ok(std::move(m));
}

double TransformerStageCost::combine(double compute, double comm) const {
  return compute + comm - options.commOverlap * std::min(compute, comm);
}

double TransformerStageCost::allToAllSeconds(double tokens) const {
  if (layout.ep <= 1 || !shape.isMoE())
    return 0;
  const double perChip = tokens / double(layout.ep);
  const double bytes =
      double(shape.hidden) *
      double(options.dispatchBytesPerElement + options.combineBytesPerElement);
  double intra = perChip * remoteRanks * bytes /
                 (hw.intraBandwidth() * options.linkEfficiency);
  if (nodesPerEpGroup(layout, hw) == 1)
    return intra + 2 * options.intraAllToAllLatency;
  double inter = perChip * remoteNodes * bytes /
                 (hw.interNodeBandwidth * options.linkEfficiency);
  return std::max(intra, inter) + 2 * options.interAllToAllLatency;
}

double TransformerStageCost::allReduceSeconds(double tokens) const {
  if (layout.dpAttention || layout.ep <= 1)
    return 0;
  const double ep = double(layout.ep);
  double bw = nodesPerEpGroup(layout, hw) == 1 ? hw.intraBandwidth()
                                               : hw.interNodeBandwidth;
  double bytes = 2 * (ep - 1) / ep * tokens * double(shape.hidden) *
                 double(options.activationBytesPerElement);
  return bytes / (bw * options.linkEfficiency) + options.allReduceLatency;
}

double TransformerStageCost::layerPrefill(bool isDense,
                                          const PrefillBatch &b) const {
  const double ep = double(layout.ep);
  const double x = double(b.tokens);
  double active = isDense ? denseActive : moeActive;
  double linear = 2 * x * (attnParams + active) / ep;
  double quad = layout.dpAttention && !options.dpAttentionSpreadsRequests
                    ? std::max(b.quadratic / ep, b.maxQuadratic)
                    : b.quadratic / ep;
  // 4 heads head_dim FLOPs per query-key pair, quad / 2 pairs.
  double core =
      2 * double(shape.heads) * double(cost::effectiveHeadDim(shape)) * quad;
  double compute = linear / gemmPeak + core / attnPeak;
  const LayerBytesPerChip &bytes = isDense ? denseBytes : moeBytes;
  compute = std::max(compute, bytes.total() / hbm);
  double comm = (isDense ? 0 : allToAllSeconds(x)) + allReduceSeconds(x);
  return combine(compute, comm) + options.layerOverheadSeconds;
}

double TransformerStageCost::layerDecode(bool isDense,
                                         const DecodeBatch &b) const {
  const double ep = double(layout.ep);
  const double t = double(b.tokens());
  double active = isDense ? denseActive : moeActive;
  double linear = 2 * t * (attnParams + active) / ep;
  // KV tokens the busiest chip reads, and the attention it computes.
  double kvRead, corePairs;
  if (layout.dpAttention) {
    kvRead = options.dpAttentionSpreadsRequests
                 ? double(b.kvTokens) / ep
                 : std::max(double(b.kvTokens) / ep, double(b.maxKv));
    corePairs = kvRead * double(b.tokensPerRequest);
  } else {
    kvRead = double(b.kvTokens);
    corePairs = double(b.kvTokens) * double(b.tokensPerRequest) / ep;
  }
  double core = 4 * double(shape.heads) *
                double(cost::effectiveHeadDim(shape)) * corePairs;
  double compute = linear / gemmPeak + core / attnPeak;
  const LayerBytesPerChip &bytes = isDense ? denseBytes : moeBytes;
  double routedShare = 0;
  if (!isDense && shape.isMoE())
    routedShare =
        1 - std::pow(1 - double(shape.topK) / double(shape.experts), t);
  double traffic = bytes.attention + bytes.fixedMlp +
                   bytes.routedExperts * routedShare + kvRead * kvPerTokenLayer;
  double comm = (isDense ? 0 : allToAllSeconds(t)) + allReduceSeconds(t);
  return combine(std::max(compute, traffic / hbm), comm) +
         options.layerOverheadSeconds;
}

double TransformerStageCost::decodeLayerSeconds(int64_t index,
                                                const DecodeBatch &b) const {
  if (b.requests == 0)
    return 0;
  bool isDense = !shape.isMoE() || index < shape.denseLayers;
  return layerDecode(isDense, b);
}

double
TransformerStageCost::decodeStageExtraSeconds(int64_t stage,
                                              const DecodeBatch &b) const {
  if (stage != layout.pp - 1 || b.requests == 0)
    return 0;
  const double vocabBytes = double(shape.vocab) * double(shape.hidden) *
                            double(cost::bytesPerElement(shape.dtype)) /
                            double(layout.ep);
  auto lmHead = [&](double tokens) {
    double flops = 2 * tokens * double(shape.vocab) * double(shape.hidden) /
                   double(layout.ep);
    return std::max(flops / gemmPeak, vocabBytes / hbm);
  };
  double extra = lmHead(double(b.tokens())) + options.samplingSeconds;
  if (layout.mtpDrafts > 0) {
    // verify -> extend -> draft: each draft is one pass of the MTP layers
    // and the LM head over one token per request.
    DecodeBatch draft = b;
    draft.tokensPerRequest = 1;
    bool isDense = !shape.isMoE();
    double pass = double(shape.mtpLayers) *
                      (layerDecode(isDense, draft) +
                       (mtpBytes.fixedMlp - moeBytes.fixedMlp) / hbm) +
                  lmHead(double(b.requests));
    extra += double(layout.mtpDrafts) * pass;
  }
  return extra;
}

double TransformerStageCost::decodeSeconds(int64_t stage,
                                           const DecodeBatch &b) const {
  if (b.requests == 0)
    return 0;
  size_t s = size_t(stage);
  double t = 0;
  if (dense[s] > 0)
    t += double(dense[s]) * layerDecode(true, b);
  if (moe[s] > 0)
    t += double(moe[s]) * layerDecode(false, b);
  return t + decodeStageExtraSeconds(stage, b);
}

double TransformerStageCost::prefillSeconds(int64_t stage,
                                            const PrefillBatch &b) const {
  if (b.requests == 0)
    return 0;
  size_t s = size_t(stage);
  double t = options.microBatchOverheadSeconds;
  if (dense[s] > 0)
    t += double(dense[s]) * layerPrefill(true, b);
  if (moe[s] > 0)
    t += double(moe[s]) * layerPrefill(false, b);
  if (stage == layout.pp - 1) {
    // Logits of each request's last position, sampling, and with MTP the
    // MTP layers over the new tokens (the first drafts).
    double flops = 2 * double(b.requests) * double(shape.vocab) *
                   double(shape.hidden) / double(layout.ep);
    t += flops / gemmPeak + options.samplingSeconds;
    if (layout.mtpDrafts > 0)
      t += double(shape.mtpLayers) * layerPrefill(!shape.isMoE(), b);
  }
  return t;
}

double TransformerStageCost::hopSeconds(int64_t stage, int64_t tokens) const {
  if (layout.pp == 1)
    return 0;
  bool crosses = stageBoundaryCrossesNodes(layout, hw, stage);
  double latency = crosses ? options.p2pLatencyInter : options.p2pLatencyIntra;
  if (stage == layout.pp - 1)
    return latency; // accepted lengths and drafts back to stage 0
  double bw = crosses ? hw.interNodeBandwidth : hw.intraBandwidth();
  return double(tokens) * double(shape.hidden) *
             double(options.activationBytesPerElement) /
             (double(layout.ep) * bw * options.linkEfficiency) +
         latency;
}

double TransformerStageCost::interNodeBytesPerTokenPerMoeLayer() const {
  if (nodesPerEpGroup(layout, hw) == 1)
    return 0;
  return remoteNodes * double(shape.hidden) *
         double(options.dispatchBytesPerElement +
                options.combineBytesPerElement);
}

double
TransformerStageCost::interNodeBytesPerTokenPerBoundary(int64_t stage) const {
  if (stage >= layout.pp - 1 || !stageBoundaryCrossesNodes(layout, hw, stage))
    return 0;
  return double(shape.hidden) * double(options.activationBytesPerElement);
}

PrefillWeight TransformerStageCost::prefillWeight() const {
  // Per stage: seconds per new token and per unit of (c+x)^2 - c^2 from the
  // compute and the bandwidth part of the communication; the fixed part
  // (overheads, latencies) is gamma.
  const double ep = double(layout.ep);
  const double perQ = 2 * double(shape.heads) *
                      double(cost::effectiveHeadDim(shape)) / ep / attnPeak;
  auto perToken = [&](bool isDense) {
    double active = isDense ? denseActive : moeActive;
    double comm = (isDense ? 0 : allToAllSeconds(1) - allToAllSeconds(0)) +
                  (allReduceSeconds(1) - allReduceSeconds(0));
    return 2 * (attnParams + active) / ep / gemmPeak + comm;
  };
  auto fixed = [&](bool isDense) {
    return (isDense ? 0 : allToAllSeconds(0)) + allReduceSeconds(0) +
           options.layerOverheadSeconds;
  };
  PrefillWeight w;
  for (int64_t s = 0; s < layout.pp; ++s) {
    size_t i = size_t(s);
    double layers = double(dense[i] + moe[i]);
    double mtpLayers = s == layout.pp - 1 && layout.mtpDrafts > 0
                           ? double(shape.mtpLayers)
                           : 0.0;
    bool mtpDense = !shape.isMoE();
    w.alpha += double(dense[i]) * perToken(true) +
               double(moe[i]) * perToken(false) +
               mtpLayers * perToken(mtpDense);
    w.beta += (layers + mtpLayers) * perQ;
    if (s < layout.pp - 1)
      w.alpha += hopSeconds(s, 1) - hopSeconds(s, 0);
    double g = options.microBatchOverheadSeconds +
               double(dense[i]) * fixed(true) + double(moe[i]) * fixed(false) +
               mtpLayers * fixed(mtpDense) +
               (s < layout.pp - 1 ? hopSeconds(s, 0) : 0.0);
    w.gamma = std::max(w.gamma, g);
  }
  return w;
}

} // namespace plexus::serving
