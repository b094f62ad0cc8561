//===- TrainPasses.cpp - plx-plan-static and plx-lower-to-rt --------------===//
//
// Thin adapters: read the plx/plan IR into plain values, call the planners
// (passes/Baselines/StepPlanners.h) or the lowering
// (passes/Lower/StepLowering.h), and write the result back as plan or rt
// ops.
//
//===----------------------------------------------------------------------===//
#include "passes/Train/Passes.h"

#include "dialects/Rt/IR/RtDialect.h"
#include "passes/Lower/StepLowering.h"
#include "passes/Program/RtPrograms.h"
#include "passes/Simulate/FabricCommTime.h"
#include "passes/Train/DppPlanning.h"
#include "passes/Train/FlexSpModel.h"
#include "passes/Train/PipelineStepIR.h"
#include "passes/Train/ProgressMeter.h"
#include "passes/Train/TrainJob.h"
#include "passes/Report/ReportAttr.h"
#include "passes/Train/TrainPipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "passes/Instantiate/Passes.h"
#include "passes/Placement/Passes.h"

namespace plexus::train {
#define GEN_PASS_DEF_ADAPTIVESPPASS
#define GEN_PASS_DEF_CHECKPOINTPASS
#define GEN_PASS_DEF_DYNAMICPPPASS
#define GEN_PASS_DEF_PLANSTATICPASS
#define GEN_PASS_DEF_LOWERTORTPASS
#define GEN_PASS_DEF_PREDICTTRAINPASS
#define GEN_PASS_DEF_PLANSTRATEGYPASS
#define GEN_PASS_DEF_PLANBASELINESPASS
#include "passes/Train/Passes.h.inc"
} // namespace plexus::train

using namespace mlir;
using namespace plexus;

namespace {

/// A planner of one batch of a job.
using BatchPlanner = llvm::function_ref<baselines::NamedPlan(
    plx::TrainOp, const baselines::TrainSetup &, const std::vector<int64_t> &,
    const prog::CommTimeFn &)>;

/// A job's placed chips and the isolated communication times planners use
/// on them (planners ask out of time order, so no contention).
struct JobFabric {
  train::PlacedJob placed;
  prog::CommTimeFn comm;
};

/// The fabric of `trainOp`'s plan.job; errors are emitted on the job.
FailureOr<JobFabric> jobFabric(ModuleOp module, plx::TrainOp trainOp) {
  std::string jobName = (trainOp.getSymName() + "_job").str();
  auto job = dyn_cast_or_null<plan::JobOp>(
      SymbolTable::lookupSymbolIn(module, jobName));
  if (!job)
    return trainOp.emitOpError("has no plan.job @")
           << jobName << ": run plx-instantiate and plx-place first";
  FailureOr<train::PlacedJob> placed = train::placedJob(job);
  if (failed(placed))
    return failure();
  JobFabric out{std::move(*placed), {}};
  sim::FabricCommOptions isolated;
  isolated.contention = false;
  out.comm = sim::fabricCommTime(*out.placed.graph, out.placed.chips,
                                 out.placed.params, isolated);
  return out;
}

/// For every plx.train of `module` (instantiated and placed): draws each
/// step's batch, plans it with `planner` on the job's placed chips
/// (isolated communication times: planners ask out of time order) and adds
/// the plan as `plan.step @<job>_step<i>`. Errors are emitted on the job or
/// its dataset.
LogicalResult planEachStep(ModuleOp module, BatchPlanner planner) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  for (auto trainOp : llvm::to_vector(module.getOps<plx::TrainOp>())) {
    FailureOr<train::TrainOps> ops = train::trainOps(trainOp);
    if (failed(ops))
      return failure();
    baselines::TrainSetup setup = train::trainSetupOf(*ops);
    FailureOr<JobFabric> fabric = jobFabric(module, trainOp);
    if (failed(fabric))
      return failure();
    const prog::CommTimeFn &comm = fabric->comm;
    instantiate::SamplerOrError sampler =
        instantiate::BatchSampler::create(train::datasetDescOf(ops->data));
    if (!sampler.value.has_value())
      return ops->data.emitOpError("cannot draw batches: ") << sampler.error;
    for (int64_t step = 0; step < trainOp.getSteps(); ++step) {
      instantiate::Batch batch = sampler->draw(
          trainOp.getBatch(), step, static_cast<uint64_t>(trainOp.getSeed()));
      if (!batch.ok())
        return trainOp.emitOpError("cannot draw step ")
               << step << ": " << batch.error;
      baselines::NamedPlan planned =
          planner(trainOp, setup, batch.lengths, comm);
      if (!planned.ok())
        return trainOp.emitOpError("cannot plan step ")
               << step << " with " << planned.name << ": " << planned.error;
      const std::string symName =
          (trainOp.getSymName() + "_step" + std::to_string(step)).str();
      if (planned.plan)
        train::buildStepOp(builder, trainOp.getLoc(), symName, step,
                           trainOp.getSymName(), *planned.plan);
      else
        train::buildPipelinedStepOp(builder, trainOp.getLoc(), symName, step,
                                    trainOp.getSymName(), *planned.pipelined);
    }
  }
  return success();
}

