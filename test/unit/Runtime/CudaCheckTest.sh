#!/bin/sh
# RuntimeCuda.NoDeviceIsReportedClearly: runs plxrt-cuda-check ($1). It
# passes when a device is listed (exit 0), or when there is none and the
# tool says "no CUDA device" with exit status 2. A crash, another status, or
# a status 2 without the message fails.
out=$("$1" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "CudaCheckTest: devices present"
  exit 0
fi
if [ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -q "no CUDA device"; then
  echo "CudaCheckTest: no device, reported clearly"
  exit 0
fi
echo "CudaCheckTest: FAILED (exit status $rc, expected 0, or 2 with 'no CUDA device')"
exit 1
