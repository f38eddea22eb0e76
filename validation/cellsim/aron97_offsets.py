"""cellsim and atmsim on Aron & Druschel's topologies with the ties at R1 broken alike: static access offsets.

    python validation/cellsim/aron97_offsets.py run [--topology 1] [--spread-ns 300 3000] [--seeds 10] [--jobs 2]
                                                    [--out validation/cellsim/aron97_offsets_points.json]
    python validation/cellsim/aron97_offsets.py table validation/cellsim/aron97_offsets_points.json [--spread-ns 300]

Every instant of topology 1's ATM network lies on a 1 us grid with 3 us cells, so cells of several senders reach
R1 at the same picosecond and the order the simulator takes them in decides whose cell a full buffer keeps
(docs/validation.md, A2). Here each sender's 1 us access link is made longer by a static amount drawn uniformly in
[0, U) per (seed, sender), the offsets of `atmsim reproduce aron97 --figure access-offsets`
(`common.access_offsets`, a scenario input computed here and handed to both simulators: atmsim as
`link.Si-R1.delay` overrides, cellsim as `--access-offsets-ps`). With U > 0 no two senders' cells reach R1 at the
same instant, so the two simulators run the same scenario. Fig. 3's grid of topology 1 (12 buffers, ATM and
packet, Lite) at seeds 1..N for each U; cellsim both with a departure before a simultaneous arrival (`base`) and
with the arrival first (`arrivals first`): a sender's own back-to-back unit still meets R1's departures at equal
instants. fig3.c9 (and c1, c7) judged on each, at seeds 1-5 and 1-N.

`--topology 2` runs catalogue 1.1's chain (S1-S4 at R1, S5-S8 at R2; cellsim's `--topology 2`) with the same
per-sender amounts on each sender's access link (atmsim's figure defines them on topology 1 only, so the overrides
are written here: `link.Si-R1.delay` or `link.Si-R2.delay`), stored in aron97_offsets_topo2_points.json;
`--spread-ns 0` is the shipped scenario (no offset) in both.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import aron97  # noqa: E402  (the grid, build, run_one's binary, judge)
import run as mk95  # noqa: E402  (commit(), CFLAGS)
from atmsim.one_line_args import OneLineParser  # noqa: E402
from atmsim.seed_range import argparse_seed_count  # noqa: E402

KS, NETS = aron97.KS, aron97.NETS
VARIANTS = {"base": [], "arrivals first": ["--ties", "arrivals-first"]}  # the default readings
# more of aron97.py's readings (--readings): random ties matter only where ties are left (U = 0)
READINGS = {**VARIANTS, "random ties": ["--ties", "random"], "bp95 off": ["--bp95", "off"]}
KEEP = aron97.KEEP


def offsets_ps(seed: int, spread_ns: int) -> list[int]:
    """The eight senders' extra access delays (ps) of atmsim's access-offsets figure, read from its overrides."""
    from atmsim.reproduce.aron97.common import access_offsets

    got = [int(re.fullmatch(r"link\.S(\d)-R1\.delay=(\d+)ps", o).group(2)) - 1_000_000
           for o in access_offsets(1, seed, spread_ns * 1000)]
    assert len(got) == 8 and all(0 <= x < max(1, spread_ns * 1000) for x in got), got
    return got


def jain(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) over the senders' useful bytes."""
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 1.0


def cell_run(exe: str, point: tuple) -> dict:
    variant, topo, u, net, k, seed = point
    off = ",".join(str(x) for x in offsets_ps(seed, u))
    out = json.loads(subprocess.run([exe, *aron97.args_of("base", net, k, seed), *READINGS[variant],
                                     "--access-offsets-ps", off, *(["--topology", "2"] if topo == 2 else [])],
                                    capture_output=True, text=True, check=True).stdout)
    per = [s["useful_bytes"] for s in out["per_sender"]]
    return {"sim": "cellsim", "variant": variant, "spread_ns": u, "network": net, "k": k, "seed": seed,
            **{key: out[key] for key in KEEP}, "jain": jain(per), "useful_per_sender": per}


def atmsim_job(topo: int, u: int, net: str, k: int, seed: int):
    """(Spec, Job): topology 1 through Spec's access_offset_ps (the figure's own code path); topology 2 with the
    same amounts written as overrides of each sender's access link (S1-S4 to R1, S5-S8 to R2)."""
    from atmsim.reproduce.aron97.common import Spec
    from atmsim.runner import Job

    if topo == 1:
        sp = Spec(1, net, "lite", k, seed, access_offset_ps=u * 1000)
        return sp, sp.job()
    sp = Spec(2, net, "lite", k, seed)
    j = sp.job()
    return sp, Job(j.scenario, j.overrides + tuple(topology_2_overrides(seed, u)), j.seed, j.trace)