struct PlanStaticPass : train::impl::PlanStaticPassBase<PlanStaticPass> {
  using PlanStaticPassBase::PlanStaticPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<step::GroupLayout> fixed;
    if (!layoutName.empty()) {
      fixed = baselines::parseLayoutName(layoutName);
      if (!fixed) {
        module.emitError("plx-plan-static: unknown layout '")
            << layoutName
            << "'; expected static-sp-<d>, megatron-tp<t>-cp<c>, "
               "pp<p>-tp<t>-1f1b, pp<p>-tp<t>-v<v>-1f1b or "
               "sp<d>-tp<t>-cp<c>-pp<p>[-v<v>]";
        return signalPassFailure();
      }
    }
    if (failed(planEachStep(module, [&](plx::TrainOp train,
                                        const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const prog::CommTimeFn &comm) {
          step::GroupLayout layout =
              fixed ? *fixed : train::strategyLayout(train);
          return baselines::planStaticLayout(setup, lengths, layout, comm);
        })))
      signalPassFailure();
  }
};

struct AdaptiveSpPass : train::impl::AdaptiveSpPassBase<AdaptiveSpPass> {
  using AdaptiveSpPassBase::AdaptiveSpPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    adaptivesp::AdaptiveSpOptions options;
    options.strategy = mode;
    if (mode == adaptivesp::SpStrategy::Static) {
      if (degree < 1) {
        module.emitError("plx-adaptive-sp: mode=static needs degree=D >= "
                         "1, got degree=")
            << static_cast<int64_t>(degree);
        return signalPassFailure();
      }
      options.staticDegree = degree;
    }
    if (!(timeLimit > 0)) {
      module.emitError("plx-adaptive-sp: time-limit must be positive");
      return signalPassFailure();
    }
    options.milp.timeLimitSeconds = timeLimit;
    options.allowSp1 = allowSp1;
    const std::string name =
        mode == adaptivesp::SpStrategy::Adaptive ? "flexsp"
        : mode == adaptivesp::SpStrategy::Static
            ? "static-sp-" + std::to_string(degree)
            : "best-homogeneous-sp";
    if (failed(planEachStep(module, [&](plx::TrainOp,
                                        const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const prog::CommTimeFn &comm) {
          double solver = 0;
          baselines::NamedPlan planned =
              train::planFlexSp(setup, lengths, comm, options, solver);
          planned.name = name;
          if (planned.plan)
            planned.plan->strategy = name;
          return planned;
        })))
      signalPassFailure();
  }
};

