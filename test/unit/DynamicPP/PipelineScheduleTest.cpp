//===- PipelineScheduleTest.cpp - DPP's 1F1B pipelines of chunks ----------===//
//
// Units longest first; 1F1B orders with split sequences forward in order and
// backward in reverse; the window of Eq. 7 read off the orders; the list
// scheduler against the closed form (m + p - 1)(f + b) of equal chunks; and
// the grouping DP of Eq. 14 on hand-made costs (reference flexsp_dpp.md
// section 4 items 12 and 14).
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/PipelineSchedule.h"

#include "passes/Checkpoint/ActivationMemory.h"
#include "passes/Checkpoint/ChunkCheckpointing.h"

#include "passes/StepModel/OneFOneB.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace plexus;
using namespace plexus::dpp;

namespace {

using Ops = std::vector<int64_t>;
using Times = std::vector<std::vector<double>>;
constexpr double kInf = std::numeric_limits<double>::infinity();

Chunk slice(int64_t seq, int64_t begin, int64_t end, bool tail) {
  Chunk c;
  c.kind = ChunkKind::Split;
  c.tail = tail;
  c.pieces.push_back({seq, begin, end});
  return c;
}

Chunk packed(std::vector<SequencePiece> pieces) {
  Chunk c;
  c.pieces = std::move(pieces);
  return c;
}

/// Units of the given sizes, chunk ids in order.
PipelineOrder orderOfSizes(const std::vector<int64_t> &sizes) {
  std::vector<ChunkUnit> units;
  int64_t next = 0;
  for (int64_t s : sizes) {
    ChunkUnit u;
    for (int64_t i = 0; i < s; ++i)
      u.chunks.push_back(next++);
    units.push_back(u);
  }
  return pipelineOrder(units);
}

std::vector<Ops> schedule(int64_t stages, const PipelineOrder &order) {
  Result<std::vector<Ops>> r = oneFOneBSchedule(stages, order);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : std::vector<Ops>{};
}

Times constant(int64_t stages, size_t n, double v) {
  return Times(static_cast<size_t>(stages), std::vector<double>(n, v));
}

} // namespace

