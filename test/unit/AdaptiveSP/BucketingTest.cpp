//===- BucketingTest.cpp - Length buckets for FlexSP's MILP ---------------===//
//
// Hand-checked bucketings, a brute-force cross-check of the padding DP, the
// bucket-count growth rule, and reference flexsp_dpp.md section 4 item 7 on
// Wikipedia micro-batches.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/Bucketing.h"

#include "WikipediaBatches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

using namespace plexus::adaptivesp;

namespace {

using Ids = std::vector<int64_t>;

Ids allIds(size_t n) {
  Ids ids(n);
  std::iota(ids.begin(), ids.end(), int64_t{0});
  return ids;
}

std::vector<int64_t> bounds(const Bucketing &b) {
  std::vector<int64_t> out;
  for (const SequenceBucket &bk : b.buckets)
    out.push_back(bk.upperTokens);
  return out;
}

/// Least padding over every way to cut the sorted distinct values into
/// exactly `q` buckets.
int64_t bruteForcePadding(std::vector<int64_t> lengths, int64_t q) {
  std::sort(lengths.begin(), lengths.end());
  std::vector<int64_t> values = lengths;
  values.erase(std::unique(values.begin(), values.end()), values.end());
  const size_t d = values.size();
  int64_t best = std::numeric_limits<int64_t>::max();
  for (uint32_t mask = 0; mask < (1u << (d - 1)); ++mask) {
    if (__builtin_popcount(mask) != q - 1)
      continue;
    // Bucket bound for each value: the next cut's value at or above it.
    int64_t pad = 0;
    for (int64_t len : lengths) {
      size_t i =
          std::lower_bound(values.begin(), values.end(), len) - values.begin();
      while (i + 1 < d && !(mask >> i & 1u))
        ++i;
      pad += values[i] - len;
    }
    best = std::min(best, pad);
  }
  return best;
}

} // namespace

TEST(Bucketing, HandChecked) {
  // {1, 2, 3, 10, 11, 12} in two buckets: {1,2,3} at 3 and {10,11,12} at
  // 12, padding 2 + 1 + 2 + 1 = 6.
  std::vector<int64_t> lengths{10, 1, 12, 3, 11, 2};
  Result<Bucketing> b = bucketSequences(lengths, allIds(6), 2);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(bounds(*b), (std::vector<int64_t>{3, 12}));
  EXPECT_EQ(b->buckets[0].sequenceIds, (Ids{3, 5, 1})); // 3, 2, 1
  EXPECT_EQ(b->buckets[1].sequenceIds, (Ids{2, 4, 0})); // 12, 11, 10
  EXPECT_EQ(b->tokens, 39);
  EXPECT_EQ(b->paddedTokens, 45);
  EXPECT_DOUBLE_EQ(bucketTokenError(*b), 45.0 / 39.0 - 1.0);
}

TEST(Bucketing, OneBucketIsTheLongest) {
  Result<Bucketing> b = bucketSequences({4, 8, 6}, allIds(3), 1);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(bounds(*b), (std::vector<int64_t>{8}));
  EXPECT_EQ(b->paddedTokens, 24);
}

TEST(Bucketing, EnoughBucketsAreExactAndMergeEqualLengths) {
  // Two distinct lengths: two buckets, whatever Q; no padding.
  Result<Bucketing> b = bucketSequences({5, 7, 5, 5}, allIds(4), 16);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(bounds(*b), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(b->buckets[0].sequenceIds, (Ids{0, 2, 3})); // ties by id
  EXPECT_EQ(b->paddedTokens, b->tokens);
  EXPECT_DOUBLE_EQ(bucketTokenError(*b), 0.0);
}

TEST(Bucketing, SubsetOfIds) {
  Result<Bucketing> b = bucketSequences({100, 3, 50, 4}, {1, 3}, 1);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(bounds(*b), (std::vector<int64_t>{4}));
  EXPECT_EQ(b->buckets[0].sequenceIds, (Ids{3, 1}));
  EXPECT_EQ(b->tokens, 7);
}

TEST(Bucketing, DpMatchesBruteForce) {
  uint64_t seed = 7;
  for (int round = 0; round < 30; ++round) {
    std::vector<int64_t> lengths;
    for (int i = 0; i < 5 + round % 8; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      lengths.push_back(1 + static_cast<int64_t>((seed >> 33) % 40));
    }
    std::vector<int64_t> distinct = lengths;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()),
                   distinct.end());
    for (int64_t q = 1; q <= static_cast<int64_t>(distinct.size()); ++q) {
      Result<Bucketing> b = bucketSequences(lengths, allIds(lengths.size()), q);
      ASSERT_TRUE(b) << b.error;
      EXPECT_EQ(static_cast<int64_t>(b->buckets.size()), q);
      EXPECT_EQ(b->paddedTokens - b->tokens, bruteForcePadding(lengths, q))
          << "round " << round << " q " << q;
    }
  }
}

