//===- PartitioningTest.cpp - Prefill micro-batches and decode splits -----===//
#include "passes/Serving/Partitioning.h"

#include "passes/Instantiate/BatchSampler.h"
#include "passes/Serving/StageCost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace plexus::serving;

namespace {

/// argmin over K in [1, maxK] of T(K), ties to the smaller K.
int64_t bruteForceMicroBatches(double work, int64_t stages, double gamma,
                               int64_t maxK) {
  int64_t best = 1;
  for (int64_t k = 2; k <= maxK; ++k)
    if (waveSeconds(work, stages, gamma, k) <
        waveSeconds(work, stages, gamma, best))
      best = k;
  return best;
}

/// The least possible largest bucket, by trying every assignment.
double bruteForceMakespan(const std::vector<double> &w, int64_t buckets) {
  size_t n = w.size();
  int64_t combinations = 1;
  for (size_t i = 0; i < n; ++i)
    combinations *= buckets;
  double best = 1e300;
  for (int64_t code = 0; code < combinations; ++code) {
    std::vector<double> load(size_t(buckets), 0.0);
    int64_t c = code;
    for (size_t i = 0; i < n; ++i, c /= buckets)
      load[size_t(c % buckets)] += w[i];
    best = std::min(best, *std::max_element(load.begin(), load.end()));
  }
  return best;
}

} // namespace

TEST(Partitioning, PrefillWeightFormula) {
  PrefillWeight w{2.0, 0.5, 0.0};
  EXPECT_EQ(w(0, 10), 2.0 * 10 + 0.5 * 100);               // 70: a full prefill
  EXPECT_EQ(w(100, 10), 2.0 * 10 + 0.5 * (12100 - 10000)); // 1070
  EXPECT_EQ(w(100, 0), 0.0);
  // Extending a cached prefix costs more than the same tokens from scratch.
  for (int64_t c : {1, 50, 4000})
    EXPECT_GT(w(c, 10), w(0, 10));
  // No cancellation for long contexts: (c+x)^2 - c^2 = x (2c + x).
  PrefillWeight quad{0.0, 1.0, 0.0};
  EXPECT_EQ(quad(int64_t(1) << 40, 1), double(int64_t(1) << 41) + 1.0);
}

TEST(Partitioning, WaveTimeAndOptimum) {
  // (K + P - 1)(W / (K P) + gamma) with W = 100, P = 2, gamma = 1, K = 5.
  EXPECT_DOUBLE_EQ(waveSeconds(100, 2, 1, 5), 6 * (10 + 1));
  // K* = sqrt((P-1) W / (P gamma)) = sqrt(800 / 2) = 20.
  EXPECT_DOUBLE_EQ(sqrtRuleOptimum(800, 2, 1), 20.0);
  EXPECT_EQ(sqrtRuleMicroBatches(800, 2, 1, 1000), 20);
  EXPECT_EQ(sqrtRuleOptimum(800, 1, 1), 0.0); // one stage: no pipeline
  EXPECT_EQ(sqrtRuleMicroBatches(800, 1, 1, 1000), 1);
  EXPECT_EQ(sqrtRuleMicroBatches(800, 2, 1, 7), 7); // capped
}

TEST(Partitioning, SquareRootRuleMatchesBruteForce) {
  int64_t checked = 0;
  for (int64_t stages : {2, 3, 4, 8})
    for (double gamma : {0.001, 0.01, 0.3, 1.0, 7.0})
      for (double work : {0.5, 3.0, 4.205, 17.0, 100.0, 1234.5, 1e5}) {
        int64_t rule = sqrtRuleMicroBatches(work, stages, gamma, 100000);
        int64_t brute = bruteForceMicroBatches(work, stages, gamma, 100000);
        EXPECT_EQ(rule, brute)
            << "W " << work << " P " << stages << " gamma " << gamma;
        ++checked;
      }
  EXPECT_EQ(checked, 140);
}

TEST(Partitioning, RoundingTheOptimumCanMissByOne) {
  // K* = 1.45 rounds to 1, but T(2) < T(1): the integer optimum is the
  // better of floor and ceil, not the nearest. W = 2 * 1.45^2 at P = 2,
  // gamma = 1.
  double work = 2 * 1.45 * 1.45;
  EXPECT_NEAR(sqrtRuleOptimum(work, 2, 1), 1.45, 1e-12);
  EXPECT_LT(waveSeconds(work, 2, 1, 2), waveSeconds(work, 2, 1, 1));
  EXPECT_EQ(sqrtRuleMicroBatches(work, 2, 1, 10), 2);
  EXPECT_EQ(std::llround(sqrtRuleOptimum(work, 2, 1)), 1);
}

