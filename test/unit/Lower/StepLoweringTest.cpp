//===- StepLoweringTest.cpp - Plans into per-rank programs ----------------===//
//
// The lowering against hand-worked layouts and against closed forms run
// through the event simulator: a 1F1B pipeline with equal micro-batches
// takes (m + p - 1) (f + b); a data-parallel step adds one ring all-reduce,
// 2 (p - 1) / p S / B + 2 (p - 1) a; FLOPs are conserved.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/StepLowering.h"
#include "passes/Simulate/EventSimulator.h"
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace plexus;
using namespace plexus::lower;
using namespace plexus::step;

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

prog::CommTime zeroComm(const prog::CommRequest &) { return prog::CommTime(0.0); }

double forwardFlops(const TrainModel &m, int64_t layer, int64_t tokens) {
  return cost::layerForwardFlops(m.shape, layer, {tokens, 0}).value.total();
}

/// The output head's forward after the last layer: 2 t h V = 2 t 16 32.
double headFlops(int64_t tokens) { return 2.0 * double(tokens) * 16 * 32; }

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

TEST(StepLowering, CommunicatorNamesCompressProgressions) {
  EXPECT_EQ(communicatorName(prog::GroupKind::Sp, {0, 1, 2, 3, 4, 5, 6, 7}), "sp:0-7");
  EXPECT_EQ(communicatorName(prog::GroupKind::Dp, {0, 8, 16, 24}), "dp:0-24/8");
  EXPECT_EQ(communicatorName(prog::GroupKind::Tp, {3, 9, 12}), "tp:3,9,12");
  EXPECT_EQ(communicatorName(prog::GroupKind::Tp, {5}), "tp:5");
}

