//===- SpMilpTest.cpp - FlexSP's bucketed SP-group MILP -------------------===//
//
// Tiny instances whose optimum is plain, the greedy and local-search plans
// that warm-start CBC, plan checks, and reference flexsp_dpp.md section 4
// item 4 at the MILP level.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/SpMilp.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace plexus;
using namespace plexus::adaptivesp;

namespace {

using Counts = std::vector<int64_t>;

/// t1(s, d) = s / d plus an all-to-all of exactly s ms at the degrees
/// listed in `slow` (and practically none elsewhere); beta1 as given.
/// allToAllMB(s, d) = 16 s / 2^20 / d here (L = h = 1), so a bandwidth of
/// 16 / 2^20 / d GB/s makes the all-to-all s ms.
struct LinearSetup {
  cost::ProfiledModel model;
  cost::AllToAllBandwidthTable bw;
  LinearSetup(std::vector<int64_t> slow, double beta1 = 0) {
    model.name = "linear";
    model.alpha2 = 1;
    model.beta1 = beta1;
    model.layers = 1;
    model.hidden = 1;
    model.actMBPerToken = 1;
    for (int64_t d = 2; d <= 64; d *= 2) {
      bool isSlow = std::find(slow.begin(), slow.end(), d) != slow.end();
      bw.gbPerSecond.push_back(
          {d, isSlow ? 16.0 / 1048576.0 / static_cast<double>(d) : 1e300});
    }
  }

  SpMilpInstance instance(const std::vector<int64_t> &lengths,
                          const std::vector<int64_t> &degrees, int64_t gpus,
                          int64_t cap) const {
    std::vector<int64_t> ids(lengths.size());
    std::iota(ids.begin(), ids.end(), int64_t{0});
    Result<Bucketing> b = bucketSequences(lengths, ids, 64);
    EXPECT_TRUE(b) << b.error;
    Result<SpMilpInstance> inst =
        makeSpMilpInstance(model, bw, *b, degrees, gpus, cap);
    EXPECT_TRUE(inst) << inst.error;
    return *inst;
  }
};

std::vector<int64_t> degreesOf(const std::vector<BucketGroup> &groups) {
  std::vector<int64_t> out;
  for (const BucketGroup &g : groups)
    out.push_back(g.degree);
  return out;
}

} // namespace

TEST(SpMilp, ObviousOptimumPrefersTwoSmallGroups) {
  // N = 4, 8 tokens per GPU, sequences {12, 4}, SP4 has an s-ms all-to-all:
  //  <4>:    (12 + 4) / 4 + 12 + 4 = 20 ms
  //  <2x2>:  12 / 2 = 6 ms and 4 / 2 = 2 ms -> 6 ms (12 <= 16 tokens fits)
  LinearSetup s({4});
  SpMilpInstance inst = s.instance({12, 4}, {2, 4}, 4, 8);
  for (bool warm : {true, false}) {
    SpMilpOptions o;
    o.warmStart = warm;
    Result<SpMilpResult> r = solveSpMilp(inst, o);
    ASSERT_TRUE(r) << r.error;
    EXPECT_NEAR(r->objectiveMs, 6.0, 1e-9) << "warm start " << warm;
    EXPECT_EQ(degreesOf(r->groups), (std::vector<int64_t>{2, 2}));
    // Buckets are {4, 12}: the slower group runs the 12.
    EXPECT_EQ(r->groups[0].counts, (Counts{0, 1}));
    EXPECT_EQ(r->groups[1].counts, (Counts{1, 0}));
    EXPECT_TRUE(bucketPlanViolation(inst, r->groups).empty());
  }
  // CBC alone, with nothing to start from, proves it.
  SpMilpOptions cold;
  cold.warmStart = false;
  cold.nodeLimit = 0;
  cold.relativeGap = 0;
  Result<SpMilpResult> r = solveSpMilp(inst, cold);
  ASSERT_TRUE(r) << r.error;
  EXPECT_TRUE(r->provenOptimal);
  EXPECT_FALSE(r->fromWarmStart);
  EXPECT_NEAR(r->lowerBoundMs, 6.0, 1e-6);
}

TEST(SpMilp, MemoryForcesALargerGroup) {
  // {20, 4} with 8 tokens per GPU: 20 > 2 * 8, so it needs SP4, which
  // takes all four GPUs: (20 + 4) / 4 + 20 + 4 = 30 ms.
  LinearSetup s({4});
  SpMilpInstance inst = s.instance({20, 4}, {2, 4}, 4, 8);
  Result<SpMilpResult> r = solveSpMilp(inst);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(degreesOf(r->groups), (std::vector<int64_t>{4}));
  EXPECT_NEAR(r->objectiveMs, 30.0, 1e-9);
}

