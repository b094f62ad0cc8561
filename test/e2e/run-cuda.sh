#!/bin/sh
# e2e.tiny-*-cuda.no-device: the CUDA build of a generated program (the
# same source, compiled by nvcc, NCCL collectives) started on its ranks:
#   run-cuda.sh CUDA_CHECK PROGRAM RANKS MPIEXEC [MPIEXEC FLAGS...]
# CUDA_CHECK is plxrt-cuda-check. With no GPU (it exits 2), the program
# must exit non-zero and say "no CUDA device" (every rank stops at NCCL
# start-up, none hangs). With a GPU per rank it must pass --check. With
# fewer, two ranks of one communicator share a GPU, which NCCL refuses:
# the program must stop with an error that names NCCL, not hang. Anything
# else fails.
set -u
check=$1 program=$2 ranks=$3
shift 3
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
if [ "$devrc" -eq 0 ] && [ "${n:-0}" -lt "$ranks" ] && [ "$rc" -ne 0 ] &&
   printf '%s\n' "$out" | grep -q "error on rank .*NCCL\|error on rank .*nccl"; then
  echo "run-cuda.sh: $n GPU(s) for $ranks ranks: NCCL's refusal reported clearly" \
       "(exit status $rc)"
  exit 0
fi
echo "run-cuda.sh: FAILED (exit status $rc; expected 0 with 'check: ...: ok'," \
     "or non-zero with 'no CUDA device' or an NCCL error)"
exit 1
