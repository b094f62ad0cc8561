//===- AdaptiveSp.cpp - FlexSP's adaptive SP planner ----------------------===//
//
// Blaster, buckets, MILP, dealing and rank layout, plus the baselines in the
// same plan form. See AdaptiveSp.h.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/AdaptiveSp.h"

#include "passes/AdaptiveSP/IterationBound.h"
#include "passes/AdaptiveSP/PlanPolish.h"
#include "passes/Baselines/StaticSp.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <thread>

namespace plexus::adaptivesp {

namespace {

using baselines::groupedInt;

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string mbText(double mb) {
  return groupedInt(static_cast<int64_t>(std::llround(mb))) + " MB";
}

/// Why `tokens` fits no candidate group, or "" when it fits one.
std::string tooLongMessage(int64_t id, int64_t tokens, int64_t gpus,
                           int64_t capacityPerGpu, int64_t maxDegree,
                           double actMBPerToken) {
  const int64_t cluster = gpus * capacityPerGpu;
  const int64_t largest = maxDegree * capacityPerGpu;
  if (tokens <= largest)
    return "";
  std::string head = "sequence " + std::to_string(id) + " (" +
                     groupedInt(tokens) + " tokens) needs " +
                     mbText(tokens * actMBPerToken) + " of activations";
  if (tokens > cluster)
    return head + " but all " + std::to_string(gpus) + " GPUs together hold " +
           groupedInt(cluster) + " tokens (" + mbText(cluster * actMBPerToken) +
           ", " + groupedInt(capacityPerGpu) + " tokens per GPU)";
  return head + " but the largest SP group, of degree " +
         std::to_string(maxDegree) + ", holds " + groupedInt(largest) +
         " tokens (" + mbText(largest * actMBPerToken) + ")";
}

Result<bool> checkSizes(const std::vector<int64_t> &lengths, int64_t gpus,
                        int64_t chipsPerNode, int64_t capacityPerGpu) {
  using R = Result<bool>;
  if (gpus <= 0)
    return R::fail("the GPU count must be positive, not " +
                   std::to_string(gpus));
  if (!isPowerOfTwo(chipsPerNode))
    return R::fail("chips per node must be a power of two, not " +
                   std::to_string(chipsPerNode));
  if (gpus > chipsPerNode && gpus % chipsPerNode != 0)
    return R::fail(std::to_string(gpus) + " GPUs are not whole nodes of " +
                   std::to_string(chipsPerNode));
  if (capacityPerGpu <= 0)
    return R::fail("the per-GPU token capacity must be positive, not " +
                   std::to_string(capacityPerGpu));
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] <= 0)
      return R::fail("sequence " + std::to_string(i) + " has " +
                     std::to_string(lengths[i]) +
                     " tokens; lengths must be positive");
  return R::ok(true);
}

/// Ids by descending length, ties by ascending id.
void sortIds(std::vector<int64_t> &ids, const std::vector<int64_t> &lengths) {
  std::stable_sort(ids.begin(), ids.end(), [&](int64_t a, int64_t b) {
    return lengths[a] > lengths[b] || (lengths[a] == lengths[b] && a < b);
  });
}

/// Times every group with the cost model, orders groups by ascending degree
/// (equal degrees: slowest first, then by first id) and lays out ranks.
Result<bool> finishMicroBatch(const cost::ProfiledModel &model,
                              const cost::AllToAllBandwidthTable &bw,
                              const std::vector<int64_t> &lengths, int64_t gpus,
                              int64_t chipsPerNode, int64_t capacityPerGpu,
                              bool keepOrder, SpMicroBatchPlan &mb) {
  using R = Result<bool>;
  std::vector<cost::ProfiledGroup> busy;
  mb.tokens = 0;
  for (SpGroupPlan &g : mb.groups) {
    sortIds(g.sequenceIds, lengths);
    g.tokens = 0;
    cost::ProfiledGroup pg{g.degree, {}};
    for (int64_t id : g.sequenceIds) {
      pg.sequences.push_back(lengths[id]);
      g.tokens += lengths[id];
    }
    mb.tokens += g.tokens;
    g.timeMs = 0;
    if (pg.sequences.empty())
      continue;
    Result<double> t = cost::groupTimeMs(model, bw, pg, capacityPerGpu);
    if (!t)
      return R::fail(t.error);
    g.timeMs = *t;
    busy.push_back(std::move(pg));
  }
  Result<double> t =
      cost::microBatchTimeMs(model, bw, busy, capacityPerGpu);
  if (!t)
    return R::fail(t.error);
  mb.timeMs = *t;
  if (!keepOrder)
    std::stable_sort(mb.groups.begin(), mb.groups.end(),
                     [](const SpGroupPlan &a, const SpGroupPlan &b) {
                       if (a.degree != b.degree)
                         return a.degree < b.degree;
                       if (a.timeMs != b.timeMs)
                         return a.timeMs > b.timeMs;
                       return a.sequenceIds < b.sequenceIds;
                     });
  std::vector<int64_t> degrees;
  for (const SpGroupPlan &g : mb.groups)
    degrees.push_back(g.degree);
  Result<std::vector<int64_t>> first =
      nodeAlignedFirstRanks(degrees, gpus, chipsPerNode);
  if (!first)
    return R::fail(first.error);
  for (size_t i = 0; i < mb.groups.size(); ++i) {
    mb.groups[i].firstRank = (*first)[i];
    mb.groups[i].lastRank = (*first)[i] + mb.groups[i].degree - 1;
  }
  return R::ok(true);
}

