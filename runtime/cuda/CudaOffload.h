//===- CudaOffload.h - The model's heavy kernels on a GPU -------*- C++ -*-===//
//
// A KernelOffload (runtime/Offload.h) that runs the model's matmuls and
// its attention core, forward and backward, on one GPU: cuBLAS sgemm and
// the kernels of Attention.cu (runtime/cuda/Kernels.h).
//
// The model's tensors stay on the host, so every call is staged:
//  1. the device scratch grows, if needed, to hold the call's buffers;
//  2. the inputs are copied host -> device (C too when the matmul
//     accumulates);
//  3. the device kernel runs;
//  4. the outputs are copied device -> host, and the call waits for the
//     stream.
// Everything is enqueued on this object's own stream, in that order. The
// copies are from and to pageable host memory, so they cost about what
// the bytes cost over PCIe, synchronously; for the matmuls of a small
// model they can cost more than the product itself. Device-resident
// tensors, which remove them, are a later step.
//
// Head widths above 128, which the device attention kernels do not take,
// run the attention core on the CPU kernels instead (the matmuls still run
// on the GPU).
//
// The scratch is one device buffer that grows (in whole MiB) to the
// largest call seen and is kept until release(); each call carves its
// buffers out of it at 256-byte boundaries.
//
// Numbers: fp32 throughout. cuBLAS and the attention kernels add in their
// own order, so results are close to the CPU kernels' (1e-4 relative in
// the tests), not bit-identical. The handle keeps CUBLAS_DEFAULT_MATH: full
// fp32 products, no TF32 unless NVIDIA_TF32_OVERRIDE asks for it.
//
// Not thread-safe: one stream, one scratch. One process per rank, as the
// CUDA backend runs.
//
// Errors: every CUDA and cuBLAS return code is checked and comes back with
// the rank and the call in front, e.g. "kernel offload on rank 3: matmul
// 608x256 by 256x1024: cudaMemcpyAsync of A to the device failed: ...".
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_CUDAOFFLOAD_H
#define PLEXUS_RUNTIME_CUDA_CUDAOFFLOAD_H

#include "runtime/Offload.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace plexus::runtime::cuda {

class CudaOffload final : public KernelOffload {
public:
  /// Selects `device`, then creates a stream and a cuBLAS handle on it.
  /// `rank` only labels messages. Fails with "kernel offload start-up on
  /// rank r: no CUDA device: ..." where there is no GPU or driver, and
  /// names the device when it does not exist.
  static Result<std::unique_ptr<CudaOffload>> create(int device, int rank);

  ~CudaOffload() override;
  CudaOffload(const CudaOffload &) = delete;
  CudaOffload &operator=(const CudaOffload &) = delete;

  /// "CUDA device 0".
  std::string name() const override;
  int device() const { return deviceIndex; }
  int rank() const { return rankIndex; }
  /// Bytes of device scratch held now.
  size_t scratchBytes() const { return scratchSize; }

  Status matmul(const float *a, bool transA, const float *b, bool transB,
                float *c, int64_t m, int64_t n, int64_t k,
                bool accumulate) override;
  Status attentionForward(const std::vector<Slice> &slices,
                          cpu::AttentionHeads shape, const float *q,
                          const float *k, const float *v, const float *ctxK,
                          const float *ctxV, float *out, float *lse) override;
  Status attentionBackward(const std::vector<Slice> &slices,
                           cpu::AttentionHeads shape, const float *q,
                           const float *k, const float *v, const float *ctxK,
                           const float *ctxV, const float *out,
                           const float *lse, const float *dout, float *dq,
                           float *dk, float *dv, float *dctxK,
                           float *dctxV) override;

  /// Frees the scratch, the cuBLAS handle and the stream (checked); the
  /// offload cannot be used afterwards. The destructor does the same,
  /// silently.
  Status release();

private:
  CudaOffload(int device, int rank);

  /// A host buffer and its place in the scratch.
  struct Staged;
  /// Lays `buffers` out in the scratch (growing it), copies the inputs
  /// up, runs `kernel`, copies the outputs down and waits.
  template <typename Kernel>
  Status run(const std::string &at, Staged *buffers, size_t count,
             Kernel &&kernel);
  Status reserve(size_t bytes, const std::string &at);

  int deviceIndex = 0, rankIndex = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  void *scratch = nullptr;
  size_t scratchSize = 0;
  bool released = false;
};

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_CUDAOFFLOAD_H
