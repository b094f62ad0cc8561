//===- CudaOffload.cpp - The model's heavy kernels on a GPU ---------------===//
//
// Each call: describe its host buffers (inputs, outputs, or both for an
// accumulating C), lay them out in the scratch, copy the inputs up, run
// the checked device kernel of Kernels.h on the offload's stream, copy the
// outputs down and wait for the stream. A failure after work was enqueued
// still waits for the stream (ignoring that wait's own code), so that no
// copy touches a host buffer after the call has returned.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/CudaOffload.h"

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/KernelLaunch.h"
#include "runtime/cuda/Kernels.h"

#include <climits>
#include <cstring>

namespace plexus::runtime::cuda {

namespace {
/// The scratch grows in whole MiB; each buffer starts on a 256-byte
/// boundary (cudaMalloc's own alignment).
constexpr size_t kGrain = size_t(1) << 20;
constexpr size_t kAlign = 256;

size_t roundUp(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

size_t floatBytes(int64_t elements) {
  return static_cast<size_t>(elements) * sizeof(float);
}

/// The same lead as cuda::attentionForward's messages: "attention_forward
/// of 3 slices (40 rows, 12 context rows), 4 heads over 2 K/V heads of 16".
std::string attentionWhere(const char *op, const std::vector<Slice> &slices,
                           cpu::AttentionHeads shape, int64_t rows,
                           int64_t contextRows) {
  return std::string(op) + " of " + std::to_string(slices.size()) +
         " slices (" + std::to_string(rows) + " rows, " +
         std::to_string(contextRows) + " context rows), " +
         std::to_string(shape.heads) + " heads over " +
         std::to_string(shape.kvHeads) + " K/V heads of " +
         std::to_string(shape.headDim);
}

/// The slices' total tokens and context.
void sumSlices(const std::vector<Slice> &slices, int64_t &rows,
               int64_t &contextRows) {
  rows = contextRows = 0;
  for (const Slice &s : slices) {
    rows += s.tokens;
    contextRows += s.context;
  }
}

/// Sizes no byte count may be formed from: a negative slice or head count
/// (the device kernels check the rest themselves).
Status checkSizes(const std::string &at, const std::vector<Slice> &slices,
                  cpu::AttentionHeads shape) {
  for (size_t i = 0; i < slices.size(); ++i)
    if (slices[i].tokens < 0 || slices[i].context < 0)
      return Status::error(
          at + ": slice " + std::to_string(i) +
          " has tokens = " + std::to_string(slices[i].tokens) +
          " and context = " + std::to_string(slices[i].context) +
          "; both must be >= 0");
  if (shape.heads <= 0 || shape.kvHeads <= 0 || shape.headDim <= 0)
    return Status::error(at + ": heads, K/V heads and head_dim must be "
                              "positive");
  return Status::success();
}

/// Head widths the device kernels do not take run on the CPU kernels.
bool deviceTakes(cpu::AttentionHeads shape) {
  return shape.headDim <= launch::kAttentionMaxHeadDim;
}
} // namespace

/// One host buffer of a call: copied up when `in` is set, down when `out`
/// is set (both: an accumulating C). A null host pointer or zero bytes
/// gets a null device pointer, which the kernels' own checks see.
struct CudaOffload::Staged {
  const char *name = "";
  const void *in = nullptr;
  void *out = nullptr;
  size_t bytes = 0;
  float *device = nullptr;