/// A baseline plan in the common form.
Result<AdaptiveSpPlan> fromStatic(const cost::ProfiledModel &model,
                                  const cost::AllToAllBandwidthTable &bw,
                                  const std::vector<int64_t> &lengths,
                                  const baselines::StaticSpPlan &sp,
                                  int64_t chipsPerNode, SpStrategy strategy) {
  using R = Result<AdaptiveSpPlan>;
  AdaptiveSpPlan plan;
  plan.strategy = strategy;
  plan.gpus = sp.gpus;
  plan.chipsPerNode = chipsPerNode;
  plan.capacityPerGpu = sp.capacityPerGpu;
  plan.chosenMicroBatches = static_cast<int64_t>(sp.microBatches.size());
  for (const baselines::StaticSpMicroBatch &smb : sp.microBatches) {
    SpMicroBatchPlan mb;
    for (const baselines::StaticSpGroup &sg : smb.groups) {
      SpGroupPlan g;
      g.degree = sp.degree;
      g.sequenceIds = sg.sequenceIds;
      mb.groups.push_back(std::move(g));
    }
    Result<bool> ok = finishMicroBatch(model, bw, lengths, sp.gpus,
                                       chipsPerNode, sp.capacityPerGpu,
                                       /*keepOrder=*/true, mb);
    if (!ok)
      return R::fail(ok.error);
    plan.iterationMs += mb.timeMs;
    plan.microBatches.push_back(std::move(mb));
  }
  return R::ok(std::move(plan));
}

Result<AdaptiveSpPlan> planStatic(const cost::ProfiledModel &model,
                                  const cost::AllToAllBandwidthTable &bw,
                                  const std::vector<int64_t> &lengths,
                                  int64_t gpus, int64_t chipsPerNode,
                                  int64_t capacityPerGpu,
                                  const AdaptiveSpOptions &options) {
  baselines::StaticSpConfig config{gpus, options.staticDegree, capacityPerGpu,
                                   cost::activationMBPerToken(model, gpus)};
  baselines::Result<baselines::StaticSpPlan> sp =
      baselines::planStaticSp(model, bw, lengths, config);
  if (!sp)
    return Result<AdaptiveSpPlan>::fail(sp.error);
  return fromStatic(model, bw, lengths, *sp, chipsPerNode, SpStrategy::Static);
}

Result<AdaptiveSpPlan> planBestHomogeneous(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, int64_t gpus, int64_t chipsPerNode,
    int64_t capacityPerGpu, const AdaptiveSpOptions &options) {
  using R = Result<AdaptiveSpPlan>;
  const double act = cost::activationMBPerToken(model, gpus);
  baselines::Result<baselines::HomogeneousChoice> choice =
      baselines::bestHomogeneousSp(model, bw, lengths, gpus, capacityPerGpu,
                                   act);
  if (!choice)
    return R::fail(choice.error);
  baselines::StaticSpPlan best = choice->best;
  std::vector<std::pair<int64_t, double>> times;
  for (const auto &[d, ms] : choice->timed)
    if (d > 1 || options.allowSp1)
      times.push_back({d, ms});
  if (times.empty())
    return R::fail("no homogeneous SP degree above 1 holds this batch");
  if (best.degree == 1 && !options.allowSp1) {
    // bestHomogeneousSp tries SP=1 too; take the best of the others, ties
    // to the smaller degree, as it does.
    std::pair<int64_t, double> pick = times.front();
    for (const auto &dt : times)
      if (dt.second < pick.second)
        pick = dt;
    baselines::Result<baselines::StaticSpPlan> sp = baselines::planStaticSp(
        model, bw, lengths, {gpus, pick.first, capacityPerGpu, act});
    if (!sp)
      return R::fail(sp.error);
    best = *sp;
  }
  R plan = fromStatic(model, bw, lengths, best, chipsPerNode,
                      SpStrategy::BestHomogeneous);
  if (plan)
    plan.value->homogeneousTimes = std::move(times);
  return plan;
}

/// Runs `work(i)` for i in [0, count) on up to `threads` threads (0: one
/// per hardware thread). The caller's thread works too; when the system
/// refuses a new thread, the ones running finish the work.
template <typename F> void parallelFor(size_t count, int64_t threads, F work) {
  size_t n = threads > 0 ? static_cast<size_t>(threads)
                         : std::max(1u, std::thread::hardware_concurrency());
  n = std::min(n, count);
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i = next++; i < count; i = next++)
      work(i);
  };
  std::vector<std::thread> helpers;
  try {
    for (size_t t = 1; t < n; ++t)
      helpers.emplace_back(loop);
  } catch (...) {
    // Fewer helpers; the work is shared among those that started.
  }
  loop();
  for (std::thread &th : helpers)
    th.join();
}

} // namespace

const char *strategyName(SpStrategy s) {
  switch (s) {
  case SpStrategy::Adaptive:
    return "adaptive";
  case SpStrategy::Static:
    return "static";
  case SpStrategy::BestHomogeneous:
    return "best-homogeneous";
  }
  return "?";
}

std::vector<int64_t> candidateDegrees(const cost::AllToAllBandwidthTable &bw,
                                      int64_t gpus, bool allowSp1) {
  std::vector<int64_t> out;
  if (allowSp1 && gpus >= 1)
    out.push_back(1);
  for (int64_t d = 2; d <= gpus; d *= 2)
    if (cost::allToAllBandwidth(bw, d))
      out.push_back(d);
  return out;
}

