"""aron97's seed sweeps of fig7 and fig8 (issue 37; the amendment of 2026-11-29): a failing row's test at each
seed 1-10 of its figure's sweep (seeds.SWEEP, not the figure's sample; 1-3 on --quick for fig7's) and as the claim
aggregates it, with its noise (seeds.noise), so that settled.py's `seeds` can read the row's note."""
from __future__ import annotations

import math

from atmsim.claims import frac
from atmsim.reproduce import seeds

from .common import table

# fig8.c3, "little or no change ... with and without AFR" (§5.1.1): |E(x-afr) - E(x)| <= AFR_SAME at a share of
# the points of at least SAME_SHARE.
AFR_SAME = 0.02
SAME_SHARE = 0.8

AFR_VARIANTS = ["lite-afr", "vegas-rm-afr", "vegas-afr"]
C8_SHARE = 0.5  # fig7.c8: "mostly in state 3", read as more time in states 2-3 than in 0-1 for at least half the connections


def double_share(df) -> float:
    """The share of AFR-enabled ATM connections spending more time in AFR states 2-3 than in 0-1, pooled over runs."""
    return float(df["afr_double_conns"].sum() / df["afr_conns"].sum())


def c8_noise(c, sweep) -> str:
    """fig7.c8's pooled share at each seed of the sweep (fig7_seeds.csv) and pooled over the ten, with its noise
    (seeds.noise); "" without a sweep (tests on synthetic data)."""
    if not sweep:
        return ""
    df = table(sweep)
    c.table(df[["network", "variant", "k", "seed", "afr_conns", "afr_double_conns"]], "fig7_seeds")
    per = {int(sd): double_share(d) for sd, d in df.groupby("seed")}
    return " Seed noise (fig7_seeds.csv): " + seeds.noise(
        "the share of AFR-enabled ATM connections mostly in states 2-3", per, double_share(df), (C8_SHARE, math.inf))


def c3_noise(c, sweep) -> str:
    """fig8.c3's three shares (x = lite, vegas-rm, vegas) at each seed of the sweep (fig8_seeds.csv) and as the
    claim aggregates them over its seeds (medians per point), with their noise (seeds.noise). Every test of the row
    is quoted, so that it is settled by seeds only if each holds at ten seeds or lies inside its noise; "" without a
    sweep (tests on synthetic data)."""
    if not sweep:
        return ""
    df = table(sweep)[["network", "variant", "k", "seed", "E"]]
    c.table(df, "fig8_seeds")
    e = df.pivot_table(index=["k", "seed"], columns="variant", values="E")
    med = e.groupby(level="k").median()
    out = []
    for x in ("lite", "vegas-rm", "vegas"):
        same = ((e[f"{x}-afr"] - e[x]).abs() <= AFR_SAME).astype(float)
        out.append(seeds.noise(f"the share of points with |E({x}-afr) - E({x})| <= {AFR_SAME:g}",
                               same.groupby(level="seed").mean().to_dict(),
                               frac((med[f"{x}-afr"] - med[x]).abs() <= AFR_SAME), (SAME_SHARE, math.inf)))
    return " Seed noise (fig8_seeds.csv): " + " ".join(out)
