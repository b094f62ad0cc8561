//===- TransformerShape.cpp - Shape arithmetic of a transformer ----------===//
//
// Parameter counts of a decoder-only transformer (formulas and their checks
// against published models: docs/cost-model.md) and the structural rules a
// shape must obey before any of that arithmetic is meaningful.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/TransformerShape.h"

#include <algorithm>
#include <cstdio>

namespace plexus::cost {

int64_t bytesPerElement(DType dtype) {
  switch (dtype) {
  case DType::BF16:
  case DType::FP16:
    return 2;
  case DType::FP8:
    return 1;
  case DType::FP32:
    return 4;
  }
  return 2; // not reached for a valid enumerator
}

int64_t effectiveHeadDim(const TransformerShape &s) {
  if (s.headDim > 0)
    return s.headDim;
  return s.heads > 0 ? s.hidden / s.heads : 0;
}

namespace {

// The counting formulas, written once over the number type: int64_t for the
// public functions, double for the overflow guard in checkTransformerShape
// (a double cannot overflow on any int64 inputs these formulas see).
template <typename T> struct ParameterCount {
  const TransformerShape &s;

  T h() const { return T(s.hidden); }

  T attention() const {
    T qWidth = T(s.heads) * T(effectiveHeadDim(s));
    T kvWidth = T(s.kvHeads) * T(effectiveHeadDim(s));
    // Q: h -> heads*d, K and V: h -> kvHeads*d, O: heads*d -> h; no biases.
    return h() * qWidth + T(2) * h() * kvWidth + qWidth * h();
  }

  T mlp(int64_t width) const {
    T matrices = s.mlp == MlpKind::SwiGLU ? T(3) : T(2);
    return matrices * h() * T(width);
  }

  bool usesDenseMlp(int64_t index) const {
    return !s.isMoE() || index < s.denseLayers;
  }

  // Everything after attention: the dense MLP, or the experts and router.
  // `active` counts only the experts one token runs through.
  T feedForward(int64_t index, bool active) const {
    if (usesDenseMlp(index))
      return mlp(s.ffn);
    T routed = active ? T(s.topK) : T(s.experts);
    T router = h() * T(s.experts);
    return (routed + T(s.sharedExperts)) * mlp(s.moeFfn) + router;
  }

  T layer(int64_t index, bool active) const {
    if (index < 0 || index >= s.layers)
      return T(0);
    // Two norm weight vectors: before attention and before the MLP.
    return attention() + feedForward(index, active) + T(2) * h();
  }

  T mtpLayer(bool active) const {
    // A layer of the last layer's kind, a projection of the concatenated
    // [hidden state; next-token embedding] (2h) back to h, and two norms
    // (one for each half of that concatenation).
    if (s.layers <= 0)
      return T(0);
    return layer(s.layers - 1, active) + T(2) * h() * h() + T(2) * h();
  }

  T total(bool active) const {
    T sum = T(s.vocab) * h(); // input embedding
    if (!s.tiedEmbeddings)
      sum += T(s.vocab) * h(); // LM head
    sum += h();                // final norm
    // Layers come in at most two kinds; count each kind once.
    int64_t dense = s.isMoE() ? std::min(s.denseLayers, s.layers) : s.layers;
    if (dense > 0)
      sum += T(dense) * layer(0, active);
    if (s.layers - dense > 0)
      sum += T(s.layers - dense) * layer(s.layers - 1, active);
    if (s.layers > 0 && s.mtpLayers > 0)
      sum += T(s.mtpLayers) * mtpLayer(active);
    return sum;
  }
};

using IntCount = ParameterCount<int64_t>;

// Beyond this the byte arithmetic of the job rules (16 bytes per parameter)
// would come close to int64 range; no real model is near it.
constexpr double kMaxParameters = 1e15;

std::string num(int64_t v) { return std::to_string(v); }

} // namespace

int64_t attentionParameters(const TransformerShape &s) {
  return IntCount{s}.attention();
}

int64_t mlpParameters(const TransformerShape &s, int64_t width) {
  return IntCount{s}.mlp(width);
}

int64_t layerParameters(const TransformerShape &s, int64_t index) {
  return IntCount{s}.layer(index, /*active=*/false);
}

int64_t mtpLayerParameters(const TransformerShape &s) {
  return IntCount{s}.mtpLayer(/*active=*/false);
}

int64_t maxLayerParameters(const TransformerShape &s) {
  int64_t largest = 0;
  // Only the first and the last layer need looking at: all dense layers are
  // alike, and so are all MoE layers.
  if (s.layers > 0)
    largest = std::max(layerParameters(s, 0), layerParameters(s, s.layers - 1));
  return largest;
}

int64_t totalParameters(const TransformerShape &s) {
  return IntCount{s}.total(/*active=*/false);
}

int64_t activeParameters(const TransformerShape &s) {
  return IntCount{s}.total(/*active=*/true);
}

std::vector<ShapeProblem> checkTransformerShape(const TransformerShape &s) {
  std::vector<ShapeProblem> problems;
  auto report = [&](const char *field, std::string message) {
    problems.push_back({field, std::move(message)});
  };
  auto mustBePositive = [&](const char *field, int64_t value) {
    if (value <= 0)
      report(field,
             std::string(field) + " (" + num(value) + ") must be positive");
  };
  auto mustNotBeNegative = [&](const char *field, int64_t value) {
    if (value < 0)
      report(field,
             std::string(field) + " (" + num(value) + ") must not be negative");
  };

  // Sizes.
  mustBePositive("layers", s.layers);
  mustBePositive("hidden", s.hidden);
  mustBePositive("heads", s.heads);
  mustBePositive("kv_heads", s.kvHeads);
  if (s.headDim < 0)
    report("head_dim", "head_dim (" + num(s.headDim) +
                           ") must be positive; leave it out to derive it "
                           "as hidden / heads");
  if (s.isMoE() && s.denseLayers <= 0) {
    // A MoE model whose layers all use experts needs no dense MLP width.
    mustNotBeNegative("ffn", s.ffn);
  } else if (s.ffn <= 0) {
    std::string why = s.isMoE()
                          ? ": the first dense_layers (" + num(s.denseLayers) +
                                ") layers use the dense MLP"
                          : "";
    report("ffn", "ffn (" + num(s.ffn) + ") must be positive" + why);
  }
  mustBePositive("vocab", s.vocab);

  // Heads.
  if (s.headDim == 0 && s.heads > 0 && s.hidden > 0 && s.hidden % s.heads != 0)
    report("heads", "heads (" + num(s.heads) + ") must divide hidden (" +
                        num(s.hidden) +
                        ") when head_dim is not given; give head_dim "
                        "explicitly otherwise");
  if (s.heads > 0 && s.kvHeads > 0 && s.heads % s.kvHeads != 0)
    report("kv_heads", "kv_heads (" + num(s.kvHeads) + ") must divide heads (" +
                           num(s.heads) + ")");

  // Mixture of experts.
  mustNotBeNegative("experts", s.experts);
  if (!s.isMoE()) {
    auto onlyWithExperts = [&](const char *field, int64_t value) {
      if (value != 0)
        report(field, std::string(field) + " (" + num(value) +
                          ") needs a MoE model, but experts is " +
                          num(s.experts));
    };
    onlyWithExperts("top_k", s.topK);
    onlyWithExperts("shared_experts", s.sharedExperts);
    onlyWithExperts("moe_ffn", s.moeFfn);
    onlyWithExperts("dense_layers", s.denseLayers);
  } else {
    if (s.topK < 1 || s.topK > s.experts)
      report("top_k", "top_k (" + num(s.topK) + ") must be between 1 and " +
                          "experts (" + num(s.experts) + ")");
    mustNotBeNegative("shared_experts", s.sharedExperts);
    if (s.moeFfn <= 0)
      report("moe_ffn",
             "moe_ffn (" + num(s.moeFfn) + ") must be positive in a MoE model");
    mustNotBeNegative("dense_layers", s.denseLayers);
    if (s.layers > 0 && s.denseLayers >= s.layers)
      report("dense_layers", "dense_layers (" + num(s.denseLayers) +
                                 ") must be less than layers (" +
                                 num(s.layers) +
                                 "): a MoE model needs at least one MoE layer");
  }
  mustNotBeNegative("mtp_layers", s.mtpLayers);

  // Only a shape that obeys everything above is counted; then make sure the
  // int64 arithmetic of the counts and of the job rules cannot overflow.
  if (problems.empty()) {
    double total = ParameterCount<double>{s}.total(/*active=*/false);
    if (!(total <= kMaxParameters)) {
      char text[160];
      std::snprintf(text, sizeof(text),
                    "the model has %.3g parameters; at most %.0e are "
                    "supported",
                    total, kMaxParameters);
      report("model", text);
    }
  }
  return problems;
}

} // namespace plexus::cost
