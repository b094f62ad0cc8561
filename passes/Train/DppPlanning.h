//===- DppPlanning.h - Dynamic pipeline parallelism for a spec --*- C++ -*-===//
//
// Runs the dynamic pipeline parallelism planner (passes/DynamicPP) on a
// train job: derives its cost model from the spec with the same cost model
// the lowering and the simulator use (so the planner's choices and the
// prediction agree), plans a batch, and converts the plan to the plain
// pipelined step (passes/StepModel/PipelinePlan.h) that plan IR holds and the
// lowering runs. Plain C++. docs/dpp.md has the derivation.
//
// The derived model, for d_s-way Ulysses SP with ZeRO-3 inside each of d_p
// stages (N = d_s d_p ranks):
//  - no layer checkpointing means flash attention: the attention scores
//    are never stored and the backward computes them again (the cost
//    model's selective mode, which the lowering follows);
//  - alpha1, alpha2: forward + backward FLOPs of the whole model as
//    c2 s^2 + c1 s (trainFlopsPolynomial, selective) at the chip's
//    achieved rate, in ms on one chip;
//  - the all-to-all as alpha-beta: the fabric's all-to-all over ranks
//    0..d_s-1 timed at 1 MiB and at 64 MiB per rank gives the bandwidth
//    (the slope) and the latency (the intercept);
//  - beta1, per chunk and pipeline: d_p times the exposed ZeRO-3 gathers
//    of a chunk on one stage (the first layer's of its forward and of its
//    backward; the lowering prefetches the rest under compute), so that
//    each stage pays beta1 / d_p;
//  - the ZeRO-3 floor of a pass: the gathers of the stage's layers
//    (forward), and the gathers and gradient reduce-scatters (backward),
//    timed on ranks 0..d_s-1; they run beside the compute, so a pass of a
//    small chunk lasts at least that long;
//  - memory: M_token is the cost model's activation bytes per token of
//    every layer (selective), D the hidden size, D_kv the K (or
//    V) elements per token of a layer (GQA-aware), M_logits the loss's
//    fp32 logits per token on the last stage (cost::logitBytesPerToken,
//    as the lowering keeps them); M_ms(p) is the lowering's resident
//    bytes of stage p (its layers' model states under ZeRO-3 over d_s,
//    embedding and head on the end stages, two gathered layer buffers);
//    the budget is the job's usable memory per chip less a reserve of
//    `reserveFraction` for what the planner's memory model leaves out
//    (the layer a recompute re-materialises during a backward);
//  - slices are cut on multiples of d_s (DppModel::sliceGranule): Ulysses
//    gives each of a stage's d_s ranks an equal part of every slice.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_DPPPLANNING_H
#define PLEXUS_PASSES_TRAIN_DPPPLANNING_H

#include "passes/Baselines/StepPlanners.h"
#include "passes/DynamicPP/DynamicPp.h"
#include "passes/StepModel/PipelinePlan.h"
#include "passes/Simulate/EventSimulator.h"

#include <string>
#include <vector>

namespace plexus::train {

/// The layout DPP plans for: d_s-way SP per stage, d_p stages.
struct DppJobLayout {
  int64_t spDegree = 1;
  int64_t stages = 1;
  /// Share of each chip's usable memory the planner leaves unplanned.
  double reserveFraction = 0.04;
};

/// The layout of a job of `setup` with SP degree `spDegree` (0: the chips
/// of a node), stages = world / d_s. Errors name what does not divide.
dpp::Result<DppJobLayout> dppJobLayout(const baselines::TrainSetup &setup,
                                       int64_t spDegree);

/// The planner's model for the job (see the file comment). Errors: a chip
/// without a BF16 peak, a layout that does not divide, a failed fabric
/// query, or a model the planner rejects.
dpp::Result<dpp::DppModel> deriveDppModel(const baselines::TrainSetup &setup,
                                          const DppJobLayout &layout,
                                          int64_t maxLength,
                                          const prog::CommTimeFn &comm);

/// The plan as the plain pipelined step: chunks with their slices, each
/// pipeline's backward order, N_split and checkpointed layers, and the
/// model's times (seconds), memory (bytes) and bubble ratios.
step::PipelinedStepPlan toPipelinedStep(const dpp::DppPlan &plan,
                                         const dpp::DppModel &model,
                                         const DppJobLayout &layout,
                                         const std::vector<int64_t> &lengths,
                                         const std::string &name);

/// Plans one batch with DPP under `options` and returns it as a named plan
/// (NamedPlan::pipelined set, the model ZeRO-3) called `name`. The
/// planner's wall time goes to NamedPlan::solverSeconds.
baselines::NamedPlan planDynamicPp(const baselines::TrainSetup &setup,
                                   const std::vector<int64_t> &lengths,
                                   const prog::CommTimeFn &comm,
                                   const DppJobLayout &layout,
                                   const dpp::DppOptions &options,
                                   const std::string &name);

/// The planner's chunk for a planned chunk: its kind, its slices as
/// pieces, tail set when the first piece of a split or hybrid chunk ends
/// its sequence. Errors: an unknown kind, a slice outside `lengths`.
dpp::Result<dpp::Chunk> dppChunkOf(const step::PlannedChunk &chunk,
                                   const std::vector<int64_t> &lengths);

/// Plans the checkpointing of every pipeline of `plan` again with
/// `strategy` (chunks and their order kept), replacing its remat tables
/// and its modelled times, bubble ratios and peak memory. The pipelines'
/// backward orders must be the 1F1B ones of their forward orders (each
/// run of one split sequence's chunks reversed). Returns the first error,
/// else an empty string; on error `plan` is unchanged.
std::string replanCheckpointing(step::PipelinedStepPlan &plan,
                                const dpp::DppModel &model,
                                ckpt::CheckpointStrategy strategy,
                                const ckpt::CheckpointOptions &options = {});

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_DPPPLANNING_H
