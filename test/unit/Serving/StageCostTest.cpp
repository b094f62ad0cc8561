//===- StageCostTest.cpp - Layouts, memory and stage costs ----------------===//
#include "passes/Serving/StageCost.h"

#include "ServingFixtures.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::serving;
using namespace plexus::serving::testing;

namespace {

/// Two bf16 layers of width 64: attention 12,288 and MLP 24,576
/// parameters, a 100-token vocabulary.
cost::TransformerShape twoLayers() {
  cost::TransformerShape s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = 4;
  s.kvHeads = 2;
  s.headDim = 16;
  s.ffn = 128;
  s.vocab = 100;
  s.dtype = cost::DType::BF16;
  return s;
}

} // namespace

TEST(ServingLayout, EvenSplitsAndChecks) {
  EXPECT_EQ(evenLayerSplit(92, 2), (std::vector<int64_t>{46, 46}));
  EXPECT_EQ(evenLayerSplit(7, 3), (std::vector<int64_t>{3, 2, 2}));
  cost::TransformerShape glm = glm47();
  ServingLayout l;
  l.pp = 2;
  l.ep = 8;
  EXPECT_EQ(checkServingLayout(glm, l), "");
  l.ep = 3;
  EXPECT_EQ(checkServingLayout(glm, l), "ep (3) must divide experts (160)");
  l.ep = 8;
  l.stageLayers = {50, 40};
  EXPECT_EQ(checkServingLayout(glm, l),
            "the layer split holds 90 layers, but the model has 92");
  l.stageLayers = {92, 0};
  EXPECT_EQ(checkServingLayout(glm, l), "every stage needs at least one layer");
  l.stageLayers.clear();
  l.mtpDrafts = 3;
  cost::TransformerShape noMtp = glm;
  noMtp.mtpLayers = 0;
  EXPECT_EQ(checkServingLayout(noMtp, l),
            "mtp drafts need a model with MTP layers");
}

TEST(ServingLayout, PlacementOnNodes) {
  ServingHardware hw;
  hw.chipsPerNode = 8;
  ServingLayout pp2;
  pp2.pp = 2;
  pp2.ep = 8;
  EXPECT_EQ(nodesPerEpGroup(pp2, hw), 1);
  EXPECT_TRUE(stageBoundaryCrossesNodes(pp2, hw, 0)); // a stage per node
  ServingLayout ep16;
  ep16.ep = 16;
  EXPECT_EQ(nodesPerEpGroup(ep16, hw), 2);
  ServingLayout small;
  small.pp = 2;
  small.ep = 4;
  EXPECT_FALSE(stageBoundaryCrossesNodes(small, hw, 0)); // one node
}

TEST(ServingLayout, Glm47WeightsPerChip) {
  // A MoE layer of GLM-4.7 in FP8 on an EP8 chip with DP-attention:
  // attention 5120 x 12288 x 2 + 2 x 5120 x 1024 = 136,314,880 bytes;
  // 160 / 8 = 20 routed experts of 3 x 5120 x 1536 = 23,592,960 each; one
  // shared expert and the 5120 x 160 router.
  ServingLayout l;
  l.pp = 2;
  l.ep = 8;
  l.dpAttention = true;
  LayerBytesPerChip b = layerBytesPerChip(glm47(), l, 91);
  EXPECT_EQ(b.attention, 136314880.0);
  EXPECT_EQ(b.routedExperts, 20 * 23592960.0);
  EXPECT_EQ(b.fixedMlp, 23592960.0 + 5120.0 * 160);
  l.dpAttention = false; // tensor-parallel attention: an eighth each
  EXPECT_EQ(layerBytesPerChip(glm47(), l, 91).attention, 136314880.0 / 8);
}

TEST(ServingLayout, KvCapacityByHand) {
  // Per layer: attention 2 x 12,288 B and MLP 2 x 24,576 B = 73,728 B; the
  // embedding and LM head 100 x 64 x 2 = 12,800 B each. On a chip of
  // 1,000,000 B at utilization 0.8 with no reserve, one stage holding both
  // layers keeps 800,000 - 173,056 = 626,944 B for the KV cache, at
  // 2 x 2 x 16 x 2 = 128 B per token and layer: 2,449 tokens, 38 pages.
  ServingHardware hw;
  hw.chip.hbmBytes = 1000000;
  ServingCostOptions o;
  o.reservedBytesPerChip = 0;
  ServingLayout one;
  auto m1 = instanceMemory(twoLayers(), hw, one, o);
  ASSERT_TRUE(m1) << m1.error;
  EXPECT_EQ(m1->stages[0].weightBytes, 173056.0);
  EXPECT_EQ(m1->kvTokens, 2449);
  EXPECT_EQ(m1->kvPages, 38);
  // PP2: each stage holds one layer and one of the two vocabulary matrices
  // (86,528 B), and 713,472 / 128 = 5,574 tokens.
  ServingLayout two;
  two.pp = 2;
  auto m2 = instanceMemory(twoLayers(), hw, two, o);
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->stages[0].weightBytes, 86528.0);
  EXPECT_EQ(m2->stages[1].weightBytes, 86528.0);
  EXPECT_EQ(m2->kvTokens, 5574);
}

