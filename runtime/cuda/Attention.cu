//===- Attention.cu - Causal attention over slices on the device ----------===//
//
// The device side of cuda::attentionForward / attentionBackward
// (Kernels.h): the contract of cpu::attentionForward / attentionBackward
// (same layouts, slices, context and log-sum-exp), in fp32. The checks and
// the grouping of slices into launches are in Kernels.cpp.
//
// Every kernel runs 128 threads on 64-row tiles held in shared memory, rows
// padded from the head width d to DMAX = 32, 64 or 128 with zeros (a
// template parameter; d <= 128), each row stored with a stride of DMAX + 4
// floats so that the float4 reads below hit distinct banks. A thread owns a
// small block of every product: thread t is in row group t / 8 (RM rows
// each, 16 groups) and column group t % 8; the 8 threads of a row group are
// 8 consecutive lanes of one warp, so row maxima and sums are three
// shuffles.
//   - S = A B^T of two row tiles (productNT): the thread's RM x 8 block,
//     rows RM * group + i, columns colGroup + 8 j;
//   - C += P B of a 64-wide probability tile and a row tile (productNN):
//     the thread's RM x DMAX / 8 block, columns 4 colGroup + 32 c + e.
//
// Forward (forwardKernel): one block per (slice, query head, 64 queries),
// the slice's last query block launched first (it has the most keys). The
// block walks the keys in tiles of 64 (the slice's context, then its own
// tokens, up to its last query) with FlashAttention's online softmax: a
// running maximum and sum per row in fp32, in the log2 domain (scores times
// scale * log2 e, exp2f), the accumulator rescaled when the maximum grows.
// Keys after a row's position are masked to -inf. Key 0 is visible to every
// row and the first tile holds it, so every running maximum is finite from
// the first tile on (no inf - inf). lse = (max + log2 sum) * ln 2, the
// CPU kernel's max + log(sum) in natural units.
//
// Backward, three kernels, none with atomics:
//   1. rowDotKernel: D = rowsum(dout * out) per (row, head), in double like
//      the CPU kernel, into scratch that Kernels.cpp allocates;
//   2. backwardDqKernel: query-parallel like the forward; per key tile it
//      recomputes P = exp(S scale - lse), dP = dO V^T, dS = P (dP - D), and
//      accumulates dQ += dS K, scaled once at the end;
//   3. backwardDkDvKernel: key-parallel, one block per (slice, K/V head, 32
//      keys of the slice's context and tokens); it walks the query tiles
//      that see its keys, for every query head of the group, recomputing
//      P^T and dS^T and accumulating dV += P^T dO and dK += dS^T Q in
//      registers. The keys of the context go to dctxK / dctxV, the others
//      to dk / dv; every row is written once, so nothing needs zeroing.
// S is recomputed twice (once per kernel) instead of summing dK and dV with
// atomicAdd: each output element is the sum of its terms in a fixed order,
// so the results repeat bit for bit from run to run on one GPU (they still
// differ from the CPU kernels' in the last bits: the order is not theirs).
//
// Not tuned: no tensor cores (fp32 FMA only), no asynchronous copies or
// double buffering (with two forward blocks per SM one loads while the
// other computes). None of this has run on a GPU yet.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/KernelLaunch.h"

#include <math.h>

