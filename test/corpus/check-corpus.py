#!/usr/bin/env python3
"""Check the plan corpus: run plxc on each spec and assert the report's
properties for every train job.

    python3 test/corpus/check-corpus.py build/bin/plxc test/corpus/*.plx

For each spec it runs `plxc SPEC --report=json` (120 s timeout, a failure),
finds the train jobs in the report and asserts, for each one that was
planned:

  (1) one judge: the job's predicted step time is no worse than any feasible
      baseline its strategy allows, and every feasible baseline that is
      faster at all is listed in "faster_baselines" with the right ratio;
  (2) estimate vs prediction: planned and predicted step times agree within
      3 %;
  (6) memory: the job's and every feasible baseline's peak fit the usable
      bytes, which leave a positive reserve under the chip's HBM;
  (8) meaningful baselines: no static-sp-* baseline fails for model states
      (DeepSpeed-Ulysses runs ZeRO-3) and no "megatron-" or "pp" family has
      more than one infeasible row;
  bound: 0 < lower bound <= predicted, and efficiency = bound / predicted.

A job entry with "not_planned" is skipped. A job entry with "error" (or a
plxc run that fails with a planning error at a train job) is a failure,
unless the spec contains the line `// corpus: expect-error`, in which case
it is the only acceptable outcome. A spec may pass extra plxc arguments with
a line `// corpus: plxc-args: ARG ...` (e.g. --max-simulated-ranks=512).

Prints one line per spec, "PASS NAME" or "FAIL NAME: reason; reason", then
"N passed, M failed"; exits 1 when any failed. Standard library only.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TIMEOUT_S = 120
REL_TOL = 1e-9          # "no worse than" slack on step times
RATIO_TOL = 1e-6        # relative tolerance on ratios and efficiency
ESTIMATE_TOL = 0.03     # (2): |planned - predicted| / predicted
FASTER_MARGIN = 1 + 1e-9  # (1): any faster baseline must be explained
                          # (kFasterBaselineMargin, TrainPipeline.h)

EXPECT_ERROR = "// corpus: expect-error"
ARGS_PREFIX = "// corpus: plxc-args:"


class MissingField(Exception):
    """A field of the report contract is absent."""

    def __init__(self, path):
        super().__init__("missing field " + path)
        self.path = path


def field(obj, key, path):
    """obj[key], or MissingField naming PATH.KEY."""
    full = path + "." + key if path else key
    if not isinstance(obj, dict) or key not in obj:
        raise MissingField(full)
    return obj[key]


def number(obj, key, path):
    """obj[key] as a finite float (MissingField if absent, ValueError if not a
    number)."""
    v = field(obj, key, path)
    full = path + "." + key if path else key
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(full + " is not a number (" + json.dumps(v) + ")")
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(full + " is not finite")
    return v


def integer(obj, key, path):
    v = field(obj, key, path)
    full = path + "." + key if path else key
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(full + " is not an integer (" + json.dumps(v) + ")")
    return v


def rel_close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b))


def fmt(x):
    return "%.6g" % x


# ---------------------------------------------------------------------------
# Where the train jobs are.

PREDICTION_KEYS = ("predicted_step_time_s", "planned_step_time_s",
                   "baselines", "not_planned", "error")


def is_prediction(d):
    return isinstance(d, dict) and any(k in d for k in PREDICTION_KEYS)


def find_prediction(job):
    """The dict that carries a train job's prediction: the job entry itself
    (plxc today), else the first nested dict that has prediction keys."""
    if is_prediction(job):
        return job
    stack = [v for v in job.values() if isinstance(v, (dict, list))]
    while stack:
        v = stack.pop(0)
        if isinstance(v, dict):
            if is_prediction(v):
                return v
            stack.extend(x for x in v.values() if isinstance(x, (dict, list)))
        else:
            stack.extend(x for x in v if isinstance(x, (dict, list)))
    return None


def train_jobs(report):
    """[(name, prediction dict or None)] for the train jobs of a report, and
    [names] of its serve jobs. Raises MissingField when there is no jobs
    list."""
    jobs = field(report, "jobs", "")
    if not isinstance(jobs, list):
        raise ValueError("jobs is not a list")
    trains, serves = [], []
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            raise ValueError("jobs[%d] is not an object" % i)
        name = job.get("name", "jobs[%d]" % i)
        kind = job.get("kind")
        if kind == "train":
            trains.append((name, find_prediction(job)))
        elif kind == "serve":
            serves.append(name)
        else:
            raise ValueError("job %s has kind %s" % (name, json.dumps(kind)))
    return trains, serves


# ---------------------------------------------------------------------------
# The properties. Each takes a job's prediction dict and returns a list of
# failure reasons (empty: holds); MissingField and ValueError propagate.

def feasible_baselines(job):
    """{name: entry} of the feasible baselines; checks each entry is one or
    the other."""
    baselines = field(job, "baselines", "")
    if not isinstance(baselines, dict):
        raise ValueError("baselines is not an object")
    out = {}
    for name, b in baselines.items():
        if not isinstance(b, dict):
            raise ValueError("baselines.%s is not an object" % name)
        if "infeasible" in b:
            if not isinstance(b["infeasible"], str):
                raise ValueError("baselines.%s.infeasible is not a string" % name)
            continue
        if "predicted_step_time_s" not in b:
            raise MissingField("baselines.%s.predicted_step_time_s "
                               "(or infeasible)" % name)
        out[name] = b
    return out


def check_judge(job):
    """(1) one judge. The allowed-baseline comparison and the faster_baselines
    list are judged apart, so that a missing field in one does not hide a
    failure of the other."""
    reasons = []
    pred = number(job, "predicted_step_time_s", "")
    feasible = feasible_baselines(job)
    times = {}
    for name, b in sorted(feasible.items()):
        path = "baselines." + name
        try:
            times[name] = number(b, "predicted_step_time_s", path)
            number(b, "planned_step_time_s", path)
            allowed = field(b, "allowed_by_strategy", path)
        except MissingField as e:
            reasons.append("(1) missing field " + e.path)
            continue
        if not isinstance(allowed, bool):
            raise ValueError(path + ".allowed_by_strategy is not a bool")
        if allowed and pred > times[name] * (1 + REL_TOL):
            reasons.append("(1) predicted %s s is worse than %s (%s s), which "
                           "the strategy allows"
                           % (fmt(pred), name, fmt(times[name])))
    try:
        faster = field(job, "faster_baselines", "")
        if not isinstance(faster, list):
            raise ValueError("faster_baselines is not a list")
        listed = {}
        for i, f in enumerate(faster):
            path = "faster_baselines[%d]" % i
            name = field(f, "name", path)
            ratio = number(f, "ratio", path)
            why = field(f, "why", path)
            if not isinstance(why, str) or not why.strip():
                reasons.append("(1) %s.why is empty" % path)
            if name in listed:
                reasons.append("(1) faster_baselines lists %s twice" % name)
            listed[name] = ratio
            if name not in feasible:
                reasons.append("(1) faster_baselines names %s, which is not "
                               "a feasible baseline" % name)
            elif name in times and times[name] > 0 and not rel_close(
                    ratio, pred / times[name], RATIO_TOL):
                reasons.append("(1) faster_baselines ratio of %s is %s, "
                               "expected %s" % (name, fmt(ratio),
                                                fmt(pred / times[name])))
        for name, bp in sorted(times.items()):
            if bp > 0 and bp < pred / FASTER_MARGIN and name not in listed:
                reasons.append("(1) %s (%s s) is %.3gx faster than the plan "
                               "(%s s) but not in faster_baselines"
                               % (name, fmt(bp), pred / bp, fmt(pred)))
    except MissingField as e:
        reasons.append("(1) missing field " + e.path)
    return reasons


def check_estimate(job):
    """(2) planned vs predicted within 3 %."""
    pred = number(job, "predicted_step_time_s", "")
    planned = number(job, "planned_step_time_s", "")
    if pred <= 0:
        return ["(2) predicted step time %s s is not positive" % fmt(pred)]
    err = abs(planned - pred) / pred
    if err > ESTIMATE_TOL:
        return ["(2) planned %s s vs predicted %s s differ by %.1f %% (> %g %%)"
                % (fmt(planned), fmt(pred), 100 * err, 100 * ESTIMATE_TOL)]
    return []


def check_memory(job):
    """(6) memory."""
    reasons = []
    usable = None
    try:
        mem = field(job, "memory", "")
        chip = integer(mem, "chip_bytes", "memory")
        reserve = integer(mem, "reserve_bytes", "memory")
        usable = integer(mem, "usable_bytes", "memory")
        peak = integer(mem, "peak_bytes", "memory")
        field(mem, "peak_rank", "memory")
        if reserve <= 0:
            reasons.append("(6) reserve_bytes %d is not positive" % reserve)
        if usable > chip - reserve:
            reasons.append("(6) usable_bytes %d exceeds chip_bytes - "
                           "reserve_bytes = %d" % (usable, chip - reserve))
        if peak > usable:
            reasons.append("(6) peak_bytes %d (rank %s) exceeds usable_bytes "
                           "%d" % (peak, json.dumps(mem["peak_rank"]), usable))
    except MissingField as e:
        reasons.append("(6) missing field " + e.path)
        usable = None
    for name, b in sorted(feasible_baselines(job).items()):
        try:
            bpeak = integer(b, "peak_memory_bytes", "baselines." + name)
        except MissingField as e:
            reasons.append("(6) missing field " + e.path)
            continue
        if usable is not None and bpeak > usable:
            reasons.append("(6) baseline %s peak_memory_bytes %d exceeds "
                           "usable_bytes %d" % (name, bpeak, usable))
    return reasons


def check_meaningful(job):
    """(8) meaningful baselines."""
    reasons = []
    baselines = field(job, "baselines", "")
    if not isinstance(baselines, dict):
        raise ValueError("baselines is not an object")
    infeasible = {"megatron-": [], "pp": []}
    states = []
    for name, b in baselines.items():
        if not isinstance(b, dict) or "infeasible" not in b:
            continue
        text = str(b["infeasible"])
        if name.startswith("static-sp-") and "model states alone need" in text:
            states.append((name, text))
        for prefix in infeasible:
            if name.startswith(prefix):
                infeasible[prefix].append(name)
    if states:
        reasons.append("(8) %s infeasible for model states (\"%s\"); "
                       "DeepSpeed-Ulysses runs ZeRO-3"
                       % (", ".join(n for n, _ in states), states[0][1][:120]))
    for prefix, names in sorted(infeasible.items()):
        if len(names) > 1:
            reasons.append("(8) %d infeasible %s* baselines (%s); at most one "
                           "per family" % (len(names), prefix,
                                           ", ".join(sorted(names))))
    return reasons


def check_bound(job):
    """bound: 0 < lower bound <= predicted, efficiency = bound / predicted."""
    reasons = []
    pred = number(job, "predicted_step_time_s", "")
    lb = field(job, "lower_bound", "")
    bound = number(lb, "step_time_s", "lower_bound")
    terms = field(lb, "terms", "lower_bound")
    if not isinstance(terms, dict):
        raise ValueError("lower_bound.terms is not an object")
    eff = number(job, "efficiency", "")
    if not bound > 0:
        reasons.append("bound: lower_bound.step_time_s %s is not positive"
                       % fmt(bound))
    if bound > pred * (1 + REL_TOL):
        reasons.append("bound: lower bound %s s exceeds predicted %s s"
                       % (fmt(bound), fmt(pred)))
    if pred > 0 and not rel_close(eff, bound / pred, RATIO_TOL):
        reasons.append("bound: efficiency %s != bound / predicted = %s"
                       % (fmt(eff), fmt(bound / pred)))
    return reasons


CHECKS = (("(1)", check_judge), ("(2)", check_estimate), ("(6)", check_memory),
          ("(8)", check_meaningful), ("bound", check_bound))


def check_train_job(job):
    """Reasons a planned train job's prediction fails (empty: passes). Every
    property is checked, so one run reports all that fail."""
    reasons = []
    for label, fn in CHECKS:
        try:
            reasons.extend(fn(job))
        except MissingField as e:
            reasons.append("%s missing field %s" % (label, e.path))
        except ValueError as e:
            reasons.append("%s %s" % (label, e))
    # The same missing field is reported once, not once per property, and a
    # field missing from several baselines is one reason that names them.
    seen, out, per_field = set(), [], {}
    for r in reasons:
        label, _, rest = r.partition(" ")
        m = re.match(r"missing field baselines\.(.+)\.([a-z_]+)$", rest)
        if m:
            key = (label, m.group(2))
            if key not in per_field:
                per_field[key] = []
                out.append(key)
            if m.group(1) not in per_field[key]:
                per_field[key].append(m.group(1))
            continue
        key = rest if rest.startswith("missing field") else r
        if key not in seen:
            seen.add(key)
            out.append(r)
    return [r if isinstance(r, str) else
            "%s missing field baselines.*.%s (%s)"
            % (r[0], r[1], ", ".join(per_field[r]))
            for r in out]


def check_report(report, expect_error=False):
    """(ok, reasons, notes) for one spec's parsed report."""
    try:
        trains, serves = train_jobs(report)
    except (MissingField, ValueError) as e:
        return False, [str(e)], []
    reasons, notes = [], []
    errors = 0
    if not trains and not serves:
        reasons.append("the report has no train or serve job")
    for name, job in trains:
        if job is None:
            reasons.append("%s: no prediction in the job entry (missing field "
                           "predicted_step_time_s)" % name)
            continue
        if "not_planned" in job:
            notes.append("%s not planned" % name)
            continue
        if "error" in job:
            errors += 1
            if not expect_error:
                reasons.append("%s: error: %s" % (name, str(job["error"])[:300]))
            continue
        if expect_error:
            continue  # judged below: the spec expects an error, none came
        for r in check_train_job(job):
            reasons.append("%s: %s" % (name, r) if len(trains) > 1 else r)
        # Reported, not asserted: how far the planners' analytic surrogate
        # is from the judge, and how close the plan is to its bound.
        try:
            pred = float(job["predicted_step_time_s"])
            sur = float(job["surrogate_step_time_s"])
            eff = float(job["efficiency"])
            notes.append("%ssurrogate %+.1f %%, efficiency %.0f %%"
                         % (name + ": " if len(trains) > 1 else "",
                            100 * (sur - pred) / pred, 100 * eff))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            pass
    if expect_error and errors == 0:
        reasons.append("the spec expects a planning error (corpus: "
                       "expect-error) but no train job reports one")
    if expect_error and errors:
        notes.append("expected error")
    return not reasons, reasons, notes