def topology_2_overrides(seed: int, spread_ns: int) -> list[str]:
    """The offsets of `offsets_ps` on topology 2, where atmsim's figure defines none: each sender's 1 us access link
    (S1-S4 to R1, S5-S8 to R2) made longer by its amount; none for U = 0."""
    if not spread_ns:
        return []
    return [f"link.S{i}-R{1 if i <= 4 else 2}.delay={1_000_000 + x}ps" for i, x in enumerate(offsets_ps(seed, spread_ns), 1)]


def atmsim_runs(points: list[tuple], jobs: int, topo: int) -> list[dict]:
    """atmsim's runs of the same points."""
    from atmsim.reproduce.aron97.common import row
    from atmsim.runner import run_jobs

    sj = [atmsim_job(topo, *p) for p in points]
    out = []
    for (u, net, k, seed), (sp, _), s in zip(points, sj, run_jobs([j for _, j in sj], workers=jobs)):
        r = row(sp, s)
        out.append({"sim": "atmsim", "variant": "atmsim", "spread_ns": u, "network": net, "k": k, "seed": seed,
                    "E": r["E"], "timeouts": r["timeouts"], "fast_retransmits": r["fast_retransmits"],
                    "dead_share": r["dead_cell_share"], "jain": r["fairness"],
                    "useful_per_sender": [f["bytes_delivered"] for f in s["flows"]]})
    return out


def curve(runs, variant: str, u: int, net: str, key: str = "E", seeds=None) -> list[float]:
    """Median over `seeds` (default every stored seed) of `key` at each k, for one simulator reading and U."""
    return [median(r[key] for r in runs if r["variant"] == variant and r["spread_ns"] == u and r["network"] == net
                   and r["k"] == k and (seeds is None or r["seed"] in seeds)) for k in KS]


def claims_of(runs, variant: str, u: int, seeds=None) -> dict:
    return aron97.judge(*(curve(runs, variant, u, n, key, seeds) for key in ("E", "timeouts") for n in NETS))


def leave_one_out(runs, variant: str, u: int, seeds: list[int]) -> list[float]:
    """fig3.c9's ratio with each one of `seeds` left out."""
    return [claims_of(runs, variant, u, [s for s in seeds if s != out])["fig3.c9"]["ratio_packet_over_atm"]
            for out in seeds]