namespace plexus::runtime::cuda::launch {

namespace {

constexpr int kThreads = 128;
/// Rows of a query tile (forward, dQ, and the query steps of dK/dV) and of
/// a key tile of the forward and of dQ.
constexpr int kTileRows = kAttentionQueryBlock;
/// Keys per block of the dK/dV kernel.
constexpr int kKeyRows = kAttentionKeyBlock;
/// Row stride of a probability tile (64 columns, padded like the others).
constexpr int kProbStride = kTileRows + 4;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

static_assert(kThreads == 128 && kTileRows == 64 && kKeyRows == 32,
              "the thread layout assumes 16 row groups x 8 column groups");

/// The thread's row group (0..15) and column group (0..7).
__device__ __forceinline__ int rowGroup() {
  return static_cast<int>(threadIdx.x) >> 3;
}
__device__ __forceinline__ int colGroup() {
  return static_cast<int>(threadIdx.x) & 7;
}

__device__ __forceinline__ float component(const float4 &v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

/// The maximum and the sum over the 8 threads of a row group (8
/// consecutive lanes). Every thread of the block must call them.
__device__ __forceinline__ float groupMax(float v) {
  for (int lane = 1; lane < 8; lane <<= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane));
  return v;
}
__device__ __forceinline__ float groupSum(float v) {
  for (int lane = 1; lane < 8; lane <<= 1)
    v += __shfl_xor_sync(0xffffffffu, v, lane);
  return v;
}

/// dst[r][x] (row stride DMAX + 4) = row(r)[x] for r < valid and x < d, and
/// 0 for the other x < DMAX of the ROWS rows. Consecutive threads read
/// consecutive floats of a row.
template <int ROWS, int DMAX, typename RowPtr>
__device__ __forceinline__ void loadRows(float *dst, int valid, int d,
                                         RowPtr row) {
  constexpr int kStride = DMAX + 4;
  for (int idx = static_cast<int>(threadIdx.x); idx < ROWS * DMAX;
       idx += kThreads) {
    const int r = idx / DMAX, x = idx % DMAX;
    float value = 0.0f;
    if (r < valid && x < d)
      value = row(r)[x];
    dst[r * kStride + x] = value;
  }
}

/// acc[i][j] = sum over x < DMAX of a[RM g + i][x] * b[c + 8 j][x], with g
/// and c the thread's row and column groups: the thread's part of the
/// (16 RM) x 64 product A B^T of two row tiles (stride DMAX + 4).
template <int RM, int DMAX>
__device__ __forceinline__ void productNT(const float *a, const float *b,
                                          float (&acc)[RM][8]) {
  constexpr int kStride = DMAX + 4;
  const float *aRow = a + RM * rowGroup() * kStride;
  const float *bRow = b + colGroup() * kStride;
#pragma unroll
  for (int i = 0; i < RM; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.0f;
#pragma unroll 4
  for (int x = 0; x < DMAX; x += 4) {
    float4 av[RM];
#pragma unroll
    for (int i = 0; i < RM; ++i)
      av[i] = *reinterpret_cast<const float4 *>(aRow + i * kStride + x);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float4 bv =
          *reinterpret_cast<const float4 *>(bRow + 8 * j * kStride + x);
#pragma unroll
      for (int i = 0; i < RM; ++i) {
        acc[i][j] = fmaf(av[i].x, bv.x, acc[i][j]);
        acc[i][j] = fmaf(av[i].y, bv.y, acc[i][j]);
        acc[i][j] = fmaf(av[i].z, bv.z, acc[i][j]);
        acc[i][j] = fmaf(av[i].w, bv.w, acc[i][j]);
      }
    }
  }
}

/// acc[i][4 c + e] += sum over k < 64 of p[RM g + i][k] * b[k][4 t + 32 c +
/// e], with g and t the thread's row and column groups: the thread's part
/// of P B for a (16 RM) x 64 tile P (stride kProbStride) and a 64-row tile
/// B (stride DMAX + 4).
template <int RM, int DMAX>
__device__ __forceinline__ void productNN(const float *p, const float *b,
                                          float (&acc)[RM][DMAX / 8]) {
  constexpr int kStride = DMAX + 4, kChunks = DMAX / 32;
  const float *pRow = p + RM * rowGroup() * kProbStride;
  const float *bCol = b + 4 * colGroup();
#pragma unroll 2
  for (int k = 0; k < kTileRows; k += 4) {
    float4 pv[RM];
#pragma unroll
    for (int i = 0; i < RM; ++i)
      pv[i] = *reinterpret_cast<const float4 *>(pRow + i * kProbStride + k);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const float4 bv = *reinterpret_cast<const float4 *>(
            bCol + (k + kk) * kStride + 32 * c);
#pragma unroll
        for (int i = 0; i < RM; ++i) {
          const float w = component(pv[i], kk);
          acc[i][4 * c + 0] = fmaf(w, bv.x, acc[i][4 * c + 0]);
          acc[i][4 * c + 1] = fmaf(w, bv.y, acc[i][4 * c + 1]);
          acc[i][4 * c + 2] = fmaf(w, bv.z, acc[i][4 * c + 2]);
          acc[i][4 * c + 3] = fmaf(w, bv.w, acc[i][4 * c + 3]);
        }
      }
  }
}

/// The slice of `block` (along grid x) in the batch.
__device__ __forceinline__ int sliceOf(const AttentionBatch &batch, int block) {
  int s = 0;
  while (s + 1 < batch.count && block >= batch.blockBegin[s + 1])
    ++s;
  return s;
}

/// Key (or value) `p` of a slice for K/V head `hk`: positions below
/// `context` are rows of the context buffer, the others rows of the
/// slice's own tokens.
__device__ __forceinline__ const float *
keyRow(const float *own, const float *ctx, int64_t rowBegin,
       int64_t contextBegin, int context, int p, int kvHeads, int hk, int d) {
  if (p < context)
    return ctx + ((contextBegin + p) * kvHeads + hk) * d;
  return own + ((rowBegin + (p - context)) * kvHeads + hk) * d;
}

/// Shared floats of the forward: Q, then K (later the probabilities), then
/// V.
template <int DMAX> constexpr int forwardSharedFloats() {
  constexpr int tile = kTileRows * (DMAX + 4);
  constexpr int probs = kTileRows * kProbStride;
  return tile + (tile > probs ? tile : probs) + tile;
}

template <int DMAX>
__global__ void __launch_bounds__(kThreads, 2)
    forwardKernel(const __grid_constant__ AttentionBatch batch, int heads,
                  int kvHeads, int d, float scaleLog2,
                  const float *__restrict__ q, const float *__restrict__ k,
                  const float *__restrict__ v, const float *__restrict__ ctxK,
                  const float *__restrict__ ctxV, float *__restrict__ out,
                  float *__restrict__ lse) {
  constexpr int kTile = kTileRows * (DMAX + 4);
  constexpr int kProbs = kTileRows * kProbStride;
  extern __shared__ float4 sharedMemory[];
  float *sQ = reinterpret_cast<float *>(sharedMemory);
  float *sK = sQ + kTile;
  float *sP = sK; // the probabilities overwrite the keys
  float *sV = sK + (kTile > kProbs ? kTile : kProbs);

  const int block = static_cast<int>(blockIdx.x);
  const int s = sliceOf(batch, block);
  const int tokens = batch.tokens[s], context = batch.context[s];
  const int blocks = batch.blockBegin[s + 1] - batch.blockBegin[s];
  const int q0 = (blocks - 1 - (block - batch.blockBegin[s])) * kTileRows;
  const int qRows = min(kTileRows, tokens - q0);
  const int h = static_cast<int>(blockIdx.y), hk = h / (heads / kvHeads);
  const int64_t rowBegin = batch.rowBegin[s];
  const int64_t contextBegin = batch.contextBegin[s];

  loadRows<kTileRows, DMAX>(sQ, qRows, d, [&](int r) {
    return q + ((rowBegin + q0 + r) * heads + h) * d;
  });

  const int rg = rowGroup(), cg = colGroup();
  // The last key each row sees; rows past the slice's end see the last
  // key (they are computed but never written).
  int last[4];
  float rowMax[4], rowSum[4], acc[4][DMAX / 8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    last[i] = min(context + q0 + 4 * rg + i, context + tokens - 1);
    rowMax[i] = -INFINITY;
    rowSum[i] = 0.0f;
#pragma unroll
    for (int e = 0; e < DMAX / 8; ++e)
      acc[i][e] = 0.0f;
  }

  const int keyEnd = context + q0 + qRows;
  for (int k0 = 0; k0 < keyEnd; k0 += kTileRows) {
    const int kRows = min(kTileRows, keyEnd - k0);
    loadRows<kTileRows, DMAX>(sK, kRows, d, [&](int r) {
      return keyRow(k, ctxK, rowBegin, contextBegin, context, k0 + r, kvHeads,
                    hk, d);
    });
    loadRows<kTileRows, DMAX>(sV, kRows, d, [&](int r) {
      return keyRow(v, ctxV, rowBegin, contextBegin, context, k0 + r, kvHeads,
                    hk, d);
    });
    __syncthreads();
    float score[4][8];
    productNT<4, DMAX>(sQ, sK, score);
    __syncthreads(); // every thread is done with the keys: sP replaces them
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float mx = rowMax[i];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int key = k0 + cg + 8 * j;
        score[i][j] = key <= last[i] ? score[i][j] * scaleLog2 : -INFINITY;
        mx = fmaxf(mx, score[i][j]);
      }
      mx = groupMax(mx);
      const float alpha = exp2f(rowMax[i] - mx);
      rowMax[i] = mx;
      rowSum[i] *= alpha;
#pragma unroll
      for (int e = 0; e < DMAX / 8; ++e)
        acc[i][e] *= alpha;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float p = exp2f(score[i][j] - mx);
        rowSum[i] += p;
        sP[(4 * rg + i) * kProbStride + cg + 8 * j] = p;
      }
    }
    __syncthreads();
    productNN<4, DMAX>(sP, sV, acc);
    __syncthreads(); // before the next tile's keys overwrite sP and sV
  }

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float total = groupSum(rowSum[i]);
    const int r = 4 * rg + i;
    if (r >= qRows)
      continue;
    const int64_t row = rowBegin + q0 + r;
    float *o = out + (row * heads + h) * d;
    const float inv = 1.0f / total;
