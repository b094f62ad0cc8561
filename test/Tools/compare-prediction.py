"""Compares plan.prediction attributes that plx-opt --plx-train-pipeline
(or -plx-predict-train) attached to each plx.train, and that
--plx-serve-pipeline-default attached to each plx.serve, with plxc's JSON
report of the same spec: every field of plxc's job object but the spec's
echo (name, kind, batch, steps, seed, model, data, workload, fabric, chips) and the
planners' wall time must be in the attribute, numbers exactly (the same
doubles, printed two ways), baselines in the same order.

Usage: compare-prediction.py IR.mlir REPORT.json
Prints `same prediction for N jobs` or the first difference.
       compare-prediction.py IR.mlir --field NAME
Prints field NAME of the first plx.train's plan.prediction.
"""
import json
import re
import sys


class Parser:
    """The subset of MLIR's attribute syntax predictionJson produces."""

    def __init__(self, text, pos):
        self.s, self.i = text, pos

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \n\t":
            self.i += 1

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == "{":
            return self.dictionary()
        if c == "[":
            self.i += 1
            items = []
            self.ws()
            if self.s[self.i] == "]":
                self.i += 1
                return items
            while True:
                items.append(self.value())
                self.ws()
                if self.s[self.i] == "]":
                    self.i += 1
                    return items
                assert self.s[self.i] == ",", self.s[self.i:self.i + 40]
                self.i += 1
        if c == '"':
            return self.string()
        m = re.compile(r"(true|false|unit|[-+0-9.eE]+|inf|nan)").match(self.s, self.i)
        assert m, self.s[self.i:self.i + 40]
        self.i = m.end()
        word = m.group(1)
        t = re.compile(r"\s*:\s*(i64|f64)").match(self.s, self.i)
        if t:
            self.i = t.end()
        if word == "true":
            return True
        if word == "false":
            return False
        if word == "unit":
            return None
        return int(word) if t and t.group(1) == "i64" else float(word)

    def string(self):
        assert self.s[self.i] == '"'
        self.i += 1
        out = []
        while self.s[self.i] != '"':
            if self.s[self.i] == "\\":
                nxt = self.s[self.i + 1]
                if nxt in '"\\':
                    out.append(nxt)
                    self.i += 2
                elif nxt == "n":
                    out.append("\n")
                    self.i += 2
                else:  # \XX hex byte
                    out.append(chr(int(self.s[self.i + 1:self.i + 3], 16)))
                    self.i += 3
            else:
                out.append(self.s[self.i])
                self.i += 1
        self.i += 1
        return "".join(out)

    def dictionary(self):
        assert self.s[self.i] == "{"
        self.i += 1
        out = {}
        while True:
            self.ws()
            if self.s[self.i] == "}":
                self.i += 1
                return out
            if self.s[self.i] == '"':
                key = self.string()
            else:
                m = re.compile(r"[A-Za-z_][A-Za-z0-9_$.-]*").match(self.s, self.i)
                key = m.group(0)
                self.i = m.end()
            self.ws()
            if self.s[self.i] == "=":
                self.i += 1
                out[key] = self.value()
            else:
                out[key] = None  # a unit attribute written as a bare key
            self.ws()
            if self.s[self.i] == ",":
                self.i += 1


def same(want, got, where):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{where}: {got!r} is not an object"
        for k, v in want.items():
            if k not in got:
                return f"{where}.{k}: missing"
            d = same(v, got[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{where}: {got!r} vs {want!r}"
        for n, (a, b) in enumerate(zip(want, got)):
            d = same(a, b, f"{where}[{n}]")
            if d:
                return d
        return None
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return None if want == got else f"{where}: {got!r} vs {want!r}"
    return None if float(want) == float(got) else f"{where}: {got!r} vs {want!r}"


def main():
    ir = open(sys.argv[1]).read()
    if sys.argv[2] == "--field":
        m = re.search(r"plx\.train @.*?plan\.prediction = ", ir)
        print(Parser(ir, m.end()).value()[sys.argv[3]])
        return 0
    report = json.load(open(sys.argv[2]))
    jobs = [j for j in report["jobs"] if j.get("kind") in ("train", "serve")]
    for job in jobs:
        m = re.search(r"plx\." + job["kind"] + r" @" + re.escape(job["name"]) +
                      r" .*?plan\.prediction = ", ir)
        if not m:
            print(f"job {job['name']}: no plan.prediction in the IR")
            return 1
        got = Parser(ir, m.end()).value()
        # The attribute lists the baselines in report order, each with its
        # name (a dictionary attribute would sort them).
        if isinstance(got.get("baselines"), list):
            names = [b.pop("name") for b in got["baselines"]]
            if "baselines" in job and names != list(job["baselines"]):
                print(f"{job['name']}.baselines: order {names} vs "
                      f"{list(job['baselines'])}")
                return 1
            got["baselines"] = dict(zip(names, got["baselines"]))
        fields = {k: v for k, v in job.items()
                  if k not in ("name", "kind", "batch", "steps", "seed", "model", "data",
                               "workload", "fabric", "chips", "solver_time_s",
                               "planner_time_s")}
        d = same(fields, got, job["name"])
        if d:
            print(d)
            return 1
    print(f"same prediction for {len(jobs)} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
