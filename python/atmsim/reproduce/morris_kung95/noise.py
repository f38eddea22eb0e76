"""morris-kung95's seed sweeps for the notes of failing rows of Figs. 3 and 4 (issue 37; the amendment of
2026-11-29 asks a comparison in doubt to be judged on at least 10 seeds).

Each sweep reruns the figure's own grid at seeds 1-10 (seeds.sweep_seeds: 1-3 on --quick) and is not the
figure's sample (seeds.SWEEP): a row's note quotes every test of the row at each seed and as the claim aggregates
them (medians over seeds per point, as the figure does), with its noise (seeds.noise), so that settled.py's `seeds`
settles a row only if each test holds at ten seeds or lies inside its noise (the full run only).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from atmsim.reproduce import seeds

from .common import B_FULL, B_QUICK, CELL_PAYLOAD, HEADER, MTU, MTUS, g_max, goodput, pairs
from .pauses import pauses_of

B90_SHARE = 0.9  # fig3's B90: the smallest buffer with goodput / G_max at least this (buffers.GOOD)


def fig3_runs(g) -> list:
    """Fig. 3's tail-drop (host storage) and PPD series, with their warm-up prefixes, at the sweep's seeds."""
    runs = []
    for L in MTUS:
        base = (f"ip.mtu={L}B", f"tcp.mss={L - HEADER}B")
        for b in (B_QUICK if g.quick else B_FULL):
            buf = (f"switch.buffer={b * 1024 // CELL_PAYLOAD}cells",)
            for s in seeds.sweep_seeds(g):
                runs += g.pair("a", base + buf, s, tag=dict(L=L, B_kib=b, series="host storage", seed=s))
                if L == MTU:
                    runs += g.pair("a", base + buf + ("switch.policy=ppd",), s, tag=dict(L=L, B_kib=b, series="PPD", seed=s))
    return runs


def _fig3_table(c, sweep) -> pd.DataFrame:
    df = pd.DataFrame([{**run.tag, "goodput": goodput(r, r0)} for run, r, r0 in pairs(sweep)])
    df["share"] = df.goodput / df.L.map(g_max)
    df.pipe(c.table, "fig3_seeds")
    return df


def _b90(share: pd.Series, L: int, bs: list) -> float:
    ok = [b for b in bs if share[L, b] >= B90_SHARE]
    return float(min(ok)) if ok else math.nan


def _c4_tests(t: pd.DataFrame, bs: list) -> list:
    """fig3.c4's three values on one table of goodputs and shares (index (L, B)): the two B90 steps and the share
    of buffers where MTU 9180 delivers at least as much as 1500."""
    b = {L: _b90(t.share, L, bs) for L in MTUS}
    gp = t.goodput
    return [b[x] - b[y] for x, y in zip(MTUS, MTUS[1:])] + [float(np.mean([gp[9180, x] >= gp[1500, x] for x in bs]))]


def fig3_c4_noise(c, sweep, bs: list) -> str:
    """fig3.c4's tests at each seed of the sweep and over all of them (fig3_seeds.csv)."""
    df = _fig3_table(c, sweep)
    main = df[df.series == "host storage"]
    per = {sd: _c4_tests(g.set_index(["L", "B_kib"]), bs) for sd, g in main.groupby("seed")}
    agg = _c4_tests(main.groupby(["L", "B_kib"])[["goodput", "share"]].median(), bs)
    names = [f"B90({x}) - B90({y}) (KiB)" for x, y in zip(MTUS, MTUS[1:])] + ["the share of B with goodput(9180) >= goodput(1500)"]
    bands = [(0.0, math.inf)] * 2 + [(0.8, math.inf)]
    return " Seed noise (fig3_seeds.csv): " + " ".join(
        seeds.noise(n, {sd: v[i] for sd, v in per.items()}, agg[i], band) for i, (n, band) in enumerate(zip(names, bands)))


