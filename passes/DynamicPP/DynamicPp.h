//===- DynamicPp.h - Dynamic pipeline parallelism planner -------*- C++ -*-===//
//
// The planner of dynamic pipeline parallelism (DPP, Concertina /
// InfiniPipe; reference flexsp_dpp.md sections 2.4-2.6 and 3.1): for one
// global batch of sequence lengths on d_p stages of d_s-way Ulysses SP,
// choose the chunks (packed, split and hybrid, Chunking.h), the 1F1B
// pipelines they run in (longest first, PipelineSchedule.h) and how many
// layers every stage checkpoints for every chunk (passes/Checkpoint), so
// that the modelled iteration time is as small as the search finds. For
// each slice count K of the longest sequence: chunk (Alg. 1); group the
// units by chunk count into pipelines with the dynamic programme of Eq. 14,
// each candidate pipeline costed as delta + T_ckpt (Eq. 13) with its
// checkpointing ILP (Eqs. 15-20); evaluate the chosen pipelines by list
// scheduling with the recompute on the backwards. The best K wins. Plain
// C++, deterministic, errors as values.
//
// Choices where the reference is silent:
//  - delta = (d_p - 1) times the mean over the pipeline's chunks of one
//    stage's forward + backward (Eq. 13's avg(T_tot)).
//  - F^ of Eq. 17 is the mean over the pipeline's chunks of one layer's
//    forward on one stage.
//  - K runs over [minSlices, maxSlices] (1 to 16 by default; K above the
//    longest sequence's length is skipped). The outer criterion, which the
//    reference does not state, is the evaluated iteration time (sum of the
//    pipelines' list-scheduled makespans, recompute included); ties go to
//    the smaller K. A K whose lower bound (the last stage runs every
//    chunk's forward and backward, after one forward has crossed the
//    d_p - 1 stages before it and before one backward crosses them back)
//    is no better than the best time so far is not planned
//    (DppOptions::pruneByBound; exact: the plan is the same without it).
//  - Inside the grouping DP a candidate pipeline is costed (its ILP
//    solved) only when its delta, a lower bound on its cost, leaves it a
//    chance to win; the grouping is the same as the full DP's.
//  - Pipelines run one after another (the reference does not overlap
//    them), those with the most chunks per sequence first; the iteration
//    time is the sum of their makespans.
//  - The checkpointing strategy is an option, so the baselines (none, full,
//    uniform) plan with the same chunking, grouping and K search.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_DYNAMICPP_DYNAMICPP_H
#define PLEXUS_PASSES_DYNAMICPP_DYNAMICPP_H

#include "passes/Checkpoint/ChunkCheckpointing.h"
#include "passes/DynamicPP/Chunking.h"
#include "passes/DynamicPP/DppCostModel.h"
#include "passes/DynamicPP/PipelineSchedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::dpp {

struct DppOptions {
  int64_t minSlices = 1; // the K range searched: minSlices..maxSlices
  int64_t maxSlices = 16;
  ChunkingOptions chunking;
  ckpt::CheckpointStrategy checkpointing = ckpt::CheckpointStrategy::Adaptive;
  ckpt::CheckpointOptions checkpointOptions;
  /// Skip a K whose lower bound cannot beat the best so far. Exact.
  bool pruneByBound = true;
};

/// One 1F1B pipeline of a plan.
struct DppPipeline {
  PipelineOrder order; // chunk indices, backward order, N_split
  std::vector<std::vector<int64_t>> stageOrders; // 1F1B per stage
  ckpt::CheckpointPlan checkpointing;            // per stage and position
  PipelineTiming timing;                         // with the recompute
  int64_t minChunks = 0, maxChunks = 0; // its chunk-count classes' range
  double deltaMs = 0;                   // warm-up + cool-down (Eq. 13)
  double groupingCostMs = 0;            // delta + T_ckpt
};

/// One slice count the search looked at.
struct SliceTrial {
  int64_t slices = 0;
  bool feasible = false;
  bool pruned = false;     // skipped by its lower bound
  double lowerBoundMs = 0; // no plan of this K's chunks is faster
  double iterationMs = 0;  // when feasible
  int64_t pipelines = 0;   // when feasible
  std::string reason;      // when neither feasible nor pruned
};

struct DppPlan {
  int64_t slices = 0;                 // K
  Chunking chunking;                  // mesh, targets and chunks
  std::vector<DppPipeline> pipelines; // in execution order
  double iterationMs = 0;             // sum of the pipelines' makespans
  double bubbleRatio = 0;             // idle share of stages * iteration time
  double recomputeMs = 0;             // sum of the pipelines' T_ckpt (Eq. 17)
  double groupingCostMs = 0;          // dp of Eq. 14 at its end
  std::vector<SliceTrial> trials;     // planDynamicPipeline: every K looked at
};

/// One pipeline of the given units (in the order given): its 1F1B orders,
/// checkpointing with options.checkpointing, timing and grouping cost.
/// Errors: the units' chunks do not fit even as the strategy allows (the
/// message names the stage and chunks), or a malformed model or chunk.
Result<DppPipeline> planPipeline(const DppModel &model,
                                 const std::vector<Chunk> &chunks,
                                 const std::vector<ChunkUnit> &units,
                                 const DppOptions &options = {});

/// The plan for one slice count K: chunking, grouping, checkpointing,
/// evaluation. Errors: chunking errors, or no grouping fits.
Result<DppPlan> planForSlices(const DppModel &model,
                              const std::vector<int64_t> &lengths,
                              int64_t slices, const DppOptions &options = {});

/// The best plan over the K range. Errors: bad options, and when no K
/// fits, why the largest K tried did not.
Result<DppPlan> planDynamicPipeline(const DppModel &model,
                                    const std::vector<int64_t> &lengths,
                                    const DppOptions &options = {});

/// Empty when `plan` is consistent with the batch and the model: a valid
/// chunking (chunkingViolation), every chunk in exactly one pipeline, each
/// pipeline's units longest first with slices forward in order and
/// backward in reverse, its stage orders the 1F1B orders, its
/// checkpointing valid for its memory (every stage within memory), and the
/// times adding up. Else the first violation.
std::string dppPlanViolation(const DppModel &model, const DppPlan &plan,
                             const std::vector<int64_t> &lengths);

/// Whether two plans choose the same: K, mesh, chunks, pipelines, stage
/// orders, checkpointing and times (the trials are not compared).
bool samePlan(const DppPlan &a, const DppPlan &b);

} // namespace plexus::dpp

#endif // PLEXUS_PASSES_DYNAMICPP_DYNAMICPP_H
