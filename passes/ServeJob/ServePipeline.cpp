//===- ServePipeline.cpp - Plan and replay each serve job -----------------===//
#include "passes/ServeJob/ServePipeline.h"

#include "passes/Report/ReportAttr.h"

#include "dialects/Plan/IR/PlanDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

using namespace mlir;

namespace plexus::servejob {

namespace {

/// `path` as given when it exists, else beside the .plx file of `loc`.
std::string resolveBesideSpec(const std::string &path, Location loc) {
  if (llvm::sys::path::is_absolute(path) || llvm::sys::fs::exists(path))
    return path;
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(file.getFilename()));
    llvm::sys::path::append(p, path);
    return std::string(p);
  }
  return path;
}

serving::AgentPreset presetOf(plx::AgentPreset p) {
  switch (p) {
  case plx::AgentPreset::swe_bench:
    return serving::AgentPreset::SweBench;
  case plx::AgentPreset::browsecomp:
    return serving::AgentPreset::BrowseComp;
  case plx::AgentPreset::custom:
    break;
  }
  return serving::AgentPreset::Custom;
}

/// Link bandwidth of the fabric's topology, bytes/s per chip port.
double linkBandwidthOf(plx::FabricOp fabric) {
  double bw = 0;
  llvm::TypeSwitch<Attribute>(fabric.getTopology())
      .Case([&](plx::RailXAttr a) { bw = a.getLinkBandwidth().value; })
      .Case([&](plx::FatTreeAttr a) { bw = a.getLinkBandwidth().value; })
      .Case([&](plx::RailOptimizedAttr a) { bw = a.getLinkBandwidth().value; })
      .Case([&](plx::TorusAttr a) { bw = a.getLinkBandwidth().value; });
  return bw;
}

nlohmann::ordered_json jctJson(const serving::ServingMetrics &m) {
  nlohmann::ordered_json j;
  j["overall_s"] = m.overallJct;
  j["turn_mean_s"] = m.meanTurnJct;
  j["turn_p50_s"] = m.p50TurnJct;
  j["turn_p90_s"] = m.p90TurnJct;
  j["turn_p99_s"] = m.p99TurnJct;
  return j;
}

/// The outcome of replaying `workload` on `system` (or why not).
SystemOutcome
replayOutcome(const std::string &name, const serving::AgentWorkload &workload,
              const serving::Result<serving::ServingSystem> &sys) {
  SystemOutcome o;
  o.name = name;
  if (!sys) {
    o.error = sys.error;
    return o;
  }
  o.chips = sys->chips;
  serving::ReplayOptions options;
  options.keepTurns = false;
  serving::Result<serving::ReplayResult> r =
      serving::replay(workload, *sys, options);
  if (!r) {
    o.error = r.error;
    return o;
  }
  o.completed = r->completed;
  o.incomplete = r->incomplete;
  o.metrics = r->metrics;
  return o;
}

} // namespace

FailureOr<serving::AgentWorkload> workloadOf(plx::WorkloadOp op, int64_t seed) {
  FailureOr<serving::AgentWorkload> out = failure();
  llvm::TypeSwitch<Attribute>(op.getSource())
      .Case([&](plx::TrajectoriesAttr a) {
        const std::string path =
            resolveBesideSpec(a.getPath().str(), op.getLoc());
        serving::TraceRead read = serving::readTrajectoriesFile(path);
        if (!read.ok()) {
          InFlightDiagnostic d = op.emitOpError("trajectories '")
                                 << path << "': " << read.errors[0].str();
          for (size_t i = 1; i < read.errors.size() && i < 10; ++i)
            d.attachNote() << read.errors[i].str();
          return;
        }
        serving::AgentWorkload w;
        w.tasks = std::move(read.tasks);
        w.concurrency = a.getConcurrency();
        out = std::move(w);
      })
      .Case([&](plx::SyntheticAgentAttr a) {
        serving::SyntheticAgentParams p;
        p.preset = presetOf(a.getPreset());
        p.tasks = a.getTasks();
        p.concurrency = a.getConcurrency();
        p.turns = a.getTurns();
        p.prompt = a.getPrompt();
        p.newTokens = a.getNewTokens();
        p.outputTokens = a.getOutputTokens();
        p.toolLatency = a.getToolLatency();
        p.maxLen = a.getMaxLen();
        serving::Result<serving::AgentWorkload> w =
            serving::generateAgentWorkload(p, static_cast<uint64_t>(seed));
        if (!w) {
          op.emitOpError("cannot generate its tasks: ") << w.error;
          return;
        }
        out = *w;
      });
  return out;
}

