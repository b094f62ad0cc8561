//===- StepPlannersTest.cpp - Static layouts as planned steps -------------===//
//
// The planners of passes/Baselines/StepPlanners.h on a model small enough to
// work by hand: 2 layers, h = 16, 4 heads (head_dim 4), 2 KV heads, GeLU ffn
// 64, vocab 32, bf16, on a chip of 1 TFLOP/s at efficiency 1. Per layer:
// 768 attention + 2048 MLP + 32 norm = 2848 parameters; forward FLOPs of a
// sequence of n tokens 5632 n + 32 n^2; kept activation bytes per token 512
// (selective), 32 (full), 512 + 20 n (none). Embedding and LM head 512 each,
// final norm 16: 2 x 2848 + 512 + 16 + 512 = 6736 parameters in all.
//
//===----------------------------------------------------------------------===//
#include "passes/Baselines/StepPlanners.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::baselines;
using step::GroupLayout;

namespace {

using Ids = std::vector<int64_t>;
using Bins = std::vector<std::vector<Ids>>;

step::TrainModel tinyModel(int64_t zero, cost::Checkpointing ckpt,
                            int64_t layers = 2) {
  step::TrainModel m;
  m.shape.layers = layers;
  m.shape.hidden = 16;
  m.shape.heads = 4;
  m.shape.kvHeads = 2;
  m.shape.ffn = 64;
  m.shape.vocab = 32;
  m.shape.mlp = cost::MlpKind::GeLU;
  m.chip.name = "test";
  m.chip.bf16Flops = 1e12;
  m.chip.hbmBytes = int64_t(1) << 34;
  m.efficiency = 1.0;
  m.checkpointing = ckpt;
  m.zero = zero;
  return m;
}

TrainSetup
tinySetup(int64_t world, int64_t memoryBytes, int64_t zero = 0,
          cost::Checkpointing ckpt = cost::Checkpointing::Selective) {
  TrainSetup s;
  s.model = tinyModel(zero, ckpt);
  s.world = world;
  s.chipsPerNode = world;
  s.memoryBytes = memoryBytes;
  return s;
}

/// Every model state of the tiny model on one chip under ZeRO-0:
/// 16 bytes x (2 x 2848 layers + 512 embedding + 16 final norm + 512 head)
/// parameters.
constexpr int64_t kResidentZero0 = 16 * 6736; // 107,776

/// A constant time for every communication, recording what was asked.
struct ConstantComm {
  double seconds = 1e-6;
  std::vector<prog::CommRequest> requests;
  prog::CommTimeFn fn() {
    return [this](const prog::CommRequest &r) {
      requests.push_back(r);
      return prog::CommTime(seconds);
    };
  }
};

prog::CommTime freeComm(const prog::CommRequest &) { return prog::CommTime(0.0); }

/// One micro-batch per entry, every one with the same groups side by side.
step::StepPlan handPlan(int64_t world, GroupLayout layout, const Bins &mbs,
                         std::vector<int64_t> lengths) {
  step::StepPlan plan;
  plan.world = world;
  plan.lengths = std::move(lengths);
  for (const auto &groups : mbs) {
    step::PlannedMicroBatch mb;
    for (size_t g = 0; g < groups.size(); ++g) {
      step::PlannedGroup pg;
      pg.layout = layout;
      pg.firstRank = static_cast<int64_t>(g) * layout.degree();
      pg.seqs = groups[g];
      mb.groups.push_back(pg);
    }
    plan.microBatches.push_back(mb);
  }
  return plan;
}

Bins binsOf(const step::StepPlan &plan) {
  Bins out;
  for (const step::PlannedMicroBatch &mb : plan.microBatches) {
    out.emplace_back();
    for (const step::PlannedGroup &g : mb.groups)
      out.back().push_back(g.seqs);
  }
  return out;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

TEST(StepPlanners, LayoutNamesOfEachFamily) {
  EXPECT_EQ(layoutName({8, 1, 1, 1}), "static-sp-8");
  EXPECT_EQ(layoutName({1, 1, 1, 1}), "static-sp-1");
  EXPECT_EQ(layoutName({1, 4, 2, 1}), "megatron-tp4-cp2");
  EXPECT_EQ(layoutName({1, 1, 2, 1}), "megatron-tp1-cp2");
  EXPECT_EQ(layoutName({1, 2, 1, 4}), "pp4-tp2-1f1b");
  EXPECT_EQ(layoutName({2, 2, 1, 2}), "sp2-tp2-cp1-pp2");
  EXPECT_EQ(layoutName({1, 1, 2, 2}), "sp1-tp1-cp2-pp2");
}

TEST(StepPlanners, LayoutNamesParseBack) {
  for (int64_t u : {1, 2, 3, 8})
    for (int64_t t : {1, 2, 16})
      for (int64_t c : {1, 4})
        for (int64_t p : {1, 2, 5}) {
          GroupLayout l{u, t, c, p};
          std::optional<GroupLayout> back = parseLayoutName(layoutName(l));
          ASSERT_TRUE(back.has_value()) << layoutName(l);
          EXPECT_EQ(*back, l) << layoutName(l);
        }
  EXPECT_EQ(parseLayoutName("static-sp-64"), (GroupLayout{64, 1, 1, 1}));
  EXPECT_EQ(parseLayoutName("megatron-tp8-cp4"), (GroupLayout{1, 8, 4, 1}));
  EXPECT_EQ(parseLayoutName("pp4-tp2-1f1b"), (GroupLayout{1, 2, 1, 4}));
  EXPECT_EQ(parseLayoutName("sp2-tp2-cp2-pp2"), (GroupLayout{2, 2, 2, 2}));
  // Interleaved 1F1B names its model chunks per stage.
  for (int64_t u : {1, 2})
    for (int64_t p : {2, 5})
      for (int64_t v : {2, 3}) {
        GroupLayout l{u, 4, 1, p};
        l.vpp = v;
        std::optional<GroupLayout> back = parseLayoutName(layoutName(l));
        ASSERT_TRUE(back.has_value()) << layoutName(l);
        EXPECT_EQ(*back, l) << layoutName(l);
      }
  GroupLayout interleaved{1, 8, 1, 8};
  interleaved.vpp = 2;
  EXPECT_EQ(layoutName(interleaved), "pp8-tp8-v2-1f1b");
  EXPECT_EQ(parseLayoutName("pp8-tp8-v2-1f1b"), interleaved);
}

TEST(StepPlanners, MalformedLayoutNamesAreRejected) {
  for (const char *name : {"",
                           "static-sp-",
                           "static-sp-0",
                           "static-sp-x",
                           "static-sp--2",
                           "static-sp-2x",
                           "static-sp-+2",
                           "static-sp-1234567890",
                           "pp2-tp4",
                           "pp2-tp4-gpipe",
                           "pp0-tp1-1f1b",
                           "megatron-tp2",
                           "megatron-tp2-cp0",
                           "megatron-cp2-tp2",
                           "sp2-tp2-cp2",
                           "sp2-tp2-cp2-pp2-",
                           "Static-SP-2",
                           " static-sp-2",
                           "pp8-tp8-v1-1f1b",
                           "pp1-tp8-v2-1f1b",
                           "pp8-tp8-v2",
                           "pp8-tp8-1f1b-v2",
                           "static-sp-2-v2"})
    EXPECT_FALSE(parseLayoutName(name).has_value()) << '"' << name << '"';
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST(StepPlanners, ActivationBytesPerTokenByCheckpointing) {
  // Every mode adds the loss's fp32 softmax of the logits: vocab 32 x 4
  // bytes = 128 per token, which checkpointing does not reach.
  const int64_t logits = 32 * 4;
  // Selective: 2 layers x 512; the length does not matter.
  step::TrainModel sel = tinyModel(0, cost::Checkpointing::Selective);
  EXPECT_EQ(activationBytesPerToken(sel, 10), 1024 + logits);
  EXPECT_EQ(activationBytesPerToken(sel, 1000), 1024 + logits);
  // Full: each layer keeps its input (2 x 16 bytes), plus the largest
  // recompute transient, 512 - 32 = 480.
  step::TrainModel full = tinyModel(0, cost::Checkpointing::Full);
  EXPECT_EQ(activationBytesPerToken(full, 10), 2 * 32 + 480 + logits);
  // None: the attention scores of every key, (2 x 2 + 1) x 4 heads = 20
  // bytes per key: 2 x (512 + 20 x 10).
  step::TrainModel none = tinyModel(0, cost::Checkpointing::None);
  none.attention = cost::AttentionKernel::Eager;
  EXPECT_EQ(activationBytesPerToken(none, 10), 1424 + logits);
  EXPECT_EQ(activationBytesPerToken(none, 100), 2 * (512 + 2000) + logits);
  // A fused kernel (the default) keeps only the fp32 log-sum-exp of each of
  // the 4 heads, at any length: 2 x (512 + 16).
  none.attention = cost::AttentionKernel::Fused;
  EXPECT_EQ(activationBytesPerToken(none, 10), 1056 + logits);
  EXPECT_EQ(activationBytesPerToken(none, 100), 1056 + logits);
  // checkpoint_layers = 1: layer 0 is checkpointed in full (its input, 32,
  // and the transient 480); layer 1, past the count under a fused kernel,
  // is selective (512; TrainModel::checkpointingPast), and with eager
  // attention keeps everything, the scores included (512 + 20 x 10).
  full.checkpointLayers = 1;
  EXPECT_EQ(activationBytesPerToken(full, 10), 32 + 480 + 512 + logits);
  full.attention = cost::AttentionKernel::Eager;
  EXPECT_EQ(activationBytesPerToken(full, 10), 32 + 480 + 712 + logits);
  full.attention = cost::AttentionKernel::Fused;
  // checkpoint_layers equal to the layers is every layer.
  full.checkpointLayers = 2;
  EXPECT_EQ(activationBytesPerToken(full, 10), 2 * 32 + 480 + logits);
}

TEST(StepPlanners, LayoutCapacityIsFreeMemoryOverBytesPerToken) {
  // ZeRO-0: all 6736 parameters' 16 bytes on every chip; 100 tokens of
  // 1024 + 128 (logits) bytes fit in what is left, and 1151 more bytes
  // make no token.
  TrainSetup s = tinySetup(4, kResidentZero0 + 100 * 1152 + 1151);
  Capacity c = layoutCapacity(s, {1, 1, 1, 1}, 64);
  EXPECT_TRUE(c.error.empty()) << c.error;
  EXPECT_EQ(c.residentBytes, 107776);
  EXPECT_EQ(c.bytesPerToken, 1152);
  EXPECT_EQ(c.tokensPerChip, 100);

  // tp 2 halves the parameters (6736 / 2 = 3368):
  // (224,127 - 53,888) / 1152 = 147.8.
  c = layoutCapacity(s, {1, 2, 1, 1}, 64);
  EXPECT_EQ(c.residentBytes, 16 * 3368);
  EXPECT_EQ(c.tokensPerChip, 147);

  // ZeRO-1 over world / (tp * pp) = 4 ranks: 4 P + 12 P / 4.
  s.model.zero = 1;
  c = layoutCapacity(s, {2, 1, 1, 1}, 64);
  EXPECT_EQ(c.residentBytes, 4 * 6736 + 12 * 6736 / 4);
  // The first of 2 stages holds layer 0 and the embedding (3360
  // parameters), sharded over 4 / 2 = 2 ranks.
  c = layoutCapacity(s, {1, 1, 1, 2}, 64);
  EXPECT_EQ(c.residentBytes, 4 * 3360 + 12 * 3360 / 2);
}

TEST(StepPlanners, LayoutCapacityWithoutRoomForTheModelStates) {
  TrainSetup s = tinySetup(2, kResidentZero0);
  Capacity c = layoutCapacity(s, {2, 1, 1, 1}, 64);
  EXPECT_EQ(c.tokensPerChip, 0);
  // The tiny model's states are kilobytes: said in KB, not "0.0 GB".
  EXPECT_TRUE(
      contains(c.error, "the model states alone need 107.8 KB per chip"))
      << c.error;
  EXPECT_TRUE(contains(c.error, "shard them further (zero, tp or pp)"))
      << c.error;

  // Room for the states but not for one token.
  s.memoryBytes = kResidentZero0 + 1023;
  c = layoutCapacity(s, {2, 1, 1, 1}, 64);
  EXPECT_EQ(c.tokensPerChip, 0);
  EXPECT_EQ(c.error, "a chip has room for no token after its model states");
}

//===----------------------------------------------------------------------===//
// Infeasible layouts
//===----------------------------------------------------------------------===//

TEST(StepPlanners, AnInfeasibleLayoutSaysWhy) {
  TrainSetup s = tinySetup(4, 1'000'000'000);
  std::vector<int64_t> lengths{64, 32};
  auto errorOf = [&](const TrainSetup &setup, GroupLayout l) {
    NamedPlan p = planStaticLayout(setup, lengths, l, freeComm);
    EXPECT_FALSE(p.ok()) << p.name;
    EXPECT_EQ(p.name, layoutName(l));
    return p.error;
  };
  EXPECT_EQ(errorOf(s, {3, 1, 1, 1}),
            "groups of 3 ranks do not divide 4 chips");
  EXPECT_EQ(errorOf(s, {0, 1, 1, 1}),
            "every parallel degree must be at least 1");

  TrainSetup eight = tinySetup(8, 1'000'000'000);
  EXPECT_EQ(errorOf(eight, {8, 1, 1, 1}),
            "sp * tp (8) must divide the 4 heads");
  EXPECT_EQ(errorOf(eight, {2, 4, 1, 1}),
            "sp * tp (8) must divide the 4 heads");
  EXPECT_EQ(errorOf(s, {1, 1, 1, 4}), "4 stages for 2 layers");

  TrainSetup zero3 = tinySetup(4, 1'000'000'000, /*zero=*/3);
  EXPECT_TRUE(
      contains(errorOf(zero3, {1, 1, 1, 2}), "a pipeline needs zero <= 2"));

  TrainSetup tiny = tinySetup(4, kResidentZero0);
  EXPECT_TRUE(
      contains(errorOf(tiny, {2, 1, 1, 1}), "the model states alone need"));

  NamedPlan empty = planStaticLayout(s, {}, {2, 1, 1, 1}, freeComm);
  EXPECT_EQ(empty.error, "the batch is empty");
}

TEST(StepPlanners, ATooLongSequenceIsNamedWithItsMemory) {
  // 2 GB per chip: (2e9 - 107,776) / 1152 = 1,736,017.6 (1024 bytes of
  // layers and 128 of logits per token), so 1,736,017 tokens per chip,
  // 3,472,034 per group of 2. Sequence 1 (the first too long) needs
  // 107,776 + 8e6 x 1152 / 2 bytes = 4.6 GB per chip.
  TrainSetup s = tinySetup(2, 2'000'000'000);
  NamedPlan p =
      planStaticLayout(s, {1000, 8'000'000, 9'000'000}, {2, 1, 1, 1}, freeComm);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error, "sequence 1 (8,000,000 tokens) needs 4.6 GB per chip "
                     "under static-sp-2, but a chip holds 2.0 GB (3,472,034 "
                     "tokens per group); raise the SP degree or use full "
                     "checkpointing");

  // Tensor parallelism: (2e9 - 53,888) / 1152 = 1,736,064 tokens per chip.
  p = planStaticLayout(s, {8'000'000}, {1, 2, 1, 1}, freeComm);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error, "sequence 0 (8,000,000 tokens) needs 4.6 GB per chip "
                     "under megatron-tp2-cp1, but a chip holds 2.0 GB "
                     "(3,472,128 tokens per group); raise cp or use full "
                     "checkpointing");
}

TEST(StepPlanners, TheKnobOfATooLongSequenceFitsTheLayout) {
  // Context parallelism alone is a Megatron layout: its knob is cp, not
  // the (Ulysses) SP degree.
  TrainSetup s = tinySetup(2, 2'000'000'000);
  NamedPlan p = planStaticLayout(s, {8'000'000}, {1, 1, 2, 1}, freeComm);
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(contains(p.error, "under megatron-tp1-cp2")) << p.error;
  EXPECT_TRUE(contains(p.error, "; raise cp")) << p.error;

  // Already fully checkpointed: (2e9 - 107,776) / (544 + 128) = 2,976,030
  // tokens per chip; checkpointing is no longer a way out.
  s.model.checkpointing = cost::Checkpointing::Full;
  p = planStaticLayout(s, {8'000'000}, {2, 1, 1, 1}, freeComm);
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(contains(p.error, "(5,952,060 tokens per group)")) << p.error;
  EXPECT_TRUE(contains(p.error, "; raise the SP degree")) << p.error;
  EXPECT_FALSE(contains(p.error, "full checkpointing")) << p.error;
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

TEST(StepPlanners, SequenceForwardFlopsAddTheLayers) {
  // 2 x (5632 x 10 + 32 x 100).
  EXPECT_DOUBLE_EQ(sequenceForwardFlops(tinyModel(0, {}).shape, 10), 119040);
}

TEST(StepPlanners, BalancingSpreadsWhatBestFitPacksTogether) {
  step::TrainModel m = tinyModel(0, cost::Checkpointing::Selective);
  std::vector<int64_t> lengths{40, 30, 20, 10};
  // Two groups of 100 tokens: best fit puts everything into group 0.
  Result<StaticSpPlan> packed = packStaticSp(lengths, {2, 1, 100, 0});
  ASSERT_TRUE(packed) << packed.error;
  ASSERT_EQ(packed->microBatches.size(), 1u);
  EXPECT_EQ(packed->microBatches[0].groups[0].sequenceIds, (Ids{0, 1, 2, 3}));
  EXPECT_TRUE(packed->microBatches[0].groups[1].sequenceIds.empty());
  // Balanced by forward FLOPs (5632 n + 32 n^2 per layer): 40 -> g0,
  // 30 -> g1, 20 -> g1 (F(30) < F(40)), 10 -> g0 (F(40) = 276,480 <
  // F(30) + F(20) = 323,200).
  EXPECT_EQ(balanceBins(m, lengths, *packed, 100), (Bins{{{0, 3}, {1, 2}}}));
}

TEST(StepPlanners, BalancingKeepsThePackingWhenASequenceFindsNoRoom) {
  step::TrainModel m = tinyModel(0, cost::Checkpointing::Selective);
  std::vector<int64_t> lengths{60, 50, 40, 30, 20};
  // Best fit fills both groups exactly: {60, 40} and {50, 30, 20}.
  Result<StaticSpPlan> packed = packStaticSp(lengths, {2, 1, 100, 0});
  ASSERT_TRUE(packed) << packed.error;
  Bins bfd{{{0, 2}, {1, 3, 4}}};
  // Balancing would place 60 | 50, 40 -> g1 (90), 30 -> g0 (90), and then
  // 20 fits nowhere: the best-fit packing stands.
  EXPECT_EQ(balanceBins(m, lengths, *packed, 100), bfd);
}

TEST(StepPlanners, BalancingFillsMicroBatchesInOrder) {
  // One group of 100 tokens: best fit needs 2 micro-batches, {60, 40} and
  // {50}; balancing keeps 2 and gives the second the next largest.
  step::TrainModel m = tinyModel(0, cost::Checkpointing::Selective);
  std::vector<int64_t> lengths{60, 50, 40};
  Result<StaticSpPlan> packed = packStaticSp(lengths, {1, 1, 100, 0});
  ASSERT_TRUE(packed) << packed.error;
  ASSERT_EQ(packed->microBatches.size(), 2u);
  EXPECT_EQ(balanceBins(m, lengths, *packed, 100), (Bins{{{0}}, {{1, 2}}}));
}

TEST(StepPlanners, StaticLayoutPlansTheBalancedBins) {
  // 100 tokens per chip, static-sp-1 on 2 chips.
  TrainSetup s = tinySetup(2, kResidentZero0 + 100 * 1024);
  NamedPlan p = planStaticLayout(s, {40, 30, 20, 10}, {1, 1, 1, 1}, freeComm);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.name, "static-sp-1");
  EXPECT_EQ(p.plan->strategy, "static-sp-1");
  EXPECT_EQ(p.plan->world, 2);
  EXPECT_EQ(binsOf(*p.plan), (Bins{{{0, 3}, {1, 2}}}));
  EXPECT_EQ(p.plan->microBatches[0].groups[1].firstRank, 1);
  EXPECT_GT(p.plan->seconds, 0);
}

//===----------------------------------------------------------------------===//
// Step estimates
//===----------------------------------------------------------------------===//

// Two data-parallel ranks, one sequence each, ZeRO-0, no checkpointing:
// each group computes 3 x its forward, the micro-batch takes the slower,
// and the gradients of the stage (2 layers x 2848, the embedding 512, the
// final norm 16 and the head 512: 6736 bf16 values) are all-reduced once.
// F(10) = 59,520, F(20) = 125,440 per layer; the output head after the last
// layer H(t) = 2 t h V = 1024 t, 3 H(t) with its backward.
TEST(StepPlanners, EstimateOfADataParallelStep) {
  TrainSetup s = tinySetup(2, 1'000'000'000, 0, cost::Checkpointing::None);
  s.model.attention = cost::AttentionKernel::Eager; // the scores below
  step::StepPlan plan = handPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {10, 20});
  ConstantComm comm;
  ASSERT_EQ(estimateStep(plan, s, comm.fn()), "");

  const step::PlannedMicroBatch &mb = plan.microBatches[0];
  EXPECT_NEAR(mb.groups[0].seconds, (6 * 59520 + 3 * 10240) * 1e-12, 1e-18);
  EXPECT_NEAR(mb.groups[1].seconds, (6 * 125440 + 3 * 20480) * 1e-12, 1e-18);
  EXPECT_NEAR(mb.seconds, 8.1408e-7, 1e-18);
  EXPECT_NEAR(plan.seconds, 8.1408e-7 + 1e-6, 1e-18);

  ASSERT_EQ(comm.requests.size(), 1u);
  EXPECT_EQ(comm.requests[0].kind, prog::CommKind::AllReduce);
  EXPECT_EQ(comm.requests[0].ranks, (Ids{0, 1}));
  EXPECT_EQ(comm.requests[0].bytes, (2 * 2848 + 512 + 16 + 512) * 2);

  // Memory: the states plus 2 layers x (512 + 20 n) x n kept bytes and
  // the logits, 128 n.
  EXPECT_EQ(mb.groups[0].memBytes, kResidentZero0 + 2 * 712 * 10 + 1280);
  EXPECT_EQ(mb.groups[1].memBytes, kResidentZero0 + 2 * 912 * 20 + 2560);
  EXPECT_EQ(plan.peakMemBytes, 107776 + 36480 + 2560); // 146,816
}

// 1F1B over 2 stages of one layer, 2 pipelines side by side, 3
// micro-batches: their sum plus p - 1 slots of the slowest, plus ZeRO-1's
// reduce-scatter and all-gather, costed for the stage that carries most:
// the last (layer 1 2848 + final norm 16 + head 512 = 3376 values, against
// the first's 2848 + embedding 512 = 3360), among ranks 0 and 2 as the
// estimate names the first stage's group (same size, same links here).
TEST(StepPlanners, EstimateOfAPipelinedStep) {
  TrainSetup s = tinySetup(4, 1'000'000'000, 1, cost::Checkpointing::None);
  s.model.attention = cost::AttentionKernel::Eager; // the scores below
  step::StepPlan plan =
      handPlan(4, {1, 1, 1, 2}, {{{0}, {1}}, {{2}, {3}}, {{4}, {5}}},
               {10, 20, 10, 10, 10, 10});
  ConstantComm comm;
  ASSERT_EQ(estimateStep(plan, s, comm.fn()), "");
  // The slowest stage is the last, which adds the head: 3 (F(t) + H(t)).
  const double s20 = 3 * (125440 + 20480) * 1e-12,
               s10 = 3 * (59520 + 10240) * 1e-12;
  EXPECT_NEAR(plan.microBatches[0].seconds, s20, 1e-18);
  EXPECT_NEAR(plan.microBatches[1].seconds, s10, 1e-18);
  // 1F1B over micro-batches of unequal work: each passes the slowest stage
  // once (s20 + s10 + s10) and the fill and drain add p - 1 = 1 slot of
  // the slowest (s20); equal micro-batches would give the closed form
  // (m + p - 1) x the slowest.
  EXPECT_NEAR(plan.seconds, s20 + 2 * s10 + s20 + 2e-6, 1e-18);

  ASSERT_EQ(comm.requests.size(), 2u);
  EXPECT_EQ(comm.requests[0].kind, prog::CommKind::ReduceScatter);
  EXPECT_EQ(comm.requests[0].ranks, (Ids{0, 2}));
  EXPECT_EQ(comm.requests[0].bytes, 3376 * 2);
  EXPECT_EQ(comm.requests[1].kind, prog::CommKind::AllGather);
  EXPECT_EQ(comm.requests[1].ranks, (Ids{0, 2}));
  EXPECT_EQ(comm.requests[1].bytes, 3376);

  // Stage 0 keeps 2 micro-batches of layer 0 over ZeRO-1 states of its
  // 3360 parameters on 2 ranks: 33,600 + 2 x 912 x 20.
  EXPECT_EQ(plan.microBatches[0].groups[1].memBytes, 33600 + 2 * 912 * 20);
  EXPECT_EQ(plan.peakMemBytes, 70080);
}

// Interleaved 1F1B over the same stages: the same micro-batches through
// the slowest stage, and a fill and drain v times shorter. Four layers,
// pp 2 x vpp 2 (virtual stages of one layer, stage 0 holding layers 0 and
// 2, stage 1 layers 1 and 3 and the head): each stage's work is the same
// as plain 1F1B's (layers 0-1 and 2-3 and the head), so the estimates
// differ by exactly (p - 1) x slowest x (1 - 1/v). A count of micro-batches
// that is not a multiple of p is an error.
TEST(StepPlanners, EstimateOfAnInterleavedStep) {
  TrainSetup s = tinySetup(2, 1'000'000'000, 1, cost::Checkpointing::None);
  s.model = tinyModel(1, cost::Checkpointing::None, /*layers=*/4);
  const Bins mbs = {{{0}}, {{1}}, {{2}}, {{3}}};
  const std::vector<int64_t> lengths = {10, 20, 10, 10};
  step::StepPlan plain = handPlan(2, {1, 1, 1, 2}, mbs, lengths);
  GroupLayout layout{1, 1, 1, 2};
  layout.vpp = 2;
  step::StepPlan interleaved = handPlan(2, layout, mbs, lengths);
  ASSERT_EQ(estimateStep(plain, s, freeComm), "");
  ASSERT_EQ(estimateStep(interleaved, s, freeComm), "");
  double slowest = 0;
  for (const auto &mb : plain.microBatches)
    slowest = std::max(slowest, mb.seconds);
  EXPECT_NEAR(interleaved.seconds, plain.seconds - slowest / 2,
              1e-9 * plain.seconds);
  step::StepPlan odd = handPlan(2, layout, {{{0}}, {{1}}, {{2}}}, {10, 20, 10});
  EXPECT_NE(estimateStep(odd, s, freeComm).find("not a multiple of 2"),
            std::string::npos);
}

TEST(StepPlanners, EstimateErrors) {
  TrainSetup s = tinySetup(2, 1'000'000'000);
  step::StepPlan none;
  none.world = 2;
  EXPECT_EQ(estimateStep(none, s, freeComm), "the plan has no group");

  step::StepPlan plan = handPlan(2, {1, 1, 1, 1}, {{{0}, {1}}}, {10, 20});
  prog::CommTimeFn broken = [](const prog::CommRequest &) {
    return prog::CommTime::failure("no route between ranks 0 and 1");
  };
  EXPECT_EQ(estimateStep(plan, s, broken), "no route between ranks 0 and 1");
}

//===----------------------------------------------------------------------===//
// The standard baselines
//===----------------------------------------------------------------------===//

// 8 chips, 2 per node, 4 heads, ZeRO-3, room for 100 tokens per chip under
// static SP (states 16 x 6736 / 8 + two gathered layers 2 x 2 x 2848: the
// ZeRO-3 buffers hold one layer each, not the embedding or the head).
// Room for 100 tokens of 1152 bytes (1024 of layers, 128 of logits) beside
// ZeRO-3's states. Sequence 0 has 300 tokens: static-sp-1 and -2 cannot hold
// it; 8 does not divide the heads. Megatron and the pipelines drop to ZeRO-1;
// no pipeline (at most pp2-tp2: 107 tokens per chip, 214 per stage) holds it.
TEST(StepPlanners, StandardBaselinesInOrder) {
  const int64_t resident = 16 * 6736 / 8 + 2 * 2 * 2848; // 24,864
  TrainSetup s = tinySetup(8, resident + 100 * 1152, /*zero=*/3);
  s.chipsPerNode = 2;
  std::vector<int64_t> lengths{300, 100, 50, 50, 20, 20, 10, 10};
  std::vector<NamedPlan> plans = standardBaselines(s, lengths, freeComm);
  ASSERT_EQ(plans.size(), 5u);
  EXPECT_EQ(plans[0].name, "static-sp-1");
  EXPECT_EQ(plans[1].name, "static-sp-2");
  EXPECT_EQ(plans[2].name, "static-sp-4");
  EXPECT_TRUE(contains(plans[0].error,
                       "sequence 0 (300 tokens) needs 370.5 KB per chip under "
                       "static-sp-1"))
      << plans[0].error;
  EXPECT_TRUE(contains(plans[1].error, "(200 tokens per group)"))
      << plans[1].error;
  ASSERT_TRUE(plans[2].ok()) << plans[2].error;
  EXPECT_EQ(plans[2].model.zero, 3);

  // The fastest feasible of megatron-tp1-cp4, -tp1-cp8, -tp2-cp2, -tp2-cp4.
  ASSERT_TRUE(plans[3].ok()) << plans[3].error;
  EXPECT_EQ(plans[3].name.rfind("megatron-tp", 0), 0u) << plans[3].name;
  EXPECT_EQ(plans[3].model.zero, 1);
  for (GroupLayout l : {GroupLayout{1, 1, 4, 1}, GroupLayout{1, 1, 8, 1},
                        GroupLayout{1, 2, 2, 1}, GroupLayout{1, 2, 4, 1}}) {
    TrainSetup zero1 = s;
    zero1.model.zero = 1;
    NamedPlan other = planStaticLayout(zero1, lengths, l, freeComm);
    ASSERT_TRUE(other.ok()) << other.name << ": " << other.error;
    EXPECT_LE(plans[3].plan->seconds, other.plan->seconds) << other.name;
  }

  // No feasible pipeline: one entry for the family that says so, with the
  // error of the last (largest) one tried. With 2 layers and 2 chips per
  // node the family is pp2-tp1 and pp2-tp2.
  EXPECT_EQ(plans[4].name, "pp-tp-1f1b");
  EXPECT_FALSE(plans[4].ok());
  EXPECT_TRUE(contains(plans[4].error, "none of the 2 1F1B pipeline layouts "
                                       "fits; the largest, pp2-tp2-1f1b, "
                                       "fails: "))
      << plans[4].error;
  EXPECT_TRUE(contains(plans[4].error, "(214 tokens per group)"))
      << plans[4].error;
}

TEST(StepPlanners, InterleavedPipelinesAreTheirOwnBaselineFamily) {
  // 8 layers on 8 chips of one node: the plain family tries pp 2, 4, 8 (x
  // tp 1, 2, 4); the interleaved one pp 2 and 4 with two model chunks per
  // stage (pp x 2 <= 8). Its entry is the fastest of those it tries, each
  // planned on its own, and it comes last.
  TrainSetup s = tinySetup(8, 1'000'000'000);
  s.model = tinyModel(0, cost::Checkpointing::Selective, /*layers=*/8);
  std::vector<int64_t> lengths(32, 64);
  std::vector<NamedPlan> plans = standardBaselines(s, lengths, freeComm);
  ASSERT_FALSE(plans.empty());
  const NamedPlan &last = plans.back();
  ASSERT_TRUE(last.ok()) << last.name << ": " << last.error;
  EXPECT_EQ(last.layout.vpp, kBaselineVirtualStages);
  EXPECT_NE(last.name.find("-v2-1f1b"), std::string::npos) << last.name;
  const NamedPlan &plain = plans[plans.size() - 2];
  ASSERT_TRUE(plain.ok()) << plain.error;
  EXPECT_EQ(plain.layout.vpp, 1);
  // The family plans at min(zero, 1) = 0 here, as each layout below.
  EXPECT_EQ(last.model.zero, 0);
  int64_t tried = 0;
  for (int64_t t : {1, 2, 4})
    for (int64_t p : {2, 4}) {
      GroupLayout l{1, t, 1, p};
      l.vpp = 2;
      NamedPlan other = planStaticLayout(s, lengths, l, freeComm);
      if (other.ok()) {
        ++tried;
        EXPECT_LE(last.plan->seconds, other.plan->seconds) << other.name;
      }
    }
  EXPECT_GE(tried, 2);
  // A first-N checkpointing limit has no meaning on model chunks: the
  // layouts are refused, and the family says why.
  s.model.checkpointing = cost::Checkpointing::Full;
  s.model.checkpointLayers = 3;
  GroupLayout l{1, 1, 1, 2};
  l.vpp = 2;
  NamedPlan partial = planStaticLayout(s, lengths, l, freeComm);
  EXPECT_FALSE(partial.ok());
  EXPECT_TRUE(contains(partial.error, "not the first 3")) << partial.error;
  EXPECT_FALSE(standardBaselines(s, lengths, freeComm).back().ok());
}

TEST(StepPlanners, StaticSpBaselinesRunZero3LikeDeepSpeedUlysses) {
  // A ZeRO-1 job still sees DeepSpeed-Ulysses the way it runs: ZeRO-3.
  TrainSetup s = tinySetup(8, 1'000'000'000, /*zero=*/1);
  std::vector<int64_t> lengths{300, 100, 50, 50};
  for (const NamedPlan &p : standardBaselines(s, lengths, freeComm))
    if (p.name.rfind("static-sp-", 0) == 0) {
      EXPECT_EQ(p.model.zero, 3) << p.name;
    }
}

TEST(StepPlanners, PipelineMicroBatchCountsStepUpToOneSequencePerGroup) {
  // fewest 2, 40 sequences over 4 groups: 3, then ceil(1.5 x 3) = 5, 8, and
  // the most, ceil(40 / 4) = 10.
  EXPECT_EQ(pipelineMicroBatchCounts(2, 40, 4), (Ids{3, 5, 8, 10}));
  // Nothing beyond the fewest when it already gives one sequence per group.
  EXPECT_TRUE(pipelineMicroBatchCounts(3, 12, 4).empty());
  EXPECT_EQ(pipelineMicroBatchCounts(1, 3, 1), (Ids{2, 3}));
}

TEST(StepPlanners, DealIntoMicroBatchesBalancesEveryBin) {
  step::TrainModel m = tinyModel(0, cost::Checkpointing::Selective);
  // 4 bins of 100 tokens: the longest four open one bin each, then 10 joins
  // the least loaded (20's).
  auto bins = dealIntoMicroBatches(m, {40, 30, 20, 25, 10}, 2, 2, 100);
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0][0], (Ids{0}));
  EXPECT_EQ(bins[0][1], (Ids{1}));
  EXPECT_EQ(bins[1][0], (Ids{3}));
  EXPECT_EQ(bins[1][1], (Ids{2, 4}));
  // No room for 60 tokens in bins of 50: nothing.
  EXPECT_TRUE(dealIntoMicroBatches(m, {60}, 1, 2, 50).empty());
  // More bins than sequences: the empty micro-batch is dropped.
  EXPECT_EQ(dealIntoMicroBatches(m, {10, 10}, 3, 1, 50).size(), 2u);
}

TEST(StepPlanners, StandardBaselinesAreDeterministic) {
  TrainSetup s = tinySetup(8, 1'000'000'000, /*zero=*/1);
  s.chipsPerNode = 4;
  std::vector<int64_t> lengths{300, 100, 50, 50, 20, 20, 10, 10, 7, 3};
  ConstantComm comm;
  comm.seconds = 1e-7;
  std::vector<NamedPlan> a = standardBaselines(s, lengths, comm.fn());
  std::vector<NamedPlan> b = standardBaselines(s, lengths, comm.fn());
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].name, "static-sp-1");
  EXPECT_EQ(a[1].name, "static-sp-2");
  EXPECT_EQ(a[2].name, "static-sp-4");
  EXPECT_EQ(a[3].name.rfind("megatron-tp", 0), 0u) << a[3].name;
  EXPECT_EQ(a[4].name.rfind("pp", 0), 0u) << a[4].name;
  EXPECT_TRUE(contains(a[4].name, "-1f1b")) << a[4].name;
  ASSERT_EQ(b.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].ok()) << a[i].name << ": " << a[i].error;
    ASSERT_TRUE(b[i].ok()) << b[i].name << ": " << b[i].error;
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].layout, b[i].layout);
    EXPECT_EQ(a[i].plan->seconds, b[i].plan->seconds) << a[i].name;
    EXPECT_EQ(a[i].plan->peakMemBytes, b[i].plan->peakMemBytes);
    EXPECT_EQ(binsOf(*a[i].plan), binsOf(*b[i].plan)) << a[i].name;
  }
}