struct DynamicPpPass : train::impl::DynamicPpPassBase<DynamicPpPass> {
  using DynamicPpPassBase::DynamicPpPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    dpp::DppOptions options;
    std::string name;
    options.chunkingMode = mode;
    switch (static_cast<dpp::ChunkingMode>(mode)) {
    case dpp::ChunkingMode::WorkloadBalanced:
      name = "dpp";
      break;
    case dpp::ChunkingMode::Packed:
      name = "packed-1f1b";
      break;
    case dpp::ChunkingMode::EvenTokens:
      name = "seq1f1b";
      break;
    }
    options.checkpointing = checkpoint;
    if (checkpoint != ckpt::CheckpointStrategy::Adaptive)
      name += std::string("-ckpt-") + ckpt::strategyName(checkpoint);
    if (minSlices < 1 || maxSlices < minSlices) {
      module.emitError("plx-dynamic-pp: need 1 <= min-slices <= max-slices, "
                       "got ")
          << static_cast<int64_t>(minSlices) << " and "
          << static_cast<int64_t>(maxSlices);
      return signalPassFailure();
    }
    options.minSlices = minSlices;
    options.maxSlices = maxSlices;
    if (spDegree < 0) {
      module.emitError("plx-dynamic-pp: sp must not be negative");
      return signalPassFailure();
    }
    if (failed(planEachStep(module, [&](plx::TrainOp train,
                                        const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const prog::CommTimeFn &comm) {
          dpp::Result<train::DppJobLayout> layout = train::dppJobLayout(
              setup,
              spDegree > 0 ? int64_t(spDegree) : train::dppSpDegreeOf(train));
          if (!layout) {
            baselines::NamedPlan failed;
            failed.name = name;
            failed.error = layout.error;
            return failed;
          }
          return train::planDynamicPp(setup, lengths, comm, *layout, options,
                                      name);
        })))
      signalPassFailure();
  }
};

struct CheckpointPass : train::impl::CheckpointPassBase<CheckpointPass> {
  using CheckpointPassBase::CheckpointPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const ckpt::CheckpointStrategy ck = strategy;
    if (!(gap >= 0 && gap < 1)) {
      module.emitError("plx-checkpoint: gap must lie in [0, 1)");
      return signalPassFailure();
    }
    ckpt::CheckpointOptions options;
    options.relativeGap = gap;
    options.uniformLayers = layers;
    for (auto step : llvm::to_vector(module.getOps<plan::StepOp>())) {
      if (!train::isPipelinedStep(step))
        continue;
      if (failed(replan(module, step, ck, options)))
        return signalPassFailure();
    }
  }

  LogicalResult replan(ModuleOp module, plan::StepOp step,
                       ckpt::CheckpointStrategy ck,
                       const ckpt::CheckpointOptions &options) {
    if (!step.getJob())
      return step.emitOpError("names no job: plx-checkpoint needs the "
                              "plx.train whose model and memory it plans for");
    auto trainOp = dyn_cast_or_null<plx::TrainOp>(
        SymbolTable::lookupSymbolIn(module, step.getJobAttr()));
    if (!trainOp)
      return step.emitOpError("names job @")
             << *step.getJob() << ", which is not a plx.train of the module";
    if (!step.getLengths())
      return step.emitOpError("has no sequence lengths; plx-checkpoint "
                              "sizes each chunk by its slices");
    FailureOr<train::TrainOps> ops = train::trainOps(trainOp);
    if (failed(ops))
      return failure();
    baselines::TrainSetup setup = train::trainSetupOf(*ops);
    FailureOr<JobFabric> fabric = jobFabric(module, trainOp);
    if (failed(fabric))
      return failure();
    const prog::CommTimeFn &comm = fabric->comm;
    step::PipelinedStepPlan plan = train::pipelinedStepPlanOf(step);
    train::DppJobLayout layout;
    layout.spDegree = plan.spDegree;
    layout.stages = plan.stages;
    if (layout.spDegree * layout.stages != setup.world)
      return step.emitOpError("runs on ")
             << layout.spDegree * layout.stages << " ranks but its job has "
             << setup.world << " chips";
    int64_t maxLength = 1;
    for (int64_t l : plan.lengths)
      maxLength = std::max(maxLength, l);
    dpp::Result<dpp::DppModel> model =
        train::deriveDppModel(setup, layout, maxLength, comm);
    if (!model)
      return step.emitOpError("cannot derive its cost model: ") << model.error;
    if (std::string error =
            train::replanCheckpointing(plan, *model, ck, options);
        !error.empty())
      return step.emitOpError("cannot plan its checkpointing: ") << error;
    OpBuilder builder(step);
    train::buildPipelinedStepOp(builder, step.getLoc(), step.getSymName(),
                                step.getIndex(), *step.getJob(), plan);
    step.erase();
    return success();
  }
};

