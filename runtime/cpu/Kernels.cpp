//===- Kernels.cpp - Reference CPU kernels of the runtime -----------------===//
//
// The matrix multiply keeps a tile of C in registers (4 x 8 floats on the
// portable path, 6 x 16 on x86-64 CPUs with AVX2, chosen at run time) while
// it runs over a block of k, with B's columns and k blocked so that the
// panels it reads stay in cache; transposed operands are first copied into
// row-major order. No path fuses multiply and add, so all give one result.
// Attention runs one (slice, head) at a time through that matmul, in blocks
// of query rows, each block seeing only the keys its last row may attend to
// (causal), and recomputes the probabilities from the saved log-sum-exp in
// the backward, so that no score matrix outlives a block.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace plexus::runtime::cpu {

namespace {

constexpr int64_t kBlockK = 256;
constexpr int64_t kBlockN = 256;
/// Query rows per attention block.
constexpr int64_t kQueryBlock = 64;

/// dst (cols x rows) = transpose of src (rows x cols).
template <typename T>
void transposeInto(const T *src, int64_t rows, int64_t cols,
                   std::vector<T> &dst) {
  dst.resize(static_cast<size_t>(rows * cols));
  constexpr int64_t kB = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kB)
    for (int64_t c0 = 0; c0 < cols; c0 += kB) {
      int64_t r1 = std::min(rows, r0 + kB), c1 = std::min(cols, c0 + kB);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          dst[static_cast<size_t>(c * rows + r)] = src[r * cols + c];
    }
}

/// 32-byte vectors (GCC/Clang vector extensions): 8 floats or 4 doubles.
/// Without AVX they compile to pairs of SSE operations.
template <typename T> struct Lanes;
template <> struct Lanes<float> {
  typedef float V __attribute__((vector_size(32)));
  static constexpr int64_t count = 8;
};
template <> struct Lanes<double> {
  typedef double V __attribute__((vector_size(32)));
  static constexpr int64_t count = 4;
};

/// c[R x NV vectors] += a[R x (p0..p1)] b[(p0..p1) x NV vectors], adding
/// in increasing p; the tile of c stays in registers.
template <typename T, int64_t R, int64_t NV>
[[gnu::always_inline]] inline void
tile(const T *__restrict a, int64_t lda, const T *__restrict b, int64_t ldb,
     T *__restrict c, int64_t ldc, int64_t p0, int64_t p1) {
  using V = typename Lanes<T>::V;
  constexpr int64_t L = Lanes<T>::count;
  V acc[R][NV];
  for (int64_t r = 0; r < R; ++r)
    for (int64_t v = 0; v < NV; ++v)
      std::memcpy(&acc[r][v], c + r * ldc + v * L, sizeof(V));
  for (int64_t p = p0; p < p1; ++p) {
    V bv[NV];
    for (int64_t v = 0; v < NV; ++v)
      std::memcpy(&bv[v], b + p * ldb + v * L, sizeof(V));
    for (int64_t r = 0; r < R; ++r) {
      const T ar = a[r * lda + p];
      for (int64_t v = 0; v < NV; ++v)
        acc[r][v] += ar * bv[v];
    }
  }
  for (int64_t r = 0; r < R; ++r)
    for (int64_t v = 0; v < NV; ++v)
      std::memcpy(c + r * ldc + v * L, &acc[r][v], sizeof(V));
}

