//===- StaticSp.cpp - DeepSpeed-Ulysses static SP baseline ----------------===//
//
// Best-fit-decreasing packing of a batch into micro-batches of N/d Ulysses
// groups, timed with the FlexSP profiled cost model. See StaticSp.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Baselines/StaticSp.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plexus::baselines {

namespace {

/// Smallest power-of-two degree dividing `gpus` whose groups hold `tokens`,
/// or 0 when there is none.
int64_t smallestFittingDegree(int64_t tokens, int64_t gpus, int64_t cap) {
  for (int64_t d = 1; d <= gpus; d *= 2)
    if (gpus % d == 0 && cap * d >= tokens)
      return d;
  return 0;
}

int64_t largestPowerOfTwoDivisor(int64_t gpus) { return gpus & -gpus; }

std::string mbText(double mb) {
  return groupedInt(static_cast<int64_t>(std::llround(mb))) + " MB";
}

std::string tooLongMessage(int64_t id, int64_t tokens,
                           const StaticSpConfig &c) {
  int64_t perGpu = (tokens + c.degree - 1) / c.degree;
  std::string msg = "sequence " + std::to_string(id) + " (" +
                    groupedInt(tokens) +
                    " tokens) does not fit SP=" + std::to_string(c.degree) +
                    ": it needs " + groupedInt(perGpu) + " tokens per GPU";
  if (c.activationMBPerToken > 0)
    msg += " (" + mbText(perGpu * c.activationMBPerToken) + " of activations)";
  msg += " but a GPU holds " + groupedInt(c.capacityPerGpu);
  if (c.activationMBPerToken > 0)
    msg += " (" + mbText(c.capacityPerGpu * c.activationMBPerToken) + ")";
  msg += "; ";
  int64_t need = smallestFittingDegree(tokens, c.gpus, c.capacityPerGpu);
  if (need > 0)
    return msg + "raise sp to at least " + std::to_string(need);
  int64_t cluster = c.capacityPerGpu * c.gpus;
  if (tokens <= cluster) {
    // Only possible when N is not a power of two.
    int64_t top = largestPowerOfTwoDivisor(c.gpus);
    return msg + "no power-of-two degree dividing " + std::to_string(c.gpus) +
           " fits (the largest, " + std::to_string(top) + ", holds " +
           groupedInt(c.capacityPerGpu * top) + " tokens)";
  }
  return msg + "no degree \u2264 " + std::to_string(c.gpus) +
         " fits: the cluster holds " + groupedInt(cluster) + " tokens";
}

} // namespace

std::string groupedInt(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

Result<StaticSpPlan> packStaticSp(const std::vector<int64_t> &lengths,
                                  const StaticSpConfig &c) {
  using R = Result<StaticSpPlan>;
  if (c.gpus <= 0)
    return R::fail("the GPU count must be positive, not " +
                   std::to_string(c.gpus));
  if (c.degree <= 0 || c.gpus % c.degree != 0)
    return R::fail("SP degree " + std::to_string(c.degree) +
                   " must be positive and divide the GPU count " +
                   std::to_string(c.gpus));
  if (c.capacityPerGpu <= 0)
    return R::fail("the per-GPU token capacity must be positive, not " +
                   std::to_string(c.capacityPerGpu));
  const int64_t groupCap = c.capacityPerGpu * c.degree;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= 0)
      return R::fail("sequence " + std::to_string(i) + " has " +
                     std::to_string(lengths[i]) +
                     " tokens; lengths must be positive");
    if (lengths[i] > groupCap)
      return R::fail(tooLongMessage(static_cast<int64_t>(i), lengths[i], c));
  }

  std::vector<int64_t> order(lengths.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return lengths[a] > lengths[b];
  });

  StaticSpPlan plan;
  plan.gpus = c.gpus;
  plan.degree = c.degree;
  plan.capacityPerGpu = c.capacityPerGpu;
  const size_t groupsPerMb = static_cast<size_t>(c.gpus / c.degree);
  for (int64_t id : order) {
    const int64_t len = lengths[id];
    StaticSpGroup *best = nullptr;
    int64_t bestRoom = 0;
    // Scan micro-batches, then groups, in order; strict < keeps the first
    // of equally tight candidates.
    for (StaticSpMicroBatch &mb : plan.microBatches)
      for (StaticSpGroup &g : mb.groups) {
        int64_t room = groupCap - g.tokens;
        if (room >= len && (!best || room < bestRoom)) {
          best = &g;
          bestRoom = room;
        }
      }
    if (!best) {
      plan.microBatches.emplace_back();
      plan.microBatches.back().groups.resize(groupsPerMb);
      best = &plan.microBatches.back().groups.front();
    }
    best->sequenceIds.push_back(id);
    best->tokens += len;
  }
  return R::ok(std::move(plan));
}

