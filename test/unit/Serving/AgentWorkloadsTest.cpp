//===- AgentWorkloadsTest.cpp - Seeded synthetic agent workloads ----------===//
#include "passes/Serving/AgentWorkloads.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus::serving;

namespace {

/// The presets' means with a cap far away, so that every drawn turn is kept
/// and the sample means estimate the stated means.
SyntheticAgentParams uncapped(SyntheticAgentParams p, int64_t tasks) {
  p.tasks = tasks;
  p.maxLen = int64_t(1) << 40;
  return p;
}

void expectNear(double measured, double stated, double relative,
                const char *what) {
  EXPECT_NEAR(measured / stated, 1.0, relative)
      << what << ": measured " << measured << ", stated " << stated;
}

} // namespace

TEST(AgentWorkloads, PresetsAreTheDocumentedOnes) {
  SyntheticAgentParams swe = sweBenchPreset();
  EXPECT_EQ(swe.tasks, 512);
  EXPECT_EQ(swe.concurrency, 128);
  EXPECT_EQ(swe.turns, 30);
  EXPECT_EQ(swe.prompt, 8000);
  EXPECT_EQ(swe.newTokens, 1500);
  EXPECT_EQ(swe.outputTokens, 600);
  EXPECT_EQ(swe.toolLatency, 3.0);
  EXPECT_EQ(swe.maxLen, 81920);
  SyntheticAgentParams browse = browseCompPreset();
  EXPECT_EQ(browse.concurrency, 80);
  EXPECT_EQ(browse.turns, 20);
  EXPECT_EQ(browse.prompt, 2000);
  EXPECT_EQ(browse.newTokens, 3000);
  EXPECT_EQ(browse.outputTokens, 400);
  EXPECT_EQ(browse.toolLatency, 2.0);
  EXPECT_DOUBLE_EQ(expectedAcceptedTokens(3, 0.75),
                   1 + 0.75 + 0.5625 + 0.421875);
  EXPECT_EQ(expectedAcceptedTokens(0, 0.75), 1.0);
}

TEST(AgentWorkloads, DeterministicPerSeedAndTask) {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = 20;
  auto a = generateAgentWorkload(p, 7);
  auto b = generateAgentWorkload(p, 7);
  auto c = generateAgentWorkload(p, 8);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->tasks, b->tasks);
  EXPECT_NE(a->tasks, c->tasks);
  EXPECT_EQ(a->concurrency, 128);
  EXPECT_EQ(a->tasks[3].id, "swe_bench-3");
  // Task i depends on (seed, i) alone: a shorter run is a prefix.
  p.tasks = 10;
  auto shorter = generateAgentWorkload(p, 7);
  ASSERT_TRUE(shorter);
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(shorter->tasks[i], a->tasks[i]);
  // The acceptances have their own stream: without MTP the tokens are the
  // same.
  SyntheticAgentParams noMtp = p;
  noMtp.mtpDrafts = 0;
  AgentTask with = generateAgentTask(p, 7, 4);
  AgentTask without = generateAgentTask(noMtp, 7, 4);
  ASSERT_EQ(with.turns.size(), without.turns.size());
  for (size_t t = 0; t < with.turns.size(); ++t) {
    EXPECT_TRUE(without.turns[t].mtpAccepted.empty());
    EXPECT_EQ(with.turns[t].newTokens, without.turns[t].newTokens);
    EXPECT_EQ(with.turns[t].outputTokens, without.turns[t].outputTokens);
  }
}

