//===- ModelTest.cpp - The decoder: gradients, splits and recompute -------===//
//
// In double: a layer's backward (weights, input, context K/V, and the K/V
// gradients from later slices) and the whole model's (embedding, layers,
// final norm, head, tied or not) against central finite differences.
// In fp32: a sequence cut into slices equals the whole sequence; a model
// cut into layer ranges equals the whole model; a recomputed layer equals
// the first forward bit for bit; and Ulysses over two in-process ranks, also
// with sliced sequences and full recomputation, gives the single-rank loss
// and gradients within 1e-5.
//
//===----------------------------------------------------------------------===//
#include "runtime/Model.h"
#include "runtime/LoopbackComm.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus::runtime;
using namespace plexus::runtime::testutil;

namespace {

template <typename T>
std::vector<BasicTensor<T> *> tensorsOf(LayerWeights<T> &w) {
  std::vector<BasicTensor<T> *> out;
  w.forEach([&](const char *, BasicTensor<T> &t) { out.push_back(&t); });
  return out;
}

template <typename T>
std::vector<std::pair<std::string, BasicTensor<T> *>>
namedTensors(ModelWeights<T> &w) {
  std::vector<std::pair<std::string, BasicTensor<T> *>> out;
  w.forEach([&](const std::string &n, BasicTensor<T> &t) {
    out.push_back({n, &t});
  });
  return out;
}

/// Loss of the whole model (forward only), as referenceStep computes it.
template <typename T>
double modelLoss(const ModelConfig &c, const ModelWeights<T> &w,
                 const std::vector<std::vector<int32_t>> &sequences) {
  std::vector<Slice> slices;
  std::vector<int32_t> tokens, targets;
  for (const auto &s : sequences) {
    const int64_t len = static_cast<int64_t>(s.size());
    slices.push_back({len, 0});
    tokens.insert(tokens.end(), s.begin(), s.end());
    auto t = nextTokenTargets(s, 0, len);
    targets.insert(targets.end(), t.begin(), t.end());
  }
  BasicTensor<T> x, y;
  std::vector<LayerActivations<T>> acts;
  HeadActivations<T> head;
  EXPECT_TRUE(embedForward(c, w, tokens, x).ok());
  EXPECT_TRUE(layersForward(c, w, 0, c.layers, slices, nullptr, x, nullptr,
                            Checkpoint::None, acts, y)
                  .ok());
  Result<double> loss =
      headForward(c, w, y, targets,
                  1.0 / static_cast<double>(targetCount(sequences)), head);
  EXPECT_TRUE(loss.ok());
  return loss.ok() ? *loss : 0.0;
}

//===----------------------------------------------------------------------===//
// Configuration and FLOPs
//===----------------------------------------------------------------------===//

TEST(RuntimeModel, ConfigurationErrors) {
  ModelConfig c = smallConfig();
  EXPECT_TRUE(checkConfig(c).ok());
  c.kvHeads = 3;
  EXPECT_EQ(checkConfig(c).message(),
            "model: K/V heads (3) must divide heads (4)");
  c = smallConfig();
  c.headDim = 3;
  EXPECT_EQ(checkConfig(c).message(),
            "model: the head width must be even and at least 2 (rotary "
            "pairs), got 3");
  c = smallConfig();
  c.vocab = 0;
  EXPECT_EQ(checkConfig(c).message(), "model: vocab must be at least 1, got 0");
}

TEST(RuntimeModel, ForwardFlopsByHand) {
  // h 4, 2 heads, 1 K/V head, d 2, ffn 8, GeLU, vocab 10; one slice of 3
  // tokens after 2 of context: 3 * 2 + 3 * 4 / 2 = 12 causal pairs.
  // Per layer: 2 * 3 * (4 * (2 + 2) * 2 + 2 * 2 * 4 + 2 * 4 * 8) = 672
  // for the projections and 2 * 2 * 12 * 2 * 2 = 192 for attention; two
  // layers and the head's 2 * 3 * 4 * 10 = 240 make 1968.
  ModelConfig c;
  c.layers = 2;
  c.hidden = 4;
  c.heads = 2;
  c.kvHeads = 1;
  c.headDim = 2;
  c.ffn = 8;
  c.vocab = 10;
  c.mlp = MlpKind::GeLU;
  EXPECT_EQ(forwardFlops(c, {{3, 2}}, 0, 2, true), 1968);
  EXPECT_EQ(forwardFlops(c, {{3, 2}}, 1, 2, false), 864);
}

TEST(RuntimeModel, StagesDrawTheWholeModelsWeights) {
  ModelConfig c = fp32Config(4);
  auto whole = initWeights<float>(c, wholeModel(c), 9);
  auto late = initWeights<float>(c, {2, 4, false, true}, 9);
  ASSERT_TRUE(whole.ok() && late.ok());
  EXPECT_TRUE(late->layer(3).wq.identical(whole->layer(3).wq));
  EXPECT_TRUE(late->layer(2).wDown.identical(whole->layer(2).wDown));
  EXPECT_TRUE(late->head.identical(whole->head));
  EXPECT_TRUE(late->embedding.empty());
  EXPECT_FALSE(whole->layer(0).wq.identical(whole->layer(1).wq));
  // hidden 32, 4 x 8 query and 2 x 8 K/V widths, SwiGLU 48, vocab 40:
  // per layer 2 * 32 + 32 * 32 + 2 * 32 * 16 + 32 * 32 + 3 * 32 * 48.
  const int64_t perLayer = 64 + 1024 + 1024 + 1024 + 4608;
  EXPECT_EQ(parameterCount(*whole), 4 * perLayer + 40 * 32 + 32 + 32 * 40);
  auto bad = initWeights<float>(c, {3, 5, false, false}, 9);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(),
            "stage part: layers [3, 5) are not a range of the model's 4");
}

