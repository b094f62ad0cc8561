//===- TrainPipeline.cpp - Plan, lower and simulate each train job --------===//
#include "passes/Train/TrainPipeline.h"
#include "dialects/Common/ByteText.h"
#include "passes/Train/ProgressMeter.h"

#include "passes/Lower/StepLowering.h"
#include "passes/Report/ReportAttr.h"
#include "passes/Train/AlternativePlans.h"
#include "passes/Simulate/ChromeTrace.h"
#include "passes/Simulate/FabricCommTime.h"
#include "passes/Train/DppPlanning.h"
#include "passes/Train/FlexSpModel.h"
#include "passes/Train/PipelineStepIR.h"
#include "passes/Train/Replicas.h"
#include "passes/Train/StepBound.h"
#include "passes/Train/TrainJob.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

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
    acc.outcome.checkpoint = plan.checkpointName();
    acc.outcome.checkpointLayers =
        plan.checkpointLabel.empty() ? plan.model.checkpointLayers : 0;
    acc.outcome.zeroOnDemand =
        plan.model.zero == 3 && plan.model.zeroPrefetch == 0;
    if (plan.plan) {
      acc.outcome.microBatches =
          static_cast<int64_t>(plan.plan->microBatches.size());
    } else {
      acc.outcome.pipelines =
          static_cast<int64_t>(plan.pipelined->pipelines.size());
      for (const step::PlannedPipeline &p : plan.pipelined->pipelines)
        acc.outcome.microBatches += static_cast<int64_t>(p.chunks.size());
    }
  }
  acc.outcome.plannedSeconds += plan.seconds();
  acc.outcome.surrogateSeconds += plan.seconds();
}

