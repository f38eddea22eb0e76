"""aron97 Fig. 3: TCP-Lite's effective throughput over ATM and over the
packet network against the switch buffer, topologies 1 and 2 (§4).

Claims c1-c9 and fair (§4 ¶1-4, §3 last ¶) are pure functions of the run
table (`fig3_claims`), so they can be tested on synthetic data.
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd

from atmsim.claims import at_least, at_most, check, frac, within
from atmsim.reproduce import seeds
from atmsim.reproduce.harness import figure

from .common import (CELL_BITS, LINK_BYTES_10S, LINK_RATE_PAPER, PAPER_T, U_MAX_ATM, U_MAX_PACKET,
                     medians, series, table, total_variation)
from .mechanisms import fairness_claim, flow_table, idle_split, rng, with_link
from .probe_notes import lite_stalls, with_probes
from .open_rows import would_settle

FIG3_COLUMNS = ["topology", "network", "k", "buffer_bytes", "E", "E_common", "fairness", "timeouts", "retx_bytes_mean",
                "episodes", "single", "multiple", "consecutive", "dead_cell_share"]


def fig3_points(df: pd.DataFrame) -> pd.DataFrame:
    """fig3.csv: one row per (topology, network, k), the median over seeds of every per-run value."""
    pts = medians(df, ["topology", "network", "variant", "k"])
    pts = pts.sort_values(["topology", "network", "k"], kind="stable").reset_index(drop=True)
    return pts[[c for c in FIG3_COLUMNS if c in pts] + [c for c in pts if c not in FIG3_COLUMNS]]


def _gap(pts: pd.DataFrame, topo: int) -> tuple[pd.Series, int]:
    """gap^lite(B) = 1 - E_atm / E_pkt per k; points with E_pkt = 0 are excluded (a ratio with a zero
    denominator has no value) and counted."""
    atm, pkt = series(pts, topology=topo, network="atm"), series(pts, topology=topo, network="packet")
    atm, pkt = atm.align(pkt, join="inner")
    ok = pkt > 0
    return (1 - atm[ok] / pkt[ok]), int((~ok).sum())


def fig3_claims(c, df: pd.DataFrame, pts: pd.DataFrame, flows: pd.DataFrame | None = None, probes: dict | None = None) -> None:
    """Every claim of Fig. 3 (aron97.fig3.c1..c9, .fair), by its acceptance rule, into `c` (the figure's
    `harness.Ctx`; a test binds one with `Ctx(...).at("fig3")`).

    df: one row per run (columns of `row`, and optionally link_idle and link_waste, mechanisms.with_link);
    pts: `fig3_points(df)`; flows: optional per-flow table (mechanisms.flow_table); probes: optional runs of
    the probes the notes quote (the figure's groups besides "main": probe_notes.with_probes, and "lite-10ms",
    fig12's Lite runs with the 10 ms tick). The last three only feed the notes of failing rows.
    """
    topos = sorted(int(t) for t in pts["topology"].unique())
    gaps, excluded = {}, {}
    for t in topos:
        gaps[t], excluded[t] = _gap(pts, t)
    excl_note = "; ".join(f"topology {t}: {n} point(s) with E_pkt = 0 excluded" for t, n in excluded.items() if n)

    def per_topo(values: dict):
        return {f"topo{t}": v for t, v in values.items()}

    # c1 [shape] E_atm < E_pkt at >= 90 % of points, each topology.
    c1 = {}
    for t in topos:
        a, p = series(pts, topology=t, network="atm").align(series(pts, topology=t, network="packet"), join="inner")
        c1[t] = frac(a < p)
    c.claim("c1", statement="TCP-Lite's effective throughput is lower over ATM than over the packet network", kind="shape",
          paper_value="Fig. 3 (§4 ¶1)", ours=per_topo(c1),
          holds=check(*[(f"topology {t}: share of points with E_atm < E_pkt", v, at_least(0.9)) for t, v in c1.items()]),
          rule="each topology", deviation=_c1_mechanism(pts, c1) + _c1_noise(c, (probes or {}).get(seeds.SWEEP), pts))

    # c2 [value] per topology: max_B gap in [0.10, 0.40] and median_B gap in [0.05, 0.30].
    ours2 = {f"topo{t}": {"max_gap": float(g.max()) if len(g) else None,
                          "median_gap": float(g.median()) if len(g) else None} for t, g in gaps.items()}
    tests2 = []
    for t, g in gaps.items():
        tests2 += [(f"topology {t}: max gap", g.max() if len(g) else None, within(0.10, 0.40)),
                   (f"topology {t}: median gap", g.median() if len(g) else None, within(0.05, 0.30))]
    c.claim("c2", statement="over ATM TCP-Lite's effective throughput can be 10-30% lower than over packet networks", kind="value",
          paper_value="10-30% lower (§4 ¶1)", ours=ours2, holds=check(*tests2), rule="gap = 1 - E_atm / E_pkt per point, each topology", note=excl_note,
          deviation=_c2_mechanism(pts, gaps, probes or {}) + _c2_noise((probes or {}).get(seeds.SWEEP), tests2))

    # c3 [value] max over ATM points of the mean per-sender retransmitted bytes <= 840 KB (K = 1000).
    atm_pts = pts[pts.network == "atm"]
    worst = float(atm_pts["retx_bytes_mean"].max()) if len(atm_pts) else float("nan")
    c.claim("c3", statement="the average amount of retransmitted data never exceeds 560KB (per sender, ATM)", kind="value",
          paper_value="<= 560 KB (§4 ¶2)", ours=worst,
          holds=check(("max over ATM points of the mean per-sender retransmitted bytes", worst, at_most(840e3))),
          rule="1.5 x the paper's 560 KB")

    # c4 [shape] dead-cell share <= 0.05 at every ATM point and < gap at >= 80 % of points with gap >= 0.05.
    flags = []
    for t in topos:
        d = series(pts, "dead_cell_share", topology=t, network="atm")
        flags += [bool(d[k] < g) for k, g in gaps[t].items() if g >= 0.05 and k in d.index]
    c.claim("c4", statement="dead cells explain only a fraction of the throughput loss (about 3 % versus 10-30 %)", kind="shape",
          paper_value="≈ 3 % vs 10–30 % (§4 ¶2)",
          ours={"max_dead_share": float(atm_pts["dead_cell_share"].max()) if len(atm_pts) else None,
           "share_of_points_dead_below_gap": frac(flags) if flags else None},
          holds=check(("max dead-cell share over ATM points", float(atm_pts["dead_cell_share"].max()) if len(atm_pts) else None,
                 at_most(0.05)),
                ("share of points with gap >= 0.05 where the dead-cell share < gap", frac(flags) if flags else None,
                 at_least(0.8))),
          rule="",
          note=f"{len(flags)} point(s) with gap >= 0.05" + ("; no such point, so the claim cannot hold" if not flags else ""))

    # c5 [analytic] 10 s at 141.333 Mb/s: 176.67 MB raw, 175.90 MB of payload ("about 175MB", within 1 %);
    # a cell takes 424 b / 141.33 Mb/s = 3.000 µs.
    raw, pay, pay_atm = LINK_BYTES_10S, U_MAX_PACKET, U_MAX_ATM
    cell_us = CELL_BITS / LINK_RATE_PAPER * 1e6
    sim = df.drop_duplicates("network").set_index("network") if "u_max_bytes" in df else None
    sim_note = ""
    if sim is not None and "duration_s" in sim:
        scaled = {n: float(r["u_max_bytes"] / r["duration_s"] * PAPER_T) / 1e6 for n, r in sim.iterrows() if r["duration_s"] > 0}
        sim_note = "simulator's U_max scaled to 10 s: " + ", ".join(f"{n} {v:.2f} MB" for n, v in sorted(scaled.items()))
    c.claim("c5", statement="10 s are enough to transfer about 175MB across the bottleneck", kind="analytic", paper_value="about 175MB (§4 ¶1)",
          ours={"raw_MB": raw / 1e6, "payload_MB": pay / 1e6, "atm_payload_MB": pay_atm / 1e6, "cell_time_us": cell_us},
          holds=check(("141.333 Mb/s x 10 s / 8 / 9168 x 9128 / 175 MB", pay / 175e6, within(0.99, 1.01)),
                ("424 b / 141.33 Mb/s in µs", cell_us, within(2.9995, 3.0005))),
          rule="",
          note=sim_note)

    # c6 [analytic] 560 KB / 10 s = 56 KB/s against a sender's fair share (2.20 MB/s packet, 1.99 MB/s ATM)
    # is "about 3%": both shares round to 3 %.
    rate = 560e3 / PAPER_T
    share_pkt, share_atm = rate / (pay / 8 / PAPER_T), rate / (pay_atm / 8 / PAPER_T)
    c.claim("c6", statement="56KB/s of retransmissions is about 3% loss in throughput of each sender", kind="analytic",
          paper_value="about 3% (§4 ¶2)", ours={"retx_KB_per_s": rate / 1e3, "share_packet": share_pkt, "share_atm": share_atm},
          holds=check(("560 KB / 10 s over a sender's packet fair share (U_max / 8 / 10 s)", share_pkt, within(0.025, 0.035)),
                ("the same over the ATM fair share", share_atm, within(0.025, 0.035))),
          rule="'about 3 %' read as rounding to 3 %")

    # c7 [shape] total coarse timeouts ATM > packet at >= 80 % of points, each topology.
    c7 = {}
    for t in topos:
        a, p = series(pts, "timeouts", topology=t, network="atm").align(
            series(pts, "timeouts", topology=t, network="packet"), join="inner")
        c7[t] = frac(a > p)
    c.claim("c7", statement="more retransmission timeouts on ATM than on the packet network", kind="shape", paper_value="§4 ¶3–4",
          ours=per_topo(c7),
          holds=check(*[(f"topology {t}: share of points where the 8 senders' coarse timeouts are more on ATM than on packet",
                   v, at_least(0.8)) for t, v in c7.items()]), rule="each topology")

    # c8 [shape] pooled over the grid of each topology (episode counts summed over points and seeds).
    ours8, tests8, notes8 = {}, [], []
    for t in topos:
        cols = ["episodes", "consecutive", "single"]
        a = df[(df.topology == t) & (df.network == "atm")][cols].sum()
        p = df[(df.topology == t) & (df.network == "packet")][cols].sum()
        ca = a.consecutive / a.episodes if a.episodes else float("nan")
        cp = p.consecutive / p.episodes if p.episodes else float("nan")
        sp = p.single / p.episodes if p.episodes else float("nan")
        if not (a.episodes and p.episodes):
            notes8.append(f"topology {t}: no loss episode on {'ATM' if not a.episodes else 'packet'}")
        ours8[f"topo{t}"] = {"atm_consecutive_share": ca, "packet_consecutive_share": cp, "packet_single_share": sp,
                             "atm_episodes": int(a.episodes), "packet_episodes": int(p.episodes)}
        tests8 += [(f"topology {t}: ATM consecutive share", ca, at_least(0.3)),
                   (f"topology {t}: packet consecutive share / ATM's", cp / ca if ca else None, at_most(0.5)),
                   (f"topology {t}: packet single share", sp, at_least(0.6))]
    c.claim("c8", statement="congestion mostly causes single segment loss on the packet network, multiple (consecutive) drops on ATM",
          kind="shape", paper_value="§4 last ¶", ours=ours8, holds=check(*tests8),
          rule="pooled over the grid (all points and seeds)", note="; ".join(notes8))

    # c9 [shape] total variation of the ATM curve >= 1.5 x the packet curve's, each topology.
    tv = {t: (total_variation(series(pts, topology=t, network="atm")), total_variation(series(pts, topology=t, network="packet")))
          for t in topos}
    c.claim("c9", statement="the effective throughput for ATM is very sensitive to small variations in switch buffer size", kind="shape",
          paper_value="§4 ¶4", ours={f"topo{t}": {"tv_atm": a, "tv_packet": p} for t, (a, p) in tv.items()},
          holds=check(*[(f"topology {t}: total variation of the packet curve / the ATM curve's",
                   p / a if a else (0.0 if p == 0 else None), at_most(1 / 1.5)) for t, (a, p) in tv.items()]),
          rule="total variation = sum|E(B_j+1) - E(B_j)|", deviation=_c9_mechanism(df, pts, tv) + would_settle("fig3.c9"))

    fairness_claim(c, df, (lite_stalls(probes or {}),), flows)


# --------------------------------------------------------------------------- the notes of failing rows

def _per(pts, col, t, net):
    return series(pts, col, topology=t, network=net) if col in pts else pd.Series(dtype=float)


def _c1_mechanism(pts: pd.DataFrame, c1: dict) -> str:
    """Where E_atm is not below E_pkt: E, timeouts and link idle time of both networks there and elsewhere."""
    out = []
    for t, share in c1.items():
        if share >= 0.9:
            continue
        a, p = series(pts, topology=t, network="atm").align(series(pts, topology=t, network="packet"), join="inner")
        bad = [k for k in a.index if not a[k] < p[k]]
        ta, tp = _per(pts, "timeouts", t, "atm"), _per(pts, "timeouts", t, "packet")
        ia, ip = _per(pts, "link_idle", t, "atm"), _per(pts, "link_idle", t, "packet")
        desc = []
        for k in bad:
            d = f"k={k}: E_atm {a[k]:.3f}, E_pkt {p[k]:.3f}"
            if k in ta.index and k in tp.index:
                d += f", coarse timeouts per run ATM {ta[k]:.0f}, packet {tp[k]:.0f}"
            if k in ia.index and k in ip.index:
                d += f", link idle ATM {ia[k]:.3f}, packet {ip[k]:.3f}"
            desc.append(d)
        rest = [k for k in a.index if k not in bad]
        tail = (f"; at the other points ATM has {rng(ta.reindex(rest), 0)} timeouts per run against packet's "
                f"{rng(tp.reindex(rest), 0)}" if rest and len(ta) and len(tp) else "")
        if rest and len(ia) and len(ip):
            tail += f", link idle ATM {rng(ia.reindex(rest))} against packet's {rng(ip.reindex(rest))}"
        ratio = ""
        if len(ta) and len(tp):
            q = (tp / ta).replace([np.inf, -np.inf], np.nan)
            ratio = (f". Packet/ATM ratio of coarse timeouts: {rng(q.reindex(bad), 2)} where E_atm is not below, "
                     f"{rng(q.reindex(rest), 2)} elsewhere")
        out.append(f"Topology {t}: E_atm is not below E_pkt at {'; '.join(desc)}{tail}{ratio}.")
    return " ".join(out)


def _c2_mechanism(pts: pd.DataFrame, gaps: dict, probes: dict) -> str:
    """Which points leave the band, and what the gap is made of: link idle time against waste, timeouts."""
    out = []
    for t, g in gaps.items():
        if not len(g):
            continue
        mx, md = float(g.max()), float(g.median())
        if 0.10 <= mx <= 0.40 and 0.05 <= md <= 0.30:
            continue
        over = [k for k, v in g.items() if v > 0.30]
        ta, tp = _per(pts, "timeouts", t, "atm"), _per(pts, "timeouts", t, "packet")
        out.append(f"Topology {t}: median gap {md:.3f}, max {mx:.3f}; gap > 0.30 at {len(over)} of {len(g)} points"
                   f"{' (k = ' + ', '.join(map(str, over)) + ')' if over else ''}. "
                   + idle_split(pts, {"topology": t, "network": "atm"}, {"topology": t, "network": "packet"}, "ATM", "packet")
                   + (f" Coarse timeouts per run: ATM {rng(ta, 0)}, packet {rng(tp, 0)}." if len(ta) and len(tp) else ""))
    if not out:
        return ""
    fine = probes.get("lite-10ms", [])
    if fine:
        p = fig3_points(table(fine))
        g = (1 - series(p, topology=1, network="atm") / series(p, topology=1, network="packet")).dropna()
        out.append(f"The same Lite runs with a 10 ms tick (fig12's, python -m atmsim reproduce aron97 --figure fig12 --out "
                   f"DIR) have a median topology-1 gap of {g.median():.3f}.")
    return " ".join(out + [lite_stalls(probes)]).strip()


def _c9_mechanism(df: pd.DataFrame, pts: pd.DataFrame, tv: dict) -> str:
    """Total variation = the rise of a curve over the grid + its back-and-forth; and the spread over seeds."""
    out = []
    for t, (a, p) in tv.items():
        if a and p / a <= 1 / 1.5:
            continue
        parts = []
        for net, v in (("ATM", a), ("packet", p)):
            e = series(pts, topology=t, network=net.lower())
            rise = float(e.max() - e.min()) if len(e) else float("nan")
            sd = df[(df.topology == t) & (df.network == net.lower())].groupby("k")["E"]
            spread = float((sd.max() - sd.min()).median()) if len(sd) else float("nan")
            parts.append(f"{net} TV {v:.3f} = range {rise:.3f} + back-and-forth {v - rise:.3f} (E {rng(e)}; median "
                         f"range of E over the seeds of a point {spread:.3f})")
        ia = _per(pts, "link_idle", t, "atm")
        ta = _per(pts, "timeouts", t, "atm")
        extra = (f"; the ATM link idles {rng(ia)} of the run at every buffer, with {rng(ta, 0)} coarse timeouts per run, "
                 f"so E_atm stays low and flat" if len(ia) and len(ta) else "")
        out.append(f"Topology {t}: {'; '.join(parts)}{extra}.")
    return " ".join(out)


def fig3_plot(pts: pd.DataFrame, path: Path) -> None:
    """Fig. 3 in the paper's layout: one panel per topology, E against the effective buffer in KB,
    ATM solid and packet dashed."""
    import matplotlib.pyplot as plt
    from atmsim.plotting import save, throughput_vs_buffer

    if "buffer_kb" not in pts:
        pts = pts.assign(buffer_kb=pts["buffer_bytes"] / 1000)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, t in zip(axes, [1, 2]):
        throughput_vs_buffer(ax, pts[pts.topology == t], ["network", "variant"],
                             lambda d: f"TCP-Lite, {'ATM' if d['network'] == 'atm' else 'packet'}")
        ax.set_title(f"Topology {t}")
    save(fig, path)


def _fig3_runs(g) -> dict:
    """fig3's runs, the fairness-anatomy runs and fig12's Lite runs with a 10 ms tick, both quoted by notes, and
    fig3's runs at seeds 1-10 for c1's note (the seed sweep, not fig3's sample: seeds.SWEEP)."""
    return {**with_probes(g.specs([1, 2], ["atm", "packet"], ["lite"]), g, lite=True),
            "lite-10ms": g.specs([1], ["atm", "packet"], ["lite"], tick="10ms"),
            seeds.SWEEP: dataclasses.replace(g, seeds=seeds.SWEEP_SEEDS).specs([1, 2], ["atm", "packet"], ["lite"])}


def _c1_noise(c, sweep, pts: pd.DataFrame) -> str:
    """At each point where E_atm is not below E_pkt, E_pkt - E_atm at each seed of the sweep (fig3_seeds.csv) and
    whether its shortfall lies inside their noise (seeds.noise); "" without a sweep (tests on synthetic data)."""
    if not sweep:
        return ""
    df = table(sweep)[["topology", "network", "k", "seed", "E"]]
    c.table(df, "fig3_seeds")
    e = df.pivot_table(index=["topology", "k", "seed"], columns="network", values="E")
    pts_at = {}
    for t in sorted(pts["topology"].unique()):
        a, p = series(pts, topology=t, network="atm").align(series(pts, topology=t, network="packet"), join="inner")
        for k in a.index[~(a < p)]:
            x = e.loc[(int(t), int(k))]
            pts_at[f"topology {int(t)}, k={int(k)}"] = ((x.packet - x.atm).to_dict(), x.packet.median() - x.atm.median())
    return " Seed noise (fig3_seeds.csv): " + seeds.noise_at(pts_at, (0.0, math.inf), "E_pkt - E_atm") if pts_at else ""


def _c2_noise(sweep, tests) -> str:
    """Each test of c2 that fails on the grid's seeds, over the seed sweep's (fig3_seeds.csv): the topology's gap in
    each seed's runs, and as the claim aggregates it over them (the gap of the per-point medians), with its noise
    (seeds.noise; issue 37's seed rule); "" without a sweep or a failing test."""
    failing = [(name, band) for name, v, band in tests if not band.holds(v)]
    if sweep is None or not len(sweep) or not failing:
        return ""
    e = table(sweep)[["topology", "network", "k", "seed", "E"]].pivot_table(index=["topology", "seed", "k"], columns="network",
                                                                            values="E")
    out = []
    for name, band in failing:
        t, stat = int(name.split()[1].rstrip(":")), name.rsplit(" ", 2)[-2]  # "topology T: max gap" / "... median gap"
        x = e.loc[t]
        per_seed = (1 - x.atm / x.packet).groupby(level="seed").agg(stat).to_dict()
        med = x.groupby(level="k").median()
        out.append(seeds.noise(f"topology {t}'s {stat} gap", per_seed, float((1 - med.atm / med.packet).agg(stat)),
                               (band.lo, band.hi)))
    return " Seed noise (fig3_seeds.csv): " + " ".join(out)


@figure("fig3", runs=_fig3_runs)
def fig3(c, groups):
    runs = groups["main"]
    df = table(runs)
    pts = fig3_points(df)
    c.write("fig3", pts, df)
    fig3_plot(pts, c.out / "fig3.png")
    dfx = with_link(df, runs)  # + link_idle, link_waste for the notes (not written to the csv)
    fig3_claims(c, dfx, fig3_points(dfx), flow_table(runs), groups)
