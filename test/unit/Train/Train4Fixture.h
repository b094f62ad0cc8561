//===- Train4Fixture.h - The 4-rank job of train-4.plx as a gtest fixture -===//
#ifndef PLEXUS_TEST_UNIT_TRAIN_TRAIN4FIXTURE_H
#define PLEXUS_TEST_UNIT_TRAIN_TRAIN4FIXTURE_H

#include "TrainFixtures.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Train/TrainJob.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

namespace plexus::train::fixtures {

/// The spec of train4Spec(strategy) parsed, its job and setup read, and
/// ring collectives at 10 GB/s for the planners.
class Train4Job : public ::testing::Test {
protected:
  Train4Job() { context.loadDialect<plx::PlxDialect, plan::PlanDialect>(); }

  /// Parses the spec with `strategy` (`placed`: with its plan.job); sets
  /// `train` and `setup`.
  void load(const std::string &strategy, bool placed = false) {
    module = mlir::parseSourceString<mlir::ModuleOp>(
        train4Spec(strategy, placed), &context);
    ASSERT_TRUE(module);
    module->walk([&](plx::TrainOp op) { train = op; });
    ASSERT_TRUE(train);
    mlir::FailureOr<TrainOps> ops = trainOps(train);
    ASSERT_TRUE(mlir::succeeded(ops));
    setup = trainSetupOf(*ops);
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  plx::TrainOp train;
  baselines::TrainSetup setup;
  prog::CommTimeFn comm = bytesOverRanks(1e-10); // 10 GB/s
};

} // namespace plexus::train::fixtures

#endif // PLEXUS_TEST_UNIT_TRAIN_TRAIN4FIXTURE_H
