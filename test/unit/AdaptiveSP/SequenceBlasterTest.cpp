//===- SequenceBlasterTest.cpp - FlexSP's micro-batch chunking ------------===//
//
// Hand-checked cuts, a brute-force cross-check of the min-max DP, M_min, and
// reference flexsp_dpp.md section 4 item 6 on a Wikipedia batch.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/SequenceBlaster.h"

#include "WikipediaBatches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

using namespace plexus::adaptivesp;

namespace {

using Ids = std::vector<int64_t>;
using Ends = std::vector<size_t>;

/// Min-max over every way to cut `t` into `parts` non-empty runs.
int64_t bruteForceMinMax(const std::vector<int64_t> &t, int64_t parts) {
  const size_t n = t.size();
  int64_t best = std::numeric_limits<int64_t>::max();
  // Cut positions as a bit mask over the n - 1 gaps.
  for (uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    if (__builtin_popcount(mask) != parts - 1)
      continue;
    int64_t run = 0, worst = 0;
    for (size_t i = 0; i < n; ++i) {
      run += t[i];
      if (i + 1 == n || (mask >> i & 1u)) {
        worst = std::max(worst, run);
        run = 0;
      }
    }
    best = std::min(best, worst);
  }
  return best;
}

/// A fixed pseudo-random sequence (LCG), so the test is reproducible.
std::vector<int64_t> pseudoRandom(uint64_t seed, size_t n, int64_t hi) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back(1 + static_cast<int64_t>((seed >> 33) % hi));
  }
  return out;
}

} // namespace

TEST(SequenceBlaster, SortIsDescendingAndStable) {
  EXPECT_EQ(sortByDescendingLength({5, 9, 5, 1, 9}), (Ids{1, 4, 0, 2, 3}));
  EXPECT_TRUE(sortByDescendingLength({}).empty());
}

TEST(SequenceBlaster, HandCheckedMinMaxCut) {
  // {9, 7, 5, 4, 3, 2} in 3 runs: 9 | 7 5 | 4 3 2 gives max(9, 12, 9) = 12;
  // 11 is impossible (7 + 5 > 11 forces 7 alone, leaving 5+4+3+2 = 14).
  Result<ContiguousPartition> p = partitionMinMax({9, 7, 5, 4, 3, 2}, 3);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(p->maxTokens, 12);
  EXPECT_EQ(p->ends, (Ends{1, 3, 6}));
}

TEST(SequenceBlaster, TiesGiveLaterRunsTheMostSequences) {
  // {100, 30 x 5} in 3 runs: the optimum is 100 (the first run), and the
  // last run takes three 30s (90 <= 100; four would be 120).
  Result<ContiguousPartition> p = partitionMinMax({100, 30, 30, 30, 30, 30}, 3);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(p->maxTokens, 100);
  EXPECT_EQ(p->ends, (Ends{1, 3, 6}));
  // One run per item when parts == n.
  p = partitionMinMax({4, 4, 4}, 3);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(p->ends, (Ends{1, 2, 3}));
  EXPECT_EQ(p->maxTokens, 4);
}

TEST(SequenceBlaster, DpMatchesBruteForce) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::vector<int64_t> t = pseudoRandom(seed, 3 + seed % 9, 50);
    std::sort(t.rbegin(), t.rend());
    for (int64_t parts = 1; parts <= static_cast<int64_t>(t.size()); ++parts) {
      Result<ContiguousPartition> p = partitionMinMax(t, parts);
      ASSERT_TRUE(p) << p.error;
      EXPECT_EQ(p->maxTokens, bruteForceMinMax(t, parts))
          << "seed " << seed << " parts " << parts;
      // The returned cut attains the optimum with non-empty runs.
      ASSERT_EQ(p->ends.size(), static_cast<size_t>(parts));
      size_t begin = 0;
      for (size_t end : p->ends) {
        ASSERT_GT(end, begin);
        int64_t sum = 0;
        for (size_t i = begin; i < end; ++i)
          sum += t[i];
        EXPECT_LE(sum, p->maxTokens);
        begin = end;
      }
      EXPECT_EQ(begin, t.size());
    }
  }
}

TEST(SequenceBlaster, PartitionErrors) {
  EXPECT_EQ(partitionMinMax({1, 2}, 0).error,
            "cannot cut 2 sequences into 0 non-empty micro-batches");
  EXPECT_EQ(partitionMinMax({1, 2}, 3).error,
            "cannot cut 2 sequences into 3 non-empty micro-batches");
  EXPECT_FALSE(partitionMinMax({1, -2}, 1));
}

