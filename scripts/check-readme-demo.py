#!/usr/bin/env python3
"""The plxc runs README.md quotes are what plxc prints today.

Usage: check-readme-demo.py PLXC README.md SOURCE_DIR

Every line `$ plxc FILE` inside a code block of the README, with the lines
that follow it up to the next `$ ` line or the block's end, is a quoted
run. FILE is run from SOURCE_DIR, or, when the block first shows it with
`$ cat FILE`, from a scratch directory holding what the block shows. A run
that succeeds must print the quoted lines exactly on stdout (the absolute
path of the lengths file shortened to `…/examples/...`, as the README
writes it); a run that fails must print them as the start of stderr.
Prints `N passed, M failed` and the first differing line of each failure.
"""
import os
import subprocess
import sys
import tempfile


def quoted_runs(lines):
    """(line number, file, quoted lines, {name: text shown by cat})."""
    runs, block, in_block = [], [], False
    for n, line in enumerate(lines):
        if line.strip().startswith("```"):
            if in_block:
                runs += runs_in(block)
            in_block, block = not in_block, []
            continue
        if in_block:
            block.append((n + 1, line))
    return runs


def runs_in(block):
    out, cats, i = [], {}, 0
    while i < len(block):
        n, line = block[i]
        cmd = line.strip()
        j = i + 1
        body = []
        while j < len(block) and not block[j][1].strip().startswith("$ "):
            body.append(block[j][1])
            j += 1
        if cmd.startswith("$ cat "):
            cats[cmd[len("$ cat "):]] = "\n".join(body) + "\n"
        elif cmd.startswith("$ plxc ") and "&&" not in cmd and " -o" not in cmd:
            out.append((n, cmd[len("$ plxc "):].split(), body, dict(cats)))
        i = j
    return out


def main():
    plxc, readme, source = (os.path.abspath(a) for a in sys.argv[1:4])
    lines = open(readme, encoding="utf-8").read().splitlines()
    runs = quoted_runs(lines)
    passed = failed = 0
    for n, args, quoted, cats in runs:
        with tempfile.TemporaryDirectory() as scratch:
            cwd = source
            if args[0] in cats:
                cwd = scratch
                with open(os.path.join(scratch, args[0]), "w") as f:
                    f.write(cats[args[0]])
            run = subprocess.run([plxc] + args, cwd=cwd, capture_output=True,
                                 text=True, timeout=300)
        text = run.stdout if run.returncode == 0 else run.stderr
        printed = [l.replace(source + "/examples/", "…/examples/")
                   for l in text.splitlines()]
        if run.returncode != 0:
            printed = printed[:len(quoted)]
        why = None
        for i, (want, got) in enumerate(zip(quoted, printed)):
            if want != got:
                why = (f"README.md line {n + i + 1} differs from plxc:\n"
                       f"  README: {want}\n  plxc:   {got}")
                break
        if why is None and len(quoted) != len(printed):
            why = (f"README.md line {n}: quotes {len(quoted)} lines, plxc "
                   f"prints {len(printed)}")
        if why:
            print(why)
            failed += 1
        else:
            passed += 1
    if not runs:
        print("README.md quotes no plxc run")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
