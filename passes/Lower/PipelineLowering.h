//===- PipelineLowering.h - DPP pipelines as per-rank programs --*- C++ -*-===//
//
// Turns a step planned by dynamic pipeline parallelism (PipelinePlan.h:
// 1F1B pipelines of chunks, run one after another, over d_p stages of d_s
// Ulysses ranks with ZeRO inside each stage) into the program of every
// rank, in the form the event simulator runs and `plx-lower-to-rt` prints
// (passes/Program/Program.h). Plain C++, deterministic, errors as
// values; nothing is re-planned.
//
// Ranks and layers. world = d_s * d_p; rank r is Ulysses rank r mod d_s of
// stage r / d_s, and stage p owns layers stageLayers(L, d_p, p). Every
// Ulysses rank of a stage runs the same program; they differ only in their
// stage-to-stage peers (the same Ulysses rank of the neighbouring stage).
//
// Order. The pipelines run one after another on every rank. Inside a
// pipeline, stage p runs the 1F1B order of step::oneFOneBStageOrder:
// min(n, d_p - p - 2 + N_split) forwards, then a forward and a backward in
// turn, then the remaining backwards, backwards in the pipeline's backward
// order.
//
// One chunk's forward on one rank, per group of options.layersPerOp layers
// of the stage (the stage's last group takes what is left):
//  - ZeRO-3 (model.zero == 3 and d_s > 1), as lowerStep does: the group's
//    parameter shard is all-gathered asynchronously one group ahead and
//    waited for before use;
//  - the Ulysses all-to-all of the chunk's tokens (d_s > 1): Q, O, K and V
//    of tokens / d_s tokens, layerWork's volume. The K and V of a slice's
//    context are not exchanged again: each rank still holds them, split by
//    heads, from the all-to-all of their own slice;
//  - a compute op with the forward FLOPs of every slice over the group,
//    divided by d_s; a slice of s tokens after C context tokens costs
//    cost::layerForwardFlops(.., Slice{s, C}), whose attention grows as
//    (C + s)^2 - C^2.
// Its backward, per group in reverse: the gather as above; when the group
// holds checkpointed layers, the forward's all-to-all again and a Recompute
// op with their forward FLOPs; a Bwd op with twice the forward FLOPs plus
// the attention core's forward again (flash attention recomputes its
// scores in the backward: the cost model's selective recompute); the
// all-to-all of the gradients; and (ZeRO-3) an asynchronous reduce-scatter
// of the group's gradients.
//
// Memory, per rank and per layer, for a chunk of T tokens of which S0 belong
// to slices of split sequences (a slice that is not a whole sequence,
// DPP's split slice, found from the slices rather than the chunk's kind; a
// tail slice counts too, as the planner's default chargeTailKv):
//  - a layer that is not checkpointed keeps cost::activationBytesPerToken
//    under Checkpointing::Selective for each slice times its tokens, / d_s:
//    with flash attention the attention scores are never stored (which is
//    why the backward recomputes them, above). model.checkpointing is not
//    used: the plan's remat is the only layer checkpointing here;
//  - a checkpointed layer keeps its input, e * hidden * T / d_s, and the K
//    and V of the split slices, kvBytesPerToken * S0 / d_s, because later
//    slices of the sequence attend to them. Its Recompute op adds the rest
//    of the layer's activations back; the layer's Bwd op releases all;
//  - dK / dV: the backward of a split slice produces gradients for its
//    context's K and V that live until the earlier slices' backward. As in
//    the planner (passes/Checkpoint/ActivationMemory.h, M_dkv), a chunk
//    with split slices holds them from its forward to its backward:
//    kvBytesPerToken * S0 / d_s per layer of the stage (dK and dV are the
//    size of K and V, 2 e D_kv per token), taken by each layer's forward op
//    and released by its backward op;
//  - remat[p][k] layers of stage p are checkpointed for the chunk at
//    forward position k: the stage's FIRST remat[p][k] layers. An empty
//    remat checkpoints nothing;
//  - resident: residentBytes with GroupLayout{ulysses = d_s, pp = d_p} and
//    ZeRO over the stage's d_s ranks (model states of the stage's layers,
//    the embedding on the first stage and the output head on the last,
//    plus two gathered groups under ZeRO-3).
// The embedding and the output head add no compute and no activations, as
// in lowerStep.
//
// Stage to stage: after a chunk's forward a rank sends its activations
// (tokens / d_s * hidden * e bytes) to the same Ulysses rank of the next
// stage, which receives them right before that forward; gradients of the
// same size go back after the backward. Sends and receives block until
// both sides meet, so the two sides of a link must post its messages in
// one order; when they do on every link, no set of ranks can wait on each
// other (a blocked rank waits on a neighbour blocked further along the
// same direction, which ends at the first or last stage). The natural
// orders differ only where a stage runs forward f before backward k and
// the next stage runs them the other way round (the next stage has one
// warm-up forward fewer). In DPP's 1F1B orders such passes are adjacent on
// both sides, and the messages are posted as a pair there: the upper
// stage's send of f with its receive of k's gradients, the lower stage's
// send of k's gradients with its receive of f. Even stages send first, odd
// ones receive first, so that neighbours, of opposite parity, meet; this
// is lowerStep's pairing, which it equals for N_split = 1. The lowering
// checks that both sides of each link agree before it emits anything.
// Tags: 2 * (chunks of earlier pipelines + position) + (0 forward, 1
// backward), unique in the step.
//
// ZeRO below 3 with d_s > 1: each Ulysses rank keeps whole parameters, and
// the step ends with the gradient synchronisation of lowerStep over the
// stage's ranks (all-reduce for ZeRO-0, reduce-scatter and all-gather for
// 1 and 2).
//
// Op labels: "fwd p0 c3 layers 4-6" (pipeline 0, forward position 3,
// layers [4, 6)); compute ops carry stage, layerBegin / layerEnd (a
// Recompute op: only its checkpointed layers), flops, seqs and slices. A
// slice's index is its place among its sequence's slices in the step (0
// for a whole sequence), so plx-verify-rt's slice order rule
// (passes/Simulate/SliceOrder.h) applies.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_LOWER_PIPELINELOWERING_H
#define PLEXUS_PASSES_LOWER_PIPELINELOWERING_H

#include "passes/StepModel/PipelinePlan.h"
#include "passes/Lower/StepLowering.h"

#include <string>

namespace plexus::lower {

/// The first reason `plan` cannot be lowered for `model`, or "" when it
/// can: world != d_s * d_p, more stages than layers, heads that do not
/// split over d_s, a pipeline or chunk without work, a slice outside its
/// sequence, a sequence whose slices do not follow one another from token
/// 0 in forward order (or sit in two pipelines, or twice in one chunk) or
/// do not go backward in reverse, a backward order that is not a
/// permutation, N_split < 1 or too small for the backward order, remat
/// that is not stages x chunks or outside [0, the stage's layers], an
/// invalid shape, ZeRO stage or chip.
std::string checkPipelinedStepPlan(const step::PipelinedStepPlan &plan,
                                   const step::TrainModel &model);

/// Lowers `plan` to one program per rank (see the file comment). On a plan
/// checkPipelinedStepPlan rejects, returns that message in `error` and no
/// programs.
LoweredStep lowerPipelinedStep(const step::PipelinedStepPlan &plan,
                               const step::TrainModel &model,
                               const LoweringOptions &options = {});

} // namespace plexus::lower

#endif // PLEXUS_PASSES_LOWER_PIPELINELOWERING_H
