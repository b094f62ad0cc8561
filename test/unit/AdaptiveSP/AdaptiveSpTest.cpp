//===- AdaptiveSpTest.cpp - FlexSP's adaptive SP planner ------------------===//
//
// The planner end to end: reference flexsp_dpp.md section 4 items 4, 5 and
// 9 with the paper's cost model, plan invariants (degrees sum to N, node
// alignment, memory), mixed plans, diagnostics, determinism and the SP=1
// option.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/AdaptiveSp.h"

#include "WikipediaBatches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace plexus;
using namespace plexus::adaptivesp;

namespace {

using Ids = std::vector<int64_t>;

struct Gpt7b : ::testing::Test {
  cost::ProfiledModel m = *cost::findProfiledModel("gpt-7b");
  cost::AllToAllBandwidthTable bw = cost::flexspA100Bandwidth();

  int64_t capacity(double paramsGi) {
    plexus::Result<int64_t> c = cost::tokenCapacityPerGpu(m, paramsGi, 30, 64);
    EXPECT_TRUE(c) << c.error;
    return c ? *c : 0;
  }

  Result<AdaptiveSpPlan> plan(const std::vector<int64_t> &lengths, int64_t cap,
                              AdaptiveSpOptions o = {}, int64_t gpus = 64,
                              int64_t chipsPerNode = 8) {
    return planAdaptiveSp(m, bw, lengths, gpus, chipsPerNode, cap, o);
  }

  static AdaptiveSpOptions strategy(SpStrategy s, int64_t degree = 0) {
    AdaptiveSpOptions o;
    o.strategy = s;
    o.staticDegree = degree;
    return o;
  }
};

std::set<int64_t> degreesIn(const SpMicroBatchPlan &mb) {
  std::set<int64_t> out;
  for (const SpGroupPlan &g : mb.groups)
    out.insert(g.degree);
  return out;
}

/// The group holding sequence `id`, or nullptr.
const SpGroupPlan *groupOf(const SpMicroBatchPlan &mb, int64_t id) {
  for (const SpGroupPlan &g : mb.groups)
    if (std::find(g.sequenceIds.begin(), g.sequenceIds.end(), id) !=
        g.sequenceIds.end())
      return &g;
  return nullptr;
}

/// A fixed pseudo-random batch (LCG).
std::vector<int64_t> pseudoRandomBatch(uint64_t seed, size_t n, int64_t lo,
                                       int64_t hi) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    int64_t span = hi - lo + 1;
    // Square a uniform draw so short sequences dominate, as in real data.
    double u = static_cast<double>((seed >> 11) % 1000000) / 1e6;
    out.push_back(lo + static_cast<int64_t>(u * u * static_cast<double>(span)));
  }
  return out;
}

} // namespace

// ---- Reference section 4 item 4 -------------------------------------------

/// 64 GPUs, E = 30 GB, 192K parameter count: 6,449 tokens per GPU; one
/// 100K (102,400) and four 48K (49,152) sequences.
struct FlexspItem4 : Gpt7b {
  std::vector<int64_t> lengths{102400, 49152, 49152, 49152, 49152};
  int64_t cap = 0;
  void SetUp() override {
    cap = capacity(m.paramsGi192K);
    ASSERT_EQ(cap, 6449);
  }
};

