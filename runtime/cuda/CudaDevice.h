//===- CudaDevice.h - Finding the GPUs of this process ----------*- C++ -*-===//
//
// The first thing a CUDA rank does: count the devices it can see. On a
// machine without a GPU or without a driver the CUDA runtime's
// cudaGetDeviceCount fails; these calls turn that into an error that starts
// with "no CUDA device" and carries the runtime's own text, so a program
// can print it and stop instead of crashing on a later call.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_CUDADEVICE_H
#define PLEXUS_RUNTIME_CUDA_CUDADEVICE_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>

namespace plexus::runtime::cuda {

/// The number of visible devices (0 when the runtime reports none), or the
/// error of cudaGetDeviceCount: "no CUDA device: cudaGetDeviceCount failed:
/// <CUDA's message>".
Result<int> cudaDeviceCount();

/// Success when at least one device is visible; otherwise an error that
/// starts with "no CUDA device".
Status requireCudaDevice();

/// What a program reports about one device.
struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0; ///< compute capability
  int64_t memoryBytes = 0;
  int multiprocessors = 0;
};

/// The properties of device `index`.
Result<DeviceInfo> cudaDeviceInfo(int index);

/// The versions of the driver and of the runtime, "driver 13.0, runtime
/// 13.0"; a driver that cannot be queried reads "driver none".
std::string cudaVersions();

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_CUDADEVICE_H