serving::ServingModel servingModelOf(plx::ServeOp serve, plx::ModelOp model,
                                     plx::FabricOp fabric) {
  serving::ServingModel m;
  m.shape = model.getShape().toShape();
  m.hardware.chip = fabric.getChip().toChipSpec();
  m.hardware.chipsPerNode = fabric.getChipsPerNode();
  if (fabric.getIntraNodeBandwidth() > 0)
    m.hardware.intraNodeBandwidth =
        static_cast<double>(fabric.getIntraNodeBandwidth());
  if (double bw = linkBandwidthOf(fabric); bw > 0)
    m.hardware.interNodeBandwidth = bw;
  m.cost.memoryUtilization = serve.getStrategy().getMemoryUtilization();
  return m;
}

FailureOr<ServeJobOps> serveJobOps(ModuleOp module, plx::ServeOp serve) {
  ServeJobOps ops;
  ops.model = dyn_cast_or_null<plx::ModelOp>(
      SymbolTable::lookupSymbolIn(module, serve.getModelAttr()));
  ops.workload = dyn_cast_or_null<plx::WorkloadOp>(
      SymbolTable::lookupSymbolIn(module, serve.getWorkloadAttr()));
  ops.fabric = dyn_cast_or_null<plx::FabricOp>(
      SymbolTable::lookupSymbolIn(module, serve.getFabricAttr()));
  if (!ops.model || !ops.workload || !ops.fabric)
    return serve.emitOpError("names a model, workload or fabric the "
                             "module does not declare");
  return ops;
}

serving::ServingPlanRequest planRequestOf(plx::ServeOp serve,
                                          plx::FabricOp fabric) {
  const plx::ServeStrategyAttr s = serve.getStrategy();
  serving::ServingPlanRequest request;
  request.chips = serve.getJobChips(fabric);
  request.pp = s.getPp();
  request.ep = s.getEp();
  request.dpAttention =
      s.getChooseAttention() ? -1 : (s.getDpAttention() ? 1 : 0);
  request.routing = s.getKvAwareRouting()
                        ? serving::DpRouting::KvAware
                        : serving::DpRouting::PinnedByTaskCount;
  request.mtpDrafts = s.getMtpDrafts();
  request.waveInterval = s.getWaveInterval();
  return request;
}

LogicalResult buildServePlanOps(OpBuilder &builder, ModuleOp module,
                                plx::ServeOp serve,
                                const serving::ServingModel &model,
                                const serving::ServingPlanRequest &request,
                                const serving::ServingPlan &plan) {
  const std::string job = serve.getSymName().str();
  const std::string layoutName = job + "_layout";
  const std::string policyName = job + "_policy";
  for (const std::string &name : {layoutName, policyName})
    if (SymbolTable::lookupSymbolIn(module, name))
      return serve.emitOpError("cannot add its plan: the module already "
                               "declares @")
             << name;
  const serving::ServingLayout &layout = plan.layout;
  const Location loc = serve.getLoc();
  auto layoutOp = builder.create<plan::ServeLayoutOp>(
      loc, layoutName, job, request.chips, plan.system.serving.instances,
      layout.pp, layout.ep, layout.dpAttention,
      serving::stageLayerCounts(model.shape, layout), layout.mtpDrafts);
  const serving::ServingMetrics &jct = plan.predicted.metrics;
  builder.create<plan::ServePolicyOp>(
      loc, policyName, layoutOp.getSymName(), plan.waveInterval,
      /*interval_chosen=*/request.waveInterval == 0, jct.overallJct,
      jct.meanTurnJct, jct.p50TurnJct, jct.p90TurnJct, jct.p99TurnJct);
  return success();
}

