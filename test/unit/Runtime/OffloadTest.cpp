//===- OffloadTest.cpp - The model's kernels through a KernelOffload ------===//
//
// With a test offload that forwards to the CPU kernels and counts its
// calls: a layer's forward, recompute and backward and a whole
// referenceStep give the same bits with and without it, and the model
// sends it exactly the matmuls and attention calls counted here by hand.
// Doubles never reach it. An offload that fails makes the model return its
// error, named by the kernel that failed. Every test installs its offload
// through a guard that clears it again.
//
//===----------------------------------------------------------------------===//
#include "runtime/Offload.h"
#include "runtime/Model.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

using namespace plexus::runtime;
using namespace plexus::runtime::testutil;

namespace {

/// The CPU kernels, counted.
class CountingOffload : public KernelOffload {
public:
  int matmuls = 0, forwards = 0, backwards = 0;

  std::string name() const override { return "counting test offload"; }

  Status matmul(const float *a, bool transA, const float *b, bool transB,
                float *c, int64_t m, int64_t n, int64_t k,
                bool accumulate) override {
    ++matmuls;
    cpu::matmul(a, transA, b, transB, c, m, n, k, accumulate);
    return Status::success();
  }
  Status attentionForward(const std::vector<Slice> &slices,
                          cpu::AttentionHeads shape, const float *q,
                          const float *k, const float *v, const float *ctxK,
                          const float *ctxV, float *out, float *lse) override {
    ++forwards;
    cpu::attentionForward(slices, shape, q, k, v, ctxK, ctxV, out, lse);
    return Status::success();
  }
  Status attentionBackward(const std::vector<Slice> &slices,
                           cpu::AttentionHeads shape, const float *q,
                           const float *k, const float *v, const float *ctxK,
                           const float *ctxV, const float *out,
                           const float *lse, const float *dout, float *dq,
                           float *dk, float *dv, float *dctxK,
                           float *dctxV) override {
    ++backwards;
    cpu::attentionBackward(slices, shape, q, k, v, ctxK, ctxV, out, lse, dout,
                           dq, dk, dv, dctxK, dctxV);
    return Status::success();
  }

  void reset() { matmuls = forwards = backwards = 0; }
};

/// Fails its `failAt`-th matmul (0-based; -1: none) and, when
/// `failAttention`, every attention call.
class FailingOffload : public CountingOffload {
public:
  int failAt = -1;
  bool failAttention = false;

  std::string name() const override { return "failing test offload"; }

