"""aron97: the measured mechanisms written into the notes of failing claims.

Each function here returns the text of one claim's `deviation` (written
only when the claim fails, harness.Ctx.claim), computed from the figure's
own runs, so the numbers cannot go stale. Where a mechanism comes from a
separate probe (fairness-anatomy, vegas-anatomy), the figure declares the
probe's runs beside its own and the text is measured on them
(probe_notes.py).

Besides the run table's columns (common.row), the notes use two measures
of the bottleneck taken from the run summaries (`link_use`), not written to
the csv files: `link_idle`, the share of the run the bottleneck link sent
nothing (1 - its busy fraction), and `link_waste`, the share it spent on
units that delivered nothing new (busy fraction - E: dead cells, copies of
retransmitted segments, frames lost downstream). Since E is normalised by
the payload the link could carry on its network, 1 - E = link_idle +
link_waste exactly.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.claims import above, at_least, check, plain
from atmsim.reproduce.harness import summary_of

from .common import LINK_RATE, SEG

def rng(values, digits: int = 3) -> str:
    """'a-b' (or 'a' when equal) over the finite values, rounded."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], float)
    if not len(v):
        return "n/a"
    lo, hi = v.min(), v.max()
    f = (lambda x: f"{x:.0f}") if digits == 0 else (lambda x: f"{x:.{digits}f}")
    return f(lo) if f(lo) == f(hi) else f"{f(lo)}-{f(hi)}"


def link_use(runs) -> pd.DataFrame:
    """link_idle and link_waste of each run (rows in the order of common.table(runs))."""
    rows = []
    for _, r in runs:
        s = summary_of(r)
        bn = next((p for p in s["ports"] if p["name"] == s["bottleneck"]), None)
        busy = bn["busy_fraction"] if bn else float("nan")
        rows.append({"link_idle": 1 - busy, "link_waste": busy - s["effective_throughput"]})
    return pd.DataFrame(rows)


FLOW_KEYS = ["topology", "network", "variant", "tick", "k", "seed"]


def flow_table(runs) -> pd.DataFrame:
    """One row per flow and run: the run's keys, the flow's share of the run's bytes and its coarse timeouts."""
    rows = []
    for sp, r in runs:
        s = summary_of(r)
        tot = sum(f["bytes_delivered"] for f in s["flows"]) or 1
        for i, f in enumerate(s["flows"]):
            rows.append({"topology": sp.topo, "network": sp.net, "variant": sp.variant, "tick": sp.tick, "k": sp.k,
                         "seed": sp.seed, "flow": i + 1, "share": f["bytes_delivered"] / tot, "timeouts": f["timeouts"]})
    return pd.DataFrame(rows)


def with_link(df: pd.DataFrame, runs) -> pd.DataFrame:
    """The run table with link_idle and link_waste (for the notes; the written csv stays as it is)."""
    return pd.concat([df.reset_index(drop=True), link_use(runs)], axis=1)


def _at(pts: pd.DataFrame, col: str, **sel) -> pd.Series:
    m = np.ones(len(pts), bool)
    for k, v in sel.items():
        m &= pts[k].to_numpy() == v
    return pts[m].set_index("k")[col].sort_index() if col in pts else pd.Series(dtype=float)


def idle_split(pts: pd.DataFrame, a: dict, b: dict, la: str, lb: str) -> str:
    """'1 - E = idle + waste' for two series of a medians table (selections a and b), and the share
    of the E difference the idle link accounts for (median over the common points)."""
    if "link_idle" not in pts:
        return ""
    ia, ib = _at(pts, "link_idle", **a), _at(pts, "link_idle", **b)
    wa, wb = _at(pts, "link_waste", **a), _at(pts, "link_waste", **b)
    ea, eb = _at(pts, "E", **a), _at(pts, "E", **b)
    d = (eb - ea).dropna()
    share = ((ia - ib) / d)[d.abs() > 0.02].dropna()
    tail = (f"; the difference in idle time is a median {share.median():.0%} of E({lb}) - E({la}) over the "
            f"points where they differ by more than 0.02") if len(share) else ""
    return (f"1 - E splits into the bottleneck's idle time and its wasted transmissions: {la} idle {rng(ia)}, "
            f"waste {rng(wa)}; {lb} idle {rng(ib)}, waste {rng(wb)}{tail}.")


def timeouts_by_point(pts: pd.DataFrame, **sel) -> str:
    return rng(_at(pts, "timeouts", **sel), 0)


def points(s: pd.Series, fmt="{:.3f}") -> str:
    """'k=3: 0.123, k=9: ...' for a series indexed by k."""
    return ", ".join(f"k={k}: {fmt.format(v)}" for k, v in s.items())


