//===- Model.cpp - A GPT-style decoder: forward, backward, recompute ------===//
//
// Shapes are checked at every entry point, then the kernels of
// runtime/cpu/Kernels.h do the arithmetic, except that in fp32 every matmul
// and the attention core's forward and backward go to the installed
// KernelOffload when there is one (runtime/Offload.h; the CUDA backend's
// runs them on the GPU). Without one the results are the CPU kernels',
// bit for bit. Weight gradients are added with accumulating matmuls (dW +=
// X^T dY), in a fixed order per layer, so a step's gradients are
// reproducible bit for bit.
//
//===----------------------------------------------------------------------===//
#include "runtime/Model.h"
#include "runtime/Offload.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace plexus::runtime {

namespace {

template <typename T> using TensorT = BasicTensor<T>;

/// cpu::matmul on tensors: c (+)= op(a) op(b), op(a) m x k, op(b) k x n;
/// on the installed offload when there is one (runtime/Offload.h), fp32
/// only: the double instantiations (the gradient checks) always stay on
/// the CPU kernels. `what` names the product in an offload's error, e.g.
/// "q projection on CUDA device 0: ...". The attention core below
/// dispatches the same way.
template <typename T>
Status mm(const char *what, const TensorT<T> &a, bool ta, const TensorT<T> &b,
          bool tb, TensorT<T> &c, int64_t m, int64_t n, int64_t k,
          bool accumulate) {
  if constexpr (std::is_same_v<T, float>) {
    if (KernelOffload *offload = kernelOffload()) {
      Status st = offload->matmul(a.data(), ta, b.data(), tb, c.data(), m, n, k,
                                  accumulate);
      if (!st.ok())
        return st.withContext(std::string(what) + " on " + offload->name());
      return Status::success();
    }
  }
  cpu::matmul(a.data(), ta, b.data(), tb, c.data(), m, n, k, accumulate);
  return Status::success();
}

template <typename T>
Status expectShape(const std::string &what, const TensorT<T> &t,
                   const std::vector<int64_t> &shape) {
  if (t.shape() == shape)
    return Status::success();
  return Status::error(what + " is " + shapeString(t.shape()) + ", expected " +
                       shapeString(shape));
}

/// `rows` rows of `width` elements, whatever the number of dimensions.
template <typename T>
Status expectRows(const std::string &what, const TensorT<T> &t, int64_t rows,
                  int64_t width) {
  if (t.rank() >= 2 && t.rows() == rows && t.rowSize() == width)
    return Status::success();
  return Status::error(what + " is " + shapeString(t.shape()) + ", expected " +
                       std::to_string(rows) + " rows of " +
                       std::to_string(width));
}

template <typename T>
Status checkLayerWeights(const ModelConfig &c, const LayerWeights<T> &w,
                         const std::string &what) {
  const int64_t h = c.hidden, d = c.headWidth(), hq = c.heads,
                hk = c.kvHeadCount(), f = c.ffn;
  PLXRT_TRY(expectShape(what + " attn_norm", w.attnNorm, {h}));
  PLXRT_TRY(expectShape(what + " wq", w.wq, {h, hq * d}));
  PLXRT_TRY(expectShape(what + " wk", w.wk, {h, hk * d}));
  PLXRT_TRY(expectShape(what + " wv", w.wv, {h, hk * d}));
  PLXRT_TRY(expectShape(what + " wo", w.wo, {hq * d, h}));
  PLXRT_TRY(expectShape(what + " mlp_norm", w.mlpNorm, {h}));
  if (c.mlp == MlpKind::SwiGLU)
    PLXRT_TRY(expectShape(what + " w_gate", w.wGate, {h, f}));
  PLXRT_TRY(expectShape(what + " w_up", w.wUp, {h, f}));
  PLXRT_TRY(expectShape(what + " w_down", w.wDown, {f, h}));
  return Status::success();
}

int64_t sumTokens(const std::vector<Slice> &slices) {
  int64_t t = 0;
  for (const Slice &s : slices)
    t += s.tokens;
  return t;
}

int64_t sumContext(const std::vector<Slice> &slices) {
  int64_t t = 0;
  for (const Slice &s : slices)
    t += s.context;
  return t;
}

Status checkSlices(const std::vector<Slice> &slices) {
  if (slices.empty())
    return Status::error("the batch has no slice");
  for (size_t s = 0; s < slices.size(); ++s)
    if (slices[s].tokens < 1 || slices[s].context < 0)
      return Status::error("slice " + std::to_string(s) + " has " +
                           std::to_string(slices[s].tokens) +
                           " tokens and context " +
                           std::to_string(slices[s].context) +
                           " (needs tokens >= 1, context >= 0)");
  return Status::success();
}

/// The Ulysses degree, this rank's position and its token count.
struct Split {
  int64_t degree = 1;
  int index = 0;
  int64_t localTokens = 0;
};

Status resolveSplit(const ModelConfig &c, const std::vector<Slice> &slices,
                    const UlyssesGroup *sp, Split &split) {
  PLXRT_TRY(checkSlices(slices));
  split = Split();
  if (sp) {
    PLXRT_TRY(checkUlysses(*sp, slices, split.index));
    split.degree = static_cast<int64_t>(sp->ranks.size());
    if (c.heads % split.degree || c.kvHeadCount() % split.degree)
      return Status::error(
          "heads (" + std::to_string(c.heads) + ") and K/V heads (" +
          std::to_string(c.kvHeadCount()) +
          ") must split over Ulysses degree " + std::to_string(split.degree));
  }
  split.localTokens = sumTokens(slices) / split.degree;
  return Status::success();
}

/// The core's inputs against the slices: q [tokens, H, d], k and v
/// [tokens, Hkv, d], context [sum context, Hkv, d].
template <typename T>
Status checkCore(const std::vector<Slice> &slices, const TensorT<T> &q,
                 const TensorT<T> &k, const TensorT<T> &v,
                 const OptKeyValues<T> *context, cpu::AttentionHeads &heads) {
  PLXRT_TRY(checkSlices(slices));
  const int64_t tokens = sumTokens(slices), ctx = sumContext(slices);
  if (q.rank() != 3 || q.dim(0) != tokens || q.dim(1) < 1 || q.dim(2) < 1)
    return Status::error("attention: q is " + shapeString(q.shape()) +
                         ", expected [" + std::to_string(tokens) +
                         ", heads, head_dim]");
  heads.heads = q.dim(1);
  heads.headDim = q.dim(2);
  heads.kvHeads = k.dim(1);
  if (k.rank() != 3 || heads.kvHeads < 1 || heads.heads % heads.kvHeads)
    return Status::error("attention: k is " + shapeString(k.shape()) +
                         ", whose heads must divide q's " +
                         std::to_string(heads.heads));
  const std::vector<int64_t> kvShape = {tokens, heads.kvHeads, heads.headDim};
  PLXRT_TRY(expectShape("attention: k", k, kvShape));
  PLXRT_TRY(expectShape("attention: v", v, kvShape));
  if (ctx > 0) {
    if (!context)
      return Status::error("attention: the slices have " + std::to_string(ctx) +
                           " context tokens but no context K/V was given");
    const std::vector<int64_t> ctxShape = {ctx, heads.kvHeads, heads.headDim};
    PLXRT_TRY(expectShape("attention: context k", context->k, ctxShape));
    PLXRT_TRY(expectShape("attention: context v", context->v, ctxShape));
  }
  return Status::success();
}

template <typename T> void addTo(TensorT<T> &acc, const TensorT<T> &x) {
  for (int64_t i = 0; i < acc.numel(); ++i)
    acc[i] += x[i];
}

} // namespace

