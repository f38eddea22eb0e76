"""Handley, Raiciu, Agache, Voinescu, Moore, Antichi & Wójcik, "Re-architecting datacenter networks
and stacks for low latency and high performance" (SIGCOMM 2017): NDP, Figures 21 and 22 as htsim
runs them (sim/EXAMPLES/in_and_out, sim/EXAMPLES/failure at Broadcom/csg-htsim 841d9e7), on
atmsim's fat tree, trimming switches and NDP (docs/fabrics.md).

htsim at that commit does not reproduce its own shipped `.rates` files, so the claims check the
closed forms and fresh htsim runs at that commit (stored in htsim_841d9e7.json, made from
validation/htsim/htsim_reference.json), never the shipped files. Claim IDs ndp17.FIGURE.cN.

- fig21 ("in & out"): host A = h0 sends to h124..h127, F = h2 sends to h127. Closed form: A's
  uplink carries 10 Gb/s × 9,000/9,064 = 9.9294 Gb/s of payload, a quarter per flow (2.4823), and
  E's downlink is saturated, so F -> E = 3 × 2.4823 = 7.4470 Gb/s.
- fig22 (failure): a permutation of 128 flows (htsim's own, drawn with srand(13)) with the direction
  core0 -> agg0 at 1 Gb/s, strategies "perm" and "pull"; each compared with a fresh htsim run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Paper, Run, figure, summary_of

ID = "ndp17"
HTSIM = json.loads((Path(__file__).parent / "htsim_841d9e7.json").read_text(encoding="utf-8"))

LINE_GBPS = 10.0
MSS, HEADER = 9000, 64
#: A's uplink's payload rate, split over A's four flows (N1, N6, N9-N10).
A_FLOW_GBPS = LINE_GBPS * MSS / (MSS + HEADER) / 4
F_E_GBPS = 3 * A_FLOW_GBPS
STRATEGIES = ("perm", "pull")


@dataclass(frozen=True)
class Grid:
    """Fig. 21 runs 0.2 s as htsim's sample at 0.2 s reads it; Fig. 22 runs 0.2 s (--quick: 40 ms,
    rates over [20 ms, 40 ms], which the claims then compare with htsim's 0.2-s rates)."""

    quick: bool
    fig22: tuple  # (duration, measure.from, measure.to)


def grid(quick: bool, duration: Optional[str] = None) -> Grid:
    if duration:
        return Grid(quick, (duration, "0s", duration))
    return Grid(quick, ("40ms", "20ms", "40ms") if quick else ("0.2s", "0.1s", "0.2s"))


def _fig21_runs(g: Grid) -> list:
    return [Run("ndp-in-out")]