void finish(Accumulator &acc, int64_t steps, double peakFlops) {
  PlanOutcome &o = acc.outcome;
  if (!o.ok())
    return;
  double s = double(std::max<int64_t>(1, steps));
  o.plannedSeconds /= s;
  o.surrogateSeconds /= s;
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

int64_t layersPerOpFor(const step::StepPlan &plan,
                       const step::TrainModel &model, int64_t opBudget) {
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

int64_t layersPerOpFor(const step::PipelinedStepPlan &plan,
                       const step::TrainModel &model, int64_t opBudget) {
  const int64_t stages = std::max<int64_t>(1, plan.stages);
  const int64_t stageLayers =
      std::max<int64_t>(1, (model.shape.layers + stages - 1) / stages);
  double chunks = 0;
  for (const step::PlannedPipeline &p : plan.pipelines)
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
                            const prog::CommTimeFn &comm,
                            const lower::RingOrders *orders, bool keepSpans,
                            int64_t replicas,
                            const prog::CommTimeFn &passComm) {
  StepSimulation out;
  lower::LoweringOptions lowering;
  lowering.replicas = replicas;
  lowering.passCommTime = passComm;
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
  // MFU against the peak the model's GEMMs run at (its dtype's).
  options.peakFlopsPerRank =
      plan.model.rates().gemmPeak(plan.model.shape.dtype);
  options.keepSpans = keepSpans;
  options.replicas = replicas;
  options.overlap = cost::Overlap::of(plan.model.chip);
  out.flops = lowered.totalFlops;
  out.result = sim::simulate(lowered.programs, options);
  if (!out.result.ok()) {
    out.error = "cannot simulate " + plan.name + ": " + out.result.error;
    return out;
  }
  out.seconds = out.result.stepSeconds;
  out.mfu = out.result.mfu;
  out.resident = std::move(lowered.resident);
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
  case plx::Checkpoint::attention_mlp: // DPP checkpoints whole layers
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
    plx::TrainOp train, const prog::CommTimeFn &comm, dpp::ChunkingMode mode,
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
  baselines::NamedPlan plan =
      planDynamicPp(setup, lengths, comm, *layout, options, name);
  plan.checkpointLabel = ckpt::strategyName(checkpointing);
  return plan;
}

} // namespace

baselines::NamedPlan planJobDynamicPp(const baselines::TrainSetup &setup,
                                      const std::vector<int64_t> &lengths,
                                      plx::TrainOp train,
                                      const prog::CommTimeFn &comm) {
  return planDppVariant(
      setup, lengths, train, comm, dpp::ChunkingMode::WorkloadBalanced,
      dppCheckpointing(train.getStrategy().getCheckpoint()), "dpp");
}

baselines::NamedPlan planFlexSpBaseline(const baselines::TrainSetup &setup,
                                        const std::vector<int64_t> &lengths,
                                        const prog::CommTimeFn &comm,
                                        const StageFn &stage) {
  adaptivesp::AdaptiveSpOptions options;
  options.progress = stage;
  double solver = 0;
  baselines::NamedPlan flexsp =
      planFlexSp(setup, lengths, comm, options, solver);
  if (flexsp.ok() || setup.model.fullEverywhere())
    return flexsp;
  baselines::TrainSetup full = setup;
  full.model = full.model.withCheckpointing(cost::Checkpointing::Full);
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
                   const prog::CommTimeFn &comm, const StageFn &stage) {
  auto tell = [&](const std::string &what) {
    if (stage)
      stage(what);
  };
  std::vector<baselines::NamedPlan> out;
  tell("FlexSP (1 of 3)");
  out.push_back(planFlexSpBaseline(setup, lengths, comm, stage));
  tell("packed 1F1B (2 of 3)");
  out.push_back(
      planDppVariant(setup, lengths, train, comm, dpp::ChunkingMode::Packed,
                     ckpt::CheckpointStrategy::Uniform, "packed-1f1b"));
  tell("Seq1F1B (3 of 3)");
  out.push_back(planDppVariant(setup, lengths, train, comm,
                               dpp::ChunkingMode::EvenTokens,
                               ckpt::CheckpointStrategy::Uniform, "seq1f1b"));
  return out;
}

baselines::NamedPlan
planJobStrategy(const baselines::TrainSetup &setup,
                const std::vector<int64_t> &lengths, plx::TrainOp train,
                const prog::CommTimeFn &comm, bool allowFlexSp,
                std::vector<baselines::NamedPlan> *finalists,
                const StageFn &stage) {
  auto tell = [&](const std::string &what) {
    if (stage)
      stage(what);
  };
  const plx::TrainStrategyAttr strategy = train.getStrategy();
  const step::GroupLayout base = strategyLayout(train);
  const bool adaptiveSp = strategy.getSp() != plx::SpMode::static_;
  const bool dynamicPp = strategy.getPp() != plx::PpMode::static_;
  const bool adaptiveCkpt =
      strategy.getCheckpoint() == plx::Checkpoint::adaptive;
  if (!adaptiveSp && !dynamicPp && !adaptiveCkpt)
    return baselines::planStaticLayout(setup, lengths, base, comm);
  // A planner's plan, else the searched static layouts below; when those
  // fail too, the error says why the planner could not plan either.
  auto orSearch = [&](baselines::NamedPlan planned) {
    if (planned.ok()) {
      // The static layouts the strategy generalises are finalists too.
      if (finalists) {
        baselines::NamedPlan searched =
            planJobStrategy(setup, lengths, train, comm,
                            /*allowFlexSp=*/false, finalists, stage);
        if (searched.ok())
          finalists->insert(finalists->begin(), std::move(searched));
      }
      return planned;
    }
    baselines::NamedPlan fallback = planJobStrategy(
        setup, lengths, train, comm, /*allowFlexSp=*/false, finalists, stage);
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
      setup.microBatchSeqs == 0) {
    tell("the dynamic pipelines (DPP: chunking, pipeline groups, "
         "checkpointing)");
    return orSearch(planJobDynamicPp(setup, lengths, train, comm));
  }
  // sp = adaptive on its own: FlexSP's planner.
  if (allowFlexSp && strategy.getSp() == plx::SpMode::adaptive && !dynamicPp &&
      !adaptiveCkpt && base.tp == 1 && base.cp == 1 && base.pp == 1 &&
      setup.microBatchSeqs == 0) {
    adaptivesp::AdaptiveSpOptions options;
    options.progress = stage;
    double solver = 0;
    tell("FlexSP's SP groups");
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

  baselines::NamedPlan firstError;
  std::vector<baselines::NamedPlan> feasible;
  const size_t layouts = modes.size() * depths.size() * degrees.size();
  size_t tried = 0;
  for (cost::Checkpointing mode : modes)
    for (int64_t p : depths)
      for (int64_t d : degrees) {
        if (layouts > 1)
          tell("static layout " + std::to_string(++tried) + " of " +
               std::to_string(layouts) + " (sp " + std::to_string(d) + ", pp " +
               std::to_string(p) + ", " + cost::checkpointingName(mode) +
               " checkpointing)");
        baselines::TrainSetup s = setup;
        s.model = s.model.withCheckpointing(mode);
        if (p > 1)
          s.model.zero = std::min<int64_t>(s.model.zero, 2);
        step::GroupLayout layout{d, base.tp, base.cp, p};
        if (p == base.pp)
          layout.vpp = base.vpp;
        // A depth the planner chooses is also tried interleaved.
        std::vector<step::GroupLayout> variants{layout};
        if (dynamicPp && p > 1 &&
            p * baselines::kBaselineVirtualStages <= setup.model.shape.layers) {
          step::GroupLayout interleaved = layout;
          interleaved.vpp = baselines::kBaselineVirtualStages;
          variants.push_back(interleaved);
        }
        for (const step::GroupLayout &l : variants) {
          baselines::NamedPlan plan =
              baselines::planStaticLayout(s, lengths, l, comm);
          if (plan.ok())
            feasible.push_back(std::move(plan));
          else if (firstError.error.empty())
            firstError = std::move(plan);
        }
      }
  // Fastest estimate first; ties keep the search order (smaller first).
  std::stable_sort(feasible.begin(), feasible.end(),
                   [](const baselines::NamedPlan &a,
                      const baselines::NamedPlan &b) {
                     return a.seconds() < b.seconds();
                   });
  baselines::NamedPlan best;
  if (!feasible.empty())
    best = std::move(feasible.front());
  if (!best.ok()) {
    firstError.name = "the strategy";
    firstError.error =
        "no static layout the strategy allows can run the batch; the "
        "smallest fails: " +
        firstError.error;
    return firstError;
  }
  // SP alone left open is FlexSP's BatchAda baseline.
  auto rename = [&](baselines::NamedPlan &plan) {
    if (adaptiveSp && !dynamicPp && !adaptiveCkpt)
      plan.name = "best-homogeneous-sp:" + plan.name;
    else
      plan.name = "best-static:" + plan.name;
    plan.plan->strategy = plan.name;
  };
  rename(best);
  if (finalists)
    for (size_t i = 1; i < feasible.size() && i <= kStaticFinalists; ++i) {
      rename(feasible[i]);
      finalists->push_back(std::move(feasible[i]));
    }
  return best;
}

std::string strategyExcludes(plx::TrainOp train,
                             const baselines::TrainSetup &setup,
                             const baselines::NamedPlan &plan,
                             bool packedByMemory) {
  const plx::TrainStrategyAttr s = train.getStrategy();
  const step::GroupLayout &l = plan.layout;
  const bool pipelined = plan.pipelined.has_value();
  const bool adaptiveGroups = !pipelined && plan.plan &&
                              plan.name.rfind("flexsp", 0) == 0;
  const int64_t depth = l.pp;
  std::vector<std::string> why;
  auto fixed = [&](const std::string &what, const std::string &field,
                   int64_t value) {
    why.push_back(what + " (the strategy fixes " + field + " = " +
                  std::to_string(value) + ")");
  };
  // Ulysses: FlexSP's mixed groups need sp = adaptive; a static degree
  // admits only itself (DPP: per stage).
  if (adaptiveGroups && s.getSp() != plx::SpMode::adaptive)
    why.push_back(s.getSp() == plx::SpMode::static_
                      ? "adaptive SP groups (the strategy fixes sp = " +
                            std::to_string(s.getSpDegree()) + ")"
                      : "adaptive SP groups (the strategy asks for one "
                        "degree per batch)");
  else if (!adaptiveGroups && s.getSp() == plx::SpMode::static_ &&
           l.ulysses != s.getSpDegree() &&
           !(pipelined && dppSpDegreeOf(train) == 0))
    fixed("sp " + std::to_string(l.ulysses), "sp", s.getSpDegree());
  if (l.tp != s.getTp())
    fixed("tp " + std::to_string(l.tp), "tp", s.getTp());
  if (l.cp != s.getCp())
    fixed("cp " + std::to_string(l.cp), "cp", s.getCp());
  if (s.getPp() == plx::PpMode::static_) {
    if (pipelined)
      fixed("a dynamic pipeline", "pp", s.getPpDegree());
    else if (depth != s.getPpDegree())
      fixed("pp " + std::to_string(depth), "pp", s.getPpDegree());
  }
  // Interleaving: a pipeline's model chunks per stage are fixed too.
  if (!pipelined && depth > 1 && s.getPp() == plx::PpMode::static_ &&
      l.vpp != s.getVirtualStages())
    fixed(l.vpp > 1 ? std::to_string(l.vpp) + " model chunks per stage"
                    : "plain 1F1B",
          "virtual_stages", s.getVirtualStages());
  // Checkpointing: `adaptive` admits any; DPP's uniform count stands for
  // `selective`.
  if (s.getCheckpoint() != plx::Checkpoint::adaptive) {
    const cost::Checkpointing planned =
        pipelined ? cost::Checkpointing::Selective : plan.model.checkpointing;
    const bool sameDpp =
        pipelined && plan.name == "dpp"; // the job's own checkpointing
    if (!sameDpp && planned != setup.model.checkpointing) {
      why.push_back(std::string(cost::checkpointingName(planned)) +
                    " checkpointing (the strategy fixes checkpoint = " +
                    cost::checkpointingName(setup.model.checkpointing) + ")");
    }
  }
  // ZeRO: the job's stage; a pipeline the planner chose runs at most 2.
  const int64_t zero = setup.model.zero;
  const bool plannerPipeline =
      s.getPp() == plx::PpMode::dynamic && (depth > 1 || pipelined);
  // DPP's own plan runs ZeRO-3 inside each stage whatever the job's stage.
  const bool ownDpp = pipelined && plan.name == "dpp";
  if (plan.model.zero != zero && !ownDpp &&
      !(plannerPipeline && plan.model.zero == std::min<int64_t>(zero, 2)))
    fixed("ZeRO-" + std::to_string(plan.model.zero), "zero", zero);
  if (packedByMemory && setup.microBatchSeqs > 0)
    why.push_back("micro-batches packed by memory (the strategy fixes "
                  "micro_batch = " +
                  std::to_string(setup.microBatchSeqs) + ")");
  std::string text;
  for (const std::string &w : why)
    text += (text.empty() ? "" : ", ") + w;
  return text;
}

namespace {

/// One plan of one step, judged: lowered, simulated on the placed chips
/// with contention, and every rank's peak held against the usable memory.
struct Judged {
  baselines::NamedPlan plan;
  StepSimulation sim;
  std::string error; ///< the planner's, the simulator's, or memory's
  int64_t peakBytes = 0, peakRank = 0;
  bool ok() const { return error.empty(); }
  double predicted() const { return sim.seconds; }
};

/// "2.41 s" or "7.97 ms", three significant digits.
std::string durationText(double seconds) {
  char buffer[48];
  if (seconds >= 1 || seconds == 0)
    std::snprintf(buffer, sizeof(buffer), "%.3g s", seconds);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3g ms", seconds * 1e3);
  return buffer;
}

std::string gigabytes(int64_t bytes) { return bytesText(double(bytes)); }

/// What would bring a plan's memory down, for its layout.
std::string memoryKnob(const baselines::NamedPlan &plan) {
  std::vector<std::string> knobs;
  if (!plan.model.fullEverywhere())
    knobs.push_back("checkpoint more layers");
  if (plan.model.zero < 3 && plan.layout.pp == 1 && !plan.pipelined)
    knobs.push_back("use zero = 3");
  knobs.push_back("raise tp or pp");
  knobs.push_back("lower memory_reserve only if the reserve is too large");
  std::string text;
  for (size_t i = 0; i < knobs.size(); ++i)
    text += (i == 0 ? "" : i + 1 == knobs.size() ? " or " : ", ") + knobs[i];
  return text;
}

Judged judge(baselines::NamedPlan plan, const baselines::TrainSetup &setup,
             const prog::CommTimeFn &comm, const lower::RingOrders &orders,
             int64_t replicas, const prog::CommTimeFn &passComm) {
  Judged j;
  j.plan = std::move(plan);
  if (!j.plan.ok()) {
    j.error = j.plan.error;
    return j;
  }
  // Spans only for a trace (simulated again then): the totals need none.
  j.sim = simulateStep(j.plan, comm, &orders, /*keepSpans=*/false, replicas,
                       passComm);
  if (!j.sim.error.empty()) {
    j.error = j.sim.error;
    return j;
  }
  const std::vector<sim::RankResult> &ranks = j.sim.result.ranks;
  for (size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r].peakMemoryBytes > j.peakBytes) {
      j.peakBytes = ranks[r].peakMemoryBytes;
      j.peakRank = static_cast<int64_t>(r);
    }
  if (j.peakBytes > setup.memoryBytes)
    j.error = "needs " + gigabytes(j.peakBytes) + " on rank " +
              std::to_string(j.peakRank) + ", more than the " +
              gigabytes(setup.memoryBytes) + " a chip holds (" +
              gigabytes(setup.model.chip.hbmBytes) + " of HBM less a " +
              gigabytes(setup.memoryReserveBytes) + " reserve" +
              (setup.memoryBytes <
                       setup.model.chip.hbmBytes - setup.memoryReserveBytes
                   ? ", within the memory_limit"
                   : "") +
              "); " + memoryKnob(j.plan);
  return j;
}

/// Adds one judged step to a plan's outcome. `rankedBySimulator`: the
/// planner chose this plan among finalists by their simulated times, which
/// are then its estimate.
void accumulate(Accumulator &acc, const Judged &j, int64_t step,
                bool rankedBySimulator = false) {
  if (!j.ok()) {
    if (acc.outcome.error.empty())
      acc.outcome.error =
          step == 0 ? j.error : "step " + std::to_string(step) + ": " + j.error;
    return;
  }
  addPlanned(acc, j.plan, step);
  if (rankedBySimulator)
    acc.outcome.plannedSeconds += j.predicted() - j.plan.seconds();
  const sim::SimResult &result = j.sim.result;
  PlanOutcome &o = acc.outcome;
  o.simulated = true;
  o.predictedSeconds += result.stepSeconds;
  acc.flops += j.sim.flops;
  acc.rankSeconds += result.stepSeconds * double(result.ranks.size());
  if (o.peakMemoryBytes.size() < result.ranks.size()) {
    o.peakMemoryBytes.resize(result.ranks.size(), 0);
    o.peakResident.resize(result.ranks.size());
  }
  double n = double(result.ranks.size());
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    const sim::RankResult &rr = result.ranks[r];
    if (rr.peakMemoryBytes > o.peakMemoryBytes[r]) {
      o.peakMemoryBytes[r] = rr.peakMemoryBytes;
      if (r < j.sim.resident.size())
        o.peakResident[r] = j.sim.resident[r];
    }
    o.computeSeconds += rr.computeSeconds / n;
    o.commSeconds += rr.commSeconds / n;
    o.bubbleSeconds += rr.idleSeconds / n;
    for (double seconds : rr.recomputeSpanSeconds)
      o.recomputeSeconds += seconds / n;
  }
}

/// A judged plan as one row of the exploration (step 0 alone).
ExploredPlan explore(const Judged &j, std::string role, double peakFlops) {
  ExploredPlan e;
  e.role = std::move(role);
  Accumulator acc;
  acc.outcome.name = j.plan.name;
  if (j.ok()) {
    accumulate(acc, j, 0);
    finish(acc, 1, peakFlops);
  } else {
    if (j.plan.ok())
      addPlanned(acc, j.plan, 0);
    acc.outcome.error = j.error;
  }
  e.outcome = std::move(acc.outcome);
  e.peakBytes = j.peakBytes;
  return e;
}

/// The same plan twice: same layout, ZeRO, checkpointing and packing.
std::string planKey(const baselines::NamedPlan &p, bool packedByMemory) {
  const step::GroupLayout &l = p.layout;
  return std::to_string(l.ulysses) + "/" + std::to_string(l.tp) + "/" +
         std::to_string(l.cp) + "/" + std::to_string(l.pp) + "/z" +
         std::to_string(p.model.zero) + "/c" +
         std::to_string(static_cast<int>(p.model.checkpointing)) +
         (packedByMemory ? "/m" : "/f") + (p.pipelined ? "/dpp" : "") +
         (p.name.rfind("flexsp", 0) == 0 ? "/flexsp" : "");
}

/// The pipeline depths a strategy allows, for the bound.
BoundChoices boundChoicesOf(plx::TrainOp train,
                            const baselines::TrainSetup &setup) {
  const plx::TrainStrategyAttr s = train.getStrategy();
  BoundChoices c;
  c.tp = s.getTp();
  if (s.getPp() == plx::PpMode::static_) {
    c.pipelineDepths = {s.getPpDegree()};
    return c;
  }
  c.pipelineDepths.clear();
  for (int64_t p = 1; p <= setup.model.shape.layers && p <= setup.world; ++p)
    if (setup.world % p == 0)
      c.pipelineDepths.push_back(p);
  return c;
}

} // namespace

