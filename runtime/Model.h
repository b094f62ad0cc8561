//===- Model.h - The decoder: forward, backward, recompute ------*- C++ -*-===//
//
// The model the runtime trains, split the way the planner splits it:
//
//  * a token embedding (stage 0 of a pipeline), then pre-norm decoder
//    layers, each RMSNorm -> causal multi-head attention (grouped K/V heads,
//    rotary positions) -> residual -> RMSNorm -> MLP (GeLU, or SwiGLU) ->
//    residual, then a final RMSNorm, the output head and the cross-entropy
//    loss (last stage);
//  * a pipeline stage holds a StagePart: layers [layerBegin, layerEnd) and
//    possibly the embedding and the head; any layer range of it runs on its
//    own, and weights are drawn per global layer, so stages of any cut hold
//    exactly the whole model's weights;
//  * a compute op runs over a batch of slices (runtime/cpu/Kernels.h): a
//    slice of a sequence attends to the keys and values of its earlier
//    slices, passed in as context, and its backward hands their gradients
//    back (the chunked, split-sequence case of Concertina DPP);
//  * a layer has three phases, each callable on its own: the attention
//    input (token-local: norm, Q/K/V projections, RoPE), the attention core
//    (any group of heads, over all tokens of the slices) and the attention
//    output with the MLP (token-local). layerForward / layerBackward chain
//    them, and, given a Ulysses group, do the all-to-alls between them
//    (runtime/Ulysses.h); a caller that wants the collectives elsewhere
//    calls the phases itself.
//
// Gradients accumulate (+=) into a ModelWeights of gradients, so several
// micro-batches add up; the loss is scaled by a caller-given factor (one
// over the tokens of the global batch) so that partial losses and their
// gradients over ranks and micro-batches sum to the batch mean.
//
// Checkpointing: Checkpoint::Full keeps a layer's input and its K/V (later
// slices of the same sequences attend to them before this slice's backward
// runs) and layerRecompute rebuilds the rest, bit-identical to the first
// forward. Under Ulysses a recompute repeats the forward's all-to-alls, as
// the lowering's full checkpointing does (docs/lowering.md).
//
// All entry points check shapes and indices and return errors as values.
// Templates are instantiated for float and double.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_MODEL_H
#define PLEXUS_RUNTIME_MODEL_H

#include "runtime/Comm.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"
#include "runtime/Ulysses.h"
#include "runtime/cpu/Kernels.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::runtime {

enum class MlpKind { GeLU, SwiGLU };

struct ModelConfig {
  int64_t layers = 0, hidden = 0, heads = 0;
  int64_t kvHeads = 0; ///< 0: as many as `heads`
  int64_t headDim = 0; ///< 0: hidden / heads
  int64_t ffn = 0, vocab = 0;
  MlpKind mlp = MlpKind::SwiGLU;
  bool tiedEmbeddings = false; ///< the head is the embedding, transposed
  double normEps = 1e-5;
  double ropeBase = 10000;
  /// Weights are uniform with this standard deviation; the projections
  /// that feed the residual stream (wo, w_down) are divided by
  /// sqrt(2 layers). Norm gains start at 1.
  float initStd = 0.02f;

  int64_t kvHeadCount() const { return kvHeads ? kvHeads : heads; }
  int64_t headWidth() const {
    return headDim ? headDim : (heads ? hidden / heads : 0);
  }
};

/// Positive sizes, heads divisible by K/V heads, an even head width,
/// hidden = heads * head width when the head width is derived.
Status checkConfig(const ModelConfig &config);

/// What a pipeline stage holds.
struct StagePart {
  int64_t layerBegin = 0, layerEnd = 0;
  bool embedding = false; ///< the token embedding (first stage)
  bool head = false;      ///< final norm, output head and loss (last stage)
};

/// Every layer, the embedding and the head.
StagePart wholeModel(const ModelConfig &config);

/// Layer `layer`'s weights, stored [in, out] so that y = x W.
template <typename T> struct LayerWeights {
  BasicTensor<T> attnNorm; ///< [hidden]
  BasicTensor<T> wq;       ///< [hidden, heads * d]
  BasicTensor<T> wk, wv;   ///< [hidden, kvHeads * d]
  BasicTensor<T> wo;       ///< [heads * d, hidden]
  BasicTensor<T> mlpNorm;  ///< [hidden]
  BasicTensor<T> wGate;    ///< [hidden, ffn], SwiGLU only
  BasicTensor<T> wUp;      ///< [hidden, ffn]
  BasicTensor<T> wDown;    ///< [ffn, hidden]

  /// f(name, tensor) over the tensors the MLP kind uses, in a fixed order.
  template <typename F> void forEach(F &&f) { visit(*this, f); }
  template <typename F> void forEach(F &&f) const { visit(*this, f); }

private:
  template <typename Self, typename F> static void visit(Self &s, F &f) {
    f("attn_norm", s.attnNorm);
    f("wq", s.wq);
    f("wk", s.wk);
    f("wv", s.wv);
    f("wo", s.wo);
    f("mlp_norm", s.mlpNorm);
    if (!s.wGate.empty())
      f("w_gate", s.wGate);
    f("w_up", s.wUp);
    f("w_down", s.wDown);
  }
};

