//===- OptimizerTest.cpp - Adam and SGD by hand, and a short training run -===//
#include "runtime/Optimizer.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

using namespace plexus::runtime;
using namespace plexus::runtime::testutil;

namespace {

TEST(RuntimeOptimizer, AdamTwoStepsByHand) {
  // Step 1, g = 0.5: m = 0.05, v = 0.00025, bias-corrected 0.5 and 0.25,
  // so p moves by lr * 0.5 / (0.5 + 1e-8). Step 2, g = -0.5:
  // m = -0.005, v = 0.00049975, corrected -0.005 / 0.19 and
  // 0.00049975 / 0.001999 = 0.25, so p moves back by lr * 0.0263158 / 0.5.
  Adam<double> adam(AdamConfig{1e-3, 0.9, 0.999, 1e-8, 0});
  TensorD p({1}), g({1});
  p[0] = 1;
  g[0] = 0.5;
  ASSERT_TRUE(adam.step({&p}, {&g}).ok());
  EXPECT_NEAR(p[0], 1 - 1e-3 * 0.5 / (0.5 + 1e-8), 1e-15);
  g[0] = -0.5;
  ASSERT_TRUE(adam.step({&p}, {&g}).ok());
  const double mhat = -0.005 / 0.19, vhat = 0.00049975 / (1 - 0.998001);
  EXPECT_NEAR(p[0],
              1 - 1e-3 * 0.5 / (0.5 + 1e-8) -
                  1e-3 * mhat / (std::sqrt(vhat) + 1e-8),
              1e-12);
  EXPECT_EQ(adam.steps(), 2);
}

TEST(RuntimeOptimizer, DecoupledWeightDecayAndSgd) {
  Adam<double> adam(AdamConfig{0.01, 0.9, 0.999, 1e-8, 0.1});
  TensorD p({2}), g({2});
  p[0] = 2;
  p[1] = -4;
  ASSERT_TRUE(adam.step({&p}, {&g}).ok()); // zero gradient: decay only
  EXPECT_DOUBLE_EQ(p[0], 2 - 0.01 * 0.1 * 2);
  EXPECT_DOUBLE_EQ(p[1], -4 + 0.01 * 0.1 * 4);
  g[0] = 3;
  g[1] = -1;
  ASSERT_TRUE(sgdStep<double>({&p}, {&g}, 0.5).ok());
  EXPECT_DOUBLE_EQ(p[0], 1.998 - 1.5);
  EXPECT_DOUBLE_EQ(p[1], -3.996 + 0.5);
  TensorD wrong({3});
  EXPECT_EQ(sgdStep<double>({&p}, {&wrong}, 0.5).message(),
            "sgd: parameter 0 is [2] but its gradient is [3]");
  EXPECT_EQ(adam.step({&p, &p}, {&g, &g}).message(),
            "adam: 2 parameters, but the state holds 1");
}

TEST(RuntimeOptimizer, AdamTrainsTheModel) {
  // Twenty Adam steps on one fixed batch: the loss falls well below its
  // start (log 11 = 2.4 for an untrained model over 11 tokens).
  ModelConfig c = smallConfig();
  c.initStd = 0.1f;
  auto w = initWeights<float>(c, wholeModel(c), 5);
  ASSERT_TRUE(w.ok());
  const std::vector<std::vector<int32_t>> seqs = {
      syntheticTokens(5, 0, 24, c.vocab), syntheticTokens(5, 1, 16, c.vocab)};
  Adam<float> adam(AdamConfig{1e-2, 0.9, 0.999, 1e-8, 0});
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    ModelWeights<float> grads = zerosLike(*w);
    Result<double> loss = referenceStep(c, *w, seqs, grads);
    ASSERT_TRUE(loss.ok()) << loss.message();
    (step == 0 ? first : last) = *loss;
    ASSERT_TRUE(adam.step(*w, grads).ok());
  }
  EXPECT_NEAR(first, std::log(11.0), 0.2);
  EXPECT_LT(last, 0.6 * first);
}

} // namespace
