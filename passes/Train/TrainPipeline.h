//===- TrainPipeline.h - Plan, judge and predict each train job -*- C++ -*-===//
//
// The stages plxc runs on every plx.train of an instantiated and placed
// module, each a pass of `plx-train-pipeline` (Passes.h): draw each step's
// batch and plan it with the job's strategy (plx-plan-strategy) and with
// every standard baseline (plx-plan-baselines), each plan written into the
// module as an alternative (AlternativePlans.h); then lower every
// alternative to per-rank programs (passes/Lower) and run them through the
// event simulator with the fabric's collective models on the job's placed
// chips (plx-predict-train). The chosen plan of every step stays in the
// module as a plan.step (@<job>_step<i>) and the prediction, the report's
// fields, is attached to the job (predictionAttr, read back by
// predictionReport).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H
#define PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H

#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Baselines/StepPlanners.h"
#include "passes/Lower/StepLowering.h"
#include "passes/Simulate/EventSimulator.h"
#include "passes/Simulate/Timeline.h"
#include "passes/StepModel/PipelinePlan.h"

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
  /// When > 0, each train job's step 0 is simulated again with its spans
  /// and binned into so many columns (sim::binTimeline) for the report's
  /// "timeline" (plxc -o's report.html).
  int64_t timelineColumns = 0;
  /// Jobs with more ranks are neither planned nor simulated (the report
  /// says why): a guard far above the sizes plxc plans.
  int64_t maxSimulatedRanks = 1 << 20;
  /// Jobs with more ranks are planned and simulated as data-parallel
  /// replicas of at most this many ranks (Replicas.h).
  int64_t maxReplicaRanks = 4096;
  /// Simulate with contention between concurrent transfers on shared links
  /// (the prediction); off, every transfer runs as if alone, as the
  /// planners cost it.
  bool contention = true;
  /// Called with a line of progress once planning has run for a second.
  std::function<void(const std::string &)> progress;
};

/// One plan's outcome over the predicted steps.
struct PlanOutcome {
  std::string name;
  std::string error; ///< why the layout cannot run (then nothing else is set)
  step::GroupLayout layout;
  int64_t zero = 0;
  std::string checkpoint;      ///< NamedPlan::checkpointName() of step 0
  /// The model's first layers `checkpoint` applies to (the strategy's
  /// checkpoint_layers); 0: every layer.
  int64_t checkpointLayers = 0;
  /// ZeRO-3 gathered on demand (the strategy's zero_prefetch = 0).
  bool zeroOnDemand = false;
  int64_t microBatches = 0;    ///< of step 0 (chunks, when pipelined)
  int64_t pipelines = 0;       ///< of step 0; 0 unless pipelined
  /// The planner's estimate, mean per step. The job's own plan is picked
  /// among finalists ranked by the simulator, so its estimate is their
  /// simulated time; a baseline's is its planner's analytic estimate.
  double plannedSeconds = 0;
  /// The analytic estimate the planners search with (estimateStep, DPP's
  /// model), mean per step: how far the fast surrogate is from the judge.
  double surrogateSeconds = 0;
  double predictedSeconds = 0; ///< simulated, mean per step
  bool simulated = false;
  std::optional<double> mfu;            ///< over the predicted steps
  std::vector<int64_t> peakMemoryBytes; ///< per rank, max over steps
  /// Per rank, at that peak: the resident parts; the peak less their total
  /// is what the step's ops held then (activations and the loss's logits).
  std::vector<step::ResidentParts> peakResident;
  double computeSeconds = 0;            ///< per rank, mean over ranks and steps
  double commSeconds = 0;
  double bubbleSeconds = 0;
  double recomputeSeconds = 0; ///< per rank, mean: part of computeSeconds
  /// Whether the job's strategy admits this plan (then the job's own plan
  /// is never slower); else `excludedBy` says which fixed choice it breaks.
  bool admitted = false;
  std::string excludedBy;
  bool ok() const { return error.empty(); }
};

