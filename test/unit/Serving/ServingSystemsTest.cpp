//===- ServingSystemsTest.cpp - PipeSwift, its baselines, the planner -----===//
#include "passes/Serving/ServingSystems.h"

#include "ServingFixtures.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace plexus::serving;
using namespace plexus::serving::testing;

namespace {

/// A short SWE-like run: 24 tasks of about 4 turns, 8 at a time.
AgentWorkload shortSwe() {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = 24;
  p.turns = 4;
  AgentWorkload w = *generateAgentWorkload(p, 3);
  w.concurrency = 8;
  return w;
}

} // namespace

TEST(ServingSystems, PaperSystemsOn64H800) {
  ServingModel m = h800Model(glm47());
  AgentWorkload w = shortSwe();
  auto pipe = pipeSwiftSystem(m, w, 64);
  ASSERT_TRUE(pipe) << pipe.error;
  EXPECT_EQ(pipe->serving.instances, 4);
  EXPECT_EQ(pipe->serving.policy.stages, 2);
  EXPECT_EQ(pipe->serving.policy.waveInterval, 32);
  EXPECT_EQ(pipe->serving.policy.mtpDrafts, 3);
  const std::vector<int64_t> &split = pipe->serving.layout.stageLayers;
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0] + split[1], 92);
  EXPECT_GT(split[0], split[1]); // the MTP stage holds fewer layers
  EXPECT_GT(pipe->serving.policy.kvPages, 10000);

  auto wide = wideEpSystem(m, w, 64, true);
  ASSERT_TRUE(wide) << wide.error;
  EXPECT_EQ(wide->serving.instances, 4);
  EXPECT_EQ(wide->serving.policy.stages, 1);
  EXPECT_EQ(wide->serving.policy.waveClock, WaveClock::SinceFirstWaiting);
  EXPECT_EQ(wide->serving.policy.admitEarlyAt, 16);

  // DP-attention ranks: a task's attention stays on one of the 8 chips.
  EXPECT_EQ(pipe->serving.policy.attentionRanks, 8);
  EXPECT_EQ(wide->serving.policy.attentionRanks, 16);

  // vLLM-like PP2: the same layout as PipeSwift (DP-attention included)
  // without MTP or the uneven split; TP attention on request.
  auto vllm = vllmPp2System(m, w, 64);
  ASSERT_TRUE(vllm) << vllm.error;
  EXPECT_EQ(vllm->serving.layout.stageLayers, (std::vector<int64_t>{}));
  EXPECT_TRUE(vllm->serving.layout.dpAttention);
  EXPECT_EQ(vllm->serving.policy.attentionRanks, 8);
  EXPECT_EQ(vllm->serving.policy.mtpDrafts, 0);
  EXPECT_EQ(vllm->serving.policy.decodePartitioning,
            DecodePartitioning::StaticByCount);
  auto vllmTp = vllmPp2System(m, w, 64, 2, 8, false);
  ASSERT_TRUE(vllmTp) << vllmTp.error;
  EXPECT_FALSE(vllmTp->serving.layout.dpAttention);
  EXPECT_EQ(vllmTp->serving.policy.attentionRanks, 0);

  // Memory: PipeSwift (SGLang's reading of the 0.8) keeps the reserve
  // outside the budget; vLLM's reading keeps it inside.
  ServingModel pool = m;
  pool.cost.memoryBudget = MemoryBudget::StaticPool;
  auto pipeMemory =
      instanceMemory(m.shape, m.hardware, pipe->serving.layout, pool.cost);
  ASSERT_TRUE(pipeMemory);
  EXPECT_EQ(pipe->serving.policy.kvPages, pipeMemory->kvPages);
  auto vllmMemory =
      instanceMemory(m.shape, m.hardware, vllm->serving.layout, m.cost);
  ASSERT_TRUE(vllmMemory);
  EXPECT_EQ(vllm->serving.policy.kvPages, vllmMemory->kvPages);

  auto pd = pdDisaggregatedSystem(m, w, 64);
  ASSERT_TRUE(pd) << pd.error;
  EXPECT_EQ(pd->chips, 128);
  EXPECT_EQ(pd->serving.instances, 4);
  EXPECT_EQ(pd->decode.instances, 4);
  // 2 x 8 KV heads x 128 x 2 bytes x (92 layers + the MTP layer).
  EXPECT_EQ(pd->transfer.bytesPerToken, 2.0 * 8 * 128 * 2 * 93);
  EXPECT_EQ(pd->transfer.lanes, 16);

  // 40 chips do not tile into PP2 x EP8 instances.
  EXPECT_FALSE(pipeSwiftSystem(m, w, 40));
}

