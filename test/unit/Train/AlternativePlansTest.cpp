//===- AlternativePlansTest.cpp - A step's alternatives as plan IR --------===//
//
// The planning passes hand plx-predict-train their plans through the IR
// (passes/Train/AlternativePlans.h), so a plan read back must be the plan
// written: every field the judge and the report use. Then the two planning
// stages themselves on the placed 4-rank job of train-4.plx: what
// plx-plan-strategy writes is what planJobStrategy plans, in its order,
// and plx-plan-baselines writes the standard baselines. Last, the report
// read back from the prediction attribute is the report.
//
//===----------------------------------------------------------------------===//
#include "passes/Train/AlternativePlans.h"
#include "passes/Train/TrainJob.h"
#include "passes/Train/TrainPipeline.h"

#include "Train4Fixture.h"

#include "passes/Simulate/FabricCommTime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::train;
using fixtures::kTrain4Lengths;
using fixtures::train4Spec;

namespace {

class AlternativePlans : public fixtures::Train4Job {
protected:
  /// Writes `plan` as alternative `k` of step 0, checks the module still
  /// verifies, and reads it back.
  baselines::NamedPlan roundTrip(const baselines::NamedPlan &plan,
                                 plan::Role role = plan::Role::baseline,
                                 size_t k = 0) {
    mlir::OpBuilder builder(&context);
    builder.setInsertionPointToEnd(module->getBody());
    mlir::Operation *op = buildAlternative(builder, builder.getUnknownLoc(),
                                           "job", 0, role, k, plan, setup);
    EXPECT_TRUE(op);
    EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
    return op ? namedPlanOf(op, setup) : baselines::NamedPlan{};
  }

  /// The remat table, or empty when it recomputes nothing.
  static std::vector<std::vector<int64_t>>
  nonZero(const std::vector<std::vector<int64_t>> &remat) {
    for (const std::vector<int64_t> &row : remat)
      for (int64_t n : row)
        if (n != 0)
          return remat;
    return {};
  }

  /// Every field a judge or a report reads.
  static void expectSame(const baselines::NamedPlan &a,
                         const baselines::NamedPlan &b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.error, b.error);
    EXPECT_TRUE(a.layout == b.layout);
    EXPECT_EQ(a.model.zero, b.model.zero);
    EXPECT_EQ(a.model.checkpointing, b.model.checkpointing);
    EXPECT_EQ(a.checkpointLabel, b.checkpointLabel);
    EXPECT_EQ(a.checkpointName(), b.checkpointName());
    EXPECT_EQ(a.solverSeconds, b.solverSeconds);
    EXPECT_EQ(a.note, b.note);
    ASSERT_EQ(a.plan.has_value(), b.plan.has_value());
    ASSERT_EQ(a.pipelined.has_value(), b.pipelined.has_value());
    if (!a.ok())
      return;
    EXPECT_EQ(a.seconds(), b.seconds()); // the same double
    if (a.plan) {
      const step::StepPlan &x = *a.plan, &y = *b.plan;
      EXPECT_EQ(x.strategy, y.strategy);
      EXPECT_EQ(x.world, y.world);
      EXPECT_EQ(x.lengths, y.lengths);
      EXPECT_EQ(x.peakMemBytes, y.peakMemBytes);
      ASSERT_EQ(x.microBatches.size(), y.microBatches.size());
      for (size_t m = 0; m < x.microBatches.size(); ++m) {
        const auto &gx = x.microBatches[m].groups,
                   &gy = y.microBatches[m].groups;
        EXPECT_EQ(x.microBatches[m].seconds, y.microBatches[m].seconds);
        ASSERT_EQ(gx.size(), gy.size());
        for (size_t g = 0; g < gx.size(); ++g) {
          EXPECT_TRUE(gx[g].layout == gy[g].layout);
          EXPECT_EQ(gx[g].firstRank, gy[g].firstRank);
          EXPECT_EQ(gx[g].seqs, gy[g].seqs);
          EXPECT_EQ(gx[g].seconds, gy[g].seconds);
          EXPECT_EQ(gx[g].memBytes, gy[g].memBytes);
        }
      }
    } else {
      const step::PipelinedStepPlan &x = *a.pipelined, &y = *b.pipelined;
      EXPECT_EQ(x.strategy, y.strategy);
      EXPECT_EQ(x.stages, y.stages);
      EXPECT_EQ(x.spDegree, y.spDegree);
      EXPECT_EQ(x.lengths, y.lengths);
      EXPECT_EQ(x.world, y.world);
      EXPECT_EQ(x.peakMemBytes, y.peakMemBytes);
      EXPECT_EQ(x.bubbleRatio, y.bubbleRatio);
      ASSERT_EQ(x.pipelines.size(), y.pipelines.size());
      for (size_t p = 0; p < x.pipelines.size(); ++p) {
        EXPECT_EQ(x.pipelines[p].chunks.size(), y.pipelines[p].chunks.size());
        EXPECT_EQ(x.pipelines[p].backward, y.pipelines[p].backward);
        EXPECT_EQ(x.pipelines[p].seconds, y.pipelines[p].seconds);
        EXPECT_EQ(x.pipelines[p].nSplit, y.pipelines[p].nSplit);
        EXPECT_EQ(x.pipelines[p].bubbleRatio, y.pipelines[p].bubbleRatio);
        // A table of zeros reads back empty (both: nothing recomputed).
        EXPECT_EQ(nonZero(x.pipelines[p].remat), nonZero(y.pipelines[p].remat));
        for (size_t c = 0; c < x.pipelines[p].chunks.size() &&
                           c < y.pipelines[p].chunks.size();
             ++c) {
          EXPECT_EQ(x.pipelines[p].chunks[c].kind,
                    y.pipelines[p].chunks[c].kind);
          EXPECT_EQ(x.pipelines[p].chunks[c].slices,
                    y.pipelines[p].chunks[c].slices);
          EXPECT_EQ(x.pipelines[p].chunks[c].seconds,
                    y.pipelines[p].chunks[c].seconds);
          EXPECT_EQ(x.pipelines[p].chunks[c].memBytes,
                    y.pipelines[p].chunks[c].memBytes);
        }
      }
    }
  }

};

} // namespace