def fairness_mechanism(runs_df: pd.DataFrame, pts: pd.DataFrame, floor: np.ndarray, cites: tuple = (),
                       flows: pd.DataFrame | None = None) -> str:
    """The note of a failing .fair row: which points fail and by how much, Jain's index of the runs by
    their coarse timeouts (per tick), a flow's share by its own timeouts (`flows`, flow_table, restricted
    to the runs of runs_df), and the probes' mechanism."""
    below = pts[pts["fairness"] < floor].copy()
    by = [c for c in ["topology", "network", "variant", "tick", "k"] if c in pts]
    parts = []
    if len(below):
        below["_r"] = below["fairness"] / floor[pts["fairness"] < floor]
        worst = below.sort_values("_r").head(3)
        to = runs_df.groupby(by)["timeouts"].median() if "timeouts" in runs_df else None
        desc = []
        for _, w in worst.iterrows():
            key = tuple(w[c] for c in by)
            lab = "/".join(str(w[c]) for c in by if c not in ("k",) and runs_df[c].nunique() > 1)
            t = f", {to.loc[key]:.0f} timeouts per run" if to is not None else ""
            desc.append(f"{lab + ' ' if lab else ''}k={w['k']}: {w['fairness']:.3f}{t}")
        parts.append(f"{len(below)} of {len(pts)} points are below their floor (worst: {'; '.join(desc)}).")
    if "timeouts" in runs_df and len(runs_df):
        bins = [(0, 2), (3, 9), (10, 10 ** 6)]
        ticks = sorted(runs_df["tick"].unique()) if "tick" in runs_df else [None]
        for tick in ticks:
            d = runs_df if tick is None else runs_df[runs_df["tick"] == tick]
            cells = []
            for lo, hi in bins:
                x = d[(d["timeouts"] >= lo) & (d["timeouts"] <= hi)]["fairness"]
                if len(x):
                    cells.append(f"{lo}-{hi} timeouts: {x.median():.3f} ({len(x)} runs)" if hi < 10 ** 6
                                 else f">= {lo}: {x.median():.3f} ({len(x)} runs)")
            tl = f" with the {tick} tick" if tick is not None and len(ticks) > 1 else ""
            parts.append(f"Median Jain index of the runs{tl} by their coarse timeouts (8 senders): {'; '.join(cells)}"
                         f"; fewest timeouts in a run: {d['timeouts'].min():.0f}.")
    if flows is not None and len(flows) and all(c in runs_df for c in FLOW_KEYS):
        f = flows.merge(runs_df[FLOW_KEYS].drop_duplicates(), on=FLOW_KEYS)
        cells = []
        for lab, m in (("0", f.timeouts == 0), ("1-2", f.timeouts.between(1, 2)), (">= 3", f.timeouts >= 3)):
            if m.any():
                cells.append(f"{lab}: {f[m].share.median():.3f} ({int(m.sum())} flows)")
        if cells:
            r = f.share.corr(f.timeouts) if f.timeouts.nunique() > 1 else float("nan")
            parts.append(f"A flow's share of its run's bytes by its own coarse timeouts (fair share 0.125): "
                         f"{'; '.join(cells)}; r = {r:.2f}.")
    return " ".join(parts + list(cites))


def bdp_segments(rtt_s: float = 0.060) -> float:
    """The bottleneck's bandwidth-delay product in 9168-byte packets (packet network, 60 ms RTT)."""
    return LINK_RATE * rtt_s / 8 / SEG


# The fairness band of §3's last paragraph ("all results reported in this paper have a fairness of at least
# 0.79 for topology 1 and 0.70 for topology 2 ... Most ... above 0.95"): the floor per topology, the level
# "most" points reach, and the share that "most" means. tests/test_settled.py judges ns-2's points by them.
FAIR_FLOOR = {1: 0.79, 2: 0.70}
FAIR_HIGH = 0.95
FAIR_MOST = 0.5


def fairness_claim(c, runs_df: pd.DataFrame, cites: tuple = (), flows: pd.DataFrame | None = None) -> None:
    """aron97.fig3.fair and its copies (fig6, fig7, fig8, fig12), over all of the figure's runs:
    median-over-seeds JFI per point >= 0.79 (topology 1) / 0.70 (topology 2) everywhere, and >= 0.95
    at more than half of all points (§3 last ¶: "all results reported in this paper have a fairness
    of at least 0.79 ... 0.70"). A point is one (topology, network, variant, tick, k)."""
    by = [c for c in ["topology", "network", "variant", "tick", "k"] if c in runs_df]
    pts = runs_df.groupby(by)["fairness"].median().reset_index()
    statement = "fairness (Jain) of every reported result >= 0.79 (topology 1) / 0.70 (topology 2); most above 0.95"
    pv = ">= 0.79 / 0.70, most > 0.95 (§3 last ¶)"
    rule = "median-over-seeds JFI per point of all the figure's runs"
    if pts.empty:
        c.claim("fair", statement=statement, kind="value", paper_value=pv, ours=None,
                holds=check(("points", 0, at_least(1))), rule=rule, note="no points")
        return
    floor = np.where(pts["topology"] == 1, FAIR_FLOOR[1], FAIR_FLOOR[2])
    # Each point against its own floor, so one band judges both topologies.
    above_floor = pts["fairness"] / floor
    share95 = float((pts["fairness"] >= FAIR_HIGH).mean())
    worst = pts.loc[above_floor.idxmin()]
    c.claim("fair", statement=statement, kind="value", paper_value=pv,
            ours={"min": float(pts["fairness"].min()), "share_ge_0.95": share95,
                  "points_below_floor": int((above_floor < 1).sum()), "points": len(pts)},
            holds=check(("min over points of JFI / its floor (0.79 topology 1, 0.70 topology 2)", float(above_floor.min()), at_least(1)),
                        ("share of points with JFI >= 0.95", share95, above(FAIR_MOST))),
            rule=rule, note=f"worst point: {plain({k: worst[k] for k in by})}, JFI {float(worst['fairness']):.3f}",
            deviation=fairness_mechanism(runs_df, pts, floor, cites, flows))
