//===- DppCostModelTest.cpp - Time and memory of DPP's chunks -------------===//
//
// Eqs. 1-4 and 11 of reference flexsp_dpp.md section 2.3 on hand-checkable
// numbers, the chunk algebra (C + s)^2 - C^2 of section 4 item 11, the
// footprints handed to the memory model, and the model built from FlexSP's
// 13B profile.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DppCostModel.h"

#include "DppTestModels.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::dpp;

namespace {

Chunk splitChunk(int64_t seq, int64_t begin, int64_t end, bool tail = false) {
  Chunk c;
  c.kind = ChunkKind::Split;
  c.tail = tail;
  c.pieces.push_back({seq, begin, end});
  return c;
}

} // namespace

TEST(ChunkForm, UniformCS) {
  Chunk hybrid;
  hybrid.kind = ChunkKind::Hybrid;
  hybrid.tail = true;
  hybrid.pieces = {{0, 866, 1000}, {3, 0, 100}, {4, 0, 50}};
  EXPECT_EQ(hybrid.context(), 866);
  EXPECT_EQ(hybrid.splitTokens(), 134);
  EXPECT_EQ(hybrid.tokens(), 284);
  EXPECT_EQ(hybrid.sliceLengths(), (std::vector<int64_t>{134, 100, 50}));
  EXPECT_EQ(hybrid.splitSequence(), 0);
  Chunk packed;
  packed.pieces = {{5, 0, 300}, {6, 0, 200}};
  EXPECT_EQ(packed.context(), 0);
  EXPECT_EQ(packed.splitTokens(), 0);
  EXPECT_EQ(packed.splitSequence(), -1);
  EXPECT_STREQ(chunkKindName(ChunkKind::Hybrid), "hybrid");
}

TEST(DppCostModel, ChunkTimesByHand) {
  // Per stage: 1e-6 ms per token^2, 1e-3 ms per token, 3 ms per chunk.
  DppModel m = handModel(1e-6, 1e-3, 3.0);
  const Chunk c = splitChunk(0, 1000, 2000);
  // (2000^2 - 1000^2) 1e-6 + 1000 1e-3 + 3 = 3 + 1 + 3 = 7 ms.
  const ChunkTimes t = chunkTimes(m, c);
  EXPECT_NEAR(t.forwardMs, 7.0 / 3, 1e-12);
  EXPECT_NEAR(t.backwardMs, 14.0 / 3, 1e-12);
  EXPECT_NEAR(t.totalMs(), 7.0, 1e-12);
  EXPECT_NEAR(chunkStageMs(m, c), 7.0, 1e-12);
  // Recompute of one of the stage's 4 layers: a quarter of the forward.
  EXPECT_NEAR(recomputeMsPerLayer(m, c), 7.0 / 12, 1e-12);
  m.forwardShare = 0.5;
  EXPECT_NEAR(chunkTimes(m, c).forwardMs, 3.5, 1e-12);
}

// A chunk's GEMM excess (its GEMMs' shape cost beyond alpha2's per-token
// charge) is the chunk's, not its pieces': it depends on the chunk's
// tokens and splits between the passes like the rest of its compute.
TEST(DppCostModel, GemmExcessIsTheChunks) {
  DppModel m = handModel(1e-6, 1e-3, 3.0);
  m.gemmExcessMs = [](int64_t tokens) { return tokens < 1000 ? 6.0 : 0.0; };
  const Chunk big = splitChunk(0, 1000, 2000);
  EXPECT_NEAR(chunkStageMs(m, big), 7.0, 1e-12); // 1,000 tokens: none
  Chunk small;
  small.kind = ChunkKind::Packed;
  small.pieces = {{1, 0, 300}, {2, 0, 200}};
  // 500 tokens: (300^2 + 200^2) 1e-6 + 500 1e-3 + 3 + 6 = 9.63 ms.
  EXPECT_NEAR(chunkStageMs(m, small), 0.13 + 0.5 + 3 + 6, 1e-12);
  const ChunkTimes t = chunkTimes(m, small);
  EXPECT_NEAR(t.forwardMs, 9.63 / 3, 1e-12);
  EXPECT_NEAR(t.backwardMs, 2 * 9.63 / 3, 1e-12);
}

TEST(DppCostModel, AttentionOfASliceIsADifferenceOfSquares) {
  const SliceCost c{1.0, 0.0, 0.0};
  EXPECT_DOUBLE_EQ(pieceWorkMs(c, 0, 1000), 1e6);
  EXPECT_DOUBLE_EQ(pieceWorkMs(c, 500, 500), 1000.0 * 1000 - 500.0 * 500);
  // Slices of one sequence add up to the whole: the sum telescopes.
  const SliceCost d{2e-6, 3e-3, 0.0};
  const std::vector<int64_t> cuts = {0, 317, 640, 999, 1500};
  double sum = 0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i)
    sum += pieceWorkMs(d, cuts[i], cuts[i + 1] - cuts[i]);
  EXPECT_NEAR(sum, pieceWorkMs(d, 0, 1500), 1e-9);
  // A hybrid chunk: its tail with context, the packed pieces without.
  DppModel m = handModel(1.0, 0.0);
  Chunk hybrid;
  hybrid.kind = ChunkKind::Hybrid;
  hybrid.tail = true;
  hybrid.pieces = {{0, 3, 5}, {1, 0, 2}};
  EXPECT_DOUBLE_EQ(chunkStageMs(m, hybrid), (25.0 - 9) + 4);
}

