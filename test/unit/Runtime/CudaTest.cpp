//===- CudaTest.cpp - The CUDA backend of libplxrt ------------------------===//
//
// Runs on every machine. Without a GPU it checks what can be checked: the
// error messages of the status helpers, that the device query fails with
// "no CUDA device", that NcclComm::create refuses to start with the same
// words, and that the kernels' argument checks come before any CUDA call.
// With a GPU the kernels are compared against the CPU kernels (within a
// tolerance: the GPU adds in its own order), attention on random inputs
// with context and grouped heads, and a one-rank NcclComm runs its
// group-of-one paths and its argument checks, also behind a StagedComm on
// host buffers. The CudaOffload (the model's matmuls and attention core on
// the GPU, host buffers staged per call) is compared with the CPU kernels,
// and a whole referenceStep with it installed with one without; without a
// GPU, creating it must fail with the no-device error.
//
//===----------------------------------------------------------------------===//
#include "runtime/Model.h"
#include "runtime/Offload.h"
#include "runtime/Tensor.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaOffload.h"
#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/cuda/NcclComm.h"
#include "runtime/cuda/StagedComm.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace plexus::runtime;
using namespace plexus::runtime::cuda;
using plexus::runtime::testutil::fp32Config;

namespace {

bool haveDevice() {
  Result<int> count = cudaDeviceCount();
  return count.ok() && *count > 0;
}

/// A device copy of `host`, freed on destruction.
struct DeviceBuffer {
  float *ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(const std::vector<float> &host) : n(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(float)), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice),
        cudaSuccess);
  }
  ~DeviceBuffer() { (void)cudaFree(ptr); }
  std::vector<float> toHost() const {
    std::vector<float> host(n);
    EXPECT_EQ(
        cudaMemcpy(host.data(), ptr, n * sizeof(float), cudaMemcpyDeviceToHost),
        cudaSuccess);
    return host;
  }
};

std::vector<float> pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((static_cast<int>(i) * 37 + seed * 11) % 17 - 8) /
           8.0f;
  return v;
}

TEST(RuntimeCuda, StatusMessagesNameOpRankAndReason) {
  EXPECT_TRUE(checkCuda(cudaSuccess, "cudaMalloc", 3).ok());
  Status oom = checkCuda(cudaErrorMemoryAllocation, "cudaMalloc", 3);
  ASSERT_FALSE(oom.ok());
  EXPECT_EQ(oom.message(),
            "cudaMalloc on rank 3: out of memory (cudaErrorMemoryAllocation)");

  EXPECT_TRUE(checkCublas(CUBLAS_STATUS_SUCCESS, "cublasSgemm", 0).ok());
  Status blas = checkCublas(CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm", 1);
  ASSERT_FALSE(blas.ok());
  EXPECT_EQ(blas.message().rfind("cublasSgemm on rank 1: ", 0), 0u)
      << blas.message();
  EXPECT_NE(blas.message().find("CUBLAS_STATUS_INVALID_VALUE"),
            std::string::npos)
      << blas.message();

  EXPECT_TRUE(checkNccl(ncclSuccess, "ncclAllReduce", 0).ok());
  Status nccl = checkNccl(ncclInvalidArgument, "ncclAllReduce", 2);
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(
      nccl.message().rfind("ncclAllReduce on rank 2: invalid argument", 0), 0u)
      << nccl.message();
}

TEST(RuntimeCuda, DeviceQueryFailsClearlyOrFindsDevices) {
  Result<int> count = cudaDeviceCount();
  Status required = requireCudaDevice();
  if (count.ok() && *count > 0) {
    EXPECT_TRUE(required.ok()) << required.message();
    Result<DeviceInfo> info = cudaDeviceInfo(0);
    ASSERT_TRUE(info.ok()) << info.message();
    EXPECT_FALSE(info->name.empty());
    return;
  }
  ASSERT_FALSE(required.ok());
  EXPECT_EQ(required.message().rfind("no CUDA device", 0), 0u)
      << required.message();
  if (!count.ok()) {
    EXPECT_EQ(
        count.message().rfind("no CUDA device: cudaGetDeviceCount failed: ", 0),
        0u)
        << count.message();
  }
}

TEST(RuntimeCuda, KernelsRejectBadSizesWithoutTouchingTheDevice) {
  // Both are refused before any CUDA call, so they hold on every machine.
  Status big = cuda::matmul(nullptr, nullptr, false, nullptr, false, nullptr,
                            int64_t(1) << 32, 1, 1, false);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.message().find("outside cuBLAS's int range"), std::string::npos)
      << big.message();
  Status width = cuda::rmsNormForward(nullptr, nullptr, 2, 0, 1e-5, nullptr,
                                      nullptr, nullptr);
  ASSERT_FALSE(width.ok());
  EXPECT_NE(width.message().find("width > 0"), std::string::npos)
      << width.message();
}

