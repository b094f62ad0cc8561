//===- TransformerCostTest.cpp - Per-layer FLOPs, bytes and memory --------===//
//
// Tiny shapes whose numbers can be checked by hand (the arithmetic is in the
// comments), plus a LLaMA-7B layer against the usual 2·params·tokens rule.
//
//===----------------------------------------------------------------------===//

#include "passes/Cost/TransformerCost.h"

#include "dialects/Common/JobRules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace plexus::cost;

namespace {

// 1 layer, h = 4, 2 heads (d = 2), 2 KV heads, SwiGLU ffn 8, vocab 10, bf16.
// Attention parameters: Q 4·4 + K,V 2·4·4 + O 4·4 = 64; MLP 3·4·8 = 96.
TransformerShape tiny() {
  TransformerShape s;
  s.layers = 1;
  s.hidden = 4;
  s.heads = 2;
  s.kvHeads = 2;
  s.ffn = 8;
  s.vocab = 10;
  return s;
}

// The same, but 8 experts top-2 + 1 shared of width 2 (dense ffn unused).
// One expert: 3·4·2 = 24 parameters; router 4·8 = 32.
TransformerShape tinyMoE() {
  TransformerShape s = tiny();
  s.ffn = 0;
  s.experts = 8;
  s.topK = 2;
  s.sharedExperts = 1;
  s.moeFfn = 2;
  return s;
}

LayerFlops forward(const TransformerShape &s, Slice slice, int64_t index = 0) {
  CostResult<LayerFlops> r = layerForwardFlops(s, index, slice);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.problems.front().message);
  return r.value;
}

int64_t activation(const TransformerShape &s, Slice slice, Checkpointing m,
                   AttentionKernel kernel = AttentionKernel::Eager) {
  CostResult<int64_t> r = activationBytesPerToken(s, 0, slice, m, kernel);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.problems.front().message);
  return r.value;
}

bool hasField(const std::vector<CostProblem> &problems, const char *field) {
  for (const CostProblem &p : problems)
    if (p.field == field)
      return true;
  return false;
}

TEST(TransformerCost, TinyLayerForwardBackward) {
  // s = 3 tokens, no context.
  LayerFlops f = forward(tiny(), {3, 0});
  // Projections: 2 FLOPs · 3 tokens · 64 parameters = 384.
  EXPECT_DOUBLE_EQ(f.attentionProjections, 384);
  // Core: 2·2·heads·d · ((0+3)^2 - 0^2)/2 = 2·2·2·2 · 4.5 = 72.
  EXPECT_DOUBLE_EQ(f.attentionCore, 72);
  // MLP: 2 · 3 · 96 = 576.
  EXPECT_DOUBLE_EQ(f.feedForward, 576);
  EXPECT_DOUBLE_EQ(f.total(), 1032);
  EXPECT_DOUBLE_EQ(backwardFlops(f), 2064);
  // Weights: (64 + 96 + 2·4 norms) · 2 bytes = 336.
  EXPECT_EQ(layerWeightBytes(tiny(), 0), 336);
  EXPECT_EQ(layerWeightBytes(tiny(), 1), 0);
}

TEST(TransformerCost, GeLUHasTwoMatrices) {
  TransformerShape s = tiny();
  s.mlp = MlpKind::GeLU;
  // 2 · 3 tokens · (2·4·8) = 384.
  EXPECT_DOUBLE_EQ(forward(s, {3, 0}).feedForward, 384);
}

TEST(TransformerCost, GqaHalvesKeyValueCost) {
  TransformerShape gqa = tiny();
  gqa.kvHeads = 1;
  // MHA K,V projections: 2 · 3 · (2·4·4) = 192 of the 384; Q,O the other 192.
  // GQA with 1 of 2 KV heads: 2 · 3 · (2·4·2) = 96, so 192 + 96 = 288.
  EXPECT_DOUBLE_EQ(forward(gqa, {3, 0}).attentionProjections, 288);
  // The core still runs every query head: unchanged.
  EXPECT_DOUBLE_EQ(forward(gqa, {3, 0}).attentionCore, 72);
  // K/V bytes per token: 2 · kvHeads · d · 2 bytes = 16 (MHA), 8 (GQA).
  EXPECT_EQ(kvBytesPerToken(tiny()), 16);
  EXPECT_EQ(kvBytesPerToken(gqa), 8);
  TransformerShape fp8 = gqa;
  fp8.dtype = DType::FP8;
  EXPECT_EQ(kvBytesPerToken(fp8), 4);
}