#pragma unroll
    for (int c = 0; c < DMAX / 32; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int x = 4 * cg + 32 * c + e;
        if (x < d)
          o[x] = acc[i][4 * c + e] * inv;
      }
    if (cg == 0)
      lse[row * heads + h] = (rowMax[i] + log2f(total)) * kLn2;
  }
}

/// dot[pair] = sum over x < d of out[pair][x] * dout[pair][x] for each
/// (row, head) pair of [rows, heads, d], in double; one warp per pair.
__global__ void __launch_bounds__(kThreads)
    rowDotKernel(const float *__restrict__ out, const float *__restrict__ dout,
                 int64_t pairs, int d, float *__restrict__ dot) {
  constexpr int kWarps = kThreads / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  for (int64_t pair = static_cast<int64_t>(blockIdx.x) * kWarps +
                      static_cast<int>(threadIdx.x) / 32;
       pair < pairs; pair += static_cast<int64_t>(gridDim.x) * kWarps) {
    const float *o = out + pair * d, *g = dout + pair * d;
    double sum = 0;
    for (int x = lane; x < d; x += 32)
      sum += static_cast<double>(o[x]) * static_cast<double>(g[x]);
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0)
      dot[pair] = static_cast<float>(sum);
  }
}

/// Shared floats of the dQ kernel: Q, dO, K, then V (later dS).
template <int DMAX> constexpr int dqSharedFloats() {
  constexpr int tile = kTileRows * (DMAX + 4);
  constexpr int probs = kTileRows * kProbStride;
  return 3 * tile + (tile > probs ? tile : probs);
}