// The closed form of a 1F1B pipeline with equal micro-batches and free
// communication: (p - 1) (f + b) + m (f' + b'), f and b one stage's forward
// and backward, f' and b' the last stage's, which also runs the output head
// (f' = f + head, b' = 2 f'): the last stage is the bottleneck, the first
// forward reaches it after (p - 1) f, it then never waits, and the last
// backward leaves it (p - 1) b before the end. Equal stages (no head) give
// the textbook (m + p - 1) (f + b).
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
      double last = f + headFlops(64) / 1e12, lastBack = 2 * last;
      sim::SimOptions options;
      options.commTime = zeroComm;
      sim::SimResult result = sim::simulate(lowered.programs, options);
      ASSERT_TRUE(result.ok()) << result.error;
      EXPECT_NEAR(result.stepSeconds,
                  double(p - 1) * (f + b) + double(m) * (last + lastBack),
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

/// p stages of v model chunks each, nothing else parallel.
GroupLayout interleaved(int64_t p, int64_t v) {
  GroupLayout l{1, 1, 1, p};
  l.vpp = v;
  return l;
}

// Interleaved 1F1B (vpp model chunks per stage), messages free. The pass
// timing of the orders (step::timePasses, whose makespan InterleavedTest
// checks against Megatron's closed form) is what the dependencies allow.
// The lowered programs never beat it, meet it exactly when every forward
// runs before every backward (m = p), and stay within 5 % of it otherwise:
// sends go on the communication stream, so a sender never waits for its
// receiver, and only the stream's one-at-a-time order delays a message
// (docs/lowering.md, "Interleaved 1F1B"). They do the same work as plain
// 1F1B and are faster. 12 layers: p = 2, v = 3 gives virtual stages of 2
// layers; p = 3, v = 2 of 2; p = 4, v = 3 of 1.
TEST(StepLowering, InterleavedIsBoundedByItsPassTiming) {
  for (auto [p, v] : {std::pair<int64_t, int64_t>{2, 3}, {3, 2}, {4, 3}})
    for (int64_t m : {p, 2 * p, 3 * p}) {
      TrainModel model = smallModel(1, cost::Checkpointing::None, 12);
      std::vector<std::vector<std::vector<int64_t>>> mbs;
      std::vector<int64_t> lengths;
      for (int64_t i = 0; i < m; ++i) {
        mbs.push_back({{i}});
        lengths.push_back(64);
      }
      const GroupLayout layout = interleaved(p, v);
      LoweredStep lowered =
          lowerStep(uniformPlan(p, layout, mbs, lengths), model);
      ASSERT_TRUE(lowered.ok()) << lowered.error;
      sim::SimOptions options;
      options.commTime = zeroComm;
      sim::SimResult result = sim::simulate(lowered.programs, options);
      ASSERT_TRUE(result.ok()) << result.error;

      const int64_t P = p * v;
      std::vector<std::vector<VirtualPass>> orders(static_cast<size_t>(p));
      for (int64_t s = 0; s < p; ++s)
        ASSERT_EQ(interleavedStageOrder(p, s, v, m, orders[s]), "");
      auto seconds = [&](int64_t j, int64_t, bool backward) {
        auto [a, b] = stageLayers(12, P, j);
        double f = 0;
        for (int64_t l = a; l < b; ++l)
          f += forwardFlops(model, l, 64) / 1e12;
        if (j == P - 1)
          f += headFlops(64) / 1e12;
        return backward ? 2 * f : f;
      };
      PassTiming timing;
      ASSERT_EQ(timePasses(p, v, m, orders, seconds, timing), "");
      EXPECT_GE(result.stepSeconds, timing.makespan * (1 - 1e-9))
          << "p=" << p << " v=" << v << " m=" << m;
      if (m == p) {
        EXPECT_NEAR(result.stepSeconds, timing.makespan, 1e-9 * timing.makespan)
            << "p=" << p << " v=" << v;
      } else {
        EXPECT_LE(result.stepSeconds, 1.05 * timing.makespan)
            << "p=" << p << " v=" << v << " m=" << m;
      }

      LoweredStep plain =
          lowerStep(uniformPlan(p, {1, 1, 1, p}, mbs, lengths), model);
      ASSERT_TRUE(plain.ok()) << plain.error;
      sim::SimResult plainResult = sim::simulate(plain.programs, options);
      ASSERT_TRUE(plainResult.ok()) << plainResult.error;
      std::printf("interleaved p=%lld v=%lld m=%lld: lowered %.4g s, pass "
                  "timing %.4g s, plain 1F1B %.4g s\n",
                  static_cast<long long>(p), static_cast<long long>(v),
                  static_cast<long long>(m), result.stepSeconds,
                  timing.makespan, plainResult.stepSeconds);
      EXPECT_LT(result.stepSeconds, plainResult.stepSeconds)
          << "p=" << p << " v=" << v << " m=" << m;
      // The same work either way.
      EXPECT_NEAR(lowered.totalFlops, plain.totalFlops,
                  1e-9 * plain.totalFlops);
    }
}

// Rendezvous sends never deadlock interleaved schedules, the wrap-around
// link from the last stage to the first included, with messages that take
// time and micro-batches of different lengths (so the orders the pass
// timing chooses differ from the simulated times).
TEST(StepLowering, InterleavedIsDeadlockFree) {
  for (int64_t p = 2; p <= 5; ++p)
    for (int64_t v = 2; v <= 3; ++v)
      for (int64_t m = p; m <= 3 * p; m += p) {
        TrainModel model = smallModel(1, cost::Checkpointing::Full, 2 * p * v);
        std::vector<std::vector<std::vector<int64_t>>> mbs;
        std::vector<int64_t> lengths;
        for (int64_t i = 0; i < m; ++i) {
          mbs.push_back({{i}});
          lengths.push_back(32 + 8 * ((i * 7) % 5));
        }
        const GroupLayout layout = interleaved(p, v);
        LoweredStep lowered =
            lowerStep(uniformPlan(p, layout, mbs, lengths), model);
        ASSERT_TRUE(lowered.ok()) << lowered.error;
        sim::SimOptions options;
        options.commTime = [](const prog::CommRequest &r) {
          return prog::CommTime(1e-7 + double(r.bytes) / 1e9);
        };
        sim::SimResult result = sim::simulate(lowered.programs, options);
        EXPECT_TRUE(result.ok())
            << "p=" << p << " v=" << v << " m=" << m << ": " << result.error;
      }
}

// What interleaving cannot run is an error, not a program.
TEST(StepLowering, InterleavedShapesItCannotRun) {
  TrainModel model = smallModel(1, cost::Checkpointing::None, 4);
  GroupLayout layout{1, 1, 1, 2};
  layout.vpp = 2;
  // Three micro-batches over two stages.
  LoweredStep odd = lowerStep(
      uniformPlan(2, layout, {{{0}}, {{1}}, {{2}}}, {16, 16, 16}), model);
  EXPECT_NE(odd.error.find("not a positive multiple of 2"), std::string::npos)
      << odd.error;
  // Two stages of three chunks for four layers.
  layout.vpp = 3;
  LoweredStep many =
      lowerStep(uniformPlan(2, layout, {{{0}}, {{1}}}, {16, 16}), model);
  EXPECT_NE(many.error.find("model chunks for 4 layers"), std::string::npos)
      << many.error;
  // Model chunks without a pipeline.
  GroupLayout flat{1, 1, 1, 1};
  flat.vpp = 2;
  LoweredStep none = lowerStep(uniformPlan(1, flat, {{{0}}}, {16}), model);
  EXPECT_NE(none.error.find("at least 2"), std::string::npos) << none.error;
  // ZeRO-3 would gather and reduce only the first model chunk.
  TrainModel zero3 = smallModel(3, cost::Checkpointing::None, 4);
  layout.vpp = 2;
  LoweredStep sharded =
      lowerStep(uniformPlan(2, layout, {{{0}}, {{1}}}, {16, 16}), zero3);
  EXPECT_NE(sharded.error.find("zero <= 2"), std::string::npos)
      << sharded.error;
}

// Four data-parallel ranks, one sequence each, ZeRO-0: compute, then one
// ring all-reduce of the bf16 gradients, 2 (p-1)/p S/B + 2 (p-1) a. The one
// stage holds every layer, so the gradients of the embedding, the final norm
// and the (untied) head are synchronised with the layers'.
TEST(StepLowering, DataParallelStepAddsOneRingAllReduce) {
  TrainModel model = smallModel(0, cost::Checkpointing::None, 2);
  StepPlan plan =
      uniformPlan(4, {1, 1, 1, 1}, {{{0}, {1}, {2}, {3}}}, {16, 16, 16, 16});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;

  const double bandwidth = 1e9, alpha = 1e-6;
  sim::SimOptions options;
  options.commTime = [&](const prog::CommRequest &r) {
    EXPECT_EQ(r.kind, prog::CommKind::AllReduce);
    double p = double(r.ranks.size());
    return prog::CommTime(2 * (p - 1) / p * double(r.bytes) / bandwidth +
                         2 * (p - 1) * alpha);
  };
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;

  // The two layers' parameters (2848 each) plus the embedding (vocab 32 x
  // h 16), the final norm (16) and the head (32 x 16), in bf16.
  int64_t params = cost::layerParameters(model.shape, 0) +
                   cost::layerParameters(model.shape, 1) + 32 * 16 + 16 +
                   32 * 16;
  EXPECT_EQ(params, 2 * 2848 + 1040);
  double gradBytes = double(params * 2);
  double compute = 0;
  for (int64_t l = 0; l < 2; ++l)
    compute += 3 * forwardFlops(model, l, 16) / 1e12;
  compute += 3 * headFlops(16) / 1e12;
  double ring = 2.0 * 3 / 4 * gradBytes / bandwidth + 2 * 3 * alpha;
  EXPECT_NEAR(result.stepSeconds, compute + ring, 1e-12);
  ASSERT_EQ(result.ranks[0].spans.back().category, "all_reduce");
  EXPECT_NEAR(result.ranks[0].commSeconds, ring, 1e-15);
}

// Every FLOP of the batch is done once: the ranks' shares add up to 3x the
// forward (no checkpointing), or 4x (full recompute), plus 3x the output
// head's forward, which no checkpointing recomputes.
TEST(StepLowering, FlopsAreConservedAcrossLayouts) {
  std::vector<int64_t> lengths{64, 32, 128, 16};
  double fwd = 0, head = 0;
  TrainModel probe = smallModel(3, cost::Checkpointing::None);
  for (int64_t len : lengths) {
    for (int64_t l = 0; l < 4; ++l)
      fwd += forwardFlops(probe, l, len);
    head += headFlops(len);
  }
  for (auto [ckpt, factor] : {std::pair{cost::Checkpointing::None, 3.0},
                              std::pair{cost::Checkpointing::Full, 4.0}}) {
    TrainModel model = smallModel(3, ckpt);
    for (GroupLayout layout :
         {GroupLayout{4, 1, 1, 1}, GroupLayout{2, 2, 1, 1},
          GroupLayout{1, 2, 2, 1}, GroupLayout{1, 1, 4, 1}}) {
      StepPlan plan = uniformPlan(8, layout, {{{0, 1}, {2, 3}}}, lengths);
      LoweredStep lowered = lowerStep(plan, model);
      ASSERT_TRUE(lowered.ok()) << lowered.error;
      EXPECT_NEAR(lowered.totalFlops, factor * fwd + 3 * head, 1e-9 * fwd);
      EXPECT_NEAR(prog::totalComputeFlops(lowered.programs),
                  factor * fwd + 3 * head, 1e-9 * fwd);
    }
  }
}

// checkpoint_layers: full checkpointing of the first 2 of 4 layers
// recomputes their whole forward, and layers 2 and 3, past the count under
// the fused kernel, their attention core (selective,
// TrainModel::checkpointingPast): 3x the forward of all four, plus the
// forward of layers 0 and 1, plus the cores of layers 2 and 3, plus 3x the
// head; in a 2-stage pipeline the first stage (layers 0-1) recomputes in
// full and the second only cores. The step's peak memory lies between the
// all-full and the no-checkpointing steps'.
TEST(StepLowering, CheckpointLayersRecomputeOnlyTheFirstLayers) {
  std::vector<int64_t> lengths{64, 32, 128, 16};
  double fwd = 0, firstTwo = 0, cores = 0, head = 0;
  TrainModel probe = smallModel(3, cost::Checkpointing::None);
  for (int64_t len : lengths) {
    for (int64_t l = 0; l < 4; ++l)
      fwd += forwardFlops(probe, l, len);
    firstTwo += forwardFlops(probe, 0, len) + forwardFlops(probe, 1, len);
    for (int64_t l = 2; l < 4; ++l)
      cores += cost::recomputeFlops(
          cost::layerForwardFlops(probe.shape, l, {len, 0}).value,
          cost::Checkpointing::Selective);
    head += headFlops(len);
  }
  ASSERT_GT(cores, 0);
  TrainModel model = smallModel(0, cost::Checkpointing::Full);
  model.checkpointLayers = 2;
  for (GroupLayout layout :
       {GroupLayout{4, 1, 1, 1}, GroupLayout{2, 1, 1, 2}}) {
    StepPlan plan = uniformPlan(8, layout, {{{0, 1}, {2, 3}}}, lengths);
    LoweredStep lowered = lowerStep(plan, model);
    ASSERT_TRUE(lowered.ok()) << lowered.error;
    EXPECT_NEAR(prog::totalComputeFlops(lowered.programs),
                3 * fwd + firstTwo + cores + 3 * head, 1e-9 * fwd);
  }
  StepPlan plan = uniformPlan(8, {4, 1, 1, 1}, {{{0, 1}, {2, 3}}}, lengths);
  auto peak = [&](const TrainModel &m) {
    LoweredStep lowered = lowerStep(plan, m);
    EXPECT_TRUE(lowered.ok()) << lowered.error;
    sim::SimOptions options;
    options.commTime = zeroComm;
    sim::SimResult r = sim::simulate(lowered.programs, options);
    EXPECT_TRUE(r.ok()) << r.error;
    int64_t most = 0;
    for (const sim::RankResult &rank : r.ranks)
      most = std::max(most, rank.peakMemoryBytes);
    return most;
  };
  const int64_t partial = peak(model);
  EXPECT_LT(peak(smallModel(0, cost::Checkpointing::Full)), partial);
  EXPECT_LT(partial, peak(smallModel(0, cost::Checkpointing::None)));
}

// Ulysses: each rank of a degree-2 group sends its tokens' Q, K, V and O
// (2 * 4 * 4 + 2 * 2 * 4 = 48 values of 2 bytes) in one all-to-all per
// layer and pass. ZeRO-3 gathers and scatters every layer on the stream;
// the only layer is both the first and the last, so its gather and its
// reduction also carry the embedding, the final norm and the head.
TEST(StepLowering, UlyssesGroupsExchangeTheirTokensByAllToAll) {
  TrainModel model = smallModel(3, cost::Checkpointing::Selective, 1);
  StepPlan plan = uniformPlan(2, {2, 1, 1, 1}, {{{0}}}, {10});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  const prog::Program &p = lowered.programs[0];
  std::vector<std::string> kinds;
  for (const prog::Op &op : p.ops)
    kinds.push_back(
        op.kind == prog::OpKind::Compute ? prog::toString(op.computeKind)
        : op.kind == prog::OpKind::Wait  ? "wait " + std::to_string(op.pending)
                                       : std::string(op.async ? "async " : "") +
                                             prog::toString(op.commKind));
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
  // Each rank's half of the layer's bf16 parameters, plus its half of the
  // embedding (32 x 16), final norm (16) and head (32 x 16) in bf16.
  int64_t layerBytes = cost::layerParameters(model.shape, 0) * 2;
  int64_t extraBytes = (32 * 16 + 16 + 32 * 16) * 2; // 2080
  int64_t shard = (layerBytes + 1) / 2 + (extraBytes + 1) / 2;
  EXPECT_EQ(shard, 2848 + 1040);
  EXPECT_EQ(p.ops[0].bytes, shard);
  EXPECT_EQ(p.ops[4].bytes, shard);
  // The reduce-scatter takes the whole (shard x 2 ranks) buffer.
  EXPECT_EQ(p.ops.back().group, "zero:0-1");
  EXPECT_EQ(p.ops.back().bytes, 2 * shard);
}

// Peak memory: resident states, then every layer's kept activations and the
// loss's fp32 softmax of the logits (vocab 32 x 4 bytes per token).
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
  // 16 bytes per parameter of the whole (one-stage) model: the layers, the
  // embedding and the head (32 x 16 each) and the final norm (16).
  int64_t params = 4 * cost::layerParameters(model.shape, 0) + 2 * 32 * 16 + 16;
  EXPECT_EQ(resident, 16 * params);
  EXPECT_EQ(lowered.programs[0].initialMemoryBytes, resident);
  sim::SimOptions options;
  options.commTime = zeroComm;
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.ranks[0].peakMemoryBytes, resident + kept + 100 * 32 * 4);
}