TEST(TransformerCost, ContextMakesLaterSlicesDearer) {
  const int64_t s = 3;
  double first = forward(tiny(), {s, 0}).attentionCore;
  // (2s)^2 - s^2 = 3s^2 against s^2: three times the first slice.
  EXPECT_DOUBLE_EQ(forward(tiny(), {s, s}).attentionCore, 3 * first);
  // (3s)^2 - (2s)^2 = 5s^2.
  EXPECT_DOUBLE_EQ(forward(tiny(), {s, 2 * s}).attentionCore, 5 * first);
  // The slices of one sequence sum to the unsplit sequence: 1 + 3 + 5 = 9.
  EXPECT_DOUBLE_EQ(forward(tiny(), {3 * s, 0}).attentionCore, 9 * first);
  // Projections and MLP do not depend on the context.
  EXPECT_DOUBLE_EQ(forward(tiny(), {s, s}).attentionProjections, 384);
  EXPECT_DOUBLE_EQ(forward(tiny(), {s, s}).feedForward, 576);
}

TEST(TransformerCost, MoeCountsActiveExpertsAndRouter) {
  // (top_k 2 + shared 1) · 24 + router 32 = 104 parameters per token;
  // 2 · 3 tokens · 104 = 624 (all 8 + 1 experts would give 2·3·248 = 1488).
  LayerFlops f = forward(tinyMoE(), {3, 0});
  EXPECT_DOUBLE_EQ(f.feedForward, 624);
  EXPECT_DOUBLE_EQ(f.attentionProjections, 384);
  // Weight bytes hold all experts: (64 + 9·24 + 32 + 8) · 2 = 640.
  EXPECT_EQ(layerWeightBytes(tinyMoE(), 0), 640);

  // A leading dense layer uses the dense MLP.
  TransformerShape mixed = tinyMoE();
  mixed.layers = 2;
  mixed.denseLayers = 1;
  mixed.ffn = 8;
  EXPECT_DOUBLE_EQ(forward(mixed, {3, 0}, 0).feedForward, 576);
  EXPECT_DOUBLE_EQ(forward(mixed, {3, 0}, 1).feedForward, 624);
}

TEST(TransformerCost, CheckpointingNames) {
  EXPECT_STREQ(checkpointingName(Checkpointing::None), "none");
  EXPECT_STREQ(checkpointingName(Checkpointing::Selective), "selective");
  EXPECT_STREQ(checkpointingName(Checkpointing::Full), "full");
  EXPECT_STREQ(checkpointingName(Checkpointing::AttentionMlp),
               "attention_mlp");
}

TEST(TransformerCost, RecomputeByCheckpointing) {
  LayerFlops f = forward(tiny(), {3, 0});
  EXPECT_DOUBLE_EQ(recomputeFlops(f, Checkpointing::None), 0);
  EXPECT_DOUBLE_EQ(recomputeFlops(f, Checkpointing::Selective), 72);
  EXPECT_DOUBLE_EQ(recomputeFlops(f, Checkpointing::Full), 1032);
  // Attention and MLP: the core (72) and the SwiGLU's three GEMMs,
  // 3 · 2 · 3 tokens · 4 · 8 = 576.
  EXPECT_DOUBLE_EQ(f.feedForward, 576);
  EXPECT_DOUBLE_EQ(recomputeFlops(f, Checkpointing::AttentionMlp), 72 + 576);
  LayerTrainFlops t = layerTrainFlops(f, Checkpointing::Full);
  // 1032 forward + 2064 backward + 1032 recompute.
  EXPECT_DOUBLE_EQ(t.total(), 4128);
  EXPECT_GT(layerTrainFlops(f, Checkpointing::Full).total(),
            layerTrainFlops(f, Checkpointing::AttentionMlp).total());
  EXPECT_GT(layerTrainFlops(f, Checkpointing::AttentionMlp).total(),
            layerTrainFlops(f, Checkpointing::Selective).total());
  EXPECT_GT(layerTrainFlops(f, Checkpointing::Selective).total(),
            layerTrainFlops(f, Checkpointing::None).total());
}

