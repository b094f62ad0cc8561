//===- StaticSpTest.cpp - static Ulysses SP baseline tests ----------------===//
#include "passes/Baselines/StaticSp.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::baselines;

namespace {

using Ids = std::vector<int64_t>;

std::vector<Ids> groupIds(const StaticSpMicroBatch &mb) {
  std::vector<Ids> out;
  for (const StaticSpGroup &g : mb.groups)
    out.push_back(g.sequenceIds);
  return out;
}

/// Time = tokens: alpha2 = 1 ms/token, nothing else, so a hand-check is
/// plain addition.
cost::ProfiledModel linearModel() {
  cost::ProfiledModel m;
  m.name = "linear";
  m.alpha2 = 1;
  m.layers = 1;
  m.hidden = 1;
  m.actMBPerToken = 1;
  return m;
}

} // namespace

TEST(StaticSp, HandCheckedBestFitDecreasing) {
  // capacity 10, d = 1, N = 2: two groups of 10 tokens per micro-batch.
  //  9 (id 0) -> mb0 g0 (both empty, tie -> g0); rooms mb0 {1, 10}
  //  6 (id 1) -> mb0 g1 (only fit);              rooms mb0 {1, 4}
  //  4 (id 2) -> mb0 g1 (room 4, exact fit);     rooms mb0 {1, 0}
  //  3 (id 3) -> nothing fits -> new mb1 g0;     rooms mb1 {7, 10}
  //  2 (id 4) -> mb1 g0 (room 7 beats 10; mb0's room 1 is too small)
  Result<StaticSpPlan> p = packStaticSp({9, 6, 4, 3, 2}, {2, 1, 10, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 2u);
  EXPECT_EQ(groupIds(p->microBatches[0]), (std::vector<Ids>{{0}, {1, 2}}));
  EXPECT_EQ(groupIds(p->microBatches[1]), (std::vector<Ids>{{3, 4}, {}}));
  EXPECT_EQ(p->microBatches[0].groups[1].tokens, 10);
  EXPECT_EQ(p->microBatches[1].groups[0].tokens, 5);
}

TEST(StaticSp, HandCheckedTimes) {
  // Same packing, unbalanced; group time = its tokens, idle groups cost
  // nothing: mb0 = max(9, 10) = 10, mb1 = 5, iteration 15.
  Result<StaticSpPlan> p =
      planStaticSp(linearModel(), cost::flexspA100Bandwidth(), {9, 6, 4, 3, 2},
                   {2, 1, 10, 0, /*balance=*/false});
  ASSERT_TRUE(p) << p.error;
  EXPECT_DOUBLE_EQ(p->microBatches[0].groups[0].timeMs, 9);
  EXPECT_DOUBLE_EQ(p->microBatches[0].groups[1].timeMs, 10);
  EXPECT_DOUBLE_EQ(p->microBatches[0].timeMs, 10);
  EXPECT_DOUBLE_EQ(p->microBatches[1].groups[1].timeMs, 0);
  EXPECT_DOUBLE_EQ(p->microBatches[1].timeMs, 5);
  EXPECT_DOUBLE_EQ(p->iterationMs, 15);
}

TEST(StaticSp, HandCheckedBalancing) {
  // Best fit opens 2 micro-batches of 2 groups (above); balancing keeps
  // them and deals by descending t1 (= tokens) to the least loaded group
  // with room, ties to the earliest, micro-batch major:
  //  9 -> mb0 g0; 6 -> mb0 g1; 4 -> mb1 g0; 3 -> mb1 g1;
  //  2 -> mb1 g1 (least loaded: 3).
  // Times: mb0 = max(9, 6) = 9, mb1 = max(4, 5) = 5, iteration 14 (best
  // fit alone: 15).
  Result<StaticSpPlan> p =
      planStaticSp(linearModel(), cost::flexspA100Bandwidth(), {9, 6, 4, 3, 2},
                   {2, 1, 10, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 2u);
  EXPECT_EQ(groupIds(p->microBatches[0]), (std::vector<Ids>{{0}, {1}}));
  EXPECT_EQ(groupIds(p->microBatches[1]), (std::vector<Ids>{{2}, {3, 4}}));
  EXPECT_DOUBLE_EQ(p->microBatches[0].timeMs, 9);
  EXPECT_DOUBLE_EQ(p->microBatches[1].timeMs, 5);
  EXPECT_DOUBLE_EQ(p->iterationMs, 14);
}

TEST(StaticSp, BalancingKeepsBestFitWhenNoRoom) {
  // Capacity 10, one group: {6, 5} needs two micro-batches; balancing in
  // descending order puts 6 in mb0 and 5 in mb1 (least loaded), as best
  // fit did.
  Result<StaticSpPlan> p = planStaticSp(
      linearModel(), cost::flexspA100Bandwidth(), {6, 5}, {1, 1, 10, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 2u);
  EXPECT_DOUBLE_EQ(p->iterationMs, 11);
}

TEST(StaticSp, EqualLengthsGoInIdOrderAndTiesTakeTheEarliestGroup) {
  // Four 5s, capacity 10, N = 2: ids 0,1 fill g0, ids 2,3 fill g1 (after id
  // 0, g0 has room 5 < 10, so id 1 joins it).
  Result<StaticSpPlan> p = packStaticSp({5, 5, 5, 5}, {2, 1, 10, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 1u);
  EXPECT_EQ(groupIds(p->microBatches[0]), (std::vector<Ids>{{0, 1}, {2, 3}}));
}

TEST(StaticSp, DegreeScalesGroupCapacity) {
  // d = 2 on N = 4: two groups of 2 * 10 = 20 tokens.
  Result<StaticSpPlan> p = packStaticSp({15, 12, 8, 5}, {4, 2, 10, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 1u);
  EXPECT_EQ(groupIds(p->microBatches[0]), (std::vector<Ids>{{0, 3}, {1, 2}}));
}

TEST(StaticSp, EmptyBatchIsAnEmptyPlan) {
  Result<StaticSpPlan> p = planStaticSp(
      linearModel(), cost::flexspA100Bandwidth(), {}, {2, 1, 10, 0});
  ASSERT_TRUE(p) << p.error;
  EXPECT_TRUE(p->microBatches.empty());
  EXPECT_DOUBLE_EQ(p->iterationMs, 0);
}

TEST(StaticSp, TooLongSequenceNamesTheDegreeThatFits) {
  Result<StaticSpPlan> p = packStaticSp({9, 25}, {8, 2, 10, 0});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error, "sequence 1 (25 tokens) does not fit SP=2: it needs 13 "
                     "tokens per GPU but a GPU holds 10; raise sp to at least "
                     "4");
}

TEST(StaticSp, TooLongSequenceWithMemory) {
  Result<StaticSpPlan> p = packStaticSp({25}, {8, 2, 10, 1.5});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error,
            "sequence 0 (25 tokens) does not fit SP=2: it needs 13 tokens per "
            "GPU (20 MB of activations) but a GPU holds 10 (15 MB); raise sp "
            "to at least 4");
}

TEST(StaticSp, SequenceLargerThanTheCluster) {
  Result<StaticSpPlan> p = packStaticSp({1000, 81}, {8, 8, 10, 0});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error, "sequence 0 (1,000 tokens) does not fit SP=8: it needs "
                     "125 tokens per GPU but a GPU holds 10; no degree \u2264 "
                     "8 fits: the cluster holds 80 tokens");
}

TEST(StaticSp, NonPowerOfTwoClusterSaysWhichDegreeIsLargest) {
  // N = 24: the power-of-two degrees dividing it stop at 8 (80 tokens), yet
  // the cluster holds 240.
  Result<StaticSpPlan> p = packStaticSp({100}, {24, 8, 10, 0});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error, "sequence 0 (100 tokens) does not fit SP=8: it needs 13 "
                     "tokens per GPU but a GPU holds 10; no power-of-two "
                     "degree dividing 24 fits (the largest, 8, holds 80 "
                     "tokens)");
}

TEST(StaticSp, BadConfigurations) {
  EXPECT_EQ(packStaticSp({1}, {0, 1, 10, 0}).error,
            "the GPU count must be positive, not 0");
  EXPECT_EQ(packStaticSp({1}, {8, 3, 10, 0}).error,
            "SP degree 3 must be positive and divide the GPU count 8");
  EXPECT_EQ(packStaticSp({1}, {8, 2, 0, 0}).error,
            "the per-GPU token capacity must be positive, not 0");
  EXPECT_EQ(packStaticSp({4, 0}, {8, 2, 10, 0}).error,
            "sequence 1 has 0 tokens; lengths must be positive");
}

TEST(StaticSp, BestHomogeneousTiesGoToTheSmallerDegree) {
  // Linear model (time = tokens / d), beta1 = 0, all-to-all made free by a
  // huge bandwidth. Lengths {10, 10}, N = 2, capacity 10:
  //  d = 1: one 10 per group (each group is then full) -> max(10, 10) = 10;
  //  d = 2: one 20-token group -> (10 + 10) / 2 = 10.
  // Equal times: the smaller degree wins.
  cost::AllToAllBandwidthTable bw{{{2, 1e300}}};
  Result<HomogeneousChoice> c =
      bestHomogeneousSp(linearModel(), bw, {10, 10}, 2, 10);
  ASSERT_TRUE(c) << c.error;
  ASSERT_EQ(c->timed.size(), 2u);
  EXPECT_DOUBLE_EQ(c->timed[0].second, 10);
  EXPECT_DOUBLE_EQ(c->timed[1].second, 10);
  EXPECT_EQ(c->best.degree, 1);
}

TEST(StaticSp, BestHomogeneousFailsWithTheClusterMessage) {
  Result<HomogeneousChoice> c = bestHomogeneousSp(
      linearModel(), cost::flexspA100Bandwidth(), {100}, 4, 10);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error, "sequence 0 (100 tokens) does not fit SP=4: it needs 25 "
                     "tokens per GPU but a GPU holds 10; no degree \u2264 4 "
                     "fits: the cluster holds 40 tokens");
}

