//===- PipelineSchedule.h - DPP's 1F1B pipelines of chunks ------*- C++ -*-===//
//
// The chunk scheduler's schedule side (reference flexsp_dpp.md section
// 2.5): the units a pipeline orders (a split sequence's chunks, or one
// packed chunk), longest first; one 1F1B order per stage in which a split
// sequence's slices go forward in order and backward in reverse; a list-
// scheduling evaluation of those orders with per-chunk, per-stage times
// (makespan, per-stage busy time, bubble ratio); and the grouping dynamic
// programme of Eq. 14 that decides which sequences share a 1F1B pipeline.
// Plain C++, deterministic, errors as values.
//
// The 1F1B order of stage p (0-based) of d_p: with N_split the chunk count
// of the pipeline's longest unit, the stage holds at most W_p = d_p - p - 1
// + N_split chunks (Eq. 7), so it runs min(n, W_p - 1) forwards, then a
// forward and a backward in turn, then the remaining backwards. Backwards
// come in the pipeline's backward order (each unit's chunks reversed); for
// N_split = 1 this is plain 1F1B. The order itself is the one generator of
// passes/StepModel/OneFOneB.h, which oneFOneBStageOrder wraps.
//
// Choices where the reference is silent:
//  - "Longest first": more chunks first, then more tokens, then the lower
//    sequence id; a packed chunk is a one-chunk unit.
//  - Grouping. Eq. 14's dp[i] covers "all sequences with at most i
//    chunks", so a pipeline takes a contiguous range of chunk-count
//    classes (every unit with that many chunks); a class is never split
//    across pipelines. Ties go to the smallest j in each dp step, so the
//    pipeline of the most-chunked classes is as wide as possible.
//  - The evaluation ignores stage-to-stage transfers (the reference's cost
//    model has none for PP) and takes operations in each stage's order as
//    soon as the stage is free and the input is ready.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_DYNAMICPP_PIPELINESCHEDULE_H
#define PLEXUS_PASSES_DYNAMICPP_PIPELINESCHEDULE_H

#include "passes/DynamicPP/Chunk.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace plexus::dpp {

/// What a pipeline orders as one: a split sequence's chunks in slice order
/// (its tail's chunk last), or one packed chunk.
struct ChunkUnit {
  std::vector<int64_t> chunks; // indices into the chunk list
  int64_t tokens = 0;          // every token of those chunks
  int64_t sequence = 0;        // the split sequence, or a packed chunk's first
};

/// The units of a chunk list, longest first (see the file comment).
/// Errors: a split sequence whose chunks are missing a slice or have it
/// twice, or a malformed chunk.
Result<std::vector<ChunkUnit>> chunkUnits(const std::vector<Chunk> &chunks);

/// One pipeline's chunk orders. Positions 0..n-1 are the forward order.
struct PipelineOrder {
  std::vector<int64_t> chunks;   // chunk indices in forward order
  std::vector<int64_t> backward; // forward positions in backward order
  int64_t nSplit = 0;            // chunks of the longest unit
};

/// The units' chunks one after another forward; backward the same units
/// in the same order, each unit's chunks reversed.
PipelineOrder pipelineOrder(const std::vector<ChunkUnit> &units);

/// Stage `stage`'s 1F1B order over the pipeline's positions: k is the
/// forward of position k, -(k + 1) its backward. Errors: stages < 1, stage
/// out of range, an order whose backward precedes its forward on the stage
/// (a unit longer than nSplit).
Result<std::vector<int64_t>> oneFOneBStageOrder(int64_t stages, int64_t stage,
                                                const PipelineOrder &order);

/// oneFOneBStageOrder for every stage.
Result<std::vector<std::vector<int64_t>>>
oneFOneBSchedule(int64_t stages, const PipelineOrder &order);

/// A list-scheduled pipeline.
struct PipelineTiming {
  double makespanMs = 0;
  std::vector<double> busyMs; // per stage
  /// 1 - sum busy / (stages * makespan): the idle share of the pipeline.
  double bubbleRatio = 0;
  std::vector<std::vector<double>> forwardStartMs;  // [stage][position]
  std::vector<std::vector<double>> backwardStartMs; // [stage][position]
};

/// Evaluates stage orders (as oneFOneBStageOrder writes them) with the
/// forward and backward time of every position on every stage ([stage]
/// [position]). A forward waits for the previous stage's forward of the
/// same position; a backward for the next stage's backward of it (on the
/// last stage, for its own forward). Errors: mismatched sizes, negative
/// times, or orders that wait on each other forever (the message names
/// the stuck stages).
Result<PipelineTiming>
evaluatePipeline(const std::vector<std::vector<int64_t>> &stageOrders,
                 const std::vector<std::vector<double>> &forwardMs,
                 const std::vector<std::vector<double>> &backwardMs);

/// A grouping of chunk-count classes into pipelines.
struct Grouping {
  std::vector<std::pair<size_t, size_t>> ranges; // [first, last), ascending
  double costMs = 0;
};

/// Eq. 14 over `classes` chunk-count classes (ascending chunk count):
/// dp[i] = min_{j < i} dp[j] + pipelineCostMs(j, i), where
/// pipelineCostMs(j, i) is delta + T_ckpt of one pipeline of classes
/// [j, i) (+infinity when it cannot run). Candidates are tried from the
/// narrowest (j = i - 1) to the widest. With `lowerBoundMs` (never above
/// pipelineCostMs; +infinity only where the cost is), a candidate's bound
/// is read when its turn comes - so it may use what the narrower
/// candidates' costing learnt - and a candidate that cannot win is not
/// costed; the grouping is the same.
/// Errors: no classes, or no grouping of finite cost.
Result<Grouping> groupChunkCountClasses(
    size_t classes, const std::function<double(size_t, size_t)> &pipelineCostMs,
    const std::function<double(size_t, size_t)> &lowerBoundMs = nullptr);

} // namespace plexus::dpp

#endif // PLEXUS_PASSES_DYNAMICPP_PIPELINESCHEDULE_H
