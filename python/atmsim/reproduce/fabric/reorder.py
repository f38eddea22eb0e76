"""F11's reorder-depth figure: what a reassembly buffer must hold, per stream and per cell. The
summary's `fabric.reorder_depth_by_stream` gives each (source FAP, egress port, class) stream's most
cells held at once; `fabric.reorder_depth_at_arrival` the cells a stream holds just after each data
cell's arrival, over every arrival, in fixed bins (exact below 64; docs/fabric.md R8).
Drawn for F11's skew runs and the full-load permutation: F11_streams.csv, F11_depth.csv, F11_depth.png."""
from __future__ import annotations

import numpy as np
import pandas as pd

#: Quantiles of the depth at arrival the table and note give.
QUANTILES = (0.5, 0.99, 0.999)


def streams_table(label: str, fab: dict) -> pd.DataFrame:
    """One row per stream that carried a data cell: its ends, class and the most cells it held."""
    rows = np.asarray(fab["reorder_depth_by_stream"], dtype=np.int64).reshape(-1, 4)
    return pd.DataFrame({"run": label, "src_fap": rows[:, 0], "egress_port": rows[:, 1], "tc": rows[:, 2],
                         "peak_held": rows[:, 3]})


def depth_table(label: str, fab: dict) -> pd.DataFrame:
    """One row per bin that counted an arrival: its depths, arrivals, share and the share at or above it."""
    rows = np.asarray(fab["reorder_depth_at_arrival"], dtype=np.int64).reshape(-1, 3)
    n = rows[:, 2].sum()
    return pd.DataFrame({"run": label, "depth_least": rows[:, 0], "depth_most": rows[:, 1], "arrivals": rows[:, 2],
                         "share": rows[:, 2] / n, "share_at_or_above": rows[::-1, 2].cumsum()[::-1] / n})


def quantile(d: pd.DataFrame, q: float) -> int:
    """The depth at or below which a share q of the arrivals found their stream (a bin's most: exact
    below 64, an upper bound above)."""
    cum = d.arrivals.cumsum().to_numpy()
    return int(d.depth_most.iloc[int(np.searchsorted(cum, q * cum[-1]))])


def quantiles(fab: dict | None) -> dict:
    """The depth at arrival's quantiles of one run's summary, as table columns (NaN without a fabric or
    without data cells): what C1's and C2's tables give beside the largest depth. Above 63 a bin's most
    is only a bound, so a quantile is never given above the run's largest depth."""
    if not fab or not fab.get("reorder_depth_at_arrival"):
        return {f"reorder_depth_p{q * 100:g}": np.nan for q in QUANTILES}
    depth = depth_table("", fab)
    return {f"reorder_depth_p{q * 100:g}": min(quantile(depth, q), fab["reorder_depth_max"]) for q in QUANTILES}


def summary_rows(streams: pd.DataFrame, depth: pd.DataFrame) -> list:
    """Per run: streams, their peak depths, the arrivals, the share after which nothing was held, the
    mean (bins above 63 counted at their middle) and the quantiles."""
    out = []
    for label, d in depth.groupby("run", sort=False):
        s = streams[streams.run == label]
        mean = float((d.arrivals * (d.depth_least + d.depth_most) / 2).sum() / d.arrivals.sum())
        out.append({"run": label, "streams": len(s), "peak_median": float(s.peak_held.median()),
                    "peak_most": int(s.peak_held.max()), "arrivals": int(d.arrivals.sum()),
                    "in_order": float(d[d.depth_most == 0].arrivals.sum() / d.arrivals.sum()), "mean": mean,
                    **{f"p{q * 100:g}": quantile(d, q) for q in QUANTILES}})
    return out


def note(rows: list, png: str) -> str:
    """The figure's numbers, every one from the runs."""
    parts = [f"{r['run']}: {r['streams']} streams, the most cells one held at once {r['peak_most']} (median over streams "
             f"{r['peak_median']:g}); of {r['arrivals']:,} data cells {r['in_order']:.1%} left their stream holding none, "
             + ", ".join(f"the {q:g} quantile {r[f'p{q * 100:g}']}" for q in QUANTILES) + f", mean {r['mean']:.2f} cells"
             for r in rows]
    return f"Reorder depth ({png}; cells held just after each data cell's arrival): " + "; ".join(parts) + "."


def plot(c, streams: pd.DataFrame, depth: pd.DataFrame) -> None:
    """F11_depth.png: left, each stream's most cells held, streams sorted; right, the share of arrivals
    that found their stream holding at least d cells."""
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for i, (label, s) in enumerate(streams.groupby("run", sort=False)):
        v = np.sort(s.peak_held.to_numpy())[::-1]
        left.step(np.arange(len(v) + 1) / len(v), np.append(v, v[-1]), where="post", label=f"{label} ({len(v)} streams)",
                  color=f"C{i}")
    for i, (label, d) in enumerate(depth.groupby("run", sort=False)):
        # Each bin drawn to its end: the last one too.
        x = np.append(d.depth_least.to_numpy(), d.depth_most.iloc[-1] + 1)
        right.step(x, np.append(d.share_at_or_above.to_numpy(), d.share_at_or_above.iloc[-1]), where="post", label=label,
                   color=f"C{i}", zorder=3 - i, lw=2.5 if i == 0 else 1.5)
    right.set_yscale("log")
    for ax, x, y in ((left, "share of streams (sorted by peak)", "most cells held at once (reorder depth)"),
                     (right, "cells held just after a data cell's arrival, d", "share of arrivals at depth >= d")):
        ax.set(xlabel=x, ylabel=y)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, c.out / f"{c.figure}_depth.png")


def figure(c, runs) -> str:
    """Writes F11_streams.csv, F11_depth.csv and F11_depth.png from (label, fabric block) pairs; the note."""
    streams = pd.concat([streams_table(label, fab) for label, fab in runs], ignore_index=True)
    depth = pd.concat([depth_table(label, fab) for label, fab in runs], ignore_index=True)
    # Named after the figure (F11_streams, F11_depth): no file name typed into the note.
    c.table(streams, f"{c.figure}_streams")
    c.table(depth, f"{c.figure}_depth")
    plot(c, streams, depth)
    return note(summary_rows(streams, depth), f"{c.figure}_depth.png")
