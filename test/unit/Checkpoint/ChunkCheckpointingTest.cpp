//===- ChunkCheckpointingTest.cpp - Stage-aware chunk checkpointing -------===//
//
// Windows and slots of hand-written orders, ILPs whose optimum is plain,
// the baselines, and reference flexsp_dpp.md section 4 item 13 on
// generated pipelines: n + d_p - 1 slots each at most L / d_p, early stages
// checkpoint at least as much of a chunk as late ones, the objective never
// exceeds full checkpointing, and it is within the gap of the brute-force
// optimum.
//
//===----------------------------------------------------------------------===//
#include "passes/Checkpoint/ChunkCheckpointing.h"

#include "passes/StepModel/OneFOneB.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

using namespace plexus::ckpt;

namespace {

using Order = std::vector<int64_t>;
using Layers = std::vector<std::vector<int64_t>>;

/// 1F1B stage orders over units of the given sizes (forward in order,
/// backward each unit reversed), as passes/DynamicPP builds them.
std::vector<Order> oneFOneB(int64_t stages,
                            const std::vector<int64_t> &unitSizes) {
  std::vector<int64_t> backward;
  int64_t n = 0, nSplit = 0;
  for (int64_t size : unitSizes) {
    for (int64_t i = size; i-- > 0;)
      backward.push_back(n + i);
    n += size;
    nSplit = std::max(nSplit, size);
  }
  std::vector<Order> orders;
  for (int64_t s = 0; s < stages; ++s) {
    const int64_t warm = std::min(n, plexus::step::chunkWindow(stages, s, nSplit) - 1);
    Order o;
    int64_t next = 0;
    while (next < warm)
      o.push_back(next++);
    for (int64_t j = 0; j < n; ++j) {
      if (next < n)
        o.push_back(next++);
      o.push_back(-(backward[static_cast<size_t>(j)] + 1));
    }
    orders.push_back(o);
  }
  return orders;
}

/// A problem with the same base and saving for every chunk on every stage.
CheckpointProblem uniformProblem(int64_t stages,
                                 const std::vector<int64_t> &unitSizes,
                                 int64_t layersPerStage, double base,
                                 double saved, double budget) {
  CheckpointProblem p;
  p.stages = stages;
  p.layersPerStage = layersPerStage;
  p.stageOrders = oneFOneB(stages, unitSizes);
  int64_t n = 0;
  for (int64_t s : unitSizes)
    n += s;
  p.baseMB.assign(static_cast<size_t>(stages),
                  std::vector<double>(static_cast<size_t>(n), base));
  p.savedMBPerLayer.assign(static_cast<size_t>(n), saved);
  p.budgetMB.assign(static_cast<size_t>(stages), budget);
  p.layerForwardMs = 2.0;
  return p;
}

CheckpointPlan solve(const CheckpointProblem &p,
                     CheckpointStrategy s = CheckpointStrategy::Adaptive,
                     const CheckpointOptions &o = {}) {
  Result<CheckpointPlan> r = planCheckpointing(p, s, o);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : CheckpointPlan{};
}

/// Every stage checkpoints at least as much of each chunk as the next.
bool monotone(const Layers &layers) {
  for (size_t s = 0; s + 1 < layers.size(); ++s)
    for (size_t k = 0; k < layers[s].size(); ++k)
      if (layers[s][k] < layers[s + 1][k])
        return false;
  return true;
}

/// The least sum of slots over every slot vector in [0, L/d_p]^(n+d-1)
/// whose layers (monotone or tied) fit; -1 when none does.
int64_t bruteForceOptimum(const CheckpointProblem &p, bool monotoneMode) {
  const size_t n = p.savedMBPerLayer.size();
  const size_t numSlots = n + static_cast<size_t>(p.stages) - 1;
  std::vector<int64_t> slots(numSlots, 0);
  int64_t best = -1;
  std::function<void(size_t, int64_t)> visit = [&](size_t t, int64_t sum) {
    if (best >= 0 && sum >= best)
      return;
    if (t == numSlots) {
      Layers layers(static_cast<size_t>(p.stages), std::vector<int64_t>(n));
      for (size_t k = 0; k < n; ++k) {
        int64_t cap = p.layersPerStage;
        for (int64_t s = 0; s < p.stages; ++s) {
          const int64_t v = slots[static_cast<size_t>(
              checkpointSlot(p, s, static_cast<int64_t>(k)))];
          cap = monotoneMode ? std::min(cap, v) : v;
          layers[static_cast<size_t>(s)][k] = cap;
        }
      }
      std::vector<double> peak = peakActivationMB(p, layers);
      for (size_t s = 0; s < peak.size(); ++s)
        if (peak[s] > p.budgetMB[s] + 1e-9)
          return;
      best = sum;
      return;
    }
    for (int64_t v = 0; v <= p.layersPerStage; ++v) {
      slots[t] = v;
      visit(t + 1, sum + v);
    }
    slots[t] = 0;
  };
  visit(0, 0);
  return best;
}

/// A small deterministic generator.
struct Lcg {
  uint64_t state;
  explicit Lcg(uint64_t seed) : state(seed) {}
  uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() % 1000000) / 1e6;
  }
  int64_t pick(int64_t lo, int64_t hi) {
    return lo +
           static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

/// A pipeline of random units and chunk memory whose budgets lie between
/// what full checkpointing and no checkpointing need.
CheckpointProblem randomProblem(Lcg &rng, int64_t stages, int64_t chunks,
                                int64_t layersPerStage) {
  std::vector<int64_t> units;
  for (int64_t left = chunks; left > 0;) {
    int64_t size = std::min(left, rng.pick(1, 3));
    units.push_back(size);
    left -= size;
  }
  CheckpointProblem p = uniformProblem(stages, units, layersPerStage, 0, 1, 0);
  for (int64_t k = 0; k < chunks; ++k) {
    const double base = rng.uniform(50, 150);
    p.savedMBPerLayer[static_cast<size_t>(k)] =
        base * rng.uniform(0.6, 0.95) / static_cast<double>(layersPerStage);
    for (int64_t s = 0; s < stages; ++s)
      p.baseMB[static_cast<size_t>(s)][static_cast<size_t>(k)] =
          base + (s == stages - 1 ? rng.uniform(0, 20) : 0.0);
  }
  Layers none(static_cast<size_t>(stages),
              std::vector<int64_t>(static_cast<size_t>(chunks), 0));
  Layers full(
      static_cast<size_t>(stages),
      std::vector<int64_t>(static_cast<size_t>(chunks), layersPerStage));
  std::vector<double> hi = peakActivationMB(p, none);
  std::vector<double> lo = peakActivationMB(p, full);
  for (int64_t s = 0; s < stages; ++s)
    p.budgetMB[static_cast<size_t>(s)] =
        lo[static_cast<size_t>(s)] +
        rng.uniform(0.2, 0.8) *
            (hi[static_cast<size_t>(s)] - lo[static_cast<size_t>(s)]);
  return p;
}

} // namespace

