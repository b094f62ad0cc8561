//===- StepLoweringTest.cpp - Plans into per-rank programs ----------------===//
//
// The lowering against hand-worked layouts and against closed forms run
// through the event simulator: a 1F1B pipeline with equal micro-batches
// takes (m + p - 1) (f + b); a data-parallel step adds one ring all-reduce,
// 2 (p - 1) / p S / B + 2 (p - 1) a; FLOPs are conserved.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/StepLowering.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus;
using namespace plexus::lower;

namespace {

/// 4 layers, h = 16, 4 heads (head_dim 4), 2 KV heads, GeLU ffn 64,
/// vocab 32, bf16.
cost::TransformerShape smallShape(int64_t layers = 4) {
  cost::TransformerShape s;
  s.layers = layers;
  s.hidden = 16;
  s.heads = 4;
  s.kvHeads = 2;
  s.ffn = 64;
  s.vocab = 32;
  s.mlp = cost::MlpKind::GeLU;
  return s;
}

/// A chip of 1 TFLOP/s at efficiency 1: seconds = FLOPs / 1e12.
TrainModel smallModel(int64_t zero, cost::Checkpointing ckpt,
                      int64_t layers = 4) {
  TrainModel m;
  m.shape = smallShape(layers);
  m.chip.name = "test";
  m.chip.bf16Flops = 1e12;
  m.chip.hbmBytes = int64_t(1) << 34;
  m.efficiency = 1.0;
  m.checkpointing = ckpt;
  m.zero = zero;
  return m;
}

sim::CommTime zeroComm(const sim::CommRequest &) { return sim::CommTime(0.0); }

double forwardFlops(const TrainModel &m, int64_t layer, int64_t tokens) {
  return cost::layerForwardFlops(m.shape, layer, {tokens, 0}).value.total();
}

/// One micro-batch per entry; every micro-batch has the same groups.
StepPlan uniformPlan(int64_t world, GroupLayout layout,
                     const std::vector<std::vector<std::vector<int64_t>>> &mbs,
                     std::vector<int64_t> lengths) {
  StepPlan plan;
  plan.world = world;
  plan.lengths = std::move(lengths);
  for (const auto &groups : mbs) {
    PlannedMicroBatch mb;
    for (size_t g = 0; g < groups.size(); ++g) {
      PlannedGroup pg;
      pg.layout = layout;
      pg.firstRank = static_cast<int64_t>(g) * layout.degree();
      pg.seqs = groups[g];
      mb.groups.push_back(pg);
    }
    plan.microBatches.push_back(mb);
  }
  return plan;
}

TEST(StepLowering, RankPositionsRoundTrip) {
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

TEST(StepLowering, StageLayersGiveTheRemainderToTheFirstStages) {
  EXPECT_EQ(stageLayers(10, 4, 0), (Range{0, 3}));
  EXPECT_EQ(stageLayers(10, 4, 1), (Range{3, 6}));
  EXPECT_EQ(stageLayers(10, 4, 2), (Range{6, 8}));
  EXPECT_EQ(stageLayers(10, 4, 3), (Range{8, 10}));
}

TEST(StepLowering, CommunicatorNamesCompressProgressions) {
  EXPECT_EQ(communicatorName("sp", {0, 1, 2, 3, 4, 5, 6, 7}), "sp:0-7");
  EXPECT_EQ(communicatorName("dp", {0, 8, 16, 24}), "dp:0-24/8");
  EXPECT_EQ(communicatorName("tp", {3, 9, 12}), "tp:3,9,12");
  EXPECT_EQ(communicatorName("tp", {5}), "tp:5");
}

TEST(StepLowering, OneFOneBOrderOfEachStage) {
  // 4 stages, 6 micro-batches: stage 0 warms up with 3 forwards.
  EXPECT_EQ(oneFOneBOrder(4, 0, 6),
            (std::vector<int64_t>{0, 1, 2, 3, -1, 4, -2, 5, -3, -4, -5, -6}));
  // The last stage alternates from the start.
  EXPECT_EQ(oneFOneBOrder(4, 3, 3),
            (std::vector<int64_t>{0, -1, 1, -2, 2, -3}));
  // Fewer micro-batches than warm-up slots.
  EXPECT_EQ(oneFOneBOrder(4, 0, 2), (std::vector<int64_t>{0, 1, -1, -2}));
}

// The closed form of a 1F1B pipeline with equal micro-batches and free
// communication: (m + p - 1) (f + b), f and b one stage's forward and
// backward.
TEST(StepLowering, OneFOneBMatchesTheClosedForm) {
  for (int64_t p : {2, 3, 4}) {
    for (int64_t m : {1, 2, 3, 8}) {
      TrainModel model = smallModel(/*zero=*/1, cost::Checkpointing::None,
                                    /*layers=*/12);
      GroupLayout layout{1, 1, 1, p};
      std::vector<std::vector<std::vector<int64_t>>> mbs;
      std::vector<int64_t> lengths;
      for (int64_t i = 0; i < m; ++i) {
        mbs.push_back({{i}});
        lengths.push_back(64);
      }
      StepPlan plan = uniformPlan(p, layout, mbs, lengths);
      LoweredStep lowered = lowerStep(plan, model);
      ASSERT_TRUE(lowered.ok()) << lowered.error;

      double f = 0;
      for (int64_t l = 0; l < 12 / p; ++l)
        f += forwardFlops(model, l, 64) / 1e12;
      double b = 2 * f;
      sim::SimOptions options;
      options.commTime = zeroComm;
      sim::SimResult result = sim::simulate(lowered.programs, options);
      ASSERT_TRUE(result.ok()) << result.error;
      EXPECT_NEAR(result.stepSeconds, double(m + p - 1) * (f + b),
                  1e-9 * result.stepSeconds)
          << "p=" << p << " m=" << m;
    }
  }
}

// Rendezvous sends never deadlock the 1F1B schedules, whatever p and m.
TEST(StepLowering, OneFOneBIsDeadlockFree) {
  for (int64_t p = 2; p <= 8; ++p)
    for (int64_t m = 1; m <= 10; ++m) {
      TrainModel model = smallModel(1, cost::Checkpointing::Full, 8);
      std::vector<std::vector<std::vector<int64_t>>> mbs;
      std::vector<int64_t> lengths;
      for (int64_t i = 0; i < m; ++i) {
        mbs.push_back({{i}});
        lengths.push_back(32 + 8 * i);
      }
      LoweredStep lowered =
          lowerStep(uniformPlan(p, {1, 1, 1, p}, mbs, lengths), model);
      ASSERT_TRUE(lowered.ok()) << lowered.error;
      sim::SimOptions options;
      options.commTime = zeroComm;
      sim::SimResult result = sim::simulate(lowered.programs, options);
      EXPECT_TRUE(result.ok())
          << "p=" << p << " m=" << m << ": " << result.error;
    }
}

// Four data-parallel ranks, one sequence each, ZeRO-0: compute, then one
// ring all-reduce of the bf16 gradients, 2 (p-1)/p S/B + 2 (p-1) a.
TEST(StepLowering, DataParallelStepAddsOneRingAllReduce) {
  TrainModel model = smallModel(0, cost::Checkpointing::None, 2);
  StepPlan plan =
      uniformPlan(4, {1, 1, 1, 1}, {{{0}, {1}, {2}, {3}}}, {16, 16, 16, 16});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;

  const double bandwidth = 1e9, alpha = 1e-6;
  sim::SimOptions options;
  options.commTime = [&](const sim::CommRequest &r) {
    EXPECT_EQ(r.kind, sim::CommKind::AllReduce);
    double p = double(r.ranks.size());
    return sim::CommTime(2 * (p - 1) / p * double(r.bytes) / bandwidth +
                         2 * (p - 1) * alpha);
  };
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;

  // The layer parameters (592 + ... worked out by the shape code) in bf16.
  int64_t params = cost::layerParameters(model.shape, 0) +
                   cost::layerParameters(model.shape, 1);
  double gradBytes = double(params * 2);
  double compute = 0;
  for (int64_t l = 0; l < 2; ++l)
    compute += 3 * forwardFlops(model, l, 16) / 1e12;
  double ring = 2.0 * 3 / 4 * gradBytes / bandwidth + 2 * 3 * alpha;
  EXPECT_NEAR(result.stepSeconds, compute + ring, 1e-12);
  ASSERT_EQ(result.ranks[0].spans.back().category, "all_reduce");
  EXPECT_NEAR(result.ranks[0].commSeconds, ring, 1e-15);
}

// Every FLOP of the batch is done once: the ranks' shares add up to 3x the
// forward (no checkpointing), or 4x (full recompute).
TEST(StepLowering, FlopsAreConservedAcrossLayouts) {
  std::vector<int64_t> lengths{64, 32, 128, 16};
  double fwd = 0;
  TrainModel probe = smallModel(3, cost::Checkpointing::None);
  for (int64_t len : lengths)
    for (int64_t l = 0; l < 4; ++l)
      fwd += forwardFlops(probe, l, len);
  for (auto [ckpt, factor] : {std::pair{cost::Checkpointing::None, 3.0},
                              std::pair{cost::Checkpointing::Full, 4.0}}) {
    TrainModel model = smallModel(3, ckpt);
    for (GroupLayout layout :
         {GroupLayout{4, 1, 1, 1}, GroupLayout{2, 2, 1, 1},
          GroupLayout{1, 2, 2, 1}, GroupLayout{1, 1, 4, 1}}) {
      StepPlan plan = uniformPlan(8, layout, {{{0, 1}, {2, 3}}}, lengths);
      LoweredStep lowered = lowerStep(plan, model);
      ASSERT_TRUE(lowered.ok()) << lowered.error;
      EXPECT_NEAR(lowered.totalFlops, factor * fwd, 1e-9 * fwd);
      EXPECT_NEAR(sim::totalComputeFlops(lowered.programs), factor * fwd,
                  1e-9 * fwd);
    }
  }
}

// Ulysses: each rank of a degree-2 group sends its tokens' Q, K, V and O
// (2 * 4 * 4 + 2 * 2 * 4 = 48 values of 2 bytes) in one all-to-all per
// layer and pass. ZeRO-3 gathers and scatters every layer on the stream.
TEST(StepLowering, UlyssesGroupsExchangeTheirTokensByAllToAll) {
  TrainModel model = smallModel(3, cost::Checkpointing::Selective, 1);
  StepPlan plan = uniformPlan(2, {2, 1, 1, 1}, {{{0}}}, {10});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  const sim::Program &p = lowered.programs[0];
  std::vector<std::string> kinds;
  for (const sim::Op &op : p.ops)
    kinds.push_back(
        op.kind == sim::OpKind::Compute ? sim::toString(op.computeKind)
        : op.kind == sim::OpKind::Wait  ? "wait " + std::to_string(op.pending)
                                       : std::string(op.async ? "async " : "") +
                                             sim::toString(op.commKind));
  // One layer: the gather is prefetched on the stream and waited for; the
  // gradient reduction is left running (the program's end waits for it).
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "async all_gather", "wait 0", "all_to_all", "fwd",
                       "async all_gather", "wait 0", "recompute", "bwd",
                       "all_to_all", "async reduce_scatter"}));
  // 10 tokens over 2 ranks = 5 tokens x 48 values x 2 bytes = 480.
  EXPECT_EQ(p.ops[2].bytes, 480);
  EXPECT_EQ(p.ops[2].group, "sp:0-1");
  EXPECT_EQ(p.ops[0].group, "zero:0-1");
  int64_t layerBytes = cost::layerParameters(model.shape, 0) * 2;
  EXPECT_EQ(p.ops[0].bytes, (layerBytes + 1) / 2);
}

