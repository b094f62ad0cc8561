//===- StagedComm.cpp - NcclComm for callers holding host buffers ---------===//
//
// Every op is: grow the scratch, copy the input up, run the NcclComm op on
// the scratch, copy the result down. The copies go on the NcclComm's
// stream, so the NCCL work enqueued there runs after the copy up, and the
// copy down after the NCCL work; the last step waits for the stream.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/StagedComm.h"

#include "runtime/cuda/CudaStatus.h"

namespace plexus::runtime::cuda {

namespace {
/// Scratch grows in whole MiB, so that slowly growing calls do not
/// reallocate every time.
constexpr size_t kGrain = size_t(1) << 20;

size_t bytesFor(int64_t elements, DType dtype) {
  return static_cast<size_t>(elements) * static_cast<size_t>(bytesOf(dtype));
}
} // namespace

StagedComm::StagedComm(NcclComm &device) : nccl(device) {}

StagedComm::~StagedComm() {
  (void)cudaFree(inScratch.ptr);
  (void)cudaFree(outScratch.ptr);
}

int StagedComm::rank() const { return nccl.rank(); }
int StagedComm::size() const { return nccl.size(); }

Status StagedComm::freeScratch(Scratch &s, const std::string &at) {
  if (!s.ptr)
    return Status::success();
  void *p = s.ptr;
  s.ptr = nullptr;
  s.bytes = 0;
  return checkCuda(cudaFree(p), at + ": cudaFree of the device scratch failed");
}

Status StagedComm::release() {
  const std::string at = onRank("StagedComm release", rank());
  Status first = freeScratch(inScratch, at);
  Status second = freeScratch(outScratch, at);
  return first.ok() ? second : first;
}

Status StagedComm::reserve(Scratch &s, size_t bytes, const std::string &at) {
  if (bytes <= s.bytes)
    return Status::success();
  PLXRT_TRY(freeScratch(s, at));
  const size_t grown = (bytes + kGrain - 1) / kGrain * kGrain;
  void *p = nullptr;
  PLXRT_TRY(checkCuda(cudaMalloc(&p, grown),
                      at + ": cudaMalloc of the device scratch (" +
                          std::to_string(grown) + " bytes) failed"));
  s.ptr = p;
  s.bytes = grown;
  return Status::success();
}

Status StagedComm::toDevice(void *dst, const void *src, size_t bytes,
                            const std::string &at) {
  if (bytes == 0)
    return Status::success();
  return checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                   static_cast<cudaStream_t>(nccl.stream())),
                   at + ": cudaMemcpyAsync to the device failed");
}

Status StagedComm::toHost(void *dst, const void *src, size_t bytes,
                          const std::string &at) {
  if (bytes == 0)
    return Status::success();
  auto stream = static_cast<cudaStream_t>(nccl.stream());
  PLXRT_TRY(
      checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream),
                at + ": cudaMemcpyAsync to the host failed"));
  return checkCuda(cudaStreamSynchronize(stream),
                   at + ": cudaStreamSynchronize after the copy to the host "
                        "failed");
}

Status StagedComm::doAllToAll(const Group &group, int, const void *in,
                              void *out, int64_t count, DType dtype) {
  const std::string at = where("all_to_all", group);
  const size_t bytes =
      bytesFor(count * static_cast<int64_t>(group.size()), dtype);
  PLXRT_TRY(reserve(inScratch, bytes, at));
  PLXRT_TRY(reserve(outScratch, bytes, at));
  PLXRT_TRY(toDevice(inScratch.ptr, in, bytes, at));
  PLXRT_TRY(nccl.allToAll(group, inScratch.ptr, outScratch.ptr, count, dtype));
  return toHost(out, outScratch.ptr, bytes, at);
}

Status StagedComm::doAllReduce(const Group &group, int, void *data,
                               int64_t count, DType dtype) {
  const std::string at = where("all_reduce", group);
  const size_t bytes = bytesFor(count, dtype);
  PLXRT_TRY(reserve(inScratch, bytes, at));
  PLXRT_TRY(toDevice(inScratch.ptr, data, bytes, at));
  PLXRT_TRY(nccl.allReduce(group, inScratch.ptr, count, dtype));
  return toHost(data, inScratch.ptr, bytes, at);
}

Status StagedComm::doAllGather(const Group &group, int, const void *in,
                               void *out, int64_t count, DType dtype) {
  const std::string at = where("all_gather", group);
  const size_t inBytes = bytesFor(count, dtype);
  const size_t outBytes =
      bytesFor(count * static_cast<int64_t>(group.size()), dtype);
  PLXRT_TRY(reserve(inScratch, inBytes, at));
  PLXRT_TRY(reserve(outScratch, outBytes, at));
  PLXRT_TRY(toDevice(inScratch.ptr, in, inBytes, at));
  PLXRT_TRY(nccl.allGather(group, inScratch.ptr, outScratch.ptr, count, dtype));
  return toHost(out, outScratch.ptr, outBytes, at);
}

Status StagedComm::doReduceScatter(const Group &group, int, const void *in,
                                   void *out, int64_t count, DType dtype) {
  const std::string at = where("reduce_scatter", group);
  const size_t inBytes =
      bytesFor(count * static_cast<int64_t>(group.size()), dtype);
  const size_t outBytes = bytesFor(count, dtype);
  PLXRT_TRY(reserve(inScratch, inBytes, at));
  PLXRT_TRY(reserve(outScratch, outBytes, at));
  PLXRT_TRY(toDevice(inScratch.ptr, in, inBytes, at));
  PLXRT_TRY(
      nccl.reduceScatter(group, inScratch.ptr, outScratch.ptr, count, dtype));
  return toHost(out, outScratch.ptr, outBytes, at);
}

Status StagedComm::doSend(int peer, const void *data, int64_t count,
                          DType dtype, int tag) {
  const std::string at = where("send", peer, tag);
  const size_t bytes = bytesFor(count, dtype);
  PLXRT_TRY(reserve(inScratch, bytes, at));
  PLXRT_TRY(toDevice(inScratch.ptr, data, bytes, at));
  // NcclComm::send enqueues its ncclSend after the copy and waits for the
  // stream, so the host buffer may be reused when it returns.
  return nccl.send(peer, inScratch.ptr, count, dtype, tag);
}

Status StagedComm::doRecv(int peer, void *data, int64_t count, DType dtype,
                          int tag) {
  const std::string at = where("recv", peer, tag);
  const size_t bytes = bytesFor(count, dtype);
  PLXRT_TRY(reserve(outScratch, bytes, at));
  PLXRT_TRY(nccl.recv(peer, outScratch.ptr, count, dtype, tag));
  return toHost(data, outScratch.ptr, bytes, at);
}

} // namespace plexus::runtime::cuda
