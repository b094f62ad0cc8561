//===- StagedComm.h - NcclComm for callers holding host buffers -*- C++ -*-===//
//
// NcclComm (NcclComm.h) takes device pointers; the step executor's tensors
// live on the host. StagedComm is the Comm between them: each call copies
// its input from the host into a device scratch buffer, runs the NcclComm
// op on the device buffers, and copies the result back to the host buffer
// it was given. The scratch buffers belong to this object and grow to the
// largest call seen; they are never shrunk until release().
//
// The copies and the NCCL work are enqueued on the NcclComm's stream, in
// that order, and the call returns after the stream has finished the copy
// back, so Comm.h's blocking semantics hold on host memory. Results are
// NcclComm's: close to, not bit-identical with, MpiComm's (NCCL sums in an
// order of its own).
//
// Errors: every CUDA return code is checked; a failed copy or allocation
// comes back as an error with the op, the rank and the group (or the peer
// and tag) in front, e.g. "all_reduce on rank 3 over [0, 1]: cudaMalloc of
// the device scratch (8192 bytes) failed: out of memory
// (cudaErrorMemoryAllocation)". NcclComm's own errors pass through.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_STAGEDCOMM_H
#define PLEXUS_RUNTIME_CUDA_STAGEDCOMM_H

#include "runtime/cuda/NcclComm.h"

#include <cstddef>

namespace plexus::runtime::cuda {

class StagedComm final : public Comm {
public:
  /// Wraps `device`, which must outlive this object. Allocates nothing
  /// until the first call that moves data.
  explicit StagedComm(NcclComm &device);
  ~StagedComm() override;
  StagedComm(const StagedComm &) = delete;
  StagedComm &operator=(const StagedComm &) = delete;

  int rank() const override;
  int size() const override;

  /// The wrapped comm.
  NcclComm &deviceComm() const { return nccl; }
  /// Bytes of device scratch held now (both buffers).
  size_t scratchBytes() const { return inScratch.bytes + outScratch.bytes; }

  /// Frees the device scratch (checked). The next call allocates again.
  /// The destructor does the same, silently.
  Status release();

protected:
  Status doAllToAll(const Group &group, int index, const void *in, void *out,
                    int64_t count, DType dtype) override;
  Status doAllReduce(const Group &group, int index, void *data, int64_t count,
                     DType dtype) override;
  Status doAllGather(const Group &group, int index, const void *in, void *out,
                     int64_t count, DType dtype) override;
  Status doReduceScatter(const Group &group, int index, const void *in,
                         void *out, int64_t count, DType dtype) override;
  Status doSend(int peer, const void *data, int64_t count, DType dtype,
                int tag) override;
  Status doRecv(int peer, void *data, int64_t count, DType dtype,
                int tag) override;

private:
  /// A device buffer that only grows.
  struct Scratch {
    void *ptr = nullptr;
    size_t bytes = 0;
  };
  /// `s` holds at least `bytes` (its old contents are lost when it grows).
  Status reserve(Scratch &s, size_t bytes, const std::string &at);
  /// Host `src` to device `dst`, enqueued on the comm's stream.
  Status toDevice(void *dst, const void *src, size_t bytes,
                  const std::string &at);
  /// Device `src` to host `dst`, and waits for the stream.
  Status toHost(void *dst, const void *src, size_t bytes,
                const std::string &at);
  Status freeScratch(Scratch &s, const std::string &at);

  NcclComm &nccl;
  Scratch inScratch, outScratch;
};

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_STAGEDCOMM_H
