#!/usr/bin/env bash
# Installs every Debian package Plexus needs to build and test, idempotently.
# Checks each package with dpkg-query first and runs apt only for what is missing.
set -euo pipefail

PACKAGES=(
  # Toolchain
  cmake ninja-build g++ make python3 git pkg-config
  # MLIR / LLVM 19 (never mix with the -22 packages: they replace each other)
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  # Parser generator: ANTLR 4.7.2 tool + 4.9 C++ runtime (they work together)
  antlr4 libantlr4-runtime-dev
  # MILP
  coinor-libcbc-dev coinor-libclp-dev coinor-cbc
  # MPI for CPU runs
  libopenmpi-dev openmpi-bin
  # Libraries
  libboost-graph-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  # Tests, benchmarks, fuzzing
  libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev
  # report.html's well-formedness test (xmllint)
  libxml2-utils
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
