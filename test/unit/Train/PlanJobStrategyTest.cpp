//===- PlanJobStrategyTest.cpp - Which planner a job's strategy gets ------===//
//
// planJobStrategy (passes/Train/TrainPipeline.h) on the 4-rank job of
// test/Passes/Inputs/train-4.plx with each kind of strategy: a fixed
// layout, SP left open (the static search, FlexSP's BatchAda), sp =
// adaptive (FlexSP, with the search's plans as finalists), pp = dynamic
// (DPP), and what the search returns against the layouts it covers.
//
//===----------------------------------------------------------------------===//
#include "passes/Train/TrainJob.h"
#include "passes/Train/TrainPipeline.h"

#include "Train4Fixture.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

using namespace plexus;
using namespace plexus::train;

namespace {

using fixtures::kTrain4Lengths;
using fixtures::train4Spec;

class PlanJobStrategy : public fixtures::Train4Job {
protected:
  baselines::NamedPlan plan(std::vector<baselines::NamedPlan> *finalists,
                            bool allowPlanners = true) {
    return planJobStrategy(setup, kTrain4Lengths, train, comm, allowPlanners,
                           finalists);
  }

  /// The static plan of Ulysses degree `d` (no TP, CP or pipeline).
  baselines::NamedPlan staticSp(int64_t d) {
    return baselines::planStaticLayout(setup, kTrain4Lengths, {d, 1, 1, 1}, comm);
  }

};

} // namespace

// Everything fixed: the strategy's own layout, named for it, no search.
TEST_F(PlanJobStrategy, AFixedStrategyIsItsOwnLayout) {
  load("sp_degree = 2");
  std::vector<baselines::NamedPlan> finalists;
  baselines::NamedPlan p = plan(&finalists);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.name, "static-sp-2");
  EXPECT_EQ(p.layout.ulysses, 2);
  EXPECT_TRUE(finalists.empty());
  EXPECT_DOUBLE_EQ(p.seconds(), staticSp(2).seconds());
}

// SP open: the search covers Ulysses 1, 2 and 4 (the powers of two that
// divide the 4 heads and fit 4 ranks) and returns the fastest estimate,
// named as FlexSP's BatchAda; the other two are its finalists, fastest
// first.
TEST_F(PlanJobStrategy, SpLeftOpenIsTheFastestHomogeneousDegree) {
  load("sp = best_homogeneous, sp_degree = 0");
  std::vector<baselines::NamedPlan> finalists;
  baselines::NamedPlan p = plan(&finalists);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.name.rfind("best-homogeneous-sp:static-sp-", 0), 0u) << p.name;
  double fastest = 1e300;
  for (int64_t d : {1, 2, 4}) {
    baselines::NamedPlan s = staticSp(d);
    ASSERT_TRUE(s.ok()) << s.error;
    fastest = std::min(fastest, s.seconds());
  }
  EXPECT_DOUBLE_EQ(p.seconds(), fastest);
  ASSERT_EQ(finalists.size(), 2u);
  EXPECT_LE(p.seconds(), finalists[0].seconds());
  EXPECT_LE(finalists[0].seconds(), finalists[1].seconds());
  for (const baselines::NamedPlan &f : finalists)
    EXPECT_EQ(f.name.rfind("best-homogeneous-sp:", 0), 0u) << f.name;
}

// sp = adaptive alone is FlexSP's planner; the static search's best plan
// leads its finalists, so the caller can judge both. Without the planners
// (allowPlanners false) the same strategy gets the search alone.
TEST_F(PlanJobStrategy, AdaptiveSpIsFlexSpWithTheSearchAsFinalists) {
  load("sp = adaptive, sp_degree = 0");
  std::vector<baselines::NamedPlan> finalists;
  baselines::NamedPlan p = plan(&finalists);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.name, "flexsp");
  ASSERT_FALSE(finalists.empty());
  EXPECT_LE(finalists.size(), kStaticFinalists + 1);
  baselines::NamedPlan searched = plan(nullptr, /*allowPlanners=*/false);
  ASSERT_TRUE(searched.ok()) << searched.error;
  EXPECT_EQ(finalists.front().name, searched.name);
  EXPECT_DOUBLE_EQ(finalists.front().seconds(), searched.seconds());
}

// pp = dynamic with no TP or CP is dynamic pipeline parallelism: chunks in
// 1F1B pipelines rather than a static step.
TEST_F(PlanJobStrategy, DynamicPpIsDpp) {
  load("sp_degree = 2, pp = dynamic, pp_degree = 0");
  baselines::NamedPlan p = plan(nullptr);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.name, "dpp");
  EXPECT_TRUE(p.pipelined.has_value());
  EXPECT_FALSE(p.plan.has_value());
}
