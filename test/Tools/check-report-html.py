"""Checks plxc -o's report.html against report.json of the same run:
the page parses as XML (XHTML with inline SVG); per job section, every
table cell with data-key holds the JSON value at that key; the bars of
the plans judged are the feasible "explored" plans in order, with their
predicted step times; the memory bars are each rank's (or bucket's
largest) peak; the timeline has one rect per non-idle run of
"timeline"; a serve job's interval bars and baseline bars are its
"policy.interval_sweep" and "baselines" JCTs. Numbers are compared as
doubles, exactly.

Usage: check-report-html.py DIR
Prints `report.html: N jobs, the numbers of report.json` or the first
difference (exit 1).
"""
import json
import sys
import xml.etree.ElementTree as ET

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def fail(message):
    print("report.html: " + message)
    sys.exit(1)


def value_at(job, dotted):
    v = job
    for part in dotted.split("."):
        v = v[part]
    return v


directory = sys.argv[1]
report = json.load(open(directory + "/report.json"))
page = ET.parse(directory + "/report.html").getroot()
sections = page.findall(f".//{XHTML}section")
if len(sections) != len(report["jobs"]):
    fail(f"{len(sections)} sections for {len(report['jobs'])} jobs")
for job, section in zip(report["jobs"], sections):
    name = job["name"]
    for td in section.iter(f"{XHTML}td"):
        key = td.get("data-key")
        if key is None:
            continue
        if float(td.get("data-value")) != float(value_at(job, key)):
            fail(f"{name}: {key} is {td.get('data-value')}, the JSON's "
                 f"{value_at(job, key)}")
    rects = list(section.iter(f"{SVG}rect"))
    plans = [r for r in rects if r.get("data-role") is not None]
    if "explored" in job:
        feasible = [e for e in job["explored"] if e["feasible"]]
        got = [(r.get("data-plan"), float(r.get("data-seconds")))
               for r in plans]
        want = [(e["plan"], e["predicted_step_time_s"]) for e in feasible]
        if got != want:
            fail(f"{name}: plan bars {got[:3]}... differ from explored "
                 f"{want[:3]}...")
    memory = [r for r in rects if r.get("data-first-rank") is not None]
    if isinstance(job.get("peak_memory_bytes"), list):
        peaks = job["peak_memory_bytes"]
        starts = [int(r.get("data-first-rank")) for r in memory]
        per = starts[1] - starts[0] if len(starts) > 1 else len(peaks)
        for r, start in zip(memory, starts):
            if float(r.get("data-bytes")) != max(peaks[start:start + per]):
                fail(f"{name}: memory bar at rank {start} differs")
        if sum(min(per, len(peaks) - s) for s in starts) != len(peaks):
            fail(f"{name}: the memory bars do not cover every rank")
    if "timeline" in job:
        runs = sum(1 for g in job["timeline"]["groups"]
                   for lane in ("ops", "stream") for run in g.get(lane, [])
                   if run[0] != "idle")
        drawn = [r for r in rects if r.get("data-kind") is not None]
        if len(drawn) != runs:
            fail(f"{name}: {len(drawn)} timeline rects for {runs} runs")
        svg = [s for s in section.iter(f"{SVG}svg")
               if s.get("data-step-s") is not None][0]
        if float(svg.get("data-step-s")) != job["timeline"]["step_s"]:
            fail(f"{name}: the timeline's step differs")
    if "jct" in job:
        intervals = [(int(r.get("data-interval")), float(r.get("data-seconds")))
                     for r in rects if r.get("data-interval") is not None]
        want = [(p["interval"], p["overall_s"])
                for p in job["policy"]["interval_sweep"]]
        if intervals != want:
            fail(f"{name}: the interval bars differ from the sweep")
        bars = [(r.get("data-plan"), float(r.get("data-seconds")))
                for r in rects if r.get("data-plan") is not None]
        want = [("plan", job["jct"]["overall_s"])] + [
            (n, b["jct"]["overall_s"]) for n, b in job["baselines"].items()
            if "jct" in b]
        if bars != want:
            fail(f"{name}: the baseline bars differ")
print(f"report.html: {len(report['jobs'])} jobs, the numbers of report.json")