  Status matmul(const float *a, bool transA, const float *b, bool transB,
                float *c, int64_t m, int64_t n, int64_t k,
                bool accumulate) override {
    if (matmuls == failAt)
      return Status::error("matmul " + std::to_string(m) + "x" +
                           std::to_string(k) + " by " + std::to_string(k) +
                           "x" + std::to_string(n) + ": injected failure");
    return CountingOffload::matmul(a, transA, b, transB, c, m, n, k,
                                   accumulate);
  }
  Status attentionForward(const std::vector<Slice> &slices,
                          cpu::AttentionHeads shape, const float *q,
                          const float *k, const float *v, const float *ctxK,
                          const float *ctxV, float *out, float *lse) override {
    if (failAttention)
      return Status::error("injected attention failure");
    return CountingOffload::attentionForward(slices, shape, q, k, v, ctxK, ctxV,
                                             out, lse);
  }
  Status attentionBackward(const std::vector<Slice> &slices,
                           cpu::AttentionHeads shape, const float *q,
                           const float *k, const float *v, const float *ctxK,
                           const float *ctxV, const float *out,
                           const float *lse, const float *dout, float *dq,
                           float *dk, float *dv, float *dctxK,
                           float *dctxV) override {
    if (failAttention)
      return Status::error("injected attention failure");
    return CountingOffload::attentionBackward(slices, shape, q, k, v, ctxK,
                                              ctxV, out, lse, dout, dq, dk, dv,
                                              dctxK, dctxV);
  }
};

/// Installs an offload for its lifetime; the process is back on the CPU
/// kernels afterwards, whatever the test did.
class OffloadGuard {
public:
  explicit OffloadGuard(KernelOffload *offload) { setKernelOffload(offload); }
  ~OffloadGuard() { setKernelOffload(nullptr); }
  OffloadGuard(const OffloadGuard &) = delete;
  OffloadGuard &operator=(const OffloadGuard &) = delete;
};

template <typename T>
std::vector<BasicTensor<T> *> tensorsOf(LayerWeights<T> &w) {
  std::vector<BasicTensor<T> *> out;
  w.forEach([&](const char *, BasicTensor<T> &t) { out.push_back(&t); });
  return out;
}

template <typename T> LayerWeights<T> zeroGrads(const LayerWeights<T> &w) {
  LayerWeights<T> g = w;
  for (BasicTensor<T> *t : tensorsOf(g))
    t->fill(T(0));
  return g;
}

/// What one layer's forward and backward produce.
struct LayerRun {
  Tensor y, dx;
  LayerWeights<float> grads;
  KeyValues<float> contextGrad;
  Status status;
};

/// A layer forward (checkpointed when `checkpoint`, then recomputed) and
/// backward over two slices, the second with context.
LayerRun runLayer(const ModelConfig &c, const LayerWeights<float> &w,
                  bool checkpoint) {
  const std::vector<Slice> slices = {{30, 0}, {20, 12}};
  const int64_t kv = c.kvHeadCount(), d = c.headWidth();
  const Tensor x = randomTensor<float>({50, c.hidden}, 1);
  const KeyValues<float> context{randomTensor<float>({12, kv, d}, 2),
                                 randomTensor<float>({12, kv, d}, 3)};
  const KeyValues<float> later{randomTensor<float>({50, kv, d}, 4),
                               randomTensor<float>({50, kv, d}, 5)};
  const Tensor dy = randomTensor<float>({50, c.hidden}, 6);
  LayerRun run;
  LayerActivations<float> acts;
  run.grads = zeroGrads(w);
  run.status = layerForward(c, w, slices, nullptr, x, &context,
                            checkpoint ? Checkpoint::Full : Checkpoint::None,
                            acts, run.y);
  if (run.status.ok() && checkpoint)
    run.status = layerRecompute(c, w, slices, nullptr, &context, acts);
  if (run.status.ok())
    run.status = layerBackward(c, w, slices, nullptr, &context, acts, dy,
                               &later, run.dx, run.grads, &run.contextGrad);
  return run;
}

void expectSameRun(LayerRun &a, LayerRun &b) {
  ASSERT_TRUE(a.status.ok()) << a.status.message();
  ASSERT_TRUE(b.status.ok()) << b.status.message();
  EXPECT_TRUE(a.y.identical(b.y));
  EXPECT_TRUE(a.dx.identical(b.dx));
  EXPECT_TRUE(a.contextGrad.k.identical(b.contextGrad.k));
  EXPECT_TRUE(a.contextGrad.v.identical(b.contextGrad.v));
  auto ga = tensorsOf(a.grads), gb = tensorsOf(b.grads);
  ASSERT_EQ(ga.size(), gb.size());
  for (size_t i = 0; i < ga.size(); ++i)
    EXPECT_TRUE(ga[i]->identical(*gb[i])) << "gradient tensor " << i;
}

TEST(RuntimeOffload, NoneIsInstalledByDefaultAndTheGuardClearsIt) {
  EXPECT_EQ(kernelOffload(), nullptr);
  CountingOffload counting;
  {
    OffloadGuard guard(&counting);
    EXPECT_EQ(kernelOffload(), &counting);
  }
  EXPECT_EQ(kernelOffload(), nullptr);
}

TEST(RuntimeOffload, LayerIsBitIdenticalAndSendsEveryMatmulAndTheCore) {
  // Per layer, by hand:
  //  * forward: Q, K, V, Wo, then W_up and W_down, plus W_gate for
  //    SwiGLU: 7 matmuls (GeLU 6) and one attention forward;
  //  * backward: dq Wq^T, dk Wk^T, dv Wv^T and the three input weights'
  //    gradients (6); W_down's input gradient and weight gradient (2);
  //    W_up's (2); W_gate's for SwiGLU (2); Wo's (2): 14 matmuls (GeLU
  //    12) and one attention backward;
  //  * a recompute repeats the forward.
  for (MlpKind mlp : {MlpKind::SwiGLU, MlpKind::GeLU}) {
    SCOPED_TRACE(mlp == MlpKind::SwiGLU ? "SwiGLU" : "GeLU");
    ModelConfig c = fp32Config(1);
    c.mlp = mlp;
    const int forwardMatmuls = mlp == MlpKind::SwiGLU ? 7 : 6;
    const int backwardMatmuls = mlp == MlpKind::SwiGLU ? 14 : 12;
    auto w = initWeights<float>(c, wholeModel(c), 21);
    ASSERT_TRUE(w.ok()) << w.message();
    for (bool checkpoint : {false, true}) {
      SCOPED_TRACE(checkpoint ? "checkpointed" : "kept");
      LayerRun cpuRun = runLayer(c, w->layer(0), checkpoint);
      CountingOffload counting;
      LayerRun offloaded = [&] {
        OffloadGuard guard(&counting);
        return runLayer(c, w->layer(0), checkpoint);
      }();
      expectSameRun(cpuRun, offloaded);
      const int passes = checkpoint ? 2 : 1; // the forward and a recompute
      EXPECT_EQ(counting.matmuls, passes * forwardMatmuls + backwardMatmuls);
      EXPECT_EQ(counting.forwards, passes);
      EXPECT_EQ(counting.backwards, 1);
    }
  }
}

TEST(RuntimeOffload, ReferenceStepIsBitIdenticalAndCounted) {
  // One SwiGLU layer: 7 + 14 matmuls; the head's logits (1) and, in its
  // backward, the input gradient and the head's (or the tied embedding's)
  // weight gradient (2): 24 matmuls, one attention forward, one backward.
  for (bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    ModelConfig c = fp32Config(1);
    c.tiedEmbeddings = tied;
    auto w = initWeights<float>(c, wholeModel(c), 22);
    ASSERT_TRUE(w.ok()) << w.message();
    const std::vector<std::vector<int32_t>> seqs = {
        syntheticTokens(5, 0, 19, c.vocab), syntheticTokens(5, 1, 7, c.vocab),
        syntheticTokens(5, 2, 12, c.vocab)};
    ModelWeights<float> cpuGrads = zerosLike(*w), offGrads = zerosLike(*w);
    Result<double> cpuLoss = referenceStep(c, *w, seqs, cpuGrads);
    ASSERT_TRUE(cpuLoss.ok()) << cpuLoss.message();
    CountingOffload counting;
    Result<double> offLoss = [&] {
      OffloadGuard guard(&counting);
      return referenceStep(c, *w, seqs, offGrads);
    }();
    ASSERT_TRUE(offLoss.ok()) << offLoss.message();
    EXPECT_EQ(*offLoss, *cpuLoss);
    std::vector<const Tensor *> a, b;
    cpuGrads.forEach(
        [&](const std::string &, const Tensor &t) { a.push_back(&t); });
    std::vector<std::string> names;
    offGrads.forEach([&](const std::string &n, const Tensor &t) {
      b.push_back(&t);
      names.push_back(n);
    });
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(a[i]->identical(*b[i])) << names[i];
    EXPECT_EQ(counting.matmuls, 24);
    EXPECT_EQ(counting.forwards, 1);
    EXPECT_EQ(counting.backwards, 1);
  }
}

TEST(RuntimeOffload, DoublesStayOnTheCpu) {
  const ModelConfig c = smallConfig(MlpKind::SwiGLU, 1);
  auto w = initWeights<double>(c, wholeModel(c), 23);
  ASSERT_TRUE(w.ok()) << w.message();
  const std::vector<std::vector<int32_t>> seqs = {
      syntheticTokens(6, 0, 9, c.vocab)};
  CountingOffload counting;
  OffloadGuard guard(&counting);
  ModelWeights<double> grads = zerosLike(*w);
  Result<double> loss = referenceStep(c, *w, seqs, grads);
  ASSERT_TRUE(loss.ok()) << loss.message();
  EXPECT_EQ(counting.matmuls + counting.forwards + counting.backwards, 0);
}

TEST(RuntimeOffload, FailuresComeBackNamedByTheKernel) {
  const ModelConfig c = fp32Config(1);
  auto w = initWeights<float>(c, wholeModel(c), 24);
  ASSERT_TRUE(w.ok()) << w.message();
  const std::vector<Slice> slices = {{10, 0}};
  const Tensor x = randomTensor<float>({10, c.hidden}, 1);

  {
    // The first matmul of a layer is the Q projection, 10x32 by 32x32.
    FailingOffload failing;
    failing.failAt = 0;
    OffloadGuard guard(&failing);
    LayerActivations<float> acts;
    Tensor y;
    Status st = layerForward(c, w->layer(0), slices, nullptr, x, nullptr,
                             Checkpoint::None, acts, y);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "q projection on failing test offload: matmul "
                            "10x32 by 32x32: injected failure");
  }
  {
    // The fourth is Wo, 10x32 by 32x32, accumulating into the residual.
    FailingOffload failing;
    failing.failAt = 3;
    OffloadGuard guard(&failing);
    LayerActivations<float> acts;
    Tensor y;
    Status st = layerForward(c, w->layer(0), slices, nullptr, x, nullptr,
                             Checkpoint::None, acts, y);
    EXPECT_EQ(st.message(), "wo projection on failing test offload: matmul "
                            "10x32 by 32x32: injected failure");
  }
  {
    FailingOffload failing;
    failing.failAttention = true;
    OffloadGuard guard(&failing);
    LayerActivations<float> acts;
    Tensor y;
    Status st = layerForward(c, w->layer(0), slices, nullptr, x, nullptr,
                             Checkpoint::None, acts, y);
    EXPECT_EQ(st.message(), "attention forward on failing test offload: "
                            "injected attention failure");
    EXPECT_EQ(failing.matmuls, 3); // Q, K, V ran; nothing after the core
  }
  {
    // Through layersForward the layer is named too; through a whole step,
    // the head's logits (the 8th matmul of a one-layer forward).
    FailingOffload failing;
    failing.failAt = 0;
    OffloadGuard guard(&failing);
    std::vector<LayerActivations<float>> acts;
    Tensor y;
    Status st = layersForward(c, *w, 0, 1, slices, nullptr, x, nullptr,
                              Checkpoint::None, acts, y);
    EXPECT_EQ(st.message(), "layer 0 forward: q projection on failing test "
                            "offload: matmul 10x32 by 32x32: injected failure");
    failing.reset();
    failing.failAt = 7;
    ModelWeights<float> grads = zerosLike(*w);
    Result<double> loss =
        referenceStep(c, *w, {syntheticTokens(7, 0, 10, c.vocab)}, grads);
    ASSERT_FALSE(loss.ok());
    EXPECT_EQ(loss.message(), "logits on failing test offload: matmul 10x32 "
                              "by 32x40: injected failure");
  }
  EXPECT_EQ(kernelOffload(), nullptr);
}

} // namespace
