//===- WaveScheduler.cpp - PipeSwift's per-instance scheduler -------------===//

#include "passes/Serving/WaveScheduler.h"

#include "passes/Serving/AgentWorkloads.h"
#include "passes/Serving/Partitioning.h"

#include <algorithm>
#include <cmath>

namespace plexus::serving {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

bool samePrefill(const PrefillBatch &a, const PrefillBatch &b) {
  return a.requests == b.requests && a.tokens == b.tokens &&
         a.quadratic == b.quadratic && a.maxQuadratic == b.maxQuadratic;
}

bool sameDecode(const DecodeBatch &a, const DecodeBatch &b) {
  return a.requests == b.requests && a.tokensPerRequest == b.tokensPerRequest &&
         a.kvTokens == b.kvTokens && a.maxKv == b.maxKv;
}

} // namespace

bool Decision::operator==(const Decision &o) const {
  return kind == o.kind && flush == o.flush &&
         repartitioned == o.repartitioned && microBatches == o.microBatches &&
         std::equal(prefill.begin(), prefill.end(), o.prefill.begin(),
                    o.prefill.end(), samePrefill) &&
         std::equal(decode.begin(), decode.end(), o.decode.begin(),
                    o.decode.end(), sameDecode) &&
         evictedTasks == o.evictedTasks && preempted == o.preempted &&
         freePages == o.freePages;
}

std::string checkSchedulerPolicy(const SchedulerPolicy &p) {
  if (p.stages < 1)
    return "an instance needs at least one stage";
  if (p.mtpDrafts < 0 || p.mtpDrafts > 16)
    return "mtp drafts (" + num(p.mtpDrafts) + ") must be in [0, 16]";
  if (p.waveInterval < 1)
    return "the wave interval (" + num(p.waveInterval) + ") must be >= 1";
  if (p.admitEarlyAt < 0 || p.maxWaveTokens < 0 || p.maxMicroBatchTokens < 0)
    return "wave limits must not be negative";
  if (p.reservedDecodeTokens < 0)
    return "reserved decode tokens must not be negative";
  if (!(p.routingOverlapWeight >= 0) || !std::isfinite(p.routingOverlapWeight))
    return "the routing overlap weight must be finite and >= 0";
  if (p.pageTokens < 1 || p.kvPages < 1)
    return "the KV cache needs at least one page of at least one token";
  if (p.attentionRanks < 0 || p.attentionRanks > 4096)
    return "attention ranks (" + num(p.attentionRanks) +
           ") must be in [0, 4096]";
  for (double v :
       {p.weight.alpha, p.weight.beta, p.weight.gamma, p.meanAcceptedTokens})
    if (!std::isfinite(v) || v < 0)
      return "prefill weights and the mean accepted length must be finite "
             "and >= 0";
  return "";
}

WaveScheduler::WaveScheduler(SchedulerPolicy p) : policy(std::move(p)) {
  free = policy.kvPages;
  rankTasks.assign(size_t(std::max<int64_t>(0, policy.attentionRanks)), 0);
  buckets.assign(size_t(std::max<int64_t>(1, policy.stages)), {});
  meanAccepted = policy.meanAcceptedTokens > 0
                     ? policy.meanAcceptedTokens
                     : expectedAcceptedTokens(policy.mtpDrafts, 0.75);
  // The first wave does not wait for a full interval.
  roundsOnClock = policy.waveInterval;
}

int64_t WaveScheduler::pagesFor(int64_t tokens) const {
  return (tokens + policy.pageTokens - 1) / policy.pageTokens;
}

void WaveScheduler::take(int64_t pages) {
  free -= pages;
  stats.peakPagesUsed = std::max(stats.peakPagesUsed, policy.kvPages - free);
}

void WaveScheduler::release(int64_t pages) { free += pages; }

WaveScheduler::RequestInfo WaveScheduler::request(int64_t id) const {
  const Request &r = requests[size_t(id)];
  return {r.task, r.turn, r.generated, r.context()};
}

void WaveScheduler::arrive(const TurnArrival &arrival) {
  inbox.push_back(arrival);
}

