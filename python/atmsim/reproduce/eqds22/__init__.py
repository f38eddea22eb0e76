"""Olteanu, Eran, Dumitrescu, Popa, Baciu, Silberstein, Handley & Raiciu, "An edge-queued datagram
service for all datacenter traffic" (NSDI 2022): EQDS as htsim implements it, checked by the nine runs
of htsim's own regression list (sim/datacenter/validate.txt at Broadcom/csg-htsim 841d9e7) against their
public targets, the closed forms of docs/fabrics.md and fresh htsim runs at that commit (stored in
htsim_841d9e7.json, made from validation/htsim/htsim_reference.json). Claim IDs eqds22.FIGURE.cN.

One built-in scenario per run (`eqds-one`, `eqds-bidir`, `eqds-incast`, `eqds-incast-128`,
`eqds-outcast-incast`, `eqds-perm-16`, `eqds-perm-16-1path`, `eqds-perm-1024`,
`eqds-perm-1024-1path`). All flows are 2,000,000 B from 0 on 100 Gb/s fat trees; W = 2,031,360 B is
one flow on the wire. An n -> 1 incast ends at about n·W·8 / R_pull, R_pull the receiver's credit
rate: pacing 4,150-B MTUs gives 98.79 Gb/s, 2,467.5 µs (15 -> 1) and 20,891 µs (127 -> 1); htsim's
pacers count 4,160 B and run at 98.55 Gb/s (E6). This module: the one-flow run and the two incasts;
`others.py`: bidir, outcast-incast and the four permutations.
"""
from __future__ import annotations

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Paper, Run, figure

from .common import WIRE_BYTES, every_flow_completes, grid, one_run
from .others import bidir, outcast_incast, perm_16, perm_16_1path, perm_1024, perm_1024_1path

ID = "eqds22"


@figure("one", runs=lambda g: [Run("eqds-one")])
def one(c, runs):
    """One 2-MB flow on the 16-host tree: validate.txt's target, the line-rate bound, htsim's FCT."""
    s, ref, row = one_run(c, runs, "one", "eqds_one")
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
    s, ref, row = one_run(c, runs, name, ref_name)
    tail = row["tail_us"]
    closed = n * WIRE_BYTES * 8 / 98.79e9 * 1e6
    c.claim("c1", statement=f"the {n} -> 1 incast meets validate.txt's target", kind="value",
            paper_value=f"tail <= {target_us:,.0f} µs (validate.txt)", ours=tail,
            holds=check(("tail FCT (µs)", tail, at_most(target_us))), rule="")
    c.claim("c2", statement="the tail is the receiver's credit rate's", kind="value",
            paper_value=f"{closed:,.1f} µs ±0.5 % (n·W·8 / 98.79 Gb/s, the closed form with 4,150-B MTUs)", ours=tail,
            holds=check(("tail / closed form", tail / closed, within(0.995, 1.005))), rule="")
    every_flow_completes(c, "c3", row)
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


PAPER = Paper(ID, (one, bidir, incast, incast_128, outcast_incast, perm_16, perm_16_1path, perm_1024, perm_1024_1path),
              grid, test_options=())