TEST(SpMilp, EverySelectedGroupRunsSomething) {
  // One 4-token sequence on 4 GPUs: <2x2> would leave a group idle, so the
  // only plan is <4>: 4 / 4 + beta1 (5) = 6 ms (no slow degree here).
  LinearSetup s({}, 5);
  SpMilpInstance inst = s.instance({4}, {2, 4}, 4, 8);
  Result<SpMilpResult> r = solveSpMilp(inst);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(degreesOf(r->groups), (std::vector<int64_t>{4}));
  EXPECT_NEAR(r->objectiveMs, 6.0, 1e-6);
}

TEST(SpMilp, HeterogeneousBeatsHomogeneous) {
  // N = 8, 8 tokens per GPU, SP8 slow. {30, 6, 6}: 30 needs SP4 (32
  // tokens). <4, 2x2>: 30/4 = 7.5, 6/2 = 3, 6/2 = 3 -> 7.5 ms; <4x2>: 7.5
  // and 3 -> 7.5 ms too; <8>: 42/8 + 42 = 47.25. Either optimum runs the
  // 30 alone in an SP4 group.
  LinearSetup s({8});
  SpMilpInstance inst = s.instance({30, 6, 6}, {2, 4, 8}, 8, 8);
  SpMilpOptions o;
  o.relativeGap = 0;
  o.nodeLimit = 0;
  Result<SpMilpResult> r = solveSpMilp(inst, o);
  ASSERT_TRUE(r) << r.error;
  EXPECT_NEAR(r->objectiveMs, 7.5, 1e-9);
  EXPECT_EQ(r->groups.front().degree, 4);
  EXPECT_EQ(r->groups.front().counts, (Counts{0, 1})); // buckets {6, 30}
  std::optional<std::vector<BucketGroup>> homo =
      balancedHomogeneousPlan(inst, 8);
  ASSERT_TRUE(homo);
  EXPECT_NEAR(bucketPlanTimeMs(inst, *homo), 47.25, 1e-6);
  EXPECT_FALSE(balancedHomogeneousPlan(inst, 2)); // 30 fits no SP2 group
  EXPECT_FALSE(balancedHomogeneousPlan(inst, 3));
}

TEST(SpMilp, NoPlanIsAnError) {
  // 40 tokens exceed all 4 GPUs' 32.
  LinearSetup s({});
  SpMilpInstance inst = s.instance({40}, {2, 4}, 4, 8);
  Result<SpMilpResult> r = solveSpMilp(inst);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "a sequence of 40 tokens fits no candidate SP group");
}

TEST(SpMilp, GreedyHandChecked) {
  // Two SP2 groups, buckets {3 x2, 5 x2}, t = s / 2: longest first, each to
  // the group that finishes earliest (ties to the first):
  //   5 -> g0 (2.5), 5 -> g1 (2.5), 3 -> g0 (4), 3 -> g1 (4).
  LinearSetup s({});
  SpMilpInstance inst = s.instance({5, 3, 5, 3}, {2}, 4, 100);
  std::optional<std::vector<BucketGroup>> g = greedyBucketPlan(inst, {2, 2});
  ASSERT_TRUE(g);
  EXPECT_EQ((*g)[0].counts, (Counts{1, 1}));
  EXPECT_EQ((*g)[1].counts, (Counts{1, 1}));
  EXPECT_NEAR(bucketPlanTimeMs(inst, *g), 4.0, 1e-9);
  // Five groups for four sequences leave one idle: no plan.
  EXPECT_FALSE(greedyBucketPlan(inst, {2, 2, 2, 2, 2}));
  EXPECT_FALSE(greedyBucketPlan(inst, {16})); // not a candidate degree
}

TEST(SpMilp, LocalSearchSwapsOutOfTheSlowestGroup) {
  // {5, 5} and {3, 3} on two SP2 groups: 5 ms and 3 ms. Moving a 5 would
  // make 2.5 and 5.5; swapping a 5 for a 3 makes 4 and 4.
  LinearSetup s({});
  SpMilpInstance inst = s.instance({5, 3, 5, 3}, {2}, 4, 100);
  std::vector<BucketGroup> plan{{2, {0, 2}}, {2, {2, 0}}};
  EXPECT_NEAR(bucketPlanTimeMs(inst, plan), 5.0, 1e-9);
  improveBucketPlan(inst, plan);
  EXPECT_EQ(plan[0].counts, (Counts{1, 1}));
  EXPECT_EQ(plan[1].counts, (Counts{1, 1}));
  EXPECT_NEAR(bucketPlanTimeMs(inst, plan), 4.0, 1e-9);
}

