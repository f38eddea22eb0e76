"""Compile cellsim into a temporary directory, run Morris & Kung's Fig. 3 grid in it and store the runs.

    python validation/cellsim/run.py [--seeds 10] [--jobs 2] [--out validation/cellsim/mk95_points.json]
                                     [--atmsim DIR]

Grid (catalogue 2.3): B in {8, ..., 80} KiB x L in {1500, 4352, 9180}, tail drop with host storage; PPD at
L = 9180; the "no host storage" ablation at every L. Every series runs at seeds 1..N (the catalogue's claims
use seeds 1-3, and seed 1 for the ablation; the others are a robustness check) and with B's uplink at 53 Mb/s
(the scenario's reading) and at 155 Mb/s (the other reading of "host B's link runs at only 53"); at 53 Mb/s and
seeds 1-3 also with full segments only (tcp.md 1.3's simplification, not Lite's short retransmissions). Stored: the
command, the repository commit, the compiler, every run's output line, and the claims judged by claims.py;
with --atmsim, the points of atmsim's own fig3 (DIR/fig3.csv of `atmsim reproduce morris-kung95 --figure fig3
--out DIR`) beside them, for the comparison of docs/validation.md.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import claims  # noqa: E402
from atmsim.one_line_args import OneLineParser  # noqa: E402
from atmsim.seed_range import argparse_seed_count  # noqa: E402

SOURCES = ("main.c", "net.c", "tcp.c", "core.c", "vegas.c", "afr.c")
# what is stored of each run's output line (the rest is in the line, for a rerun with the same arguments)
KEEP = ("mtu", "seed", "b_uplink", "short_rexmit", "goodput_MBps", "timeouts_window", "fast_retransmits_window", "cells_dropped_window",
        "episodes_window", "frames_hit_window", "eoms_dropped_window", "frames_corrupt", "max_backoff_shift", "pauses_s")
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra"]


def build(tmp: str) -> str:
    """gcc the sources into `tmp`; the binary's path."""
    exe = os.path.join(tmp, "cellsim")
    subprocess.run(["gcc", *CFLAGS, "-o", exe, *[os.path.join(HERE, s) for s in SOURCES]], check=True)
    return exe


def args_of(series: str, mtu: int, b_kib: int, seed: int, uplink: int, short: bool = True) -> list[str]:
    a = ["--mtu", str(mtu), "--buffer-kib", str(b_kib), "--seed", str(seed), "--b-uplink", str(uplink),
         "--short-rexmit", "on" if short else "off"]
    if series == "PPD":
        a += ["--policy", "ppd"]
    if series == "no host storage":
        a += ["--storage", "off"]
    return a


def grid(seeds: list[int]) -> list[tuple]:
    """(series, L, B, seed, B's uplink, short retransmissions): the grid at both uplinks and seeds 1..N, and the
    sensitivity to Lite's short retransmissions (full segments only) at 53 Mb/s, seeds 1-3."""
    out = []
    for uplink, short, ss in ((53, True, seeds), (155, True, seeds), (53, False, seeds[:3])):
        for mtu in claims.MTUS:
            for b in claims.B_FULL:
                for s in ss:
                    out.append(("host storage", mtu, b, s, uplink, short))
                    out.append(("no host storage", mtu, b, s, uplink, short))
                    if mtu == 9180:
                        out.append(("PPD", mtu, b, s, uplink, short))
    return out


def run_one(exe: str, point: tuple) -> dict:
    series, mtu, b, seed, uplink, short = point
    p = subprocess.run([exe, *args_of(series, mtu, b, seed, uplink, short)], capture_output=True, text=True, check=True)
    return stored(series, b, p.stdout)


def stored(series: str, b_kib: int, line: str) -> dict:
    """The stored record of one run from cellsim's output line."""
    out = json.loads(line)
    return {"series": series, "B_kib": b_kib, **{k: out[k] for k in KEEP}}


def atmsim_points(d: str) -> list[dict]:
    """atmsim's fig3.csv (medians over its seeds), the numeric columns as numbers."""
    with open(os.path.join(d, "fig3.csv"), encoding="utf-8") as f:
        return [{k: v if k == "series" else float(v) for k, v in r.items()} for r in csv.DictReader(f)]


def commit() -> str:
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def main(argv=None) -> int:
    ap = OneLineParser(prog="validation/cellsim/run.py", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=argparse_seed_count, default=10, help="seeds 1..N (>= 3: the claims use 1-3)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "mk95_points.json"))
    ap.add_argument("--atmsim", default="", help="an --out DIR of `atmsim reproduce morris-kung95 --figure fig3`")
    a = ap.parse_args(argv)
    if a.seeds < 3 or a.seeds > 100:
        ap.error(f"--seeds: {a.seeds} is not in 3..100 (the claims use seeds 1-3)")
    if a.jobs < 1:
        ap.error(f"--jobs: {a.jobs} is not >= 1")
    if a.atmsim and not all(os.path.isfile(os.path.join(a.atmsim, f)) for f in ("fig3.csv", "reproduction.json")):
        ap.error(f"--atmsim: {a.atmsim} has no fig3.csv and reproduction.json")
    if shutil.which("gcc") is None:
        ap.error("gcc: not found (cellsim is C99)")
    seeds = list(range(1, a.seeds + 1))
    with tempfile.TemporaryDirectory(prefix="cellsim-") as tmp:
        exe = build(tmp)
        with ThreadPoolExecutor(a.jobs) as pool:
            runs = list(pool.map(lambda p: run_one(exe, p), grid(seeds)))
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    data = {
        "command": "python validation/cellsim/run.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": commit(), "compiler": gcc, "cflags": CFLAGS, "seeds": seeds,
        "buffers_kib": claims.B_FULL, "mtus": claims.MTUS,
        "claims": {**{f"{up} Mb/s uplink, seeds {s}": claims.judge(runs, ss, up)
                      for up in (53, 155) for s, ss in (("1-3", seeds[:3]), (f"1-{len(seeds)}", seeds))},
                   "53 Mb/s uplink, seeds 1-3, full segments only": claims.judge(runs, seeds[:3], 53, short=False)},
        "runs": runs,
    }
    if a.atmsim:
        with open(os.path.join(a.atmsim, "reproduction.json"), encoding="utf-8") as f:
            rep = json.load(f)
        data["atmsim_fig3"] = {"command": "atmsim reproduce morris-kung95 --figure fig3 --out DIR",
                               "commit": rep.get("commit"), "atmsim_core": rep.get("atmsim_core"),
                               "points": atmsim_points(a.atmsim)}
    with open(a.out, "w", encoding="utf-8") as f:  # one run per line: a diff shows which runs moved
        head = {k: v for k, v in data.items() if k != "runs"}
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "runs": [\n')
        f.write(",\n".join(json.dumps(r) for r in runs) + "\n ]\n}\n")
    for k, v in data["claims"].items():
        print(k, {c: r["holds"] for c, r in v.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