TEST_F(FlexspItem4, AdaptivePlanIsSp32PlusFourSp8) {
  Result<AdaptiveSpPlan> p = plan(lengths, cap);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(planViolation(*p, lengths), "");
  EXPECT_EQ(p->minMicroBatches, 1); // 299,008 tokens of 412,736
  EXPECT_EQ(p->chosenMicroBatches, 1);
  ASSERT_EQ(p->microBatches.size(), 1u);
  const SpMicroBatchPlan &mb = p->microBatches[0];
  EXPECT_EQ(degreeSummary(mb), "<32, 8x4>");
  // Ascending degree, consecutive node-aligned ranks: four SP8 groups on
  // nodes 0-3, one 48K each, then the SP32 group with the 100K.
  ASSERT_EQ(mb.groups.size(), 5u);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(mb.groups[i].degree, 8);
    EXPECT_EQ(mb.groups[i].firstRank, 8 * i);
    EXPECT_EQ(mb.groups[i].lastRank, 8 * i + 7);
    EXPECT_EQ(mb.groups[i].sequenceIds, (Ids{i + 1}));
    // t1(49,152, SP8) = 2,678.8 + 127.3 ms, plus beta1 629.4 ms.
    EXPECT_NEAR(mb.groups[i].timeMs, 3435.4, 0.5);
  }
  EXPECT_EQ(mb.groups[4].degree, 32);
  EXPECT_EQ(mb.groups[4].firstRank, 32);
  EXPECT_EQ(mb.groups[4].lastRank, 63);
  EXPECT_EQ(mb.groups[4].sequenceIds, (Ids{0}));
  EXPECT_EQ(mb.groups[4].tokens, 102400);
  // 2,269.0 + 1,077.4 + 629.4 ms.
  EXPECT_NEAR(mb.timeMs, 3976, 0.5);
  EXPECT_NEAR(p->iterationMs, 3976, 0.5);
  // Five candidate counts were tried (M_min = 1 ... 5, one sequence each at
  // most), and one micro-batch won.
  ASSERT_EQ(p->trials.size(), 5u);
  for (const MicroBatchCountTrial &t : p->trials)
    EXPECT_TRUE(t.feasible) << t.reason;
}

TEST_F(FlexspItem4, SpeedupsOverTheBaselines) {
  Result<AdaptiveSpPlan> flex = plan(lengths, cap);
  Result<AdaptiveSpPlan> sp64 =
      plan(lengths, cap, strategy(SpStrategy::Static, 64));
  Result<AdaptiveSpPlan> homo =
      plan(lengths, cap, strategy(SpStrategy::BestHomogeneous));
  ASSERT_TRUE(flex && sp64 && homo);
  EXPECT_NEAR(sp64->iterationMs, 5022, 0.5);
  EXPECT_EQ(degreeSummary(sp64->microBatches[0]), "<64>");
  EXPECT_EQ(homo->microBatches[0].groups[0].degree, 64);
  EXPECT_NEAR(homo->iterationMs, 5022, 0.5);
  ASSERT_EQ(homo->homogeneousTimes.size(), 3u); // SP16, SP32, SP64 fit
  EXPECT_EQ(homo->homogeneousTimes[0].first, 16);
  // 1.26x over SP=64; 1.30x over the balanced 2 x SP32 (5,163 ms).
  EXPECT_NEAR(sp64->iterationMs / flex->iterationMs, 1.26, 0.005);
  EXPECT_NEAR(5163.0 / flex->iterationMs, 1.30, 0.005);
  EXPECT_EQ(planViolation(*sp64, lengths), "");
  EXPECT_EQ(planViolation(*homo, lengths), "");
}

// ---- Reference section 4 items 5 and 9: Wikipedia, 7B, 384K ----------------

