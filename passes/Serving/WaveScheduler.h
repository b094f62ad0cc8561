//===- WaveScheduler.h - PipeSwift's per-instance scheduler -----*- C++ -*-===//
//
// The scheduling logic every rank of a serving instance runs (reference
// pipeswift_railx.md sections 1.3, 1.5 and 1.6): turns wait until the next
// prefill wave; a wave is admitted every I decode rounds (the wave interval)
// and cut into micro-batches (Partitioning.h: the square-root rule bounds
// K, the greedy fills the micro-batches, the modelled wave time picks K);
// decoding requests are repartitioned into P micro-batches by KV length only
// when a wave ends or a request finishes (each repartition flushes the
// pipeline; events before the same round make one repartition, at that
// round); KV pages are allocated, cached across turns, evicted and
// preempted.
//
// It is a deterministic state machine fed events: arrive() (a turn is
// ready), decide() (what to run next) and complete() (it ran). Nothing
// depends on time, addresses or hash order: arrivals delivered for the same
// step are put in (time, task, turn) order first, so N copies fed the same
// events, even in a different order within a step, make identical decisions
// (the SPMD property: no central scheduler, every rank decides alike).
// Timing belongs to the caller (ReplaySimulator.h).
//
// Terms. A decode round is one decode step of every decoding request (each
// of the P micro-batches passes all stages once). I counts rounds: with
// I = 1 a waiting turn is admitted at the next round boundary (the
// prefill-first policy of vLLM and SGLang); with larger I, waves gather
// turns. When nothing is decoding a wave starts at once.
//
// Choices where the reference is silent (policy fields with defaults):
//  - The wave clock counts rounds since the last wave (PipeSwift), or
//    since a turn started waiting (SGLang's prefill delayer, whose cap on
//    delayed passes is I); admitEarlyAt starts a wave before I rounds once
//    that many turns wait (the delayer admits when every DP rank has work).
//  - A wave admits waiting turns first come, first served, while their KV
//    pages fit (head-of-line: it stops at the first that does not) and the
//    wave's new tokens stay within maxWaveTokens (0: no limit; the first
//    turn is always taken).
//  - Prefix cache: when a turn finishes, its task keeps its KV (prompt and
//    output) until its next turn arrives; the next turn reuses
//    min(its cached_tokens, what is kept) and prefills the rest. When pages
//    run short, the least recently used idle prefix gives up only the
//    pages asked for, from its end, and keeps its front: SGLang's radix
//    cache evicts leaves (the newest tokens of a sequence) until enough
//    tokens are free, and vLLM frees a sequence's blocks last-first into
//    its LRU queue, so both lose the tail of a prefix before its head.
//    The task's next turn then recomputes only the lost tail (on top of
//    the kept front, at w(c, x)'s cost), not its whole context. A task's
//    last turn frees everything. Cross-task sharing (a common system
//    prompt) is not modelled.
//  - A decoding request holds pages for its context plus the 1 + drafts
//    tokens a step verifies. When a round's growth does not fit, idle
//    prefixes give up pages (as above), then prefixes held by waiting turns
//    (from the back of the queue, again only the pages needed, from the
//    end; those turns prefill what they lost), then
//    the most recently admitted requests are preempted: their pages freed,
//    they wait again at the front of the queue and recompute their whole
//    context (vLLM's recompute policy). A preemption also triggers a
//    repartition.
//  - When nothing decodes and the head of the queue still does not fit,
//    prefixes held by waiting turns are dropped too (from the back of the
//    queue), so the instance cannot deadlock; a turn that needs more pages
//    than the instance has is an error.
//  - Emitted tokens per step: the turn's recorded mtp_accepted length,
//    capped at 1 + drafts; without a record, a deterministic sequence with
//    the mean meanAcceptedTokens (step n emits floor((n+1) m) - floor(n m),
//    within [1, 1 + drafts]); 1 without MTP. The prefill emits the first.
//    The counters record the tokens each step emitted and the request-steps
//    that emitted them (their ratio is the mean accepted length), the turns
//    waves admitted, and the prefill tokens beyond the turns' recorded new
//    tokens (lost prefixes and preemptions, recomputed).
//  - Roles for PD disaggregation: a PrefillOnly instance runs waves only
//    and hands each turn off after its prefill (it keeps the prompt's KV as
//    the task's prefix, not the output it never saw); a DecodeOnly instance
//    takes turns whose KV arrived with them, joins them to the decode set at
//    the next round, and keeps nothing after a turn (the whole KV is sent
//    again next turn).
//  - StaticByCount decode partitioning (the vLLM-like baseline) puts a
//    joining request in the micro-batch with the fewest requests and never
//    moves it; it never flushes.
//  - DP-attention ranks (attentionRanks > 0): a request's attention runs on
//    the one rank that holds its KV, so a task is pinned, at its first
//    arrival, to the rank with the fewest of the instance's tasks (ties:
//    the lower rank) and stays there until its last turn ends (its prefix
//    cache lives there; SGLang routes a session's requests to one DP rank
//    for the same reason). The micro-batches then carry the busiest rank's
//    work: PrefillBatch::maxQuadratic is the largest per-rank sum of
//    (c + x)^2 - c^2 and DecodeBatch::maxKv the largest per-rank KV sum.
//    Waves are cut rank-aware (Partitioning.h: cutWave, which picks K by
//    the modelled wave time rather than the square-root rule alone), and
//    decode repartitioning balances each rank over the micro-batches
//    (partitionByKvLengthAndRank). Without ranks those two fields carry the
//    largest single request's share, the cut is plain LPT over K <= the
//    square-root rule's K, and repartitioning is plain LPT by KV length.
//    The KV pages stay one pool per instance (as if each rank's share of
//    the tasks fit its own pool).
//  - DpRouting::KvAware instead places every turn on the rank of least
//    w x (prompt tokens it would prefill there) + (context tokens of the
//    requests waiting or decoding there), w = routingOverlapWeight (NVIDIA
//    Dynamo's KV-router cost, kv-overlap-score-weight default 1); only the
//    task's own rank holds its kept prefix. Ties: the task's rank, then
//    the lower. A turn that moves drops its kept prefix (its pages are
//    freed) and prefills its whole prompt; counters().rankMoves counts it.
//  - Pre-allocation (DecodeOnly, for PD): preallocate() reserves a turn's
//    prompt pages before it is prefilled elsewhere when the free tokens,
//    less reservedDecodeTokens per request held (decoding, waiting,
//    arriving or pre-allocated), cover the prompt plus reservedDecodeTokens
//    (SGLang's disaggregation/decode.py); the turn's arrival takes the
//    pages over.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_WAVESCHEDULER_H
#define PLEXUS_PASSES_SERVING_WAVESCHEDULER_H