TEST(TransformerCost, ActivationBytesMatchKorthikanti) {
  // The paper's shape: MHA, GeLU, ffn = 4h, bf16. Per token and layer:
  // 34·h + 5·heads·s with none, 34·h with selective; full keeps 2·h.
  TransformerShape s = tiny();
  s.mlp = MlpKind::GeLU;
  s.ffn = 16;
  // h = 4, heads = 2, s = 3: 34·4 + 5·2·3 = 136 + 30 = 166.
  EXPECT_EQ(activation(s, {3, 0}, Checkpointing::None), 166);
  EXPECT_EQ(activation(s, {3, 0}, Checkpointing::Selective), 136);
  EXPECT_EQ(activation(s, {3, 0}, Checkpointing::Full), 8);
  // With 3 tokens of context the keys seen are 6: 136 + 5·2·6 = 196.
  EXPECT_EQ(activation(s, {3, 3}, Checkpointing::None), 196);
  // A fused kernel (the default) keeps no scores, only the fp32
  // log-sum-exp of each head, whatever the key length: 136 + 4·2 = 144.
  EXPECT_EQ(activation(s, {3, 0}, Checkpointing::None, AttentionKernel::Fused),
            144);
  EXPECT_EQ(activation(s, {3, 3}, Checkpointing::None, AttentionKernel::Fused),
            144);
  EXPECT_EQ(activationBytesPerToken(s, 0, {3, 3}, Checkpointing::None).value,
            144);
  // The kernel only matters without checkpointing.
  EXPECT_EQ(activation(s, {3, 0}, Checkpointing::Selective,
                       AttentionKernel::Fused),
            136);
}

TEST(TransformerCost, ActivationBytesSwiGLUGqaMoe) {
  // tiny(): norms 2·2·4 = 16; attention 2·4 + 2·(4+4) + 2·4 + 2·4 + 4 = 44;
  // SwiGLU 2·4 + 3·2·8 + 4 = 60. Selective 120, none 120 + 5·2·3 = 150.
  EXPECT_EQ(activation(tiny(), {3, 0}, Checkpointing::None), 150);
  EXPECT_EQ(activation(tiny(), {3, 0}, Checkpointing::Selective), 120);
  EXPECT_EQ(activation(tiny(), {3, 0}, Checkpointing::Full), 8);
  // GQA with 1 KV head saves K and V: 2·(2 + 2) = 8 bytes fewer.
  TransformerShape gqa = tiny();
  gqa.kvHeads = 1;
  EXPECT_EQ(activation(gqa, {3, 0}, Checkpointing::Selective), 112);
  // MoE: 3 active experts · (2·4 + 3·2·2) + 4 = 64 for the feed-forward:
  // 16 + 44 + 64 = 124.
  EXPECT_EQ(activation(tinyMoE(), {3, 0}, Checkpointing::Selective), 124);
  // Attention and MLP: the MLP keeps only its input, 2·4 = 8 (no mask):
  // 16 + 44 + 8 = 68, for the dense and the MoE layer alike.
  EXPECT_EQ(activation(tiny(), {3, 0}, Checkpointing::AttentionMlp), 68);
  EXPECT_EQ(activation(tinyMoE(), {3, 0}, Checkpointing::AttentionMlp), 68);
  // Ordering: none > selective > attention_mlp > full, on every shape.
  for (const TransformerShape &shape : {tiny(), gqa, tinyMoE()}) {
    int64_t none = activation(shape, {3, 0}, Checkpointing::None);
    int64_t selective = activation(shape, {3, 0}, Checkpointing::Selective);
    int64_t mlp = activation(shape, {3, 0}, Checkpointing::AttentionMlp);
    int64_t full = activation(shape, {3, 0}, Checkpointing::Full);
    EXPECT_GT(none, selective);
    EXPECT_GT(selective, mlp);
    EXPECT_GT(mlp, full);
    EXPECT_GE(selective, kvBytesPerToken(shape));
  }
}

TEST(TransformerCost, ZeroModelStates) {
  const int64_t p = 1000000000, n = 8;
  // 16P; 4P + 12P/8; 2P + 14P/8; 16P/8.
  EXPECT_EQ(modelStateBytesPerChip(p, 0, n).value, 16000000000);
  EXPECT_EQ(modelStateBytesPerChip(p, 1, n).value, 5500000000);
  EXPECT_EQ(modelStateBytesPerChip(p, 2, n).value, 3750000000);
  EXPECT_EQ(modelStateBytesPerChip(p, 3, n).value, 2000000000);
  EXPECT_EQ(modelStateBytesPerChip(p, 3, 1).value, 16000000000);
}