//===----------------------------------------------------------------------===//
// Configuration and weights
//===----------------------------------------------------------------------===//

Status checkConfig(const ModelConfig &c) {
  auto positive = [](const char *name, int64_t v) {
    return v >= 1
               ? Status::success()
               : Status::error(std::string("model: ") + name +
                               " must be at least 1, got " + std::to_string(v));
  };
  PLXRT_TRY(positive("layers", c.layers));
  PLXRT_TRY(positive("hidden", c.hidden));
  PLXRT_TRY(positive("heads", c.heads));
  PLXRT_TRY(positive("ffn", c.ffn));
  PLXRT_TRY(positive("vocab", c.vocab));
  if (c.kvHeads < 0 || c.heads % c.kvHeadCount() != 0)
    return Status::error("model: K/V heads (" + std::to_string(c.kvHeads) +
                         ") must divide heads (" + std::to_string(c.heads) +
                         ")");
  if (c.headDim == 0 && c.hidden % c.heads != 0)
    return Status::error("model: hidden (" + std::to_string(c.hidden) +
                         ") is not a multiple of heads (" +
                         std::to_string(c.heads) + ")");
  const int64_t d = c.headWidth();
  if (d < 2 || d % 2 != 0)
    return Status::error("model: the head width must be even and at least 2 "
                         "(rotary pairs), got " +
                         std::to_string(d));
  if (!(c.normEps > 0) || !(c.ropeBase > 0) || !(c.initStd >= 0))
    return Status::error("model: norm epsilon and RoPE base must be positive "
                         "and the init deviation non-negative");
  return Status::success();
}

StagePart wholeModel(const ModelConfig &config) {
  return StagePart{0, config.layers, true, true};
}

template <typename T>
Result<ModelWeights<T>> initWeights(const ModelConfig &c, const StagePart &part,
                                    uint64_t seed) {
  PLXRT_TRY(checkConfig(c));
  if (part.layerBegin < 0 || part.layerBegin > part.layerEnd ||
      part.layerEnd > c.layers)
    return Status::error(
        "stage part: layers [" + std::to_string(part.layerBegin) + ", " +
        std::to_string(part.layerEnd) + ") are not a range of the model's " +
        std::to_string(c.layers));
  const int64_t h = c.hidden, d = c.headWidth(), hq = c.heads,
                hk = c.kvHeadCount(), f = c.ffn, vocab = c.vocab;
  const float bound = static_cast<float>(c.initStd * std::sqrt(3.0));
  const float outBound =
      static_cast<float>(c.initStd * std::sqrt(3.0) /
                         std::sqrt(2.0 * static_cast<double>(c.layers)));
  auto draw = [&](TensorT<T> &t, std::vector<int64_t> shape, uint64_t stream,
                  float b) {
    t.resize(std::move(shape));
    fillUniform(t, streamKey(seed, stream), b);
  };
  auto ones = [&](TensorT<T> &t) {
    t.resize({h});
    t.fill(T(1));
  };

  ModelWeights<T> w;
  w.part = part;
  if (part.embedding || (part.head && c.tiedEmbeddings))
    draw(w.embedding, {vocab, h}, 1, bound);
  for (int64_t l = part.layerBegin; l < part.layerEnd; ++l) {
    LayerWeights<T> lw;
    const uint64_t base = 100 + static_cast<uint64_t>(l) * 16;
    ones(lw.attnNorm);
    draw(lw.wq, {h, hq * d}, base + 1, bound);
    draw(lw.wk, {h, hk * d}, base + 2, bound);
    draw(lw.wv, {h, hk * d}, base + 3, bound);
    draw(lw.wo, {hq * d, h}, base + 4, outBound);
    ones(lw.mlpNorm);
    if (c.mlp == MlpKind::SwiGLU)
      draw(lw.wGate, {h, f}, base + 5, bound);
    draw(lw.wUp, {h, f}, base + 6, bound);
    draw(lw.wDown, {f, h}, base + 7, outBound);
    w.layers.push_back(std::move(lw));
  }
  if (part.head) {
    ones(w.finalNorm);
    if (!c.tiedEmbeddings)
      draw(w.head, {h, vocab}, 2, bound);
  }
  return w;
}

template <typename T> ModelWeights<T> zerosLike(const ModelWeights<T> &w) {
  ModelWeights<T> z = w;
  z.forEach([](const std::string &, TensorT<T> &t) { t.fill(T(0)); });
  return z;
}

template <typename T> int64_t parameterCount(const ModelWeights<T> &w) {
  int64_t n = 0;
  w.forEach([&](const std::string &, const TensorT<T> &t) { n += t.numel(); });
  return n;
}

