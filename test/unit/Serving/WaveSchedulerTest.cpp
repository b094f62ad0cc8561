//===- WaveSchedulerTest.cpp - PipeSwift's per-instance scheduler ---------===//
#include "passes/Serving/WaveScheduler.h"

#include "ServingFixtures.h"

#include "passes/Instantiate/BatchSampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace plexus::serving;
using namespace plexus::serving::testing;

namespace {

SchedulerPolicy policyOf(int64_t stages, int64_t interval, int64_t pages,
                         int64_t pageTokens = 16) {
  SchedulerPolicy p;
  p.stages = stages;
  p.waveInterval = interval;
  p.kvPages = pages;
  p.pageTokens = pageTokens;
  p.weight = {1e-4, 1e-9, 1e-3};
  return p;
}

TurnArrival arrival(const std::vector<AgentTask> &tasks, int64_t task,
                    int64_t turn, double time = 0) {
  TurnArrival a;
  a.task = task;
  a.turn = turn;
  a.time = time;
  a.data = &tasks[size_t(task)].turns[size_t(turn)];
  a.lastTurn = turn + 1 == int64_t(tasks[size_t(task)].turns.size());
  return a;
}

/// What happened at one step of a driven run.
struct Step {
  Decision decision;
  std::vector<StepCompletion> completions;
};

/// Drives `copies` schedulers through `tasks` on a step clock: every task
/// starts at step 0, and a finished turn's next turn arrives
/// ceil(tool latency) steps later. All copies see the same events, each in
/// its own shuffled order within a step (seeded by the copy's index);
/// every decision and completion list must agree. Returns copy 0's steps.
std::vector<Step> drive(const std::vector<AgentTask> &tasks,
                        const SchedulerPolicy &policy, int copies,
                        int64_t maxSteps = 200000) {
  std::vector<WaveScheduler> s;
  for (int c = 0; c < copies; ++c)
    s.emplace_back(policy);
  std::vector<std::pair<int64_t, TurnArrival>> pending; // (step, arrival)
  for (size_t t = 0; t < tasks.size(); ++t)
    pending.push_back({0, arrival(tasks, int64_t(t), 0, 0.0)});
  std::vector<Step> log;
  size_t finished = 0;
  for (int64_t step = 0; finished < tasks.size() && step < maxSteps; ++step) {
    std::vector<TurnArrival> now;
    for (auto it = pending.begin(); it != pending.end();)
      if (it->first <= step) {
        now.push_back(it->second);
        it = pending.erase(it);
      } else {
        ++it;
      }
    for (int c = 0; c < copies; ++c) {
      std::vector<TurnArrival> order = now;
      plexus::instantiate::StepRng rng{uint64_t(c), uint64_t(step)};
      for (size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[size_t(rng.below(i))]);
      for (const TurnArrival &a : order)
        s[size_t(c)].arrive(a);
    }
    Step st;
    st.decision = s[0].decide();
    for (int c = 1; c < copies; ++c) {
      const Decision &other = s[size_t(c)].decide();
      EXPECT_TRUE(other == st.decision) << "copy " << c << " step " << step;
      if (!(other == st.decision))
        return log;
    }
    EXPECT_EQ(s[0].error(), "");
    if (st.decision.kind == StepKind::Idle) {
      if (!s[0].error().empty())
        return log;
      continue;
    }
    st.completions = s[0].complete();
    for (int c = 1; c < copies; ++c) {
      const std::vector<StepCompletion> &other = s[size_t(c)].complete();
      EXPECT_EQ(other.size(), st.completions.size());
      for (size_t i = 0; i < other.size() && i < st.completions.size(); ++i)
        EXPECT_EQ(other[i].request, st.completions[i].request);
    }
    for (const StepCompletion &done : st.completions) {
      WaveScheduler::RequestInfo r = s[0].request(done.request);
      const AgentTask &task = tasks[size_t(r.task)];
      if (r.turn + 1 < int64_t(task.turns.size())) {
        int64_t wait =
            int64_t(std::ceil(task.turns[size_t(r.turn)].toolLatency));
        pending.push_back({step + 1 + wait,
                           arrival(tasks, r.task, r.turn + 1, double(step))});
      } else {
        ++finished;
      }
    }
    log.push_back(std::move(st));
  }
  EXPECT_EQ(finished, tasks.size());
  return log;
}

/// A small synthetic workload: short contexts, a few turns, MTP recorded.
std::vector<AgentTask> smallWorkload(int64_t tasks, uint64_t seed,
                                     int64_t output = 30) {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = tasks;
  p.turns = 4;
  p.prompt = 300;
  p.newTokens = 80;
  p.outputTokens = output;
  p.toolLatency = 3;
  p.maxLen = 4096;
  return generateAgentWorkload(p, seed)->tasks;
}

} // namespace