Result<std::vector<int64_t>>
nodeAlignedFirstRanks(const std::vector<int64_t> &degrees, int64_t gpus,
                      int64_t chipsPerNode) {
  using R = Result<std::vector<int64_t>>;
  std::vector<int64_t> first;
  int64_t rank = 0;
  for (int64_t d : degrees) {
    if (d <= 0)
      return R::fail("SP degree " + std::to_string(d) + " is not positive");
    if (d <= chipsPerNode &&
        rank / chipsPerNode != (rank + d - 1) / chipsPerNode)
      return R::fail("an SP group of degree " + std::to_string(d) +
                     " at ranks " + std::to_string(rank) + "-" +
                     std::to_string(rank + d - 1) +
                     " would straddle a node boundary (" +
                     std::to_string(chipsPerNode) + " chips per node)");
    first.push_back(rank);
    rank += d;
  }
  if (rank != gpus)
    return R::fail("SP degrees sum to " + std::to_string(rank) + ", not " +
                   std::to_string(gpus));
  return R::ok(std::move(first));
}

Result<double> microBatchLowerBoundMs(const cost::ProfiledModel &model,
                                      const cost::AllToAllBandwidthTable &bw,
                                      const std::vector<int64_t> &lengths,
                                      const std::vector<int64_t> &ids,
                                      const std::vector<int64_t> &degrees,
                                      int64_t gpus, int64_t capacityPerGpu) {
  using R = Result<double>;
  if (gpus <= 0)
    return R::fail("the GPU count must be positive");
  double work = 0, single = 0;
  for (int64_t id : ids) {
    if (id < 0 || id >= static_cast<int64_t>(lengths.size()))
      return R::fail("sequence id " + std::to_string(id) + " is out of range");
    double bestWork = std::numeric_limits<double>::infinity();
    double bestTime = bestWork;
    for (int64_t d : degrees) {
      if (d > gpus || lengths[id] > capacityPerGpu * d)
        continue;
      Result<cost::SequenceTime> t =
          cost::sequenceTime(model, bw, lengths[id], d);
      if (!t)
        return R::fail(t.error);
      bestWork = std::min(bestWork, static_cast<double>(d) * t->totalMs());
      bestTime = std::min(bestTime, t->totalMs());
    }
    if (std::isinf(bestTime))
      return R::fail("sequence " + std::to_string(id) +
                     " fits no candidate SP group");
    work += bestWork;
    single = std::max(single, bestTime);
  }
  return R::ok(model.beta1 +
               std::max(single, work / static_cast<double>(gpus)));
}

