//===- StepScheduleTest.cpp - Plans as one schedule; one layer cost -------===//
//
// Hand-checked cases of passes/StepModel/StepSchedule.h (a static step and
// a dynamic-pipeline step as phases of pipeline groups of chunks) and of
// chunkLayerCost, the per-layer cost the one lowering emits from.
//
//===----------------------------------------------------------------------===//
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/StepSchedule.h"

#include <gtest/gtest.h>

#include <vector>

using namespace plexus;
using namespace plexus::step;

namespace {

using Ids = std::vector<int64_t>;

/// 4 layers, h = 16, 4 heads of 4, 2 KV heads, GeLU ffn 64, bf16.
TrainModel smallModel(cost::Checkpointing ckpt) {
  TrainModel m;
  m.shape.layers = 4;
  m.shape.hidden = 16;
  m.shape.heads = 4;
  m.shape.kvHeads = 2;
  m.shape.ffn = 64;
  m.shape.vocab = 32;
  m.shape.mlp = cost::MlpKind::GeLU;
  m.chip.name = "test";
  m.chip.bf16Flops = 1e12;
  m.efficiency = 1.0;
  m.checkpointing = ckpt;
  return m;
}

PlannedGroup group(GroupLayout layout, int64_t first, Ids seqs) {
  PlannedGroup g;
  g.layout = layout;
  g.firstRank = first;
  g.seqs = std::move(seqs);
  return g;
}

StepPlan staticPlan(int64_t world, std::vector<std::vector<PlannedGroup>> mbs,
                    Ids lengths) {
  StepPlan plan;
  plan.world = world;
  plan.lengths = std::move(lengths);
  for (auto &groups : mbs) {
    PlannedMicroBatch mb;
    mb.groups = std::move(groups);
    plan.microBatches.push_back(std::move(mb));
  }
  return plan;
}

Ids sequencesOf(const ScheduledChunk &c) {
  Ids ids;
  for (const ChunkSlice &s : c.slices)
    ids.push_back(s.sequence);
  return ids;
}

// Without a pipeline a micro-batch is a phase, each group one chunk of
// whole sequences named after the micro-batch; an idle group keeps an
// empty chunk (its ranks still meet ZeRO's collectives).
TEST(StepSchedule, StaticMicroBatchesArePhasesOfDepthOneGroups) {
  const GroupLayout two{2, 1, 1, 1};
  StepPlan plan = staticPlan(
      4, {{group(two, 0, {0, 2}), group(two, 2, {1})}, {group({4, 1, 1, 1}, 0, {3})},
          {group(two, 0, {}), group(two, 2, {4})}},
      {10, 20, 30, 40, 50});
  StepSchedule s = scheduleOf(plan, smallModel(cost::Checkpointing::Selective));
  EXPECT_EQ(s.world, 4);
  EXPECT_EQ(s.lengths, plan.lengths);
  EXPECT_EQ(s.activations, cost::Checkpointing::Selective);
  EXPECT_EQ(s.core, CoreRecompute::BeforeBackward);
  EXPECT_FALSE(s.sliceIndices);
  ASSERT_EQ(s.phases.size(), 3u);
  ASSERT_EQ(s.phases[0].groups.size(), 2u);
  const ScheduledGroup &g = s.phases[0].groups[0];
  EXPECT_EQ(g.layout, two);
  EXPECT_EQ(g.firstRank, 0);
  ASSERT_EQ(g.chunks.size(), 1u);
  EXPECT_EQ(sequencesOf(g.chunks[0]), (Ids{0, 2}));
  // Whole sequences: [0, length).
  EXPECT_EQ(g.chunks[0].slices[1], (ChunkSlice{2, 0, 30}));
  EXPECT_EQ(g.chunks[0].name, "mb0");
  EXPECT_EQ(g.backward, (Ids{0}));
  EXPECT_EQ(g.nSplit, 1);
  EXPECT_TRUE(g.remat.empty());
  EXPECT_EQ(s.phases[1].groups[0].chunks[0].name, "mb1");
  EXPECT_EQ(s.phases[1].groups[0].chunks[0].id, 1);
  EXPECT_TRUE(s.phases[2].groups[0].chunks[0].slices.empty());
  EXPECT_EQ(s.phases[2].groups[1].chunks[0].id, 2);
}

// With pp > 1 the micro-batches become one phase: each group (micro-batch
// 0's) a 1F1B pipeline of the micro-batches in which it has work, keeping
// their numbers (they name the messages' tags).
TEST(StepSchedule, StaticPipelinesRunTheirMicroBatchesAsChunks) {
  const GroupLayout pp2{1, 1, 1, 2};
  StepPlan plan = staticPlan(4,
                             {{group(pp2, 0, {0}), group(pp2, 2, {1})},
                              {group(pp2, 0, {}), group(pp2, 2, {2})},
                              {group(pp2, 0, {3}), group(pp2, 2, {4})}},
                             {8, 8, 8, 8, 8});
  StepSchedule s = scheduleOf(plan, smallModel(cost::Checkpointing::None));
  EXPECT_EQ(s.activations, cost::Checkpointing::None);
  ASSERT_EQ(s.phases.size(), 1u);
  ASSERT_EQ(s.phases[0].groups.size(), 2u);
  const ScheduledGroup &a = s.phases[0].groups[0], &b = s.phases[0].groups[1];
  ASSERT_EQ(a.chunks.size(), 2u);
  EXPECT_EQ(a.chunks[0].id, 0);
  EXPECT_EQ(a.chunks[1].id, 2);
  EXPECT_EQ(a.chunks[1].name, "mb2");
  EXPECT_EQ(a.backward, (Ids{0, 1}));
  ASSERT_EQ(b.chunks.size(), 3u);
  EXPECT_EQ(b.backward, (Ids{0, 1, 2}));
  EXPECT_EQ(sequencesOf(b.chunks[1]), (Ids{2}));
}

// Full checkpointing is every layer of every stage checkpointed for every
// chunk, over selective activations (what a recomputed layer restores).
TEST(StepSchedule, FullCheckpointingCheckpointsEveryLayer) {
  const GroupLayout pp3{1, 1, 1, 3};
  StepPlan plan = staticPlan(3, {{group(pp3, 0, {0})}, {group(pp3, 0, {1})}},
                             {8, 8});
  StepSchedule s = scheduleOf(plan, smallModel(cost::Checkpointing::Full));
  EXPECT_EQ(s.activations, cost::Checkpointing::Selective);
  // 4 layers over 3 stages: 2, 1, 1.
  EXPECT_EQ(s.phases[0].groups[0].remat,
            (std::vector<Ids>{{2, 2}, {1, 1}, {1, 1}}));
}

// A DPP step: one phase per pipeline, one group over every rank, chunk ids
// counted across the step, the plan's orders and remat kept; the core is
// recomputed in the backward and ops carry slice indices.
TEST(StepSchedule, DppPipelinesArePhasesOfOneGroup) {
  PipelinedStepPlan plan;
  plan.world = 8;
  plan.spDegree = 4;
  plan.stages = 2;
  plan.lengths = {100, 30, 20};
  PlannedPipeline p0;
  p0.chunks.resize(2);
  p0.chunks[0].slices = {{0, 0, 60}};
  p0.chunks[1].slices = {{0, 60, 100}, {1, 0, 30}};
  p0.backward = {1, 0};
  p0.nSplit = 2;
  p0.remat = {{1, 0}, {2, 2}};
  PlannedPipeline p1;
  p1.chunks.resize(1);
  p1.chunks[0].slices = {{2, 0, 20}};
  p1.backward = {0};
  plan.pipelines = {p0, p1};
  StepSchedule s = scheduleOf(plan);
  EXPECT_EQ(s.activations, cost::Checkpointing::Selective);
  EXPECT_EQ(s.core, CoreRecompute::InBackward);
  EXPECT_TRUE(s.sliceIndices);
  ASSERT_EQ(s.phases.size(), 2u);
  const ScheduledGroup &g = s.phases[0].groups[0];
  EXPECT_EQ(g.layout, (GroupLayout{4, 1, 1, 2}));
  EXPECT_EQ(g.firstRank, 0);
  EXPECT_EQ(g.backward, (Ids{1, 0}));
  EXPECT_EQ(g.nSplit, 2);
  EXPECT_EQ(g.remat, p0.remat);
  EXPECT_EQ(g.chunks[1].name, "p0 c1");
  EXPECT_EQ(s.phases[1].groups[0].chunks[0].name, "p1 c0");
  EXPECT_EQ(s.phases[1].groups[0].chunks[0].id, 2);
  // Sequence 0's second slice is its slice 1; the others are slice 0.
  auto index = sliceIndices(s);
  EXPECT_EQ(index[0][0][0], (Ids{0}));
  EXPECT_EQ(index[0][0][1], (Ids{1, 0}));
  EXPECT_EQ(index[1][0][0], (Ids{0}));
}

// chunkLayerCost by hand: a whole sequence of 8 tokens and a split slice
// [8, 16) of a 24-token sequence, on a group of Ulysses 2 x tp 2.
TEST(StepSchedule, ChunkLayerCostByHand) {
  const TrainModel m = smallModel(cost::Checkpointing::Selective);
  const GroupLayout l{2, 2, 1, 1};
  const Ids lengths = {8, 24};
  const std::vector<ChunkSlice> slices = {{0, 0, 8}, {1, 8, 16}};
  auto c = chunkLayerCost(m, l, cost::Checkpointing::Selective, slices, lengths,
                          /*layer=*/1, /*zeroWays=*/3);
  ASSERT_TRUE(c.ok());
  auto f0 = cost::layerForwardFlops(m.shape, 1, {8, 0}).value;
  auto f1 = cost::layerForwardFlops(m.shape, 1, {8, 8}).value;
  // Split over ulysses * tp = 4 ranks.
  EXPECT_DOUBLE_EQ(c.value.forwardFlops, (f0.total() + f1.total()) / 4);
  EXPECT_DOUBLE_EQ(c.value.coreFlops, (f0.attentionCore + f1.attentionCore) / 4);
  // Kept: the selective bytes per token times the tokens, / 4.
  const int64_t sel0 = cost::activationBytesPerToken(
                           m.shape, 1, {8, 0}, cost::Checkpointing::Selective)
                           .value;
  const int64_t sel1 = cost::activationBytesPerToken(
                           m.shape, 1, {8, 8}, cost::Checkpointing::Selective)
                           .value;
  EXPECT_EQ(c.value.fullBytes, (sel0 * 8 + sel1 * 8) / 4);
  // dK / dV of the split slice only: 2 kv heads x 4 x 2 (K, V) x 2 bytes =
  // 32 bytes a token, 8 tokens, / 4.
  EXPECT_EQ(cost::kvBytesPerToken(m.shape), 32);
  EXPECT_EQ(c.value.dkvBytes, 32 * 8 / 4);
  // Checkpointed: the input (h * 2 bytes a token), 16 tokens, / 4, plus
  // the split slice's K and V.
  EXPECT_EQ(c.value.checkpointBytes, 16 * 2 * 16 / 4 + 64);
  // Ulysses: Q, O (4 heads x 4) and K, V (2 x 4) per token / tp = 24
  // values, of 16 / 2 tokens, bf16: 384 bytes, a multiple of 2.
  EXPECT_EQ(c.value.allToAllBytes, 384);
  // Tensor parallel: 2 x the local tokens' hidden states = 2 x 8 x 16 x 2.
  EXPECT_EQ(c.value.tpAllReduceBytes, 512);
  EXPECT_EQ(c.value.cpKvBytes, 0);
  // The layer's weights / tp, sharded over 3 ZeRO ranks (rounded up).
  const int64_t weights = cost::layerParameters(m.shape, 1) * 2 / 2;
  EXPECT_EQ(c.value.paramBytes, weights);
  EXPECT_EQ(c.value.paramShardBytes, (weights + 2) / 3);
  // No slices: the parameters only.
  auto idle = chunkLayerCost(m, l, cost::Checkpointing::Selective, {}, lengths,
                             1, 3);
  ASSERT_TRUE(idle.ok());
  EXPECT_EQ(idle.value.paramShardBytes, c.value.paramShardBytes);
  EXPECT_EQ(idle.value.forwardFlops, 0);
  EXPECT_EQ(idle.value.allToAllBytes, 0);
}

// The per-layer work the static planners estimate with (layerWork) is
// chunkLayerCost's for whole sequences: the two cannot drift apart.
TEST(StepSchedule, ChunkLayerCostOfWholeSequencesIsLayerWork) {
  for (cost::Checkpointing mode :
       {cost::Checkpointing::None, cost::Checkpointing::Selective}) {
    const TrainModel m = smallModel(mode);
    for (GroupLayout l : {GroupLayout{1, 1, 1, 1}, GroupLayout{2, 2, 1, 1},
                          GroupLayout{1, 2, 2, 1}, GroupLayout{4, 1, 1, 2}}) {
      const Ids lengths = {12, 40, 7};
      auto w = layerWork(m, l, lengths, 2, 4);
      auto c = chunkLayerCost(m, l, mode, {{0, 0, 12}, {1, 0, 40}, {2, 0, 7}},
                              lengths, 2, 4);
      ASSERT_TRUE(w.ok() && c.ok());
      EXPECT_DOUBLE_EQ(c.value.forwardFlops, w.value.forwardFlops);
      EXPECT_DOUBLE_EQ(c.value.coreFlops, w.value.recomputeFlops);
      EXPECT_DOUBLE_EQ(2 * c.value.forwardFlops, w.value.backwardFlops);
      EXPECT_EQ(c.value.fullBytes, w.value.keptBytes);
      EXPECT_EQ(c.value.dkvBytes, 0);
      EXPECT_EQ(c.value.allToAllBytes, w.value.allToAllBytes);
      EXPECT_EQ(c.value.tpAllReduceBytes, w.value.tpAllReduceBytes);
      EXPECT_EQ(c.value.cpKvBytes, w.value.cpKvBytes);
      EXPECT_EQ(c.value.paramBytes, w.value.paramBytes);
      EXPECT_EQ(c.value.paramShardBytes, w.value.paramShardBytes);
    }
  }
  // Full checkpointing: what a checkpointed layer keeps and restores.
  const TrainModel full = smallModel(cost::Checkpointing::Full);
  auto w = layerWork(full, {2, 1, 1, 1}, {32}, 0, 1);
  auto c = chunkLayerCost(full, {2, 1, 1, 1}, cost::Checkpointing::Selective,
                          {{0, 0, 32}}, {32}, 0, 1);
  ASSERT_TRUE(w.ok() && c.ok());
  EXPECT_EQ(c.value.checkpointBytes, w.value.keptBytes);
  EXPECT_EQ(c.value.fullBytes - c.value.checkpointBytes,
            w.value.recomputeBytes);
  EXPECT_DOUBLE_EQ(c.value.forwardFlops, w.value.recomputeFlops);
}

} // namespace
