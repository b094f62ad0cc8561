#!/usr/bin/env python3
"""Simulation by symmetry equals the full simulation on a corpus spec.

    python3 test/corpus/check-symmetry.py build/bin/plxc SPEC [--max-ranks N]

Runs `plxc SPEC --report=json` twice: as users run it (the simulator runs
one rank of each class of equal programs) and with --simulate-every-rank
(every rank runs). Every plan, baseline, candidate and choice the report
prints comes from those simulations, so the two reports must be identical,
wall-clock fields (solver_time_s, planner_time_s) aside. Specs whose largest
fabric has more than --max-ranks chips (default 256, issue 16's bound) are
skipped (exit 77): the full simulation is what symmetry saves at scale.
The spec's `// corpus: plxc-args:` line is passed to both runs.
"""

import argparse
import json
import subprocess
import sys

WALL_CLOCK = {"solver_time_s", "planner_time_s"}
ARGS_PREFIX = "// corpus: plxc-args:"
TIMEOUT_S = 300


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in WALL_CLOCK}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return path + "." + k
            d = first_difference(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path + " (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("plxc")
    parser.add_argument("spec")
    parser.add_argument("--max-ranks", type=int, default=256)
    args = parser.parse_args()
    extra = []
    with open(args.spec) as f:
        for line in f:
            if line.startswith(ARGS_PREFIX):
                extra += line[len(ARGS_PREFIX):].split()
    reports = []
    for flags in ([], ["--simulate-every-rank"]):
        # Jobs above the bound are skipped, so they need not be planned:
        # the guard reports them as not planned, with their fabric's chips.
        guard = ["--max-simulated-ranks=%d" % args.max_ranks]
        run = subprocess.run([args.plxc, args.spec, "--report=json"] + extra +
                             guard + flags, capture_output=True, text=True,
                             timeout=TIMEOUT_S)
        try:
            reports.append((run.returncode, json.loads(run.stdout)))
        except json.JSONDecodeError:
            reports.append((run.returncode, run.stdout))
        if not flags:
            report = reports[0][1]
            chips = [f.get("chips", 0) for f in report.get("fabrics", [])] \
                if isinstance(report, dict) else []
            if chips and max(chips) > args.max_ranks:
                print("SKIP %s: %d chips > %d" % (args.spec, max(chips),
                                                  args.max_ranks))
                return 77
    (rc_a, a), (rc_b, b) = reports
    if rc_a != rc_b:
        print("FAIL %s: exit %d with symmetry, %d without" % (args.spec, rc_a,
                                                             rc_b))
        return 1
    a, b = strip(a), strip(b)
    if a != b:
        print("FAIL %s: reports differ first at %s" %
              (args.spec, first_difference(a, b)))
        return 1
    print("PASS %s" % args.spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