namespace {

/// Deals a bucket-level plan's real sequences into its groups (see the file
/// comment of AdaptiveSp.h), then times and lays it out.
Result<SpMicroBatchPlan> deal(const cost::ProfiledModel &model,
                              const cost::AllToAllBandwidthTable &bw,
                              const std::vector<int64_t> &lengths,
                              const Bucketing &bk,
                              const std::vector<BucketGroup> &bgs, int64_t gpus,
                              int64_t chipsPerNode, int64_t capacityPerGpu) {
  using R = Result<SpMicroBatchPlan>;
  std::vector<std::vector<int64_t>> quota;
  for (const BucketGroup &g : bgs)
    quota.push_back(g.counts);
  std::vector<double> finish(bgs.size(), model.beta1);
  SpMicroBatchPlan mb;
  mb.groups.resize(bgs.size());
  for (size_t p = 0; p < bgs.size(); ++p)
    mb.groups[p].degree = bgs[p].degree;
  for (size_t q = bk.buckets.size(); q-- > 0;) {
    for (int64_t id : bk.buckets[q].sequenceIds) {
      size_t best = bgs.size();
      double bestFinish = std::numeric_limits<double>::infinity();
      for (size_t p = 0; p < bgs.size(); ++p) {
        if (quota[p][q] == 0)
          continue;
        Result<cost::SequenceTime> t =
            cost::sequenceTime(model, bw, lengths[id], bgs[p].degree);
        if (!t)
          return R::fail(t.error);
        if (finish[p] + t->totalMs() < bestFinish) {
          bestFinish = finish[p] + t->totalMs();
          best = p;
        }
      }
      if (best == bgs.size())
        return R::fail("internal: a bucket's sequences outnumber its places");
      --quota[best][q];
      finish[best] = bestFinish;
      mb.groups[best].sequenceIds.push_back(id);
    }
  }
  Result<bool> ok = finishMicroBatch(model, bw, lengths, gpus, chipsPerNode,
                                     capacityPerGpu, /*keepOrder=*/false, mb);
  if (!ok)
    return R::fail(ok.error);
  mb.buckets = static_cast<int64_t>(bk.buckets.size());
  mb.bucketTokenError = bucketTokenError(bk);
  return R::ok(std::move(mb));
}

/// A micro-batch after the cheap steps: buckets, the MILP instance, the
/// polished greedy plan (dealt), and a lower bound on any plan.
struct PreparedMicroBatch {
  Bucketing buckets;
  SpMilpInstance instance;
  std::optional<std::vector<BucketGroup>> start;
  std::optional<SpMicroBatchPlan> startPlan; // `start` with real sequences
  double lowerBoundMs = 0;
};

Result<PreparedMicroBatch> prepareMicroBatch(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, const std::vector<int64_t> &ids,
    int64_t gpus, int64_t chipsPerNode, int64_t capacityPerGpu,
    const AdaptiveSpOptions &options) {
  using R = Result<PreparedMicroBatch>;
  PreparedMicroBatch out;
  Result<Bucketing> bk =
      bucketMicroBatch(lengths, ids, options.initialBuckets,
                       gpus * capacityPerGpu, options.growBuckets);
  if (!bk)
    return R::fail(bk.error);
  out.buckets = std::move(*bk.value);
  std::vector<int64_t> degrees = candidateDegrees(bw, gpus, options.allowSp1);
  Result<SpMilpInstance> inst =
      makeSpMilpInstance(model, bw, out.buckets, degrees, gpus, capacityPerGpu);
  if (!inst)
    return R::fail(inst.error);
  out.instance = std::move(*inst.value);
  Result<double> lb = microBatchLowerBoundMs(model, bw, lengths, ids, degrees,
                                             gpus, capacityPerGpu);
  if (!lb)
    return R::fail(lb.error);
  out.lowerBoundMs = *lb;
  if (options.milp.warmStart) {
    out.start = bestGreedyPlan(out.instance);
    if (out.start) {
      Result<SpMicroBatchPlan> dealt =
          deal(model, bw, lengths, out.buckets, *out.start, gpus, chipsPerNode,
               capacityPerGpu);
      if (!dealt)
        return R::fail(dealt.error);
      out.startPlan = std::move(*dealt.value);
      out.startPlan->milpObjectiveMs =
          bucketPlanTimeMs(out.instance, *out.start);
      out.startPlan->fromWarmStart = true;
    }
  }
  return R::ok(std::move(out));
}

/// The MILP on a prepared micro-batch; the dealt result, or the dealt start
/// when that is faster with real lengths.
Result<SpMicroBatchPlan> solvePrepared(const cost::ProfiledModel &model,
                                       const cost::AllToAllBandwidthTable &bw,
                                       const std::vector<int64_t> &lengths,
                                       const PreparedMicroBatch &prep,
                                       int64_t gpus, int64_t chipsPerNode,
                                       int64_t capacityPerGpu,
                                       const AdaptiveSpOptions &options) {
  using R = Result<SpMicroBatchPlan>;
  Result<SpMilpResult> solved = solveSpMilp(
      prep.instance, options.milp, prep.start ? &*prep.start : nullptr);
  if (!solved)
    return R::fail(solved.error);
  Result<SpMicroBatchPlan> mb =
      solved->fromWarmStart && prep.startPlan
          ? R::ok(*prep.startPlan)
          : deal(model, bw, lengths, prep.buckets, solved->groups, gpus,
                 chipsPerNode, capacityPerGpu);
  if (!mb)
    return mb;
  if (prep.startPlan && prep.startPlan->timeMs < mb->timeMs)
    mb = R::ok(*prep.startPlan);
  SpMicroBatchPlan &out = *mb.value;
  out.milpObjectiveMs = solved->objectiveMs;
  out.milpLowerBoundMs = solved->lowerBoundMs;
  out.provenOptimal = solved->provenOptimal;
  out.fromWarmStart = out.fromWarmStart || solved->fromWarmStart;
  out.timeLimitReached = solved->timeLimitReached;
  out.milpSolved = true;
  return mb;
}

/// A micro-batch partition of the batch for one candidate count.
struct Partition {
  size_t count = 0; // index into the counts tried
  const char *name; // "contiguous" or "dealt"
  std::vector<std::vector<int64_t>> microBatches;
};

/// A complete plan that competes for the result.
struct Candidate {
  std::string origin;
  std::vector<SpMicroBatchPlan> microBatches;
  double iterationMs = 0;
  double unpolishedMs = 0;
};

SearchPlan toSearchPlan(const std::vector<SpMicroBatchPlan> &mbs) {
  SearchPlan out;
  for (const SpMicroBatchPlan &mb : mbs) {
    SearchMicroBatch smb;
    for (const SpGroupPlan &g : mb.groups)
      smb.push_back({g.degree, g.sequenceIds, 0, 0});
    out.push_back(std::move(smb));
  }
  return out;
}

/// Whether a search micro-batch has the groups (degrees and members, in
/// any order) of a planned one.
bool sameGroups(const SpMicroBatchPlan &mb, const SearchMicroBatch &smb) {
  auto key = [](int64_t degree, std::vector<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    ids.insert(ids.begin(), degree);
    return ids;
  };
  std::vector<std::vector<int64_t>> a, b;
  for (const SpGroupPlan &g : mb.groups)
    a.push_back(key(g.degree, g.sequenceIds));
  for (const SearchGroup &g : smb)
    b.push_back(key(g.degree, g.ids));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

/// Polishes every candidate on real lengths and keeps the fastest (ties:
/// the earlier candidate).
Result<Candidate> bestPolished(const cost::ProfiledModel &model,
                               const cost::AllToAllBandwidthTable &bw,
                               const std::vector<int64_t> &lengths,
                               const SequenceTimeTable &table,
                               const std::vector<Candidate> &candidates,
                               int64_t gpus, int64_t chipsPerNode,
                               int64_t capacityPerGpu,
                               const AdaptiveSpOptions &options) {
  using R = Result<Candidate>;
  std::vector<SearchPlan> polished(candidates.size());
  if (options.progress)
    options.progress("FlexSP: polishing " + std::to_string(candidates.size()) +
                     " candidate plans on the real lengths");
  parallelFor(candidates.size(), options.threads, [&](size_t i) {
    polished[i] = toSearchPlan(candidates[i].microBatches);
    if (options.polish)
      polishPlan(table, polished[i]);
    else
      refreshSearchPlan(table, polished[i]);
  });
  // The best few are polished again from their start with the strict tie
  // rule (only faster changes); neither rule wins always. The faster
  // result stands, ties to the first.
  constexpr size_t kStrict = 3;
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return searchPlanMs(table, polished[a]) < searchPlanMs(table, polished[b]);
  });
  order.resize(options.polish ? std::min(kStrict, order.size()) : 0);
  std::vector<SearchPlan> strict(order.size());
  parallelFor(order.size(), options.threads, [&](size_t k) {
    strict[k] = toSearchPlan(candidates[order[k]].microBatches);
    polishPlan(table, strict[k], 20000, /*freeGpuTies=*/false);
  });
  for (size_t k = 0; k < order.size(); ++k)
    if (searchPlanMs(table, strict[k]) <
        searchPlanMs(table, polished[order[k]]))
      polished[order[k]] = std::move(strict[k]);
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i)
    if (searchPlanMs(table, polished[i]) < searchPlanMs(table, polished[best]))
      best = i;
  // Iterated local search on the winner: kIteratedChains chains with their
  // own seeds (always that many, whatever the thread count, so the plan
  // does not depend on it); the fastest result stands, ties to the first
  // chain, and only when it beats the polished winner.
  const int64_t rounds =
      options.iteratedWork /
      (10 + static_cast<int64_t>(polished[best].size()));
  if (options.polish && rounds > 0) {
    constexpr size_t kIteratedChains = 2;
    if (options.progress)
      options.progress("FlexSP: iterated local search, " +
                       std::to_string(kIteratedChains) + " chains of " +
                       std::to_string(rounds) + " rounds");
    std::vector<SearchPlan> chains(kIteratedChains);
    parallelFor(kIteratedChains, options.threads, [&](size_t c) {
      chains[c] = iteratedPolish(table, polished[best], rounds,
                                 /*seed=*/c + 1);
    });
    for (SearchPlan &c : chains)
      if (searchPlanMs(table, c) < searchPlanMs(table, polished[best]))
        polished[best] = std::move(c);
  }
  Candidate out;
  out.origin = candidates[best].origin;
  out.unpolishedMs = candidates[best].iterationMs;
  for (size_t m = 0; m < polished[best].size(); ++m) {
    SpMicroBatchPlan mb;
    // The solve figures (buckets, MILP) stay only on a micro-batch the
    // polish left as it was.
    if (m < candidates[best].microBatches.size() &&
        sameGroups(candidates[best].microBatches[m], polished[best][m]))
      mb = candidates[best].microBatches[m];
    mb.groups.clear();
    for (const SearchGroup &g : polished[best][m]) {
      SpGroupPlan pg;
      pg.degree = g.degree;
      pg.sequenceIds = g.ids;
      mb.groups.push_back(std::move(pg));
    }
    Result<bool> ok = finishMicroBatch(model, bw, lengths, gpus, chipsPerNode,
                                       capacityPerGpu, /*keepOrder=*/false, mb);
    if (!ok)
      return R::fail(ok.error);
    out.iterationMs += mb.timeMs;
    out.microBatches.push_back(std::move(mb));
  }
  return R::ok(std::move(out));
}

} // namespace

