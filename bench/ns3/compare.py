#!/usr/bin/env python3
"""Side-by-side: ns-3 (PyPI `ns3`) vs atmsim on aron97-topo1-packet with TCP NewReno.

    python bench/ns3/compare.py [--runs 3] [--ns3-python PYTHON] [--atmsim CMD]

Runs bench/ns3/aron97_topo1_packet.py `--runs` times (each in a fresh process, since
importing the ns-3 bindings takes ~10 s and is not part of the measurement), then
`atmsim run aron97-topo1-packet --set tcp.variant=newreno --json` as many times, and prints
the median wall time of the simulation loop of each, the speed ratio and both effective
throughputs.  If atmsim is missing or fails, only the ns-3 side is reported.
"""

import json
import os
import shlex
import statistics
import subprocess
import time
import sys
from atmsim.one_line_args import OneLineParser

HERE = os.path.dirname(os.path.abspath(__file__))
NS3_SCRIPT = os.path.join(HERE, "aron97_topo1_packet.py")
ATMSIM_ARGS = ["run", "aron97-topo1-packet", "--set", "tcp.variant=newreno", "--json"]


def parse_json(text):
    """The JSON object in `text`: the whole output, or the last line that is one."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    raise ValueError("no JSON object in output")


def find_key(obj, key):
    """`obj[key]`, or the first value under `key` anywhere inside `obj`."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            r = find_key(v, key)
            if r is not None:
                return r
    elif isinstance(obj, list):
        for v in obj:
            r = find_key(v, key)
            if r is not None:
                return r
    return None


def run(cmd, timeout):
    """The run's JSON, with `process_s`: the whole process's wall time
    (interpreter start, imports, set-up, the run, output)."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    elapsed = time.perf_counter() - t0
    if p.returncode != 0:
        err = "\n".join(l for l in p.stderr.splitlines() if "materialize symbols" not in l)
        raise RuntimeError("exit %d: %s" % (p.returncode, err.strip()[-2000:]))
    r = parse_json(p.stdout)
    r["process_s"] = elapsed
    return r


def main():
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each simulator (median)")
    ap.add_argument("--ns3-python", default=sys.executable,
                    help="python interpreter with the `ns3` package installed")
    ap.add_argument("--atmsim", default="atmsim", help="atmsim command (default: atmsim)")
    ap.add_argument("--json", action="store_true", help="also print the raw results as JSON")
    args = ap.parse_args()

    ns3_runs = []
    for i in range(args.runs):
        print("ns-3 run %d/%d ..." % (i + 1, args.runs), file=sys.stderr, flush=True)
        try:
            ns3_runs.append(run([args.ns3_python, NS3_SCRIPT], timeout=1800))
        except Exception as e:  # noqa: BLE001
            sys.exit("ns-3 run failed (is `pip install ns3` done for %s?): %s"
                     % (args.ns3_python, e))

    atm_runs, atm_error = [], None
    cmd = shlex.split(args.atmsim) + ATMSIM_ARGS
    for i in range(args.runs):
        print("atmsim run %d/%d ..." % (i + 1, args.runs), file=sys.stderr, flush=True)
        try:
            r = run(cmd, timeout=1800)
        except FileNotFoundError:
            atm_error = "command not found: %s" % cmd[0]
            break
        except Exception as e:  # noqa: BLE001
            atm_error = str(e)
            break
        if find_key(r, "wall_s") is None or find_key(r, "effective_throughput") is None:
            atm_error = "atmsim JSON lacks wall_s / effective_throughput"
            break
        atm_runs.append(r)

    ns_wall = statistics.median(r["wall_s"] for r in ns3_runs)
    ns_e = ns3_runs[0]["effective_throughput"]
    print()
    print("aron97-topo1-packet, TCP NewReno, 8 flows, 10 s simulated; median of %d runs"
          % len(ns3_runs))
    print("%-24s %14s %14s" % ("", "ns-3 " + ns3_runs[0]["version"], "atmsim"))
    if atm_runs:
        at_wall = statistics.median(float(find_key(r, "wall_s")) for r in atm_runs)
        at_e = float(find_key(atm_runs[0], "effective_throughput"))
        ns_proc = statistics.median(r["process_s"] for r in ns3_runs)
        at_proc = statistics.median(r["process_s"] for r in atm_runs)
        print("%-24s %14.4f %14.4f" % ("wall time of run (s)", ns_wall, at_wall))
        print("%-24s %14.2f %14s" % ("speed ratio ns-3/atmsim", ns_wall / at_wall if at_wall else
                                     float("inf"), ""))
        print("%-24s %14.4f %14.4f" % ("whole process (s)", ns_proc, at_proc))
        print("%-24s %14.2f %14s" % ("speed ratio, process", ns_proc / at_proc, ""))
        print("%-24s %14.4f %14.4f" % ("effective throughput E", ns_e, at_e))
    else:
        print("%-24s %14.4f %14s" % ("wall time of run (s)", ns_wall, "n/a"))
        print("%-24s %14.4f %14s" % ("effective throughput E", ns_e, "n/a"))
        print()
        print("atmsim side not reported: `%s` failed: %s" % (" ".join(cmd), atm_error))
    print("%-24s %14d" % ("ns-3 bottleneck drops", ns3_runs[0]["bottleneck_drops"]))
    print("%-24s %14.4f" % ("ns-3 Jain fairness", ns3_runs[0]["fairness"]))
    if args.json:
        print(json.dumps({"ns3": ns3_runs, "atmsim": atm_runs, "atmsim_error": atm_error}))


if __name__ == "__main__":
    main()
