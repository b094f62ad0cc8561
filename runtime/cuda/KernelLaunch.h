//===- KernelLaunch.h - Raw entry points of the .cu files -------*- C++ -*-===//
//
// What Kernels.cu and Attention.cu export to Kernels.cpp: the launches and
// library calls, returning the libraries' own codes. Kept free of plxrt's
// Status so that nvcc compiles only device code and these thin wrappers;
// Kernels.cpp (host C++) checks the sizes and turns the codes into Status
// messages.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_KERNELLAUNCH_H
#define PLEXUS_RUNTIME_CUDA_KERNELLAUNCH_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace plexus::runtime::cuda::launch {

/// Row-major C = op(A) op(B) (+ C when `accumulate`) as one column-major
/// cublasSgemm; sizes already checked to fit an int and to be non-zero.
cublasStatus_t sgemmRowMajor(cublasHandle_t handle, const float *a, bool transA,
                             const float *b, bool transB, float *c, int m,
                             int n, int k, bool accumulate);

/// Launches the RMSNorm forward kernel over `rows` (> 0) rows and returns
/// the launch's error.
cudaError_t rmsNormForward(const float *x, const float *gain, int rows,
                           int64_t width, double eps, float *y, float *rstd,
                           cudaStream_t stream);

/// Queries per block of the attention forward and dQ kernels, keys per
/// block of the dK/dV kernel, and the widest head they take.
constexpr int kAttentionQueryBlock = 64;
constexpr int kAttentionKeyBlock = 32;
constexpr int kAttentionMaxHeadDim = 128;

/// The slices of one attention launch, passed by value as a kernel
/// parameter (no device copy, no synchronisation). Kernels.cpp fills it
/// with up to kMaxSlices slices that have work and launches once per batch.
/// Block b along grid x belongs to the slice s with blockBegin[s] <= b <
/// blockBegin[s + 1]: query blocks of kAttentionQueryBlock tokens (forward,
/// dQ) or key blocks of kAttentionKeyBlock positions of context + tokens
/// (dK/dV).
struct AttentionBatch {
  static constexpr int kMaxSlices = 48;
  int count = 0;  ///< slices in the batch
  int blocks = 0; ///< blockBegin[count], the grid's x extent
  int blockBegin[kMaxSlices + 1] = {};
  int tokens[kMaxSlices] = {};
  int context[kMaxSlices] = {};
  int64_t rowBegin[kMaxSlices] = {};     ///< first row in q, k, v, out, ...
  int64_t contextBegin[kMaxSlices] = {}; ///< first row in ctxK, ctxV
};

/// Heads of an attention launch (heads a multiple of kvHeads, headDim in
/// 1..kAttentionMaxHeadDim) and the score scale 1 / sqrt(headDim).
struct AttentionShape {
  int heads = 0, kvHeads = 0, headDim = 0;
  float scale = 0.0f;
};

/// The attention forward of one batch (grid: blocks x heads); out, lse.
cudaError_t attentionForward(const AttentionBatch &batch, AttentionShape shape,
                             const float *q, const float *k, const float *v,
                             const float *ctxK, const float *ctxV, float *out,
                             float *lse, cudaStream_t stream);

/// dot[p] = sum_x out[p][x] dout[p][x] for the `pairs` (> 0) (row, head)
/// pairs of [rows, heads, headDim]: the backward's D.
cudaError_t attentionRowDot(const float *out, const float *dout, int64_t pairs,
                            int headDim, float *dot, cudaStream_t stream);

/// dq of one batch of query blocks (grid: blocks x heads).
cudaError_t attentionBackwardDq(const AttentionBatch &batch,
                                AttentionShape shape, const float *q,
                                const float *k, const float *v,
                                const float *ctxK, const float *ctxV,
                                const float *lse, const float *rowDot,
                                const float *dout, float *dq,
                                cudaStream_t stream);

/// dk, dv and the context's dctxK, dctxV (each skipped when null) of one
/// batch of key blocks (grid: blocks x kvHeads).
cudaError_t attentionBackwardDkDv(
    const AttentionBatch &batch, AttentionShape shape, const float *q,
    const float *k, const float *v, const float *ctxK, const float *ctxV,
    const float *lse, const float *rowDot, const float *dout, float *dk,
    float *dv, float *dctxK, float *dctxV, cudaStream_t stream);

} // namespace plexus::runtime::cuda::launch

#endif // PLEXUS_RUNTIME_CUDA_KERNELLAUNCH_H