template <int DMAX>
__global__ void __launch_bounds__(kThreads, 1)
    backwardDqKernel(const __grid_constant__ AttentionBatch batch, int heads,
                     int kvHeads, int d, float scale, float scaleLog2,
                     const float *__restrict__ q, const float *__restrict__ k,
                     const float *__restrict__ v,
                     const float *__restrict__ ctxK,
                     const float *__restrict__ ctxV,
                     const float *__restrict__ lse,
                     const float *__restrict__ rowDot,
                     const float *__restrict__ dout, float *__restrict__ dq) {
  constexpr int kTile = kTileRows * (DMAX + 4);
  extern __shared__ float4 sharedMemory[];
  float *sQ = reinterpret_cast<float *>(sharedMemory);
  float *sDO = sQ + kTile;
  float *sK = sDO + kTile;
  float *sV = sK + kTile;
  float *sDS = sV; // dS overwrites the values

  const int block = static_cast<int>(blockIdx.x);
  const int s = sliceOf(batch, block);
  const int tokens = batch.tokens[s], context = batch.context[s];
  const int blocks = batch.blockBegin[s + 1] - batch.blockBegin[s];
  const int q0 = (blocks - 1 - (block - batch.blockBegin[s])) * kTileRows;
  const int qRows = min(kTileRows, tokens - q0);
  const int h = static_cast<int>(blockIdx.y), hk = h / (heads / kvHeads);
  const int64_t rowBegin = batch.rowBegin[s];
  const int64_t contextBegin = batch.contextBegin[s];

  loadRows<kTileRows, DMAX>(sQ, qRows, d, [&](int r) {
    return q + ((rowBegin + q0 + r) * heads + h) * d;
  });
  loadRows<kTileRows, DMAX>(sDO, qRows, d, [&](int r) {
    return dout + ((rowBegin + q0 + r) * heads + h) * d;
  });

  const int rg = rowGroup(), cg = colGroup();
  int last[4];
  float lse2[4], dot[4], acc[4][DMAX / 8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = 4 * rg + i;
    last[i] = min(context + q0 + r, context + tokens - 1);
    // Rows past the slice's end have Q = dO = 0 and D = 0, so dS = 0.
    lse2[i] = 0.0f;
    dot[i] = 0.0f;
    if (r < qRows) {
      const int64_t at = (rowBegin + q0 + r) * heads + h;
      lse2[i] = lse[at] * kLog2e;
      dot[i] = rowDot[at];
    }
#pragma unroll
    for (int e = 0; e < DMAX / 8; ++e)
      acc[i][e] = 0.0f;
  }

  const int keyEnd = context + q0 + qRows;
  for (int k0 = 0; k0 < keyEnd; k0 += kTileRows) {
    const int kRows = min(kTileRows, keyEnd - k0);
    loadRows<kTileRows, DMAX>(sK, kRows, d, [&](int r) {
      return keyRow(k, ctxK, rowBegin, contextBegin, context, k0 + r, kvHeads,
                    hk, d);
    });
    loadRows<kTileRows, DMAX>(sV, kRows, d, [&](int r) {
      return keyRow(v, ctxV, rowBegin, contextBegin, context, k0 + r, kvHeads,
                    hk, d);
    });
    __syncthreads();
    float score[4][8], dp[4][8];
    productNT<4, DMAX>(sQ, sK, score);
    productNT<4, DMAX>(sDO, sV, dp);
    __syncthreads(); // every thread is done with V: dS replaces it
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int key = k0 + cg + 8 * j;
        const float p =
            key <= last[i] ? exp2f(score[i][j] * scaleLog2 - lse2[i]) : 0.0f;
        sDS[(4 * rg + i) * kProbStride + cg + 8 * j] = p * (dp[i][j] - dot[i]);
      }
    __syncthreads();
    productNN<4, DMAX>(sDS, sK, acc);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = 4 * rg + i;
    if (r >= qRows)
      continue;
    float *g = dq + ((rowBegin + q0 + r) * heads + h) * d;
#pragma unroll
    for (int c = 0; c < DMAX / 32; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int x = 4 * cg + 32 * c + e;
        if (x < d)
          g[x] = acc[i][4 * c + e] * scale;
      }
  }
}