namespace {

/// FlexSP reference section 4 item 4: 64 GPUs, gpt-7b, E = 30 GB, 192K
/// parameter count, one 100K (102,400) and four 48K (49,152) sequences.
struct FlexspItem4 : ::testing::Test {
  cost::ProfiledModel m = *cost::findProfiledModel("gpt-7b");
  cost::AllToAllBandwidthTable bw = cost::flexspA100Bandwidth();
  std::vector<int64_t> lengths{102400, 49152, 49152, 49152, 49152};
  int64_t cap = 0;
  void SetUp() override {
    plexus::Result<int64_t> c =
        cost::tokenCapacityPerGpu(m, m.paramsGi192K, 30, 64);
    ASSERT_TRUE(c) << c.error;
    cap = *c;
    ASSERT_EQ(cap, 6449);
  }
};

} // namespace

TEST_F(FlexspItem4, StaticSp64Is5022Ms) {
  // One SP=64 group (412,736 tokens) holds the whole 299,008-token batch.
  Result<StaticSpPlan> p = planStaticSp(m, bw, lengths, {64, 64, cap, 0});
  ASSERT_TRUE(p) << p.error;
  ASSERT_EQ(p->microBatches.size(), 1u);
  EXPECT_EQ(groupIds(p->microBatches[0]), (std::vector<Ids>{{0, 1, 2, 3, 4}}));
  EXPECT_NEAR(p->iterationMs, 5022, 0.5);
}