/// c[m x n] += a[m x k] b[k x n], all row-major, in tiles of R rows and NV
/// vectors. Every element of c adds its products in increasing k, as the
/// naive loop does, whatever R and NV are.
template <typename T, int64_t R, int64_t NV>
[[gnu::always_inline]] inline void gemmTiled(const T *a, const T *b, T *c,
                                             int64_t m, int64_t n, int64_t k) {
  constexpr int64_t W = NV * Lanes<T>::count;
  for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
    int64_t j1 = std::min(n, j0 + kBlockN);
    for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
      int64_t p1 = std::min(k, p0 + kBlockK);
      int64_t i = 0;
      for (; i + R <= m; i += R) {
        int64_t j = j0;
        for (; j + W <= j1; j += W)
          tile<T, R, NV>(a + i * k, k, b + j, n, c + i * n + j, n, p0, p1);
        for (; j < j1; ++j)
          for (int64_t r = 0; r < R; ++r) {
            T s = c[(i + r) * n + j];
            for (int64_t p = p0; p < p1; ++p)
              s += a[(i + r) * k + p] * b[p * n + j];
            c[(i + r) * n + j] = s;
          }
      }
      for (; i < m; ++i) {
        T *__restrict crow = c + i * n;
        for (int64_t p = p0; p < p1; ++p) {
          T ap = a[i * k + p];
          const T *__restrict bp = b + p * n;
          for (int64_t j = j0; j < j1; ++j)
            crow[j] += ap * bp[j];
        }
      }
    }
  }
}

/// The portable path: 4 x 8 float tiles (4 x 4 double).
template <typename T>
void gemmPortable(const T *a, const T *b, T *c, int64_t m, int64_t n,
                  int64_t k) {
  gemmTiled<T, 4, 1>(a, b, c, m, n, k);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLXRT_HAVE_AVX2_PATH 1
/// AVX2 without FMA: 6 x 16 float tiles in twelve 256-bit registers.
/// Separate multiplies and adds round exactly like the portable path, so
/// both give the same bits; only the speed differs.
__attribute__((target("avx2,no-fma"))) void gemmAvx2(const float *a,
                                                     const float *b, float *c,
                                                     int64_t m, int64_t n,
                                                     int64_t k) {
  gemmTiled<float, 6, 2>(a, b, c, m, n, k);
}
#endif

template <typename T>
void gemmAccumulate(const T *a, const T *b, T *c, int64_t m, int64_t n,
                    int64_t k) {
#ifdef PLXRT_HAVE_AVX2_PATH
  if constexpr (std::is_same_v<T, float>) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
      return gemmAvx2(a, b, c, m, n, k);
  }
#endif
  gemmPortable(a, b, c, m, n, k);
}

/// Copies head `h` of `rows` rows of [rows, heads, d] (from row `first`)
/// into a contiguous [rows, d].
template <typename T>
void gatherHead(const T *src, int64_t first, int64_t rows, int64_t heads,
                int64_t h, int64_t d, T *dst) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * d, src + ((first + r) * heads + h) * d,
                sizeof(T) * static_cast<size_t>(d));
}

template <typename T>
void scatterHead(const T *src, int64_t first, int64_t rows, int64_t heads,
                 int64_t h, int64_t d, T *dst) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + ((first + r) * heads + h) * d, src + r * d,
                sizeof(T) * static_cast<size_t>(d));
}

} // namespace

/// C (+)= op(A) op(B): transposed operands are packed row-major first, then
/// `gemm` accumulates (the AVX2 or the portable kernel; same bits).
template <typename T, typename Gemm>
void matmulWith(Gemm gemm, const T *a, bool transA, const T *b, bool transB,
                T *c, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (!accumulate)
    std::fill(c, c + m * n, T(0));
  if (m == 0 || n == 0 || k == 0)
    return;
  std::vector<T> packedA, packedB;
  if (transA) {
    transposeInto(a, k, m, packedA);
    a = packedA.data();
  }
  if (transB) {
    transposeInto(b, n, k, packedB);
    b = packedB.data();
  }
  gemm(a, b, c, m, n, k);
}

template <typename T>
void matmul(const T *a, bool transA, const T *b, bool transB, T *c, int64_t m,
            int64_t n, int64_t k, bool accumulate) {
  matmulWith([](const T *x, const T *y, T *z, int64_t mm, int64_t nn,
                int64_t kk) { gemmAccumulate(x, y, z, mm, nn, kk); },
             a, transA, b, transB, c, m, n, k, accumulate);
}