@figure("fig21", runs=_fig21_runs)
def fig21(c, runs):
    """Each flow's rate over [0.1 s, 0.2 s] beside the closed form and htsim's; the two saturated lines."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from atmsim.plotting import save

    (_, result), = runs
    s = summary_of(result)
    rate = {f["name"]: f["goodput_bps"] / 1e9 for f in s["flows"]}
    closed = {n: (F_E_GBPS if n == "F-E" else A_FLOW_GBPS) for n in rate}
    df = pd.DataFrame([{"flow": n, "ours_gbps": rate[n], "closed_form_gbps": closed[n], "htsim_gbps": HTSIM["fig21_gbps"][n]}
                       for n in rate])
    c.write("fig21", df)
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    x = range(len(df))
    ax.bar([i - 0.2 for i in x], df.ours_gbps, 0.4, label="atmsim", color="0.3")
    ax.bar([i + 0.2 for i in x], df.htsim_gbps, 0.4, label="htsim 841d9e7", color="0.7")
    ax.scatter(list(x), df.closed_form_gbps, marker="_", s=400, color="k", label="closed form", zorder=3)
    ax.set_xticks(list(x), df.flow)
    ax.set_ylabel("rate over [0.1 s, 0.2 s] (Gb/s)")
    ax.legend(fontsize=8)
    save(fig, c.out / "fig21.png")
    a = [rate[n] for n in ("A-B", "A-C", "A-D", "A-E")]
    c.claim("c1", statement="A's four flows share A's uplink equally, A -> E included", kind="value",
            paper_value=f"{A_FLOW_GBPS:.4f} Gb/s each ±1 % (closed form; Fig. 21)", ours=a,
            holds=check(*((f"{n} rate / closed form", rate[n] / A_FLOW_GBPS, within(0.99, 1.01))
                          for n in ("A-B", "A-C", "A-D", "A-E"))), rule="")
    c.claim("c2", statement="F -> E takes the rest of E's downlink", kind="value",
            paper_value=f"{F_E_GBPS:.4f} Gb/s ±1 % (closed form)", ours=rate["F-E"],
            holds=check(("F-E rate / closed form", rate["F-E"] / F_E_GBPS, within(0.99, 1.01))), rule="")
    # Busy over [10 ms, T] is at least (busy over [0, T] - 10 ms) / (T - 10 ms).
    t = s["end_time_s"]
    busy = {p["name"]: p["busy_fraction"] for p in s["ports"]}
    after = {k: (busy[k] * t - 0.01) / (t - 0.01) for k in ("h0->tor0", "tor31->h127")}
    c.claim("c3", statement="A's uplink and E's downlink are busy after 10 ms", kind="value",
            paper_value=">= 99 % busy after 10 ms", ours=after,
            holds=check(*((f"{k} busy after 10 ms (a lower bound)", v, at_least(0.99)) for k, v in after.items())), rule="")
    c.claim("c4", statement="every flow's rate within ±1 % of a fresh htsim run's", kind="value",
            paper_value="htsim 841d9e7: " + ", ".join(f"{n} {v:.5f}" for n, v in HTSIM["fig21_gbps"].items()), ours=rate,
            holds=check(*((f"{n} / htsim", rate[n] / HTSIM["fig21_gbps"][n], within(0.99, 1.01)) for n in rate)), rule="")


def _fig22_runs(g: Grid) -> list:
    d, lo, hi = g.fig22
    return [Run("ndp-failure", (f"duration={d}", f"measure.from={lo}", f"measure.to={hi}", f'ndp.paths="{st}"'), tag=st)
            for st in STRATEGIES]


def ks_distance(a: list, b: list) -> float:
    """Two-sample Kolmogorov-Smirnov distance: the largest gap between the two empirical CDFs."""
    import numpy as np

    a, b = np.sort(a), np.sort(b)
    xs = np.concatenate([a, b])
    return float(np.max(np.abs(np.searchsorted(a, xs, side="right") / len(a) - np.searchsorted(b, xs, side="right") / len(b))))


@figure("fig22", runs=_fig22_runs)
def fig22(c, runs):
    """The 128 flows' rates, sorted, per strategy beside htsim's: mean, 10th percentile, minimum, KS distance."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from atmsim.plotting import save

    rows, stats = [], {}
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    for run, result in runs:
        st = run.tag
        s = summary_of(result)
        ours = {f["name"]: f["goodput_bps"] / 1e9 for f in s["flows"]}
        ref = HTSIM["fig22_gbps"][st]
        for name, r in ours.items():
            rows.append({"strategy": st, "flow": name, "ours_gbps": r, "htsim_gbps": ref[name],
                         "trimmed": next(f["ndp"]["trimmed"] for f in s["flows"] if f["name"] == name)})
        o, h = np.sort(list(ours.values())), np.sort(list(ref.values()))
        stats[st] = {"mean": float(o.mean()), "p10": float(np.percentile(o, 10)), "min": float(o[0]),
                     "htsim_mean": float(h.mean()), "htsim_p10": float(np.percentile(h, 10)), "htsim_min": float(h[0]),
                     "ks": ks_distance(o, h)}
        ax.plot(range(len(o)), o, label=f"atmsim {st}")
        ax.plot(range(len(h)), h, linestyle=":", label=f"htsim {st}")
    df = pd.DataFrame(rows)
    c.write("fig22", pd.DataFrame([{"strategy": k, **v} for k, v in stats.items()]), df)
    ax.set_xlabel("flow (sorted by rate)")
    ax.set_ylabel("rate (Gb/s)")
    ax.legend(fontsize=8)
    save(fig, c.out / "fig22.png")
    for i, st in enumerate(STRATEGIES):
        v = stats[st]
        n = 4 * i
        c.claim(f"c{n + 1}", statement=f"\"{st}\": the mean rate of the 128 flows", kind="value",
                paper_value=f"htsim {v['htsim_mean']:.3f} Gb/s ±2 %", ours=v["mean"],
                holds=check(("mean / htsim's", v["mean"] / v["htsim_mean"], within(0.98, 1.02))), rule="")
        c.claim(f"c{n + 2}", statement=f"\"{st}\": the 10th percentile of the flows' rates", kind="value",
                paper_value=f"htsim {v['htsim_p10']:.3f} Gb/s ±5 %", ours=v["p10"],
                holds=check(("p10 / htsim's", v["p10"] / v["htsim_p10"], within(0.95, 1.05))), rule="")
        c.claim(f"c{n + 3}", statement=f"\"{st}\": the distribution of the flows' rates", kind="value",
                paper_value="two-sample KS distance to htsim's <= 0.25", ours=v["ks"],
                holds=check(("KS distance", v["ks"], at_most(0.25))), rule="")
        c.claim(f"c{n + 4}", statement=f"\"{st}\": no flow starved", kind="value",
                paper_value=f"no flow below 0.5 × htsim's minimum ({v['htsim_min']:.3f} Gb/s)", ours=v["min"],
                holds=check(("slowest flow / htsim's slowest", v["min"] / v["htsim_min"], at_least(0.5))), rule="")


PAPER = Paper(ID, (fig21, fig22), grid, test_options=("duration",))