//===----------------------------------------------------------------------===//
// Gradients against finite differences (double)
//===----------------------------------------------------------------------===//

class RuntimeModelGradients : public ::testing::TestWithParam<MlpKind> {};

TEST_P(RuntimeModelGradients, LayerBackwardMatchesFiniteDifferences) {
  const ModelConfig c = smallConfig(GetParam());
  auto weights = initWeights<double>(c, wholeModel(c), 3);
  ASSERT_TRUE(weights.ok()) << weights.message();
  LayerWeights<double> &w = weights->layer(1);
  // Two slices, the second attending to 3 earlier tokens of its sequence;
  // later slices have attended to this call's K/V (gradients `later`).
  const std::vector<Slice> slices = {{6, 0}, {4, 3}};
  const int64_t d = c.headWidth(), kv = c.kvHeadCount();
  auto x = randomTensor<double>({10, c.hidden}, 1);
  KeyValues<double> context{randomTensor<double>({3, kv, d}, 2),
                            randomTensor<double>({3, kv, d}, 3)};
  KeyValues<double> later{randomTensor<double>({10, kv, d}, 4),
                          randomTensor<double>({10, kv, d}, 5)};
  auto r = randomTensor<double>({10, c.hidden}, 6);
  auto loss = [&] {
    LayerActivations<double> acts;
    TensorD y;
    EXPECT_TRUE(layerForward(c, w, slices, nullptr, x, &context,
                             Checkpoint::None, acts, y)
                    .ok());
    return dotAll(y, r) + dotAll(acts.k, later.k) + dotAll(acts.v, later.v);
  };
  LayerActivations<double> acts;
  TensorD y, dx;
  ASSERT_TRUE(layerForward(c, w, slices, nullptr, x, &context, Checkpoint::None,
                           acts, y)
                  .ok());
  LayerWeights<double> grads = w;
  for (TensorD *t : tensorsOf(grads))
    t->fill(0);
  KeyValues<double> contextGrad;
  Status st = layerBackward(c, w, slices, nullptr, &context, acts, r, &later,
                            dx, grads, &contextGrad);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_LT(gradientError(x, dx, loss), 1e-7);
  EXPECT_LT(gradientError(context.k, contextGrad.k, loss), 1e-7);
  EXPECT_LT(gradientError(context.v, contextGrad.v, loss), 1e-7);
  auto params = tensorsOf(w), analytic = tensorsOf(grads);
  const char *names[] = {"attn_norm", "wq",     "wk",   "wv",    "wo",
                         "mlp_norm",  "w_gate", "w_up", "w_down"};
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_LT(gradientError(*params[i], *analytic[i], loss), 1e-7)
        << "tensor " << i << " ("
        << names[i + (c.mlp == MlpKind::GeLU && i >= 6 ? 1 : 0)] << ")";
}

