//===- DynamicPpTest.cpp - Dynamic pipeline parallelism planner -----------===//
//
// Whole plans on FlexSP's 13B profile (4 stages of 8-way SP): plans are
// consistent, deterministic and unchanged by pruning; and reference
// flexsp_dpp.md section 4 items 12-14 where a simulator can check them:
// longest sequences first, every stage within memory, at most two 1F1B
// pipelines, several only when memory requires, and on a memory-tight
// batch adaptive checkpointing beats both no checkpointing (which does not
// fit) and full checkpointing.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DynamicPp.h"

#include "DppTestModels.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::dpp;

namespace {

/// A small batch: one 64K sequence, a 32K, a 16K, six 8K and twenty 2K.
std::vector<int64_t> smallBatch() {
  std::vector<int64_t> lengths = {65536, 32768, 16384};
  lengths.insert(lengths.end(), 6, 8192);
  lengths.insert(lengths.end(), 20, 2048);
  return lengths;
}

DppPlan plan(const DppModel &m, const std::vector<int64_t> &lengths,
             const DppOptions &o = {}) {
  Result<DppPlan> r = planDynamicPipeline(m, lengths, o);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : DppPlan{};
}

DppOptions withCheckpointing(ckpt::CheckpointStrategy s) {
  DppOptions o;
  o.checkpointing = s;
  return o;
}

} // namespace

TEST(DynamicPp, SmallBatchWithAmpleMemory) {
  const DppModel m = gpt13b(80);
  const std::vector<int64_t> lengths = smallBatch();
  const DppPlan p = plan(m, lengths);
  EXPECT_EQ(dppPlanViolation(m, p, lengths), "");
  EXPECT_EQ(p.chunking.mesh.slices, p.slices);
  EXPECT_EQ(p.pipelines.size(), 1u);
  EXPECT_EQ(p.recomputeMs, 0.0);
  EXPECT_EQ(p.pipelines[0].order.nSplit, p.slices);
  // The trials cover the K range in order; the plan is the best feasible.
  ASSERT_FALSE(p.trials.empty());
  for (size_t i = 0; i < p.trials.size(); ++i) {
    EXPECT_EQ(p.trials[i].slices, static_cast<int64_t>(i) + 1);
    if (p.trials[i].feasible) {
      EXPECT_GE(p.trials[i].iterationMs, p.iterationMs);
    }
    EXPECT_LE(p.trials[i].lowerBoundMs,
              p.trials[i].feasible ? p.trials[i].iterationMs : 1e300);
  }
  // One pipeline: its makespan and bubbles are the plan's.
  EXPECT_DOUBLE_EQ(p.iterationMs, p.pipelines[0].timing.makespanMs);
  EXPECT_DOUBLE_EQ(p.bubbleRatio, p.pipelines[0].timing.bubbleRatio);
}

TEST(DynamicPp, Item12ScheduleInvariants) {
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  const DppPlan p = plan(m, lengths);
  ASSERT_EQ(dppPlanViolation(m, p, lengths), "");
  const std::vector<Chunk> &chunks = p.chunking.chunks;
  EXPECT_GE(p.pipelines.size(), 1u);
  EXPECT_LE(p.pipelines.size(), 2u);
  int64_t previousMax = std::numeric_limits<int64_t>::max();
  for (const DppPipeline &pipe : p.pipelines) {
    // Pipelines with the most chunks per sequence run first.
    EXPECT_LE(pipe.maxChunks, previousMax);
    previousMax = pipe.minChunks;
    // Longest first: a split sequence's chunks are consecutive and in
    // slice order, and no unit has more chunks than the one before.
    int64_t unitSize = std::numeric_limits<int64_t>::max();
    for (size_t k = 0; k < pipe.order.chunks.size();) {
      const Chunk &first = chunks[static_cast<size_t>(pipe.order.chunks[k])];
      size_t end = k + 1;
      while (
          first.hasSplitSlice() && end < pipe.order.chunks.size() &&
          chunks[static_cast<size_t>(pipe.order.chunks[end])].splitSequence() ==
              first.splitSequence()) {
        EXPECT_EQ(chunks[static_cast<size_t>(pipe.order.chunks[end])].context(),
                  chunks[static_cast<size_t>(pipe.order.chunks[end - 1])]
                      .pieces[0]
                      .end);
        ++end;
      }
      EXPECT_LE(static_cast<int64_t>(end - k), unitSize);
      unitSize = static_cast<int64_t>(end - k);
      // Backward in reverse: the unit's positions come out last first.
      for (size_t i = k; i < end; ++i)
        EXPECT_EQ(pipe.order.backward[i],
                  static_cast<int64_t>(end - 1 - (i - k)));
      k = end;
    }
    // Every stage within memory: model states plus its largest window.
    for (int64_t s = 0; s < m.activation.stages; ++s)
      EXPECT_LE(pipe.checkpointing.peakMB[static_cast<size_t>(s)] +
                    m.modelStatesMB[static_cast<size_t>(s)],
                m.memoryMB + 1e-6);
    // delta = (d_p - 1) avg(T_tot).
    double mean = 0;
    for (int64_t c : pipe.order.chunks)
      mean += chunkStageMs(m, chunks[static_cast<size_t>(c)]);
    mean /= static_cast<double>(pipe.order.chunks.size());
    EXPECT_NEAR(pipe.deltaMs, 3 * mean, 1e-9 * pipe.deltaMs);
  }
  // The reference reports bubble ratios under 20 %.
  EXPECT_LT(p.bubbleRatio, 0.2);
}