// Peak memory: resident states, then every layer's kept activations.
TEST(StepLowering, PeakMemoryIsResidentPlusKeptActivations) {
  TrainModel model = smallModel(0, cost::Checkpointing::Selective, 4);
  StepPlan plan = uniformPlan(1, {1, 1, 1, 1}, {{{0}}}, {100});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  int64_t kept = 0;
  for (int64_t l = 0; l < 4; ++l)
    kept += 100 * cost::activationBytesPerToken(model.shape, l, {100, 0},
                                                cost::Checkpointing::Selective)
                      .value;
  int64_t resident = residentBytes(model, {1, 1, 1, 1}, 0, 1);
  // 16 bytes per parameter of the whole (one-stage) model.
  int64_t params = 4 * cost::layerParameters(model.shape, 0) + 2 * 32 * 16;
  EXPECT_EQ(resident, 16 * params);
  EXPECT_EQ(lowered.programs[0].initialMemoryBytes, resident);
  sim::SimOptions options;
  options.commTime = zeroComm;
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.ranks[0].peakMemoryBytes, resident + kept);
}

TEST(StepLowering, IdleRanksStillJoinZeroCollectives) {
  TrainModel model = smallModel(3, cost::Checkpointing::None, 2);
  // Group 1 has no sequence in the second micro-batch.
  StepPlan plan =
      uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}, {{2}, {}}}, {8, 8, 8});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  sim::SimOptions options;
  options.commTime = zeroComm;
  EXPECT_TRUE(sim::simulate(lowered.programs, options).ok());
}

