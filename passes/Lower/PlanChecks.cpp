//===- PlanChecks.cpp - What the lowering refuses to lower ----------------===//
//
// The checks of the two plan forms before they become one schedule
// (StepLowering.h): a static step's groups, a dynamic-pipeline step's
// chunks, slices, orders and checkpointing.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/StepLowering.h"

#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <map>
#include <string>

namespace plexus::lower {

using namespace step;

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string chunkName(size_t pipeline, size_t position) {
  return "pipeline " + num(static_cast<int64_t>(pipeline)) + ", chunk " +
         num(static_cast<int64_t>(position));
}

int64_t chunkCount(const PlannedPipeline &p) {
  return static_cast<int64_t>(p.chunks.size());
}

/// Stage `stage`'s 1F1B order over `pipeline` (step::oneFOneBStageOrder):
/// k is the forward of position k, -(k + 1) its backward. Writes `ops`;
/// returns why not otherwise.
std::string stageOrder(const PlannedPipeline &pipeline, int64_t stages,
                       int64_t stage, std::vector<int64_t> &ops) {
  const int64_t n = chunkCount(pipeline);
  if (static_cast<int64_t>(pipeline.backward.size()) != n) {
    ops.clear();
    return "a pipeline needs a backward order of its chunks and at least one "
           "chunk";
  }
  // Every N_split above n gives every stage all n forwards before its first
  // backward; capping it keeps the window arithmetic far from overflow.
  return step::oneFOneBStageOrder(stages, stage, pipeline.backward,
                                  std::min(pipeline.nSplit, n + 1), ops);
}

/// The checks of one pipeline that need nothing from the others.
std::string checkPipeline(const PipelinedStepPlan &plan,
                          const TrainModel &model, size_t i) {
  const PlannedPipeline &p = plan.pipelines[i];
  const std::string where = "pipeline " + num(static_cast<int64_t>(i));
  const int64_t n = chunkCount(p);
  if (n == 0)
    return where + " has no chunk";
  for (size_t k = 0; k < p.chunks.size(); ++k) {
    const PlannedChunk &c = p.chunks[k];
    if (c.slices.empty())
      return chunkName(i, k) + " has no slice";
    std::vector<int64_t> sequences;
    for (const ChunkSlice &s : c.slices) {
      if (s.sequence < 0 ||
          s.sequence >= static_cast<int64_t>(plan.lengths.size()))
        return chunkName(i, k) + ": sequence " + num(s.sequence) +
               " has no length";
      const int64_t length = plan.lengths[static_cast<size_t>(s.sequence)];
      if (s.begin < 0 || s.end <= s.begin || s.end > length)
        return chunkName(i, k) + ": slice [" + num(s.begin) + ", " +
               num(s.end) + ") of sequence " + num(s.sequence) +
               " is not a non-empty part of its " + num(length) + " tokens";
      if (std::find(sequences.begin(), sequences.end(), s.sequence) !=
          sequences.end())
        return chunkName(i, k) + " holds two slices of sequence " +
               num(s.sequence);
      sequences.push_back(s.sequence);
    }
  }
  std::vector<int> hits(static_cast<size_t>(n), 0);
  bool permutation = static_cast<int64_t>(p.backward.size()) == n;
  for (int64_t k : p.backward) {
    if (!permutation || k < 0 || k >= n || hits[static_cast<size_t>(k)]++) {
      permutation = false;
      break;
    }
  }
  if (!permutation)
    return where + ": the backward order is not a permutation of the " +
           num(n) + " forward positions";
  if (p.nSplit < 1)
    return where + ": N_split is " + num(p.nSplit) + ", not at least 1";
  if (!p.remat.empty()) {
    if (static_cast<int64_t>(p.remat.size()) != plan.stages)
      return where + ": remat has " +
             num(static_cast<int64_t>(p.remat.size())) + " rows, not one per " +
             "stage (" + num(plan.stages) + ")";
    for (size_t s = 0; s < p.remat.size(); ++s) {
      auto [a, b] =
          stageLayers(model.shape.layers, plan.stages, static_cast<int64_t>(s));
      if (static_cast<int64_t>(p.remat[s].size()) != n)
        return where + ": remat of stage " + num(static_cast<int64_t>(s)) +
               " has " + num(static_cast<int64_t>(p.remat[s].size())) +
               " entries, not one per chunk (" + num(n) + ")";
      for (size_t k = 0; k < p.remat[s].size(); ++k)
        if (p.remat[s][k] < 0 || p.remat[s][k] > b - a)
          return chunkName(i, k) + ": stage " + num(static_cast<int64_t>(s)) +
                 " checkpoints " + num(p.remat[s][k]) +
                 " layers, outside [0, " + num(b - a) + "]";
    }
  }
  return {};
}

/// A split sequence's slices: forward one after another from token 0 in
/// one pipeline, backward in reverse.
std::string checkSequenceSlices(const PipelinedStepPlan &plan) {
  struct Progress {
    size_t pipeline = 0;
    int64_t end = 0;
  };
  std::map<int64_t, Progress> progress;
  for (size_t i = 0; i < plan.pipelines.size(); ++i) {
    const PlannedPipeline &p = plan.pipelines[i];
    for (size_t k = 0; k < p.chunks.size(); ++k)
      for (const ChunkSlice &s : p.chunks[k].slices) {
        auto [it, fresh] = progress.try_emplace(s.sequence, Progress{i, 0});
        const std::string slice = "slice [" + num(s.begin) + ", " + num(s.end) +
                                  ") of sequence " + num(s.sequence);
        if (it->second.pipeline != i)
          return chunkName(i, k) + ": " + slice + " is in another pipeline " +
                 "than its earlier slices (pipeline " +
                 num(static_cast<int64_t>(it->second.pipeline)) +
                 "); a sequence's slices run in one pipeline";
        if (s.begin != it->second.end)
          return chunkName(i, k) + ": " + slice +
                 (fresh ? " is its first slice but does not begin at token 0"
                        : " goes forward out of order: the slice before it "
                          "ends at token " +
                              num(it->second.end)) +
                 "; a sequence's slices go forward one after another";
        it->second.end = s.end;
      }
    // Backward: each sequence's chunks at decreasing forward positions.
    std::map<int64_t, int64_t> lastPosition;
    for (int64_t k : p.backward)
      for (const ChunkSlice &s : p.chunks[static_cast<size_t>(k)].slices) {
        auto [it, fresh] = lastPosition.try_emplace(s.sequence, k);
        if (!fresh && k > it->second)
          return "pipeline " + num(static_cast<int64_t>(i)) +
                 ": the backward order runs chunk " + num(k) + " after chunk " +
                 num(it->second) + ", both of sequence " + num(s.sequence) +
                 "; a sequence's slices go backward in reverse order";
        it->second = k;
      }
  }
  return {};
}

} // namespace

