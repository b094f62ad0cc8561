//===- Kernels.h - Reference CPU kernels of the runtime ---------*- C++ -*-===//
//
// The numerical kernels of the CPU backend on raw row-major buffers: a
// blocked matrix multiply, RMSNorm, rotary position embedding, the GeLU and
// SwiGLU activations, causal attention over slices of sequences with the
// keys and values of earlier slices as context, and softmax cross-entropy.
// Every kernel has its backward next to it.
//
// Determinism: each kernel sums in a fixed order that depends only on the
// problem, never on threads or timing (there are none). The matrix multiply
// adds the products of one output element in increasing k, whatever the
// blocking, so a row of the result does not depend on how many other rows
// are computed with it: a slice of a sequence gets bit-identical
// projections to the whole sequence.
//
// Callers check shapes (runtime/Model.cpp does); the kernels trust them.
// Instantiated for float (training) and double (gradient checks).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CPU_KERNELS_H
#define PLEXUS_RUNTIME_CPU_KERNELS_H

#include <cstdint>
#include <vector>

namespace plexus::runtime {

/// `tokens` consecutive tokens of one sequence that attend causally to
/// `context` earlier tokens of the same sequence: the slice's token i sits
/// at position context + i. An unsplit sequence is one slice with context
/// 0; the chunked (split-sequence) case passes the keys and values of the
/// earlier slices as context.
struct Slice {
  int64_t tokens = 0;
  int64_t context = 0;
};

} // namespace plexus::runtime

namespace plexus::runtime::cpu {

/// C = op(A) op(B), or C += op(A) op(B) when `accumulate`. op(A) is m x k:
/// A is stored m x k, or k x m when `transA`; op(B) is k x n: B is stored
/// k x n, or n x k when `transB`. C is m x n. All row-major and contiguous.
template <typename T>
void matmul(const T *a, bool transA, const T *b, bool transB, T *c, int64_t m,
            int64_t n, int64_t k, bool accumulate);

/// matmul without the CPU-specific fast path (matmul picks an AVX2 variant
/// where the CPU has it): the same bits, for tests to compare.
template <typename T>
void matmulPortable(const T *a, bool transA, const T *b, bool transB, T *c,
                    int64_t m, int64_t n, int64_t k, bool accumulate);

/// The textbook triple loop with a double accumulator: the reference the
/// blocked matmul is tested against.
template <typename T>
void matmulNaive(const T *a, bool transA, const T *b, bool transB, T *c,
                 int64_t m, int64_t n, int64_t k, bool accumulate);

/// y = x / sqrt(mean(x^2) + eps) * gain, row by row; rstd[r] keeps
/// 1 / sqrt(mean(x_r^2) + eps) for the backward.
template <typename T>
void rmsNormForward(const T *x, const T *gain, int64_t rows, int64_t width,
                    double eps, T *y, T *rstd);

/// Adds the gradients of x and gain for the output gradient dy.
template <typename T>
void rmsNormBackward(const T *x, const T *gain, const T *rstd, const T *dy,
                     int64_t rows, int64_t width, T *dx, T *dgain);

/// Rotary position embedding, in place, on rows of `heads` heads of
/// `headDim` (even) values: the pair (2j, 2j + 1) of every head of row r
/// turns by positions[r] * base^(-2j / headDim). `inverse` turns the other
/// way, which is also the backward (the rotation is orthogonal).
template <typename T>
void rope(T *x, int64_t rows, int64_t heads, int64_t headDim,
          const int64_t *positions, double base, bool inverse);

/// GeLU (tanh approximation), element-wise.
template <typename T> void geluForward(const T *u, T *g, int64_t n);
/// du = dg * gelu'(u).
template <typename T>
void geluBackward(const T *u, const T *dg, T *du, int64_t n);

/// act = silu(gate) * up, element-wise.
template <typename T>
void swigluForward(const T *gate, const T *up, T *act, int64_t n);
/// dgate, dup from dact.
template <typename T>
void swigluBackward(const T *gate, const T *up, const T *dact, T *dgate, T *dup,
                    int64_t n);

/// The heads an attention call sees: `heads` query heads sharing
/// `kvHeads` key/value heads (heads divisible by kvHeads; query head h
/// uses key/value head h / (heads / kvHeads)), `headDim` values each.
/// Ulysses passes one head group: heads / n and kvHeads / n.
struct AttentionHeads {
  int64_t heads = 0, kvHeads = 0, headDim = 0;
};

/// Causal softmax attention, scale 1 / sqrt(headDim), over the slices of a
/// batch. q and out are [sum tokens, heads, headDim]; k and v
/// [sum tokens, kvHeads, headDim] (the slices' own tokens, in slice
/// order); ctxK and ctxV [sum context, kvHeads, headDim] (the slices'
/// context tokens, in slice order, positions 0..context-1 each; may be
/// null when no slice has context). Token i of a slice attends to its
/// context, then to its own tokens 0..i, in that order. lse
/// [sum tokens, heads] keeps each row's log-sum-exp for the backward.
template <typename T>
void attentionForward(const std::vector<Slice> &slices, AttentionHeads shape,
                      const T *q, const T *k, const T *v, const T *ctxK,
                      const T *ctxV, T *out, T *lse);

/// Gradients of q, k, v and the context from dout; the forward's out and
/// lse are its inputs (the probabilities are recomputed, never stored).
/// dq, dk, dv, dctxK and dctxV are overwritten (the context ones only
/// when non-null).
template <typename T>
void attentionBackward(const std::vector<Slice> &slices, AttentionHeads shape,
                       const T *q, const T *k, const T *v, const T *ctxK,
                       const T *ctxV, const T *out, const T *lse, const T *dout,
                       T *dq, T *dk, T *dv, T *dctxK, T *dctxV);

/// Softmax cross-entropy of `rows` rows of `vocab` logits against
/// `targets` (a target < 0 is ignored: no loss, zero gradient). Returns
/// the sum of the rows' losses; writes dlogits = scale * (softmax -
/// onehot).
template <typename T>
double crossEntropy(const T *logits, const int32_t *targets, int64_t rows,
                    int64_t vocab, double scale, T *dlogits);

} // namespace plexus::runtime::cpu

#endif // PLEXUS_RUNTIME_CPU_KERNELS_H
