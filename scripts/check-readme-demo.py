#!/usr/bin/env python3
"""The demo report quoted in README.md is what plxc prints today.

Usage: check-readme-demo.py PLXC README.md SOURCE_DIR

Runs `plxc examples/flexsp-gpt7b-wikipedia.plx` from SOURCE_DIR, shortens
the absolute path of the lengths file to `…/examples/...` as the README
writes it, and compares it line by line with the block that follows
`$ plxc examples/flexsp-gpt7b-wikipedia.plx` in the README. Prints
`1 passed, 0 failed` or the first differing line.
"""
import os
import subprocess
import sys


def main():
    plxc, readme, source = (os.path.abspath(a) for a in sys.argv[1:4])
    text = open(readme, encoding="utf-8").read().splitlines()
    start = text.index("$ plxc examples/flexsp-gpt7b-wikipedia.plx") + 1
    end = text.index("```", start)
    quoted = text[start:end]
    run = subprocess.run([plxc, "examples/flexsp-gpt7b-wikipedia.plx"],
                         cwd=source, capture_output=True, text=True,
                         timeout=300)
    if run.returncode != 0:
        print("plxc failed:", run.stderr)
        print("0 passed, 1 failed")
        return 1
    printed = [line.replace(source + "/examples/", "…/examples/")
               for line in run.stdout.splitlines()]
    for i, (want, got) in enumerate(zip(quoted, printed)):
        if want != got:
            print(f"README.md line {start + i + 1} differs from plxc:")
            print("  README: " + want)
            print("  plxc:   " + got)
            print("0 passed, 1 failed")
            return 1
    if len(quoted) != len(printed):
        print(f"README quotes {len(quoted)} lines, plxc prints {len(printed)}")
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