template <typename T>
void matmulPortable(const T *a, bool transA, const T *b, bool transB, T *c,
                    int64_t m, int64_t n, int64_t k, bool accumulate) {
  matmulWith([](const T *x, const T *y, T *z, int64_t mm, int64_t nn,
                int64_t kk) { gemmPortable(x, y, z, mm, nn, kk); },
             a, transA, b, transB, c, m, n, k, accumulate);
}

template <typename T>
void matmulNaive(const T *a, bool transA, const T *b, bool transB, T *c,
                 int64_t m, int64_t n, int64_t k, bool accumulate) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = accumulate ? static_cast<double>(c[i * n + j]) : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        double x = transA ? a[p * m + i] : a[i * k + p];
        double y = transB ? b[j * k + p] : b[p * n + j];
        s += x * y;
      }
      c[i * n + j] = static_cast<T>(s);
    }
}

template <typename T>
void rmsNormForward(const T *x, const T *gain, int64_t rows, int64_t width,
                    double eps, T *y, T *rstd) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * width;
    double ss = 0;
    for (int64_t j = 0; j < width; ++j)
      ss += static_cast<double>(xr[j]) * static_cast<double>(xr[j]);
    T inv =
        static_cast<T>(1.0 / std::sqrt(ss / static_cast<double>(width) + eps));
    rstd[r] = inv;
    T *yr = y + r * width;
    for (int64_t j = 0; j < width; ++j)
      yr[j] = xr[j] * inv * gain[j];
  }
}

template <typename T>
void rmsNormBackward(const T *x, const T *gain, const T *rstd, const T *dy,
                     int64_t rows, int64_t width, T *dx, T *dgain) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * width, *dyr = dy + r * width;
    T *dxr = dx + r * width;
    double inv = static_cast<double>(rstd[r]);
    double dot = 0;
    for (int64_t j = 0; j < width; ++j)
      dot += static_cast<double>(gain[j]) * static_cast<double>(dyr[j]) *
             static_cast<double>(xr[j]);
    T coeff =
        static_cast<T>(inv * inv * inv * dot / static_cast<double>(width));
    T invT = static_cast<T>(inv);
    for (int64_t j = 0; j < width; ++j) {
      dxr[j] += invT * gain[j] * dyr[j] - xr[j] * coeff;
      dgain[j] += dyr[j] * xr[j] * invT;
    }
  }
}

template <typename T>
void rope(T *x, int64_t rows, int64_t heads, int64_t headDim,
          const int64_t *positions, double base, bool inverse) {
  int64_t pairs = headDim / 2;
  std::vector<double> freq(static_cast<size_t>(pairs));
  for (int64_t j = 0; j < pairs; ++j)
    freq[static_cast<size_t>(j)] = std::pow(
        base, -2.0 * static_cast<double>(j) / static_cast<double>(headDim));
  std::vector<T> cosv(static_cast<size_t>(pairs)),
      sinv(static_cast<size_t>(pairs));
  for (int64_t r = 0; r < rows; ++r) {
    double pos = static_cast<double>(positions[r]);
    for (int64_t j = 0; j < pairs; ++j) {
      double angle = pos * freq[static_cast<size_t>(j)];
      cosv[static_cast<size_t>(j)] = static_cast<T>(std::cos(angle));
      sinv[static_cast<size_t>(j)] =
          static_cast<T>(inverse ? -std::sin(angle) : std::sin(angle));
    }
    for (int64_t h = 0; h < heads; ++h) {
      T *xh = x + (r * heads + h) * headDim;
      for (int64_t j = 0; j < pairs; ++j) {
        T a = xh[2 * j], b = xh[2 * j + 1];
        T cs = cosv[static_cast<size_t>(j)], sn = sinv[static_cast<size_t>(j)];
        xh[2 * j] = a * cs - b * sn;
        xh[2 * j + 1] = a * sn + b * cs;
      }
    }
  }
}