TEST_P(RuntimeModelGradients, ModelBackwardMatchesFiniteDifferences) {
  for (bool tied : {false, true}) {
    ModelConfig c = smallConfig(GetParam());
    c.tiedEmbeddings = tied;
    auto w = initWeights<double>(c, wholeModel(c), 4);
    ASSERT_TRUE(w.ok()) << w.message();
    const std::vector<std::vector<int32_t>> seqs = {
        syntheticTokens(4, 0, 6, c.vocab), syntheticTokens(4, 1, 4, c.vocab)};
    ModelWeights<double> grads = zerosLike(*w);
    Result<double> loss = referenceStep(c, *w, seqs, grads);
    ASSERT_TRUE(loss.ok()) << loss.message();
    EXPECT_NEAR(*loss, modelLoss(c, *w, seqs), 1e-14);
    auto params = namedTensors(*w), analytic = namedTensors(grads);
    ASSERT_EQ(params.size(), analytic.size());
    for (size_t i = 0; i < params.size(); ++i)
      EXPECT_LT(gradientError(*params[i].second, *analytic[i].second,
                              [&] { return modelLoss(c, *w, seqs); }),
                1e-7)
          << params[i].first << (tied ? " (tied)" : "");
  }
}

INSTANTIATE_TEST_SUITE_P(MlpKinds, RuntimeModelGradients,
                         ::testing::Values(MlpKind::SwiGLU, MlpKind::GeLU),
                         [](const ::testing::TestParamInfo<MlpKind> &info) {
                           return std::string(info.param == MlpKind::SwiGLU
                                                  ? "SwiGLU"
                                                  : "GeLU");
                         });

//===----------------------------------------------------------------------===//
// Equivalences (fp32)
//===----------------------------------------------------------------------===//

TEST(RuntimeModel, SlicedSequenceEqualsTheWholeSequence) {
  // A 150-token sequence through two layers, whole and as slices of 70 and
  // 80 tokens (the second attending to the first's K/V): the activations
  // are equal bit for bit, the gradients to fp32 rounding.
  const ModelConfig c = fp32Config();
  auto w = initWeights<float>(c, wholeModel(c), 11);
  ASSERT_TRUE(w.ok());
  const int64_t t = 150, split = 70;
  auto x = randomTensor<float>({t, c.hidden}, 1);
  auto dy = randomTensor<float>({t, c.hidden}, 2);

  std::vector<LayerActivations<float>> whole;
  Tensor y, dx;
  ModelWeights<float> wholeGrads = zerosLike(*w);
  ASSERT_TRUE(layersForward(c, *w, 0, 2, {{t, 0}}, nullptr, x, nullptr,
                            Checkpoint::None, whole, y)
                  .ok());
  ASSERT_TRUE(layersBackward(c, *w, 0, 2, {{t, 0}}, nullptr, nullptr, whole, dy,
                             nullptr, dx, wholeGrads, nullptr)
                  .ok());

  const std::vector<Slice> first = {{split, 0}}, second = {{t - split, split}};
  std::vector<LayerActivations<float>> a1, a2;
  Tensor y1, y2;
  ASSERT_TRUE(layersForward(c, *w, 0, 2, first, nullptr, rowRange(x, 0, split),
                            nullptr, Checkpoint::None, a1, y1)
                  .ok());
  std::vector<KeyValues<float>> contexts = {{a1[0].k, a1[0].v},
                                            {a1[1].k, a1[1].v}};
  ASSERT_TRUE(layersForward(c, *w, 0, 2, second, nullptr, rowRange(x, split, t),
                            &contexts, Checkpoint::None, a2, y2)
                  .ok());
  EXPECT_TRUE(y1.identical(rowRange(y, 0, split)));
  EXPECT_TRUE(y2.identical(rowRange(y, split, t)));

  ModelWeights<float> grads = zerosLike(*w);
  std::vector<KeyValues<float>> contextGrads;
  Tensor dx1, dx2;
  ASSERT_TRUE(layersBackward(c, *w, 0, 2, second, nullptr, &contexts, a2,
                             rowRange(dy, split, t), nullptr, dx2, grads,
                             &contextGrads)
                  .ok());
  ASSERT_TRUE(layersBackward(c, *w, 0, 2, first, nullptr, nullptr, a1,
                             rowRange(dy, 0, split), &contextGrads, dx1, grads,
                             nullptr)
                  .ok());
  EXPECT_LT(normRelativeError(dx1, rowRange(dx, 0, split)), 1e-5);
  EXPECT_LT(normRelativeError(dx2, rowRange(dx, split, t)), 1e-5);
  auto got = namedTensors(grads), want = namedTensors(wholeGrads);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LT(normRelativeError(*got[i].second, *want[i].second), 1e-5)
        << got[i].first;
}