namespace {

/// What every stage needs of a train job: its ops and setup, the chips
/// plx-place gave it and a sampler of its batches. `error` (emitted at
/// `errorLoc` when set) says why the job cannot be planned; `notPlanned`
/// why it is not (more ranks than the guard).
struct JobContext {
  plx::TrainOp train;
  TrainOps ops;
  baselines::TrainSetup setup;
  std::optional<PlacedJob> placed;
  lower::RingOrders orders;
  /// Isolated times on the placed chips: what planners cost with.
  prog::CommTimeFn comm;
  std::optional<instantiate::BatchSampler> sampler;
  /// The job as data-parallel replicas (Replicas.h): setup.world is one
  /// replica's ranks, jobWorld the job's.
  ReplicaFold fold;
  int64_t jobWorld = 0;
  std::string error, notPlanned;
  std::optional<Location> errorLoc;
  bool ok() const { return error.empty() && notPlanned.empty(); }
};

/// Heap-allocated: `comm` refers to the placed fabric it was built on.
std::unique_ptr<JobContext> jobContext(ModuleOp module, plx::TrainOp trainOp,
                                       int64_t maxSimulatedRanks,
                                       int64_t maxReplicaRanks) {
  auto ctx = std::make_unique<JobContext>();
  ctx->train = trainOp;
  const std::string name = trainOp.getSymName().str();
  FailureOr<TrainOps> ops = trainOps(trainOp);
  if (failed(ops)) {
    ctx->error = "the job names a declaration that is not in the spec";
    return ctx;
  }
  ctx->ops = *ops;
  ctx->setup = trainSetupOf(*ops);
  auto job = dyn_cast_or_null<plan::JobOp>(
      SymbolTable::lookupSymbolIn(module, name + "_job"));
  if (!job) {
    ctx->error = "train job '" + name + "' has no placed plan";
    ctx->errorLoc = trainOp.getLoc();
    return ctx;
  }
  FailureOr<PlacedJob> placed = placedJob(job);
  if (failed(placed)) {
    ctx->error = "the job's placement cannot be read";
    return ctx;
  }
  ctx->placed = std::move(*placed);
  ctx->orders = ringOrdersOf(job);
  // Planners ask for isolated times; simulations add contention between
  // concurrent transfers.
  sim::FabricCommOptions isolated;
  isolated.contention = false;
  ctx->comm = sim::fabricCommTime(*ctx->placed->graph, ctx->placed->chips,
                                  ctx->placed->params, isolated);
  instantiate::SamplerOrError sampler =
      instantiate::BatchSampler::create(datasetDescOf(ops->data));
  if (!sampler.value.has_value()) {
    ctx->error = "dataset '" + ops->data.getSymName().str() +
                 "': cannot draw batches: " + sampler.error;
    ctx->errorLoc = ops->data.getLoc();
    return ctx;
  }
  ctx->sampler = std::move(sampler.value);
  ctx->jobWorld = ctx->setup.world;
  if (ctx->setup.world > maxSimulatedRanks) {
    ctx->notPlanned = std::to_string(ctx->setup.world) +
                      " ranks is more than plxc plans and simulates (" +
                      std::to_string(maxSimulatedRanks) +
                      "; --max-simulated-ranks)";
    return ctx;
  }
  // A dynamic-pipeline job's replicas must be DPP layouts: stages of its
  // SP degree (a node's chips unless fixed) that divide the layers.
  std::function<bool(int64_t)> plannable;
  if (trainOp.getStrategy().getPp() == plx::PpMode::dynamic) {
    const int64_t sp = dppSpDegreeOf(trainOp) > 0 ? dppSpDegreeOf(trainOp)
                                                  : ctx->setup.chipsPerNode;
    const int64_t layers = ctx->setup.model.shape.layers;
    plannable = [sp, layers](int64_t ranks) {
      return sp > 0 && ranks % sp == 0 && ranks / sp <= layers &&
             layers % (ranks / sp) == 0;
    };
  }
  ctx->fold = foldReplicas(ctx->setup.world, ctx->setup.chipsPerNode,
                           maxReplicaRanks, trainOp.getBatch(), plannable);
  if (!ctx->fold.ok())
    ctx->notPlanned = ctx->fold.error + " (--max-replica-ranks)";
  else
    ctx->setup.world = ctx->fold.ranks;
  return ctx;
}

/// jobContext without the diagnostics its readers emit (plx-predict-train
/// emits them, once).
std::unique_ptr<JobContext> quietJobContext(ModuleOp module,
                                            plx::TrainOp trainOp,
                                            int64_t maxSimulatedRanks,
                                            int64_t maxReplicaRanks) {
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  return jobContext(module, trainOp, maxSimulatedRanks, maxReplicaRanks);
}

/// Step `step`'s batch of the job: of a job folded into replicas, the
/// heaviest replica's share (`share`, when given, gets it).
instantiate::Batch drawStep(const JobContext &ctx, int64_t step,
                            BatchShare *share = nullptr) {
  plx::TrainOp train = ctx.train;
  instantiate::Batch batch = ctx.sampler->draw(
      train.getBatch(), step, static_cast<uint64_t>(train.getSeed()));
  if (batch.ok() && ctx.fold.replicas > 1) {
    BatchShare heaviest = heaviestShare(ctx.setup.model.shape, batch.lengths,
                                        ctx.fold.replicas);
    batch.lengths = heaviest.lengths;
    if (share)
      *share = std::move(heaviest);
  }
  return batch;
}

/// Progress lines (ProgressMeter.h): a stage is printed once it has run
/// for a second, or as it starts once the pass has.
struct Progress : ProgressMeter {
  using ProgressMeter::ProgressMeter;
  void operator()(std::string line) { stage(std::move(line)); }
};

} // namespace

