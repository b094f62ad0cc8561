//===- KernelBench.cpp - plxrt-cuda-bench: the CUDA kernels against peak --===//
//
// Times the CUDA backend's kernels (runtime/cuda/Kernels.h) on device 0:
//   - matmul, one cublasSgemm in full fp32 (CUBLAS_DEFAULT_MATH, no TF32),
//     at square sizes and at the tiny example's MLP shape; prints the
//     achieved TFLOP/s (2 m n k per product) and its ratio to the FP32 peak;
//   - rmsNormForward, our own kernel; prints the achieved bandwidth (x read,
//     y written, the gain and rstd) and its ratio to the HBM peak, next to
//     a device-to-device cudaMemcpy of the same rows as a practical ceiling;
//   - attentionForward, our own kernel (Attention.cu), causal, 4 slices of
//     4,096 tokens, 32 query heads over 8 K/V heads, head width 128; prints
//     the achieved TFLOP/s counting 4 d FLOPs per causal (query, key) pair
//     (QK^T and PV, 2 FLOPs per multiply-add), its ratio to the FP32 peak,
//     and its ratio to one cublasSgemm of the same FLOP count (8192 x 8192
//     x 4096) timed in the same run.
// Each timing is the mean of a run of back-to-back launches between two
// CUDA events, after warm-up launches. Inputs are filled with cudaMemset
// (every float 0x3c3c3c3c, about 0.0115) and one output element is checked
// against its closed form, so a launch that silently did nothing shows.
//
// Peaks, NVIDIA H200 SXM (NVIDIA H200 Tensor Core GPU datasheet,
// nvidia.com/en-us/data-center/h200): FP32 67 TFLOP/s (dense, no tensor
// cores), GPU memory bandwidth 4.8 TB/s (HBM3e). On another GPU the ratios
// are still against these figures (the device's name is printed).
//
// Exit codes: 0 done; 1 a failed CUDA or cuBLAS call or a wrong result;
// 2 no CUDA device ("no CUDA device: ..." on stdout, as plxrt-cuda-check).
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/Kernels.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

using namespace plexus::runtime;
using namespace plexus::runtime::cuda;