TEST(DynamicPp, SeveralPipelinesOnlyWhenMemoryRequires) {
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  const DppPlan ample = plan(gpt13b(80), lengths);
  EXPECT_EQ(ample.pipelines.size(), 1u);
  EXPECT_EQ(ample.recomputeMs, 0.0);
  // At 18 GB one pipeline of every chunk count does not fit without
  // checkpointing; two pipelines do, and cost less than checkpointing.
  const DppModel tight = gpt13b(18);
  const DppPlan two = plan(tight, lengths);
  EXPECT_EQ(dppPlanViolation(tight, two, lengths), "");
  EXPECT_EQ(two.pipelines.size(), 2u);
  // The grouping DP's cost is delta plus T_ckpt per pipeline (Eq. 13).
  double dp = 0;
  for (const DppPipeline &pipe : two.pipelines)
    dp += pipe.deltaMs + pipe.checkpointing.recomputeMs;
  EXPECT_NEAR(two.groupingCostMs, dp, 1e-9 * dp);
}

TEST(DynamicPp, Item13AdaptiveBeatsNoneAndFullWhenMemoryIsTight) {
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  const DppPlan adaptive = plan(m, lengths);
  Result<DppPlan> none = planDynamicPipeline(
      m, lengths, withCheckpointing(ckpt::CheckpointStrategy::None));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("without checkpointing"), std::string::npos)
      << none.error;
  const DppPlan full =
      plan(m, lengths, withCheckpointing(ckpt::CheckpointStrategy::Full));
  const DppPlan uniform =
      plan(m, lengths, withCheckpointing(ckpt::CheckpointStrategy::Uniform));
  for (const DppPlan *p : {&adaptive, &full, &uniform})
    EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  EXPECT_GT(adaptive.recomputeMs, 0.0);
  EXPECT_LT(adaptive.recomputeMs, full.recomputeMs);
  EXPECT_LT(adaptive.iterationMs, full.iterationMs);
  EXPECT_LE(adaptive.iterationMs, uniform.iterationMs);
}

TEST(DynamicPp, Item13NoCheckpointingFitsOnlyMoreFinelyAndIsSlower) {
  // 128 sequences at 10 GB: without checkpointing the batch needs more
  // slices and pipelines; full checkpointing recomputes every layer.
  const DppModel m = gpt13b(10);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 128);
  const DppPlan adaptive = plan(m, lengths);
  const DppPlan none =
      plan(m, lengths, withCheckpointing(ckpt::CheckpointStrategy::None));
  const DppPlan full =
      plan(m, lengths, withCheckpointing(ckpt::CheckpointStrategy::Full));
  for (const DppPlan *p : {&adaptive, &none, &full})
    EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  EXPECT_GT(adaptive.recomputeMs, 0.0);
  EXPECT_LT(adaptive.iterationMs, none.iterationMs);
  EXPECT_LT(adaptive.iterationMs, full.iterationMs);
  EXPECT_GE(none.slices + static_cast<int64_t>(none.pipelines.size()),
            adaptive.slices + static_cast<int64_t>(adaptive.pipelines.size()));
}

TEST(DynamicPp, AdaptivePipelineNeverSlowerThanFullCheckpointing) {
  const DppModel m = gpt13b(10);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 128);
  for (int64_t k : {1, 4, 8}) {
    Result<Chunking> c = chunkSequences(m, lengths, k);
    ASSERT_TRUE(c) << c.error;
    Result<std::vector<ChunkUnit>> units = chunkUnits(c->chunks);
    ASSERT_TRUE(units);
    Result<DppPipeline> full =
        planPipeline(m, c->chunks, *units,
                     withCheckpointing(ckpt::CheckpointStrategy::Full));
    Result<DppPipeline> adaptive = planPipeline(m, c->chunks, *units);
    ASSERT_EQ(static_cast<bool>(full), static_cast<bool>(adaptive));
    if (!full)
      continue;
    EXPECT_LE(adaptive->timing.makespanMs, full->timing.makespanMs);
    EXPECT_LE(adaptive->checkpointing.recomputeLayers,
              full->checkpointing.recomputeLayers);
    EXPECT_LE(adaptive->groupingCostMs, full->groupingCostMs);
  }
}