TEST_F(Gpt7b, WikipediaBatchesThreeToSix) {
  const int64_t cap = capacity(m.paramsGi384K);
  ASSERT_EQ(cap, 6407);
  double staticSum = 0, homoSum = 0, flexSum = 0;
  for (int64_t batch = 3; batch <= 6; ++batch) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<int64_t> lengths = wikipediaBatch(batch);
    ASSERT_EQ(lengths.size(), 512u);
    Result<AdaptiveSpPlan> flex = plan(lengths, cap);
    Result<AdaptiveSpPlan> sp64 =
        plan(lengths, cap, strategy(SpStrategy::Static, 64));
    Result<AdaptiveSpPlan> homo =
        plan(lengths, cap, strategy(SpStrategy::BestHomogeneous));
    ASSERT_TRUE(flex) << flex.error;
    ASSERT_TRUE(sp64 && homo);
    EXPECT_EQ(planViolation(*flex, lengths), "");
    EXPECT_EQ(planViolation(*sp64, lengths), "");
    EXPECT_EQ(planViolation(*homo, lengths), "");

    // Static SP=64 is never better than the best (balanced) degree, which
    // is never better than FlexSP: its candidates include the balanced
    // homogeneous plans of every degree.
    EXPECT_GE(sp64->iterationMs, homo->iterationMs);
    EXPECT_GE(homo->iterationMs, flex->iterationMs);
    EXPECT_GE(flex->iterationMs, flex->lowerBoundMs);
    // Our runs (bench-flexsp, 7B / 384K): FlexSP 1.62-2.04x over SP=64 and
    // 1.006-1.41x over the best balanced degree (batch 5's SP8 is within
    // 0.6 % of FlexSP); the balanced best degree gains 1.15-2.03x over
    // SP=64. (The reference's 1.30-1.54x over the best degree is against a
    // best-fit packing that is never balanced.)
    EXPECT_GE(sp64->iterationMs / flex->iterationMs, 1.55);
    EXPECT_LE(sp64->iterationMs / flex->iterationMs, 2.1);
    EXPECT_LE(homo->iterationMs / flex->iterationMs, 1.45);
    EXPECT_LE(sp64->iterationMs / homo->iterationMs, 2.1);

    // Structure: the first micro-batch holds the longest sequence and mixes
    // degrees, with intra-node groups for its shorter sequences; the last
    // (shortest) runs intra-node groups only.
    const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    const SpMicroBatchPlan &first = flex->microBatches.front();
    const SpGroupPlan *g = nullptr;
    for (int64_t id = 0; id < 512 && !g; ++id)
      if (lengths[id] == longest)
        g = groupOf(first, id);
    ASSERT_NE(g, nullptr);
    std::set<int64_t> d = degreesIn(first);
    EXPECT_GE(d.size(), 2u) << degreeSummary(first);
    EXPECT_LE(*d.begin(), 8) << degreeSummary(first);
    EXPECT_LE(*degreesIn(flex->microBatches.back()).rbegin(), 8);
    if (longest > 8 * cap) { // batch 6: 69,760 > 51,256
      EXPECT_GE(g->degree, 16);
      EXPECT_GT(*d.rbegin(), 8);
    }
    EXPECT_EQ(degreesIn(flex->microBatches.back()).count(1), 0u);

    staticSum += sp64->iterationMs;
    homoSum += homo->iterationMs;
    flexSum += flex->iterationMs;
  }
  // The reference sums 1.67x over SP=64 (ours should be at least as good,
  // within its 3 %); over the balanced best degree ours is 17,678 / 14,153
  // = 1.25x (the reference's 1.41x is over unbalanced best-fit packing).
  EXPECT_GE(staticSum / flexSum, 1.67 * 0.97);
  EXPECT_GE(homoSum / flexSum, 1.2);
}

// ---- Plan invariants
// ---------------------------------------------------------

TEST(AdaptiveSp, NodeAlignedFirstRanks) {
  EXPECT_EQ(*nodeAlignedFirstRanks({8, 8, 16, 32}, 64, 8), (Ids{0, 8, 16, 32}));
  EXPECT_EQ(*nodeAlignedFirstRanks({2, 2, 4, 8}, 16, 4), (Ids{0, 2, 4, 8}));
  EXPECT_EQ(nodeAlignedFirstRanks({2, 4, 2}, 8, 4).error,
            "an SP group of degree 4 at ranks 2-5 would straddle a node "
            "boundary (4 chips per node)");
  EXPECT_EQ(nodeAlignedFirstRanks({8, 8}, 32, 8).error,
            "SP degrees sum to 16, not 32");
  // Groups larger than a node may span nodes.
  EXPECT_TRUE(nodeAlignedFirstRanks({4, 4, 8}, 16, 4));
}