TEST(WaveScheduler, SpmdCopiesMakeIdenticalDecisions) {
  // Eight ranks' schedulers fed the same events, each in its own order
  // within a step, with MTP, two stages, sqrt-rule waves and a KV cache
  // small enough to evict prefixes and preempt requests.
  std::vector<AgentTask> tasks = smallWorkload(24, 5);
  SchedulerPolicy p = policyOf(2, 4, 300);
  p.mtpDrafts = 3;
  p.maxMicroBatchTokens = 1024;
  std::vector<Step> log = drive(tasks, p, 8);
  ASSERT_FALSE(log.empty());
  int64_t waves = 0, evictions = 0, preemptions = 0, splitWaves = 0;
  for (const Step &s : log) {
    waves += s.decision.kind == StepKind::Wave;
    splitWaves +=
        s.decision.kind == StepKind::Wave && s.decision.microBatches.size() > 1;
    evictions += int64_t(s.decision.evictedTasks.size());
    preemptions += int64_t(s.decision.preempted.size());
  }
  // The run exercised what the copies must agree on.
  EXPECT_GT(waves, 10);
  EXPECT_GT(splitWaves, 0);
  EXPECT_GT(evictions, 0);
  EXPECT_GT(preemptions, 0);
}

TEST(WaveScheduler, RepartitionsOnlyWhenAWaveEndsOrARequestFinishes) {
  // Long outputs: many rounds per turn, as in agent serving.
  std::vector<AgentTask> tasks = smallWorkload(16, 8, 400);
  SchedulerPolicy p = policyOf(2, 8, 100000);
  p.mtpDrafts = 3;
  std::vector<Step> log = drive(tasks, p, 1);
  bool event = false; // membership changed since the last decode decision
  int64_t rounds = 0, repartitions = 0, events = 0;
  const Decision *previous = nullptr;
  for (const Step &s : log) {
    const Decision &d = s.decision;
    if (d.kind == StepKind::Wave) {
      size_t admitted = 0;
      for (const auto &mb : d.microBatches)
        admitted += mb.size();
      // Turns that need more than their first token join the decode set.
      if (admitted > s.completions.size())
        event = true;
      continue;
    }
    ASSERT_EQ(d.kind, StepKind::Decode);
    ASSERT_TRUE(d.preempted.empty()); // memory is ample here
    ++rounds;
    EXPECT_EQ(d.repartitioned, event) << "round " << rounds;
    EXPECT_EQ(d.flush, event);
    if (event)
      ++events;
    repartitions += d.repartitioned;
    // Between events the micro-batches keep their members while their KV
    // lengths grow.
    if (!event && previous) {
      EXPECT_EQ(d.microBatches, previous->microBatches);
    }
    event = !s.completions.empty();
    previous = &d;
  }
  EXPECT_EQ(repartitions, events);
  EXPECT_GT(rounds, 4 * repartitions); // far fewer than rounds
  EXPECT_GT(repartitions, 0);
}

TEST(WaveScheduler, WaveIntervalGatesAdmission) {
  // A decodes for a while; B arrives after A's first round. With I = 4 it
  // waits for the fourth round boundary since A's wave; with I = 1 it goes
  // in at the next boundary.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 10, 20)}),
                                  task("B", {turn(0, 10, 2)})};
  for (int64_t interval : {1, 4}) {
    WaveScheduler s(policyOf(1, interval, 1000));
    s.arrive(arrival(tasks, 0, 0));
    std::vector<StepKind> kinds;
    for (int step = 0; step < 8; ++step) {
      if (step == 2)
        s.arrive(arrival(tasks, 1, 0, 2.0));
      kinds.push_back(s.decide().kind);
      s.complete();
    }
    using K = StepKind;
    if (interval == 1) {
      EXPECT_EQ(kinds,
                (std::vector<K>{K::Wave, K::Decode, K::Wave, K::Decode,
                                K::Decode, K::Decode, K::Decode, K::Decode}));
    } else {
      EXPECT_EQ(kinds,
                (std::vector<K>{K::Wave, K::Decode, K::Decode, K::Decode,
                                K::Decode, K::Wave, K::Decode, K::Decode}));
    }
  }
}