Result<SpMicroBatchPlan> planMicroBatch(const cost::ProfiledModel &model,
                                        const cost::AllToAllBandwidthTable &bw,
                                        const std::vector<int64_t> &lengths,
                                        const std::vector<int64_t> &ids,
                                        int64_t gpus, int64_t chipsPerNode,
                                        int64_t capacityPerGpu,
                                        const AdaptiveSpOptions &options) {
  using R = Result<SpMicroBatchPlan>;
  Result<bool> sizes = checkSizes(lengths, gpus, chipsPerNode, capacityPerGpu);
  if (!sizes)
    return R::fail(sizes.error);
  Result<PreparedMicroBatch> prep = prepareMicroBatch(
      model, bw, lengths, ids, gpus, chipsPerNode, capacityPerGpu, options);
  if (!prep)
    return R::fail(prep.error);
  return solvePrepared(model, bw, lengths, *prep, gpus, chipsPerNode,
                       capacityPerGpu, options);
}

Result<AdaptiveSpPlan> planAdaptiveSp(const cost::ProfiledModel &model,
                                      const cost::AllToAllBandwidthTable &bw,
                                      const std::vector<int64_t> &lengths,
                                      int64_t gpus, int64_t chipsPerNode,
                                      int64_t capacityPerGpu,
                                      const AdaptiveSpOptions &options) {
  using R = Result<AdaptiveSpPlan>;
  const auto started = std::chrono::steady_clock::now();
  auto stamp = [&](R r) {
    if (r)
      r.value->solverSeconds = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - started)
                                   .count();
    return r;
  };
  Result<bool> sizes = checkSizes(lengths, gpus, chipsPerNode, capacityPerGpu);
  if (!sizes)
    return R::fail(sizes.error);
  if (options.strategy == SpStrategy::Static)
    return stamp(planStatic(model, bw, lengths, gpus, chipsPerNode,
                            capacityPerGpu, options));
  if (options.strategy == SpStrategy::BestHomogeneous)
    return stamp(planBestHomogeneous(model, bw, lengths, gpus, chipsPerNode,
                                     capacityPerGpu, options));
  if (options.microBatchTrials < 1)
    return R::fail("at least one micro-batch count must be tried");

  std::vector<int64_t> degrees = candidateDegrees(bw, gpus, options.allowSp1);
  if (degrees.empty())
    return R::fail("the bandwidth table lists no SP degree up to " +
                   std::to_string(gpus));
  const double act = cost::activationMBPerToken(model, gpus);
  for (size_t i = 0; i < lengths.size(); ++i) {
    std::string why = tooLongMessage(static_cast<int64_t>(i), lengths[i], gpus,
                                     capacityPerGpu, degrees.back(), act);
    if (!why.empty())
      return R::fail(why);
  }

  AdaptiveSpPlan plan;
  plan.gpus = gpus;
  plan.chipsPerNode = chipsPerNode;
  plan.capacityPerGpu = capacityPerGpu;
  if (lengths.empty())
    return stamp(R::ok(std::move(plan)));
  Result<int64_t> mMin = minMicroBatchCount(lengths, gpus * capacityPerGpu);
  if (!mMin)
    return R::fail(mMin.error);
  plan.minMicroBatches = *mMin;
  const int64_t sequences = static_cast<int64_t>(lengths.size());

  Result<SequenceTimeTable> table =
      makeSequenceTimeTable(model, bw, lengths, degrees, gpus, capacityPerGpu);
  if (!table)
    return R::fail(table.error);
  Result<IterationBound> bound =
      iterationLowerBound(model, bw, lengths, degrees, gpus, capacityPerGpu);
  if (!bound)
    return R::fail(bound.error);
  plan.lowerBoundMs = bound->boundMs;

  for (int64_t from = *mMin; from <= sequences;
       from += options.microBatchTrials) {
    std::vector<int64_t> counts =
        microBatchCandidates(from, options.microBatchTrials, sequences);
    // The dealt partitions also try the counts between the bound's M_lb and
    // the blaster's M_min, which a contiguous cut cannot fit.
    if (from == *mMin && options.dealtPartitions)
      for (int64_t c = *mMin - 1;
           c >= std::max<int64_t>(1, bound->minMicroBatches); --c)
        counts.insert(counts.begin(), c);
    // Partitions: per count, the blaster's contiguous cut (from M_min)
    // and, when asked, the deals by work.
    std::vector<Partition> parts;
    std::vector<std::pair<size_t, size_t>> tasks; // (partition, micro-batch)
    for (size_t c = 0; c < counts.size(); ++c) {
      if (counts[c] >= *mMin) {
        Result<BlastedBatch> b = blastSequences(lengths, counts[c]);
        if (!b)
          return R::fail(b.error);
        parts.push_back({c, "contiguous", std::move(b.value->microBatches)});
      }
      if (options.dealtPartitions) {
        Result<std::vector<std::vector<int64_t>>> dealt =
            dealByWork(*table, counts[c], gpus * capacityPerGpu);
        Result<std::vector<std::vector<int64_t>>> filled =
            dealByWork(*table, counts[c], gpus * capacityPerGpu,
                       /*longestSetsTarget=*/true, bound->workMs);
        if (filled && dealt && *filled.value == *dealt.value)
          filled = Result<std::vector<std::vector<int64_t>>>::fail("same");
        if (dealt)
          parts.push_back({c, "dealt", std::move(*dealt.value)});
        if (filled)
          parts.push_back({c, "filled", std::move(*filled.value)});
      }
    }
    // Level deals fill micro-batches to a share of the memory (a group
    // packing of a micro-batch whose memory is full rarely exists).
    for (double fill : {1.0, 0.9, 0.8}) {
      if (from != *mMin || !options.dealtPartitions)
        break;
      Result<std::vector<std::vector<int64_t>>> levels =
          dealByLevels(*table,
                       static_cast<int64_t>(
                           fill * static_cast<double>(gpus * capacityPerGpu)),
                       bound->workMs);
      if (levels) {
        const int64_t count = static_cast<int64_t>(levels->size());
        auto at = std::find(counts.begin(), counts.end(), count);
        if (at == counts.end()) {
          counts.push_back(count);
          at = counts.end() - 1;
        }
        parts.push_back({static_cast<size_t>(at - counts.begin()), "levels",
                         std::move(*levels.value)});
      }
    }
    for (size_t pi = 0; pi < parts.size(); ++pi)
      for (size_t m = 0; m < parts[pi].microBatches.size(); ++m)
        tasks.push_back({pi, m});
    // Phase 1: buckets, greedy plans and bounds for every micro-batch.
    std::vector<Result<PreparedMicroBatch>> prepared(tasks.size());
    std::atomic<size_t> done{0};
    size_t total = tasks.size();
    auto tell = [&](const char *what) {
      if (options.progress)
        options.progress(std::string(what) + " " + std::to_string(++done) +
                         " of " + std::to_string(total) + " (" +
                         std::to_string(parts.size()) +
                         " partitions of the batch)");
    };
    parallelFor(tasks.size(), options.threads, [&](size_t i) {
      tell("FlexSP: greedy plan and bound of micro-batch");
      const auto &[pi, m] = tasks[i];
      prepared[i] =
          prepareMicroBatch(model, bw, lengths, parts[pi].microBatches[m], gpus,
                            chipsPerNode, capacityPerGpu, options);
    });
    // A partition whose bound exceeds a complete greedy plan of another
    // cannot win through its MILPs (they only improve on greedy plans):
    // skip them.
    std::vector<double> bnd(parts.size(), 0), greedy(parts.size(), 0);
    std::vector<bool> complete(parts.size(), true);
    double bestGreedy = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < tasks.size(); ++i) {
      size_t pi = tasks[i].first;
      if (!prepared[i] || !prepared[i]->startPlan) {
        complete[pi] = false;
        continue;
      }
      bnd[pi] += prepared[i]->lowerBoundMs;
      greedy[pi] += prepared[i]->startPlan->timeMs;
    }
    for (size_t pi = 0; pi < parts.size(); ++pi)
      if (complete[pi])
        bestGreedy = std::min(bestGreedy, greedy[pi]);
    std::vector<bool> pruned(parts.size(), !options.solveMilp);
    for (size_t pi = 0; pi < parts.size(); ++pi)
      pruned[pi] = pruned[pi] || (options.pruneByBound && complete[pi] &&
                                  bnd[pi] > bestGreedy);

    // Phase 2: the MILP for every micro-batch of the partitions in play.
    std::vector<Result<SpMicroBatchPlan>> solved(tasks.size());
    done = 0;
    total = 0;
    for (const auto &task : tasks)
      total += pruned[task.first] ? 0 : 1;
    parallelFor(tasks.size(), options.threads, [&](size_t i) {
      if (!pruned[tasks[i].first])
        tell("FlexSP: MILP of micro-batch");
      if (!prepared[i]) {
        solved[i] = Result<SpMicroBatchPlan>::fail(prepared[i].error);
        return;
      }
      if (pruned[tasks[i].first]) {
        solved[i] = prepared[i]->startPlan
                        ? Result<SpMicroBatchPlan>::ok(*prepared[i]->startPlan)
                        : Result<SpMicroBatchPlan>::fail(
                              "no greedy plan fits this micro-batch");
        return;
      }
      solved[i] = solvePrepared(model, bw, lengths, *prepared[i], gpus,
                                chipsPerNode, capacityPerGpu, options);
    });

    // Per partition its plan; per count the better partition's trial.
    size_t task = 0;
    std::vector<MicroBatchCountTrial> trials(counts.size());
    for (size_t c = 0; c < counts.size(); ++c) {
      trials[c].microBatches = counts[c];
      trials[c].reason = "no partition into " + std::to_string(counts[c]) +
                         " micro-batches fits the memory";
    }
    std::vector<Candidate> candidates;
    std::vector<bool> tried(counts.size(), false);
    for (size_t pi = 0; pi < parts.size(); ++pi) {
      MicroBatchCountTrial trial;
      trial.microBatches = counts[parts[pi].count];
      trial.feasible = true;
      trial.milpSolved = !pruned[pi];
      Candidate cand;
      cand.origin = std::string(parts[pi].name) +
                    " M=" + std::to_string(trial.microBatches);
      for (size_t m = 0; m < parts[pi].microBatches.size(); ++m, ++task) {
        if (prepared[task])
          trial.lowerBoundMs += prepared[task]->lowerBoundMs;
        if (!solved[task]) {
          if (trial.feasible)
            trial.reason =
                "micro-batch " + std::to_string(m) + ": " + solved[task].error;
          trial.feasible = false;
          continue;
        }
        trial.iterationMs += solved[task]->timeMs;
        cand.microBatches.push_back(*solved[task].value);
      }
      MicroBatchCountTrial &kept = trials[parts[pi].count];
      if (!trial.feasible) {
        trial.iterationMs = 0;
        if (!kept.feasible && !tried[parts[pi].count])
          kept = trial; // the first partition's reason
        tried[parts[pi].count] = true;
        continue;
      }
      if (!kept.feasible || trial.iterationMs < kept.iterationMs)
        kept = trial;
      tried[parts[pi].count] = true;
      cand.iterationMs = trial.iterationMs;
      candidates.push_back(std::move(cand));
    }
    plan.trials.insert(plan.trials.end(), trials.begin(), trials.end());
    if (candidates.empty())
      continue;
    // Balanced homogeneous plans of every degree compete too, so the plan
    // is never worse than the best of them.
    for (int64_t d : degrees) {
      if (gpus % d != 0)
        continue;
      baselines::Result<baselines::StaticSpPlan> sp = baselines::planStaticSp(
          model, bw, lengths, {gpus, d, capacityPerGpu, act, true});
      if (!sp)
        continue;
      Result<AdaptiveSpPlan> h =
          fromStatic(model, bw, lengths, *sp, chipsPerNode, SpStrategy::Static);
      if (!h)
        return R::fail(h.error);
      candidates.push_back({"balanced homogeneous SP" + std::to_string(d),
                            h->microBatches, h->iterationMs});
    }
    Result<Candidate> best =
        bestPolished(model, bw, lengths, *table, candidates, gpus, chipsPerNode,
                     capacityPerGpu, options);
    if (!best)
      return R::fail(best.error);
    plan.chosenMicroBatches = static_cast<int64_t>(best->microBatches.size());
    plan.microBatches = std::move(best.value->microBatches);
    plan.iterationMs = best->iterationMs;
    plan.origin = best->origin;
    plan.unpolishedMs = best->unpolishedMs;
    return stamp(R::ok(std::move(plan)));
  }
  std::string why = plan.trials.empty() ? "" : plan.trials.back().reason;
  return R::fail("no micro-batch count from " + std::to_string(*mMin) +
                 " up gives a feasible plan" +
                 (why.empty() ? "" : "; the last tried: " + why));
}

