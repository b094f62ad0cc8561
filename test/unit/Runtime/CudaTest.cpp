//===- CudaTest.cpp - The CUDA backend of libplxrt ------------------------===//
//
// Runs on every machine. Without a GPU it checks what can be checked: the
// error messages of the status helpers, that the device query fails with
// "no CUDA device", and that NcclComm::create refuses to start with the
// same words. With a GPU the kernels are compared against the CPU kernels
// (within a tolerance: the GPU adds in its own order) and a one-rank
// NcclComm runs its group-of-one paths and its argument checks, also behind
// a StagedComm on host buffers.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/Kernels.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaStatus.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/cuda/NcclComm.h"
#include "runtime/cuda/StagedComm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace plexus::runtime;
using namespace plexus::runtime::cuda;

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

} // namespace