TEST(RuntimeCuda, MatmulMatchesTheCpuKernel) {
  if (!haveDevice()) {
    // Without a device, creating the cuBLAS handle the kernel needs fails
    // as an error value naming the op, not a crash (ctest counts this test
    // as run: a skipped test would print after its summary line).
    cublasHandle_t handle = nullptr;
    Status s = checkCublas(cublasCreate(&handle), "cublasCreate", 0);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("cublasCreate on rank 0"), std::string::npos)
        << s.message();
    return;
  }
  cublasHandle_t handle = nullptr;
  ASSERT_TRUE(checkCublas(cublasCreate(&handle), "cublasCreate", 0).ok());
  const int64_t m = 7, n = 5, k = 9;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      std::vector<float> a = pattern(m * k, 1), b = pattern(k * n, 2),
                         c = pattern(m * n, 3), want = c;
      cpu::matmul(a.data(), ta, b.data(), tb, want.data(), m, n, k, true);
      DeviceBuffer da(a), db(b), dc(c);
      Status st =
          cuda::matmul(handle, da.ptr, ta, db.ptr, tb, dc.ptr, m, n, k, true);
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> got = dc.toHost();
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-4)
            << "transA " << ta << " transB " << tb << " element " << i;
    }
  (void)cublasDestroy(handle);
}

TEST(RuntimeCuda, RmsNormForwardMatchesTheCpuKernel) {
  const int64_t rows = 3, width = 1000;
  if (!haveDevice()) {
    // Without a device the launch fails as an error value, not a crash.
    std::vector<float> x(rows * width, 1.0f), g(width, 1.0f), y(rows * width),
        rstd(rows);
    Status s = rmsNormForward(x.data(), g.data(), rows, width, 1e-5, y.data(),
                              rstd.data(), nullptr);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("rms_norm_forward of 3x1000: kernel launch "
                               "failed: "),
              std::string::npos)
        << s.message();
    return;
  }
  std::vector<float> x = pattern(rows * width, 4), g = pattern(width, 5);
  std::vector<float> y(x.size()), rstd(rows);
  cpu::rmsNormForward(x.data(), g.data(), rows, width, 1e-5, y.data(),
                      rstd.data());
  DeviceBuffer dx(x), dg(g), dy(y), dr(rstd);
  Status st = cuda::rmsNormForward(dx.ptr, dg.ptr, rows, width, 1e-5, dy.ptr,
                                   dr.ptr, nullptr);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> gotY = dy.toHost(), gotR = dr.toHost();
  for (int64_t r = 0; r < rows; ++r)
    EXPECT_NEAR(gotR[r], rstd[r], 1e-5 * std::fabs(rstd[r]));
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(gotY[i], y[i], 1e-5) << "element " << i;
}

/// A tensor of `n` values uniform on [-bound, bound) from stream `stream`.
Tensor uniform(int64_t n, uint64_t stream, float bound) {
  Tensor t({n});
  fillUniform(t, streamKey(0xa77e, stream), bound);
  return t;
}

std::vector<float> values(const Tensor &t) {
  return std::vector<float>(t.data(), t.data() + t.numel());
}

