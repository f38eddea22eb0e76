"""A DNX-style scheduled cell fabric (docs/fabric.md), checked against the closed forms and
invariants F1–F12 of its specification: the cell tax, packing, the fabric-limited rate, an incast's
egress utilisation, fairness and tail, losslessness, the VOQ credit identity, capacity and cells
lost after a link failure, reorder depth, and the zero-load latency. Claim IDs fabric.FN.c1 (F3 the
fabric-limited rate, and so on); each claim's rule names the parameters it depends on.

Figures F1–F3 and F12: one source (h4 -> h0, or FAP 1's four hosts to four FAPs); F4–F8 and F11:
the 15 -> 1 incast `fabric-incast` (and, in the full grid, 127 -> 1 on 32 FAPs), F4–F8 each incast
with F4's two counterfactuals; F5, F8–F10 and F11's depth figure: the permutation `fabric-perm` at
full load, with three of FAP 0's links failing at 50 µs in F9–F10.

Two comparisons, findings more than checks: C1 (compare.py) runs the same incast, permutation,
all-to-all and ring all-reduce on the fabric and on a fat tree of the same hosts and host links
(EQDS and DCTCP there); C2 (slowed.py) slows one fabric link to a tenth beside NDP Fig. 22's
slowed core link, the ndp17 reproduction's own runs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Paper, Run, figure, summary_of

from .common import (LINK_BPS, LINKS, MTU, PERM, PORT_BPS, FLOW_IP_BYTES, H, P, W, busy_share, cells,
                     departures, efficiency, grid, incast_127, one_source, sources_to, spread_after_start, tx_ps, voq_stall,
                     zero_load_ps)
from .compare import c1
from .others import f3, f9, f10, f11
from .slowed import c2

ID = "fabric"
LENGTHS = (64, 256, 257, 1500, 4150, 9000)


@figure("F1", runs=lambda g: [one_source(n, f'rate = "100Gbps", bytes = "{40 * (n - 28)}B"') for n in LENGTHS])
def f1(c, runs):
    """The cell tax: 40 packets of each size from one source, packing off."""
    rows = []
    for run, r in runs:
        fab, n = summary_of(r)["fabric"], run.tag
        wire = fab["up_link_wire_bytes"] - fab["control_wire_bytes_made"]
        rows.append({"length": n, "packets": fab["packets_out"], "data_wire_bytes": wire,
                     "closed_form_bytes": 40 * (n + H * cells(n)), "efficiency": 40 * n / wire, "closed_form": efficiency(n)})
    df = pd.DataFrame(rows)
    c.write("F1", df)
    off = int((df.data_wire_bytes != df.closed_form_bytes).sum() + (df.packets != 40).sum())
    c.claim("c1", statement="delivered bytes over fabric wire bytes is E(L) at every packet size", kind="analytic",
            paper_value="E(L) = L / (L + h·⌈L/P⌉): E(64) = 0.800, E(256) = 0.941, E(257) = 0.889, E(1,500) = 0.940, "
            "E(4,150) = 0.938, E(9,000) = 0.940; exact in bytes",
            ours={int(n): round(e, 4) for n, e in zip(df.length, df.efficiency)},
            holds=check(("packet sizes whose data wire bytes differ from 40·(L + h·⌈L/P⌉)", off, at_most(0))),
            rule="depends on P = fabric.cell_payload, h = fabric.cell_header; wire bytes counted by the FAPs' links")


@figure("F2", runs=lambda g: [one_source(257, 'rate = "100Gbps", bytes = "91600B"', f"fabric.packing={p}", tag=p)
                              for p in ("continuous", "off")])
def f2(c, runs):
    """400 packets of 257 B (2 cells each unpacked), packed continuously and not."""
    rows = []
    for run, r in runs:
        fab = summary_of(r)["fabric"]
        payload = fab["data_payload_bytes_received"]
        wire = fab["up_link_wire_bytes"] - fab["control_wire_bytes_made"]
        # A burst of B bytes is ⌈B/P⌉ cells: at most one beyond B/P.
        extra = (fab["cells_made"]["data"] - payload / P) / fab["bursts"]
        rows.append({"packing": run.tag, "payload": payload, "wire": wire, "efficiency": payload / wire, "limit": P / (P + H),
                     "bursts": fab["bursts"], "cells_beyond_payload_per_burst": extra})
    df = pd.DataFrame(rows)
    c.write("F2", df)
    on = df[df.packing == "continuous"].iloc[0]
    c.claim("c1", statement="packing brings the efficiency to P/(P + h) within one cell per burst", kind="analytic",
            paper_value="efficiency -> P/(P + h) = 0.941, error < one cell per burst", ours=on.efficiency,
            holds=check(("data cells beyond payload/P, per burst (the packets a VOQ releases at once)",
                         on.cells_beyond_payload_per_burst, within(0, 1)),
                        ("packed efficiency − unpacked", on.efficiency - df[df.packing == "off"].efficiency.iloc[0], at_least(0.04))),
            rule=f"depends on P, h and fabric.packing = \"continuous\"; 257-B packets (unpacked: E = {df[df.packing == 'off'].efficiency.iloc[0]:.4f}, "
            f"{df[df.packing == 'off'].cells_beyond_payload_per_burst.iloc[0]:.2f} cells beyond payload/P per packet)")


INCAST_RUNS = ("16KB", "96KB")
#: Counterfactuals of F4's mechanism, 15 -> 1 at the default pause threshold: (label, overrides, credit
#: worth, overspeed). Credits worth a whole packet never leave a VOQ short (no skipped credit); more
#: overspeed pauses the scheduler more often.
INCAST_VARIANTS = (("credit worth a packet", (f"fabric.credit_worth={MTU}B",), MTU, 0.01),
                   ("more overspeed", ("fabric.scheduler.overspeed=0.05",), W, 0.05))


def _incasts(g):
    def fifteen(stop, *extra, variant=""):
        return sources_to(0, range(4, 64, 4), f"fabric.scheduler.egress_stop={stop}", "trace.port=fabric->h0", *extra,
                          tag=(15, stop, variant), trace=True)
    out = [fifteen(s) for s in INCAST_RUNS] + [fifteen("16KB", *o, variant=label) for label, o, _, _ in INCAST_VARIANTS]
    if not g.quick:
        # 127 -> 1 and its counterfactuals: about half a second each.
        out += [incast_127("trace.port=fabric->h0", *o, trace=True, tag=(127, "16KB", label))
                for label, o in (("", ()), *((label, o) for label, o, _, _ in INCAST_VARIANTS))]
    return out


def _incast_rows(runs) -> pd.DataFrame:
    rows = []
    for run, (s, tr) in runs:
        n, stop, variant = run.tag
        worth, overspeed = next(((w, o) for label, _, w, o in INCAST_VARIANTS if label == variant), (W, 0.01))
        ends, flows, frames = departures(tr)
        share, gaps = busy_share(ends, frames)
        fab = s["fabric"]
        t0 = n * FLOW_IP_BYTES * 8 / PORT_BPS
        credit_s = worth * 8 / (PORT_BPS * (1 + overspeed))
        latency = zero_load_ps(MTU) / 1e12
        t_cr = latency - 2 * (tx_ps(MTU, PORT_BPS) + 100_000) / 1e12 + credit_s
        rows.append({"sources": n, "egress_stop": stop, "variant": variant, "credit_worth": worth, "overspeed": overspeed,
                     "busy_share": share, "idle_gaps": int((gaps > 0).sum()),
                     "long_gaps": int((gaps > 0.5 * n * credit_s).sum()), "idle_us": float(gaps.sum() * 1e6),
                     "median_gap_ns": float(np.median(gaps[gaps > 0]) * 1e9) if (gaps > 0).any() else 0.0,
                     "t_cr_ns": t_cr * 1e9, "loop_bytes": t_cr * PORT_BPS / 8, "paused_slots": fab["paused_slots"],
                     "skips_per_voq": (fab["credits_received"] - fab["packets_out"]) // n,
                     "spread_bytes": spread_after_start(ends, flows, frames, n),
                     **{f"voq_stall_{k}": v for k, v in voq_stall(ends, flows, frames).items()},
                     "fct_max_us": max(f["completion_time_s"] for f in s["flows"]) * 1e6,
                     # The zero-load latency ends with the last packet's own time on the egress port, in T0 already.
                     "lower_us": (t0 + latency - MTU * 8 / PORT_BPS) * 1e6, "upper_us": (t0 + t_cr + 2 * credit_s + MTU * 8 / PORT_BPS) * 1e6,
                     "cells_lost": sum(fab["cells_lost"].values()), "voq_drops": fab["voq_drops"],
                     "llfc_peak": fab["llfc_peak_resident_cells"], "llfc_bound": fab["llfc_bound_cells"],
                     "identity": fab["voq_identity_holds"] and fab["cells_balanced"] and s["accounting"]["balanced"],
                     "reorder_depth": fab["reorder_depth_max"]})
    return pd.DataFrame(rows)


def _beat(df) -> str:
    """F4's and F7's mechanism, from the incasts and their counterfactuals."""
    base = df[df.variant == ""]
    d = base[(base.egress_stop == "16KB") & (base.sources == 15)].iloc[0]
    w = base[base.egress_stop == "96KB"].iloc[0]
    wide = "".join(f" {r.sources} -> 1 on {r.sources // 4 + 1} FAPs: busy {r.busy_share:.4f}, {r.idle_gaps} idle gaps of "
                   f"{r.idle_us:.1f} µs in all (median {r.median_gap_ns:.1f} ns), {r.long_gaps} long. " + _split(df, r)
                   for r in base[base.sources > 15].itertuples())
    return (f"At egress_stop = {d.egress_stop} the port idles {d.idle_us:.2f} µs in {d.idle_gaps} gaps (median {d.median_gap_ns:.1f} ns), "
            f"{d.long_gaps} of them longer than half a round of credits. Two causes. The credit loop (T_cr = {d.t_cr_ns:.1f} ns) "
            f"holds {d.loop_bytes:,.0f} B at the port rate, more than the threshold at which the scheduler pauses: each time "
            f"the egress queue falls below it, the queue drains before the data of the next credit arrives ({d.paused_slots} "
            f"paused slots). And a {MTU}-B packet costs more than a {W}-B credit, so each VOQ skips one credit in "
            f"{W // (MTU - W) + 1} ({d.skips_per_voq} skips per VOQ measured: credits received less packets, over the sources) "
            f"and round robin keeps the {d.sources} VOQs in step, so they skip together: the long gaps. {_split(df, d)} "
            f"At {w.egress_stop}: busy {w.busy_share:.4f}, tail {w.fct_max_us:.2f} µs." + wide)


def _split(df, r) -> str:
    """The idle gaps of incast `r` (default egress_stop) split between the two causes by its counterfactuals."""
    same = df[(df.sources == r.sources) & (df.egress_stop == r.egress_stop)]
    cw, os_ = (same[same.variant == label].iloc[0] for label, *_ in INCAST_VARIANTS)
    return (f"With credits worth a packet (no skips): busy {cw.busy_share:.4f}, {cw.idle_gaps} gaps of {cw.idle_us:.2f} µs, "
            f"{cw.long_gaps} long: the credit loop's; the skipped credits account for the difference, {r.idle_gaps - cw.idle_gaps} "
            f"gaps and {r.idle_us - cw.idle_us:.2f} µs ({(r.idle_us - cw.idle_us) / r.idle_us:.0%} of the idle time). With "
            f"overspeed {os_.overspeed} (more pauses, {os_.paused_slots} slots against {r.paused_slots}): busy "
            f"{os_.busy_share:.4f}, {os_.idle_gaps} gaps of {os_.idle_us:.2f} µs.")


@figure("F4", runs=_incasts)
def f4(c, runs):
    """The egress port's utilisation in the incast."""
    df = _incast_rows(runs)
    c.write("F4", df)
    d = df[(df.egress_stop == "16KB") & (df.variant == "")]
    c.claim("c1", statement="the egress port is busy >= 99 % from the first credit to the last byte", kind="analytic",
            paper_value=">= 0.99 (exact busy time from the port log)", ours={int(r.sources): r.busy_share for r in d.itertuples()},
            holds=check(("least busy share over the incasts, default egress_stop", d.busy_share.min(), at_least(0.99))),
            rule="depends on fabric.scheduler.overspeed (0.01) and egress_stop (16 KB, >= 2 credits); busy share from the "
            "first packet's start to the last packet's end", deviation=_beat(df))