/// Shared floats of the dK/dV kernel: K and V (32 rows each), Q and dO (64
/// rows each), P^T and dS^T (32 x 64 each), and the query rows' lse and D.
template <int DMAX> constexpr int dkdvSharedFloats() {
  return 2 * kKeyRows * (DMAX + 4) + 2 * kTileRows * (DMAX + 4) +
         2 * kKeyRows * kProbStride + 2 * kTileRows;
}

template <int DMAX>
__global__ void __launch_bounds__(kThreads, 1)
    backwardDkDvKernel(const __grid_constant__ AttentionBatch batch, int heads,
                       int kvHeads, int d, float scale, float scaleLog2,
                       const float *__restrict__ q, const float *__restrict__ k,
                       const float *__restrict__ v,
                       const float *__restrict__ ctxK,
                       const float *__restrict__ ctxV,
                       const float *__restrict__ lse,
                       const float *__restrict__ rowDot,
                       const float *__restrict__ dout, float *__restrict__ dk,
                       float *__restrict__ dv, float *__restrict__ dctxK,
                       float *__restrict__ dctxV) {
  constexpr int kKeyTile = kKeyRows * (DMAX + 4);
  constexpr int kQueryTile = kTileRows * (DMAX + 4);
  constexpr int kProbs = kKeyRows * kProbStride;
  extern __shared__ float4 sharedMemory[];
  float *sK = reinterpret_cast<float *>(sharedMemory);
  float *sV = sK + kKeyTile;
  float *sQ = sV + kKeyTile;
  float *sDO = sQ + kQueryTile;
  float *sP = sDO + kQueryTile;
  float *sDS = sP + kProbs;
  float *sLse2 = sDS + kProbs;
  float *sDot = sLse2 + kTileRows;

  const int block = static_cast<int>(blockIdx.x);
  const int s = sliceOf(batch, block);
  const int tokens = batch.tokens[s], context = batch.context[s];
  const int k0 = (block - batch.blockBegin[s]) * kKeyRows;
  const int kRows = min(kKeyRows, context + tokens - k0);
  const int hk = static_cast<int>(blockIdx.y), group = heads / kvHeads;
  const int64_t rowBegin = batch.rowBegin[s];
  const int64_t contextBegin = batch.contextBegin[s];

  loadRows<kKeyRows, DMAX>(sK, kRows, d, [&](int r) {
    return keyRow(k, ctxK, rowBegin, contextBegin, context, k0 + r, kvHeads, hk,
                  d);
  });
  loadRows<kKeyRows, DMAX>(sV, kRows, d, [&](int r) {
    return keyRow(v, ctxV, rowBegin, contextBegin, context, k0 + r, kvHeads, hk,
                  d);
  });

  const int rg = rowGroup(), cg = colGroup();
  float accK[2][DMAX / 8], accV[2][DMAX / 8];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int e = 0; e < DMAX / 8; ++e) {
      accK[i][e] = 0.0f;
      accV[i][e] = 0.0f;
    }

  // Token t sees the keys up to position context + t: the first query
  // tile to visit is the one holding token k0 - context.
  const int firstQuery = max(0, k0 - context);
  const int qBegin = firstQuery / kTileRows * kTileRows;
  for (int g = 0; g < group; ++g) {
    const int h = hk * group + g;
    for (int q0 = qBegin; q0 < tokens; q0 += kTileRows) {
      const int qRows = min(kTileRows, tokens - q0);
      loadRows<kTileRows, DMAX>(sQ, qRows, d, [&](int r) {
        return q + ((rowBegin + q0 + r) * heads + h) * d;
      });
      loadRows<kTileRows, DMAX>(sDO, qRows, d, [&](int r) {
        return dout + ((rowBegin + q0 + r) * heads + h) * d;
      });
      if (static_cast<int>(threadIdx.x) < kTileRows) {
        const int r = static_cast<int>(threadIdx.x);
        float l2 = 0.0f, dt = 0.0f;
        if (r < qRows) {
          const int64_t at = (rowBegin + q0 + r) * heads + h;
          l2 = lse[at] * kLog2e;
          dt = rowDot[at];
        }
        sLse2[r] = l2;
        sDot[r] = dt;
      }
      __syncthreads();
      // P^T: rows are the block's keys, columns the tile's queries.
      float st[2][8];
      productNT<2, DMAX>(sK, sQ, st);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int key = k0 + 2 * rg + i, col = cg + 8 * j;
          const int query = q0 + col;
          const bool seen = query < tokens && key <= context + query;
          sP[(2 * rg + i) * kProbStride + col] =
              seen ? exp2f(st[i][j] * scaleLog2 - sLse2[col]) : 0.0f;
        }
      // dS^T = P^T (dP^T - D), dP^T = V dO^T. Each thread reads back only
      // the probabilities it wrote itself.
      productNT<2, DMAX>(sV, sDO, st);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int at = (2 * rg + i) * kProbStride + cg + 8 * j;
          sDS[at] = sP[at] * (st[i][j] - sDot[cg + 8 * j]);
        }
      __syncthreads();
      productNN<2, DMAX>(sP, sDO, accV);
      productNN<2, DMAX>(sDS, sQ, accK);
      __syncthreads(); // before the next tile overwrites Q, dO, P and dS
    }
  }

