//===- ReplaySimulator.h - Deterministic replay of agent jobs ---*- C++ -*-===//
//
// Replays an agent workload on a serving system, turn by turn, and measures
// job completion time (reference pipeswift_railx.md sections 1.2 and 3.1
// item 10). Tasks run in a closed loop of `concurrency`: the first ones
// start at time 0 and each finished task starts the next. Turn t + 1 of a
// task arrives when turn t finished plus turn t's tool latency. Each
// instance runs a WaveScheduler; its steps are timed on a StageCostModel:
//  - a decode round sends each non-empty micro-batch k through stages
//    0..P-1 in order; a stage runs one micro-batch at a time, a micro-batch
//    reaches stage p + 1 a hop after leaving stage p, and starts its next
//    round on stage 0 only after its previous round left the last stage and
//    the feedback hop returned (the autoregressive dependency). Rounds
//    overlap as a real pipeline's do: the next decision is taken when stage
//    0 could start the next round's first micro-batch;
//  - a flush (before a wave, or at a repartition) waits until every
//    in-flight micro-batch has left the pipeline;
//  - a prefill wave sends its K micro-batches through the stages the same
//    way, without feedback; decoding resumes when the wave has left the
//    pipeline. A turn's first token is ready when its micro-batch leaves
//    the last stage, and a decode step's tokens likewise;
//  - instances are independent except for task admission; events are taken
//    in time order across instances (ties: the lower instance index), so
//    the replay is deterministic.
// A task stays on the instance it started on (its prefix cache is there);
// a new task goes to the instance with the fewest active tasks (ties: the
// lower index).
//
// PD disaggregation: unit i is prefill instance i and decode instance i. A
// turn is prefilled on the prefill side, its whole context's KV is sent to
// the decode side over the unit's link (first come, first served, one
// transfer at a time; the reference's baseline re-sends the full KV every
// turn), and decoded there. A transfer that ends more than `timeout`
// seconds after its prefill stops the run as not completed, as the
// paper's 2P2D cells that hit KV-transfer timeouts did not finish. With
// transfer.preallocate, a turn that arrives at a unit first asks its
// decode instance to pre-allocate its prompt's pages
// (WaveScheduler::preallocate); the prefill instance takes it only once
// granted. Requests are granted in arrival order, the first refused one
// blocking the rest, when the prefill instance steps and after every step
// of the decode instance (whose freed pages go to them); a prompt the empty
// decode instance cannot hold is an error.
//
// Metrics: overall JCT (the makespan: the last task's finish, time 0 being
// the start), turn-level JCT (a turn's finish minus its arrival, so waiting
// for a wave counts) as mean and nearest-rank P50 / P90 / P99, task JCT
// mean, and throughput (output tokens and tasks per second of makespan).
//
// Profile, to see where the time goes: each turn's admission (the start of
// the wave that prefilled it, after that wave's flush) and first token, so
// its queueing; the busy seconds of every stage split into prefill and
// decode; the stage-seconds left idle by flushes (from a flush's decision
// until the pipeline has drained, per stage, counted from when the stage
// itself was free); the prefill attention work and the busiest rank's share
// of it; and the schedulers' counters summed (waves and their requests,
// decode request-steps and the tokens they emitted, recomputed prefill).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_REPLAYSIMULATOR_H
#define PLEXUS_PASSES_SERVING_REPLAYSIMULATOR_H

#include "passes/Serving/WaveScheduler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plexus::serving {

/// Identical instances: their count, their stage costs and how they
/// schedule (policy.stages must equal cost->stages()).
struct InstancePool {
  int64_t instances = 1;
  std::shared_ptr<const StageCostModel> cost;
  SchedulerPolicy policy;
  ServingLayout layout; // as built from a model (reports); else unused
};

/// The links between a PD unit's prefill and decode instances: `lanes`
/// independent links (under DP-attention a request's KV sits on one rank
/// and leaves through that rank's NIC); task t uses lane t mod lanes.
struct KvTransferModel {
  double bytesPerToken = 0; // KV bytes of one context token, all layers
  double bandwidth = 0;     // bytes/s of one lane
  int64_t lanes = 1;
  double latency = 0; // seconds per transfer
  double timeout = 0; // seconds from prefill end; 0 = none
  /// The decode side reserves a turn's prompt pages before its prefill may
  /// start (SGLang's PD: the prefill waits for the decode side's
  /// pre-allocation handshake).
  bool preallocate = false;
};