void WaveScheduler::acceptArrivals() {
  if (inbox.empty())
    return;
  // Delivery order within a step is not part of the state: every copy
  // sorts the same way.
  std::sort(inbox.begin(), inbox.end(),
            [](const TurnArrival &a, const TurnArrival &b) {
              if (a.time != b.time)
                return a.time < b.time;
              if (a.task != b.task)
                return a.task < b.task;
              return a.turn < b.turn;
            });
  for (const TurnArrival &a : inbox) {
    Request r;
    r.task = a.task;
    r.turn = a.turn;
    r.data = a.data;
    r.lastTurn = a.lastTurn;
    if (policy.attentionRanks > 0)
      r.rank = routeToRank(a);
    const int64_t prompt = a.data->promptTokens();
    if (policy.role == InstanceRole::DecodeOnly || a.prefilled) {
      r.cached = prompt;
      r.generated = 1;
      // Pages pre-allocated for it before its prefill are its own now.
      auto held = preallocated.find(a.task);
      if (held != preallocated.end()) {
        r.pages = held->second;
        preallocated.erase(held);
      }
    } else {
      int64_t keptTokens = 0;
      auto it = kept.find(a.task);
      if (it != kept.end()) {
        keptTokens = it->second.tokens;
        r.pages = it->second.pages;
        kept.erase(it);
      }
      r.cached = std::min(a.data->cachedTokens, keptTokens);
      r.fresh = prompt - r.cached;
      int64_t keep = pagesFor(r.cached);
      if (r.pages > keep) {
        release(r.pages - keep);
        r.pages = keep;
      }
    }
    waiting.push_back(int64_t(requests.size()));
    requests.push_back(r);
  }
  inbox.clear();
}

bool WaveScheduler::evictIdlePrefix(int64_t pages) {
  auto victim = kept.end();
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if (victim == kept.end() || it->second.lastUse < victim->second.lastUse)
      victim = it; // map order breaks ties by task
  if (victim == kept.end() || pages < 1)
    return false;
  // Only the pages asked for, from the end of the prefix: the front stays
  // reusable.
  KeptPrefix &k = victim->second;
  int64_t drop = std::min(pages, k.pages);
  release(drop);
  k.pages -= drop;
  k.tokens = std::min(k.tokens, k.pages * policy.pageTokens);
  decision.evictedTasks.push_back(victim->first);
  if (k.pages == 0)
    kept.erase(victim);
  ++stats.evictions;
  return true;
}

bool WaveScheduler::dropWaitingPrefix(int64_t except, int64_t pages) {
  if (pages < 1)
    return false;
  for (auto it = waiting.rbegin(); it != waiting.rend(); ++it) {
    Request &r = requests[size_t(*it)];
    if (*it == except || r.pages == 0)
      continue;
    int64_t drop = std::min(pages, r.pages);
    release(drop);
    r.pages -= drop;
    int64_t cached = std::min(r.cached, r.pages * policy.pageTokens);
    r.fresh += r.cached - cached;
    r.cached = cached;
    decision.evictedTasks.push_back(r.task);
    ++stats.evictions;
    return true;
  }
  return false;
}

bool WaveScheduler::reserveForAdmission(int64_t id, bool mayDropWaiting) {
  Request &r = requests[size_t(id)];
  int64_t tokens = r.cached + r.fresh;
  if (policy.role != InstanceRole::PrefillOnly)
    tokens += stepTokens(); // the first token and a step's headroom
  int64_t need = pagesFor(tokens);
  if (need > policy.kvPages) {
    failure = "task " + num(r.task) + " turn " + num(r.turn + 1) + " needs " +
              num(need) + " KV pages (" + num(tokens) +
              " tokens), but the instance holds " + num(policy.kvPages);
    return false;
  }
  int64_t extra = need - r.pages;
  while (free < extra && evictIdlePrefix(extra - free)) {
  }
  // Nothing will free pages by finishing: drop prefixes of waiting turns.
  if (mayDropWaiting)
    while (free < extra && dropWaitingPrefix(id, extra - free)) {
    }
  if (free < extra)
    return false;
  take(extra);
  r.pages = need;
  return true;
}

bool WaveScheduler::waveDue() const {
  if (waiting.empty() || policy.role == InstanceRole::DecodeOnly)
    return false;
  if (decoding == 0 || roundsOnClock >= policy.waveInterval)
    return true;
  return policy.admitEarlyAt > 0 &&
         int64_t(waiting.size()) >= policy.admitEarlyAt;
}

