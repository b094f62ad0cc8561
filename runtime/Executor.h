//===- Executor.h - One rank's per-rank program, op by op -------*- C++ -*-===//
//
// The step executor runs the ops of one rank's program (the `rt` dialect
// after plx-lower-to-rt) on real tensors. A generated program is a straight
// list of calls, one per op:
//
//   PLXRT_TRY(x.gatherParams(zero_0_1, {0, 1}, 2098176));
//   PLXRT_TRY(x.forward(0, {0, 1}, {{6, 11}, {0, 1}}, &sp_0_1, {0, 1}));
//   PLXRT_TRY(x.send(2, 155648, 0, Pass::Forward, {{6}, {0}}));
//
// `rt` ops carry no tensors: which buffer an op reads and writes follows
// from its kind, its layers and its work (sequence ids and slice indices),
// and the executor owns those buffers:
//
//  * per work (the ordered list of (sequence, slice) it covers): the hidden
//    state at the work's forward boundary, the gradient at its backward
//    boundary, the activations of every layer whose forward ran and whose
//    backward has not, and the head's activations;
//  * per (sequence, layer): the keys and values of the sequence's slices
//    so far, in the attention core's layout (all tokens of this rank's K/V
//    head group under Ulysses, every head otherwise), which later slices
//    attend to, and the gradients those later slices hand back to them
//    (the split-sequence case of Concertina DPP, runtime/Model.h);
//  * the parameters: the stage's full weights (data parallel), or under
//    ZeRO-3 this rank's shard of every gathered layer chunk, with the full
//    weights of a chunk present between its gather and the reduce-scatter
//    of its gradients (each micro-batch, or once per step) or the step's
//    end;
//  * the gradients: a local accumulator for the stage and, once a
//    collective has summed part of it over a group, the reduced gradient
//    (a shard, or a full sum) that the optimizer will apply.
//
// Every call checks what it is given against that state (the layers are
// held and gathered, the inputs exist, the byte counts match the tensors)
// and returns an error naming the op, the rank and the work instead of
// computing garbage, e.g. "backward of layers [1, 2) of seqs [6] slices [1]
// on rank 2: layer 1 was checkpointed and has not been recomputed".
//
// Parameter packing. The parameters (and gradients) of a layer range
// [a, b) travel as one flat fp32 vector: the embedding (when a == 0), the
// layers a..b-1 (LayerWeights::forEach order), then the final norm and
// the head (when b == config.layers; the head only when untied). That is a
// contiguous span of the whole model in ModelWeights::forEach order. The
// n elements are padded with zeros to n' = a multiple of the group size g;
// the group's j-th rank owns the shard [j n'/g, (j+1) n'/g).
//
// The CPU backend runs collectives when they are issued; wait() only
// checks its argument.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_EXECUTOR_H
#define PLEXUS_RUNTIME_EXECUTOR_H

#include "runtime/Comm.h"
#include "runtime/Model.h"
#include "runtime/Optimizer.h"
#include "runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plexus::runtime {

/// The batch of a step: sequence lengths, how they are cut into slices, and
/// the seed of their (synthetic) token ids.
struct StepBatch {
  /// Tokens of sequence s: syntheticTokens(seed, s, lengths[s], vocab).
  uint64_t seed = 0;
  /// Tokens of each sequence id.
  std::vector<int64_t> lengths;
  /// Per sequence id (may be shorter than lengths: missing = uncut): the
  /// interior cut points, strictly increasing, in (0, length). Slice k of
  /// sequence s is [c_k, c_{k+1}) with c_0 = 0 and c_K = length; its
  /// context is c_k.
  std::vector<std::vector<int64_t>> cuts;
};

/// What one op covers: sequence ids and, per sequence, the index of its
/// slice (empty `slices`: all 0). The rows of a work are its slices laid
/// end to end, in this order.
struct Work {
  std::vector<int64_t> seqs, slices;
};

/// Layers [begin, end); empty when begin == end.
struct LayerRange {
  int64_t begin = 0, end = 0;
};

/// Which way a point-to-point message goes: the hidden state (forward) or
/// its gradient (backward).
enum class Pass { Forward, Backward };

