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
#include <functional>
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

/// One pass of an interleaved 1F1B stage order: the forward or backward of
/// micro-batch `position` through model chunk `chunk` of the stage, which
/// is virtual stage chunk * stages + stage of the pipeline's stages *
/// chunks.
struct VirtualPass {
  int64_t chunk = 0;
  int64_t position = 0;
  bool backward = false;
  bool operator==(const VirtualPass &o) const {
    return chunk == o.chunk && position == o.position && backward == o.backward;
  }
};

/// Stage `stage`'s order under Megatron-LM's interleaved 1F1B (Narayanan
/// et al., SC'21, section 2.2; Megatron-core's
/// forward_backward_pipelining_with_interleaving): each of `stages` stages
/// holds `chunks` model chunks, and micro-batches run in groups of
/// `stages` through one chunk after another. The k-th forward runs chunk
/// (k mod (stages * chunks)) / stages of micro-batch
/// (k / (stages * chunks)) * stages + k mod stages; backwards take the
/// chunks in reverse. Warm-up: (stages - stage - 1) * 2 + (chunks - 1) *
/// stages forwards (every forward when m = stages, as Megatron-core does),
/// then one forward and one backward at a time. Writes `ops` and returns ""
/// on success; otherwise why not: stages < 2, chunks < 1, a stage out of
/// range, or m not a positive multiple of stages (Megatron-core's rule for
/// this schedule). chunks = 1 keeps Megatron-core's warm-up of 2 * (stages -
/// stage - 1) forwards, twice plain 1F1B's (oneFOneBOrder).
std::string interleavedStageOrder(int64_t stages, int64_t stage, int64_t chunks,
                                  int64_t m, std::vector<VirtualPass> &ops);

/// When each pass of a pipeline of virtual stages runs, given every
/// stage's order (interleavedStageOrder's, or a plain 1F1B order as chunk
/// 0) and the seconds of a forward and a backward of each virtual stage:
/// a stage runs its passes in order, each as soon as the one before it on
/// the stage has ended and its input is there (the forward of the virtual
/// stage before, the backward of the one after, each `transfer` seconds
/// after it ends: its message's time, none when not given).
/// startRank[s][i] and endRank[s][i] number pass i of stage s's start and
/// end in one order of every start and end that sorts them by time and
/// never puts an event before one it depends on (ties in the order the
/// passes became ready); `makespan` is the last end. Returns "" or why
/// the orders cannot run (a pass whose input never comes, a pass twice).
struct PassTiming {
  std::vector<std::vector<double>> start, end;
  std::vector<std::vector<int64_t>> startRank, endRank;
  double makespan = 0;
};
std::string
timePasses(int64_t stages, int64_t chunks, int64_t m,
           const std::vector<std::vector<VirtualPass>> &orders,
           const std::function<double(int64_t virtualStage, int64_t position,
                                      bool backward)> &seconds,
           PassTiming &out,
           const std::function<double(int64_t virtualStage, int64_t position,
                                      bool backward)> &transfer = {});

/// Plain 1F1B over `m` micro-batches (backward in forward order, N_split
/// 1): warm-up min(p - s - 1, m) forwards, then one forward / one backward,
/// then the remaining backwards. Empty for m = 0 or a stage out of range.
std::vector<int64_t> oneFOneBOrder(int64_t stages, int64_t stage, int64_t m);

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_ONEFONEB_H