TEST(StepLowering, RejectsPlansItCannotRun) {
  TrainModel model = smallModel(3, cost::Checkpointing::None, 4);
  StepPlan overlap = uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8});
  overlap.microBatches[0].groups[1].firstRank = 0;
  EXPECT_NE(lowerStep(overlap, model).error.find("rank 0 is in two groups"),
            std::string::npos);

  StepPlan gap = uniformPlan(3, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8});
  EXPECT_NE(lowerStep(gap, model).error.find("rank 2 is in no group"),
            std::string::npos);

  StepPlan noLength = uniformPlan(1, {1, 1, 1, 1}, {{{5}}}, {8});
  EXPECT_NE(lowerStep(noLength, model).error.find("sequence 5 has no length"),
            std::string::npos);

  StepPlan pipelined = uniformPlan(2, {1, 1, 1, 2}, {{{0}}}, {8});
  EXPECT_NE(lowerStep(pipelined, model).error.find("ZeRO-3"),
            std::string::npos);

  StepPlan heads = uniformPlan(8, {8, 1, 1, 1}, {{{0}}}, {8});
  EXPECT_NE(lowerStep(heads, model).error.find("heads (4)"), std::string::npos);

  StepPlan mixedTp = uniformPlan(4, {1, 2, 1, 1}, {{{0}, {1}}}, {8, 8});
  mixedTp.microBatches[0].groups[1].layout = {2, 1, 1, 1};
  EXPECT_NE(lowerStep(mixedTp, model).error.find("same in every group"),
            std::string::npos);
}

} // namespace

namespace {

// ZeRO-3 with several layers: each chunk's gather is issued one chunk ahead,
// and backward waits leave the previous chunk's reduction pending.
TEST(StepLowering, ZeroThreePrefetchesOneChunkAhead) {
  TrainModel model = smallModel(3, cost::Checkpointing::None, 3);
  StepPlan plan = uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  std::string text;
  for (const sim::Op &op : lowered.programs[0].ops)
    text += op.kind == sim::OpKind::Compute ? "C"
            : op.kind == sim::OpKind::Wait  ? "W" + std::to_string(op.pending)
            : op.commKind == sim::CommKind::AllGather ? "G"
                                                      : "R";
  // fwd: G W0 G C W0 G C W0 C; bwd: G W0 G C R W1 G C R W1 C R.
  EXPECT_EQ(text, "GW0GCW0GCW0CGW0GCRW1GCRW1CR");
  // With compute longer than a gather, only the first gather shows.
  sim::SimOptions options;
  options.commTime = [](const sim::CommRequest &) {
    return sim::CommTime(1e-12);
  };
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_LT(result.ranks[0].commSeconds, 3e-12);
}

} // namespace
