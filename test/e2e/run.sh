#!/bin/sh
# Runs one generated plan of examples/tiny-cpu.plx on its ranks under mpirun
# and compares its loss and gradients with a single-rank run of the same
# model, weights and batch (the program's --check, tolerance 1e-5
# relative). First checks that the plan uses what the variant is there to
# prove (test/e2e/generate.sh):
#   run.sh VARIANT PLAN.mlir PROGRAM MPIEXEC [MPIEXEC FLAGS...]
set -eu
variant=$1 mlir=$2 program=$3
shift 3
need() {
  if ! grep -q -e "$1" "$mlir"; then
    echo "run.sh: the $variant plan has no $2 ($1 in $mlir)" >&2
    exit 1
  fi
}
case $variant in
  flexsp)
    need 'rt.group @"sp:[0-9]*-[0-9]*" sp \[[0-9]*, [0-9]*\]$' "2-rank SP group"
    need 'rt.group @"sp:[0-9]*-[0-9]*" sp \[[0-9]*, [0-9]*, [0-9]*, [0-9]*\]$' \
      "4-rank SP group" ;;
  dpp16)
    if ! grep -q 'for (const auto &c : kRows' "${mlir%.mlir}.cpp"; then
      echo "run.sh: the dpp16 program has no loop over a table" >&2
      exit 1
    fi
    need 'rt.program @rank_15 ' "program for rank 15"
    need 'rt.compute fwd layers \[7, 8) stage 7 ' "eighth stage"
    need 'rt.batch .* cuts' "split sequence"
    need 'rt.compute recompute' "recomputation" ;;
  dpp)
    need 'rt.batch .* cuts' "split sequence"
    need 'rt.compute fwd .* slices \[1\]' "second slice of a split sequence"
    need 'rt.compute fwd .*seqs \[[0-9]*, [0-9]*.* slices \[[1-9]' \
      "hybrid chunk (a tail slice with whole sequences)"
    need 'rt.compute recompute' "recomputation" ;;
  pp-v2)
    need 'rt.send to 0 .* async carries fwd' \
      "activation sent round from the last stage to the first"
    need 'rt.compute fwd layers \[2, 3) stage 0' "second model chunk of stage 0"
    need 'rt.reduce_scatter group dp @"dp:' "data-parallel gradient sync" ;;
  pp-dp)
    need 'rt.send .* carries fwd' "activation message between stages"
    need 'rt.reduce_scatter group dp @"dp:' "data-parallel gradient sync" ;;
  single)
    need 'rt.program @rank_0 ' "program for rank 0"
    if grep -q 'rt.program @rank_1 ' "$mlir"; then
      echo "run.sh: the single plan has more than one rank" >&2
      exit 1
    fi ;;
esac
exec "$@" "$program" --check