/// A baseline faster than the job's plan, which the strategy does not
/// admit: the report says so out loud, however small the gap (the margin
/// only keeps an equal time, the same plan under another name, quiet).
constexpr double kFasterBaselineMargin = 1e-9;
struct FasterBaseline {
  std::string name;
  double ratio = 0; ///< the job's predicted step / the baseline's
  std::string why;  ///< what the strategy fixes that the baseline changes
};

/// One plan judged for step 0, for `plxc --explore` and the JSON report's
/// "explored": the job's planner's plan, the candidates its strategy
/// admits, and every baseline, each with its simulated outcome or why it
/// cannot run.
struct ExploredPlan {
  PlanOutcome outcome;   ///< step 0's; `error` says why it is not feasible
  std::string role;      ///< "planner", "candidate" or "baseline"
  bool chosen = false;   ///< the job's plan
  int64_t peakBytes = 0; ///< the busiest rank's, also when over memory
};

struct TrainPrediction {
  std::string job;
  int64_t steps = 0;
  std::vector<int64_t> lengths; ///< step 0's sequence lengths
  step::StepPlan plan;         ///< the job's own plan of step 0, or
  std::optional<step::PipelinedStepPlan> pipelined; ///< when pipelined
  double solverSeconds = 0; ///< wall time of the planner, all steps
  PlanOutcome primary;
  std::vector<PlanOutcome> baselines;
  std::string notSimulated; ///< why the job was not planned, if so
  std::string note; ///< why the job's own planner gave way (step 0), if so
  /// Why the job cannot be planned (its diagnostic was emitted); the other
  /// jobs of the spec are still reported.
  std::string error;
  /// Memory per chip: the HBM, the reserve held back and what plans use.
  int64_t chipBytes = 0, reserveBytes = 0, usableBytes = 0;
  /// The lower bound on the step (mean over the steps) and its terms.
  double boundSeconds = 0, boundComputeSeconds = 0, boundGradientSeconds = 0;
  std::vector<FasterBaseline> fasterBaselines;
  /// Every plan judged for step 0: feasible ones fastest first, then the
  /// rest in the order they were planned.
  std::vector<ExploredPlan> explored;
  /// The plan's step 0 at a chart's resolution (timelineColumns > 0).
  std::optional<sim::Timeline> timeline;
  /// A job folded into data-parallel replicas (Replicas.h): how many, of
  /// how many ranks in all; every plan above is one replica's, for the
  /// heaviest share of each step's batch. Step 0's shares: the fewest and
  /// most sequences of a share and the heaviest share's forward FLOPs over
  /// the mean (1: perfectly balanced).
  int64_t replicas = 1, jobRanks = 0;
  int64_t shareFewestSequences = 0, shareMostSequences = 0;
  double shareImbalance = 1;
};

/// The plan of a job's own strategy for one batch: its static layout; with
/// `pp = dynamic` and no tp or cp, dynamic pipeline parallelism
/// (passes/Train/DppPlanning.h) with `sp` (a degree; else the chips of a
/// node) per stage and the strategy's checkpointing (`adaptive`: the
/// stage-aware ILP; `none`, `full`; `selective`: one uniform layer count),
/// named "dpp" (when it cannot plan, the search below, saying why); with
/// `sp = adaptive` alone (no tp, cp, pp, micro_batch), FlexSP's adaptive SP
/// groups (passes/Train/FlexSpModel.h), named "flexsp" (when FlexSP cannot
/// plan, the search below, its message saying why); or, where the strategy
/// leaves a choice to a planner (`sp = adaptive` or
/// `best_homogeneous`, `pp = dynamic`, `checkpoint = adaptive`), the
/// fastest static layout over those choices (Ulysses degrees, pipeline
/// depths with ZeRO <= 2, selective or full checkpointing), named
/// "best-homogeneous-sp" when only SP was open (FlexSP's BatchAda) and
/// "best-static:<layout name>" otherwise.
///
/// `finalists` (may be null) receives the runners-up of the static search
/// (at most kStaticFinalists, fastest estimate first) so that the caller
/// can judge them by the simulator too. `stage` (may be empty) is told what
/// runs now: the planner, its phases, the static layout k of n.
constexpr size_t kStaticFinalists = 3;
using StageFn = std::function<void(const std::string &)>;
baselines::NamedPlan
planJobStrategy(const baselines::TrainSetup &setup,
                const std::vector<int64_t> &lengths, plx::TrainOp train,
                const prog::CommTimeFn &comm, bool allowFlexSp = true,
                std::vector<baselines::NamedPlan> *finalists = nullptr,
                const StageFn &stage = {});