def fig3_c6_noise(c, sweep, small: list, gain_top: float, top_top: float) -> str:
    """fig3.c6's two tests (the largest PPD gain over tail drop and the largest PPD goodput, over G_max, MTU 9180,
    B in `small`) at each seed of the sweep and over all of them (fig3_seeds.csv, written by fig3_c4_noise)."""
    df = pd.DataFrame([{**run.tag, "share": goodput(r, r0) / g_max(run.tag["L"])} for run, r, r0 in pairs(sweep)])
    d = df[(df.L == 9180) & df.B_kib.isin(small)]

    def tests(t: pd.DataFrame) -> tuple:
        s = t.set_index(["series", "B_kib"]).share
        return max(s["PPD", x] - s["host storage", x] for x in small), max(s["PPD", x] for x in small)

    per = {sd: tests(g) for sd, g in d.groupby("seed")}
    agg = tests(d.groupby(["series", "B_kib"]).share.median().reset_index())
    return " Seed noise (fig3_seeds.csv): " + " ".join([
        seeds.noise("the largest (goodput(PPD) - goodput(tail)) / G_max", {sd: v[0] for sd, v in per.items()}, agg[0],
                    (-math.inf, gain_top)),
        seeds.noise("the largest goodput(PPD) / G_max", {sd: v[1] for sd, v in per.items()}, agg[1], (-math.inf, top_top))])


#: Fig. 4's sweep on the full grid. Its two claims pool over seeds what only some seeds show: c2 a long pause after
#: a timeout whose retransmission was itself lost, c1 a run whose pauses stop alternating short and long. At seeds
#: 1-10 every seed gave four short and four long pauses (an even split, whose median is the midpoint between the two
#: kinds, and a per-seed spread of zero, which measures no noise); atmsim's first seeds that do not alternate came
#: after seed 10 (validation/cellsim's, which draws other timer phases, within its first ten). So this sweep takes 40
#: seeds, a number chosen after the ten-seed sweep had been seen, as docs/morris-kung95.md §3 says: 40 traced 20-s
#: runs, about half a minute on two workers.
FIG4_SWEEP_SEEDS = tuple(range(1, 41))


def fig4_runs(g) -> list:
    """Fig. 4's traced run (config (a), 32 KiB per-VC buffer) at the sweep's seeds; only its events are read."""
    return [g.run("a", (), s, True) for s in (seeds.QUICK_SWEEP_SEEDS if g.quick else FIG4_SWEEP_SEEDS)]


def fig4_noise(c, sweep) -> tuple[str, str]:
    """The notes' seed noise of fig4.c1 and fig4.c2, from the sweep's runs (fig4_seeds.csv): c1's median pause per
    seed and pooled over the seeds, as the row pools its seeds; c2's count, pauses > 2 s after a timeout whose
    retransmission was itself lost, per seed and pooled."""
    rows, pooled = [], []
    for run, result in sweep:
        got = pauses_of(run, result)
        pooled += got["pauses"]
        rows.append({"seed": run.seed, "pauses": len(got["pauses"]),
                     "median_pause_s": float(np.median(got["pauses"])) if got["pauses"] else math.nan,
                     "pauses_over_2s": got["long"], "after_lost_retransmission": got["after_lost"],
                     "between_two_timeouts": got["between"]})
    df = pd.DataFrame(rows)
    df.pipe(c.table, "fig4_seeds")
    medians = df.set_index("seed").median_pause_s.dropna()
    short, long_ = sum(p <= 1.5 for p in pooled), sum(p > 2 for p in pooled)
    c1 = (f" Seed noise (fig4_seeds.csv): over the {len(df)} seeds, {len(pooled)} pauses, {short} of at most 1.5 s and "
          f"{long_} over 2 s. " + seeds.noise("the median pause (s)", medians.to_dict(),
                                              float(np.median(pooled)) if pooled else math.nan, (1.0, 2.0)))
    per = df.set_index("seed").after_lost_retransmission
    c2 = (f" Seed noise (fig4_seeds.csv): over the {len(df)} seeds, {int(df.pauses_over_2s.sum())} pauses > 2 s, "
          f"{int(per.sum())} of them after a timeout whose retransmission was lost. "
          + seeds.noise("the count of such pauses", per.to_dict(), float(per.sum()), (1.0, math.inf)))
    return c1, c2
