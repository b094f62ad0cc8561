//===- ServePipeline.h - Plan and replay each serve job ---------*- C++ -*-===//
//
// What `plxc spec.plx` does for every plx.serve: build its agent workload
// (recorded trajectories, or the seeded generator of its preset), plan the
// PipeSwift-style system for it (layout and layer split as the strategy
// fixes or the planner chooses, the wave interval I for `auto`) with
// passes/Serving, replay the workload on that plan and on each baseline
// system, and return the job completion times for the report. A thin
// adapter: every number comes from passes/Serving.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVEJOB_SERVEPIPELINE_H
#define PLEXUS_PASSES_SERVEJOB_SERVEPIPELINE_H

#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Serving/ServingSystems.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace plexus::servejob {

struct ServeOptions {
  /// Called with a line of progress (planning and replays take seconds).
  std::function<void(const std::string &)> progress;
  /// Decode rounds between prefill waves instead of the strategy's (0:
  /// the strategy's).
  int64_t waveInterval = 0;
  /// Replay the baseline systems beside the plan (plxc does).
  bool baselines = true;
};

/// One system's replay of the workload.
struct SystemOutcome {
  std::string name;
  std::string error; ///< why it could not be built or replayed
  int64_t chips = 0;
  bool completed = true;
  std::string incomplete; ///< why the replay did not finish
  serving::ServingMetrics metrics;
  bool ok() const { return error.empty(); }
};

struct ServePrediction {
  std::string job;
  int64_t chips = 0;
  int64_t instances = 0;
  serving::ServingLayout layout; ///< with its layer split
  bool attentionChosen = false;  ///< `dp_attention = auto`
  bool ppChosen = false;         ///< `pp = auto`
  bool epChosen = false;         ///< `ep = auto`
  /// How DP-attention places turns on ranks (reported under DP-attention).
  serving::DpRouting routing = serving::DpRouting::PinnedByTaskCount;
  int64_t waveInterval = 0;
  bool intervalChosen = false; ///< `auto`: chosen by the planner
  serving::WaveIntervalSweep sweep;
  serving::ReplayResult replay; ///< the plan's replay (turns kept)
  std::vector<SystemOutcome> baselines;
  double plannerSeconds = 0; ///< wall time of planning (not deterministic)
};

/// The workload of a plx.workload; `seed` draws the synthetic ones. Errors
/// are emitted on the workload op (a trajectories file's bad lines with
/// their line numbers).
mlir::FailureOr<serving::AgentWorkload> workloadOf(plx::WorkloadOp op,
                                                   int64_t seed);

/// The model and hardware of a serve job: the model's shape, the fabric's
/// chip, chips per node, intra-node bandwidth and the topology's link
/// bandwidth per chip between nodes; memory_utilization from the strategy.
serving::ServingModel servingModelOf(plx::ServeOp serve, plx::ModelOp model,
                                     plx::FabricOp fabric);

/// The ops a plx.serve names.
struct ServeJobOps {
  plx::ModelOp model;
  plx::WorkloadOp workload;
  plx::FabricOp fabric;
};

/// The model, workload and fabric `serve` names in `module`; an error on
/// the job when one is missing.
mlir::FailureOr<ServeJobOps> serveJobOps(mlir::ModuleOp module,
                                         plx::ServeOp serve);

/// What the job's strategy fixes for serving::planServing: the job's chips
/// on `fabric`, pp, ep, DP-attention, the MTP drafts and the wave interval
/// (0 for `auto`: the planner chooses).
serving::ServingPlanRequest planRequestOf(plx::ServeOp serve,
                                          plx::FabricOp fabric);

/// Appends serve job `serve`'s `plan` (made for `model` and `request`) at
/// `builder`'s insertion point as a plan.serve_layout @<job>_layout and a
/// plan.serve_policy @<job>_policy: the IR form of a serve plan, which the
/// plx-serve-pipeline pass and plxc both write. Errors (emitted on the
/// job): the module already declares either symbol.
mlir::LogicalResult buildServePlanOps(mlir::OpBuilder &builder,
                                      mlir::ModuleOp module,
                                      plx::ServeOp serve,
                                      const serving::ServingModel &model,
                                      const serving::ServingPlanRequest &request,
                                      const serving::ServingPlan &plan);

/// Plans and replays every plx.serve of `module`, and writes each plan
/// into the module (buildServePlanOps, at the end of its body). A plan that cannot be
/// made is an error emitted on the job; baselines that cannot run are
/// reported, not errors.
mlir::FailureOr<std::vector<ServePrediction>>
predictServeJobs(mlir::ModuleOp module, const ServeOptions &options);

/// The report fields of one prediction: "layout" ("pp", "ep",
/// "dp_attention", "instances", "layers_per_stage"), "policy" ("interval",
/// "interval_chosen", "mtp_drafts", "interval_sweep"), "jct" ("overall_s",
/// "turn_mean_s", "turn_p50_s", "turn_p90_s", "turn_p99_s"),
/// "throughput_tokens_per_s", "planner_time_s" and "baselines" (each
/// baseline's "chips" and "jct", or "infeasible").
nlohmann::ordered_json servePredictionJson(const ServePrediction &p);

/// The prediction as the attribute plx-serve-pipeline attaches to the job
/// (`plan.prediction`): servePredictionJson's fields, "baselines" as a list
/// of dictionaries holding their "name" (passes/Report/ReportAttr.h).
mlir::DictionaryAttr servePredictionAttr(mlir::MLIRContext *context,
                                         const ServePrediction &p);

/// The report fields back from the attribute, in servePredictionJson's
/// order: servePredictionReport(servePredictionAttr(p)) ==
/// servePredictionJson(p).
nlohmann::ordered_json servePredictionReport(mlir::DictionaryAttr prediction);

/// Writes the replay as a Chrome trace: one process per instance, each
/// turn a span from its arrival to its finish on its task's track.
/// Returns an error message, or an empty string.
std::string writeServeTrace(const ServePrediction &p, const std::string &path);

} // namespace plexus::servejob

#endif // PLEXUS_PASSES_SERVEJOB_SERVEPIPELINE_H