TEST(WaveScheduler, PrefillDelayClockStartsWhenATurnWaits) {
  // SGLang's delayer as a policy: the clock counts rounds with a turn
  // waiting (here 3), or a wave starts once 2 turns wait.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 10, 30)}),
                                  task("B", {turn(0, 10, 2)}),
                                  task("C", {turn(0, 10, 2)})};
  SchedulerPolicy p = policyOf(1, 3, 1000);
  p.waveClock = WaveClock::SinceFirstWaiting;
  p.admitEarlyAt = 2;
  WaveScheduler s(p);
  s.arrive(arrival(tasks, 0, 0));
  std::vector<StepKind> kinds;
  for (int step = 0; step < 12; ++step) {
    if (step == 5)
      s.arrive(arrival(tasks, 1, 0, 5.0));
    if (step == 10) {
      s.arrive(arrival(tasks, 2, 0, 10.0));
    }
    kinds.push_back(s.decide().kind);
    s.complete();
  }
  using K = StepKind;
  // A's wave; four rounds with nothing waiting (the clock stays at 0); B
  // waits three rounds (steps 5-7) and goes in at step 8.
  EXPECT_EQ(kinds[0], K::Wave);
  for (int i : {1, 2, 3, 4, 5, 6, 7})
    EXPECT_EQ(kinds[size_t(i)], K::Decode) << i;
  EXPECT_EQ(kinds[8], K::Wave);
  EXPECT_EQ(kinds[10], K::Decode); // C alone waits...
  // ... until a second turn joins it.
  s.arrive(arrival(tasks, 1, 0, 12.0)); // (B's task again, as a new turn)
  EXPECT_EQ(s.decide().kind, K::Wave);
}

TEST(WaveScheduler, KvPagesLimitConcurrency) {
  // 10 pages of 10 tokens. Each turn needs pages for 40 prompt tokens plus
  // its first token: 5 pages. Two fit; the third waits for a finish.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 40, 3)}),
                                  task("B", {turn(0, 40, 3)}),
                                  task("C", {turn(0, 40, 3)})};
  WaveScheduler s(policyOf(1, 1, 10, 10));
  for (int64_t t = 0; t < 3; ++t)
    s.arrive(arrival(tasks, t, 0));
  const Decision &first = s.decide();
  ASSERT_EQ(first.kind, StepKind::Wave);
  EXPECT_EQ(first.microBatches, (std::vector<std::vector<int64_t>>{{0, 1}}));
  EXPECT_EQ(first.freePages, 0);
  s.complete();
  EXPECT_EQ(s.decide().kind, StepKind::Decode); // C cannot go in
  EXPECT_TRUE(s.complete().empty());
  EXPECT_EQ(s.decide().kind, StepKind::Decode);
  EXPECT_EQ(s.complete().size(), 2u); // A and B have 3 tokens
  EXPECT_EQ(s.freePages(), 10);       // last turns keep nothing
  const Decision &third = s.decide();
  ASSERT_EQ(third.kind, StepKind::Wave);
  EXPECT_EQ(third.microBatches, (std::vector<std::vector<int64_t>>{{2}}));
  EXPECT_EQ(s.counters().peakPagesUsed, 10);
}