TEST(InFlightWindows, HandWrittenOrders) {
  using Sets = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(inFlightWindows({0, 1, -1, 2, -2, -3}), (Sets{{0, 1}, {1, 2}}));
  EXPECT_EQ(inFlightWindows({0, 1, 2, -1, -2, -3}), (Sets{{0, 1, 2}}));
  EXPECT_EQ(inFlightWindows({0, -1, 1, -2}), (Sets{{0}, {1}}));
  // A split sequence of 3 slices, backward in reverse, then one chunk.
  EXPECT_EQ(inFlightWindows({0, 1, 2, -3, 3, -2, -1, -4}),
            (Sets{{0, 1, 2}, {0, 1, 3}}));
}

TEST(CheckpointSlots, AreAntiDiagonalsOfTheBackwardOrder) {
  // Units {3, 1}: backward order 2, 1, 0, 3.
  CheckpointProblem p = uniformProblem(3, {3, 1}, 4, 10, 1, 100);
  EXPECT_EQ(checkpointProblemViolation(p), "");
  EXPECT_EQ(backwardPositions(p), (std::vector<int64_t>{2, 1, 0, 3}));
  // slot(p, k) = b(k) + d_p - 1 - p.
  EXPECT_EQ(checkpointSlot(p, 2, 2), 0); // last stage, first backward
  EXPECT_EQ(checkpointSlot(p, 0, 2), 2);
  EXPECT_EQ(checkpointSlot(p, 0, 0), 4);
  EXPECT_EQ(checkpointSlot(p, 0, 3), 5); // the last slot: n + d_p - 2
  // (p, k) and (p + 1, k + 1) in backward order share a slot.
  EXPECT_EQ(checkpointSlot(p, 0, 1), checkpointSlot(p, 1, 0));
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(plan.slots.size(), 4u + 3u - 1u);
}

TEST(ChunkCheckpointing, NothingWhenMemoryIsAmple) {
  CheckpointProblem p = uniformProblem(4, {2, 1, 1, 1}, 8, 10, 1, 1000);
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(plan.recomputeLayers, 0);
  EXPECT_EQ(plan.recomputeMs, 0.0);
  EXPECT_FALSE(plan.solvedByCbc);
  EXPECT_EQ(checkpointPlanViolation(p, plan), "");
}

