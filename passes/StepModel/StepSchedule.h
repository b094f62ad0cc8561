//===- StepSchedule.h - The one step model the lowering lowers --*- C++ -*-===//
//
// A training step as Plexus runs it, whichever planner made it: phases that
// run one after another; in each phase, groups of ranks side by side, each
// a 1F1B pipeline of chunks over its layout's stages; each chunk slices of
// sequences. A static SP / TP / CP step (passes/StepModel/StepPlan.h) is the
// depth-1 case: one phase per micro-batch, a group one chunk of whole
// sequences on one stage (a 1F1B order of one forward and one backward). A
// static pipeline-parallel step is one phase whose groups run their
// micro-batches as chunks through pp stages. A step planned by dynamic
// pipeline parallelism (PipelinePlan.h) is one phase per pipeline, each one
// group over every rank (Ulysses d_s, pp d_p) whose chunks may be slices of
// split sequences, with a backward order and per-stage checkpointing.
//
// The lowering (passes/Lower/StepLowering.h, lowerSchedule) turns a
// schedule into per-rank programs with one emitter, one stage-order rule
// (step::oneFOneBStageOrder) and one per-layer cost (chunkLayerCost in
// LayerWork.h). Plain C++, header plus conversions (StepSchedule.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_STEPMODEL_STEPSCHEDULE_H
#define PLEXUS_PASSES_STEPMODEL_STEPSCHEDULE_H

#include "passes/StepModel/PipelinePlan.h"
#include "passes/StepModel/StepPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::step {

/// One chunk of a group's pipeline: the slices every rank of the group
/// processes together (no slices: the group is idle in this phase but
/// takes part in ZeRO's collectives).
struct ScheduledChunk {
  std::vector<ChunkSlice> slices;
  /// Names the chunk in op labels ("mb3", "p0 c3") and numbers its
  /// stage-to-stage messages (tags 2 * id, 2 * id + 1; interleaved, per
  /// virtual link, StepLowering.h): unique among the chunks a rank runs in
  /// the step.
  std::string name;
  int64_t id = 0;
};

/// One group: `layout.degree()` ranks from `firstRank` running a 1F1B
/// pipeline of its chunks over layout.pp stages (rank layout as
/// GroupLayout's).
struct ScheduledGroup {
  GroupLayout layout;
  int64_t firstRank = 0;
  std::vector<ScheduledChunk> chunks; ///< forward order (positions 0..n-1)
  /// Forward positions in backward order (a permutation; each split
  /// sequence's chunks reversed).
  std::vector<int64_t> backward;
  /// Chunks of the longest sequence (the warm-up of oneFOneBStageOrder).
  int64_t nSplit = 1;
  /// remat[stage][position]: the stage's first layers checkpointed for the
  /// chunk (they keep their input and recompute the forward before the
  /// backward); empty = none.
  std::vector<std::vector<int64_t>> remat;
};

/// Groups side by side: disjoint, together every rank.
struct SchedulePhase {
  std::vector<ScheduledGroup> groups;
};

/// Where the attention core's recomputation is charged.
enum class CoreRecompute {
  /// A Recompute op before the backward (Megatron-LM's selective
  /// recomputation; a checkpointed layer's recomputed forward includes it):
  /// the static planners' accounting.
  BeforeBackward,
  /// Inside the backward kernel, every layer, checkpointed or not (flash
  /// attention never keeps the scores): the DPP planner's accounting.
  InBackward,
};

struct StepSchedule {
  int64_t world = 0;
  std::vector<int64_t> lengths;      ///< tokens of each sequence id
  std::vector<SchedulePhase> phases; ///< run one after another
  /// What a layer that is not checkpointed keeps (None or Selective; the
  /// model's attention kernel decides None's scores).
  cost::Checkpointing activations = cost::Checkpointing::Selective;
  /// `activations` holds for the model's first this many layers, which
  /// `remat` also bounds; the others keep `activationsPast`. 0: every
  /// layer (TrainModel::checkpointLayers, checkpointingPast).
  int64_t activationLayers = 0;
  cost::Checkpointing activationsPast = cost::Checkpointing::None;
  CoreRecompute core = CoreRecompute::BeforeBackward;
  /// Compute ops list their slices' indices among their sequences' slices
  /// (plx-verify-rt's slice-order rule); static steps, whose sequences are
  /// whole, leave them out.
  bool sliceIndices = false;
};

/// The schedule of a static step (checked by the lowering's checkPlan
/// first): without a pipeline, one phase per micro-batch and one chunk per
/// group ("mb<i>", id i; an idle group an empty chunk); with pp > 1, one
/// phase whose groups (micro-batch 0's) run the micro-batches in which they
/// have work as chunks. Full checkpointing checkpoints every layer of every
/// chunk (of the model's first checkpointLayers when it sets them);
/// otherwise the model's mode is what those layers keep.
StepSchedule scheduleOf(const StepPlan &plan, const TrainModel &model);

/// The schedule of a dynamic-pipeline step (checked by
/// checkPipelinedStepPlan first): one phase per pipeline, one group of
/// layout {ulysses = spDegree, pp = stages} over every rank, chunks "p<i>
/// c<k>" numbered across the step, the plan's backward orders, N_split and
/// remat; selective activations, the core recomputed in the backward, slice
/// indices on.
StepSchedule scheduleOf(const PipelinedStepPlan &plan);

/// index[phase][group][position][j]: where slice j of that chunk sits among
/// its sequence's slices in the step, in phase, group and forward order (0
/// for a whole sequence).
std::vector<std::vector<std::vector<std::vector<int64_t>>>>
sliceIndices(const StepSchedule &schedule);

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_STEPSCHEDULE_H
