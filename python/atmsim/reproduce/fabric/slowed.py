"""C2: one slowed fabric link beside NDP Fig. 22's slowed core link (docs/fabric.md, "A slowed
link"). Both cut one link direction to a tenth of its rate under a permutation at full load:
NDP's core0 -> agg0 (10 -> 1 Gb/s) on the 128-host k = 8 tree (the ndp17 reproduction's own
Fig. 22 runs, both path strategies, reused as they are), and FAP 0's first link up (106.25 ->
10.625 Gb/s) in `fabric-perm` (64 hosts at 400 Gb/s, UDP at the NIC rate). Beside them each
permutation with no link slowed (what the change costs is measured against it), and the fabric's
with the link down instead (detected after 1 µs), which the sprayers then leave out: a designer's
remedy when spraying ignores load.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.claims import check, within
from atmsim.reproduce.harness import Run, figure, summary_of

from . import reorder
from .common import LINK_BPS, LINKS, MTU, PERM, PORT_BPS, efficiency

SLOW_BPS = float(LINK_BPS) / 10
#: The slowing starts at 20 µs; rates are read over [80, 150] µs, after the VOQs have settled.
WINDOW = ("duration=150us", "measure.from=80us", "measure.to=150us")
CHANGES = {
    "none": (),
    "slowed to a tenth": (f'fabric.fail=[{{link = "fap0.l0", at = "20us", rate = "{SLOW_BPS / 1e9:g}Gbps", dir = "up"}}]',),
    "down, detected after 1 µs": ('fabric.fail=[{link = "fap0.l0", at = "20us", rate = "0", dir = "up"}]', "fabric.reach.detect=1us"),
}
FAPS, NDP_LINE_PAYLOAD = 16, 10e9 * 9000 / 9064
#: NDP's k = 8 tree: 16 cores, each with one link down to each of the 8 pods.
NDP_CORE_DOWN_LINKS = 16 * 8


def _ndp_runs(quick: bool) -> list:
    """ndp17's Fig. 22 runs as they are (both strategies), and the "perm" one with no link slowed."""
    from atmsim.reproduce import ndp17

    fig22 = ndp17.PAPER.figure("fig22").runs(ndp17.grid(quick))
    perm = next(r for r in fig22 if r.tag == "perm")
    return [Run(r.scenario, r.overrides, r.seed, r.trace, tag=("ndp", r.tag)) for r in fig22] + \
        [Run(perm.scenario, (*perm.overrides, "topology.port_rate=[]"), perm.seed, perm.trace, tag=("ndp", "none"))]


def _runs(g) -> list:
    return [Run(PERM, (*WINDOW, *sets), tag=("fabric", change)) for change, sets in CHANGES.items()] + _ndp_runs(g.quick)


def _row(net: str, change: str, s: dict) -> tuple:
    rates = np.array([f["goodput_bps"] for f in s["flows"]])
    line = PORT_BPS * (MTU - 28) / MTU if net == "fabric" else NDP_LINE_PAYLOAD
    share = np.sort(rates / line)
    fab = s.get("fabric")
    links, removed = (FAPS * LINKS, 0.9 if "slowed" in change else 1.0) if net == "fabric" else (NDP_CORE_DOWN_LINKS, 0.9)
    name = (f"fabric-perm, FAP 0's link 0 up: {change}" if net == "fabric" else
            "NDP Fig. 22's permutation, no link slowed (ndp.paths = \"perm\")" if change == "none" else
            f"NDP Fig. 22 (ndp.paths = \"{change}\"), core0 -> agg0 at a tenth")
    return {"run": name, "network": net, "flows": len(rates), "line_gbps": line / 1e9,
            "mean_share": float(share.mean()), "p10_share": float(np.percentile(share, 10)), "min_share": float(share[0]),
            "flows_below_90pct": int((share < 0.9).sum()),
            "capacity_removed_share": removed / links if change != "none" else 0.0,
            "below_line_share": float(1 - share.mean()),
            "reorder_depth_cells": fab["reorder_depth_max"] if fab else np.nan, **reorder.quantiles(fab),
            "cells_lost": sum(fab["cells_lost"].values()) if fab else np.nan}, share


