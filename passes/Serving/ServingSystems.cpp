//===- ServingSystems.cpp - PipeSwift, its baselines, the planner ---------===//

#include "passes/Serving/ServingSystems.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plexus::serving {

cost::TransformerShape glm47LikeShape() {
  cost::TransformerShape s;
  s.layers = 92;
  s.denseLayers = 3;
  s.hidden = 5120;
  s.heads = 96;
  s.kvHeads = 8;
  s.headDim = 128;
  s.ffn = 12288;
  s.experts = 160;
  s.topK = 8;
  s.sharedExperts = 1;
  s.moeFfn = 1536;
  s.mtpLayers = 1;
  s.vocab = 151552;
  s.dtype = cost::DType::FP8;
  return s;
}

namespace {

std::string num(int64_t v) { return std::to_string(v); }

constexpr int64_t kPipeSwiftMicroBatchTokens = 32768;
constexpr int64_t kSglangMaxPrefillTokens = 16384;
constexpr int64_t kSglangDelayPasses = 30;
constexpr int64_t kVllmBatchedTokens = 8192;
constexpr double kKvTransferLatency = 1e-3; // handshake per transfer

std::string layoutName(const ServingLayout &l) {
  std::string s = "PP" + num(l.pp) + " x EP" + num(l.ep);
  if (l.dpAttention)
    s += " + DP-attn";
  if (l.mtpDrafts > 0)
    s += " + MTP" + num(l.mtpDrafts);
  return s;
}

/// `model` with memoryUtilization read the way the system's runtime reads
/// it (ServingLayout.h): SGLang-like runtimes bound weights and the KV pool,
/// vLLM bounds everything the engine allocates.
ServingModel onRuntime(ServingModel model, MemoryBudget budget) {
  model.cost.memoryBudget = budget;
  return model;
}

Result<ServingSystem> colocated(std::string name, const ServingModel &model,
                                const AgentWorkload &workload, int64_t chips,
                                const ServingLayout &layout,
                                const SchedulerPolicy &policy,
                                bool balanceLayers) {
  auto pool = buildInstancePool(model, workload, layout, policy, chips,
                                InstanceRole::Colocated, balanceLayers);
  if (!pool)
    return Result<ServingSystem>::fail(pool.error);
  ServingSystem s;
  s.name = std::move(name);
  s.serving = *pool;
  s.chips = chips;
  return Result<ServingSystem>::ok(std::move(s));
}

} // namespace

DecodeBatch representativeDecodeBatch(const AgentWorkload &workload,
                                      int64_t instances, int64_t stages,
                                      int64_t mtpDrafts,
                                      int64_t attentionRanks) {
  double weighted = 0, outputs = 0;
  for (const AgentTask &t : workload.tasks)
    for (const AgentTurn &turn : t.turns) {
      double o = double(turn.outputTokens);
      weighted += o * (double(turn.promptTokens()) + o / 2);
      outputs += o;
    }
  int64_t meanKv = outputs > 0 ? int64_t(std::llround(weighted / outputs)) : 1;
  int64_t inFlight =
      std::min<int64_t>(workload.concurrency, int64_t(workload.tasks.size()));
  int64_t perMicroBatch =
      std::max<int64_t>(1, (inFlight + instances * stages - 1) /
                               std::max<int64_t>(1, instances * stages));
  DecodeBatch b;
  b.requests = perMicroBatch;
  b.tokensPerRequest = 1 + mtpDrafts;
  b.kvTokens = perMicroBatch * meanKv;
  // The busiest rank's KV: its share of the micro-batch's requests, rounded
  // up (ranks hold whole requests); without ranks, one request's.
  int64_t perRank = attentionRanks > 0
                        ? (perMicroBatch + attentionRanks - 1) / attentionRanks
                        : 1;
  b.maxKv = perRank * meanKv;
  return b;
}

