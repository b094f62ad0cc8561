//===- PipelineStepIRTest.cpp - DPP steps to plan.pipeline IR and back ----===//
#include "passes/Train/PipelineStepIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

using namespace plexus;
using namespace plexus::train;

namespace {

/// The plan of the plan.pipeline example: four sequences on 4 stages of
/// 8-way SP, sequence 3 cut into three slices, two stages recomputing.
step::PipelinedStepPlan examplePlan() {
  step::PipelinedStepPlan plan;
  plan.strategy = "dpp";
  plan.world = 32;
  plan.spDegree = 8;
  plan.stages = 4;
  plan.lengths = {70000, 3000, 500, 90000};
  plan.seconds = 61.2;
  plan.peakMemBytes = 79'000'000'000;
  plan.bubbleRatio = 0.12;
  step::PlannedPipeline p;
  p.chunks = {
      {"split", {{3, 0, 40000}}, 0.91, 1000},
      {"split", {{3, 40000, 60000}}, 0.9, 1000},
      {"hybrid", {{3, 60000, 90000}, {1, 0, 3000}}, 0.9, 1000},
      {"packed", {{0, 0, 70000}, {2, 0, 500}}, 0.8, 1000},
  };
  p.backward = {2, 1, 0, 3};
  p.nSplit = 3;
  p.remat = {{3, 3, 2, 0}, {2, 2, 1, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  p.seconds = 40.1;
  p.bubbleRatio = 0.12;
  plan.pipelines.push_back(p);
  // A second pipeline of one packed chunk, no recompute anywhere.
  step::PlannedPipeline q;
  q.chunks = {{"packed", {{4, 0, 100}}, 0.2, 10}};
  q.backward = {0};
  q.seconds = 1.5;
  plan.lengths.push_back(100);
  plan.pipelines.push_back(q);
  return plan;
}

void expectSamePlan(const step::PipelinedStepPlan &a,
                    const step::PipelinedStepPlan &b) {
  EXPECT_EQ(a.strategy, b.strategy);
  EXPECT_EQ(a.world, b.world);
  EXPECT_EQ(a.spDegree, b.spDegree);
  EXPECT_EQ(a.stages, b.stages);
  EXPECT_EQ(a.lengths, b.lengths);
  EXPECT_EQ(a.seconds, b.seconds);
  EXPECT_EQ(a.peakMemBytes, b.peakMemBytes);
  EXPECT_EQ(a.bubbleRatio, b.bubbleRatio);
  ASSERT_EQ(a.pipelines.size(), b.pipelines.size());
  for (size_t i = 0; i < a.pipelines.size(); ++i) {
    const step::PlannedPipeline &p = a.pipelines[i], &q = b.pipelines[i];
    EXPECT_EQ(p.backward, q.backward) << "pipeline " << i;
    EXPECT_EQ(p.nSplit, q.nSplit) << "pipeline " << i;
    EXPECT_EQ(p.remat, q.remat) << "pipeline " << i;
    EXPECT_EQ(p.seconds, q.seconds) << "pipeline " << i;
    EXPECT_EQ(p.bubbleRatio, q.bubbleRatio) << "pipeline " << i;
    ASSERT_EQ(p.chunks.size(), q.chunks.size()) << "pipeline " << i;
    for (size_t k = 0; k < p.chunks.size(); ++k) {
      EXPECT_EQ(p.chunks[k].kind, q.chunks[k].kind) << i << "/" << k;
      EXPECT_EQ(p.chunks[k].slices, q.chunks[k].slices) << i << "/" << k;
      EXPECT_EQ(p.chunks[k].seconds, q.chunks[k].seconds) << i << "/" << k;
      EXPECT_EQ(p.chunks[k].memBytes, q.chunks[k].memBytes) << i << "/" << k;
    }
  }
}

class PipelineStepIRTest : public ::testing::Test {
protected:
  PipelineStepIRTest() : builder(&context) {
    context.loadDialect<plan::PlanDialect>();
    module = mlir::ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }
  plan::StepOp build(const step::PipelinedStepPlan &plan) {
    return buildPipelinedStepOp(builder, builder.getUnknownLoc(), "dpp_step0",
                                0, "dpp", plan);
  }
  mlir::MLIRContext context;
  mlir::OpBuilder builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(PipelineStepIRTest, BuildThenReadGivesThePlanBack) {
  step::PipelinedStepPlan plan = examplePlan();
  plan::StepOp step = build(plan);
  ASSERT_TRUE(step);
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));
  EXPECT_TRUE(isPipelinedStep(step));
  EXPECT_EQ(step.getJob().value_or("").str(), "dpp");
  EXPECT_EQ(step.getIndex(), 0);
  // Only the two stages that recompute get a plan.remat.
  auto pipeline = *step.getBody()->getOps<plan::PipelineOp>().begin();
  EXPECT_EQ(llvm::range_size(pipeline.getBody()->getOps<plan::RematOp>()), 2u);
  expectSamePlan(pipelinedStepPlanOf(step), plan);
}

TEST_F(PipelineStepIRTest, PrintedStepParsesBackToThePlan) {
  step::PipelinedStepPlan plan = examplePlan();
  ASSERT_TRUE(build(plan));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000]"),
            std::string::npos)
      << text;

  mlir::MLIRContext other;
  other.loadDialect<plan::PlanDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> parsed =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&other));
  ASSERT_TRUE(parsed);
  auto steps = parsed->getBody()->getOps<plan::StepOp>();
  ASSERT_FALSE(steps.empty());
  expectSamePlan(pipelinedStepPlanOf(*steps.begin()), plan);
}

TEST_F(PipelineStepIRTest, SetPipelineRematReplacesTheTable) {
  plan::StepOp step = build(examplePlan());
  ASSERT_TRUE(step);
  auto pipeline = *step.getBody()->getOps<plan::PipelineOp>().begin();

  std::vector<std::vector<int64_t>> table = {
      {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 4}};
  setPipelineRemat(builder, pipeline, table);
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));
  EXPECT_EQ(rematTableOf(pipeline), table);
  // Remat ops stay after the chunks.
  EXPECT_TRUE(mlir::isa<plan::RematOp>(pipeline.getBody()->back()));
  EXPECT_TRUE(
      mlir::isa<plan::ChunkOp>(*std::prev(pipeline.getBody()->end(), 3)));

  // An all-zero table and the empty table both clear the ops.
  setPipelineRemat(builder, pipeline,
                   std::vector<std::vector<int64_t>>(4, {0, 0, 0, 0}));
  EXPECT_TRUE(rematTableOf(pipeline).empty());
  setPipelineRemat(builder, pipeline, table);
  setPipelineRemat(builder, pipeline, {});
  EXPECT_TRUE(pipeline.getBody()->getOps<plan::RematOp>().empty());
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
}

TEST_F(PipelineStepIRTest, MicrobatchStepsAreNotPipelined) {
  auto step =
      builder.create<plan::StepOp>(builder.getUnknownLoc(), "mb", 0, 1, 1.0, 0);
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(step.getBody());
  builder.create<plan::MicrobatchOp>(builder.getUnknownLoc(), 0, 1.0);
  EXPECT_FALSE(isPipelinedStep(step));
}

TEST_F(PipelineStepIRTest, AnUnknownChunkKindBuildsNothing) {
  step::PipelinedStepPlan plan = examplePlan();
  plan.pipelines[0].chunks[1].kind = "sliced";
  std::string message;
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  EXPECT_FALSE(build(plan));
  EXPECT_EQ(message, "chunk kind 'sliced' is not packed, split or hybrid");
  EXPECT_TRUE(module->getBody()->empty());
}

} // namespace