// The ops name what they carry (rt's `layers`, `ulysses` and `carries`):
// ZeRO-3's gathers and reductions their layers, compute ops of a Ulysses
// group that group, pipeline messages their micro-batch's sequences. What
// a collective carries for layers [a, b) is carriedParameters: on the small
// shape a layer has 768 attention + 2048 MLP + 32 norm = 2848 parameters,
// the embedding and the untied head vocab 32 x h 16 = 512 each, the final
// norm 16.
TEST(StepLowering, CollectivesNameTheLayersTheyCarry) {
  cost::TransformerShape s = smallShape(3);
  ASSERT_EQ(cost::layerParameters(s, 0), 2848);
  // The first layer carries the embedding, the last the final norm and the
  // head, a middle one only itself.
  EXPECT_EQ(carriedParameters(s, 0, 1), 2848 + 512);
  EXPECT_EQ(carriedParameters(s, 1, 2), 2848);
  EXPECT_EQ(carriedParameters(s, 2, 3), 2848 + 16 + 512);
  EXPECT_EQ(carriedParameters(s, 1, 3), 2 * 2848 + 16 + 512);
  EXPECT_EQ(carriedParameters(s, 0, 3), 3 * 2848 + 512 + 16 + 512);
  // The whole model: what totalParameters counts.
  EXPECT_EQ(carriedParameters(s, 0, 3), cost::totalParameters(s));
  // Tied embeddings: the head is the embedding, carried once (with layer
  // 0); the last layer carries only the final norm.
  s.tiedEmbeddings = true;
  EXPECT_EQ(carriedParameters(s, 0, 1), 2848 + 512);
  EXPECT_EQ(carriedParameters(s, 1, 2), 2848);
  EXPECT_EQ(carriedParameters(s, 2, 3), 2848 + 16);
  EXPECT_EQ(carriedParameters(s, 0, 3), 3 * 2848 + 512 + 16);
  EXPECT_EQ(carriedParameters(s, 0, 3), cost::totalParameters(s));

  // 3 layers, one layer per op, ZeRO-3 over the 2 ranks of a Ulysses
  // group of degree 2.
  TrainModel model = smallModel(3, cost::Checkpointing::None, 3);
  LoweringOptions options;
  options.layersPerOp = 1;
  LoweredStep lowered =
      lowerStep(uniformPlan(2, {2, 1, 1, 1}, {{{0}}}, {8}), model, options);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  // Per rank and layer: half of 2848 bf16 parameters = 2848 bytes. Layer 0
  // adds half of the bf16 embedding, 512 x 2 / 2 = 512 bytes; layer 2 half
  // of the final norm and head, (16 + 512) x 2 / 2 = 528 bytes.
  auto shardOf = [](int64_t layer) -> int64_t {
    return 2848 + (layer == 0 ? 512 : 0) + (layer == 2 ? 528 : 0);
  };
  for (int64_t r = 0; r < 2; ++r) {
    std::vector<int64_t> gathered, reduced;
    int64_t computes = 0;
    for (const prog::Op &op : lowered.programs[static_cast<size_t>(r)].ops) {
      if (op.kind == prog::OpKind::Compute) {
        ++computes;
        EXPECT_EQ(op.ulysses, "sp:0-1") << op.label;
        EXPECT_EQ(op.ulyssesRanks, (std::vector<int64_t>{0, 1})) << op.label;
        continue;
      }
      if (op.kind != prog::OpKind::Collective)
        continue;
      if (op.commKind == prog::CommKind::AllToAll) {
        // Tokens, not parameters.
        EXPECT_FALSE(op.carriesLayers);
        continue;
      }
      EXPECT_TRUE(op.carriesLayers) << prog::toString(op.commKind);
      EXPECT_EQ(op.layerEnd, op.layerBegin + 1);
      EXPECT_EQ(op.group, "zero:0-1");
      if (op.commKind == prog::CommKind::AllGather) {
        gathered.push_back(op.layerBegin);
        EXPECT_EQ(op.bytes, shardOf(op.layerBegin)) << op.layerBegin;
      } else {
        ASSERT_EQ(op.commKind, prog::CommKind::ReduceScatter);
        reduced.push_back(op.layerBegin);
        EXPECT_EQ(op.bytes, 2 * shardOf(op.layerBegin)) << op.layerBegin;
      }
    }
    // Forward 0, 1, 2, backward 2, 1, 0; each backward layer reduced.
    EXPECT_EQ(gathered, (std::vector<int64_t>{0, 1, 2, 2, 1, 0}));
    EXPECT_EQ(reduced, (std::vector<int64_t>{2, 1, 0}));
    EXPECT_EQ(computes, 6); // no checkpointing: 3 fwd, 3 bwd
  }

  // Without Ulysses, compute ops name no group.
  LoweredStep plain =
      lowerStep(uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8}), model);
  ASSERT_TRUE(plain.ok()) << plain.error;
  for (const prog::Op &op : plain.programs[0].ops)
    if (op.kind == prog::OpKind::Compute) {
      EXPECT_TRUE(op.ulysses.empty()) << op.label;
      EXPECT_TRUE(op.ulyssesRanks.empty()) << op.label;
    }

  // Two pipelines of 2 stages (ranks 0-1 and 2-3), 2 layers, ZeRO-1, two
  // micro-batches: micro-batch k of group g holds mbs[k][g].
  TrainModel piped = smallModel(1, cost::Checkpointing::None, 2);
  const std::vector<std::vector<std::vector<int64_t>>> mbs{{{0, 1}, {2}},
                                                           {{3}, {4, 5}}};
  lowered = lowerStep(uniformPlan(4, {1, 1, 1, 2}, mbs, {8, 8, 8, 8, 8, 8}),
                      piped, options);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  for (int64_t r = 0; r < 4; ++r) {
    const int64_t group = r / 2, stage = r % 2;
    int64_t sends = 0, recvs = 0, syncs = 0;
    for (const prog::Op &op : lowered.programs[static_cast<size_t>(r)].ops) {
      if (op.kind == prog::OpKind::Send || op.kind == prog::OpKind::Recv) {
        (op.kind == prog::OpKind::Send ? sends : recvs) += 1;
        // Tag 2 k is micro-batch k's activations, 2 k + 1 its gradients.
        const bool backward = op.tag % 2 == 1;
        const std::vector<int64_t> &seqs =
            mbs[static_cast<size_t>(op.tag / 2)][static_cast<size_t>(group)];
        EXPECT_TRUE(op.carries);
        EXPECT_EQ(op.computeKind,
                  backward ? prog::ComputeKind::Bwd : prog::ComputeKind::Fwd);
        EXPECT_EQ(op.seqs, seqs);
        EXPECT_EQ(op.slices, std::vector<int64_t>(seqs.size(), 0));
        // Activations go down the pipeline, gradients back up.
        EXPECT_EQ(op.kind == prog::OpKind::Send,
                  backward ? stage == 1 : stage == 0);
        EXPECT_EQ(op.peer, stage == 0 ? r + 1 : r - 1);
      }
      if (op.kind == prog::OpKind::Collective) {
        // ZeRO-1 over the same stage of both pipelines ({0, 2} or {1, 3}):
        // a reduce-scatter and an all-gather of the stage's gradients.
        // Stage 0: layer 0 and the embedding, 2848 + 512 = 3360 bf16
        // parameters; stage 1: layer 1, the final norm and the head,
        // 2848 + 16 + 512 = 3376.
        ++syncs;
        const int64_t bytes = 2 * (stage == 0 ? 3360 : 3376);
        EXPECT_TRUE(op.carriesLayers);
        EXPECT_EQ(op.layerBegin, stage);
        EXPECT_EQ(op.layerEnd, stage + 1);
        EXPECT_EQ(op.ranks, (std::vector<int64_t>{stage, stage + 2}));
        EXPECT_EQ(op.bytes, op.commKind == prog::CommKind::ReduceScatter
                                ? bytes
                                : bytes / 2)
            << prog::toString(op.commKind);
      }
    }
    EXPECT_EQ(sends, 2) << "rank " << r;
    EXPECT_EQ(recvs, 2) << "rank " << r;
    EXPECT_EQ(syncs, 2) << "rank " << r;
  }
  sim::SimOptions simOptions;
  simOptions.commTime = zeroComm;
  EXPECT_TRUE(sim::simulate(lowered.programs, simOptions).ok());
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