TEST(WaveScheduler, IdlePrefixesAreEvictedLeastRecentlyUsedFirst) {
  // A's first turn leaves 42 tokens (5 pages of 10) for its second turn.
  // B needs 6 pages (51 tokens): with 10 pages one page must go, from the
  // end of A's prefix, which keeps 4 pages (40 tokens); A's second turn
  // then reuses 40 tokens and prefills 7 (the 2 lost and its 5 new). With
  // 20 pages it reuses the whole prefix. (Before tail eviction the whole
  // prefix went and A2 prefilled all 47 tokens.)
  std::vector<AgentTask> tasks = {
      task("A", {turn(0, 40, 2, 1.0), turn(42, 5, 2)}),
      task("B", {turn(0, 50, 2)})};
  for (int64_t pages : {10, 20}) {
    WaveScheduler s(policyOf(1, 1, pages, 10));
    s.arrive(arrival(tasks, 0, 0));
    s.decide();
    s.complete(); // A1's prefill
    s.decide();
    EXPECT_EQ(s.complete().size(), 1u); // A1 done, its prefix kept
    s.arrive(arrival(tasks, 1, 0));
    const Decision &wave = s.decide();
    ASSERT_EQ(wave.kind, StepKind::Wave);
    if (pages == 10) {
      EXPECT_EQ(wave.evictedTasks, (std::vector<int64_t>{0}));
    } else {
      EXPECT_TRUE(wave.evictedTasks.empty());
    }
    s.complete();
    s.arrive(arrival(tasks, 0, 1));
    while (!s.idle()) {
      s.decide();
      s.complete();
    }
    // Prefilled: A1's 40, B's 50, and A2's 5 new or 7.
    EXPECT_EQ(s.counters().prefillTokens,
              pages == 10 ? 40 + 50 + 7 : 40 + 50 + 5);
    EXPECT_EQ(s.counters().recomputedTokens, pages == 10 ? 2 : 0);
    EXPECT_EQ(s.counters().promptTokens, 40 + 50 + 47);
    EXPECT_EQ(s.counters().evictions, pages == 10 ? 1 : 0);
  }
}

TEST(WaveScheduler, GrowthPreemptsTheNewestRequest) {
  // 10 pages of 10 tokens; A (45-token prompt) and B (40) take 5 each.
  // A's fifth decode step needs a sixth page: B, admitted last, is
  // preempted, waits at the front of the queue, and after A finishes
  // recomputes its prompt and the 5 tokens it had.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 45, 20)}),
                                  task("B", {turn(0, 40, 20)})};
  WaveScheduler s(policyOf(1, 1, 10, 10));
  s.arrive(arrival(tasks, 0, 0));
  s.arrive(arrival(tasks, 1, 0));
  ASSERT_EQ(s.decide().microBatches.front().size(), 2u);
  s.complete();
  for (int round = 1; round <= 4; ++round) {
    const Decision &d = s.decide();
    EXPECT_TRUE(d.preempted.empty()) << round;
    s.complete();
  }
  const Decision &fifth = s.decide();
  EXPECT_EQ(fifth.preempted, (std::vector<int64_t>{1}));
  EXPECT_TRUE(fifth.repartitioned);
  EXPECT_EQ(s.request(1).generated, 5);
  s.complete();
  while (!s.idle()) {
    s.decide();
    s.complete();
  }
  EXPECT_EQ(s.counters().preemptions, 1);
  EXPECT_EQ(s.counters().prefillTokens, 45 + 40 + 45);
  EXPECT_GE(s.request(1).generated, 20);
}

TEST(WaveScheduler, TurnLargerThanTheCacheIsAnError) {
  std::vector<AgentTask> tasks = {task("A", {turn(0, 40, 2)})};
  WaveScheduler s(policyOf(1, 1, 2, 10));
  s.arrive(arrival(tasks, 0, 0));
  EXPECT_EQ(s.decide().kind, StepKind::Idle);
  EXPECT_EQ(s.error(),
            "task 0 turn 1 needs 5 KV pages (41 tokens), but the instance "
            "holds 2");
}

