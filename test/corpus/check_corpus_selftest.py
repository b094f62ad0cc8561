#!/usr/bin/env python3
"""Unit test of check-corpus.py's logic on hand-made report dicts: one job
that passes every property, and for each property jobs that break it.

    python3 test/corpus/check_corpus_selftest.py

Prints one line per case and "N passed, M failed"; exits 1 when any failed.
Standard library only; does not run plxc.
"""

import copy
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "check_corpus", os.path.join(HERE, "check-corpus.py"))
cc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cc)

GB = 10 ** 9


def good_job():
    """A train job entry that meets the whole contract. Its plan predicts
    2.0 s; static-sp-8 is allowed and slower, megatron-tp4-cp2 is not allowed
    by the strategy and 25 % faster, pp2-tp8-1f1b not allowed and 1 %
    faster: both listed in faster_baselines (any faster baseline the
    strategy rules out is named, kFasterBaselineMargin)."""
    return {
        "name": "j", "kind": "train",
        "plan": {"layout": {"sp": 4, "tp": 1, "cp": 1, "pp": 1}, "zero": 3,
                 "microbatches": 2, "strategy": "static-sp-4"},
        "planned_step_time_s": 1.98,
        "predicted_step_time_s": 2.0,
        "peak_memory_bytes": [30 * GB] * 8,
        "memory": {"chip_bytes": 80 * GB, "reserve_bytes": 2 * GB,
                   "usable_bytes": 78 * GB, "peak_bytes": 30 * GB,
                   "peak_rank": 3},
        "baselines": {
            "static-sp-1": {"infeasible": "sequence 3 (9,000 tokens) needs "
                            "90 GB per chip under static-sp-1"},
            "static-sp-8": {"planned_step_time_s": 2.4,
                            "predicted_step_time_s": 2.5,
                            "peak_memory_bytes": 20 * GB,
                            "allowed_by_strategy": True, "mfu": 0.3},
            "megatron-tp4-cp2": {"planned_step_time_s": 1.6,
                                 "predicted_step_time_s": 1.6,
                                 "peak_memory_bytes": 40 * GB,
                                 "allowed_by_strategy": False, "mfu": 0.5},
            "pp2-tp8-1f1b": {"planned_step_time_s": 1.97,
                             "predicted_step_time_s": 1.98,
                             "peak_memory_bytes": 50 * GB,
                             "allowed_by_strategy": False, "mfu": 0.4},
        },
        "faster_baselines": [
            {"name": "megatron-tp4-cp2", "ratio": 2.0 / 1.6,
             "why": "the strategy fixes sp = 4; tp x cp is not allowed"},
            {"name": "pp2-tp8-1f1b", "ratio": 2.0 / 1.98,
             "why": "the strategy fixes sp = 4; pp x tp is not allowed"},
        ],
        "lower_bound": {"step_time_s": 1.2,
                        "terms": {"compute_s": 1.2, "memory_s": 0.3}},
        "efficiency": 1.2 / 2.0,
    }


def report_of(*jobs):
    return {"jobs": list(jobs), "fabric": {}, "fabrics": []}


def mutate(fn):
    j = good_job()
    fn(j)
    return j


def delete(path):
    def go(j):
        d = j
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]
    return go


def setv(path, value):
    def go(j):
        d = j
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return go


