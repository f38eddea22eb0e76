"""What eqds22's figures share: htsim's numbers, the grid, a run's table, plot and common claims."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import summary_of

_SHIPPED = json.loads((Path(__file__).parent / "htsim_841d9e7.json").read_text(encoding="utf-8"))
HTSIM = _SHIPPED["runs"]
#: htsim's one-entropy permutations at -seed 1..10 (validation/htsim/run.py --seed-sweep): {run: {seed: numbers}}.
HTSIM_SEEDS = {name: {int(k): v for k, v in sweep.items()} for name, sweep in _SHIPPED["seed_sweeps"].items()}
#: One 2,000,000-B flow on the wire (E1), and its time at 100 Gb/s: no flow can finish sooner.
WIRE_BYTES = 2_031_360
LINE_BOUND_US = WIRE_BYTES * 8 / 100e9 * 1e6


@dataclass(frozen=True)
class Grid:
    """The runs on 16 and 128 hosts take a fraction of a second each: --quick runs them all as
    well. The two 1,024-host permutations take seconds (128 entropies) and tens of seconds (one):
    --quick runs the first, and only builds the second (`duration=1ns`), whose claims it writes as
    not run."""

    quick: bool


def grid(quick: bool) -> Grid:
    return Grid(quick)


def fcts_us(s: dict) -> list:
    return [f["completion_time_s"] * 1e6 for f in s["flows"] if f["completion_time_s"] is not None]


def table(c, name: str, s: dict, ref: dict, median: bool = False) -> dict:
    """The run's row beside htsim's (`name`.csv; with `median`, the medians too) and its flows
    (`name`_runs.csv); returns the row, which always has the median."""
    import pandas as pd

    fcts = fcts_us(s)
    row = {"run": name, "flows": len(s["flows"]), "completed": len(fcts), "tail_us": max(fcts, default=None),
           "min_us": min(fcts, default=None), "mean_us": sum(fcts) / len(fcts) if fcts else None,
           "retransmissions": sum(f["segments_retransmitted"] for f in s["flows"]),
           "htsim_tail_us": ref["tail_us"], "htsim_min_us": ref["min_us"],
           "htsim_mean_us": ref["mean_us"], "htsim_retransmissions": ref["retransmissions"]}
    medians = {"median_us": statistics.median(fcts) if fcts else None, "htsim_median_us": ref["median_us"]}
    if median:
        row.update(medians)
    c.write(name, pd.DataFrame([row]), pd.DataFrame([{"flow": f["name"], "fct_us": f["completion_time_s"] * 1e6,
                                                       "fct_slowdown": f.get("fct_slowdown"),
                                                       "retransmitted": f["segments_retransmitted"]}
                                                      for f in s["flows"] if f["completion_time_s"] is not None]))
    return {**row, **medians}


def plot(c, name: str, s: dict, ref_tail: float):
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fcts = sorted(fcts_us(s))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(range(1, len(fcts) + 1), fcts, marker="." if len(fcts) < 200 else None, color="0.3", label="atmsim")
    ax.axhline(ref_tail, color="0.6", linestyle=":", label="htsim's tail")
    ax.set_xlabel("flow (sorted by FCT)")
    ax.set_ylabel("FCT (µs)")
    ax.legend(fontsize=8)
    save(fig, c.out / f"{name}.png")


def one_run(c, runs, name: str, ref_name: str, median: bool = False) -> tuple:
    """The figure's one run: its summary, htsim's numbers, and the row its table wrote."""
    (_, result), = runs
    s = summary_of(result)
    ref = HTSIM[ref_name]
    row = table(c, name, s, ref, median)
    plot(c, name, s, ref["tail_us"])
    return s, ref, row


# The claims below take `note`: a run --quick leaves out writes its claims failing, with no value and
# the note saying so (its values None fail every band).


def every_flow_completes(c, cid: str, row: dict, note: str = ""):
    c.claim(cid, statement="every flow completes", kind="value", paper_value="validate.txt: all flows finished",
            ours=row["completed"], holds=check(("flows completed / flows", row["completed"] / row["flows"], at_least(1.0))), rule="",
            note=note)


def tail_target(c, cid: str, what: str, tail, target_us: float, note: str = ""):
    c.claim(cid, statement=f"the {what} meets validate.txt's target", kind="value",
            paper_value=f"tail <= {target_us:,.0f} µs (validate.txt)", ours=tail,
            holds=check(("tail FCT (µs)", tail, at_most(target_us))), rule="", note=note)


def line_bound(c, cid: str, row: dict, note: str = ""):
    c.claim(cid, statement="no flow finishes sooner than its bytes at line rate", kind="value",
            paper_value=f">= W·8/C = {LINE_BOUND_US:.1f} µs (closed form)", ours=row["min_us"],
            holds=check(("shortest FCT (µs)", row["min_us"], at_least(LINE_BOUND_US))), rule="", note=note)


def near_htsim(c, cid: str, statement: str, label: str, ours, theirs: float, band: float, note: str = ""):
    c.claim(cid, statement=statement, kind="value", paper_value=f"htsim 841d9e7: {theirs:,} µs ±{band:.0%}", ours=ours,
            holds=check((f"{label} / htsim's", None if ours is None else ours / theirs, within(1 - band, 1 + band))), rule="",
            note=note)
