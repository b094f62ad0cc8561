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
#include <optional>
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

/// The flat model's achieved fraction of peak (step::TrainModel's default
/// GEMM efficiency, the unit tests' closed forms); a job's model takes its
/// chip's rates instead (ComputeRates).
constexpr double kDefaultMatmulEfficiency = 0.5;

/// How fast a chip runs each kind of a layer's work (docs/cost-model.md,
/// "Compute time by kind of kernel"). The GEMMs run at gemmEfficiency of
/// the dense BF16 peak. With kernels unset the model is flat: every FLOP,
/// the attention core's too, runs at that rate and memory-bound kernels
/// cost nothing (the unit tests' closed forms). With kernels set:
///  - a fused (flash) attention core runs at attentionEfficiency of the
///    peak over its causal half;
///  - an eager core runs its two batched GEMMs over the whole score square
///    (masked half included, as cuBLAS computes it) at gemmEfficiency and
///    streams its scores through the softmax and dropout kernels
///    (kEagerScoreBytes per score) at memoryEfficiency of HBM;
///  - the elementwise kernels around the GEMMs (norms, activation,
///    bias-dropout-add: elementwiseBytesPerToken) stream at
///    memoryEfficiency of HBM.
/// A backward takes twice its forward's time, as it takes twice its FLOPs.
///
/// With kernels set, a GEMM is also timed by its shape (gemmSeconds): the
/// chip's smCount streaming multiprocessors each compute one tileRows x
/// tileCols tile of the output at a time, so a GEMM whose tiles do not fill
/// the last wave, or whose m and n are not multiples of the tile, wastes
/// the rest; a GEMM of fewer tiles than SMs splits its k (split-K) over up
/// to smCount / tiles parts of at least splitKMinDepth each; and no GEMM
/// runs faster than its operands stream through HBM at memoryEfficiency.
/// smCount 0 leaves the quantization out (a custom chip that states no SM
/// count).
struct KernelRates {
  double attentionEfficiency = 0; ///< (0, 1] of the BF16 peak
  double memoryEfficiency = 0;    ///< (0, 1] of HBM bandwidth
  int64_t smCount = 0;            ///< 0: no tile or wave quantization
  int64_t tileRows = kGemmTileRows, tileCols = kGemmTileCols;
  int64_t splitKMinDepth = kGemmSplitKMinDepth;
};
struct ComputeRates {
  double peakFlops = 0;      ///< dense BF16 FLOP/s
  double hbmBandwidth = 0;   ///< bytes/s
  double gemmEfficiency = 0; ///< (0, 1]
  std::optional<KernelRates> kernels;
  double fp8Flops = 0; ///< dense FP8 FLOP/s; 0 when the chip has none
  double gemmRate() const { return peakFlops * gemmEfficiency; }
  /// The tensor-core peak a GEMM in `dtype` runs against: with kernels set,
  /// FP8 at the FP8 peak (when the chip has one), FP32 as TF32 at half the
  /// BF16 peak on a GPU (a chip with an SM count; A100's and H100's
  /// datasheets), BF16 and FP16 at the BF16 peak; the flat model takes
  /// peakFlops for every dtype.
  double gemmPeak(DType dtype) const;
  /// The peak an attention core runs against: the BF16 peak (an FP8 model's
  /// attention runs in BF16), TF32's for an FP32 model (gemmPeak).
  double attentionPeak(DType dtype) const;
};

/// The chip's catalog rates (ChipSpec's gemm, attention and memory
/// efficiencies, its FP8 peak and SM count).
ComputeRates chipRates(const ChipSpec &chip);

/// One GEMM on one chip: an m x k input by a k x n weight, or a grouped
/// GEMM of `groups` such problems run as one kernel (a MoE layer's routed
/// experts). m may be fractional: a rank's share of tokens split over
/// ranks.
struct Gemm {
  double m = 0, n = 0, k = 0;
  double groups = 1;
  double flops() const { return 2 * m * n * k * groups; }
};

/// Seconds of `gemm` with operands in `dtype` at `rates`. The flat model:
/// flops / (peak x gemmEfficiency). With kernels set (docs/cost-model.md,
/// "GEMMs by shape and dtype"):
///   tiles = groups x ceil(m / tileRows) x ceil(n / tileCols);
///   split = 1, or when tiles < smCount,
///           max(1, min(floor(smCount / tiles), floor(k / splitKMinDepth)));
///   compute = ceil(tiles x split / smCount) x tileRows x tileCols x 2 x
///             (k / split) / (peak x gemmEfficiency / smCount);
///   memory = groups x (m k + k n + m n) x bytes(dtype) /
///            (HBM x memoryEfficiency)   (split-K's fp32 partials stay in
///                                        L2: at most smCount tiles' worth);
///   seconds = max(compute, memory).
/// Without an SM count, compute is flops / (peak x gemmEfficiency). A
/// GEMM with no work takes 0 s.
double gemmSeconds(const Gemm &gemm, DType dtype, const ComputeRates &rates);