namespace {
constexpr double kGeluC = 0.7978845608028654; // sqrt(2 / pi)
constexpr double kGeluA = 0.044715;
} // namespace

template <typename T> void geluForward(const T *u, T *g, int64_t n) {
  const T c = static_cast<T>(kGeluC), a = static_cast<T>(kGeluA);
  for (int64_t i = 0; i < n; ++i) {
    T x = u[i];
    T t = std::tanh(c * (x + a * x * x * x));
    g[i] = T(0.5) * x * (T(1) + t);
  }
}

template <typename T>
void geluBackward(const T *u, const T *dg, T *du, int64_t n) {
  const T c = static_cast<T>(kGeluC), a = static_cast<T>(kGeluA);
  for (int64_t i = 0; i < n; ++i) {
    T x = u[i];
    T t = std::tanh(c * (x + a * x * x * x));
    T d = T(0.5) * (T(1) + t) +
          T(0.5) * x * (T(1) - t * t) * c * (T(1) + T(3) * a * x * x);
    du[i] = dg[i] * d;
  }
}

template <typename T>
void swigluForward(const T *gate, const T *up, T *act, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T s = T(1) / (T(1) + std::exp(-gate[i]));
    act[i] = gate[i] * s * up[i];
  }
}

template <typename T>
void swigluBackward(const T *gate, const T *up, const T *dact, T *dgate, T *dup,
                    int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T x = gate[i];
    T s = T(1) / (T(1) + std::exp(-x));
    T silu = x * s;
    dup[i] = dact[i] * silu;
    dgate[i] = dact[i] * up[i] * s * (T(1) + x * (T(1) - s));
  }
}

template <typename T>
void attentionForward(const std::vector<Slice> &slices, AttentionHeads shape,
                      const T *q, const T *k, const T *v, const T *ctxK,
                      const T *ctxV, T *out, T *lse) {
  const int64_t heads = shape.heads, kvHeads = shape.kvHeads, d = shape.headDim;
  const int64_t group = heads / kvHeads;
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<T> kh, vh, qh, oh, s;
  int64_t qOff = 0, cOff = 0;
  for (const Slice &slice : slices) {
    const int64_t t = slice.tokens, c = slice.context, len = c + t;
    kh.resize(static_cast<size_t>(len * d));
    vh.resize(static_cast<size_t>(len * d));
    qh.resize(static_cast<size_t>(t * d));
    oh.resize(static_cast<size_t>(t * d));
    for (int64_t hk = 0; hk < kvHeads; ++hk) {
      if (c > 0) {
        gatherHead(ctxK, cOff, c, kvHeads, hk, d, kh.data());
        gatherHead(ctxV, cOff, c, kvHeads, hk, d, vh.data());
      }
      gatherHead(k, qOff, t, kvHeads, hk, d, kh.data() + c * d);
      gatherHead(v, qOff, t, kvHeads, hk, d, vh.data() + c * d);
      for (int64_t g = 0; g < group; ++g) {
        const int64_t h = hk * group + g;
        gatherHead(q, qOff, t, heads, h, d, qh.data());
        for (int64_t i0 = 0; i0 < t; i0 += kQueryBlock) {
          const int64_t i1 = std::min(t, i0 + kQueryBlock);
          const int64_t rows = i1 - i0, cols = c + i1;
          s.resize(static_cast<size_t>(rows * cols));
          matmul(qh.data() + i0 * d, false, kh.data(), true, s.data(), rows,
                 cols, d, false);
          for (int64_t r = 0; r < rows; ++r) {
            T *sr = s.data() + r * cols;
            const int64_t valid = c + i0 + r + 1;
            T mx = sr[0] * scale;
            for (int64_t j = 0; j < valid; ++j) {
              sr[j] *= scale;
              mx = std::max(mx, sr[j]);
            }
            double sum = 0;
            for (int64_t j = 0; j < valid; ++j) {
              sr[j] = std::exp(sr[j] - mx);
              sum += static_cast<double>(sr[j]);
            }
            const T inv = static_cast<T>(1.0 / sum);
            for (int64_t j = 0; j < valid; ++j)
              sr[j] *= inv;
            std::fill(sr + valid, sr + cols, T(0));
            lse[(qOff + i0 + r) * heads + h] =
                static_cast<T>(static_cast<double>(mx) + std::log(sum));
          }
          matmul(s.data(), false, vh.data(), false, oh.data() + i0 * d, rows, d,
                 cols, false);
        }
        scatterHead(oh.data(), qOff, t, heads, h, d, out);
      }
    }
    qOff += t;
    cOff += c;
  }
}