@figure("F6", runs=_incasts)
def f6(c, runs):
    """Per-source fairness in the incast."""
    df = _incast_rows(runs)
    df = df[df.variant == ""]
    c.claim("c1", statement="per-source bytes out differ by at most a credit and a packet", kind="analytic",
            paper_value=f"<= W_cr + MTU = {W + MTU:,} B at any time after warm-up (J >= 0.999 over windows of 64·N credits)",
            ours={f"{r.sources}/{r.egress_stop}": int(r.spread_bytes) for r in df.itertuples()},
            holds=check(("largest spread of bytes out between sources once all have started", df.spread_bytes.max(), at_most(W + MTU))),
            rule="depends on the round-robin scheduler; from the egress port log, every departure",
            deviation="".join(_stall(r) for r in df.itertuples() if r.spread_bytes > W + MTU))


def _stall(r) -> str:
    """F6's mechanism: the VOQ that waits longest, from the egress port log."""
    return (f"In {r.sources} -> 1 the sources share {r.sources // 4 + 1} VOQs at the egress port, one per source FAP (hosts on "
            f"one FAP share its VOQ, as in DNX): spread {r.spread_bytes:,} B between sources. Until FAP {r.voq_stall_fap}'s VOQ "
            f"stops, the VOQs' bytes out differ by at most {r.voq_stall_spread:,} B; it then sends nothing from "
            f"{r.voq_stall_from_s * 1e6:.1f} to {r.voq_stall_to_s * 1e6:.1f} µs with {r.voq_stall_left:,} B left, below "
            f"fabric.crs.norm_to_slow, so SLOW, and a SLOW VOQ gets a credit only when no VOQ is NORM (the scheduler's "
            f"rule, docs/fabric.md R4): hosts on a FAP with fewer sources reach their SLOW tail first and wait for "
            f"every other VOQ's. ")


