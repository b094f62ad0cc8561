//===- PlanPolishTest.cpp - Real-length local search on FlexSP plans ------===//
//
// Hand-checked moves of polishPlan (group changes and dropping a
// micro-batch) and the two deals of dealByWork.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/PlanPolish.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::adaptivesp;

namespace {

/// t1 = s / d (no all-to-all), beta1 = 1.
SequenceTimeTable linearTable(std::vector<int64_t> lengths,
                              std::vector<int64_t> degrees, int64_t gpus,
                              int64_t capacity) {
  cost::ProfiledModel m;
  m.name = "linear";
  m.alpha2 = 1;
  m.beta1 = 1;
  m.layers = 1;
  m.hidden = 1;
  cost::AllToAllBandwidthTable bw{{{2, 1e300}, {4, 1e300}}};
  Result<SequenceTimeTable> t =
      makeSequenceTimeTable(m, bw, lengths, degrees, gpus, capacity);
  EXPECT_TRUE(t) << t.error;
  return *t;
}

std::vector<std::vector<int64_t>> idsOf(const SearchMicroBatch &mb) {
  std::vector<std::vector<int64_t>> out;
  for (const SearchGroup &g : mb)
    out.push_back(g.ids);
  return out;
}

} // namespace

TEST(PlanPolish, SwapsOutOfTheSlowestGroup) {
  // N = 2, SP1 groups of 10 tokens; ids 0-2 are 6, 4, 2 tokens. Start:
  // {6, 4} (10 ms) and {2} (2 ms): 1 + 10 = 11 ms. From the slowest group
  // the changes that reach 7 ms are swapping 6 with 2, moving 4, and
  // merging both into one SP2 group (12 / 2 = 6); all free no GPU time,
  // so the first found, the swap, is made: {2, 4} and {6}, 1 + 6 = 7 ms,
  // the balanced optimum. Nothing then lowers it or frees GPU time.
  SequenceTimeTable t = linearTable({6, 4, 2}, {1, 2}, 2, 10);
  SearchPlan plan = {{{1, {0, 1}, 0, 0}, {1, {2}, 0, 0}}};
  refreshSearchPlan(t, plan);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, plan), 11);
  EXPECT_EQ(polishPlan(t, plan), 1);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, plan), 7);
  EXPECT_EQ(idsOf(plan[0]), (std::vector<std::vector<int64_t>>{{2, 1}, {0}}));
}

TEST(PlanPolish, AMicroBatchFloorMakesLightMicroBatchesFree) {
  // The table of the first test with a 9 ms floor per micro-batch: {6} and
  // {4, 2} as two micro-batches of one SP1 group each cost max(1 + 6, 9) +
  // max(1 + 6, 9) = 18 ms, where without the floor they cost 7 + 7 = 14:
  // the search sees that a light micro-batch's work is free up to the
  // floor.
  SequenceTimeTable t = linearTable({6, 4, 2}, {1, 2}, 2, 10);
  t.microBatchFloorMs = 9;
  SearchPlan plan = {{{1, {0}, 0, 0}}, {{1, {1, 2}, 0, 0}}};
  refreshSearchPlan(t, plan);
  EXPECT_DOUBLE_EQ(searchMicroBatchMs(t, plan[0]), 9);
  EXPECT_DOUBLE_EQ(searchMicroBatchMs(t, plan[1]), 9);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, plan), 18);
  t.microBatchFloorMs = 0;
  EXPECT_DOUBLE_EQ(searchPlanMs(t, plan), 14);
}

TEST(PlanPolish, KeepsWhatItCannotImproveAndDropsMicroBatches) {
  // N = 2, 4 tokens per GPU; ids 0-3 are 4, 4, 4, 4 tokens. Start: one
  // SP2 group {0, 1} (8 / 2 = 4 ms) then one SP2 group {2, 3} (4 ms):
  // 2 x (1 + 4) = 10 ms. Splitting a group into two SP1 groups keeps its
  // time (4 / 1 each) and its GPU time: not made; neither micro-batch
  // can be dropped (the other's group is full). Nothing faster exists:
  // each micro-batch holds at most 8 tokens, so two are needed, each of at
  // least 1 + 8 / 2.
  SequenceTimeTable t = linearTable({4, 4, 4, 4}, {1, 2}, 2, 4);
  SearchPlan plan = {{{2, {0, 1}, 0, 0}}, {{2, {2, 3}, 0, 0}}};
  EXPECT_EQ(polishPlan(t, plan), 0);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, plan), 10);

  // Ids 0-2 are 4, 2, 2 tokens; start {0} on SP2 (2 ms) then {1, 2} on
  // SP2 (2 ms): 2 x 3 = 6 ms. Moving 1 into micro-batch 0 gives 4 + 2 = 6
  // and splitting {1, 2} into two SP1 groups keeps 3 ms, both without
  // freeing GPU time: no group change is made. Dropping a micro-batch
  // (both take 3 ms; the first): 4 joins {1, 2}, 8 tokens fit the SP2
  // group, 1 + 8 / 2 = 5 ms < 6. One micro-batch remains.
  SequenceTimeTable u = linearTable({4, 2, 2}, {1, 2}, 2, 4);
  SearchPlan p2 = {{{2, {0}, 0, 0}}, {{2, {1, 2}, 0, 0}}};
  EXPECT_EQ(polishPlan(u, p2), 1);
  EXPECT_DOUBLE_EQ(searchPlanMs(u, p2), 5);
  ASSERT_EQ(p2.size(), 1u);
  EXPECT_EQ(idsOf(p2[0]), (std::vector<std::vector<int64_t>>{{1, 2, 0}}));
}