/// Empty when the job's strategy admits `plan` (every choice it fixes is
/// the plan's; an open choice admits any value), else which fixed choice
/// the plan changes, e.g. "tp 4 (the strategy fixes tp = 1)". A baseline
/// packed by memory is not admitted by a strategy that fixes micro_batch.
std::string strategyExcludes(plx::TrainOp train,
                             const baselines::TrainSetup &setup,
                             const baselines::NamedPlan &plan,
                             bool packedByMemory);

/// Layers per compute op for lowering `plan`: 1, unless the programs would
/// hold more than `opBudget` ops in all (about 8 per layer, micro-batch and
/// rank), then as many as bring them under it (at most a stage's layers).
/// Coarser ops sum compute and bytes; what changes is per-op latency and,
/// under ZeRO-3, how finely prefetching overlaps compute and how large the
/// gathered buffers are.
int64_t layersPerOpFor(const step::StepPlan &plan,
                       const step::TrainModel &model,
                       int64_t opBudget = 4'000'000);
/// The same for a pipelined step (about 10 ops per layer, chunk and rank).
int64_t layersPerOpFor(const step::PipelinedStepPlan &plan,
                       const step::TrainModel &model,
                       int64_t opBudget = 4'000'000);

/// The SP degree per DPP stage a strategy fixes (`sp = <degree>`), else 0
/// (the chips of a node).
int64_t dppSpDegreeOf(plx::TrainOp train);

/// DPP with the job's layout and checkpointing, named "dpp".
baselines::NamedPlan planJobDynamicPp(const baselines::TrainSetup &setup,
                                      const std::vector<int64_t> &lengths,
                                      plx::TrainOp train,
                                      const prog::CommTimeFn &comm);

/// FlexSP over the whole cluster with the job's checkpointing, named
/// "flexsp"; when a sequence does not fit that way, with full
/// checkpointing (as the papers tune their baselines to the context
/// length), named "flexsp-full-ckpt".
baselines::NamedPlan planFlexSpBaseline(const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const prog::CommTimeFn &comm,
                                        const StageFn &stage = {});

/// The baselines a dynamic-pipeline job is compared with, besides the
/// standard ones: FlexSP over the whole cluster ("flexsp", or
/// "flexsp-full-ckpt" when only full checkpointing fits the batch), packed
/// batch-level 1F1B ("packed-1f1b") and even token slicing with uniform
/// checkpointing ("seq1f1b"), the last two on the job's DPP layout.
std::vector<baselines::NamedPlan>
dynamicPpBaselines(const baselines::TrainSetup &setup,
                   const std::vector<int64_t> &lengths, plx::TrainOp train,
                   const prog::CommTimeFn &comm, const StageFn &stage = {});

/// Lowers and simulates one planned step on `comm`'s fabric.
struct StepSimulation {
  std::string error;
  double seconds = 0;
  std::optional<double> mfu;
  double flops = 0; ///< of every rank's compute ops
  sim::SimResult result;
  /// What each rank holds before its first op (lower::LoweredStep).
  std::vector<step::ResidentParts> resident;
};
/// `orders` (may be null): the ring orders placement chose, applied to the
/// lowered programs' communicators (lower::applyRingOrders). `keepSpans`:
/// the result keeps every rank's spans (a trace needs them; the totals are
/// the same without). `replicas`: the plan is one of that many
/// data-parallel replicas (Replicas.h), lowered with the gradient
/// all-reduce across them and simulated with the others as its images.
/// `passComm`: the isolated times the lowering's interleaved message order
/// counts (lower::LoweringOptions::passCommTime; plx-lower-to-rt gives the
/// job's same ones).
StepSimulation simulateStep(const baselines::NamedPlan &plan,
                            const prog::CommTimeFn &comm,
                            const lower::RingOrders *orders = nullptr,
                            bool keepSpans = true, int64_t replicas = 1,
                            const prog::CommTimeFn &passComm = {});