  static Staged input(const char *name, const float *host, size_t bytes) {
    Staged s;
    s.name = name;
    s.in = host;
    s.bytes = bytes;
    return s;
  }
  static Staged output(const char *name, float *host, size_t bytes) {
    Staged s;
    s.name = name;
    s.out = host;
    s.bytes = bytes;
    return s;
  }
  bool used() const { return bytes > 0 && (in || out); }
};

CudaOffload::CudaOffload(int device, int rank)
    : deviceIndex(device), rankIndex(rank) {}

CudaOffload::~CudaOffload() {
  if (released)
    return;
  (void)cudaSetDevice(deviceIndex);
  if (handle)
    (void)cublasDestroy(handle);
  if (stream)
    (void)cudaStreamDestroy(stream);
  (void)cudaFree(scratch);
}

Result<std::unique_ptr<CudaOffload>> CudaOffload::create(int device, int rank) {
  const std::string at = onRank("kernel offload start-up", rank);
  PLXRT_TRY(requireCudaDevice().withContext(at));
  Result<int> count = cudaDeviceCount();
  if (!count)
    return count.status().withContext(at);
  if (device < 0 || device >= *count)
    return Status::error(at + ": device " + std::to_string(device) +
                         " does not exist (" + std::to_string(*count) +
                         " visible)");
  std::unique_ptr<CudaOffload> made(new CudaOffload(device, rank));
  const std::string on = " (device " + std::to_string(device) + ")";
  PLXRT_TRY(
      checkCuda(cudaSetDevice(device),
                at + ": cudaSetDevice(" + std::to_string(device) + ") failed"));
  PLXRT_TRY(
      checkCuda(cudaStreamCreateWithFlags(&made->stream, cudaStreamNonBlocking),
                at + ": cudaStreamCreateWithFlags" + on + " failed"));
  PLXRT_TRY(checkCublas(cublasCreate(&made->handle),
                        at + ": cublasCreate" + on + " failed"));
  PLXRT_TRY(checkCublas(cublasSetStream(made->handle, made->stream),
                        at + ": cublasSetStream" + on + " failed"));
  return Result<std::unique_ptr<CudaOffload>>(std::move(made));
}

std::string CudaOffload::name() const {
  return "CUDA device " + std::to_string(deviceIndex);
}

Status CudaOffload::release() {
  if (released)
    return Status::success();
  released = true;
  const std::string at = onRank("kernel offload release", rankIndex);
  Status first = checkCuda(cudaSetDevice(deviceIndex),
                           at + ": cudaSetDevice(" +
                               std::to_string(deviceIndex) + ") failed");
  auto keep = [&first](Status s) {
    if (first.ok())
      first = std::move(s);
  };
  if (handle)
    keep(checkCublas(cublasDestroy(handle), at + ": cublasDestroy failed"));
  handle = nullptr;
  if (stream)
    keep(checkCuda(cudaStreamDestroy(stream),
                   at + ": cudaStreamDestroy failed"));
  stream = nullptr;
  if (scratch)
    keep(checkCuda(cudaFree(scratch),
                   at + ": cudaFree of the device scratch failed"));
  scratch = nullptr;
  scratchSize = 0;
  return first;
}

Status CudaOffload::reserve(size_t bytes, const std::string &at) {
  if (bytes <= scratchSize)
    return Status::success();
  // Nothing is in flight here: every call ends by waiting for the stream.
  if (scratch) {
    void *old = scratch;
    scratch = nullptr;
    scratchSize = 0;
    PLXRT_TRY(checkCuda(cudaFree(old),
                        at + ": cudaFree of the device scratch failed"));
  }
  const size_t grown = roundUp(bytes, kGrain);
  void *p = nullptr;
  PLXRT_TRY(checkCuda(cudaMalloc(&p, grown),
                      at + ": cudaMalloc of the device scratch (" +
                          std::to_string(grown) + " bytes) failed"));
  scratch = p;
  scratchSize = grown;
  return Status::success();
}

template <typename Kernel>
Status CudaOffload::run(const std::string &at, Staged *buffers, size_t count,
                        Kernel &&kernel) {
  if (released)
    return Status::error(at + ": the offload was released");
  PLXRT_TRY(checkCuda(cudaSetDevice(deviceIndex),
                      at + ": cudaSetDevice(" + std::to_string(deviceIndex) +
                          ") failed"));
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    if (buffers[i].used())
      total += roundUp(buffers[i].bytes, kAlign);
  PLXRT_TRY(reserve(total, at));
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    Staged &b = buffers[i];
    b.device = nullptr;
    if (!b.used())
      continue;
    b.device = reinterpret_cast<float *>(static_cast<char *>(scratch) + offset);
    offset += roundUp(b.bytes, kAlign);
  }