TEST_F(Gpt7b, PlansAreNodeAlignedAndFitMemory) {
  // Small capacities make long sequences need inter-node groups.
  for (int64_t chipsPerNode : {4, 8}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE("chips per node " + std::to_string(chipsPerNode) +
                   ", seed " + std::to_string(seed));
      std::vector<int64_t> lengths = pseudoRandomBatch(seed, 48, 128, 40000);
      AdaptiveSpOptions o;
      o.microBatchTrials = 3;
      Result<AdaptiveSpPlan> p = plan(lengths, 2000, o, 32, chipsPerNode);
      ASSERT_TRUE(p) << p.error;
      EXPECT_EQ(planViolation(*p, lengths), "");
      for (const SpMicroBatchPlan &mb : p->microBatches) {
        int64_t sum = 0;
        for (const SpGroupPlan &g : mb.groups) {
          sum += g.degree;
          EXPECT_LE(g.tokens, 2000 * g.degree);
          EXPECT_FALSE(g.sequenceIds.empty());
          EXPECT_EQ(g.firstRank % std::min(g.degree, chipsPerNode), 0);
          if (g.degree <= chipsPerNode) {
            EXPECT_EQ(g.firstRank / chipsPerNode, g.lastRank / chipsPerNode);
          }
        }
        EXPECT_EQ(sum, 32);
      }
    }
  }
}

TEST_F(Gpt7b, MixedPlanForASequenceLongerThanANode) {
  // 60,000 tokens exceed one node's 8 x 6,407 = 51,256, so that sequence
  // needs SP16 or more; forty 2K sequences are better off intra-node.
  const int64_t cap = capacity(m.paramsGi384K);
  std::vector<int64_t> lengths(41, 2048);
  lengths[0] = 60000;
  Result<AdaptiveSpPlan> p = plan(lengths, cap);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(planViolation(*p, lengths), "");
  const SpMicroBatchPlan &first = p->microBatches.front();
  const SpGroupPlan *g = groupOf(first, 0);
  ASSERT_NE(g, nullptr);
  EXPECT_GE(g->degree, 16);
  EXPECT_LE(*degreesIn(first).begin(), 8) << degreeSummary(first);
}

TEST(AdaptiveSp, PlanViolationFindsProblems) {
  AdaptiveSpPlan p;
  p.gpus = 8;
  p.chipsPerNode = 4;
  p.capacityPerGpu = 10;
  SpMicroBatchPlan mb;
  mb.groups = {{4, 0, 3, {0}, 5, 1}, {4, 4, 7, {1}, 7, 1}};
  mb.tokens = 12;
  p.microBatches = {mb};
  const std::vector<int64_t> lengths{5, 7};
  EXPECT_EQ(planViolation(p, lengths), "");
  AdaptiveSpPlan twice = p;
  twice.microBatches[0].groups[1].sequenceIds = {0};
  twice.microBatches[0].groups[1].tokens = 5;
  twice.microBatches[0].tokens = 10;
  EXPECT_EQ(planViolation(twice, lengths), "sequence 0 is placed 2 times");
  AdaptiveSpPlan straddle = p;
  straddle.microBatches[0].groups = {
      {2, 0, 1, {0}, 5, 1}, {4, 2, 5, {1}, 7, 1}, {2, 6, 7, {}, 0, 0}};
  EXPECT_EQ(planViolation(straddle, lengths),
            "micro-batch 0: group 1: straddles a node boundary");
  AdaptiveSpPlan short4 = p;
  short4.microBatches[0].groups.pop_back();
  short4.microBatches[0].groups[0].sequenceIds = {0, 1};
  short4.microBatches[0].groups[0].tokens = 12;
  EXPECT_EQ(planViolation(short4, lengths),
            "micro-batch 0: degrees sum to 4, not 8");
  AdaptiveSpPlan full = p;
  full.capacityPerGpu = 1;
  EXPECT_EQ(planViolation(full, lengths),
            "micro-batch 0: group 0: 5 tokens exceed its capacity of 4");
}

// ---- Diagnostics and options
// -------------------------------------------------

TEST_F(Gpt7b, TooLongForTheClusterNamesSequenceAndMemory) {
  const int64_t cap = capacity(m.paramsGi384K); // 6,407 tokens per GPU
  Result<AdaptiveSpPlan> p = plan({1000, 500000}, cap);
  ASSERT_FALSE(p);
  // 500,000 x 4.480441895 MB = 2,240,221 MB; 64 x 6,407 = 410,048 tokens =
  // 1,837,196 MB.
  EXPECT_EQ(p.error, "sequence 1 (500,000 tokens) needs 2,240,221 MB of "
                     "activations but all 64 GPUs together hold 410,048 "
                     "tokens (1,837,196 MB, 6,407 tokens per GPU)");
}

