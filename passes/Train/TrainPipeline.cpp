//===- TrainPipeline.cpp - Plan, lower and simulate each train job --------===//
#include "passes/Train/TrainPipeline.h"

#include "passes/Lower/PipelineLowering.h"
#include "passes/Simulate/ChromeTrace.h"
#include "passes/Simulate/FabricCommTime.h"
#include "passes/Train/DppPlanning.h"
#include "passes/Train/FlexSpModel.h"
#include "passes/Train/PipelineStepIR.h"
#include "passes/Train/TrainJob.h"

#include "mlir/IR/Builders.h"

#include <chrono>
#include <cmath>

using namespace mlir;

namespace plexus::train {

namespace {

using Clock = std::chrono::steady_clock;

/// Accumulates one plan's simulated steps.
struct Accumulator {
  PlanOutcome outcome;
  double flops = 0, rankSeconds = 0;
  int64_t steps = 0;
};

void addPlanned(Accumulator &acc, const baselines::NamedPlan &plan,
                int64_t step) {
  if (!plan.ok()) {
    if (acc.outcome.error.empty())
      acc.outcome.error =
          step == 0 ? plan.error
                    : "step " + std::to_string(step) + ": " + plan.error;
    return;
  }
  if (step == 0) {
    acc.outcome.layout = plan.layout;
    acc.outcome.zero = plan.model.zero;
    if (plan.plan) {
      acc.outcome.microBatches =
          static_cast<int64_t>(plan.plan->microBatches.size());
    } else {
      acc.outcome.pipelines =
          static_cast<int64_t>(plan.pipelined->pipelines.size());
      for (const lower::PlannedPipeline &p : plan.pipelined->pipelines)
        acc.outcome.microBatches += static_cast<int64_t>(p.chunks.size());
    }
  }
  acc.outcome.plannedSeconds += plan.seconds();
}

/// Lowers and simulates one planned step; returns the error, if any.
std::string simulatePlan(Accumulator &acc, const baselines::NamedPlan &plan,
                         const sim::CommTimeFn &comm,
                         const lower::RingOrders &orders,
                         const std::string &trace) {
  StepSimulation simulated = simulateStep(plan, comm, &orders);
  if (!simulated.error.empty())
    return simulated.error;
  const sim::SimResult &result = simulated.result;
  if (!trace.empty())
    if (std::string error = sim::writeChromeTrace(result, trace);
        !error.empty())
      return "cannot write the trace: " + error;
  PlanOutcome &o = acc.outcome;
  o.simulated = true;
  o.predictedSeconds += result.stepSeconds;
  acc.flops += simulated.flops;
  acc.rankSeconds += result.stepSeconds * double(result.ranks.size());
  if (o.peakMemoryBytes.size() < result.ranks.size())
    o.peakMemoryBytes.resize(result.ranks.size(), 0);
  double n = double(result.ranks.size());
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    const sim::RankResult &rr = result.ranks[r];
    o.peakMemoryBytes[r] = std::max(o.peakMemoryBytes[r], rr.peakMemoryBytes);
    o.computeSeconds += rr.computeSeconds / n;
    o.commSeconds += rr.commSeconds / n;
    o.bubbleSeconds += rr.idleSeconds / n;
    for (const sim::Span &span : rr.spans)
      if (span.category == "recompute")
        o.recomputeSeconds += (span.end - span.start) / n;
  }
  return {};
}

void finish(Accumulator &acc, int64_t steps, double peakFlops) {
  PlanOutcome &o = acc.outcome;
  if (!o.ok())
    return;
  double s = double(std::max<int64_t>(1, steps));
  o.plannedSeconds /= s;
  if (o.simulated) {
    o.predictedSeconds /= s;
    o.computeSeconds /= s;
    o.commSeconds /= s;
    o.bubbleSeconds /= s;
    o.recomputeSeconds /= s;
    if (acc.rankSeconds > 0 && peakFlops > 0)
      o.mfu = acc.flops / (acc.rankSeconds * peakFlops);
  }
}

} // namespace

