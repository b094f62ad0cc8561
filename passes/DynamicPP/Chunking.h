//===- Chunking.h - DPP's workload-balanced chunking ------------*- C++ -*-===//
//
// The sequence processor of dynamic pipeline parallelism (reference
// flexsp_dpp.md section 2.4, Alg. 1): for a given slice count K, cut the
// batch's longest sequence into K slices of equal modelled time (the split
// mesh), cut every sequence longer than the mesh's first slice on the same
// mesh, and pack the short sequences, best-fit decreasing, into the buckets
// the tail slices seed (hybrid chunks) or into new buckets (packed chunks),
// against a time target T_t (the costliest mesh slice) and a token target
// T_m (the largest mesh slice). Plain C++, deterministic, errors as values.
//
// The mesh. A slice of s tokens after C tokens of its sequence costs a
// stage q ((C + s)^2 - C^2) + l s (+ a per-chunk constant), so the slices
// [0, b_1), ..., [b_{K-1}, L) cost the same when q b_j^2 + l b_j =
// (j / K) (q L^2 + l L): later slices are shorter (for l = 0, slice j spans
// [L sqrt((j-1)/K), L sqrt(j/K))). Since a mesh slice's cost depends only
// on where it lies, every full slice of a shorter sequence cut on the same
// mesh costs the same as the longest's; only tail slices are cheaper.
//
// Choices where the reference is silent (its "split" expression is
// omitted):
//  - Cuts lie on multiples of the model's slice granule G
//    (DppModel::sliceGranule; 1 = any token): a job sets its SP degree
//    d_s, because Ulysses gives each of a stage's d_s ranks an equal part
//    of every slice. Each cut is rounded to the nearest multiple of G
//    (halves up; for G = 1 the nearest token), then the cuts are moved
//    apart, on multiples of G, just enough that every slice keeps at least
//    G tokens (L >= K G is required). Rounding moves a cut by at most
//    G / 2 tokens, so the balance suffers by less than G tokens per cut
//    (only the moving apart, on sequences of barely K G tokens, moves cuts
//    further). A sequence cut on the mesh is cut on these multiples too;
//    only its last piece ends at its length, a multiple of G only when the
//    length is (the dataset pads lengths).
//  - T_t is the costliest slice of the longest sequence as rounded (its
//    chunk time, per-chunk part included); T_m its largest slice's tokens
//    (the first). A sequence is short when it is no longer than b_1; a
//    longer one is cut at every cut below its length and its last piece
//    is its tail slice. For K = 1 nothing is split.
//  - Bucket order for best fit: ascending time / tokens, ties by the
//    bucket's creation. "The emptiest bucket" is the one with the fewest
//    tokens. When no bucket fits in time, T_t is loosened to the least
//    time + t among the buckets with token room (the retry then always
//    places the sequence) and stays loosened for the rest of the batch;
//    ChunkingOptions::loosenTimeTarget = false opens a new bucket instead.
//  - Short sequences are taken by descending modelled time (equivalently
//    length), ties by ascending id; split sequences by descending length,
//    ties by ascending id.
//  - A tail bucket that receives no short sequence stays a split chunk
//    (tail set); one that does becomes a hybrid chunk.
//  - Two tail slices are never in one chunk: only tails seed buckets, and
//    a new bucket is opened only for a short sequence.
//
// The baselines (ChunkingMode), for the reference's ablation and its
// token-level and batch-level competitors:
//  - Even tokens (Seq1F1B-like, "w/o wbc"). The slice length is
//    T = ceil(longest / K) rounded up to a multiple of the slice granule
//    G, so K still counts the longest sequence's slices and the planner
//    searches it as before. A sequence longer than T is cut into
//    ceil(len / T) slices of whole granules, floor(len / G) of them spread
//    so that the slices differ by at most one granule (the longer ones
//    first), the last slice also taking the len mod G tokens left over
//    (for G = 1: token counts that differ by at most one) - equal tokens,
//    not equal time, so under causal attention its later slices cost
//    more. The sequences of at most
//    T tokens are packed first fit decreasing (longest first, ties by id):
//    into the first chunk, in creation order, with room for them within T
//    tokens. The tail slices open the first chunks (longest sequence
//    first), so a tail with room left is filled with short sequences and
//    becomes a hybrid chunk: fixed-length packing fills every chunk up to
//    T, whoever the tokens belong to. Only short sequences join a chunk, so
//    two tail slices never meet. No time target is used.
//  - Packed (DAPPLE-like). No sequence is split: even tokens with K = 1,
//    i.e. chunks of at most the longest sequence's tokens (the least
//    capacity that holds every sequence whole).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_DYNAMICPP_CHUNKING_H
#define PLEXUS_PASSES_DYNAMICPP_CHUNKING_H

#include "passes/DynamicPP/Chunk.h"
#include "passes/DynamicPP/DppCostModel.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plexus::dpp {

/// The K - 1 interior cuts 0 < b_1 < ... < b_{K-1} < length that split
/// [0, length) into `slices` slices of equal cost under
/// quadratic ((C + s)^2 - C^2) + linear s, rounded to multiples of
/// `granule` as the file comment says (every slice keeps at least
/// `granule` tokens). Errors: slices < 1, granule < 1,
/// length < slices * granule, negative coefficients or both zero.
Result<std::vector<int64_t>> equalTimeBoundaries(double quadratic,
                                                 double linear, int64_t length,
                                                 int64_t slices,
                                                 int64_t granule = 1);

