"""cellsim on Aron & Druschel's topology 1 with all six TCP variants: the series of figs 6, 7, 8 and 12, and their rows.

    python validation/cellsim/aron97_vegas.py run [--seeds 10] [--jobs 2] [--readings base,arrivals-first,random]
                                                  [--spread-ns 0] [--out validation/cellsim/aron97_vegas_points.json]
    python validation/cellsim/aron97_vegas.py table validation/cellsim/aron97_vegas_points.json --atmsim DIR
    python validation/cellsim/aron97_vegas.py rows validation/cellsim/aron97_vegas_points.json

Series (catalogue 1.4, 1.5, 1.8; topology 1 only, cellsim has no topology 2): the six variants on ATM (fig7) and
the packet network (fig8) over the 12 buffers with the 500-ms tick (fig6 is vegas-afr's two of them); lite and
lite-afr with the 10-ms tick on both networks over the 12 buffers, vegas-afr with the 10-ms tick at k in
{3, 9, 21, 45} (fig12). Seeds 1..N for the scenario's reading, 1..M for the others (--sensitivity-seeds). Readings: `base` (a departure from R1 frees its slot before an arrival at
the same instant is judged), `arrivals-first` (insertion order), `random` (a random order from the seed);
`worried-once` (base ties, a worried-check retransmission does not re-arm the check, ns-2's reading) on the
Vegas-RM variants. Each row judged as the catalogue and the row's `rule` write it, on the medians over seeds
1-5 (the paper's five runs) and 1-N. `table` sets cellsim's points beside atmsim's (DIR: the --out of a full
`atmsim reproduce aron97`); `rows` prints the eight rows under every stored reading and seed set.

`--spread-ns U` (U > 0) breaks the ties at R1 alike in both simulators, as aron97_offsets.py does for fig3: each
sender's access link is made longer by the static amount of atmsim's access-offsets figure for (seed, sender), drawn
uniformly in [0, U), handed to cellsim as `--access-offsets-ps`; atmsim then runs every series point at the base
seeds with the same offsets (reading `atmsim`), so the rows are judged on one scenario in both
(default out: aron97_vegas_offsets_points.json). `random` ties are refused there: no two senders' cells meet at R1.
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
sys.path.insert(0, HERE)
import aron97  # noqa: E402  (build, KS, NETS: one build of topology 1)
import aron97_offsets  # noqa: E402  (offsets_ps: atmsim's access offsets, per seed and sender)
import run as mk95  # noqa: E402  (commit(), CFLAGS)
from atmsim.one_line_args import OneLineParser  # noqa: E402
from atmsim.seed_range import argparse_seed_count  # noqa: E402

KS, NETS = aron97.KS, aron97.NETS
VARIANTS = ("lite", "lite-afr", "vegas-rm", "vegas-rm-afr", "vegas", "vegas-afr")
K12 = (3, 9, 21, 45)  # fig12's vegas-afr points (catalogue 1.8)
READINGS = {"base": [], "arrivals-first": ["--ties", "arrivals-first"], "random": ["--ties", "random"],
            "worried-once": ["--worried", "once"]}
KEEP = ("E", "timeouts", "fast_retransmits", "segments_retransmitted", "afr_extra", "drops")


def series(topology: int = 1) -> list[tuple]:
    """(variant, network, tick_ms, k) of every series point the eight rows need on topology 1; on topology 2, those
    of fig6.c2's second half (Vegas-AFR on both networks, the 500-ms tick)."""
    if topology == 2:
        return [("vegas-afr", n, 500, k) for n in NETS for k in KS]
    pts = [(v, n, 500, k) for v in VARIANTS for n in NETS for k in KS]
    pts += [(v, n, 10, k) for v in ("lite", "lite-afr") for n in NETS for k in KS]
    return pts + [("vegas-afr", n, 10, k) for n in NETS for k in K12]


def grid(readings: list[str], seeds: list[int], sens_seeds: list[int], topology: int = 1) -> list[tuple]:
    """Every run: the base reading (and atmsim's, with offsets) at `seeds`, the other readings at `sens_seeds`."""
    return [(r, *p, s) for r in readings for p in series(topology) for s in (seeds if r in ("base", "atmsim") else sens_seeds)
            if r != "worried-once" or p[0].startswith("vegas")]