struct LowerToRtPass : train::impl::LowerToRtPassBase<LowerToRtPass> {
  using LowerToRtPassBase::LowerToRtPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    plan::StepOp step;
    if (!stepName.empty()) {
      step = dyn_cast_or_null<plan::StepOp>(
          SymbolTable::lookupSymbolIn(module, stepName));
      if (!step) {
        module.emitError("plx-lower-to-rt: no plan.step named '")
            << stepName << "'";
        return signalPassFailure();
      }
    } else {
      auto steps = llvm::to_vector(module.getOps<plan::StepOp>());
      if (steps.size() != 1) {
        module.emitError("plx-lower-to-rt: the module has ")
            << steps.size() << " plan.step ops; name one with step=NAME";
        return signalPassFailure();
      }
      step = steps.front();
    }
    if (std::optional<int64_t> replicas = step.getReplicas()) {
      // rt programs name every rank of a job; a folded job's would name
      // ranks of replicas they do not hold.
      step.emitOpError("is one replica of ")
          << *replicas
          << " data-parallel replicas; plx-lower-to-rt lowers whole jobs "
             "(plan one of at most --max-replica-ranks ranks to generate "
             "its programs)";
      return signalPassFailure();
    }
    if (!step.getJob()) {
      step.emitOpError("names no job: plx-lower-to-rt needs the plx.train "
                       "whose model and chip cost the step");
      return signalPassFailure();
    }
    auto trainOp = dyn_cast_or_null<plx::TrainOp>(
        SymbolTable::lookupSymbolIn(module, step.getJobAttr()));
    if (!trainOp) {
      step.emitOpError("names job @")
          << *step.getJob() << ", which is not a plx.train of the module";
      return signalPassFailure();
    }
    FailureOr<train::TrainOps> ops = train::trainOps(trainOp);
    if (failed(ops))
      return signalPassFailure();
    if (!step.getLengths()) {
      step.emitOpError("has no sequence lengths; plx-lower-to-rt costs each "
                       "sequence by its length");
      return signalPassFailure();
    }
    if (layersPerOp < 0 || opBudget < 1) {
      module.emitError("plx-lower-to-rt: layers-per-op must be 0 (as plxc "
                       "simulates) or at least 1, and op-budget at least "
                       "1; got ")
          << static_cast<int64_t>(layersPerOp) << " and "
          << static_cast<int64_t>(opBudget);
      return signalPassFailure();
    }
    step::TrainModel model = train::trainSetupOf(*ops).model;
    if (step.getZero())
      model.zero = *step.getZero();
    if (step.getCheckpoint())
      model = model.withCheckpointing(
          train::checkpointingOf(*step.getCheckpoint()));
    lower::LoweringOptions options;
    options.layersPerOp = layersPerOp;
    // Placed, the job's isolated times order interleaved messages as
    // plxc's simulation does (LoweringOptions::passCommTime).
    std::optional<JobFabric> placedFabric;
    bool interleaved = false;
    step.walk([&](plan::SpGroupOp g) { interleaved |= g.getVppDegree() > 1; });
    auto job = dyn_cast_or_null<plan::JobOp>(SymbolTable::lookupSymbolIn(
        module, (trainOp.getSymName() + "_job").str()));
    if (interleaved && job && job.getChips()) { // placed
      FailureOr<JobFabric> fabric = jobFabric(module, trainOp);
      if (failed(fabric))
        return signalPassFailure();
      placedFabric = std::move(*fabric);
      options.passCommTime = placedFabric->comm;
    }
    lower::LoweredStep lowered;
    // Interior cut points of split sequences, (sequence, position) sorted.
    std::vector<std::pair<int64_t, int64_t>> cuts;
    if (train::isPipelinedStep(step)) {
      model.zero = 3; // ZeRO-3 inside each stage
      step::PipelinedStepPlan plan = train::pipelinedStepPlanOf(step);
      for (const step::PlannedPipeline &p : plan.pipelines)
        for (const step::PlannedChunk &c : p.chunks)
          for (const step::ChunkSlice &slice : c.slices)
            if (slice.begin > 0)
              cuts.push_back({slice.sequence, slice.begin});
      llvm::sort(cuts);
      if (layersPerOp == 0)
        options.layersPerOp = train::layersPerOpFor(plan, model, opBudget);
      lowered = lower::lowerPipelinedStep(plan, model, options);
    } else {
      step::StepPlan plan = train::stepPlanOf(step);
      if (layersPerOp == 0)
        options.layersPerOp = train::layersPerOpFor(plan, model, opBudget);
      lowered = lower::lowerStep(plan, model, options);
    }
    if (!lowered.ok()) {
      step.emitOpError("cannot be lowered: ") << lowered.error;
      return signalPassFailure();
    }
    // Communicators in the ring order placement chose, when the job is
    // placed.
    if (auto job = dyn_cast_or_null<plan::JobOp>(
            SymbolTable::lookupSymbolIn(module, step.getJob()->str() + "_job")))
      lower::applyRingOrders(lowered.programs, train::ringOrdersOf(job));