int64_t layersPerOpFor(const lower::StepPlan &plan,
                       const lower::TrainModel &model, int64_t opBudget) {
  int64_t pp = 1;
  if (!plan.microBatches.empty() && !plan.microBatches[0].groups.empty())
    pp = plan.microBatches[0].groups[0].layout.pp;
  const int64_t stageLayers =
      std::max<int64_t>(1, (model.shape.layers + pp - 1) / pp);
  const double ops = 8.0 * static_cast<double>(stageLayers) *
                     static_cast<double>(plan.microBatches.size()) *
                     static_cast<double>(plan.world);
  const double budget = static_cast<double>(std::max<int64_t>(1, opBudget));
  if (ops <= budget)
    return 1;
  return std::min<int64_t>(stageLayers,
                           static_cast<int64_t>(std::ceil(ops / budget)));
}

int64_t layersPerOpFor(const lower::PipelinedStepPlan &plan,
                       const lower::TrainModel &model, int64_t opBudget) {
  const int64_t stages = std::max<int64_t>(1, plan.stages);
  const int64_t stageLayers =
      std::max<int64_t>(1, (model.shape.layers + stages - 1) / stages);
  double chunks = 0;
  for (const lower::PlannedPipeline &p : plan.pipelines)
    chunks += static_cast<double>(p.chunks.size());
  const double ops = 10.0 * static_cast<double>(stageLayers) * chunks *
                     static_cast<double>(plan.world);
  const double budget = static_cast<double>(std::max<int64_t>(1, opBudget));
  if (ops <= budget)
    return 1;
  return std::min<int64_t>(stageLayers,
                           static_cast<int64_t>(std::ceil(ops / budget)));
}

StepSimulation simulateStep(const baselines::NamedPlan &plan,
                            const sim::CommTimeFn &comm,
                            const lower::RingOrders *orders) {
  StepSimulation out;
  lower::LoweringOptions lowering;
  lower::LoweredStep lowered;
  if (plan.plan) {
    lowering.layersPerOp = layersPerOpFor(*plan.plan, plan.model);
    lowered = lower::lowerStep(*plan.plan, plan.model, lowering);
  } else {
    lowering.layersPerOp = layersPerOpFor(*plan.pipelined, plan.model);
    lowered = lower::lowerPipelinedStep(*plan.pipelined, plan.model, lowering);
  }
  if (!lowered.ok()) {
    out.error = "cannot lower " + plan.name + ": " + lowered.error;
    return out;
  }
  if (orders)
    lower::applyRingOrders(lowered.programs, *orders);
  sim::SimOptions options;
  options.commTime = comm;
  options.totalFlops = lowered.totalFlops;
  options.peakFlopsPerRank = plan.model.chip.bf16Flops;
  out.flops = lowered.totalFlops;
  out.result = sim::simulate(lowered.programs, options);
  if (!out.result.ok()) {
    out.error = "cannot simulate " + plan.name + ": " + out.result.error;
    return out;
  }
  out.seconds = out.result.stepSeconds;
  out.mfu = out.result.mfu;
  return out;
}

namespace {

/// DPP's checkpointing for the strategy's `checkpoint`.
ckpt::CheckpointStrategy dppCheckpointing(plx::Checkpoint c) {
  switch (c) {
  case plx::Checkpoint::none:
    return ckpt::CheckpointStrategy::None;
  case plx::Checkpoint::full:
    return ckpt::CheckpointStrategy::Full;
  case plx::Checkpoint::selective:
    return ckpt::CheckpointStrategy::Uniform;
  case plx::Checkpoint::adaptive:
    break;
  }
  return ckpt::CheckpointStrategy::Adaptive;
}

} // namespace

int64_t dppSpDegreeOf(plx::TrainOp train) {
  const plx::TrainStrategyAttr strategy = train.getStrategy();
  return strategy.getSp() == plx::SpMode::static_ && strategy.getSpDegree() > 1
             ? strategy.getSpDegree()
             : 0;
}

