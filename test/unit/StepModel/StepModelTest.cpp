//===- StepModelTest.cpp - Plan data, layer ranges and the 1F1B generator -===//
//
// Hand-checked cases of passes/StepModel: rank positions inside a group,
// the layers of each pipeline stage, and the one 1F1B order generator that
// static pipelines (plain 1F1B over micro-batches) and DPP's pipelines of
// chunks (N_split > 1, backward orders of split sequences) share.
//
//===----------------------------------------------------------------------===//
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"
#include "passes/StepModel/StepPlan.h"

#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

using namespace plexus::step;

namespace {

TEST(StepModel, RankPositionsRoundTrip) {
  GroupLayout l{/*ulysses=*/2, /*tp=*/2, /*cp=*/3, /*pp=*/2};
  ASSERT_EQ(l.degree(), 24);
  for (int64_t r = 0; r < l.degree(); ++r)
    EXPECT_EQ(localRankOf(l, positionOf(l, r)), r);
  // Tensor innermost, then context, then Ulysses, then stage.
  RankPosition p = positionOf(l, 1 + 2 * 2 + 6 * 1 + 12 * 1);
  EXPECT_EQ(p.t, 1);
  EXPECT_EQ(p.u, 1);
  EXPECT_EQ(p.c, 2);
  EXPECT_EQ(p.stage, 1);
}

using Range = std::pair<int64_t, int64_t>;

TEST(StepModel, StageLayersGiveTheRemainderToTheFirstStages) {
  EXPECT_EQ(stageLayers(10, 4, 0), (Range{0, 3}));
  EXPECT_EQ(stageLayers(10, 4, 1), (Range{3, 6}));
  EXPECT_EQ(stageLayers(10, 4, 2), (Range{6, 8}));
  EXPECT_EQ(stageLayers(10, 4, 3), (Range{8, 10}));
}

// The resident parts add up to residentBytes. A 2-layer model of h = 16,
// 4 heads of 4, 2 KV heads, GeLU ffn 64, vocab 32: 2 x 2848 + 2 x 512 + 16 = 6736
// parameters on one stage; ZeRO over 4 ranks shards weights (2 bytes each)
// at stage 3, gradients (2) from stage 2, the optimizer's 12 from stage 1.
TEST(StepModel, ResidentPartsAddUpByZeroStage) {
  TrainModel m;
  m.shape.layers = 2;
  m.shape.hidden = 16;
  m.shape.heads = 4;
  m.shape.kvHeads = 2;
  m.shape.ffn = 64;
  m.shape.vocab = 32;
  m.shape.mlp = plexus::cost::MlpKind::GeLU;
  ASSERT_EQ(plexus::cost::layerParameters(m.shape, 0), 2848);
  const int64_t p =
      2 * plexus::cost::layerParameters(m.shape, 0) + 2 * 512 + 16;
  for (int64_t zero : {0, 1, 2, 3}) {
    m.zero = zero;
    ResidentParts parts = residentParts(m, {1, 1, 1, 1}, 0, 4);
    EXPECT_EQ(parts.total(), residentBytes(m, {1, 1, 1, 1}, 0, 4)) << zero;
    EXPECT_EQ(parts.weights, zero == 3 ? (2 * p + 3) / 4 : 2 * p) << zero;
    EXPECT_EQ(parts.gradients, zero >= 2 ? (2 * p + 3) / 4 : 2 * p) << zero;
    EXPECT_EQ(parts.optimizer, zero >= 1 ? (12 * p + 3) / 4 : 12 * p) << zero;
    // ZeRO-3 gathers two layers ahead: 2 x 2848 x 2 bytes.
    EXPECT_EQ(parts.gathered,
              zero == 3 ? 2 * plexus::cost::layerParameters(m.shape, 0) * 2 : 0)
        << zero;
  }
  // Once per step, the whole stage's weights and gradients stay gathered.
  m.zeroOncePerStep = true;
  EXPECT_EQ(residentParts(m, {1, 1, 1, 1}, 0, 4).gathered, 2 * p * 2);
}

TEST(StepModel, OneFOneBOrderOfEachStage) {
  // 4 stages, 6 micro-batches: stage 0 warms up with 3 forwards.
  EXPECT_EQ(oneFOneBOrder(4, 0, 6),
            (std::vector<int64_t>{0, 1, 2, 3, -1, 4, -2, 5, -3, -4, -5, -6}));
  // The last stage alternates from the start.
  EXPECT_EQ(oneFOneBOrder(4, 3, 3),
            (std::vector<int64_t>{0, -1, 1, -2, 2, -3}));
  // Fewer micro-batches than warm-up slots.
  EXPECT_EQ(oneFOneBOrder(4, 0, 2), (std::vector<int64_t>{0, 1, -1, -2}));
}

// Plain 1F1B is the chunk order with the identity backward and N_split 1,
// for every shape (the two lowerings and DPP's planner used to carry one
// generator each; this is what made them one).
TEST(StepModel, PlainOneFOneBIsTheChunkOrderWithNSplitOne) {
  for (int64_t stages = 1; stages <= 6; ++stages)
    for (int64_t stage = 0; stage < stages; ++stage)
      for (int64_t m = 1; m <= 9; ++m) {
        std::vector<int64_t> backward(static_cast<size_t>(m));
        std::iota(backward.begin(), backward.end(), int64_t(0));
        std::vector<int64_t> ops;
        ASSERT_EQ(oneFOneBStageOrder(stages, stage, backward, 1, ops), "");
        EXPECT_EQ(oneFOneBOrder(stages, stage, m), ops)
            << stages << " stages, stage " << stage << ", m " << m;
        // Warm-up: min(m, p - s - 1) forwards, as chunkWindow - 1 says.
        int64_t leading = 0;
        while (leading < m && ops[static_cast<size_t>(leading)] >= 0)
          ++leading;
        EXPECT_EQ(leading, std::min(m, chunkWindow(stages, stage, 1)));
      }
  EXPECT_TRUE(oneFOneBOrder(4, 0, 0).empty());
}

// A split sequence (positions 0 and 1, backward 1 then 0) and a whole one
// (position 2) on the first of two stages with N_split 2: the window is
// p - s - 1 + N_split = 3, so two forwards warm up; then F2 with the split
// sequence's tail backward (position 1), then its head, then position 2.
TEST(StepModel, ChunkOrderRunsASplitSequenceBackwardInReverse) {
  std::vector<int64_t> ops;
  ASSERT_EQ(oneFOneBStageOrder(2, 0, {1, 0, 2}, 2, ops), "");
  EXPECT_EQ(ops, (std::vector<int64_t>{0, 1, 2, -2, -1, -3}));
  // The last stage with the same order: window 2, one forward warms up.
  ASSERT_EQ(oneFOneBStageOrder(2, 1, {1, 0, 2}, 2, ops), "");
  EXPECT_EQ(ops, (std::vector<int64_t>{0, 1, -2, 2, -1, -3}));
}

TEST(StepModel, ChunkOrderSaysWhyItCannotRun) {
  std::vector<int64_t> ops;
  // N_split 1 is too small for a backward that starts with position 1 on
  // the last stage (window 1: no warm-up).
  EXPECT_EQ(oneFOneBStageOrder(2, 1, {1, 0}, 1, ops),
            "stage 1 would run the backward of position 1 before its forward");
  EXPECT_TRUE(ops.empty());
  EXPECT_EQ(oneFOneBStageOrder(2, 2, {0}, 1, ops), "stage 2 is not one of 2");
  EXPECT_NE(oneFOneBStageOrder(2, 0, {}, 1, ops), "");
  EXPECT_NE(oneFOneBStageOrder(2, 0, {0}, 0, ops), "");
  EXPECT_NE(oneFOneBStageOrder(2, 0, {0, 5}, 2, ops), "");
}

} // namespace