Result<StaticSpPlan> balanceStaticSp(const cost::ProfiledModel &model,
                                     const cost::AllToAllBandwidthTable &bw,
                                     const std::vector<int64_t> &lengths,
                                     const StaticSpPlan &packed) {
  using R = Result<StaticSpPlan>;
  if (packed.microBatches.empty())
    return R::ok(packed);
  const size_t groups = packed.microBatches.front().groups.size();
  const size_t bins = packed.microBatches.size() * groups;
  const int64_t groupCap = packed.capacityPerGpu * packed.degree;
  std::vector<std::pair<double, int64_t>> order;
  for (const StaticSpMicroBatch &mb : packed.microBatches)
    for (const StaticSpGroup &g : mb.groups)
      for (int64_t id : g.sequenceIds) {
        Result<cost::SequenceTime> t =
            cost::sequenceTime(model, bw, lengths[id], packed.degree);
        if (!t)
          return R::fail(t.error);
        order.push_back({t->totalMs(), id});
      }
  std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  StaticSpPlan out = packed;
  for (StaticSpMicroBatch &mb : out.microBatches)
    for (StaticSpGroup &g : mb.groups) {
      g.sequenceIds.clear();
      g.tokens = 0;
      g.timeMs = 0;
    }
  std::vector<double> load(bins, 0);
  for (auto [work, id] : order) {
    const int64_t len = lengths[id];
    size_t best = bins;
    for (size_t b = 0; b < bins; ++b)
      if (out.microBatches[b / groups].groups[b % groups].tokens + len <=
              groupCap &&
          (best == bins || load[b] < load[best]))
        best = b;
    if (best == bins)
      return R::ok(packed); // no room: keep the best-fit packing
    load[best] += work;
    StaticSpGroup &g = out.microBatches[best / groups].groups[best % groups];
    g.sequenceIds.push_back(id);
    g.tokens += len;
  }
  return R::ok(std::move(out));
}

Result<StaticSpPlan> planStaticSp(const cost::ProfiledModel &model,
                                  const cost::AllToAllBandwidthTable &bw,
                                  const std::vector<int64_t> &lengths,
                                  const StaticSpConfig &config) {
  using R = Result<StaticSpPlan>;
  R packed = packStaticSp(lengths, config);
  if (!packed)
    return packed;
  StaticSpPlan plan = *packed;
  if (config.balance) {
    R balanced = balanceStaticSp(model, bw, lengths, plan);
    if (!balanced)
      return balanced;
    plan = *balanced;
  }
  std::vector<std::vector<cost::ProfiledGroup>> all;
  for (StaticSpMicroBatch &mb : plan.microBatches) {
    std::vector<cost::ProfiledGroup> busy;
    for (StaticSpGroup &g : mb.groups) {
      if (g.sequenceIds.empty())
        continue; // an idle group costs nothing
      cost::ProfiledGroup pg;
      pg.degree = config.degree;
      for (int64_t id : g.sequenceIds)
        pg.sequences.push_back(lengths[id]);
      Result<double> t =
          cost::groupTimeMs(model, bw, pg, config.capacityPerGpu);
      if (!t)
        return R::fail(t.error);
      g.timeMs = *t;
      busy.push_back(std::move(pg));
    }
    Result<double> t =
        cost::microBatchTimeMs(model, bw, busy, config.capacityPerGpu);
    if (!t)
      return R::fail(t.error);
    mb.timeMs = *t;
    all.push_back(std::move(busy));
  }
  Result<double> t =
      cost::iterationTimeMs(model, bw, all, config.capacityPerGpu);
  if (!t)
    return R::fail(t.error);
  plan.iterationMs = *t;
  return R::ok(std::move(plan));
}

Result<HomogeneousChoice> bestHomogeneousSp(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, int64_t gpus, int64_t capacityPerGpu,
    double activationMBPerToken, bool balance) {
  using R = Result<HomogeneousChoice>;
  if (gpus <= 0)
    return R::fail("the GPU count must be positive, not " +
                   std::to_string(gpus));
  HomogeneousChoice choice;
  bool found = false;
  std::string lastError;
  for (int64_t d = 1; d <= gpus && gpus % d == 0; d *= 2) {
    StaticSpConfig c{gpus, d, capacityPerGpu, activationMBPerToken, balance};
    Result<StaticSpPlan> p = planStaticSp(model, bw, lengths, c);
    if (!p) {
      choice.skipped.emplace_back(d, p.error);
      lastError = p.error;
      continue;
    }
    choice.timed.emplace_back(d, p->iterationMs);
    if (!found || p->iterationMs < choice.best.iterationMs) {
      choice.best = *p;
      found = true;
    }
  }
  if (!found)
    return R::fail(lastError);
  return R::ok(std::move(choice));
}

} // namespace plexus::baselines