template <typename T>
Status allReduceGradients(Comm &comm, const Group &group,
                          ModelWeights<T> &grads) {
  std::vector<T> flat;
  flat.reserve(static_cast<size_t>(parameterCount(grads)));
  grads.forEach([&](const std::string &, const TensorT<T> &t) {
    flat.insert(flat.end(), t.data(), t.data() + t.numel());
  });
  PLXRT_TRY(
      comm.allReduce(group, flat.data(), static_cast<int64_t>(flat.size()))
          .withContext("gradient all-reduce"));
  size_t off = 0;
  grads.forEach([&](const std::string &, TensorT<T> &t) {
    std::memcpy(t.data(), flat.data() + off,
                sizeof(T) * static_cast<size_t>(t.numel()));
    off += static_cast<size_t>(t.numel());
  });
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The three phases of a layer
//===----------------------------------------------------------------------===//

template <typename T>
Status attentionInputForward(const ModelConfig &c, const LayerWeights<T> &w,
                             const std::vector<int64_t> &positions,
                             const TensorT<T> &x, LayerActivations<T> &acts,
                             TensorT<T> &q, TensorT<T> &k, TensorT<T> &v) {
  PLXRT_TRY(checkLayerWeights(c, w, "layer"));
  const int64_t rows = x.rows(), h = c.hidden, d = c.headWidth(), hq = c.heads,
                hk = c.kvHeadCount();
  PLXRT_TRY(expectShape("attention input x", x, {rows, h}));
  if (static_cast<int64_t>(positions.size()) != rows)
    return Status::error(
        "attention input: " + std::to_string(positions.size()) +
        " positions for " + std::to_string(rows) + " rows");
  acts.normed1.resize({rows, h});
  acts.rstd1.resize({rows});
  cpu::rmsNormForward(x.data(), w.attnNorm.data(), rows, h, c.normEps,
                      acts.normed1.data(), acts.rstd1.data());
  q.resize({rows, hq, d});
  k.resize({rows, hk, d});
  v.resize({rows, hk, d});
  PLXRT_TRY(mm("q projection", acts.normed1, false, w.wq, false, q, rows,
               hq * d, h, false));
  PLXRT_TRY(mm("k projection", acts.normed1, false, w.wk, false, k, rows,
               hk * d, h, false));
  PLXRT_TRY(mm("v projection", acts.normed1, false, w.wv, false, v, rows,
               hk * d, h, false));
  cpu::rope(q.data(), rows, hq, d, positions.data(), c.ropeBase, false);
  cpu::rope(k.data(), rows, hk, d, positions.data(), c.ropeBase, false);
  return Status::success();
}

template <typename T>
Status attentionInputBackward(const ModelConfig &c, const LayerWeights<T> &w,
                              const std::vector<int64_t> &positions,
                              const TensorT<T> &x,
                              const LayerActivations<T> &acts,
                              const TensorT<T> &dq, const TensorT<T> &dk,
                              const TensorT<T> &dv, TensorT<T> &dx,
                              LayerWeights<T> &grads) {
  PLXRT_TRY(checkLayerWeights(c, w, "layer"));
  PLXRT_TRY(checkLayerWeights(c, grads, "layer gradient"));
  const int64_t rows = x.rows(), h = c.hidden, d = c.headWidth(), hq = c.heads,
                hk = c.kvHeadCount();
  PLXRT_TRY(expectShape("attention input x", x, {rows, h}));
  PLXRT_TRY(expectShape("attention input normed", acts.normed1, {rows, h}));
  PLXRT_TRY(expectShape("attention input rstd", acts.rstd1, {rows}));
  PLXRT_TRY(expectShape("dq", dq, {rows, hq, d}));
  PLXRT_TRY(expectShape("dk", dk, {rows, hk, d}));
  PLXRT_TRY(expectShape("dv", dv, {rows, hk, d}));
  if (static_cast<int64_t>(positions.size()) != rows)
    return Status::error(
        "attention input: " + std::to_string(positions.size()) +
        " positions for " + std::to_string(rows) + " rows");
  if (dx.empty())
    dx.resize({rows, h});
  PLXRT_TRY(expectShape("dx", dx, {rows, h}));
  // Undo the rotation on the gradients (RoPE is orthogonal).
  TensorT<T> dqr = dq, dkr = dk;
  cpu::rope(dqr.data(), rows, hq, d, positions.data(), c.ropeBase, true);
  cpu::rope(dkr.data(), rows, hk, d, positions.data(), c.ropeBase, true);
  TensorT<T> dn({rows, h});
  PLXRT_TRY(mm("dq wq^T", dqr, false, w.wq, true, dn, rows, h, hq * d, false));
  PLXRT_TRY(mm("dk wk^T", dkr, false, w.wk, true, dn, rows, h, hk * d, true));
  PLXRT_TRY(mm("dv wv^T", dv, false, w.wv, true, dn, rows, h, hk * d, true));
  PLXRT_TRY(mm("wq gradient", acts.normed1, true, dqr, false, grads.wq, h,
               hq * d, rows, true));
  PLXRT_TRY(mm("wk gradient", acts.normed1, true, dkr, false, grads.wk, h,
               hk * d, rows, true));
  PLXRT_TRY(mm("wv gradient", acts.normed1, true, dv, false, grads.wv, h,
               hk * d, rows, true));
  cpu::rmsNormBackward(x.data(), w.attnNorm.data(), acts.rstd1.data(),
                       dn.data(), rows, h, dx.data(), grads.attnNorm.data());
  return Status::success();
}

template <typename T>
Status attentionCoreForward(const std::vector<Slice> &slices,
                            const TensorT<T> &q, const TensorT<T> &k,
                            const TensorT<T> &v, const OptKeyValues<T> *context,
                            TensorT<T> &out, TensorT<T> &lse) {
  cpu::AttentionHeads heads;
  PLXRT_TRY(checkCore(slices, q, k, v, context, heads));
  const bool withContext = sumContext(slices) > 0;
  out.resize(q.shape());
  lse.resize({q.dim(0), heads.heads});
  const T *ctxK = withContext ? context->k.data() : nullptr;
  const T *ctxV = withContext ? context->v.data() : nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (KernelOffload *offload = kernelOffload()) {
      Status st =
          offload->attentionForward(slices, heads, q.data(), k.data(), v.data(),
                                    ctxK, ctxV, out.data(), lse.data());
      if (!st.ok())
        return st.withContext("attention forward on " + offload->name());
      return Status::success();
    }
  }
  cpu::attentionForward(slices, heads, q.data(), k.data(), v.data(), ctxK, ctxV,
                        out.data(), lse.data());
  return Status::success();
}

