//===- TrainPipeline.h - Plan, lower and simulate each train job -*- C++
//-*-===//
//
// What `plxc spec.plx` does for every plx.train of an instantiated and
// placed module: draw each step's batch, plan it with the job's strategy
// and with every standard baseline (passes/Baselines/StepPlanners.h), lower
// each plan to per-rank programs (passes/Lower/StepLowering.h) and run them
// through the event simulator with the fabric's collective models on the
// job's placed chips. The predictions feed the report; the primary plan of
// each job's step 0 is added to the module as a plan.step.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H
#define PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H

#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Baselines/StepPlanners.h"

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace plexus::train {

struct PipelineOptions {
  /// Write a Chrome trace of the first train job's primary plan (step 0).
  std::string tracePath;
  /// Jobs with more ranks are neither planned nor simulated (the report
  /// says why): planning costs every group's collectives on the fabric.
  int64_t maxSimulatedRanks = 4096;
  /// Called with a line of progress once planning has run for a second.
  std::function<void(const std::string &)> progress;
};

/// One plan's outcome over the predicted steps.
struct PlanOutcome {
  std::string name;
  std::string error; ///< why the layout cannot run (then nothing else is set)
  lower::GroupLayout layout;
  int64_t zero = 0;
  int64_t microBatches = 0;    ///< of step 0
  double plannedSeconds = 0;   ///< the planner's estimate, mean per step
  double predictedSeconds = 0; ///< simulated, mean per step
  bool simulated = false;
  std::optional<double> mfu;            ///< over the predicted steps
  std::vector<int64_t> peakMemoryBytes; ///< per rank, max over steps
  double computeSeconds = 0;            ///< per rank, mean over ranks and steps
  double commSeconds = 0;
  double bubbleSeconds = 0;
  bool ok() const { return error.empty(); }
};

struct TrainPrediction {
  std::string job;
  int64_t steps = 0;
  std::vector<int64_t> lengths; ///< step 0's sequence lengths
  lower::StepPlan plan;         ///< the job's own plan of step 0
  double solverSeconds = 0;     ///< wall time of the planner, all steps
  PlanOutcome primary;
  std::vector<PlanOutcome> baselines;
  std::string notSimulated; ///< why the job was not planned, if so
};

/// The plan of a job's own strategy for one batch: its static layout; with
/// `sp = adaptive` alone (no tp, cp, pp, micro_batch), FlexSP's adaptive SP
/// groups (passes/Train/FlexSpModel.h), named "flexsp" (when FlexSP cannot
/// plan, the search below, its message saying why); or, where the strategy
/// leaves a choice to a planner (`sp = adaptive` or
/// `best_homogeneous`, `pp = dynamic`, `checkpoint = adaptive`), the
/// fastest static layout over those choices (Ulysses degrees, pipeline
/// depths with ZeRO <= 2, selective or full checkpointing), named
/// "best-homogeneous-sp" when only SP was open (FlexSP's BatchAda) and
/// "best-static:<layout name>" otherwise.
baselines::NamedPlan planJobStrategy(const baselines::TrainSetup &setup,
                                     const std::vector<int64_t> &lengths,
                                     plx::TrainOp train,
                                     const sim::CommTimeFn &comm,
                                     bool allowFlexSp = true);

/// Layers per compute op for lowering `plan`: 1, unless the programs would
/// hold more than `opBudget` ops in all (about 8 per layer, micro-batch and
/// rank), then as many as bring them under it (at most a stage's layers).
/// Coarser ops sum compute and bytes; what changes is per-op latency and,
/// under ZeRO-3, how finely prefetching overlaps compute and how large the
/// gathered buffers are.
int64_t layersPerOpFor(const lower::StepPlan &plan,
                       const lower::TrainModel &model,
                       int64_t opBudget = 4'000'000);

/// Lowers and simulates one planned step on `comm`'s fabric.
struct StepSimulation {
  std::string error;
  double seconds = 0;
  std::optional<double> mfu;
  double flops = 0; ///< of every rank's compute ops
  sim::SimResult result;
};
StepSimulation simulateStep(const baselines::NamedPlan &plan,
                            const sim::CommTimeFn &comm);

/// Runs the pipeline on every plx.train of `module` (after plx-instantiate
/// and plx-place). A primary plan that cannot run is an error emitted on
/// the job; baselines that cannot run are reported, not errors.
mlir::FailureOr<std::vector<TrainPrediction>>
predictTrainJobs(mlir::ModuleOp module, const PipelineOptions &options);

/// The report fields of one prediction: "plan", "predicted_step_time_s",
/// "planned_step_time_s", "mfu", "peak_memory_bytes", "time_split",
/// "baselines".
nlohmann::ordered_json predictionJson(const TrainPrediction &p);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H