/// The weights (or gradients) of one stage.
template <typename T> struct ModelWeights {
  StagePart part;
  /// [vocab, hidden]: with part.embedding, or with part.head when the
  /// embeddings are tied (the last stage then holds its own copy, whose
  /// gradient the caller adds to the first stage's).
  BasicTensor<T> embedding;
  std::vector<LayerWeights<T>> layers; ///< layers[i]: part.layerBegin + i
  BasicTensor<T> finalNorm;            ///< [hidden], with part.head
  BasicTensor<T> head; ///< [hidden, vocab], with part.head, untied

  bool holdsLayer(int64_t layer) const {
    return layer >= part.layerBegin && layer < part.layerEnd;
  }
  LayerWeights<T> &layer(int64_t global) {
    return layers[static_cast<size_t>(global - part.layerBegin)];
  }
  const LayerWeights<T> &layer(int64_t global) const {
    return layers[static_cast<size_t>(global - part.layerBegin)];
  }

  /// f(name, tensor) over every tensor held, in a fixed order; names are
  /// "embedding", "layer3.wq", "final_norm", "head".
  template <typename F> void forEach(F &&f) { visit(*this, f); }
  template <typename F> void forEach(F &&f) const { visit(*this, f); }

private:
  template <typename Self, typename F> static void visit(Self &s, F &f) {
    if (!s.embedding.empty())
      f(std::string("embedding"), s.embedding);
    for (size_t i = 0; i < s.layers.size(); ++i) {
      std::string prefix =
          "layer" +
          std::to_string(s.part.layerBegin + static_cast<int64_t>(i)) + ".";
      s.layers[i].forEach(
          [&](const char *name, auto &t) { f(prefix + name, t); });
    }
    if (!s.finalNorm.empty())
      f(std::string("final_norm"), s.finalNorm);
    if (!s.head.empty())
      f(std::string("head"), s.head);
  }
};

/// The weights of `part`, drawn from `seed`: every tensor has its own
/// stream keyed by (global layer, tensor), so any cut of the model draws
/// the same values as the whole.
template <typename T>
Result<ModelWeights<T>> initWeights(const ModelConfig &config,
                                    const StagePart &part, uint64_t seed);

/// Zeros of the same structure (a gradient accumulator).
template <typename T> ModelWeights<T> zerosLike(const ModelWeights<T> &w);

/// Parameters held.
template <typename T> int64_t parameterCount(const ModelWeights<T> &w);

/// Sums `grads` over `group` (one all-reduce of every tensor packed
/// together): data-parallel and Ulysses ranks each hold partial gradients.
template <typename T>
Status allReduceGradients(Comm &comm, const Group &group,
                          ModelWeights<T> &grads);

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

enum class Checkpoint {
  None, ///< keep every activation for the backward
  Full  ///< keep the layer's input and its K/V; recompute the rest
};

/// The keys and values of some tokens in the attention core's layout,
/// [tokens, kvHeads, d] (under Ulysses: this rank's K/V head group).
template <typename T> struct KeyValues { BasicTensor<T> k, v; };

/// The optional K/V arguments below (pointers that may be null) name their
/// type through NonDeduced, so that T comes from the other arguments and a
/// plain nullptr can be passed.
template <typename T> struct NonDeduced { using type = T; };
template <typename T>
using OptKeyValues = typename NonDeduced<KeyValues<T>>::type;
template <typename T>
using OptKeyValuesList = typename NonDeduced<std::vector<KeyValues<T>>>::type;

/// What a layer's forward keeps for its backward. The attention core's
/// tensors (q, k, v, attn, lse) are in the core's layout: all tokens and
/// every head, or under Ulysses all tokens of the rank's head group.
template <typename T> struct LayerActivations {
  BasicTensor<T> input;              ///< [local tokens, hidden]
  BasicTensor<T> normed1, rstd1;     ///< attention input norm
  BasicTensor<T> q, k, v;            ///< after RoPE
  BasicTensor<T> attn, lse;          ///< core output and log-sum-exp
  BasicTensor<T> attnTokens;         ///< Ulysses: attn, token layout
  BasicTensor<T> x2, normed2, rstd2; ///< after the attention residual
  BasicTensor<T> gate, up, act;      ///< MLP (gate: SwiGLU only)
  bool complete = false; ///< false: layerRecompute before the backward
};