bool WaveScheduler::buildWave() {
  std::vector<int64_t> admitted;
  int64_t tokens = 0;
  while (!waiting.empty()) {
    int64_t id = waiting.front();
    const Request &r = requests[size_t(id)];
    if (policy.maxWaveTokens > 0 && !admitted.empty() &&
        tokens + r.fresh > policy.maxWaveTokens)
      break;
    if (!reserveForAdmission(id, admitted.empty() && decoding == 0))
      break;
    waiting.pop_front();
    admitted.push_back(id);
    tokens += r.fresh;
    requests[size_t(id)].admitted = admissions++;
  }
  if (admitted.empty() || !failure.empty())
    return false;

  const size_t n = admitted.size();
  int64_t k = 1;
  std::vector<int64_t> assignment(n, 0);
  if (policy.splitPrefill && policy.stages > 1) {
    std::vector<WaveItem> items(n);
    for (size_t i = 0; i < n; ++i) {
      const Request &r = requests[size_t(admitted[i])];
      WaveItem &it = items[i];
      it.shared = policy.weight.alpha * double(r.fresh);
      // beta prices attention spread over the whole group; a rank that runs
      // a request's attention alone takes `ranks` times as long.
      it.attention = (policy.weight(r.cached, r.fresh) - it.shared) *
                     double(std::max<int64_t>(1, policy.attentionRanks));
      it.rank = r.rank;
      it.tokens = r.fresh;
    }
    WaveCut cut = cutWave(items, policy.stages, policy.weight.gamma,
                          policy.maxMicroBatchTokens);
    k = cut.microBatches;
    assignment = std::move(cut.assignment);
  }
  decision.kind = StepKind::Wave;
  decision.flush = true;
  decision.microBatches.assign(size_t(k), {});
  decision.prefill.assign(size_t(k), PrefillBatch());
  const size_t ranks = size_t(std::max<int64_t>(1, policy.attentionRanks));
  std::vector<double> rankQ(size_t(k) * ranks, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const Request &r = requests[size_t(admitted[i])];
    size_t m = size_t(assignment[i]);
    decision.microBatches[m].push_back(admitted[i]);
    PrefillBatch &b = decision.prefill[m];
    double q = double(r.fresh) * (2.0 * double(r.cached) + double(r.fresh));
    ++b.requests;
    b.tokens += r.fresh;
    b.quadratic += q;
    if (policy.attentionRanks > 0) {
      // The busiest rank's attention work in this micro-batch.
      double &onRank = rankQ[m * ranks + size_t(r.rank)];
      onRank += q;
      b.maxQuadratic = std::max(b.maxQuadratic, onRank);
    } else {
      b.maxQuadratic = std::max(b.maxQuadratic, q);
    }
    stats.promptTokens += r.cached + r.fresh;
    stats.prefillTokens += r.fresh;
    stats.recomputedTokens += std::max<int64_t>(0, r.fresh - r.data->newTokens);
  }
  stats.waveRequests += int64_t(n);
  ++stats.waves;
  ++stats.flushes;
  stats.prefillMicroBatches += k;
  roundsOnClock = 0;
  return true;
}

void WaveScheduler::joinArrived() {
  while (!waiting.empty()) {
    int64_t id = waiting.front();
    if (!reserveForAdmission(id, decoding == 0))
      break;
    waiting.pop_front();
    Request &r = requests[size_t(id)];
    r.admitted = admissions++;
    joinDecoding(id);
  }
}

void WaveScheduler::joinDecoding(int64_t id) {
  Request &r = requests[size_t(id)];
  r.state = State::Decoding;
  ++decoding;
  membershipChanged = true;
  size_t bucket = 0;
  if (policy.decodePartitioning == DecodePartitioning::StaticByCount) {
    // The micro-batch with the fewest requests, for good.
    for (size_t b = 1; b < buckets.size(); ++b)
      if (buckets[b].size() < buckets[bucket].size())
        bucket = b;
  }
  // KvBalanced: placed for now; the next decode decision repartitions.
  r.bucket = int64_t(bucket);
  buckets[bucket].push_back(id);
}

void WaveScheduler::preempt(int64_t id) {
  Request &r = requests[size_t(id)];
  release(r.pages);
  r.pages = 0;
  r.fresh = r.data->promptTokens() + r.generated;
  r.cached = 0;
  r.state = State::Waiting;
  std::vector<int64_t> &b = buckets[size_t(r.bucket)];
  b.erase(std::find(b.begin(), b.end(), id));
  r.bucket = -1;
  --decoding;
  waiting.push_front(id);
  decision.preempted.push_back(id);
  ++stats.preemptions;
  membershipChanged = true;
}

