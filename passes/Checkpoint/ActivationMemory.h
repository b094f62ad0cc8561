//===- ActivationMemory.h - Per-chunk activation memory of DPP --*- C++ -*-===//
//
// The memory side of dynamic pipeline parallelism (DPP, Concertina /
// InfiniPipe; reference flexsp_dpp.md section 2.3, Eqs. 5-10): the
// activation megabytes one GPU of pipeline stage p holds for a chunk from
// the chunk's forward until its backward there, as a function of how many
// of the stage's layers checkpoint the chunk, and the chunk window of Eq. 7
// (how many chunks a stage holds at once under 1F1B). The memory is linear
// in the checkpointed layer count l, M_act(p, k) = I_p[k] - F[k] l (Eq.
// 19), which is the form the checkpointing ILP (ChunkCheckpointing.h)
// needs. Plain C++, deterministic, errors as values.
//
// Layout: d_s-way Ulysses SP inside a stage, d_p stages of L / d_p layers,
// N = d_s d_p GPUs. For a chunk of T tokens of which s0 belong to a slice of
// a split sequence, one GPU of stage p (0-based, last = d_p - 1) holds
//   I_p = (M_token / N + [p last] M_logits / d_s) T           (Eqs. 5, 10)
//       + 2 e D_kv (L / d_p) s0 / d_s                          (M_dkv)
//   F   = M_token / (L d_s) T - e D T / d_s - 2 e D_kv s0 / d_s  (Eqs. 9-10)
// F is what checkpointing one more layer saves: that layer's share of the
// activations, less the input it keeps (D per token) and, for a split
// sequence, the K and V it keeps (2 D_kv per token) because later slices'
// attention reads them. At l = L / d_p this is exactly Eq. 10.
//
// Choices where the reference is silent or ambiguous:
//  - The indicator of Eqs. 5 and 9 is read as "the chunk holds a slice of a
//    split sequence" (the reference's advice; the printed (1 - I_k) would
//    charge packed chunks instead).
//  - Only the split slice's tokens s0 are charged K/V and dK/dV: the whole
//    short sequences a hybrid chunk packs beside its tail slice have no
//    later slice to serve. The reference sums over all of S_k. Which slices
//    count (the tail too or not) is the caller's choice of s0
//    (dpp::DppModel::chargeTailKv).
//  - M_dkv is charged for the whole time a split chunk is in flight, not
//    only during its sequence's last backward: the same conservative
//    per-chunk accounting as the reference's window sum.
//  - Transients are not modelled: the one layer a recompute re-materialises
//    during a backward, and the logits gradient (the reference's fused
//    in-place cross-entropy keeps that within M_logits).
//  - Units: MB = 2^20 bytes, as in passes/Cost/ProfiledCostModel.h. M_token
//    is that file's activation MB per token of the whole model on one GPU.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_CHECKPOINT_ACTIVATIONMEMORY_H
#define PLEXUS_PASSES_CHECKPOINT_ACTIVATIONMEMORY_H

#include "passes/Cost/ProfiledCostModel.h"
#include "passes/Support/Result.h"

#include <cstdint>
#include <string>

namespace plexus::ckpt {

using ::plexus::Result; // passes/Support/Result.h

/// The model and layout numbers the memory of a chunk depends on.
struct ActivationModel {
  int64_t layers = 0;          // L; a multiple of stages
  int64_t stages = 1;          // d_p
  int64_t spDegree = 1;        // d_s
  int64_t hidden = 0;          // D
  int64_t kvDim = 0;           // D_kv: K (or V) elements per token per layer
  int64_t bytesPerElement = 2; // e
  double tokenMB = 0;  // M_token: activation MB per token, whole model, 1 GPU
  double logitsMB = 0; // M_logits: logits MB per token, held by the last stage
};

/// Empty when the model is usable; else the first problem (positive sizes,
/// layers a multiple of stages, tokenMB > 0, logitsMB >= 0).
std::string activationModelProblem(const ActivationModel &m);

/// L / d_p: the layers of one stage, the most a chunk can checkpoint there.
int64_t layersPerStage(const ActivationModel &m);

/// What of a chunk costs memory.
struct ChunkFootprint {
  int64_t tokens = 0;   // T: every token of the chunk
  int64_t kvTokens = 0; // s0: tokens of a split sequence's slice (<= T)
};

/// I_p[k]: MB one GPU of `stage` holds for the chunk with no checkpointing.
double baseActivationMB(const ActivationModel &m, int64_t stage,
                        const ChunkFootprint &chunk);

/// F[k]: MB one checkpointed layer saves on one GPU.
double savedMBPerCheckpointedLayer(const ActivationModel &m,
                                   const ChunkFootprint &chunk);

/// I_p[k] - F[k] * checkpointedLayers (Eqs. 10, 19).
double activationMB(const ActivationModel &m, int64_t stage,
                    const ChunkFootprint &chunk, int64_t checkpointedLayers);

/// MB a chunk still holds on one GPU of a stage when every layer there is
/// checkpointed: its inputs, the K/V of a split slice and its dK/dV buffer
/// (and the logits on the last stage). Equal to activationMB at l = L/d_p.
double fullyCheckpointedMB(const ActivationModel &m, int64_t stage,
                           const ChunkFootprint &chunk);

} // namespace plexus::ckpt

#endif // PLEXUS_PASSES_CHECKPOINT_ACTIVATIONMEMORY_H