/// Phase 1, token-local: RMSNorm, the Q/K/V projections and RoPE at
/// `positions` (one per row of x). Keeps normed1 and rstd1 in `acts`;
/// q is [rows, heads, d], k and v [rows, kvHeads, d].
template <typename T>
Status
attentionInputForward(const ModelConfig &config, const LayerWeights<T> &w,
                      const std::vector<int64_t> &positions,
                      const BasicTensor<T> &x, LayerActivations<T> &acts,
                      BasicTensor<T> &q, BasicTensor<T> &k, BasicTensor<T> &v);

/// Its backward: adds the input's gradient to dx (resized when empty)
/// and the weights' to grads.
template <typename T>
Status
attentionInputBackward(const ModelConfig &config, const LayerWeights<T> &w,
                       const std::vector<int64_t> &positions,
                       const BasicTensor<T> &x, const LayerActivations<T> &acts,
                       const BasicTensor<T> &dq, const BasicTensor<T> &dk,
                       const BasicTensor<T> &dv, BasicTensor<T> &dx,
                       LayerWeights<T> &grads);

/// Phase 2: causal attention over the slices for whatever heads q, k and
/// v hold (q [tokens, H, d], k and v [tokens, Hkv, d], H divisible by
/// Hkv); `context` (may be null when no slice has context) holds the
/// slices' earlier tokens, [sum context, Hkv, d].
template <typename T>
Status attentionCoreForward(const std::vector<Slice> &slices,
                            const BasicTensor<T> &q, const BasicTensor<T> &k,
                            const BasicTensor<T> &v,
                            const OptKeyValues<T> *context, BasicTensor<T> &out,
                            BasicTensor<T> &lse);

/// Its backward; `contextGrad` (may be null) receives the gradients of the
/// context's keys and values.
template <typename T>
Status
attentionCoreBackward(const std::vector<Slice> &slices, const BasicTensor<T> &q,
                      const BasicTensor<T> &k, const BasicTensor<T> &v,
                      const OptKeyValues<T> *context, const BasicTensor<T> &out,
                      const BasicTensor<T> &lse, const BasicTensor<T> &dout,
                      BasicTensor<T> &dq, BasicTensor<T> &dk,
                      BasicTensor<T> &dv, OptKeyValues<T> *contextGrad);

/// Phase 3, token-local: y = x2 + MLP(RMSNorm(x2)), x2 = x + attn Wo, with
/// attn [rows, heads * d] (or [rows, heads, d]). Keeps x2 and the MLP's
/// tensors in `acts`.
template <typename T>
Status attentionOutputForward(const ModelConfig &config,
                              const LayerWeights<T> &w, const BasicTensor<T> &x,
                              const BasicTensor<T> &attn,
                              LayerActivations<T> &acts, BasicTensor<T> &y);

/// Its backward: dResidual is the gradient of x through the residual
/// path, dAttn that of attn ([rows, heads, d]).
template <typename T>
Status
attentionOutputBackward(const ModelConfig &config, const LayerWeights<T> &w,
                        const BasicTensor<T> &attn,
                        const LayerActivations<T> &acts,
                        const BasicTensor<T> &dy, BasicTensor<T> &dResidual,
                        BasicTensor<T> &dAttn, LayerWeights<T> &grads);

/// One layer over the slices. x holds this rank's tokens: all of them, or
/// under Ulysses (`sp` non-null) its part of every slice. `context` (may be
/// null) is the K/V of the slices' earlier tokens in the core's layout.
template <typename T>
Status layerForward(const ModelConfig &config, const LayerWeights<T> &w,
                    const std::vector<Slice> &slices, const UlyssesGroup *sp,
                    const BasicTensor<T> &x, const OptKeyValues<T> *context,
                    Checkpoint mode, LayerActivations<T> &acts,
                    BasicTensor<T> &y);

/// Rebuilds the activations a Checkpoint::Full forward dropped, from the
/// kept input (the same context and group as the forward).
template <typename T>
Status layerRecompute(const ModelConfig &config, const LayerWeights<T> &w,
                      const std::vector<Slice> &slices, const UlyssesGroup *sp,
                      const OptKeyValues<T> *context,
                      LayerActivations<T> &acts);

/// The layer's backward: dx = d loss / d x; the weights' gradients are
/// added to grads. `later` (may be null): gradients of this slice's own
/// K/V from later slices that attended to it (core layout), added before
/// they flow back. `contextGrad` (may be null): receives the gradients of
/// `context`, for the earlier slices' backward.
template <typename T>
Status layerBackward(const ModelConfig &config, const LayerWeights<T> &w,
                     const std::vector<Slice> &slices, const UlyssesGroup *sp,
                     const OptKeyValues<T> *context,
                     const LayerActivations<T> &acts, const BasicTensor<T> &dy,
                     const OptKeyValues<T> *later, BasicTensor<T> &dx,
                     LayerWeights<T> &grads, OptKeyValues<T> *contextGrad);