/// The mesh of the longest sequence and the targets it sets.
struct SplitMesh {
  int64_t longest = 0;
  int64_t slices = 0;              // K
  std::vector<int64_t> boundaries; // the K - 1 interior cuts
  double timeTargetMs = 0;         // T_t: the costliest slice, one stage
  int64_t tokenTarget = 0;         // T_m: the largest slice's tokens
};

/// The mesh for `longest` tokens in `slices` slices with the stage costs of
/// `model`, cut on multiples of model.sliceGranule. Errors: as
/// equalTimeBoundaries, or a bad model.
Result<SplitMesh> splitMesh(const DppModel &model, int64_t longest,
                            int64_t slices);

/// A sequence of `length` tokens cut on the mesh: [begin, end) per slice,
/// cut at every boundary below `length`; one slice when length <= b_1.
std::vector<std::pair<int64_t, int64_t>> sliceOnMesh(const SplitMesh &mesh,
                                                     int64_t length);

struct ChunkingOptions {
  /// Alg. 1's rule: when no bucket has time left, loosen T_t (true) rather
  /// than open a new bucket (false).
  bool loosenTimeTarget = true;
};

struct Chunking {
  SplitMesh mesh;
  /// The split sequences' chunks (longest first), slice by slice, each
  /// sequence ending with its tail's chunk; then the packed chunks in the
  /// order their buckets opened.
  std::vector<Chunk> chunks;
  double timeTargetMs = 0; // T_t after loosening
  int64_t loosenings = 0;  // how often T_t was loosened
  int64_t splitSequences = 0;
};

/// Alg. 1 with K = `slices`. Errors: an empty batch, a non-positive length,
/// a bad model, or a mesh error.
Result<Chunking> chunkSequences(const DppModel &model,
                                const std::vector<int64_t> &lengths,
                                int64_t slices,
                                const ChunkingOptions &options = {});

/// How a batch becomes chunks: the reference's workload-balanced chunking
/// (Alg. 1) or one of its two baselines.
enum class ChunkingMode {
  /// Alg. 1: cuts of equal time on the longest sequence's mesh, best-fit
  /// packing against time and token targets (chunkSequences).
  WorkloadBalanced,
  /// Token-level slicing as Seq1F1B does it, the reference's "w/o
  /// workload-balanced chunking": slices of equal tokens, fixed-length
  /// packing (chunkEvenTokens).
  EvenTokens,
  /// Batch-level packing as DAPPLE does it: whole sequences only
  /// (packSequences).
  Packed,
};

/// "workload-balanced", "even-tokens", "packed".
const char *chunkingModeName(ChunkingMode m);

/// The slice length T of even-token chunking with `slices` slices for the
/// longest sequence: ceil(longest / slices) rounded up to a multiple of
/// `granule`. 0 when an argument is below 1.
int64_t evenSliceTokens(int64_t longest, int64_t slices, int64_t granule = 1);

/// A sequence of `length` tokens cut into ceil(length / T) slices of
/// equal tokens, T = sliceTokens rounded up to a multiple of `granule`:
/// every slice but the last a multiple of `granule`, the floor(length /
/// granule) granules spread so that slices differ by at most one (the
/// first ones longer), the last slice also taking the length mod granule
/// tokens left over (granule 1: the first length mod count slices one
/// token longer). [begin, end) per slice; one slice when length <= T.
std::vector<std::pair<int64_t, int64_t>>
evenSlices(int64_t length, int64_t sliceTokens, int64_t granule = 1);

/// Even-token chunking with T = evenSliceTokens(longest, slices,
/// model.sliceGranule): every
/// sequence longer than T cut by evenSlices, the short ones packed first
/// fit decreasing into chunks of at most T tokens (see the file comment).
/// The mesh records the longest sequence's cuts, T as the token target and
/// its costliest slice as the time target. Errors: as chunkSequences.
Result<Chunking> chunkEvenTokens(const DppModel &model,
                                 const std::vector<int64_t> &lengths,
                                 int64_t slices);

/// Whole sequences packed first fit decreasing into chunks of at most the
/// longest sequence's tokens: chunkEvenTokens with one slice.
Result<Chunking> packSequences(const DppModel &model,
                               const std::vector<int64_t> &lengths);

/// The chunking of `mode` with `slices` slices for the longest sequence
/// (Packed requires slices = 1). Errors: as the mode's function.
Result<Chunking> chunkBatch(const DppModel &model,
                            const std::vector<int64_t> &lengths, int64_t slices,
                            ChunkingMode mode,
                            const ChunkingOptions &options = {});

/// Empty when `chunks` is a chunking of the batch: every token of every
/// sequence in exactly one chunk; a packed chunk holds whole sequences; a
/// split chunk one proper slice; a hybrid chunk a tail slice first, then
/// whole sequences; `tail` marks exactly the slices that end their
/// sequence; no chunk holds two slices (two tails) of split sequences or a
/// sequence twice. Else the first violation.
std::string chunkingViolation(const std::vector<Chunk> &chunks,
                              const std::vector<int64_t> &lengths);

} // namespace plexus::dpp

#endif // PLEXUS_PASSES_DYNAMICPP_CHUNKING_H