namespace {

/// One DPP variant of the job: `mode` chunking, `checkpointing`.
baselines::NamedPlan planDppVariant(
    const baselines::TrainSetup &setup, const std::vector<int64_t> &lengths,
    plx::TrainOp train, const sim::CommTimeFn &comm, dpp::ChunkingMode mode,
    ckpt::CheckpointStrategy checkpointing, const std::string &name) {
  dpp::Result<DppJobLayout> layout = dppJobLayout(setup, dppSpDegreeOf(train));
  if (!layout) {
    baselines::NamedPlan out;
    out.name = name;
    out.error = layout.error;
    return out;
  }
  dpp::DppOptions options;
  options.chunkingMode = mode;
  options.checkpointing = checkpointing;
  return planDynamicPp(setup, lengths, comm, *layout, options, name);
}

} // namespace

baselines::NamedPlan planJobDynamicPp(const baselines::TrainSetup &setup,
                                      const std::vector<int64_t> &lengths,
                                      plx::TrainOp train,
                                      const sim::CommTimeFn &comm) {
  return planDppVariant(
      setup, lengths, train, comm, dpp::ChunkingMode::WorkloadBalanced,
      dppCheckpointing(train.getStrategy().getCheckpoint()), "dpp");
}

baselines::NamedPlan planFlexSpBaseline(const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const sim::CommTimeFn &comm) {
  adaptivesp::AdaptiveSpOptions options;
  double solver = 0;
  baselines::NamedPlan flexsp =
      planFlexSp(setup, lengths, comm, options, solver);
  if (flexsp.ok() || setup.model.checkpointing == cost::Checkpointing::Full)
    return flexsp;
  baselines::TrainSetup full = setup;
  full.model.checkpointing = cost::Checkpointing::Full;
  baselines::NamedPlan retry = planFlexSp(full, lengths, comm, options, solver);
  if (!retry.ok())
    return flexsp; // the first reason: the job's own checkpointing
  retry.name = "flexsp-full-ckpt";
  retry.plan->strategy = retry.name;
  return retry;
}

std::vector<baselines::NamedPlan>
dynamicPpBaselines(const baselines::TrainSetup &setup,
                   const std::vector<int64_t> &lengths, plx::TrainOp train,
                   const sim::CommTimeFn &comm) {
  std::vector<baselines::NamedPlan> out;
  out.push_back(planFlexSpBaseline(setup, lengths, comm));
  out.push_back(
      planDppVariant(setup, lengths, train, comm, dpp::ChunkingMode::Packed,
                     ckpt::CheckpointStrategy::Uniform, "packed-1f1b"));
  out.push_back(planDppVariant(setup, lengths, train, comm,
                               dpp::ChunkingMode::EvenTokens,
                               ckpt::CheckpointStrategy::Uniform, "seq1f1b"));
  return out;
}

