//===- FlexSpModelTest.cpp - FlexSP's cost model from a spec --------------===//
#include "passes/Train/FlexSpModel.h"

#include "TrainFixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace plexus;
using namespace plexus::train;

namespace {

using fixtures::smallSetup;

double directTrainFlops(const step::TrainModel &m, int64_t s) {
  double f = 0;
  for (int64_t l = 0; l < m.shape.layers; ++l)
    f += cost::layerTrainFlops(
             cost::layerForwardFlops(m.shape, l, {s, 0}).value, m.checkpointing)
             .total();
  // The output head: forward 2 s h V, backward twice that.
  return f +
         3 * 2.0 * double(s) * double(m.shape.hidden) * double(m.shape.vocab);
}

/// A callback where every all-to-all takes 1 s and every all-gather 0.5 s.
prog::CommTimeFn constantTimes() {
  return [](const prog::CommRequest &r) {
    return prog::CommTime(r.kind == prog::CommKind::AllToAll ? 1.0 : 0.5);
  };
}

// The cost model's FLOPs are a quadratic in the sequence length, so two
// points determine it and it reproduces every other length.
TEST(FlexSpModel, TrainFlopsAreAQuadraticInTheLength) {
  step::TrainModel m = smallSetup().model;
  FlopsPolynomial p = trainFlopsPolynomial(m);
  for (int64_t s : {1, 100, 3000, 65536}) {
    double direct = directTrainFlops(m, s);
    double poly = p.quadratic * double(s) * double(s) + p.linear * double(s);
    EXPECT_NEAR(poly, direct, 1e-9 * direct) << "s=" << s;
  }
  EXPECT_GT(p.quadratic, 0);
  EXPECT_GT(p.linear, 0);
}

// What the lowering and the static planners charge one rank for a
// sequence of s tokens (tp 1, no split): every layer's forward, recompute
// and backward seconds (step::layerWork), the head's on the last layer.
double layerWorkSeconds(const step::TrainModel &m, int64_t s) {
  double t = 0;
  for (int64_t l = 0; l < m.shape.layers; ++l) {
    auto w = step::layerWork(m, {1, 1, 1, 1}, {s}, l, 1);
    EXPECT_TRUE(w.ok());
    t += w.value.forwardSeconds + w.value.recomputeSeconds +
         w.value.backwardSeconds;
  }
  return t;
}

// One judge: with the chip's kernel rates (attention and memory-bound
// kernels timed apart from the GEMMs) the seconds polynomial FlexSP's and
// DPP's alphas come from is exactly the per-layer time the lowering and the
// static planners charge (step::layerWork's forward + recompute + backward
// seconds, the head's on the last layer), under every checkpointing mode
// and both attention kernels.
TEST(FlexSpModel, TrainSecondsAreTheLoweringsLayerSeconds) {
  step::TrainModel m = smallSetup().model;
  m.chip.hbmBandwidth = 1e11;
  m.efficiency = 0.7;
  m.kernels = cost::KernelRates{0.4, 0.6};
  for (cost::AttentionKernel kernel :
       {cost::AttentionKernel::Fused, cost::AttentionKernel::Eager})
    for (cost::Checkpointing mode :
         {cost::Checkpointing::None, cost::Checkpointing::Selective,
          cost::Checkpointing::AttentionMlp, cost::Checkpointing::Full}) {
      m.attention = kernel;
      m.checkpointing = mode;
      FlopsPolynomial p = trainSecondsPolynomial(m);
      for (int64_t s : {64, 3000, 65536}) {
        const double direct = layerWorkSeconds(m, s);
        double poly =
            p.quadratic * double(s) * double(s) + p.linear * double(s);
        EXPECT_NEAR(poly, direct, 1e-9 * direct)
            << "s=" << s << " " << cost::checkpointingName(mode);
      }
    }
  // The kernels cost time the flat FLOP rate does not see: the memory-bound
  // kernels, and an attention core slower than the GEMMs.
  m.kernels.reset();
  FlopsPolynomial flat = trainSecondsPolynomial(m);
  m.kernels = cost::KernelRates{0.4, 0.6};
  FlopsPolynomial kernels = trainSecondsPolynomial(m);
  EXPECT_GT(kernels.linear, flat.linear);
  EXPECT_GT(kernels.quadratic, flat.quadratic);
}

// GEMMs timed by tiles and waves (an SM count) run once per packed batch:
// the polynomial charges them their per-token time in a batch of
// kPolynomialGemmTokens, so it equals the lowering's layer seconds exactly
// at that length and keeps the attention's quadratic term as it was.
TEST(FlexSpModel, TrainSecondsChargeGemmsAtThePolynomialsBatch) {
  step::TrainModel m = smallSetup().model;
  m.chip.hbmBandwidth = 1e11;
  m.efficiency = 0.7;
  m.kernels = cost::KernelRates{0.4, 0.6};
  const FlopsPolynomial noSms = trainSecondsPolynomial(m);
  m.kernels->smCount = 7;
  const FlopsPolynomial p = trainSecondsPolynomial(m);
  EXPECT_DOUBLE_EQ(p.quadratic, noSms.quadratic);
  const int64_t s = kPolynomialGemmTokens;
  const double direct = layerWorkSeconds(m, s);
  const double poly =
      p.quadratic * double(s) * double(s) + p.linear * double(s);
  EXPECT_NEAR(poly, direct, 1e-9 * direct);
}

// alpha in ms at 1 TFLOP/s: FLOPs / 1e12 * 1e3; bandwidth: 64 MiB moved in
// the callback's 1 s is 1/16 GB/s (MiB / 1024 / s, FlexSP's units); beta1
// is two 0.5 s gathers.
TEST(FlexSpModel, DerivedCoefficientsByHand) {
  baselines::TrainSetup s = smallSetup();
  DerivedFlexSp d = deriveFlexSpModel(s, 4096, constantTimes());
  ASSERT_TRUE(d.error.empty()) << d.error;
  FlopsPolynomial p = trainFlopsPolynomial(s.model);
  EXPECT_NEAR(d.model.alpha1, p.quadratic / 1e12 * 1e3, 1e-18);
  EXPECT_NEAR(d.model.alpha2, p.linear / 1e12 * 1e3, 1e-15);
  EXPECT_NEAR(d.model.beta1, 1000.0, 1e-9);
  // The micro-batch floor: per layer two 0.5 s gathers and a 0.5 s
  // reduce-scatter (every non-all-to-all takes 0.5 s here), 4 layers: 6 s.
  EXPECT_NEAR(d.model.microBatchFloorMs, 6000.0, 1e-9);
  // Degrees: powers of two dividing 8 GPUs and 4 heads: 2 and 4.
  ASSERT_EQ(d.bandwidth.gbPerSecond.size(), 2u);
  EXPECT_EQ(d.bandwidth.gbPerSecond[0].first, 2);
  EXPECT_EQ(d.bandwidth.gbPerSecond[1].first, 4);
  EXPECT_NEAR(d.bandwidth.gbPerSecond[0].second, 1.0 / 16, 1e-12);
  // Capacity and activation memory are StepPlanners' figures.
  baselines::Capacity cap = baselines::layoutCapacity(s, {1, 1, 1, 1}, 4096);
  EXPECT_EQ(d.capacityPerGpu, cap.tokensPerChip);
  EXPECT_NEAR(d.model.actMBPerToken,
              double(baselines::activationBytesPerToken(s.model, 4096)) /
                  (1 << 20),
              1e-12);
}

// Gathered on demand (zero_prefetch 0) nothing hides, so beta1 is the whole
// micro-batch floor (6 s, above) at the stream's rate: 6 s / e, e the
// chip's overlap_comm_efficiency (here set to 0.75: 8 s).
TEST(FlexSpModel, OnDemandGathersChargeTheWholeStreamAsBeta1) {
  baselines::TrainSetup s = smallSetup();
  s.model.zeroPrefetch = 0;
  s.model.chip.overlapCommEfficiency = 0.75;
  DerivedFlexSp d = deriveFlexSpModel(s, 4096, constantTimes());
  ASSERT_TRUE(d.error.empty()) << d.error;
  EXPECT_NEAR(d.model.microBatchFloorMs, 6000.0, 1e-9);
  EXPECT_NEAR(d.model.beta1, 8000.0, 1e-9);
}

// FlexSP's plan of a small batch is a valid step: every micro-batch's
// groups tile the 8 ranks, every sequence is placed once.
TEST(FlexSpModel, PlansAValidStep) {
  baselines::TrainSetup s = smallSetup();
  std::vector<int64_t> lengths{8192, 512, 512, 1024, 256, 256, 2048, 128};
  adaptivesp::AdaptiveSpOptions options;
  options.threads = 1;
  double solver = -1;
  baselines::NamedPlan plan =
      planFlexSp(s, lengths, constantTimes(), options, solver);
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.name, "flexsp");
  EXPECT_GE(solver, 0);
  std::vector<int> seen(lengths.size(), 0);
  for (const step::PlannedMicroBatch &mb : plan.plan->microBatches) {
    int64_t next = 0;
    for (const step::PlannedGroup &g : mb.groups) {
      EXPECT_EQ(g.firstRank, next);
      next += g.layout.degree();
      for (int64_t id : g.seqs)
        ++seen[size_t(id)];
    }
    EXPECT_EQ(next, 8);
  }
  for (int count : seen)
    EXPECT_EQ(count, 1);
  EXPECT_GT(plan.plan->seconds, 0);
}

TEST(FlexSpModel, ModelStatesThatDoNotFitAreAnError) {
  baselines::TrainSetup s = smallSetup();
  s.memoryBytes = 1000; // nothing fits
  DerivedFlexSp d = deriveFlexSpModel(s, 4096, constantTimes());
  EXPECT_NE(d.error.find("model states alone need"), std::string::npos)
      << d.error;
}

} // namespace
