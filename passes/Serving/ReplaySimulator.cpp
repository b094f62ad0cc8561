//===- ReplaySimulator.cpp - Deterministic replay of agent jobs -----------===//

#include "passes/Serving/ReplaySimulator.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>

namespace plexus::serving {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

std::string num(int64_t v) { return std::to_string(v); }

/// A turn that becomes ready at `time` on an instance.
struct PendingTurn {
  double time = 0;
  int64_t task = 0;
  int64_t turn = 0;
  bool prefilled = false;
  bool granted = false; // PD: its decode-side pages are pre-allocated
  double asked = 0;     // PD: when it first asked for them
};
struct LaterTurn {
  bool operator()(const PendingTurn &a, const PendingTurn &b) const {
    if (a.time != b.time)
      return a.time > b.time;
    if (a.task != b.task)
      return a.task > b.task;
    return a.turn > b.turn;
  }
};

/// One instance: its scheduler and the timing state of its pipeline.
struct Instance {
  explicit Instance(const InstancePool &pool)
      : sched(pool.policy), cost(pool.cost.get()), stages(pool.policy.stages),
        stageFree(size_t(stages), 0.0), mbReady(size_t(stages), 0.0) {}

  /// When this instance next has something to do.
  double nextTime() const {
    if (!sched.idle() && !blocked)
      return clock;
    return pending.empty() ? kNever : std::max(clock, pending.top().time);
  }

  WaveScheduler sched;
  const StageCostModel *cost;
  int64_t stages;
  std::vector<double> stageFree; // when each stage is next free
  std::vector<double> mbReady;   // when each decode micro-batch may go again
  std::vector<double> mbEnd;     // when each micro-batch of the last step left
  double clock = 0;              // time of the next decision
  /// PD decode side: its waiting requests need pages pre-allocated for
  /// turns still on their way; it sleeps until one of them arrives.
  bool blocked = false;
  std::priority_queue<PendingTurn, std::vector<PendingTurn>, LaterTurn> pending;
  int64_t activeTasks = 0;
};

struct TaskState {
  int64_t unit = -1;     // instance (colocated) or PD unit
  int64_t nextTurn = 0;  // the turn in progress
  double arrival = 0;    // when the turn in progress arrived
  double admitted = 0;   // when its (last) prefill wave started
  double firstToken = 0; // when that prefill left the pipeline
};

class Replayer {
public:
  Replayer(const AgentWorkload &w, const ServingSystem &s,
           const ReplayOptions &o)
      : workload(w), system(s), options(o), tasks(w.tasks.size()) {
    for (int64_t i = 0; i < s.serving.instances; ++i)
      front.emplace_back(s.serving);
    if (s.disaggregated)
      for (int64_t i = 0; i < s.decode.instances; ++i)
        back.emplace_back(s.decode);
    linkFree.assign(
        front.size() * size_t(std::max<int64_t>(1, s.transfer.lanes)), 0.0);
    preallocQueue.resize(front.size());
    size_t stages = size_t(std::max<int64_t>(
        1, std::max(s.serving.policy.stages,
                    s.disaggregated ? s.decode.policy.stages : 0)));
    result.stagePrefillSeconds.assign(stages, 0.0);
    result.stageDecodeSeconds.assign(stages, 0.0);
  }

  Result<ReplayResult> run();

private:
  void startTask(int64_t task, double time);
  void step(Instance &in, int64_t index, bool decodeSide);
  double drain(Instance &in, double now);
  double runWave(Instance &in, const Decision &d, double now);
  double runDecode(Instance &in, const Decision &d, double now);
  void turnDone(int64_t task, int64_t turn, int64_t instance, double finish);
  void handOff(int64_t unit, int64_t task, int64_t turn, double prefillEnd);
  void grant(int64_t unit, double now, bool intoScheduler);
  TurnArrival arrivalOf(const PendingTurn &p) const;