#include "passes/Serving/StageCost.h"
#include "passes/Serving/Trajectory.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace plexus::serving {

enum class InstanceRole { Colocated, PrefillOnly, DecodeOnly };
enum class WaveClock { SinceLastWave, SinceFirstWaiting };
enum class DecodePartitioning { KvBalanced, StaticByCount };
enum class DpRouting { PinnedByTaskCount, KvAware };

/// How an instance schedules. Defaults are PipeSwift's (I = 32, sqrt-rule
/// micro-batches, KV-balanced repartitioning).
struct SchedulerPolicy {
  InstanceRole role = InstanceRole::Colocated;
  int64_t stages = 1;    // P
  int64_t mtpDrafts = 0; // drafts per step; 0 = no MTP
  /// Mean tokens per step for turns without recorded acceptances; <= 0:
  /// expectedAcceptedTokens(mtpDrafts, 0.75).
  double meanAcceptedTokens = 0;
  int64_t waveInterval = 32; // I, in decode rounds (>= 1)
  WaveClock waveClock = WaveClock::SinceLastWave;
  int64_t admitEarlyAt = 0;  // waiting turns that start a wave early; 0 = off
  int64_t maxWaveTokens = 0; // new tokens per wave; 0 = no limit
  bool splitPrefill = true;  // sqrt rule + LPT; false: one micro-batch
  int64_t maxMicroBatchTokens = 0; // 0 = no limit
  DecodePartitioning decodePartitioning = DecodePartitioning::KvBalanced;
  PrefillWeight weight; // alpha, beta, gamma of the partitioner
  int64_t pageTokens = 64;
  int64_t kvPages = 0; // pages of the instance's KV cache (> 0)
  /// DP-attention ranks a task's attention is pinned to (see above); 0 =
  /// not modelled (TP attention, or a cost model without ranks).
  int64_t attentionRanks = 0;
  DpRouting routing = DpRouting::PinnedByTaskCount;
  /// KvAware: weight of the prompt tokens a rank would prefill against the
  /// tokens in flight on it (Dynamo's kv-overlap-score-weight, default 1).
  double routingOverlapWeight = 1.0;
  /// DecodeOnly with pre-allocation: decode tokens kept free per request
  /// held (SGLang's num_reserved_decode_tokens, default 512).
  int64_t reservedDecodeTokens = 512;
};

