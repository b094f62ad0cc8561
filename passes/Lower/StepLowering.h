//===- StepLowering.h - A planned step as per-rank programs -----*- C++ -*-===//
//
// The one lowering of a training step. Whichever planner made it, a step
// becomes a step::StepSchedule (passes/StepModel/StepSchedule.h: phases one
// after another, in each groups side by side, each a 1F1B pipeline of
// chunks over its layout's stages; a static step is the depth-1 case) and
// lowerSchedule turns that into the program of every rank: compute ops with
// their FLOPs, time and memory (chunkLayerCost, passes/StepModel/LayerWork.h),
// the collectives each layout needs (Ulysses all-to-all, tensor all-reduce,
// context K/V all-gather, ZeRO gathers and reductions, the data-parallel
// gradient synchronisation) and the point-to-point messages between stages.
// Times come from the cost model; the programs mirror the rt dialect
// (passes/Program/Program.h), so the simulator runs them as they are and
// `plx-lower-to-rt` prints them as rt ops. The lowering never re-plans: a
// plan it cannot run is an error. Plain C++, deterministic, errors as
// values. Communication volumes and layouts: docs/lowering.md.
//
// Ranks. A group's local rank ((stage * ulysses + u) * cp + c) * tp + t
// (step::GroupLayout); stage p of pp owns layers stageLayers(L, pp, p).
// The ZeRO (data-parallel) group of a rank is every rank of the step with
// its stage and tensor index, world / (tp * pp) of them; a rank keeps
// them in every phase.
//
// Order. Every rank runs its phases in order; in each, its group's
// pipeline: stage p runs the 1F1B order of step::oneFOneBStageOrder
// (min(n, pp - p - 2 + N_split) forwards, then a forward and a backward in
// turn, then the remaining backwards, backwards in the group's backward
// order). One stage and one chunk (a static micro-batch) is a forward and
// then its backward.
//
// One chunk's forward on one rank, per group of options.layersPerOp layers
// of its stage (the stage's last group takes what is left):
//  - ZeRO-3 (model.zero == 3 and more than one ZeRO rank): the group's
//    parameter shard is all-gathered asynchronously one group ahead and
//    waited for before use;
//  - the Ulysses all-to-all (ulysses > 1) and the context K/V all-gather
//    (cp > 1) of the chunk's tokens;
//  - a compute op with the forward FLOPs of every slice over the layers,
//    divided by the group's ulysses * tp * cp; a slice of s tokens after C
//    context tokens costs cost::layerForwardFlops(.., Slice{s, C});
//  - the tensor-parallel all-reduce (tp > 1).
// Its backward, per group in reverse: the gather as above; for the
// group's checkpointed layers (remat) the forward's communication again
// and a Recompute op with their forward FLOPs; under
// CoreRecompute::BeforeBackward a Recompute op with the other layers'
// attention core (Selective); the tensor all-reduce and context gather; a
// Bwd op with twice the forward FLOPs (plus, under InBackward, the
// attention core of every layer: flash attention recomputes its scores in
// the backward); the context reduce-scatter of dK / dV, the Ulysses
// all-to-all of the gradients; and (ZeRO-3) an asynchronous reduce-scatter
// of the group's gradients. An idle group (a chunk without slices) runs
// only the ZeRO collectives.
//
// Memory, per rank and per layer (chunkLayerCost): a layer that is not
// checkpointed keeps what the schedule's `activations` mode keeps; a
// checkpointed one its input and the K and V of split slices (later slices
// attend to them), its Recompute op adding the rest back; a chunk with
// split slices also holds their context's dK / dV from forward to backward
// (passes/Checkpoint/ActivationMemory.h, M_dkv). The Bwd op releases all.
// Resident: residentBytes (model states of the stage's layers, the
// embedding on the first stage and the head on the last, two gathered
// groups under ZeRO-3). The embedding adds no compute; the output head's
// GEMM (cost::headForwardFlops) is part of the model's last layer's
// forward and backward ops (never of a recompute), and the loss's fp32
// logits (cost::logitBytesPerToken) are kept by that forward and freed by
// that backward, checkpointed or not.
//
// Stage to stage: after a chunk's forward a rank sends its activations
// (tokens / (ulysses * cp * tp) * hidden * e bytes) to the rank of the
// same (c, u, t) in the next stage, which receives them right before that
// forward; gradients of the same size go back after the backward. Sends
// and receives block until both sides meet, so the two sides of a link
// must post its messages in one order; when they do on every link, no set
// of ranks can wait on each other (a blocked rank waits on a neighbour
// blocked further along the same direction, which ends at the first or
// last stage). The natural orders differ only where a stage runs forward f
// before backward k and the next stage runs them the other way round (the
// next stage has one warm-up forward fewer). In 1F1B orders such passes
// are adjacent on both sides, and the messages are posted as a pair there:
// the upper stage's send of f with its receive of k's gradients, the lower
// stage's send of k's gradients with its receive of f. Even stages send
// first, odd ones receive first, so that neighbours, of opposite parity,
// meet. The lowering checks that both sides of each link agree before it
// emits anything. Tags: 2 * chunk id (forward), + 1 (backward). A layout
// with vpp > 1 model chunks per stage runs interleaved 1F1B instead
// (docs/lowering.md, "Interleaved 1F1B"): messages placed by one global
// order of the passes, tags 2 * (chunk id * pp * vpp + j) for the link from
// virtual stage j, + 1 backward; ZeRO <= 2 and whole-layer remat only.
//
// ZeRO below 3 with more than one ZeRO rank: each rank keeps whole
// parameters (of its tensor slice), and the step ends with the gradient
// synchronisation over its ZeRO group: all-reduce for ZeRO-0,
// reduce-scatter and all-gather for 1 and 2.
//
// Replicas (LoweringOptions::replicas = R > 1, hybrid sharding): the
// schedule's world is one data-parallel replica and ZeRO shards inside it.
// The step ends with each rank all-reducing its gradient shard (its
// stage's parameters / tp / ZeRO ranks, in the model's dtype) with its R
// images r + k * world: for ZeRO-3 after its last reduce-scatter has
// finished (a wait), for ZeRO 0-2 between the replica's reduce-scatter and
// its all-gather (ZeRO-0 becomes reduce-scatter, all-reduce, all-gather:
// the hierarchical all-reduce), and for a replica without ZeRO ranks over
// the whole gradients.
//
// Op labels: "<kind> <chunk name> layers a-b" ("fwd mb3 layers 4-6" for
// micro-batch 3 of a static step, "fwd p0 c3 layers 4-6" for pipeline 0,
// position 3 of a DPP step); compute ops carry stage, layerBegin /
// layerEnd (a Recompute op of checkpointed layers: only those), flops,
// seqs and (schedule.sliceIndices) slices: a slice's index is its place
// among its sequence's slices in the step (0 for a whole sequence), so
// plx-verify-rt's slice order rule (passes/Simulate/SliceOrder.h) applies.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_LOWER_STEPLOWERING_H
#define PLEXUS_PASSES_LOWER_STEPLOWERING_H

