#!/bin/sh
# e2e.tiny-dpp-cuda.no-device: the CUDA build of the dpp program (the same
# generated source, compiled by nvcc, NCCL collectives) started on 8 ranks:
#   run-cuda.sh CUDA_CHECK PROGRAM MPIEXEC [MPIEXEC FLAGS...]
# CUDA_CHECK is plxrt-cuda-check. With no GPU (it exits 2), the program
# must exit non-zero and say "no CUDA device" (every rank stops at NCCL
# start-up, none hangs). With 8 or more GPUs it must pass --check. With 1
# to 7 GPUs two ranks of one communicator share a GPU, which NCCL refuses:
# the program must stop with an error that names NCCL, not hang. Anything
# else fails.
set -u
check=$1 program=$2
shift 2
devices=$("$check" 2>&1)
devrc=$?
printf '%s\n' "$devices"
if [ "$devrc" -eq 0 ]; then
  n=$(printf '%s\n' "$devices" | grep -c '^device [0-9]*:')
elif [ "$devrc" -ne 2 ]; then
  echo "run-cuda.sh: FAILED: plxrt-cuda-check exited $devrc"
  exit 1
fi
out=$("$@" "$program" --check 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^check: .*: ok$'; then
  echo "run-cuda.sh: ran on the GPUs, check ok"
  exit 0
fi
if [ "$devrc" -eq 2 ] && [ "$rc" -ne 0 ] &&
   printf '%s\n' "$out" | grep -q "no CUDA device"; then
  echo "run-cuda.sh: no device, reported clearly (exit status $rc)"
  exit 0
fi
if [ "$devrc" -eq 0 ] && [ "${n:-0}" -lt 8 ] && [ "$rc" -ne 0 ] &&
   printf '%s\n' "$out" | grep -q "error on rank .*NCCL\|error on rank .*nccl"; then
  echo "run-cuda.sh: $n GPU(s) for 8 ranks: NCCL's refusal reported clearly" \
       "(exit status $rc)"
  exit 0
fi
echo "run-cuda.sh: FAILED (exit status $rc; expected 0 with 'check: ...: ok'," \
     "or non-zero with 'no CUDA device' or an NCCL error)"
exit 1
