//===- DppPlanningTest.cpp - DPP's model from a spec, plans as steps ------===//
#include "passes/Train/DppPlanning.h"

#include "passes/Lower/StepLowering.h"
#include "passes/Train/FlexSpModel.h"

#include "TrainFixtures.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus;
using namespace plexus::train;

namespace {

using fixtures::smallSetup;

/// An all-to-all takes 1 ms + bytes / 1 GB/s; an all-gather 0.5 ms, a
/// reduce-scatter 0.25 ms.
prog::CommTimeFn linearTimes() {
  return [](const prog::CommRequest &r) {
    switch (r.kind) {
    case prog::CommKind::AllToAll:
      return prog::CommTime(1e-3 + static_cast<double>(r.bytes) / 1e9);
    case prog::CommKind::AllGather:
      return prog::CommTime(0.5e-3);
    case prog::CommKind::ReduceScatter:
      return prog::CommTime(0.25e-3);
    default:
      return prog::CommTime(0.0);
    }
  };
}

TEST(DppPlanning, LayoutFromTheNodeOrTheStrategy) {
  baselines::TrainSetup s = smallSetup();
  auto node = dppJobLayout(s, 0);
  ASSERT_TRUE(node) << node.error;
  EXPECT_EQ(node->spDegree, 4); // a node's chips
  EXPECT_EQ(node->stages, 2);
  auto two = dppJobLayout(s, 2);
  ASSERT_TRUE(two) << two.error;
  EXPECT_EQ(two->stages, 4);
  // 3 does not divide 8 chips; 8 stages of 1 rank exceed 4 layers.
  EXPECT_FALSE(dppJobLayout(s, 3));
  auto tooDeep = dppJobLayout(s, 1);
  ASSERT_FALSE(tooDeep);
  EXPECT_NE(tooDeep.error.find("must divide the 4 layers"), std::string::npos)
      << tooDeep.error;
}

// Every coefficient by hand: alpha from the FLOP polynomial at 1 TFLOP/s,
// the all-to-all's slope (1 GB/s) and intercept (1 ms), no per-chunk ZeRO
// cost (beta1 is 0: ZeRO-3 runs once per step, its
// gathers and reduce-scatters beside the first forward and the last
// backward), the memory of the selective activations and K/V width
// d * kv heads, the model states with the stage's whole weights and
// gradients.
TEST(DppPlanning, DerivedModelByHand) {
  baselines::TrainSetup s = smallSetup();
  DppJobLayout layout{4, 2, 0.04};
  auto m = deriveDppModel(s, layout, 4096, linearTimes());
  ASSERT_TRUE(m) << m.error;
  step::TrainModel selective = s.model;
  selective.zeroOncePerStep = true;
  FlopsPolynomial p = trainFlopsPolynomial(selective);
  EXPECT_NEAR(m->alpha1, p.quadratic / 1e12 * 1e3, 1e-18);
  EXPECT_NEAR(m->alpha2, p.linear / 1e12 * 1e3, 1e-15);
  EXPECT_NEAR(m->allToAllGBps, 1.0, 1e-9);
  EXPECT_NEAR(m->allToAllLatencyMs, 1.0, 1e-9);
  EXPECT_EQ(m->beta1, 0);
  EXPECT_EQ(m->activation.layers, 4);
  EXPECT_EQ(m->activation.stages, 2);
  EXPECT_EQ(m->activation.spDegree, 4);
  // Ulysses splits every slice over the stage's 4 ranks.
  EXPECT_EQ(m->sliceGranule, 4);
  EXPECT_EQ(m->activation.kvDim, 256); // 4 kv heads of 64
  // Selective, GeLU, h = 256: norms 2*2h, attention 2h + 2(q + kv) + 2 kv
  // + 2q + h (mask), feed-forward 2h + 2*2*1024 + h (mask) bytes a token.
  const double perLayer =
      4 * 256 + (512 + 2 * 512 + 512 + 512 + 256) + (512 + 4 * 1024 + 256);
  EXPECT_NEAR(m->activation.tokenMB, 4 * perLayer / (1024.0 * 1024.0), 1e-12);
  EXPECT_NEAR(m->memoryMB, 1e9 / (1024.0 * 1024.0) * 0.96, 1e-9);
  ASSERT_EQ(m->modelStatesMB.size(), 2u);
  for (int64_t st = 0; st < 2; ++st)
    EXPECT_NEAR(m->modelStatesMB[static_cast<size_t>(st)],
                static_cast<double>(
                    step::residentBytes(selective, {4, 1, 1, 2}, st, 4)) /
                    (1024.0 * 1024.0),
                1e-12);
}

TEST(DppPlanning, ChunkOfAPlannedChunk) {
  const std::vector<int64_t> lengths{100, 50, 30};
  step::PlannedChunk c;
  c.kind = "hybrid";
  c.slices = {{0, 60, 100}, {2, 0, 30}};
  auto chunk = dppChunkOf(c, lengths);
  ASSERT_TRUE(chunk) << chunk.error;
  EXPECT_EQ(chunk->kind, dpp::ChunkKind::Hybrid);
  EXPECT_TRUE(chunk->tail); // the first slice ends sequence 0
  EXPECT_EQ(chunk->context(), 60);
  EXPECT_EQ(chunk->tokens(), 70);
  c.kind = "split";
  c.slices = {{0, 0, 60}};
  chunk = dppChunkOf(c, lengths);
  ASSERT_TRUE(chunk);
  EXPECT_FALSE(chunk->tail);
  c.kind = "bogus";
  EXPECT_FALSE(dppChunkOf(c, lengths));
  c.kind = "packed";
  c.slices = {{1, 0, 51}};
  auto outside = dppChunkOf(c, lengths);
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error.find("outside"), std::string::npos);
}