TEST(ChunkCheckpointing, OneStageOneChunkObviousOptimum) {
  // 10 MB, 1 MB saved per layer, 7 MB free: 3 layers.
  CheckpointProblem p = uniformProblem(1, {1}, 8, 10, 1, 7);
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(plan.slots, (std::vector<int64_t>{3}));
  EXPECT_EQ(plan.layers, (Layers{{3}}));
  EXPECT_EQ(plan.recomputeLayers, 3);
  EXPECT_DOUBLE_EQ(plan.recomputeMs, 6.0); // F^ = 2 ms per layer (Eq. 17)
  EXPECT_DOUBLE_EQ(plan.peakMB[0], 7.0);
}

TEST(ChunkCheckpointing, EachChunkGetsWhatItNeeds) {
  // One stage, two chunks held one at a time: 10 MB saving 1 per layer and
  // 8 MB saving 2 per layer, 7 MB free: 3 and 1 layers.
  CheckpointProblem p = uniformProblem(1, {1, 1}, 8, 0, 1, 7);
  p.baseMB[0] = {10, 8};
  p.savedMBPerLayer = {1, 2};
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(plan.layers, (Layers{{3, 1}}));
  EXPECT_EQ(plan.recomputeLayers, 4);
  EXPECT_EQ(checkpointPlanViolation(p, plan), "");
}

TEST(ChunkCheckpointing, TwoStagesShareSlots) {
  // Stage 0 holds both chunks (20 MB, 15 free), stage 1 one at a time
  // (10 MB, plenty free). Stage 0 reads slots 1 and 2, which must cover
  // 5 layers between them; slot 0 (stage 1's first backward) stays 0.
  CheckpointProblem p = uniformProblem(2, {1, 1}, 8, 10, 1, 15);
  p.budgetMB[1] = 100;
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(plan.recomputeLayers, 5);
  EXPECT_EQ(plan.slots[0], 0);
  EXPECT_EQ(plan.slots[1] + plan.slots[2], 5);
  EXPECT_EQ(plan.layers[0][0] + plan.layers[0][1], 5);
  EXPECT_TRUE(monotone(plan.layers));
  EXPECT_EQ(checkpointPlanViolation(p, plan), "");

  // Eq. 16 as printed: every (stage, chunk) takes its slot's value.
  CheckpointOptions tied;
  tied.monotoneAcrossStages = false;
  CheckpointPlan t = solve(p, CheckpointStrategy::Adaptive, tied);
  EXPECT_EQ(t.recomputeLayers, 5);
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t k = 0; k < 2; ++k)
      EXPECT_EQ(t.layers[static_cast<size_t>(s)][static_cast<size_t>(k)],
                t.slots[static_cast<size_t>(checkpointSlot(p, s, k))]);
}

TEST(ChunkCheckpointing, Baselines) {
  // Three stages, units {2, 1, 1, 1}; 10 MB per chunk, 2 MB saved per
  // layer of 4; stage 0 holds 2 + 2 = 4 chunks (40 MB).
  CheckpointProblem p = uniformProblem(3, {2, 1, 1, 1}, 4, 10, 2, 27);
  Result<CheckpointPlan> none = planCheckpointing(p, CheckpointStrategy::None);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("stage 0"), std::string::npos) << none.error;
  EXPECT_NE(none.error.find("without checkpointing"), std::string::npos);

  CheckpointPlan full = solve(p, CheckpointStrategy::Full);
  EXPECT_EQ(full.recomputeLayers, (5 + 3 - 1) * 4);
  for (const std::vector<int64_t> &row : full.layers)
    for (int64_t l : row)
      EXPECT_EQ(l, 4);

  // Uniform: 4 chunks * (10 - 2 l) <= 27 needs l = 2.
  CheckpointPlan uniform = solve(p, CheckpointStrategy::Uniform);
  EXPECT_EQ(uniform.layers[0][0], 2);
  EXPECT_EQ(uniform.recomputeLayers, 7 * 2);
  CheckpointOptions three;
  three.uniformLayers = 3;
  EXPECT_EQ(solve(p, CheckpointStrategy::Uniform, three).recomputeLayers, 21);
  three.uniformLayers = 1;
  EXPECT_FALSE(planCheckpointing(p, CheckpointStrategy::Uniform, three));

  CheckpointPlan adaptive = solve(p);
  EXPECT_LE(adaptive.recomputeLayers, uniform.recomputeLayers);
  EXPECT_LT(adaptive.recomputeLayers, full.recomputeLayers);
  for (const CheckpointPlan *plan : {&full, &uniform, &adaptive})
    EXPECT_EQ(checkpointPlanViolation(p, *plan), "");
}