template <typename T>
Status attentionCoreBackward(
    const std::vector<Slice> &slices, const TensorT<T> &q, const TensorT<T> &k,
    const TensorT<T> &v, const OptKeyValues<T> *context, const TensorT<T> &out,
    const TensorT<T> &lse, const TensorT<T> &dout, TensorT<T> &dq,
    TensorT<T> &dk, TensorT<T> &dv, OptKeyValues<T> *contextGrad) {
  cpu::AttentionHeads heads;
  PLXRT_TRY(checkCore(slices, q, k, v, context, heads));
  PLXRT_TRY(expectShape("attention: out", out, q.shape()));
  PLXRT_TRY(expectShape("attention: dout", dout, q.shape()));
  PLXRT_TRY(expectShape("attention: lse", lse, {q.dim(0), heads.heads}));
  const int64_t ctx = sumContext(slices);
  dq.resize(q.shape());
  dk.resize(k.shape());
  dv.resize(v.shape());
  T *dctxK = nullptr, *dctxV = nullptr;
  if (contextGrad) {
    contextGrad->k.resize({ctx, heads.kvHeads, heads.headDim});
    contextGrad->v.resize({ctx, heads.kvHeads, heads.headDim});
    dctxK = contextGrad->k.data();
    dctxV = contextGrad->v.data();
  }
  const T *ctxK = ctx ? context->k.data() : nullptr;
  const T *ctxV = ctx ? context->v.data() : nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (KernelOffload *offload = kernelOffload()) {
      Status st = offload->attentionBackward(
          slices, heads, q.data(), k.data(), v.data(), ctxK, ctxV, out.data(),
          lse.data(), dout.data(), dq.data(), dk.data(), dv.data(), dctxK,
          dctxV);
      if (!st.ok())
        return st.withContext("attention backward on " + offload->name());
      return Status::success();
    }
  }
  cpu::attentionBackward(slices, heads, q.data(), k.data(), v.data(), ctxK,
                         ctxV, out.data(), lse.data(), dout.data(), dq.data(),
                         dk.data(), dv.data(), dctxK, dctxV);
  return Status::success();
}

template <typename T>
Status attentionOutputForward(const ModelConfig &c, const LayerWeights<T> &w,
                              const TensorT<T> &x, const TensorT<T> &attn,
                              LayerActivations<T> &acts, TensorT<T> &y) {
  PLXRT_TRY(checkLayerWeights(c, w, "layer"));
  const int64_t rows = x.rows(), h = c.hidden, f = c.ffn,
                width = c.heads * c.headWidth();
  PLXRT_TRY(expectShape("attention output x", x, {rows, h}));
  PLXRT_TRY(expectRows("attention output attn", attn, rows, width));
  acts.x2 = x;
  PLXRT_TRY(mm("wo projection", attn, false, w.wo, false, acts.x2, rows, h,
               width, true));
  acts.normed2.resize({rows, h});
  acts.rstd2.resize({rows});
  cpu::rmsNormForward(acts.x2.data(), w.mlpNorm.data(), rows, h, c.normEps,
                      acts.normed2.data(), acts.rstd2.data());
  acts.up.resize({rows, f});
  acts.act.resize({rows, f});
  PLXRT_TRY(mm("w_up projection", acts.normed2, false, w.wUp, false, acts.up,
               rows, f, h, false));
  if (c.mlp == MlpKind::GeLU) {
    acts.gate.clear();
    cpu::geluForward(acts.up.data(), acts.act.data(), rows * f);
  } else {
    acts.gate.resize({rows, f});
    PLXRT_TRY(mm("w_gate projection", acts.normed2, false, w.wGate, false,
                 acts.gate, rows, f, h, false));
    cpu::swigluForward(acts.gate.data(), acts.up.data(), acts.act.data(),
                       rows * f);
  }
  y = acts.x2;
  PLXRT_TRY(mm("w_down projection", acts.act, false, w.wDown, false, y, rows, h,
               f, true));
  return Status::success();
}