std::string planViolation(const AdaptiveSpPlan &plan,
                          const std::vector<int64_t> &lengths) {
  std::vector<int> seen(lengths.size(), 0);
  for (size_t m = 0; m < plan.microBatches.size(); ++m) {
    const SpMicroBatchPlan &mb = plan.microBatches[m];
    const std::string at = "micro-batch " + std::to_string(m) + ": ";
    int64_t rank = 0, tokens = 0;
    for (size_t p = 0; p < mb.groups.size(); ++p) {
      const SpGroupPlan &g = mb.groups[p];
      const std::string gat = at + "group " + std::to_string(p) + ": ";
      if (g.firstRank != rank || g.lastRank != rank + g.degree - 1)
        return gat + "ranks " + std::to_string(g.firstRank) + "-" +
               std::to_string(g.lastRank) + " are not the next " +
               std::to_string(g.degree) + " from " + std::to_string(rank);
      if (g.degree <= plan.chipsPerNode &&
          g.firstRank / plan.chipsPerNode != g.lastRank / plan.chipsPerNode)
        return gat + "straddles a node boundary";
      int64_t sum = 0;
      for (int64_t id : g.sequenceIds) {
        if (id < 0 || id >= static_cast<int64_t>(lengths.size()))
          return gat + "sequence id " + std::to_string(id) + " out of range";
        ++seen[id];
        sum += lengths[id];
      }
      if (sum != g.tokens)
        return gat + "tokens do not add up";
      if (sum > g.degree * plan.capacityPerGpu)
        return gat + std::to_string(sum) + " tokens exceed its capacity of " +
               std::to_string(g.degree * plan.capacityPerGpu);
      rank += g.degree;
      tokens += sum;
    }
    if (rank != plan.gpus)
      return at + "degrees sum to " + std::to_string(rank) + ", not " +
             std::to_string(plan.gpus);
    if (tokens != mb.tokens)
      return at + "tokens do not add up";
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 1)
      return "sequence " + std::to_string(i) + " is placed " +
             std::to_string(seen[i]) + " times";
  return "";
}