Tensor tensorOf(const std::vector<float> &v) {
  Tensor t({static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t[static_cast<int64_t>(i)] = v[i];
  return t;
}

/// Inputs of an attention case (4 query heads over 2 K/V heads of `d`,
/// drawn from streams first..first + 5) and the CPU kernels' outputs on
/// them: what the device kernels and the offload are compared with.
struct AttentionCase {
  cpu::AttentionHeads shape;
  int64_t qn = 0, kn = 0, cn = 0;
  Tensor q, k, v, ctxK, ctxV, dout;
  Tensor out, lse, dq, dk, dv, dctxK, dctxV;
};

AttentionCase attentionCase(const std::vector<Slice> &slices, int64_t rows,
                            int64_t contextRows, int64_t d, uint64_t first) {
  AttentionCase c;
  c.shape = {4, 2, d};
  c.qn = rows * 4 * d;
  c.kn = rows * 2 * d;
  c.cn = contextRows * 2 * d;
  c.q = uniform(c.qn, first, 1.0f);
  c.k = uniform(c.kn, first + 1, 1.0f);
  c.v = uniform(c.kn, first + 2, 1.0f);
  c.ctxK = uniform(c.cn, first + 3, 1.0f);
  c.ctxV = uniform(c.cn, first + 4, 1.0f);
  c.dout = uniform(c.qn, first + 5, 1.0f);
  c.out = Tensor({c.qn});
  c.lse = Tensor({rows * 4});
  c.dq = Tensor({c.qn});
  c.dk = Tensor({c.kn});
  c.dv = Tensor({c.kn});
  c.dctxK = Tensor({c.cn});
  c.dctxV = Tensor({c.cn});
  cpu::attentionForward(slices, c.shape, c.q.data(), c.k.data(), c.v.data(),
                        c.ctxK.data(), c.ctxV.data(), c.out.data(),
                        c.lse.data());
  cpu::attentionBackward(slices, c.shape, c.q.data(), c.k.data(), c.v.data(),
                         c.ctxK.data(), c.ctxV.data(), c.out.data(),
                         c.lse.data(), c.dout.data(), c.dq.data(), c.dk.data(),
                         c.dv.data(), c.dctxK.data(), c.dctxV.data());
  return c;
}

/// Expects `s` to fail with "<lead>: <reason>", the reason containing
/// `reason`: an argument check, not a CUDA error.
void expectArgumentError(const Status &s, const std::string &lead,
                         const std::string &reason) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind(lead + ": ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(reason), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("launch failed"), std::string::npos)
      << s.message();
  EXPECT_EQ(s.message().find("cudaMallocAsync"), std::string::npos)
      << s.message();
}

TEST(RuntimeCuda, AttentionChecksArgumentsBeforeTheDevice) {
  // Every call here fails (or, with nothing to do, succeeds) before its
  // first CUDA call, so the results are the same with and without a GPU.
  const std::vector<Slice> slices = {{5, 0}, {3, 2}};
  std::vector<float> host(64 * 16, 0.0f);
  float *h = host.data();
  const std::string fwd = "attention_forward of 2 slices (8 rows, 2 context "
                          "rows), 4 heads over ";
  expectArgumentError(cuda::attentionForward(slices, {4, 3, 16}, 8, 2, h, h, h,
                                             h, h, h, h, nullptr),
                      fwd + "3 K/V heads of 16",
                      "heads = 4 must be a positive multiple of kv_heads = 3");
  expectArgumentError(cuda::attentionForward(slices, {4, 2, 129}, 8, 2, h, h, h,
                                             h, h, h, h, nullptr),
                      fwd + "2 K/V heads of 129",
                      "head_dim = 129 is outside 1..128");
  expectArgumentError(cuda::attentionForward(slices, {4, 2, 16}, 9, 2, h, h, h,
                                             h, h, h, h, nullptr),
                      "attention_forward of 2 slices (9 rows, 2 context "
                      "rows), 4 heads over 2 K/V heads of 16",
                      "the slices hold 8 tokens but rows = 9");
  expectArgumentError(cuda::attentionForward(slices, {4, 2, 16}, 8, 0, h, h, h,
                                             h, h, h, h, nullptr),
                      "attention_forward of 2 slices (8 rows, 0 context "
                      "rows), 4 heads over 2 K/V heads of 16",
                      "the slices hold 2 context tokens but context rows = 0");
  expectArgumentError(cuda::attentionForward({{5, 0}, {-1, 2}}, {4, 2, 16}, 4,
                                             2, h, h, h, h, h, h, h, nullptr),
                      "attention_forward of 2 slices (4 rows, 2 context "
                      "rows), 4 heads over 2 K/V heads of 16",
                      "slice 1 has tokens = -1 and context = 2; both must be "
                      ">= 0");
  expectArgumentError(cuda::attentionForward(slices, {4, 2, 16}, 8, 2, h, h, h,
                                             nullptr, h, h, h, nullptr),
                      fwd + "2 K/V heads of 16", "ctx_k is null");
  // The size error wins over null buffers: the checks run in order.
  expectArgumentError(cuda::attentionForward(slices, {4, 2, 0}, 8, 2, nullptr,
                                             nullptr, nullptr, nullptr, nullptr,
                                             nullptr, nullptr, nullptr),
                      fwd + "2 K/V heads of 0", "head_dim = 0 is outside");

  const std::string bwd = "attention_backward of 2 slices (8 rows, 2 context "
                          "rows), 4 heads over 2 K/V heads of ";
  expectArgumentError(cuda::attentionBackward(slices, {4, 2, 200}, 8, 2, h, h,
                                              h, h, h, h, h, h, h, h, h, h, h,
                                              nullptr),
                      bwd + "200", "head_dim = 200 is outside 1..128");
  expectArgumentError(cuda::attentionBackward(slices, {4, 2, 16}, 8, 2, h, h, h,
                                              h, h, h, h, h, nullptr, h, h, h,
                                              h, nullptr),
                      bwd + "16", "dq is null");
  expectArgumentError(
      cuda::attentionBackward({{5, -2}, {3, 4}}, {4, 2, 16}, 8, 2, h, h, h, h,
                              h, h, h, h, h, h, h, h, h, nullptr),
      "attention_backward of 2 slices (8 rows, 2 context rows), 4 heads over "
      "2 K/V heads of 16",
      "slice 0 has tokens = 5 and context = -2");

  // Nothing to do is success on any machine: no CUDA call is made.
  EXPECT_TRUE(cuda::attentionForward({}, {4, 2, 16}, 0, 0, nullptr, nullptr,
                                     nullptr, nullptr, nullptr, nullptr,
                                     nullptr, nullptr)
                  .ok());
  EXPECT_TRUE(cuda::attentionForward({{0, 0}, {0, 0}}, {4, 2, 16}, 0, 0,
                                     nullptr, nullptr, nullptr, nullptr,
                                     nullptr, nullptr, nullptr, nullptr)
                  .ok());
  // Context without tokens and without context gradients: nothing owed.
  EXPECT_TRUE(cuda::attentionBackward({{0, 3}}, {4, 2, 16}, 0, 3, nullptr,
                                      nullptr, nullptr, h, h, nullptr, nullptr,
                                      nullptr, nullptr, nullptr, nullptr,
                                      nullptr, nullptr, nullptr)
                  .ok());
}

TEST(RuntimeCuda, AttentionMatchesTheCpuKernels) {
  // Several slices, some with context, one without tokens (its context
  // still gets zero gradients), several query tiles of 64, query heads 4
  // over K/V heads 2; head widths of each padded kernel (32, 64, 128).
  const std::vector<Slice> slices = {{70, 0}, {5, 3}, {130, 45},
                                     {0, 7},  {1, 0}, {64, 64}};
  int64_t rows = 0, contextRows = 0;
  for (const Slice &s : slices) {
    rows += s.tokens;
    contextRows += s.context;
  }
  const std::string lead = "attention_forward of 6 slices (270 rows, 119 "
                           "context rows), 4 heads over 2 K/V heads of 16: ";
  if (!haveDevice()) {
    // Past the checks, the first CUDA call fails as an error value naming
    // the op, not a crash.
    const cpu::AttentionHeads shape{4, 2, 16};
    std::vector<float> q(rows * 4 * 16), kv(rows * 2 * 16),
        ctx(contextRows * 2 * 16), lse(rows * 4);
    Status f = cuda::attentionForward(
        slices, shape, rows, contextRows, q.data(), kv.data(), kv.data(),
        ctx.data(), ctx.data(), q.data(), lse.data(), nullptr);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.message().rfind(lead + "kernel launch failed: ", 0), 0u)
        << f.message();
    Status b = cuda::attentionBackward(
        slices, shape, rows, contextRows, q.data(), kv.data(), kv.data(),
        ctx.data(), ctx.data(), q.data(), lse.data(), q.data(), q.data(),
        kv.data(), kv.data(), ctx.data(), ctx.data(), nullptr);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.message().rfind("attention_backward of 6 slices (270 rows, "
                                "119 context rows), 4 heads over 2 K/V heads "
                                "of 16: cudaMallocAsync of the row dots "
                                "failed: ",
                                0),
              0u)
        << b.message();
    return;
  }
  for (int64_t d : {16, 40, 128}) {
    SCOPED_TRACE("head_dim " + std::to_string(d));
    const AttentionCase c = attentionCase(slices, rows, contextRows, d, 1);
    const cpu::AttentionHeads shape = c.shape;
    const int64_t qn = c.qn, kn = c.kn, cn = c.cn;
    const Tensor &q = c.q, &k = c.k, &v = c.v, &ctxK = c.ctxK, &ctxV = c.ctxV,
                 &dout = c.dout, &out = c.out, &lse = c.lse, &dq = c.dq,
                 &dk = c.dk, &dv = c.dv, &dctxK = c.dctxK, &dctxV = c.dctxV;

    DeviceBuffer gq(values(q)), gk(values(k)), gv(values(v)),
        gctxK(values(ctxK)), gctxV(values(ctxV)), gdout(values(dout));
    // Outputs start as NaN, so a row the kernels miss shows.
    const float nan = std::nanf("");
    DeviceBuffer gout(std::vector<float>(qn, nan)),
        glse(std::vector<float>(rows * 4, nan)),
        gdq(std::vector<float>(qn, nan)), gdk(std::vector<float>(kn, nan)),
        gdv(std::vector<float>(kn, nan)), gdctxK(std::vector<float>(cn, nan)),
        gdctxV(std::vector<float>(cn, nan));
    Status st = cuda::attentionForward(slices, shape, rows, contextRows, gq.ptr,
                                       gk.ptr, gv.ptr, gctxK.ptr, gctxV.ptr,
                                       gout.ptr, glse.ptr, nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LT(normRelativeError(tensorOf(gout.toHost()), out), 1e-4);
    EXPECT_LT(normRelativeError(tensorOf(glse.toHost()), lse), 1e-4);

    // The backward from the CPU's out and lse, so that it is compared
    // alone.
    DeviceBuffer cpuOut(values(out)), cpuLse(values(lse));
    auto backward = [&](float *dctxKPtr, float *dctxVPtr) {
      return cuda::attentionBackward(
          slices, shape, rows, contextRows, gq.ptr, gk.ptr, gv.ptr, gctxK.ptr,
          gctxV.ptr, cpuOut.ptr, cpuLse.ptr, gdout.ptr, gdq.ptr, gdk.ptr,
          gdv.ptr, dctxKPtr, dctxVPtr, nullptr);
    };
    st = backward(gdctxK.ptr, gdctxV.ptr);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> firstDq = gdq.toHost(), firstDk = gdk.toHost();
    EXPECT_LT(normRelativeError(tensorOf(firstDq), dq), 1e-4);
    EXPECT_LT(normRelativeError(tensorOf(firstDk), dk), 1e-4);
    EXPECT_LT(normRelativeError(tensorOf(gdv.toHost()), dv), 1e-4);
    EXPECT_LT(normRelativeError(tensorOf(gdctxK.toHost()), dctxK), 1e-4);
    EXPECT_LT(normRelativeError(tensorOf(gdctxV.toHost()), dctxV), 1e-4);

    // No atomics: a second run (this time without the context's
    // gradients) repeats the bits.
    st = backward(nullptr, nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(gdq.toHost(), firstDq);
    EXPECT_EQ(gdk.toHost(), firstDk);
  }
}

TEST(RuntimeCuda, NcclCommStartsOrSaysThereIsNoDevice) {
  Result<std::unique_ptr<NcclComm>> made = NcclComm::create(nullptr, nullptr);
  if (!haveDevice()) {
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(
        made.message().rfind("NCCL start-up on rank 0: no CUDA device", 0), 0u)
        << made.message();
    return;
  }
  ASSERT_TRUE(made.ok()) << made.message();
  NcclComm &comm = **made;
  ASSERT_EQ(comm.size(), 1) << "run this test as a single process";
  // A group of one copies on the device and needs no NCCL communicator.
  std::vector<float> in = pattern(6, 6);
  DeviceBuffer din(in), dout(std::vector<float>(6, 0.0f));
  Status st = comm.allGather<float>({0}, din.ptr, dout.ptr, 6);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(dout.toHost(), in);
  ASSERT_TRUE(comm.allReduce<float>({0}, din.ptr, 6).ok());
  EXPECT_EQ(din.toHost(), in);
  EXPECT_EQ(comm.communicatorCount(), 0);
  // Argument checks come from Comm and name the op and the rank.
  Status bad = comm.allReduce<float>({0, 1}, din.ptr, 6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "all_reduce on rank 0 over [0, 1]: rank 1 is "
                           "outside the world of 1");
  {
    // The same ops on host buffers, staged through device scratch.
    StagedComm staged(comm);
    EXPECT_EQ(staged.rank(), 0);
    EXPECT_EQ(staged.size(), 1);
    EXPECT_EQ(staged.scratchBytes(), 0u);
    std::vector<float> hin = pattern(6, 7), hout(6, 0.0f);
    st = staged.allGather<float>({0}, hin.data(), hout.data(), 6);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(hout, hin);
    hout.assign(6, 0.0f);
    ASSERT_TRUE(staged.allToAll<float>({0}, hin.data(), hout.data(), 6).ok());
    EXPECT_EQ(hout, hin);
    hout.assign(6, 0.0f);
    ASSERT_TRUE(
        staged.reduceScatter<float>({0}, hin.data(), hout.data(), 6).ok());
    EXPECT_EQ(hout, hin);
    std::vector<float> sum = hin;
    ASSERT_TRUE(staged.allReduce<float>({0}, sum.data(), 6).ok());
    EXPECT_EQ(sum, hin);
    std::vector<double> wide = {1.5, -2.25, 1e300};
    ASSERT_TRUE(staged.allReduce<double>({0}, wide.data(), 3).ok());
    EXPECT_EQ(wide, (std::vector<double>{1.5, -2.25, 1e300}));
    EXPECT_GT(staged.scratchBytes(), 0u);
    Status outside = staged.allReduce<float>({0, 1}, sum.data(), 6);
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.message(), "all_reduce on rank 0 over [0, 1]: rank 1 "
                                 "is outside the world of 1");
    ASSERT_TRUE(staged.release().ok());
    EXPECT_EQ(staged.scratchBytes(), 0u);
  }
  ASSERT_TRUE(comm.finalize().ok());
  Status late = comm.allReduce<float>({0}, din.ptr, 6);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.message().find("after finalize()"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// CudaOffload: the model's matmuls and attention core on the GPU
//===----------------------------------------------------------------------===//

/// Without a device, creating the offload is an error that says so (the
/// GPU tests below check this instead of skipping).
void expectNoDeviceOffload() {
  Result<std::unique_ptr<CudaOffload>> made = CudaOffload::create(0, 0);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.message().rfind(
                "kernel offload start-up on rank 0: no CUDA device", 0),
            0u)
      << made.message();
}

/// The offload on device 0, or a failed assertion.
std::unique_ptr<CudaOffload> makeOffload() {
  Result<std::unique_ptr<CudaOffload>> made = CudaOffload::create(0, 0);
  EXPECT_TRUE(made.ok()) << made.message();
  return made.ok() ? made.take() : nullptr;
}

/// Installs an offload for its lifetime.
class OffloadGuard {
public:
  explicit OffloadGuard(KernelOffload *offload) { setKernelOffload(offload); }
  ~OffloadGuard() { setKernelOffload(nullptr); }
  OffloadGuard(const OffloadGuard &) = delete;
  OffloadGuard &operator=(const OffloadGuard &) = delete;
};

TEST(RuntimeCudaOffload, StartsOrSaysThereIsNoDevice) {
  if (!haveDevice()) {
    expectNoDeviceOffload();
    return;
  }
  std::unique_ptr<CudaOffload> offload = makeOffload();
  ASSERT_TRUE(offload);
  EXPECT_EQ(offload->name(), "CUDA device 0");
  EXPECT_EQ(offload->scratchBytes(), 0u);
  Result<int> count = cudaDeviceCount();
  ASSERT_TRUE(count.ok());
  Result<std::unique_ptr<CudaOffload>> missing = CudaOffload::create(*count, 2);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "kernel offload start-up on rank 2: device " +
                                   std::to_string(*count) +
                                   " does not exist (" +
                                   std::to_string(*count) + " visible)");
  ASSERT_TRUE(offload->release().ok());
  float x = 1.0f;
  Status late = offload->matmul(&x, false, &x, false, &x, 1, 1, 1, false);
  EXPECT_EQ(late.message(), "kernel offload on rank 0: matmul 1x1 by 1x1: the "
                            "offload was released");
}

TEST(RuntimeCudaOffload, MatmulMatchesTheCpuKernel) {
  if (!haveDevice()) {
    expectNoDeviceOffload();
    return;
  }
  std::unique_ptr<CudaOffload> offload = makeOffload();
  ASSERT_TRUE(offload);
  // Odd sizes, every transpose, with and without accumulation; the second
  // shape grows the scratch.
  for (auto [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{37, 29, 53}, {300, 257, 129}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (bool acc : {false, true}) {
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + " by " +
                       std::to_string(k) + "x" + std::to_string(n) +
                       " transA " + std::to_string(ta) + " transB " +
                       std::to_string(tb) + " accumulate " +
                       std::to_string(acc));
          const Tensor a = uniform(m * k, 11, 1.0f),
                       b = uniform(k * n, 12, 1.0f),
                       c0 = uniform(m * n, 13, 1.0f);
          Tensor want = c0, got = c0;
          cpu::matmul(a.data(), ta, b.data(), tb, want.data(), m, n, k, acc);
          Status st = offload->matmul(a.data(), ta, b.data(), tb, got.data(), m,
                                      n, k, acc);
          ASSERT_TRUE(st.ok()) << st.message();
          EXPECT_LT(normRelativeError(got, want), 1e-4);
        }
  EXPECT_GE(offload->scratchBytes(),
            size_t(300 * 129 + 129 * 257 + 300 * 257) * sizeof(float));
  // An empty sum: C = 0, or C unchanged; no rows: nothing to do.
  std::vector<float> c = {1.0f, 2.0f};
  ASSERT_TRUE(
      offload->matmul(nullptr, false, nullptr, false, c.data(), 1, 2, 0, true)
          .ok());
  EXPECT_EQ(c, (std::vector<float>{1.0f, 2.0f}));
  ASSERT_TRUE(
      offload->matmul(nullptr, false, nullptr, false, c.data(), 1, 2, 0, false)
          .ok());
  EXPECT_EQ(c, (std::vector<float>{0.0f, 0.0f}));
  ASSERT_TRUE(
      offload->matmul(nullptr, false, nullptr, false, nullptr, 0, 2, 3, false)
          .ok());
  ASSERT_TRUE(offload->release().ok());
}

TEST(RuntimeCudaOffload, AttentionMatchesTheCpuKernels) {
  if (!haveDevice()) {
    expectNoDeviceOffload();
    return;
  }
  std::unique_ptr<CudaOffload> offload = makeOffload();
  ASSERT_TRUE(offload);
  const std::vector<Slice> slices = {{70, 0}, {5, 3}, {130, 45}, {64, 64}};
  int64_t rows = 0, contextRows = 0;
  for (const Slice &s : slices) {
    rows += s.tokens;
    contextRows += s.context;
  }
  for (int64_t d : {16, 40}) {
    SCOPED_TRACE("head_dim " + std::to_string(d));
    const AttentionCase c = attentionCase(slices, rows, contextRows, d, 21);
    const cpu::AttentionHeads shape = c.shape;
    const int64_t qn = c.qn, kn = c.kn, cn = c.cn;
    const Tensor &q = c.q, &k = c.k, &v = c.v, &ctxK = c.ctxK, &ctxV = c.ctxV,
                 &dout = c.dout, &out = c.out, &lse = c.lse, &dq = c.dq,
                 &dk = c.dk, &dv = c.dv, &dctxK = c.dctxK, &dctxV = c.dctxV;
    Tensor gout({qn}), glse({rows * 4}), gdq({qn}), gdk({kn}), gdv({kn}),
        gdctxK({cn}), gdctxV({cn});
    Status st = offload->attentionForward(slices, shape, q.data(), k.data(),
                                          v.data(), ctxK.data(), ctxV.data(),
                                          gout.data(), glse.data());
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_LT(normRelativeError(gout, out), 1e-4);
    EXPECT_LT(normRelativeError(glse, lse), 1e-4);
    // The backward from the CPU's out and lse, so that it is compared alone.
    st = offload->attentionBackward(
        slices, shape, q.data(), k.data(), v.data(), ctxK.data(), ctxV.data(),
        out.data(), lse.data(), dout.data(), gdq.data(), gdk.data(), gdv.data(),
        gdctxK.data(), gdctxV.data());
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_LT(normRelativeError(gdq, dq), 1e-4);
    EXPECT_LT(normRelativeError(gdk, dk), 1e-4);
    EXPECT_LT(normRelativeError(gdv, dv), 1e-4);
    EXPECT_LT(normRelativeError(gdctxK, dctxK), 1e-4);
    EXPECT_LT(normRelativeError(gdctxV, dctxV), 1e-4);
    // The context's gradients are optional.
    Tensor again({qn});
    st = offload->attentionBackward(slices, shape, q.data(), k.data(), v.data(),
                                    ctxK.data(), ctxV.data(), out.data(),
                                    lse.data(), dout.data(), again.data(),
                                    gdk.data(), gdv.data(), nullptr, nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_LT(normRelativeError(again, dq), 1e-4);
  }
  // Without context, the context pointers are null.
  const std::vector<Slice> plain = {{33, 0}, {7, 0}};
  const cpu::AttentionHeads shape{2, 1, 8};
  const Tensor q = uniform(40 * 16, 31, 1.0f), k = uniform(40 * 8, 32, 1.0f),
               v = uniform(40 * 8, 33, 1.0f);
  Tensor out({40 * 16}), lse({40 * 2}), gout({40 * 16}), glse({40 * 2});
  cpu::attentionForward<float>(plain, shape, q.data(), k.data(), v.data(),
                               nullptr, nullptr, out.data(), lse.data());
  Status st =
      offload->attentionForward(plain, shape, q.data(), k.data(), v.data(),
                                nullptr, nullptr, gout.data(), glse.data());
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_LT(normRelativeError(gout, out), 1e-4);
  // Context announced by the slices but not given: the kernel's own check.
  st = offload->attentionForward({{4, 2}}, shape, q.data(), k.data(), v.data(),
                                 nullptr, nullptr, gout.data(), glse.data());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "kernel offload on rank 0: attention_forward of 1 slices (4 rows, "
            "2 context rows), 2 heads over 1 K/V heads of 8: ctx_k is null");
}

TEST(RuntimeCudaOffload, ReferenceStepMatchesTheCpu) {
  if (!haveDevice()) {
    expectNoDeviceOffload();
    return;
  }
  std::unique_ptr<CudaOffload> offload = makeOffload();
  ASSERT_TRUE(offload);
  for (bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    ModelConfig c = fp32Config(2);
    c.tiedEmbeddings = tied;
    auto w = initWeights<float>(c, wholeModel(c), 31);
    ASSERT_TRUE(w.ok()) << w.message();
    const std::vector<std::vector<int32_t>> seqs = {
        syntheticTokens(8, 0, 97, c.vocab), syntheticTokens(8, 1, 13, c.vocab),
        syntheticTokens(8, 2, 64, c.vocab)};
    ModelWeights<float> cpuGrads = zerosLike(*w), gpuGrads = zerosLike(*w);
    Result<double> cpuLoss = referenceStep(c, *w, seqs, cpuGrads);
    ASSERT_TRUE(cpuLoss.ok()) << cpuLoss.message();
    Result<double> gpuLoss = [&] {
      OffloadGuard guard(offload.get());
      return referenceStep(c, *w, seqs, gpuGrads);
    }();
    ASSERT_TRUE(gpuLoss.ok()) << gpuLoss.message();
    EXPECT_LT(std::fabs(*gpuLoss - *cpuLoss) / std::fabs(*cpuLoss), 1e-4)
        << *gpuLoss << " vs " << *cpuLoss;
    std::vector<const Tensor *> want;
    cpuGrads.forEach(
        [&](const std::string &, const Tensor &t) { want.push_back(&t); });
    size_t i = 0;
    gpuGrads.forEach([&](const std::string &name, const Tensor &t) {
      ASSERT_LT(i, want.size());
      EXPECT_LT(normRelativeError(t, *want[i]), 1e-4) << name;
      ++i;
    });
    EXPECT_EQ(i, want.size());
  }
  EXPECT_EQ(kernelOffload(), nullptr);
  ASSERT_TRUE(offload->release().ok());
}

} // namespace