#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int r = 2 * rg + i;
    if (r >= kRows)
      continue;
    const int p = k0 + r;
    float *gk, *gv;
    if (p < context) {
      const int64_t at = ((contextBegin + p) * kvHeads + hk) * d;
      gk = dctxK ? dctxK + at : nullptr;
      gv = dctxV ? dctxV + at : nullptr;
    } else {
      const int64_t at = ((rowBegin + (p - context)) * kvHeads + hk) * d;
      gk = dk + at;
      gv = dv + at;
    }
#pragma unroll
    for (int c = 0; c < DMAX / 32; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int x = 4 * cg + 32 * c + e;
        if (x >= d)
          continue;
        if (gk)
          gk[x] = accK[i][4 * c + e] * scale;
        if (gv)
          gv[x] = accV[i][4 * c + e];
      }
  }
}

//===-- Launches ----------------------------------------------------------===//

/// Opts `kernel` in to `bytes` of dynamic shared memory (above the default
/// 48 KiB), then launches it.
template <typename Kernel, typename... Args>
cudaError_t launchWithShared(Kernel kernel, dim3 grid, size_t bytes,
                             cudaStream_t stream, Args... args) {
  cudaError_t rc =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes));
  if (rc != cudaSuccess)
    return rc;
  kernel<<<grid, kThreads, bytes, stream>>>(args...);
  return cudaGetLastError();
}