/// A serving system: one colocated pool, or a prefill and a decode pool
/// with the same instance count (PD disaggregation).
struct ServingSystem {
  std::string name;
  InstancePool serving; // colocated, or the prefill side
  bool disaggregated = false;
  InstancePool decode; // the decode side when disaggregated
  KvTransferModel transfer;
  int64_t chips = 0; // chips the system uses (reports only)
};

struct ReplayOptions {
  bool keepTurns = true; // fill ReplayResult::turns
  /// Stop as not completed past this simulated time (seconds); 0 = none.
  double timeLimit = 0;
};

/// One replayed turn.
struct TurnRecord {
  int64_t task = 0;
  int64_t turn = 0;
  int64_t instance = 0;  // colocated or decode instance
  double arrival = 0;    // seconds
  double admitted = 0;   // when the wave that prefilled it started
  double firstToken = 0; // when that prefill left the pipeline
  double finish = 0;
  double jct() const { return finish - arrival; }
  /// Waiting for a wave (and for pages), before any work on the turn.
  double queueing() const { return admitted - arrival; }
};

struct ServingMetrics {
  double overallJct = 0; // makespan, seconds
  double meanTurnJct = 0, p50TurnJct = 0, p90TurnJct = 0, p99TurnJct = 0;
  double meanTaskJct = 0;
  double outputTokensPerSecond = 0;
  double tasksPerSecond = 0;
  int64_t tasks = 0, turns = 0, outputTokens = 0;
  /// Share of admitted prompt tokens served from the prefix cache.
  double prefixHitRate = 0;
};

struct ReplayResult {
  bool completed = true;
  std::string incomplete;     // why not completed
  ServingMetrics metrics;     // over the turns that finished
  SchedulerCounters counters; // summed over instances
  /// Instance time by step kind, summed over instances: from the decision
  /// to the end of a wave (its flush included), and from a decode decision
  /// to the next decision.
  double waveSeconds = 0;
  double decodeSeconds = 0;
  /// Busy seconds per stage (index = stage), summed over instances of both
  /// pools: prefill micro-batches and decode micro-batches.
  std::vector<double> stagePrefillSeconds, stageDecodeSeconds;
  /// Stage-seconds left idle while the pipeline drained for a flush (before
  /// a wave or a repartitioned decode round).
  double flushIdleSeconds = 0;
  /// Prefill attention work, summed over micro-batches: all of it (sum of
  /// (c + x)^2 - c^2), and the busiest rank's share (the batches'
  /// maxQuadratic); their ratio shows how well DP-attention ranks share it.
  double prefillQuadratic = 0;
  double prefillBusiestQuadratic = 0;
  int64_t kvTransfers = 0;
  double kvTransferBytes = 0;
  /// PD with pre-allocation: turns granted, and the seconds they waited
  /// for it in all, from when the prefill side could first have taken them
  /// (part of their queueing).
  int64_t preallocations = 0;
  double preallocWaitSeconds = 0;
  std::vector<TurnRecord> turns; // in finish order
};

/// Nearest-rank percentile of ascending `sorted` values: the value at rank
/// ceil(q n) (1-based), q in (0, 1]; 0 for no values.
double nearestRankPercentile(const std::vector<double> &sorted, double q);

/// Metrics of finished turns (any order); `tasks` finished tasks.
ServingMetrics summarizeTurns(const std::vector<TurnRecord> &turns,
                              const std::vector<AgentTask> &tasks,
                              int64_t finishedTasks);

/// Checks a system against itself (pools, policies, stage counts); empty
/// when valid.
std::string checkServingSystem(const ServingSystem &system);

/// Replays `workload` on `system`. Errors: an empty workload, an invalid
/// system or task, a turn that can never fit an instance's KV cache. A
/// KV-transfer timeout or the time limit gives completed = false.
Result<ReplayResult> replay(const AgentWorkload &workload,
                            const ServingSystem &system,
                            const ReplayOptions &options = {});

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_REPLAYSIMULATOR_H