TEST(ServingLayout, MemoryBudgetReadsUtilizationPerRuntime) {
  // The chip of KvCapacityByHand (256 B of KV per token over both layers)
  // with a 100,000 B reserve. vLLM's reading (Executor) takes the reserve
  // out of 0.8 x HBM: 800,000 - 100,000 - 173,056 = 526,944 B, 2,058
  // tokens. SGLang's (StaticPool) leaves the reserve to the other 20 %:
  // 626,944 B, 2,449 tokens as with no reserve. At 0.95 the reserve no
  // longer fits outside the budget: min(950,000, 900,000) - 173,056 =
  // 726,944 B, 2,839 tokens.
  ServingHardware hw;
  hw.chip.hbmBytes = 1000000;
  ServingCostOptions o;
  o.reservedBytesPerChip = 100000;
  ServingLayout one;
  auto executor = instanceMemory(twoLayers(), hw, one, o);
  ASSERT_TRUE(executor) << executor.error;
  EXPECT_EQ(executor->kvTokens, 2058);
  o.memoryBudget = MemoryBudget::StaticPool;
  auto pool = instanceMemory(twoLayers(), hw, one, o);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->kvTokens, 2449);
  o.memoryUtilization = 0.95;
  auto high = instanceMemory(twoLayers(), hw, one, o);
  ASSERT_TRUE(high);
  EXPECT_EQ(high->kvTokens, 2839);
}

TEST(ServingLayout, WeightsThatDoNotFitAreAnError) {
  ServingModel m = h800Model(glm47());
  ServingLayout l; // PP1 x EP1: all of GLM-4.7 on one chip
  auto mem = instanceMemory(m.shape, m.hardware, l, m.cost);
  ASSERT_FALSE(mem);
  EXPECT_NE(mem.error.find("stage 0's weights need"), std::string::npos);
  EXPECT_NE(mem.error.find("raise pp or ep"), std::string::npos);
  l.pp = 2;
  l.ep = 8;
  l.dpAttention = true;
  auto fits = instanceMemory(m.shape, m.hardware, l, m.cost);
  ASSERT_TRUE(fits) << fits.error;
  EXPECT_GT(fits->kvTokens, 1000000); // a million tokens or so per instance
}

TEST(StageCost, LinearFormByHand) {
  LinearStageCoefficients c;
  c.prefillFixed = 1;
  c.prefillPerToken = 0.01;
  c.prefillPerQuad = 1e-6;
  c.decodeFixed = 0.5;
  c.decodePerToken = 0.1;
  c.decodePerKv = 0.001;
  c.hopFixed = 0.2;
  c.hopPerToken = 0.001;
  LinearStageCost cost({c, c});
  PrefillBatch p;
  p.requests = 1;
  p.tokens = 100;
  p.quadratic = 100.0 * (2 * 50 + 100); // c = 50, x = 100
  EXPECT_DOUBLE_EQ(cost.prefillSeconds(0, p), 1 + 1 + 0.02);
  DecodeBatch d;
  d.requests = 2;
  d.tokensPerRequest = 2;
  d.kvTokens = 300;
  EXPECT_DOUBLE_EQ(cost.decodeSeconds(1, d), 0.5 + 0.4 + 0.3);
  EXPECT_DOUBLE_EQ(cost.hopSeconds(0, 100), 0.3);
  EXPECT_EQ(cost.decodeSeconds(0, DecodeBatch()), 0.0); // empty: nothing
  PrefillWeight w = cost.prefillWeight();
  EXPECT_DOUBLE_EQ(w.alpha, 0.02);
  EXPECT_DOUBLE_EQ(w.beta, 2e-6);
  EXPECT_DOUBLE_EQ(w.gamma, 1.0);
}

TEST(StageCost, PrefillWeightIsTheModelsIncrementalCost) {
  // Tensor-parallel attention (no DP imbalance) and compute-bound sizes:
  // the stages' prefill times and the hop grow exactly as w(c, x) does.
  ServingModel m = h800Model(glm47());
  ServingLayout l;
  l.pp = 2;
  l.ep = 8;
  l.mtpDrafts = 3;
  auto cost = TransformerStageCost::create(m.shape, m.hardware, l, m.cost);
  ASSERT_TRUE(cost) << cost.error;
  const TransformerStageCost &t = **cost;
  auto total = [&](int64_t c, int64_t x) {
    PrefillBatch b;
    b.requests = 1;
    b.tokens = x;
    b.quadratic = double(x) * (2.0 * double(c) + double(x));
    b.maxQuadratic = b.quadratic;
    return t.prefillSeconds(0, b) + t.prefillSeconds(1, b) + t.hopSeconds(0, x);
  };
  PrefillWeight w = t.prefillWeight();
  double measured = total(40000, 30000) - total(10000, 20000);
  double weighted = w(40000, 30000) - w(10000, 20000);
  EXPECT_NEAR(measured / weighted, 1.0, 1e-9);
  EXPECT_GT(w.gamma, m.cost.microBatchOverheadSeconds);
}

