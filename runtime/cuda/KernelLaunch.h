//===- KernelLaunch.h - Raw entry points of Kernels.cu ----------*- C++ -*-===//
//
// What Kernels.cu exports to Kernels.cpp: the launches and library calls,
// returning the libraries' own codes. Kept free of plxrt's Status so that
// nvcc compiles only device code and these thin wrappers; Kernels.cpp (host
// C++) checks the sizes and turns the codes into Status messages.
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

} // namespace plexus::runtime::cuda::launch

#endif // PLEXUS_RUNTIME_CUDA_KERNELLAUNCH_H