  const AgentWorkload &workload;
  const ServingSystem &system;
  const ReplayOptions &options;
  std::vector<Instance> front, back; // colocated or prefill; decode
  std::vector<double> linkFree;      // PD units' KV lanes, unit-major
  /// PD units' turns waiting for their decode-side pre-allocation, in
  /// arrival order.
  std::vector<std::deque<PendingTurn>> preallocQueue;
  std::vector<TaskState> tasks;
  int64_t nextTask = 0, finishedTasks = 0;
  double waveStart = 0; // after the flush, of the wave run last
  std::string error;
  ReplayResult result;
};

void Replayer::startTask(int64_t task, double time) {
  size_t best = 0;
  for (size_t i = 1; i < front.size(); ++i)
    if (front[i].activeTasks < front[best].activeTasks)
      best = i;
  tasks[size_t(task)].unit = int64_t(best);
  ++front[best].activeTasks;
  front[best].pending.push({time, task, 0, false});
}

void Replayer::turnDone(int64_t task, int64_t turn, int64_t instance,
                        double finish) {
  TaskState &t = tasks[size_t(task)];
  const AgentTask &data = workload.tasks[size_t(task)];
  // Kept for the metrics; dropped at the end unless asked for.
  result.turns.push_back(
      {task, turn, instance, t.arrival, t.admitted, t.firstToken, finish});
  if (turn + 1 < int64_t(data.turns.size())) {
    t.nextTurn = turn + 1;
    double next = finish + data.turns[size_t(turn)].toolLatency;
    front[size_t(t.unit)].pending.push({next, task, turn + 1, false});
    return;
  }
  ++finishedTasks;
  --front[size_t(t.unit)].activeTasks;
  if (nextTask < int64_t(workload.tasks.size()))
    startTask(nextTask++, finish);
}

void Replayer::handOff(int64_t unit, int64_t task, int64_t turn,
                       double prefillEnd) {
  const AgentTurn &data = workload.tasks[size_t(task)].turns[size_t(turn)];
  if (data.outputTokens <= 1) {
    // Done on the prefill side: the decode side's reservation is not used.
    if (system.transfer.preallocate)
      back[size_t(unit)].sched.cancelPreallocation(task);
    turnDone(task, turn, unit, prefillEnd);
    return;
  }
  // The whole context's KV goes to the decode side, every turn.
  const KvTransferModel &link = system.transfer;
  double bytes = double(data.promptTokens()) * link.bytesPerToken;
  double &free = linkFree[size_t(unit * link.lanes + task % link.lanes)];
  double start = std::max(prefillEnd, free);
  double end = start + link.latency + bytes / link.bandwidth;
  free = end;
  ++result.kvTransfers;
  result.kvTransferBytes += bytes;
  if (link.timeout > 0 && end - prefillEnd > link.timeout && error.empty() &&
      result.completed) {
    result.completed = false;
    result.incomplete = "the KV transfer of task " + num(task) + " turn " +
                        num(turn + 1) + " ended " +
                        std::to_string(end - prefillEnd) +
                        " s after its prefill, past the " +
                        std::to_string(link.timeout) + " s timeout";
  }
  back[size_t(unit)].pending.push({end, task, turn, true});
}

TurnArrival Replayer::arrivalOf(const PendingTurn &p) const {
  const AgentTask &task = workload.tasks[size_t(p.task)];
  TurnArrival a;
  a.task = p.task;
  a.turn = p.turn;
  a.time = p.time;
  a.data = &task.turns[size_t(p.turn)];
  a.lastTurn = p.turn + 1 == int64_t(task.turns.size());
  a.prefilled = p.prefilled;
  return a;
}

void Replayer::grant(int64_t unit, double now, bool intoScheduler) {
  // First come, first served: the head of the queue blocks the rest, as
  // SGLang's pre-allocation loop stops at the first request that does not
  // fit.
  std::deque<PendingTurn> &queue = preallocQueue[size_t(unit)];
  Instance &decodeSide = back[size_t(unit)];
  Instance &prefillSide = front[size_t(unit)];
  while (!queue.empty()) {
    PendingTurn p = queue.front();
    const AgentTurn &data =
        workload.tasks[size_t(p.task)].turns[size_t(p.turn)];
    if (!decodeSide.sched.preallocate(p.task, data.promptTokens())) {
      if (decodeSide.sched.holdsNothing() && error.empty())
        error = "task " + num(p.task) + " turn " + num(p.turn + 1) + " needs " +
                num(data.promptTokens()) +
                " tokens of KV pre-allocated, more than decode instance " +
                num(unit) + " can hold";
      return;
    }
    queue.pop_front();
    ++result.preallocations;
    result.preallocWaitSeconds += now - p.asked;
    p.granted = true;
    if (intoScheduler) {
      prefillSide.sched.arrive(arrivalOf(p));
    } else {
      p.time = std::max(p.time, now);
      prefillSide.pending.push(p);
    }
  }
}

double Replayer::drain(Instance &in, double now) {
  // Every in-flight micro-batch leaves the pipeline (and its feedback
  // returns) before anything new enters.
  double start = now;
  for (int64_t p = 0; p < in.stages; ++p)
    start = std::max({start, in.stageFree[size_t(p)], in.mbReady[size_t(p)]});
  for (int64_t p = 0; p < in.stages; ++p)
    result.flushIdleSeconds += start - std::max(now, in.stageFree[size_t(p)]);
  std::fill(in.stageFree.begin(), in.stageFree.end(), start);
  std::fill(in.mbReady.begin(), in.mbReady.end(), start);
  return start;
}

double Replayer::runWave(Instance &in, const Decision &d, double now) {
  const int64_t stages = in.stages;
  double start = drain(in, now);
  waveStart = start;
  in.mbEnd.assign(d.microBatches.size(), start);
  double waveEnd = start;
  for (size_t m = 0; m < d.microBatches.size(); ++m) {
    const PrefillBatch &b = d.prefill[m];
    result.prefillQuadratic += b.quadratic;
    result.prefillBusiestQuadratic += b.maxQuadratic;
    double t = start;
    for (int64_t p = 0; p < stages; ++p) {
      double s = std::max(t, in.stageFree[size_t(p)]);
      double busy = in.cost->prefillSeconds(p, b);
      result.stagePrefillSeconds[size_t(p)] += busy;
      double e = s + busy;
      in.stageFree[size_t(p)] = e;
      t = p + 1 < stages ? e + in.cost->hopSeconds(p, b.tokens) : e;
    }
    in.mbEnd[m] = t;
    waveEnd = std::max(waveEnd, t);
  }
  // Decoding resumes once the wave has left the pipeline.
  std::fill(in.stageFree.begin(), in.stageFree.end(), waveEnd);
  std::fill(in.mbReady.begin(), in.mbReady.end(), waveEnd);
  return waveEnd;
}

double Replayer::runDecode(Instance &in, const Decision &d, double now) {
  const int64_t stages = in.stages;
  if (d.flush)
    now = drain(in, now);
  in.mbEnd.assign(d.microBatches.size(), now);
  int64_t first = -1;
  for (size_t k = 0; k < d.microBatches.size(); ++k) {
    const DecodeBatch &b = d.decode[k];
    if (b.requests == 0)
      continue;
    if (first < 0)
      first = int64_t(k);
    double t = std::max(now, in.mbReady[k]);
    for (int64_t p = 0; p < stages; ++p) {
      double s = std::max(t, in.stageFree[size_t(p)]);
      double busy = in.cost->decodeSeconds(p, b);
      result.stageDecodeSeconds[size_t(p)] += busy;
      double e = s + busy;
      in.stageFree[size_t(p)] = e;
      t = p + 1 < stages ? e + in.cost->hopSeconds(p, b.tokens()) : e;
    }
    in.mbEnd[k] = t;
    // The accepted lengths and drafts return to stage 0.
    in.mbReady[k] = t + in.cost->hopSeconds(stages - 1, 0);
  }
  if (first < 0)
    return now; // not reached: a decode step has a request
  return std::max(in.stageFree[0], in.mbReady[size_t(first)]);
}

void Replayer::step(Instance &in, int64_t index, bool decodeSide) {
  double now = in.nextTime();
  in.clock = now;
  const bool preallocates =
      system.disaggregated && system.transfer.preallocate && !decodeSide;
  while (!in.pending.empty() && in.pending.top().time <= now) {
    PendingTurn p = in.pending.top();
    in.pending.pop();
    if (preallocates && !p.granted) {
      // Its prefill waits until the decode side has reserved its KV.
      tasks[size_t(p.task)].arrival = p.time;
      p.asked = now;
      preallocQueue[size_t(index)].push_back(p);
      continue;
    }
    if (!decodeSide && !p.granted)
      tasks[size_t(p.task)].arrival = p.time;
    in.blocked = false;
    in.sched.arrive(arrivalOf(p));
  }
  if (preallocates)
    grant(index, now, /*intoScheduler=*/true);
  const Decision &d = in.sched.decide();
  if (!in.sched.error().empty()) {
    error = in.sched.error();
    return;
  }
  if (d.kind == StepKind::Idle) {
    if (decodeSide && in.sched.awaitsPreallocated())
      in.blocked = true;
    else if (!in.sched.idle())
      error = "instance " + num(index) + " has waiting turns but cannot run";
    return;
  }
  if (d.kind == StepKind::Wave) {
    in.clock = runWave(in, d, now);
    result.waveSeconds += in.clock - now;
    if (!decodeSide) {
      for (size_t m = 0; m < d.microBatches.size(); ++m)
        for (int64_t id : d.microBatches[m]) {
          TaskState &t = tasks[size_t(in.sched.request(id).task)];
          t.admitted = waveStart;
          t.firstToken = in.mbEnd[m];
        }
    }
  } else {
    in.clock = runDecode(in, d, now);
    result.decodeSeconds += in.clock - now;
  }
  const std::vector<StepCompletion> &done = in.sched.complete();
  for (const StepCompletion &c : done) {
    WaveScheduler::RequestInfo r = in.sched.request(c.request);
    double finish = in.mbEnd[size_t(c.microBatch)];
    if (system.disaggregated && !decodeSide)
      handOff(index, r.task, r.turn, finish);
    else
      turnDone(r.task, r.turn, index, finish);
  }
  // Pages the decode side freed go to the turns waiting for them.
  if (decodeSide && system.transfer.preallocate)
    grant(index, in.clock, /*intoScheduler=*/false);
}

Result<ReplayResult> Replayer::run() {
  int64_t initial =
      std::min<int64_t>(workload.concurrency, int64_t(workload.tasks.size()));
  for (; nextTask < initial; ++nextTask)
    startTask(nextTask, 0.0);
  const int64_t total = int64_t(workload.tasks.size());
  while (finishedTasks < total && error.empty() && result.completed) {
    // The instance with the earliest next event; ties to the front pool and
    // the lower index.
    Instance *pick = nullptr;
    int64_t index = 0;
    bool decodeSide = false;
    double best = kNever;
    for (size_t i = 0; i < front.size(); ++i)
      if (double t = front[i].nextTime(); t < best) {
        best = t;
        pick = &front[i];
        index = int64_t(i);
        decodeSide = false;
      }
    for (size_t i = 0; i < back.size(); ++i)
      if (double t = back[i].nextTime(); t < best) {
        best = t;
        pick = &back[i];
        index = int64_t(i);
        decodeSide = true;
      }
    if (!pick) {
      error = "no instance has work, but " + num(total - finishedTasks) +
              " tasks have not finished";
      break;
    }
    if (options.timeLimit > 0 && best > options.timeLimit) {
      result.completed = false;
      result.incomplete = "the replay passed the time limit of " +
                          std::to_string(options.timeLimit) + " s";
      break;
    }
    step(*pick, index, decodeSide);
  }
  if (!error.empty())
    return Result<ReplayResult>::fail(error);
  for (const std::vector<Instance> *pool : {&front, &back})
    for (const Instance &in : *pool) {
      const SchedulerCounters &c = in.sched.counters();
      SchedulerCounters &s = result.counters;
      s.waves += c.waves;
      s.prefillMicroBatches += c.prefillMicroBatches;
      s.decodeRounds += c.decodeRounds;
      s.repartitions += c.repartitions;
      s.flushes += c.flushes;
      s.preemptions += c.preemptions;
      s.evictions += c.evictions;
      s.promptTokens += c.promptTokens;
      s.prefillTokens += c.prefillTokens;
      s.recomputedTokens += c.recomputedTokens;
      s.waveRequests += c.waveRequests;
      s.decodeRequestSteps += c.decodeRequestSteps;
      s.decodeTokens += c.decodeTokens;
      s.peakPagesUsed = std::max(s.peakPagesUsed, c.peakPagesUsed);
      s.rankMoves += c.rankMoves;
    }
  result.metrics = summarizeTurns(result.turns, workload.tasks, finishedTasks);
  if (result.counters.promptTokens > 0)
    result.metrics.prefixHitRate =
        1.0 - double(result.counters.prefillTokens) /
                  double(result.counters.promptTokens);
  if (!options.keepTurns)
    result.turns.clear();
  return Result<ReplayResult>::ok(std::move(result));
}

} // namespace

