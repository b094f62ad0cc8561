//===- PipelineSchedule.cpp - DPP's 1F1B pipelines of chunks --------------===//
//
// Units, 1F1B orders, list scheduling and the grouping DP. See
// PipelineSchedule.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/PipelineSchedule.h"

#include "passes/Checkpoint/ActivationMemory.h"
#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace plexus::dpp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace

Result<std::vector<ChunkUnit>> chunkUnits(const std::vector<Chunk> &chunks) {
  using R = Result<std::vector<ChunkUnit>>;
  std::vector<ChunkUnit> units;
  std::map<int64_t, size_t> unitOfSequence;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const Chunk &c = chunks[k];
    if (c.pieces.empty())
      return R::fail("chunk " + std::to_string(k) + " is empty");
    ChunkUnit *unit = nullptr;
    if (c.hasSplitSlice()) {
      auto [it, fresh] =
          unitOfSequence.try_emplace(c.splitSequence(), units.size());
      if (fresh) {
        units.emplace_back();
        units.back().sequence = c.splitSequence();
      }
      unit = &units[it->second];
    } else {
      units.emplace_back();
      unit = &units.back();
      unit->sequence = c.pieces.front().sequence;
    }
    unit->chunks.push_back(static_cast<int64_t>(k));
    unit->tokens += c.tokens();
  }
  // A split sequence's chunks in slice order, each starting where the one
  // before ends, the last one its tail.
  for (ChunkUnit &u : units) {
    if (!chunks[static_cast<size_t>(u.chunks.front())].hasSplitSlice())
      continue;
    std::stable_sort(u.chunks.begin(), u.chunks.end(),
                     [&](int64_t a, int64_t b) {
                       return chunks[static_cast<size_t>(a)].context() <
                              chunks[static_cast<size_t>(b)].context();
                     });
    int64_t next = 0;
    for (size_t i = 0; i < u.chunks.size(); ++i) {
      const Chunk &c = chunks[static_cast<size_t>(u.chunks[i])];
      if (c.pieces.front().begin != next ||
          c.tail != (i + 1 == u.chunks.size()))
        return R::fail("the slices of sequence " + std::to_string(u.sequence) +
                       " do not follow one another up to one tail");
      next = c.pieces.front().end;
    }
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const ChunkUnit &a, const ChunkUnit &b) {
                     if (a.chunks.size() != b.chunks.size())
                       return a.chunks.size() > b.chunks.size();
                     if (a.tokens != b.tokens)
                       return a.tokens > b.tokens;
                     return a.sequence < b.sequence;
                   });
  return R::ok(std::move(units));
}

PipelineOrder pipelineOrder(const std::vector<ChunkUnit> &units) {
  PipelineOrder order;
  for (const ChunkUnit &u : units) {
    const int64_t first = static_cast<int64_t>(order.chunks.size());
    for (int64_t c : u.chunks)
      order.chunks.push_back(c);
    const int64_t size = static_cast<int64_t>(u.chunks.size());
    for (int64_t i = size; i-- > 0;)
      order.backward.push_back(first + i);
    order.nSplit = std::max(order.nSplit, size);
  }
  return order;
}

Result<std::vector<int64_t>> oneFOneBStageOrder(int64_t stages, int64_t stage,
                                                const PipelineOrder &order) {
  using R = Result<std::vector<int64_t>>;
  if (order.backward.size() != order.chunks.size())
    return R::fail("a pipeline needs a backward order of its chunks and at "
                   "least one chunk");
  std::vector<int64_t> ops;
  std::string error =
      step::oneFOneBStageOrder(stages, stage, order.backward, order.nSplit, ops);
  if (!error.empty())
    return R::fail(error);
  return R::ok(std::move(ops));
}

Result<std::vector<std::vector<int64_t>>>
oneFOneBSchedule(int64_t stages, const PipelineOrder &order) {
  using R = Result<std::vector<std::vector<int64_t>>>;
  std::vector<std::vector<int64_t>> out;
  for (int64_t s = 0; s < stages; ++s) {
    Result<std::vector<int64_t>> ops = oneFOneBStageOrder(stages, s, order);
    if (!ops)
      return R::fail(ops.error);
    out.push_back(*ops);
  }
  if (out.empty())
    return R::fail("a pipeline needs at least one stage");
  return R::ok(std::move(out));
}

