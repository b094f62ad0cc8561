//===- StepBound.h - A lower bound on a train job's step time ---*- C++ -*-===//
//
// How much faster could any plan of a job be? The bound has two named
// terms, each a floor that no layout the job's strategy allows can go
// below, and the step is at least the larger of them (communication can
// hide behind compute, so the two do not add):
//  - compute: the batch's training FLOPs (forward and backward of every
//    layer, no recompute) at the chip's achieved rate, spread perfectly
//    over every chip of the job: the GEMMs at FLOPs / (the dtype's peak x
//    gemm_efficiency), which no tile, wave or HBM traffic beats
//    (trainSecondsFloorPolynomial), the attention cores and memory-bound
//    kernels as every plan times them;
//  - gradient traffic: the data-parallel synchronisation that every
//    allowed layout needs, the cheapest of them: each stage's share of the
//    parameters (total / (tp * pp)) reduced over the world / (tp * pp)
//    ranks that hold the same share (and gathered again), timed by the
//    same collective model the planner and the simulator use, on the
//    cheaper of the two placements such a group takes (strided across the
//    tp x pp blocks, or a contiguous block), so that no placement of it
//    is cheaper than the bound assumes.
// Plain C++; docs/baselines.md has the derivation.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_STEPBOUND_H
#define PLEXUS_PASSES_TRAIN_STEPBOUND_H

#include "passes/Baselines/StepPlanners.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::train {

/// The layouts a strategy allows, as the bound needs them: a fixed tensor
/// degree, and the pipeline depths it may use (every divisor of the chips
/// up to the layers when the planner chooses).
struct BoundChoices {
  int64_t tp = 1;
  std::vector<int64_t> pipelineDepths{1};
};

struct StepBound {
  double seconds = 0;        ///< max(computeSeconds, gradientSeconds)
  double flops = 0;          ///< training FLOPs of the batch, no recompute
  double computeSeconds = 0; ///< seconds of those FLOPs (chip rates) / chips
  double gradientSeconds = 0;
  int64_t gradientDepth = 1; ///< the pipeline depth of the cheapest traffic
  std::string error;
  bool ok() const { return error.empty(); }
};

StepBound stepLowerBound(const baselines::TrainSetup &setup,
                         const std::vector<int64_t> &lengths,
                         const BoundChoices &choices,
                         const prog::CommTimeFn &comm);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_STEPBOUND_H
