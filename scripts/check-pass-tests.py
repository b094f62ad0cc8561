#!/usr/bin/env python3
"""Every pass has a lit test that runs it alone on IR (issue 15, item 5).

Usage: check-pass-tests.py SOURCE_DIR

For every `Pass<"name", ...>` declared in passes/*/Passes.td, the file
test/Passes/<name>.mlir must exist and hold a RUN line that feeds the file
itself to plx-opt with that pass and no other Plexus pass, not expecting
failure (`plx-opt %s ... -<name>`), so the pass is tested alone on IR given
as input, not only behind a chain of earlier passes.
Prints one line per pass without one and `N passed, M failed`.
"""
import glob
import os
import re
import sys


def passes(source):
    out = []
    for td in sorted(glob.glob(os.path.join(source, "passes", "*", "Passes.td"))):
        text = open(td, encoding="utf-8").read()
        out += re.findall(r'Pass<"([a-z0-9-]+)"', text)
    return out


def runs_alone(path, name):
    """A RUN line, not expecting failure, that feeds the file to plx-opt with
    this pass and no other Plexus pass."""
    if not os.path.exists(path):
        return False
    for line in open(path, encoding="utf-8"):
        if "RUN:" not in line:
            continue
        m = re.search(r"(\bnot\s+)?plx-opt %s\b([^|]*)", line)
        if not m or m.group(1):
            continue
        passes = set(re.findall(r"(?:^|[\s'])-(plx-[a-z0-9-]+)", m.group(2)))
        if passes == {name}:
            return True
    return False


def main():
    source = os.path.abspath(sys.argv[1])
    names = passes(source)
    if not names:
        print("no pass found under passes/*/Passes.td")
        print("0 passed, 1 failed")
        return 1
    failed = 0
    for name in names:
        path = os.path.join(source, "test", "Passes", name + ".mlir")
        if not runs_alone(path, name):
            print(f"{name}: test/Passes/{name}.mlir has no RUN line "
                  f"`plx-opt %s ... -{name}`")
            failed += 1
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