TEST(Partitioning, MicroBatchCountLimits) {
  // The rule, capped at the requests.
  EXPECT_EQ(prefillMicroBatchCount(800, 2, 1, 5, 100, 0), 5);
  EXPECT_EQ(prefillMicroBatchCount(800, 2, 1, 50, 100, 0), 20);
  // A token limit raises K: 10,000 tokens at 1,500 per micro-batch need 7.
  EXPECT_EQ(prefillMicroBatchCount(1, 2, 1, 50, 10000, 1500), 7);
  EXPECT_EQ(prefillMicroBatchCount(1, 2, 1, 3, 10000, 1500), 3);
  EXPECT_EQ(prefillMicroBatchCount(800, 2, 1, 0, 0, 0), 0);
}

TEST(Partitioning, LptSmallCases) {
  // 5 -> b0, 4 -> b1, 3 -> b1 (7), 3 -> b0 (8), 3 -> b1 (10).
  std::vector<double> w = {5, 4, 3, 3, 3};
  std::vector<int64_t> a = lptAssign(w, 2);
  EXPECT_EQ(a, (std::vector<int64_t>{0, 1, 1, 0, 1}));
  EXPECT_EQ(bucketLoads(w, a, 2), (std::vector<double>{8, 10}));
  // The optimum is 9 (5 + 4 | 3 + 3 + 3); LPT's 10 is within 4/3 - 1/6.
  EXPECT_EQ(bruteForceMakespan(w, 2), 9.0);
  // Equal weights alternate, lower index and lower bucket first.
  EXPECT_EQ(lptAssign({1, 1, 1, 1}, 2), (std::vector<int64_t>{0, 1, 0, 1}));
  // Heaviest first whatever the input order.
  EXPECT_EQ(lptAssign({1, 9, 2}, 2), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(lptAssign({3, 2}, 1), (std::vector<int64_t>{0, 0}));
}

TEST(Partitioning, LptWithinItsBoundOfTheOptimum) {
  plexus::instantiate::StepRng rng(42, 0);
  for (int trial = 0; trial < 200; ++trial) {
    int64_t buckets = 2 + int64_t(rng.below(2));
    size_t n = 3 + size_t(rng.below(6));
    std::vector<double> w(n);
    for (double &x : w)
      x = double(1 + rng.below(20));
    std::vector<double> load = bucketLoads(w, lptAssign(w, buckets), buckets);
    double lpt = *std::max_element(load.begin(), load.end());
    double opt = bruteForceMakespan(w, buckets);
    EXPECT_LE(lpt, (4.0 / 3.0 - 1.0 / (3.0 * double(buckets))) * opt + 1e-9)
        << "trial " << trial;
    EXPECT_EQ(lptAssign(w, buckets), lptAssign(w, buckets));
  }
}

TEST(Partitioning, LptRespectsATokenLimitWhenItCan) {
  // Without the limit the two heavy items would share bucket 0's partner.
  std::vector<double> w = {10, 9, 1, 1};
  std::vector<int64_t> tokens = {100, 100, 900, 900};
  std::vector<int64_t> free = lptAssign(w, 2);
  EXPECT_EQ(free, (std::vector<int64_t>{0, 1, 1, 0}));
  // With 1,000 tokens per bucket the two long ones cannot share a bucket.
  std::vector<int64_t> limited = lptAssign(w, 2, tokens, 1000);
  EXPECT_NE(limited[2], limited[3]);
  // When nothing fits, the lightest bucket takes it anyway.
  std::vector<int64_t> over = lptAssign({2, 1}, 2, {5000, 5000}, 1000);
  EXPECT_EQ(over, (std::vector<int64_t>{0, 1}));
}

TEST(Partitioning, DecodeSplitBalancesKvLength) {
  // 100 -> b0, 90 -> b1, 50 -> b1 (140), 40 -> b0 (140), 10 -> b0 (tie).
  std::vector<int64_t> kv = {100, 90, 50, 40, 10};
  std::vector<int64_t> a = partitionByKvLength(kv, 2);
  EXPECT_EQ(a, (std::vector<int64_t>{0, 1, 1, 0, 0}));
  std::vector<double> w(kv.begin(), kv.end());
  EXPECT_EQ(bucketLoads(w, a, 2), (std::vector<double>{150, 140}));
  // Fewer requests than stages leaves a bucket empty.
  EXPECT_EQ(partitionByKvLength({7}, 2), (std::vector<int64_t>{0}));
}

TEST(Partitioning, RankAwareCostIsSharedPlusBusiestRank) {
  // Two buckets; items (shared, attention, rank): a (1, 4, 0), b (1, 4, 1),
  // c (1, 4, 0). Heaviest first by index: a -> b0 (5); b would cost
  // 1 + 1 + max(4, 4) = 6 in b0 and 5 in b1: b -> b1; c would cost
  // 2 + (4 + 4) = 10 in b0 (a's rank) and 2 + max(4, 4) = 6 in b1: c -> b1.
  // Costs: b0 = 5, b1 = 6.
  std::vector<WaveItem> items = {{1, 4, 0, 10}, {1, 4, 1, 10}, {1, 4, 0, 10}};
  std::vector<int64_t> a = rankAwareAssign(items, 2);
  EXPECT_EQ(a, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(rankAwareCosts(items, a, 2), (std::vector<double>{5, 6}));
  // One rank for all: plain LPT on the sums (5, 5, 5): 0, 1, 0.
  std::vector<WaveItem> flat = items;
  for (WaveItem &it : flat)
    it.rank = 0;
  EXPECT_EQ(rankAwareAssign(flat, 2), lptAssign({5, 5, 5}, 2));
}

TEST(Partitioning, PipelineSecondsIsAFlowShop) {
  // Costs 4 and 2 (summed over 2 stages), gamma 0.5: stage times 2.5 and
  // 1.5; T = 2.5 + 1.5 + (2 - 1) x 2.5 = 6.5. Equal buckets give the
  // square-root rule's T(K).
  EXPECT_DOUBLE_EQ(pipelineSeconds({4, 2}, 2, 0.5), 6.5);
  EXPECT_DOUBLE_EQ(pipelineSeconds({3, 3, 3}, 2, 0.5),
                   waveSeconds(9, 2, 0.5, 3));
}

TEST(Partitioning, WaveCutKeepsDistinctRanksTogether) {
  // Two long requests on two ranks, two stages, gamma 0.1, attention 2 s
  // each and nothing shared. Together: one micro-batch of cost 2, T = 2 x
  // (1 + 0.1) = 2.2; apart: two of cost 2, T = 2 x 1.1 + 1.1 = 3.3. The
  // square-root rule alone (W = 4) would take K = 2.
  std::vector<WaveItem> apart = {{0, 2, 0, 100}, {0, 2, 1, 100}};
  EXPECT_EQ(sqrtRuleMicroBatches(4, 2, 0.1, 2), 2);
  WaveCut c = cutWave(apart, 2, 0.1, 0);
  EXPECT_EQ(c.microBatches, 1);
  EXPECT_DOUBLE_EQ(c.seconds, 2.2);
  // On one rank they cannot overlap in a micro-batch; pipelining them
  // through the two stages wins: cost 4 together (T = 2.1 + 2.1 = 4.2)
  // against 3.3.
  std::vector<WaveItem> same = {{0, 2, 0, 100}, {0, 2, 0, 100}};
  WaveCut d = cutWave(same, 2, 0.1, 0);
  EXPECT_EQ(d.microBatches, 2);
  EXPECT_DOUBLE_EQ(d.seconds, 3.3);
  EXPECT_EQ(d.assignment, (std::vector<int64_t>{0, 1}));
  // A token limit forces the least K it allows.
  WaveCut e = cutWave(apart, 2, 0.1, 150);
  EXPECT_EQ(e.microBatches, 2);
  EXPECT_EQ(cutWave({}, 2, 0.1, 0).microBatches, 0);
}

TEST(Partitioning, DecodeSplitBalancesEachRank) {
  // KV 100, 60, 50, 10 on ranks 0, 1, 1, 0. Plain LPT: 100 -> b0, 60 -> b1,
  // 50 -> b1 (110), 10 -> b0: rank 1 reads 110 tokens in b1. By rank:
  // 100 -> b0; 60 (rank 1 empty in both, less total) -> b1; 50 (rank 1 has
  // 0 in b0, 60 in b1) -> b0; 10 (rank 0 has 100 in b0) -> b1. The busiest
  // rank of a micro-batch then reads 100 and 60 tokens, not 110 and 110.
  std::vector<int64_t> kv = {100, 60, 50, 10};
  EXPECT_EQ(partitionByKvLength(kv, 2), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(partitionByKvLengthAndRank(kv, {0, 1, 1, 0}, 2),
            (std::vector<int64_t>{0, 1, 0, 1}));
  // All on one rank: plain LPT.
  EXPECT_EQ(partitionByKvLengthAndRank(kv, {0, 0, 0, 0}, 2),
            partitionByKvLength(kv, 2));
}
