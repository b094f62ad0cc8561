//===- Kernels.cpp - Checked entry points of the CUDA kernels -------------===//
//
// Host side of Kernels.h: argument and size checks, then the raw launches
// of Kernels.cu, with their codes turned into Status messages.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Kernels.h"

#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/KernelLaunch.h"

#include <climits>

namespace plexus::runtime::cuda {

namespace {
Status fitsInt(int64_t value, const char *what, const std::string &at) {
  if (value < 0 || value > INT_MAX)
    return Status::error(at + ": " + what + " = " + std::to_string(value) +
                         " is outside cuBLAS's int range");
  return Status::success();
}
} // namespace

Status matmul(cublasHandle_t handle, const float *a, bool transA,
              const float *b, bool transB, float *c, int64_t m, int64_t n,
              int64_t k, bool accumulate) {
  const std::string at = "matmul " + std::to_string(m) + "x" +
                         std::to_string(k) + " by " + std::to_string(k) + "x" +
                         std::to_string(n);
  PLXRT_TRY(fitsInt(m, "m", at));
  PLXRT_TRY(fitsInt(n, "n", at));
  PLXRT_TRY(fitsInt(k, "k", at));
  if (m == 0 || n == 0)
    return Status::success();
  return checkCublas(launch::sgemmRowMajor(
                         handle, a, transA, b, transB, c, static_cast<int>(m),
                         static_cast<int>(n), static_cast<int>(k), accumulate),
                     at + ": cublasSgemm failed");
}

Status rmsNormForward(const float *x, const float *gain, int64_t rows,
                      int64_t width, double eps, float *y, float *rstd,
                      cudaStream_t stream) {
  const std::string at = "rms_norm_forward of " + std::to_string(rows) + "x" +
                         std::to_string(width);
  if (rows < 0 || width <= 0)
    return Status::error(at + ": needs rows >= 0 and width > 0");
  if (rows > INT_MAX)
    return Status::error(at + ": more rows than one grid holds");
  if (rows == 0)
    return Status::success();
  return checkCuda(launch::rmsNormForward(x, gain, static_cast<int>(rows),
                                          width, eps, y, rstd, stream),
                   at + ": kernel launch failed");
}

} // namespace plexus::runtime::cuda