@figure("F7", runs=_incasts)
def f7(c, runs):
    """The incast's tail FCT bracket."""
    df = _incast_rows(runs)
    d = df[(df.egress_stop == "16KB") & (df.variant == "")]
    low = (d.fct_max_us - d.lower_us).min()
    high = (d.upper_us - d.fct_max_us).min()
    c.claim("c1", statement="T0 + latency <= FCT_max <= T0 + T_cr + 2 credit times + a packet time (latency: one packet's "
            "zero-load latency less its time on the egress port, which T0 counts)", kind="analytic",
            paper_value="the bracket, exact", ours={int(r.sources): r.fct_max_us for r in d.itertuples()},
            holds=check(("FCT_max - (T0 + latency), µs", low, at_least(0)), ("T0 + T_cr + ... - FCT_max, µs", high, at_least(0))),
            rule="T0 = N·(a flow's packet bytes)·8/R; depends on overspeed and egress_stop (16 KB)", deviation=_beat(df))


@figure("F5", runs=lambda g: [*_incasts(g), Run(PERM)])
def f5(c, runs):
    """No cell lost inside the fabric; every link within its link credit."""
    fabs = [summary_of(r)["fabric"] for _, r in runs]
    lost = sum(sum(f["cells_lost"].values()) + f["voq_drops"] for f in fabs)
    over = sum(f["llfc_peak_resident_cells"] > f["llfc_bound_cells"] for f in fabs)
    c.claim("c1", statement="no cell is lost in the fabric and no link has more than N2 + N3 cells in its far end", kind="hard",
            paper_value="0 cells dropped in the fabric; every FE FIFO <= its N2 + N3 bound",
            ours={"cells_lost": lost, "links_over": over, "peak_resident": max(f["llfc_peak_resident_cells"] for f in fabs)},
            holds=check(("cells lost and VOQ drops", lost, at_most(0)), ("runs with a link over N2 + N3", over, at_most(0))),
            rule="incasts and the full-load permutation; depends on link-level credit (fabric.llfc)")


