//===- ReplaySimulatorTest.cpp - Deterministic replay of agent jobs -------===//
#include "passes/Serving/ReplaySimulator.h"

#include "ServingFixtures.h"

#include <gtest/gtest.h>

using namespace plexus::serving;
using namespace plexus::serving::testing;

namespace {

/// One stage: a prefill wave takes 1 s whatever it holds, a decode round
/// 0.5 s, hops are free.
LinearStageCoefficients handCosts() {
  LinearStageCoefficients c;
  c.prefillFixed = 1.0;
  c.decodeFixed = 0.5;
  return c;
}

SchedulerPolicy handPolicy(int64_t pages = 100000, int64_t pageTokens = 16) {
  SchedulerPolicy p;
  p.waveInterval = 1;
  p.kvPages = pages;
  p.pageTokens = pageTokens;
  return p;
}

const TurnRecord *find(const ReplayResult &r, int64_t task, int64_t turn) {
  for (const TurnRecord &t : r.turns)
    if (t.task == task && t.turn == turn)
      return &t;
  return nullptr;
}

/// A PD unit on the hand costs: a prefill side of ample pages; a decode
/// side of 2 pages of 16 tokens keeping 4 tokens per request held; KV of 1
/// byte a token over a lane of `bandwidth` bytes/s; pre-allocation on.
ServingSystem preallocatingPd(double bandwidth) {
  ServingSystem s;
  s.disaggregated = true;
  s.serving = linearSystem(1, handCosts(), handPolicy()).serving;
  s.serving.policy.role = InstanceRole::PrefillOnly;
  s.decode = linearSystem(1, handCosts(), handPolicy(2)).serving;
  s.decode.policy.role = InstanceRole::DecodeOnly;
  s.decode.policy.reservedDecodeTokens = 4;
  s.transfer.bytesPerToken = 1;
  s.transfer.bandwidth = bandwidth;
  s.transfer.preallocate = true;
  return s;
}

} // namespace

TEST(ReplaySimulator, PercentilesAreNearestRank) {
  std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(nearestRankPercentile(ten, 0.50), 5);
  EXPECT_EQ(nearestRankPercentile(ten, 0.90), 9);
  EXPECT_EQ(nearestRankPercentile(ten, 0.99), 10);
  EXPECT_EQ(nearestRankPercentile({4}, 0.5), 4);
  EXPECT_EQ(nearestRankPercentile({}, 0.5), 0);
}

