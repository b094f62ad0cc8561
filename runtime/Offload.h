//===- Offload.h - Where the model's heavy kernels run ----------*- C++ -*-===//
//
// The model (runtime/Model.cpp) runs every projection through one matmul
// helper and its attention core through one forward and one backward call.
// A KernelOffload takes those three kernels over: the fp32 matmul and the
// attention core's forward and backward, on HOST buffers, with the
// contracts of cpu::matmul, cpu::attentionForward and
// cpu::attentionBackward (runtime/cpu/Kernels.h). Together they are well
// over 90% of a step's FLOPs. Everything else (norms, RoPE, activations,
// cross-entropy, the optimizer) stays on the CPU kernels.
//
// One offload is installed per process with setKernelOffload. With none
// installed (the default) the model calls the CPU kernels directly and its
// results are unchanged, bit for bit. The CUDA backend installs a
// cuda::CudaOffload (runtime/cuda/CudaOffload.h), which copies each call's
// inputs to the GPU, runs the device kernel and copies the outputs back.
//
// Rules:
//  * One process per rank. Set the offload once at start-up, before any
//    compute, and clear it (nullptr) before destroying it, after the last.
//    It is not for switching backends in the middle of a step: a step run
//    half on one and half on the other adds in two different orders.
//  * The pointer is read by every thread that computes, but an offload
//    need not be thread-safe (the CUDA one is not: one stream, one
//    scratch). In-process ranks (LoopbackWorld's threads) must therefore
//    run without one, or with one that is thread-safe.
//  * fp32 only. The double instantiations of the model (the gradient
//    checks) always run on the CPU kernels, offload or not.
//  * Errors come back as values; the model adds which kernel it was and
//    where it ran, e.g. "q projection on CUDA device 0: ...".
//
// This interface lives in plxrt and has no CUDA in it.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_OFFLOAD_H
#define PLEXUS_RUNTIME_OFFLOAD_H

#include "runtime/Status.h"
#include "runtime/cpu/Kernels.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::runtime {

class KernelOffload {
public:
  virtual ~KernelOffload();

  /// Where the kernels run, for messages: "CUDA device 0".
  virtual std::string name() const = 0;

  /// cpu::matmul's contract on host buffers: C = op(A) op(B), or C +=
  /// op(A) op(B) when `accumulate`; op(A) m x k (A stored k x m when
  /// `transA`), op(B) k x n (B stored n x k when `transB`), C m x n, all
  /// row-major and contiguous. C is written only on success.
  virtual Status matmul(const float *a, bool transA, const float *b,
                        bool transB, float *c, int64_t m, int64_t n, int64_t k,
                        bool accumulate) = 0;

  /// cpu::attentionForward's contract on host buffers: q and out [sum
  /// tokens, heads, headDim], k and v [sum tokens, kvHeads, headDim], ctxK
  /// and ctxV [sum context, kvHeads, headDim] (null when no slice has
  /// context), lse [sum tokens, heads].
  virtual Status attentionForward(const std::vector<Slice> &slices,
                                  cpu::AttentionHeads shape, const float *q,
                                  const float *k, const float *v,
                                  const float *ctxK, const float *ctxV,
                                  float *out, float *lse) = 0;

  /// cpu::attentionBackward's contract on host buffers: dq, dk, dv
  /// overwritten; dctxK and dctxV overwritten when non-null (each may be
  /// null); ctxK and ctxV null when no slice has context.
  virtual Status attentionBackward(const std::vector<Slice> &slices,
                                   cpu::AttentionHeads shape, const float *q,
                                   const float *k, const float *v,
                                   const float *ctxK, const float *ctxV,
                                   const float *out, const float *lse,
                                   const float *dout, float *dq, float *dk,
                                   float *dv, float *dctxK, float *dctxV) = 0;
};

/// Installs `offload` for the whole process (nullptr: the CPU kernels).
/// Not owned: the caller keeps it alive until it clears it again.
void setKernelOffload(KernelOffload *offload);

/// The installed offload, or nullptr.
KernelOffload *kernelOffload();

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_OFFLOAD_H
