//===- CudaStatus.h - CUDA, cuBLAS and NCCL codes as Status -----*- C++ -*-===//
//
// The CUDA backend never aborts on a failed call: every return code of the
// CUDA runtime, cuBLAS and NCCL goes through one of these helpers, which
// turn it into a plxrt Status whose message says where it failed (the op
// and the rank, the same "<op> on rank <r>" lead as Comm::where) and the
// library's own words for the code, e.g.
//   "cudaMalloc on rank 3: out of memory (cudaErrorMemoryAllocation)".
// Success stays success, so a call reads PLXRT_TRY(checkCuda(rc, at)).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_CUDASTATUS_H
#define PLEXUS_RUNTIME_CUDA_CUDASTATUS_H

#include "runtime/Status.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace plexus::runtime::cuda {

/// "cudaMalloc on rank 3": the lead of a message.
inline std::string onRank(const std::string &op, int rank) {
  return op + " on rank " + std::to_string(rank);
}

/// The CUDA runtime's text for `rc` and its name, "out of memory
/// (cudaErrorMemoryAllocation)".
inline std::string cudaMessage(cudaError_t rc) {
  return std::string(cudaGetErrorString(rc)) + " (" + cudaGetErrorName(rc) +
         ")";
}

/// Success, or "<at>: <CUDA's message>".
inline Status checkCuda(cudaError_t rc, const std::string &at) {
  if (rc == cudaSuccess)
    return Status::success();
  return Status::error(at + ": " + cudaMessage(rc));
}

/// The same for the call `op` made on `rank`.
inline Status checkCuda(cudaError_t rc, const char *op, int rank) {
  return checkCuda(rc, onRank(op, rank));
}

/// Success, or "<at>: <cuBLAS's message>".
inline Status checkCublas(cublasStatus_t rc, const std::string &at) {
  if (rc == CUBLAS_STATUS_SUCCESS)
    return Status::success();
  return Status::error(at + ": " + cublasGetStatusString(rc) + " (" +
                       cublasGetStatusName(rc) + ")");
}

inline Status checkCublas(cublasStatus_t rc, const char *op, int rank) {
  return checkCublas(rc, onRank(op, rank));
}

/// Success, or "<at>: <NCCL's message>", with NCCL's description of the
/// last error where it has one (it names the failing peer or resource).
inline Status checkNccl(ncclResult_t rc, const std::string &at) {
  if (rc == ncclSuccess)
    return Status::success();
  std::string text = at + ": " + ncclGetErrorString(rc);
  const char *detail = ncclGetLastError(nullptr);
  if (detail && *detail)
    text += " (" + std::string(detail) + ")";
  return Status::error(text);
}

inline Status checkNccl(ncclResult_t rc, const char *op, int rank) {
  return checkNccl(rc, onRank(op, rank));
}

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_CUDASTATUS_H
