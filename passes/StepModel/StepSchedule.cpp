//===- StepSchedule.cpp - Plans as schedules of pipelines of chunks -------===//
#include "passes/StepModel/StepSchedule.h"

#include "passes/StepModel/LayerWork.h"

#include <algorithm>
#include <map>

namespace plexus::step {

namespace {

ScheduledChunk wholeSequences(const StepPlan &plan,
                              const std::vector<int64_t> &seqs, int64_t mb) {
  ScheduledChunk chunk;
  for (int64_t id : seqs)
    chunk.slices.push_back({id, 0, plan.lengths[static_cast<size_t>(id)]});
  chunk.name = "mb" + std::to_string(mb);
  chunk.id = mb;
  return chunk;
}

/// Positions 0..n-1 in forward order: plain 1F1B.
std::vector<int64_t> identity(size_t n) {
  std::vector<int64_t> order;
  for (size_t k = 0; k < n; ++k)
    order.push_back(static_cast<int64_t>(k));
  return order;
}

/// Full checkpointing: every layer of every stage, for every chunk; with
/// TrainModel::checkpointLayers, the stage's layers among the model's
/// first that many.
std::vector<std::vector<int64_t>> everyLayer(const TrainModel &model,
                                             int64_t stages, size_t chunks) {
  std::vector<std::vector<int64_t>> remat;
  for (int64_t s = 0; s < stages; ++s) {
    auto [a, b] = stageLayers(model.shape.layers, stages, s);
    const int64_t last =
        model.checkpointLayers > 0 ? std::min(b, model.checkpointLayers) : b;
    remat.emplace_back(chunks, std::max<int64_t>(0, last - a));
  }
  return remat;
}

} // namespace

StepSchedule scheduleOf(const StepPlan &plan, const TrainModel &model) {
  StepSchedule out;
  out.world = plan.world;
  out.lengths = plan.lengths;
  const bool full = model.checkpointing == cost::Checkpointing::Full;
  out.activations = full ? cost::Checkpointing::Selective : model.checkpointing;
  out.activationLayers = model.checkpointLayers;
  out.activationsPast = model.checkpointingPast();
  out.core = CoreRecompute::BeforeBackward;
  out.sliceIndices = false;
  if (plan.microBatches.empty())
    return out;
  auto groupOf = [&](const PlannedGroup &g,
                     std::vector<ScheduledChunk> chunks) {
    ScheduledGroup group;
    group.layout = g.layout;
    group.firstRank = g.firstRank;
    group.backward = identity(chunks.size());
    group.chunks = std::move(chunks);
    if (full)
      group.remat = everyLayer(model, g.layout.pp, group.chunks.size());
    return group;
  };
  const PlannedMicroBatch &first = plan.microBatches.front();
  const bool pipelined = !first.groups.empty() && first.groups[0].layout.pp > 1;
  if (!pipelined) {
    for (size_t i = 0; i < plan.microBatches.size(); ++i) {
      SchedulePhase phase;
      for (const PlannedGroup &g : plan.microBatches[i].groups)
        phase.groups.push_back(
            groupOf(g, {wholeSequences(plan, g.seqs, static_cast<int64_t>(i))}));
      out.phases.push_back(std::move(phase));
    }
    return out;
  }
  // 1F1B over the micro-batches in which each group has work (every
  // micro-batch has the same groups: checkPlan).
  SchedulePhase phase;
  for (size_t k = 0; k < first.groups.size(); ++k) {
    std::vector<ScheduledChunk> chunks;
    for (size_t i = 0; i < plan.microBatches.size(); ++i) {
      const PlannedGroup &g = plan.microBatches[i].groups[k];
      if (!g.seqs.empty())
        chunks.push_back(wholeSequences(plan, g.seqs, static_cast<int64_t>(i)));
    }
    phase.groups.push_back(groupOf(first.groups[k], std::move(chunks)));
  }
  out.phases.push_back(std::move(phase));
  return out;
}

StepSchedule scheduleOf(const PipelinedStepPlan &plan) {
  StepSchedule out;
  out.world = plan.world;
  out.lengths = plan.lengths;
  out.activations = cost::Checkpointing::Selective;
  out.core = CoreRecompute::InBackward;
  out.sliceIndices = true;
  int64_t id = 0;
  for (size_t i = 0; i < plan.pipelines.size(); ++i) {
    const PlannedPipeline &p = plan.pipelines[i];
    ScheduledGroup group;
    group.layout = GroupLayout{/*ulysses=*/plan.spDegree, /*tp=*/1, /*cp=*/1,
                               /*pp=*/plan.stages};
    group.firstRank = 0;
    for (size_t k = 0; k < p.chunks.size(); ++k) {
      ScheduledChunk chunk;
      chunk.slices = p.chunks[k].slices;
      chunk.name = "p" + std::to_string(i) + " c" + std::to_string(k);
      chunk.id = id++;
      group.chunks.push_back(std::move(chunk));
    }
    group.backward = p.backward;
    group.nSplit = p.nSplit;
    group.remat = p.remat;
    SchedulePhase phase;
    phase.groups.push_back(std::move(group));
    out.phases.push_back(std::move(phase));
  }
  return out;
}

std::vector<std::vector<std::vector<std::vector<int64_t>>>>
sliceIndices(const StepSchedule &schedule) {
  std::map<int64_t, int64_t> seen;
  std::vector<std::vector<std::vector<std::vector<int64_t>>>> index;
  for (const SchedulePhase &phase : schedule.phases) {
    index.emplace_back();
    for (const ScheduledGroup &g : phase.groups) {
      index.back().emplace_back();
      for (const ScheduledChunk &c : g.chunks) {
        index.back().back().emplace_back();
        for (const ChunkSlice &s : c.slices)
          index.back().back().back().push_back(seen[s.sequence]++);
      }
    }
  }
  return index;
}

} // namespace plexus::step
