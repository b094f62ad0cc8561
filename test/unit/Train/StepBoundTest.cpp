//===- StepBoundTest.cpp - The lower bound on a step, by hand -------------===//
#include "passes/Train/StepBound.h"

#include "passes/StepModel/LayerWork.h"
#include "passes/Train/FlexSpModel.h"

#include "TrainFixtures.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::train;

namespace {

using fixtures::bytesOverRanks;
using fixtures::smallSetup;

// Compute: the batch's FLOPs without recompute (the cost model's quadratic,
// checkpointing none) over 8 chips at 1 TFLOP/s.
TEST(StepBound, ComputeIsTheBatchsFlopsOverEveryChip) {
  baselines::TrainSetup s = smallSetup();
  step::TrainModel plain = s.model;
  plain.checkpointing = cost::Checkpointing::None;
  FlopsPolynomial f = trainFlopsPolynomial(plain);
  std::vector<int64_t> lengths{1000, 3000};
  double flops = f.quadratic * (1e6 + 9e6) + f.linear * 4000;
  StepBound b = stepLowerBound(s, lengths, {}, bytesOverRanks(0));
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_NEAR(b.flops, flops, 1e-9 * flops);
  // The flat model: FLOPs at 1e12 FLOP/s per chip (to rounding: the
  // polynomial adds the GEMMs' and the cores' seconds separately).
  EXPECT_NEAR(b.computeSeconds, flops / (8 * 1e12), 1e-12 * flops / 8e12);
  // Free communication: the bound is the compute term.
  EXPECT_DOUBLE_EQ(b.seconds, b.computeSeconds);
  // Recompute is not work every plan must do: full checkpointing's setup
  // gets the same bound.
  s.model.checkpointing = cost::Checkpointing::Full;
  EXPECT_DOUBLE_EQ(stepLowerBound(s, lengths, {}, bytesOverRanks(0)).flops,
                   b.flops);
}

// With GEMMs timed by tiles and waves, a rank holding more tokens than the
// planners' 8,192-token batch runs its GEMMs a little faster per token than
// the polynomial charges; the bound times GEMMs at their FLOPs over the
// peak instead, so it stays below what any plan's ranks compute.
TEST(StepBound, ComputeIsBelowEveryPlansGemmsByShape) {
  baselines::TrainSetup s = smallSetup();
  s.model.kernels = cost::KernelRates{0.4, 0.6};
  s.model.kernels->smCount = 7;
  s.model.chip.hbmBandwidth = 1e13;
  s.model.checkpointing = cost::Checkpointing::None;
  for (int64_t length : {512, 65536}) {
    StepBound b = stepLowerBound(s, {length}, {}, bytesOverRanks(0));
    ASSERT_TRUE(b.ok()) << b.error;
    double oneRank = 0;
    for (int64_t l = 0; l < s.model.shape.layers; ++l) {
      auto w = step::layerWork(s.model, {1, 1, 1, 1}, {length}, l, 1);
      ASSERT_TRUE(w.ok());
      oneRank += w.value.forwardSeconds + w.value.backwardSeconds;
    }
    // The whole sequence on one rank of the 8: the bound spreads it over 8.
    EXPECT_LE(b.computeSeconds * 8, oneRank * (1 + 1e-12)) << length;
  }
}

// Gradient traffic: ZeRO-3 on pp 1 reduces every parameter's 2 bytes over 8
// ranks and gathers the 1/8 shard back; with pp 2 allowed each stage's half
// goes over 4 ranks, which is cheaper, and the bound takes the cheapest.
TEST(StepBound, GradientTrafficIsTheCheapestAllowedDepth) {
  baselines::TrainSetup s = smallSetup();
  const int64_t params = step::carriedParameters(s.model.shape, 0, 4);
  const double k = 1e-6; // seconds per byte per rank
  // pp 1: 8 ways, (7/8) G + (G/8) 7 = 1.75 G; pp 2: 4 ways of G/2,
  // (3/4) G/2 + (G/8) 3 = 0.75 G.
  auto expected = [&](int64_t p) {
    const double ways = double(8 / p);
    const int64_t bytes = (params / p * 2) / (8 / p) * (8 / p);
    return k * double(bytes) * (ways - 1) / ways +
           k * double(bytes / (8 / p)) * (ways - 1);
  };
  BoundChoices one;
  StepBound b1 = stepLowerBound(s, {100}, one, bytesOverRanks(k));
  ASSERT_TRUE(b1.ok()) << b1.error;
  EXPECT_NEAR(b1.gradientSeconds, expected(1), 1e-15);
  EXPECT_EQ(b1.gradientDepth, 1);
  BoundChoices both;
  both.pipelineDepths = {1, 2};
  StepBound b2 = stepLowerBound(s, {100}, both, bytesOverRanks(k));
  EXPECT_NEAR(b2.gradientSeconds, expected(2), 1e-15);
  EXPECT_EQ(b2.gradientDepth, 2);
  EXPECT_LT(b2.gradientSeconds, b1.gradientSeconds);
  // A single short sequence computes less than its gradients move: the
  // bound is the larger term.
  EXPECT_DOUBLE_EQ(b1.seconds, std::max(b1.computeSeconds, b1.gradientSeconds));
  // One rank per parameter share: nothing to synchronise.
  both.pipelineDepths = {4};
  both.tp = 2;
  EXPECT_DOUBLE_EQ(
      stepLowerBound(s, {100}, both, bytesOverRanks(k)).gradientSeconds, 0);
}

} // namespace