TEST(WaveScheduler, DecodeStepsEmitTheRecordedAcceptedLengths) {
  // The prefill emits token 1; the steps then emit 4, 1 and 3 (9 tokens).
  std::vector<AgentTask> tasks = {task("A", {turn(0, 10, 9, 0, {4, 1, 3})})};
  auto stepsToFinish = [&](int64_t drafts, double mean) {
    SchedulerPolicy p = policyOf(1, 1, 1000);
    p.mtpDrafts = drafts;
    p.meanAcceptedTokens = mean;
    WaveScheduler s(p);
    s.arrive(arrival(tasks, 0, 0));
    s.decide();
    s.complete();
    std::vector<int64_t> generated;
    while (!s.idle()) {
      EXPECT_EQ(s.decide().decode.front().tokensPerRequest, 1 + drafts);
      s.complete();
      generated.push_back(s.request(0).generated);
    }
    return generated;
  };
  EXPECT_EQ(stepsToFinish(3, 0), (std::vector<int64_t>{5, 6, 9}));
  // One draft caps a step at 2 tokens: 2, 1, 2, then the mean of 2.
  EXPECT_EQ(stepsToFinish(1, 2.0), (std::vector<int64_t>{3, 4, 6, 8, 10}));
  // Without MTP, one token a step.
  EXPECT_EQ(stepsToFinish(0, 0).size(), 8u);
  // Unrecorded turns use the mean: 2.5 alternates 2 and 3 tokens.
  std::vector<AgentTask> bare = {task("B", {turn(0, 10, 11)})};
  SchedulerPolicy p = policyOf(1, 1, 1000);
  p.mtpDrafts = 3;
  p.meanAcceptedTokens = 2.5;
  WaveScheduler s(p);
  s.arrive(arrival(bare, 0, 0));
  s.decide();
  s.complete();
  std::vector<int64_t> generated;
  while (!s.idle()) {
    s.decide();
    s.complete();
    generated.push_back(s.request(0).generated);
  }
  EXPECT_EQ(generated, (std::vector<int64_t>{3, 6, 8, 11}));
}

TEST(WaveScheduler, StaticPartitioningNeverRepartitions) {
  std::vector<AgentTask> tasks = smallWorkload(10, 2);
  SchedulerPolicy p = policyOf(2, 1, 100000);
  p.decodePartitioning = DecodePartitioning::StaticByCount;
  p.splitPrefill = false;
  std::vector<Step> log = drive(tasks, p, 2);
  for (const Step &s : log) {
    EXPECT_FALSE(s.decision.repartitioned);
    if (s.decision.kind == StepKind::Decode) {
      EXPECT_FALSE(s.decision.flush);
    }
    if (s.decision.kind == StepKind::Wave) {
      EXPECT_EQ(s.decision.microBatches.size(), 1u);
    }
  }
}

TEST(WaveScheduler, WavesAreCutByTheSquareRootRule) {
  // gamma = 1 and weights alpha x with alpha = 1: W = 800 over 2 stages
  // gives K = 20; eight turns cap it at 8 micro-batches of one turn each.
  std::vector<AgentTask> tasks;
  for (int i = 0; i < 8; ++i)
    tasks.push_back(task("t", {turn(0, 100, 2)}));
  SchedulerPolicy p = policyOf(2, 1, 100000);
  p.weight = {1.0, 0.0, 1.0};
  WaveScheduler s(p);
  for (int64_t t = 0; t < 8; ++t)
    s.arrive(arrival(tasks, t, 0));
  const Decision &d = s.decide();
  ASSERT_EQ(d.kind, StepKind::Wave);
  EXPECT_EQ(d.microBatches.size(), 8u);
  // gamma = 100: K* = sqrt(800 / 200) = 2, two micro-batches of 400 tokens.
  p.weight.gamma = 100;
  WaveScheduler t(p);
  for (int64_t i = 0; i < 8; ++i)
    t.arrive(arrival(tasks, i, 0));
  const Decision &e = t.decide();
  ASSERT_EQ(e.prefill.size(), 2u);
  EXPECT_EQ(e.prefill[0].tokens, 400);
  EXPECT_EQ(e.prefill[1].tokens, 400);
}