LogicalResult planStrategyAlternatives(ModuleOp module,
                                       const PlanningOptions &options) {
  Progress progress{options.progress};
  OpBuilder builder(module.getContext());
  for (auto trainOp : llvm::to_vector(module.getOps<plx::TrainOp>())) {
    const std::string name = trainOp.getSymName().str();
    eraseAlternatives(module, name, plan::Role::candidate);
    // A job that cannot be planned is reported by plx-predict-train, which
    // emits its diagnostics; here they would come once per stage.
    std::unique_ptr<JobContext> ctx = quietJobContext(
        module, trainOp, options.maxSimulatedRanks, options.maxReplicaRanks);
    if (!ctx->ok())
      continue;
    builder.setInsertionPointToEnd(module.getBody());
    for (int64_t step = 0; step < trainOp.getSteps(); ++step) {
      instantiate::Batch batch = drawStep(*ctx, step);
      if (!batch.ok())
        break;
      const std::string planning = "plxc: job '" + name +
                                   "': planning step " +
                                   std::to_string(step + 1) + " of " +
                                   std::to_string(trainOp.getSteps());
      progress(planning);
      std::vector<baselines::NamedPlan> finalists;
      baselines::NamedPlan mine = planJobStrategy(
          ctx->setup, batch.lengths, trainOp, ctx->comm, true, &finalists,
          [&](const std::string &what) { progress(planning + ": " + what); });
      // The planner's plan first, then the static layouts it generalises.
      if (!buildAlternative(builder, trainOp.getLoc(), name, step,
                            plan::Role::candidate, 0, mine, ctx->setup))
        return failure();
      for (size_t k = 0; k < finalists.size(); ++k)
        if (!buildAlternative(builder, trainOp.getLoc(), name, step,
                              plan::Role::candidate, k + 1, finalists[k],
                              ctx->setup))
          return failure();
    }
  }
  return success();
}

LogicalResult planBaselineAlternatives(ModuleOp module,
                                       const PlanningOptions &options) {
  Progress progress{options.progress};
  OpBuilder builder(module.getContext());
  for (auto trainOp : llvm::to_vector(module.getOps<plx::TrainOp>())) {
    const std::string name = trainOp.getSymName().str();
    eraseAlternatives(module, name, plan::Role::baseline);
    std::unique_ptr<JobContext> ctx = quietJobContext(
        module, trainOp, options.maxSimulatedRanks, options.maxReplicaRanks);
    if (!ctx->ok())
      continue;
    const baselines::TrainSetup &setup = ctx->setup;
    builder.setInsertionPointToEnd(module.getBody());
    // Step 0 chooses each baseline's layout (the standard ones pack by
    // memory); the later steps plan the same layouts on their batches.
    std::vector<baselines::NamedPlan> family;
    size_t standardCount = 0; // family[standardCount..]: a DPP job's extras
    const bool dynamicPp =
        trainOp.getStrategy().getPp() == plx::PpMode::dynamic;
    for (int64_t step = 0; step < trainOp.getSteps(); ++step) {
      instantiate::Batch batch = drawStep(*ctx, step);
      if (!batch.ok())
        break;
      std::vector<baselines::NamedPlan> plans;
      const std::string stepText = "plxc: job '" + name + "': step " +
                                   std::to_string(step + 1) + " of " +
                                   std::to_string(trainOp.getSteps());
      if (step == 0) {
        progress(stepText + ": planning the standard baselines (static SP, "
                            "Megatron TP x CP, 1F1B layouts)");
        plans = baselines::standardBaselines(setup, batch.lengths, ctx->comm);
        standardCount = plans.size();
      } else {
        progress(stepText + ": planning the standard baselines' layouts on "
                            "its batch");
        for (size_t i = 0; i < standardCount; ++i) {
          baselines::TrainSetup s = setup;
          s.model = family[i].model;
          s.microBatchSeqs = 0;
          plans.push_back(baselines::planStaticLayout(
              s, batch.lengths, family[i].layout, ctx->comm));
        }
      }
      // A DPP job's extra baselines are planned again on every step by
      // their own planners (reports keep step 0's names).
      if (dynamicPp) {
        const std::string dppText =
            stepText + ": planning the DPP baselines: ";
        for (baselines::NamedPlan &p : dynamicPpBaselines(
                 setup, batch.lengths, trainOp, ctx->comm,
                 [&](const std::string &what) { progress(dppText + what); }))
          plans.push_back(std::move(p));
      }
      if (step == 0)
        family = plans;
      for (size_t k = 0; k < plans.size(); ++k)
        if (!buildAlternative(builder, trainOp.getLoc(), name, step,
                              plan::Role::baseline, k, plans[k], setup))
          return failure();
    }
  }
  return success();
}