def args_of(reading: str, variant: str, net: str, tick: int, k: int, seed: int) -> list[str]:
    return ["--network", net, "--buffer-bytes", str(k * 9168), "--seed", str(seed), "--variant", variant,
            "--tick-ms", str(tick), *READINGS[reading]]


def run_one(exe: str, point: tuple, spread_ns: int = 0, topology: int = 1) -> dict:
    off = ["--access-offsets-ps", ",".join(map(str, aron97_offsets.offsets_ps(point[5], spread_ns)))] if spread_ns else []
    off += ["--topology", "2"] if topology == 2 else []
    out = json.loads(subprocess.run([exe, *args_of(*point), *off], capture_output=True, text=True, check=True).stdout)
    u = [s["useful_bytes"] for s in out["per_sender"]]
    return {"reading": point[0], "variant": point[1], "network": point[2], "tick_ms": point[3], "k": point[4],
            "seed": point[5], **{key: out[key] for key in KEEP}, "jain": sum(u) ** 2 / (len(u) * sum(x * x for x in u))}


def atmsim_runs(points: list[tuple], spread_ns: int, jobs: int, topology: int = 1) -> dict:
    """atmsim's runs of `points` ((reading "atmsim", variant, network, tick_ms, k, seed)) with the same offsets: on
    topology 1 through the access-offsets figure's own code path (Spec.access_offset_ps), on topology 2 as overrides of
    each sender's access link (aron97_offsets.topology_2_overrides)."""
    from atmsim.reproduce.aron97.common import Spec, row
    from atmsim.runner import Job, run_jobs

    specs = [Spec(topology, n, v, k, s, tick=f"{t}ms", access_offset_ps=spread_ns * 1000 if topology == 1 else 0)
             for _, v, n, t, k, s in points]
    jobs_ = [sp.job() for sp in specs]
    if topology == 2:
        jobs_ = [Job(j.scenario, j.overrides + tuple(aron97_offsets.topology_2_overrides(p[5], spread_ns)), j.seed, j.trace)
                 for p, j in zip(points, jobs_)]
    out = {}
    for p, sp, res in zip(points, specs, run_jobs(jobs_, workers=jobs)):
        r = row(sp, res)
        out[p] = {"reading": "atmsim", "variant": p[1], "network": p[2], "tick_ms": p[3], "k": p[4], "seed": p[5],
                  "E": r["E"], "timeouts": r["timeouts"], "fast_retransmits": r["fast_retransmits"],
                  "segments_retransmitted": r["retx_segments"], "afr_extra": r["afr_extra"], "jain": r["fairness"]}
    return out


def med(runs, reading, variant, net, tick, k, key, seeds):
    """The median over `seeds` of `key` at one point; the base runs stand for a reading that does not apply."""
    rd = reading if reading != "worried-once" or variant.startswith("vegas") else "base"
    return median(r[key] for r in runs if (r["reading"], r["variant"], r["network"], r["tick_ms"], r["k"]) ==
                  (rd, variant, net, tick, k) and r["seed"] in seeds)


def fair(jfis: list[float]) -> dict:
    """fig3.fair's rule on topology 1: min JFI / 0.79 >= 1 and the share >= 0.95 above one half."""
    return {"min": min(jfis), "share_ge_0.95": sum(j >= 0.95 for j in jfis) / len(jfis),
            "points_below_floor": sum(j < 0.79 for j in jfis), "points": len(jfis),
            "holds": min(jfis) >= 0.79 and sum(j >= 0.95 for j in jfis) / len(jfis) > 0.5}