Result<PipelineTiming>
evaluatePipeline(const std::vector<std::vector<int64_t>> &stageOrders,
                 const std::vector<std::vector<double>> &forwardMs,
                 const std::vector<std::vector<double>> &backwardMs) {
  using R = Result<PipelineTiming>;
  const size_t stages = stageOrders.size();
  if (stages == 0 || forwardMs.size() != stages || backwardMs.size() != stages)
    return R::fail("orders and times must be given for every stage");
  const size_t n = stageOrders.front().size() / 2;
  for (size_t s = 0; s < stages; ++s) {
    if (stageOrders[s].size() != 2 * n || forwardMs[s].size() != n ||
        backwardMs[s].size() != n)
      return R::fail("stage " + std::to_string(s) +
                     " must run the forward and backward of each of " +
                     std::to_string(n) + " positions, with a time for each");
    for (size_t k = 0; k < n; ++k)
      if (!(forwardMs[s][k] >= 0) || !(backwardMs[s][k] >= 0) ||
          !std::isfinite(forwardMs[s][k] + backwardMs[s][k]))
        return R::fail("times must be finite and non-negative");
    for (int64_t op : stageOrders[s])
      if ((op >= 0 ? op : -op - 1) >= static_cast<int64_t>(n))
        return R::fail("stage " + std::to_string(s) +
                       " names a position out of range");
  }

  const double notDone = -1;
  PipelineTiming t;
  t.busyMs.assign(stages, 0);
  t.forwardStartMs.assign(stages, std::vector<double>(n, notDone));
  t.backwardStartMs.assign(stages, std::vector<double>(n, notDone));
  std::vector<std::vector<double>> forwardEnd(stages,
                                              std::vector<double>(n, notDone));
  std::vector<std::vector<double>> backwardEnd = forwardEnd;
  std::vector<size_t> next(stages, 0);
  std::vector<double> stageFree(stages, 0);
  size_t remaining = 2 * n * stages;
  while (remaining > 0) {
    bool progress = false;
    for (size_t s = 0; s < stages; ++s) {
      while (next[s] < stageOrders[s].size()) {
        const int64_t op = stageOrders[s][next[s]];
        const bool backward = op < 0;
        const size_t k = static_cast<size_t>(backward ? -op - 1 : op);
        double ready = 0;
        if (!backward)
          ready = s == 0 ? 0 : forwardEnd[s - 1][k];
        else
          ready = s + 1 == stages ? forwardEnd[s][k] : backwardEnd[s + 1][k];
        if (ready == notDone || (backward && forwardEnd[s][k] == notDone) ||
            (backward ? backwardEnd[s][k] : forwardEnd[s][k]) != notDone)
          break;
        const double start = std::max(stageFree[s], ready);
        const double duration = backward ? backwardMs[s][k] : forwardMs[s][k];
        (backward ? t.backwardStartMs : t.forwardStartMs)[s][k] = start;
        (backward ? backwardEnd : forwardEnd)[s][k] = start + duration;
        stageFree[s] = start + duration;
        t.busyMs[s] += duration;
        t.makespanMs = std::max(t.makespanMs, start + duration);
        ++next[s];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      std::string stuck;
      for (size_t s = 0; s < stages; ++s)
        if (next[s] < stageOrders[s].size())
          stuck += (stuck.empty() ? "" : ", ") + std::to_string(s);
      return R::fail("the stage orders wait on each other forever (stages " +
                     stuck + " are stuck)");
    }
  }
  double busy = 0;
  for (double b : t.busyMs)
    busy += b;
  t.bubbleRatio =
      t.makespanMs > 0
          ? 1.0 - busy / (static_cast<double>(stages) * t.makespanMs)
          : 0.0;
  return R::ok(std::move(t));
}

Result<Grouping> groupChunkCountClasses(
    size_t classes, const std::function<double(size_t, size_t)> &pipelineCostMs,
    const std::function<double(size_t, size_t)> &lowerBoundMs) {
  using R = Result<Grouping>;
  if (classes == 0)
    return R::fail("there is nothing to group");
  std::vector<double> dp(classes + 1, kInfinity);
  std::vector<size_t> from(classes + 1, 0);
  dp[0] = 0;
  for (size_t i = 1; i <= classes; ++i) {
    // Candidates from the narrowest pipeline (j = i - 1) to the widest,
    // each bound read when its turn comes: costing the narrow ones first
    // gives an incumbent early and lets bounds built from them skip the
    // wide ones, which checkpoint the most and cost the most to solve. A
    // candidate is skipped when its bound cannot beat the best so far, or
    // can only tie it with a larger j; ties in cost go to the smaller j, as
    // in the plain DP that tries j = 0, 1, ... and keeps the first best.
    size_t bestJ = 0;
    for (size_t j = i; j-- > 0;) {
      if (!(dp[j] < kInfinity))
        continue;
      const double bound =
          dp[j] + (lowerBoundMs ? std::max(0.0, lowerBoundMs(j, i)) : 0.0);
      if (!(bound < kInfinity) || bound > dp[i] ||
          (bound == dp[i] && j > bestJ))
        continue;
      const double cost = pipelineCostMs(j, i);
      if (!(cost < kInfinity))
        continue;
      const double total = dp[j] + cost;
      if (total < dp[i] || (total == dp[i] && j < bestJ)) {
        dp[i] = total;
        bestJ = j;
      }
    }
    from[i] = bestJ;
  }
  if (dp[classes] == kInfinity)
    return R::fail("no grouping of the sequences into pipelines fits");
  Grouping g;
  g.costMs = dp[classes];
  for (size_t i = classes; i > 0; i = from[i])
    g.ranges.emplace_back(from[i], i);
  std::reverse(g.ranges.begin(), g.ranges.end());
  return R::ok(std::move(g));
}

} // namespace plexus::dpp