namespace {

/// Why an alternative cannot stand for a plan of a `world`-rank job: its
/// ranks, or a `layout` its groups (chunks) do not have. Empty when fine.
std::string alternativeProblem(const baselines::NamedPlan &p, int64_t world) {
  if (!p.ok())
    return "";
  const step::GroupLayout &l = p.layout;
  auto text = [](const step::GroupLayout &g) {
    return "[" + std::to_string(g.ulysses) + ", " + std::to_string(g.tp) +
           ", " + std::to_string(g.cp) + ", " + std::to_string(g.pp) + "]";
  };
  if (p.pipelined) {
    const step::PipelinedStepPlan &pp = *p.pipelined;
    if (pp.world != world)
      return "runs on " + std::to_string(pp.world) + " ranks, the job on " +
             std::to_string(world);
    const step::GroupLayout want{pp.spDegree, 1, 1, pp.stages};
    if (!(l == want))
      return "names layout " + text(l) + " but its pipelines are " +
             text(want);
    return "";
  }
  if (p.plan->world != world)
    return "runs on " + std::to_string(p.plan->world) + " ranks, the job on " +
           std::to_string(world);
  // One layout for every group, or FlexSP's groups of mixed degree (all
  // ones).
  std::optional<step::GroupLayout> common;
  bool mixed = false;
  for (const step::PlannedMicroBatch &mb : p.plan->microBatches)
    for (const step::PlannedGroup &g : mb.groups) {
      if (!common)
        common = g.layout;
      else if (!(*common == g.layout))
        mixed = true;
    }
  const step::GroupLayout want =
      mixed || !common ? step::GroupLayout{} : *common;
  if (!(l == want) && !(l == step::GroupLayout{} && common &&
                        common->tp == 1 && common->cp == 1 &&
                        common->pp == 1))
    return "names layout " + text(l) + " but its groups are " + text(want);
  return "";
}

/// The alternatives of jobs that are no plx.train, or of steps the job does
/// not have: errors at the op.
LogicalResult checkAlternativeJobs(ModuleOp module) {
  bool ok = true;
  for (Operation &op : *module.getBody()) {
    std::optional<StringRef> job;
    int64_t index = 0;
    if (auto step = dyn_cast<plan::StepOp>(op); step && step.getRole()) {
      job = step.getJob();
      index = step.getIndex();
    } else if (auto unplanned = dyn_cast<plan::UnplannedOp>(op)) {
      job = unplanned.getJob();
      index = unplanned.getIndex();
    }
    if (!job)
      continue;
    auto train = dyn_cast_or_null<plx::TrainOp>(
        SymbolTable::lookupSymbolIn(module, *job));
    if (!train) {
      op.emitOpError("is an alternative plan of @")
          << *job << ", which is no plx.train of the module";
      ok = false;
    } else if (index >= train.getSteps()) {
      op.emitOpError("is an alternative plan of step ")
          << index << ", but @" << *job << " runs " << train.getSteps()
          << " steps";
      ok = false;
    }
  }
  return success(ok);
}

} // namespace

