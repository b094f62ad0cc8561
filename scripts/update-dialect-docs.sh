#!/usr/bin/env bash
# Regenerates the dialect and pass reference pages from ODS and copies them
# into docs/dialects/ and docs/passes/. The test `dialect-docs-up-to-date` fails when they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake --build "$BUILD_DIR" --target mlir-doc
mkdir -p docs/dialects
for d in Plx Plan Rt; do
  cp "$BUILD_DIR/docs/dialects/${d}Dialect.md" "docs/dialects/${d}Dialect.md"
done
mkdir -p docs/passes
for p in PlacementPasses InstantiatePasses SimulatePasses TrainPasses \
  ServePasses; do
  cp "$BUILD_DIR/docs/passes/${p}.md" "docs/passes/${p}.md"
done
echo "docs/dialects updated"