TEST(DppCostModel, AllToAllOfEq3) {
  // e = 2, D = D_kv = 1024, d_s = 2, L / d_p = 4 layers, 1 GB/s, 0.5 ms:
  // per pass 2 * 2048 / 2 bytes per token per all-to-all, 2 L / d_p = 8
  // all-to-alls.
  DppModel m = handModel(0, 1e-3);
  m.allToAllGBps = 1.0;
  m.allToAllLatencyMs = 0.5;
  EXPECT_NEAR(allToAllMsPerToken(m), 2048.0 / 1e6 * 8, 1e-15);
  EXPECT_NEAR(allToAllMsPerChunk(m), 2 * 0.5 * 8, 1e-15);
  const Chunk c = splitChunk(0, 0, 1000);
  const ChunkTimes t = chunkTimes(m, c);
  const double a2a = 1000 * 2048.0 / 1e6 * 8 + 8;
  EXPECT_NEAR(t.forwardMs, 1.0 / 3 + a2a, 1e-9);
  EXPECT_NEAR(t.backwardMs, 2.0 / 3 + a2a, 1e-9);
  const SliceCost s = stageSliceCost(m);
  EXPECT_NEAR(s.linearMs, 1e-3 + 2 * 2048.0 / 1e6 * 8, 1e-15);
  EXPECT_NEAR(s.chunkMs, 16.0, 1e-12);
  // No all-to-all without SP.
  m.activation.spDegree = 1;
  EXPECT_EQ(allToAllMsPerToken(m), 0.0);
  EXPECT_EQ(allToAllMsPerChunk(m), 0.0);
}

TEST(DppCostModel, Footprints) {
  DppModel m = handModel(1, 0);
  Chunk packed;
  packed.pieces = {{1, 0, 10}, {2, 0, 20}};
  EXPECT_EQ(chunkFootprint(m, packed).tokens, 30);
  EXPECT_EQ(chunkFootprint(m, packed).kvTokens, 0);
  const Chunk middle = splitChunk(0, 100, 200);
  EXPECT_EQ(chunkFootprint(m, middle).kvTokens, 100);
  Chunk hybrid;
  hybrid.kind = ChunkKind::Hybrid;
  hybrid.tail = true;
  hybrid.pieces = {{0, 200, 250}, {1, 0, 10}};
  EXPECT_EQ(chunkFootprint(m, hybrid).tokens, 60);
  EXPECT_EQ(chunkFootprint(m, hybrid).kvTokens, 50);
  m.chargeTailKv = false;
  EXPECT_EQ(chunkFootprint(m, hybrid).kvTokens, 0);
  EXPECT_EQ(chunkFootprint(m, middle).kvTokens, 100);
}

TEST(DppCostModel, FromTheFlexSpProfile) {
  const DppModel m = gpt13b(80);
  EXPECT_EQ(dppModelProblem(m), "");
  EXPECT_EQ(m.activation.layers, 40);
  EXPECT_EQ(m.activation.stages, 4);
  EXPECT_EQ(m.activation.kvDim, 5120);
  EXPECT_DOUBLE_EQ(m.activation.tokenMB, 4.220439453);
  EXPECT_DOUBLE_EQ(m.memoryMB, 80 * 1024.0);
  // 16 bytes per parameter, ZeRO-3 over the 8 GPUs of a stage holding a
  // quarter of the parameters: params * 16 Gi / 32.
  const cost::ProfiledModel p = *cost::findProfiledModel("gpt-13b");
  EXPECT_NEAR(m.modelStatesMB[0], p.paramsGi192K * 16 * 1024 / 32, 1e-9);
  EXPECT_EQ(m.modelStatesMB.size(), 4u);
  // One stage of the 32 GPUs: alpha / 32; beta1 per chunk as given.
  EXPECT_NEAR(stageSliceCost(m).quadraticMs, p.alpha1 / 32, 1e-18);
  EXPECT_DOUBLE_EQ(m.beta1, 40.0);
  DppLayout profiled;
  profiled.paramsGi = 13;
  EXPECT_DOUBLE_EQ(makeDppModel(p, profiled)->beta1, p.beta1);

  DppLayout bad;
  bad.stages = 3; // 40 layers
  bad.paramsGi = 13;
  Result<DppModel> r = makeDppModel(p, bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("do not split evenly"), std::string::npos);
  DppModel broken = m;
  broken.forwardShare = 1;
  EXPECT_NE(dppModelProblem(broken), "");
  broken = m;
  broken.modelStatesMB.pop_back();
  EXPECT_NE(dppModelProblem(broken), "");
}