Result<InstancePool> buildInstancePool(const ServingModel &model,
                                       const AgentWorkload &workload,
                                       ServingLayout layout,
                                       SchedulerPolicy policy, int64_t chips,
                                       InstanceRole role, bool balanceLayers) {
  using R = Result<InstancePool>;
  std::string problem = checkServingLayout(model.shape, layout);
  if (!problem.empty())
    return R::fail(problem);
  if (chips < 1 || chips % layout.chips() != 0)
    return R::fail("pp * ep (" + num(layout.chips()) +
                   ") must divide the chips (" + num(chips) + ")");
  int64_t instances = chips / layout.chips();
  if (balanceLayers && layout.stageLayers.empty() && layout.pp > 1) {
    DecodeBatch rep = representativeDecodeBatch(
        workload, instances, layout.pp, layout.mtpDrafts,
        layout.dpAttention ? layout.ep : 0);
    auto split =
        planLayerSplit(model.shape, model.hardware, layout, model.cost, rep);
    if (!split)
      return R::fail(split.error);
    layout.stageLayers = *split;
  }
  auto memory = instanceMemory(model.shape, model.hardware, layout, model.cost);
  if (!memory)
    return R::fail(memory.error);
  if (memory->kvPages < 1)
    return R::fail("the KV cache holds no page");
  auto cost = TransformerStageCost::create(model.shape, model.hardware, layout,
                                           model.cost);
  if (!cost)
    return R::fail(cost.error);
  policy.role = role;
  policy.stages = layout.pp;
  policy.mtpDrafts = layout.mtpDrafts;
  policy.pageTokens = model.cost.pageTokens;
  policy.kvPages = memory->kvPages;
  // Tasks are pinned to DP-attention ranks unless the cost model assumes
  // the runtime spreads every request over the ranks.
  policy.attentionRanks =
      layout.dpAttention && !model.cost.dpAttentionSpreadsRequests ? layout.ep
                                                                   : 0;
  policy.weight = (*cost)->prefillWeight();
  problem = checkSchedulerPolicy(policy);
  if (!problem.empty())
    return R::fail(problem);
  InstancePool pool;
  pool.instances = instances;
  pool.cost = *cost;
  pool.policy = policy;
  pool.layout = layout;
  return R::ok(std::move(pool));
}

Result<ServingSystem> pipeSwiftLikeSystem(const ServingModel &model,
                                          const AgentWorkload &workload,
                                          int64_t chips, ServingLayout layout,
                                          int64_t waveInterval,
                                          DpRouting routing) {
  SchedulerPolicy policy;
  policy.routing = routing;
  policy.waveInterval = waveInterval;
  policy.splitPrefill = true;
  policy.maxMicroBatchTokens = kPipeSwiftMicroBatchTokens;
  policy.decodePartitioning = DecodePartitioning::KvBalanced;
  std::string name =
      "PipeSwift-like " + layoutName(layout) + ", I=" + num(waveInterval);
  return colocated(name, onRuntime(model, MemoryBudget::StaticPool), workload,
                   chips, layout, policy, /*balanceLayers=*/true);
}

Result<ServingSystem> pipeSwiftSystem(const ServingModel &model,
                                      const AgentWorkload &workload,
                                      int64_t chips, int64_t waveInterval,
                                      int64_t mtpDrafts, int64_t pp,
                                      int64_t ep) {
  ServingLayout layout;
  layout.pp = pp;
  layout.ep = ep;
  layout.dpAttention = true;
  layout.mtpDrafts = mtpDrafts;
  auto s = pipeSwiftLikeSystem(model, workload, chips, layout, waveInterval);
  if (s)
    s.value->name =
        "PipeSwift " + layoutName(layout) + ", I=" + num(waveInterval);
  return s;
}

Result<ServingSystem> wideEpSystem(const ServingModel &model,
                                   const AgentWorkload &workload, int64_t chips,
                                   bool prefillDelay, int64_t mtpDrafts,
                                   int64_t ep) {
  ServingLayout layout;
  layout.pp = 1;
  layout.ep = ep;
  layout.dpAttention = true;
  layout.mtpDrafts = mtpDrafts;
  SchedulerPolicy policy;
  policy.splitPrefill = false;
  policy.maxWaveTokens = kSglangMaxPrefillTokens;
  if (prefillDelay) {
    policy.waveInterval = kSglangDelayPasses;
    policy.waveClock = WaveClock::SinceFirstWaiting;
    policy.admitEarlyAt = ep;
  } else {
    policy.waveInterval = 1;
  }
  std::string name = "SGLang wide EP" + num(ep) +
                     (prefillDelay ? " + prefill-delay" : " (prefill-first)");
  return colocated(name, onRuntime(model, MemoryBudget::StaticPool), workload,
                   chips, layout, policy, false);
}