TEST(AgentWorkloads, StatedMeansHold) {
  for (SyntheticAgentParams preset : {sweBenchPreset(), browseCompPreset()}) {
    preset.mtpDrafts = 0; // acceptances are tested below
    auto w = generateAgentWorkload(uncapped(preset, 2000), 11);
    ASSERT_TRUE(w) << w.error;
    double turns = 0, first = 0, fresh = 0, output = 0, tool = 0;
    int64_t later = 0, all = 0, gaps = 0;
    for (const AgentTask &t : w->tasks) {
      turns += double(t.turns.size());
      for (size_t i = 0; i < t.turns.size(); ++i) {
        const AgentTurn &u = t.turns[i];
        ASSERT_EQ(checkAgentTask(t), "");
        if (i == 0) {
          EXPECT_EQ(u.cachedTokens, 0);
          first += double(u.newTokens);
        } else {
          // A perfect prefix cache: the previous context is the prefix.
          EXPECT_EQ(u.cachedTokens, t.turns[i - 1].contextAfter());
          fresh += double(u.newTokens);
          ++later;
        }
        output += double(u.outputTokens);
        ++all;
        if (i + 1 < t.turns.size()) {
          tool += u.toolLatency;
          ++gaps;
        } else {
          EXPECT_EQ(u.toolLatency, 0.0);
        }
      }
    }
    // Standard errors are under 1.5% of each mean here; 5% tolerates the
    // rounding of counts to integers.
    expectNear(turns / 2000, double(preset.turns), 0.05, "turns");
    expectNear(first / 2000, double(preset.prompt), 0.05, "first prompt");
    expectNear(fresh / double(later), double(preset.newTokens), 0.05,
               "new tokens");
    expectNear(output / double(all), double(preset.outputTokens), 0.05,
               "output");
    expectNear(tool / double(gaps), preset.toolLatency, 0.05, "tool latency");
  }
}

TEST(AgentWorkloads, ContextsStayWithinMaxLen) {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = 300;
  auto w = generateAgentWorkload(p, 3);
  ASSERT_TRUE(w);
  int64_t cut = 0;
  for (const AgentTask &t : w->tasks) {
    ASSERT_FALSE(t.turns.empty());
    for (const AgentTurn &u : t.turns)
      EXPECT_LE(u.contextAfter(), p.maxLen);
    if (int64_t(t.turns.size()) < 30)
      ++cut;
  }
  EXPECT_GT(cut, 0);
  // A first turn larger than the cap is cut to fit, not dropped.
  SyntheticAgentParams tight = p;
  tight.maxLen = 1000;
  AgentTask t = generateAgentTask(tight, 3, 0);
  ASSERT_EQ(t.turns.size(), 1u);
  EXPECT_LE(t.turns[0].contextAfter(), 1000);
  EXPECT_LE(t.turns[0].outputTokens, 250);
}

TEST(AgentWorkloads, AcceptedLengthsFollowTheAcceptanceModel) {
  SyntheticAgentParams p = uncapped(browseCompPreset(), 300);
  auto w = generateAgentWorkload(p, 5);
  ASSERT_TRUE(w);
  double emitted = 0, steps = 0;
  std::vector<int64_t> histogram(5, 0);
  for (const AgentTask &t : w->tasks)
    for (const AgentTurn &u : t.turns) {
      int64_t covered = 0;
      for (int32_t a : u.mtpAccepted) {
        ASSERT_GE(a, 1);
        ASSERT_LE(a, 4);
        ++histogram[size_t(a)];
        covered += a;
      }
      // Steps cover output - 1 tokens, and no step more than needed.
      EXPECT_GE(covered, u.outputTokens - 1);
      if (!u.mtpAccepted.empty()) {
        EXPECT_LT(covered - u.mtpAccepted.back(), u.outputTokens - 1);
      }
      emitted += double(covered);
      steps += double(u.mtpAccepted.size());
    }
  expectNear(emitted / steps, expectedAcceptedTokens(3, 0.75), 0.02,
             "tokens per step");
  // P(emit 1) = 1 - p = 0.25, P(emit 4) = p^3 = 0.42.
  expectNear(double(histogram[1]) / steps, 0.25, 0.05, "P(1)");
  expectNear(double(histogram[4]) / steps, 0.421875, 0.05, "P(4)");
}

TEST(AgentWorkloads, GeneratedWorkloadsRoundTripThroughTheFormat) {
  SyntheticAgentParams p = sweBenchPreset();
  p.tasks = 5;
  auto w = generateAgentWorkload(p, 1);
  ASSERT_TRUE(w);
  TraceRead r = parseTrajectories(writeTrajectories(w->tasks));
  ASSERT_TRUE(r.ok()) << r.errors[0].str();
  EXPECT_EQ(r.tasks, w->tasks);
}

TEST(AgentWorkloads, BadParametersAreErrors) {
  SyntheticAgentParams p = sweBenchPreset();
  p.turns = 0;
  EXPECT_FALSE(generateAgentWorkload(p, 1));
  p = sweBenchPreset();
  p.draftAcceptance = 1.5;
  auto r = generateAgentWorkload(p, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "the draft acceptance must be in [0, 1]");
  p = sweBenchPreset();
  p.maxLen = 1;
  EXPECT_FALSE(generateAgentWorkload(p, 1));
}