template <typename T>
void attentionBackward(const std::vector<Slice> &slices, AttentionHeads shape,
                       const T *q, const T *k, const T *v, const T *ctxK,
                       const T *ctxV, const T *out, const T *lse, const T *dout,
                       T *dq, T *dk, T *dv, T *dctxK, T *dctxV) {
  const int64_t heads = shape.heads, kvHeads = shape.kvHeads, d = shape.headDim;
  const int64_t group = heads / kvHeads;
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<T> kh, vh, dkh, dvh, qh, oh, doh, dqh, p, dp;
  int64_t qOff = 0, cOff = 0;
  for (const Slice &slice : slices) {
    const int64_t t = slice.tokens, c = slice.context, len = c + t;
    kh.resize(static_cast<size_t>(len * d));
    vh.resize(static_cast<size_t>(len * d));
    qh.resize(static_cast<size_t>(t * d));
    oh.resize(static_cast<size_t>(t * d));
    doh.resize(static_cast<size_t>(t * d));
    dqh.resize(static_cast<size_t>(t * d));
    for (int64_t hk = 0; hk < kvHeads; ++hk) {
      if (c > 0) {
        gatherHead(ctxK, cOff, c, kvHeads, hk, d, kh.data());
        gatherHead(ctxV, cOff, c, kvHeads, hk, d, vh.data());
      }
      gatherHead(k, qOff, t, kvHeads, hk, d, kh.data() + c * d);
      gatherHead(v, qOff, t, kvHeads, hk, d, vh.data() + c * d);
      dkh.assign(static_cast<size_t>(len * d), T(0));
      dvh.assign(static_cast<size_t>(len * d), T(0));
      for (int64_t g = 0; g < group; ++g) {
        const int64_t h = hk * group + g;
        gatherHead(q, qOff, t, heads, h, d, qh.data());
        gatherHead(out, qOff, t, heads, h, d, oh.data());
        gatherHead(dout, qOff, t, heads, h, d, doh.data());
        for (int64_t i0 = 0; i0 < t; i0 += kQueryBlock) {
          const int64_t i1 = std::min(t, i0 + kQueryBlock);
          const int64_t rows = i1 - i0, cols = c + i1;
          p.resize(static_cast<size_t>(rows * cols));
          dp.resize(static_cast<size_t>(rows * cols));
          matmul(qh.data() + i0 * d, false, kh.data(), true, p.data(), rows,
                 cols, d, false);
          matmul(doh.data() + i0 * d, false, vh.data(), true, dp.data(), rows,
                 cols, d, false);
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = i0 + r, valid = c + i + 1;
            const T rowLse = lse[(qOff + i) * heads + h];
            double dsum = 0;
            for (int64_t x = 0; x < d; ++x)
              dsum += static_cast<double>(doh[static_cast<size_t>(i * d + x)]) *
                      static_cast<double>(oh[static_cast<size_t>(i * d + x)]);
            const T D = static_cast<T>(dsum);
            T *pr = p.data() + r * cols, *dpr = dp.data() + r * cols;
            for (int64_t j = 0; j < valid; ++j) {
              pr[j] = std::exp(pr[j] * scale - rowLse);
              dpr[j] = pr[j] * (dpr[j] - D) * scale;
            }
            std::fill(pr + valid, pr + cols, T(0));
            std::fill(dpr + valid, dpr + cols, T(0));
          }
          // dQ = dS K; dK += dS^T Q; dV += P^T dO (dS already scaled).
          matmul(dp.data(), false, kh.data(), false, dqh.data() + i0 * d, rows,
                 d, cols, false);
          matmul(dp.data(), true, qh.data() + i0 * d, false, dkh.data(), cols,
                 d, rows, true);
          matmul(p.data(), true, doh.data() + i0 * d, false, dvh.data(), cols,
                 d, rows, true);
        }
        scatterHead(dqh.data(), qOff, t, heads, h, d, dq);
      }
      if (c > 0 && dctxK)
        scatterHead(dkh.data(), cOff, c, kvHeads, hk, d, dctxK);
      if (c > 0 && dctxV)
        scatterHead(dvh.data(), cOff, c, kvHeads, hk, d, dctxV);
      scatterHead(dkh.data() + c * d, qOff, t, kvHeads, hk, d, dk);
      scatterHead(dvh.data() + c * d, qOff, t, kvHeads, hk, d, dv);
    }
    qOff += t;
    cOff += c;
  }
}