Result<ServingSystem> vllmPp2System(const ServingModel &model,
                                    const AgentWorkload &workload,
                                    int64_t chips, int64_t pp, int64_t ep,
                                    bool dpAttention) {
  ServingLayout layout;
  layout.pp = pp;
  layout.ep = ep;
  layout.dpAttention = dpAttention;
  layout.mtpDrafts = 0;
  SchedulerPolicy policy;
  policy.waveInterval = 1;
  policy.splitPrefill = false;
  policy.maxWaveTokens = kVllmBatchedTokens;
  policy.decodePartitioning = DecodePartitioning::StaticByCount;
  return colocated("vLLM-like PP" + num(pp) + " x EP" + num(ep) +
                       (dpAttention ? " + DP-attn" : " (TP attn)") +
                       " (prefill-first, no MTP)",
                   onRuntime(model, MemoryBudget::Executor), workload, chips,
                   layout, policy, false);
}

Result<ServingSystem> pdDisaggregatedSystem(const ServingModel &model,
                                            const AgentWorkload &workload,
                                            int64_t chipsPerSide,
                                            int64_t mtpDrafts,
                                            double timeoutSeconds, int64_t ep) {
  using R = Result<ServingSystem>;
  ServingLayout layout;
  layout.pp = 1;
  layout.ep = ep;
  layout.dpAttention = true;
  layout.mtpDrafts = mtpDrafts;
  const ServingModel sglang = onRuntime(model, MemoryBudget::StaticPool);
  SchedulerPolicy prefill;
  prefill.waveInterval = 1;
  prefill.splitPrefill = false;
  prefill.maxWaveTokens = kSglangMaxPrefillTokens;
  auto front =
      buildInstancePool(sglang, workload, layout, prefill, chipsPerSide,
                        InstanceRole::PrefillOnly, false);
  if (!front)
    return R::fail(front.error);
  auto back = buildInstancePool(sglang, workload, layout, SchedulerPolicy(),
                                chipsPerSide, InstanceRole::DecodeOnly, false);
  if (!back)
    return R::fail(back.error);
  ServingSystem s;
  s.name = "SGLang PD disaggregation (EP" + num(ep) + " prefill + EP" +
           num(ep) + " decode, full KV per turn)";
  s.serving = *front;
  s.decode = *back;
  s.disaggregated = true;
  const cost::TransformerShape &m = model.shape;
  int64_t kvLayers = m.layers + (mtpDrafts > 0 ? m.mtpLayers : 0);
  s.transfer.bytesPerToken =
      2.0 * double(m.kvHeads) * double(cost::effectiveHeadDim(m)) *
      double(model.cost.kvBytesPerElement) * double(kvLayers);
  s.transfer.bandwidth =
      model.hardware.interNodeBandwidth * model.cost.linkEfficiency;
  s.transfer.lanes = ep;
  s.transfer.latency = kKvTransferLatency;
  s.transfer.timeout = timeoutSeconds;
  s.transfer.preallocate = true;
  s.chips = 2 * chipsPerSide;
  return R::ok(std::move(s));
}

ServingSystem withWaveInterval(ServingSystem system, int64_t interval) {
  system.serving.policy.waveInterval = interval;
  return system;
}

std::vector<int64_t> defaultWaveIntervals() {
  return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
}