baselines::NamedPlan planJobStrategy(const baselines::TrainSetup &setup,
                                     const std::vector<int64_t> &lengths,
                                     plx::TrainOp train,
                                     const sim::CommTimeFn &comm,
                                     bool allowFlexSp) {
  const plx::TrainStrategyAttr strategy = train.getStrategy();
  const lower::GroupLayout base = strategyLayout(train);
  const bool adaptiveSp = strategy.getSp() != plx::SpMode::static_;
  const bool dynamicPp = strategy.getPp() != plx::PpMode::static_;
  const bool adaptiveCkpt =
      strategy.getCheckpoint() == plx::Checkpoint::adaptive;
  if (!adaptiveSp && !dynamicPp && !adaptiveCkpt)
    return baselines::planStaticLayout(setup, lengths, base, comm);
  // A planner's plan, else the searched static layouts below; when those
  // fail too, the error says why the planner could not plan either.
  auto orSearch = [&](baselines::NamedPlan planned) {
    if (planned.ok())
      return planned;
    baselines::NamedPlan fallback =
        planJobStrategy(setup, lengths, train, comm, /*allowFlexSp=*/false);
    if (!fallback.ok())
      fallback.error =
          planned.name + ": " + planned.error + "; " + fallback.error;
    else
      fallback.note = planned.name + " cannot plan the batch (" +
                      planned.error + "), so the static layouts were searched";
    return fallback;
  };
  // pp = dynamic without tensor or context parallelism: DPP.
  if (allowFlexSp && dynamicPp && base.tp == 1 && base.cp == 1 &&
      setup.microBatchSeqs == 0)
    return orSearch(planJobDynamicPp(setup, lengths, train, comm));
  // sp = adaptive on its own: FlexSP's planner.
  if (allowFlexSp && strategy.getSp() == plx::SpMode::adaptive && !dynamicPp &&
      !adaptiveCkpt && base.tp == 1 && base.cp == 1 && base.pp == 1 &&
      setup.microBatchSeqs == 0) {
    adaptivesp::AdaptiveSpOptions options;
    double solver = 0;
    return orSearch(planFlexSp(setup, lengths, comm, options, solver));
  }

  // The choices the strategy leaves open, searched over static layouts:
  // Ulysses degrees (powers of two), pipeline depths (powers of two, with
  // ZeRO at most 2 when pipelined), and selective or full checkpointing.
  const int64_t heads = setup.model.shape.heads;
  std::vector<int64_t> degrees{base.ulysses}, depths{base.pp};
  if (adaptiveSp) {
    degrees.clear();
    for (int64_t d = 1; d * base.tp * base.cp * base.pp <= setup.world; d *= 2)
      if (heads % (d * base.tp) == 0)
        degrees.push_back(d);
  }
  if (dynamicPp) {
    depths.clear();
    for (int64_t p = 1;
         p <= setup.model.shape.layers && p * base.tp * base.cp <= setup.world;
         p *= 2)
      depths.push_back(p);
  }
  std::vector<cost::Checkpointing> modes{setup.model.checkpointing};
  if (adaptiveCkpt)
    modes = {cost::Checkpointing::Selective, cost::Checkpointing::Full};

  baselines::NamedPlan best, firstError;
  for (cost::Checkpointing mode : modes)
    for (int64_t p : depths)
      for (int64_t d : degrees) {
        baselines::TrainSetup s = setup;
        s.model.checkpointing = mode;
        if (p > 1)
          s.model.zero = std::min<int64_t>(s.model.zero, 2);
        lower::GroupLayout layout{d, base.tp, base.cp, p};
        baselines::NamedPlan plan =
            baselines::planStaticLayout(s, lengths, layout, comm);
        if (plan.ok() && (!best.ok() || plan.seconds() < best.seconds()))
          best = std::move(plan);
        else if (!plan.ok() && firstError.error.empty())
          firstError = std::move(plan);
      }
  if (!best.ok()) {
    firstError.name = "the strategy";
    firstError.error =
        "no static layout the strategy allows can run the batch; the "
        "smallest fails: " +
        firstError.error;
    return firstError;
  }
  // SP alone left open is FlexSP's BatchAda baseline.
  if (adaptiveSp && !dynamicPp && !adaptiveCkpt)
    best.name = "best-homogeneous-sp";
  else
    best.name = "best-static:" + best.name;
  best.plan->strategy = best.name;
  return best;
}