TEST(RuntimeModel, LayerRangesComposeToTheWholeModel) {
  // Stage 0 (embedding, layers 0-1) and stage 1 (layers 2-3, head) give
  // the whole model's loss and gradients bit for bit.
  const ModelConfig c = fp32Config(4);
  auto whole = initWeights<float>(c, wholeModel(c), 12);
  auto s0 = initWeights<float>(c, {0, 2, true, false}, 12);
  auto s1 = initWeights<float>(c, {2, 4, false, true}, 12);
  ASSERT_TRUE(whole.ok() && s0.ok() && s1.ok());
  const std::vector<std::vector<int32_t>> seqs = {
      syntheticTokens(12, 0, 20, c.vocab), syntheticTokens(12, 1, 9, c.vocab)};
  ModelWeights<float> grads = zerosLike(*whole);
  Result<double> loss = referenceStep(c, *whole, seqs, grads);
  ASSERT_TRUE(loss.ok()) << loss.message();

  const std::vector<Slice> slices = {{20, 0}, {9, 0}};
  std::vector<int32_t> tokens = seqs[0],
                       targets = nextTokenTargets(seqs[0], 0, 20);
  tokens.insert(tokens.end(), seqs[1].begin(), seqs[1].end());
  auto t1 = nextTokenTargets(seqs[1], 0, 9);
  targets.insert(targets.end(), t1.begin(), t1.end());
  ModelWeights<float> g0 = zerosLike(*s0), g1 = zerosLike(*s1);
  Tensor x, h, y, dy, dh, dx;
  std::vector<LayerActivations<float>> a0, a1;
  HeadActivations<float> head;
  ASSERT_TRUE(embedForward(c, *s0, tokens, x).ok());
  ASSERT_TRUE(layersForward(c, *s0, 0, 2, slices, nullptr, x, nullptr,
                            Checkpoint::None, a0, h)
                  .ok());
  ASSERT_TRUE(layersForward(c, *s1, 2, 4, slices, nullptr, h, nullptr,
                            Checkpoint::None, a1, y)
                  .ok());
  Result<double> stagedLoss = headForward(c, *s1, y, targets, 1.0 / 27, head);
  ASSERT_TRUE(stagedLoss.ok());
  EXPECT_EQ(*stagedLoss, *loss);
  ASSERT_TRUE(headBackward(c, *s1, head, dy, g1).ok());
  ASSERT_TRUE(layersBackward(c, *s1, 2, 4, slices, nullptr, nullptr, a1, dy,
                             nullptr, dh, g1, nullptr)
                  .ok());
  ASSERT_TRUE(layersBackward(c, *s0, 0, 2, slices, nullptr, nullptr, a0, dh,
                             nullptr, dx, g0, nullptr)
                  .ok());
  ASSERT_TRUE(embedBackward(c, tokens, dx, g0).ok());
  EXPECT_TRUE(g0.embedding.identical(grads.embedding));
  for (int64_t l = 0; l < 4; ++l) {
    auto staged = tensorsOf(l < 2 ? g0.layer(l) : g1.layer(l));
    auto want = tensorsOf(grads.layer(l));
    for (size_t i = 0; i < staged.size(); ++i)
      EXPECT_TRUE(staged[i]->identical(*want[i])) << "layer " << l << " #" << i;
  }
  EXPECT_TRUE(g1.finalNorm.identical(grads.finalNorm));
  EXPECT_TRUE(g1.head.identical(grads.head));
}

void expectSameActivations(const LayerActivations<float> &a,
                           const LayerActivations<float> &b) {
  const Tensor LayerActivations<float>::*fields[] = {
      &LayerActivations<float>::input,      &LayerActivations<float>::normed1,
      &LayerActivations<float>::rstd1,      &LayerActivations<float>::q,
      &LayerActivations<float>::k,          &LayerActivations<float>::v,
      &LayerActivations<float>::attn,       &LayerActivations<float>::lse,
      &LayerActivations<float>::attnTokens, &LayerActivations<float>::x2,
      &LayerActivations<float>::normed2,    &LayerActivations<float>::rstd2,
      &LayerActivations<float>::gate,       &LayerActivations<float>::up,
      &LayerActivations<float>::act};
  for (size_t i = 0; i < std::size(fields); ++i)
    EXPECT_TRUE((a.*fields[i]).identical(b.*fields[i])) << "field " << i;
}

