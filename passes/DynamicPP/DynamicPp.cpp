//===- DynamicPp.cpp - Dynamic pipeline parallelism planner ---------------===//
//
// The K search, the grouping DP's pipelines and the plan checks. See
// DynamicPp.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DynamicPp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace plexus::dpp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

/// The checkpointing problem of one pipeline (chunks in `order`).
Result<ckpt::CheckpointProblem>
pipelineProblem(const DppModel &model, const std::vector<Chunk> &chunks,
                const PipelineOrder &order,
                const std::vector<std::vector<int64_t>> &stageOrders) {
  std::vector<ckpt::ChunkFootprint> footprints;
  double layerMs = 0;
  for (int64_t c : order.chunks) {
    const Chunk &chunk = chunks[static_cast<size_t>(c)];
    footprints.push_back(chunkFootprint(model, chunk));
    layerMs += recomputeMsPerLayer(model, chunk);
  }
  if (!order.chunks.empty())
    layerMs /= static_cast<double>(order.chunks.size());
  return ckpt::makeCheckpointProblem(model.activation, footprints, stageOrders,
                                     model.memoryMB, model.modelStatesMB,
                                     layerMs);
}

/// Per stage and position: forward, and backward with the recompute.
void stageTimes(const DppModel &model, const std::vector<Chunk> &chunks,
                const PipelineOrder &order,
                const std::vector<std::vector<int64_t>> &layers,
                std::vector<std::vector<double>> &forwardMs,
                std::vector<std::vector<double>> &backwardMs) {
  const size_t stages = static_cast<size_t>(model.activation.stages);
  forwardMs.assign(stages, {});
  backwardMs.assign(stages, {});
  for (size_t k = 0; k < order.chunks.size(); ++k) {
    const Chunk &c = chunks[static_cast<size_t>(order.chunks[k])];
    const ChunkTimes t = chunkTimes(model, c);
    const double layerMs = recomputeMsPerLayer(model, c);
    for (size_t s = 0; s < stages; ++s) {
      forwardMs[s].push_back(t.forwardMs);
      backwardMs[s].push_back(t.backwardMs +
                              static_cast<double>(layers[s][k]) * layerMs);
    }
  }
}

/// A lower bound on any plan's iteration time for these chunks: the last
/// stage of a pipeline runs every forward and backward of its chunks, after
/// a first forward has crossed the d_p - 1 stages before it, and before a
/// last backward crosses them back.
double iterationLowerBoundMs(const DppModel &model,
                             const std::vector<Chunk> &chunks) {
  double sum = 0;
  double minForward = std::numeric_limits<double>::infinity();
  double minBackward = minForward;
  for (const Chunk &c : chunks) {
    const ChunkTimes t = chunkTimes(model, c);
    sum += t.totalMs();
    minForward = std::min(minForward, t.forwardMs);
    minBackward = std::min(minBackward, t.backwardMs);
  }
  if (chunks.empty())
    return 0;
  return sum + static_cast<double>(model.activation.stages - 1) *
                   (minForward + minBackward);
}

