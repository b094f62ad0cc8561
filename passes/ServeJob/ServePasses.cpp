//===- ServePasses.cpp - plx-serve-pipeline -------------------------------===//
//
// A thin adapter: read each plx.serve into passes/Serving's plain values
// (ServePipeline.h), plan it with serving::planServing, and write the plan
// back as a plan.serve_layout and a plan.serve_policy.
//
//===----------------------------------------------------------------------===//
#include "passes/ServeJob/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/Report/ReportAttr.h"
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
    servejob::ServeOptions options;
    options.waveInterval = waveInterval;
    options.baselines = baselines;
    if (progress)
      options.progress = [](const std::string &line) {
        llvm::errs() << line << "\n";
      };
    FailureOr<std::vector<servejob::ServePrediction>> predictions =
        servejob::predictServeJobs(module, options);
    if (failed(predictions))
      return signalPassFailure();
    for (const servejob::ServePrediction &p : *predictions)
      if (auto serve = module.lookupSymbol<plx::ServeOp>(p.job))
        serve->setAttr(report::kPredictionAttrName,
                       servejob::servePredictionAttr(&getContext(), p));
    if (!tracePath.empty() && !predictions->empty())
      if (std::string error =
              servejob::writeServeTrace(predictions->front(), tracePath);
          !error.empty()) {
        module.emitError("plx-serve-pipeline: ") << error;
        return signalPassFailure();
      }
  }
};

} // namespace

void plexus::servejob::buildServePipeline(OpPassManager &pm,
                                          const std::string &tracePath,
                                          bool progress) {
  ServePipelinePassOptions options;
  options.tracePath = tracePath;
  options.progress = progress;
  pm.addPass(createServePipelinePass(options));
}

void plexus::servejob::registerServePipelines() {
  PassPipelineRegistration<>(
      "plx-serve-pipeline-default",
      "plxc's stage for serve jobs: plx-serve-pipeline with the strategy's "
      "wave interval",
      [](OpPassManager &pm) { buildServePipeline(pm); });
}
