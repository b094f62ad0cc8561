//===- DppPlanStatsTest.cpp - Statistics and whole-batch plans ------------===//
//
// dppPlanStats on plans whose numbers can be added up by hand: peak memory
// per stage (model states plus the largest window), the recompute share,
// the bubble ratio as the idle share of all stages over every pipeline,
// chunks per kind; and plans of 512-sequence global batches (Wikipedia and
// a GitHub-like long tail, 7B / 13B / 30B on 4 stages of 8-way SP) that
// must be valid. Planning times are printed, never asserted: timing
// belongs in benchmarks.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DynamicPp.h"

#include "DppTestModels.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace plexus;
using namespace plexus::dpp;

namespace {

DppPlan plan(const DppModel &m, const std::vector<int64_t> &lengths,
             const DppOptions &o = {}) {
  Result<DppPlan> r = planDynamicPipeline(m, lengths, o);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : DppPlan{};
}

/// Sum over stages of every chunk's forward and backward, no recompute.
double computeMs(const DppModel &m, const DppPlan &p) {
  double sum = 0;
  for (const Chunk &c : p.chunking.chunks)
    sum += chunkTimes(m, c).totalMs();
  return sum * static_cast<double>(m.activation.stages);
}

} // namespace

TEST(DppPlanStats, HandModelWithoutCheckpointing) {
  // Ample memory: nothing recomputed; the peak is the largest window.
  DppModel m = handModel(1.0, 1.0, 3.0);
  m.modelStatesMB = {100.0, 50.0};
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  const DppPlan p = plan(m, lengths);
  ASSERT_EQ(dppPlanViolation(m, p, lengths), "");
  const DppPlanStats st = dppPlanStats(m, p);
  ASSERT_EQ(st.peakMemoryMB.size(), 2u);
  for (size_t s = 0; s < 2; ++s) {
    double peak = 0;
    for (const DppPipeline &pipe : p.pipelines)
      peak = std::max(peak, pipe.checkpointing.peakMB[s]);
    EXPECT_DOUBLE_EQ(st.peakMemoryMB[s], peak + m.modelStatesMB[s]);
  }
  EXPECT_EQ(st.recomputeMs, 0.0);
  EXPECT_EQ(st.recomputeShare, 0.0);
  EXPECT_EQ(st.bubbleRatio, p.bubbleRatio);
  int64_t packed = 0, split = 0, hybrid = 0;
  for (const Chunk &c : p.chunking.chunks) {
    packed += c.kind == ChunkKind::Packed;
    split += c.kind == ChunkKind::Split;
    hybrid += c.kind == ChunkKind::Hybrid;
  }
  EXPECT_EQ(st.packedChunks, packed);
  EXPECT_EQ(st.splitChunks, split);
  EXPECT_EQ(st.hybridChunks, hybrid);
  EXPECT_EQ(st.packedChunks + st.splitChunks + st.hybridChunks,
            static_cast<int64_t>(p.chunking.chunks.size()));
  EXPECT_EQ(st.pipelines, static_cast<int64_t>(p.pipelines.size()));
  // No recompute: the busy share is the compute share.
  EXPECT_NEAR(1.0 - st.bubbleRatio, computeMs(m, p) / (2.0 * p.iterationMs),
              1e-12);
}

