//===- TransformerShape.h - Shape arithmetic of a transformer ---*- C++ -*-===//
//
// The static shape of a dense or MoE decoder-only transformer, its parameter
// count and per-layer weight bytes, and the structural rules a shape must
// obey. Plain C++: the frontend's semantic pass and the plx dialect's
// verifiers both call checkTransformerShape so that the rules live in one
// place.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_TRANSFORMERSHAPE_H
#define PLEXUS_DIALECTS_COMMON_TRANSFORMERSHAPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::cost {

enum class DType { BF16, FP16, FP8, FP32 };
enum class MlpKind { SwiGLU, GeLU };

/// Bytes per element of a dtype (2, 2, 1, 4).
int64_t bytesPerElement(DType dtype);

struct TransformerShape {
  int64_t layers = 0;  // decoder layers (dense + MoE), MTP excluded
  int64_t hidden = 0;  // model width h
  int64_t heads = 0;   // query heads
  int64_t kvHeads = 0; // key/value heads (GQA); == heads for MHA
  int64_t headDim = 0; // per-head width; usually hidden / heads.
                       // 0 = not given: derived as hidden / heads
                       // (see effectiveHeadDim)
  int64_t ffn = 0;     // dense MLP intermediate width
  int64_t vocab = 0;   // vocabulary size
  MlpKind mlp = MlpKind::SwiGLU;
  bool tiedEmbeddings = false;
  // MoE (experts == 0 means dense).
  int64_t experts = 0;       // routed experts per MoE layer
  int64_t topK = 0;          // routed experts per token
  int64_t sharedExperts = 0; // always-active experts per MoE layer
  int64_t moeFfn = 0;        // intermediate width of one expert
  int64_t denseLayers = 0;   // leading layers that use the dense MLP
  int64_t mtpLayers = 0;     // multi-token-prediction layers after the trunk
  DType dtype = DType::BF16;

  bool isMoE() const { return experts > 0; }
};

/// The per-head width the arithmetic uses: headDim when given (> 0), else
/// hidden / heads (0 when heads is not positive).
int64_t effectiveHeadDim(const TransformerShape &s);

/// Parameters of the attention block of one layer (Q, K, V, O projections).
int64_t attentionParameters(const TransformerShape &s);
/// Parameters of one MLP of intermediate width `width` (3 matrices for
/// SwiGLU, 2 for GeLU).
int64_t mlpParameters(const TransformerShape &s, int64_t width);
/// Parameters of decoder layer `index` (0-based): attention + dense MLP or
/// routed/shared experts + router, plus two norm vectors. 0 when `index` is
/// not in [0, layers).
int64_t layerParameters(const TransformerShape &s, int64_t index);
/// Parameters of one MTP layer: a layer of the last trunk layer's kind plus
/// its 2h x h input projection and two extra norm vectors.
int64_t mtpLayerParameters(const TransformerShape &s);
/// Largest layerParameters over all layers (the one that must fit a chip).
int64_t maxLayerParameters(const TransformerShape &s);
/// Whole model: embeddings (+ untied LM head), all layers, final norm, and
/// each MTP layer (one layer of the last kind plus its 2h x h projection).
int64_t totalParameters(const TransformerShape &s);
/// Parameters touched per token (top-k + shared experts instead of all).
int64_t activeParameters(const TransformerShape &s);

/// One violated rule: the field it is about (as spelled in .plx, or "model"
/// when no single field is at fault, e.g. a model too large to count in
/// 64-bit arithmetic) and a message that reads well after "error: ".
struct ShapeProblem {
  std::string field;
  std::string message;
};

/// All structural rules: positive sizes, heads divide hidden when headDim is
/// derived, kvHeads divide heads, topK <= experts, MoE fields only with
/// experts, denseLayers < layers ... Empty when the shape is valid.
std::vector<ShapeProblem> checkTransformerShape(const TransformerShape &s);

} // namespace plexus::cost

#endif // PLEXUS_DIALECTS_COMMON_TRANSFORMERSHAPE_H
