"""cellsim on Aron & Druschel's topology 1: Fig. 3's grid over ATM and the packet network, and fig3.c9 judged.

    python validation/cellsim/aron97.py run [--seeds 10] [--jobs 2] [--out validation/cellsim/aron97_points.json]
                                            [--atmsim DIR]
    python validation/cellsim/aron97.py table validation/cellsim/aron97_points.json

Grid (catalogue 1.1): B = k x 9168 bytes, k in {3, 6, 9, 12, 15, 18, 21, 24, 30, 36, 45, 60}; TCP-Lite (Lite.4);
both networks; seeds 1..N (each draws the eight senders' slow-timer phases). Besides the scenario's reading
(`base`), three sensitivities at every point: `bp95 off` (4.4BSD-Lite's estimator and the MSS/8 term),
`arrivals first` (events at an equal instant in insertion order, so an arrival at R1 is judged before a departure
frees its slot) and `random ties` (events at an equal instant in a random order, drawn from the seed). A point
is the median over the seeds of E (catalogue 1.1); fig3.c9 as the catalogue writes it: the total variation of
the packet curve over that of the ATM curve <= 2/3. With --atmsim DIR (`atmsim reproduce aron97 --figure fig3
--out DIR`), atmsim's topology-1 Lite points are stored beside cellsim's.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import claims  # noqa: E402  (read_compared: one reader of a stored grid)
import run as mk95  # noqa: E402  (commit(), CFLAGS: one way to build and stamp)
from atmsim.one_line_args import OneLineParser  # noqa: E402
from atmsim.seed_range import argparse_seed_count  # noqa: E402

SOURCES = ("aron.c", "tcp.c", "core.c", "vegas.c", "afr.c")
KS = [3, 6, 9, 12, 15, 18, 21, 24, 30, 36, 45, 60]  # catalogue 1.1; B = k x 9168 bytes
NETS = ("atm", "packet")
VARIANTS = {"base": [], "bp95 off": ["--bp95", "off"], "arrivals first": ["--ties", "arrivals-first"],
            "random ties": ["--ties", "random"]}
KEEP = ("E", "E_common", "timeouts", "fast_retransmits", "drops", "dead_share", "frames_corrupt", "ties_r1",
        "segments_retransmitted")


def build(tmp: str) -> str:
    exe = os.path.join(tmp, "cellsim-aron")
    subprocess.run(["gcc", *mk95.CFLAGS, "-o", exe, *[os.path.join(HERE, s) for s in SOURCES]], check=True)
    return exe


def args_of(variant: str, net: str, k: int, seed: int) -> list[str]:
    return ["--network", net, "--buffer-bytes", str(k * 9168), "--seed", str(seed), *VARIANTS[variant]]


def run_one(exe: str, point: tuple) -> dict:
    variant, net, k, seed = point
    out = json.loads(subprocess.run([exe, *args_of(variant, net, k, seed)], capture_output=True, text=True,
                                    check=True).stdout)
    return {"variant": variant, "network": net, "k": k, "seed": seed, **{key: out[key] for key in KEEP},
            "useful_per_sender": [s["useful_bytes"] for s in out["per_sender"]]}


def curve(runs: list[dict], variant: str, net: str, key: str = "E", seeds=None) -> list[float]:
    """The median over `seeds` (default: every stored seed) of `key` at each k of the grid."""
    return [median(r[key] for r in runs if r["variant"] == variant and r["network"] == net and r["k"] == k
                   and (seeds is None or r["seed"] in seeds)) for k in KS]


def tv(e: list[float]) -> float:
    """Total variation over the grid: sum of |E(B_j+1) - E(B_j)|."""
    return sum(abs(b - a) for a, b in zip(e, e[1:]))


def judge(atm: list[float], pkt: list[float], atm_to: list[float], pkt_to: list[float]) -> dict:
    """fig3.c9 (and, for context, c1 and c7) on one topology's two curves, as the catalogue writes them."""
    ratio = tv(pkt) / tv(atm)
    rise_atm, rise_pkt = abs(atm[-1] - atm[0]), abs(pkt[-1] - pkt[0])
    n = len(atm)
    return {
        "fig3.c9": {"tv_atm": tv(atm), "tv_packet": tv(pkt), "ratio_packet_over_atm": ratio,
                    "net_rise_atm": rise_atm, "net_rise_packet": rise_pkt, "holds": ratio <= 2 / 3},
        "fig3.c1": {"share_atm_below": sum(a < p for a, p in zip(atm, pkt)) / n,
                    "holds": sum(a < p for a, p in zip(atm, pkt)) >= 0.9 * n},
        "fig3.c7": {"share_more_timeouts_atm": sum(a > p for a, p in zip(atm_to, pkt_to)) / n,
                    "holds": sum(a > p for a, p in zip(atm_to, pkt_to)) >= 0.8 * n},
    }