double nearestRankPercentile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return 0;
  double rank = std::ceil(q * double(sorted.size()));
  size_t i = size_t(std::clamp(rank, 1.0, double(sorted.size()))) - 1;
  return sorted[i];
}

ServingMetrics summarizeTurns(const std::vector<TurnRecord> &turns,
                              const std::vector<AgentTask> &tasks,
                              int64_t finishedTasks) {
  ServingMetrics m;
  m.turns = int64_t(turns.size());
  m.tasks = finishedTasks;
  if (turns.empty())
    return m;
  std::vector<double> jct;
  jct.reserve(turns.size());
  std::vector<double> start(tasks.size(), 0.0), end(tasks.size(), -1.0);
  double sum = 0;
  for (const TurnRecord &t : turns) {
    jct.push_back(t.jct());
    sum += t.jct();
    m.overallJct = std::max(m.overallJct, t.finish);
    const AgentTask &task = tasks[size_t(t.task)];
    m.outputTokens += task.turns[size_t(t.turn)].outputTokens;
    if (t.turn == 0)
      start[size_t(t.task)] = t.arrival;
    if (t.turn + 1 == int64_t(task.turns.size()))
      end[size_t(t.task)] = t.finish;
  }
  std::sort(jct.begin(), jct.end());
  m.meanTurnJct = sum / double(jct.size());
  m.p50TurnJct = nearestRankPercentile(jct, 0.50);
  m.p90TurnJct = nearestRankPercentile(jct, 0.90);
  m.p99TurnJct = nearestRankPercentile(jct, 0.99);
  double taskSum = 0;
  int64_t ended = 0;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (end[i] >= 0) {
      taskSum += end[i] - start[i];
      ++ended;
    }
  m.meanTaskJct = ended > 0 ? taskSum / double(ended) : 0;
  if (m.overallJct > 0) {
    m.outputTokensPerSecond = double(m.outputTokens) / m.overallJct;
    m.tasksPerSecond = double(finishedTasks) / m.overallJct;
  }
  return m;
}