@figure("F8", runs=lambda g: [*_incasts(g), Run(PERM)])
def f8(c, runs):
    """The VOQ credit identity."""
    ok = [summary_of(r)["fabric"]["voq_identity_holds"] for _, r in runs]
    c.claim("c1", statement="CrBal = granted·W − dequeued (− discarded) and Qsize = arrived − dequeued at every VOQ", kind="hard",
            paper_value="exact, every VOQ", ours={"runs": len(ok), "holding": sum(ok)},
            holds=check(("runs whose VOQs break the identity", len(ok) - sum(ok), at_most(0))),
            rule="checked by the core at the end of every run (the accounting identity)")


@figure("F12", runs=lambda g: [one_source(n, f'send_at = ["0s"], bytes = "{n - 28}B"') for n in (1500, 4150)])
def f12(c, runs):
    """One packet through an idle fabric."""
    rows = [{"length": run.tag, "fct_ps": round(summary_of(r)["flows"][0]["completion_time_s"] * 1e12),
             "closed_form_ps": zero_load_ps(run.tag)} for run, r in runs]
    df = pd.DataFrame(rows)
    c.write("F12", df)
    off = int((df.fct_ps - df.closed_form_ps).abs().max())
    c.claim("c1", statement="one packet's latency is the pipeline's, to the picosecond", kind="analytic",
            paper_value="host→FAP packet + FlowStatus and Credit (two hops each) + first cells + FAP→host packet",
            ours={int(n): int(t) for n, t in zip(df.length, df.fct_ps)},
            holds=check(("largest |FCT − closed form|, ps", off, at_most(0))),
            rule=f"docs/fabric.md's pipeline; {LINKS} links carry the cells in parallel; depends on every rate and delay "
            f"({float(LINK_BPS) / 1e9:g} Gb/s links)")


PAPER = Paper(ID, (f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, c1, c2), grid, test_options=())