/// A ZeRO-3 program as letters: C compute, Wk a wait with pending k, G a
/// gather, R a reduce-scatter.
std::string zeroOpLetters(const prog::Program &program) {
  std::string text;
  for (const prog::Op &op : program.ops)
    text += op.kind == prog::OpKind::Compute ? "C"
            : op.kind == prog::OpKind::Wait  ? "W" + std::to_string(op.pending)
            : op.commKind == prog::CommKind::AllGather ? "G"
                                                       : "R";
  return text;
}

// ZeRO-3 with several layers: each chunk's gather is issued one chunk ahead,
// and backward waits leave the previous chunk's reduction pending.
TEST(StepLowering, ZeroThreePrefetchesOneChunkAhead) {
  TrainModel model = smallModel(3, cost::Checkpointing::None, 3);
  StepPlan plan = uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  const std::string text = zeroOpLetters(lowered.programs[0]);
  // fwd: G W0 G C W0 G C W0 C; bwd: G W0 G C R W1 G C R W1 C R.
  EXPECT_EQ(text, "GW0GCW0GCW0CGW0GCRW1GCRW1CR");
  // With compute longer than a gather, only the first gather shows.
  sim::SimOptions options;
  options.commTime = [](const prog::CommRequest &) {
    return prog::CommTime(1e-12);
  };
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_LT(result.ranks[0].commSeconds, 3e-12);
}