/// The plan for one chunking (K fixed).
Result<DppPlan> planChunking(const DppModel &model, Chunking chunking,
                             const DppOptions &options) {
  using R = Result<DppPlan>;
  Result<std::vector<ChunkUnit>> units = chunkUnits(chunking.chunks);
  if (!units)
    return R::fail(units.error);
  // Chunk-count classes, ascending.
  std::vector<size_t> classes;
  for (const ChunkUnit &u : *units)
    classes.push_back(u.chunks.size());
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());

  std::map<std::pair<size_t, size_t>, Result<DppPipeline>> memo;
  std::string firstFailure;
  auto pipelineOf = [&](size_t first,
                        size_t last) -> const Result<DppPipeline> & {
    auto it = memo.find({first, last});
    if (it != memo.end())
      return it->second;
    std::vector<ChunkUnit> members;
    for (const ChunkUnit &u : *units)
      if (u.chunks.size() >= classes[first] &&
          u.chunks.size() <= classes[last - 1])
        members.push_back(u);
    Result<DppPipeline> p =
        planPipeline(model, chunking.chunks, members, options);
    if (!p && firstFailure.empty())
      firstFailure = p.error;
    return memo.emplace(std::make_pair(first, last), std::move(p))
        .first->second;
  };
  // delta of a pipeline, a lower bound on its grouping cost: (d_p - 1)
  // times the mean chunk time, from per-class sums. Shaved by a relative
  // 1e-9 so that rounding never lifts it above the cost computed chunk by
  // chunk.
  std::vector<double> classMs(classes.size(), 0);
  std::vector<double> classChunks(classes.size(), 0);
  for (const ChunkUnit &u : *units) {
    const size_t c = static_cast<size_t>(
        std::lower_bound(classes.begin(), classes.end(), u.chunks.size()) -
        classes.begin());
    for (int64_t k : u.chunks)
      classMs[c] +=
          chunkStageMs(model, chunking.chunks[static_cast<size_t>(k)]);
    classChunks[c] += static_cast<double>(u.chunks.size());
  }
  auto deltaBound = [&](size_t first, size_t last) {
    double ms = 0, n = 0;
    for (size_t c = first; c < last; ++c) {
      ms += classMs[c];
      n += classChunks[c];
    }
    return static_cast<double>(model.activation.stages - 1) * ms / n *
           (1 - 1e-9);
  };
  Result<Grouping> grouping = groupChunkCountClasses(
      classes.size(),
      [&](size_t first, size_t last) {
        const Result<DppPipeline> &p = pipelineOf(first, last);
        return p ? p->groupingCostMs : kInfinity;
      },
      deltaBound);
  if (!grouping)
    return R::fail(firstFailure.empty() ? grouping.error : firstFailure);

  DppPlan plan;
  plan.slices = chunking.mesh.slices;
  plan.groupingCostMs = grouping->costMs;
  double stageTime = 0, busy = 0;
  for (size_t i = grouping->ranges.size(); i-- > 0;) {
    const DppPipeline &p =
        *pipelineOf(grouping->ranges[i].first, grouping->ranges[i].second);
    plan.iterationMs += p.timing.makespanMs;
    plan.recomputeMs += p.checkpointing.recomputeMs;
    stageTime +=
        p.timing.makespanMs * static_cast<double>(model.activation.stages);
    for (double b : p.timing.busyMs)
      busy += b;
    plan.pipelines.push_back(p);
  }
  plan.bubbleRatio = stageTime > 0 ? 1.0 - busy / stageTime : 0.0;
  plan.chunking = std::move(chunking);
  return R::ok(std::move(plan));
}

} // namespace

Result<DppPipeline> planPipeline(const DppModel &model,
                                 const std::vector<Chunk> &chunks,
                                 const std::vector<ChunkUnit> &units,
                                 const DppOptions &options) {
  using R = Result<DppPipeline>;
  if (std::string why = dppModelProblem(model); !why.empty())
    return R::fail(why);
  DppPipeline p;
  p.order = pipelineOrder(units);
  for (int64_t c : p.order.chunks)
    if (c < 0 || c >= static_cast<int64_t>(chunks.size()))
      return R::fail("a unit names chunk " + std::to_string(c) + " of only " +
                     std::to_string(chunks.size()));
  if (p.order.chunks.empty())
    return R::fail("a pipeline needs at least one chunk");
  p.minChunks = p.order.nSplit;
  for (const ChunkUnit &u : units)
    p.minChunks = std::min(p.minChunks, static_cast<int64_t>(u.chunks.size()));
  p.maxChunks = p.order.nSplit;
  Result<std::vector<std::vector<int64_t>>> orders =
      oneFOneBSchedule(model.activation.stages, p.order);
  if (!orders)
    return R::fail(orders.error);
  p.stageOrders = *orders;
  Result<ckpt::CheckpointProblem> problem =
      pipelineProblem(model, chunks, p.order, p.stageOrders);
  if (!problem)
    return R::fail(problem.error);
  Result<ckpt::CheckpointPlan> ck = ckpt::planCheckpointing(
      *problem, options.checkpointing, options.checkpointOptions);
  if (!ck)
    return R::fail(ck.error);
  p.checkpointing = *ck;
  std::vector<std::vector<double>> forwardMs, backwardMs;
  stageTimes(model, chunks, p.order, p.checkpointing.layers, forwardMs,
             backwardMs);
  Result<PipelineTiming> timing =
      evaluatePipeline(p.stageOrders, forwardMs, backwardMs);
  if (!timing)
    return R::fail(timing.error);
  p.timing = *timing;
  double mean = 0;
  for (int64_t c : p.order.chunks)
    mean += chunkStageMs(model, chunks[static_cast<size_t>(c)]);
  mean /= static_cast<double>(p.order.chunks.size());
  p.deltaMs = static_cast<double>(model.activation.stages - 1) * mean;
  p.groupingCostMs = p.deltaMs + p.checkpointing.recomputeMs;
  return R::ok(std::move(p));
}

