//===- Kernels.cpp - Checked entry points of the CUDA kernels -------------===//
//
// Host side of Kernels.h: argument and size checks, then the raw launches
// of Kernels.cu and Attention.cu, with their codes turned into Status
// messages. Attention checks everything before its first CUDA call, so a
// wrong call fails with its own message on any machine, GPU or not.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Kernels.h"

#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/KernelLaunch.h"

#include <climits>
#include <cmath>
#include <initializer_list>
#include <utility>

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

namespace {

/// The longest slice (context + tokens) the attention kernels index with
/// int: 2^30 positions.
constexpr int64_t kMaxSlicePositions = int64_t(1) << 30;

/// "attention_forward of 3 slices (40 rows, 12 context rows), 4 heads over
/// 2 K/V heads of 16": the lead of every attention message.
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

/// The shape and slice checks shared by the forward and the backward.
Status checkAttention(const std::string &at, const std::vector<Slice> &slices,
                      cpu::AttentionHeads shape, int64_t rows,
                      int64_t contextRows) {
  if (shape.heads <= 0 || shape.kvHeads <= 0 ||
      shape.heads % shape.kvHeads != 0)
    return Status::error(at + ": heads = " + std::to_string(shape.heads) +
                         " must be a positive multiple of kv_heads = " +
                         std::to_string(shape.kvHeads));
  if (shape.heads > 65535)
    return Status::error(at + ": heads = " + std::to_string(shape.heads) +
                         " is more than one grid dimension holds (65535)");
  if (shape.headDim < 1 || shape.headDim > launch::kAttentionMaxHeadDim)
    return Status::error(at + ": head_dim = " + std::to_string(shape.headDim) +
                         " is outside 1.." +
                         std::to_string(launch::kAttentionMaxHeadDim));
  int64_t tokens = 0, context = 0;
  for (size_t i = 0; i < slices.size(); ++i) {
    const Slice &s = slices[i];
    const std::string which = at + ": slice " + std::to_string(i) + " has ";
    if (s.tokens < 0 || s.context < 0)
      return Status::error(which + "tokens = " + std::to_string(s.tokens) +
                           " and context = " + std::to_string(s.context) +
                           "; both must be >= 0");
    if (s.tokens > kMaxSlicePositions ||
        s.context > kMaxSlicePositions - s.tokens)
      return Status::error(
          which + "context + tokens = " + std::to_string(s.context + s.tokens) +
          ", more than the kernels' 2^30 positions");
    tokens += s.tokens;
    context += s.context;
  }
  if (tokens != rows)
    return Status::error(at + ": the slices hold " + std::to_string(tokens) +
                         " tokens but rows = " + std::to_string(rows));
  if (context != contextRows)
    return Status::error(
        at + ": the slices hold " + std::to_string(context) +
        " context tokens but context rows = " + std::to_string(contextRows));
  return Status::success();
}

/// "<at>: q is null" for the first null buffer, when `needed`.
Status requireBuffers(
    const std::string &at, bool needed,
    std::initializer_list<std::pair<const char *, const void *>> buffers) {
  if (!needed)
    return Status::success();
  for (const auto &[name, ptr] : buffers)
    if (!ptr)
      return Status::error(at + ": " + name + " is null");
  return Status::success();
}

launch::AttentionShape launchShape(cpu::AttentionHeads shape) {
  launch::AttentionShape out;
  out.heads = static_cast<int>(shape.heads);
  out.kvHeads = static_cast<int>(shape.kvHeads);
  out.headDim = static_cast<int>(shape.headDim);
  out.scale =
      static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.headDim)));
  return out;
}