TEST(StageCost, CommunicationVolumesOfTheReference) {
  // Reference section 3.1 item 14: EP16 across two nodes sends about
  // 1.4 MB between nodes per prefill token over GLM's 89 MoE layers when
  // tokens go once per remote node (about 5.5 MB when they do not); PP2
  // sends one 10 KB hidden state per token.
  ServingModel m = h800Model(glm47());
  ServingLayout ep16;
  ep16.ep = 16;
  ep16.dpAttention = true;
  auto wide = TransformerStageCost::create(m.shape, m.hardware, ep16, m.cost);
  ASSERT_TRUE(wide);
  double dedup = 89 * (*wide)->interNodeBytesPerTokenPerMoeLayer();
  EXPECT_GT(dedup, 1.3e6);
  EXPECT_LT(dedup, 1.4e6);
  ServingCostOptions noDedup = m.cost;
  noDedup.interNodeDedup = false;
  auto wider = TransformerStageCost::create(m.shape, m.hardware, ep16, noDedup);
  double plain = 89 * (*wider)->interNodeBytesPerTokenPerMoeLayer();
  EXPECT_GT(plain, 4.0e6);
  EXPECT_LT(plain, 5.6e6);
  ServingLayout pp2;
  pp2.pp = 2;
  pp2.ep = 8;
  auto pipe = TransformerStageCost::create(m.shape, m.hardware, pp2, m.cost);
  EXPECT_EQ((*pipe)->interNodeBytesPerTokenPerMoeLayer(), 0.0); // EP in a node
  EXPECT_EQ((*pipe)->interNodeBytesPerTokenPerBoundary(0), 10240.0);
  EXPECT_EQ((*pipe)->interNodeBytesPerTokenPerBoundary(1), 0.0); // last
  // Per token, wide EP moves over a hundred times the bytes PP2 does.
  EXPECT_GT(dedup / 10240.0, 130);
}

TEST(StageCost, DecodeTerms) {
  ServingModel m = h800Model(glm47());
  ServingLayout l;
  l.pp = 2;
  l.ep = 8;
  l.dpAttention = true;
  auto plain = TransformerStageCost::create(m.shape, m.hardware, l, m.cost);
  l.mtpDrafts = 3;
  auto mtp = TransformerStageCost::create(m.shape, m.hardware, l, m.cost);
  ASSERT_TRUE(plain && mtp);
  DecodeBatch even;
  even.requests = 16;
  even.tokensPerRequest = 4;
  even.kvTokens = 16 * 40000;
  even.maxKv = 40000;
  DecodeBatch skewed = even;
  skewed.maxKv = 400000; // one request holds most of the KV
  // Under DP-attention the rank holding the longest request sets the pace.
  EXPECT_GT((*mtp)->decodeSeconds(0, skewed), (*mtp)->decodeSeconds(0, even));
  DecodeBatch longer = even;
  longer.kvTokens *= 2;
  longer.maxKv *= 2;
  EXPECT_GT((*mtp)->decodeSeconds(0, longer), (*mtp)->decodeSeconds(0, even));
  // Stage extras sit on the last stage only; MTP adds its draft passes.
  EXPECT_EQ((*mtp)->decodeStageExtraSeconds(0, even), 0.0);
  DecodeBatch one = even;
  one.tokensPerRequest = 1;
  EXPECT_GT((*mtp)->decodeStageExtraSeconds(1, even),
            (*plain)->decodeStageExtraSeconds(1, one));
  // Stage 0 holds the 3 dense layers and 43 MoE layers, stage 1 46 MoE
  // layers: a stage is the sum of its layers and its extras.
  double dense = (*plain)->decodeLayerSeconds(0, one);
  double moe = (*plain)->decodeLayerSeconds(91, one);
  EXPECT_EQ((*plain)->decodeLayerSeconds(3, one), moe);
  EXPECT_NEAR((*plain)->decodeSeconds(0, one), 3 * dense + 43 * moe, 1e-12);
  EXPECT_NEAR((*plain)->decodeSeconds(1, one),
              46 * moe + (*plain)->decodeStageExtraSeconds(1, one), 1e-12);
  // A decode step is milliseconds, not microseconds or seconds.
  EXPECT_GT((*mtp)->decodeSeconds(0, even), 5e-3);
  EXPECT_LT((*mtp)->decodeSeconds(0, even), 50e-3);
}

TEST(StageCost, CreateRejectsBadOptions) {
  ServingModel m = h800Model(glm47());
  ServingLayout l;
  l.pp = 2;
  l.ep = 8;
  ServingCostOptions o = m.cost;
  o.gemmEfficiency = 0;
  EXPECT_FALSE(TransformerStageCost::create(m.shape, m.hardware, l, o));
  o = m.cost;
  o.commOverlap = 2;
  EXPECT_FALSE(TransformerStageCost::create(m.shape, m.hardware, l, o));
  l.ep = 7;
  EXPECT_FALSE(TransformerStageCost::create(m.shape, m.hardware, l, m.cost));
}