TEST(PlanPolish, DealByWork) {
  // t1 = s / d, so the least GPU time of s is s. Lengths 5, 4, 3, 2, 1
  // into 2 micro-batches with equal targets (7.5): 5 -> 0, 4 -> 1,
  // 3 -> 1 (4 < 5), 2 -> 0 (5 < 7), 1 -> 0 (7 = 7, the earlier).
  SequenceTimeTable t = linearTable({5, 4, 3, 2, 1}, {1, 2}, 2, 100);
  Result<std::vector<std::vector<int64_t>>> even = dealByWork(t, 2, 100);
  ASSERT_TRUE(even) << even.error;
  EXPECT_EQ(*even.value,
            (std::vector<std::vector<int64_t>>{{0, 3, 4}, {1, 2}}));
  // Targets set by the longest: it runs 5 ms at SP1 (its least GPU time,
  // 5, ties SP2's and the first degree is kept), so micro-batch 0 gets
  // max(7.5, 2 x 5) = 10 and micro-batch 1 the other 5: 5 -> 0 (room 10),
  // 4 -> 0 (rooms 5 and 5: the earlier), 3 -> 1 (1 < 5), 2 -> 1 (1 < 2),
  // 1 -> 0 (1 > 0).
  Result<std::vector<std::vector<int64_t>>> filled =
      dealByWork(t, 2, 100, /*longestSetsTarget=*/true);
  ASSERT_TRUE(filled) << filled.error;
  EXPECT_EQ(*filled.value,
            (std::vector<std::vector<int64_t>>{{0, 1, 4}, {2, 3}}));
  // Memory: 6 tokens per micro-batch cannot hold 15 tokens in 2.
  EXPECT_FALSE(dealByWork(t, 2, 6));
  EXPECT_FALSE(dealByWork(t, 6, 100));
}

namespace {

/// Every sequence exactly once, memory and the GPU count kept per
/// micro-batch, no empty group, candidate degrees only.
void expectValid(const SequenceTimeTable &t, const SearchPlan &plan) {
  std::vector<int> seen(t.lengths.size(), 0);
  for (const SearchMicroBatch &mb : plan) {
    int64_t gpus = 0;
    for (const SearchGroup &g : mb) {
      EXPECT_FALSE(g.ids.empty());
      EXPECT_LT(t.indexOf(g.degree), t.degrees.size()) << g.degree;
      int64_t tokens = 0;
      for (int64_t id : g.ids) {
        ++seen[id];
        tokens += t.lengths[id];
      }
      EXPECT_LE(tokens, t.capacityPerGpu * g.degree);
      gpus += g.degree;
    }
    EXPECT_LE(gpus, t.gpus);
  }
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], 1) << "sequence " << i;
}

} // namespace

TEST(PlanPolish, IteratedPolishKeepsPlansValidAndNeverSlower) {
  // Lengths 9, 7, 6, 5, 4, 3, 2, 1 (37 tokens) on N = 4 (SP1, SP2 and SP4
  // groups, 10 tokens per GPU), t1 = s / d, beta1 = 1. Any plan needs
  // beta1 + 37 / 4 = 10.25 ms, and one SP4 group holding all 37 tokens
  // (of 40) takes exactly that. The start: {9} | {7, 1} and {6, 3} |
  // {5, 4} | {2}, two micro-batches of 1 + 9 ms.
  SequenceTimeTable t = linearTable({9, 7, 6, 5, 4, 3, 2, 1}, {1, 2, 4}, 4, 10);
  SearchPlan start = {{{1, {0}, 0, 0}, {1, {1, 7}, 0, 0}},
                      {{1, {2, 5}, 0, 0}, {1, {3, 4}, 0, 0}, {1, {6}, 0, 0}}};
  refreshSearchPlan(t, start);
  const double startMs = searchPlanMs(t, start);
  EXPECT_DOUBLE_EQ(startMs, 20);
  SearchPlan a = iteratedPolish(t, start, 200, 1);
  expectValid(t, a);
  // Plain polish stops at 16 ms here (no move makes a group on an idle
  // GPU, the step that lets the micro-batches merge).
  SearchPlan polished = start;
  polishPlan(t, polished);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, polished), 16);
  EXPECT_DOUBLE_EQ(searchPlanMs(t, a), 10.25);
  // The same seed gives the same plan; no rounds give the start back.
  SearchPlan b = iteratedPolish(t, start, 200, 1);
  ASSERT_EQ(a.size(), b.size());
  for (size_t m = 0; m < a.size(); ++m)
    EXPECT_EQ(idsOf(a[m]), idsOf(b[m]));
  EXPECT_DOUBLE_EQ(searchPlanMs(t, iteratedPolish(t, start, 0, 1)), startMs);
}
