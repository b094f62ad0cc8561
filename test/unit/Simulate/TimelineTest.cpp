//===- TimelineTest.cpp - Binning a simulated step for the report's chart -===//
#include "passes/Simulate/Timeline.h"

#include <gtest/gtest.h>

using namespace plexus::sim;

namespace {

Span span(const char *category, double start, double end, bool compute,
          bool async = false) {
  Span s;
  s.name = category;
  s.category = category;
  s.start = start;
  s.end = end;
  s.isCompute = compute;
  s.async = async;
  return s;
}

/// Two ranks doing the same (fwd 0-4 s, all-to-all 4-6 s, bwd 6-10 s on a
/// 10 s step), one that idles its last 5 s.
SimResult threeRanks() {
  SimResult r;
  r.stepSeconds = 10;
  r.ranks.resize(3);
  for (int k = 0; k < 2; ++k)
    r.ranks[k].spans = {span("fwd", 0, 4, true),
                        span("all_to_all", 4, 6, false),
                        span("bwd", 6, 10, true)};
  r.ranks[2].spans = {span("fwd", 0, 5, true),
                      span("all_gather", 1, 3, false, /*async=*/true)};
  return r;
}

} // namespace

TEST(Timeline, ColumnsTakeTheKindThatFillsMostAndEqualRanksGroup) {
  // Ten columns of 1 s: hand-checkable.
  Timeline t = binTimeline(threeRanks(), 10);
  EXPECT_EQ(t.columns, 10);
  EXPECT_DOUBLE_EQ(t.stepSeconds, 10);
  ASSERT_EQ(t.groups.size(), 2u);
  EXPECT_EQ(t.groups[0].ranks, (std::vector<int64_t>{0, 1}));
  ASSERT_EQ(t.groups[0].ops.size(), 3u);
  EXPECT_EQ(t.groups[0].ops[0].kind, "fwd");
  EXPECT_EQ(t.groups[0].ops[0].start, 0);
  EXPECT_EQ(t.groups[0].ops[0].length, 4);
  EXPECT_EQ(t.groups[0].ops[1].kind, "comm");
  EXPECT_EQ(t.groups[0].ops[1].length, 2);
  EXPECT_EQ(t.groups[0].ops[2].kind, "bwd");
  EXPECT_EQ(t.groups[0].ops[2].length, 4);
  EXPECT_TRUE(t.groups[0].stream.empty()); // no asynchronous work
  // Rank 2: fwd for 5 columns, then idle; its stream busy in columns 1-2.
  EXPECT_EQ(t.groups[1].ranks, (std::vector<int64_t>{2}));
  ASSERT_EQ(t.groups[1].ops.size(), 2u);
  EXPECT_EQ(t.groups[1].ops[1].kind, "idle");
  EXPECT_EQ(t.groups[1].ops[1].start, 5);
  EXPECT_EQ(t.groups[1].ops[1].length, 5);
  ASSERT_EQ(t.groups[1].stream.size(), 3u);
  EXPECT_EQ(t.groups[1].stream[1].kind, "comm");
  EXPECT_EQ(t.groups[1].stream[1].start, 1);
  EXPECT_EQ(t.groups[1].stream[1].length, 2);
}

TEST(Timeline, AColumnLessThanHalfBusyIsIdle) {
  SimResult r;
  r.stepSeconds = 4;
  r.ranks.resize(1);
  // Column 0 (0-1 s) busy 0.4 s, column 1 busy 0.6 s.
  r.ranks[0].spans = {span("fwd", 0.6, 1.6, true)};
  Timeline t = binTimeline(r, 4);
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].ops[0].kind, "idle");
  EXPECT_EQ(t.groups[0].ops[0].length, 1);
  EXPECT_EQ(t.groups[0].ops[1].kind, "fwd");
  EXPECT_EQ(t.groups[0].ops[1].length, 1);
}

TEST(Timeline, GroupsBeyondTheCapAreCounted) {
  SimResult r;
  r.stepSeconds = 8;
  r.ranks.resize(8);
  for (int k = 0; k < 8; ++k) // each rank busy in a different column
    r.ranks[k].spans = {span("fwd", k, k + 1, true)};
  Timeline t = binTimeline(r, 8, /*maxGroups=*/3);
  EXPECT_EQ(t.groups.size(), 3u);
  EXPECT_EQ(t.groupsNotShown, 5);
}

TEST(Timeline, RankRanges) {
  EXPECT_EQ(rankRanges({0, 1, 2, 3, 8, 10, 11}), "0-3, 8, 10-11");
  EXPECT_EQ(rankRanges({5}), "5");
  EXPECT_EQ(rankRanges({}), "");
}
