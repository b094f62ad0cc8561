//===- DppCostModel.cpp - Time and memory of DPP's chunks -----------------===//
//
// Eqs. 1-4 and 11 of the reference per stage. See DppCostModel.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DppCostModel.h"

#include <algorithm>
#include <cmath>

namespace plexus::dpp {

namespace {

double gpus(const DppModel &m) {
  return static_cast<double>(m.activation.spDegree * m.activation.stages);
}

bool hasAllToAll(const DppModel &m) {
  return m.activation.spDegree > 1 && m.allToAllGBps > 0;
}

/// 2 L / d_p: the all-to-all rounds of one pass on one stage (Eq. 3).
double allToAllRounds(const DppModel &m) {
  return 2.0 * static_cast<double>(m.activation.layers) /
         static_cast<double>(m.activation.stages);
}

/// Sum over the chunk's pieces of ((C + s)^2 - C^2).
double attentionTokens2(const Chunk &c) {
  double sum = 0;
  for (size_t i = 0; i < c.pieces.size(); ++i) {
    const double ctx = i == 0 ? static_cast<double>(c.context()) : 0.0;
    const double s = static_cast<double>(c.pieces[i].tokens());
    sum += (ctx + s) * (ctx + s) - ctx * ctx;
  }
  return sum;
}

} // namespace

std::string dppModelProblem(const DppModel &m) {
  if (std::string why = ckpt::activationModelProblem(m.activation);
      !why.empty())
    return why;
  if (!(m.alpha1 >= 0) || !(m.alpha2 >= 0) || !(m.beta1 >= 0) ||
      !std::isfinite(m.alpha1 + m.alpha2 + m.beta1))
    return "alpha1, alpha2 and beta1 must be finite and non-negative";
  if (!(m.alpha1 > 0 || m.alpha2 > 0))
    return "alpha1 or alpha2 must be positive";
  if (!(m.forwardShare > 0 && m.forwardShare < 1))
    return "the forward's share of compute must lie in (0, 1)";
  if (!(m.allToAllGBps >= 0) || !(m.allToAllLatencyMs >= 0))
    return "all-to-all bandwidth and latency must be non-negative";
  if (!(m.memoryMB > 0))
    return "memory per GPU must be positive";
  if (static_cast<int64_t>(m.modelStatesMB.size()) != m.activation.stages)
    return "model states must be given for each of the " +
           std::to_string(m.activation.stages) + " stages";
  for (double ms : m.modelStatesMB)
    if (!(ms >= 0) || !std::isfinite(ms))
      return "model states must be finite and non-negative";
  if (m.sliceGranule < 1)
    return "the slice granule must be at least one token, not " +
           std::to_string(m.sliceGranule);
  return "";
}

double allToAllMsPerToken(const DppModel &m) {
  if (!hasAllToAll(m))
    return 0;
  const double bytes =
      static_cast<double>(m.activation.bytesPerElement *
                          (m.activation.hidden + m.activation.kvDim)) /
      static_cast<double>(m.activation.spDegree);
  // bytes / (GB/s * 1e9) s = bytes / (GB/s * 1e6) ms
  return bytes / (m.allToAllGBps * 1e6) * allToAllRounds(m);
}

double allToAllMsPerChunk(const DppModel &m) {
  if (!hasAllToAll(m))
    return 0;
  return 2.0 * m.allToAllLatencyMs * allToAllRounds(m);
}

SliceCost stageSliceCost(const DppModel &m) {
  SliceCost c;
  c.quadraticMs = m.alpha1 / gpus(m);
  c.linearMs = m.alpha2 / gpus(m) + 2.0 * allToAllMsPerToken(m);
  c.chunkMs = m.beta1 / static_cast<double>(m.activation.stages) +
              2.0 * allToAllMsPerChunk(m);
  return c;
}

double pieceWorkMs(const SliceCost &c, int64_t context, int64_t tokens) {
  const double ctx = static_cast<double>(context);
  const double s = static_cast<double>(tokens);
  return c.quadraticMs * ((ctx + s) * (ctx + s) - ctx * ctx) + c.linearMs * s;
}

double chunkGemmExcessMs(const DppModel &m, const Chunk &c) {
  return m.gemmExcessMs ? m.gemmExcessMs(c.tokens()) : 0.0;
}

ChunkTimes chunkTimes(const DppModel &m, const Chunk &c) {
  const double tokens = static_cast<double>(c.tokens());
  const double compute =
      (m.alpha1 * attentionTokens2(c) + m.alpha2 * tokens) / gpus(m) +
      m.beta1 / static_cast<double>(m.activation.stages) +
      chunkGemmExcessMs(m, c);
  const double a2a = allToAllMsPerToken(m) * tokens + allToAllMsPerChunk(m);
  ChunkTimes t;
  t.forwardMs = m.forwardShare * compute + a2a;
  t.backwardMs = (1.0 - m.forwardShare) * compute + a2a;
  return t;
}

double chunkStageMs(const DppModel &m, const Chunk &c) {
  const SliceCost cost = stageSliceCost(m);
  double t = cost.chunkMs + chunkGemmExcessMs(m, c);
  for (size_t i = 0; i < c.pieces.size(); ++i)
    t += pieceWorkMs(cost, i == 0 ? c.context() : 0, c.pieces[i].tokens());
  return t;
}

double recomputeMsPerLayer(const DppModel &m, const Chunk &c) {
  return chunkTimes(m, c).forwardMs * static_cast<double>(m.activation.stages) /
         static_cast<double>(m.activation.layers);
}

ckpt::ChunkFootprint chunkFootprint(const DppModel &m, const Chunk &c) {
  ckpt::ChunkFootprint f;
  f.tokens = c.tokens();
  if (c.hasSplitSlice() && (m.chargeTailKv || !c.tail))
    f.kvTokens = c.splitTokens();
  return f;
}

Result<DppModel> makeDppModel(const cost::ProfiledModel &profile,
                              const DppLayout &layout) {
  using R = Result<DppModel>;
  if (layout.spDegree < 1 || layout.stages < 1)
    return R::fail("the SP degree and the stage count must be at least 1");
  if (!(layout.memoryGB > 0) || !(layout.paramsGi >= 0))
    return R::fail("memory must be positive and the parameter count "
                   "non-negative");
  const int64_t n = layout.spDegree * layout.stages;
  DppModel m;
  m.activation.layers = profile.layers;
  m.activation.stages = layout.stages;
  m.activation.spDegree = layout.spDegree;
  m.activation.hidden = profile.hidden;
  m.activation.kvDim = profile.hidden;
  m.activation.bytesPerElement = 2;
  m.activation.tokenMB = cost::activationMBPerToken(profile, n);
  m.activation.logitsMB = 0;
  m.alpha1 = profile.alpha1;
  m.alpha2 = profile.alpha2;
  m.beta1 = layout.beta1Ms >= 0 ? layout.beta1Ms : profile.beta1;
  m.allToAllGBps = layout.allToAllGBps;
  m.allToAllLatencyMs = layout.allToAllLatencyMs;
  m.memoryMB = layout.memoryGB * 1024.0;
  m.modelStatesMB.assign(static_cast<size_t>(layout.stages),
                         layout.paramsGi * 16.0 * 1024.0 /
                             static_cast<double>(n));
  if (std::string why = dppModelProblem(m); !why.empty())
    return R::fail(why);
  return R::ok(std::move(m));
}

} // namespace plexus::dpp