TEST(ChunkCheckpointing, InfeasibleEvenWithFullCheckpointing) {
  CheckpointProblem p = uniformProblem(2, {2}, 4, 10, 2, 3);
  Result<CheckpointPlan> r = planCheckpointing(p);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("every layer checkpointed"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("MB"), std::string::npos);
}

TEST(ChunkCheckpointing, WithinTheGapOfTheBruteForceOptimum) {
  Lcg rng(7);
  int needed = 0; // trials whose optimum checkpoints something
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t stages = rng.pick(1, 3);
    const int64_t chunks = rng.pick(1, 4);
    CheckpointProblem p = randomProblem(rng, stages, chunks, 3);
    for (bool mono : {true, false}) {
      CheckpointOptions o;
      o.monotoneAcrossStages = mono;
      CheckpointPlan plan = solve(p, CheckpointStrategy::Adaptive, o);
      const int64_t best = bruteForceOptimum(p, mono);
      ASSERT_GE(best, 0);
      needed += best > 0;
      EXPECT_GE(plan.recomputeLayers, best);
      EXPECT_LE(static_cast<double>(plan.recomputeLayers),
                static_cast<double>(best) / (1 - o.relativeGap) + 1e-9)
          << "trial " << trial << " monotone " << mono;
      EXPECT_EQ(checkpointPlanViolation(p, plan), "");
    }
  }
  EXPECT_GE(needed, 12);
}

TEST(ChunkCheckpointing, Item13PropertiesOnGeneratedPipelines) {
  Lcg rng(2024);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t stages = rng.pick(2, 4);
    const int64_t chunks = rng.pick(3, 24);
    const int64_t layers = rng.pick(2, 10);
    CheckpointProblem p = randomProblem(rng, stages, chunks, layers);
    CheckpointPlan adaptive = solve(p);
    CheckpointPlan uniform = solve(p, CheckpointStrategy::Uniform);
    CheckpointPlan full = solve(p, CheckpointStrategy::Full);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(checkpointPlanViolation(p, adaptive), "");
    // n + d_p - 1 slots, each at most L / d_p.
    ASSERT_EQ(adaptive.slots.size(), static_cast<size_t>(chunks + stages - 1));
    for (int64_t c : adaptive.slots)
      EXPECT_LE(c, layers);
    // Early stages checkpoint at least as much of every chunk.
    EXPECT_TRUE(monotone(adaptive.layers));
    // Never more recompute than uniform or full checkpointing.
    EXPECT_LE(adaptive.recomputeLayers, uniform.recomputeLayers);
    EXPECT_LE(adaptive.recomputeLayers, full.recomputeLayers);
    EXPECT_LE(adaptive.recomputeMs, full.recomputeMs);
    EXPECT_LE(adaptive.lowerBoundLayers,
              static_cast<double>(adaptive.recomputeLayers));
    EXPECT_FALSE(adaptive.timeLimitReached);
  }
}

TEST(ChunkCheckpointing, EarlyStagesCheckpointMore) {
  // Equal chunks on 4 stages: stage 0 holds 4 at once, stage 3 one. Only
  // the first stages run short of memory.
  CheckpointProblem p =
      uniformProblem(4, std::vector<int64_t>(12, 1), 8, 10, 1, 33);
  CheckpointPlan plan = solve(p);
  EXPECT_EQ(checkpointPlanViolation(p, plan), "");
  EXPECT_TRUE(monotone(plan.layers));
  int64_t first = 0, last = 0;
  for (int64_t l : plan.layers.front())
    first += l;
  for (int64_t l : plan.layers.back())
    last += l;
  EXPECT_GT(first, last);
}

TEST(ChunkCheckpointing, Deterministic) {
  Lcg rng(99);
  CheckpointProblem p = randomProblem(rng, 4, 30, 10);
  CheckpointPlan a = solve(p), b = solve(p);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.recomputeLayers, b.recomputeLayers);
}

TEST(ChunkCheckpointing, MalformedProblems) {
  CheckpointProblem p = uniformProblem(2, {1, 1}, 4, 10, 1, 100);
  CheckpointProblem bad = p;
  bad.stageOrders[0] = {-1, 0, 1, -2};
  EXPECT_NE(checkpointProblemViolation(bad).find("forward once, then its "
                                                 "backward"),
            std::string::npos);
  bad = p;
  bad.stageOrders[1] = {0, 1, -2, -1};
  EXPECT_NE(checkpointProblemViolation(bad).find("another order"),
            std::string::npos);
  bad = p;
  bad.savedMBPerLayer[1] = 0;
  EXPECT_NE(checkpointProblemViolation(bad).find("saves no memory"),
            std::string::npos);
  bad = p;
  bad.budgetMB.pop_back();
  EXPECT_NE(checkpointProblemViolation(bad), "");
  EXPECT_FALSE(planCheckpointing(bad));
}