#include "passes/Program/Program.h"
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/PipelinePlan.h"
#include "passes/StepModel/StepPlan.h"
#include "passes/StepModel/StepSchedule.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace plexus::lower {

struct LoweringOptions {
  /// Layers per compute op (and per ZeRO-3 gather): 1 is the finest grain.
  /// A stage's last op takes what is left.
  int64_t layersPerOp = 1;
  /// The schedule is one of this many data-parallel replicas of
  /// schedule.world ranks (rank r + k * world of replica k runs rank r's
  /// program): the end of the step adds the gradient all-reduce across
  /// replicas, over each rank and its images (members up to replicas *
  /// world - 1), after the replica's own reduction (the file comment).
  /// Only replica 0's programs are emitted.
  int64_t replicas = 1;
  /// Interleaved 1F1B places its messages by a timing of its passes
  /// (docs/lowering.md, "Interleaved 1F1B"); with this callback the timing
  /// counts each pass's own collectives (tensor all-reduces, Ulysses
  /// all-to-alls, context-parallel gathers) as well as its compute. Give
  /// the isolated times planners use: calls come out of time order. plxc's
  /// simulation and plx-lower-to-rt give the same one, so the programs
  /// they lower are the same.
  prog::CommTimeFn passCommTime;
};

/// A communicator's name: its kind and its ranks, ranges compressed
/// ("sp:0-7", "dp:0-56/8", "tp:3,9,12"). Equal rank sets of one kind get
/// the same name, so a runtime can create each communicator once.
std::string communicatorName(prog::GroupKind kind,
                             const std::vector<int64_t> &ranks);