/// gemmSeconds with its parts: the tiles, the split-K factor and the waves
/// (0, 1, 0 without an SM count), and which bound set the time.
struct GemmTiming {
  double seconds = 0;
  double tiles = 0, split = 1, waves = 0;
  double computeSeconds = 0, memorySeconds = 0;
  bool memoryBound() const { return memorySeconds > computeSeconds; }
};
GemmTiming gemmTiming(const Gemm &gemm, DType dtype, const ComputeRates &rates);

/// The forward GEMMs of layer `layerIndex` on a rank holding `tokens`
/// tokens (all its slices packed into one batch) under tensor parallelism
/// `tp` (column-parallel Q/K/V and MLP up, row-parallel O and MLP down, as
/// Megatron-LM splits them), split like LayerFlops: projections (the fused
/// QKV, O) and feed-forward (a dense MLP's up (gate and up fused under
/// SwiGLU) and down; or the router, the shared experts as one MLP of
/// sharedExperts x moeFfn, and the routed experts as grouped GEMMs of
/// min(experts, tokens x topK) problems of tokens x topK / that rows each:
/// the balanced routing the FLOPs assume, and no more experts than receive
/// a token). Their FLOPs are layerForwardFlops' over tp.
struct LayerGemms {
  std::vector<Gemm> projections, feedForward;
};
LayerGemms layerGemms(const TransformerShape &shape, int64_t layerIndex,
                      double tokens, int64_t tp);

/// The output head's GEMM on such a rank: tokens x hidden by hidden x
/// vocab / tp (vocabulary-parallel).
Gemm headGemm(const TransformerShape &shape, double tokens, int64_t tp);

/// Bytes an eager attention core streams per score (one query-key pair of
/// one head) in its forward: the fused scale-mask-softmax reads the scores
/// and writes the probabilities, dropout reads them and writes its output
/// (dtype each) and its 1-byte mask.
int64_t eagerScoreBytes(const TransformerShape &shape);

/// Bytes the elementwise kernels of layer `layerIndex`'s forward stream per
/// token: each norm reads and writes h; each bias-dropout-add after the O
/// projection and after the MLP reads the projection's output and the
/// residual and writes the sum (dtype each) and a 1-byte mask of h; the
/// activation reads the MLP's inner tensors and writes one (GeLU 2 x ffn,
/// SwiGLU 3 x ffn; the active experts' under MoE). Split as LayerFlops:
/// `attention` for the first norm and the attention block's add, `mlp` for
/// the rest.
struct ElementwiseBytes {
  int64_t attention = 0, mlp = 0;
};
ElementwiseBytes elementwiseBytesPerToken(const TransformerShape &shape,
                                          int64_t layerIndex);

/// Seconds of a layer's forward for one slice on one chip, split like
/// LayerFlops (the projections' and the feed-forward's elementwise kernels
/// with them). Problems as layerForwardFlops, and rates that are not
/// positive and at most 1.
struct LayerSeconds {
  double attentionProjections = 0;
  double attentionCore = 0;
  double feedForward = 0;
  double total() const {
    return attentionProjections + attentionCore + feedForward;
  }
};
CostResult<LayerSeconds> layerForwardSeconds(const TransformerShape &shape,
                                             int64_t layerIndex, Slice slice,
                                             const ComputeRates &rates,
                                             AttentionKernel kernel);

/// The two halves of layerForwardSeconds. layerGemmSeconds: the layer's
/// GEMMs (layerGemms) on a rank holding `tokens` tokens under `tp`, in
/// seconds (attentionCore 0); a group's GEMMs run once over all its
/// slices, which is why they are timed per rank and not per slice.
/// layerKernelSeconds: the rest for one slice, the whole slice's (the
/// attention core and the elementwise kernels; a rank's share divides by
/// its layout's split). layerForwardSeconds(slice) is
/// layerGemmSeconds(slice.tokens, 1) + layerKernelSeconds(slice).
/// Problems as layerForwardSeconds.
CostResult<LayerSeconds> layerGemmSeconds(const TransformerShape &shape,
                                          int64_t layerIndex, double tokens,
                                          int64_t tp,
                                          const ComputeRates &rates);
CostResult<LayerSeconds> layerKernelSeconds(const TransformerShape &shape,
                                            int64_t layerIndex, Slice slice,
                                            const ComputeRates &rates,
                                            AttentionKernel kernel);

/// The recomputed part of a forward of `seconds` under `mode`, as
/// recomputeFlops chooses FLOPs.
double recomputeSeconds(const LayerSeconds &seconds, Checkpointing mode);

/// Seconds of the output head's forward (headGemm) for `tokens` tokens on
/// a rank under tensor parallelism `tp`.
double headForwardSeconds(const TransformerShape &shape, double tokens,
                          const ComputeRates &rates, int64_t tp = 1);

} // namespace plexus::cost

#endif // PLEXUS_PASSES_COST_TRANSFORMERCOST_H