Result<DppPlan> planForSlices(const DppModel &model,
                              const std::vector<int64_t> &lengths,
                              int64_t slices, const DppOptions &options) {
  Result<Chunking> chunking =
      chunkSequences(model, lengths, slices, options.chunking);
  if (!chunking)
    return Result<DppPlan>::fail(chunking.error);
  return planChunking(model, *chunking, options);
}

Result<DppPlan> planDynamicPipeline(const DppModel &model,
                                    const std::vector<int64_t> &lengths,
                                    const DppOptions &options) {
  using R = Result<DppPlan>;
  if (options.minSlices < 1 || options.maxSlices < options.minSlices)
    return R::fail("the slice counts searched must satisfy 1 <= minSlices "
                   "<= maxSlices");
  std::vector<SliceTrial> trials;
  std::optional<DppPlan> best;
  std::string lastReason;
  for (int64_t k = options.minSlices; k <= options.maxSlices; ++k) {
    SliceTrial trial;
    trial.slices = k;
    Result<Chunking> chunking =
        chunkSequences(model, lengths, k, options.chunking);
    if (!chunking) {
      // Bad input fails every K alike; a K beyond the longest sequence
      // ends the search.
      if (k == options.minSlices || lengths.empty())
        return R::fail(chunking.error);
      break;
    }
    trial.lowerBoundMs = iterationLowerBoundMs(model, chunking->chunks);
    if (options.pruneByBound && best &&
        trial.lowerBoundMs >= best->iterationMs) {
      trial.pruned = true;
      trials.push_back(trial);
      continue;
    }
    Result<DppPlan> plan = planChunking(model, std::move(*chunking), options);
    if (!plan) {
      trial.reason = plan.error;
      lastReason = "with K = " + std::to_string(k) + " slices: " + plan.error;
      trials.push_back(trial);
      continue;
    }
    trial.feasible = true;
    trial.iterationMs = plan->iterationMs;
    trial.pipelines = static_cast<int64_t>(plan->pipelines.size());
    trials.push_back(trial);
    if (!best || plan->iterationMs < best->iterationMs)
      best = std::move(*plan);
  }
  if (!best)
    return R::fail("no slice count from " + std::to_string(options.minSlices) +
                   " to " + std::to_string(options.maxSlices) +
                   " gives a plan that fits; " + lastReason);
  best->trials = std::move(trials);
  return R::ok(std::move(*best));
}