# (case name, job, expected property label in the reasons or None = pass)
CASES = [
    ("good job passes", good_job(), None),
    ("a ruled-out baseline as fast as the plan need not be listed",
     mutate(lambda j: (
         setv(["baselines", "pp2-tp8-1f1b", "predicted_step_time_s"], 2.0)(j),
         j["faster_baselines"].pop())), None),
    ("tie with an allowed baseline passes",
     mutate(setv(["baselines", "static-sp-8", "predicted_step_time_s"], 2.0)),
     None),
    ("one infeasible row per family passes",
     mutate(setv(["baselines", "pp4-tp8-1f1b"],
                 {"infeasible": "a chip has room for no token"})), None),
    # (1)
    ("(1) allowed baseline faster than the plan",
     mutate(setv(["baselines", "static-sp-8", "predicted_step_time_s"], 1.99)),
     "(1)"),
    ("(1) faster baseline missing from faster_baselines",
     mutate(setv(["faster_baselines"], [])), "(1)"),
    ("(1) a ruled-out baseline 1 % faster missing from faster_baselines",
     mutate(lambda j: j["faster_baselines"].pop()), "(1)"),
    ("(1) wrong ratio in faster_baselines",
     mutate(setv(["faster_baselines", 0, "ratio"], 1.3)), "(1)"),
    ("(1) faster_baselines names an unknown baseline",
     mutate(lambda j: j["faster_baselines"].append(
         {"name": "static-sp-99", "ratio": 1.1, "why": "x"})), "(1)"),
    ("(1) faster_baselines entry without why",
     mutate(delete(["faster_baselines", 0, "why"])),
     "(1) missing field faster_baselines[0].why"),
    ("(1) no faster_baselines field",
     mutate(delete(["faster_baselines"])),
     "(1) missing field faster_baselines"),
    ("(1) no allowed_by_strategy",
     mutate(delete(["baselines", "static-sp-8", "allowed_by_strategy"])),
     "(1) missing field baselines.*.allowed_by_strategy (static-sp-8)"),
    ("(1) allowed_by_strategy not a bool",
     mutate(setv(["baselines", "static-sp-8", "allowed_by_strategy"], 1)),
     "(1)"),
    # (2)
    ("(2) estimate 5 % off the prediction",
     mutate(setv(["planned_step_time_s"], 1.9)), "(2)"),
    ("(2) estimate 5 % above the prediction",
     mutate(setv(["planned_step_time_s"], 2.1)), "(2)"),
    ("(2) no planned time", mutate(delete(["planned_step_time_s"])),
     "(2) missing field planned_step_time_s"),
    # (6)
    ("(6) peak above usable",
     mutate(setv(["memory", "peak_bytes"], 79 * GB)), "(6)"),
    ("(6) usable above chip - reserve",
     mutate(setv(["memory", "usable_bytes"], 79 * GB)), "(6)"),
    ("(6) no reserve", mutate(setv(["memory", "reserve_bytes"], 0)), "(6)"),
    ("(6) baseline peak above usable",
     mutate(setv(["baselines", "static-sp-8", "peak_memory_bytes"], 90 * GB)),
     "(6)"),
    ("(6) baseline peak not an integer",
     mutate(setv(["baselines", "static-sp-8", "peak_memory_bytes"], [1, 2])),
     "(6)"),
    ("(6) no memory object", mutate(delete(["memory"])),
     "(6) missing field memory"),
    ("(6) no peak_rank", mutate(delete(["memory", "peak_rank"])),
     "(6) missing field memory.peak_rank"),
    # (8)
    ("(8) static-sp baseline fails for model states",
     mutate(setv(["baselines", "static-sp-1", "infeasible"],
                 "the model states alone need 109.7 GB per chip, more than "
                 "the 40.0 GB usable; shard them further (zero, tp or pp)")),
     "(8)"),
    ("(8) two infeasible megatron rows",
     mutate(lambda j: j["baselines"].update({
         "megatron-tp8-cp1": {"infeasible": "x"},
         "megatron-tp2-cp2": {"infeasible": "y"}})), "(8)"),
    ("(8) two infeasible pp rows",
     mutate(lambda j: j["baselines"].update({
         "pp2-tp4-1f1b": {"infeasible": "x"},
         "pp4-tp4-1f1b": {"infeasible": "y"}})), "(8)"),
    # bound
    ("bound above the prediction",
     mutate(lambda j: (j["lower_bound"].update(step_time_s=2.2),
                       j.update(efficiency=1.1))), "bound"),
    ("bound not positive",
     mutate(lambda j: (j["lower_bound"].update(step_time_s=0.0),
                       j.update(efficiency=0.0))), "bound"),
    ("efficiency not bound / predicted",
     mutate(setv(["efficiency"], 0.7)), "bound"),
    ("no lower bound", mutate(delete(["lower_bound"])),
     "bound missing field lower_bound"),
    ("no bound terms", mutate(delete(["lower_bound", "terms"])),
     "bound missing field lower_bound.terms"),
    ("no efficiency", mutate(delete(["efficiency"])),
     "bound missing field efficiency"),
]


def run():
    passed = failed = 0

    def verdict(name, ok):
        nonlocal passed, failed
        if ok:
            passed += 1
            print("PASS " + name)
        else:
            failed += 1
            print("FAIL " + name)

    for name, job, expect in CASES:
        reasons = cc.check_train_job(job)
        if expect is None:
            ok = reasons == []
        else:
            ok = any(r.startswith(expect) for r in reasons)
            # A broken property must not also break the others.
            ok = ok and all(r.startswith(expect.split(" ")[0]) for r in reasons)
        if not ok:
            print("  reasons: %r" % reasons)
        verdict(name, ok)

    # Reports (check_report).
    ok, reasons, notes = cc.check_report(report_of(good_job()))
    verdict("report with one good train job passes", ok and not reasons)

    nj = {"name": "big", "kind": "train",
          "not_planned": "8192 ranks is more than plxc plans and simulates"}
    ok, reasons, notes = cc.check_report(report_of(nj))
    verdict("not_planned job is skipped", ok and notes == ["big not planned"])

    serve = {"name": "s", "kind": "serve", "jct_s": 100.0}
    ok, reasons, notes = cc.check_report(report_of(serve, good_job()))
    verdict("serve job is present and not checked", ok)

    ej = {"name": "e", "kind": "train", "error": "cannot plan step 0"}
    ok, reasons, _ = cc.check_report(report_of(ej))
    verdict("job with error fails", not ok and "error" in reasons[0])
    ok, reasons, _ = cc.check_report(report_of(ej), expect_error=True)
    verdict("job with error passes under expect-error", ok)
    ok, reasons, _ = cc.check_report(report_of(good_job()), expect_error=True)
    verdict("expect-error without an error fails", not ok)

    bad = good_job()
    bad["name"] = "b"
    bad["planned_step_time_s"] = 1.0
    ok, reasons, _ = cc.check_report(report_of(good_job(), bad))
    verdict("two jobs: the bad one fails and is named",
            not ok and all(r.startswith("b: ") for r in reasons))

    ok, reasons, _ = cc.check_report({"fabric": {}})
    verdict("report without jobs fails", not ok and "missing field jobs" in reasons[0])
    ok, reasons, _ = cc.check_report(report_of())
    verdict("report with no job fails", not ok)

    nested = {"name": "n", "kind": "train", "prediction": good_job()}
    ok, reasons, _ = cc.check_report(report_of(nested))
    verdict("prediction nested in the job entry is found", ok)

    # plxc stderr parsing.
    verdict("planning error recognised", cc.planning_error(
        "x.plx:8:7: error: train job 't': cannot plan step 0 with "
        "static-sp-2: ...") is not None)
    verdict("language error is not a planning error", cc.planning_error(
        "x.plx:5:14: error: kv_heads (12) must divide heads (32)") is None)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run())
