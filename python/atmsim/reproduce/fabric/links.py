"""C1's per-link load spread: how evenly each network spreads its traffic over its up-links, link by
link (issue 36 asks for the figure a designer looks at beside the busiest-over-mean column of C1.csv).

The fabric's up-links are the FAPs' links to the elements, counted in data cells (the summary's
`fabric.up_link_data_cells`); the fat tree's are its ToR -> aggregation and aggregation -> core ports,
counted in packets (`units_in`). Each is shown over its own network's mean, so that spraying cells
and hashing or spraying packets compare on one axis."""
from __future__ import annotations

import numpy as np
import pandas as pd


def up_link_loads(s: dict) -> np.ndarray:
    """A run's up-link loads, link by link: data cells per FAP up-link, or packets per tree up-link."""
    fab = s.get("fabric")
    if fab:
        return np.asarray(fab["up_link_data_cells"], dtype=float)
    return np.asarray([p["units_in"] for p in s["ports"] if p["name"].startswith(("tor", "agg"))
                       and p["name"].split("->")[1].startswith(("agg", "core"))], dtype=float)


def loads_table(loads: dict) -> pd.DataFrame:
    """One row per (matrix, network, transport, link): the link's load and its load over the mean."""
    frames = [pd.DataFrame({"matrix": m, "network": net, "transport": tp, "link": np.arange(len(v)), "load": v,
                            "load_over_mean": v / v.mean() if v.mean() > 0 else np.nan})
              for (m, net, tp), v in loads.items()]
    return pd.concat(frames, ignore_index=True)


def plot(c, table: pd.DataFrame, matrices, systems, short: dict) -> None:
    """C1_links.png: per matrix, each system's up-links sorted by load over its mean (one colour per
    system, as in C1_slowdown.png)."""
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey=True)
    for ax, m in zip(axes.flat, matrices):
        for (net, tp), d in table[table.matrix == m].groupby(["network", "transport"], sort=False):
            v = np.sort(d.load_over_mean.to_numpy())
            ax.step(np.arange(1, len(v) + 1) / len(v), v, where="post", label=short.get((net, tp), f"{net}, {tp}"),
                    color=f"C{list(systems).index((net, tp))}", linestyle="-" if net == "fabric" else "--")
        ax.axhline(1, color="grey", lw=0.5)
        ax.set_title(m)
        ax.set_xlabel("share of up-links (sorted by load)")
        ax.set_ylabel("load / mean up-link load")
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    save(fig, c.out / "C1_links.png")