/// Problems with a policy; empty when valid.
std::string checkSchedulerPolicy(const SchedulerPolicy &p);

/// A turn ready to be scheduled on this instance.
struct TurnArrival {
  int64_t task = 0;
  int64_t turn = 0;
  double time = 0;                 // when it became ready (ordering only)
  const AgentTurn *data = nullptr; // the recorded turn (outlives the run)
  bool lastTurn = false;           // free the task's KV after this turn
  bool prefilled = false;          // DecodeOnly: its KV came with it
};

enum class StepKind { Idle, Wave, Decode };

/// One scheduling decision. Request ids are assigned in arrival order.
struct Decision {
  StepKind kind = StepKind::Idle;
  bool flush = false;         // drain the pipeline before this step
  bool repartitioned = false; // the decode micro-batches were recomputed
  /// Request ids per micro-batch: K for a wave, P for a decode round (a
  /// decode micro-batch may be empty when fewer requests than stages).
  std::vector<std::vector<int64_t>> microBatches;
  std::vector<PrefillBatch> prefill; // per micro-batch of a wave
  std::vector<DecodeBatch> decode;   // per micro-batch of a decode round
  std::vector<int64_t> evictedTasks; // idle prefixes dropped for this step
  std::vector<int64_t> preempted;    // requests sent back to the queue
  int64_t freePages = 0;             // after this step's allocations

  bool operator==(const Decision &o) const;
};

/// A turn that finished its work on this instance in the last step: its
/// output is complete (or, on a PrefillOnly instance, its prefill is done).
struct StepCompletion {
  int64_t request = 0;
  int64_t microBatch = 0;
};

/// Counters of a run.
struct SchedulerCounters {
  int64_t waves = 0;
  int64_t prefillMicroBatches = 0;
  int64_t decodeRounds = 0;
  int64_t repartitions = 0;
  int64_t flushes = 0;
  int64_t preemptions = 0;
  int64_t evictions = 0;
  int64_t promptTokens = 0;  // prompt tokens of admitted turns
  int64_t prefillTokens = 0; // tokens actually prefilled (incl. recompute)
  /// Prefilled tokens beyond the turns' recorded new tokens: prefixes lost
  /// to eviction and preempted requests' recomputation.
  int64_t recomputedTokens = 0;
  int64_t waveRequests = 0;       // turns admitted by waves
  int64_t decodeRequestSteps = 0; // sum over rounds of requests decoding
  int64_t decodeTokens = 0;       // tokens those steps emitted
  int64_t peakPagesUsed = 0;
  int64_t rankMoves = 0; // turns routed away from their task's rank
};

class WaveScheduler {
public:
  /// The policy must pass checkSchedulerPolicy (the caller checks).
  explicit WaveScheduler(SchedulerPolicy policy);

  /// A turn became ready. Takes effect at the next decide().
  void arrive(const TurnArrival &arrival);

  /// The next step. Idle when there is nothing to do (or after an error).
  const Decision &decide();

  /// The step decided last has run. Returns the turns it finished.
  const std::vector<StepCompletion> &complete();

