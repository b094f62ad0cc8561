//===- ProfiledCostModelTest.cpp - FlexSP's profiled cost model ----------===//
//
// Reproduces items 1-4 of section 4 of ../shared/reference/flexsp_dpp.md
// with the paper's own coefficients. Each test names the item and the
// tolerance it holds the published figure to.
//
//===----------------------------------------------------------------------===//

#include "passes/Cost/ProfiledCostModel.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus::cost;

namespace {

ProfiledModel gpt7b() { return *findProfiledModel("gpt-7b"); }

SequenceTime t1(const ProfiledModel &m, int64_t s, int64_t d) {
  Result<SequenceTime> t = sequenceTime(m, flexspA100Bandwidth(), s, d);
  EXPECT_TRUE(t) << t.error;
  return t ? *t : SequenceTime{};
}

double gpuMs(const ProfiledModel &m, int64_t s, int64_t d) {
  return t1(m, s, d).totalMs() * static_cast<double>(d);
}

double a2aShare(const ProfiledModel &m, int64_t s, int64_t d) {
  SequenceTime t = t1(m, s, d);
  return t.allToAllMs / t.totalMs();
}

double planMs(const std::vector<std::vector<ProfiledGroup>> &plan,
              int64_t capacity) {
  Result<double> t =
      iterationTimeMs(gpt7b(), flexspA100Bandwidth(), plan, capacity);
  EXPECT_TRUE(t) << t.error;
  return t ? *t : 0.0;
}

// ---- Catalogue and plumbing ------------------------------------------------

TEST(ProfiledCostModel, BuiltInModelsCarryTheCodesCoefficients) {
  ASSERT_EQ(flexspModels().size(), 3u);
  ProfiledModel m7 = gpt7b();
  EXPECT_EQ(m7.layers, 32);
  EXPECT_EQ(m7.hidden, 4096);
  EXPECT_DOUBLE_EQ(m7.alpha1, 5.128e-6);
  EXPECT_DOUBLE_EQ(m7.beta1, 629.3563);
  ProfiledModel m13 = *findProfiledModel("gpt-13b");
  EXPECT_EQ(m13.layers, 40);
  EXPECT_EQ(m13.hidden, 5120);
  ProfiledModel m30 = *findProfiledModel("gpt-30b");
  EXPECT_EQ(m30.layers, 60);
  EXPECT_EQ(m30.hidden, 6656);
  EXPECT_FALSE(findProfiledModel("gpt-70b"));
  EXPECT_DOUBLE_EQ(activationMBPerToken(m7, 16), 2.668764648);
  EXPECT_DOUBLE_EQ(activationMBPerToken(m7, 64), 4.480441895);
}

TEST(ProfiledCostModel, BandwidthTableAndErrors) {
  AllToAllBandwidthTable bw = flexspA100Bandwidth();
  EXPECT_TRUE(std::isinf(*allToAllBandwidth(bw, 1)));
  EXPECT_DOUBLE_EQ(*allToAllBandwidth(bw, 8), 96.5);
  EXPECT_DOUBLE_EQ(*allToAllBandwidth(bw, 16), 10.33);
  EXPECT_DOUBLE_EQ(*allToAllBandwidth(bw, 64), 4.87);
  Result<double> none = allToAllBandwidth(bw, 128);
  EXPECT_FALSE(none);
  EXPECT_NE(none.error.find("128"), std::string::npos);
  EXPECT_FALSE(sequenceTime(gpt7b(), bw, 1024, 3));
  EXPECT_FALSE(sequenceTime(gpt7b(), bw, 1024, 0));
  // SP=1: no all-to-all at all.
  EXPECT_EQ(t1(gpt7b(), 2048, 1).allToAllMs, 0.0);
}

TEST(ProfiledCostModel, ParameterCountInterpolatesBetween192KAnd384K) {
  ProfiledModel m = gpt7b();
  EXPECT_DOUBLE_EQ(*paramsGiAtContext(m, 4), 6.51);
  EXPECT_DOUBLE_EQ(*paramsGiAtContext(m, 192), 7.1174468994140625);
  EXPECT_DOUBLE_EQ(*paramsGiAtContext(m, 384), 7.8498687744140625);
  EXPECT_NEAR(*paramsGiAtContext(m, 288),
              (7.1174468994140625 + 7.8498687744140625) / 2, 1e-12);
  EXPECT_FALSE(paramsGiAtContext(m, 128));
  EXPECT_FALSE(paramsGiAtContext(m, 512));
}

TEST(ProfiledCostModel, ZeroRatiosAndModelStates) {
  EXPECT_DOUBLE_EQ(*zeroRatio(0, 64), 1.0);
  EXPECT_DOUBLE_EQ(*zeroRatio(1, 64), 6.0 / 8 / 64 + 2.0 / 8);
  EXPECT_DOUBLE_EQ(*zeroRatio(2, 64), 7.0 / 8 / 64 + 1.0 / 8);
  EXPECT_DOUBLE_EQ(*zeroRatio(3, 64), 1.0 / 64);
  EXPECT_FALSE(zeroRatio(4, 64));
  EXPECT_FALSE(zeroRatio(3, 0));
  // Reference section 1.4 table: 2010 / 3592 / 8375 MB per GPU at 384K.
  EXPECT_NEAR(*modelStateMB(gpt7b().paramsGi384K, 3, 64), 2010, 0.5);
  EXPECT_NEAR(*modelStateMB(findProfiledModel("gpt-13b")->paramsGi384K, 3, 64),
              3592, 0.5);
  EXPECT_NEAR(*modelStateMB(findProfiledModel("gpt-30b")->paramsGi384K, 3, 64),
              8375, 0.5);
  // ZeRO-0 keeps all 16 B/param: 7B at 384K cannot fit in 30 GB.
  EXPECT_FALSE(tokenCapacityPerGpu(gpt7b(), gpt7b().paramsGi384K, 30, 64, 0));
}

// ---- Item 1: cost-model arithmetic (exact) --------------------------------

TEST(ProfiledCostModel, Item1CapacityAndMinSpAtE30) {
  // FlexSP reference section 4 item 1: capacity 6,407 tokens/GPU, exact;
  // min SP 32 for 192K and 64 for 384K, exact.
  ProfiledModel m = gpt7b();
  Result<int64_t> cap = tokenCapacityPerGpu(m, m.paramsGi384K, 30, 64);
  ASSERT_TRUE(cap) << cap.error;
  EXPECT_EQ(*cap, 6407);
  EXPECT_EQ(*minSpDegree(192 * 1024, *cap), 32);
  EXPECT_EQ(*minSpDegree(384 * 1024, *cap), 64);
  // With the reference table's rounded activation figure (4.480 MB/token)
  // the capacity would be one token more than published, which is why the
  // model keeps the code's full precision (docs/cost-model.md).
  ProfiledModel rounded = m;
  rounded.actMBPerToken = 4.480;
  EXPECT_EQ(*tokenCapacityPerGpu(rounded, m.paramsGi384K, 30, 64), 6408);
  // Section 1.4 table, other models (exact): 6,427 (13B) and 6,538 (30B).
  ProfiledModel m13 = *findProfiledModel("gpt-13b");
  ProfiledModel m30 = *findProfiledModel("gpt-30b");
  EXPECT_EQ(*tokenCapacityPerGpu(m13, m13.paramsGi384K, 30, 64), 6427);
  EXPECT_EQ(*tokenCapacityPerGpu(m30, m30.paramsGi384K, 30, 64), 6538);
}

TEST(ProfiledCostModel, Item1CapacityAndMinSpAtE28) {
  // FlexSP reference section 4 item 1: E=28 gives 5,950 tokens/GPU and
  // min SP(384K) = 128, i.e. infeasible on 64 GPUs; exact.
  ProfiledModel m = gpt7b();
  Result<int64_t> cap = tokenCapacityPerGpu(m, m.paramsGi384K, 28, 64);
  ASSERT_TRUE(cap) << cap.error;
  EXPECT_EQ(*cap, 5950);
  EXPECT_EQ(*minSpDegree(192 * 1024, *cap), 64);
  EXPECT_EQ(*minSpDegree(384 * 1024, *cap), 128);
  EXPECT_FALSE(minSpDegree(0, *cap));
}

TEST(ProfiledCostModel, Item1SequenceTimes) {
  // FlexSP reference section 4 item 1: t1 split into compute + all-to-all,
  // each within 0.1 ms of the published figure.
  ProfiledModel m = gpt7b();
  SequenceTime a = t1(m, 49152, 8);
  EXPECT_NEAR(a.computeMs, 2678.8, 0.1);
  EXPECT_NEAR(a.allToAllMs, 127.3, 0.1);
  SequenceTime b = t1(m, 102400, 32);
  EXPECT_NEAR(b.computeMs, 2269.0, 0.1);
  EXPECT_NEAR(b.allToAllMs, 1077.4, 0.1);
  SequenceTime c = t1(m, 4096, 64);
  EXPECT_NEAR(c.computeMs, 13.1, 0.1);
  EXPECT_NEAR(c.allToAllMs, 26.3, 0.1);
  // docs/cost-model.md quotes ours to these digits.
  EXPECT_NEAR(a.computeMs, 2678.84, 0.005);
  EXPECT_NEAR(a.allToAllMs, 127.34, 0.005);
  EXPECT_NEAR(b.computeMs, 2269.01, 0.005);
  EXPECT_NEAR(b.allToAllMs, 1077.44, 0.005);
  EXPECT_NEAR(c.computeMs, 13.12, 0.005);
  EXPECT_NEAR(c.allToAllMs, 26.28, 0.005);
}

TEST(ProfiledCostModel, Item1AllToAllIsTwoMBPerTokenOverD) {
  // FlexSP reference section 4 item 1: 2 MB/token/d for 7B; exact
  // (4 * 2 * 32 * 4096 * 2 bytes = 2 MiB).
  ProfiledModel m = gpt7b();
  EXPECT_DOUBLE_EQ(allToAllMB(m, 1, 1), 0.0);
  EXPECT_DOUBLE_EQ(allToAllMB(m, 1, 2), 1.0);
  EXPECT_DOUBLE_EQ(allToAllMB(m, 1000, 8), 2.0 * 1000 / 8);
}

// ---- Item 2: crossover ----------------------------------------------------

TEST(ProfiledCostModel, Item2AttentionCrossover) {
  // FlexSP reference section 4 item 2: s* = alpha2/alpha1 = 35.9K / 33.0K /
  // 52.1K tokens, within 0.05K (the published one-decimal rounding).
  EXPECT_NEAR(attentionCrossoverTokens(gpt7b()) / 1000, 35.9, 0.05);
  EXPECT_NEAR(attentionCrossoverTokens(*findProfiledModel("gpt-13b")) / 1000,
              33.0, 0.05);
  EXPECT_NEAR(attentionCrossoverTokens(*findProfiledModel("gpt-30b")) / 1000,
              52.1, 0.05);
  // docs/cost-model.md quotes ours to these digits.
  EXPECT_NEAR(attentionCrossoverTokens(gpt7b()) / 1000, 35.87, 0.005);
  EXPECT_NEAR(attentionCrossoverTokens(*findProfiledModel("gpt-13b")) / 1000,
              32.96, 0.005);
  EXPECT_NEAR(attentionCrossoverTokens(*findProfiledModel("gpt-30b")) / 1000,
              52.09, 0.005);
}

// ---- Item 3: intra- vs inter-node penalty ---------------------------------

TEST(ProfiledCostModel, Item3GpuMillisecondsOfA2KSequence) {
  // FlexSP reference section 4 item 3 / section 1.4: a 2K sequence costs
  // 398 GPU.ms at SP=1, ~438 at SP=4-8, 795 at SP=16, 1,088 at SP=32 and
  // 1,239 at SP=64, each within 0.5 GPU.ms except "~438", which the
  // reference gives for the range SP=4..8 (437.6 and 440.7): within 3.
  ProfiledModel m = gpt7b();
  EXPECT_NEAR(gpuMs(m, 2048, 1), 398, 0.5);
  EXPECT_NEAR(gpuMs(m, 2048, 4), 438, 3);
  EXPECT_NEAR(gpuMs(m, 2048, 8), 438, 3);
  EXPECT_NEAR(gpuMs(m, 2048, 16), 795, 0.5);
  EXPECT_NEAR(gpuMs(m, 2048, 32), 1088, 0.5);
  EXPECT_NEAR(gpuMs(m, 2048, 64), 1239, 0.5);
  // docs/cost-model.md quotes ours to these digits.
  EXPECT_NEAR(gpuMs(m, 2048, 1), 398.3, 0.05);
  EXPECT_NEAR(gpuMs(m, 2048, 4), 437.6, 0.05);
  EXPECT_NEAR(gpuMs(m, 2048, 8), 440.7, 0.05);
  EXPECT_NEAR(gpuMs(m, 2048, 16), 794.8, 0.05);
  EXPECT_NEAR(gpuMs(m, 2048, 32), 1087.8, 0.05);
  EXPECT_NEAR(gpuMs(m, 2048, 64), 1239.3, 0.05);
  // "about 3.1x": within 0.05.
  EXPECT_NEAR(gpuMs(m, 2048, 64) / gpuMs(m, 2048, 1), 3.1, 0.05);
}

TEST(ProfiledCostModel, Item3AllToAllShares) {
  // FlexSP reference section 4 item 3 / section 1.4: all-to-all share of one
  // sequence at SP=16/32/64 is 50/63/68 % for 2K and 11/18/21 % for 256K
  // (262,144 tokens), each within 0.5 percentage points; 1-10 % at SP=8.
  ProfiledModel m = gpt7b();
  EXPECT_NEAR(100 * a2aShare(m, 2048, 16), 50, 0.5);
  EXPECT_NEAR(100 * a2aShare(m, 2048, 32), 63, 0.5);
  EXPECT_NEAR(100 * a2aShare(m, 2048, 64), 68, 0.5);
  EXPECT_NEAR(100 * a2aShare(m, 262144, 16), 11, 0.5);
  EXPECT_NEAR(100 * a2aShare(m, 262144, 32), 18, 0.5);
  EXPECT_NEAR(100 * a2aShare(m, 262144, 64), 21, 0.5);
  // docs/cost-model.md quotes ours to these digits.
  EXPECT_NEAR(100 * a2aShare(m, 2048, 64), 67.9, 0.05);
  EXPECT_NEAR(100 * a2aShare(m, 262144, 64), 21.2, 0.05);
  for (int64_t s : {2048, 262144}) {
    double share = a2aShare(m, s, 8);
    EXPECT_GE(share, 0.01);
    EXPECT_LE(share, 0.10);
  }
}

// ---- Item 4: the paper's illustration -------------------------------------

class Item4 : public ::testing::Test {
protected:
  static constexpr int64_t kLong = 102400; // "100K"
  static constexpr int64_t kMid = 49152;   // "48K"
  int64_t capacity = 0;
  void SetUp() override {
    ProfiledModel m = gpt7b();
    Result<int64_t> cap = tokenCapacityPerGpu(m, m.paramsGi192K, 30, 64);
    ASSERT_TRUE(cap) << cap.error;
    capacity = *cap;
  }
};

TEST_F(Item4, CapacityAt192K) {
  // FlexSP reference section 4 item 4: 192K parameter count 7.117 Gi, so
  // capacity 6,449 tokens/GPU; exact.
  EXPECT_NEAR(gpt7b().paramsGi192K, 7.117, 0.0005);
  EXPECT_EQ(capacity, 6449);
}

TEST_F(Item4, HeterogeneousPlanTakes3976Ms) {
  // FlexSP reference section 4 item 4: {SP32: 100K; 4 x SP8: one 48K each}
  // = 3,976 ms, within 0.5 ms. One micro-batch; 32 + 4*8 = 64 GPUs.
  std::vector<std::vector<ProfiledGroup>> plan = {
      {{32, {kLong}}, {8, {kMid}}, {8, {kMid}}, {8, {kMid}}, {8, {kMid}}}};
  EXPECT_NEAR(planMs(plan, capacity), 3976, 0.5);
  EXPECT_NEAR(planMs(plan, capacity), 3975.8, 0.05); // docs/cost-model.md
}

TEST_F(Item4, StaticSp64Takes5022Ms) {
  // FlexSP reference section 4 item 4: static SP=64, one group holding all
  // five sequences = 5,022 ms, within 0.5 ms.
  std::vector<std::vector<ProfiledGroup>> plan = {
      {{64, {kLong, kMid, kMid, kMid, kMid}}}};
  EXPECT_NEAR(planMs(plan, capacity), 5022, 0.5);
  EXPECT_NEAR(planMs(plan, capacity), 5022.0, 0.05); // docs/cost-model.md
}

TEST_F(Item4, HomogeneousTwoSp32Takes5163Ms) {
  // FlexSP reference section 4 item 4: 2 x SP32 = 5,163 ms, within 0.5 ms.
  // The published figure is the balanced split {100K + 48K | 3 x 48K}
  // (4,736 and 4,608 tokens/GPU). The split {100K | 4 x 48K} also fits
  // (3,200 / 6,144 tokens/GPU) but takes 5,377 ms, and {100K + 2 x 48K |
  // 2 x 48K} (6,272 / 3,072) takes 6,350 ms, so the reference's 2 x SP32 is
  // the best split; {100K + 3 x 48K | 48K} does not fit (7,808 > 6,449).
  std::vector<std::vector<ProfiledGroup>> balanced = {
      {{32, {kLong, kMid}}, {32, {kMid, kMid, kMid}}}};
  EXPECT_NEAR(planMs(balanced, capacity), 5163, 0.5);
  EXPECT_NEAR(planMs(balanced, capacity), 5162.7, 0.05); // docs/cost-model.md
  std::vector<std::vector<ProfiledGroup>> longAlone = {
      {{32, {kLong}}, {32, {kMid, kMid, kMid, kMid}}}};
  EXPECT_NEAR(planMs(longAlone, capacity), 5377, 0.5);
  EXPECT_NEAR(planMs(longAlone, capacity), 5376.9, 0.05); // docs/cost-model.md
  std::vector<std::vector<ProfiledGroup>> longPlusTwo = {
      {{32, {kLong, kMid, kMid}}, {32, {kMid, kMid}}}};
  EXPECT_NEAR(planMs(longPlusTwo, capacity), 6350, 0.5);
  EXPECT_NEAR(planMs(longPlusTwo, capacity), 6349.6, 0.05); // docs/cost-model.md
  Result<double> over = iterationTimeMs(
      gpt7b(), flexspA100Bandwidth(),
      {{{32, {kLong, kMid, kMid, kMid}}, {32, {kMid}}}}, capacity);
  EXPECT_FALSE(over);
  EXPECT_NE(over.error.find("capacity"), std::string::npos);
}

TEST_F(Item4, Speedups) {
  // FlexSP reference section 4 item 4: 1.26x over SP=64 and 1.30x over
  // 2 x SP32, within 0.005.
  double flex = planMs(
      {{{32, {kLong}}, {8, {kMid}}, {8, {kMid}}, {8, {kMid}}, {8, {kMid}}}},
      capacity);
  double sp64 = planMs({{{64, {kLong, kMid, kMid, kMid, kMid}}}}, capacity);
  double sp32 =
      planMs({{{32, {kLong, kMid}}, {32, {kMid, kMid, kMid}}}}, capacity);
  EXPECT_NEAR(sp64 / flex, 1.26, 0.005);
  EXPECT_NEAR(sp32 / flex, 1.30, 0.005);
}

TEST(ProfiledCostModel, IterationSumsMicroBatchesOfTheirSlowestGroup) {
  ProfiledModel m = gpt7b();
  AllToAllBandwidthTable bw = flexspA100Bandwidth();
  double g1 = *groupTimeMs(m, bw, {8, {4096}});
  double g2 = *groupTimeMs(m, bw, {8, {8192}});
  EXPECT_NEAR(g1, t1(m, 4096, 8).totalMs() + m.beta1, 1e-9);
  EXPECT_NEAR(*microBatchTimeMs(m, bw, {{8, {4096}}, {8, {8192}}}),
              std::max(g1, g2), 1e-9);
  EXPECT_NEAR(*iterationTimeMs(m, bw, {{{8, {4096}}}, {{8, {8192}}}}), g1 + g2,
              1e-9);
  EXPECT_FALSE(microBatchTimeMs(m, bw, {}));
  // A floor (a derived model's ZeRO-3 pass) lifts a micro-batch whose
  // groups finish sooner, and leaves a slower one as it is.
  m.microBatchFloorMs = g2 + 5;
  EXPECT_NEAR(*microBatchTimeMs(m, bw, {{8, {4096}}, {8, {8192}}}), g2 + 5,
              1e-9);
  m.microBatchFloorMs = g1;
  EXPECT_NEAR(*microBatchTimeMs(m, bw, {{8, {4096}}, {8, {8192}}}), g2, 1e-9);
}

} // namespace