FailureOr<std::vector<ServePrediction>>
predictServeJobs(ModuleOp module, const ServeOptions &options) {
  std::vector<ServePrediction> out;
  const auto begin = std::chrono::steady_clock::now();
  auto progress = [&](const std::string &line) {
    if (options.progress &&
        std::chrono::steady_clock::now() - begin > std::chrono::seconds(1))
      options.progress(line);
  };
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  for (auto serve : llvm::to_vector(module.getOps<plx::ServeOp>())) {
    FailureOr<ServeJobOps> ops = serveJobOps(module, serve);
    if (failed(ops))
      return failure();
    FailureOr<serving::AgentWorkload> workload =
        workloadOf(ops->workload, serve.getSeed());
    if (failed(workload))
      return failure();
    const serving::ServingModel m =
        servingModelOf(serve, ops->model, ops->fabric);
    const std::string name = serve.getSymName().str();
    serving::ServingPlanRequest request = planRequestOf(serve, ops->fabric);
    if (options.waveInterval > 0)
      request.waveInterval = options.waveInterval;

    ServePrediction p;
    p.job = name;
    p.chips = request.chips;
    progress("plxc: job '" + name + "': planning the layout and interval");
    const auto start = std::chrono::steady_clock::now();
    serving::Result<serving::ServingPlan> plan =
        serving::planServing(*workload, m, request);
    p.plannerSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!plan)
      return serve.emitOpError("cannot plan the serve job: ") << plan.error;
    p.layout = plan->layout;
    if (p.layout.stageLayers.empty())
      p.layout.stageLayers = serving::stageLayerCounts(m.shape, p.layout);
    // What the planner chose: a degree or attention layout the spec left
    // open and that had more than one feasible value.
    std::set<int64_t> pps, eps;
    bool dp = false, tp = false;
    for (const serving::LayoutCandidate &c : plan->layouts)
      if (c.infeasible.empty()) {
        pps.insert(c.layout.pp);
        eps.insert(c.layout.ep);
        (c.layout.dpAttention ? dp : tp) = true;
      }
    p.ppChosen = request.pp == 0 && pps.size() > 1;
    p.epChosen = request.ep == 0 && eps.size() > 1;
    p.attentionChosen = request.dpAttention < 0 && dp && tp;
    p.routing = plan->system.serving.policy.routing;
    p.instances = plan->system.serving.instances;
    p.waveInterval = plan->waveInterval;
    p.intervalChosen = request.waveInterval == 0;
    p.sweep = plan->sweep;
    p.replay = plan->predicted;
    if (failed(buildServePlanOps(builder, module, serve, m, request, *plan)))
      return failure();

    if (!options.baselines) {
      out.push_back(std::move(p));
      continue;
    }
    // The baselines on the same workload (reference section 1.8).
    progress("plxc: job '" + name + "': replaying the baselines");
    // Each runs the way its system does on this model: MTP drafts only
    // where the model has MTP layers, and the widest expert parallelism
    // up to the system's own that divides the experts and the chips (1 for
    // a dense model).
    const int64_t drafts = m.shape.mtpLayers > 0 ? 3 : 0;
    auto epFor = [&](int64_t wanted) {
      if (!m.shape.isMoE())
        return int64_t(1);
      int64_t ep = wanted;
      while (ep > 1 && (m.shape.experts % ep != 0 || request.chips % ep != 0))
        ep /= 2;
      return ep;
    };
    p.baselines.push_back(replayOutcome(
        "wide-ep", *workload,
        serving::wideEpSystem(m, *workload, request.chips, false, drafts,
                              epFor(16))));
    p.baselines.push_back(replayOutcome(
        "wide-ep-prefill-delay", *workload,
        serving::wideEpSystem(m, *workload, request.chips, true, drafts,
                              epFor(16))));
    p.baselines.push_back(replayOutcome(
        "vllm-pp2", *workload,
        serving::vllmPp2System(m, *workload, request.chips, 2, epFor(8))));
    p.baselines.push_back(replayOutcome(
        "pd-disaggregated", *workload,
        serving::pdDisaggregatedSystem(m, *workload, request.chips, drafts, 300,
                                       epFor(16))));
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json servePredictionJson(const ServePrediction &p) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json layout;
  layout["pp"] = p.layout.pp;
  layout["ep"] = p.layout.ep;
  layout["dp_attention"] = p.layout.dpAttention;
  layout["pp_chosen"] = p.ppChosen;
  layout["ep_chosen"] = p.epChosen;
  layout["attention_chosen"] = p.attentionChosen;
  layout["dp_routing"] = !p.layout.dpAttention                      ? "none"
                         : p.routing == serving::DpRouting::KvAware ? "kv_aware"
                                                                    : "pinned";
  layout["instances"] = p.instances;
  layout["chips"] = p.chips;
  layout["layers_per_stage"] = p.layout.stageLayers;
  j["layout"] = layout;
  nlohmann::ordered_json policy;
  policy["interval"] = p.waveInterval;
  policy["interval_chosen"] = p.intervalChosen;
  policy["mtp_drafts"] = p.layout.mtpDrafts;
  nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
  for (size_t i = 0; i < p.sweep.intervals.size(); ++i) {
    nlohmann::ordered_json point;
    point["interval"] = p.sweep.intervals[i];
    point["overall_s"] = p.sweep.overallJct[i];
    sweep.push_back(std::move(point));
  }
  policy["interval_sweep"] = std::move(sweep);
  j["policy"] = policy;
  j["completed"] = p.replay.completed;
  if (!p.replay.completed)
    j["incomplete"] = p.replay.incomplete;
  j["jct"] = jctJson(p.replay.metrics);
  j["throughput_tokens_per_s"] = p.replay.metrics.outputTokensPerSecond;
  j["tasks"] = p.replay.metrics.tasks;
  j["turns"] = p.replay.metrics.turns;
  j["prefix_hit_rate"] = p.replay.metrics.prefixHitRate;
  // The one wall-clock figure of the report (not deterministic).
  j["planner_time_s"] = p.plannerSeconds;
  nlohmann::ordered_json baselines = nlohmann::ordered_json::object();
  for (const SystemOutcome &o : p.baselines) {
    nlohmann::ordered_json b;
    if (!o.ok()) {
      b["infeasible"] = o.error;
    } else {
      b["chips"] = o.chips;
      b["completed"] = o.completed;
      if (!o.completed)
        b["incomplete"] = o.incomplete;
      b["jct"] = jctJson(o.metrics);
    }
    baselines[o.name] = std::move(b);
  }
  j["baselines"] = std::move(baselines);
  // One judge: a baseline that finishes the job sooner on no more chips,
  // its JCT ratio to the plan's and what kept the plan from its layout
  // (what the strategy fixed; with nothing fixed, the planner searches
  // PipeSwift-style systems, not that baseline's scheduling).
  std::vector<std::string> fixed;
  if (!p.ppChosen)
    fixed.push_back("pp " + std::to_string(p.layout.pp));
  if (!p.epChosen)
    fixed.push_back("ep " + std::to_string(p.layout.ep));
  if (!p.attentionChosen)
    fixed.push_back(p.layout.dpAttention ? "DP-attention" : "TP attention");
  if (!p.intervalChosen)
    fixed.push_back("wave interval " + std::to_string(p.waveInterval));
  std::string why;
  if (fixed.empty()) {
    why = "the planner searches PipeSwift-style systems (layout, attention "
          "and wave interval), not this system's scheduling";
  } else {
    why = "the plan keeps what the strategy fixes (";
    for (size_t i = 0; i < fixed.size(); ++i)
      why += (i ? ", " : "") + fixed[i];
    why += ")";
  }
  nlohmann::ordered_json faster = nlohmann::ordered_json::array();
  const double mine = p.replay.metrics.overallJct;
  for (const SystemOutcome &o : p.baselines) {
    if (!o.ok() || !o.completed || !p.replay.completed || o.chips > p.chips)
      continue;
    const double theirs = o.metrics.overallJct;
    if (!(theirs > 0) || !(theirs * (1 + 1e-9) < mine))
      continue;
    nlohmann::ordered_json entry;
    entry["name"] = o.name;
    entry["ratio"] = mine / theirs;
    entry["why"] = why;
    faster.push_back(std::move(entry));
  }
  j["faster_baselines"] = std::move(faster);
  return j;
}