def judge(runs: list[dict], reading: str, seeds: list[int]) -> dict:
    """The eight rows, as claims.json's rules write them, on topology 1."""
    def e(v, n, tick=500, ks=KS, key="E"):
        return [med(runs, reading, v, n, tick, k, key, seeds) for k in ks]
    lite_a, vrm_a, vafr_a, vrmafr_a = (e(v, "atm") for v in ("lite", "vegas-rm", "vegas-afr", "vegas-rm-afr"))
    lite_p, vrm_p, vegas_p, vafr_p = (e(v, "packet") for v in ("lite", "vegas-rm", "vegas", "vegas-afr"))
    gaps6 = [1 - a / p for a, p in zip(vafr_a, vafr_p)]
    r7 = sum(b - a for a, b in zip(lite_a, vrm_a)) / sum(b - a for a, b in zip(lite_a, vafr_a))
    within = [a >= 0.9 * p for a, p in zip(vrmafr_a, lite_p)]
    above = sum(b > a for a, b in zip(lite_p, vrm_p)) / len(KS)
    g8 = sum(b - a for a, b in zip(lite_p, vrm_p)) / sum(b - a for a, b in zip(lite_p, vegas_p))
    gap12 = [1 - a / p for a, p in zip(e("lite-afr", "atm", 10), e("lite", "packet", 10))]
    d12 = [abs(x - y) for n in NETS for x, y in zip(e("vegas-afr", n, 10, K12), e("vegas-afr", n, 500, K12))]
    return {
        "fig6.c2": {"max_abs_gap_topo1": max(abs(g) for g in gaps6), "gaps": gaps6,
                    "holds_topo1": max(abs(g) for g in gaps6) <= 0.12},
        "fig6.fair": fair([*e("vegas-afr", "atm", key="jain"), *e("vegas-afr", "packet", key="jain")]),
        "fig7.c2": {"ratio": r7, "holds": 0.45 <= r7 <= 0.85},
        "fig7.c5": {"share": sum(within) / len(KS), "ratios": [a / p for a, p in zip(vrmafr_a, lite_p)],
                    "holds": sum(within) >= 0.8 * len(KS)},
        "fig7.fair": fair([j for v in VARIANTS for j in e(v, "atm", key="jain")]),
        "fig8.c4": {"share_above_lite": above, "gain_ratio": g8, "holds": above >= 0.8 and g8 >= 0.5},
        "fig12.c2": {"share_below_0.10": sum(g < 0.10 for g in gap12) / len(KS), "median": median(gap12),
                     "gaps": gap12, "holds": sum(g < 0.10 for g in gap12) >= 0.75 * len(KS) and median(gap12) < 0.10},
        "fig12.c4": {"max_abs_diff": max(d12), "diffs": d12, "holds": max(d12) <= 0.03},
    }


FAIR_SERIES = {"fig6.fair": [("vegas-afr", n) for n in NETS], "fig7.fair": [(v, "atm") for v in VARIANTS]}


def fair_anatomy(runs: list[dict], row: str, reading: str, seeds: list[int]) -> dict:
    """What a fairness row's failure is made of in cellsim: its worst point (median JFI over the seeds) and the
    median Jain index of its runs by the run's coarse timeouts (8 senders), as atmsim's note of the row bins them."""
    rs = [r for r in runs if (r["variant"], r["network"]) in FAIR_SERIES[row] and r["tick_ms"] == 500
          and r["seed"] in seeds and r["reading"] == (reading if reading != "worried-once" or
                                                      r["variant"].startswith("vegas") else "base")]
    pts = {(r["variant"], r["network"], r["k"]) for r in rs}
    jain = {p: median(r["jain"] for r in rs if (r["variant"], r["network"], r["k"]) == p) for p in pts}
    worst = min(jain, key=jain.get)
    to = {p: median(r["timeouts"] for r in rs if (r["variant"], r["network"], r["k"]) == p) for p in pts}
    bins = {"0-2": (0, 2), "3-9": (3, 9), ">=10": (10, 10**9)}
    by = {b: [r["jain"] for r in rs if lo <= r["timeouts"] <= hi] for b, (lo, hi) in bins.items()}
    return {"worst": {"variant": worst[0], "network": worst[1], "k": worst[2], "jain": jain[worst],
                      "timeouts": to[worst]},
            "jain_by_timeouts": {b: {"runs": len(v), "median": median(v) if v else None} for b, v in by.items()}}