Result<WaveIntervalSweep>
chooseWaveInterval(const AgentWorkload &workload, const ServingSystem &system,
                   const std::vector<int64_t> &candidates, bool refine) {
  using R = Result<WaveIntervalSweep>;
  WaveIntervalSweep sweep;
  std::string error;
  ReplayOptions options;
  options.keepTurns = false;
  auto tryInterval = [&](int64_t interval) {
    if (interval < 1 ||
        std::find(sweep.intervals.begin(), sweep.intervals.end(), interval) !=
            sweep.intervals.end())
      return;
    auto r = replay(workload, withWaveInterval(system, interval), options);
    if (!r) {
      if (error.empty())
        error = r.error;
      return;
    }
    sweep.intervals.push_back(interval);
    sweep.overallJct.push_back(r->completed
                                   ? r->metrics.overallJct
                                   : std::numeric_limits<double>::infinity());
  };
  auto pickBest = [&]() {
    sweep.best = 0;
    sweep.bestJct = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < sweep.intervals.size(); ++i) {
      double j = sweep.overallJct[i];
      if (j < sweep.bestJct ||
          (j == sweep.bestJct && sweep.intervals[i] < sweep.best)) {
        sweep.bestJct = j;
        sweep.best = sweep.intervals[i];
      }
    }
  };
  for (int64_t c : candidates)
    tryInterval(c);
  if (!error.empty())
    return R::fail(error);
  pickBest();
  if (refine && sweep.best > 0) {
    int64_t b = sweep.best;
    tryInterval(int64_t(std::floor(double(b) / std::sqrt(2.0))));
    tryInterval(int64_t(std::ceil(double(b) * std::sqrt(2.0))));
    if (!error.empty())
      return R::fail(error);
    pickBest();
  }
  if (!(sweep.bestJct < std::numeric_limits<double>::infinity()))
    return R::fail("no wave interval let the replay complete");
  return R::ok(std::move(sweep));
}