std::string dppPlanViolation(const DppModel &model, const DppPlan &plan,
                             const std::vector<int64_t> &lengths) {
  if (std::string why = dppModelProblem(model); !why.empty())
    return why;
  const std::vector<Chunk> &chunks = plan.chunking.chunks;
  if (std::string why = chunkingViolation(chunks, lengths); !why.empty())
    return why;
  std::vector<int> seen(chunks.size(), 0);
  double iteration = 0;
  for (size_t i = 0; i < plan.pipelines.size(); ++i) {
    const DppPipeline &p = plan.pipelines[i];
    const std::string at = "pipeline " + std::to_string(i);
    std::vector<Chunk> own;
    for (int64_t c : p.order.chunks) {
      if (c < 0 || c >= static_cast<int64_t>(chunks.size()))
        return at + " names chunk " + std::to_string(c);
      ++seen[static_cast<size_t>(c)];
      own.push_back(chunks[static_cast<size_t>(c)]);
    }
    // The units of these chunks, longest first, must give this order.
    Result<std::vector<ChunkUnit>> units = chunkUnits(own);
    if (!units)
      return at + ": " + units.error;
    std::vector<ChunkUnit> global = *units;
    for (ChunkUnit &u : global)
      for (int64_t &c : u.chunks)
        c = p.order.chunks[static_cast<size_t>(c)];
    const PipelineOrder expected = pipelineOrder(global);
    if (expected.chunks != p.order.chunks ||
        expected.backward != p.order.backward ||
        expected.nSplit != p.order.nSplit)
      return at + " is not ordered longest first with slices forward in "
                  "order and backward in reverse";
    Result<std::vector<std::vector<int64_t>>> orders =
        oneFOneBSchedule(model.activation.stages, p.order);
    if (!orders || *orders != p.stageOrders)
      return at + "'s stage orders are not its 1F1B orders";
    Result<ckpt::CheckpointProblem> problem =
        pipelineProblem(model, chunks, p.order, p.stageOrders);
    if (!problem)
      return at + ": " + problem.error;
    if (std::string why =
            ckpt::checkpointPlanViolation(*problem, p.checkpointing);
        !why.empty())
      return at + ": " + why;
    std::vector<std::vector<double>> forwardMs, backwardMs;
    stageTimes(model, chunks, p.order, p.checkpointing.layers, forwardMs,
               backwardMs);
    Result<PipelineTiming> timing =
        evaluatePipeline(p.stageOrders, forwardMs, backwardMs);
    if (!timing || !close(timing->makespanMs, p.timing.makespanMs))
      return at + "'s makespan does not match its schedule";
    iteration += p.timing.makespanMs;
  }
  for (size_t c = 0; c < chunks.size(); ++c)
    if (seen[c] != 1)
      return "chunk " + std::to_string(c) + " is in " +
             std::to_string(seen[c]) + " pipelines, not one";
  if (!close(iteration, plan.iterationMs))
    return "the iteration time is not the sum of the pipelines' makespans";
  return "";
}

bool samePlan(const DppPlan &a, const DppPlan &b) {
  auto sameChunks = [](const std::vector<Chunk> &x,
                       const std::vector<Chunk> &y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].kind != y[i].kind || x[i].tail != y[i].tail ||
          x[i].pieces.size() != y[i].pieces.size())
        return false;
      for (size_t j = 0; j < x[i].pieces.size(); ++j)
        if (x[i].pieces[j].sequence != y[i].pieces[j].sequence ||
            x[i].pieces[j].begin != y[i].pieces[j].begin ||
            x[i].pieces[j].end != y[i].pieces[j].end)
          return false;
    }
    return true;
  };
  if (a.slices != b.slices || a.iterationMs != b.iterationMs ||
      a.bubbleRatio != b.bubbleRatio || a.recomputeMs != b.recomputeMs ||
      a.groupingCostMs != b.groupingCostMs ||
      a.chunking.mesh.boundaries != b.chunking.mesh.boundaries ||
      !sameChunks(a.chunking.chunks, b.chunking.chunks) ||
      a.pipelines.size() != b.pipelines.size())
    return false;
  for (size_t i = 0; i < a.pipelines.size(); ++i) {
    const DppPipeline &x = a.pipelines[i], &y = b.pipelines[i];
    if (x.order.chunks != y.order.chunks ||
        x.order.backward != y.order.backward ||
        x.stageOrders != y.stageOrders ||
        x.checkpointing.layers != y.checkpointing.layers ||
        x.checkpointing.slots != y.checkpointing.slots ||
        x.timing.makespanMs != y.timing.makespanMs)
      return false;
  }
  return true;
}

} // namespace plexus::dpp