FailureOr<std::vector<TrainPrediction>>
predictTrainJobs(ModuleOp module, const PipelineOptions &options) {
  if (failed(checkAlternativeJobs(module)))
    return failure();
  std::vector<TrainPrediction> predictions;
  Progress progress{options.progress};
  bool traced = false;
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());

  for (auto trainOp : llvm::to_vector(module.getOps<plx::TrainOp>())) {
    std::string name = trainOp.getSymName().str();
    TrainPrediction pred;
    pred.job = name;
    pred.steps = trainOp.getSteps();
    // The alternatives are read here and leave the module with the job,
    // whatever becomes of it.
    std::map<int64_t, StepAlternatives> alternatives =
        alternativesOf(module, name);
    // A job that cannot be planned gets its place in the report (and its
    // diagnostic, at `loc` when the callee has not emitted one); the other
    // jobs go on.
    auto jobFailed = [&](std::optional<Location> loc, const std::string &why) {
      if (loc)
        emitError(*loc) << why;
      pred.error = why;
      predictions.push_back(pred);
    };
    std::unique_ptr<JobContext> ctx = jobContext(
        module, trainOp, options.maxSimulatedRanks, options.maxReplicaRanks);
    const baselines::TrainSetup &setup = ctx->setup;
    if (ctx->ops.train) {
      pred.chipBytes = setup.model.chip.hbmBytes;
      pred.reserveBytes = setup.memoryReserveBytes;
      pred.usableBytes = setup.memoryBytes;
    }
    if (!ctx->error.empty()) {
      eraseAlternatives(module, name);
      jobFailed(ctx->errorLoc, ctx->error);
      continue;
    }
    if (!ctx->notPlanned.empty()) {
      eraseAlternatives(module, name);
      pred.notSimulated = ctx->notPlanned;
      predictions.push_back(std::move(pred));
      continue;
    }
    const lower::RingOrders &orders = ctx->orders;
    const int64_t replicas = ctx->fold.replicas;
    pred.replicas = replicas;
    pred.jobRanks = ctx->jobWorld;
    prog::CommTimeFn simComm =
        options.contention ? sim::fabricCommTime(*ctx->placed->graph,
                                                 ctx->placed->chips,
                                                 ctx->placed->params)
                           : ctx->comm;

    Accumulator primary;
    std::vector<Accumulator> baselineAcc;
    const BoundChoices boundChoices = boundChoicesOf(trainOp, setup);
    std::string failure;
    // Where the failure is: the alternative at fault, else the job.
    std::optional<Location> failureLoc;
    std::optional<Judged> firstStep;
    // Every step's chosen plan (not its simulation), written as plan IR
    // once every step has planned.
    std::vector<baselines::NamedPlan> stepPlans;
    for (int64_t step = 0; step < pred.steps && failure.empty(); ++step) {
      BatchShare share;
      instantiate::Batch batch = drawStep(*ctx, step, &share);
      if (!batch.ok()) {
        failure = "cannot draw step " + std::to_string(step) + ": " +
                  batch.error;
        break;
      }
      if (step == 0) {
        pred.lengths = batch.lengths;
        if (replicas > 1) {
          pred.shareFewestSequences = share.fewestSequences;
          pred.shareMostSequences = share.mostSequences;
          pred.shareImbalance =
              share.meanFlops > 0 ? share.flops / share.meanFlops : 1.0;
        }
      }
      auto found = alternatives.find(step);
      if (found == alternatives.end() || found->second.candidates.empty()) {
        failure = "step " + std::to_string(step) +
                  " has no candidate plan (run plx-plan-strategy before "
                  "plx-predict-train, as plx-train-pipeline does, with a "
                  "max-simulated-ranks of at least the job's " +
                  std::to_string(setup.world) + " ranks)";
        break;
      }
      const StepAlternatives &alts = found->second;
      // Every alternative plans the batch this step draws.
      for (const std::vector<Operation *> *list :
           {&alts.candidates, &alts.baselines})
        for (Operation *op : *list)
          if (auto planned = dyn_cast<plan::StepOp>(op);
              planned && planned.getLengths() &&
              ArrayRef<int64_t>(batch.lengths) != *planned.getLengths()) {
            failureLoc = planned.getLoc();
            failure = "@" + planned.getSymName().str() +
                      " plans another batch than step " + std::to_string(step) +
                      " draws (its lengths differ)";
          }
      if (!failure.empty())
        break;

      // Baselines: chosen on step 0, kept for the later steps.
      std::vector<baselines::NamedPlan> plans;
      for (Operation *op : alts.baselines)
        plans.push_back(namedPlanOf(op, setup));
      // The candidates: the planner's plan first, then the static layouts
      // it generalises; each must be a plan the strategy allows.
      std::vector<baselines::NamedPlan> own;
      for (Operation *op : alts.candidates)
        own.push_back(namedPlanOf(op, setup));
      auto symbolOf = [](Operation *op) {
        return "@" + SymbolTable::getSymbolName(op).str();
      };
      for (size_t i = 0; i < plans.size() && failure.empty(); ++i)
        if (std::string why = alternativeProblem(plans[i], setup.world);
            !why.empty()) {
          failureLoc = alts.baselines[i]->getLoc();
          failure = symbolOf(alts.baselines[i]) + " " + why;
        }
      for (size_t i = 0; i < own.size() && failure.empty(); ++i) {
        if (std::string why = alternativeProblem(own[i], setup.world);
            !why.empty()) {
          failureLoc = alts.candidates[i]->getLoc();
          failure = symbolOf(alts.candidates[i]) + " " + why;
        } else if (own[i].ok())
          if (std::string why = strategyExcludes(trainOp, setup, own[i], false);
              !why.empty()) {
            failureLoc = alts.candidates[i]->getLoc();
            failure = symbolOf(alts.candidates[i]) + " (" + own[i].name +
                      ") is a candidate the strategy does not allow: " + why;
          }
      }
      if (!failure.empty())
        break;
      if (step == 0) {
        baselineAcc.resize(plans.size());
        for (size_t i = 0; i < plans.size(); ++i) {
          baselineAcc[i].outcome.name = plans[i].name;
          // Every baseline chooses its own micro-batches (by memory, or
          // its planner's), which a fixed micro_batch rules out.
          baselineAcc[i].outcome.excludedBy = strategyExcludes(
              trainOp, setup, plans[i], /*packedByMemory=*/true);
          baselineAcc[i].outcome.admitted =
              plans[i].ok() && baselineAcc[i].outcome.excludedBy.empty();
        }
      } else if (plans.size() != baselineAcc.size()) {
        failure = "step " + std::to_string(step) + " has " +
                  std::to_string(plans.size()) + " baseline plans, step 0 " +
                  std::to_string(baselineAcc.size());
        break;
      }
      // Progress counts the plans this step judges: the baselines that
      // run, then the candidates (fewer when two are the same plan).
      size_t judging = 0, toJudge = 0;
      for (const baselines::NamedPlan &p : plans)
        toJudge += p.ok() ? 1 : 0;
      for (const baselines::NamedPlan &p : own)
        toJudge += p.ok() ? 1 : 0;
      auto simulating = [&](const std::string &plan) {
        progress("plxc: job '" + name + "': step " + std::to_string(step + 1) +
                 " of " + std::to_string(pred.steps) + ": simulating " + plan +
                 " (plan " + std::to_string(++judging) + " of at most " +
                 std::to_string(toJudge) + ")");
      };
      std::vector<Judged> judgedBaselines;
      for (size_t i = 0; i < plans.size(); ++i) {
        if (plans[i].ok())
          simulating(plans[i].name);
        judgedBaselines.push_back(
            judge(plans[i], setup, simComm, orders, replicas, ctx->comm));
      }

      // The job's plan: the fastest prediction among its planner's plan,
      // the static finalists and the baselines its strategy admits.
      baselines::NamedPlan mine = own.front();
      pred.solverSeconds += mine.solverSeconds;
      primary.outcome.name = mine.name;
      std::vector<Judged> candidates;
      std::vector<std::string> keys;
      auto consider = [&](baselines::NamedPlan plan) {
        std::string key = planKey(plan, false);
        for (const std::string &k : keys)
          if (k == key)
            return;
        keys.push_back(key);
        simulating(plan.name);
        candidates.push_back(judge(std::move(plan), setup, simComm, orders,
                                   replicas, ctx->comm));
      };
      if (mine.ok())
        consider(mine);
      for (size_t k = 1; k < own.size(); ++k)
        if (own[k].ok())
          consider(std::move(own[k]));
      const Judged *chosen = nullptr;
      for (const Judged &c : candidates)
        if (c.ok() && (!chosen || c.predicted() < chosen->predicted()))
          chosen = &c;
      for (size_t i = 0; i < judgedBaselines.size(); ++i)
        if (baselineAcc[i].outcome.admitted && judgedBaselines[i].ok() &&
            (!chosen || judgedBaselines[i].predicted() < chosen->predicted()))
          chosen = &judgedBaselines[i];
      if (!chosen) {
        failure = "cannot plan step " + std::to_string(step) + " with " +
                  mine.name + ": " +
                  (!mine.ok()             ? mine.error
                   : !candidates.empty() ? candidates.front().error
                                          : std::string("no plan"));
        break;
      }
      if (step == 0) {
        // Every plan judged, for --explore and the JSON's "explored".
        const double peakFlops =
            setup.model.rates().gemmPeak(setup.model.shape.dtype);
        std::vector<ExploredPlan> feasible, infeasible;
        auto add = [&](ExploredPlan e, const Judged *judged) {
          e.chosen = judged == chosen;
          (e.outcome.ok() ? feasible : infeasible).push_back(std::move(e));
        };
        for (const Judged &c : candidates) {
          ExploredPlan e = explore(
              c, c.plan.name == mine.name ? "planner" : "candidate", peakFlops);
          e.outcome.admitted = true;
          add(std::move(e), &c);
        }
        if (!mine.ok()) {
          Judged failed;
          failed.plan = mine;
          failed.error = mine.error;
          add(explore(failed, "planner", peakFlops), nullptr);
        }
        for (size_t k = 1; k < own.size(); ++k)
          if (!own[k].ok()) {
            Judged failed;
            failed.plan = own[k];
            failed.error = own[k].error;
            add(explore(failed, "candidate", peakFlops), nullptr);
          }
        for (size_t i = 0; i < judgedBaselines.size(); ++i) {
          ExploredPlan e = explore(judgedBaselines[i], "baseline", peakFlops);
          // Whether the strategy admits its layout, feasible or not.
          e.outcome.admitted = baselineAcc[i].outcome.excludedBy.empty();
          e.outcome.excludedBy = baselineAcc[i].outcome.excludedBy;
          add(std::move(e), &judgedBaselines[i]);
        }
        std::stable_sort(feasible.begin(), feasible.end(),
                         [](const ExploredPlan &a, const ExploredPlan &b) {
                           return a.outcome.predictedSeconds <
                                  b.outcome.predictedSeconds;
                         });
        pred.explored = std::move(feasible);
        for (ExploredPlan &e : infeasible)
          pred.explored.push_back(std::move(e));

        pred.note = mine.note;
        if (chosen->plan.name != mine.name && !candidates.empty() &&
            candidates.front().plan.name == mine.name) {
          const Judged &own = candidates.front();
          std::string why =
              own.ok() ? mine.name + " predicts " +
                             durationText(own.predicted())
                       : mine.name + " does not fit (" + own.error + ")";
          pred.note += (pred.note.empty() ? "" : "; ") + why + "; " +
                       chosen->plan.name + ", which the strategy admits, " +
                       "predicts " + durationText(chosen->predicted());
        }
        primary.outcome.name = chosen->plan.name;
      }
      accumulate(primary, *chosen, step, /*rankedBySimulator=*/true);
      StepBound bound =
          stepLowerBound(setup, batch.lengths, boundChoices, ctx->comm);
      if (bound.ok()) {
        pred.boundSeconds += bound.seconds;
        pred.boundComputeSeconds += bound.computeSeconds;
        pred.boundGradientSeconds += bound.gradientSeconds;
      }
      // The steps' plans are written as IR (and step 0 traced) once every
      // step has planned: a job that fails later leaves nothing behind.
      if (step == 0)
        firstStep = *chosen;
      stepPlans.push_back(chosen->plan);
      for (size_t i = 0; i < judgedBaselines.size(); ++i)
        accumulate(baselineAcc[i], judgedBaselines[i], step);
    }
    eraseAlternatives(module, name);
    const bool traceNow =
        failure.empty() && firstStep && !traced && !options.tracePath.empty();
    const bool timelineNow =
        failure.empty() && firstStep && options.timelineColumns > 0;
    if (traceNow || timelineNow) {
      // The same deterministic simulation as the judge's, with its spans.
      StepSimulation again =
          simulateStep(firstStep->plan, simComm, &orders, /*keepSpans=*/true,
                       replicas, ctx->comm);
      if (traceNow) {
        if (std::string error =
                again.error.empty()
                    ? sim::writeChromeTrace(again.result, options.tracePath)
                    : again.error;
            !error.empty())
          failure = "cannot write the trace: " + error;
        traced = true;
      }
      if (timelineNow && again.error.empty())
        pred.timeline = sim::binTimeline(again.result, options.timelineColumns);
    }
    if (!failure.empty()) {
      std::string why = "train job '" + name + "': " + failure;
      pred.primary = PlanOutcome{};
      jobFailed(failureLoc.value_or(trainOp.getLoc()), why);
      continue;
    }
    if (firstStep && firstStep->plan.plan)
      pred.plan = *firstStep->plan.plan;
    else if (firstStep)
      pred.pipelined = *firstStep->plan.pipelined;
    // The job's plan of every step as plan IR, beside its plan.job.
    builder.setInsertionPointToEnd(module.getBody());
    for (size_t i = 0; i < stepPlans.size(); ++i) {
      const baselines::NamedPlan &p = stepPlans[i];
      const std::string symbol = name + "_step" + std::to_string(i);
      // A module predicted before keeps only this prediction's plans.
      if (auto old = dyn_cast_or_null<plan::StepOp>(
              SymbolTable::lookupSymbolIn(module, symbol)))
        old.erase();
      plan::StepOp written =
          p.plan
              ? buildStepOp(
                    builder, trainOp.getLoc(), symbol, static_cast<int64_t>(i),
                    name, *p.plan,
                    p.model.zero != setup.model.zero ? p.model.zero : -1,
                    p.model.checkpointing != setup.model.checkpointing
                        ? std::optional<cost::Checkpointing>(
                              p.model.checkpointing)
                        : std::nullopt)
              : buildPipelinedStepOp(builder, trainOp.getLoc(), symbol,
                                     static_cast<int64_t>(i), name,
                                     *p.pipelined);
      if (replicas > 1)
        written.setReplicas(replicas);
    }
    finish(primary, pred.steps,
           setup.model.rates().gemmPeak(setup.model.shape.dtype));
    pred.primary = primary.outcome;
    const double steps = double(std::max<int64_t>(1, pred.steps));
    pred.boundSeconds /= steps;
    pred.boundComputeSeconds /= steps;
    pred.boundGradientSeconds /= steps;
    for (Accumulator &acc : baselineAcc) {
      finish(acc, pred.steps,
             setup.model.rates().gemmPeak(setup.model.shape.dtype));
      const PlanOutcome &b = acc.outcome;
      if (b.ok() && !b.admitted && b.simulated && b.predictedSeconds > 0 &&
          b.predictedSeconds * (1 + kFasterBaselineMargin) <
              pred.primary.predictedSeconds)
        pred.fasterBaselines.push_back(
            {b.name, pred.primary.predictedSeconds / b.predictedSeconds,
             b.excludedBy});
      pred.baselines.push_back(b);
    }
    predictions.push_back(std::move(pred));
  }
  return predictions;
}