TEST(RuntimeModel, RecomputeIsBitIdentical) {
  const ModelConfig c = fp32Config();
  auto w = initWeights<float>(c, wholeModel(c), 13);
  ASSERT_TRUE(w.ok());
  const std::vector<Slice> slices = {{30, 0}, {20, 12}};
  auto x = randomTensor<float>({50, c.hidden}, 1);
  KeyValues<float> context{randomTensor<float>({12, 2, 8}, 2),
                           randomTensor<float>({12, 2, 8}, 3)};
  auto dy = randomTensor<float>({50, c.hidden}, 4);
  LayerActivations<float> kept, checkpointed;
  Tensor y1, y2;
  ASSERT_TRUE(layerForward(c, w->layer(0), slices, nullptr, x, &context,
                           Checkpoint::None, kept, y1)
                  .ok());
  ASSERT_TRUE(layerForward(c, w->layer(0), slices, nullptr, x, &context,
                           Checkpoint::Full, checkpointed, y2)
                  .ok());
  EXPECT_TRUE(y1.identical(y2));
  EXPECT_FALSE(checkpointed.complete);
  EXPECT_TRUE(checkpointed.q.empty());
  EXPECT_TRUE(checkpointed.k.identical(kept.k)); // later slices need K/V

  Tensor dx;
  LayerWeights<float> grads = w->layer(0);
  Status early = layerBackward(c, w->layer(0), slices, nullptr, &context,
                               checkpointed, dy, nullptr, dx, grads, nullptr);
  EXPECT_EQ(early.message(), "layer backward: the activations were "
                             "checkpointed; call layerRecompute first");

  ASSERT_TRUE(
      layerRecompute(c, w->layer(0), slices, nullptr, &context, checkpointed)
          .ok());
  expectSameActivations(kept, checkpointed);
  LayerWeights<float> g1 = w->layer(0), g2 = w->layer(0);
  for (Tensor *t : tensorsOf(g1))
    t->fill(0);
  for (Tensor *t : tensorsOf(g2))
    t->fill(0);
  Tensor dx1, dx2;
  KeyValues<float> cg1, cg2;
  ASSERT_TRUE(layerBackward(c, w->layer(0), slices, nullptr, &context, kept, dy,
                            nullptr, dx1, g1, &cg1)
                  .ok());
  ASSERT_TRUE(layerBackward(c, w->layer(0), slices, nullptr, &context,
                            checkpointed, dy, nullptr, dx2, g2, &cg2)
                  .ok());
  EXPECT_TRUE(dx1.identical(dx2));
  EXPECT_TRUE(cg1.k.identical(cg2.k));
  auto t1 = tensorsOf(g1), t2 = tensorsOf(g2);
  for (size_t i = 0; i < t1.size(); ++i)
    EXPECT_TRUE(t1[i]->identical(*t2[i])) << "tensor " << i;
}

TEST(RuntimeModel, AttentionCoreRunsPerHeadGroup) {
  // What a caller doing its own all-to-all relies on: the core over head
  // group j (query heads 2j, 2j + 1 and K/V head j) gives exactly those
  // heads of the core over all heads.
  const std::vector<Slice> slices = {{9, 0}, {7, 5}};
  auto q = randomTensor<float>({16, 4, 8}, 1, 2.0f);
  auto k = randomTensor<float>({16, 2, 8}, 2, 2.0f);
  auto v = randomTensor<float>({16, 2, 8}, 3);
  KeyValues<float> ctx{randomTensor<float>({5, 2, 8}, 4, 2.0f),
                       randomTensor<float>({5, 2, 8}, 5)};
  Tensor out, lse;
  ASSERT_TRUE(attentionCoreForward(slices, q, k, v, &ctx, out, lse).ok());
  auto heads = [](const Tensor &t, int64_t first, int64_t count) {
    Tensor part({t.dim(0), count, t.dim(2)});
    for (int64_t r = 0; r < t.dim(0); ++r)
      std::memcpy(part.row(r), t.row(r) + first * t.dim(2),
                  sizeof(float) * static_cast<size_t>(count * t.dim(2)));
    return part;
  };
  for (int64_t j = 0; j < 2; ++j) {
    KeyValues<float> ctxj{heads(ctx.k, j, 1), heads(ctx.v, j, 1)};
    Tensor outj, lsej;
    ASSERT_TRUE(attentionCoreForward(slices, heads(q, 2 * j, 2), heads(k, j, 1),
                                     heads(v, j, 1), &ctxj, outj, lsej)
                    .ok());
    EXPECT_TRUE(outj.identical(heads(out, 2 * j, 2))) << "group " << j;
  }
}

