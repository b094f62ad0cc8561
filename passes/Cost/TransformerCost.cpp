//===- TransformerCost.cpp - FLOPs, bytes and memory of a layer ----------===//
//
// Derivations of every formula here: docs/cost-model.md ("Per-layer FLOPs,
// bytes and memory"). Parameter counts come from TransformerShape.cpp so that
// the FLOP model and the parameter model cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "passes/Cost/TransformerCost.h"

#include <optional>

#include <algorithm>
#include <cmath>
#include <limits>

namespace plexus::cost {

namespace {

// Mixed-precision Adam, the same split as JobRules.cpp: bf16 weights (2) +
// bf16 gradients (2) + fp32 master weights, momentum and variance (12).
constexpr int64_t kTrainBytesPerParameter = 16;
constexpr int64_t kWeightAndGradBytes = 4;
constexpr int64_t kWeightBytes = 2;
// Dropout masks are kept as one byte per element, whatever the dtype.
constexpr int64_t kMaskBytes = 1;
constexpr int64_t kLogSumExpBytes = 4; // fp32 softmax statistics per head

std::string num(int64_t v) { return std::to_string(v); }

// ceil(a / b) for a >= 0, b >= 1.
int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

bool usesDenseMlp(const TransformerShape &s, int64_t index) {
  return !s.isMoE() || index < s.denseLayers;
}

// Every field of TransformerShape; a new field must be compared here too.
static_assert(sizeof(TransformerShape) == 120,
              "TransformerShape changed: update sameShape");
bool sameShape(const TransformerShape &a, const TransformerShape &b) {
  return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads &&
         a.kvHeads == b.kvHeads && a.headDim == b.headDim && a.ffn == b.ffn &&
         a.vocab == b.vocab && a.mlp == b.mlp &&
         a.tiedEmbeddings == b.tiedEmbeddings && a.experts == b.experts &&
         a.topK == b.topK && a.sharedExperts == b.sharedExperts &&
         a.moeFfn == b.moeFfn && a.denseLayers == b.denseLayers &&
         a.mtpLayers == b.mtpLayers && a.dtype == b.dtype;
}

/// The shape's problems, remembering the last shape found valid: the
/// per-layer functions run millions of times on one shape in a large step.
void addShapeProblems(const TransformerShape &s,
                      std::vector<CostProblem> &problems) {
  thread_local std::optional<TransformerShape> lastValid;
  if (lastValid && sameShape(*lastValid, s))
    return;
  std::vector<ShapeProblem> found = checkTransformerShape(s);
  if (found.empty())
    lastValid = s;
  for (const ShapeProblem &p : found)
    problems.push_back({p.field, p.message});
}

// Problems shared by every per-layer, per-slice function.
std::vector<CostProblem> checkLayerSlice(const TransformerShape &s,
                                         int64_t index, Slice slice) {
  std::vector<CostProblem> problems;
  addShapeProblems(s, problems);
  if (problems.empty() && (index < 0 || index >= s.layers))
    problems.push_back({"layer", "layer index " + num(index) +
                                     " is outside [0, " + num(s.layers) + ")"});
  if (slice.tokens < 1)
    problems.push_back({"tokens", "a slice needs at least one token, but has " +
                                      num(slice.tokens)});
  if (slice.context < 0)
    problems.push_back({"context", "context (" + num(slice.context) +
                                       ") must not be negative"});
  return problems;
}

} // namespace

CostResult<LayerFlops> layerForwardFlops(const TransformerShape &shape,
                                         int64_t layerIndex, Slice slice) {
  CostResult<LayerFlops> result;
  result.problems = checkLayerSlice(shape, layerIndex, slice);
  if (!result.ok())
    return result;

  // A GEMM of an m x k input by a k x n weight costs 2·m·k·n FLOPs: per token,
  // 2 FLOPs per weight it touches.
  double tokens = double(slice.tokens);
  LayerFlops &f = result.value;
  f.attentionProjections = 2.0 * tokens * double(attentionParameters(shape));

  // Causal attention over keys [0, C + s) for queries [C, C + s): about
  // ((C+s)^2 - C^2) / 2 query-key pairs (the diagonal's s/2 is dropped), each
  // costing 2·heads·headDim for the score and as much for the weighted V.
  double end = double(slice.context + slice.tokens);
  double start = double(slice.context);
  double pairs = (end * end - start * start) / 2.0;
  double perPair =
      2.0 * 2.0 * double(shape.heads) * double(effectiveHeadDim(shape));
  f.attentionCore = perPair * pairs;

  double ffParameters;
  if (usesDenseMlp(shape, layerIndex)) {
    ffParameters = double(mlpParameters(shape, shape.ffn));
  } else {
    double active = double(shape.topK + shape.sharedExperts);
    double router = double(shape.hidden) * double(shape.experts);
    ffParameters = active * double(mlpParameters(shape, shape.moeFfn)) + router;
  }
  f.feedForward = 2.0 * tokens * ffParameters;
  return result;
}

double headForwardFlops(const TransformerShape &shape, int64_t tokens) {
  if (tokens < 1)
    return 0;
  return 2.0 * static_cast<double>(tokens) * static_cast<double>(shape.hidden) *
         static_cast<double>(shape.vocab);
}

int64_t logitBytesPerToken(const TransformerShape &shape) {
  return shape.vocab * kLossBytesPerLogit;
}

double backwardFlops(const LayerFlops &forward) {
  return 2.0 * forward.total();
}

const char *checkpointingName(Checkpointing mode) {
  switch (mode) {
  case Checkpointing::None:
    return "none";
  case Checkpointing::Selective:
    return "selective";
  case Checkpointing::Full:
    return "full";
  case Checkpointing::AttentionMlp:
    return "attention_mlp";
  }
  return "selective"; // not reached for a valid enumerator
}

double recomputeFlops(const LayerFlops &forward, Checkpointing mode) {
  switch (mode) {
  case Checkpointing::None:
    return 0.0;
  case Checkpointing::Selective:
    return forward.attentionCore;
  case Checkpointing::Full:
    return forward.total();
  case Checkpointing::AttentionMlp:
    return forward.attentionCore + forward.feedForward;
  }
  return 0.0; // not reached for a valid enumerator
}

LayerTrainFlops layerTrainFlops(const LayerFlops &forward, Checkpointing mode) {
  return {forward.total(), backwardFlops(forward),
          recomputeFlops(forward, mode)};
}

int64_t layerWeightBytes(const TransformerShape &shape, int64_t layerIndex) {
  return layerParameters(shape, layerIndex) * bytesPerElement(shape.dtype);
}

CostResult<int64_t> activationBytesPerToken(const TransformerShape &shape,
                                            int64_t layerIndex, Slice slice,
                                            Checkpointing mode,
                                            AttentionKernel kernel) {
  CostResult<int64_t> result;
  result.problems = checkLayerSlice(shape, layerIndex, slice);
  if (!result.ok())
    return result;

  const int64_t e = bytesPerElement(shape.dtype);
  const int64_t h = shape.hidden;
  if (mode == Checkpointing::Full) {
    // Only the layer's input survives; everything else is recomputed.
    result.value = e * h;
    return result;
  }

  const int64_t d = effectiveHeadDim(shape);
  const int64_t q = shape.heads * d;    // query (and O input) width
  const int64_t kv = shape.kvHeads * d; // key and value width each

  // Inputs of the two norms.
  int64_t norms = 2 * e * h;
  // Attention outside the core: the shared Q/K/V input, Q and K (for the
  // scores), V (for the weighted sum), the O projection's input, and the
  // dropout mask after O.
  int64_t attention = e * h + e * (q + kv) + e * kv + e * q + kMaskBytes * h;
  // The feed-forward's GEMM inputs and intermediate tensors: GeLU keeps its
  // input and output (2 tensors of width w); SwiGLU the gate and up outputs
  // and their product (3 tensors).
  int64_t innerTensors = shape.mlp == MlpKind::SwiGLU ? 3 : 2;
  int64_t feedForward;
  if (mode == Checkpointing::AttentionMlp) {
    // The MLP block is recomputed from its input, which alone is kept
    // (experts and router included: they rerun from the same input).
    feedForward = e * h;
  } else if (usesDenseMlp(shape, layerIndex)) {
    feedForward = e * h + innerTensors * e * shape.ffn;
  } else {
    // Each active expert keeps its own copy of the token's input.
    int64_t active = shape.topK + shape.sharedExperts;
    feedForward = active * (e * h + innerTensors * e * shape.moeFfn);
  }
  if (mode != Checkpointing::AttentionMlp)
    feedForward += kMaskBytes * h; // dropout mask after the feed-forward
  int64_t kept = norms + attention + feedForward;

  if (mode == Checkpointing::None && kernel == AttentionKernel::Eager) {
    // The attention core: softmax output and dropout output (dtype) and the
    // dropout mask (1 byte) for every head and every key the token sees.
    int64_t keys = slice.context + slice.tokens;
    kept += (2 * e + kMaskBytes) * shape.heads * keys;
  } else if (mode == Checkpointing::None) {
    // A fused kernel recomputes the scores in its backward from Q, K, V and
    // the output (all kept above) and the fp32 log-sum-exp of each head.
    kept += kLogSumExpBytes * shape.heads;
  }
  result.value = kept;
  return result;
}

int64_t kvBytesPerToken(const TransformerShape &shape) {
  return 2 * shape.kvHeads * effectiveHeadDim(shape) *
         bytesPerElement(shape.dtype);
}

CostResult<int64_t> modelStateBytesPerChip(int64_t parameters, int64_t zero,
                                           int64_t dataParallel) {
  CostResult<int64_t> result;
  constexpr int64_t kMaxParameters =
      std::numeric_limits<int64_t>::max() / kTrainBytesPerParameter;
  if (parameters < 0)
    result.problems.push_back({"parameters", "parameters (" + num(parameters) +
                                                 ") must not be negative"});
  else if (parameters > kMaxParameters)
    result.problems.push_back(
        {"parameters", "parameters (" + num(parameters) + ") exceed " +
                           num(kMaxParameters) +
                           ", the most whose 16 bytes each fit in int64"});
  if (zero < 0 || zero > 3)
    result.problems.push_back(
        {"zero", "zero (" + num(zero) + ") must be 0, 1, 2 or 3"});
  if (dataParallel < 1)
    result.problems.push_back(
        {"data_parallel",
         "the data-parallel width (" + num(dataParallel) + ") must be >= 1"});
  if (!result.ok())
    return result;

  // Bytes per parameter replicated on every rank, plus the rest sharded over
  // the data-parallel width and rounded up (JobRules.cpp's convention).
  auto split = [&](int64_t replicated) {
    return parameters * replicated +
           ceilDiv(parameters * (kTrainBytesPerParameter - replicated),
                   dataParallel);
  };
  switch (zero) {
  case 0:
    result.value = parameters * kTrainBytesPerParameter;
    break;
  case 1:
    result.value = split(kWeightAndGradBytes);
    break;
  case 2:
    result.value = split(kWeightBytes);
    break;
  default:
    result.value = split(0);
    break;
  }
  return result;
}

ComputeRates chipRates(const ChipSpec &chip) {
  ComputeRates r;
  r.peakFlops = chip.bf16Flops;
  r.fp8Flops = chip.fp8Flops;
  r.hbmBandwidth = chip.hbmBandwidth;
  r.gemmEfficiency = chip.gemmEfficiency;
  KernelRates k;
  k.attentionEfficiency = chip.attentionEfficiency;
  k.memoryEfficiency = chip.memoryEfficiency;
  k.smCount = chip.smCount;
  r.kernels = k;
  return r;
}

double ComputeRates::gemmPeak(DType dtype) const {
  if (!kernels)
    return peakFlops;
  if (dtype == DType::FP8 && fp8Flops > 0)
    return fp8Flops;
  if (dtype == DType::FP32 && kernels->smCount > 0)
    return peakFlops / 2; // TF32 tensor cores
  return peakFlops;
}

double ComputeRates::attentionPeak(DType dtype) const {
  return dtype == DType::FP32 ? gemmPeak(dtype) : peakFlops;
}

GemmTiming gemmTiming(const Gemm &g, DType dtype, const ComputeRates &rates) {
  GemmTiming t;
  const double flops = g.flops();
  if (!(flops > 0))
    return t;
  const double rate = rates.gemmPeak(dtype) * rates.gemmEfficiency;
  t.computeSeconds = flops / rate;
  if (!rates.kernels) {
    t.seconds = t.computeSeconds;
    return t;
  }
  const KernelRates &k = *rates.kernels;
  if (k.smCount > 0) {
    const double sms = static_cast<double>(k.smCount);
    const double rows = static_cast<double>(k.tileRows);
    const double cols = static_cast<double>(k.tileCols);
    t.tiles = g.groups * std::ceil(g.m / rows) * std::ceil(g.n / cols);
    if (t.tiles < sms)
      t.split = std::max(
          1.0,
          std::min(std::floor(sms / t.tiles),
                   std::floor(g.k / static_cast<double>(k.splitKMinDepth))));
    t.waves = std::ceil(t.tiles * t.split / sms);
    t.computeSeconds =
        t.waves * rows * cols * 2 * (g.k / t.split) / (rate / sms);
  }
  // Split-K's fp32 partials are not charged: fewer tiles than SMs hold at
  // most smCount x tileRows x tileCols x 4 bytes of them (8.7 MB on 132
  // SMs), which stay in L2 (50 MB on H100, 40 MB on A100).
  const double e = static_cast<double>(bytesPerElement(dtype));
  const double bytes = g.groups * (g.m * g.k + g.k * g.n + g.m * g.n) * e;
  t.memorySeconds = bytes / (rates.hbmBandwidth * k.memoryEfficiency);
  t.seconds = std::max(t.computeSeconds, t.memorySeconds);
  return t;
}

double gemmSeconds(const Gemm &g, DType dtype, const ComputeRates &rates) {
  return gemmTiming(g, dtype, rates).seconds;
}

LayerGemms layerGemms(const TransformerShape &shape, int64_t layerIndex,
                      double tokens, int64_t tp) {
  LayerGemms out;
  const double t = static_cast<double>(std::max<int64_t>(1, tp));
  const double h = static_cast<double>(shape.hidden);
  const double d = static_cast<double>(effectiveHeadDim(shape));
  const double q = static_cast<double>(shape.heads) * d;
  const double kv = static_cast<double>(shape.kvHeads) * d;
  out.projections.push_back({tokens, (q + 2 * kv) / t, h});
  out.projections.push_back({tokens, h, q / t});
  // Gate and up run as one GEMM of twice the width under SwiGLU.
  const double up = shape.mlp == MlpKind::SwiGLU ? 2 : 1;
  if (usesDenseMlp(shape, layerIndex)) {
    const double w = static_cast<double>(shape.ffn);
    out.feedForward.push_back({tokens, up * w / t, h});
    out.feedForward.push_back({tokens, h, w / t});
    return out;
  }
  const double w = static_cast<double>(shape.moeFfn);
  const double experts = static_cast<double>(shape.experts);
  // The router runs on every rank's share of the tokens; its FLOPs split
  // over tp like the rest of the layer's.
  out.feedForward.push_back({tokens / t, experts, h});
  if (shape.sharedExperts > 0) {
    const double shared = static_cast<double>(shape.sharedExperts) * w;
    out.feedForward.push_back({tokens, up * shared / t, h});
    out.feedForward.push_back({tokens, h, shared / t});
  }
  // At most tokens x top_k experts receive a token: the others run no
  // problem (a grouped GEMM skips empty groups).
  const double assignments = tokens * static_cast<double>(shape.topK);
  const double groups = std::min(experts, std::max(1.0, assignments));
  const double rows = assignments / groups;
  out.feedForward.push_back({rows, up * w / t, h, groups});
  out.feedForward.push_back({rows, h, w / t, groups});
  return out;
}

Gemm headGemm(const TransformerShape &shape, double tokens, int64_t tp) {
  return {tokens,
          static_cast<double>(shape.vocab) /
              static_cast<double>(std::max<int64_t>(1, tp)),
          static_cast<double>(shape.hidden)};
}

int64_t eagerScoreBytes(const TransformerShape &shape) {
  return 4 * bytesPerElement(shape.dtype) + kMaskBytes;
}

ElementwiseBytes elementwiseBytesPerToken(const TransformerShape &shape,
                                          int64_t layerIndex) {
  const int64_t e = bytesPerElement(shape.dtype);
  const int64_t h = shape.hidden;
  const int64_t norm = 2 * e * h;
  const int64_t add = 3 * e * h + kMaskBytes * h;
  // The activation reads GeLU's input or SwiGLU's gate and up outputs and
  // writes its output, ffn wide each (per active expert under MoE).
  const int64_t tensors = shape.mlp == MlpKind::SwiGLU ? 3 : 2;
  int64_t inner = shape.ffn;
  if (!usesDenseMlp(shape, layerIndex))
    inner = (shape.topK + shape.sharedExperts) * shape.moeFfn;
  ElementwiseBytes b;
  b.attention = norm + add;
  b.mlp = norm + tensors * e * inner + add;
  return b;
}

namespace {

// The rate problems of layerForwardSeconds and its halves.
void checkRates(const ComputeRates &rates, std::vector<CostProblem> &problems) {
  auto rate = [&](const char *field, double v) {
    if (!(v > 0 && v <= 1))
      problems.push_back({field, std::string(field) + " must be in (0, 1]"});
  };
  rate("gemm_efficiency", rates.gemmEfficiency);
  if (rates.kernels) {
    rate("attention_efficiency", rates.kernels->attentionEfficiency);
    rate("memory_efficiency", rates.kernels->memoryEfficiency);
    if (!(rates.hbmBandwidth > 0))
      problems.push_back(
          {"hbm_bandwidth", "the chip needs a positive HBM bandwidth"});
  }
  if (!(rates.peakFlops > 0))
    problems.push_back({"chip", "the chip needs a positive BF16 peak"});
}

double sumSeconds(const std::vector<Gemm> &gemms, DType dtype,
                  const ComputeRates &rates) {
  double t = 0;
  for (const Gemm &g : gemms)
    t += gemmSeconds(g, dtype, rates);
  return t;
}

} // namespace

CostResult<LayerSeconds> layerGemmSeconds(const TransformerShape &shape,
                                          int64_t layerIndex, double tokens,
                                          int64_t tp,
                                          const ComputeRates &rates) {
  CostResult<LayerSeconds> result;
  addShapeProblems(shape, result.problems);
  if (result.ok() && (layerIndex < 0 || layerIndex >= shape.layers))
    result.problems.push_back({"layer", "layer index " + num(layerIndex) +
                                            " is outside [0, " +
                                            num(shape.layers) + ")"});
  if (!(tokens > 0))
    result.problems.push_back(
        {"tokens", "a rank's GEMMs need a positive token count"});
  if (tp < 1)
    result.problems.push_back(
        {"tp", "the tensor-parallel width (" + num(tp) + ") must be >= 1"});
  checkRates(rates, result.problems);
  if (!result.ok())
    return result;
  const LayerGemms gemms = layerGemms(shape, layerIndex, tokens, tp);
  result.value.attentionProjections =
      sumSeconds(gemms.projections, shape.dtype, rates);
  result.value.feedForward = sumSeconds(gemms.feedForward, shape.dtype, rates);
  return result;
}

CostResult<LayerSeconds> layerKernelSeconds(const TransformerShape &shape,
                                            int64_t layerIndex, Slice slice,
                                            const ComputeRates &rates,
                                            AttentionKernel kernel) {
  CostResult<LayerSeconds> result;
  auto flops = layerForwardFlops(shape, layerIndex, slice);
  result.problems = flops.problems;
  checkRates(rates, result.problems);
  if (!result.ok())
    return result;

  const LayerFlops &f = flops.value;
  // The attention's own GEMMs (an eager core's, or the flat model's core)
  // run at the GEMM efficiency of the attention's peak.
  const double gemm = rates.attentionPeak(shape.dtype) * rates.gemmEfficiency;
  LayerSeconds &t = result.value;
  if (!rates.kernels) {
    t.attentionCore = f.attentionCore / gemm;
    return result;
  }
  const double memory = rates.hbmBandwidth * rates.kernels->memoryEfficiency;
  const double tokens = static_cast<double>(slice.tokens);
  const ElementwiseBytes eb = elementwiseBytesPerToken(shape, layerIndex);
  t.attentionProjections = tokens * static_cast<double>(eb.attention) / memory;
  t.feedForward = tokens * static_cast<double>(eb.mlp) / memory;
  if (kernel == AttentionKernel::Fused) {
    t.attentionCore = f.attentionCore / (rates.attentionPeak(shape.dtype) *
                                         rates.kernels->attentionEfficiency);
  } else {
    // Every query scores every key of its rectangle, the masked ones too:
    // tokens x (context + tokens) scores per head against the causal pairs
    // layerForwardFlops counts, through two GEMMs and the softmax and
    // dropout kernels.
    const double end = static_cast<double>(slice.context + slice.tokens);
    const double start = static_cast<double>(slice.context);
    const double pairs = (end * end - start * start) / 2;
    const double rectangle = tokens * end;
    t.attentionCore = f.attentionCore * (rectangle / pairs) / gemm +
                      rectangle * static_cast<double>(shape.heads) *
                          static_cast<double>(eagerScoreBytes(shape)) / memory;
  }
  return result;
}

CostResult<LayerSeconds> layerForwardSeconds(const TransformerShape &shape,
                                             int64_t layerIndex, Slice slice,
                                             const ComputeRates &rates,
                                             AttentionKernel kernel) {
  CostResult<LayerSeconds> result =
      layerKernelSeconds(shape, layerIndex, slice, rates, kernel);
  if (!result.ok())
    return result;
  auto gemm = layerGemmSeconds(shape, layerIndex,
                               static_cast<double>(slice.tokens), 1, rates);
  result.value.attentionProjections += gemm.value.attentionProjections;
  result.value.feedForward += gemm.value.feedForward;
  return result;
}

double recomputeSeconds(const LayerSeconds &seconds, Checkpointing mode) {
  LayerFlops asFlops{seconds.attentionProjections, seconds.attentionCore,
                     seconds.feedForward};
  return recomputeFlops(asFlops, mode);
}

double headForwardSeconds(const TransformerShape &shape, double tokens,
                          const ComputeRates &rates, int64_t tp) {
  if (!(tokens > 0))
    return 0;
  return gemmSeconds(headGemm(shape, tokens, tp), shape.dtype, rates);
}

} // namespace plexus::cost
