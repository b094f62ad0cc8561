//===- OneFOneB.h - The one 1F1B order generator ----------------*- C++ -*-===//
//
// The order in which one pipeline stage runs its forward and backward
// passes under 1F1B, for every pipelined step Plexus plans: a static
// pipeline-parallel step (each micro-batch one position, N_split = 1) and a
// dynamic pipeline of chunks (DPP, Concertina: a split sequence's chunks go
// backward in reverse, so a stage holds up to N_split more before its first
// backward). The DPP planner (passes/DynamicPP/PipelineSchedule.h), the
// chunk checkpointing model (passes/Checkpoint) and both lowerings
// (passes/Lower) take their orders from here. Plain C++, errors as values.
//
// Encoding: k >= 0 is the forward of position k, -(k + 1) its backward.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_STEPMODEL_ONEFONEB_H
#define PLEXUS_PASSES_STEPMODEL_ONEFONEB_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::step {

/// Eq. 7 of Concertina: the chunks stage `stage` (0-based) of `stages`
/// holds at once in the steady phase of a 1F1B pipeline whose longest
/// sequence has `nSplit` chunks: d_p - p + N_split with the reference's
/// 1-based p, i.e. stages - stage - 1 + nSplit (N_split = 1 is plain 1F1B:
/// the first stage holds p micro-batches). The checkpointing model sizes
/// its memory windows with it.
int64_t chunkWindow(int64_t stages, int64_t stage, int64_t nSplit);

/// Stage `stage`'s 1F1B order over positions 0..n-1 (n = backward.size()),
/// whose backwards run in the order `backward` lists them: warm-up
/// min(n, chunkWindow - 1) forwards, then one forward (while any is left)
/// and one backward at a time. Writes `ops` and returns "" on success;
/// otherwise why not: stages < 1, a stage out of range, no positions or
/// N_split < 1, a backward position out of range or one that would run
/// before its forward on this stage (a unit longer than N_split).
std::string oneFOneBStageOrder(int64_t stages, int64_t stage,
                               const std::vector<int64_t> &backward,
                               int64_t nSplit, std::vector<int64_t> &ops);

/// Plain 1F1B over `m` micro-batches (backward in forward order, N_split
/// 1): warm-up min(p - s - 1, m) forwards, then one forward / one backward,
/// then the remaining backwards. Empty for m = 0 or a stage out of range.
std::vector<int64_t> oneFOneBOrder(int64_t stages, int64_t stage, int64_t m);

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_ONEFONEB_H