namespace {

/// {"sp", "tp", "cp", "pp"} and "vpp" when interleaved.
nlohmann::ordered_json layoutJson(const PlanOutcome &o) {
  nlohmann::ordered_json layout;
  layout["sp"] = o.layout.ulysses;
  layout["tp"] = o.layout.tp;
  layout["cp"] = o.layout.cp;
  layout["pp"] = o.layout.pp;
  if (o.layout.vpp > 1)
    layout["vpp"] = o.layout.vpp;
  return layout;
}

nlohmann::ordered_json outcomeJson(const PlanOutcome &o, bool brief) {
  nlohmann::ordered_json j;
  if (!o.ok()) {
    j["infeasible"] = o.error;
    return j;
  }
  if (!brief) {
    j["layout"] = layoutJson(o);
    j["zero"] = o.zero;
    if (o.zeroOnDemand)
      j["zero_prefetch"] = 0;
    j["checkpoint"] = o.checkpoint;
    if (o.checkpointLayers > 0)
      j["checkpoint_first_layers"] = o.checkpointLayers;
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
    int64_t peak = 0;
    for (int64_t b : o.peakMemoryBytes)
      peak = std::max(peak, b);
    if (brief)
      j["peak_memory_bytes"] = peak;
  }
  if (brief) {
    j["allowed_by_strategy"] = o.admitted;
    if (!o.excludedBy.empty())
      j["differs_from_strategy"] = o.excludedBy;
  }
  return j;
}

} // namespace