TEST(ServingSystems, EverySystemReplaysTheSameWorkload) {
  ServingModel m = h800Model(glm47());
  AgentWorkload w = shortSwe();
  int64_t turns = 0;
  for (const AgentTask &t : w.tasks)
    turns += int64_t(t.turns.size());
  std::vector<Result<ServingSystem>> systems = {
      pipeSwiftSystem(m, w, 64),       wideEpSystem(m, w, 64, false),
      wideEpSystem(m, w, 64, true),    vllmPp2System(m, w, 64),
      pdDisaggregatedSystem(m, w, 64), pipeSwiftSystem(m, w, 64, 32, 0)};
  for (const auto &s : systems) {
    ASSERT_TRUE(s) << s.error;
    auto r = replay(w, *s);
    ASSERT_TRUE(r) << s->name << ": " << r.error;
    EXPECT_TRUE(r->completed) << s->name;
    EXPECT_EQ(r->metrics.turns, turns) << s->name;
    EXPECT_EQ(r->metrics.tasks, 24) << s->name;
    EXPECT_GT(r->metrics.overallJct, 0) << s->name;
    EXPECT_LE(r->metrics.p50TurnJct, r->metrics.p90TurnJct);
    EXPECT_LE(r->metrics.p90TurnJct, r->metrics.p99TurnJct);
    // Each task needs at least its tool waits.
    for (const AgentTask &t : w.tasks) {
      double tools = 0;
      for (const AgentTurn &u : t.turns)
        tools += u.toolLatency;
      EXPECT_GT(r->metrics.overallJct, tools);
    }
  }
}

TEST(ServingSystems, ChoosesTheWaveIntervalOfLeastJct) {
  ServingModel m = h800Model(glm47());
  AgentWorkload w = shortSwe();
  auto pipe = pipeSwiftSystem(m, w, 64);
  ASSERT_TRUE(pipe);
  auto sweep = chooseWaveInterval(w, *pipe, {2, 8, 64});
  ASSERT_TRUE(sweep) << sweep.error;
  // The three candidates, then the midpoints around the best of them.
  ASSERT_EQ(sweep->intervals.size(), 5u);
  EXPECT_EQ(std::vector<int64_t>(sweep->intervals.begin(),
                                 sweep->intervals.begin() + 3),
            (std::vector<int64_t>{2, 8, 64}));
  size_t first = size_t(std::min_element(sweep->overallJct.begin(),
                                         sweep->overallJct.begin() + 3) -
                        sweep->overallJct.begin());
  std::vector<std::vector<int64_t>> midpoints = {{1, 3}, {5, 12}, {45, 91}};
  EXPECT_EQ(std::vector<int64_t>(sweep->intervals.begin() + 3,
                                 sweep->intervals.end()),
            midpoints[first]);
  auto best =
      std::min_element(sweep->overallJct.begin(), sweep->overallJct.end());
  EXPECT_EQ(sweep->bestJct, *best);
  EXPECT_EQ(sweep->best,
            sweep->intervals[size_t(best - sweep->overallJct.begin())]);
  // The chosen I replays to the JCT the sweep recorded.
  auto again = replay(w, withWaveInterval(*pipe, sweep->best));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->metrics.overallJct, sweep->bestJct);
}

