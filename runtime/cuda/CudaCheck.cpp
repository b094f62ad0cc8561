//===- CudaCheck.cpp - plxrt-cuda-check: what GPUs this process sees ------===//
//
// Prints the CUDA versions and every visible device, and exits 0. Without a
// GPU or a driver it prints the runtime's reason, which starts with
// "no CUDA device", and exits 2; any other failure exits 1. ctest's
// RuntimeCuda.NoDeviceIsReportedClearly runs it on every machine.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/CudaDevice.h"

#include <cstdio>

using namespace plexus::runtime;
using namespace plexus::runtime::cuda;

int main() {
  std::printf("plxrt-cuda-check: %s\n", cudaVersions().c_str());
  Result<int> count = cudaDeviceCount();
  if (!count) {
    std::printf("%s\n", count.message().c_str());
    return 2;
  }
  if (*count == 0) {
    std::printf("%s\n", requireCudaDevice().message().c_str());
    return 2;
  }
  for (int i = 0; i < *count; ++i) {
    Result<DeviceInfo> info = cudaDeviceInfo(i);
    if (!info) {
      std::printf("%s\n", info.message().c_str());
      return 1;
    }
    std::printf("device %d: %s, compute %d.%d, %lld MiB, %d SMs\n", i,
                info->name.c_str(), info->major, info->minor,
                static_cast<long long>(info->memoryBytes >> 20),
                info->multiprocessors);
  }
  return 0;
}
