"""Checks a plxc JSON report's "explored" list against the rest of the
report, for every train job that has one:
- the feasible plans come first, ranked by predicted step time, then the
  infeasible ones, each with a reason;
- exactly one is chosen: the first the strategy admits, and its
  predicted step time, MFU and
  peak memory are the job's own (step 0 alone: a one-step job);
- every baseline of "baselines" is there with the same predicted step time
  and MFU (or infeasible for the same reason), and the same
  allowed_by_strategy;
- no feasible plan the strategy admits is faster than the job's plan.

Usage: check-explored.py REPORT.json
Prints `explored: N plans for job J, consistent` per job, or the first
difference (exit 1).
"""
import json
import sys


def fail(message):
    print("explored: " + message)
    sys.exit(1)


report = json.load(open(sys.argv[1]))
for job in report["jobs"]:
    if "explored" not in job:
        continue
    name = job["name"]
    explored = job["explored"]
    feasible = [e for e in explored if e["feasible"]]
    if explored[: len(feasible)] != feasible:
        fail(f"{name}: an infeasible plan is ranked among the feasible ones")
    times = [e["predicted_step_time_s"] for e in feasible]
    if times != sorted(times):
        fail(f"{name}: not ranked by predicted step time: {times}")
    for e in explored[len(feasible):]:
        if not e.get("why_not"):
            fail(f"{name}: infeasible {e['plan']} says not why")
    chosen = [e for e in explored if e["chosen"]]
    admitted = [e for e in feasible if e["allowed_by_strategy"]]
    if len(chosen) != 1 or not admitted or chosen[0] is not admitted[0]:
        fail(f"{name}: the chosen plan is not the one fastest plan the "
             "strategy admits")
    if job["steps_predicted"] == 1:
        for key in ("predicted_step_time_s", "mfu", "peak_memory_bytes"):
            # The job lists each rank's peak; the row has the busiest's.
            mine = max(job[key]) if isinstance(job[key], list) else job[key]
            if chosen[0][key] != mine:
                fail(f"{name}: the chosen plan's {key} {chosen[0][key]} is "
                     f"not the job's {mine}")
        for base, b in job["baselines"].items():
            rows = [e for e in explored
                    if e["plan"] == base and e["role"] == "baseline"]
            if len(rows) != 1:
                fail(f"{name}: baseline {base} is listed {len(rows)} times")
            e = rows[0]
            if "infeasible" in b:
                if e["feasible"] or e["why_not"] != b["infeasible"]:
                    fail(f"{name}: {base} is infeasible in one list only")
                continue
            for key in ("predicted_step_time_s", "mfu"):
                if key in b and e.get(key) != b[key]:
                    fail(f"{name}: {base}'s {key} {e.get(key)} is not the "
                         f"baselines' {b[key]}")
            if e["allowed_by_strategy"] != b["allowed_by_strategy"]:
                fail(f"{name}: {base} is allowed in one list only")
    for e in feasible:
        if (e["allowed_by_strategy"]
                and e["predicted_step_time_s"]
                < chosen[0]["predicted_step_time_s"]):
            fail(f"{name}: {e['plan']} is admitted and faster than the plan")
    print(f"explored: {len(explored)} plans for job {name}, consistent")