template <typename T>
Status attentionOutputBackward(const ModelConfig &c, const LayerWeights<T> &w,
                               const TensorT<T> &attn,
                               const LayerActivations<T> &acts,
                               const TensorT<T> &dy, TensorT<T> &dResidual,
                               TensorT<T> &dAttn, LayerWeights<T> &grads) {
  PLXRT_TRY(checkLayerWeights(c, w, "layer"));
  PLXRT_TRY(checkLayerWeights(c, grads, "layer gradient"));
  const int64_t rows = acts.x2.rows(), h = c.hidden, f = c.ffn,
                width = c.heads * c.headWidth();
  PLXRT_TRY(expectShape("dy", dy, {rows, h}));
  PLXRT_TRY(expectRows("attention output attn", attn, rows, width));
  PLXRT_TRY(expectShape("mlp norm output", acts.normed2, {rows, h}));
  PLXRT_TRY(expectShape("mlp activation", acts.act, {rows, f}));
  dResidual = dy;
  TensorT<T> dAct({rows, f}), dUp({rows, f}), dN2({rows, h});
  PLXRT_TRY(
      mm("dy w_down^T", dy, false, w.wDown, true, dAct, rows, f, h, false));
  PLXRT_TRY(mm("w_down gradient", acts.act, true, dy, false, grads.wDown, f, h,
               rows, true));
  if (c.mlp == MlpKind::GeLU) {
    cpu::geluBackward(acts.up.data(), dAct.data(), dUp.data(), rows * f);
    PLXRT_TRY(
        mm("d_up w_up^T", dUp, false, w.wUp, true, dN2, rows, h, f, false));
  } else {
    TensorT<T> dGate({rows, f});
    cpu::swigluBackward(acts.gate.data(), acts.up.data(), dAct.data(),
                        dGate.data(), dUp.data(), rows * f);
    PLXRT_TRY(
        mm("d_up w_up^T", dUp, false, w.wUp, true, dN2, rows, h, f, false));
    PLXRT_TRY(mm("d_gate w_gate^T", dGate, false, w.wGate, true, dN2, rows, h,
                 f, true));
    PLXRT_TRY(mm("w_gate gradient", acts.normed2, true, dGate, false,
                 grads.wGate, h, f, rows, true));
  }
  PLXRT_TRY(mm("w_up gradient", acts.normed2, true, dUp, false, grads.wUp, h, f,
               rows, true));
  cpu::rmsNormBackward(acts.x2.data(), w.mlpNorm.data(), acts.rstd2.data(),
                       dN2.data(), rows, h, dResidual.data(),
                       grads.mlpNorm.data());
  dAttn.resize({rows, c.heads, c.headWidth()});
  PLXRT_TRY(mm("d_x2 wo^T", dResidual, false, w.wo, true, dAttn, rows, width, h,
               false));
  PLXRT_TRY(mm("wo gradient", attn, true, dResidual, false, grads.wo, width, h,
               rows, true));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Whole layers
//===----------------------------------------------------------------------===//

namespace {

/// The forward from acts.input: the phases with the Ulysses exchanges
/// between them.
template <typename T>
Status runLayer(const ModelConfig &c, const LayerWeights<T> &w,
                const std::vector<Slice> &slices, const UlyssesGroup *sp,
                const Split &split, const OptKeyValues<T> *context,
                LayerActivations<T> &acts, TensorT<T> &y) {
  const std::vector<int64_t> positions =
      localPositions(slices, split.degree, split.index);
  TensorT<T> q, k, v;
  PLXRT_TRY(attentionInputForward(c, w, positions, acts.input, acts, q, k, v));
  if (split.degree > 1) {
    PLXRT_TRY(tokensToHeads<T>(*sp, slices, {&q, &k, &v},
                               {&acts.q, &acts.k, &acts.v}));
  } else {
    acts.q = std::move(q);
    acts.k = std::move(k);
    acts.v = std::move(v);
  }
  PLXRT_TRY(attentionCoreForward(slices, acts.q, acts.k, acts.v, context,
                                 acts.attn, acts.lse));
  const TensorT<T> *attnTokens = &acts.attn;
  if (split.degree > 1) {
    PLXRT_TRY(headsToTokens<T>(*sp, slices, {&acts.attn}, {&acts.attnTokens}));
    attnTokens = &acts.attnTokens;
  }
  PLXRT_TRY(attentionOutputForward(c, w, acts.input, *attnTokens, acts, y));
  acts.complete = true;
  return Status::success();
}

template <typename T>
Status checkLayerCall(const ModelConfig &c, const LayerWeights<T> &w,
                      const std::vector<Slice> &slices, const UlyssesGroup *sp,
                      Split &split) {
  PLXRT_TRY(checkConfig(c));
  PLXRT_TRY(checkLayerWeights(c, w, "layer"));
  return resolveSplit(c, slices, sp, split);
}

} // namespace

template <typename T>
Status layerForward(const ModelConfig &c, const LayerWeights<T> &w,
                    const std::vector<Slice> &slices, const UlyssesGroup *sp,
                    const TensorT<T> &x, const OptKeyValues<T> *context,
                    Checkpoint mode, LayerActivations<T> &acts, TensorT<T> &y) {
  Split split;
  PLXRT_TRY(checkLayerCall(c, w, slices, sp, split));
  PLXRT_TRY(expectShape("layer input", x, {split.localTokens, c.hidden}));
  acts = LayerActivations<T>();
  acts.input = x;
  PLXRT_TRY(runLayer(c, w, slices, sp, split, context, acts, y));
  if (mode == Checkpoint::Full) {
    // Keep the input (to recompute from) and K/V (later slices attend to
    // them before this slice's backward).
    LayerActivations<T> kept;
    kept.input = std::move(acts.input);
    kept.k = std::move(acts.k);
    kept.v = std::move(acts.v);
    acts = std::move(kept);
  }
  return Status::success();
}

template <typename T>
Status layerRecompute(const ModelConfig &c, const LayerWeights<T> &w,
                      const std::vector<Slice> &slices, const UlyssesGroup *sp,
                      const OptKeyValues<T> *context,
                      LayerActivations<T> &acts) {
  Split split;
  PLXRT_TRY(checkLayerCall(c, w, slices, sp, split));
  PLXRT_TRY(expectShape("kept layer input", acts.input,
                        {split.localTokens, c.hidden}));
  TensorT<T> y;
  return runLayer(c, w, slices, sp, split, context, acts, y);
}

template <typename T>
Status layerBackward(const ModelConfig &c, const LayerWeights<T> &w,
                     const std::vector<Slice> &slices, const UlyssesGroup *sp,
                     const OptKeyValues<T> *context,
                     const LayerActivations<T> &acts, const TensorT<T> &dy,
                     const OptKeyValues<T> *later, TensorT<T> &dx,
                     LayerWeights<T> &grads, OptKeyValues<T> *contextGrad) {
  Split split;
  PLXRT_TRY(checkLayerCall(c, w, slices, sp, split));
  PLXRT_TRY(checkLayerWeights(c, grads, "layer gradient"));
  if (!acts.complete)
    return Status::error("layer backward: the activations were checkpointed; "
                         "call layerRecompute first");
  PLXRT_TRY(
      expectShape("layer input", acts.input, {split.localTokens, c.hidden}));
  const TensorT<T> &attnTokens = split.degree > 1 ? acts.attnTokens : acts.attn;
  TensorT<T> dResidual, dAttnTokens;
  PLXRT_TRY(attentionOutputBackward(c, w, attnTokens, acts, dy, dResidual,
                                    dAttnTokens, grads));
  TensorT<T> dAttn;
  if (split.degree > 1)
    PLXRT_TRY(tokensToHeads<T>(*sp, slices, {&dAttnTokens}, {&dAttn}));
  else
    dAttn = std::move(dAttnTokens);
  TensorT<T> dq, dk, dv;
  PLXRT_TRY(attentionCoreBackward(slices, acts.q, acts.k, acts.v, context,
                                  acts.attn, acts.lse, dAttn, dq, dk, dv,
                                  contextGrad));
  if (later) {
    PLXRT_TRY(
        expectShape("gradient of K from later slices", later->k, dk.shape()));
    PLXRT_TRY(
        expectShape("gradient of V from later slices", later->v, dv.shape()));
    addTo(dk, later->k);
    addTo(dv, later->v);
  }
  TensorT<T> dqTokens, dkTokens, dvTokens;
  if (split.degree > 1) {
    PLXRT_TRY(headsToTokens<T>(*sp, slices, {&dq, &dk, &dv},
                               {&dqTokens, &dkTokens, &dvTokens}));
  } else {
    dqTokens = std::move(dq);
    dkTokens = std::move(dk);
    dvTokens = std::move(dv);
  }
  dx = std::move(dResidual);
  return attentionInputBackward(
      c, w, localPositions(slices, split.degree, split.index), acts.input, acts,
      dqTokens, dkTokens, dvTokens, dx, grads);
}

namespace {
template <typename T>
Status checkRange(const ModelWeights<T> &w, int64_t begin, int64_t end,
                  size_t perLayer, const char *what) {
  if (begin < w.part.layerBegin || begin > end || end > w.part.layerEnd)
    return Status::error("layers [" + std::to_string(begin) + ", " +
                         std::to_string(end) + ") are not held by the stage [" +
                         std::to_string(w.part.layerBegin) + ", " +
                         std::to_string(w.part.layerEnd) + ")");
  if (perLayer != static_cast<size_t>(-1) &&
      perLayer != static_cast<size_t>(end - begin))
    return Status::error(std::string(what) + ": " + std::to_string(perLayer) +
                         " entries for " + std::to_string(end - begin) +
                         " layers");
  return Status::success();
}
constexpr size_t kUnused = static_cast<size_t>(-1);
} // namespace

template <typename T>
Status layersForward(const ModelConfig &c, const ModelWeights<T> &w,
                     int64_t begin, int64_t end,
                     const std::vector<Slice> &slices, const UlyssesGroup *sp,
                     const TensorT<T> &x, const OptKeyValuesList<T> *contexts,
                     Checkpoint mode, std::vector<LayerActivations<T>> &acts,
                     TensorT<T> &y) {
  PLXRT_TRY(checkRange(w, begin, end, contexts ? contexts->size() : kUnused,
                       "contexts"));
  acts.assign(static_cast<size_t>(end - begin), LayerActivations<T>());
  TensorT<T> cur = x;
  for (int64_t l = begin; l < end; ++l) {
    const size_t i = static_cast<size_t>(l - begin);
    TensorT<T> next;
    PLXRT_TRY(layerForward(c, w.layer(l), slices, sp, cur,
                           contexts ? &(*contexts)[i] : nullptr, mode, acts[i],
                           next)
                  .withContext("layer " + std::to_string(l) + " forward"));
    cur = std::move(next);
  }
  y = std::move(cur);
  return Status::success();
}

template <typename T>
Status
layersBackward(const ModelConfig &c, const ModelWeights<T> &w, int64_t begin,
               int64_t end, const std::vector<Slice> &slices,
               const UlyssesGroup *sp, const OptKeyValuesList<T> *contexts,
               std::vector<LayerActivations<T>> &acts, const TensorT<T> &dy,
               const OptKeyValuesList<T> *later, TensorT<T> &dx,
               ModelWeights<T> &grads, OptKeyValuesList<T> *contextGrads) {
  PLXRT_TRY(checkRange(w, begin, end, contexts ? contexts->size() : kUnused,
                       "contexts"));
  PLXRT_TRY(checkRange(w, begin, end, acts.size(), "activations"));
  PLXRT_TRY(checkRange(w, begin, end, later ? later->size() : kUnused,
                       "later-slice gradients"));
  PLXRT_TRY(checkRange(grads, begin, end, kUnused, "gradients"));
  if (contextGrads)
    contextGrads->assign(static_cast<size_t>(end - begin), KeyValues<T>());
  TensorT<T> grad = dy;
  for (int64_t l = end - 1; l >= begin; --l) {
    const size_t i = static_cast<size_t>(l - begin);
    const OptKeyValues<T> *context = contexts ? &(*contexts)[i] : nullptr;
    const std::string where = "layer " + std::to_string(l);
    if (!acts[i].complete)
      PLXRT_TRY(layerRecompute(c, w.layer(l), slices, sp, context, acts[i])
                    .withContext(where + " recompute"));
    TensorT<T> next;
    PLXRT_TRY(layerBackward(c, w.layer(l), slices, sp, context, acts[i], grad,
                            later ? &(*later)[i] : nullptr, next,
                            grads.layer(l),
                            contextGrads ? &(*contextGrads)[i] : nullptr)
                  .withContext(where + " backward"));
    grad = std::move(next);
  }
  dx = std::move(grad);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Embedding, head and loss
//===----------------------------------------------------------------------===//

namespace {
Status checkTokens(const std::vector<int32_t> &ids, int64_t vocab,
                   bool allowIgnore, const char *what) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= vocab || ids[i] < (allowIgnore ? -1 : 0))
      return Status::error(std::string(what) + " " + std::to_string(i) +
                           " is " + std::to_string(ids[i]) +
                           ", outside the vocabulary of " +
                           std::to_string(vocab));
  return Status::success();
}
} // namespace