std::string checkServingSystem(const ServingSystem &system) {
  auto checkPool = [](const InstancePool &pool, const char *what,
                      InstanceRole role) -> std::string {
    if (pool.instances < 1)
      return std::string(what) + " needs at least one instance";
    if (!pool.cost)
      return std::string(what) + " has no cost model";
    std::string p = checkSchedulerPolicy(pool.policy);
    if (!p.empty())
      return std::string(what) + ": " + p;
    if (pool.policy.stages != pool.cost->stages())
      return std::string(what) + ": the policy has " + num(pool.policy.stages) +
             " stages, the cost model " + num(pool.cost->stages());
    if (pool.policy.role != role)
      return std::string(what) + " has the wrong instance role";
    return "";
  };
  if (!system.disaggregated)
    return checkPool(system.serving, "the serving pool",
                     InstanceRole::Colocated);
  std::string p =
      checkPool(system.serving, "the prefill pool", InstanceRole::PrefillOnly);
  if (p.empty())
    p = checkPool(system.decode, "the decode pool", InstanceRole::DecodeOnly);
  if (!p.empty())
    return p;
  if (system.serving.instances != system.decode.instances)
    return "PD units need as many prefill as decode instances";
  if (!(system.transfer.bandwidth > 0) || system.transfer.lanes < 1 ||
      system.transfer.bytesPerToken < 0 || system.transfer.latency < 0 ||
      system.transfer.timeout < 0)
    return "the KV transfer needs a positive bandwidth and non-negative "
           "bytes, latency and timeout";
  return "";
}

Result<ReplayResult> replay(const AgentWorkload &workload,
                            const ServingSystem &system,
                            const ReplayOptions &options) {
  if (workload.tasks.empty())
    return Result<ReplayResult>::fail("the workload has no tasks");
  if (workload.concurrency < 1)
    return Result<ReplayResult>::fail("the concurrency must be at least 1");
  for (size_t i = 0; i < workload.tasks.size(); ++i) {
    std::string p = checkAgentTask(workload.tasks[i]);
    if (!p.empty())
      return Result<ReplayResult>::fail("task " + num(int64_t(i)) + ": " + p);
  }
  std::string p = checkServingSystem(system);
  if (!p.empty())
    return Result<ReplayResult>::fail(p);
  Replayer r(workload, system, options);
  return r.run();
}

} // namespace plexus::serving