TEST(TransformerCost, ZeroAgreesWithJobRules) {
  // Same convention as trainLayerResidentBytes (tp = 1), rounding included:
  // with ffn 9 a layer has 64 + 3·4·9 + 8 = 180 parameters, and 7 divides
  // neither 12·180 nor 14·180, so the rounding up is exercised.
  TransformerShape s = tiny();
  s.ffn = 9;
  for (int64_t zero = 0; zero <= 3; ++zero)
    for (int64_t dp : {1, 3, 7})
      EXPECT_EQ(modelStateBytesPerChip(maxLayerParameters(s), zero, dp).value,
                trainLayerResidentBytes(s, 1, zero, dp))
          << "zero " << zero << " dp " << dp;
}

TEST(TransformerCost, Llama7BLayerForward) {
  TransformerShape s;
  s.layers = 32;
  s.hidden = 4096;
  s.heads = 32;
  s.kvHeads = 32;
  s.ffn = 11008;
  s.vocab = 32000;
  const double tokens = 4096;
  LayerFlops f = forward(s, {4096, 0});
  // 2 · params · s with the layer's 202,383,360 parameters, plus the causal
  // attention term 2·2·h·s^2/2 = 2·h·s^2.
  double expected = 2.0 * double(layerParameters(s, 0)) * tokens +
                    2.0 * 4096.0 * tokens * tokens;
  EXPECT_NEAR(f.total(), expected, 0.01 * expected);
  // Exactly: 2·4096·(4·4096^2 + 3·4096·11008) + 2·4096·4096^2.
  EXPECT_DOUBLE_EQ(f.total(), 1795296329728.0);
}

// The output head: one GEMM of hidden x vocab per token, 2·t·h·V FLOPs.
// Megatron-LM's Eq. 3 counts it as the V/(16·l·h) term of 96·B·s·l·h²:
// 3 passes (forward, backward twice) of 2·B·s·h·V = 6·B·s·h·V, and
// 96·B·s·l·h² · V/(16·l·h) = 6·B·s·h·V.
TEST(TransformerCost, OutputHeadFlops) {
  EXPECT_DOUBLE_EQ(headForwardFlops(tiny(), 3), 2.0 * 3 * 4 * 10); // 240
  EXPECT_DOUBLE_EQ(headForwardFlops(tiny(), 0), 0.0);
  TransformerShape s;
  s.layers = 24;
  s.hidden = 2304;
  s.vocab = 51200;
  const double batchTokens = 512.0 * 2048;
  const double eq3Term =
      96.0 * batchTokens * 24 * 2304.0 * 2304 * (51200.0 / (16.0 * 24 * 2304));
  EXPECT_NEAR(3 * headForwardFlops(s, 512 * 2048), eq3Term, 1e-9 * eq3Term);
}

// A 1 TFLOP/s chip with 100 GB/s of HBM: GEMMs at 0.5 (5e11 FLOP/s), a
// fused core at 0.25 (2.5e11), memory-bound kernels at 0.5 (5e10 B/s).
ComputeRates testRates(bool kernels) {
  ComputeRates r;
  r.peakFlops = 1e12;
  r.hbmBandwidth = 1e11;
  r.gemmEfficiency = 0.5;
  if (kernels)
    r.kernels = KernelRates{0.25, 0.5};
  return r;
}

LayerSeconds seconds(Slice slice, bool kernels, AttentionKernel kernel) {
  auto r = layerForwardSeconds(tiny(), 0, slice, testRates(kernels), kernel);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.problems.front().message);
  return r.value;
}

TEST(TransformerCost, ElementwiseBytesOfTheTinyLayer) {
  // bf16, h = 4: norm 2·2·4 = 16, bias-dropout-add 3·2·4 + 4 (mask) = 28;
  // SwiGLU reads gate and up and writes their product, 3·2·8 = 48.
  ElementwiseBytes b = elementwiseBytesPerToken(tiny(), 0);
  EXPECT_EQ(b.attention, 16 + 28);
  EXPECT_EQ(b.mlp, 16 + 48 + 28);
  // MoE: the active experts' inner tensors, (2 + 1) x 3·2·2 = 36.
  EXPECT_EQ(elementwiseBytesPerToken(tinyMoE(), 0).mlp, 16 + 36 + 28);
  // fp16 scores: softmax reads and writes 2 + 2, dropout 2 + 2 and a mask.
  EXPECT_EQ(eagerScoreBytes(tiny()), 9);
}

