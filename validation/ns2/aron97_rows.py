#!/usr/bin/env python3
"""ns-2 on the packet-network series of aron97's failing rows (issue 37: does an independent simulator
show the same deviation?).

    python validation/ns2/aron97_rows.py run [--ks 3,6,...,60] [--draws 10] [--seeds 1,2,3,4,5] [--jobs 2]
                                             [--rows fig3.fair,...] [--access-offset PS] [--out DIR]
    python validation/ns2/aron97_rows.py points DIR/results.json [--write FILE]

For every packet-network series that ns-2 can twin (`twin.NS_VARIANTS`: no AFR, no Vegas-RM alone) of
the rows `fig3.fair` (Lite, topologies 1 and 2), `fig8.fair` (Lite and Vegas, topology 1) and `fig12.c4`
(Vegas with the 10 ms and the 500 ms tick, topology 1), and the packet baselines of `fig12.c2` (Lite at the
10 ms tick) and `fig6.c2` (Vegas for Vegas-AFR, topology 2), at every buffer of aron97's grid, both simulators
run the reproduction's own scenario (`aron97-topo{1,2}-packet` with the run's overrides, as
reproduce/aron97/common.py `Spec.job` writes them):

* draw 0, the scenario as the reproduction runs it: ns-2 once (its seed reaches nothing, twin.py), atmsim
  at each of `--seeds` (its seeds draw the hosts' timer phases; these are the reproduction's runs);
* draws 1..N of start jitter, U[0, 1 ms) per flow, the same in both (twin.py `jitter`): ns-2's only
  source of variation, so that its value at a point is a median over draws, as the claims take a
  median over seeds.

`points` keeps per point (topology, variant, tick, k) each simulator's median, min and max over the draws
of E, Jain's index and the coarse timeouts, and the draw-0 runs; tests/test_settled.py judges the
stored points by the rows' own bands. docs/validation.md, "Evidence for issue 37".
"""
from __future__ import annotations

import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import twin  # noqa: E402
from atmsim.one_line_args import OneLineParser  # noqa: E402
from atmsim.seed_range import argparse_seeds  # noqa: E402

K_FULL = (3, 6, 9, 12, 15, 18, 21, 24, 30, 36, 45, 60)  # reproduce/aron97/common.py K_FULL
METRICS = ("E", "jain", "timeouts")
# (topology, variant, tick) of each row's packet series that ns-2 has
SERIES = {
    "fig3.fair": ((1, "lite", "500ms"), (2, "lite", "500ms")),
    "fig8.fair": ((1, "lite", "500ms"), (1, "vegas", "500ms")),
    "fig12.c4": ((1, "vegas", "10ms"), (1, "vegas", "500ms")),
    # The packet baselines of rows that compare ATM with the packet network (their ATM side has no twin), those not
    # above already: fig12.c2's packet Lite at the 10 ms tick, and fig6.c2's packet Vegas-AFR as Vegas on topology 2
    # (ns-2 has no AFR; on topology 1's packet network atmsim's Vegas-AFR is within 0.02 of Vegas at most buffers,
    # fig8.c2). fig7.c5's packet Lite and fig6.c2's topology-1 Vegas are fig3.fair's and fig8.fair's series.
    "fig12.c2": ((1, "lite", "10ms"),),
    "fig6.c2": ((2, "vegas", "500ms"),),
}


def sets(variant: str, k: int, tick: str) -> list:
    """The reproduction's overrides of one run (Spec.job): buffer k x 9168 bytes, variant, tick."""
    seg = twin.atmsim.model_facts(twin.SCENARIO)["segment_ip_bytes"]
    o = [f"switch.buffer={k * seg}B", f"tcp.variant={variant}"]
    return o + ([f"tcp.tick={tick}"] if tick != "500ms" else [])


def _job(args):
    (topo, variant, tick), k, draw, seeds, offset_ps = args
    scenario = f"aron97-topo{topo}-packet"
    s = sets(variant, k, tick)
    if draw == 0:
        r = twin.run_case(scenario, s, 0, at=False)
        at = [twin.run_atmsim(scenario, s, seed) for seed in seeds]
        row = {"ns2": {m: r["ns2"][m] for m in METRICS}, "atmsim_seeds": [{m: a[m] for m in METRICS} for a in at]}
    else:
        r = twin.run_case(scenario, s, draw, offset_ps=offset_ps)
        row = {sim: {m: r[sim][m] for m in METRICS} for sim in ("ns2", "atmsim")}
    row.update(topology=topo, variant=variant, tick=tick, k=k, draw=draw)
    return row


