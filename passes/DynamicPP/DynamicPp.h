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
//  - Inside the grouping DP a candidate pipeline is costed (its
//    checkpointing LP solved) only when a lower bound on its cost leaves it
//    a chance to win; the grouping is the same as the full DP's
//    (DppOptions::pruneByBound switches this off with the K pruning). The
//    bound is delta plus the candidate's mean layer recompute times the
//    most layers any costed candidate inside its class range had to
//    recompute. A pipeline of fewer classes holds, at every memory peak of
//    every stage, a subset of what the wider one holds at one of its peaks:
//    extra lower classes run after its units, extra upper classes before
//    them and only lengthen the windows. So its least recompute is never
//    larger, and when it cannot run, neither can the wider one. The DP
//    tries each step's candidates from the narrowest to the widest and
//    reads a bound when its turn comes, so the wide candidates, which
//    checkpoint the most and are the dearest to solve, are usually skipped
//    once their narrower parts are known (a 13B GitHub-like batch at
//    24 GB: 222 LPs of 56K rows in all, against 336 LPs of 164K rows with
//    delta alone as the bound). With DppModel::backwardWorkingMemory a peak
//    also carries the following backward's working memory, and extra upper
//    classes can move a peak before another backward; then only candidates
//    with the same top class count (extra lower classes leave the backward
//    after each peak as it was).
//  - The search costs candidates with the LP bound and the rounded LP
//    solution, not with branch and bound
//    (ckpt::CheckpointOptions::branchAndBound): the costs it compares are
//    upper bounds within a few percent of the optimum, and branch and
//    bound, which improved them by a layer or two in a hundred, took
//    nearly all of the planning time. The chosen plan's pipelines are
//    then solved with branch and bound from those solutions
//    (DppOptions::refineCheckpointing); a pipeline keeps the result when it
//    recomputes fewer layers without a longer makespan (fewer layers in
//    all can still mean more on one stage's critical backwards, so the
//    makespan is checked, not assumed).
//  - Planning times on two cores, 512-sequence batches (Wikipedia batches
//    3 and 6, four GitHub-like ones), 4 stages of 8-way SP, K = 1..16,
//    before these choices -> after. At 80 GB per GPU memory is ample for
//    7B, 13B and 30B at 96K and 48K: nothing is checkpointed and every
//    batch plans in under 0.1 s either way, the same plan. Where memory is
//    tight the checkpointing solves dominated: 13B and 30B at 40 GB up to
//    9 s -> under 0.2 s; 13B at 24 GB 150-250 s (one over 400 s) ->
//    0.7-0.95 s, 7B 75-170 s -> under 0.7 s; 13B at 16 GB (five
//    pipelines) 56-240 s -> 2-3.9 s. Iteration times moved by -0.5 % to
//    +0.09 %. With DppModel::backwardWorkingMemory (fewer candidates count
//    in the grouping bound, above) 13B plans in 1-2.6 s at 24 GB and
//    1.7-5.1 s at 16 GB.
//  - Pipelines run one after another (the reference does not overlap
//    them), those with the most chunks per sequence first; the iteration
//    time is the sum of their makespans, and the bubble ratio the idle
//    share of all stages over that whole time.
//  - The checkpointing strategy and the chunking are options, so the
//    baselines plan with the same grouping, 1F1B pipelines and K search:
//    no, full or uniform checkpointing; and Seq1F1B-like even-token slices
//    or DAPPLE-like packing of whole sequences (Chunking.h's
//    ChunkingMode). Packed searches K = 1 only and, before planning,
//    rejects a batch whose longest sequence alone does not fit a stage
//    with as many layers checkpointed as the strategy allows.
//  - DppPlan::solveSeconds is the planner's wall-clock time, for reports
//    and benchmarks; no decision reads it.
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
  /// Alg. 1 or a baseline's chunking (Chunking.h); Packed searches K = 1
  /// only, whatever the range says.
  ChunkingMode chunkingMode = ChunkingMode::WorkloadBalanced;
  ChunkingOptions chunking; // WorkloadBalanced only
  ckpt::CheckpointStrategy checkpointing = ckpt::CheckpointStrategy::Adaptive;
  ckpt::CheckpointOptions checkpointOptions;
  /// Skip a K whose lower bound cannot beat the best so far, and candidate
  /// pipelines of the grouping DP whose bound cannot win. Exact.
  bool pruneByBound = true;
  /// Cost the grouping search's candidate pipelines with CBC's branch and
  /// bound (true) or, much faster, with the LP bound and the rounded LP
  /// solution (false).
  bool branchAndBoundInSearch = false;
  /// When the search costs without branch and bound: afterwards, solve the
  /// chosen pipelines' checkpointing ILPs with it, from the search's
  /// solutions (a pipeline keeps the result when it recomputes less without
  /// a longer makespan).
  bool refineCheckpointing = true;
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
  /// EvenTokens: > 0 when this K has the slice length, hence the chunks
  /// and the outcome, of that smaller K (not planned again).
  int64_t sameChunksAs = 0;
};