FailureOr<std::vector<TrainPrediction>>
predictTrainJobs(ModuleOp module, const PipelineOptions &options) {
  std::vector<TrainPrediction> predictions;
  const Clock::time_point start = Clock::now();
  auto progress = [&](const std::string &line) {
    if (options.progress && Clock::now() - start > std::chrono::seconds(1))
      options.progress(line);
  };
  bool traced = false;
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());

  for (auto trainOp : llvm::to_vector(module.getOps<plx::TrainOp>())) {
    FailureOr<TrainOps> ops = trainOps(trainOp);
    if (failed(ops))
      return failure();
    baselines::TrainSetup setup = trainSetupOf(*ops);
    std::string name = trainOp.getSymName().str();
    auto job = dyn_cast_or_null<plan::JobOp>(
        SymbolTable::lookupSymbolIn(module, name + "_job"));
    if (!job)
      return emitError(trainOp.getLoc())
             << "train job '" << name << "' has no placed plan.job";
    FailureOr<PlacedJob> placed = placedJob(job);
    if (failed(placed))
      return failure();
    const lower::RingOrders orders = ringOrdersOf(job);
    // Planners ask for isolated times; simulations add contention between
    // concurrent transfers.
    sim::FabricCommOptions isolated;
    isolated.contention = false;
    sim::CommTimeFn comm = sim::fabricCommTime(*placed->graph, placed->chips,
                                               placed->params, isolated);
    sim::CommTimeFn simComm =
        sim::fabricCommTime(*placed->graph, placed->chips, placed->params);
    instantiate::SamplerOrError sampler =
        instantiate::BatchSampler::create(datasetDescOf(ops->data));
    if (!sampler.sampler)
      return emitError(ops->data.getLoc())
             << "dataset '" << ops->data.getSymName()
             << "': cannot draw batches: " << sampler.error;

    TrainPrediction pred;
    pred.job = name;
    pred.steps = trainOp.getSteps();
    if (setup.world > options.maxSimulatedRanks) {
      // Planning costs every group's collectives on the fabric, which is
      // as out of reach as simulating them at this size.
      pred.notSimulated = std::to_string(setup.world) +
                          " ranks is more than plxc plans and simulates (" +
                          std::to_string(options.maxSimulatedRanks) +
                          "; --max-simulated-ranks)";
      predictions.push_back(std::move(pred));
      continue;
    }

    Accumulator primary;
    std::vector<Accumulator> baselineAcc;
    std::vector<baselines::NamedPlan> family; // baseline layouts of step 0
    size_t standardCount = 0; // family[standardCount..]: DPP job's extras
    for (int64_t step = 0; step < pred.steps; ++step) {
      instantiate::Batch batch = sampler.sampler->draw(
          trainOp.getBatch(), step, static_cast<uint64_t>(trainOp.getSeed()));
      if (!batch.ok())
        return emitError(trainOp.getLoc())
               << "train job '" << name << "': cannot draw step " << step
               << ": " << batch.error;
      if (step == 0)
        pred.lengths = batch.lengths;
      progress("plxc: job '" + name + "': planning step " +
               std::to_string(step));

      // Baselines: chosen on step 0, kept for the later steps.
      std::vector<baselines::NamedPlan> plans;
      if (step == 0) {
        plans = baselines::standardBaselines(setup, batch.lengths, comm);
        standardCount = plans.size();
        if (trainOp.getStrategy().getPp() == plx::PpMode::dynamic) {
          progress("plxc: job '" + name + "': planning the DPP baselines");
          for (baselines::NamedPlan &p :
               dynamicPpBaselines(setup, batch.lengths, trainOp, comm))
            plans.push_back(std::move(p));
        }
        family = plans;
        baselineAcc.resize(plans.size());
        for (size_t i = 0; i < plans.size(); ++i)
          baselineAcc[i].outcome.name = plans[i].name;
      } else {
        for (size_t i = 0; i < standardCount; ++i) {
          baselines::TrainSetup s = setup;
          s.model = family[i].model;
          plans.push_back(baselines::planStaticLayout(s, batch.lengths,
                                                      family[i].layout, comm));
        }
        // The DPP job's extra baselines are planned again by their own
        // planners (they keep step 0's names in the report).
        if (family.size() > standardCount)
          for (baselines::NamedPlan &p :
               dynamicPpBaselines(setup, batch.lengths, trainOp, comm))
            plans.push_back(std::move(p));
      }

      baselines::NamedPlan mine =
          planJobStrategy(setup, batch.lengths, trainOp, comm);
      primary.outcome.name = mine.name;
      if (!mine.ok())
        return emitError(trainOp.getLoc())
               << "train job '" << name << "': cannot plan step " << step
               << " with " << mine.name << ": " << mine.error;
      addPlanned(primary, mine, step);
      pred.solverSeconds += mine.solverSeconds;
      if (step == 0)
        pred.note = mine.note;
      if (step == 0 && mine.plan) {
        pred.plan = *mine.plan;
        // The job's plan as plan IR, beside its plan.job.
        buildStepOp(builder, trainOp.getLoc(), name + "_step0", 0, name,
                    *mine.plan,
                    mine.model.zero != setup.model.zero ? mine.model.zero : -1);
      } else if (step == 0) {
        pred.pipelined = *mine.pipelined;
        buildPipelinedStepOp(builder, trainOp.getLoc(), name + "_step0", 0,
                             name, *mine.pipelined);
      }
      for (size_t i = 0; i < plans.size(); ++i)
        addPlanned(baselineAcc[i], plans[i], step);

      std::string trace;
      if (!traced && step == 0 && !options.tracePath.empty()) {
        trace = options.tracePath;
        traced = true;
      }
      progress("plxc: job '" + name + "': simulating " + mine.name);
      if (std::string error =
              simulatePlan(primary, mine, simComm, orders, trace);
          !error.empty())
        return emitError(trainOp.getLoc())
               << "train job '" << name << "': " << error;
      for (size_t i = 0; i < plans.size(); ++i) {
        if (!plans[i].ok())
          continue;
        progress("plxc: job '" + name + "': simulating " + plans[i].name);
        if (std::string error =
                simulatePlan(baselineAcc[i], plans[i], simComm, orders, "");
            !error.empty())
          return emitError(trainOp.getLoc())
                 << "train job '" << name << "': " << error;
      }
    }
    finish(primary, pred.steps, setup.model.chip.bf16Flops);
    pred.primary = primary.outcome;
    for (Accumulator &acc : baselineAcc) {
      finish(acc, pred.steps, setup.model.chip.bf16Flops);
      pred.baselines.push_back(acc.outcome);
    }
    predictions.push_back(std::move(pred));
  }
  return predictions;
}