# ---------------------------------------------------------------------------
# Running plxc.

def spec_directives(path):
    expect_error, args = False, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if s == EXPECT_ERROR:
                expect_error = True
            elif s.startswith(ARGS_PREFIX):
                args.extend(s[len(ARGS_PREFIX):].split())
    return expect_error, args


def planning_error(stderr):
    """The first error line plxc printed at a train job's planning, or None
    (a language error, a crash, ...)."""
    for line in stderr.splitlines():
        if "error: train job" in line and ("cannot plan" in line
                                           or "no static layout" in line):
            return line
    return None


def first_error(stderr):
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()[:300]
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[-1][:300] if lines else "(no output on stderr)"


def run_spec(plxc, spec, timeout=TIMEOUT_S):
    """(name, ok, reasons, notes, wall_s) for one spec."""
    import time
    name = os.path.splitext(os.path.basename(spec))[0]
    try:
        expect_error, extra = spec_directives(spec)
    except OSError as e:
        return name, False, ["cannot read the spec: %s" % e], [], 0.0
    cmd = [plxc, spec, "--report=json"] + extra
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return name, False, ["timed out after %g s" % timeout], [], \
            time.monotonic() - t0
    except OSError as e:
        return name, False, ["cannot run %s: %s" % (plxc, e)], [], 0.0
    wall = time.monotonic() - t0
    stdout = p.stdout.decode("utf-8", "replace")
    stderr = p.stderr.decode("utf-8", "replace")
    report = None
    if stdout.strip():
        try:
            report = json.loads(stdout)
        except ValueError as e:
            if p.returncode == 0:
                return name, False, ["the report is not JSON: %s" % e], [], wall
    if p.returncode < 0:
        return name, False, ["plxc died with signal %d" % -p.returncode], [], wall
    if report is None:
        if p.returncode == 0:
            return name, False, ["plxc printed no report"], [], wall
        err = planning_error(stderr)
        if expect_error and err:
            return name, True, [], ["expected error"], wall
        if err:
            return name, False, ["planning error: " + err.strip()[:300]], [], wall
        return name, False, ["plxc exited %d: %s" % (p.returncode,
                                                     first_error(stderr))], [], wall
    ok, reasons, notes = check_report(report, expect_error)
    if p.returncode != 0 and not expect_error:
        ok = False
        reasons.append("plxc exited %d: %s" % (p.returncode, first_error(stderr)))
    return name, ok, reasons, notes, wall


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("plxc", help="the plxc binary")
    ap.add_argument("specs", nargs="+", help=".plx specs")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S,
                    help="seconds per spec (default %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="specs run at once (default %(default)s)")
    ap.add_argument("--times", action="store_true",
                    help="print each spec's wall time")
    args = ap.parse_args(argv)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = pool.map(lambda s: run_spec(args.plxc, s, args.timeout),
                           args.specs)
        passed = failed = 0
        for name, ok, reasons, notes, wall in results:
            extra = " (%s)" % "; ".join(notes) if notes else ""
            if args.times:
                extra += " [%.1f s]" % wall
            if ok:
                passed += 1
                print("PASS %s%s" % (name, extra), flush=True)
            else:
                failed += 1
                print("FAIL %s%s: %s" % (name, extra, "; ".join(reasons)),
                      flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