std::string degreeSummary(const SpMicroBatchPlan &mb) {
  std::map<int64_t, int64_t, std::greater<int64_t>> runs;
  for (const SpGroupPlan &g : mb.groups)
    ++runs[g.degree];
  std::string out = "<";
  for (const auto &[d, n] : runs) {
    if (out.size() > 1)
      out += ", ";
    out += std::to_string(d);
    if (n > 1)
      out += "x" + std::to_string(n);
  }
  return out + ">";
}

bool samePlan(const AdaptiveSpPlan &a, const AdaptiveSpPlan &b) {
  auto sameGroup = [](const SpGroupPlan &x, const SpGroupPlan &y) {
    return x.degree == y.degree && x.firstRank == y.firstRank &&
           x.lastRank == y.lastRank && x.sequenceIds == y.sequenceIds &&
           x.tokens == y.tokens && x.timeMs == y.timeMs;
  };
  auto sameMb = [&](const SpMicroBatchPlan &x, const SpMicroBatchPlan &y) {
    if (x.groups.size() != y.groups.size())
      return false;
    for (size_t i = 0; i < x.groups.size(); ++i)
      if (!sameGroup(x.groups[i], y.groups[i]))
        return false;
    return x.tokens == y.tokens && x.timeMs == y.timeMs &&
           x.buckets == y.buckets && x.bucketTokenError == y.bucketTokenError &&
           x.milpObjectiveMs == y.milpObjectiveMs &&
           x.milpLowerBoundMs == y.milpLowerBoundMs &&
           x.provenOptimal == y.provenOptimal &&
           x.fromWarmStart == y.fromWarmStart &&
           x.timeLimitReached == y.timeLimitReached &&
           x.milpSolved == y.milpSolved;
  };
  if (a.strategy != b.strategy || a.gpus != b.gpus ||
      a.chipsPerNode != b.chipsPerNode ||
      a.capacityPerGpu != b.capacityPerGpu || a.iterationMs != b.iterationMs ||
      a.minMicroBatches != b.minMicroBatches ||
      a.chosenMicroBatches != b.chosenMicroBatches ||
      a.homogeneousTimes != b.homogeneousTimes ||
      a.lowerBoundMs != b.lowerBoundMs || a.origin != b.origin ||
      a.unpolishedMs != b.unpolishedMs ||
      a.microBatches.size() != b.microBatches.size() ||
      a.trials.size() != b.trials.size())
    return false;
  for (size_t i = 0; i < a.microBatches.size(); ++i)
    if (!sameMb(a.microBatches[i], b.microBatches[i]))
      return false;
  for (size_t i = 0; i < a.trials.size(); ++i) {
    const MicroBatchCountTrial &x = a.trials[i], &y = b.trials[i];
    if (x.microBatches != y.microBatches || x.feasible != y.feasible ||
        x.iterationMs != y.iterationMs || x.reason != y.reason ||
        x.lowerBoundMs != y.lowerBoundMs || x.milpSolved != y.milpSolved)
      return false;
  }
  return true;
}

} // namespace plexus::adaptivesp