TEST(TransformerCost, FlatSecondsAreFlopsAtTheGemmRate) {
  // 4 tokens: projections 2·4·64 = 512 FLOPs, MLP 2·4·96 = 768, core
  // 16 per pair x 8 pairs = 128; all at 5e11 FLOP/s.
  LayerSeconds t = seconds({4, 0}, false, AttentionKernel::Eager);
  EXPECT_DOUBLE_EQ(t.attentionProjections, 512 / 5e11);
  EXPECT_DOUBLE_EQ(t.feedForward, 768 / 5e11);
  EXPECT_DOUBLE_EQ(t.attentionCore, 128 / 5e11);
}

TEST(TransformerCost, SecondsByKindOfKernel) {
  // The tiny layer's GEMMs are far below the roofline's ridge, so each
  // takes its operands' bf16 bytes at 5e10 B/s (no SM count: no tiles):
  // QKV 4x4 by 4x12: (16 + 48 + 48) x 2 = 224 B; O 4x4 by 4x4: 96 B;
  // gate-and-up 4x4 by 4x16: (16 + 64 + 64) x 2 = 288 B; down 4x8 by 8x4:
  // (32 + 32 + 16) x 2 = 160 B. Plus 4 tokens' elementwise bytes.
  LayerSeconds fused = seconds({4, 0}, true, AttentionKernel::Fused);
  EXPECT_DOUBLE_EQ(fused.attentionProjections,
                   (224 + 96) / 5e10 + 4 * 44 / 5e10);
  EXPECT_DOUBLE_EQ(fused.feedForward, (288 + 160) / 5e10 + 4 * 92 / 5e10);
  // Fused: the causal half's 128 FLOPs at 2.5e11.
  EXPECT_DOUBLE_EQ(fused.attentionCore, 128 / 2.5e11);
  // Eager: the whole 4 x 4 square (twice the 8 causal pairs) through the
  // GEMMs, and 16 scores x 2 heads x 9 bytes through the softmax.
  LayerSeconds eager = seconds({4, 0}, true, AttentionKernel::Eager);
  EXPECT_DOUBLE_EQ(eager.attentionCore, 2 * 128 / 5e11 + 16 * 2 * 9 / 5e10);
  // A slice of 4 tokens after 4 of context: 24 causal pairs (384 FLOPs) in
  // a 4 x 8 rectangle of 32 scores.
  LayerSeconds later = seconds({4, 4}, true, AttentionKernel::Eager);
  EXPECT_DOUBLE_EQ(later.attentionCore,
                   384.0 * 32 / 24 / 5e11 + 32 * 2 * 9 / 5e10);
  // Recompute picks parts as recomputeFlops does.
  EXPECT_DOUBLE_EQ(recomputeSeconds(fused, Checkpointing::None), 0);
  EXPECT_DOUBLE_EQ(recomputeSeconds(fused, Checkpointing::Selective),
                   fused.attentionCore);
  EXPECT_DOUBLE_EQ(recomputeSeconds(fused, Checkpointing::AttentionMlp),
                   fused.attentionCore + fused.feedForward);
  EXPECT_DOUBLE_EQ(recomputeSeconds(fused, Checkpointing::Full), fused.total());
  // The head: 4x4 by 4x10, (16 + 40 + 40) x 2 = 192 B; on the flat model
  // its 2·4·4·10 = 320 FLOPs at the GEMM rate.
  EXPECT_DOUBLE_EQ(headForwardSeconds(tiny(), 4, testRates(true)), 192 / 5e10);
  EXPECT_DOUBLE_EQ(headForwardSeconds(tiny(), 4, testRates(false)), 320 / 5e11);
}

// testRates(true) with 4 SMs: 5e11 / 4 FLOP/s per SM, 128 x 128 tiles,
// split-K at least 256 deep.
ComputeRates fourSms() {
  ComputeRates r = testRates(true);
  r.kernels->smCount = 4;
  return r;
}

double gemm(double m, double n, double k, double groups = 1,
            DType dtype = DType::BF16, const ComputeRates &r = fourSms()) {
  return gemmSeconds({m, n, k, groups}, dtype, r);
}