namespace {

nlohmann::ordered_json outcomeJson(const PlanOutcome &o, bool brief) {
  nlohmann::ordered_json j;
  if (!o.ok()) {
    j["infeasible"] = o.error;
    return j;
  }
  if (!brief) {
    nlohmann::ordered_json layout;
    layout["sp"] = o.layout.ulysses;
    layout["tp"] = o.layout.tp;
    layout["cp"] = o.layout.cp;
    layout["pp"] = o.layout.pp;
    j["layout"] = layout;
    j["zero"] = o.zero;
  }
  if (o.pipelines > 0) {
    j["pipelines"] = o.pipelines;
    j["chunks"] = o.microBatches;
  } else {
    j["microbatches"] = o.microBatches;
  }
  j["planned_step_time_s"] = o.plannedSeconds;
  if (o.simulated) {
    j["predicted_step_time_s"] = o.predictedSeconds;
    j["mfu"] = o.mfu ? nlohmann::ordered_json(*o.mfu) : nullptr;
  }
  return j;
}

} // namespace

nlohmann::ordered_json pipelinesJson(const lower::PipelinedStepPlan &plan) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const lower::PlannedPipeline &pipe : plan.pipelines) {
    nlohmann::ordered_json chunks = nlohmann::ordered_json::array();
    for (const lower::PlannedChunk &c : pipe.chunks) {
      nlohmann::ordered_json slices = nlohmann::ordered_json::array();
      for (const lower::ChunkSlice &sl : c.slices) {
        nlohmann::ordered_json slice;
        slice["sequence"] = sl.sequence;
        slice["begin"] = sl.begin;
        slice["end"] = sl.end;
        slice["context"] = sl.begin; // the same sequence's earlier tokens
        slices.push_back(std::move(slice));
      }
      nlohmann::ordered_json chunk;
      chunk["kind"] = c.kind;
      chunk["slices"] = std::move(slices);
      chunk["planned_time_s"] = c.seconds;
      chunks.push_back(std::move(chunk));
    }
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (int64_t st = 0; st < plan.stages; ++st) {
      std::vector<int64_t> row(pipe.chunks.size(), 0);
      if (static_cast<size_t>(st) < pipe.remat.size())
        row = pipe.remat[static_cast<size_t>(st)];
      layers.push_back(row);
    }
    nlohmann::ordered_json entry;
    entry["chunks"] = std::move(chunks);
    entry["backward_order"] = pipe.backward;
    entry["checkpoint_layers"] = std::move(layers);
    entry["planned_time_s"] = pipe.seconds;
    entry["planned_bubble_ratio"] = pipe.bubbleRatio;
    out.push_back(std::move(entry));
  }
  return out;
}