TEST(ReplaySimulator, ThreeTurnsByHand) {
  // Task A: turn 1 prefills 10 tokens and emits 3, its tool takes 1 s; turn
  // 2 reuses those 13 tokens and adds 5, emitting 2. Task B: one turn of 10
  // tokens emitting 2. Both start at 0.
  //   [0, 1]     wave {A1, B1}: first tokens
  //   [1, 1.5]   round: A1 has 2, B1 has 2: B done at 1.5
  //   [1.5, 2]   round: A1 has 3: done at 2; A2 arrives at 3
  //   [3, 4]     wave {A2};  [4, 4.5] round: A2 done at 4.5
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("A", {turn(0, 10, 3, 1.0), turn(13, 5, 2)}),
             task("B", {turn(0, 10, 2)})};
  auto r = replay(w, linearSystem(1, handCosts(), handPolicy()));
  ASSERT_TRUE(r) << r.error;
  ASSERT_TRUE(r->completed);
  ASSERT_EQ(r->turns.size(), 3u);
  EXPECT_DOUBLE_EQ(find(*r, 0, 0)->finish, 2.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->finish, 1.5);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->arrival, 3.0);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->finish, 4.5);
  const ServingMetrics &m = r->metrics;
  EXPECT_DOUBLE_EQ(m.overallJct, 4.5);
  EXPECT_DOUBLE_EQ(m.meanTurnJct, (2.0 + 1.5 + 1.5) / 3);
  EXPECT_DOUBLE_EQ(m.p50TurnJct, 1.5); // rank 2 of {1.5, 1.5, 2}
  EXPECT_DOUBLE_EQ(m.p90TurnJct, 2.0);
  EXPECT_DOUBLE_EQ(m.p99TurnJct, 2.0);
  EXPECT_DOUBLE_EQ(m.meanTaskJct, (4.5 + 1.5) / 2);
  EXPECT_EQ(m.outputTokens, 7);
  EXPECT_DOUBLE_EQ(m.outputTokensPerSecond, 7 / 4.5);
  EXPECT_DOUBLE_EQ(m.tasksPerSecond, 2 / 4.5);
  // Prompts 10 + 10 + 18; prefilled 10 + 10 + 5.
  EXPECT_DOUBLE_EQ(m.prefixHitRate, 13.0 / 38.0);
  EXPECT_EQ(r->counters.waves, 2);
  EXPECT_EQ(r->counters.decodeRounds, 3);
  EXPECT_DOUBLE_EQ(r->waveSeconds, 2.0);
  EXPECT_DOUBLE_EQ(r->decodeSeconds, 1.5);
  // The profile: one stage busy 2 s with waves and 1.5 s decoding; A2 was
  // admitted as it arrived (3) and had its first token at 4.
  EXPECT_EQ(r->stagePrefillSeconds, (std::vector<double>{2.0}));
  EXPECT_EQ(r->stageDecodeSeconds, (std::vector<double>{1.5}));
  EXPECT_DOUBLE_EQ(r->flushIdleSeconds, 0.0);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->admitted, 3.0);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->firstToken, 4.0);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->queueing(), 0.0);
  EXPECT_EQ(r->counters.waveRequests, 3);
  // Rounds: {A1, B1}, {A1}, {A2}; each emits one token per request.
  EXPECT_EQ(r->counters.decodeRequestSteps, 4);
  EXPECT_EQ(r->counters.decodeTokens, 4);

  // Concurrency 1: B starts when A finishes, at 4.5: wave [4.5, 5.5],
  // round [5.5, 6].
  w.concurrency = 1;
  auto serial = replay(w, linearSystem(1, handCosts(), handPolicy()));
  ASSERT_TRUE(serial);
  EXPECT_DOUBLE_EQ(serial->metrics.overallJct, 6.0);
  EXPECT_DOUBLE_EQ(find(*serial, 1, 0)->arrival, 4.5);
}

TEST(ReplaySimulator, TwoStagePipelineByHand) {
  // Two stages; prefill 1 s per stage, decode 1 s per stage per
  // micro-batch, free hops. A and B (10 tokens, 3 out) go in one wave
  // (no weights, so K = 1): stage 0 [0, 1], stage 1 [1, 2]. Then one
  // micro-batch each (equal KV: A to the first):
  //   round 1: A s0 [2, 3] s1 [3, 4]; B s0 [3, 4] s1 [4, 5]
  //   round 2: A s0 [4, 5] s1 [5, 6] -> A done at 6
  //            B s0 [5, 6] s1 [6, 7] -> B done at 7
  // Round 2 starts at 4, before B's round 1 ends: rounds overlap.
  LinearStageCoefficients c;
  c.prefillFixed = 1;
  c.decodeFixed = 1;
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("A", {turn(0, 10, 3)}), task("B", {turn(0, 10, 3)})};
  auto r = replay(w, linearSystem(2, c, handPolicy()));
  ASSERT_TRUE(r) << r.error;
  EXPECT_DOUBLE_EQ(find(*r, 0, 0)->finish, 6.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->finish, 7.0);
  EXPECT_DOUBLE_EQ(r->metrics.overallJct, 7.0);
  EXPECT_EQ(r->counters.repartitions, 1); // when the wave ended
  // A 0.5 s hop between the stages and 0.25 s of feedback: the wave ends
  // at 2.5; round 1: A s0 [2.5, 3.5] s1 [4, 5], back at 5.25;
  // B s0 [3.5, 4.5] s1 [5, 6]; round 2 starts at 5.25: A s0 [5.25, 6.25]
  // s1 [6.75, 7.75]; B s0 [6.25, 7.25] s1 [7.75, 8.75].
  c.hopFixed = 0.5;
  std::vector<LinearStageCoefficients> stages = {c, c};
  stages[1].hopFixed = 0.25; // the last stage's hop is the feedback
  ServingSystem s = linearSystem(2, c, handPolicy());
  s.serving.cost = std::make_shared<LinearStageCost>(stages);
  auto hops = replay(w, s);
  ASSERT_TRUE(hops);
  EXPECT_DOUBLE_EQ(find(*hops, 0, 0)->finish, 7.75);
  EXPECT_DOUBLE_EQ(find(*hops, 1, 0)->finish, 8.75);
}