    OpBuilder builder(module.getContext());
    builder.setInsertionPointToEnd(module.getBody());
    Location loc = step.getLoc();
    // What the programs run on, for code generation: the decoder (dense
    // models only; the runtime has no experts) and the batch.
    const cost::TransformerShape &shape = model.shape;
    const int64_t seed = trainOp.getSeed();
    if (!shape.isMoE() && shape.mtpLayers == 0)
      builder.create<rt::ModelOp>(
          loc, shape.layers, shape.hidden, shape.heads, shape.kvHeads,
          cost::effectiveHeadDim(shape), shape.ffn,
          shape.mlp == cost::MlpKind::GeLU ? "gelu" : "swiglu", shape.vocab,
          shape.tiedEmbeddings, cost::bytesPerElement(shape.dtype), seed);
    {
      std::vector<int64_t> flat;
      for (auto [seq, at] : cuts) {
        flat.push_back(seq);
        flat.push_back(at);
      }
      auto batch = builder.create<rt::BatchOp>(
          loc, builder.getI64IntegerAttr(seed), step.getLengthsAttr(),
          flat.empty() ? DenseI64ArrayAttr()
                       : builder.getDenseI64ArrayAttr(flat));
      (void)batch;
    }
    if (failed(prog::writeRtPrograms(builder, loc, lowered.programs)))
      return signalPassFailure();
  }
};


/// A progress sink on stderr, or none.
std::function<void(const std::string &)> progressSink(bool on) {
  if (!on)
    return nullptr;
  return train::ProgressMeter::stderrSink();
}

LogicalResult checkRankGuard(ModuleOp module, StringRef pass, int64_t ranks,
                             int64_t replicaRanks) {
  if (ranks < 1)
    return module.emitError()
           << pass << ": max-simulated-ranks must be at least 1, got " << ranks;
  if (replicaRanks < 1)
    return module.emitError()
           << pass << ": max-replica-ranks must be at least 1, got "
           << replicaRanks;
  return success();
}

/// A planning stage (plx-plan-strategy, plx-plan-baselines) on `module`
/// with its options; fails on a bad guard or when a plan cannot be written.
LogicalResult runPlanning(ModuleOp module, StringRef pass,
                          int64_t maxSimulatedRanks, int64_t maxReplicaRanks,
                          bool progress,
                          LogicalResult (*stage)(ModuleOp,
                                                 const train::PlanningOptions &)) {
  if (failed(checkRankGuard(module, pass, maxSimulatedRanks, maxReplicaRanks)))
    return failure();
  train::PlanningOptions options;
  options.maxSimulatedRanks = maxSimulatedRanks;
  options.maxReplicaRanks = maxReplicaRanks;
  options.progress = progressSink(progress);
  return stage(module, options);
}