template <typename T>
Status embedForward(const ModelConfig &c, const ModelWeights<T> &w,
                    const std::vector<int32_t> &tokens, TensorT<T> &x) {
  if (!w.part.embedding)
    return Status::error("embedding: the stage does not hold it");
  PLXRT_TRY(expectShape("embedding", w.embedding, {c.vocab, c.hidden}));
  PLXRT_TRY(checkTokens(tokens, c.vocab, false, "token"));
  const int64_t rows = static_cast<int64_t>(tokens.size()), h = c.hidden;
  x.resize({rows, h});
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(x.row(r), w.embedding.row(tokens[static_cast<size_t>(r)]),
                sizeof(T) * static_cast<size_t>(h));
  return Status::success();
}

template <typename T>
Status embedBackward(const ModelConfig &c, const std::vector<int32_t> &tokens,
                     const TensorT<T> &dx, ModelWeights<T> &grads) {
  PLXRT_TRY(
      expectShape("embedding gradient", grads.embedding, {c.vocab, c.hidden}));
  PLXRT_TRY(checkTokens(tokens, c.vocab, false, "token"));
  const int64_t rows = static_cast<int64_t>(tokens.size()), h = c.hidden;
  PLXRT_TRY(expectShape("embedding dx", dx, {rows, h}));
  for (int64_t r = 0; r < rows; ++r) {
    T *g = grads.embedding.row(tokens[static_cast<size_t>(r)]);
    const T *d = dx.row(r);
    for (int64_t j = 0; j < h; ++j)
      g[j] += d[j];
  }
  return Status::success();
}

namespace {
template <typename T>
Status checkHead(const ModelConfig &c, const ModelWeights<T> &w,
                 const char *what) {
  if (!w.part.head)
    return Status::error(std::string(what) + ": the stage does not hold the "
                                             "head");
  PLXRT_TRY(
      expectShape(std::string(what) + " final_norm", w.finalNorm, {c.hidden}));
  if (c.tiedEmbeddings)
    return expectShape(std::string(what) + " embedding (tied head)",
                       w.embedding, {c.vocab, c.hidden});
  return expectShape(std::string(what) + " head", w.head, {c.hidden, c.vocab});
}
} // namespace

