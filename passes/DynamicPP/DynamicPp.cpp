//===- DynamicPp.cpp - Dynamic pipeline parallelism planner ---------------===//
//
// The K search, the grouping DP's pipelines and their bounds, the
// refinement of the chosen checkpointing, the plan checks and statistics.
// See DynamicPp.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DynamicPp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
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
  Result<ckpt::CheckpointProblem> problem =
      ckpt::makeCheckpointProblem(model.activation, footprints, stageOrders,
                                  model.memoryMB, model.modelStatesMB, layerMs);
  if (problem)
    problem.value->backwardWorkingMemory = model.backwardWorkingMemory;
  return problem;
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

/// Fills a pipeline's checkpointing (with options.checkpointing), timing,
/// delta and grouping cost from its order and stage orders.
Result<DppPipeline> checkpointAndTime(const DppModel &model,
                                      const std::vector<Chunk> &chunks,
                                      DppPipeline p,
                                      const DppOptions &options) {
  using R = Result<DppPipeline>;
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

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Empty when packed chunking can hold the batch's longest sequence; else
/// which sequence cannot be held, on which stage, and the MB it needs (with
/// as many layers checkpointed as the strategy allows) against the MB
/// free beside the model states.
std::string packedProblem(const DppModel &model,
                          const std::vector<int64_t> &lengths,
                          const DppOptions &options) {
  if (lengths.empty() || !dppModelProblem(model).empty())
    return ""; // the chunking or the planner reports these
  const auto longest = std::max_element(lengths.begin(), lengths.end());
  if (*longest < 1)
    return "";
  int64_t layers = ckpt::layersPerStage(model.activation);
  std::string how = "with every layer checkpointed";
  if (options.checkpointing == ckpt::CheckpointStrategy::None) {
    layers = 0;
    how = "without checkpointing";
  } else if (options.checkpointing == ckpt::CheckpointStrategy::Uniform &&
             options.checkpointOptions.uniformLayers >= 0) {
    layers = std::min(layers, options.checkpointOptions.uniformLayers);
    how = "with " + std::to_string(layers) + " layers checkpointed";
  }
  ckpt::ChunkFootprint f;
  f.tokens = *longest;
  for (int64_t s = 0; s < model.activation.stages; ++s) {
    const double need = ckpt::activationMB(model.activation, s, f, layers);
    const double free =
        model.memoryMB - model.modelStatesMB[static_cast<size_t>(s)];
    if (need > free) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "packed batch-level 1F1B splits no sequence, and "
                    "sequence %lld (%lld tokens) alone needs %.1f MB of "
                    "activations on stage %lld %s, but only %.1f MB are free "
                    "beside the model states",
                    static_cast<long long>(longest - lengths.begin()),
                    static_cast<long long>(*longest), need,
                    static_cast<long long>(s), how.c_str(), free);
      return buf;
    }
  }
  return "";
}

/// The plan's totals from its pipelines (run one after another): the
/// iteration time, T_ckpt, the grouping cost, and the idle share of all
/// stages over the whole iteration.
void addUp(const DppModel &model, DppPlan &plan) {
  plan.iterationMs = plan.recomputeMs = plan.groupingCostMs = 0;
  double busy = 0;
  for (const DppPipeline &p : plan.pipelines) {
    plan.iterationMs += p.timing.makespanMs;
    plan.recomputeMs += p.checkpointing.recomputeMs;
    plan.groupingCostMs += p.groupingCostMs;
    for (double b : p.timing.busyMs)
      busy += b;
  }
  const double stageTime =
      plan.iterationMs * static_cast<double>(model.activation.stages);
  plan.bubbleRatio = stageTime > 0 ? 1.0 - busy / stageTime : 0.0;
}