// zero_prefetch 0: each chunk gathers on demand and waits for the whole
// stream, so a chunk's gather also waits for the previous chunk's
// reduce-scatter (one NCCL queue). Nothing hides: with every collective
// taking c seconds, the step is its compute plus all 3 + 3 + 3 of them
// (3 chunks: a gather each in forward, a gather and a reduce-scatter each
// in backward), the last reduce-scatter waited for by the program's end.
TEST(StepLowering, ZeroThreeOnDemandExposesItsWholeStream) {
  TrainModel model = smallModel(3, cost::Checkpointing::None, 3);
  model.zeroPrefetch = 0;
  StepPlan plan = uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {8, 8});
  LoweredStep lowered = lowerStep(plan, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  const std::string text = zeroOpLetters(lowered.programs[0]);
  // fwd: (G W0 C) x 3; bwd: (G W0 C R) x 3.
  EXPECT_EQ(text, "GW0CGW0CGW0CGW0CRGW0CRGW0CR");

  const double c = 1e-3; // far longer than the tiny model's compute
  sim::SimOptions options;
  options.commTime = [&](const prog::CommRequest &) {
    return prog::CommTime(c);
  };
  // A stream collective runs at e = 0.8 of its alone rate; nothing
  // overlaps it, so the contention's compute slowdown never applies.
  options.overlap = cost::Overlap{0.189, 0.8};
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;
  double compute = 0;
  for (int64_t l = 0; l < 3; ++l)
    compute += 3 * forwardFlops(model, l, 8) / 1e12;
  compute += 3 * headFlops(8) / 1e12;
  EXPECT_NEAR(result.stepSeconds, compute + 9 * c / 0.8, 1e-12);

  // With collectives far shorter than a chunk's compute, prefetched (the
  // default) only the first gather of each pass and the last
  // reduce-scatter show, with compute slowed a little beside the others
  // (passes/Cost/Overlap.h); on demand all nine show.
  const double tiny = 1e-12;
  options.commTime = [&](const prog::CommRequest &) {
    return prog::CommTime(tiny);
  };
  sim::SimResult onDemand = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(onDemand.ok()) << onDemand.error;
  EXPECT_NEAR(onDemand.stepSeconds, compute + 9 * tiny / 0.8, 1e-18);
  model.zeroPrefetch = 1;
  LoweredStep ahead = lowerStep(plan, model);
  ASSERT_TRUE(ahead.ok()) << ahead.error;
  sim::SimResult prefetched = sim::simulate(ahead.programs, options);
  ASSERT_TRUE(prefetched.ok()) << prefetched.error;
  EXPECT_LT(prefetched.stepSeconds, onDemand.stepSeconds - 4 * tiny);
}