//===----------------------------------------------------------------------===//
// Ulysses on the loopback
//===----------------------------------------------------------------------===//

struct RankResult {
  double loss = 0;
  ModelWeights<float> grads;
};

void expectMatchesReference(const std::vector<RankResult> &ranks,
                            double refLoss, ModelWeights<float> &refGrads) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    EXPECT_LT(std::fabs(ranks[r].loss - refLoss) / std::fabs(refLoss), 1e-5)
        << "rank " << r << ": " << ranks[r].loss << " vs " << refLoss;
    ModelWeights<float> got = ranks[r].grads;
    auto g = namedTensors(got), want = namedTensors(refGrads);
    ASSERT_EQ(g.size(), want.size());
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_LT(normRelativeError(*g[i].second, *want[i].second), 1e-5)
          << "rank " << r << " " << g[i].first;
  }
}

TEST(RuntimeUlysses, TwoWayHeadSplitMatchesUnsplitStep) {
  const ModelConfig c = fp32Config();
  auto w = initWeights<float>(c, wholeModel(c), 21);
  ASSERT_TRUE(w.ok());
  const std::vector<std::vector<int32_t>> seqs = {
      syntheticTokens(21, 0, 12, c.vocab), syntheticTokens(21, 1, 8, c.vocab)};
  ModelWeights<float> refGrads = zerosLike(*w);
  Result<double> refLoss = referenceStep(c, *w, seqs, refGrads);
  ASSERT_TRUE(refLoss.ok()) << refLoss.message();

  const std::vector<Slice> slices = {{12, 0}, {8, 0}};
  std::vector<int32_t> tokens = seqs[0],
                       targets = nextTokenTargets(seqs[0], 0, 12);
  tokens.insert(tokens.end(), seqs[1].begin(), seqs[1].end());
  auto t1 = nextTokenTargets(seqs[1], 0, 8);
  targets.insert(targets.end(), t1.begin(), t1.end());
  const double scale = 1.0 / static_cast<double>(targetCount(seqs));

  for (const Group &ring : {Group{0, 1}, Group{1, 0}}) {
    LoopbackWorld world(2);
    std::vector<RankResult> results(2);
    Status st = world.run([&](Comm &comm) -> Status {
      UlyssesGroup sp{&comm, ring};
      const auto rows = localRows(slices, 2, comm.indexIn(ring));
      const auto myTokens = pick(tokens, rows), myTargets = pick(targets, rows);
      ModelWeights<float> grads = zerosLike(*w);
      Tensor x, y, dy, dx;
      std::vector<LayerActivations<float>> acts;
      HeadActivations<float> head;
      PLXRT_TRY(embedForward(c, *w, myTokens, x));
      PLXRT_TRY(layersForward(c, *w, 0, c.layers, slices, &sp, x, nullptr,
                              Checkpoint::None, acts, y));
      Result<double> loss = headForward(c, *w, y, myTargets, scale, head);
      if (!loss.ok())
        return loss.status();
      PLXRT_TRY(headBackward(c, *w, head, dy, grads));
      PLXRT_TRY(layersBackward(c, *w, 0, c.layers, slices, &sp, nullptr, acts,
                               dy, nullptr, dx, grads, nullptr));
      PLXRT_TRY(embedBackward(c, myTokens, dx, grads));
      PLXRT_TRY(allReduceGradients(comm, ring, grads));
      double total = *loss;
      PLXRT_TRY(comm.allReduce(ring, &total, 1));
      results[static_cast<size_t>(comm.rank())] = {total, std::move(grads)};
      return Status::success();
    });
    ASSERT_TRUE(st.ok()) << st.message();
    expectMatchesReference(results, *refLoss, refGrads);
    // The all-reduce leaves identical gradients on both ranks.
    EXPECT_TRUE(
        results[0].grads.layer(1).wq.identical(results[1].grads.layer(1).wq));
  }
}