template <typename T>
Result<double> headForward(const ModelConfig &c, const ModelWeights<T> &w,
                           const TensorT<T> &x,
                           const std::vector<int32_t> &targets,
                           double lossScale, HeadActivations<T> &acts) {
  PLXRT_TRY(checkHead(c, w, "head"));
  const int64_t rows = x.rows(), h = c.hidden, vocab = c.vocab;
  PLXRT_TRY(expectShape("head input", x, {rows, h}));
  if (static_cast<int64_t>(targets.size()) != rows)
    return Status::error("head: " + std::to_string(targets.size()) +
                         " targets for " + std::to_string(rows) + " rows");
  PLXRT_TRY(checkTokens(targets, vocab, true, "target"));
  acts.input = x;
  acts.normed.resize({rows, h});
  acts.rstd.resize({rows});
  cpu::rmsNormForward(x.data(), w.finalNorm.data(), rows, h, c.normEps,
                      acts.normed.data(), acts.rstd.data());
  // The logits become their own gradient in place.
  acts.dlogits.resize({rows, vocab});
  if (c.tiedEmbeddings)
    PLXRT_TRY(mm("logits (tied embedding)", acts.normed, false, w.embedding,
                 true, acts.dlogits, rows, vocab, h, false));
  else
    PLXRT_TRY(mm("logits", acts.normed, false, w.head, false, acts.dlogits,
                 rows, vocab, h, false));
  double sum = cpu::crossEntropy(acts.dlogits.data(), targets.data(), rows,
                                 vocab, lossScale, acts.dlogits.data());
  return lossScale * sum;
}

template <typename T>
Status headBackward(const ModelConfig &c, const ModelWeights<T> &w,
                    const HeadActivations<T> &acts, TensorT<T> &dx,
                    ModelWeights<T> &grads) {
  PLXRT_TRY(checkHead(c, w, "head"));
  PLXRT_TRY(checkHead(c, grads, "head gradient"));
  const int64_t rows = acts.input.rows(), h = c.hidden, vocab = c.vocab;
  PLXRT_TRY(expectShape("head logits gradient", acts.dlogits, {rows, vocab}));
  PLXRT_TRY(expectShape("head normed", acts.normed, {rows, h}));
  TensorT<T> dn({rows, h});
  if (c.tiedEmbeddings) {
    PLXRT_TRY(mm("d_logits embedding (tied)", acts.dlogits, false, w.embedding,
                 false, dn, rows, h, vocab, false));
    PLXRT_TRY(mm("embedding gradient (tied head)", acts.dlogits, true,
                 acts.normed, false, grads.embedding, vocab, h, rows, true));
  } else {
    PLXRT_TRY(mm("d_logits head^T", acts.dlogits, false, w.head, true, dn, rows,
                 h, vocab, false));
    PLXRT_TRY(mm("head gradient", acts.normed, true, acts.dlogits, false,
                 grads.head, h, vocab, rows, true));
  }
  dx.resize({rows, h});
  cpu::rmsNormBackward(acts.input.data(), w.finalNorm.data(), acts.rstd.data(),
                       dn.data(), rows, h, dx.data(), grads.finalNorm.data());
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Data and the single-rank reference
//===----------------------------------------------------------------------===//

std::vector<int32_t> syntheticTokens(uint64_t seed, int64_t sequence,
                                     int64_t length, int64_t vocab) {
  std::vector<int32_t> ids(static_cast<size_t>(length < 0 ? 0 : length));
  const uint64_t key = streamKey(streamKey(seed, 0x7e57da7aULL),
                                 static_cast<uint64_t>(sequence));
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t id = static_cast<int64_t>(static_cast<double>(uniformAt(key, i)) *
                                      static_cast<double>(vocab));
    ids[i] = static_cast<int32_t>(id >= vocab ? vocab - 1 : id);
  }
  return ids;
}

std::vector<int32_t> nextTokenTargets(const std::vector<int32_t> &sequence,
                                      int64_t begin, int64_t end) {
  std::vector<int32_t> targets;
  const int64_t length = static_cast<int64_t>(sequence.size());
  for (int64_t i = begin; i < end; ++i)
    targets.push_back(i + 1 < length ? sequence[static_cast<size_t>(i + 1)]
                                     : -1);
  return targets;
}

double forwardFlops(const ModelConfig &c, const std::vector<Slice> &slices,
                    int64_t begin, int64_t end, bool head) {
  const double h = static_cast<double>(c.hidden),
               d = static_cast<double>(c.headWidth()),
               hq = static_cast<double>(c.heads),
               hk = static_cast<double>(c.kvHeadCount()),
               f = static_cast<double>(c.ffn), v = static_cast<double>(c.vocab);
  double tokens = 0, pairs = 0;
  for (const Slice &s : slices) {
    const double t = static_cast<double>(s.tokens),
                 ctx = static_cast<double>(s.context);
    tokens += t;
    pairs += t * ctx + t * (t + 1) / 2;
  }
  const double mlpMatrices = c.mlp == MlpKind::SwiGLU ? 3 : 2;
  const double perLayer =
      2 * tokens * (h * (hq + 2 * hk) * d + hq * d * h + mlpMatrices * h * f) +
      2 * 2 * pairs * hq * d;
  return static_cast<double>(end - begin) * perLayer +
         (head ? 2 * tokens * h * v : 0);
}

int64_t targetCount(const std::vector<std::vector<int32_t>> &sequences) {
  int64_t n = 0;
  for (const auto &s : sequences)
    n += s.empty() ? 0 : static_cast<int64_t>(s.size()) - 1;
  return n;
}

