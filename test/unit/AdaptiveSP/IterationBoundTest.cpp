//===- IterationBoundTest.cpp - The lower bound on FlexSP's iteration -----===//
//
// Hand-checked cases of iterationLowerBound, each with a plan that meets
// the bound (so it is tight there), and a check against the planner on
// Wikipedia batches (the bound never exceeds a plan).
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/IterationBound.h"
#include "passes/AdaptiveSP/AdaptiveSp.h"
#include "test/unit/AdaptiveSP/WikipediaBatches.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::adaptivesp;

namespace {

/// t1(s, d) = (alpha1 s^2 + alpha2 s) / d and no all-to-all (infinite
/// bandwidth), beta1 as given.
cost::ProfiledModel model(double alpha1, double alpha2, double beta1) {
  cost::ProfiledModel m;
  m.name = "hand";
  m.alpha1 = alpha1;
  m.alpha2 = alpha2;
  m.beta1 = beta1;
  m.layers = 1;
  m.hidden = 1;
  m.actMBPerToken = 1;
  return m;
}

cost::AllToAllBandwidthTable freeBandwidth() {
  return {{{2, 1e300}, {4, 1e300}, {8, 1e300}}};
}

} // namespace

TEST(IterationBound, BalancedWorkIsTight) {
  // t1 = s / d, beta1 = 2, N = 4, 8 tokens per GPU, degrees {1, 2, 4},
  // lengths {8, 4, 4}: 16 tokens fit one micro-batch (M_lb = 1). d t1 = s,
  // so the balanced work is 16 / 4 = 4; the longest at SP4 takes 2. Over
  // the breakpoints {1, 2, 4, 8}: on [2, 4) W = 16 and 16 / 4 = 4 is not
  // below 4; on [4, 8) W = 16, so tau* = 4. Bound 1 x 2 + 4 = 6, met by
  // {8} on SP2 and {4}, {4} on SP1 (each group 4 + 2).
  Result<IterationBound> b = iterationLowerBound(
      model(0, 1, 2), freeBandwidth(), {8, 4, 4}, {1, 2, 4}, 4, 8);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(b->minMicroBatches, 1);
  EXPECT_DOUBLE_EQ(b->balancedWorkMs, 4);
  EXPECT_DOUBLE_EQ(b->longestSequenceMs, 2);
  EXPECT_DOUBLE_EQ(b->workMs, 4);
  EXPECT_DOUBLE_EQ(b->boundMs, 6);
}

TEST(IterationBound, ALongSequenceWaitsForItsOwnGroup) {
  // t1 = s / d, beta1 = 2, N = 4, 8 tokens per GPU, degrees {2, 4},
  // lengths {16, 1, 1, 1, 1}: 16 fits SP2 (t1 8) or SP4 (t1 4); the ones
  // take 0.5 at SP2. Balanced work (16 + 4) / 4 = 5; on [4, 8) W = 20, so
  // tau* = max(4, 5) = 5. Bound 2 + 5 = 7, met by one SP4 group of all
  // five (4 + 4 x 0.25 + 2).
  Result<IterationBound> b = iterationLowerBound(
      model(0, 1, 2), freeBandwidth(), {16, 1, 1, 1, 1}, {2, 4}, 4, 8);
  ASSERT_TRUE(b) << b.error;
  EXPECT_DOUBLE_EQ(b->longestSequenceMs, 4);
  EXPECT_DOUBLE_EQ(b->workMs, 5);
  EXPECT_DOUBLE_EQ(b->boundMs, 7);
}

TEST(IterationBound, MemoryPushesWorkIntoAnotherMicroBatch) {
  // t1 = s^2 / d, beta1 = 2, N = 4, 4 tokens per GPU (16 per
  // micro-batch), degrees {1, 2}; lengths {8, twelve 1s}: 20 tokens need
  // M_lb = 2. The 8 fits only SP2: t1 = 32, d t1 = 64; a 1 costs 1 at SP1.
  // tau* = max(32, (64 + 12) / 4 = 19) = 32. Memory: the 8's micro-batch
  // has 16 - 8 = 8 tokens left, so at most F = 8 ones join it and the other
  // micro-batches carry at least 12 - 8 = 4 ms of work on 4 GPUs:
  // g = max(32, (12 + 64) / 4, 32 + (12 - 8) / 4) = 33. Bound 2 x 2 + 33 =
  // 37, met by {8} on SP2 with two SP1 groups of four 1s (32), then four
  // SP1 groups of one 1 (1), plus 2 beta1.
  Result<IterationBound> b = iterationLowerBound(
      model(1, 0, 2), freeBandwidth(), {8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 2}, 4, 4);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(b->minMicroBatches, 2);
  EXPECT_DOUBLE_EQ(b->workMs, 32);
  EXPECT_DOUBLE_EQ(b->holdingMs, 33);
  EXPECT_DOUBLE_EQ(b->boundMs, 37);
}

TEST(IterationBound, Errors) {
  auto m = model(0, 1, 2);
  EXPECT_FALSE(iterationLowerBound(m, freeBandwidth(), {40}, {2, 4}, 4, 8));
  EXPECT_FALSE(iterationLowerBound(m, freeBandwidth(), {4}, {}, 4, 8));
  EXPECT_FALSE(iterationLowerBound(m, freeBandwidth(), {4}, {8}, 4, 8));
  EXPECT_FALSE(iterationLowerBound(m, freeBandwidth(), {0}, {2}, 4, 8));
  Result<IterationBound> empty =
      iterationLowerBound(m, freeBandwidth(), {}, {2}, 4, 8);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->boundMs, 0);
}

TEST(IterationBound, NeverAbovePlansOnWikipedia) {
  // GPT-7B, 384K (6,407 tokens per GPU), 64 A100: the bound is below every
  // plan, FlexSP's and the balanced best degree's.
  const cost::ProfiledModel m = *cost::findProfiledModel("gpt-7b");
  const cost::AllToAllBandwidthTable bw = cost::flexspA100Bandwidth();
  for (int64_t batch = 3; batch <= 6; ++batch) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<int64_t> lengths = wikipediaBatch(batch);
    Result<IterationBound> b = iterationLowerBound(
        m, bw, lengths, candidateDegrees(bw, 64, false), 64, 6407);
    ASSERT_TRUE(b) << b.error;
    AdaptiveSpOptions homo;
    homo.strategy = SpStrategy::BestHomogeneous;
    Result<AdaptiveSpPlan> f = planAdaptiveSp(m, bw, lengths, 64, 8, 6407);
    Result<AdaptiveSpPlan> h =
        planAdaptiveSp(m, bw, lengths, 64, 8, 6407, homo);
    ASSERT_TRUE(f && h);
    EXPECT_EQ(f->lowerBoundMs, b->boundMs);
    EXPECT_LE(b->boundMs, f->iterationMs);
    EXPECT_LE(f->iterationMs, h->iterationMs);
  }
}