// The standard baselines: Ulysses degrees with the job's ZeRO-3, Megatron
// and 1F1B layouts with ZeRO-1 (written as `zero 1`, the job's is 3).
TEST_F(AlternativePlans, StandardBaselinesReadBackAsPlanned) {
  load("sp_degree = 2");
  std::vector<baselines::NamedPlan> plans =
      baselines::standardBaselines(setup, kTrain4Lengths, comm);
  ASSERT_FALSE(plans.empty());
  bool zeroOne = false;
  for (size_t k = 0; k < plans.size(); ++k) {
    SCOPED_TRACE(plans[k].name);
    zeroOne = zeroOne || plans[k].model.zero == 1;
    expectSame(plans[k], roundTrip(plans[k], plan::Role::baseline, k));
  }
  EXPECT_TRUE(zeroOne);
}

// A fully checkpointed plan, a note and a solver time (FlexSP's fields)
// and an error (a plan.unplanned) survive too.
TEST_F(AlternativePlans, CheckpointingNoteSolverTimeAndErrorsReadBack) {
  load("sp = adaptive, sp_degree = 0");
  baselines::TrainSetup full = setup;
  full.model.checkpointing = cost::Checkpointing::Full;
  baselines::NamedPlan p =
      baselines::planStaticLayout(full, kTrain4Lengths, {4, 1, 1, 1}, comm);
  ASSERT_TRUE(p.ok()) << p.error;
  p.note = "flexsp cannot plan the batch (why), so the static layouts were "
           "searched";
  p.solverSeconds = 0.125;
  baselines::NamedPlan back = roundTrip(p, plan::Role::candidate);
  expectSame(p, back);
  EXPECT_EQ(back.model.checkpointing, cost::Checkpointing::Full);

  baselines::NamedPlan failed;
  failed.name = "megatron-tp4-cp1";
  failed.error = "tp 4 does not divide the 2 KV heads";
  failed.model = setup.model;
  baselines::NamedPlan failedBack = roundTrip(failed, plan::Role::baseline, 1);
  expectSame(failed, failedBack);
  EXPECT_FALSE(failedBack.ok());
}

// DPP's steps of pipelines: ZeRO-3 inside each stage and the checkpointing
// label the reports show.
TEST_F(AlternativePlans, PipelinedPlansReadBack) {
  load("sp_degree = 2, pp = dynamic, pp_degree = 0, zero = 1");
  baselines::NamedPlan p =
      planJobDynamicPp(setup, kTrain4Lengths, train, comm);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_TRUE(p.pipelined);
  EXPECT_EQ(p.model.zero, 3); // not the job's 1: written as `zero 3`
  expectSame(p, roundTrip(p, plan::Role::candidate));
}