/// What the planning stages need besides the module.
struct PlanningOptions {
  /// Jobs with more ranks are not planned (plx-predict-train says so).
  int64_t maxSimulatedRanks = 1 << 20;
  /// Jobs with more ranks are planned as data-parallel replicas of at most
  /// this many ranks (Replicas.h); plx-predict-train must be given the same.
  int64_t maxReplicaRanks = 4096;
  /// Called with a line of progress once planning has run for a second.
  std::function<void(const std::string &)> progress;
};

/// plx-plan-strategy: for every step of every plx.train (after
/// plx-instantiate and plx-place), the plans of the job's strategy
/// (planJobStrategy) as alternatives with role `candidate`
/// (AlternativePlans.h): the planner's plan (a plan.unplanned when nothing
/// the strategy allows can run the batch), then the runners-up of the
/// static search. Earlier candidates of the job are replaced. A job that
/// cannot be planned at all (no placement, no batches) is left to
/// plx-predict-train, which reports it; fails only when a plan cannot be
/// written as IR.
mlir::LogicalResult planStrategyAlternatives(mlir::ModuleOp module,
                                             const PlanningOptions &options);

/// plx-plan-baselines: for every step of every plx.train, the standard
/// baselines (passes/Baselines/StepPlanners.h; their layouts chosen on step
/// 0 and kept) and, for `pp = dynamic`, dynamicPpBaselines, as
/// alternatives with role `baseline`, in report order; a baseline that
/// cannot run is a plan.unplanned. Earlier baselines of the job are
/// replaced.
mlir::LogicalResult planBaselineAlternatives(mlir::ModuleOp module,
                                             const PlanningOptions &options);

/// plx-predict-train: judges the alternatives of every step of every
/// plx.train: each is lowered and simulated on the job's placed chips with
/// contention and its memory checked on every rank, and the job's plan is
/// the fastest feasible one its strategy admits (a candidate, or an
/// admitted baseline). The alternatives are removed and every step's
/// chosen plan is added as `@<job>_step<i>`. A job without candidates, or
/// whose steps no plan can run, is an error emitted on the job (on the
/// alternative at fault when one cannot stand for the job's plan: another
/// batch, other ranks, a layout its groups do not have, a candidate the
/// strategy does not allow); the other jobs of the spec are still
/// predicted.
mlir::FailureOr<std::vector<TrainPrediction>>
predictTrainJobs(mlir::ModuleOp module, const PipelineOptions &options);

/// The prediction as the attribute plx-predict-train attaches to the job
/// (`plan.prediction`): predictionJson's fields as a dictionary, with
/// "baselines" as a list of dictionaries that hold their "name" (a
/// dictionary attribute sorts its keys; the list keeps report order).
mlir::DictionaryAttr predictionAttr(mlir::MLIRContext *context,
                                    const TrainPrediction &p);

/// The report fields back from the attribute, in predictionJson's order:
/// predictionReport(predictionAttr(p)) == predictionJson(p).
nlohmann::ordered_json predictionReport(mlir::DictionaryAttr prediction);

/// The report fields of one prediction: "plan", "predicted_step_time_s",
/// "planned_step_time_s", "mfu", "peak_memory_bytes", "time_split",
/// "baselines"; for a pipelined plan also "pipelines" (chunks with their
/// slices, checkpointed layers per stage and chunk) and "bubble_ratio".
nlohmann::ordered_json predictionJson(const TrainPrediction &p);

/// "pipelines" of a pipelined plan: per pipeline its "chunks" ({"kind",
/// "slices": [{"sequence", "begin", "end", "context"}], "planned_time_s"}),
/// "backward_order", "checkpoint_layers" (per stage, per chunk),
/// "planned_time_s" and "planned_bubble_ratio".
nlohmann::ordered_json pipelinesJson(const step::PipelinedStepPlan &plan);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_TRAINPIPELINE_H