struct PlanStrategyPass
    : train::impl::PlanStrategyPassBase<PlanStrategyPass> {
  using PlanStrategyPassBase::PlanStrategyPassBase;
  void runOnOperation() override {
    if (failed(runPlanning(getOperation(), getArgument(), maxSimulatedRanks,
                           maxReplicaRanks, progress, train::planStrategyAlternatives)))
      signalPassFailure();
  }
};

struct PlanBaselinesPass
    : train::impl::PlanBaselinesPassBase<PlanBaselinesPass> {
  using PlanBaselinesPassBase::PlanBaselinesPassBase;
  void runOnOperation() override {
    if (failed(runPlanning(getOperation(), getArgument(), maxSimulatedRanks,
                           maxReplicaRanks, progress, train::planBaselineAlternatives)))
      signalPassFailure();
  }
};

struct PredictTrainPass
    : train::impl::PredictTrainPassBase<PredictTrainPass> {
  using PredictTrainPassBase::PredictTrainPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkRankGuard(module, getArgument(), maxSimulatedRanks,
                              maxReplicaRanks)))
      return signalPassFailure();
    train::PipelineOptions options;
    options.maxSimulatedRanks = maxSimulatedRanks;
    options.maxReplicaRanks = maxReplicaRanks;
    options.contention = contention;
    options.tracePath = tracePath;
    options.timelineColumns = timelineColumns;
    options.progress = progressSink(progress);
    FailureOr<std::vector<train::TrainPrediction>> predictions =
        train::predictTrainJobs(module, options);
    if (failed(predictions))
      return signalPassFailure();
    bool failedJob = false;
    for (const train::TrainPrediction &p : *predictions) {
      auto trainOp = dyn_cast_or_null<plx::TrainOp>(
          SymbolTable::lookupSymbolIn(module, p.job));
      if (trainOp)
        trainOp->setAttr(report::kPredictionAttrName,
                         train::predictionAttr(&getContext(), p));
      failedJob = failedJob || !p.error.empty();
    }
    if (failedJob)
      signalPassFailure();
  }
};

} // namespace

void plexus::train::buildTrainPipeline(OpPassManager &pm,
                                       const TrainPipelineOptions &options) {
  pm.addPass(instantiate::createInstantiatePass());
  pm.addPass(placement::createPlacePass());
  PlanStrategyPassOptions strategy;
  strategy.maxSimulatedRanks = options.maxSimulatedRanks;
  strategy.maxReplicaRanks = options.maxReplicaRanks;
  strategy.progress = options.progress;
  pm.addPass(createPlanStrategyPass(strategy));
  PlanBaselinesPassOptions baselines;
  baselines.maxSimulatedRanks = options.maxSimulatedRanks;
  baselines.maxReplicaRanks = options.maxReplicaRanks;
  baselines.progress = options.progress;
  pm.addPass(createPlanBaselinesPass(baselines));
  PredictTrainPassOptions predict;
  predict.maxSimulatedRanks = options.maxSimulatedRanks;
  predict.maxReplicaRanks = options.maxReplicaRanks;
  predict.contention = options.contention;
  predict.tracePath = options.tracePath;
  predict.timelineColumns = options.timelineColumns;
  predict.progress = options.progress;
  pm.addPass(createPredictTrainPass(predict));
}

void plexus::train::registerTrainPipelines() {
  PassPipelineRegistration<TrainPipelineOptions>(
      "plx-train-pipeline",
      "plxc's stages for train jobs: plx-instantiate, plx-place, "
      "plx-plan-strategy, plx-plan-baselines, plx-predict-train",
      [](OpPassManager &pm, const TrainPipelineOptions &options) {
        buildTrainPipeline(pm, options);
      });
}