template <typename T>
Result<double> referenceStep(const ModelConfig &c, const ModelWeights<T> &w,
                             const std::vector<std::vector<int32_t>> &sequences,
                             ModelWeights<T> &grads) {
  PLXRT_TRY(checkConfig(c));
  if (w.part.layerBegin != 0 || w.part.layerEnd != c.layers ||
      !w.part.embedding || !w.part.head)
    return Status::error("reference step: needs the whole model");
  std::vector<Slice> slices;
  std::vector<int32_t> tokens, targets;
  for (const auto &s : sequences) {
    if (s.empty())
      return Status::error("reference step: an empty sequence");
    const int64_t len = static_cast<int64_t>(s.size());
    slices.push_back({len, 0});
    tokens.insert(tokens.end(), s.begin(), s.end());
    std::vector<int32_t> t = nextTokenTargets(s, 0, len);
    targets.insert(targets.end(), t.begin(), t.end());
  }
  const int64_t count = targetCount(sequences);
  if (count == 0)
    return Status::error("reference step: no token has a target");
  TensorT<T> x, y, dy, dx;
  PLXRT_TRY(embedForward(c, w, tokens, x));
  std::vector<LayerActivations<T>> acts;
  PLXRT_TRY(layersForward(c, w, 0, c.layers, slices, nullptr, x, nullptr,
                          Checkpoint::None, acts, y));
  HeadActivations<T> head;
  Result<double> loss =
      headForward(c, w, y, targets, 1.0 / static_cast<double>(count), head);
  if (!loss.ok())
    return loss.status();
  PLXRT_TRY(headBackward(c, w, head, dy, grads));
  PLXRT_TRY(layersBackward(c, w, 0, c.layers, slices, nullptr, nullptr, acts,
                           dy, nullptr, dx, grads, nullptr));
  PLXRT_TRY(embedBackward(c, tokens, dx, grads));
  return *loss;
}

//===----------------------------------------------------------------------===//
// Instantiations
//===----------------------------------------------------------------------===//

#define PLXRT_INSTANTIATE_MODEL(T)                                             \
  template Result<ModelWeights<T>> initWeights<T>(                             \
      const ModelConfig &, const StagePart &, uint64_t);                       \
  template ModelWeights<T> zerosLike(const ModelWeights<T> &);                 \
  template int64_t parameterCount(const ModelWeights<T> &);                    \
  template Status allReduceGradients(Comm &, const Group &,                    \
                                     ModelWeights<T> &);                       \
  template Status attentionInputForward(                                       \
      const ModelConfig &, const LayerWeights<T> &,                            \
      const std::vector<int64_t> &, const TensorT<T> &, LayerActivations<T> &, \
      TensorT<T> &, TensorT<T> &, TensorT<T> &);                               \
  template Status attentionInputBackward(                                      \
      const ModelConfig &, const LayerWeights<T> &,                            \
      const std::vector<int64_t> &, const TensorT<T> &,                        \
      const LayerActivations<T> &, const TensorT<T> &, const TensorT<T> &,     \
      const TensorT<T> &, TensorT<T> &, LayerWeights<T> &);                    \
  template Status attentionCoreForward(                                        \
      const std::vector<Slice> &, const TensorT<T> &, const TensorT<T> &,      \
      const TensorT<T> &, const KeyValues<T> *, TensorT<T> &, TensorT<T> &);   \
  template Status attentionCoreBackward(                                       \
      const std::vector<Slice> &, const TensorT<T> &, const TensorT<T> &,      \
      const TensorT<T> &, const KeyValues<T> *, const TensorT<T> &,            \
      const TensorT<T> &, const TensorT<T> &, TensorT<T> &, TensorT<T> &,      \
      TensorT<T> &, KeyValues<T> *);                                           \
  template Status attentionOutputForward(                                      \
      const ModelConfig &, const LayerWeights<T> &, const TensorT<T> &,        \
      const TensorT<T> &, LayerActivations<T> &, TensorT<T> &);                \
  template Status attentionOutputBackward(                                     \
      const ModelConfig &, const LayerWeights<T> &, const TensorT<T> &,        \
      const LayerActivations<T> &, const TensorT<T> &, TensorT<T> &,           \
      TensorT<T> &, LayerWeights<T> &);                                        \
  template Status layerForward(                                                \
      const ModelConfig &, const LayerWeights<T> &,                            \
      const std::vector<Slice> &, const UlyssesGroup *, const TensorT<T> &,    \
      const KeyValues<T> *, Checkpoint, LayerActivations<T> &, TensorT<T> &);  \
  template Status layerRecompute(const ModelConfig &, const LayerWeights<T> &, \
                                 const std::vector<Slice> &,                   \
                                 const UlyssesGroup *, const KeyValues<T> *,   \
                                 LayerActivations<T> &);                       \
  template Status layerBackward(                                               \
      const ModelConfig &, const LayerWeights<T> &,                            \
      const std::vector<Slice> &, const UlyssesGroup *, const KeyValues<T> *,  \
      const LayerActivations<T> &, const TensorT<T> &, const KeyValues<T> *,   \
      TensorT<T> &, LayerWeights<T> &, KeyValues<T> *);                        \
  template Status layersForward(                                               \
      const ModelConfig &, const ModelWeights<T> &, int64_t, int64_t,          \
      const std::vector<Slice> &, const UlyssesGroup *, const TensorT<T> &,    \
      const std::vector<KeyValues<T>> *, Checkpoint,                           \
      std::vector<LayerActivations<T>> &, TensorT<T> &);                       \
  template Status layersBackward(                                              \
      const ModelConfig &, const ModelWeights<T> &, int64_t, int64_t,          \
      const std::vector<Slice> &, const UlyssesGroup *,                        \
      const std::vector<KeyValues<T>> *, std::vector<LayerActivations<T>> &,   \
      const TensorT<T> &, const std::vector<KeyValues<T>> *, TensorT<T> &,     \
      ModelWeights<T> &, std::vector<KeyValues<T>> *);                         \
  template Status embedForward(const ModelConfig &, const ModelWeights<T> &,   \
                               const std::vector<int32_t> &, TensorT<T> &);    \
  template Status embedBackward(const ModelConfig &,                           \
                                const std::vector<int32_t> &,                  \
                                const TensorT<T> &, ModelWeights<T> &);        \
  template Result<double> headForward(                                         \
      const ModelConfig &, const ModelWeights<T> &, const TensorT<T> &,        \
      const std::vector<int32_t> &, double, HeadActivations<T> &);             \
  template Status headBackward(const ModelConfig &, const ModelWeights<T> &,   \
                               const HeadActivations<T> &, TensorT<T> &,       \
                               ModelWeights<T> &);                             \
  template Result<double> referenceStep(                                       \
      const ModelConfig &, const ModelWeights<T> &,                            \
      const std::vector<std::vector<int32_t>> &, ModelWeights<T> &);

PLXRT_INSTANTIATE_MODEL(float)
PLXRT_INSTANTIATE_MODEL(double)

} // namespace plexus::runtime
