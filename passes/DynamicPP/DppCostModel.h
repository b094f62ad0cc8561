//===- DppCostModel.h - Time and memory of DPP's chunks ---------*- C++ -*-===//
//
// The cost model of dynamic pipeline parallelism (reference flexsp_dpp.md
// section 2.3, Eqs. 1-11) for one pipeline stage: d_s-way Ulysses SP inside
// the stage, d_p stages of L / d_p layers, N = d_s d_p GPUs. A chunk {C, S}
// with split slice s0 costs each stage, per GPU,
//   compute = (alpha1 ((C + s0)^2 - C^2 + sum_{s in S\s0} s^2)
//              + alpha2 sum_S s) / N + beta1 / d_p                  (Eq. 1)
//   a2a     = (e (D + D_kv) sum_S s / (d_s B) + 2 beta_a2a) 2L / d_p (Eq. 3)
//   forward = f compute + a2a,  backward = (1 - f) compute + a2a     (Eq. 4)
// and recomputing one checkpointed layer costs forward / (L / d_p) (Eq. 11,
// charged on the backward). The memory side is ckpt::ActivationModel
// (passes/Checkpoint/ActivationMemory.h). Plain C++, deterministic, errors
// as values.
//
// Choices where the reference is silent:
//  - alpha1, alpha2 and beta1 are profiled training coefficients (forward
//    plus backward of the whole model on one GPU, FlexSP's profile of
//    passes/Cost/ProfiledCostModel.h); the forward takes the share f
//    (forwardShare, 1/3 by default: a backward costs two forwards) and the
//    backward the rest. The all-to-all is the same in both passes.
//  - ZeRO-3 costs a chunk nothing: dynamic pipelines gather a stage's
//    weights once per step and reduce its gradients once
//    (step::TrainModel::zeroOncePerStep, docs/lowering.md), beside the
//    first forward and the last backward, and the stage's memory holds
//    them (modelStatesMB).
//  - A chunk's GEMMs run once over all its tokens: a job's model adds
//    gemmExcessMs (their shape's cost beyond alpha2's per-token charge,
//    cost::gemmSeconds) to the chunk's compute, split f / (1 - f) like
//    the rest.
//  - Bandwidth in GB/s of 10^9 bytes, times in ms; allToAllGBps = 0 (or
//    d_s = 1) leaves the all-to-all out.
//  - Eq. 11 prints l / (L d_s) T_fwd; with T_fwd the stage's per-GPU
//    forward of its L / d_p layers, one layer's recompute is
//    T_fwd d_p / L, which is what we charge.
//  - A tail slice keeps its K/V and dK/dV buffer like every other slice of
//    its sequence (chargeTailKv, the reference's per-chunk indicator);
//    switched off, only non-tail slices are charged.
//  - makeDppModel: K/V width D_kv = D (the profiled GPT models have no
//    GQA), no separate logits term (the profile's activation MB per token
//    covers the whole model), model states 16 bytes per parameter under
//    ZeRO-3 over the d_s GPUs of a stage holding 1/d_p of the parameters.
//    beta1 is the profile's unless DppLayout::beta1Ms says otherwise:
//    FlexSP's beta1 (0.6-2.8 s) is a per-group, per-micro-batch constant,
//    two un-overlapped ZeRO-3 layer gathers, which DPP's FSDP overlaps;
//    charged per chunk it makes every extra slice very dear.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_DYNAMICPP_DPPCOSTMODEL_H
#define PLEXUS_PASSES_DYNAMICPP_DPPCOSTMODEL_H

#include "passes/Checkpoint/ActivationMemory.h"
#include "passes/DynamicPP/Chunk.h"

#include <functional>
#include <string>
#include <vector>

