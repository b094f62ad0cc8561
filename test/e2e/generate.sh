#!/bin/sh
# Generates the program of one plan of examples/tiny-cpu.plx for the
# end-to-end tests (test/e2e/CMakeLists.txt):
#   generate.sh BINDIR SPEC VARIANT OUT.mlir OUT.cpp
# The variants keep the example's model and fabric (8 CPU ranks). The
# batch is drawn with a wider length spread (sigma 1.2, seed 3; seed 4
# for flexsp, whose best plan of seed 3's batch is all SP 2) so that the
# planners have something to do:
#   flexsp  FlexSP's MILP: SP groups of 2, 2 and 4 ranks, ZeRO-3 over all 8
#   dpp     dynamic pipelines: 4 stages x 2-way Ulysses, split and hybrid
#           chunks, every layer checkpointed and recomputed, ZeRO-3 per stage
#   pp-dp   static 1F1B: 2 stages x 4 replicas of whole sequences, ZeRO-1
#           data-parallel sync (reduce-scatter, update, all-gather)
#   pp-v2   interleaved 1F1B: 2 stages x 2 model chunks (one layer each) x
#           4 replicas, ZeRO-1; the last stage sends round to the first
#   single  one rank (one chip, sp 1): the whole step on one process, the
#           program a single GPU runs (scripts/gpu-check.sh)
#   dpp16   dpp on 16 ranks (4 nodes x 4, a radix-8 tree): 8 layers, 8
#           stages x 2-way Ulysses, batch 32; the generated program's loops
#           and tables at more ranks than the 8-rank runs
set -eu
bin=$1 spec=$2 variant=$3 mlir=$4 cpp=$5
tmp=$mlir.plx
one=""
seed=3
case $variant in
  single) zero=0; passes="-plx-plan-static"
    one="s/nodes = 2;/nodes = 1;/; s/chips_per_node = 4;/chips_per_node = 1;/; s/sp = 2;/sp = 1;/" ;;
  flexsp) zero=3; seed=4; passes="-plx-adaptive-sp" ;;
  dpp) zero=3; passes="-plx-dynamic-pp=min-slices=2 -plx-checkpoint=strategy=full" ;;
  dpp16) zero=3; passes="-plx-dynamic-pp=min-slices=2 -plx-checkpoint=strategy=full"
    one="s/nodes = 2;/nodes = 4;/; s/radix = 4;/radix = 8;/; s/layers = 4;/layers = 8;/; s/batch = 16;/batch = 32;/" ;;
  pp-dp) zero=1; passes="-plx-plan-static=layout=pp2-tp1-1f1b" ;;
  pp-v2) zero=1; passes="-plx-plan-static=layout=pp2-tp1-v2-1f1b" ;;
  *) echo "generate.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac
sed -e 's/sigma = 0.8/sigma = 1.2/' -e "s/seed = 1;/seed = $seed;/" \
    -e "s/zero = 3;/zero = $zero;/" -e "${one:-s/^//}" "$spec" > "$tmp"
"$bin/plx-translate" --import-plx "$tmp" \
  | "$bin/plx-opt" -plx-instantiate -plx-place $passes -plx-lower-to-rt \
  > "$mlir"
"$bin/plx-translate" --emit-cpp "$mlir" -o "$cpp"