TEST(WaveScheduler, EvictionTakesOnlyThePagesNeededFromTheLeastRecentTail) {
  // Pages of 10 tokens, 12 in all. A (30-token prompt, 2 out) and B (30, 2)
  // finish one after the other and keep 4 pages each (32 tokens); A was
  // used first. C needs 6 pages (50 + 1 tokens) with 4 free: the 2 missing
  // pages come from A's tail (A keeps 2 pages, 20 tokens); B keeps all 4.
  std::vector<AgentTask> tasks = {
      task("A", {turn(0, 30, 2, 9.0), turn(32, 4, 2)}),
      task("B", {turn(0, 30, 2, 9.0), turn(32, 4, 2)}),
      task("C", {turn(0, 50, 2)})};
  WaveScheduler s(policyOf(1, 1, 12, 10));
  s.arrive(arrival(tasks, 0, 0));
  s.decide();
  s.complete();
  s.decide();
  EXPECT_EQ(s.complete().size(), 1u); // A1 done: 4 pages kept
  s.arrive(arrival(tasks, 1, 0));
  s.decide();
  s.complete();
  s.decide();
  EXPECT_EQ(s.complete().size(), 1u); // B1 done: 4 pages kept
  EXPECT_EQ(s.freePages(), 4);
  s.arrive(arrival(tasks, 2, 0));
  const Decision &wave = s.decide();
  ASSERT_EQ(wave.kind, StepKind::Wave);
  EXPECT_EQ(wave.evictedTasks, (std::vector<int64_t>{0}));
  EXPECT_EQ(wave.freePages, 0);
  s.complete();
  while (!s.idle()) {
    s.decide();
    s.complete();
  }
  // A2 and B2 arrive: A reuses 20 of its 32 cached tokens, B all 32.
  s.arrive(arrival(tasks, 0, 1));
  s.arrive(arrival(tasks, 1, 1));
  const Decision &next = s.decide();
  ASSERT_EQ(next.kind, StepKind::Wave);
  ASSERT_EQ(next.prefill.size(), 1u);
  EXPECT_EQ(next.prefill[0].tokens, (36 - 20) + 4);
  EXPECT_EQ(s.counters().recomputedTokens, 12);
}

TEST(WaveScheduler, DpAttentionRanksHoldWholeTasks) {
  // Two attention ranks; tasks go to the rank with fewer tasks (ties: the
  // lower): A and C on rank 0, B on rank 1. One wave of the three
  // 10-token prompts in one micro-batch: rank 0 does A's and C's attention
  // (100 + 100), rank 1 B's (100), so the busiest rank's quadratic work is
  // 200 (the largest request's would be 100). Decode: after the first
  // token each holds 11 tokens; one micro-batch (one stage), rank 0 reads
  // 22 of them.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 10, 3)}),
                                  task("B", {turn(0, 10, 3)}),
                                  task("C", {turn(0, 10, 3)})};
  SchedulerPolicy p = policyOf(1, 1, 1000);
  p.attentionRanks = 2;
  WaveScheduler s(p);
  for (int64_t t = 0; t < 3; ++t)
    s.arrive(arrival(tasks, t, 0));
  const Decision &wave = s.decide();
  ASSERT_EQ(wave.kind, StepKind::Wave);
  ASSERT_EQ(wave.prefill.size(), 1u);
  EXPECT_EQ(wave.prefill[0].quadratic, 300.0);
  EXPECT_EQ(wave.prefill[0].maxQuadratic, 200.0);
  s.complete();
  const Decision &round = s.decide();
  ASSERT_EQ(round.kind, StepKind::Decode);
  EXPECT_EQ(round.decode[0].kvTokens, 33);
  EXPECT_EQ(round.decode[0].maxKv, 22);
  // Without ranks the same fields carry the largest request's share.
  WaveScheduler plain(policyOf(1, 1, 1000));
  for (int64_t t = 0; t < 3; ++t)
    plain.arrive(arrival(tasks, t, 0));
  EXPECT_EQ(plain.decide().prefill[0].maxQuadratic, 100.0);
  plain.complete();
  EXPECT_EQ(plain.decide().decode[0].maxKv, 11);
}

TEST(WaveScheduler, RankAwareWavesKeepRanksParallel) {
  // Two stages, two ranks, gamma = 0.1 and alpha = 0: four turns whose
  // attention (beta q x ranks = 1e-6 x 1e6 x 2 = 2 s each) dominates. On
  // distinct ranks two turns run side by side in one micro-batch, so the
  // cut keeps each micro-batch to one turn per rank: two micro-batches of
  // {rank 0, rank 1}, each costing 2 s (T = 2 (1 + 0.1) + 1.1 = 3.3 s,
  // against 4 micro-batches of one turn: 4 x 1.1 + 1.1 = 5.5 s).
  std::vector<AgentTask> tasks;
  for (int i = 0; i < 4; ++i)
    tasks.push_back(task("t", {turn(0, 1000, 2)}));
  SchedulerPolicy p = policyOf(2, 1, 100000);
  p.weight = {0.0, 1e-6, 0.1};
  p.attentionRanks = 2;
  WaveScheduler s(p);
  for (int64_t t = 0; t < 4; ++t)
    s.arrive(arrival(tasks, t, 0));
  const Decision &d = s.decide();
  ASSERT_EQ(d.kind, StepKind::Wave);
  ASSERT_EQ(d.prefill.size(), 2u);
  for (const PrefillBatch &b : d.prefill) {
    EXPECT_EQ(b.requests, 2);
    EXPECT_EQ(b.maxQuadratic, 1e6); // one turn per rank
  }
}