TEST_F(FlexspItem4, BestHomogeneousPicksSp64) {
  // Degrees 1-8 cannot hold 102,400 tokens (8 * 6,449 = 51,592), so 16, 32
  // and 64 are timed. Best-fit-decreasing opens one micro-batch each;
  // balancing then deals by descending t1 to the least loaded group:
  //  SP16 (103,184/group): {100K} {48K,48K} {48K} {48K}     -> 6,406.5 ms
  //    (the 2x48K group is as slow as best fit's {48K,48K} {48K,48K})
  //  SP32 (206,368/group): {100K,48K} {48K,48K,48K}         -> 5,162.7 ms
  //    (the 4th 48K goes to the 100K group: t1(100K) < 3 t1(48K) at SP32;
  //    best fit alone gave {100K,48K,48K} {48K,48K}, 6,349.6 ms)
  //  SP64: everything in one group                          -> 5,022.0 ms
  // The balanced SP32 is the reference's 5,163 ms for 2xSP32; SP64 wins.
  Result<HomogeneousChoice> c = bestHomogeneousSp(m, bw, lengths, 64, cap, 0);
  ASSERT_TRUE(c) << c.error;
  EXPECT_EQ(c->best.degree, 64);
  EXPECT_NEAR(c->best.iterationMs, 5022, 0.5);
  ASSERT_EQ(c->timed.size(), 3u);
  EXPECT_EQ(c->timed[0].first, 16);
  EXPECT_NEAR(c->timed[0].second, 6406.5, 0.5);
  EXPECT_EQ(c->timed[1].first, 32);
  EXPECT_NEAR(c->timed[1].second, 5162.7, 0.5);
  ASSERT_EQ(c->skipped.size(), 4u);
  EXPECT_EQ(c->skipped[3].first, 8);
  EXPECT_EQ(c->skipped[3].second,
            "sequence 0 (102,400 tokens) does not fit SP=8: it needs 12,800 "
            "tokens per GPU but a GPU holds 6,449; raise sp to at least 16");

  // The balanced SP32 packing is the reference's, and best fit alone is
  // the slower one.
  Result<StaticSpPlan> sp32 = planStaticSp(m, bw, lengths, {64, 32, cap, 0});
  ASSERT_TRUE(sp32) << sp32.error;
  EXPECT_EQ(groupIds(sp32->microBatches[0]),
            (std::vector<Ids>{{0, 4}, {1, 2, 3}}));
  plexus::Result<double> balanced = cost::microBatchTimeMs(
      m, bw, {{32, {102400, 49152}}, {32, {49152, 49152, 49152}}}, cap);
  ASSERT_TRUE(balanced) << balanced.error;
  EXPECT_NEAR(*balanced, 5163, 0.5);
  Result<StaticSpPlan> bfd =
      planStaticSp(m, bw, lengths, {64, 32, cap, 0, /*balance=*/false});
  ASSERT_TRUE(bfd) << bfd.error;
  EXPECT_EQ(groupIds(bfd->microBatches[0]),
            (std::vector<Ids>{{0, 1, 2}, {3, 4}}));
  EXPECT_NEAR(bfd->iterationMs, 6349.6, 0.5);
}

TEST_F(FlexspItem4, InfeasibleMessageCarriesMemory) {
  double act = cost::activationMBPerToken(m, 64); // 4.480442 MB/token
  Result<StaticSpPlan> p = packStaticSp(lengths, {64, 8, cap, act});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error, "sequence 0 (102,400 tokens) does not fit SP=8: it needs "
                     "12,800 tokens per GPU (57,350 MB of activations) but a "
                     "GPU holds 6,449 (28,894 MB); raise sp to at least 16");
}

TEST(StaticSp, GroupedInt) {
  EXPECT_EQ(groupedInt(0), "0");
  EXPECT_EQ(groupedInt(999), "999");
  EXPECT_EQ(groupedInt(1000), "1,000");
  EXPECT_EQ(groupedInt(-1234567), "-1,234,567");
}