std::string checkPipelinedStepPlan(const PipelinedStepPlan &plan,
                                   const TrainModel &model) {
  std::vector<cost::ShapeProblem> shape =
      cost::checkTransformerShape(model.shape);
  if (!shape.empty())
    return "the model's shape: " + shape.front().message;
  if (!(model.chip.bf16Flops > 0) || !(model.efficiency > 0) ||
      model.efficiency > 1)
    return "the chip needs a BF16 peak and an efficiency in (0, 1]";
  if (model.zero < 0 || model.zero > 3)
    return "ZeRO stage " + num(model.zero) + " is not 0, 1, 2 or 3";
  if (plan.spDegree < 1 || plan.stages < 1)
    return "the SP degree (" + num(plan.spDegree) + ") and the stages (" +
           num(plan.stages) + ") must be at least 1";
  if (plan.world < 1 || plan.world % plan.spDegree != 0 ||
      plan.world / plan.spDegree != plan.stages)
    return "the world of " + num(plan.world) +
           " ranks is not the SP degree times the stages (" +
           num(plan.spDegree) + " x " + num(plan.stages) + ")";
  if (plan.stages > model.shape.layers)
    return num(plan.stages) + " stages for " + num(model.shape.layers) +
           " layers";
  if (model.shape.heads % plan.spDegree != 0)
    return "heads (" + num(model.shape.heads) +
           ") do not split over the SP degree (" + num(plan.spDegree) + ")";
  if (plan.pipelines.empty())
    return "the step has no pipeline";
  for (size_t i = 0; i < plan.pipelines.size(); ++i)
    if (std::string error = checkPipeline(plan, model, i); !error.empty())
      return error;
  if (std::string error = checkSequenceSlices(plan); !error.empty())
    return error;
  for (size_t i = 0; i < plan.pipelines.size(); ++i)
    for (int64_t s = 0; s < plan.stages; ++s) {
      std::vector<int64_t> order;
      if (std::string error =
              stageOrder(plan.pipelines[i], plan.stages, s, order);
          !error.empty())
        return "pipeline " + num(static_cast<int64_t>(i)) + ": " + error +
               " (N_split " + num(plan.pipelines[i].nSplit) +
               " is too small for its backward order)";
    }
  return {};
}