TEST(ReplaySimulator, FlushesAndStageTimesByHand) {
  // TwoStagePipelineByHand with B emitting 4 tokens. The wave ends at 2;
  // round 1: A s0 [2, 3] s1 [3, 4], B s0 [3, 4] s1 [4, 5]; round 2 at 4:
  // A s0 [4, 5] s1 [5, 6] (A done at 6), B s0 [5, 6] s1 [6, 7]. A's finish
  // repartitions, so the round decided at 6 first drains: B leaves stage 1
  // at 7, stage 0 idles [6, 7] (1 stage-second). Round 3: B s0 [7, 8]
  // s1 [8, 9]. Busy per stage: 1 s of prefill, 2 + 3 s of decode.
  LinearStageCoefficients c;
  c.prefillFixed = 1;
  c.decodeFixed = 1;
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("A", {turn(0, 10, 3)}), task("B", {turn(0, 10, 4)})};
  auto r = replay(w, linearSystem(2, c, handPolicy()));
  ASSERT_TRUE(r) << r.error;
  EXPECT_DOUBLE_EQ(find(*r, 0, 0)->finish, 6.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->finish, 9.0);
  EXPECT_EQ(r->counters.repartitions, 2);
  EXPECT_DOUBLE_EQ(r->flushIdleSeconds, 1.0);
  EXPECT_EQ(r->stagePrefillSeconds, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(r->stageDecodeSeconds, (std::vector<double>{5.0, 5.0}));
}

TEST(ReplaySimulator, KvPagesLimitConcurrency) {
  // Two single-turn tasks of 10 prompt tokens and 2 outputs; pages of 10
  // tokens. Each needs 2 pages (11 tokens). With 4 pages both go in one
  // wave: [0, 1] and a round [1, 1.5]. With 2 pages, B waits for A:
  // A [0, 1] + [1, 1.5]; B [1.5, 2.5] + [2.5, 3].
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("A", {turn(0, 10, 2)}), task("B", {turn(0, 10, 2)})};
  auto roomy = replay(w, linearSystem(1, handCosts(), handPolicy(4, 10)));
  auto tight = replay(w, linearSystem(1, handCosts(), handPolicy(2, 10)));
  ASSERT_TRUE(roomy && tight);
  EXPECT_DOUBLE_EQ(roomy->metrics.overallJct, 1.5);
  EXPECT_DOUBLE_EQ(tight->metrics.overallJct, 3.0);
  EXPECT_DOUBLE_EQ(find(*tight, 1, 0)->jct(), 3.0); // arrived at 0
  EXPECT_DOUBLE_EQ(find(*tight, 1, 0)->queueing(), 1.5);
  EXPECT_DOUBLE_EQ(find(*tight, 1, 0)->firstToken, 2.5);
  EXPECT_EQ(tight->counters.peakPagesUsed, 2);
  // One page is too few for any turn: an error, not a hang.
  auto none = replay(w, linearSystem(1, handCosts(), handPolicy(1, 10)));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("needs 2 KV pages"), std::string::npos);
}

TEST(ReplaySimulator, TasksStayOnTheirInstance) {
  // Two instances, three tasks, concurrency 2: tasks 0 and 1 start on
  // instances 0 and 1; task 2 starts when task 1 (shorter) finishes, on the
  // instance with fewer tasks, and all its turns stay there.
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("long", {turn(0, 10, 9)}), task("short", {turn(0, 10, 2)}),
             task("next", {turn(0, 10, 2, 0.5), turn(12, 3, 2)})};
  auto r = replay(w, linearSystem(1, handCosts(), handPolicy(), 2));
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(find(*r, 0, 0)->instance, 0);
  EXPECT_EQ(find(*r, 1, 0)->instance, 1);
  EXPECT_DOUBLE_EQ(find(*r, 2, 0)->arrival, 1.5);
  EXPECT_EQ(find(*r, 2, 0)->instance, 1);
  EXPECT_EQ(find(*r, 2, 1)->instance, 1);
  // 1.5 + wave 1 + round 0.5 = 3; +0.5 tool; + 1 + 0.5 = 5.
  EXPECT_DOUBLE_EQ(r->metrics.overallJct, 5.0);
}