def run(ks, draws: int, seeds, jobs: int, out: str, rows_of=tuple(SERIES), offset_ps: int = 0) -> list:
    from concurrent.futures import ProcessPoolExecutor
    series = sorted({s for r in rows_of for s in SERIES[r]})
    todo = [(s, k, d, tuple(seeds), offset_ps) for s in series for k in ks for d in range(draws + 1)]
    rows = []
    with ProcessPoolExecutor(jobs) as ex:
        for i, r in enumerate(ex.map(_job, todo), 1):
            rows.append(r)
            print(f"[{i}/{len(todo)}] topo{r['topology']} {r['variant']} {r['tick']} k={r['k']} draw {r['draw']}: "
                  f"ns-2 J {r['ns2']['jain']:.3f}", file=sys.stderr, flush=True)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"ns": twin.ns2_version(), "draws": draws, "seeds": list(seeds), "offset_ps": offset_ps,
                   "series": {r: SERIES[r] for r in rows_of}, "rows": rows}, f)
    return rows


def _stats(vals) -> list:
    return [statistics.median(vals), min(vals), max(vals)]


def points(rows) -> list:
    """Per (topology, variant, tick, k): median, min, max over draws >= 1 of each metric in both simulators,
    ns-2's draw-0 run and atmsim's median over its draw-0 seeds (the reproduction's runs)."""
    by = {}
    for r in rows:
        by.setdefault((r["topology"], r["variant"], r["tick"], r["k"]), []).append(r)
    out = []
    for (topo, v, tick, k), rs in sorted(by.items()):
        drawn = [r for r in rs if r["draw"] > 0]
        exact = next(r for r in rs if r["draw"] == 0)
        p = {"topology": topo, "variant": v, "tick": tick, "k": k, "draws": len(drawn)}
        for m in METRICS:
            for sim in ("ns2", "atmsim"):
                p[f"{sim}_{m}"] = _stats([r[sim][m] for r in drawn])
            p[f"ns2_draw0_{m}"] = exact["ns2"][m]
            p[f"atmsim_seeds_{m}"] = statistics.median(a[m] for a in exact["atmsim_seeds"])
        out.append(p)
    return out


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--ks", default=",".join(map(str, K_FULL)))
    r.add_argument("--draws", type=int, default=10)
    r.add_argument("--seeds", type=argparse_seeds(), default=[1, 2, 3, 4, 5], help="comma-separated (default 1,2,3,4,5)")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--rows", default=",".join(SERIES), help="the rows whose series to run")
    r.add_argument("--access-offset", type=int, default=0, metavar="PS",
                   help="draws >= 1 also lengthen each sender's access link by a static U[0, PS) ps, in both (D13)")
    r.add_argument("--out", default=os.path.join(HERE, "out", "aron97-rows"))
    p = sub.add_parser("points")
    p.add_argument("results")
    p.add_argument("--write", metavar="FILE", help="store the points as JSON")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        for name in ("ks",):
            if not all(x.isdigit() and int(x) > 0 for x in getattr(args, name).split(",")):
                ap.error(f"--{name}: {getattr(args, name)!r} is not a comma-separated list of positive integers")
        unknown = [r for r in args.rows.split(",") if r not in SERIES]
        if unknown:
            ap.error(f"--rows: {unknown[0]!r} is not one of {', '.join(SERIES)}")
        for name in ("draws", "jobs"):
            if getattr(args, name) < 1:
                ap.error(f"--{name}: {getattr(args, name)} is not a positive integer")
        if args.access_offset < 0:
            ap.error(f"--access-offset: {args.access_offset} is negative")
        if twin.ns2_binary() is None:
            sys.exit("ns (ns-2) is not on PATH: apt-get install ns2")
        run([int(x) for x in args.ks.split(",")], args.draws, args.seeds, args.jobs,
            args.out, tuple(args.rows.split(",")), args.access_offset)
        args.results = os.path.join(args.out, "results.json")
    elif not os.path.isfile(args.results):
        ap.error(f"results: {args.results!r} is not a file")
    with open(args.results, encoding="utf-8") as f:
        data = json.load(f)
    pts = points(data["rows"])
    if getattr(args, "write", None):
        with open(args.write, "w", encoding="utf-8") as f:
            head = {k: v for k, v in data.items() if k != "rows"}
            f.write(json.dumps(head)[:-1] + ', "points": [\n')
            f.write(",\n".join(json.dumps(p, separators=(",", ":")) for p in pts) + "\n]}\n")
    print("| topo | variant | tick | k | Jain ns-2 (draws) | Jain atmsim (draws) | Jain ns-2 draw 0 | Jain atmsim seeds "
          "| E ns-2 | E atmsim | TO ns-2 | TO atmsim |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in pts:
        print(f"| {p['topology']} | {p['variant']} | {p['tick']} | {p['k']} | {p['ns2_jain'][0]:.3f} | {p['atmsim_jain'][0]:.3f} "
              f"| {p['ns2_draw0_jain']:.3f} | {p['atmsim_seeds_jain']:.3f} | {p['ns2_E'][0]:.3f} | {p['atmsim_E'][0]:.3f} "
              f"| {p['ns2_timeouts'][0]:g} | {p['atmsim_timeouts'][0]:g} |")


if __name__ == "__main__":
    main()