TEST(RuntimeUlysses, SlicedMicroBatchesWithRecomputeMatchUnsplitStep) {
  // Sequence A (16 tokens) is cut into two slices of 8; micro-batch 1 runs
  // A's first slice beside sequence B (8 tokens) under full
  // checkpointing; micro-batch 2 runs A's second slice, attending to the
  // first slice's K/V as kept by micro-batch 1 (in the head-group layout).
  // Backward: micro-batch 2 first, its context gradients flowing into
  // micro-batch 1's K/V, then micro-batch 1, recomputed. Everything under
  // 2-way Ulysses on the loopback, against the single-rank step.
  const ModelConfig c = fp32Config();
  auto w = initWeights<float>(c, wholeModel(c), 22);
  ASSERT_TRUE(w.ok());
  const std::vector<int32_t> a = syntheticTokens(22, 0, 16, c.vocab),
                             b = syntheticTokens(22, 1, 8, c.vocab);
  ModelWeights<float> refGrads = zerosLike(*w);
  Result<double> refLoss = referenceStep(c, *w, {a, b}, refGrads);
  ASSERT_TRUE(refLoss.ok()) << refLoss.message();
  const double scale = 1.0 / static_cast<double>(targetCount({a, b}));

  const std::vector<Slice> mb1 = {{8, 0}, {8, 0}}, mb2 = {{8, 8}};
  std::vector<int32_t> tokens1(a.begin(), a.begin() + 8),
      targets1 = nextTokenTargets(a, 0, 8);
  tokens1.insert(tokens1.end(), b.begin(), b.end());
  auto tb = nextTokenTargets(b, 0, 8);
  targets1.insert(targets1.end(), tb.begin(), tb.end());
  const std::vector<int32_t> tokens2(a.begin() + 8, a.end()),
      targets2 = nextTokenTargets(a, 8, 16);

  LoopbackWorld world(2);
  std::vector<RankResult> results(2);
  const Group ring = {1, 0};
  Status st = world.run([&](Comm &comm) -> Status {
    UlyssesGroup sp{&comm, ring};
    const int idx = comm.indexIn(ring);
    const auto rows1 = localRows(mb1, 2, idx), rows2 = localRows(mb2, 2, idx);
    const auto tok1 = pick(tokens1, rows1), tgt1 = pick(targets1, rows1);
    const auto tok2 = pick(tokens2, rows2), tgt2 = pick(targets2, rows2);
    ModelWeights<float> grads = zerosLike(*w);

    // Forward of micro-batch 1 (checkpointed), then micro-batch 2.
    Tensor x1, y1, x2, y2;
    std::vector<LayerActivations<float>> acts1, acts2;
    HeadActivations<float> head1, head2;
    PLXRT_TRY(embedForward(c, *w, tok1, x1));
    PLXRT_TRY(layersForward(c, *w, 0, c.layers, mb1, &sp, x1, nullptr,
                            Checkpoint::Full, acts1, y1));
    Result<double> loss1 = headForward(c, *w, y1, tgt1, scale, head1);
    if (!loss1.ok())
      return loss1.status();
    std::vector<KeyValues<float>> contexts;
    for (const auto &act : acts1) // rows 0..7 of the core layout: A's slice
      contexts.push_back({rowRange(act.k, 0, 8), rowRange(act.v, 0, 8)});
    PLXRT_TRY(embedForward(c, *w, tok2, x2));
    PLXRT_TRY(layersForward(c, *w, 0, c.layers, mb2, &sp, x2, &contexts,
                            Checkpoint::None, acts2, y2));
    Result<double> loss2 = headForward(c, *w, y2, tgt2, scale, head2);
    if (!loss2.ok())
      return loss2.status();

    // Backward of micro-batch 2, then micro-batch 1 with the K/V gradients.
    Tensor dy, dx;
    std::vector<KeyValues<float>> contextGrads;
    PLXRT_TRY(headBackward(c, *w, head2, dy, grads));
    PLXRT_TRY(layersBackward(c, *w, 0, c.layers, mb2, &sp, &contexts, acts2, dy,
                             nullptr, dx, grads, &contextGrads));
    PLXRT_TRY(embedBackward(c, tok2, dx, grads));
    std::vector<KeyValues<float>> later(acts1.size());
    for (size_t l = 0; l < acts1.size(); ++l) {
      later[l].k.resize(acts1[l].k.shape());
      later[l].v.resize(acts1[l].v.shape());
      std::memcpy(later[l].k.data(), contextGrads[l].k.data(),
                  sizeof(float) *
                      static_cast<size_t>(contextGrads[l].k.numel()));
      std::memcpy(later[l].v.data(), contextGrads[l].v.data(),
                  sizeof(float) *
                      static_cast<size_t>(contextGrads[l].v.numel()));
    }
    PLXRT_TRY(headBackward(c, *w, head1, dy, grads));
    PLXRT_TRY(layersBackward(c, *w, 0, c.layers, mb1, &sp, nullptr, acts1, dy,
                             &later, dx, grads, nullptr));
    PLXRT_TRY(embedBackward(c, tok1, dx, grads));
    PLXRT_TRY(allReduceGradients(comm, ring, grads));
    double total = *loss1 + *loss2;
    PLXRT_TRY(comm.allReduce(ring, &total, 1));
    results[static_cast<size_t>(comm.rank())] = {total, std::move(grads)};
    return Status::success();
  });
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(results, *refLoss, refGrads);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(RuntimeModel, BadInputsAreErrors) {
  const ModelConfig c = fp32Config();
  auto w = initWeights<float>(c, wholeModel(c), 30);
  ASSERT_TRUE(w.ok());
  LayerActivations<float> acts;
  Tensor y;
  Status st =
      layerForward(c, w->layer(0), {{10, 0}}, nullptr, Tensor({3, c.hidden}),
                   nullptr, Checkpoint::None, acts, y);
  EXPECT_EQ(st.message(), "layer input is [3, 32], expected [10, 32]");
  st = layerForward(c, w->layer(0), {{4, 2}}, nullptr, Tensor({4, c.hidden}),
                    nullptr, Checkpoint::None, acts, y);
  EXPECT_EQ(st.message(), "attention: the slices have 2 context tokens but no "
                          "context K/V was given");
  Tensor x;
  EXPECT_EQ(embedForward(c, *w, {3, 40}, x).message(),
            "token 1 is 40, outside the vocabulary of 40");
  HeadActivations<float> head;
  Result<double> loss =
      headForward(c, *w, Tensor({2, c.hidden}), {1}, 1.0, head);
  EXPECT_EQ(loss.message(), "head: 1 targets for 2 rows");
  std::vector<LayerActivations<float>> many;
  EXPECT_EQ(layersForward(c, *w, 1, 3, {{2, 0}}, nullptr, Tensor({2, 32}),
                          nullptr, Checkpoint::None, many, y)
                .message(),
            "layers [1, 3) are not held by the stage [0, 2)");

  LoopbackWorld world(2);
  std::vector<std::string> messages(2);
  ASSERT_TRUE(world
                  .run([&](Comm &comm) -> Status {
                    UlyssesGroup sp{&comm, {0, 1}};
                    LayerActivations<float> a;
                    Tensor out;
                    messages[static_cast<size_t>(comm.rank())] =
                        layerForward(c, w->layer(0), {{5, 0}}, &sp,
                                     Tensor({2, c.hidden}), nullptr,
                                     Checkpoint::None, a, out)
                            .message();
                    return Status::success();
                  })
                  .ok());
  EXPECT_EQ(messages[0], "slice 0 has 5 tokens, which do not split over "
                         "Ulysses degree 2");
  ModelConfig three = c;
  three.heads = 6;
  three.kvHeads = 3;
  three.hidden = 48;
  ASSERT_TRUE(world
                  .run([&](Comm &comm) -> Status {
                    UlyssesGroup sp{&comm, {0, 1}};
                    auto w3 = initWeights<float>(three, wholeModel(three), 1);
                    if (!w3.ok())
                      return w3.status();
                    LayerActivations<float> a;
                    Tensor out;
                    messages[static_cast<size_t>(comm.rank())] =
                        layerForward(three, w3->layer(0), {{4, 0}}, &sp,
                                     Tensor({2, three.hidden}), nullptr,
                                     Checkpoint::None, a, out)
                            .message();
                    return Status::success();
                  })
                  .ok());
  EXPECT_EQ(messages[1], "heads (6) and K/V heads (3) must split over Ulysses "
                         "degree 2");
}

} // namespace
