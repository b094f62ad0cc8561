//===- Kernels.cu - Device kernels of the CUDA backend --------------------===//
//
// Row-major products through column-major cuBLAS: a row-major r x c matrix
// is, read column-major, the c x r matrix of its transpose. So the row-major
// C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T: one sgemm with
// the operands swapped and the same transpose flags, every leading
// dimension the row length of the stored matrix.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/KernelLaunch.h"

namespace plexus::runtime::cuda::launch {

cublasStatus_t sgemmRowMajor(cublasHandle_t handle, const float *a, bool transA,
                             const float *b, bool transB, float *c, int m,
                             int n, int k, bool accumulate) {
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  const int lda = transA ? m : k;
  const int ldb = transB ? k : n;
  return cublasSgemm(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                     transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b,
                     ldb, a, lda, &beta, c, n);
}

namespace {

constexpr int kNormThreads = 256;

/// One block per row: each thread sums the squares of a strided part of the
/// row in double, the block adds the partial sums as a tree in shared
/// memory, and every thread then scales its elements.
__global__ void rmsNormForwardKernel(const float *x, const float *gain,
                                     int64_t width, double eps, float *y,
                                     float *rstd) {
  __shared__ double partial[kNormThreads];
  const int64_t row = blockIdx.x;
  const float *xr = x + row * width;
  double ss = 0;
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x)
    ss += static_cast<double>(xr[j]) * static_cast<double>(xr[j]);
  partial[threadIdx.x] = ss;
  __syncthreads();
  for (int half = kNormThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const float inv = static_cast<float>(
      1.0 / sqrt(partial[0] / static_cast<double>(width) + eps));
  if (threadIdx.x == 0)
    rstd[row] = inv;
  float *yr = y + row * width;
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x)
    yr[j] = xr[j] * inv * gain[j];
}

} // namespace

cudaError_t rmsNormForward(const float *x, const float *gain, int rows,
                           int64_t width, double eps, float *y, float *rstd,
                           cudaStream_t stream) {
  rmsNormForwardKernel<<<static_cast<unsigned>(rows), kNormThreads, 0,
                         stream>>>(x, gain, width, eps, y, rstd);
  return cudaGetLastError();
}

} // namespace plexus::runtime::cuda::launch