  // From the first enqueued copy on, a failure waits for the stream
  // before it returns.
  auto settle = [this](Status failed) {
    (void)cudaStreamSynchronize(stream);
    return failed;
  };
  for (size_t i = 0; i < count; ++i) {
    const Staged &b = buffers[i];
    if (!b.used() || !b.in)
      continue;
    Status st = checkCuda(cudaMemcpyAsync(b.device, b.in, b.bytes,
                                          cudaMemcpyHostToDevice, stream),
                          at + ": cudaMemcpyAsync of " + b.name +
                              " to the device failed");
    if (!st.ok())
      return settle(st);
  }
  Status ran = kernel();
  if (!ran.ok())
    return settle(ran.withContext(onRank("kernel offload", rankIndex)));
  for (size_t i = 0; i < count; ++i) {
    const Staged &b = buffers[i];
    if (!b.used() || !b.out)
      continue;
    Status st = checkCuda(cudaMemcpyAsync(b.out, b.device, b.bytes,
                                          cudaMemcpyDeviceToHost, stream),
                          at + ": cudaMemcpyAsync of " + b.name +
                              " to the host failed");
    if (!st.ok())
      return settle(st);
  }
  return checkCuda(cudaStreamSynchronize(stream),
                   at + ": cudaStreamSynchronize failed");
}

Status CudaOffload::matmul(const float *a, bool transA, const float *b,
                           bool transB, float *c, int64_t m, int64_t n,
                           int64_t k, bool accumulate) {
  const std::string what = "matmul " + std::to_string(m) + "x" +
                           std::to_string(k) + " by " + std::to_string(k) +
                           "x" + std::to_string(n);
  const std::string at = onRank("kernel offload", rankIndex) + ": " + what;
  for (int64_t v : {m, n, k})
    if (v < 0 || v > INT_MAX)
      return Status::error(at + ": a size is outside cuBLAS's int range");
  if (m == 0 || n == 0)
    return Status::success();
  if (k == 0) {
    // An empty sum: cpu::matmul's C = 0, or C unchanged.
    if (!accumulate)
      std::memset(c, 0, floatBytes(m * n));
    return Status::success();
  }
  Staged buffers[3] = {Staged::input("A", a, floatBytes(m * k)),
                       Staged::input("B", b, floatBytes(k * n)),
                       Staged::output("C", c, floatBytes(m * n))};
  if (accumulate)
    buffers[2].in = c;
  return run(at, buffers, 3, [&] {
    return cuda::matmul(handle, buffers[0].device, transA, buffers[1].device,
                        transB, buffers[2].device, m, n, k, accumulate);
  });
}

Status CudaOffload::attentionForward(const std::vector<Slice> &slices,
                                     cpu::AttentionHeads shape, const float *q,
                                     const float *k, const float *v,
                                     const float *ctxK, const float *ctxV,
                                     float *out, float *lse) {
  int64_t rows = 0, contextRows = 0;
  sumSlices(slices, rows, contextRows);
  const std::string at =
      onRank("kernel offload", rankIndex) + ": " +
      attentionWhere("attention_forward", slices, shape, rows, contextRows);
  PLXRT_TRY(checkSizes(at, slices, shape));
  if (!deviceTakes(shape)) {
    cpu::attentionForward(slices, shape, q, k, v, ctxK, ctxV, out, lse);
    return Status::success();
  }
  const int64_t d = shape.headDim, qWidth = shape.heads * d,
                kvWidth = shape.kvHeads * d;
  Staged buffers[7] = {
      Staged::input("q", q, floatBytes(rows * qWidth)),
      Staged::input("k", k, floatBytes(rows * kvWidth)),
      Staged::input("v", v, floatBytes(rows * kvWidth)),
      Staged::input("ctx_k", ctxK, floatBytes(contextRows * kvWidth)),
      Staged::input("ctx_v", ctxV, floatBytes(contextRows * kvWidth)),
      Staged::output("out", out, floatBytes(rows * qWidth)),
      Staged::output("lse", lse, floatBytes(rows * shape.heads))};
  return run(at, buffers, 7, [&] {
    return cuda::attentionForward(
        slices, shape, rows, contextRows, buffers[0].device, buffers[1].device,
        buffers[2].device, buffers[3].device, buffers[4].device,
        buffers[5].device, buffers[6].device, stream);
  });
}

Status CudaOffload::attentionBackward(const std::vector<Slice> &slices,
                                      cpu::AttentionHeads shape, const float *q,
                                      const float *k, const float *v,
                                      const float *ctxK, const float *ctxV,
                                      const float *out, const float *lse,
                                      const float *dout, float *dq, float *dk,
                                      float *dv, float *dctxK, float *dctxV) {
  int64_t rows = 0, contextRows = 0;
  sumSlices(slices, rows, contextRows);
  const std::string at =
      onRank("kernel offload", rankIndex) + ": " +
      attentionWhere("attention_backward", slices, shape, rows, contextRows);
  PLXRT_TRY(checkSizes(at, slices, shape));
  if (!deviceTakes(shape)) {
    cpu::attentionBackward(slices, shape, q, k, v, ctxK, ctxV, out, lse, dout,
                           dq, dk, dv, dctxK, dctxV);
    return Status::success();
  }
  const int64_t d = shape.headDim, qWidth = shape.heads * d,
                kvWidth = shape.kvHeads * d;
  const size_t qBytes = floatBytes(rows * qWidth),
               kvBytes = floatBytes(rows * kvWidth),
               ctxBytes = floatBytes(contextRows * kvWidth);
  Staged buffers[13] = {
      Staged::input("q", q, qBytes),
      Staged::input("k", k, kvBytes),
      Staged::input("v", v, kvBytes),
      Staged::input("ctx_k", ctxK, ctxBytes),
      Staged::input("ctx_v", ctxV, ctxBytes),
      Staged::input("out", out, qBytes),
      Staged::input("lse", lse, floatBytes(rows * shape.heads)),
      Staged::input("dout", dout, qBytes),
      Staged::output("dq", dq, qBytes),
      Staged::output("dk", dk, kvBytes),
      Staged::output("dv", dv, kvBytes),
      Staged::output("d_ctx_k", dctxK, ctxBytes),
      Staged::output("d_ctx_v", dctxV, ctxBytes)};
  return run(at, buffers, 13, [&] {
    return cuda::attentionBackward(
        slices, shape, rows, contextRows, buffers[0].device, buffers[1].device,
        buffers[2].device, buffers[3].device, buffers[4].device,
        buffers[5].device, buffers[6].device, buffers[7].device,
        buffers[8].device, buffers[9].device, buffers[10].device,
        buffers[11].device, buffers[12].device, stream);
  });
}

} // namespace plexus::runtime::cuda