TEST(DynamicPp, DeterministicAndPruningIsExact) {
  // A large per-chunk cost makes fine slicing lose, so bounds prune.
  const DppModel m = gpt13b(10, 400);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 128);
  DppOptions o;
  o.maxSlices = 10;
  const DppPlan a = plan(m, lengths, o);
  const DppPlan b = plan(m, lengths, o);
  EXPECT_TRUE(samePlan(a, b));
  o.pruneByBound = false;
  const DppPlan c = plan(m, lengths, o);
  EXPECT_TRUE(samePlan(a, c));
  int64_t pruned = 0;
  for (const SliceTrial &t : a.trials)
    pruned += t.pruned;
  EXPECT_GT(pruned, 0);
  for (const SliceTrial &t : c.trials)
    EXPECT_FALSE(t.pruned);
}

TEST(DynamicPp, GroupingBoundsAreExactWhenMemoryIsTight) {
  // Several pipelines and real checkpointing: the grouping DP's bounds
  // from costed sub-ranges change nothing, and the chosen pipelines'
  // refined checkpointing never recomputes more than the search's.
  for (double gb : {16.0, 18.0}) {
    DppModel m = gpt13b(gb);
    const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
    DppOptions o;
    const DppPlan pruned = plan(m, lengths, o);
    o.pruneByBound = false;
    const DppPlan full = plan(m, lengths, o);
    EXPECT_TRUE(samePlan(pruned, full)) << gb << " GB";
    // Also when windows carry the following backward's working memory.
    m.backwardWorkingMemory = true;
    EXPECT_TRUE(samePlan(plan(m, lengths), plan(m, lengths, o)))
        << gb << " GB, working memory";
    m.backwardWorkingMemory = false;
    DppOptions raw;
    raw.refineCheckpointing = false;
    const DppPlan unrefined = plan(m, lengths, raw);
    ASSERT_EQ(unrefined.pipelines.size(), pruned.pipelines.size());
    EXPECT_LE(pruned.iterationMs, unrefined.iterationMs);
    for (size_t i = 0; i < pruned.pipelines.size(); ++i)
      EXPECT_LE(pruned.pipelines[i].checkpointing.recomputeLayers,
                unrefined.pipelines[i].checkpointing.recomputeLayers);
    EXPECT_EQ(dppPlanViolation(m, unrefined, lengths), "");
  }
}

TEST(DynamicPp, BranchAndBoundInTheSearch) {
  // Costing every candidate with branch and bound (the slow way) plans
  // validly and, on this batch, no faster an iteration than the LP-costed
  // search with refinement by more than a percent.
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  DppOptions slow;
  slow.branchAndBoundInSearch = true;
  const DppPlan exact = plan(m, lengths, slow);
  const DppPlan quick = plan(m, lengths);
  EXPECT_EQ(dppPlanViolation(m, exact, lengths), "");
  EXPECT_GT(exact.recomputeMs, 0.0);
  EXPECT_LE(quick.iterationMs, exact.iterationMs * 1.01);
}

TEST(DynamicPp, ViolationsAreFound) {
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 128);
  const DppPlan good = plan(m, lengths);
  ASSERT_EQ(dppPlanViolation(m, good, lengths), "");
  DppPlan bad = good;
  std::swap(bad.pipelines[0].order.chunks[0], bad.pipelines[0].order.chunks[1]);
  EXPECT_NE(dppPlanViolation(m, bad, lengths), "");
  bad = good;
  bad.iterationMs += 1;
  EXPECT_NE(dppPlanViolation(m, bad, lengths), "");
  bad = good;
  bad.pipelines[0].checkpointing.layers[0][0] += 1; // above its slot
  EXPECT_NE(dppPlanViolation(m, bad, lengths), "");
  bad = good;
  bad.pipelines.pop_back();
  EXPECT_NE(dppPlanViolation(m, bad, lengths), "");
}

TEST(DynamicPp, Errors) {
  const DppModel m = gpt13b(80);
  EXPECT_FALSE(planDynamicPipeline(m, {}));
  EXPECT_FALSE(planDynamicPipeline(m, {100, -1}));
  DppOptions o;
  o.minSlices = 3;
  o.maxSlices = 2;
  EXPECT_FALSE(planDynamicPipeline(m, {100}, o));
  // Model states leave 0.5 GB per GPU: a 64K sequence fits in no way.
  const DppModel tiny = gpt13b(m.modelStatesMB[0] / 1024 + 0.5);
  Result<DppPlan> r = planDynamicPipeline(tiny, {65536, 1024});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("stage"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("every layer checkpointed"), std::string::npos);
  // K beyond the longest sequence's tokens ends the search.
  o.minSlices = 1;
  o.maxSlices = 16;
  const DppPlan small = plan(m, {4, 3}, o);
  EXPECT_LE(small.trials.size(), 4u);
}