struct LoweredStep {
  std::vector<prog::Program> programs; ///< programs[r] runs on rank r
  /// What programs[r].initialMemoryBytes is made of (step::residentParts).
  std::vector<step::ResidentParts> resident;
  double totalFlops = 0;              ///< over every rank
  std::string error;                  ///< empty on success
  bool ok() const { return error.empty(); }
};

/// The ring orders placement chose (plan.comm_group's `order`), keyed by
/// the communicator's members in increasing order.
using RingOrders = std::map<std::vector<int64_t>, std::vector<int64_t>>;

/// Lists every communicator of `programs` whose members placement ordered
/// (a key of `orders`) in that order: collectives' ranks and compute ops'
/// Ulysses groups. Every op over one rank set names it the same way
/// afterwards, so the j-th listed rank is the same on every member (ZeRO
/// shard j, Ulysses part j), and a runtime builds its NCCL or MPI
/// communicator in the ring order placement chose.
void applyRingOrders(std::vector<prog::Program> &programs,
                     const RingOrders &orders);

/// Lowers `schedule` to one program per rank (the file comment). Checks
/// that every phase's groups are disjoint and cover [0, world), that tensor
/// and pipeline degrees are one in the step and each rank keeps its stage
/// and tensor index (they decide which ranks share parameters), that heads
/// split over each group's tp * ulysses, that every slice lies inside its
/// sequence and is not empty, that no two chunks a rank runs share an id
/// (it numbers their messages), that every group's backward order is a
/// permutation of its chunks and, with N_split, gives each stage a 1F1B
/// order, and that both sides of each link post their messages in one
/// order. The
/// plan forms are checked in more detail before they become a schedule
/// (checkStepPlan, checkPipelinedStepPlan).
LoweredStep lowerSchedule(const step::StepSchedule &schedule,
                          const step::TrainModel &model,
                          const LoweringOptions &options = {});

/// The first reason the static step `plan` cannot be lowered, or "": every
/// micro-batch's groups disjoint and covering [0, world), sequence ids with
/// lengths, tensor and pipeline degrees the same in every group, a
/// pipelined step with the same groups in every micro-batch and ZeRO <= 2,
/// layers and heads that split as the layout needs.
std::string checkStepPlan(const step::StepPlan &plan,
                          const step::TrainModel &model);

/// Lowers a static step: checkStepPlan, then scheduleOf(plan, model).
LoweredStep lowerStep(const step::StepPlan &plan, const step::TrainModel &model,
                      const LoweringOptions &options = {});

/// The first reason the dynamic-pipeline step `plan` cannot be lowered for
/// `model`, or "" when it can: world != d_s * d_p, more stages than layers,
/// heads that do not split over d_s, a pipeline or chunk without work, a
/// slice outside its sequence, a sequence whose slices do not follow one
/// another from token 0 in forward order (or sit in two pipelines, or twice
/// in one chunk) or do not go backward in reverse, a backward order that is
/// not a permutation, N_split < 1 or too small for the backward order,
/// remat that is not stages x chunks or outside [0, the stage's layers], an
/// invalid shape, ZeRO stage or chip.
std::string checkPipelinedStepPlan(const step::PipelinedStepPlan &plan,
                                   const step::TrainModel &model);

/// Lowers a dynamic-pipeline step: checkPipelinedStepPlan, then
/// scheduleOf(plan), with ZeRO-3 once per step (TrainModel::zeroOncePerStep:
/// a dynamic pipeline's tailored FSDP). On a plan the check rejects, returns
/// that message in `error` and no programs.
LoweredStep lowerPipelinedStep(const step::PipelinedStepPlan &plan,
                               const step::TrainModel &model,
                               const LoweringOptions &options = {});

} // namespace plexus::lower

#endif // PLEXUS_PASSES_LOWER_STEPLOWERING_H
