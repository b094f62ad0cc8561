//===- Kernels.h - Device kernels of the CUDA backend -----------*- C++ -*-===//
//
// The device counterparts of runtime/cpu/Kernels.h, fp32, on device
// pointers, enqueued on a caller's stream (nothing here synchronises). Each
// returns the error of its launch or of its library call, with the op in
// the message.
//
// Numbers: the GPU adds in its own order (cuBLAS picks its algorithm; the
// RMSNorm sums a row as a tree over threads; attention sums over key tiles
// with an online softmax), so results are close to the CPU kernels' but not
// bit-identical. The handle's math mode is left to the caller;
// CUBLAS_DEFAULT_MATH keeps full fp32 products (no TF32) unless
// NVIDIA_TF32_OVERRIDE says otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_KERNELS_H
#define PLEXUS_RUNTIME_CUDA_KERNELS_H

#include "runtime/Status.h"
#include "runtime/cpu/Kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace plexus::runtime::cuda {

/// cpu::matmul on the device: C = op(A) op(B), or C += op(A) op(B) when
/// `accumulate`. op(A) is m x k (A stored m x k, or k x m when `transA`),
/// op(B) is k x n (B stored k x n, or n x k when `transB`), C is m x n; all
/// row-major and contiguous, as the CPU kernels and the [in, out] weights
/// use. One cublasSgemm on the handle's stream. Sizes above INT_MAX are an
/// error.
Status matmul(cublasHandle_t handle, const float *a, bool transA,
              const float *b, bool transB, float *c, int64_t m, int64_t n,
              int64_t k, bool accumulate);

/// cpu::rmsNormForward on the device: y = x / sqrt(mean(x^2) + eps) * gain
/// row by row, rstd[r] = 1 / sqrt(mean(x_r^2) + eps). One block per row;
/// the squares are summed in double, like the CPU kernel, but in a tree.
Status rmsNormForward(const float *x, const float *gain, int64_t rows,
                      int64_t width, double eps, float *y, float *rstd,
                      cudaStream_t stream);

/// cpu::attentionForward on the device, fp32 (Attention.cu): causal
/// softmax attention, scale 1 / sqrt(headDim), over the slices of a batch,
/// with the same layouts. q and out are [rows, heads, headDim]; k and v
/// [rows, kvHeads, headDim]; ctxK and ctxV [contextRows, kvHeads, headDim]
/// (null allowed when contextRows is 0); lse [rows, heads]. rows must be
/// the slices' total tokens and contextRows their total context. heads must
/// be a multiple of kvHeads, headDim 1..128. Sizes are checked before any
/// CUDA call; then one launch per 48 slices, nothing synchronises.
Status attentionForward(const std::vector<Slice> &slices,
                        cpu::AttentionHeads shape, int64_t rows,
                        int64_t contextRows, const float *q, const float *k,
                        const float *v, const float *ctxK, const float *ctxV,
                        float *out, float *lse, cudaStream_t stream);

/// cpu::attentionBackward on the device: dq, dk, dv and the context's
/// dctxK, dctxV (each skipped when null) from dout and the forward's out
/// and lse, all overwritten (every row is written, no zeroing needed).
/// Recomputes the probabilities from lse; three kernels (D = rowsum(dout *
/// out), then a query-parallel dq and a key-parallel dk/dv), no atomics:
/// the sums run in a fixed order, so a GPU repeats its own bits. D lives
/// in rows * heads floats of stream-ordered scratch (cudaMallocAsync /
/// cudaFreeAsync on `stream`).
Status attentionBackward(const std::vector<Slice> &slices,
                         cpu::AttentionHeads shape, int64_t rows,
                         int64_t contextRows, const float *q, const float *k,
                         const float *v, const float *ctxK, const float *ctxV,
                         const float *out, const float *lse, const float *dout,
                         float *dq, float *dk, float *dv, float *dctxK,
                         float *dctxV, cudaStream_t stream);

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_KERNELS_H