// A batch with one long sequence on 2 stages of 4: the plan covers every
// token once, converts to a pipelined step with the planner's numbers, and
// lowers.
TEST(DppPlanning, PlanConvertsAndLowers) {
  baselines::TrainSetup s = smallSetup();
  std::vector<int64_t> lengths{8192, 512, 512, 1024, 256, 2048};
  auto layout = dppJobLayout(s, 0);
  ASSERT_TRUE(layout);
  baselines::NamedPlan plan =
      planDynamicPp(s, lengths, linearTimes(), *layout, {}, "dpp");
  ASSERT_TRUE(plan.ok()) << plan.error;
  ASSERT_TRUE(plan.pipelined);
  EXPECT_FALSE(plan.plan);
  const step::PipelinedStepPlan &p = *plan.pipelined;
  EXPECT_EQ(p.strategy, "dpp");
  EXPECT_EQ(p.world, 8);
  EXPECT_EQ(p.spDegree, 4);
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(plan.model.zero, 3);
  EXPECT_GT(p.seconds, 0);
  double sum = 0;
  std::vector<int64_t> covered(lengths.size(), 0);
  for (const step::PlannedPipeline &pipe : p.pipelines) {
    sum += pipe.seconds;
    for (const step::PlannedChunk &c : pipe.chunks)
      for (const step::ChunkSlice &sl : c.slices)
        covered[static_cast<size_t>(sl.sequence)] += sl.tokens();
  }
  EXPECT_NEAR(sum, p.seconds, 1e-12 * p.seconds);
  EXPECT_EQ(covered, lengths);
  // Every slice (the lengths are multiples of sp 4) splits evenly over a
  // stage's Ulysses ranks.
  for (const step::PlannedPipeline &pipe : p.pipelines)
    for (const step::PlannedChunk &c : pipe.chunks)
      for (const step::ChunkSlice &sl : c.slices)
        EXPECT_EQ(sl.tokens() % 4, 0) << "sequence " << sl.sequence << " ["
                                      << sl.begin << ", " << sl.end << ")";
  lower::LoweredStep lowered = lower::lowerPipelinedStep(p, plan.model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  EXPECT_EQ(lowered.programs.size(), 8u);
}

// Planning the checkpointing again: full recomputes every layer of every
// chunk and takes longer; adaptive gives the planner's own answer back.
TEST(DppPlanning, ReplanCheckpointing) {
  baselines::TrainSetup s = smallSetup();
  std::vector<int64_t> lengths{8192, 512, 512, 1024, 256, 2048};
  auto layout = dppJobLayout(s, 0);
  ASSERT_TRUE(layout);
  baselines::NamedPlan plan =
      planDynamicPp(s, lengths, linearTimes(), *layout, {}, "dpp");
  ASSERT_TRUE(plan.ok()) << plan.error;
  auto model = deriveDppModel(s, *layout, 8192, linearTimes());
  ASSERT_TRUE(model);

  step::PipelinedStepPlan same = *plan.pipelined;
  ASSERT_EQ(
      replanCheckpointing(same, *model, ckpt::CheckpointStrategy::Adaptive),
      "");
  EXPECT_NEAR(same.seconds, plan.pipelined->seconds,
              1e-9 * plan.pipelined->seconds);

  step::PipelinedStepPlan full = *plan.pipelined;
  ASSERT_EQ(replanCheckpointing(full, *model, ckpt::CheckpointStrategy::Full),
            "");
  for (const step::PlannedPipeline &pipe : full.pipelines) {
    ASSERT_EQ(pipe.remat.size(), 2u);
    for (const std::vector<int64_t> &stage : pipe.remat)
      for (int64_t l : stage)
        EXPECT_EQ(l, 2); // both layers of the stage
  }
  EXPECT_GT(full.seconds, plan.pipelined->seconds);
  EXPECT_LE(full.peakMemBytes, plan.pipelined->peakMemBytes);

  // A backward order that is not the 1F1B one is refused, unchanged.
  step::PipelinedStepPlan bad = *plan.pipelined;
  if (bad.pipelines[0].backward.size() > 1) {
    std::swap(bad.pipelines[0].backward[0], bad.pipelines[0].backward[1]);
    const step::PipelinedStepPlan before = bad;
    std::string error =
        replanCheckpointing(bad, *model, ckpt::CheckpointStrategy::Full);
    EXPECT_NE(error, "");
    EXPECT_EQ(bad.seconds, before.seconds);
  }
}

TEST(DppPlanning, PlanErrorsAreValues) {
  baselines::TrainSetup s = smallSetup();
  auto layout = dppJobLayout(s, 0);
  ASSERT_TRUE(layout);
  baselines::NamedPlan empty =
      planDynamicPp(s, {}, linearTimes(), *layout, {}, "dpp");
  EXPECT_FALSE(empty.ok());
  EXPECT_EQ(empty.error, "the batch is empty");
  // 1 MB of memory per chip cannot hold the model states.
  s.memoryBytes = 1'000'000;
  baselines::NamedPlan tight =
      planDynamicPp(s, {4096}, linearTimes(), *layout, {}, "dpp");
  EXPECT_FALSE(tight.ok());
  EXPECT_NE(tight.error.find("stage 0's model states need"), std::string::npos)
      << tight.error;
}

} // namespace
