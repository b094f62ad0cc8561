//===- FlexSpModel.h - FlexSP's cost model derived from a spec --*- C++ -*-===//
//
// The adaptive SP planner (passes/AdaptiveSP) plans with FlexSP's cost
// model: per-sequence compute alpha1 s^2 + alpha2 s (ms, one GPU at SP=1),
// beta1 per group and micro-batch, all-to-all bandwidth per SP degree and
// activation memory per token. FlexSP profiles these on its cluster; Plexus
// derives them from the spec with the same cost model the lowering and
// simulator use, so that the planner's choices and the prediction agree:
// FLOPs from passes/Cost/TransformerCost.h at the chip's achieved rate,
// bandwidth from the fabric's all-to-all model on the job's placed chips,
// beta1 as the exposed ZeRO-3 gathers of a micro-batch, memory from
// StepPlanners' capacity. Plain C++. docs/flexsp.md has the derivation.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_FLEXSPMODEL_H
#define PLEXUS_PASSES_TRAIN_FLEXSPMODEL_H

#include "passes/AdaptiveSP/AdaptiveSp.h"
#include "passes/Baselines/StepPlanners.h"
#include "passes/Cost/ProfiledCostModel.h"
#include "passes/Simulate/EventSimulator.h"

#include <optional>
#include <string>
#include <vector>

namespace plexus::train {

/// Training FLOPs (forward, backward and recompute, all layers and the
/// output head) of one sequence of `tokens` as c2 s^2 + c1 s: the causal
/// attention core is the quadratic part, everything else linear. Exact for the cost model's
/// FLOP counts (they are quadratic polynomials in s).
struct FlopsPolynomial {
  double quadratic = 0; ///< FLOPs (or seconds) per token^2
  double linear = 0;    ///< FLOPs (or seconds) per token
};
FlopsPolynomial trainFlopsPolynomial(const step::TrainModel &model);

/// The same work in seconds on the model's chip (cost::layerForwardSeconds
/// at model.rates(); a backward twice its forward): seconds per token^2 and
/// per token. The attention cores and the elementwise kernels are exact
/// (cost::layerKernelSeconds is quadratic in s). The GEMMs run once over a
/// rank's packed batch, so their time is not a sum over sequences
/// (cost::gemmSeconds: tiles, waves, the weights' HBM traffic); the
/// polynomial charges each token their per-token time in a batch of
/// kPolynomialGemmTokens tokens, a training micro-batch's order of size.
/// The simulator times each batch's GEMMs by its shape.
inline constexpr int64_t kPolynomialGemmTokens = 8192;
FlopsPolynomial trainSecondsPolynomial(const step::TrainModel &model);

/// The GEMMs of the whole model's training pass on one rank holding
/// `tokens` tokens (tp 1): every layer's forward, backward (twice) and what
/// its checkpointing recomputes, and the head's forward and backward, in
/// seconds at model.rates(). trainSecondsPolynomial's linear term holds
/// trainGemmSeconds(kPolynomialGemmTokens) / kPolynomialGemmTokens.
double trainGemmSeconds(const step::TrainModel &model, double tokens);

/// trainSecondsPolynomial with every GEMM at its FLOPs over the peak of its
/// dtype x gemm_efficiency, a time no tile, wave or HBM traffic beats: the
/// step bound's compute (StepBound.h), at most what any plan's GEMMs take.
FlopsPolynomial trainSecondsFloorPolynomial(const step::TrainModel &model);

/// FlexSP's model for a job: alpha1/alpha2 from trainSecondsPolynomial;
/// actMBPerToken from activationBytesPerToken (MB = 2^20 bytes) at the batch's
/// longest sequence; beta1 = two layer gathers of ZeRO-3 (the first of forward
/// and of backward, which nothing hides), or with zero_prefetch 0 the whole
/// per-micro-batch ZeRO-3 stream at its overlapped rate (nothing hides any of
/// it); the all-to-all bandwidth of each
/// power-of-two degree d dividing the world and the heads, timed by `comm` on
/// ranks 0..d-1 for 64 MiB per rank (bytes / seconds); the capacity in tokens
/// per chip.
struct DerivedFlexSp {
  cost::ProfiledModel model;
  cost::AllToAllBandwidthTable bandwidth;
  int64_t capacityPerGpu = 0;
  std::string error; ///< empty on success
};
DerivedFlexSp deriveFlexSpModel(const baselines::TrainSetup &setup,
                                int64_t maxLength, const prog::CommTimeFn &comm);

/// Plans one batch with FlexSP (adaptive SP groups per micro-batch) and
/// converts it to a StepPlan named "flexsp", estimated like every other
/// plan (baselines::estimateStep). Needs tp = cp = pp = 1. `solverSeconds`
/// receives the planner's wall time (reported, never used).
baselines::NamedPlan planFlexSp(const baselines::TrainSetup &setup,
                                const std::vector<int64_t> &lengths,
                                const prog::CommTimeFn &comm,
                                const adaptivesp::AdaptiveSpOptions &options,
                                double &solverSeconds);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_FLEXSPMODEL_H
