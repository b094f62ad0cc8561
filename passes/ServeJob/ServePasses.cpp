//===- ServePasses.cpp - plx-serve-pipeline -------------------------------===//
//
// A thin adapter: read each plx.serve into passes/Serving's plain values
// (ServePipeline.h), plan it with serving::planServing, and write the plan
// back as a plan.serve_layout and a plan.serve_policy.
//
//===----------------------------------------------------------------------===//
#include "passes/ServeJob/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/ServeJob/ServePipeline.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace plexus::servejob {
#define GEN_PASS_DEF_SERVEPIPELINEPASS
#include "passes/ServeJob/Passes.h.inc"
} // namespace plexus::servejob

using namespace mlir;
using namespace plexus;

namespace {

/// Plans `serve` and appends its layout and policy ops at `builder`'s
/// insertion point. `interval` > 0 replaces the strategy's wave interval.
/// Errors are emitted on the job.
LogicalResult planServeJob(OpBuilder &builder, ModuleOp module,
                           plx::ServeOp serve, int64_t interval) {
  const std::string job = serve.getSymName().str();
  const std::string layoutName = job + "_layout";
  const std::string policyName = job + "_policy";
  for (const std::string &name : {layoutName, policyName})
    if (SymbolTable::lookupSymbolIn(module, name))
      return serve.emitOpError("cannot add its plan: the module already "
                               "declares @")
             << name;

  FailureOr<servejob::ServeJobOps> ops = servejob::serveJobOps(module, serve);
  if (failed(ops))
    return failure();
  FailureOr<serving::AgentWorkload> workload =
      servejob::workloadOf(ops->workload, serve.getSeed());
  if (failed(workload))
    return failure();
  const serving::ServingModel model =
      servejob::servingModelOf(serve, ops->model, ops->fabric);
  serving::ServingPlanRequest request =
      servejob::planRequestOf(serve, ops->fabric);
  if (interval > 0)
    request.waveInterval = interval;

  serving::Result<serving::ServingPlan> plan =
      serving::planServing(*workload, model, request);
  if (!plan)
    return serve.emitOpError("cannot plan the serve job: ") << plan.error;

  const serving::ServingLayout &layout = plan->layout;
  const Location loc = serve.getLoc();
  auto layoutOp = builder.create<plan::ServeLayoutOp>(
      loc, layoutName, job, request.chips, plan->system.serving.instances,
      layout.pp, layout.ep, layout.dpAttention,
      serving::stageLayerCounts(model.shape, layout), layout.mtpDrafts);
  const serving::ServingMetrics &jct = plan->predicted.metrics;
  builder.create<plan::ServePolicyOp>(
      loc, policyName, layoutOp.getSymName(), plan->waveInterval,
      /*interval_chosen=*/request.waveInterval == 0, jct.overallJct,
      jct.meanTurnJct, jct.p50TurnJct, jct.p90TurnJct, jct.p99TurnJct);
  return success();
}

struct ServePipelinePass
    : servejob::impl::ServePipelinePassBase<ServePipelinePass> {
  using ServePipelinePassBase::ServePipelinePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const int64_t waveInterval = interval;
    if (waveInterval < 0) {
      module.emitError("plx-serve-pipeline: interval must be at least 1, or "
                       "0 to keep the strategy's, got ")
          << waveInterval;
      return signalPassFailure();
    }
    OpBuilder builder(module.getContext());
    builder.setInsertionPointToEnd(module.getBody());
    for (auto serve : llvm::to_vector(module.getOps<plx::ServeOp>()))
      if (failed(planServeJob(builder, module, serve, waveInterval)))
        return signalPassFailure();
  }
};

} // namespace