// The alternatives of a step come back by step and role in the order they
// were written, and each role is erased on its own.
TEST_F(AlternativePlans, GroupedByStepAndRoleInOrder) {
  load("sp_degree = 2");
  mlir::OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());
  baselines::NamedPlan a =
      baselines::planStaticLayout(setup, kTrain4Lengths, {2, 1, 1, 1}, comm);
  baselines::NamedPlan b =
      baselines::planStaticLayout(setup, kTrain4Lengths, {4, 1, 1, 1}, comm);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int64_t step : {0, 1}) {
    buildAlternative(builder, builder.getUnknownLoc(), "job", step,
                     plan::Role::baseline, 0, b, setup);
    buildAlternative(builder, builder.getUnknownLoc(), "job", step,
                     plan::Role::candidate, 0, a, setup);
    buildAlternative(builder, builder.getUnknownLoc(), "job", step,
                     plan::Role::baseline, 1, a, setup);
  }
  std::map<int64_t, StepAlternatives> alts = alternativesOf(*module, "job");
  ASSERT_EQ(alts.size(), 2u);
  for (auto &[step, s] : alts) {
    ASSERT_EQ(s.candidates.size(), 1u);
    ASSERT_EQ(s.baselines.size(), 2u);
    EXPECT_EQ(namedPlanOf(s.baselines[0], setup).name, "static-sp-4");
    EXPECT_EQ(namedPlanOf(s.baselines[1], setup).name, "static-sp-2");
  }
  EXPECT_TRUE(alternativesOf(*module, "other").empty());
  eraseAlternatives(*module, "job", plan::Role::baseline);
  alts = alternativesOf(*module, "job");
  ASSERT_EQ(alts.size(), 2u);
  EXPECT_TRUE(alts[0].baselines.empty());
  EXPECT_EQ(alts[0].candidates.size(), 1u);
  eraseAlternatives(*module, "job");
  EXPECT_TRUE(alternativesOf(*module, "job").empty());
}

namespace {
/// The isolated communication times the planning passes cost with on the
/// placed job.
struct Fabric {
  PlacedJob placed;
  prog::CommTimeFn comm;
};
std::unique_ptr<Fabric> fabricOf(mlir::ModuleOp module) {
  auto job = module.lookupSymbol<plan::JobOp>("job_job");
  if (!job)
    return nullptr;
  mlir::FailureOr<PlacedJob> placed = placedJob(job);
  if (mlir::failed(placed))
    return nullptr;
  auto f = std::make_unique<Fabric>();
  f->placed = std::move(*placed);
  sim::FabricCommOptions isolated;
  isolated.contention = false;
  f->comm = sim::fabricCommTime(*f->placed.graph, f->placed.chips,
                                f->placed.params, isolated);
  return f;
}
} // namespace

// plx-plan-strategy is planJobStrategy over the steps: the planner's plan,
// then its finalists, as candidates 0, 1, ... (here SP left open: the
// three Ulysses degrees, fastest estimate first).
TEST_F(AlternativePlans, PlanStrategyWritesPlanJobStrategysPlans) {
  load("sp = best_homogeneous, sp_degree = 0", /*placed=*/true);
  std::unique_ptr<Fabric> fabric = fabricOf(*module);
  ASSERT_TRUE(fabric);
  std::vector<baselines::NamedPlan> finalists;
  baselines::NamedPlan mine = planJobStrategy(setup, kTrain4Lengths, train,
                                              fabric->comm, true, &finalists);
  ASSERT_TRUE(mine.ok()) << mine.error;
  ASSERT_EQ(finalists.size(), 2u);

  ASSERT_TRUE(mlir::succeeded(planStrategyAlternatives(*module, {})));
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));
  std::map<int64_t, StepAlternatives> alts = alternativesOf(*module, "job");
  ASSERT_EQ(alts.size(), 1u);
  const StepAlternatives &s = alts[0];
  EXPECT_TRUE(s.baselines.empty());
  ASSERT_EQ(s.candidates.size(), 3u);
  expectSame(mine, namedPlanOf(s.candidates[0], setup));
  expectSame(finalists[0], namedPlanOf(s.candidates[1], setup));
  expectSame(finalists[1], namedPlanOf(s.candidates[2], setup));

  // Planned again, the candidates are replaced, not added to.
  ASSERT_TRUE(mlir::succeeded(planStrategyAlternatives(*module, {})));
  EXPECT_EQ(alternativesOf(*module, "job")[0].candidates.size(), 3u);

  // Above the rank guard nothing is planned.
  eraseAlternatives(*module, "job");
  PlanningOptions guarded;
  guarded.maxSimulatedRanks = 2;
  ASSERT_TRUE(mlir::succeeded(planStrategyAlternatives(*module, guarded)));
  EXPECT_TRUE(alternativesOf(*module, "job").empty());
}