std::vector<LayoutCandidate> enumerateLayouts(const ServingModel &given,
                                              int64_t chips, int64_t mtpDrafts,
                                              int64_t maxPp) {
  // The candidates are PipeSwift-like systems, with their memory reading.
  const ServingModel model = onRuntime(given, MemoryBudget::StaticPool);
  std::vector<LayoutCandidate> out;
  const cost::TransformerShape &m = model.shape;
  for (int64_t pp = 1; pp <= maxPp && pp <= m.layers; ++pp) {
    if (chips % pp != 0)
      continue;
    for (int64_t ep = 1; ep <= chips / pp; ++ep) {
      if ((chips / pp) % ep != 0)
        continue;
      if (m.isMoE() ? m.experts % ep != 0 : ep != 1)
        continue;
      for (bool dp : {false, true}) {
        if (dp && ep == 1)
          continue; // the same layout as without
        LayoutCandidate c;
        c.layout.pp = pp;
        c.layout.ep = ep;
        c.layout.dpAttention = dp;
        c.layout.mtpDrafts = mtpDrafts;
        c.instances = chips / (pp * ep);
        auto mem = instanceMemory(m, model.hardware, c.layout, model.cost);
        if (mem)
          c.kvTokens = mem->kvTokens;
        else
          c.infeasible = mem.error;
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

Result<ServingPlan> planServing(const AgentWorkload &workload,
                                const ServingModel &model,
                                const ServingPlanRequest &request) {
  using R = Result<ServingPlan>;
  const double inf = std::numeric_limits<double>::infinity();
  ServingPlan plan;
  AgentWorkload screen;
  screen.concurrency = workload.concurrency;
  int64_t screenTasks =
      request.screenTasks > 0 ? request.screenTasks : 2 * workload.concurrency;
  screenTasks = std::min<int64_t>(screenTasks, int64_t(workload.tasks.size()));
  screen.tasks.assign(workload.tasks.begin(),
                      workload.tasks.begin() + screenTasks);
  const int64_t screenInterval =
      request.waveInterval > 0 ? request.waveInterval : 32;

  // Depths up to 4 when the spec fixes another degree (a deeper one is
  // still tried when the spec asks for it); every depth the layers and
  // chips allow when pp is left to the planner.
  const int64_t maxPp = request.pp > 0
                            ? std::max<int64_t>(4, request.pp)
                            : std::min(model.shape.layers, request.chips);
  plan.layouts =
      enumerateLayouts(model, request.chips, request.mtpDrafts, maxPp);
  std::vector<size_t> feasible;
  ReplayOptions quiet;
  quiet.keepTurns = false;
  for (size_t i = 0; i < plan.layouts.size(); ++i) {
    LayoutCandidate &c = plan.layouts[i];
    c.screenedJct = inf;
    if ((request.pp > 0 && c.layout.pp != request.pp) ||
        (request.ep > 0 && c.layout.ep != request.ep) ||
        (request.dpAttention >= 0 &&
         c.layout.dpAttention != (request.dpAttention != 0))) {
      c.infeasible = "not the layout the spec asks for";
      continue;
    }
    if (!c.infeasible.empty())
      continue;
    auto system = pipeSwiftLikeSystem(model, screen, request.chips, c.layout,
                                      screenInterval, request.routing);
    if (!system) {
      c.infeasible = system.error;
      continue;
    }
    auto r = replay(screen, *system, quiet);
    if (!r) {
      c.infeasible = r.error;
      continue;
    }
    if (r->completed)
      c.screenedJct = r->metrics.overallJct;
    feasible.push_back(i);
  }
  if (feasible.empty()) {
    std::string why = "no layout of the " + num(request.chips) +
                      " chips can serve the workload";
    // The reason of the most spread-out layout the spec allows (the
    // largest pp x ep, ties to the later): the one closest to fitting.
    const LayoutCandidate *closest = nullptr;
    for (const LayoutCandidate &c : plan.layouts)
      if (!c.infeasible.empty() &&
          c.infeasible.find("not the layout") == std::string::npos &&
          (!closest || c.layout.chips() >= closest->layout.chips()))
        closest = &c;
    if (closest)
      why += "; the most spread, pp " + num(closest->layout.pp) + " x ep " +
             num(closest->layout.ep) + ", fails: " + closest->infeasible;
    else
      why += ": no candidate layout (pp up to " + num(maxPp) +
             ", ep dividing the experts, pp * ep dividing the chips) has "
             "the degrees the strategy fixes (pp " +
             (request.pp > 0 ? num(request.pp) : std::string("any")) + ", ep " +
             (request.ep > 0 ? num(request.ep) : std::string("any")) + ")";
    return R::fail(why);
  }
  std::stable_sort(feasible.begin(), feasible.end(), [&](size_t a, size_t b) {
    return plan.layouts[a].screenedJct < plan.layouts[b].screenedJct;
  });
  feasible.resize(std::min<size_t>(
      feasible.size(), size_t(std::max<int64_t>(1, request.layoutsToSweep))));

  double bestJct = inf;
  for (size_t i : feasible) {
    const LayoutCandidate &c = plan.layouts[i];
    auto system = pipeSwiftLikeSystem(model, workload, request.chips, c.layout,
                                      screenInterval, request.routing);
    if (!system)
      return R::fail(system.error);
    WaveIntervalSweep sweep;
    int64_t interval = screenInterval;
    double jct;
    if (request.waveInterval > 0) {
      auto r = replay(workload, *system, quiet);
      if (!r)
        return R::fail(r.error);
      jct = r->completed ? r->metrics.overallJct : inf;
    } else {
      auto s = chooseWaveInterval(workload, *system);
      if (!s)
        continue;
      sweep = *s;
      interval = sweep.best;
      jct = sweep.bestJct;
    }
    if (jct < bestJct) {
      bestJct = jct;
      plan.system = withWaveInterval(*system, interval);
      plan.waveInterval = interval;
      plan.sweep = sweep;
    }
  }
  if (!(bestJct < inf))
    return R::fail("no layout's replay completed");
  plan.system.name = "PipeSwift-like (planned), I=" + num(plan.waveInterval);
  plan.layout = plan.system.serving.layout;
  auto predicted = replay(workload, plan.system);
  if (!predicted)
    return R::fail(predicted.error);
  plan.predicted = std::move(*predicted);
  return R::ok(std::move(plan));
}

} // namespace plexus::serving