struct ExecutorOptions {
  /// The layers this rank holds (its pipeline stage). It holds the
  /// embedding iff layers.begin == 0, and the final norm and the head iff
  /// layers.end == config.layers.
  LayerRange layers;
  /// Non-empty: ZeRO-3 over this group (ring order); the rank keeps only
  /// its shards of the parameters at rest. Empty: full parameters.
  Group zeroGroup;
  /// Bytes per element the plan counted (4 for fp32, 2 for bf16): the byte
  /// counts passed to calls are checked against elements * this.
  int64_t planElementBytes = 4;
  /// The weights are initWeights(config, part, weightSeed).
  uint64_t weightSeed = 0;
  AdamConfig adam;
};

/// "seqs [6, 11] slices [0, 1]".
std::string workString(const Work &work);
/// "[0, 2)".
std::string rangeString(LayerRange layers);

/// Elements of one layer's parameters.
int64_t layerParameterCount(const ModelConfig &config);
/// Elements of the packed vector of layers `layers` (unpadded): the
/// layers, plus the embedding when layers.begin == 0, plus the final norm
/// and the untied head when layers.end == config.layers.
int64_t packedParameterCount(const ModelConfig &config, LayerRange layers);
/// Elements of the whole model (its parameterCount).
int64_t wholeParameterCount(const ModelConfig &config);
/// A member's shard of n elements over g ranks: ceil(n / g).
int64_t shardSize(int64_t n, int64_t g);

/// The token ids of every sequence of the batch (syntheticTokens).
std::vector<std::vector<int32_t>> batchSequences(const StepBatch &batch,
                                                 int64_t vocab);

/// A distributed step against referenceStep on one process.
struct ReferenceCheck {
  double loss = 0, referenceLoss = 0;
  double lossError = 0;    ///< |loss - reference| / |reference|
  std::string worstTensor; ///< the tensor with the largest error
  double worstError = 0;   ///< its normRelativeError
};

/// Runs referenceStep with `weights` (the whole model) on the batch and
/// compares its loss with `loss` and its gradients, tensor by tensor, with
/// `whole` (the step's gradient packed as contributeGradients packs it).
Result<ReferenceCheck> compareWithReference(const ModelConfig &config,
                                            const ModelWeights<float> &weights,
                                            const StepBatch &batch, double loss,
                                            const std::vector<float> &whole);

class StepExecutor {
public:
  /// Checks the config, the batch (lengths >= 1, cuts increasing inside
  /// each sequence, some target) and the options (the layers are a range
  /// of the model; the ZeRO group holds this rank; tied embeddings only
  /// when the rank holds the whole model), draws the stage's weights and
  /// the batch's tokens.
  static Result<std::unique_ptr<StepExecutor>>
  create(Comm &comm, const ModelConfig &config, const StepBatch &batch,
         const ExecutorOptions &options);
  ~StepExecutor();
  StepExecutor(const StepExecutor &) = delete;
  StepExecutor &operator=(const StepExecutor &) = delete;

  //===--- rt.compute ----------------------------------------------------===//

  /// Layers [a, b) of `work` (a Ulysses group in ring order, or null).
  /// Input: the embedding of the work's local tokens when a == 0, else the
  /// hidden state at boundary a (from this rank's forward of [.., a) or a
  /// recv). Output: the hidden state at boundary b; when b is the model's
  /// last layer, the head's loss is added to the partial loss instead.
  /// Layers in `checkpointed` keep only their input and K/V
  /// (Checkpoint::Full). A slice with context attends to the K/V of its
  /// sequence's earlier slices, which must have run their forward here.
  Status forward(int64_t stage, LayerRange layers, const Work &work,
                 const Group *ulysses, LayerRange checkpointed);
  /// Rebuilds the checkpointed layers of [a, b) (layerRecompute), with the
  /// forward's context and group.
  Status recompute(int64_t stage, LayerRange layers, const Work &work,
                   const Group *ulysses);
  /// Layers b-1 down to a: the gradient in is the head's (b the last
  /// layer) or the one at boundary b (this rank's backward or a recv);
  /// weight gradients accumulate locally; the gradient at a is stored, or
  /// fed to the embedding's backward when a == 0. Frees the activations.
  Status backward(int64_t stage, LayerRange layers, const Work &work,
                  const Group *ulysses);