/// DMAX for a head width: 32, 64 or 128 (0 beyond; checked by the caller).
int paddedHeadDim(int d) {
  return d <= 32 ? 32 : d <= 64 ? 64 : d <= kAttentionMaxHeadDim ? 128 : 0;
}

template <int DMAX>
cudaError_t forward(const AttentionBatch &batch, AttentionShape shape,
                    const float *q, const float *k, const float *v,
                    const float *ctxK, const float *ctxV, float *out,
                    float *lse, cudaStream_t stream) {
  return launchWithShared(forwardKernel<DMAX>,
                          dim3(static_cast<unsigned>(batch.blocks),
                               static_cast<unsigned>(shape.heads)),
                          sizeof(float) * forwardSharedFloats<DMAX>(), stream,
                          batch, shape.heads, shape.kvHeads, shape.headDim,
                          shape.scale * kLog2e, q, k, v, ctxK, ctxV, out, lse);
}

template <int DMAX>
cudaError_t backwardDq(const AttentionBatch &batch, AttentionShape shape,
                       const float *q, const float *k, const float *v,
                       const float *ctxK, const float *ctxV, const float *lse,
                       const float *rowDot, const float *dout, float *dq,
                       cudaStream_t stream) {
  return launchWithShared(backwardDqKernel<DMAX>,
                          dim3(static_cast<unsigned>(batch.blocks),
                               static_cast<unsigned>(shape.heads)),
                          sizeof(float) * dqSharedFloats<DMAX>(), stream, batch,
                          shape.heads, shape.kvHeads, shape.headDim,
                          shape.scale, shape.scale * kLog2e, q, k, v, ctxK,
                          ctxV, lse, rowDot, dout, dq);
}