TEST(ServingSystems, LayoutsWithinTheBudget) {
  ServingModel m = h800Model(glm47());
  std::vector<LayoutCandidate> all = enumerateLayouts(m, 64, 3);
  auto has = [&](int64_t pp, int64_t ep, bool dp) -> const LayoutCandidate * {
    for (const LayoutCandidate &c : all)
      if (c.layout.pp == pp && c.layout.ep == ep && c.layout.dpAttention == dp)
        return &c;
    return nullptr;
  };
  const LayoutCandidate *paper = has(2, 8, true);
  ASSERT_NE(paper, nullptr);
  EXPECT_EQ(paper->infeasible, "");
  EXPECT_EQ(paper->instances, 4);
  const LayoutCandidate *oneChip = has(1, 1, false);
  ASSERT_NE(oneChip, nullptr);
  EXPECT_NE(oneChip->infeasible, "");   // 358 B parameters on one H800
  EXPECT_EQ(has(1, 1, true), nullptr);  // DP-attention needs ep > 1
  EXPECT_EQ(has(1, 3, false), nullptr); // 3 does not divide 64
  for (const LayoutCandidate &c : all)
    EXPECT_EQ(64 % c.layout.chips(), 0);
}

TEST(ServingSystems, PlansTheFixedLayoutAndChoosesI) {
  ServingModel m = h800Model(glm47());
  AgentWorkload w = shortSwe();
  ServingPlanRequest request;
  request.chips = 64;
  request.pp = 2;
  request.ep = 8;
  request.dpAttention = 1;
  request.mtpDrafts = 3;
  auto plan = planServing(w, m, request);
  ASSERT_TRUE(plan) << plan.error;
  EXPECT_EQ(plan->layout.pp, 2);
  EXPECT_EQ(plan->layout.ep, 8);
  EXPECT_TRUE(plan->layout.dpAttention);
  EXPECT_EQ(plan->waveInterval, plan->sweep.best);
  EXPECT_EQ(plan->predicted.metrics.overallJct, plan->sweep.bestJct);
  EXPECT_EQ(plan->system.serving.policy.waveInterval, plan->waveInterval);
  // The other layouts were set aside with a reason.
  for (const LayoutCandidate &c : plan->layouts)
    if (c.layout.pp != 2 || c.layout.ep != 8 || !c.layout.dpAttention) {
      EXPECT_NE(c.infeasible, "");
    }
}

// A pipeline deeper than the planner's own range (pp <= 4) is still
// planned when the spec asks for it; degrees no candidate has are refused
// with the reason.
TEST(ServingSystems, FixedDegreesBeyondThePlannersRange) {
  ServingModel m = h800Model(glm47());
  AgentWorkload w = shortSwe();
  ServingPlanRequest request;
  request.chips = 64;
  request.pp = 8;
  request.ep = 8;
  request.dpAttention = 1;
  request.mtpDrafts = 3;
  request.waveInterval = 32;
  auto plan = planServing(w, m, request);
  ASSERT_TRUE(plan) << plan.error;
  EXPECT_EQ(plan->layout.pp, 8);
  EXPECT_EQ(plan->layout.stageLayers.size(), 8u);
  request.pp = 3; // 3 x 8 does not divide 64 chips
  auto none = planServing(w, m, request);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("no candidate layout (pp up to 4, ep dividing "
                            "the experts, pp * ep dividing the chips) has "
                            "the degrees the strategy fixes (pp 3, ep 8)"),
            std::string::npos)
      << none.error;
}

TEST(ServingSystems, RepresentativeBatchUnderDpAttention) {
  // One-turn tasks of 100 prompt and 20 output tokens: the KV halfway
  // through a decode is 100 + 10 = 110. Eight tasks on one instance of two
  // stages: 4 requests per micro-batch, 440 KV tokens. The busiest rank
  // holds one request's 110 without ranks or with 8 ranks, two (220) with
  // 2 ranks.
  AgentWorkload w;
  w.concurrency = 8;
  for (int i = 0; i < 8; ++i)
    w.tasks.push_back(task("t", {turn(0, 100, 20)}));
  DecodeBatch plain = representativeDecodeBatch(w, 1, 2, 3);
  EXPECT_EQ(plain.requests, 4);
  EXPECT_EQ(plain.tokensPerRequest, 4);
  EXPECT_EQ(plain.kvTokens, 440);
  EXPECT_EQ(plain.maxKv, 110);
  EXPECT_EQ(representativeDecodeBatch(w, 1, 2, 3, 2).maxKv, 220);
  EXPECT_EQ(representativeDecodeBatch(w, 1, 2, 3, 8).maxKv, 110);
}