TEST(TransformerCost, GemmSecondsByTilesAndWaves) {
  // 256 x 256 outputs: 4 tiles, one whole wave: exactly the FLOPs at the
  // GEMM rate, 2·256·256·4096 / 5e11 (memory: 4,325,376 B, 86.5 us, less).
  const double whole = 2.0 * 256 * 256 * 4096 / 5e11;
  EXPECT_DOUBLE_EQ(gemm(256, 256, 4096), whole);
  // m = 129 still takes two tile rows: the same time for fewer FLOPs.
  EXPECT_DOUBLE_EQ(gemm(129, 256, 4096), whole);
  // 640 x 256: 10 tiles in 3 waves of 4, 12 tile-times of 128·128·2·4096
  // FLOPs at 1.25e11 per SM: 10/12 of the SMs' time does work.
  EXPECT_DOUBLE_EQ(gemm(640, 256, 4096), 3 * 128.0 * 128 * 2 * 4096 / 1.25e11);
  GemmTiming t = gemmTiming({640, 256, 4096}, DType::BF16, fourSms());
  EXPECT_DOUBLE_EQ(t.tiles, 10);
  EXPECT_DOUBLE_EQ(t.split, 1);
  EXPECT_DOUBLE_EQ(t.waves, 3);
  EXPECT_FALSE(t.memoryBound());
  EXPECT_DOUBLE_EQ(gemmTiming({128, 128, 4096}, DType::BF16, fourSms()).split,
                   4);
  // A grouped GEMM of 2 problems of one tile each: 2 tiles, split-K 2 fills
  // the 4 SMs: the FLOPs at the GEMM rate.
  EXPECT_DOUBLE_EQ(gemm(128, 128, 4096, 2), 2 * 2.0 * 128 * 128 * 4096 / 5e11);
}

TEST(TransformerCost, GemmSecondsSplitsKWhenTilesAreFewerThanSms) {
  // One tile, k = 4096: split 4 (4 SMs / 1 tile, 4096 / 256 = 16 allowed),
  // one wave of 1024-deep blocks: the FLOPs at the GEMM rate.
  EXPECT_DOUBLE_EQ(gemm(128, 128, 4096), 2.0 * 128 * 128 * 4096 / 5e11);
  // k = 512 allows two 256-deep splits: two SMs idle, twice the FLOPs' time.
  EXPECT_DOUBLE_EQ(gemm(128, 128, 512), 2 * (2.0 * 128 * 128 * 512 / 5e11));
  // k = 128 cannot split: 1 of 4 SMs works.
  EXPECT_DOUBLE_EQ(gemm(128, 128, 128), 4 * (2.0 * 128 * 128 * 128 / 5e11));
}

TEST(TransformerCost, GemmSecondsMeetTheMemoryRoofline) {
  // A 1 x 4096 by 4096 x 4096 product (a decode step's GEMV) without an SM
  // count: 2·4096² FLOPs take 67 us at 5e11, its operands (4096 + 4096² +
  // 4096) x 2 B take 671 us at 5e10 B/s.
  ComputeRates r = testRates(true);
  EXPECT_DOUBLE_EQ(gemm(1, 4096, 4096, 1, DType::BF16, r),
                   (4096.0 + 4096.0 * 4096 + 4096) * 2 / 5e10);
  // The flat model knows no memory: FLOPs at the GEMM rate.
  EXPECT_DOUBLE_EQ(gemm(1, 4096, 4096, 1, DType::BF16, testRates(false)),
                   2.0 * 4096 * 4096 / 5e11);
  // Split-K's fp32 partials stay in L2: on a chip of 1e7 B/s, one tile
  // split 4 takes its operands' (128·4096·2 + 128²) x 2 B only.
  ComputeRates slow = fourSms();
  slow.hbmBandwidth = 2e7; // x 0.5 efficiency = 1e7 B/s
  EXPECT_DOUBLE_EQ(gemm(128, 128, 4096, 1, DType::BF16, slow),
                   (128.0 * 4096 * 2 + 128 * 128) * 2 / 1e7);
}