/// A lower bound on the layers a pipeline of these chunks, or of more
/// classes around them, recomputes: what the adaptive solve proved, else
/// what the fixed strategies recompute (both only grow with the chunks).
double checkpointLayersBound(const DppPipeline &p, const DppOptions &options) {
  if (options.checkpointing == ckpt::CheckpointStrategy::Adaptive)
    return std::ceil(p.checkpointing.lowerBoundLayers - 1e-6);
  return static_cast<double>(p.checkpointing.recomputeLayers);
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

  // The search costs candidates without branch and bound unless asked to.
  DppOptions search = options;
  if (!options.branchAndBoundInSearch)
    search.checkpointOptions.branchAndBound = false;
  const size_t nc = classes.size();
  // Per candidate [first, last): its pipeline once costed, and a lower bound
  // on its recomputed layers (infinite when it cannot run).
  std::vector<std::vector<std::optional<Result<DppPipeline>>>> memo(
      nc + 1, std::vector<std::optional<Result<DppPipeline>>>(nc + 1));
  std::vector<std::vector<double>> layersBound(
      nc + 1, std::vector<double>(nc + 1, -1.0));
  std::string firstFailure;
  auto pipelineOf = [&](size_t first,
                        size_t last) -> const Result<DppPipeline> & {
    std::optional<Result<DppPipeline>> &slot = memo[first][last];
    if (slot)
      return *slot;
    std::vector<ChunkUnit> members;
    for (const ChunkUnit &u : *units)
      if (u.chunks.size() >= classes[first] &&
          u.chunks.size() <= classes[last - 1])
        members.push_back(u);
    slot = planPipeline(model, chunking.chunks, members, search);
    if (!*slot && firstFailure.empty())
      firstFailure = (*slot).error;
    layersBound[first][last] =
        *slot ? checkpointLayersBound(**slot, options) : kInfinity;
    return *slot;
  };
  // delta of a pipeline and the mean of one layer's recompute over its
  // chunks, from per-class sums.
  std::vector<double> classMs(nc, 0), classLayerMs(nc, 0), classChunks(nc, 0);
  for (const ChunkUnit &u : *units) {
    const size_t c = static_cast<size_t>(
        std::lower_bound(classes.begin(), classes.end(), u.chunks.size()) -
        classes.begin());
    for (int64_t k : u.chunks) {
      const Chunk &chunk = chunking.chunks[static_cast<size_t>(k)];
      classMs[c] += chunkStageMs(model, chunk);
      classLayerMs[c] += recomputeMsPerLayer(model, chunk);
    }
    classChunks[c] += static_cast<double>(u.chunks.size());
  }
  // A lower bound on a candidate's grouping cost: its delta plus its mean
  // layer recompute times the most layers a costed candidate inside its
  // class range must recompute, which holds at every memory peak of every
  // stage a subset of what the wider one holds there (see DynamicPp.h);
  // when one cannot run, neither can the wider one. With each window
  // charged the working memory of the backward after it, only candidates
  // with the same top class are sure to be followed by the same backward,
  // so only they count. Shaved by a relative 1e-9 so that rounding never
  // lifts the bound above the cost computed chunk by chunk.
  const bool sameTopOnly = model.backwardWorkingMemory;
  auto lowerBound = [&](size_t first, size_t last) {
    double layers = 0;
    for (size_t a = first; a < last; ++a)
      for (size_t b = sameTopOnly ? last : a + 1; b <= last; ++b)
        layers = std::max(layers, layersBound[a][b]);
    if (!(layers < kInfinity))
      return kInfinity;
    double ms = 0, layerMs = 0, n = 0;
    for (size_t c = first; c < last; ++c) {
      ms += classMs[c];
      layerMs += classLayerMs[c];
      n += classChunks[c];
    }
    return (static_cast<double>(model.activation.stages - 1) * ms +
            layerMs * layers) /
           n * (1 - 1e-9);
  };
  Result<Grouping> grouping = groupChunkCountClasses(
      classes.size(),
      [&](size_t first, size_t last) {
        const Result<DppPipeline> &p = pipelineOf(first, last);
        return p ? p->groupingCostMs : kInfinity;
      },
      options.pruneByBound ? std::function<double(size_t, size_t)>(lowerBound)
                           : nullptr);
  if (!grouping)
    return R::fail(firstFailure.empty() ? grouping.error : firstFailure);

  DppPlan plan;
  plan.slices = chunking.mesh.slices;
  for (size_t i = grouping->ranges.size(); i-- > 0;)
    plan.pipelines.push_back(
        *pipelineOf(grouping->ranges[i].first, grouping->ranges[i].second));
  plan.chunking = std::move(chunking);
  addUp(model, plan);
  return R::ok(std::move(plan));
}

/// Solves the checkpointing ILP of each chosen pipeline with CBC's branch
/// and bound, from the search's plan. A pipeline takes the result when it
/// recomputes fewer layers without a longer makespan.
void refineCheckpointing(const DppModel &model, DppPlan &plan,
                         const DppOptions &options) {
  if (options.checkpointing != ckpt::CheckpointStrategy::Adaptive ||
      options.branchAndBoundInSearch || !options.refineCheckpointing)
    return;
  bool changed = false;
  for (DppPipeline &p : plan.pipelines) {
    const ckpt::CheckpointPlan &ck = p.checkpointing;
    if (!ck.solvedByCbc || ck.provenOptimal)
      continue;
    Result<DppPipeline> refined =
        checkpointAndTime(model, plan.chunking.chunks, p, options);
    if (refined &&
        refined->checkpointing.recomputeLayers < ck.recomputeLayers &&
        refined->timing.makespanMs <= p.timing.makespanMs) {
      p = std::move(*refined);
      changed = true;
    }
  }
  if (changed)
    addUp(model, plan);
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
  return checkpointAndTime(model, chunks, std::move(p), options);
}

