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
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <string>

namespace plexus::servejob {
#define GEN_PASS_DEF_SERVEPIPELINEPASS
#include "passes/ServeJob/Passes.h.inc"
} // namespace plexus::servejob

using namespace mlir;
using namespace plexus;

namespace {

/// Plans `serve` and appends its layout and policy ops at `builder`'s
/// insertion point (servejob::buildServePlanOps). `interval` > 0 replaces the strategy's wave interval.
/// Errors are emitted on the job.
LogicalResult planServeJob(OpBuilder &builder, ModuleOp module,
                           plx::ServeOp serve, int64_t interval) {
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
  return servejob::buildServePlanOps(builder, module, serve, model, request,
                                     *plan);
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

void plexus::servejob::registerServePipelines() {
  PassPipelineRegistration<>(
      "plx-serve-pipeline-default",
      "plxc's stage for serve jobs: plx-serve-pipeline with the strategy's "
      "wave interval",
      [](OpPassManager &pm) {
        pm.addPass(servejob::createServePipelinePass());
      });
}