void WaveScheduler::ensureGrowth() {
  auto growth = [&](const Request &r) {
    return std::max<int64_t>(0, pagesFor(r.context() + stepTokens()) - r.pages);
  };
  int64_t need = 0;
  for (const std::vector<int64_t> &b : buckets)
    for (int64_t id : b)
      need += growth(requests[size_t(id)]);
  while (free < need && evictIdlePrefix(need - free)) {
  }
  while (free < need && dropWaitingPrefix(-1, need - free)) {
  }
  while (free < need) {
    if (decoding <= 1 && preallocated.empty()) {
      // One request alone outgrows the cache: no schedule can run it.
      // (Pages pre-allocated for turns on their way are not lost: the
      // request waits for them to be used and freed.)
      for (const std::vector<int64_t> &b : buckets)
        if (!b.empty()) {
          const Request &only = requests[size_t(b.front())];
          failure = "task " + num(only.task) + " turn " + num(only.turn + 1) +
                    " grows past the instance's " + num(policy.kvPages) +
                    " KV pages";
        }
      return;
    }
    // The most recently admitted decoding request goes back to the queue.
    int64_t victim = -1;
    for (const std::vector<int64_t> &b : buckets)
      for (int64_t id : b)
        if (victim < 0 ||
            requests[size_t(id)].admitted > requests[size_t(victim)].admitted)
          victim = id;
    need -= growth(requests[size_t(victim)]);
    preempt(victim);
  }
  for (const std::vector<int64_t> &b : buckets)
    for (int64_t id : b) {
      Request &r = requests[size_t(id)];
      int64_t g = growth(r);
      take(g);
      r.pages += g;
    }
}

void WaveScheduler::repartition() {
  std::vector<int64_t> ids;
  ids.reserve(size_t(decoding));
  for (const std::vector<int64_t> &b : buckets)
    ids.insert(ids.end(), b.begin(), b.end());
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> kv(ids.size()), rank(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    kv[i] = requests[size_t(ids[i])].context();
    rank[i] = requests[size_t(ids[i])].rank;
  }
  std::vector<int64_t> assignment =
      policy.attentionRanks > 0
          ? partitionByKvLengthAndRank(kv, rank, int64_t(buckets.size()))
          : partitionByKvLength(kv, int64_t(buckets.size()));
  for (std::vector<int64_t> &b : buckets)
    b.clear();
  for (size_t i = 0; i < ids.size(); ++i) {
    buckets[size_t(assignment[i])].push_back(ids[i]);
    requests[size_t(ids[i])].bucket = assignment[i];
  }
  ++stats.repartitions;
}

void WaveScheduler::fillDecodeBatches() {
  decision.kind = StepKind::Decode;
  decision.microBatches = buckets;
  decision.decode.assign(buckets.size(), DecodeBatch());
  const size_t ranks = size_t(std::max<int64_t>(1, policy.attentionRanks));
  rankKv.assign(ranks, 0);
  for (size_t k = 0; k < buckets.size(); ++k) {
    DecodeBatch &b = decision.decode[k];
    b.tokensPerRequest = stepTokens();
    if (policy.attentionRanks > 0)
      std::fill(rankKv.begin(), rankKv.end(), 0);
    for (int64_t id : buckets[k]) {
      const Request &r = requests[size_t(id)];
      int64_t kv = r.context();
      ++b.requests;
      b.kvTokens += kv;
      if (policy.attentionRanks > 0) {
        // The busiest rank's KV in this micro-batch.
        int64_t &onRank = rankKv[size_t(r.rank)];
        onRank += kv;
        b.maxKv = std::max(b.maxKv, onRank);
      } else {
        b.maxKv = std::max(b.maxKv, kv);
      }
    }
  }
}