def fap0_ip_gbps(s: dict) -> float:
    """FAP 0's hosts' (h0-h3) packets out, in IP bytes per second."""
    return sum(f["goodput_bps"] for f in s["flows"] if int(f["name"][1:]) < 4) * MTU / (MTU - 28) / 1e9


@figure("C2", runs=_runs)
def c2(c, runs):
    """A slowed fabric link against NDP Fig. 22's slowed core link: every flow's rate over its line's."""
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    rows, fig = [], plt.subplots(figsize=(7, 4))
    _, ax = fig
    slowed = None
    for run, r in runs:
        net, change = run.tag
        s = summary_of(r)
        row, share = _row(net, change, s)
        rows.append(row)
        ax.plot(np.arange(len(share)) / (len(share) - 1), share, label=row["run"], linestyle="-" if net == "fabric" else "--")
        if change == "slowed to a tenth":
            slowed = s
    df = pd.DataFrame(rows)
    # What the change cost: the network's mean share with no link slowed, less the run's.
    base = {net: g.mean_share[g.capacity_removed_share == 0].iloc[0] for net, g in df.groupby("network")}
    df["lost_to_the_change"] = [base[r.network] - r.mean_share for r in df.itertuples()]
    c.write("C2", df)
    ax.set_xlabel("flows, sorted by rate (share of the flows)")
    ax.set_ylabel("rate / line payload rate")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
    save(fig[0], c.out / "C2.png")
    # Round-robin spraying gives every one of FAP 0's n links 1/n of its cells, so the slowed link
    # paces them all: the FAP sends at most n·r_slow·E(L) (its control cells take a little more).
    closed = LINKS * SLOW_BPS * efficiency(MTU) / 1e9
    got = fap0_ip_gbps(slowed)
    c.claim("c1", statement="with oblivious round-robin spraying a link slowed to r_slow caps its FAP at n·r_slow·E(L)",
            kind="analytic", paper_value=f"{closed:,.1f} Gb/s ±2 % (n = {LINKS}, r_slow = {SLOW_BPS / 1e9:g} Gb/s, E(4,150))",
            ours=got, holds=check(("FAP 0's IP rate / n·r_slow·E", got / closed, within(0.98, 1.02))),
            rule="over [80, 150] µs, the link slowed at 20 µs; depends on fabric.spray (round robin) and the share of control "
            "cells on the FAP's links",
            deviation=(f"FAP 0 sends {got:,.1f} Gb/s against {closed:,.1f}: as if the slowed link carried one "
                       f"{LINKS * got / closed:.1f}th of its data cells rather than one {LINKS}th; round robin takes control "
                       "cells in the same rotation, and where they fall decides which link the data crowds (docs/fabric.md "
                       "R9; fabric.spray = \"least-loaded\" takes the phase out)"),
            note=_note(df))


def _note(df) -> str:
    """What each network lost to its slowed link, against the capacity it removed."""
    fab = df[df.network == "fabric"].set_index("run")
    slowed = fab[fab.index.str.endswith("slowed to a tenth")].iloc[0]
    down = fab[fab.index.str.contains("down")].iloc[0]
    ndp = df[(df.network == "ndp") & (df.capacity_removed_share > 0)]
    q = reorder.QUANTILES[1]
    return (f"The fabric loses {slowed.lost_to_the_change:.2%} of its permutation's throughput to a link slowed to a tenth "
            f"({slowed.capacity_removed_share:.2%} of its up-link capacity): the slowed FAP's {slowed.flows_below_90pct} flows get "
            f"{slowed.min_share:.1%} of the line, and its reassembly holds up to {slowed.reorder_depth_cells:,.0f} cells (the {q:g} quantile "
            f"of what a stream holds at a data cell's arrival: {getattr(slowed, f'reorder_depth_p{q * 100:g}'):,.0f}). With the "
            f"link down instead it loses {down.lost_to_the_change:.2%}. NDP loses "
            + " and ".join(f"{r.lost_to_the_change:.2%} ({r.run.split('(')[1].split(')')[0]}; slowest flow {r.min_share:.1%} of the "
                           f"line)" for r in ndp.itertuples())
            + f" for {ndp.capacity_removed_share.iloc[0]:.2%} of its core-to-aggregation capacity.")