TEST(Bucketing, GrowthRule) {
  // {1, 100}: one bucket pads to 200. With a 200-token cluster the rule
  // wants 2 * 200 <= 101 + 200, which fails, so Q grows to 2 (exact).
  std::vector<int64_t> lengths{1, 100};
  Result<Bucketing> grown = bucketMicroBatch(lengths, allIds(2), 1, 200);
  ASSERT_TRUE(grown) << grown.error;
  EXPECT_EQ(bounds(*grown), (std::vector<int64_t>{1, 100}));
  // With 300 tokens of cluster, 400 <= 401 holds at Q = 1.
  Result<Bucketing> kept = bucketMicroBatch(lengths, allIds(2), 1, 300);
  ASSERT_TRUE(kept) << kept.error;
  EXPECT_EQ(bounds(*kept), (std::vector<int64_t>{100}));
  // Growth off: Q stays.
  Result<Bucketing> fixed =
      bucketMicroBatch(lengths, allIds(2), 1, 200, /*grow=*/false);
  ASSERT_TRUE(fixed) << fixed.error;
  EXPECT_EQ(bounds(*fixed), (std::vector<int64_t>{100}));
}

TEST(Bucketing, FixedWidthUsesTheLongestMemberOfEachBin) {
  // Width 10: bins (0,10] holds 3, 9; (10,20] holds 12; (30,40] holds 31.
  Result<Bucketing> b = bucketFixedWidth({3, 12, 9, 31}, allIds(4), 10);
  ASSERT_TRUE(b) << b.error;
  EXPECT_EQ(bounds(*b), (std::vector<int64_t>{9, 12, 31}));
  EXPECT_EQ(b->paddedTokens, 9 + 9 + 12 + 31);
}

TEST(Bucketing, Errors) {
  EXPECT_EQ(bucketSequences({1}, {0}, 0).error,
            "the bucket count must be at least 1, not 0");
  EXPECT_EQ(bucketSequences({1}, {1}, 2).error,
            "sequence id 1 is out of range");
  EXPECT_EQ(bucketSequences({0}, {0}, 2).error,
            "sequence 0 has 0 tokens; lengths must be positive");
  EXPECT_FALSE(bucketFixedWidth({1}, {0}, 0));
  Result<Bucketing> empty = bucketSequences({1}, {}, 4);
  ASSERT_TRUE(empty) << empty.error;
  EXPECT_TRUE(empty->buckets.empty());
  EXPECT_DOUBLE_EQ(bucketTokenError(*empty), 0.0);
}

// Reference section 4 item 7: with Q = 16 the DP's token error stays at or
// below 2.3 % on Wikipedia micro-batches (global batches 3-6, blasted at
// M_min for 7B / 384K / 64 GPUs), while fixed 2K-wide bins are far worse.
// Our fixed-width error is 3-14 % on the micro-batch of long sequences and
// 250-300 % on the one of short sequences, which nearly all share the first
// bin; the paper's 22.1 % comes from a measurement it does not describe.
TEST(Bucketing, WikipediaTokenError) {
  const int64_t cluster = 64 * 6407;
  for (int64_t batch = 3; batch <= 6; ++batch) {
    std::vector<int64_t> lengths = wikipediaBatch(batch);
    ASSERT_EQ(lengths.size(), 512u);
    Result<int64_t> m = minMicroBatchCount(lengths, cluster);
    ASSERT_TRUE(m) << m.error;
    Result<BlastedBatch> blasted = blastSequences(lengths, *m);
    ASSERT_TRUE(blasted) << blasted.error;
    double dpMax = 0, naiveMax = 0;
    for (const std::vector<int64_t> &ids : blasted->microBatches) {
      Result<Bucketing> dp = bucketSequences(lengths, ids, 16);
      Result<Bucketing> naive = bucketFixedWidth(lengths, ids, 2048);
      ASSERT_TRUE(dp && naive);
      EXPECT_EQ(dp->buckets.size(), 16u);
      EXPECT_LT(bucketTokenError(*dp), bucketTokenError(*naive));
      dpMax = std::max(dpMax, bucketTokenError(*dp));
      naiveMax = std::max(naiveMax, bucketTokenError(*naive));
      // The growth rule keeps Q = 16 here: the padding is far below half
      // the cluster's spare capacity.
      Result<Bucketing> grown = bucketMicroBatch(lengths, ids, 16, cluster);
      ASSERT_TRUE(grown) << grown.error;
      EXPECT_EQ(grown->buckets.size(), 16u);
    }
    EXPECT_LE(dpMax, 0.023) << "batch " << batch;
    EXPECT_GT(naiveMax, 1.0) << "batch " << batch;
  }
}