TEST(ReplaySimulator, DisaggregatedSendsTheWholeKvEachTurn) {
  // Prefill 1 s on the prefill side; the context's KV (1 byte a token)
  // crosses a 10 B/s lane; decode rounds of 0.5 s on the decode side.
  // Turn 1: prefill [0, 1], 10 B in [1, 2], round [2, 2.5]. Turn 2 (after a
  // 1 s tool, at 3.5): the prefill side kept only the 10-token prompt, so
  // it prefills 2 + 8 tokens [3.5, 4.5] and sends all 20 tokens [4.5, 6.5];
  // round [6.5, 7].
  AgentWorkload w;
  w.concurrency = 1;
  w.tasks = {task("A", {turn(0, 10, 2, 1.0), turn(12, 8, 2)})};
  ServingSystem s;
  s.disaggregated = true;
  s.serving = linearSystem(1, handCosts(), handPolicy()).serving;
  s.serving.policy.role = InstanceRole::PrefillOnly;
  s.decode = linearSystem(1, handCosts(), handPolicy()).serving;
  s.decode.policy.role = InstanceRole::DecodeOnly;
  s.transfer.bytesPerToken = 1;
  s.transfer.bandwidth = 10;
  auto r = replay(w, s);
  ASSERT_TRUE(r) << r.error;
  ASSERT_TRUE(r->completed);
  EXPECT_DOUBLE_EQ(find(*r, 0, 0)->finish, 2.5);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->arrival, 3.5);
  EXPECT_DOUBLE_EQ(find(*r, 0, 1)->finish, 7.0);
  EXPECT_EQ(r->kvTransfers, 2);
  EXPECT_DOUBLE_EQ(r->kvTransferBytes, 30);
  EXPECT_DOUBLE_EQ(r->metrics.prefixHitRate, 10.0 / 30.0);
  // A 1.5 s timeout: the second transfer (2 s) fails the run.
  s.transfer.timeout = 1.5;
  auto late = replay(w, s);
  ASSERT_TRUE(late);
  EXPECT_FALSE(late->completed);
  EXPECT_NE(late->incomplete.find("timeout"), std::string::npos);
}

TEST(ReplaySimulator, DeterministicAndChecked) {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = 12;
  p.turns = 3;
  p.prompt = 500;
  p.newTokens = 100;
  p.outputTokens = 40;
  AgentWorkload w = *generateAgentWorkload(p, 4);
  w.concurrency = 5;
  LinearStageCoefficients c;
  c.prefillFixed = 0.01;
  c.prefillPerToken = 1e-5;
  c.prefillPerQuad = 1e-10;
  c.decodeFixed = 0.02;
  c.decodePerKv = 1e-7;
  c.hopFixed = 1e-4;
  SchedulerPolicy policy = handPolicy(400, 16);
  policy.mtpDrafts = 3;
  policy.waveInterval = 4;
  ServingSystem s = linearSystem(2, c, policy, 2);
  auto a = replay(w, s);
  auto b = replay(w, s);
  ASSERT_TRUE(a && b) << a.error;
  ASSERT_EQ(a->turns.size(), b->turns.size());
  for (size_t i = 0; i < a->turns.size(); ++i) {
    EXPECT_EQ(a->turns[i].finish, b->turns[i].finish);
    EXPECT_EQ(a->turns[i].task, b->turns[i].task);
  }
  // Every turn arrives when its predecessor finished plus its tool time.
  for (const TurnRecord &t : a->turns) {
    EXPECT_GE(t.jct(), 0);
    if (t.turn > 0) {
      const TurnRecord *prev = find(*a, t.task, t.turn - 1);
      EXPECT_DOUBLE_EQ(
          t.arrival,
          prev->finish +
              w.tasks[size_t(t.task)].turns[size_t(t.turn - 1)].toolLatency);
    }
  }
  ReplayOptions quiet;
  quiet.keepTurns = false;
  auto q = replay(w, s, quiet);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->turns.empty());
  EXPECT_EQ(q->metrics.overallJct, a->metrics.overallJct);

  // Checked inputs.
  ServingSystem bad = s;
  bad.serving.policy.stages = 3;
  EXPECT_FALSE(replay(w, bad));
  EXPECT_FALSE(replay(AgentWorkload(), s));
  AgentWorkload broken = w;
  broken.tasks[0].turns[0].outputTokens = 0;
  auto r = replay(broken, s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error.substr(0, 8), "task 0: ");
  ReplayOptions limit;
  limit.timeLimit = 0.5;
  auto stopped = replay(w, s, limit);
  ASSERT_TRUE(stopped);
  EXPECT_FALSE(stopped->completed);
}