TEST(TransformerCost, GemmSecondsByDtype) {
  // FP8 runs at the FP8 peak (2e12 here) and moves 1-byte operands; FP32
  // runs as TF32 at half the BF16 peak; a chip without FP8 runs FP8 GEMMs
  // at its BF16 peak.
  ComputeRates r = fourSms();
  r.fp8Flops = 2e12;
  const double flops = 2.0 * 256 * 256 * 4096;
  EXPECT_DOUBLE_EQ(gemm(256, 256, 4096, 1, DType::FP8, r), flops / 1e12);
  EXPECT_DOUBLE_EQ(gemm(256, 256, 4096, 1, DType::FP32, r), flops / 2.5e11);
  EXPECT_DOUBLE_EQ(gemm(256, 256, 4096, 1, DType::FP16, r), flops / 5e11);
  r.fp8Flops = 0;
  EXPECT_DOUBLE_EQ(gemm(256, 256, 4096, 1, DType::FP8, r), flops / 5e11);
  // TF32 is a GPU's (a chip with SMs): without an SM count FP32 runs at the
  // BF16 peak. Attention runs at the BF16 peak, TF32's for FP32 models.
  EXPECT_DOUBLE_EQ(testRates(true).gemmPeak(DType::FP32), 1e12);
  EXPECT_DOUBLE_EQ(r.attentionPeak(DType::FP8), 1e12);
  EXPECT_DOUBLE_EQ(r.attentionPeak(DType::FP32), 5e11);
  // The flat model: the BF16 peak for every dtype.
  EXPECT_DOUBLE_EQ(testRates(false).gemmPeak(DType::FP8), 1e12);
}

TEST(TransformerCost, LayerGemmsCarryTheLayersFlopsOverTp) {
  // Their FLOPs are layerForwardFlops' projections and feed-forward over tp,
  // dense and MoE (router, shared expert, 8 routed experts of 4·2/8 rows).
  auto sum = [](const std::vector<Gemm> &gemms) {
    double f = 0;
    for (const Gemm &g : gemms)
      f += g.flops();
    return f;
  };
  for (const TransformerShape &s : {tiny(), tinyMoE()})
    for (int64_t tp : {1, 2}) {
      LayerFlops f = forward(s, {4, 0});
      LayerGemms g = layerGemms(s, 0, 4, tp);
      EXPECT_DOUBLE_EQ(sum(g.projections), f.attentionProjections / tp);
      EXPECT_DOUBLE_EQ(sum(g.feedForward), f.feedForward / tp);
    }
  // One token reaches top-2 experts only: 2 problems of 1 row, not 8.
  LayerGemms one = layerGemms(tinyMoE(), 0, 1, 1);
  EXPECT_DOUBLE_EQ(one.feedForward[3].groups, 2);
  EXPECT_DOUBLE_EQ(one.feedForward[3].m, 1);
  EXPECT_DOUBLE_EQ(sum(one.feedForward),
                   forward(tinyMoE(), {1, 0}).feedForward);
  LayerGemms moe = layerGemms(tinyMoE(), 0, 4, 1);
  ASSERT_EQ(moe.feedForward.size(), 5u);
  EXPECT_DOUBLE_EQ(moe.feedForward[3].groups, 8);
  EXPECT_DOUBLE_EQ(moe.feedForward[3].m, 1); // 4 tokens x top-2 / 8
  // Column-parallel QKV (n / tp), row-parallel O (k / tp).
  LayerGemms split = layerGemms(tiny(), 0, 4, 2);
  EXPECT_DOUBLE_EQ(split.projections[0].n, 6);
  EXPECT_DOUBLE_EQ(split.projections[1].k, 2);
  // The head: vocabulary-parallel.
  EXPECT_DOUBLE_EQ(headGemm(tiny(), 4, 2).n, 5);
}

TEST(TransformerCost, LayerSecondsAreTheirGemmsAndKernels) {
  ComputeRates r = fourSms();
  auto whole =
      layerForwardSeconds(tiny(), 0, {4, 2}, r, AttentionKernel::Fused);
  auto gemms = layerGemmSeconds(tiny(), 0, 4, 1, r);
  auto kernels =
      layerKernelSeconds(tiny(), 0, {4, 2}, r, AttentionKernel::Fused);
  ASSERT_TRUE(whole.ok() && gemms.ok() && kernels.ok());
  EXPECT_DOUBLE_EQ(whole.value.total(),
                   gemms.value.total() + kernels.value.total());
  EXPECT_DOUBLE_EQ(gemms.value.attentionCore, 0);
  EXPECT_FALSE(layerGemmSeconds(tiny(), 0, 0, 1, r).ok());
  EXPECT_FALSE(layerGemmSeconds(tiny(), 0, 4, 0, r).ok());
  EXPECT_FALSE(layerGemmSeconds(tiny(), 1, 4, 1, r).ok());
}