TEST(ChunkUnits, SplitSequencesFirstThenPackedByTokens) {
  std::vector<Chunk> chunks = {
      packed({{5, 0, 300}}),     slice(0, 0, 500, false),
      slice(0, 500, 800, false), packed({{6, 0, 100}, {7, 0, 50}}),
      slice(1, 0, 500, false),   slice(1, 500, 700, true),
      slice(0, 800, 1000, true),
  };
  chunks[5].kind = ChunkKind::Hybrid;
  chunks[5].pieces.push_back({8, 0, 50});
  Result<std::vector<ChunkUnit>> units = chunkUnits(chunks);
  ASSERT_TRUE(units) << units.error;
  ASSERT_EQ(units->size(), 4u);
  EXPECT_EQ((*units)[0].chunks, (std::vector<int64_t>{1, 2, 6}));
  EXPECT_EQ((*units)[0].tokens, 1000);
  EXPECT_EQ((*units)[1].chunks, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ((*units)[1].tokens, 750);
  EXPECT_EQ((*units)[2].chunks, (std::vector<int64_t>{0}));
  EXPECT_EQ((*units)[3].chunks, (std::vector<int64_t>{3}));

  const PipelineOrder order = pipelineOrder(*units);
  EXPECT_EQ(order.chunks, (std::vector<int64_t>{1, 2, 6, 4, 5, 0, 3}));
  // Each split sequence's slices backward in reverse.
  EXPECT_EQ(order.backward, (std::vector<int64_t>{2, 1, 0, 4, 3, 5, 6}));
  EXPECT_EQ(order.nSplit, 3);

  chunks.erase(chunks.begin() + 2); // sequence 0 loses [500, 800)
  EXPECT_FALSE(chunkUnits(chunks));
}

TEST(OneFOneB, PlainOrderWithoutSplitSequences) {
  const PipelineOrder order = orderOfSizes({1, 1, 1, 1, 1, 1});
  EXPECT_EQ(order.nSplit, 1);
  const std::vector<Ops> s = schedule(4, order);
  EXPECT_EQ(s[0], (Ops{0, 1, 2, 3, -1, 4, -2, 5, -3, -4, -5, -6}));
  EXPECT_EQ(s[2], (Ops{0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, -6}));
  EXPECT_EQ(s[3], (Ops{0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6}));
  // Fewer chunks than the warm-up: all forwards, then all backwards.
  EXPECT_EQ(schedule(4, orderOfSizes({1, 1}))[0], (Ops{0, 1, -1, -2}));
}

TEST(OneFOneB, SplitSequencesForwardInOrderBackwardInReverse) {
  const PipelineOrder order = orderOfSizes({3, 1, 2});
  EXPECT_EQ(order.backward, (std::vector<int64_t>{2, 1, 0, 3, 5, 4}));
  const std::vector<Ops> s = schedule(3, order);
  for (const Ops &ops : s) {
    std::vector<int64_t> forwards, backwards;
    for (int64_t op : ops)
      (op >= 0 ? forwards : backwards).push_back(op >= 0 ? op : -op - 1);
    EXPECT_EQ(forwards, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(backwards, order.backward);
  }
  // The last stage holds the whole 3-slice sequence before its first
  // backward, the last slice's.
  EXPECT_EQ(s[2], (Ops{0, 1, 2, -3, 3, -2, 4, -1, 5, -4, -6, -5}));
}

TEST(OneFOneB, WindowIsEq7) {
  const PipelineOrder order = orderOfSizes({3, 2, 1, 1, 1, 1, 1, 1, 1, 1});
  const int64_t stages = 4;
  const std::vector<Ops> s = schedule(stages, order);
  for (int64_t p = 0; p < stages; ++p) {
    size_t most = 0;
    for (const std::vector<int64_t> &w :
         ckpt::inFlightWindows(s[static_cast<size_t>(p)]))
      most = std::max(most, w.size());
    // d_p - p + N_split with 1-based p.
    EXPECT_EQ(static_cast<int64_t>(most), stages - (p + 1) + 3);
    EXPECT_EQ(static_cast<int64_t>(most), plexus::step::chunkWindow(stages, p, 3));
  }
}

TEST(OneFOneB, RejectsAUnitLongerThanNSplit) {
  PipelineOrder order = orderOfSizes({3, 1});
  order.nSplit = 2;
  EXPECT_FALSE(oneFOneBStageOrder(2, 1, order));
  EXPECT_FALSE(oneFOneBStageOrder(2, 2, orderOfSizes({1})));
}

TEST(EvaluatePipeline, ClosedFormForEqualChunks) {
  // m equal chunks on p stages: (m + p - 1)(f + b), bubble (p-1)/(m+p-1).
  for (int64_t p : {1, 2, 3, 4, 8})
    for (int64_t m : {1, 2, 5, 8, 16})
      for (auto [f, b] :
           {std::pair{1.0, 1.0}, std::pair{1.0, 2.0}, std::pair{0.5, 1.5}}) {
        const PipelineOrder order =
            orderOfSizes(std::vector<int64_t>(static_cast<size_t>(m), 1));
        Result<PipelineTiming> t = evaluatePipeline(
            schedule(p, order), constant(p, static_cast<size_t>(m), f),
            constant(p, static_cast<size_t>(m), b));
        ASSERT_TRUE(t) << t.error;
        const double mp = static_cast<double>(m + p - 1);
        EXPECT_NEAR(t->makespanMs, mp * (f + b), 1e-9)
            << "p=" << p << " m=" << m << " f=" << f << " b=" << b;
        EXPECT_NEAR(t->bubbleRatio, static_cast<double>(p - 1) / mp, 1e-12);
        for (double busy : t->busyMs)
          EXPECT_NEAR(busy, static_cast<double>(m) * (f + b), 1e-9);
      }
}

TEST(EvaluatePipeline, StartTimesByHand) {
  // Two stages, two chunks, f = 1, b = 2; stage 0 runs F0 F1 B0 B1,
  // stage 1 F0 B0 F1 B1.
  const std::vector<Ops> s = schedule(2, orderOfSizes({1, 1}));
  Result<PipelineTiming> t =
      evaluatePipeline(s, constant(2, 2, 1.0), constant(2, 2, 2.0));
  ASSERT_TRUE(t) << t.error;
  EXPECT_EQ(t->forwardStartMs[0], (std::vector<double>{0, 1}));
  EXPECT_EQ(t->forwardStartMs[1], (std::vector<double>{1, 4}));
  EXPECT_EQ(t->backwardStartMs[1], (std::vector<double>{2, 5}));
  EXPECT_EQ(t->backwardStartMs[0], (std::vector<double>{4, 7}));
  EXPECT_DOUBLE_EQ(t->makespanMs, 9.0);
}

TEST(EvaluatePipeline, UnequalChunksAndRecompute) {
  // A longer backward on stage 0 (a recompute) delays only what follows.
  const std::vector<Ops> s = schedule(2, orderOfSizes({1, 1}));
  Times backward = constant(2, 2, 2.0);
  backward[0][0] = 4.0; // [4, 8] instead of [4, 6]
  Result<PipelineTiming> t = evaluatePipeline(s, constant(2, 2, 1.0), backward);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->makespanMs, 10.0);
  EXPECT_DOUBLE_EQ(t->busyMs[0], 8.0);
  EXPECT_DOUBLE_EQ(t->busyMs[1], 6.0);
}

TEST(EvaluatePipeline, Errors) {
  // Stage 1 runs F0, F1, B1, B0 while stage 0 needs B0 before F1.
  const std::vector<Ops> deadlock = {{0, -1, 1, -2}, {0, 1, -2, -1}};
  Result<PipelineTiming> t =
      evaluatePipeline(deadlock, constant(2, 2, 1.0), constant(2, 2, 1.0));
  ASSERT_FALSE(t);
  EXPECT_NE(t.error.find("wait on each other"), std::string::npos);
  EXPECT_FALSE(
      evaluatePipeline({{0, -1}}, constant(1, 2, 1), constant(1, 1, 1)));
  EXPECT_FALSE(
      evaluatePipeline({{0, -1}}, constant(1, 1, -1), constant(1, 1, 1)));
  EXPECT_FALSE(evaluatePipeline({}, {}, {}));
}

TEST(GroupingDp, HandCases) {
  // Every range costs the same: one pipeline.
  Result<Grouping> g =
      groupChunkCountClasses(3, [](size_t, size_t) { return 10.0; });
  ASSERT_TRUE(g) << g.error;
  EXPECT_EQ(g->ranges, (std::vector<std::pair<size_t, size_t>>{{0, 3}}));
  EXPECT_DOUBLE_EQ(g->costMs, 10.0);

  // Wide pipelines checkpoint a lot: three narrow ones win.
  auto narrow = [](size_t j, size_t i) { return i - j == 1 ? 10.0 : 100.0; };
  g = groupChunkCountClasses(3, narrow);
  EXPECT_EQ(g->ranges,
            (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_DOUBLE_EQ(g->costMs, 30.0);

  // A pipeline that cannot run forces a split.
  auto split = [](size_t j, size_t i) {
    return j == 0 && i == 3 ? kInf : 5.0 + static_cast<double>(i - j);
  };
  g = groupChunkCountClasses(3, split);
  EXPECT_EQ(g->ranges,
            (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 3}}));
  EXPECT_DOUBLE_EQ(g->costMs, 6.0 + 7.0);

  EXPECT_FALSE(groupChunkCountClasses(2, [](size_t, size_t) { return kInf; }));
  EXPECT_FALSE(groupChunkCountClasses(0, [](size_t, size_t) { return 1.0; }));
}

TEST(GroupingDp, TradesDeltaAgainstCheckpointing) {
  // delta per pipeline; checkpointing grows with how many classes share a
  // pipeline with the longest class (section 4 item 14).
  auto costWith = [](double delta) {
    return [delta](size_t j, size_t i) {
      const double width = static_cast<double>(i - j);
      return delta + 3.0 * width * width;
    };
  };
  Result<Grouping> cheap = groupChunkCountClasses(4, costWith(1.0));
  Result<Grouping> dear = groupChunkCountClasses(4, costWith(100.0));
  ASSERT_TRUE(cheap && dear);
  EXPECT_EQ(cheap->ranges.size(), 4u);
  EXPECT_EQ(dear->ranges.size(), 1u);
  Result<Grouping> middle = groupChunkCountClasses(4, costWith(10.0));
  EXPECT_EQ(middle->ranges.size(), 2u); // 2 * (10 + 12) < 4 * 13, 10 + 48
}

TEST(GroupingDp, LowerBoundsChangeNothing) {
  // Random costs, with and without (valid) lower bounds.
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 40) / static_cast<double>(1 << 24);
  };
  for (int trial = 0; trial < 50; ++trial) {
    const size_t classes = 1 + static_cast<size_t>(trial % 7);
    std::map<std::pair<size_t, size_t>, double> cost;
    for (size_t j = 0; j < classes; ++j)
      for (size_t i = j + 1; i <= classes; ++i)
        cost[{j, i}] = next() < 0.15 ? kInf : std::floor(next() * 8);
    size_t calls = 0;
    auto costFn = [&](size_t j, size_t i) {
      ++calls;
      return cost[{j, i}];
    };
    auto bound = [&](size_t j, size_t i) {
      const double c = cost[{j, i}];
      return c == kInf ? 1e9 : c * next();
    };
    Result<Grouping> plain = groupChunkCountClasses(classes, costFn);
    const size_t plainCalls = calls;
    calls = 0;
    Result<Grouping> pruned = groupChunkCountClasses(classes, costFn, bound);
    ASSERT_EQ(static_cast<bool>(plain), static_cast<bool>(pruned));
    if (!plain)
      continue;
    EXPECT_EQ(plain->ranges, pruned->ranges) << "trial " << trial;
    EXPECT_EQ(plain->costMs, pruned->costMs);
    EXPECT_LE(calls, plainCalls);
  }
}