TEST(ReplaySimulator, DisaggregatedPrefillWaitsForTheDecodeSidesPreallocation) {
  // Two single-turn tasks of 10 prompt tokens and 3 output tokens arrive at
  // 0. The decode side has 2 pages of 16 tokens and keeps 4 tokens free per
  // request it holds: A's pre-allocation needs 10 + 4 <= 32 and takes one
  // page; B's then needs 14 > 16 - 4 x 1 and waits. A: prefill [0, 1], KV
  // [1, 2], rounds [2, 2.5] and [2.5, 3]. Its pages free at 3, so B is
  // granted then: prefill [3, 4], KV [4, 5], rounds to 6. Without the
  // pre-allocation both prefill in [0, 1] and B finishes at 4.
  AgentWorkload w;
  w.concurrency = 2;
  w.tasks = {task("A", {turn(0, 10, 3)}), task("B", {turn(0, 10, 3)})};
  ServingSystem s = preallocatingPd(10);
  auto r = replay(w, s);
  ASSERT_TRUE(r) << r.error;
  ASSERT_TRUE(r->completed);
  EXPECT_DOUBLE_EQ(find(*r, 0, 0)->finish, 3.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->arrival, 0.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->admitted, 3.0);
  EXPECT_DOUBLE_EQ(find(*r, 1, 0)->finish, 6.0);
  EXPECT_EQ(r->preallocations, 2);
  EXPECT_DOUBLE_EQ(r->preallocWaitSeconds, 3.0);
  s.transfer.preallocate = false;
  auto free = replay(w, s);
  ASSERT_TRUE(free) << free.error;
  EXPECT_DOUBLE_EQ(find(*free, 1, 0)->admitted, 0.0);
  EXPECT_DOUBLE_EQ(find(*free, 1, 0)->finish, 4.0);
  EXPECT_EQ(free->preallocations, 0);
  // A prompt the empty decode side cannot pre-allocate is an error, not a
  // hang.
  s.transfer.preallocate = true;
  w.tasks[1].turns[0].newTokens = 40;
  auto big = replay(w, s);
  EXPECT_FALSE(big);
  EXPECT_NE(big.error.find("pre-allocated"), std::string::npos) << big.error;
}

TEST(ReplaySimulator, PreallocationSurvivesOneTokenTurnsAndPreemption) {
  // A turn of one output token ends on the prefill side: its decode-side
  // reservation is released, so B (after it, concurrency 1) is granted on
  // an empty decode side. A: prefill [0, 1]; B: prefill [1, 2], KV free
  // (1 GB/s), rounds [2, 2.5] and [2.5, 3].
  ServingSystem s = preallocatingPd(1e9);
  AgentWorkload one;
  one.concurrency = 1;
  one.tasks = {task("A", {turn(0, 10, 1)}), task("B", {turn(0, 10, 3)})};
  auto r = replay(one, s);
  ASSERT_TRUE(r) << r.error;
  EXPECT_NEAR(r->metrics.overallJct, 3.0, 1e-6);
  // Two long decodes and a 40-token turn on 4 decode pages, no reserve:
  // growth preempts a request while C's pages are reserved; the preempted
  // request waits for them (it is owed first) and every task finishes.
  AgentWorkload tight;
  tight.concurrency = 3;
  tight.tasks = {task("A", {turn(0, 10, 40)}), task("B", {turn(0, 10, 40)}),
                 task("C", {turn(0, 40, 3)})};
  s.decode.policy.kvPages = 4;
  s.decode.policy.reservedDecodeTokens = 0;
  auto t = replay(tight, s);
  ASSERT_TRUE(t) << t.error;
  EXPECT_TRUE(t->completed);
  EXPECT_EQ(t->metrics.tasks, 3);
  EXPECT_EQ(t->preallocations, 3);
  EXPECT_GE(t->counters.preemptions, 1);
}