TEST(TransformerCost, CatalogRatesAreTheSourcedOnes) {
  // A100: the fitted 0.65 (ChipCatalog.h); H100: the same share of its
  // mamf-finder ceiling, 0.65 x (792.1 / 989) / (267.9 / 312).
  ComputeRates a100 = chipRates(*findChip("A100_80GB"));
  EXPECT_DOUBLE_EQ(a100.gemmEfficiency, 0.65);
  ComputeRates h100 = chipRates(*findChip("H100"));
  EXPECT_NEAR(h100.gemmEfficiency, 0.65 * (792.1 / 989) / (267.9 / 312), 1e-12);
  ASSERT_TRUE(h100.kernels.has_value());
  EXPECT_DOUBLE_EQ(h100.kernels->attentionEfficiency, 0.55);
  EXPECT_DOUBLE_EQ(h100.kernels->memoryEfficiency, 0.75);
  EXPECT_DOUBLE_EQ(h100.peakFlops, 989e12);
  EXPECT_DOUBLE_EQ(h100.fp8Flops, 1979e12);
  // SM counts from the architecture whitepapers.
  EXPECT_EQ(h100.kernels->smCount, 132);
  EXPECT_EQ(a100.kernels->smCount, 108);
  EXPECT_EQ(chipRates(*findChip("B200")).kernels->smCount, 148);
  EXPECT_EQ(chipRates(*findChip("CPU")).kernels->smCount, 0);
  // The shape mamf-finder measured H100's ceiling at loses 0.2 % to its
  // last wave under 128 x 128 tiles: 6,720 tiles in 51 waves of 132.
  const double flops = 2.0 * 6144 * 17920 * 2816;
  EXPECT_NEAR(gemmSeconds({6144, 17920, 2816}, DType::BF16, h100) /
                  (flops / h100.gemmRate()),
              51.0 * 132 / 6720, 1e-12);
}

TEST(TransformerCost, BadRatesAreProblems) {
  ComputeRates r = testRates(true);
  r.gemmEfficiency = 0;
  EXPECT_TRUE(
      hasField(layerForwardSeconds(tiny(), 0, {4, 0}, r, AttentionKernel::Fused)
                   .problems,
               "gemm_efficiency"));
  r = testRates(true);
  r.kernels->memoryEfficiency = 1.5;
  r.hbmBandwidth = 0;
  auto bad = layerForwardSeconds(tiny(), 0, {4, 0}, r, AttentionKernel::Fused);
  EXPECT_TRUE(hasField(bad.problems, "memory_efficiency"));
  EXPECT_TRUE(hasField(bad.problems, "hbm_bandwidth"));
  EXPECT_TRUE(hasField(layerForwardSeconds(tiny(), 0, {0, 0}, testRates(true),
                                           AttentionKernel::Fused)
                           .problems,
                       "tokens"));
}

TEST(TransformerCost, ProblemsAreValues) {
  EXPECT_TRUE(
      hasField(layerForwardFlops(tiny(), 0, {0, 0}).problems, "tokens"));
  EXPECT_TRUE(
      hasField(layerForwardFlops(tiny(), 0, {3, -1}).problems, "context"));
  EXPECT_TRUE(hasField(layerForwardFlops(tiny(), 1, {3, 0}).problems, "layer"));
  TransformerShape broken = tiny();
  broken.kvHeads = 3;
  EXPECT_TRUE(hasField(
      activationBytesPerToken(broken, 0, {3, 0}, Checkpointing::None).problems,
      "kv_heads"));

  EXPECT_TRUE(hasField(modelStateBytesPerChip(1, 4, 8).problems, "zero"));
  EXPECT_TRUE(
      hasField(modelStateBytesPerChip(1, 3, 0).problems, "data_parallel"));
  EXPECT_TRUE(
      hasField(modelStateBytesPerChip(-1, 3, 8).problems, "parameters"));
  EXPECT_TRUE(
      hasField(modelStateBytesPerChip(std::numeric_limits<int64_t>::max(), 0, 1)
                   .problems,
               "parameters"));
}

} // namespace
