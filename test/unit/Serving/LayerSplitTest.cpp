//===- LayerSplitTest.cpp - Uneven layer split across serving stages ------===//
#include "passes/Serving/LayerSplit.h"

#include "ServingFixtures.h"

#include "passes/Instantiate/BatchSampler.h"

#include <gtest/gtest.h>

using namespace plexus::serving;
using namespace plexus::serving::testing;

namespace {

/// Every contiguous split of `layers` layers into `stages` non-empty stages.
void allSplits(int64_t layers, int64_t stages, std::vector<int64_t> &prefix,
               std::vector<std::vector<int64_t>> &out) {
  if (stages == 1) {
    prefix.push_back(layers);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t first = 1; first <= layers - (stages - 1); ++first) {
    prefix.push_back(first);
    allSplits(layers - first, stages - 1, prefix, out);
    prefix.pop_back();
  }
}

} // namespace

TEST(LayerSplit, LastStageAbsorbsItsExtraWork) {
  // Six layers of 1 s; the last stage also samples and drafts for 2 s.
  // Even (3, 3) has a bottleneck of 5 s; (4, 2) balances at 4 s.
  std::vector<double> layers(6, 1.0);
  std::vector<double> extras = {0.0, 2.0};
  auto split = balancedLayerSplit(layers, extras);
  ASSERT_TRUE(split) << split.error;
  EXPECT_EQ(*split, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(splitBottleneckSeconds(layers, extras, *split), 4.0);
  EXPECT_EQ(splitBottleneckSeconds(layers, extras, {3, 3}), 5.0);
}

TEST(LayerSplit, EvenWithoutExtrasAndHeterogeneousLayers) {
  auto even = balancedLayerSplit(std::vector<double>(8, 1.0), {0, 0, 0, 0});
  ASSERT_TRUE(even);
  EXPECT_EQ(*even, (std::vector<int64_t>{2, 2, 2, 2}));
  // A heavy first layer: (2 | 4) gives 4 against (1 | 5)'s 5.
  auto heavy = balancedLayerSplit({3, 1, 1, 1, 1, 1}, {0, 0});
  ASSERT_TRUE(heavy);
  EXPECT_EQ(*heavy, (std::vector<int64_t>{2, 4}));
  // (2 | 1) and (1 | 2) both give 2: ties put the boundary later, so the
  // spare layer goes to the earlier stage.
  auto tie = balancedLayerSplit({1, 1, 1}, {0, 0});
  ASSERT_TRUE(tie);
  EXPECT_EQ(*tie, (std::vector<int64_t>{2, 1}));
}

TEST(LayerSplit, MatchesBruteForce) {
  plexus::instantiate::StepRng rng(9, 0);
  for (int trial = 0; trial < 300; ++trial) {
    int64_t stages = 1 + int64_t(rng.below(4));
    int64_t layers = stages + int64_t(rng.below(8));
    std::vector<double> t(static_cast<size_t>(layers));
    std::vector<double> e(static_cast<size_t>(stages));
    for (double &x : t)
      x = double(1 + rng.below(9));
    for (double &x : e)
      x = double(rng.below(6));
    auto split = balancedLayerSplit(t, e);
    ASSERT_TRUE(split) << split.error;
    std::vector<std::vector<int64_t>> candidates;
    std::vector<int64_t> prefix;
    allSplits(layers, stages, prefix, candidates);
    double best = 1e300;
    for (const std::vector<int64_t> &c : candidates)
      best = std::min(best, splitBottleneckSeconds(t, e, c));
    EXPECT_EQ(splitBottleneckSeconds(t, e, *split), best) << "trial " << trial;
    int64_t sum = 0;
    for (int64_t n : *split) {
      EXPECT_GE(n, 1);
      sum += n;
    }
    EXPECT_EQ(sum, layers);
  }
}

TEST(LayerSplit, Errors) {
  EXPECT_FALSE(balancedLayerSplit({1, 1}, {0, 0, 0}));
  EXPECT_FALSE(balancedLayerSplit({1, -1}, {0}));
  EXPECT_FALSE(balancedLayerSplit({1}, {}));
}

TEST(LayerSplit, MtpMovesLayersOffTheLastStageOfASmallModel) {
  ServingModel m = h800Model(tinyMoe());
  DecodeBatch b;
  b.requests = 8;
  b.kvTokens = 8 * 4000;
  b.maxKv = 4000;
  ServingLayout layout;
  layout.pp = 2;
  layout.ep = 4;
  layout.dpAttention = true;
  b.tokensPerRequest = 1;
  auto plain = planLayerSplit(m.shape, m.hardware, layout, m.cost, b);
  layout.mtpDrafts = 3;
  b.tokensPerRequest = 4;
  auto mtp = planLayerSplit(m.shape, m.hardware, layout, m.cost, b);
  ASSERT_TRUE(plain && mtp) << plain.error << mtp.error;
  // Sampling and the LM head already weigh on the last stage of so small a
  // model; three MTP passes take at least one more layer off it.
  EXPECT_GE((*plain)[0], (*plain)[1]);
  EXPECT_LT((*mtp)[1], (*plain)[1]);
  EXPECT_LT((*mtp)[1], (*mtp)[0]);
}

TEST(LayerSplit, Glm47GivesTheLastStageFewerLayers) {
  ServingModel m = h800Model(glm47());
  ServingLayout layout;
  layout.pp = 2;
  layout.ep = 8;
  layout.dpAttention = true;
  layout.mtpDrafts = 3;
  DecodeBatch b;
  b.requests = 16;
  b.tokensPerRequest = 4;
  b.kvTokens = 16 * 40000;
  b.maxKv = 40000;
  auto split = planLayerSplit(m.shape, m.hardware, layout, m.cost, b);
  ASSERT_TRUE(split) << split.error;
  EXPECT_EQ((*split)[0] + (*split)[1], 92);
  EXPECT_GT((*split)[0], (*split)[1]);
  EXPECT_LE((*split)[0] - (*split)[1], 12); // a few layers, not a rebuild
}