TEST(DppPlanStats, OnePipelineByHand) {
  // K = 1 on two stages: two packed 4-token chunks, 1 ms per token per
  // stage, forward 4/3 and backward 8/3 (f = 1/3). 1F1B: stage 0 runs F0
  // [0, 4/3] and F1 [4/3, 8/3]; stage 1 F0 [4/3, 8/3], B0 [8/3, 16/3], F1
  // [16/3, 20/3], B1 [20/3, 28/3]; stage 0 B0 [16/3, 8] and B1 [28/3, 12].
  // Busy 8 ms per stage of 12: a third idle.
  const DppModel m = handModel(0.0, 1.0);
  Result<DppPlan> r = planForSlices(m, {4, 4}, 1);
  ASSERT_TRUE(r) << r.error;
  const DppPlan &p = *r;
  ASSERT_EQ(p.pipelines.size(), 1u);
  ASSERT_EQ(p.chunking.chunks.size(), 2u);
  EXPECT_NEAR(p.iterationMs, 12.0, 1e-9);
  EXPECT_NEAR(p.bubbleRatio, 1.0 / 3.0, 1e-12);
  const DppPlanStats st = dppPlanStats(m, p);
  EXPECT_NEAR(st.bubbleRatio, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(st.packedChunks, 2);
  EXPECT_EQ(st.splitChunks + st.hybridChunks, 0);
  // Each stage holds both chunks at most (stage 0 after F1): 2 x 4 tokens
  // x 1 MB per token / 4 GPUs.
  EXPECT_NEAR(st.peakMemoryMB[0], 2.0, 1e-12);
  EXPECT_NEAR(st.peakMemoryMB[1], 1.0, 1e-12);
}

TEST(DppPlanStats, BubbleRatioIsOverEveryPipeline) {
  // At 18 GB two pipelines: the ratio is over all stages and the whole
  // iteration, not an average of the pipelines' ratios.
  const DppModel m = gpt13b(18);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  const DppPlan p = plan(m, lengths);
  ASSERT_EQ(p.pipelines.size(), 2u);
  double busy = 0, makespan = 0;
  for (const DppPipeline &pipe : p.pipelines) {
    makespan += pipe.timing.makespanMs;
    for (double b : pipe.timing.busyMs)
      busy += b;
  }
  EXPECT_DOUBLE_EQ(p.iterationMs, makespan);
  EXPECT_NEAR(p.bubbleRatio, 1.0 - busy / (4.0 * makespan), 1e-12);
  EXPECT_EQ(dppPlanStats(m, p).bubbleRatio, p.bubbleRatio);
}

TEST(DppPlanStats, RecomputeShareAddsUp) {
  // Memory-tight: compute + recompute + bubbles = all stages' time.
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  const DppPlan p = plan(m, lengths);
  ASSERT_EQ(dppPlanViolation(m, p, lengths), "");
  const DppPlanStats st = dppPlanStats(m, p);
  EXPECT_GT(st.recomputeShare, 0.0);
  double recompute = 0;
  for (const DppPipeline &pipe : p.pipelines)
    for (size_t s = 0; s < pipe.checkpointing.layers.size(); ++s)
      for (size_t k = 0; k < pipe.order.chunks.size(); ++k)
        recompute +=
            static_cast<double>(pipe.checkpointing.layers[s][k]) *
            recomputeMsPerLayer(
                m,
                p.chunking.chunks[static_cast<size_t>(pipe.order.chunks[k])]);
  EXPECT_NEAR(st.recomputeMs, recompute, 1e-9 * recompute);
  double perStage = 0;
  for (double r : st.recomputeMsPerStage)
    perStage += r;
  EXPECT_NEAR(perStage, st.recomputeMs, 1e-9 * recompute);
  const double stageTime = 4.0 * p.iterationMs;
  EXPECT_NEAR(st.recomputeShare, recompute / stageTime, 1e-12);
  EXPECT_NEAR(computeMs(m, p) / stageTime + st.recomputeShare + st.bubbleRatio,
              1.0, 1e-9);
  // Every stage within memory.
  for (size_t s = 0; s < st.peakMemoryMB.size(); ++s)
    EXPECT_LE(st.peakMemoryMB[s], m.memoryMB + 1e-6);
}

TEST(DppPlanStats, SolveTimeIsReportedNotCompared) {
  const DppModel m = gpt13b(80);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 128);
  const DppPlan a = plan(m, lengths);
  DppPlan b = plan(m, lengths);
  EXPECT_GT(a.solveSeconds, 0.0);
  EXPECT_EQ(dppPlanStats(m, a).solveSeconds, a.solveSeconds);
  b.solveSeconds = a.solveSeconds + 1;
  EXPECT_TRUE(samePlan(a, b));
  Result<DppPlan> one = planForSlices(m, lengths, 2);
  ASSERT_TRUE(one) << one.error;
  EXPECT_GT(one->solveSeconds, 0.0);
}

