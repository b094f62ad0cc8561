#!/bin/sh
# plxc SPEC -o DIR writes program.cpp and launch.sh; launch.sh builds the
# program against this tree's runtime and runs it on the plan's ranks. The
# test checks that the step runs and prints its loss, and that its loss
# and gradients match a single-rank run (--check). With README, the loss
# README.md quotes for this run (its `step 0: loss` line) must be the one
# printed.
#   plxc-launch.sh PLXC SPEC DIR [README]
set -eu
plxc=$1 spec=$2 dir=$3 readme=${4:-}
rm -rf "$dir"
"$plxc" "$spec" -o "$dir" > /dev/null
for f in program.cpp launch.sh plan.json nccl-topo.xml circuits.json rt.mlir; do
  if [ ! -s "$dir/$f" ]; then
    echo "plxc-launch.sh: plxc -o did not write $f" >&2
    exit 1
  fi
done
out=$("$dir/launch.sh" --check)
echo "$out"
echo "$out" | grep -q '^step 0: loss [0-9]' || {
  echo "plxc-launch.sh: no loss printed" >&2
  exit 1
}
echo "$out" | grep -q '^check: .*: ok$'
if [ -n "$readme" ]; then
  quoted=$(sed -n 's/^ *\(step 0: loss [0-9.]*\)$/\1/p' "$readme" | head -n 1)
  printed=$(echo "$out" | grep '^step 0: loss ')
  if [ "$quoted" != "$printed" ]; then
    echo "plxc-launch.sh: README.md quotes '$quoted', the run printed '$printed'" >&2
    exit 1
  fi
fi