TEST(ChunkCheckpointing, ProblemFromFootprints) {
  ActivationModel m;
  m.layers = 4;
  m.stages = 2;
  m.spDegree = 2;
  m.hidden = 1024;
  m.kvDim = 512;
  m.tokenMB = 1.0;
  const std::vector<ChunkFootprint> chunks = {{1024, 1024}, {1024, 0}};
  Result<CheckpointProblem> p = makeCheckpointProblem(
      m, chunks, oneFOneB(2, {1, 1}), 1000.0, {100.0, 200.0}, 1.5);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(p->layersPerStage, 2);
  EXPECT_EQ(p->budgetMB, (std::vector<double>{900.0, 800.0}));
  EXPECT_DOUBLE_EQ(p->baseMB[0][0], 258.0);
  EXPECT_DOUBLE_EQ(p->baseMB[0][1], 256.0);
  EXPECT_DOUBLE_EQ(p->savedMBPerLayer[0], 126.0);
  EXPECT_DOUBLE_EQ(p->layerForwardMs, 1.5);
  EXPECT_FALSE(makeCheckpointProblem(m, chunks, oneFOneB(2, {1, 1}), 1000.0,
                                     {100.0}, 1.5));
  EXPECT_FALSE(makeCheckpointProblem(m, {{10, 11}}, oneFOneB(2, {1}), 1000.0,
                                     {0.0, 0.0}, 1.5));
}

TEST(ChunkCheckpointing, WithoutBranchAndBound) {
  // The search's costing: the rounded LP solution (or the uniform plan),
  // valid, with the LP's bound; branch and bound only improves on it.
  Lcg rng(31);
  CheckpointOptions lpOnly;
  lpOnly.branchAndBound = false;
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t stages = rng.pick(2, 4);
    const int64_t chunks = rng.pick(3, 24);
    const int64_t layers = rng.pick(2, 10);
    CheckpointProblem p = randomProblem(rng, stages, chunks, layers);
    CheckpointPlan quick = solve(p, CheckpointStrategy::Adaptive, lpOnly);
    CheckpointPlan exact = solve(p);
    CheckpointPlan uniform = solve(p, CheckpointStrategy::Uniform);
    EXPECT_EQ(checkpointPlanViolation(p, quick), "");
    EXPECT_TRUE(monotone(quick.layers));
    EXPECT_EQ(quick.nodes, 0);
    EXPECT_LE(quick.recomputeLayers, uniform.recomputeLayers);
    EXPECT_LE(exact.recomputeLayers, quick.recomputeLayers);
    EXPECT_LE(quick.lowerBoundLayers,
              static_cast<double>(exact.recomputeLayers));
    if (quick.provenOptimal) {
      EXPECT_LE(
          static_cast<double>(quick.recomputeLayers) - quick.lowerBoundLayers,
          lpOnly.relativeGap * static_cast<double>(quick.recomputeLayers) +
              1e-9);
    }
  }
}

TEST(ChunkCheckpointing, RoundedStartIsLocallyMinimal) {
  // Identical chunks on one stage, four at a time, 10 MB each and 1 MB
  // saved per layer of 8, 31 MB free: 9 layers over every window of four
  // consecutive chunks. The LP spreads them fractionally; rounding up and
  // lowering what memory allows leaves no slot that can drop by one.
  CheckpointProblem p = uniformProblem(1, {4, 1, 1, 1, 1}, 8, 10, 1, 31);
  CheckpointOptions lpOnly;
  lpOnly.branchAndBound = false;
  CheckpointPlan plan = solve(p, CheckpointStrategy::Adaptive, lpOnly);
  ASSERT_EQ(checkpointPlanViolation(p, plan), "");
  for (size_t t = 0; t < plan.slots.size(); ++t) {
    if (plan.slots[t] == 0)
      continue;
    CheckpointPlan lower = plan;
    --lower.slots[t];
    --lower.recomputeLayers;
    for (size_t k = 0; k < lower.layers[0].size(); ++k)
      lower.layers[0][k] = lower.slots[static_cast<size_t>(
          checkpointSlot(p, 0, static_cast<int64_t>(k)))];
    EXPECT_NE(checkpointPlanViolation(p, lower), "") << "slot " << t;
  }
  EXPECT_GE(plan.recomputeLayers, 9);
}
