#!/bin/sh
# The CUDA backend's checks on a machine with a GPU; not run by ctest (the
# CI machines have none). From the repository root:
#   scripts/gpu-check.sh [BUILD_DIR]        (default build-gpu)
# 1. Configures BUILD_DIR (Ninja, Release, MLIR 19) and builds only the
#    CUDA targets: plxrt-cuda-check, RuntimeCudaTests, plxrt-cuda-bench.
# 2. plxrt-cuda-check: lists the GPUs (must exit 0).
# 3. RuntimeCudaTests: the kernels and the kernel offload (CudaOffload)
#    against the CPU kernels, a referenceStep with the offload installed
#    against one without, and a one-rank NcclComm with a StagedComm on host
#    buffers (the 1-rank check).
# 4. With 8 or more GPUs only: builds e2e-tiny-dpp-cuda (this needs
#    plx-opt and plx-translate, the longest part of the build) and runs it
#    on 8 ranks under mpirun with --check: NCCL carries every collective,
#    the GPU every matmul and the attention core, and the loss and
#    gradients must match the single-rank reference (also computed with
#    the offload) within the default 1e-5. With
#    fewer GPUs it is skipped, and says so: NCCL refuses two ranks of one
#    communicator on the same GPU, and the plan needs 8 ranks.
#    GPU_CHECK_E2E=1 builds and runs it anyway.
# 5. plxrt-cuda-bench: cuBLAS sgemm TFLOP/s and the RMSNorm kernel's TB/s
#    against the H200's peaks (FP32 67 TFLOP/s, HBM3e 4.8 TB/s), and the
#    attention forward's TFLOP/s against the FP32 peak and the sgemm.
# JOBS=N limits ninja to N jobs (default: ninja's own). Every step runs
# even after a failed one; the script ends with a summary
# and exits 1 if any step failed.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build-gpu}
failed=""

step() {
  name=$1
  shift
  echo "== $name: $*"
  if "$@"; then
    echo "== $name: ok"
  else
    rc=$?
    echo "== $name: FAILED (exit status $rc)"
    failed="$failed $name"
  fi
}

step configure cmake -G Ninja -S . -B "$build" \
  -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir -DCMAKE_BUILD_TYPE=Release
step build ninja -C "$build" ${JOBS:+-j"$JOBS"} plxrt-cuda-check RuntimeCudaTests plxrt-cuda-bench
bin=$build/bin

devices=$("$bin/plxrt-cuda-check" 2>&1)
rc=$?
printf '%s\n' "$devices"
if [ "$rc" -ne 0 ]; then
  echo "== plxrt-cuda-check: FAILED (exit status $rc): no usable GPU"
  exit 1
fi
gpus=$(printf '%s\n' "$devices" | grep -c '^device [0-9]*:')
echo "== plxrt-cuda-check: ok ($gpus GPU(s))"

step RuntimeCudaTests timeout 300 "$bin/RuntimeCudaTests"

if [ "$gpus" -ge 8 ] || [ "${GPU_CHECK_E2E:-0}" = 1 ]; then
  flags=""
  if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    flags="--oversubscribe"
    [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
  fi
  step build-e2e ninja -C "$build" ${JOBS:+-j"$JOBS"} e2e-tiny-dpp-cuda
  # shellcheck disable=SC2086 # flags are words
  step e2e-tiny-dpp-cuda timeout 600 mpirun -np 8 $flags \
    "$bin/e2e-tiny-dpp-cuda" --check
else
  echo "== e2e-tiny-dpp-cuda: skipped: the plan needs 8 ranks on 8 GPUs" \
       "(NCCL allows one rank of a communicator per GPU); $gpus visible." \
       "RuntimeCudaTests ran the 1-rank NcclComm/StagedComm check instead."
fi

step plxrt-cuda-bench timeout 300 "$bin/plxrt-cuda-bench"

if [ -n "$failed" ]; then
  echo "gpu-check.sh: FAILED:$failed"
  exit 1
fi
echo "gpu-check.sh: all checks passed"
