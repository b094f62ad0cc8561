"""Prints `same step time` when plx-simulate's plx.sim.step_time of the
emitted rt equals the report's predicted step time of its first train job
(relative 1e-12), else both values."""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
job = next(j for j in report["jobs"] if j.get("kind") == "train")
want = job["predicted_step_time_s"]
got = float(re.search(r"plx\.sim\.step_time = ([-0-9.eE+]+)",
                      open(sys.argv[2]).read()).group(1))
if abs(got - want) <= 1e-12 * max(abs(want), 1e-30):
    print("same step time")
else:
    print(f"report {want!r}, plx-simulate {got!r}")