// Placement's ring orders replace the lowering's rank order wherever a
// communicator's members match: every collective and Ulysses group over
// {0, 1, 2, 3} becomes [0, 2, 3, 1] (each op the same way, so shard j and
// Ulysses part j stay on one rank everywhere); a group placement did not
// order, and a pair (one ring either way), keep their order.
TEST(StepLowering, RingOrdersFromPlacementRenameNoRankTwice) {
  std::vector<prog::Program> programs(1);
  programs[0].ops.push_back(prog::Op::collective(prog::CommKind::AllGather,
                                                prog::GroupKind::Zero, "zero:0-3", {0, 1, 2, 3}, 64));
  prog::Op compute = prog::Op::compute("fwd", prog::ComputeKind::Fwd, 1e-3);
  compute.ulyssesRanks = {0, 1, 2, 3};
  programs[0].ops.push_back(compute);
  programs[0].ops.push_back(
      prog::Op::collective(prog::CommKind::AllReduce, prog::GroupKind::Dp, "dp:0-5", {0, 5}, 8));
  programs[0].ops.push_back(prog::Op::collective(prog::CommKind::ReduceScatter,
                                                prog::GroupKind::Dp, "dp:0-2/2", {0, 2, 4}, 12));
  RingOrders orders = {{{0, 1, 2, 3}, {0, 2, 3, 1}}, {{0, 5}, {5, 0}}};
  applyRingOrders(programs, orders);
  const std::vector<prog::Op> &ops = programs[0].ops;
  EXPECT_EQ(ops[0].ranks, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(ops[0].group, "zero:0-3"); // names keep the member set
  EXPECT_EQ(ops[1].ulyssesRanks, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(ops[2].ranks, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(ops[3].ranks, (std::vector<int64_t>{0, 2, 4}));
}

} // namespace

namespace {

/// Replica k of `programs` (n ranks): every rank, peer and member of
/// replica 0 moved by k * n; members already outside replica 0 (a group
/// across replicas) stay.
std::vector<prog::Program> wholeJob(const std::vector<prog::Program> &programs,
                                    int64_t replicas) {
  const int64_t n = static_cast<int64_t>(programs.size());
  std::vector<prog::Program> out;
  for (int64_t k = 0; k < replicas; ++k)
    for (const prog::Program &p : programs) {
      prog::Program q = p;
      for (prog::Op &op : q.ops) {
        if (op.peer >= 0)
          op.peer += k * n;
        if (op.kind != prog::OpKind::Collective || op.ranks.back() >= n)
          continue;
        std::vector<int64_t> ranks = op.ranks.vec();
        for (int64_t &r : ranks)
          r += k * n;
        op.ranks = prog::Members(ranks);
        op.group = communicatorName(op.groupKind, ranks);
      }
      out.push_back(std::move(q));
    }
  return out;
}

} // namespace

// Replicas: ZeRO-0 inside a replica of 2 becomes the hierarchical
// all-reduce (reduce-scatter, all-reduce of the half with its image in
// the other replica, all-gather), and one replica simulated with its
// images gives the whole job's result to the bit.
TEST(StepLowering, ReplicasAllReduceTheirShardsAndSimulateAsTheWholeJob) {
  for (int64_t zero : {0, 1, 3}) {
    SCOPED_TRACE("zero " + std::to_string(zero));
    TrainModel model = smallModel(zero, cost::Checkpointing::None, 2);
    StepPlan plan = uniformPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {16, 24});
    LoweringOptions options;
    options.replicas = 3;
    LoweredStep lowered = lowerStep(plan, model, options);
    ASSERT_TRUE(lowered.ok()) << lowered.error;
    ASSERT_EQ(lowered.programs.size(), 2u);
    // Gradients of both layers and the embedding / head, in bf16, halved
    // over the replica's 2 ZeRO ranks.
    const int64_t params = 2 * 2848 + 1040;
    for (int64_t r = 0; r < 2; ++r) {
      const std::vector<prog::Op> &ops = lowered.programs[r].ops;
      const prog::Op &cross = zero < 3 ? ops[ops.size() - 2] : ops.back();
      ASSERT_EQ(cross.kind, prog::OpKind::Collective);
      EXPECT_EQ(cross.commKind, prog::CommKind::AllReduce);
      EXPECT_EQ(cross.ranks.vec(), (std::vector<int64_t>{r, r + 2, r + 4}));
      EXPECT_EQ(cross.bytes, params * 2 / 2);
      if (zero == 3) {
        EXPECT_EQ(ops[ops.size() - 2].kind, prog::OpKind::Wait);
      }
      if (zero == 0) { // no all-reduce over the replica's own ranks is left
        EXPECT_EQ(ops[ops.size() - 3].commKind,
                  prog::CommKind::ReduceScatter);
        EXPECT_EQ(ops[ops.size() - 1].commKind, prog::CommKind::AllGather);
      }
    }
    sim::SimOptions folded;
    folded.commTime = [](const prog::CommRequest &r) {
      return prog::CommTime(1e-6 * double(r.ranks.size()) +
                            double(r.bytes) / 1e9);
    };
    folded.replicas = 3;
    sim::SimResult a = sim::simulate(lowered.programs, folded);
    ASSERT_TRUE(a.ok()) << a.error;
    sim::SimOptions whole;
    whole.commTime = folded.commTime;
    sim::SimResult b = sim::simulate(wholeJob(lowered.programs, 3), whole);
    ASSERT_TRUE(b.ok()) << b.error;
    EXPECT_EQ(a.stepSeconds, b.stepSeconds);
    for (size_t r = 0; r < 2; ++r) {
      EXPECT_EQ(a.ranks[r].finishSeconds, b.ranks[r].finishSeconds);
      EXPECT_EQ(a.ranks[r].commSeconds, b.ranks[r].commSeconds);
      EXPECT_EQ(a.ranks[r].peakMemoryBytes, b.ranks[r].peakMemoryBytes);
    }
  }
}