// plx-plan-baselines writes standardBaselines, in order, and no candidate.
TEST_F(AlternativePlans, PlanBaselinesWritesTheStandardBaselines) {
  load("sp_degree = 2", /*placed=*/true);
  std::unique_ptr<Fabric> fabric = fabricOf(*module);
  ASSERT_TRUE(fabric);
  std::vector<baselines::NamedPlan> want =
      baselines::standardBaselines(setup, kTrain4Lengths, fabric->comm);
  ASSERT_TRUE(mlir::succeeded(planBaselineAlternatives(*module, {})));
  std::map<int64_t, StepAlternatives> alts = alternativesOf(*module, "job");
  ASSERT_EQ(alts.size(), 1u);
  EXPECT_TRUE(alts[0].candidates.empty());
  ASSERT_EQ(alts[0].baselines.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(want[k].name);
    expectSame(want[k], namedPlanOf(alts[0].baselines[k], setup));
  }
}

namespace {
/// A prediction with every field the report has: a pipelined plan, a note,
/// baselines in a non-alphabetical order (one infeasible, one excluded and
/// faster).
TrainPrediction fullPrediction() {
  TrainPrediction p;
  p.job = "job";
  p.steps = 2;
  p.lengths = {4096, 512};
  step::PipelinedStepPlan pipe;
  pipe.stages = 2;
  pipe.spDegree = 2;
  pipe.bubbleRatio = 0.25;
  step::PlannedPipeline line;
  step::PlannedChunk chunk;
  chunk.kind = "hybrid";
  chunk.slices = {{0, 2048, 4096}, {1, 0, 512}};
  chunk.seconds = 0.5;
  line.chunks = {chunk};
  line.backward = {0};
  line.remat = {{1}, {0}};
  line.seconds = 1.5;
  line.bubbleRatio = 0.25;
  pipe.pipelines = {line};
  p.pipelined = pipe;
  p.solverSeconds = 0.01;
  p.note = "dpp predicts 2 s; best-static:pp2 predicts 1.9 s";
  p.primary.name = "dpp";
  p.primary.layout = {2, 1, 1, 2};
  p.primary.zero = 3;
  p.primary.checkpoint = "adaptive";
  p.primary.microBatches = 1;
  p.primary.pipelines = 1;
  p.primary.plannedSeconds = 1.75;
  p.primary.surrogateSeconds = 1.5;
  p.primary.predictedSeconds = 2.0;
  p.primary.simulated = true;
  p.primary.mfu = 0.375;
  p.primary.peakMemoryBytes = {10, 30, 20, 5};
  p.primary.computeSeconds = 1.25;
  p.primary.commSeconds = 0.5;
  p.primary.bubbleSeconds = 0.25;
  p.primary.recomputeSeconds = 0.125;
  p.chipBytes = 100;
  p.reserveBytes = 10;
  p.usableBytes = 90;
  p.boundSeconds = 1.0;
  p.boundComputeSeconds = 0.75;
  p.boundGradientSeconds = 0.25;
  PlanOutcome z = p.primary;
  z.name = "zeta-baseline";
  z.admitted = true;
  z.mfu.reset();
  PlanOutcome a;
  a.name = "alpha-baseline";
  a.error = "does not fit";
  PlanOutcome m = p.primary;
  m.name = "megatron-tp2-cp1";
  m.pipelines = 0;
  m.microBatches = 3;
  m.predictedSeconds = 1.0;
  m.excludedBy = "tp 2 (the strategy fixes tp = 1)";
  p.baselines = {z, a, m};
  p.fasterBaselines = {{"megatron-tp2-cp1", 2.0, m.excludedBy}};
  return p;
}
} // namespace

// plxc renders the attribute plx-predict-train attaches: the same report,
// key for key in the same order (baselines too), byte for byte.
TEST_F(AlternativePlans, ReportFromTheAttributeIsTheReport) {
  TrainPrediction p = fullPrediction();
  EXPECT_EQ(predictionReport(predictionAttr(&context, p)).dump(2),
            predictionJson(p).dump(2));
  // A static plan (its groups), a job that failed and one not planned.
  TrainPrediction s = fullPrediction();
  s.pipelined.reset();
  step::PlannedGroup g;
  g.layout = {2, 1, 1, 1};
  g.seqs = {1, 0};
  s.plan.microBatches = {{{g}, 0.5}};
  s.primary.name = "flexsp";
  EXPECT_EQ(predictionReport(predictionAttr(&context, s)).dump(2),
            predictionJson(s).dump(2));
  TrainPrediction failed;
  failed.error = "train job 'job': cannot plan step 0";
  EXPECT_EQ(predictionReport(predictionAttr(&context, failed)).dump(),
            predictionJson(failed).dump());
  TrainPrediction big;
  big.notSimulated = "8192 ranks is more than plxc plans and simulates";
  EXPECT_EQ(predictionReport(predictionAttr(&context, big)).dump(),
            predictionJson(big).dump());
}