def claims_of(runs: list[dict], variant: str, seeds=None) -> dict:
    return judge(*(curve(runs, variant, n, key, seeds) for key in ("E", "timeouts") for n in NETS))


def atmsim_points(d: str) -> list[dict]:
    """atmsim's fig3.csv rows of topology 1, Lite: k, network, E, timeouts, fast retransmits, dead-cell share."""
    with open(os.path.join(d, "fig3.csv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["topology"] == "1" and r["variant"] == "lite"]
    return [{"network": r["network"], "k": int(r["k"]), "E": float(r["E"]), "timeouts": float(r["timeouts"]),
             "fast_retransmits": float(r["fast_retransmits"]), "dead_cell_share": float(r["dead_cell_share"])}
            for r in rows]


def table(data: dict) -> str:
    """Markdown: atmsim's and cellsim's (base, medians over seeds 1-5 as the paper's) E and timeouts at each k."""
    runs, pts = data["runs"], {(p["network"], p["k"]): p for p in data["atmsim_fig3"]["points"]}
    out = ["| network | k | atmsim E | cellsim E | difference | timeouts a / c | fast retransmits a / c |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for net in NETS:
        e, to, fr = (curve(runs, "base", net, key, [1, 2, 3, 4, 5]) for key in ("E", "timeouts", "fast_retransmits"))
        for i, k in enumerate(KS):
            p = pts[(net, k)]
            out.append(f"| {net} | {k} | {p['E']:.3f} | {e[i]:.3f} | {e[i] - p['E']:+.3f} | "
                       f"{p['timeouts']:g} / {to[i]:g} | {p['fast_retransmits']:g} / {fr[i]:g} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = OneLineParser(prog="validation/cellsim/aron97.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the grid and store it")
    r.add_argument("--seeds", type=argparse_seed_count, default=10, help="seeds 1..N, >= 5 (the paper's medians are of 5 runs)")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--out", default=os.path.join(HERE, "aron97_points.json"))
    r.add_argument("--atmsim", default="", help="an --out DIR of `atmsim reproduce aron97 --figure fig3`")
    t = sub.add_parser("table", help="print the comparison table of a stored grid")
    t.add_argument("points")
    a = ap.parse_args(argv)
    if a.cmd == "table":
        print(table(claims.read_compared(ap, a.points, "aron97.py run")))
        return 0
    if not 5 <= a.seeds <= 100:
        ap.error(f"--seeds: {a.seeds} is not in 5..100 (the claims use seeds 1-5)")
    if a.jobs < 1:
        ap.error(f"--jobs: {a.jobs} is not >= 1")
    if a.atmsim and not all(os.path.isfile(os.path.join(a.atmsim, f)) for f in ("fig3.csv", "reproduction.json")):
        ap.error(f"--atmsim: {a.atmsim} has no fig3.csv and reproduction.json")
    seeds = list(range(1, a.seeds + 1))
    grid = [(v, n, k, s) for v in VARIANTS for n in NETS for k in KS for s in seeds]
    with tempfile.TemporaryDirectory(prefix="cellsim-aron-") as tmp:
        exe = build(tmp)
        with ThreadPoolExecutor(a.jobs) as pool:
            runs = list(pool.map(lambda p: run_one(exe, p), grid))
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    data = {"command": "python validation/cellsim/aron97.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "commit": mk95.commit(), "compiler": gcc, "cflags": mk95.CFLAGS, "seeds": seeds, "ks": KS,
            "claims": {f"{v}, seeds {lo}": claims_of(runs, v, ss) for v in VARIANTS
                       for lo, ss in (("1-5", seeds[:5]), (f"1-{len(seeds)}", seeds))}}
    if a.atmsim:
        with open(os.path.join(a.atmsim, "reproduction.json"), encoding="utf-8") as f:
            rep = json.load(f)
        pts = atmsim_points(a.atmsim)
        by = {n: [next(p for p in pts if p["network"] == n and p["k"] == k) for k in KS] for n in NETS}
        data["atmsim_fig3"] = {"command": "atmsim reproduce aron97 --figure fig3 --out DIR", "commit": rep.get("commit"),
                               "atmsim_core": rep.get("atmsim_core"), "points": pts,
                               "claims": judge(*[[p[key] for p in by[n]] for key in ("E",) for n in NETS],
                                               *[[p["timeouts"] for p in by[n]] for n in NETS])}
    store(a.out, data, runs)
    return 0


def store(path: str, data: dict, runs: list[dict]) -> None:
    """Writes `data` with its runs, one run per line (a diff shows which runs moved), and prints each claim set."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=1)[:-2] + ',\n "runs": [\n')
        f.write(",\n".join(json.dumps(x) for x in runs) + "\n ]\n}\n")
    for v, c in data["claims"].items():
        print(v, {k: round(x["ratio_packet_over_atm"], 3) if k == "fig3.c9" else x["holds"] for k, x in c.items()})


if __name__ == "__main__":
    sys.exit(main())
