//===- ActivationMemoryTest.cpp - Per-chunk activation memory of DPP ------===//
//
// The chunk window of Eq. 7 and the linear memory model of Eqs. 5-10 on
// numbers that can be checked by hand, including reference flexsp_dpp.md
// section 4 item 11's memory clause: a split sequence keeps its K/V under
// full checkpointing, and its dK/dV buffer.
//
//===----------------------------------------------------------------------===//
#include "passes/Checkpoint/ActivationMemory.h"

#include "passes/StepModel/OneFOneB.h"

#include <gtest/gtest.h>

using namespace plexus::ckpt;

namespace {

/// 4 layers on 2 stages, SP 2 (N = 4); D = 1024, D_kv = 512, e = 2, so a
/// layer's input is e D / d_s = 1024 bytes = 1/1024 MB per token per GPU
/// and K (or V) 512 bytes. 1 MB of activations per token for the model.
ActivationModel handModel() {
  ActivationModel m;
  m.layers = 4;
  m.stages = 2;
  m.spDegree = 2;
  m.hidden = 1024;
  m.kvDim = 512;
  m.bytesPerElement = 2;
  m.tokenMB = 1.0;
  m.logitsMB = 0.5;
  return m;
}

} // namespace

TEST(ChunkWindow, IsStagesMinusStagePlusNSplit) {
  // Reference Eq. 7 with 1-based p: d_p - p + N_split.
  for (int64_t stages : {1, 2, 4, 8})
    for (int64_t nSplit : {1, 3, 16})
      for (int64_t p = 1; p <= stages; ++p)
        EXPECT_EQ(plexus::step::chunkWindow(stages, p - 1, nSplit), stages - p + nSplit);
  EXPECT_EQ(plexus::step::chunkWindow(4, 0, 1), 4); // plain 1F1B: first stage holds d_p
  EXPECT_EQ(plexus::step::chunkWindow(4, 3, 1), 1); // last stage: one
  EXPECT_EQ(plexus::step::chunkWindow(4, 0, 3), 6);
  EXPECT_EQ(plexus::step::chunkWindow(4, 3, 3), 3);
}

TEST(ActivationMemory, PackedChunkByHand) {
  const ActivationModel m = handModel();
  const ChunkFootprint packed{1024, 0};
  // I = M_token / N * T = 1024 / 4.
  EXPECT_DOUBLE_EQ(baseActivationMB(m, 0, packed), 256.0);
  // F = (M_token / (L d_s) - e D / d_s) T = (1/8 - 1/1024) * 1024.
  EXPECT_DOUBLE_EQ(savedMBPerCheckpointedLayer(m, packed), 127.0);
  EXPECT_DOUBLE_EQ(activationMB(m, 0, packed, 1), 129.0);
  // Both layers checkpointed: only the inputs, 2 layers * 1 MB.
  EXPECT_DOUBLE_EQ(activationMB(m, 0, packed, 2), 2.0);
  EXPECT_DOUBLE_EQ(fullyCheckpointedMB(m, 0, packed), 2.0);
  EXPECT_EQ(layersPerStage(m), 2);
}

TEST(ActivationMemory, SplitSliceKeepsKvAndDkvUnderFullCheckpointing) {
  const ActivationModel m = handModel();
  const ChunkFootprint slice{1024, 1024};
  // dK/dV: 2 e D_kv / d_s per token per layer, 2 layers: 2 MB.
  EXPECT_DOUBLE_EQ(baseActivationMB(m, 0, slice), 258.0);
  // A checkpointed layer also keeps K and V (1 MB per layer here).
  EXPECT_DOUBLE_EQ(savedMBPerCheckpointedLayer(m, slice), 126.0);
  // Fully checkpointed: inputs 2 + K/V 2 + dK/dV 2.
  EXPECT_DOUBLE_EQ(activationMB(m, 0, slice, 2), 6.0);
  EXPECT_DOUBLE_EQ(fullyCheckpointedMB(m, 0, slice), 6.0);
  // So a split slice always holds more than the same tokens packed.
  EXPECT_GT(fullyCheckpointedMB(m, 0, slice),
            fullyCheckpointedMB(m, 0, ChunkFootprint{1024, 0}));
}

TEST(ActivationMemory, HybridChargesKvOnlyForItsSlice) {
  const ActivationModel m = handModel();
  // 512 tokens of a tail slice beside 512 of whole short sequences.
  const ChunkFootprint hybrid{1024, 512};
  EXPECT_DOUBLE_EQ(baseActivationMB(m, 0, hybrid), 257.0);
  EXPECT_DOUBLE_EQ(fullyCheckpointedMB(m, 0, hybrid), 4.0);
  EXPECT_DOUBLE_EQ(activationMB(m, 0, hybrid, 2), 4.0);
}

TEST(ActivationMemory, LogitsOnlyOnTheLastStage) {
  const ActivationModel m = handModel();
  const ChunkFootprint packed{1024, 0};
  // + M_logits / d_s * T = 0.25 * 1024.
  EXPECT_DOUBLE_EQ(baseActivationMB(m, 1, packed), 512.0);
  EXPECT_DOUBLE_EQ(fullyCheckpointedMB(m, 1, packed), 258.0);
  EXPECT_DOUBLE_EQ(activationMB(m, 1, packed, 2), 258.0);
  // Checkpointing saves the same per layer on every stage.
  EXPECT_DOUBLE_EQ(
      activationMB(m, 0, packed, 0) - activationMB(m, 0, packed, 1),
      activationMB(m, 1, packed, 0) - activationMB(m, 1, packed, 1));
}

TEST(ActivationMemory, ModelProblems) {
  EXPECT_EQ(activationModelProblem(handModel()), "");
  ActivationModel m = handModel();
  m.stages = 3;
  EXPECT_NE(activationModelProblem(m).find("do not split evenly"),
            std::string::npos);
  m = handModel();
  m.tokenMB = 0;
  EXPECT_NE(activationModelProblem(m), "");
  m = handModel();
  m.spDegree = 0;
  EXPECT_NE(activationModelProblem(m), "");
}