const Decision &WaveScheduler::decide() {
  decision.kind = StepKind::Idle;
  decision.flush = false;
  decision.repartitioned = false;
  decision.microBatches.clear();
  decision.prefill.clear();
  decision.decode.clear();
  decision.evictedTasks.clear();
  decision.preempted.clear();
  if (!failure.empty())
    return decision;

  acceptArrivals();
  if (policy.waveClock == WaveClock::SinceFirstWaiting && waiting.empty())
    roundsOnClock = 0;
  if (policy.role == InstanceRole::DecodeOnly)
    joinArrived();
  else if (waveDue() && buildWave()) {
    decision.freePages = free;
    return decision;
  }
  if (failure.empty() && decoding > 0)
    ensureGrowth();
  if (!failure.empty() || decoding == 0) {
    decision.kind = StepKind::Idle;
    decision.freePages = free;
    return decision;
  }
  if (membershipChanged) {
    if (policy.decodePartitioning == DecodePartitioning::KvBalanced) {
      repartition();
      decision.repartitioned = true;
      decision.flush = policy.stages > 1;
      if (decision.flush)
        ++stats.flushes;
    }
    membershipChanged = false;
  }
  fillDecodeBatches();
  decision.freePages = free;
  return decision;
}

int64_t WaveScheduler::emitted(const Request &r) const {
  const int64_t cap = stepTokens();
  if (cap == 1)
    return 1;
  const std::vector<int32_t> &rec = r.data->mtpAccepted;
  int64_t a;
  if (r.steps < int64_t(rec.size())) {
    a = rec[size_t(r.steps)];
  } else {
    double n = double(r.steps);
    a = int64_t(std::floor((n + 1) * meanAccepted) -
                std::floor(n * meanAccepted));
  }
  return std::clamp<int64_t>(a, 1, cap);
}

bool WaveScheduler::preallocate(int64_t task, int64_t promptTokens) {
  cancelPreallocation(task); // a turn's reservation never outlives it
  // SGLang's decode side: free tokens less reservedDecodeTokens for every
  // request it holds must cover the prompt plus that reserve once more;
  // requests waiting for pages (preempted ones) are served first, so what
  // they still need is not allocatable either.
  const int64_t held = decoding + int64_t(waiting.size()) +
                       int64_t(inbox.size()) + int64_t(preallocated.size());
  int64_t owed = 0;
  for (int64_t id : waiting) {
    const Request &r = requests[size_t(id)];
    owed += std::max<int64_t>(0, pagesFor(r.cached + r.fresh + stepTokens()) -
                                     r.pages);
  }
  const int64_t allocatable =
      (free - owed) * policy.pageTokens - policy.reservedDecodeTokens * held;
  if (promptTokens + policy.reservedDecodeTokens > allocatable)
    return false;
  const int64_t pages = pagesFor(promptTokens);
  take(pages);
  preallocated.emplace(task, pages);
  return true;
}

void WaveScheduler::cancelPreallocation(int64_t task) {
  auto held = preallocated.find(task);
  if (held == preallocated.end())
    return;
  release(held->second);
  preallocated.erase(held);
}

bool WaveScheduler::holdsNothing() const {
  return idle() && preallocated.empty() && free == policy.kvPages;
}

int64_t WaveScheduler::routeToRank(const TurnArrival &a) {
  auto pinned = taskRank.find(a.task);
  if (policy.routing == DpRouting::PinnedByTaskCount) {
    if (pinned == taskRank.end()) {
      // A new task goes to the rank with the fewest tasks (ties: the lower
      // rank) and stays there: its KV lives on that rank.
      int64_t best = 0;
      for (size_t k = 1; k < rankTasks.size(); ++k)
        if (rankTasks[k] < rankTasks[size_t(best)])
          best = int64_t(k);
      pinned = taskRank.emplace(a.task, best).first;
      ++rankTasks[size_t(best)];
    }
    return pinned->second;
  }
  // KV-aware: the rank of least w * (prompt tokens to prefill there) +
  // (tokens of the requests in flight there); only the task's own rank
  // holds its prefix. Ties: the task's rank, then the lower rank.
  const size_t ranks = rankTasks.size();
  rankKv.assign(ranks, 0);
  for (int64_t id : waiting) {
    const Request &q = requests[size_t(id)];
    rankKv[size_t(q.rank)] += q.context();
  }
  for (const std::vector<int64_t> &b : buckets)
    for (int64_t id : b) {
      const Request &q = requests[size_t(id)];
      rankKv[size_t(q.rank)] += q.context();
    }
  const int64_t current = pinned == taskRank.end() ? -1 : pinned->second;
  const int64_t prompt = a.data->promptTokens();
  int64_t overlap = 0;
  if (current >= 0 && policy.role != InstanceRole::DecodeOnly && !a.prefilled) {
    auto it = kept.find(a.task);
    if (it != kept.end())
      overlap = std::min(a.data->cachedTokens, it->second.tokens);
  }
  auto cost = [&](int64_t k) {
    double fresh = double(prompt - (k == current ? overlap : 0));
    return policy.routingOverlapWeight * fresh + double(rankKv[size_t(k)]);
  };
  int64_t best = current >= 0 ? current : 0;
  for (int64_t k = 0; k < int64_t(ranks); ++k)
    if (cost(k) < cost(best))
      best = k;
  if (best == current)
    return current;
  if (current >= 0) {
    // The task moves: the prefix it left behind is of no use to it.
    auto it = kept.find(a.task);
    if (it != kept.end()) {
      release(it->second.pages);
      kept.erase(it);
    }
    --rankTasks[size_t(current)];
    ++stats.rankMoves;
  }
  taskRank[a.task] = best;
  ++rankTasks[size_t(best)];
  return best;
}