template <typename T>
double crossEntropy(const T *logits, const int32_t *targets, int64_t rows,
                    int64_t vocab, double scale, T *dlogits) {
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T *lr = logits + r * vocab;
    T *dr = dlogits + r * vocab;
    const int32_t target = targets[r];
    if (target < 0) {
      std::fill(dr, dr + vocab, T(0));
      continue;
    }
    T mx = lr[0];
    for (int64_t j = 1; j < vocab; ++j)
      mx = std::max(mx, lr[j]);
    double sum = 0;
    for (int64_t j = 0; j < vocab; ++j)
      sum += std::exp(static_cast<double>(lr[j]) - static_cast<double>(mx));
    const double rowLse = static_cast<double>(mx) + std::log(sum);
    total += rowLse - static_cast<double>(lr[target]);
    for (int64_t j = 0; j < vocab; ++j)
      dr[j] =
          static_cast<T>(scale * std::exp(static_cast<double>(lr[j]) - rowLse));
    dr[target] -= static_cast<T>(scale);
  }
  return total;
}

#define PLXRT_INSTANTIATE_KERNELS(T)                                           \
  template void matmul(const T *, bool, const T *, bool, T *, int64_t,         \
                       int64_t, int64_t, bool);                                \
  template void matmulPortable(const T *, bool, const T *, bool, T *, int64_t, \
                               int64_t, int64_t, bool);                        \
  template void matmulNaive(const T *, bool, const T *, bool, T *, int64_t,    \
                            int64_t, int64_t, bool);                           \
  template void rmsNormForward(const T *, const T *, int64_t, int64_t, double, \
                               T *, T *);                                      \
  template void rmsNormBackward(const T *, const T *, const T *, const T *,    \
                                int64_t, int64_t, T *, T *);                   \
  template void rope(T *, int64_t, int64_t, int64_t, const int64_t *, double,  \
                     bool);                                                    \
  template void geluForward(const T *, T *, int64_t);                          \
  template void geluBackward(const T *, const T *, T *, int64_t);              \
  template void swigluForward(const T *, const T *, T *, int64_t);             \
  template void swigluBackward(const T *, const T *, const T *, T *, T *,      \
                               int64_t);                                       \
  template void attentionForward(const std::vector<Slice> &, AttentionHeads,   \
                                 const T *, const T *, const T *, const T *,   \
                                 const T *, T *, T *);                         \
  template void attentionBackward(const std::vector<Slice> &, AttentionHeads,  \
                                  const T *, const T *, const T *, const T *,  \
                                  const T *, const T *, const T *, const T *,  \
                                  T *, T *, T *, T *, T *);                    \
  template double crossEntropy(const T *, const int32_t *, int64_t, int64_t,   \
                               double, T *);

PLXRT_INSTANTIATE_KERNELS(float)
PLXRT_INSTANTIATE_KERNELS(double)

} // namespace plexus::runtime::cpu