TEST(GroupingDp, BoundsThatTightenAsPipelinesAreCosted) {
  // Costs that grow with the range (a wider pipeline never costs less), and
  // a bound that only knows the costed ranges inside the candidate: read
  // when the candidate's turn comes, after the narrower ones were costed,
  // it tightens as the DP goes. The grouping is the plain DP's, with fewer
  // costings.
  uint64_t state = 777;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 40) / static_cast<double>(1 << 24);
  };
  for (int trial = 0; trial < 30; ++trial) {
    const size_t classes = 2 + static_cast<size_t>(trial % 9);
    std::vector<double> weight(classes);
    for (double &w : weight)
      w = 1 + std::floor(next() * 5);
    const double delta = 2 + std::floor(next() * 6);
    // delta plus the square of the range's weight: wider is dearer.
    auto exact = [&](size_t j, size_t i) {
      double w = 0;
      for (size_t c = j; c < i; ++c)
        w += weight[c];
      return delta + w * w / 4;
    };
    std::map<std::pair<size_t, size_t>, double> costed;
    auto costFn = [&](size_t j, size_t i) {
      const double c = exact(j, i);
      costed[{j, i}] = c;
      return c;
    };
    auto bound = [&](size_t j, size_t i) {
      double b = delta;
      for (const auto &[range, c] : costed)
        if (range.first >= j && range.second <= i)
          b = std::max(b, c);
      return b;
    };
    Result<Grouping> plain = groupChunkCountClasses(classes, costFn);
    const size_t plainCalls = costed.size();
    costed.clear();
    size_t calls = 0;
    Result<Grouping> pruned = groupChunkCountClasses(
        classes,
        [&](size_t j, size_t i) {
          ++calls;
          return costFn(j, i);
        },
        bound);
    ASSERT_TRUE(plain && pruned);
    EXPECT_EQ(plain->ranges, pruned->ranges) << "trial " << trial;
    EXPECT_EQ(plain->costMs, pruned->costMs);
    EXPECT_LE(calls, plainCalls);
    if (classes >= 6) {
      EXPECT_LT(calls, plainCalls) << "trial " << trial;
    }
  }
}