void WaveScheduler::leaveRank(const Request &r) {
  auto pinned = taskRank.find(r.task);
  if (pinned == taskRank.end())
    return;
  --rankTasks[size_t(pinned->second)];
  taskRank.erase(pinned);
}

void WaveScheduler::finishRequest(int64_t id) {
  Request &r = requests[size_t(id)];
  if (r.lastTurn)
    leaveRank(r);
  if (r.state == State::Decoding) {
    --decoding;
    membershipChanged = true;
  }
  r.state = State::Done;
  if (policy.role == InstanceRole::DecodeOnly || r.lastTurn) {
    release(r.pages);
  } else {
    // The task keeps its context (prompt and output) for its next turn.
    int64_t tokens =
        std::min(r.data->contextAfter(), r.pages * policy.pageTokens);
    int64_t pages = std::min(pagesFor(tokens), r.pages);
    release(r.pages - pages);
    kept[r.task] = {tokens, pages, useClock++};
  }
  r.pages = 0;
}

const std::vector<StepCompletion> &WaveScheduler::complete() {
  completions.clear();
  if (decision.kind == StepKind::Wave) {
    for (size_t m = 0; m < decision.microBatches.size(); ++m)
      for (int64_t id : decision.microBatches[m]) {
        Request &r = requests[size_t(id)];
        r.generated += 1; // the prefill samples the first token
        if (policy.role == InstanceRole::PrefillOnly) {
          // Handed off; this side keeps the prompt as the task's prefix.
          r.state = State::Done;
          int64_t prompt = r.data->promptTokens();
          int64_t pages = r.lastTurn ? 0 : std::min(pagesFor(prompt), r.pages);
          if (r.lastTurn)
            leaveRank(r);
          release(r.pages - pages);
          if (!r.lastTurn)
            kept[r.task] = {std::min(prompt, pages * policy.pageTokens), pages,
                            useClock++};
          r.pages = 0;
          completions.push_back({id, int64_t(m)});
        } else if (r.generated >= r.data->outputTokens) {
          finishRequest(id);
          completions.push_back({id, int64_t(m)});
        } else {
          joinDecoding(id);
        }
      }
  } else if (decision.kind == StepKind::Decode) {
    bool anyFinished = false;
    for (size_t m = 0; m < decision.microBatches.size(); ++m)
      for (int64_t id : decision.microBatches[m]) {
        Request &r = requests[size_t(id)];
        int64_t e = emitted(r);
        r.generated += e;
        ++r.steps;
        ++stats.decodeRequestSteps;
        stats.decodeTokens += e;
        if (r.generated >= r.data->outputTokens) {
          finishRequest(id);
          completions.push_back({id, int64_t(m)});
          anyFinished = true;
        }
      }
    if (anyFinished)
      for (std::vector<int64_t> &b : buckets)
        b.erase(std::remove_if(b.begin(), b.end(),
                               [&](int64_t id) {
                                 return requests[size_t(id)].state ==
                                        State::Done;
                               }),
                b.end());
    ++stats.decodeRounds;
    if (policy.waveClock == WaveClock::SinceLastWave || !waiting.empty())
      ++roundsOnClock;
  }
  return completions;
}

} // namespace plexus::serving