TEST(SequenceBlaster, BlastSortsAndCuts) {
  // Ids by length: 1 (9), 4 (7), 0 (5), 3 (4), 2 (3), 5 (2); cut as in
  // HandCheckedMinMaxCut.
  Result<BlastedBatch> b = blastSequences({5, 9, 3, 4, 7, 2}, 3);
  ASSERT_TRUE(b) << b.error;
  ASSERT_EQ(b->microBatches.size(), 3u);
  EXPECT_EQ(b->microBatches[0], (Ids{1}));
  EXPECT_EQ(b->microBatches[1], (Ids{4, 0}));
  EXPECT_EQ(b->microBatches[2], (Ids{3, 2, 5}));
  EXPECT_EQ(b->tokens, (std::vector<int64_t>{9, 12, 9}));
  EXPECT_EQ(b->maxTokens, 12);
  EXPECT_EQ(blastSequences({5, 0}, 1).error,
            "sequence 1 has 0 tokens; lengths must be positive");
}

TEST(SequenceBlaster, MinMicroBatchCount) {
  // {6, 5, 4, 3, 2}, capacity 10: ceil(20 / 10) = 2, but the best 2-way cut
  // is 6 5 | 4 3 2 = 11 > 10, so M_min = 3 (6 | 5 4 | 3 2).
  Result<int64_t> m = minMicroBatchCount({6, 5, 4, 3, 2}, 10);
  ASSERT_TRUE(m) << m.error;
  EXPECT_EQ(*m, 3);
  EXPECT_EQ(*minMicroBatchCount({5, 5}, 10), 1); // exactly full fits
  EXPECT_EQ(*minMicroBatchCount({}, 10), 0);
  EXPECT_EQ(minMicroBatchCount({4, 11}, 10).error,
            "sequence 1 (11 tokens) is longer than the cluster's 10-token "
            "capacity");
  EXPECT_FALSE(minMicroBatchCount({4}, 0));
}

TEST(SequenceBlaster, MinMicroBatchCountMatchesTheDefinition) {
  // The reference's definition: start at ceil(tokens / capacity) and raise
  // M until the min-max cut fits.
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::vector<int64_t> t = pseudoRandom(seed, 20, 90);
    const int64_t cap = 100 + static_cast<int64_t>(seed) * 7;
    int64_t total = 0;
    for (int64_t v : t)
      total += v;
    int64_t m = (total + cap - 1) / cap;
    while (blastSequences(t, m)->maxTokens > cap)
      ++m;
    EXPECT_EQ(*minMicroBatchCount(t, cap), m) << "seed " << seed;
  }
}

TEST(SequenceBlaster, Candidates) {
  EXPECT_EQ(microBatchCandidates(2, 5, 100), (Ids{2, 3, 4, 5, 6}));
  EXPECT_EQ(microBatchCandidates(3, 5, 4), (Ids{3, 4}));
  EXPECT_EQ(microBatchCandidates(0, 2, 4), (Ids{1}));
}

// Reference section 4 item 6 on Wikipedia global batch 3 (7B, E = 30 GB,
// 384K: 6,407 tokens per GPU, 410,048 on 64 GPUs).
TEST(SequenceBlaster, WikipediaBatch3) {
  std::vector<int64_t> lengths = wikipediaBatch(3);
  ASSERT_EQ(lengths.size(), 512u);
  int64_t total = 0;
  for (int64_t v : lengths)
    total += v;
  EXPECT_EQ(total, 475136); // the reference's "tokens" column
  Result<int64_t> m = minMicroBatchCount(lengths, 64 * 6407);
  ASSERT_TRUE(m) << m.error;
  EXPECT_EQ(*m, 2); // ceil(475,136 / 410,048)
  Result<BlastedBatch> b = blastSequences(lengths, *m);
  ASSERT_TRUE(b) << b.error;
  // The first micro-batch starts with the longest sequence (45,696) and
  // every length in it is at least every length in the second.
  EXPECT_EQ(lengths[b->microBatches[0].front()], 45696);
  EXPECT_GE(lengths[b->microBatches[0].back()],
            lengths[b->microBatches[1].front()]);
  EXPECT_LE(b->maxTokens, 64 * 6407);
  EXPECT_EQ(b->tokens[0] + b->tokens[1], total);
  // Min-max: moving the boundary sequence across does not lower the
  // maximum, so the runs differ by at most the longer of the two sequences
  // next to the boundary.
  EXPECT_EQ(b->maxTokens, std::max(b->tokens[0], b->tokens[1]));
  EXPECT_LE(std::abs(b->tokens[0] - b->tokens[1]),
            std::max(lengths[b->microBatches[0].back()],
                     lengths[b->microBatches[1].front()]));
}