TEST(SpMilp, PlanViolations) {
  LinearSetup s({});
  SpMilpInstance inst = s.instance({5, 3}, {2, 4}, 4, 4);
  EXPECT_EQ(bucketPlanViolation(inst, {{2, {1, 0}}, {2, {0, 1}}}), "");
  EXPECT_EQ(bucketPlanViolation(inst, {{2, {1, 1}}}),
            "degrees sum to 2, not 4");
  EXPECT_EQ(bucketPlanViolation(inst, {{4, {1, 0}}}),
            "bucket 1 is covered 0 times, not 1");
  EXPECT_EQ(bucketPlanViolation(inst, {{2, {1, 1}}, {2, {0, 0}}}),
            "group 1 is empty");
  EXPECT_EQ(bucketPlanViolation(inst, {{2, {2, 1}}, {2, {0, 0}}}),
            "group 0 holds 11 tokens, more than 8");
  EXPECT_EQ(bucketPlanViolation(inst, {{8, {1, 1}}}),
            "group 0 has degree 8, not a candidate");
}

TEST(SpMilp, RepeatedSolvesAgree) {
  LinearSetup s({8}, 1);
  SpMilpInstance inst =
      s.instance({30, 6, 6, 5, 4, 4, 3, 9, 12, 2}, {2, 4, 8}, 8, 16);
  Result<SpMilpResult> a = solveSpMilp(inst);
  Result<SpMilpResult> b = solveSpMilp(inst);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->groups.size(), b->groups.size());
  for (size_t i = 0; i < a->groups.size(); ++i) {
    EXPECT_EQ(a->groups[i].degree, b->groups[i].degree);
    EXPECT_EQ(a->groups[i].counts, b->groups[i].counts);
  }
  EXPECT_EQ(a->objectiveMs, b->objectiveMs);
  EXPECT_EQ(a->nodes, b->nodes);
}

// Reference section 4 item 4 at the MILP level: gpt-7b, 64 GPUs, 6,449
// tokens per GPU, buckets {49,152 x 4, 102,400 x 1}.
TEST(SpMilp, FlexspIllustration) {
  cost::ProfiledModel m = *cost::findProfiledModel("gpt-7b");
  cost::AllToAllBandwidthTable bw = cost::flexspA100Bandwidth();
  std::vector<int64_t> lengths{102400, 49152, 49152, 49152, 49152};
  Result<Bucketing> b = bucketSequences(lengths, {0, 1, 2, 3, 4}, 16);
  ASSERT_TRUE(b) << b.error;
  Result<SpMilpInstance> inst =
      makeSpMilpInstance(m, bw, *b, {2, 4, 8, 16, 32, 64}, 64, 6449);
  ASSERT_TRUE(inst) << inst.error;
  SpMilpOptions o;
  o.relativeGap = 0;
  o.nodeLimit = 0;
  Result<SpMilpResult> r = solveSpMilp(*inst, o);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(degreesOf(r->groups), (std::vector<int64_t>{32, 8, 8, 8, 8}));
  EXPECT_EQ(r->groups[0].counts, (Counts{0, 1}));
  for (size_t i = 1; i < 5; ++i)
    EXPECT_EQ(r->groups[i].counts, (Counts{1, 0}));
  EXPECT_NEAR(r->objectiveMs, 3976, 0.5);
  EXPECT_TRUE(r->provenOptimal);

  // The greedy search finds the same plan; limited to homogeneous
  // multisets (too many to enumerate) it can do no better than one SP64
  // group (5,022 ms; the balanced 2 x SP32 takes 5,163 ms).
  std::optional<std::vector<BucketGroup>> greedy = bestGreedyPlan(*inst);
  ASSERT_TRUE(greedy);
  EXPECT_NEAR(bucketPlanTimeMs(*inst, *greedy), 3976, 0.5);
  std::optional<std::vector<BucketGroup>> homo = bestGreedyPlan(*inst, 3);
  ASSERT_TRUE(homo);
  EXPECT_EQ(degreesOf(*homo), (std::vector<int64_t>{64}));
  EXPECT_NEAR(bucketPlanTimeMs(*inst, *homo), 5022, 0.5);
  std::optional<std::vector<BucketGroup>> two =
      balancedHomogeneousPlan(*inst, 32);
  ASSERT_TRUE(two);
  EXPECT_NEAR(bucketPlanTimeMs(*inst, *two), 5163, 0.5);
}
