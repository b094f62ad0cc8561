//===- PipelinePlan.h - A step planned as 1F1B pipelines of chunks -*- C++ -*-//
//
// The plain form of a training step planned by dynamic pipeline parallelism
// (passes/DynamicPP): d_s-way Ulysses SP with ZeRO-3 inside each of d_p
// pipeline stages, and the step's sequences cut into chunks that run
// through one or more 1F1B pipelines, one pipeline after another. It is
// what `plan.pipeline` / `plan.chunk` / `plan.remat` hold (TrainJob.h
// converts) and what the lowering turns into per-rank programs
// (StepLowering.h, as a StepSchedule). Plain C++, header only.
//
// Ranks: world = d_s * d_p; rank r is Ulysses rank r mod d_s of stage
// r / d_s (a stage is one node's worth of consecutive ranks).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_STEPMODEL_PIPELINEPLAN_H
#define PLEXUS_PASSES_STEPMODEL_PIPELINEPLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::step {

/// Tokens [begin, end) of sequence `sequence`; the `begin` tokens of the
/// same sequence before it are its context (their K and V are read by its
/// attention).
struct ChunkSlice {
  int64_t sequence = 0;
  int64_t begin = 0, end = 0;
  int64_t tokens() const { return end - begin; }
  bool operator==(const ChunkSlice &o) const {
    return sequence == o.sequence && begin == o.begin && end == o.end;
  }
};

/// One chunk (DPP's micro-batch).
///  - "packed": whole sequences (every slice begins at 0 and ends at its
///    sequence's length);
///  - "split": one slice of a longer sequence, not the whole of it;
///  - "hybrid": a split sequence's last slice (begin > 0, end = length)
///    first, then whole sequences.
struct PlannedChunk {
  std::string kind = "packed";
  std::vector<ChunkSlice> slices;
  double seconds = 0;   ///< modelled forward + backward on one stage
  int64_t memBytes = 0; ///< modelled activation bytes per rank, no remat
  int64_t tokens() const {
    int64_t t = 0;
    for (const ChunkSlice &s : slices)
      t += s.tokens();
    return t;
  }
};

/// One 1F1B pipeline: its chunks in forward order, the backward order and
/// how many layers each stage recomputes for each chunk.
struct PlannedPipeline {
  std::vector<PlannedChunk> chunks; ///< forward order (positions 0..n-1)
  /// Forward positions in backward order: each split sequence's chunks
  /// reversed (a permutation of 0..n-1).
  std::vector<int64_t> backward;
  /// Chunks of the pipeline's longest sequence (N_split): stage p runs
  /// min(n, stages - p - 2 + nSplit) forwards before its first backward
  /// (passes/DynamicPP/PipelineSchedule.h, oneFOneBStageOrder).
  int64_t nSplit = 1;
  /// remat[stage][position]: layers of the stage checkpointed for that
  /// chunk (recomputed before its backward); empty = none anywhere.
  std::vector<std::vector<int64_t>> remat;
  double seconds = 0;     ///< modelled makespan, recompute included
  double bubbleRatio = 0; ///< modelled idle share of the stages
};

struct PipelinedStepPlan {
  std::string strategy;         ///< e.g. "dpp", "packed-1f1b"
  int64_t world = 0;            ///< spDegree * stages
  int64_t spDegree = 1;         ///< d_s: Ulysses SP (and ZeRO-3) per stage
  int64_t stages = 1;           ///< d_p
  std::vector<int64_t> lengths; ///< tokens of each sequence id
  std::vector<PlannedPipeline> pipelines; ///< run one after another
  double seconds = 0;                     ///< modelled step time
  int64_t peakMemBytes = 0;               ///< modelled, busiest rank
  double bubbleRatio = 0;                 ///< modelled, whole step
};

} // namespace plexus::step

#endif // PLEXUS_PASSES_STEPMODEL_PIPELINEPLAN_H