TEST(WaveScheduler, KvAwareRoutingWeighsThePrefillAgainstTheLoad) {
  // Two ranks, Dynamo's cost: w x (prompt tokens to prefill on the rank) +
  // (tokens in flight there). C (1000 tokens, long output) goes to rank 0;
  // B (1000, one token): 1000 + 1000 on rank 0 against 1000 on rank 1, so
  // rank 1; A (100, one token): 100 + 1000 on either, so the lower, rank 0.
  // The wave finishes A and B; C decodes with 1001 tokens on rank 0. A's
  // second turn (101 cached, 12 new): staying costs 12 + 1001, moving to the
  // idle rank 1 costs 113, so it moves and prefills all 113 tokens. With
  // w = 100 staying (1200 + 1001) beats moving (11300): it prefills 12.
  std::vector<AgentTask> tasks = {
      task("C", {turn(0, 1000, 50)}), task("B", {turn(0, 1000, 1)}),
      task("A", {turn(0, 100, 1), turn(101, 12, 1)})};
  auto secondWaveTokens = [&](DpRouting routing, double w, int64_t &moves) {
    SchedulerPolicy p = policyOf(1, 1, 1000);
    p.attentionRanks = 2;
    p.routing = routing;
    p.routingOverlapWeight = w;
    WaveScheduler s(p);
    for (int64_t t = 0; t < 3; ++t)
      s.arrive(arrival(tasks, t, 0));
    EXPECT_EQ(s.decide().kind, StepKind::Wave);
    EXPECT_EQ(s.complete().size(), 2u); // A and B
    s.arrive(arrival(tasks, 2, 1));
    for (int i = 0; i < 100; ++i) {
      const Decision &d = s.decide();
      if (d.kind == StepKind::Wave) {
        moves = s.counters().rankMoves;
        return d.prefill[0].tokens;
      }
      s.complete();
    }
    return int64_t(-1);
  };
  int64_t moves = -1;
  EXPECT_EQ(secondWaveTokens(DpRouting::KvAware, 1.0, moves), 113);
  EXPECT_EQ(moves, 1);
  EXPECT_EQ(secondWaveTokens(DpRouting::KvAware, 100.0, moves), 12);
  EXPECT_EQ(moves, 0);
  // Pinned (the default): A's turn stays with its prefix.
  EXPECT_EQ(secondWaveTokens(DpRouting::PinnedByTaskCount, 1.0, moves), 12);
  EXPECT_EQ(moves, 0);
}

TEST(WaveScheduler, DecodePreallocationKeepsTheReservePerRequest) {
  // 10 pages of 16 tokens, 16 tokens kept per request held. A 100-token
  // prompt: 100 + 16 <= 160, 7 pages taken (3 free). A 10-token prompt:
  // 10 + 16 <= 48 - 16, 1 page (2 free). Another: 26 > 32 - 32, refused.
  SchedulerPolicy p = policyOf(1, 1, 10);
  p.role = InstanceRole::DecodeOnly;
  p.reservedDecodeTokens = 16;
  WaveScheduler s(p);
  EXPECT_TRUE(s.holdsNothing());
  EXPECT_TRUE(s.preallocate(0, 100));
  EXPECT_EQ(s.freePages(), 3);
  EXPECT_TRUE(s.preallocate(1, 10));
  EXPECT_EQ(s.freePages(), 2);
  EXPECT_FALSE(s.preallocate(2, 10));
  EXPECT_EQ(s.freePages(), 2);
  EXPECT_FALSE(s.holdsNothing());
  // Task 0's turn arrives with its KV: it owns the 7 pages, and its first
  // step (101 tokens + 1) needs no more.
  std::vector<AgentTask> tasks = {task("A", {turn(0, 100, 5)})};
  TurnArrival a = arrival(tasks, 0, 0);
  a.prefilled = true;
  s.arrive(a);
  EXPECT_EQ(s.decide().kind, StepKind::Decode);
  EXPECT_EQ(s.freePages(), 2);
}