TEST_F(Gpt7b, TooLongForTheLargestGroup) {
  // Without a bandwidth figure for SP64 the largest group is SP32:
  // 32 x 6,407 = 205,024 tokens (918,598 MB).
  bw.gbPerSecond.pop_back();
  Result<AdaptiveSpPlan> p = plan({300000}, capacity(m.paramsGi384K));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error, "sequence 0 (300,000 tokens) needs 1,344,133 MB of "
                     "activations but the largest SP group, of degree 32, "
                     "holds 205,024 tokens (918,598 MB)");
}

TEST_F(Gpt7b, BadInputs) {
  EXPECT_EQ(plan({1}, 100, {}, 64, 6).error,
            "chips per node must be a power of two, not 6");
  EXPECT_EQ(plan({1}, 100, {}, 12, 8).error,
            "12 GPUs are not whole nodes of 8");
  EXPECT_EQ(plan({1}, 100, {}, 0, 8).error,
            "the GPU count must be positive, not 0");
  EXPECT_EQ(plan({1}, 0).error,
            "the per-GPU token capacity must be positive, not 0");
  EXPECT_EQ(plan({4, -1}, 100).error,
            "sequence 1 has -1 tokens; lengths must be positive");
  EXPECT_EQ(plan({1}, 100, strategy(SpStrategy::Static, 3)).error,
            "SP degree 3 must be positive and divide the GPU count 64");
  AdaptiveSpOptions none;
  none.microBatchTrials = 0;
  EXPECT_EQ(plan({1}, 100, none).error,
            "at least one micro-batch count must be tried");
}

TEST_F(Gpt7b, EmptyBatch) {
  Result<AdaptiveSpPlan> p = plan({}, 100);
  ASSERT_TRUE(p) << p.error;
  EXPECT_TRUE(p->microBatches.empty());
  EXPECT_EQ(p->iterationMs, 0);
  EXPECT_EQ(p->chosenMicroBatches, 0);
}

TEST_F(Gpt7b, Sp1OnlyWhenAllowed) {
  // 128 sequences of 1,024 tokens on 64 GPUs (6,407 tokens each): with SP=1
  // every GPU runs two, 2 x t1(1024, 1) + beta1 = 2 x 193.7 + 629.4 ms.
  const int64_t cap = capacity(m.paramsGi384K);
  std::vector<int64_t> lengths(128, 1024);
  AdaptiveSpOptions with;
  with.allowSp1 = true;
  Result<AdaptiveSpPlan> p1 = plan(lengths, cap, with);
  ASSERT_TRUE(p1) << p1.error;
  ASSERT_EQ(p1->microBatches.size(), 1u);
  EXPECT_EQ(degreeSummary(p1->microBatches[0]), "<1x64>");
  EXPECT_NEAR(p1->iterationMs, 1016.9, 0.5);
  EXPECT_EQ(planViolation(*p1, lengths), "");

  Result<AdaptiveSpPlan> p2 = plan(lengths, cap);
  ASSERT_TRUE(p2) << p2.error;
  for (const SpMicroBatchPlan &mb : p2->microBatches)
    EXPECT_EQ(degreesIn(mb).count(1), 0u) << degreeSummary(mb);
  EXPECT_GT(p2->iterationMs, p1->iterationMs);

  // The best-homogeneous baseline follows the same option.
  AdaptiveSpOptions homo = strategy(SpStrategy::BestHomogeneous);
  Result<AdaptiveSpPlan> h2 = plan(lengths, cap, homo);
  homo.allowSp1 = true;
  Result<AdaptiveSpPlan> h1 = plan(lengths, cap, homo);
  ASSERT_TRUE(h1 && h2);
  // Balanced like the static planners: at SP=1 two per GPU, as FlexSP's
  // <1x64> (1,016.9 ms); without SP=1, SP=2 takes four per group of two:
  // beta1 + 4 t1(1024, 2) = 629.36 + 4 x (96.87 compute + 8.57 all-to-all)
  // = 1,051.1 ms. (Best-fit alone packed 6 per GPU, 1,791.9 ms, and all
  // 128 in one SP=64 group, 1,857.9 ms.)
  EXPECT_EQ(h1->microBatches[0].groups[0].degree, 1);
  EXPECT_NEAR(h1->iterationMs, 1016.9, 0.5);
  EXPECT_EQ(h2->microBatches[0].groups[0].degree, 2);
  EXPECT_NEAR(h2->iterationMs, 1051.1, 0.5);
  EXPECT_EQ(h2->homogeneousTimes.front().first, 2);
  EXPECT_EQ(h1->homogeneousTimes.front().first, 1);
}