/// Groups the slices with work (blocksOf(slice) > 0) into batches of up to
/// AttentionBatch::kMaxSlices, in slice order, and runs `launchBatch` on
/// each; the first failure stops.
template <typename BlocksOf, typename LaunchBatch>
Status forEachBatch(const std::vector<Slice> &slices, BlocksOf blocksOf,
                    LaunchBatch launchBatch) {
  launch::AttentionBatch batch;
  int64_t row = 0, contextRow = 0;
  for (const Slice &s : slices) {
    const int64_t blocks = blocksOf(s);
    if (blocks > 0) {
      if (batch.count == launch::AttentionBatch::kMaxSlices) {
        PLXRT_TRY(launchBatch(batch));
        batch = launch::AttentionBatch();
      }
      const int i = batch.count;
      batch.tokens[i] = static_cast<int>(s.tokens);
      batch.context[i] = static_cast<int>(s.context);
      batch.rowBegin[i] = row;
      batch.contextBegin[i] = contextRow;
      batch.blockBegin[i] = batch.blocks;
      batch.blocks += static_cast<int>(blocks);
      batch.count = i + 1;
      batch.blockBegin[i + 1] = batch.blocks;
    }
    row += s.tokens;
    contextRow += s.context;
  }
  if (batch.count > 0)
    PLXRT_TRY(launchBatch(batch));
  return Status::success();
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

Status attentionForward(const std::vector<Slice> &slices,
                        cpu::AttentionHeads shape, int64_t rows,
                        int64_t contextRows, const float *q, const float *k,
                        const float *v, const float *ctxK, const float *ctxV,
                        float *out, float *lse, cudaStream_t stream) {
  const std::string at =
      attentionWhere("attention_forward", slices, shape, rows, contextRows);
  PLXRT_TRY(checkAttention(at, slices, shape, rows, contextRows));
  PLXRT_TRY(requireBuffers(
      at, rows > 0,
      {{"q", q}, {"k", k}, {"v", v}, {"out", out}, {"lse", lse}}));
  PLXRT_TRY(
      requireBuffers(at, contextRows > 0, {{"ctx_k", ctxK}, {"ctx_v", ctxV}}));
  const launch::AttentionShape dims = launchShape(shape);
  return forEachBatch(
      slices,
      [](const Slice &s) {
        return ceilDiv(s.tokens, launch::kAttentionQueryBlock);
      },
      [&](const launch::AttentionBatch &batch) {
        return checkCuda(launch::attentionForward(batch, dims, q, k, v, ctxK,
                                                  ctxV, out, lse, stream),
                         at + ": kernel launch failed");
      });
}

Status attentionBackward(const std::vector<Slice> &slices,
                         cpu::AttentionHeads shape, int64_t rows,
                         int64_t contextRows, const float *q, const float *k,
                         const float *v, const float *ctxK, const float *ctxV,
                         const float *out, const float *lse, const float *dout,
                         float *dq, float *dk, float *dv, float *dctxK,
                         float *dctxV, cudaStream_t stream) {
  const std::string at =
      attentionWhere("attention_backward", slices, shape, rows, contextRows);
  PLXRT_TRY(checkAttention(at, slices, shape, rows, contextRows));
  PLXRT_TRY(requireBuffers(at, rows > 0,
                           {{"q", q},
                            {"k", k},
                            {"v", v},
                            {"out", out},
                            {"lse", lse},
                            {"dout", dout},
                            {"dq", dq},
                            {"dk", dk},
                            {"dv", dv}}));
  PLXRT_TRY(
      requireBuffers(at, contextRows > 0, {{"ctx_k", ctxK}, {"ctx_v", ctxV}}));
  const launch::AttentionShape dims = launchShape(shape);
  const bool contextGrads = dctxK || dctxV;
  // A slice without tokens still owes zeros to its context's gradients.
  auto keyBlocks = [&](const Slice &s) {
    if (s.tokens == 0 && !contextGrads)
      return int64_t(0);
    return ceilDiv(s.tokens + s.context, launch::kAttentionKeyBlock);
  };
  bool anyKeyBlocks = false;
  for (const Slice &s : slices)
    anyKeyBlocks = anyKeyBlocks || keyBlocks(s) > 0;
  if (!anyKeyBlocks)
    return Status::success();

  const int64_t pairs = rows * shape.heads;
  float *rowDot = nullptr;
  if (pairs > 0)
    PLXRT_TRY(checkCuda(
        cudaMallocAsync(reinterpret_cast<void **>(&rowDot),
                        static_cast<size_t>(pairs) * sizeof(float), stream),
        at + ": cudaMallocAsync of the row dots failed"));
  Status st = Status::success();
  if (pairs > 0)
    st = checkCuda(
        launch::attentionRowDot(out, dout, pairs, dims.headDim, rowDot, stream),
        at + ": row-dot kernel launch failed");
  if (st.ok())
    st = forEachBatch(
        slices,
        [](const Slice &s) {
          return ceilDiv(s.tokens, launch::kAttentionQueryBlock);
        },
        [&](const launch::AttentionBatch &batch) {
          return checkCuda(launch::attentionBackwardDq(batch, dims, q, k, v,
                                                       ctxK, ctxV, lse, rowDot,
                                                       dout, dq, stream),
                           at + ": dq kernel launch failed");
        });
  if (st.ok())
    st = forEachBatch(
        slices, keyBlocks, [&](const launch::AttentionBatch &batch) {
          return checkCuda(launch::attentionBackwardDkDv(
                               batch, dims, q, k, v, ctxK, ctxV, lse, rowDot,
                               dout, dk, dv, dctxK, dctxV, stream),
                           at + ": dk/dv kernel launch failed");
        });
  if (rowDot) {
    // Freed even after a failed launch; the first error is the one kept.
    Status freed = checkCuda(cudaFreeAsync(rowDot, stream),
                             at + ": cudaFreeAsync of the row dots failed");
    if (st.ok())
      st = freed;
  }
  return st;
}

} // namespace plexus::runtime::cuda