std::string writeServeTrace(const ServePrediction &p, const std::string &path) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < p.instances; ++i) {
    nlohmann::ordered_json meta;
    meta["name"] = "process_name";
    meta["ph"] = "M";
    meta["pid"] = i;
    meta["args"]["name"] = "instance " + std::to_string(i);
    events.push_back(std::move(meta));
  }
  for (const serving::TurnRecord &t : p.replay.turns) {
    nlohmann::ordered_json e;
    e["name"] =
        "task " + std::to_string(t.task) + " turn " + std::to_string(t.turn);
    e["cat"] = "turn";
    e["ph"] = "X";
    e["ts"] = t.arrival * 1e6;
    e["dur"] = t.jct() * 1e6;
    e["pid"] = t.instance;
    e["tid"] = t.task;
    events.push_back(std::move(e));
  }
  nlohmann::ordered_json root;
  root["traceEvents"] = std::move(events);
  root["displayTimeUnit"] = "ms";
  std::ofstream out(path);
  if (!out)
    return "cannot open '" + path + "' for writing";
  out << root.dump() << "\n";
  if (!out)
    return "cannot write '" + path + "'";
  return {};
}

} // namespace plexus::servejob

namespace plexus::servejob {

namespace {
/// Every key of servePredictionJson's objects, in an order that agrees
/// with each object's.
constexpr llvm::StringLiteral kServeKeyOrder[] = {"infeasible",
                                                  "layout",
                                                  "pp",
                                                  "ep",
                                                  "dp_attention",
                                                  "pp_chosen",
                                                  "ep_chosen",
                                                  "attention_chosen",
                                                  "dp_routing",
                                                  "instances",
                                                  "chips",
                                                  "layers_per_stage",
                                                  "policy",
                                                  "interval",
                                                  "interval_chosen",
                                                  "mtp_drafts",
                                                  "interval_sweep",
                                                  "completed",
                                                  "incomplete",
                                                  "jct",
                                                  "overall_s",
                                                  "turn_mean_s",
                                                  "turn_p50_s",
                                                  "turn_p90_s",
                                                  "turn_p99_s",
                                                  "throughput_tokens_per_s",
                                                  "tasks",
                                                  "turns",
                                                  "prefix_hit_rate",
                                                  "planner_time_s",
                                                  "baselines",
                                                  "faster_baselines",
                                                  "name",
                                                  "ratio",
                                                  "why"};
} // namespace

mlir::DictionaryAttr servePredictionAttr(mlir::MLIRContext *context,
                                         const ServePrediction &p) {
  return report::reportAttr(context, servePredictionJson(p), "baselines");
}

nlohmann::ordered_json servePredictionReport(mlir::DictionaryAttr prediction) {
  static const std::vector<llvm::StringRef> order(std::begin(kServeKeyOrder),
                                                  std::end(kServeKeyOrder));
  return report::reportJson(prediction, order, "baselines");
}

} // namespace plexus::servejob
