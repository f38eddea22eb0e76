#!/usr/bin/env python3
"""Wall time of atmsim's event loop against ns-2's on the same twins.

    python validation/ns2/walltime.py [--repeat 15]

For each case the twin's Tcl (twin.py; phase.py for the phase test) is written once with its
tracing removed, since atmsim's timed runs write no trace either, and with ns-2's event loop timed
from inside: `clock microseconds` just before `$ns run` and again in `finish`, so neither the Tcl
interpreter's start-up nor the building of nodes, links and agents is counted (about 40 and 40-80
ms here). Then, interleaved, `--repeat` times: ns-2 (`ns case.tcl`, its loop and its whole
process) and atmsim's run of the same resolved scenario in this process, whose summary's `wall_s`
is its event loop alone (the figure `atmsim bench` reports). One job at a time; the machine is
shared, so the minimum and the median are printed, and the ratios of both. docs/validation.md
("Wall time against ns-2") has the numbers.
"""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atmsim
import phase
import twin
from atmsim.one_line_args import OneLineParser

# name: (scenario, sets, draw) for the aron97 twins; the phase test is its own case
CASES = {
    "aron97 lite k=21": (twin.SCENARIO, twin.point_sets("lite", 21), 1),
    "aron97 vegas k=21": (twin.SCENARIO, twin.point_sets("vegas", 21), 1),
    "aron97 lite k=3": (twin.SCENARIO, twin.point_sets("lite", 3), 1),
    "aron97 lite k=21 (30 s)": (twin.SCENARIO, twin.point_sets("lite", 21, "30s"), 1),
    "phase (test-suite-simple)": None,
}


def _untraced(tcl: str) -> str:
    """The Tcl without its queue trace (the `finish` procedure's flush/close become no-ops)."""
    tcl = re.sub(r"^set tf \[open .*$", "set tf [open /dev/null w]", tcl, flags=re.M)
    return re.sub(r"^\$ns trace-queue .*$", "", tcl, flags=re.M)


def case_inputs(name: str):
    """(Tcl text, function running atmsim once and returning its event-loop wall time)."""
    if CASES[name] is None:
        tcl = _untraced(phase.ns2_tcl(3.0))
        sets = phase.atmsim_sets(3.0)
        return tcl, lambda: atmsim.run(phase.SCENARIO, sets, seed=1).summary
    scenario, sets, draw = CASES[name]
    tw0 = twin.load(scenario, sets)
    full = list(sets) + twin.jitter_sets(tw0, draw)
    tcl = _untraced(twin.ns2_tcl(twin.load(scenario, full)))
    return tcl, lambda: atmsim.run(scenario, full, seed=draw).summary


def _timed(tcl: str) -> str:
    """The Tcl with ns-2's event loop timed from inside (`loop_us` printed at the end)."""
    tcl = tcl.replace("\n$ns run\n", "\nset ::t0 [clock microseconds]\n$ns run\n")
    return tcl.replace("\n    exit 0\n", "\n    puts \"loop_us [expr {[clock microseconds] - $::t0}]\"\n    exit 0\n", 1)


def _ns(path: str, cwd: str) -> tuple:
    """(whole process, event loop) of one ns-2 run, in seconds."""
    t = time.perf_counter()
    p = subprocess.run(["ns", path], cwd=cwd, capture_output=True, text=True, check=False)
    dt = time.perf_counter() - t
    m = re.search(r"^loop_us (\d+)$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise RuntimeError(p.stderr[-500:])
    return dt, int(m.group(1)) / 1e6


def measure(name: str, repeat: int) -> dict:
    tcl, run_atmsim = case_inputs(name)
    wd = tempfile.mkdtemp(prefix="walltime-")
    with open(os.path.join(wd, "case.tcl"), "w", encoding="utf-8") as f:
        f.write(_timed(tcl))
    _ns("case.tcl", wd)   # warm-up of both (page cache, the core's first call)
    run_atmsim()
    proc, loop, at = [], [], []
    for _ in range(repeat):
        p, lp = _ns("case.tcl", wd)
        proc.append(p)
        loop.append(lp)
        s = run_atmsim()
        at.append(s["wall_s"])
    shutil.rmtree(wd, ignore_errors=True)
    return {"case": name, "ns2_process": proc, "ns2_loop": loop, "atmsim_loop": at, "atmsim_events": s["events"]}


def fmt(r: dict) -> str:
    def mm(v):
        return f"{min(v) * 1000:.1f} / {statistics.median(v) * 1000:.1f}"
    ratio = (min(r["ns2_loop"]) / min(r["atmsim_loop"]), statistics.median(r["ns2_loop"]) / statistics.median(r["atmsim_loop"]))
    return (f"| {r['case']} | {mm(r['ns2_process'])} | {mm(r['ns2_loop'])} | "
            f"{mm(r['atmsim_loop'])} ({r['atmsim_events']:,} events) | {ratio[0]:.0f}; {ratio[1]:.0f} |")


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args(argv)
    print("| case | ns-2 process, ms (min / median) | ns-2 event loop | atmsim event loop | "
          "ns-2 loop / atmsim loop (minima; medians) |")
    print("| --- | --- | --- | --- | ---: |")
    for name in args.cases.split(","):
        print(fmt(measure(name, args.repeat)), flush=True)


if __name__ == "__main__":
    main()