  //===--- rt.send / rt.recv between pipeline stages -------------------===//

  /// Forward: the hidden state of the work's last forward; backward: the
  /// gradient of its last backward. [local tokens, hidden] fp32 with
  /// `tag`; bytes must be elements * planElementBytes.
  Status send(int peer, int64_t bytes, int64_t tag, Pass pass,
              const Work &work);
  /// Forward: stored as the input of the work's next forward (boundary
  /// layers.begin); backward: as the gradient at boundary layers.end.
  Status recv(int peer, int64_t bytes, int64_t tag, Pass pass,
              const Work &work);

  //===--- Collectives over parameters and gradients -------------------===//

  /// ZeRO-3 all-gather: the shards of `layers` become the full parameters
  /// of the range, usable by every forward, recompute and backward until
  /// the range's gradients are reduce-scattered (or the step ends). The first
  /// gather of a range makes it a chunk; chunks must not overlap. bytes:
  /// the shard * planElementBytes, within planElementBytes + one byte per
  /// piece the plan may round on its own (each layer, the embedding, the
  /// final norm with the head).
  Status gatherParams(const Group &group, LayerRange layers, int64_t bytes);
  /// Sums the range's accumulated gradients over the group; this rank adds
  /// its shard of the sum to its reduced gradient; the local accumulators
  /// of the range are zeroed. Under ZeRO-3 the group is the ZeRO group and
  /// the range a gathered chunk; otherwise the data-parallel ZeRO-1/2 sync.
  /// bytes: g * shard * planElementBytes, within g times gatherParams'
  /// tolerance.
  Status reduceScatterGrads(const Group &group, LayerRange layers,
                            int64_t bytes);
  /// Data-parallel ZeRO-0 sync: every member holds the full sum as its
  /// reduced gradient. bytes: n or n' elements * planElementBytes (any
  /// value between the two is accepted).
  Status allReduceGrads(const Group &group, LayerRange layers, int64_t bytes);
  /// Data-parallel ZeRO-1/2: Adam on this rank's shard of the range (from
  /// the reduce-scatter's reduced gradient), then an all-gather of the
  /// updated shards into the full parameters. bytes as gatherParams.
  Status updateAndGatherParams(const Group &group, LayerRange layers,
                               int64_t bytes);
  /// The CPU backend runs asynchronous collectives when they are issued:
  /// checks pending >= 0.
  Status wait(int64_t pending);

  //===--- The step -----------------------------------------------------===//

  /// After the program: checks nothing is left over (every forward had its
  /// backward, every received or produced boundary tensor was used, every
  /// K/V context gradient was consumed, no gradient accumulated after the
  /// collective that reduced its layers); returns this rank's partial
  /// loss (the sum of its head losses).
  Result<double> finishStep();
  /// Applies the optimizer to every reduced gradient not applied yet
  /// (ZeRO-3 shards, ZeRO-0 sums, or, for layers no collective reduced,
  /// the rank's own gradient), then resets for the next step. Needs a
  /// successful finishStep first.
  Status optimizerStep();
  /// Adds into `whole` (the whole model packed in ModelWeights::forEach
  /// order, wholeParameterCount(config) elements) the reduced-gradient
  /// elements this rank owns: a shard's owner, a full sum's group's first
  /// rank, or the rank itself for layers no collective reduced. A sum over
  /// the world then is the step's gradient.
  Status contributeGradients(std::vector<float> &whole) const;

  /// Seconds spent in compute calls and in communication calls so far
  /// (steady clock). The Ulysses all-to-alls that run inside a layer count
  /// as communication, not compute.
  double computeSeconds() const;
  double commSeconds() const;
  /// The same in this thread's CPU seconds: what the rank itself did,
  /// whatever share of a core it got (waiting in a blocking call costs the
  /// CPU time of the transport's polling only).
  double computeCpuSeconds() const;
  double commCpuSeconds() const;
  /// The rank this executor runs on.
  int rank() const;
  /// Completed optimizer steps.
  int64_t steps() const;

  struct State;

private:
  explicit StepExecutor(std::unique_ptr<State> state);
  std::unique_ptr<State> s;
};

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_EXECUTOR_H
