//===- TransformerCost.h - FLOPs, bytes and memory of a layer ---*- C++ -*-===//
//
// Per-layer cost of a decoder-only transformer for one slice of a sequence:
// forward / backward / recompute FLOPs, weight bytes, activation bytes kept
// for the backward pass under each checkpointing mode, K/V bytes, model-state
// bytes under ZeRO, and the time of a compute op on a chip. Formulas and their
// derivations: docs/cost-model.md ("Per-layer FLOPs, bytes and memory").
// Plain C++, no MLIR; deterministic; errors are returned, never thrown.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_COST_TRANSFORMERCOST_H
#define PLEXUS_PASSES_COST_TRANSFORMERCOST_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/TransformerShape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::cost {

/// One reason a cost could not be computed: the argument or shape field at
/// fault and a message that reads well after "error: ".
struct CostProblem {
  std::string field;
  std::string message;
};

/// A value, or the problems that kept it from being computed. `value` is
/// value-initialized (0) when there are problems.
template <typename T> struct CostResult {
  T value{};
  std::vector<CostProblem> problems;
  bool ok() const { return problems.empty(); }
};

/// A slice of `tokens` consecutive tokens of one sequence that attends
/// causally to `context` earlier tokens of the same sequence (0 for the
/// first slice, or for an unsplit sequence).
struct Slice {
  int64_t tokens = 0;
  int64_t context = 0;
};

/// Activation checkpointing of a layer: keep everything (None), recompute
/// only the attention core (Selective), keep only the layer's input and
/// recompute the whole forward (Full), or recompute the attention core and
/// the MLP block, keeping the MLP's input only (AttentionMlp: module-level
/// checkpointing of attention and MLP, as FlexSP's DeepSpeed-style runs
/// configure it; reference flexsp_dpp.md section 1.7).
enum class Checkpointing { None, Selective, Full, AttentionMlp };

/// "none", "selective", "full", "attention_mlp": the spelling the language
/// and the reports use.
const char *checkpointingName(Checkpointing mode);

/// Forward FLOPs of one layer for one slice, split by part. Norms, softmax,
/// activation functions and residual adds are not counted (a few FLOPs per
/// element against 2·h per element for the GEMMs).
struct LayerFlops {
  double attentionProjections = 0; // Q, K, V, O GEMMs
  double attentionCore = 0;        // causal Q·K^T scores and scores·V
  double feedForward = 0;          // dense MLP, or active experts + router
  double total() const {
    return attentionProjections + attentionCore + feedForward;
  }
};

/// Forward FLOPs of decoder layer `layerIndex` (0-based; MoE layers are those
/// at index >= dense_layers) for `slice`. Problems: an invalid shape, an index
/// outside [0, layers), tokens < 1, context < 0.
CostResult<LayerFlops> layerForwardFlops(const TransformerShape &shape,
                                         int64_t layerIndex, Slice slice);

/// Forward FLOPs of the output head (the logit GEMM, hidden -> vocab) for
/// `tokens` tokens: 2·tokens·hidden·vocab. It runs once, after the last
/// layer; its backward is twice this, and no checkpointing recomputes it
/// (Megatron-LM's Eq. 3 counts it so: the V/(16·l·h) term). 0 for tokens < 1.
double headForwardFlops(const TransformerShape &shape, int64_t tokens);

/// Backward FLOPs: twice the forward (a gradient for the input and one for
/// the weights of every GEMM; the attention core likewise).
double backwardFlops(const LayerFlops &forward);

/// Extra forward FLOPs spent recomputing before the backward: 0 (None), the
/// attention core (Selective), the whole forward (Full).
double recomputeFlops(const LayerFlops &forward, Checkpointing mode);

/// Forward, backward and recompute FLOPs of one layer for one slice.
struct LayerTrainFlops {
  double forward = 0;
  double backward = 0;
  double recompute = 0;
  double total() const { return forward + backward + recompute; }
};
LayerTrainFlops layerTrainFlops(const LayerFlops &forward, Checkpointing mode);

/// Bytes of the weights of layer `layerIndex` in the shape's dtype (all
/// experts of a MoE layer); 0 when the index is outside [0, layers).
int64_t layerWeightBytes(const TransformerShape &shape, int64_t layerIndex);

/// Activation bytes per token of `slice` that layer `layerIndex` keeps for
/// its backward pass under `mode` (Korthikanti et al.'s accounting,
/// generalized to GQA, SwiGLU and MoE; tensors in the shape's dtype, dropout
/// masks 1 byte). The attention-core term grows with the key length
/// context + tokens. The slice's total is tokens × this. Problems as for
/// layerForwardFlops. Without checkpointing, the attention core keeps what
/// its kernel keeps: a fused (flash-style) kernel only the softmax's fp32
/// log-sum-exp per head (the default, as long-context training runs); an
/// eager kernel the scores' softmax and dropout outputs and the dropout
/// mask for every key the token sees.
enum class AttentionKernel { Fused, Eager };
CostResult<int64_t>
activationBytesPerToken(const TransformerShape &shape, int64_t layerIndex,
                        Slice slice, Checkpointing mode,
                        AttentionKernel kernel = AttentionKernel::Fused);

/// Bytes per token that the loss keeps from the output head's forward to
/// its backward: the logits' softmax over the whole vocabulary in fp32
/// (kLossBytesPerLogit), as a fused vocabulary-parallel cross-entropy
/// saves it (Megatron-LM casts the logits to fp32 for the loss by default
/// and keeps the softmax for the gradient). Held by the rank that runs the
/// model's last layer, split like the layers' activations (tokens over
/// ulysses x cp, vocabulary over tp). Checkpointing does not reach it.
constexpr int64_t kLossBytesPerLogit = 4;
int64_t logitBytesPerToken(const TransformerShape &shape);

/// K and V bytes per token per layer: 2·kvHeads·headDim·bytesPerElement.
/// They are part of the None/Selective activation bytes, but a split
/// sequence must keep them for its later slices whatever the checkpointing.
int64_t kvBytesPerToken(const TransformerShape &shape);

/// Mixed-precision Adam model-state bytes per chip for `parameters`
/// parameters under ZeRO stage `zero` (0..3) over `dataParallel` ranks:
/// 16P, 4P + 12P/N, 2P + 14P/N, 16P/N, each sharded part rounded up, the
/// same convention as trainLayerResidentBytes (JobRules.h). Problems:
/// parameters < 0 or too many for int64 arithmetic, zero outside 0..3,
/// dataParallel < 1.
CostResult<int64_t> modelStateBytesPerChip(int64_t parameters, int64_t zero,
                                           int64_t dataParallel);

/// Achieved fraction of peak for matmul-heavy work (GEMM-dominated layers at
/// realistic sizes); the default of computeSeconds.
constexpr double kDefaultMatmulEfficiency = 0.5;

/// Seconds to run `flops` on `chip`: flops / (chip.bf16Flops × efficiency).
/// Problems: flops negative or not finite, efficiency outside (0, 1], a chip
/// without a BF16 peak.
CostResult<double> computeSeconds(double flops, const ChipSpec &chip,
                                  double efficiency = kDefaultMatmulEfficiency);

} // namespace plexus::cost

#endif // PLEXUS_PASSES_COST_TRANSFORMERCOST_H