namespace plexus::dpp {

struct DppModel {
  /// Layers, stages d_p, SP degree d_s, D, D_kv, e and activation MB.
  ckpt::ActivationModel activation;
  double alpha1 = 0; // ms per token^2 (attention), fwd + bwd, 1 GPU
  double alpha2 = 0; // ms per token (everything linear), fwd + bwd, 1 GPU
  double beta1 = 0;  // ms per chunk; each stage pays beta1 / d_p
  double forwardShare = 1.0 / 3; // f: the forward's share of compute
  double allToAllGBps = 0;       // B_all2all(d_s); 0: no all-to-all
  double allToAllLatencyMs = 0;  // beta_all2all(d_s), per all-to-all
  double memoryMB = 0;               // G: memory per GPU
  std::vector<double> modelStatesMB; // M_ms(p), one per stage
  bool chargeTailKv = true;          // a tail slice keeps K/V and dK/dV too
  /// Windows carry the working memory of the backward that follows them
  /// (ckpt::CheckpointProblem::backwardWorkingMemory).
  bool backwardWorkingMemory = false;
  /// A stage's GEMMs per GPU for a chunk of `tokens` tokens beyond what
  /// alpha2 charges them (ms, forward + backward): a chunk's GEMMs run
  /// once over all its tokens, so their weights' HBM traffic and their last
  /// wave cost the chunk, not each token (cost::gemmSeconds). Empty: 0.
  /// chunkTimes and chunkStageMs add it; the equal-time slicing and the
  /// packing of short sequences (Chunking.h) balance without it.
  std::function<double(int64_t tokens)> gemmExcessMs;
  /// Slice boundaries are multiples of this many tokens (1: any token).
  /// A job sets its SP degree d_s: Ulysses gives each of the stage's d_s
  /// ranks an equal part of every slice. See Chunking.h.
  int64_t sliceGranule = 1;
};

/// Empty when the model is usable; else the first problem.
std::string dppModelProblem(const DppModel &m);

/// One stage's forward + backward time of a slice, split by how it grows:
/// quadraticMs ((C + s)^2 - C^2) + linearMs s per slice, chunkMs per chunk.
struct SliceCost {
  double quadraticMs = 0; // alpha1 / N
  double linearMs = 0;    // alpha2 / N + both passes' all-to-all per token
  double chunkMs = 0;     // beta1 / d_p + both passes' all-to-all latency
};
SliceCost stageSliceCost(const DppModel &m);

/// quadraticMs ((context + tokens)^2 - context^2) + linearMs tokens: a
/// piece's forward + backward on one stage, without the per-chunk part.
double pieceWorkMs(const SliceCost &c, int64_t context, int64_t tokens);

/// All-to-all of one pass, per token and per chunk (Eq. 3).
double allToAllMsPerToken(const DppModel &m);
double allToAllMsPerChunk(const DppModel &m);

/// One stage's forward and backward of a chunk, no recompute.
struct ChunkTimes {
  double forwardMs = 0, backwardMs = 0;
  double totalMs() const { return forwardMs + backwardMs; }
};
ChunkTimes chunkTimes(const DppModel &m, const Chunk &c);

/// The chunk's gemmExcessMs (0 when the model has none).
double chunkGemmExcessMs(const DppModel &m, const Chunk &c);

/// forward + backward on one stage: chunkMs + the pieces' work + the
/// chunk's GEMM excess.
double chunkStageMs(const DppModel &m, const Chunk &c);

/// One checkpointed layer's recompute on a stage: forward d_p / L.
double recomputeMsPerLayer(const DppModel &m, const Chunk &c);

/// The chunk's memory footprint: all its tokens, and K/V tokens of its
/// split slice (none for a tail slice when chargeTailKv is off).
ckpt::ChunkFootprint chunkFootprint(const DppModel &m, const Chunk &c);

/// A layout for makeDppModel.
struct DppLayout {
  int64_t spDegree = 8; // d_s, inside a node
  int64_t stages = 4;   // d_p, across nodes
  double memoryGB = 80; // per GPU (GB of 2^30 bytes)
  double paramsGi = 0;  // parameters (2^30) of the whole model
  double allToAllGBps = 0;
  double allToAllLatencyMs = 0;
  double beta1Ms = -1; // per chunk, whole pipeline; < 0: the profile's
};

/// A DPP model from a FlexSP profile (the choices in the file comment).
/// Errors: non-positive sizes, layers not a multiple of stages.
Result<DppModel> makeDppModel(const cost::ProfiledModel &profile,
                              const DppLayout &layout);

} // namespace plexus::dpp

#endif // PLEXUS_PASSES_DYNAMICPP_DPPCOSTMODEL_H