/// Layers [begin, end) of the stage in order. contexts (may be null):
/// one per layer, [layer - begin]. acts is resized to end - begin.
template <typename T>
Status layersForward(const ModelConfig &config, const ModelWeights<T> &w,
                     int64_t begin, int64_t end,
                     const std::vector<Slice> &slices, const UlyssesGroup *sp,
                     const BasicTensor<T> &x,
                     const OptKeyValuesList<T> *contexts, Checkpoint mode,
                     std::vector<LayerActivations<T>> &acts, BasicTensor<T> &y);

/// Their backward, last layer first; recomputes checkpointed layers just
/// before their backward. later / contextGrads as layerBackward, one per
/// layer (may be null; contextGrads is resized).
template <typename T>
Status
layersBackward(const ModelConfig &config, const ModelWeights<T> &w,
               int64_t begin, int64_t end, const std::vector<Slice> &slices,
               const UlyssesGroup *sp, const OptKeyValuesList<T> *contexts,
               std::vector<LayerActivations<T>> &acts, const BasicTensor<T> &dy,
               const OptKeyValuesList<T> *later, BasicTensor<T> &dx,
               ModelWeights<T> &grads, OptKeyValuesList<T> *contextGrads);

//===----------------------------------------------------------------------===//
// Embedding, head and loss
//===----------------------------------------------------------------------===//

/// x [tokens, hidden] = embedding rows of `tokens` (ids in [0, vocab)).
template <typename T>
Status embedForward(const ModelConfig &config, const ModelWeights<T> &w,
                    const std::vector<int32_t> &tokens, BasicTensor<T> &x);

/// Adds dx's rows to the embedding gradient, in token order.
template <typename T>
Status embedBackward(const ModelConfig &config,
                     const std::vector<int32_t> &tokens,
                     const BasicTensor<T> &dx, ModelWeights<T> &grads);

/// What the head's forward keeps: its input, the final norm's output and
/// the logits' gradient (computed with the loss).
template <typename T> struct HeadActivations {
  BasicTensor<T> input, normed, rstd, dlogits;
};

/// Final norm, logits and cross-entropy against `targets` (one per row;
/// -1: no target). Returns lossScale * the sum of the rows' losses; the
/// gradient kept for headBackward carries the same scale.
template <typename T>
Result<double> headForward(const ModelConfig &config, const ModelWeights<T> &w,
                           const BasicTensor<T> &x,
                           const std::vector<int32_t> &targets,
                           double lossScale, HeadActivations<T> &acts);

/// dx of the head's input; adds the head's and the final norm's
/// gradients (the embedding's, when tied).
template <typename T>
Status headBackward(const ModelConfig &config, const ModelWeights<T> &w,
                    const HeadActivations<T> &acts, BasicTensor<T> &dx,
                    ModelWeights<T> &grads);

//===----------------------------------------------------------------------===//
// Data and the single-rank reference
//===----------------------------------------------------------------------===//

/// `length` token ids of sequence `sequence`, uniform over [0, vocab),
/// drawn from `seed`.
std::vector<int32_t> syntheticTokens(uint64_t seed, int64_t sequence,
                                     int64_t length, int64_t vocab);

/// Targets of tokens [begin, end) of a sequence: the next token, and -1
/// for its last token.
std::vector<int32_t> nextTokenTargets(const std::vector<int32_t> &sequence,
                                      int64_t begin, int64_t end);

/// The model FLOPs of one forward over `slices` of layers [begin, end),
/// plus the head when `head`: 2 per multiply-add of every projection, and
/// of QK^T and PV over the causal pairs (query i of a slice sees context +
/// i + 1 keys). A backward is twice this. The kernels compute the masked
/// pairs of a query block too; those are not counted.
double forwardFlops(const ModelConfig &config, const std::vector<Slice> &slices,
                    int64_t begin, int64_t end, bool head);

/// Tokens with a target: sum of (length - 1).
int64_t targetCount(const std::vector<std::vector<int32_t>> &sequences);

/// The whole step on one rank: every sequence one slice, all layers, loss
/// = mean over the targets. Adds the gradients to grads; returns the loss.
/// The reference a distributed run is compared with.
template <typename T>
Result<double> referenceStep(const ModelConfig &config,
                             const ModelWeights<T> &w,
                             const std::vector<std::vector<int32_t>> &sequences,
                             ModelWeights<T> &grads);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_MODEL_H
