"""Olteanu, Eran, Dumitrescu, Popa, Baciu, Silberstein, Handley & Raiciu, "An edge-queued datagram
service for all datacenter traffic" (NSDI 2022): EQDS as htsim implements it, checked by the runs of
htsim's own regression list (sim/datacenter/validate.txt at Broadcom/csg-htsim 841d9e7) against their
public targets, the closed forms of docs/fabrics.md and fresh htsim runs at that commit (stored in
htsim_841d9e7.json, made from validation/htsim/htsim_reference.json). Claim IDs eqds22.FIGURE.cN.

Three of validate.txt's nine runs are built (`eqds-one`, `eqds-incast`, `eqds-incast-128`); bidir,
outcast-incast and the two permutations at 128 and 1 paths are not yet (docs/fabrics.md). All flows
are 2,000,000 B from 0 on 100 Gb/s fat trees; W = 2,031,360 B is one flow on the wire. An n -> 1 incast
ends at about n·W·8 / R_pull, R_pull the receiver's credit rate: pacing 4,150-B MTUs gives 98.79 Gb/s,
2,467.5 µs (15 -> 1) and 20,891 µs (127 -> 1); htsim's pacers count 4,160 B and run at 98.55 Gb/s (E6).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Paper, Run, figure, summary_of

ID = "eqds22"
HTSIM = json.loads((Path(__file__).parent / "htsim_841d9e7.json").read_text(encoding="utf-8"))["runs"]
WIRE_BYTES = 2_031_360


@dataclass(frozen=True)
class Grid:
    """The runs take a fraction of a second each: --quick runs them all as well."""

    quick: bool


def grid(quick: bool) -> Grid:
    return Grid(quick)


def _fcts_us(s: dict) -> list:
    return [f["completion_time_s"] * 1e6 for f in s["flows"] if f["completion_time_s"] is not None]


def _table(c, name: str, s: dict, ref: dict):
    import pandas as pd

    fcts = _fcts_us(s)
    row = {"run": name, "flows": len(s["flows"]), "completed": len(fcts), "tail_us": max(fcts, default=None),
           "min_us": min(fcts, default=None), "mean_us": sum(fcts) / len(fcts) if fcts else None,
           "retransmissions": sum(f["segments_retransmitted"] for f in s["flows"]),
           "htsim_tail_us": ref["tail_us"], "htsim_min_us": ref["min_us"], "htsim_mean_us": ref["mean_us"],
           "htsim_retransmissions": ref["retransmissions"]}
    c.write(name, pd.DataFrame([row]), pd.DataFrame([{"flow": f["name"], "fct_us": f["completion_time_s"] * 1e6,
                                                       "fct_slowdown": f.get("fct_slowdown"),
                                                       "retransmitted": f["segments_retransmitted"]}
                                                      for f in s["flows"] if f["completion_time_s"] is not None]))
    return row


def _plot(c, name: str, s: dict, ref_tail: float):
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fcts = sorted(_fcts_us(s))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(range(1, len(fcts) + 1), fcts, marker=".", color="0.3", label="atmsim")
    ax.axhline(ref_tail, color="0.6", linestyle=":", label="htsim's tail")
    ax.set_xlabel("flow (sorted by FCT)")
    ax.set_ylabel("FCT (µs)")
    ax.legend(fontsize=8)
    save(fig, c.out / f"{name}.png")


def _every_flow_completes(c, cid: str, row: dict):
    c.claim(cid, statement="every flow completes", kind="value", paper_value="validate.txt: all flows finished",
            ours=row["completed"], holds=check(("flows completed / flows", row["completed"] / row["flows"], at_least(1.0))), rule="")


@figure("one", runs=lambda g: [Run("eqds-one")])
def one(c, runs):
    """One 2-MB flow on the 16-host tree: validate.txt's target, the line-rate bound, htsim's FCT."""
    (_, result), = runs
    s = summary_of(result)
    ref = HTSIM["eqds_one"]
    row = _table(c, "one", s, ref)
    _plot(c, "one", s, ref["tail_us"])
    tail = row["tail_us"]
    bound = WIRE_BYTES * 8 / 100e9 * 1e6
    c.claim("c1", statement="the flow meets validate.txt's target", kind="value", paper_value="tail <= 180 µs (validate.txt)",
            ours=tail, holds=check(("tail FCT (µs)", tail, at_most(180.0))), rule="")
    c.claim("c2", statement="the flow takes at least its bytes' time at line rate", kind="value",
            paper_value=f">= W·8/C = {bound:.1f} µs (closed form)", ours=tail,
            holds=check(("tail FCT (µs)", tail, at_least(bound))), rule="")
    c.claim("c3", statement="the FCT within ±1 % of a fresh htsim run's", kind="value",
            paper_value=f"htsim 841d9e7: {ref['tail_us']} µs", ours=tail,
            holds=check(("tail / htsim's", tail / ref["tail_us"], within(0.99, 1.01))), rule="")


def _incast(c, runs, name: str, ref_name: str, n: int, target_us: float, spread_band: float):
    (_, result), = runs
    s = summary_of(result)
    ref = HTSIM[ref_name]
    row = _table(c, name, s, ref)
    _plot(c, name, s, ref["tail_us"])
    tail = row["tail_us"]
    closed = n * WIRE_BYTES * 8 / 98.79e9 * 1e6
    c.claim("c1", statement=f"the {n} -> 1 incast meets validate.txt's target", kind="value",
            paper_value=f"tail <= {target_us:,.0f} µs (validate.txt)", ours=tail,
            holds=check(("tail FCT (µs)", tail, at_most(target_us))), rule="")
    c.claim("c2", statement="the tail is the receiver's credit rate's", kind="value",
            paper_value=f"{closed:,.1f} µs ±0.5 % (n·W·8 / 98.79 Gb/s, the closed form with 4,150-B MTUs)", ours=tail,
            holds=check(("tail / closed form", tail / closed, within(0.995, 1.005))), rule="")
    _every_flow_completes(c, "c3", row)
    spread, ref_spread = tail - row["min_us"], ref["tail_us"] - ref["min_us"]
    c.claim("c4", statement="the tail and the spread of FCTs as a fresh htsim run's", kind="value",
            paper_value=f"htsim 841d9e7: tail {ref['tail_us']:,} µs ±0.5 %, spread {ref_spread:,.1f} µs ±{spread_band:.0%}",
            ours={"tail_us": tail, "spread_us": spread},
            holds=check(("tail / htsim's", tail / ref["tail_us"], within(0.995, 1.005)),
                        ("spread / htsim's", spread / ref_spread, within(1 - spread_band, 1 + spread_band))), rule="")
    rtx = row["retransmissions"]
    c.claim("c5", statement="as many retransmissions as htsim's", kind="value",
            paper_value=f"htsim 841d9e7: {ref['retransmissions']} ±15 %", ours=rtx,
            holds=check(("retransmissions / htsim's", rtx / ref["retransmissions"], within(0.85, 1.15))), rule="")


@figure("incast", runs=lambda g: [Run("eqds-incast")])
def incast(c, runs):
    """15 -> 1 on the 16-host tree."""
    _incast(c, runs, "incast", "eqds_incast", 15, 2500.0, 0.20)


@figure("incast-128", runs=lambda g: [Run("eqds-incast-128")])
def incast_128(c, runs):
    """127 -> 1 on the 128-host tree."""
    _incast(c, runs, "incast-128", "eqds_incast_128", 127, 23000.0, 0.20)


PAPER = Paper(ID, (one, incast, incast_128), grid, test_options=())