namespace {

constexpr double kPeakFp32TeraFlops = 67.0; // H200 SXM datasheet, FP32
constexpr double kPeakHbmTeraBytes = 4.8;   // H200 SXM datasheet, HBM3e
constexpr unsigned char kFillByte = 0x3c;

float fillValue() {
  const uint32_t bits = 0x3c3c3c3cu;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// A device buffer of `n` floats filled with kFillByte, freed on exit.
struct Buffer {
  float *ptr = nullptr;
  ~Buffer() { (void)cudaFree(ptr); }
  Status make(size_t n, const char *what) {
    const std::string at = std::string("cudaMalloc of ") + what;
    PLXRT_TRY(checkCuda(cudaMalloc(&ptr, n * sizeof(float)), at));
    return checkCuda(cudaMemset(ptr, kFillByte, n * sizeof(float)),
                     std::string("cudaMemset of ") + what);
  }
};

/// Seconds per call of `launch`: `warm` untimed calls, then the mean of
/// `iters` calls between two events on `stream`.
Status timeIt(cudaStream_t stream, int warm, int iters,
              const std::function<Status()> &launch, double &seconds) {
  for (int i = 0; i < warm; ++i)
    PLXRT_TRY(launch());
  cudaEvent_t start = nullptr, stop = nullptr;
  PLXRT_TRY(checkCuda(cudaEventCreate(&start), "cudaEventCreate"));
  Status st = checkCuda(cudaEventCreate(&stop), "cudaEventCreate");
  if (st.ok())
    st = checkCuda(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; st.ok() && i < iters; ++i)
    st = launch();
  if (st.ok())
    st = checkCuda(cudaEventRecord(stop, stream), "cudaEventRecord");
  if (st.ok())
    st = checkCuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  if (st.ok())
    st = checkCuda(cudaEventElapsedTime(&ms, start, stop),
                   "cudaEventElapsedTime");
  (void)cudaEventDestroy(start);
  if (stop)
    (void)cudaEventDestroy(stop);
  seconds = static_cast<double>(ms) * 1e-3 / iters;
  return st;
}

/// Iterations that take about `target` seconds at `rate` units per second.
int itersFor(double work, double rate, double target) {
  const double n = target * rate / work;
  return n < 5 ? 5 : n > 200 ? 200 : static_cast<int>(n);
}

/// Times one m x n x k sgemm; its TFLOP/s go to `achieved` when given.
Status benchMatmul(cublasHandle_t handle, cudaStream_t stream, int64_t m,
                   int64_t n, int64_t k, const char *label,
                   double *achieved = nullptr) {
  Buffer a, b, c;
  PLXRT_TRY(a.make(static_cast<size_t>(m * k), "A"));
  PLXRT_TRY(b.make(static_cast<size_t>(k * n), "B"));
  PLXRT_TRY(c.make(static_cast<size_t>(m * n), "C"));
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                       static_cast<double>(k);
  auto launch = [&] {
    return matmul(handle, a.ptr, false, b.ptr, false, c.ptr, m, n, k, false);
  };
  double seconds = 0;
  PLXRT_TRY(timeIt(stream, 3, itersFor(flops, 40e12, 0.2), launch, seconds));
  // Every element of C is the sum of k products v * v.
  float got = 0;
  PLXRT_TRY(
      checkCuda(cudaMemcpy(&got, c.ptr, sizeof got, cudaMemcpyDeviceToHost),
                "cudaMemcpy of C[0]"));
  const double v = fillValue();
  const double want = static_cast<double>(k) * v * v;
  if (!(std::fabs(got - want) <= 2e-3 * want))
    return Status::error(std::string("sgemm ") + label +
                         ": C[0] = " + std::to_string(got) + ", expected " +
                         std::to_string(want));
  const double tflops = flops / seconds * 1e-12;
  std::printf("sgemm %-22s %5lldx%-5lldx%5lld  %9.3f ms  %6.2f TFLOP/s  "
              "%5.1f%% of %.0f TFLOP/s FP32 peak\n",
              label, static_cast<long long>(m), static_cast<long long>(n),
              static_cast<long long>(k), seconds * 1e3, tflops,
              100.0 * tflops / kPeakFp32TeraFlops, kPeakFp32TeraFlops);
  if (achieved)
    *achieved = tflops;
  return Status::success();
}

Status benchRmsNorm(cudaStream_t stream, int64_t rows, int64_t width,
                    const char *label) {
  Buffer x, gain, y, rstd, copy;
  const size_t elems = static_cast<size_t>(rows * width);
  PLXRT_TRY(x.make(elems, "x"));
  PLXRT_TRY(gain.make(static_cast<size_t>(width), "gain"));
  PLXRT_TRY(y.make(elems, "y"));
  PLXRT_TRY(rstd.make(static_cast<size_t>(rows), "rstd"));
  PLXRT_TRY(copy.make(elems, "copy"));
  const double eps = 1e-5;
  const double bytes =
      static_cast<double>(2 * elems + static_cast<size_t>(width + rows)) * 4.0;
  auto launch = [&] {
    return rmsNormForward(x.ptr, gain.ptr, rows, width, eps, y.ptr, rstd.ptr,
                          stream);
  };
  double seconds = 0;
  PLXRT_TRY(timeIt(stream, 3, itersFor(bytes, 3e12, 0.2), launch, seconds));
  float got = 0;
  PLXRT_TRY(
      checkCuda(cudaMemcpy(&got, y.ptr, sizeof got, cudaMemcpyDeviceToHost),
                "cudaMemcpy of y[0]"));
  const double v = fillValue();
  const double want = v / std::sqrt(v * v + eps) * v;
  if (!(std::fabs(got - want) <= 1e-5 * std::fabs(want)))
    return Status::error(std::string("rms_norm ") + label +
                         ": y[0] = " + std::to_string(got) + ", expected " +
                         std::to_string(want));
  auto copyLaunch = [&] {
    return checkCuda(cudaMemcpyAsync(copy.ptr, x.ptr, elems * sizeof(float),
                                     cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpyAsync");
  };
  double copySeconds = 0;
  PLXRT_TRY(
      timeIt(stream, 3, itersFor(bytes, 3e12, 0.2), copyLaunch, copySeconds));
  const double tbps = bytes / seconds * 1e-12;
  const double copyTbps =
      2.0 * static_cast<double>(elems) * 4.0 / copySeconds * 1e-12;
  std::printf("rms_norm %-19s %6lldx%-6lld  %9.3f ms  %5.2f TB/s  %5.1f%% of "
              "%.1f TB/s HBM peak (memcpy of the rows: %.2f TB/s)\n",
              label, static_cast<long long>(rows),
              static_cast<long long>(width), seconds * 1e3, tbps,
              100.0 * tbps / kPeakHbmTeraBytes, kPeakHbmTeraBytes, copyTbps);
  return Status::success();
}

/// The attention forward over `slices` slices of `tokens` tokens (no
/// context), against the FP32 peak and against `sgemmTflops`, the cuBLAS
/// sgemm rate measured at `sgemmShape` in this run. With every input equal
/// the softmax is uniform: token i gets out = v and lse = d v^2 / sqrt(d) +
/// log(i + 1), checked on the first slice's last token.
Status benchAttention(cudaStream_t stream, int64_t slices, int64_t tokens,
                      int64_t heads, int64_t kvHeads, int64_t d,
                      double sgemmTflops, const char *sgemmShape) {
  const std::vector<Slice> batch(static_cast<size_t>(slices), Slice{tokens, 0});
  const int64_t rows = slices * tokens;
  Buffer q, k, v, out, lse;
  PLXRT_TRY(q.make(static_cast<size_t>(rows * heads * d), "q"));
  PLXRT_TRY(k.make(static_cast<size_t>(rows * kvHeads * d), "k"));
  PLXRT_TRY(v.make(static_cast<size_t>(rows * kvHeads * d), "v"));
  PLXRT_TRY(out.make(static_cast<size_t>(rows * heads * d), "out"));
  PLXRT_TRY(lse.make(static_cast<size_t>(rows * heads), "lse"));
  const cpu::AttentionHeads shape{heads, kvHeads, d};
  const double pairs = static_cast<double>(slices * heads) *
                       static_cast<double>(tokens) *
                       static_cast<double>(tokens + 1) / 2.0;
  const double flops = 4.0 * static_cast<double>(d) * pairs;
  auto launch = [&] {
    return attentionForward(batch, shape, rows, 0, q.ptr, k.ptr, v.ptr, nullptr,
                            nullptr, out.ptr, lse.ptr, stream);
  };
  double seconds = 0;
  PLXRT_TRY(timeIt(stream, 2, itersFor(flops, 20e12, 0.2), launch, seconds));
  // Head 0 of the first slice's last token, which sees `tokens` keys.
  float gotOut = 0, gotLse = 0;
  PLXRT_TRY(checkCuda(cudaMemcpy(&gotOut, out.ptr + (tokens - 1) * heads * d,
                                 sizeof gotOut, cudaMemcpyDeviceToHost),
                      "cudaMemcpy of out"));
  PLXRT_TRY(checkCuda(cudaMemcpy(&gotLse, lse.ptr + (tokens - 1) * heads,
                                 sizeof gotLse, cudaMemcpyDeviceToHost),
                      "cudaMemcpy of lse"));
  const double fill = fillValue();
  const double wantLse =
      static_cast<double>(d) * fill * fill / std::sqrt(static_cast<double>(d)) +
      std::log(static_cast<double>(tokens));
  // That out is a sum of `tokens` products in fp32: the sgemm's tolerance.
  if (!(std::fabs(gotOut - fill) <= 2e-3 * fill) ||
      !(std::fabs(gotLse - wantLse) <= 1e-4 * std::fabs(wantLse)))
    return Status::error(
        "attention_forward: out of the last token = " + std::to_string(gotOut) +
        " (expected " + std::to_string(fill) + "), lse of the last token = " +
        std::to_string(gotLse) + " (expected " + std::to_string(wantLse) + ")");
  const double tflops = flops / seconds * 1e-12;
  std::printf("attention_forward %lld x %lld tok, %lld/%lld heads, d %lld  "
              "%9.3f ms  %6.2f TFLOP/s  %5.1f%% of %.0f TFLOP/s FP32 peak, "
              "%.2fx cuBLAS sgemm (%.2f TFLOP/s at %s)\n",
              static_cast<long long>(slices), static_cast<long long>(tokens),
              static_cast<long long>(heads), static_cast<long long>(kvHeads),
              static_cast<long long>(d), seconds * 1e3, tflops,
              100.0 * tflops / kPeakFp32TeraFlops, kPeakFp32TeraFlops,
              tflops / sgemmTflops, sgemmTflops, sgemmShape);
  return Status::success();
}

Status run() {
  PLXRT_TRY(checkCuda(cudaSetDevice(0), "cudaSetDevice(0)"));
  cudaStream_t stream = nullptr;
  PLXRT_TRY(checkCuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
  cublasHandle_t handle = nullptr;
  Status st = checkCublas(cublasCreate(&handle), "cublasCreate");
  if (st.ok())
    st = checkCublas(cublasSetStream(handle, stream), "cublasSetStream");
  if (st.ok())
    st = checkCublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH),
                     "cublasSetMathMode");
  struct Shape {
    int64_t m, n, k;
    const char *label;
  };
  const Shape shapes[] = {
      {1024, 1024, 1024, "square"},
      {2048, 2048, 2048, "square"},
      {4096, 4096, 4096, "square"},
      {8192, 8192, 8192, "square"},
      {2784, 1024, 256, "tiny MLP up (2,784 tok)"},
      {16384, 4096, 4096, "16Ki tok x 4Ki hidden"},
  };
  for (const Shape &s : shapes) {
    if (!st.ok())
      break;
    st = benchMatmul(handle, stream, s.m, s.n, s.k, s.label);
  }
  struct Rows {
    int64_t rows, width;
    const char *label;
  };
  const Rows norms[] = {
      {2784, 256, "tiny (2,784 tok)"},
      {16384, 4096, "16Ki tok"},
      {65536, 8192, "64Ki tok"},
  };
  for (const Rows &r : norms) {
    if (!st.ok())
      break;
    st = benchRmsNorm(stream, r.rows, r.width, r.label);
  }
  // Causal attention over 4 x 4,096 tokens, 32 heads of 128: 4 d FLOPs per
  // (query, key) pair, 5.50e11 in all, the FLOPs of an 8192 x 8192 x 4096
  // sgemm, which is timed first as the comparison.
  double sgemmTflops = 0;
  if (st.ok())
    st = benchMatmul(handle, stream, 8192, 8192, 4096, "attention's FLOPs",
                     &sgemmTflops);
  if (st.ok())
    st = benchAttention(stream, 4, 4096, 32, 8, 128, sgemmTflops,
                        "8192x8192x4096");
  if (handle)
    (void)cublasDestroy(handle);
  (void)cudaStreamDestroy(stream);
  return st;
}

} // namespace

int main() {
  std::printf("plxrt-cuda-bench: %s\n", cudaVersions().c_str());
  Status dev = requireCudaDevice();
  if (!dev.ok()) {
    std::printf("%s\n", dev.message().c_str());
    return 2;
  }
  Result<DeviceInfo> info = cudaDeviceInfo(0);
  if (!info) {
    std::printf("%s\n", info.message().c_str());
    return 1;
  }
  std::printf("device 0: %s, compute %d.%d, %d SMs; peaks: NVIDIA H200 SXM "
              "datasheet (FP32 %.0f TFLOP/s, HBM3e %.1f TB/s)\n",
              info->name.c_str(), info->major, info->minor,
              info->multiprocessors, kPeakFp32TeraFlops, kPeakHbmTeraBytes);
  std::fflush(stdout);
  Status st = run();
  if (!st.ok()) {
    std::printf("plxrt-cuda-bench: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