  /// DecodeOnly: reserves the pages of a turn's prompt before the turn is
  /// prefilled elsewhere (SGLang's decode pre-allocation, which must
  /// succeed before the prefill side may start it). False when they do not
  /// fit now; the turn's arrival later takes them over.
  bool preallocate(int64_t task, int64_t promptTokens);
  /// Frees a reservation whose turn will not come (it finished on the
  /// prefill side); nothing when there is none.
  void cancelPreallocation(int64_t task);
  /// Pages are reserved for turns still on their way.
  bool awaitsPreallocated() const { return !preallocated.empty(); }
  /// Nothing held: no request, no pre-allocation, every page free (a
  /// refused pre-allocation then never succeeds).
  bool holdsNothing() const;

  /// Set when a turn can never fit the instance's KV cache.
  const std::string &error() const { return failure; }

  struct RequestInfo {
    int64_t task = 0, turn = 0;
    int64_t generated = 0; // output tokens so far
    int64_t context = 0;   // tokens in the sequence (prompt + generated)
  };
  RequestInfo request(int64_t id) const;
  const SchedulerCounters &counters() const { return stats; }
  int64_t decodingRequests() const { return decoding; }
  int64_t waitingRequests() const { return int64_t(waiting.size()); }
  bool idle() const {
    return decoding == 0 && waiting.empty() && inbox.empty();
  }
  int64_t freePages() const { return free; }

private:
  enum class State { Waiting, Decoding, Done };
  struct Request {
    int64_t task = 0, turn = 0;
    const AgentTurn *data = nullptr;
    bool lastTurn = false;
    int64_t cached = 0;    // prompt tokens reused from the kept prefix
    int64_t fresh = 0;     // tokens the next prefill computes
    int64_t generated = 0; // output tokens so far
    int64_t steps = 0;     // decode steps so far
    int64_t pages = 0;     // pages held
    int64_t admitted = -1; // admission order, for preemption
    int64_t bucket = -1;
    int64_t rank = 0; // DP-attention rank (0 when not modelled)
    State state = State::Waiting;
    int64_t context() const { return data->promptTokens() + generated; }
  };
  struct KeptPrefix {
    int64_t tokens = 0;
    int64_t pages = 0;
    int64_t lastUse = 0;
  };

  int64_t pagesFor(int64_t tokens) const;
  int64_t stepTokens() const { return 1 + policy.mtpDrafts; }
  void take(int64_t pages);
  void release(int64_t pages);
  void acceptArrivals();
  bool evictIdlePrefix(int64_t pages);
  bool dropWaitingPrefix(int64_t except, int64_t pages);
  bool reserveForAdmission(int64_t id, bool mayDropWaiting);
  bool waveDue() const;
  bool buildWave();
  void joinArrived(); // DecodeOnly
  void joinDecoding(int64_t id);
  void ensureGrowth();
  void preempt(int64_t id);
  void repartition();
  void fillDecodeBatches();
  void finishRequest(int64_t id);
  int64_t routeToRank(const TurnArrival &a);
  void leaveRank(const Request &r);
  int64_t emitted(const Request &r) const;

  SchedulerPolicy policy;
  double meanAccepted = 1;
  std::vector<Request> requests;
  std::vector<TurnArrival> inbox;
  std::deque<int64_t> waiting;
  std::vector<std::vector<int64_t>> buckets; // decode micro-batches
  std::map<int64_t, KeptPrefix> kept;        // by task
  std::map<int64_t, int64_t> taskRank;       // DP-attention rank by task
  std::vector<int64_t> rankTasks;            // tasks pinned to each rank
  std::vector<int64_t> rankKv;               // scratch: KV per rank
  std::map<int64_t, int64_t> preallocated;   // DecodeOnly: pages by task
  int64_t decoding = 0;
  int64_t free = 0;
  int64_t admissions = 0;
  int64_t useClock = 0;
  int64_t roundsOnClock = 0;
  bool membershipChanged = false;
  Decision decision;
  std::vector<StepCompletion> completions;
  SchedulerCounters stats;
  std::string failure;
};

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_WAVESCHEDULER_H