Result<DppPlan> planForSlices(const DppModel &model,
                              const std::vector<int64_t> &lengths,
                              int64_t slices, const DppOptions &options) {
  using R = Result<DppPlan>;
  const auto started = std::chrono::steady_clock::now();
  if (options.chunkingMode == ChunkingMode::Packed)
    if (std::string why = packedProblem(model, lengths, options); !why.empty())
      return R::fail(why);
  Result<Chunking> chunking = chunkBatch(
      model, lengths, slices, options.chunkingMode, options.chunking);
  if (!chunking)
    return R::fail(chunking.error);
  Result<DppPlan> plan = planChunking(model, *chunking, options);
  if (!plan)
    return plan;
  DppPlan out = std::move(*plan);
  refineCheckpointing(model, out, options);
  out.solveSeconds = secondsSince(started);
  return R::ok(std::move(out));
}

Result<DppPlan> planDynamicPipeline(const DppModel &model,
                                    const std::vector<int64_t> &lengths,
                                    const DppOptions &options) {
  using R = Result<DppPlan>;
  const auto started = std::chrono::steady_clock::now();
  if (options.minSlices < 1 || options.maxSlices < options.minSlices)
    return R::fail("the slice counts searched must satisfy 1 <= minSlices "
                   "<= maxSlices");
  // Packed chunking splits nothing: K = 1 only.
  const bool packed = options.chunkingMode == ChunkingMode::Packed;
  const int64_t minK = packed ? 1 : options.minSlices;
  const int64_t maxK = packed ? 1 : options.maxSlices;
  if (packed)
    if (std::string why = packedProblem(model, lengths, options); !why.empty())
      return R::fail(why);
  const int64_t longest =
      lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  std::vector<SliceTrial> trials;
  std::optional<DppPlan> best;
  std::string lastReason;
  for (int64_t k = minK; k <= maxK; ++k) {
    SliceTrial trial;
    trial.slices = k;
    // Even-token slices depend on K only through T = ceil(longest / K),
    // rounded up to the slice granule: a K with the previous K's T has its
    // chunks and its outcome.
    if (options.chunkingMode == ChunkingMode::EvenTokens && !trials.empty() &&
        k <= longest) {
      const SliceTrial &previous = trials.back();
      if (evenSliceTokens(longest, k, model.sliceGranule) ==
          evenSliceTokens(longest, k - 1, model.sliceGranule)) {
        trial = previous;
        trial.slices = k;
        trial.sameChunksAs =
            previous.sameChunksAs > 0 ? previous.sameChunksAs : k - 1;
        trials.push_back(trial);
        continue;
      }
    }
    Result<Chunking> chunking =
        chunkBatch(model, lengths, k, options.chunkingMode, options.chunking);
    if (!chunking) {
      // Bad input fails every K alike; a K beyond the longest sequence
      // ends the search.
      if (k == minK || lengths.empty())
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
    return R::fail("no slice count from " + std::to_string(minK) + " to " +
                   std::to_string(maxK) + " gives a plan that fits; " +
                   lastReason);
  refineCheckpointing(model, *best, options);
  best->trials = std::move(trials);
  best->solveSeconds = secondsSince(started);
  return R::ok(std::move(*best));
}

DppPlanStats dppPlanStats(const DppModel &model, const DppPlan &plan) {
  DppPlanStats st;
  const size_t stages = static_cast<size_t>(
      std::max<int64_t>(model.activation.stages, int64_t{0}));
  st.peakMemoryMB.assign(stages, 0);
  st.recomputeMsPerStage.assign(stages, 0);
  const std::vector<Chunk> &chunks = plan.chunking.chunks;
  for (const DppPipeline &p : plan.pipelines) {
    for (size_t s = 0; s < stages; ++s) {
      if (s < p.checkpointing.peakMB.size())
        st.peakMemoryMB[s] =
            std::max(st.peakMemoryMB[s], p.checkpointing.peakMB[s]);
      if (s >= p.checkpointing.layers.size())
        continue;
      const std::vector<int64_t> &layers = p.checkpointing.layers[s];
      for (size_t k = 0; k < layers.size() && k < p.order.chunks.size(); ++k) {
        const int64_t c = p.order.chunks[k];
        if (c >= 0 && c < static_cast<int64_t>(chunks.size()))
          st.recomputeMsPerStage[s] +=
              static_cast<double>(layers[k]) *
              recomputeMsPerLayer(model, chunks[static_cast<size_t>(c)]);
      }
    }
  }
  for (size_t s = 0; s < stages; ++s) {
    if (s < model.modelStatesMB.size())
      st.peakMemoryMB[s] += model.modelStatesMB[s];
    st.recomputeMs += st.recomputeMsPerStage[s];
  }
  const double stageTime = plan.iterationMs * static_cast<double>(stages);
  st.recomputeShare = stageTime > 0 ? st.recomputeMs / stageTime : 0.0;
  st.bubbleRatio = plan.bubbleRatio;
  for (const Chunk &c : chunks) {
    st.packedChunks += c.kind == ChunkKind::Packed;
    st.splitChunks += c.kind == ChunkKind::Split;
    st.hybridChunks += c.kind == ChunkKind::Hybrid;
  }
  st.pipelines = static_cast<int64_t>(plan.pipelines.size());
  st.solveSeconds = plan.solveSeconds;
  return st;
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