struct DppPlan {
  int64_t slices = 0;                 // K
  Chunking chunking;                  // mesh, targets and chunks
  std::vector<DppPipeline> pipelines; // in execution order
  double iterationMs = 0;             // sum of the pipelines' makespans
  /// The idle share of all stages over the whole iteration: 1 - (busy time
  /// of every stage in every pipeline, recompute included) / (d_p *
  /// iterationMs).
  double bubbleRatio = 0;
  double recomputeMs = 0;         // sum of the pipelines' T_ckpt (Eq. 17)
  double groupingCostMs = 0;      // sum of the pipelines' delta + T_ckpt
  std::vector<SliceTrial> trials; // planDynamicPipeline: every K looked at
  /// Wall-clock seconds the planner took. Reported only: nothing is decided
  /// by it, and samePlan ignores it.
  double solveSeconds = 0;
};

/// What reports and benchmarks show of a plan.
struct DppPlanStats {
  /// Per stage, the most one GPU holds: model states plus the largest
  /// activation window of any pipeline (CheckpointPlan::peakMB).
  std::vector<double> peakMemoryMB;
  /// Per stage, the time its backwards spend recomputing, over all
  /// pipelines, and the sum over stages.
  std::vector<double> recomputeMsPerStage;
  double recomputeMs = 0;
  /// recomputeMs / (d_p * iterationMs): the share of all stages' time
  /// spent recomputing. With bubbleRatio and the compute share it sums
  /// to one.
  double recomputeShare = 0;
  double bubbleRatio = 0; // DppPlan::bubbleRatio
  int64_t packedChunks = 0, splitChunks = 0, hybridChunks = 0;
  int64_t pipelines = 0;
  double solveSeconds = 0; // DppPlan::solveSeconds
};

/// The statistics of a plan (sizes it does not have count as empty).
DppPlanStats dppPlanStats(const DppModel &model, const DppPlan &plan);

/// One pipeline of the given units (in the order given): its 1F1B orders,
/// checkpointing with options.checkpointing, timing and grouping cost.
/// Errors: the units' chunks do not fit even as the strategy allows (the
/// message names the stage and chunks), or a malformed model or chunk.
Result<DppPipeline> planPipeline(const DppModel &model,
                                 const std::vector<Chunk> &chunks,
                                 const std::vector<ChunkUnit> &units,
                                 const DppOptions &options = {});

/// The plan for one slice count K: chunking (options.chunkingMode),
/// grouping, checkpointing, evaluation. Errors: chunking errors, or no
/// grouping fits; for Packed, also as planDynamicPipeline.
Result<DppPlan> planForSlices(const DppModel &model,
                              const std::vector<int64_t> &lengths,
                              int64_t slices, const DppOptions &options = {});

/// The best plan over the K range. Errors: bad options, and when no K
/// fits, why the largest K tried did not. Packed: when the longest
/// sequence alone does not fit a stage with as many layers checkpointed as
/// the strategy allows, the message names the sequence, its tokens, the
/// stage, and the MB needed and free.
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
