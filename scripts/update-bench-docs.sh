#!/usr/bin/env bash
# Reruns the fidelity benches and writes their "paper beside ours" tables
# into docs/generated/. The ctests bench-doc-up-to-date-* fail when the
# committed copies differ from what the benches print.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
mkdir -p docs/generated
for b in ${BENCHES:-railx serving calibration dpp}; do
  "$BUILD_DIR/bin/bench-$b" --markdown "docs/generated/$b.md" > /dev/null
  echo "docs/generated/$b.md updated"
done