def atmsim_points(d: str) -> list[dict]:
    """atmsim's topology-1 points of fig6/7/8/12 (E, timeouts, retransmitted segments, Jain), one per series point."""
    pts = {}
    for fig in ("fig6", "fig7", "fig8", "fig12"):
        with open(os.path.join(d, f"{fig}.csv"), encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r["topology"] == "1":
                    tick = int(r.get("tick", "500ms").removesuffix("ms") or 500)
                    pts[(r["variant"], r["network"], tick, int(r["k"]))] = {
                        "variant": r["variant"], "network": r["network"], "tick_ms": tick, "k": int(r["k"]),
                        **{key: float(r[key]) for key in ("E", "timeouts", "retx_segments", "fairness")}}
    return list(pts.values())


def stored_atmsim_points(data: dict) -> list[dict]:
    """atmsim's points stored beside cellsim's (`--spread-ns`), as atmsim_points gives them: medians over seeds 1-5."""
    s5 = [1, 2, 3, 4, 5]
    return [{"variant": v, "network": n, "tick_ms": t, "k": k,
             **{out: med(data["runs"], "atmsim", v, n, t, k, key, s5) for out, key in
                (("E", "E"), ("timeouts", "timeouts"), ("retx_segments", "segments_retransmitted"), ("fairness", "jain"))}}
            for v, n, t, k in series(data.get("topology", 1))]


def table(data: dict, atmsim: list[dict], reading: str = "base") -> str:
    """Markdown: atmsim's and cellsim's E, timeouts, retransmitted segments and Jain at each series point (seeds 1-5)."""
    s5 = [1, 2, 3, 4, 5]
    out = ["| variant | net | tick | k | E a / c | timeouts a / c | rexmit segs a / c | Jain a / c |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in sorted(atmsim, key=lambda p: (p["tick_ms"], p["variant"], p["network"], p["k"])):
        key = (p["variant"], p["network"], p["tick_ms"], p["k"])
        if key not in set(series()) or not any((r["variant"], r["network"], r["tick_ms"], r["k"]) == key
                                               for r in data["runs"]):
            continue
        c = {f: med(data["runs"], reading, *key, f, s5) for f in ("E", "timeouts", "segments_retransmitted", "jain")}
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {p['E']:.3f} / {c['E']:.3f} | "
                   f"{p['timeouts']:g} / {c['timeouts']:g} | {p['retx_segments']:g} / {c['segments_retransmitted']:g}"
                   f" | {p['fairness']:.3f} / {c['jain']:.3f} |")
    return "\n".join(out)


def judge_topology_2(runs: list[dict], reading: str, seeds: list[int]) -> dict:
    """fig6.c2's second half, topology 2: max |1 - E_atm / E_pkt| of Vegas-AFR over the buffers <= 0.12."""
    gaps = [1 - a / p for a, p in zip(*([med(runs, reading, "vegas-afr", n, 500, k, "E", seeds) for k in KS] for n in NETS))]
    return {"fig6.c2 topology 2": {"max_abs_gap": max(map(abs, gaps)), "gaps": gaps, "holds": max(map(abs, gaps)) <= 0.12}}


def judge_of(data: dict):
    """The judge of a stored file: topology 1's eight rows, or topology 2's half of fig6.c2."""
    return judge_topology_2 if data.get("topology", 1) == 2 else judge


VALUE = {"fig6.c2": "max_abs_gap_topo1", "fig6.c2 topology 2": "max_abs_gap", "fig7.c2": "ratio", "fig7.c5": "share", "fig8.c4": ("share_above_lite", "gain_ratio"),
         "fig12.c2": ("share_below_0.10", "median"), "fig12.c4": "max_abs_diff", "fig6.fair": ("min", "share_ge_0.95"),
         "fig7.fair": ("min", "share_ge_0.95")}


def rows_table(data: dict) -> str:
    """Markdown: each row's value and verdict in cellsim under every stored reading and seed set."""
    cols = list(data["claims"])
    out = ["| row | " + " | ".join(cols) + " |", "| --- |" + " --- |" * len(cols)]
    for row, key in VALUE.items():
        if row not in data["claims"][cols[0]]:
            continue
        cells = []
        for c in cols:
            got = data["claims"][c][row]
            v = " / ".join(f"{got[k]:.3f}" for k in ((key,) if isinstance(key, str) else key))
            cells.append(f"{v} ({'holds' if got.get('holds', got.get('holds_topo1')) else 'fails'})")
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def read_points(ap, path: str, key: str) -> dict:
    """A stored file of `aron97_vegas.py run`; one that cannot be read or is not one is `ap`'s one-line error."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        ap.error(f"{key}: {path}: not a readable JSON file ({getattr(e, 'strerror', None) or 'invalid JSON'})")
    if not isinstance(d, dict) or "runs" not in d or "readings" not in d:
        ap.error(f"{key}: {path} is not the --out of aron97_vegas.py run")
    return d


def summary(data: dict, atmsim: list[dict], reading: str = "base") -> str:
    """Markdown, one line per series: cellsim - atmsim in E over its buffers (range, median), and the medians over
    the buffers of both simulators' timeouts, retransmitted segments and Jain (seeds 1-5, per-point medians)."""
    s5, have = [1, 2, 3, 4, 5], {(r["variant"], r["network"], r["tick_ms"], r["k"]) for r in data["runs"]}
    out = ["| variant | net | tick | E c - a: range (median) | timeouts a / c | rexmit segs a / c | Jain a / c |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for v, n, tick in dict.fromkeys((p[0], p[1], p[2]) for p in series(data.get("topology", 1))):
        pts = [p for p in atmsim if (p["variant"], p["network"], p["tick_ms"], p["k"]) in have
               and (p["variant"], p["network"], p["tick_ms"]) == (v, n, tick)]
        c = {f: [med(data["runs"], reading, v, n, tick, p["k"], f, s5) for p in pts]
             for f in ("E", "timeouts", "segments_retransmitted", "jain")}
        d = [x - p["E"] for x, p in zip(c["E"], pts)]
        a = {f: median(p[f] for p in pts) for f in ("timeouts", "retx_segments", "fairness")}
        out.append(f"| {v} | {n} | {tick} | {min(d):+.3f} to {max(d):+.3f} ({median(d):+.3f}) | {a['timeouts']:g} / "
                   f"{median(c['timeouts']):g} | {a['retx_segments']:g} / {median(c['segments_retransmitted']):g} | "
                   f"{a['fairness']:.3f} / {median(c['jain']):.3f} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = OneLineParser(prog="validation/cellsim/aron97_vegas.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the series and store them")
    r.add_argument("--seeds", type=argparse_seed_count, default=10, help="seeds 1..N, >= 5 (the paper's medians are of 5 runs)")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--sensitivity-seeds", type=argparse_seed_count, default=5,
                   help="seeds 1..N of the readings other than base, >= 5")
    r.add_argument("--readings", default="base,arrivals-first,random,worried-once")
    r.add_argument("--reuse", default="", help="a stored file of this command whose runs of the grid are kept, not rerun "
                   "(runs are deterministic; tests/test_cellsim_vegas.py reruns a stored one)")
    r.add_argument("--spread-ns", type=int, default=0, help="U of the access offsets, ns (0: the ties as shipped)")
    r.add_argument("--topology", type=int, default=1, help="1 (every row's series) or 2 (fig6.c2's: Vegas-AFR)")
    r.add_argument("--out", default="", help="default aron97_vegas_points.json; with --spread-ns "
                   "aron97_vegas_offsets_points.json; with --topology 2, _topo2 before _points")
    t = sub.add_parser("table", help="print cellsim's points beside atmsim's")
    t.add_argument("points")
    t.add_argument("--atmsim", default="", help="the --out DIR of `atmsim reproduce aron97`; not needed for a file of "
                   "--spread-ns, which holds atmsim's runs")
    t.add_argument("--reading", default="base", choices=list(READINGS))
    t.add_argument("--summary", action="store_true", help="one line per series instead of one per point")
    w = sub.add_parser("rows", help="print the eight rows judged under every stored reading")
    w.add_argument("points")
    a = ap.parse_args(argv)
    if a.cmd == "rows":
        print(rows_table(read_points(ap, a.points, "points")))
        return 0
    if a.cmd == "table":
        data = read_points(ap, a.points, "points")
        if a.atmsim:
            if not all(os.path.isfile(os.path.join(a.atmsim, f"{f}.csv")) for f in ("fig6", "fig7", "fig8", "fig12")):
                ap.error(f"--atmsim: {a.atmsim} has no fig6.csv, fig7.csv, fig8.csv and fig12.csv")
        elif "atmsim" not in data["readings"]:
            ap.error(f"--atmsim: needed, {a.points} holds no atmsim runs (it was not run with --spread-ns)")
        if a.reading not in data["readings"]:
            ap.error(f"--reading: {a.reading} is not stored in {a.points} ({', '.join(data['readings'])})")
        pts = atmsim_points(a.atmsim) if a.atmsim else stored_atmsim_points(data)
        print((summary if a.summary else table)(data, pts, a.reading))
        return 0
    readings = a.readings.split(",")
    if bad := [x for x in readings if x not in READINGS]:
        ap.error(f"--readings: {bad[0]} is not one of {', '.join(READINGS)}")
    if not 5 <= a.seeds <= 100:
        ap.error(f"--seeds: {a.seeds} is not in 5..100 (the claims use seeds 1-5)")
    if not 5 <= a.sensitivity_seeds <= a.seeds:
        ap.error(f"--sensitivity-seeds: {a.sensitivity_seeds} is not in 5..{a.seeds} (--seeds)")
    if a.jobs < 1:
        ap.error(f"--jobs: {a.jobs} is not >= 1")
    if a.topology not in (1, 2):
        ap.error(f"--topology: {a.topology} is not 1 or 2")
    if not 0 <= a.spread_ns <= 1_000_000:
        ap.error(f"--spread-ns: {a.spread_ns} is not in 0..1000000")
    if a.spread_ns and "random" in readings:
        ap.error("--readings: random ties do not apply with --spread-ns (no two senders' cells meet at R1)")
    readings += ["atmsim"] if a.spread_ns else []
    seeds, sens = list(range(1, a.seeds + 1)), list(range(1, a.sensitivity_seeds + 1))
    fields = ("reading", "variant", "network", "tick_ms", "k", "seed")
    old = read_points(ap, a.reuse, "--reuse") if a.reuse else {"runs": [], "spread_ns": a.spread_ns, "topology": a.topology}
    if (old.get("spread_ns", 0), old.get("topology", 1)) != (a.spread_ns, a.topology):
        ap.error(f"--reuse: {a.reuse} was run with --spread-ns {old.get('spread_ns', 0)} on topology "
                 f"{old.get('topology', 1)}, not {a.spread_ns} on {a.topology}")
    kept = {tuple(r[f] for f in fields): r for r in old["runs"]}
    todo = [p for p in grid(readings, seeds, sens, a.topology) if p not in kept]
    cells = [p for p in todo if p[0] != "atmsim"]
    with tempfile.TemporaryDirectory(prefix="cellsim-vegas-") as tmp:
        exe = aron97.build(tmp)
        with ThreadPoolExecutor(a.jobs) as pool:
            new = dict(zip(cells, pool.map(lambda p: run_one(exe, p, a.spread_ns, a.topology), cells)))
    new.update(atmsim_runs([p for p in todo if p[0] == "atmsim"], a.spread_ns, a.jobs, a.topology))
    runs = [kept.get(p) or new[p] for p in grid(readings, seeds, sens, a.topology)]
    from atmsim.runner import core_fingerprint

    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    data = {"command": "python validation/cellsim/aron97_vegas.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "commit": mk95.commit(), "compiler": gcc, "cflags": mk95.CFLAGS, "seeds": seeds, "ks": KS,
            "readings": readings, "sensitivity_seeds": sens, "reused_runs": len(runs) - len(todo),
            "topology": a.topology, "spread_ns": a.spread_ns, **({"offsets_ps": {s: aron97_offsets.offsets_ps(s, a.spread_ns) for s in seeds},
                                         "atmsim_core": core_fingerprint()} if a.spread_ns else {}),
            "claims": {f"{rd}, seeds {lo}": judge_of({"topology": a.topology})(runs, rd, ss) for rd in readings
                       for lo, ss in (("1-5", seeds[:5]), (f"1-{len(seeds)}", seeds), (f"1-{len(sens)}", sens))
                       if rd in ("base", "atmsim") or ss == sens}}
    out = a.out or os.path.join(HERE, f"aron97_vegas{'_offsets' if a.spread_ns else ''}{'_topo2' if a.topology == 2 else ''}_points.json")
    with open(out, "w", encoding="utf-8") as f:  # one run per line: a diff shows which runs moved
        f.write(json.dumps(data, indent=1)[:-2] + ',\n "runs": [\n')
        f.write(",\n".join(json.dumps(x) for x in runs) + "\n ]\n}\n")
    for rd, c in data["claims"].items():
        print(rd, {k: x.get("holds", x.get("holds_topo1")) for k, x in c.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