TEST_F(Gpt7b, DeterministicAcrossRunsAndThreadCounts) {
  const int64_t cap = capacity(m.paramsGi384K);
  std::vector<int64_t> lengths = wikipediaBatch(6);
  AdaptiveSpOptions two;
  two.threads = 2;
  AdaptiveSpOptions one;
  one.threads = 1;
  Result<AdaptiveSpPlan> a = plan(lengths, cap, two);
  Result<AdaptiveSpPlan> b = plan(lengths, cap, two);
  Result<AdaptiveSpPlan> c = plan(lengths, cap, one);
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(samePlan(*a, *b));
  EXPECT_TRUE(samePlan(*a, *c));
  for (const SpMicroBatchPlan &mb : a->microBatches)
    EXPECT_FALSE(mb.timeLimitReached);
  // With CBC on (opt-in), pruning by bound changes which MILPs run, never
  // the plan.
  AdaptiveSpOptions milp = two;
  milp.solveMilp = true;
  AdaptiveSpOptions full = milp;
  full.pruneByBound = false;
  Result<AdaptiveSpPlan> e = plan(lengths, cap, milp);
  Result<AdaptiveSpPlan> d = plan(lengths, cap, full);
  ASSERT_TRUE(d && e) << d.error << e.error;
  EXPECT_EQ(d->iterationMs, e->iterationMs);
  EXPECT_EQ(d->chosenMicroBatches, e->chosenMicroBatches);
  for (const MicroBatchCountTrial &t : d->trials)
    EXPECT_TRUE(t.milpSolved);
  ASSERT_EQ(d->microBatches.size(), e->microBatches.size());
  for (size_t i = 0; i < e->microBatches.size(); ++i)
    EXPECT_EQ(degreeSummary(d->microBatches[i]),
              degreeSummary(e->microBatches[i]));
}

TEST(AdaptiveSp, MicroBatchLowerBound) {
  // t1 = s / d (no all-to-all), beta1 = 2, N = 4, 8 tokens per GPU,
  // degrees {2, 4}: the slowest single sequence at its best degree is
  // 12 / 4 = 3; the balanced work is (12 + 4) / 4 = 4. Bound: 2 + 4.
  cost::ProfiledModel lin;
  lin.alpha2 = 1;
  lin.beta1 = 2;
  lin.layers = 1;
  lin.hidden = 1;
  cost::AllToAllBandwidthTable bw{{{2, 1e300}, {4, 1e300}}};
  Result<double> lb =
      microBatchLowerBoundMs(lin, bw, {12, 4}, {0, 1}, {2, 4}, 4, 8);
  ASSERT_TRUE(lb) << lb.error;
  EXPECT_NEAR(*lb, 6.0, 1e-9);
  EXPECT_FALSE(microBatchLowerBoundMs(lin, bw, {40}, {0}, {2, 4}, 4, 8));
}

TEST(AdaptiveSp, DegreeSummary) {
  SpMicroBatchPlan mb;
  for (int64_t d : {2, 2, 4, 32, 4, 4, 2})
    mb.groups.push_back({d, 0, 0, {}, 0, 0});
  EXPECT_EQ(degreeSummary(mb), "<32, 4x3, 2x3>");
  EXPECT_STREQ(strategyName(SpStrategy::BestHomogeneous), "best-homogeneous");
}