std::string checkStepPlan(const StepPlan &plan, const TrainModel &model) {
  if (plan.world < 1)
    return "the step has no ranks";
  if (plan.microBatches.empty())
    return "the step has no micro-batch";
  const GroupLayout &first = plan.microBatches.front().groups.empty()
                                 ? GroupLayout{}
                                 : plan.microBatches.front().groups[0].layout;
  for (size_t i = 0; i < plan.microBatches.size(); ++i) {
    const PlannedMicroBatch &mb = plan.microBatches[i];
    std::vector<int> covered(static_cast<size_t>(plan.world), 0);
    for (const PlannedGroup &g : mb.groups) {
      const GroupLayout &l = g.layout;
      std::string where = "micro-batch " + std::to_string(i) +
                          ", group at rank " + std::to_string(g.firstRank);
      if (l.ulysses < 1 || l.tp < 1 || l.cp < 1 || l.pp < 1)
        return where + ": every parallel degree must be at least 1";
      if (g.firstRank < 0 || g.firstRank + l.degree() > plan.world)
        return where + ": ranks [" + std::to_string(g.firstRank) + ", " +
               std::to_string(g.firstRank + l.degree() - 1) +
               "] leave the world of " + std::to_string(plan.world);
      for (int64_t r = g.firstRank; r < g.firstRank + l.degree(); ++r)
        if (covered[static_cast<size_t>(r)]++)
          return where + ": rank " + std::to_string(r) + " is in two groups";
      if (l.tp != first.tp || l.pp != first.pp)
        return where + ": tensor and pipeline degrees must be the same in "
                       "every group of a step (they decide which ranks "
                       "share parameters)";
      if (l.pp > 1 &&
          (i > 0 && (plan.microBatches[0].groups.size() != mb.groups.size())))
        return where + ": a pipelined step keeps the same groups in every "
                       "micro-batch";
      if (model.shape.heads % (l.tp * l.ulysses) != 0)
        return where + ": heads (" + std::to_string(model.shape.heads) +
               ") do not split over tp * ulysses (" +
               std::to_string(l.tp * l.ulysses) + ")";
      if (l.pp > model.shape.layers)
        return where + ": " + std::to_string(l.pp) + " stages for " +
               std::to_string(model.shape.layers) + " layers";
      for (int64_t id : g.seqs)
        if (id < 0 || id >= static_cast<int64_t>(plan.lengths.size()))
          return where + ": sequence " + std::to_string(id) + " has no length";
    }
    for (int64_t r = 0; r < plan.world; ++r)
      if (!covered[static_cast<size_t>(r)])
        return "micro-batch " + std::to_string(i) + ": rank " +
               std::to_string(r) + " is in no group";
    if (first.pp > 1 && i > 0)
      for (size_t k = 0; k < mb.groups.size(); ++k)
        if (mb.groups[k].firstRank !=
                plan.microBatches[0].groups[k].firstRank ||
            !(mb.groups[k].layout == plan.microBatches[0].groups[k].layout))
          return "micro-batch " + std::to_string(i) +
                 ": a pipelined step keeps the same groups in every "
                 "micro-batch";
  }
  if (first.pp > 1 && model.zero == 3)
    return "pipeline stages with ZeRO-3 are not supported: use zero <= 2 "
           "with pp > 1";
  return {};
}

} // namespace plexus::lower