nlohmann::ordered_json pipelinesJson(const step::PipelinedStepPlan &plan) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const step::PlannedPipeline &pipe : plan.pipelines) {
    nlohmann::ordered_json chunks = nlohmann::ordered_json::array();
    for (const step::PlannedChunk &c : pipe.chunks) {
      nlohmann::ordered_json slices = nlohmann::ordered_json::array();
      for (const step::ChunkSlice &sl : c.slices) {
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
  if (!p.error.empty()) {
    j["error"] = p.error;
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
  for (const step::PlannedMicroBatch &mb : p.plan.microBatches) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const step::PlannedGroup &g : mb.groups) {
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
  if (p.replicas > 1) {
    // Every plan of the report is one replica's (Replicas.h).
    nlohmann::ordered_json replicas;
    replicas["replica_count"] = p.replicas;
    replicas["ranks_per_replica"] = p.jobRanks / p.replicas;
    replicas["job_ranks"] = p.jobRanks;
    replicas["sequences_per_replica"] = {p.shareFewestSequences,
                                         p.shareMostSequences};
    replicas["heaviest_share_flops_over_mean"] = p.shareImbalance;
    j["replicas"] = std::move(replicas);
  }
  // The one wall-clock figure of the report (not deterministic).
  j["solver_time_s"] = p.solverSeconds;
  j["sequence_lengths"] = p.lengths;
  j["steps_predicted"] = p.steps;
  j["planned_step_time_s"] = p.primary.plannedSeconds;
  j["surrogate_step_time_s"] = p.primary.surrogateSeconds;
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
  {
    nlohmann::ordered_json memory;
    int64_t peak = 0, rank = 0;
    for (size_t r = 0; r < p.primary.peakMemoryBytes.size(); ++r)
      if (p.primary.peakMemoryBytes[r] > peak) {
        peak = p.primary.peakMemoryBytes[r];
        rank = static_cast<int64_t>(r);
      }
    memory["chip_bytes"] = p.chipBytes;
    memory["reserve_bytes"] = p.reserveBytes;
    memory["usable_bytes"] = p.usableBytes;
    memory["peak_bytes"] = peak;
    memory["peak_rank"] = rank;
    if (static_cast<size_t>(rank) < p.primary.peakResident.size() && peak > 0) {
      // What the peak rank holds at its peak: its resident parts and what
      // the step's ops held then.
      const step::ResidentParts &parts =
          p.primary.peakResident[static_cast<size_t>(rank)];
      nlohmann::ordered_json at;
      at["weights_bytes"] = parts.weights;
      at["gradients_bytes"] = parts.gradients;
      at["optimizer_bytes"] = parts.optimizer;
      at["zero3_gathered_bytes"] = parts.gathered;
      at["activations_bytes"] = peak - parts.total();
      memory["at_peak"] = at;
    }
    j["memory"] = memory;
    nlohmann::ordered_json bound;
    bound["step_time_s"] = p.boundSeconds;
    nlohmann::ordered_json terms;
    terms["compute_s"] = p.boundComputeSeconds;
    terms["gradient_sync_s"] = p.boundGradientSeconds;
    bound["terms"] = terms;
    j["lower_bound"] = bound;
    j["efficiency"] = p.primary.predictedSeconds > 0
                          ? p.boundSeconds / p.primary.predictedSeconds
                          : 0.0;
  }
  nlohmann::ordered_json baselines = nlohmann::ordered_json::object();
  for (const PlanOutcome &o : p.baselines)
    baselines[o.name] = outcomeJson(o, true);
  j["baselines"] = baselines;
  nlohmann::ordered_json faster = nlohmann::ordered_json::array();
  for (const FasterBaseline &f : p.fasterBaselines) {
    nlohmann::ordered_json entry;
    entry["name"] = f.name;
    entry["ratio"] = f.ratio;
    entry["why"] = f.why;
    faster.push_back(std::move(entry));
  }
  j["faster_baselines"] = faster;
  nlohmann::ordered_json explored = nlohmann::ordered_json::array();
  for (const ExploredPlan &e : p.explored) {
    const PlanOutcome &o = e.outcome;
    nlohmann::ordered_json entry;
    entry["plan"] = o.name;
    entry["role"] = e.role;
    entry["chosen"] = e.chosen;
    if (!o.checkpoint.empty()) { // planned: its layout is known
      nlohmann::ordered_json layout = layoutJson(o);
      // FlexSP's groups differ by micro-batch (the plan's sp_groups).
      if (o.name.rfind("flexsp", 0) == 0)
        layout["sp"] = "adaptive";
      entry["layout"] = layout;
      entry["zero"] = o.zero;
      entry["checkpoint"] = o.checkpoint;
      if (o.checkpointLayers > 0)
        entry["checkpoint_first_layers"] = o.checkpointLayers;
      if (o.zeroOnDemand)
        entry["zero_prefetch"] = 0;
      if (o.pipelines > 0) {
        entry["pipelines"] = o.pipelines;
        entry["chunks"] = o.microBatches;
      } else {
        entry["microbatches"] = o.microBatches;
      }
    }
    if (o.ok()) {
      entry["predicted_step_time_s"] = o.predictedSeconds;
      entry["mfu"] = o.mfu ? nlohmann::ordered_json(*o.mfu) : nullptr;
    }
    if (e.peakBytes > 0)
      entry["peak_memory_bytes"] = e.peakBytes;
    entry["allowed_by_strategy"] = o.admitted;
    if (!o.excludedBy.empty())
      entry["differs_from_strategy"] = o.excludedBy;
    entry["feasible"] = o.ok();
    if (!o.ok())
      entry["why_not"] = o.error;
    explored.push_back(std::move(entry));
  }
  j["explored"] = explored;
  if (p.timeline) {
    const sim::Timeline &t = *p.timeline;
    nlohmann::ordered_json timeline;
    timeline["step_s"] = t.stepSeconds;
    timeline["columns"] = t.columns;
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    auto lane = [](const std::vector<sim::TimelineRun> &runs) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const sim::TimelineRun &r : runs)
        out.push_back(
            nlohmann::ordered_json::array({r.kind, r.start, r.length}));
      return out;
    };
    for (const sim::TimelineGroup &g : t.groups) {
      nlohmann::ordered_json group;
      group["ranks"] = sim::rankRanges(g.ranks);
      group["count"] = static_cast<int64_t>(g.ranks.size());
      group["ops"] = lane(g.ops);
      if (!g.stream.empty())
        group["stream"] = lane(g.stream);
      groups.push_back(std::move(group));
    }
    timeline["groups"] = std::move(groups);
    timeline["groups_not_shown"] = t.groupsNotShown;
    j["timeline"] = std::move(timeline);
  }
  return j;
}

} // namespace plexus::train

namespace plexus::train {

namespace {

/// Every key of predictionJson's objects, in an order that agrees with the
/// order of each object (predictionReport sorts by it); a key not listed
/// comes last, by name.
constexpr const char *kReportKeyOrder[] = {"not_planned",
                                           "error",
                                           "infeasible",
                                           "plan",
                                           "role",
                                           "chosen",
                                           "layout",
                                           "sp",
                                           "tp",
                                           "cp",
                                           "pp",
                                           "vpp",
                                           "zero",
                                           "zero_prefetch",
                                           "checkpoint",
                                           "checkpoint_first_layers",
                                           "pipelines",
                                           "chunks",
                                           "kind",
                                           "slices",
                                           "sequence",
                                           "begin",
                                           "end",
                                           "context",
                                           "backward_order",
                                           "checkpoint_layers",
                                           "planned_time_s",
                                           "microbatches",
                                           "sp_groups",
                                           "degree",
                                           "ranks",
                                           "sequences",
                                           "strategy",
                                           "note",
                                           "replicas",
                                           "replica_count",
                                           "ranks_per_replica",
                                           "job_ranks",
                                           "sequences_per_replica",
                                           "heaviest_share_flops_over_mean",
                                           "solver_time_s",
                                           "sequence_lengths",
                                           "steps_predicted",
                                           "planned_step_time_s",
                                           "surrogate_step_time_s",
                                           "predicted_step_time_s",
                                           "mfu",
                                           "peak_memory_bytes",
                                           "allowed_by_strategy",
                                           "differs_from_strategy",
                                           "feasible",
                                           "why_not",
                                           "time_split",
                                           "compute_s",
                                           "communication_s",
                                           "gradient_sync_s",
                                           "bubble_s",
                                           "recompute_s",
                                           "bubble_ratio",
                                           "planned_bubble_ratio",
                                           "memory",
                                           "chip_bytes",
                                           "reserve_bytes",
                                           "usable_bytes",
                                           "peak_bytes",
                                           "peak_rank",
                                           "at_peak",
                                           "weights_bytes",
                                           "gradients_bytes",
                                           "optimizer_bytes",
                                           "zero3_gathered_bytes",
                                           "activations_bytes",
                                           "lower_bound",
                                           "step_time_s",
                                           "terms",
                                           "efficiency",
                                           "baselines",
                                           "faster_baselines",
                                           "explored",
                                           "timeline",
                                           "step_s",
                                           "columns",
                                           "groups",
                                           "count",
                                           "ops",
                                           "stream",
                                           "groups_not_shown",
                                           "name",
                                           "ratio",
                                           "why"};

} // namespace

DictionaryAttr predictionAttr(MLIRContext *context, const TrainPrediction &p) {
  return report::reportAttr(context, predictionJson(p), "baselines");
}

nlohmann::ordered_json predictionReport(DictionaryAttr prediction) {
  static const std::vector<StringRef> order(std::begin(kReportKeyOrder),
                                            std::end(kReportKeyOrder));
  return report::reportJson(prediction, order, "baselines");
}

} // namespace plexus::train