template <int DMAX>
cudaError_t backwardDkDv(const AttentionBatch &batch, AttentionShape shape,
                         const float *q, const float *k, const float *v,
                         const float *ctxK, const float *ctxV, const float *lse,
                         const float *rowDot, const float *dout, float *dk,
                         float *dv, float *dctxK, float *dctxV,
                         cudaStream_t stream) {
  return launchWithShared(backwardDkDvKernel<DMAX>,
                          dim3(static_cast<unsigned>(batch.blocks),
                               static_cast<unsigned>(shape.kvHeads)),
                          sizeof(float) * dkdvSharedFloats<DMAX>(), stream,
                          batch, shape.heads, shape.kvHeads, shape.headDim,
                          shape.scale, shape.scale * kLog2e, q, k, v, ctxK,
                          ctxV, lse, rowDot, dout, dk, dv, dctxK, dctxV);
}

} // namespace

cudaError_t attentionForward(const AttentionBatch &batch, AttentionShape shape,
                             const float *q, const float *k, const float *v,
                             const float *ctxK, const float *ctxV, float *out,
                             float *lse, cudaStream_t stream) {
  switch (paddedHeadDim(shape.headDim)) {
  case 32:
    return forward<32>(batch, shape, q, k, v, ctxK, ctxV, out, lse, stream);
  case 64:
    return forward<64>(batch, shape, q, k, v, ctxK, ctxV, out, lse, stream);
  case 128:
    return forward<128>(batch, shape, q, k, v, ctxK, ctxV, out, lse, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t attentionRowDot(const float *out, const float *dout, int64_t pairs,
                            int headDim, float *dot, cudaStream_t stream) {
  constexpr int64_t kPairsPerBlock = kThreads / 32;
  constexpr int64_t kMaxBlocks = int64_t(1) << 20;
  int64_t blocks = (pairs + kPairsPerBlock - 1) / kPairsPerBlock;
  if (blocks > kMaxBlocks)
    blocks = kMaxBlocks; // the kernel strides over the rest
  rowDotKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      out, dout, pairs, headDim, dot);
  return cudaGetLastError();
}

cudaError_t attentionBackwardDq(const AttentionBatch &batch,
                                AttentionShape shape, const float *q,
                                const float *k, const float *v,
                                const float *ctxK, const float *ctxV,
                                const float *lse, const float *rowDot,
                                const float *dout, float *dq,
                                cudaStream_t stream) {
  switch (paddedHeadDim(shape.headDim)) {
  case 32:
    return backwardDq<32>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot, dout,
                          dq, stream);
  case 64:
    return backwardDq<64>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot, dout,
                          dq, stream);
  case 128:
    return backwardDq<128>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot, dout,
                           dq, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t attentionBackwardDkDv(
    const AttentionBatch &batch, AttentionShape shape, const float *q,
    const float *k, const float *v, const float *ctxK, const float *ctxV,
    const float *lse, const float *rowDot, const float *dout, float *dk,
    float *dv, float *dctxK, float *dctxV, cudaStream_t stream) {
  switch (paddedHeadDim(shape.headDim)) {
  case 32:
    return backwardDkDv<32>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot,
                            dout, dk, dv, dctxK, dctxV, stream);
  case 64:
    return backwardDkDv<64>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot,
                            dout, dk, dv, dctxK, dctxV, stream);
  case 128:
    return backwardDkDv<128>(batch, shape, q, k, v, ctxK, ctxV, lse, rowDot,
                             dout, dk, dv, dctxK, dctxV, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace plexus::runtime::cuda::launch
