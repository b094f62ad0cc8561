//===- CudaDevice.cpp - Finding the GPUs of this process ------------------===//
//
// Only the CUDA runtime API: no kernels, so it compiles as plain C++.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/CudaDevice.h"

#include "runtime/cuda/CudaStatus.h"

namespace plexus::runtime::cuda {

Result<int> cudaDeviceCount() {
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    // A failed query leaves the runtime's sticky error set; clear it so
    // that a later, unrelated call does not report it again.
    (void)cudaGetLastError();
    return Status::error("no CUDA device: cudaGetDeviceCount failed: " +
                         cudaMessage(rc));
  }
  return count;
}

Status requireCudaDevice() {
  Result<int> count = cudaDeviceCount();
  if (!count)
    return count.status();
  if (*count == 0)
    return Status::error("no CUDA device: cudaGetDeviceCount found 0 devices");
  return Status::success();
}

Result<DeviceInfo> cudaDeviceInfo(int index) {
  cudaDeviceProp prop{};
  PLXRT_TRY(
      checkCuda(cudaGetDeviceProperties(&prop, index),
                "cudaGetDeviceProperties of device " + std::to_string(index)));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.memoryBytes = static_cast<int64_t>(prop.totalGlobalMem);
  info.multiprocessors = prop.multiProcessorCount;
  return info;
}

namespace {
std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
} // namespace

std::string cudaVersions() {
  int driver = 0, runtime = 0;
  std::string text = "driver ";
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    text += versionText(driver);
  else
    text += "none";
  text += ", runtime ";
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    text += versionText(runtime);
  else
    text += "unknown";
  return text;
}

} // namespace plexus::runtime::cuda