def table(data: dict, u: int) -> str:
    """Markdown: atmsim against cellsim's readings (base, arrivals first, ...) at one U, medians over every stored
    seed."""
    runs, readings = data["runs"], data.get("readings", list(VARIANTS))
    cols = [("E", "{:.3f}"), ("timeouts", "{:g}"), ("fast_retransmits", "{:g}"), ("jain", "{:.3f}")]
    out = ["| network | k | E a / c / c-af | timeouts a / c / c-af | fast retransmits a / c / c-af | "
           "Jain a / c / c-af |", "| --- | --- | --- | --- | --- | --- |"]
    for net in NETS:
        got = {(v, key): curve(runs, v, u, net, key) for v in ("atmsim", *readings) for key, _ in cols}
        for i, k in enumerate(KS):
            cells = [" / ".join(f.format(got[(v, key)][i]) for v in ("atmsim", *readings)) for key, f in cols]
            out.append(f"| {net} | {k} | " + " | ".join(cells) + " |")
    out += ["", "| network | cellsim reading | E: c - a (range) | points within 0.02 / 0.05 | timeouts: c - a | "
            "fast retransmits: c - a | Jain: c - a |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for net in NETS:
        for v in readings:
            d = {key: [c - a for c, a in zip(curve(runs, v, u, net, key), curve(runs, "atmsim", u, net, key))]
                 for key, _ in cols}
            e = d["E"]
            out.append(f"| {net} | {v} | {min(e):+.3f} to {max(e):+.3f} | {sum(abs(x) <= 0.02 for x in e)} / "
                       f"{sum(abs(x) <= 0.05 for x in e)} of {len(e)} | {min(d['timeouts']):+g} to "
                       f"{max(d['timeouts']):+g} | {min(d['fast_retransmits']):+g} to {max(d['fast_retransmits']):+g}"
                       f" | {min(d['jain']):+.3f} to {max(d['jain']):+.3f} |")
    out += ["", "| reading | seeds 1-5: TV ATM / packet, ratio | seeds 1-10: TV ATM / packet, ratio | "
            "one of ten left out |", "| --- | --- | --- | --- |"]
    for v in ("atmsim", *readings):
        c5, c10 = (data["claims"][f"{v}, U {u} ns, seeds {lo}"]["fig3.c9"] for lo in ("1-5", f"1-{len(data['seeds'])}"))
        lo_ = data["leave_one_out"][f"{v}, U {u} ns"]
        out.append(f"| {v} | " + " | ".join(f"{c['tv_atm']:.3f} / {c['tv_packet']:.3f}, {c['ratio_packet_over_atm']:.3f}"
                                             + (" (holds)" if c["holds"] else "") for c in (c5, c10))
                   + f" | {min(lo_):.3f}-{max(lo_):.3f} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = OneLineParser(prog="validation/cellsim/aron97_offsets.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run both simulators on the grid and store it")
    r.add_argument("--topology", type=int, default=1, help="1 or 2 (catalogue 1.1)")
    r.add_argument("--spread-ns", type=int, nargs="+", default=[300, 3000], help="U of the offsets, ns (0: none)")
    r.add_argument("--readings", nargs="+", default=list(VARIANTS), help=f"cellsim's readings: {', '.join(READINGS)}")
    r.add_argument("--seeds", type=argparse_seed_count, default=10, help="seeds 1..N, >= 5")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--out", default="", help="default validation/cellsim/aron97_offsets[_topo2]_points.json")
    t = sub.add_parser("table", help="print the comparison table of a stored grid at one U")
    t.add_argument("points")
    t.add_argument("--spread-ns", type=int, default=300)
    a = ap.parse_args(argv)
    if a.cmd == "table":
        try:
            with open(a.points, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            ap.error(f"points: {a.points}: cannot be read as the JSON of aron97_offsets.py run ({e})")
        if a.spread_ns not in data.get("spread_ns", []):
            ap.error(f"--spread-ns: {a.spread_ns} is not stored (stored: {data.get('spread_ns')})")
        print(table(data, a.spread_ns))
        return 0
    if not 5 <= a.seeds <= 100:
        ap.error(f"--seeds: {a.seeds} is not in 5..100 (the claims use seeds 1-5)")
    if a.jobs < 1:
        ap.error(f"--jobs: {a.jobs} is not >= 1")
    if not all(0 <= u <= 1_000_000 for u in a.spread_ns):
        ap.error(f"--spread-ns: {a.spread_ns} must be in 0..1000000")
    if not a.readings or any(v not in READINGS for v in a.readings):
        ap.error(f"--readings: {a.readings} are not among {', '.join(READINGS)}")
    if a.topology not in (1, 2):
        ap.error(f"--topology: {a.topology} is not 1 or 2")
    seeds = list(range(1, a.seeds + 1))
    pts = [(u, n, k, s) for u in a.spread_ns for n in NETS for k in KS for s in seeds]
    with tempfile.TemporaryDirectory(prefix="cellsim-aron-off-") as tmp:
        exe = aron97.build(tmp)
        with ThreadPoolExecutor(a.jobs) as pool:
            runs = list(pool.map(lambda p: cell_run(exe, p), [(v, a.topology, *p) for v in a.readings for p in pts]))
    runs += atmsim_runs(pts, a.jobs, a.topology)
    from atmsim.runner import core_fingerprint

    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    data = {"command": "python validation/cellsim/aron97_offsets.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "commit": mk95.commit(), "atmsim_core": core_fingerprint(), "compiler": gcc, "cflags": mk95.CFLAGS,
            "topology": a.topology, "seeds": seeds, "ks": KS, "spread_ns": a.spread_ns,
            "offsets_ps": {f"{u}/{s}": offsets_ps(s, u) for u in a.spread_ns for s in seeds},
            "readings": a.readings,
            "claims": {f"{v}, U {u} ns, seeds {lo}": claims_of(runs, v, u, ss) for v in ("atmsim", *a.readings)
                       for u in a.spread_ns for lo, ss in (("1-5", seeds[:5]), (f"1-{len(seeds)}", seeds))},
            "leave_one_out": {f"{v}, U {u} ns": leave_one_out(runs, v, u, seeds) for v in ("atmsim", *a.readings)
                              for u in a.spread_ns}}
    aron97.store(a.out or os.path.join(HERE, f"aron97_offsets{'_topo2' if a.topology == 2 else ''}_points.json"),
                 data, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