TEST(DppPlanStats, EmptyPlan) {
  const DppModel m = handModel(1.0, 1.0);
  const DppPlanStats st = dppPlanStats(m, DppPlan{});
  EXPECT_EQ(st.peakMemoryMB, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(st.pipelines, 0);
  EXPECT_EQ(st.recomputeShare, 0.0);
}

namespace {

struct BatchCase {
  const char *model;
  double memoryGB;
  int64_t limit;
  bool github; // else Wikipedia
  int64_t index;
};

std::string describe(const BatchCase &c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s, %g GB, %s batch %lld, limit %lld",
                c.model, c.memoryGB, c.github ? "github-like" : "wikipedia",
                static_cast<long long>(c.index),
                static_cast<long long>(c.limit));
  return buf;
}

} // namespace

TEST(DppWholeBatch, PlansOf512SequencesAreValid) {
  // The product setting (80 GB per GPU, 96K and 48K limits) and a
  // memory-tight one that makes the checkpointing ILPs work.
  const BatchCase cases[] = {
      {"gpt-13b", 80, 98304, false, 6}, {"gpt-13b", 80, 49152, false, 6},
      {"gpt-13b", 80, 98304, true, 1},  {"gpt-13b", 80, 49152, true, 2},
      {"gpt-7b", 80, 98304, true, 3},   {"gpt-30b", 80, 98304, true, 4},
      {"gpt-13b", 24, 98304, true, 2},
  };
  for (const BatchCase &c : cases) {
    SCOPED_TRACE(describe(c));
    const DppModel m = profiledModel(c.model, c.memoryGB);
    const std::vector<int64_t> lengths =
        c.github
            ? githubLikeLengths(static_cast<uint64_t>(c.index), 512, c.limit)
            : wikipediaLengths(c.index, 512, c.limit);
    ASSERT_EQ(lengths.size(), 512u);
    const DppPlan p = plan(m, lengths);
    EXPECT_EQ(dppPlanViolation(m, p, lengths), "");
    const DppPlanStats st = dppPlanStats(m, p);
    for (size_t s = 0; s < st.peakMemoryMB.size(); ++s)
      EXPECT_LE(st.peakMemoryMB[s], m.memoryMB + 1e-6);
    if (c.memoryGB < 80) {
      // Where the checkpointing ILPs work: the same input, the same plan.
      EXPECT_TRUE(samePlan(p, plan(m, lengths)));
    }
    std::printf("[ plan     ] %s: K %lld, %lld pipelines, %.1f ms, bubbles "
                "%.3f, recompute %.4f, planned in %.2f s\n",
                describe(c).c_str(), static_cast<long long>(p.slices),
                static_cast<long long>(st.pipelines), p.iterationMs,
                st.bubbleRatio, st.recomputeShare, p.solveSeconds);
  }
}

TEST(DppWholeBatch, GithubLikeLengths) {
  // The sampler is deterministic, padded, capped, and long-tailed: most
  // sequences under 16K, a few above 64K.
  const std::vector<int64_t> a = githubLikeLengths(1, 4096);
  EXPECT_EQ(a, githubLikeLengths(1, 4096));
  EXPECT_NE(a, githubLikeLengths(2, 4096));
  int64_t under16k = 0, over64k = 0;
  for (int64_t l : a) {
    EXPECT_EQ(l % 128, 0);
    EXPECT_GE(l, 128);
    EXPECT_LE(l, 98304);
    under16k += l <= 16384;
    over64k += l > 65536;
  }
  EXPECT_GT(under16k, 4096 * 85 / 100);
  EXPECT_LT(over64k, 4096 * 12 / 1000);
  for (int64_t l : githubLikeLengths(1, 512, 49152))
    EXPECT_LE(l, 49152);
}