nlohmann::ordered_json predictionJson(const TrainPrediction &p) {
  nlohmann::ordered_json j;
  if (!p.notSimulated.empty() && p.primary.name.empty()) {
    j["not_planned"] = p.notSimulated;
    return j;
  }
  nlohmann::ordered_json plan = outcomeJson(p.primary, false);
  plan.erase("planned_step_time_s");
  plan.erase("predicted_step_time_s");
  plan.erase("mfu");
  plan["strategy"] = p.primary.name;
  if (p.primary.name == "flexsp")
    plan["layout"]["sp"] = "adaptive"; // a degree per group: microbatches
  if (!p.note.empty())
    plan["note"] = p.note;
  j["plan"] = plan;
  if (p.pipelined)
    j["pipelines"] = pipelinesJson(*p.pipelined);
  // Step 0's groups: which ranks run which sequences.
  nlohmann::ordered_json mbs = nlohmann::ordered_json::array();
  for (const lower::PlannedMicroBatch &mb : p.plan.microBatches) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const lower::PlannedGroup &g : mb.groups) {
      nlohmann::ordered_json group;
      group["degree"] = g.layout.degree();
      group["ranks"] = {g.firstRank, g.firstRank + g.layout.degree() - 1};
      group["sequences"] = g.seqs;
      groups.push_back(std::move(group));
    }
    nlohmann::ordered_json entry;
    entry["sp_groups"] = std::move(groups);
    mbs.push_back(std::move(entry));
  }
  if (!p.pipelined)
    j["microbatches"] = std::move(mbs);
  // The one wall-clock figure of the report (not deterministic).
  j["solver_time_s"] = p.solverSeconds;
  j["sequence_lengths"] = p.lengths;
  j["steps_predicted"] = p.steps;
  j["planned_step_time_s"] = p.primary.plannedSeconds;
  {
    j["predicted_step_time_s"] = p.primary.predictedSeconds;
    j["mfu"] = p.primary.mfu ? nlohmann::ordered_json(*p.primary.mfu) : nullptr;
    j["peak_memory_bytes"] = p.primary.peakMemoryBytes;
    nlohmann::ordered_json split;
    split["compute_s"] = p.primary.computeSeconds;
    split["communication_s"] = p.primary.commSeconds;
    split["bubble_s"] = p.primary.bubbleSeconds;
    split["recompute_s"] = p.primary.recomputeSeconds;
    j["time_split"] = split;
    if (p.pipelined) {
      j["bubble_ratio"] =
          p.primary.predictedSeconds > 0
              ? p.primary.bubbleSeconds / p.primary.predictedSeconds
              : 0.0;
      j["planned_bubble_ratio"] = p.pipelined->bubbleRatio;
    }
  }
  nlohmann::ordered_json baselines = nlohmann::ordered_json::object();
  for (const PlanOutcome &o : p.baselines)
    baselines[o.name] = outcomeJson(o, true);
  j["baselines"] = baselines;
  return j;
}

} // namespace plexus::train
