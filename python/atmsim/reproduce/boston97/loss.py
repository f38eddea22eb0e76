"""boston97 Fig. 5, Table 1, Fig. 6, the window sweep and Reno with EPD
(§4.2): loss rates, goodput and response time of 16 sources against the
switch buffer and the packet size.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from atmsim.claims import above, at_least, at_most, check, frac, within
from atmsim.reproduce.harness import figure

from . import access
from .common import (BUFFER_KB, BUFFERS, SETTLE_SIMULATOR, SETTLE_STARTS, SIZES, cap, cells, packet_ratio, table,
                     unless_cell_access)

# Table 1 of the paper: R (µs/byte), (Boston, Reno) per L and B.
TABLE1 = {
    512: [(111, 119), (88, 91), (82, 85), (80, 83), (79.5, 82), (77.2, 81)],
    1518: [(114, 138), (90, 99), (85, 91), (80, 87), (79, 85), (77, 83)],
    4352: [(212, 893), (100, 118), (84, 101), (79, 90), (79, 88.2), (77, 86)],
    9180: [(591, 3125), (129, 138), (89, 116), (80, 94), (79, 89.5), (77, 88)],
}


def _star(g, protocols, w_kb, sizes=SIZES, buffers=BUFFERS, seeds=None):
    return [g.run(p, L, B, w_kb, s) for p in protocols for L in sizes for B in buffers for s in (seeds or g.seeds)]


def _at(pts, col):
    """{(protocol, L, B, w): value} of a points table."""
    return {(r.protocol, r.L, r.B, r.w_kb): getattr(r, col) for r in pts.itertuples()}


def _violations(values) -> int:
    return sum(1 for a, b in zip(values, values[1:]) if b > a)


def _panels(c, pts, w_kb, name, title):
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for L in SIZES:
        r = pts[(pts.protocol == "reno") & (pts.L == L) & (pts.w_kb == w_kb)]
        o = pts[(pts.protocol == "boston") & (pts.L == L) & (pts.w_kb == w_kb)]
        kb = [B * 53 / 1000 for B in r.B]
        line = a.plot(kb, r.plr, "--", marker="o", ms=3, label=f"Reno PLR, {L} B")[0]
        a.plot([B * 53 / 1000 for B in o.B], o.clr, "-", marker="s", ms=3, color=line.get_color(), label=f"Boston CLR, {L} B")
        b.plot(kb, r.eta, "--", marker="o", ms=3, color=line.get_color(), label=f"Reno, {L} B")
        b.plot([B * 53 / 1000 for B in o.B], o.eta, "-", marker="s", ms=3, color=line.get_color(), label=f"Boston, {L} B")
    for ax, ylab in ((a, "loss rate"), (b, "effective throughput")):
        ax.set_xscale("log")
        ax.set_xlabel("switch buffer (kB = cells x 53 / 1000)")
        ax.set_ylabel(ylab)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(title)
    save(fig, c.out / f"{name}.png")


CMD = "python -m atmsim reproduce boston97 --out DIR"


def _cmd(fig: str, csv: str) -> str:
    return f"(`{CMD.replace('--out', f'--figure {fig} --out')}`, {csv})"


def _f(x, d=3) -> str:
    return f"{x:.{d}f}"


def _fig5_runs(g):
    """Fig. 5's runs, and Fig. 7(a)'s single source (fig7's own runs, shared through the run cache) with the scenario's
    packet links and with cell links (the access sweep's a = 1): c1's note says which of them loses cells."""
    one = [g.run(p, 9180, 512, 64, s, sources=1, per_second=True) for p in ("reno", "boston") for s in g.seeds]
    return {"main": _star(g, ("reno", "boston"), 64), "one source": one + access.runs(g, ratios=(1.0,))}


def _fig7a_access(pairs, seconds: float) -> str:
    """Fig. 7(a)'s single source with packet links and with cell links (median CLR over seeds per protocol): the
    sentence on which boston97.fig5.c1 is settled by `paper` (settled.py), said only when the run shows it: cell links,
    under which one source's cells arrive at the output's own rate, lose nothing, and the packet links lose cells."""
    clr = pd.DataFrame(access.rows(pairs, seconds)).assign(cell=lambda d: d.ratio == 1.0).groupby(["cell", "protocol"]).clr.median()
    if not ((clr[True] == 0).all() and (clr[False] > 0).all()):
        return ""
    return (f" Fig. 7(a)'s single source (fig7's runs: 512 cells, 9180 B) loses {clr[False, 'boston']:.4f} (Boston) and "
            f"{clr[False, 'reno']:.4f} (Reno) of its cells with the scenario's packet links and {clr[True, 'boston']:.4f} and "
            f"{clr[True, 'reno']:.4f} with cell links, where its cells arrive at the output's own rate: the drops Fig. 7(a) "
            "reports (fig7.c1) need packet links, so if this row holds only with cell links, Fig. 5(a) and Fig. 7(a) need "
            "two access models (as fig7.c7).")


@figure("fig5", runs=_fig5_runs)
def fig5(c, runs):
    """Loss rates and goodput against the buffer, 64 kB window (§4.2, Fig. 5)."""
    fig7a = _fig7a_access(runs["one source"], c.grid.seconds)
    runs = runs["main"]
    df, pts = table(runs, c.grid.seconds)
    c.write("fig5", pts, df)
    _panels(c, pts, 64, "fig5", "Fig. 5: 16 sources, 64 kB window")
    plr, clr, eta, rr = _at(pts, "plr"), _at(pts, "clr"), _at(pts, "eta"), _at(pts, "retx_rate")
    busy, fair, to, fr = _at(pts, "bottleneck_busy"), _at(pts, "fairness"), _at(pts, "timeouts"), _at(pts, "fast_retransmits")
    top, top_plr, per_lost = _at(pts, "top_frame_share"), _at(pts, "top_plr"), _at(pts, "cells_per_lost_frame")
    dup, eoc = _at(pts, "duplicate_share"), _at(pts, "eta_over_cap")
    R, B_ = "reno", "boston"
    src = _cmd("fig5", "fig5.csv")

    curves = {f"{p} {L}": _violations([(plr if p == R else clr)[p, L, b, 64] for b in BUFFERS]) for p in (R, B_) for L in SIZES}
    bad = [k for k, v in curves.items() if v > 1]

    def series(col, p, L, d=3):
        return ", ".join(f"{col[p, L, b, 64]:.{d}f}" for b in BUFFERS)
    why1 = "; ".join(f"{p} {L} B: {'' if p == R else f'CLR {series(clr, p, L)}, '}PLR {series(plr, p, L)}, "
                     f"cells lost per damaged frame {series(per_lost, p, L, 1)}, bottleneck busy {series(busy, p, L, 2)}"
                     for p, L in ((k.split()[0], int(k.split()[1])) for k in bad))
    c.claim("c1", statement="as the switch buffer shrinks the loss rate gradually increases", kind="shape", paper_value="§4.2 ¶2, Fig. 5(a)",
            ours=curves, holds=check(*((f"increases with B of {k}", v, at_most(1)) for k, v in curves.items())),
            rule="Reno PLR and Boston CLR against B; a rise from one buffer to the next larger is a violation",
            deviation=f"Measured {src}, B = {', '.join(map(str, BUFFERS))} cells: {why1}. Toward the smallest buffers "
                      + ("the frames lost still rise but " if all(_violations([plr[p, L, b, 64] for b in BUFFERS]) == 0
                                                               for p, L in (k.split() for k in bad) for L in [int(L)]) else "")
                      + "each damaged frame loses fewer cells and the line idles (busy share) while the sources wait out "
                        "timeouts: fewer cells arrive at a full buffer, and only those are dropped." + fig7a
                      + unless_cell_access(SETTLE_SIMULATOR, c.grid.quick))

    v = plr[R, 9180, 64, 64]
    m9, a9 = cells(9180), packet_ratio(9180)
    c.claim("c2", statement="near 100% packet loss rate for Reno at the smallest buffer", kind="value", paper_value="§4.2 ¶2", ours=v,
            holds=check(("Reno PLR at 64 cells, 9180 B", v, at_least(0.8))), rule="",
            deviation=f"Measured {src}: at 64 cells Reno's 9180-byte sources lock one another out (Jain index "
                      f"{fair[R, 9180, 64, 64]:.3f}; the busiest source sends {top[R, 9180, 64, 64]:.0%} of the frames) and the "
                      f"busiest loses only {top_plr[R, 9180, 64, 64]:.0%} of its frames: nearly alone on the switch, its frames "
                      f"arrive {a9:.3f}x faster than the output drains them (the access reading, G2), so each adds "
                      f"{m9 * (1 - 1 / a9):.0f} cells to the queue and the first {int(64 // (m9 * (1 - 1 / a9)))} frames of a "
                      "window pass the 64-cell buffer whole." + unless_cell_access(SETTLE_STARTS, c.grid.quick))

    IN = within(1.2, 3.5)
    rho = {(L, b): (plr[R, L, b, 64] / clr[B_, L, b, 64] if clr[B_, L, b, 64] > 0 else
                    (float("inf") if plr[R, L, b, 64] > 0 else float("nan"))) for L in SIZES for b in BUFFERS}
    med = float(np.median(list(rho.values())))
    share = frac([IN.holds(x) for x in rho.values()])
    c.claim("c3", statement="the ratio between Reno's and Boston's loss rates ranges between 1.7 and 2.4", kind="value", paper_value="1.7-2.4 (§4.2 ¶3)",
            ours={"median": med, "share_in_1.2_3.5": share, "by_point": {f"{L}/{b}": x for (L, b), x in rho.items()}},
            holds=check(("median rho over the 24 points", med, within(1.4, 2.8)), (f"share of the 24 points with rho {IN}", share, at_least(0.75))),
            rule="rho = PLR_Reno / CLR_Boston (infinite where Boston loses no cell)",
            deviation=f"Measured {src}: the points outside are " + ", ".join(f"{L}/{b}: {x:.2f}" for (L, b), x in rho.items() if not IN.holds(x)) + ".")

    r4 = {L: rho[L, 64] / rho[L, 4000] for L in SIZES}
    r4_big = rho[9180, 64] / rho[512, 64]
    low = [L for L in SIZES if r4[L] < 1]

    def decomp(L, b):  # rho = (cells per frame / cells lost per damaged Reno frame) x CLR_Reno / CLR_Boston
        return f"{cells(L)}/{per_lost[R, L, b, 64]:.2f} x {clr[R, L, b, 64] / clr[B_, L, b, 64]:.2f}"
    c.claim("c4", statement="the ratio increases toward the marginal buffer size, more so for larger packets", kind="shape", paper_value="§4.2 ¶3",
            ours={L: [rho[L, 64], rho[L, 4000]] for L in SIZES},
            holds=check(*((f"rho({L}, 64) / rho({L}, 4000)", r4[L], at_least(1)) for L in SIZES),
                  ("rho(9180, 64) / rho(512, 64)", r4_big, at_least(1))), rule="",
            deviation=f"Measured {src}: rho = (cells per frame / cells lost per damaged Reno frame) x CLR_Reno/CLR_Boston; "
                      + "; ".join(f"{L} B: {decomp(L, 64)} at 64 cells, {decomp(L, 4000)} at 4000 (bottleneck busy Reno "
                                  f"{busy[R, L, 64, 64]:.2f}, Boston {busy[B_, L, 64, 64]:.2f} at 64 cells)" for L in low)
                      + ": at small buffers Reno idles the line in timeouts while Boston keeps sending into the full buffer, so "
                        "Boston's cell loss rises more than Reno's." + unless_cell_access(SETTLE_SIMULATOR, c.grid.quick))

    got5, tests5 = {}, []
    for L in (1518, 4352):
        r1 = plr[R, L, 256, 64] / plr[R, L, 1000, 64]
        b1 = clr[B_, L, 256, 64] / clr[B_, L, 1000, 64]
        r2 = plr[R, L, 1000, 64] / plr[R, L, 4000, 64]
        got5[L] = {"reno_256_1000": r1, "boston_256_1000": b1, "reno_1000_4000": r2}
        tests5 += [(f"[PLR_R(256)/PLR_R(1000)] / [CLR_B(256)/CLR_B(1000)], {L} B", r1 / b1, above(1)),
                   (f"[PLR_R(256)/PLR_R(1000)] / [PLR_R(1000)/PLR_R(4000)], {L} B", r1 / r2, at_least(2))]
    c.claim("c5", statement="below about 50 kB Reno's loss grows much faster than Boston's", kind="shape", paper_value="§4.2 ¶3", ours=got5, holds=check(*tests5), rule="",
            deviation=f"Measured {src}: Reno's PLR from 1000 to 256 cells grows only " + "; ".join(
                f"{L} B: {plr[R, L, 1000, 64]:.3f} -> {plr[R, L, 256, 64]:.3f} while its bottleneck busy share falls "
                f"{busy[R, L, 1000, 64]:.2f} -> {busy[R, L, 256, 64]:.2f} and its fast retransmits {fr[R, L, 1000, 64]:.0f} -> "
                f"{fr[R, L, 256, 64]:.0f} (timeouts {to[R, L, 1000, 64]:.0f} -> {to[R, L, 256, 64]:.0f})" for L in (1518, 4352))
            + ": a damaged Reno frame sends no ACK, so losses end in timeouts and the idle sources offer fewer frames to the full buffer."
            + unless_cell_access(SETTLE_SIMULATOR, c.grid.quick))

    corr, info = {}, {}
    for p in (R, B_):
        x = [rr[p, L, b, 64] for L in SIZES for b in BUFFERS]
        y = [clr[p, L, b, 64] for L in SIZES for b in BUFFERS]
        corr[p] = float(np.corrcoef(x, y)[0, 1]) if np.std(x) > 0 and np.std(y) > 0 else float("nan")
    x = [rr[R, L, b, 64] for L in SIZES for b in BUFFERS]
    info["reno_with_plr"] = float(np.corrcoef(x, [plr[R, L, b, 64] for L in SIZES for b in BUFFERS])[0, 1])
    c.claim("c6", statement="retransmission-rate plots are almost identical to the loss-rate plots", kind="shape", paper_value="§4.2 ¶3", ours={**corr, **info},
            holds=check(*((f"Pearson r(retransmission rate, CLR) over the 24 points, {p}", corr[p], at_least(0.9)) for p in (R, B_))),
            rule="the catalogue's CLR for both protocols (the paper: 'the plots for cell loss rates'); reno_with_plr is shown, not judged",
            deviation=f"Measured {src}: Reno retransmits whole frames, so its retransmission rate follows its PLR (r = "
                      f"{info['reno_with_plr']:.3f}); its CLR is PLR x (cells lost per damaged frame) / m, and that share varies "
                      "with L: " + ", ".join(f"{L} B {np.median([per_lost[R, L, b, 64] for b in BUFFERS]) / cells(L):.2f}" for L in SIZES)
                      + " (median over B).")

    near = {L: [eoc[B_, L, b, 64] for b in (2000, 4000)] for L in SIZES}
    worst = min(x for v in near.values() for x in v)
    c.claim("c7", statement="Boston's goodput approaches the optimum near 100 kB and stays there", kind="value", paper_value="§4.2 ¶4", ours=near,
            holds=check(("min over L and B in {2000, 4000} of eta_Boston / cap(L)", worst, at_least(0.95))), rule="",
            deviation=f"Measured {src}: at 2000 / 4000 cells the bottleneck is busy "
                      + ", ".join(f"{busy[B_, L, 2000, 64]:.2f} / {busy[B_, L, 4000, 64]:.2f}" for L in SIZES)
                      + f" (L = {', '.join(map(str, SIZES))}) but carries segments the receiver already holds, "
                      + ", ".join(f"{dup[B_, L, 2000, 64]:.3f} / {dup[B_, L, 4000, 64]:.3f}" for L in SIZES)
                      + " of its capacity (duplicate_share: Reno's go-back-N after each of "
                      + ", ".join(f"{to[B_, L, 4000, 64]:.0f}" for L in SIZES)
                      + " timeouts at 4000 cells); the rest, busy - eta/cap - duplicate_share = "
                      + ", ".join(f"{busy[B_, L, 2000, 64] - eoc[B_, L, 2000, 64] - dup[B_, L, 2000, 64]:.3f} / "
                                  f"{busy[B_, L, 4000, 64] - eoc[B_, L, 4000, 64] - dup[B_, L, 4000, 64]:.3f}" for L in SIZES)
                      + ", carries pieces that complete no new segment." + unless_cell_access(SETTLE_SIMULATOR, c.grid.quick))

    below_ = frac([eta[R, L, b, 64] < eta[B_, L, b, 64] for L in SIZES for b in BUFFERS])
    big = sum(eta[R, 9180, b, 64] <= eta[R, 512, b, 64] for b in BUFFERS)
    c.claim("c8", statement="Reno's goodput stays low, especially for larger packets, over the whole buffer range", kind="shape", paper_value="§4.2 ¶4",
            ours={"share_reno_below_boston": below_, "buffers_reno9180_le_reno512": big},
            holds=check(("share of the 24 points with eta_Reno < eta_Boston", below_, at_least(0.9)),
                  ("buffers (of 6) with eta_Reno(9180) <= eta_Reno(512)", big, at_least(4))), rule="",
            deviation=f"Measured {src}: eta_Reno >= eta_Boston at " + (", ".join(
                f"{L}/{b} ({eta[R, L, b, 64]:.3f} vs {eta[B_, L, b, 64]:.3f})" for L in SIZES for b in BUFFERS
                if eta[R, L, b, 64] >= eta[B_, L, b, 64]) or "no point") + "; eta_Reno(9180) vs eta_Reno(512) by B: "
                      + ", ".join(f"{eta[R, 9180, b, 64]:.3f} vs {eta[R, 512, b, 64]:.3f}" for b in BUFFERS) + ".")


@figure("table1", runs=lambda g: _star(g, ("reno", "boston"), 64))
def table1(c, runs):
    """Response time (µs per byte) per packet size and buffer, 64 kB window (§4.2, Table 1)."""
    df, pts = table(runs, c.grid.seconds)
    R = _at(pts, "response_us_per_byte")
    rows = []
    for L in SIZES:
        for i, b in enumerate(BUFFERS):
            rows.append({"L": L, "B_cells": b, "B_kB_label": BUFFER_KB[b], "boston": R["boston", L, b, 64], "reno": R["reno", L, b, 64],
                         "paper_boston": TABLE1[L][i][0], "paper_reno": TABLE1[L][i][1],
                         "floor_us_per_byte": 16 / (1.5e6 / 8 * cap(L)) * 1e6})
    import pandas as pd

    t = pd.DataFrame(rows)
    c.write("table1", t, df)
    rb = {(L, b): (R["boston", L, b, 64], R["reno", L, b, 64]) for L in SIZES for b in BUFFERS}
    eta, busy, fair = _at(pts, "eta"), _at(pts, "bottleneck_busy"), _at(pts, "fairness")
    plr, top, top_plr = _at(pts, "plr"), _at(pts, "top_frame_share"), _at(pts, "top_plr")
    to, fr = _at(pts, "timeouts"), _at(pts, "fast_retransmits")
    src = _cmd("table1", "table1_runs.csv, medians per point")
    n = sum(bo <= re for bo, re in rb.values())
    c.claim("c1", statement="Boston's response time is at most Reno's", kind="shape", paper_value="Table 1", ours=n,
            holds=check(("cells (of 24) with R_Boston <= R_Reno", n, at_least(22))), rule="",
            deviation=f"Measured {src}: R_Boston > R_Reno (µs/byte) at " + ", ".join(
                f"{L} B/{b} cells ({bo:.1f} vs {re:.1f}, bottleneck busy Boston {busy['boston', L, b, 64]:.2f}, Reno "
                f"{busy['reno', L, b, 64]:.2f})" for (L, b), (bo, re) in rb.items() if bo > re) + ".")
    ratio = {L: rb[L, 64][1] / rb[L, 64][0] for L in SIZES}
    small, large = (512, 1518), (4352, 9180)

    def lockout(L, b=64):
        return (f"Jain index {fair['reno', L, b, 64]:.3f}, the busiest source sends {top['reno', L, b, 64]:.0%} of the frames "
                f"and loses {top_plr['reno', L, b, 64]:.0%} of them")
    c.claim("c2", statement="at the smallest buffer Reno is far slower for large packets only", kind="value", paper_value="4.21, 5.29 vs 1.07, 1.21 (Table 1)",
            ours=ratio, holds=check(*((f"R_Reno/R_Boston at 64 cells, {L} B", ratio[L], at_least(2)) for L in large),
                         *((f"R_Reno/R_Boston at 64 cells, {L} B", ratio[L], at_most(1.5)) for L in small)), rule="",
            deviation=f"Measured {src}: R_Reno/R_Boston = eta_Boston/eta_Reno. Small packets: Reno idles the line (bottleneck busy "
                      + ", ".join(f"{busy['reno', L, 64, 64]:.2f} against Boston's {busy['boston', L, 64, 64]:.2f}" for L in small)
                      + f" for {small[0]}, {small[1]} B) because a damaged frame sends no ACK: Reno's fast retransmits / timeouts "
                      + ", ".join(f"{fr['reno', L, 64, 64]:.0f} / {to['reno', L, 64, 64]:.0f}" for L in small)
                      + ", Boston's, whose partial ACKs count as duplicates, "
                      + ", ".join(f"{fr['boston', L, 64, 64]:.0f} / {to['boston', L, 64, 64]:.0f}" for L in small)
                      + ". Large packets: Reno's frames are lost at PLR "
                      + ", ".join(f"{plr['reno', L, 64, 64]:.2f}" for L in large)
                      + ", not near 1, because its sources lock one another out (" + "; ".join(f"{L} B: {lockout(L)}" for L in large)
                      + ") and a source nearly alone passes its first frames whole (fig5.c2)." + unless_cell_access(SETTLE_STARTS, c.grid.quick))
    growth = {L: rb[L, 64][1] / rb[L, 256][1] for L in large}
    c.claim("c3", statement="Reno's response time increases hyper-exponentially for the two larger packets", kind="shape",
            paper_value="7.57x, 22.6x from 13.5 to 3.5 kB (Table 1)", ours=growth,
            holds=check(*((f"R_Reno(64)/R_Reno(256), {L} B", growth[L], at_least(5)) for L in large)), rule="",
            deviation=f"Measured {src}: from 256 to 64 cells Reno's PLR moves only "
                      + ", ".join(f"{plr['reno', L, 256, 64]:.2f} -> {plr['reno', L, 64, 64]:.2f}" for L in large)
                      + f" ({large[0]}, {large[1]} B), so its goodput falls "
                      + ", ".join(f"{eta['reno', L, 256, 64]:.3f} -> {eta['reno', L, 64, 64]:.3f}" for L in large)
                      + "; at 64 cells the sources lock one another out (" + "; ".join(f"{L} B: {lockout(L)}" for L in large)
                      + ") and the busiest passes its first frames of each window whole (fig5.c2)." + unless_cell_access(SETTLE_STARTS, c.grid.quick))
    gb = {L: rb[L, 64][0] / rb[L, 4000][0] for L in (512, 1518, 4352)}
    c.claim("c4", statement="Boston's response time increases gradually", kind="shape", paper_value="1.44, 1.48, 2.75 (Table 1)", ours=gb,
            holds=check(*((f"R_Boston(64)/R_Boston(4000), {L} B", v, at_most(3)) for L, v in gb.items())), rule="",
            deviation=f"Measured {src}: Boston's goodput at 64 / 4000 cells " + ", ".join(
                f"{L} B {eta['boston', L, 64, 64]:.3f} / {eta['boston', L, 4000, 64]:.3f} (busy {busy['boston', L, 64, 64]:.2f} / "
                f"{busy['boston', L, 4000, 64]:.2f})" for L in gb) + ".")
    rel = [(rb[L, b][1] - rb[L, b][0]) / rb[L, b][0] for L in SIZES for b in (1000, 2000, 4000)]
    m = float(np.mean(rel))
    pos = sum(x > 0 for x in rel)
    c.claim("c5", statement="at large buffers Boston edges Reno by about 7 µs/byte", kind="value", paper_value="7 µs/byte, 9.9 % (Table 1)",
            ours={"mean_relative": m, "positive_cells": pos},
            holds=check(("mean (R_Reno - R_Boston)/R_Boston over B in {1000, 2000, 4000}, all L", m, within(0.03, 0.25)),
                  ("cells (of 12) with R_Reno > R_Boston", pos, at_least(10))), rule="",
            deviation=f"Measured {src}: (R_Reno - R_Boston)/R_Boston by L and B in (1000, 2000, 4000): "
                      + "; ".join(f"{L} B " + ", ".join(f"{(rb[L, b][1] - rb[L, b][0]) / rb[L, b][0]:+.3f}" for b in (1000, 2000, 4000))
                                  for L in SIZES) + ".")
    at4000 = {L: {"boston": rb[L, 4000][0], "reno": rb[L, 4000][1], "paper": TABLE1[L][5]} for L in SIZES}
    floors = {L: 16 / (1.5e6 / 8 * cap(L)) * 1e6 for L in SIZES}
    best = min(floors, key=floors.get)
    c.claim("c6", statement="absolute response time at the largest buffer (low confidence)", kind="value", paper_value="77 (Boston), 81-88 (Reno) µs/byte",
            ours=at4000, holds=check(*((f"R_{p.capitalize()}/paper at 4000 cells, {L} B", v[p] / v["paper"][k], within(0.7, 1.3))
                            for L, v in at4000.items() for k, p in enumerate(("boston", "reno")))), rule="",
            note=f"The paper's 77-88 µs/byte lie below the physical floor of 16 connections sharing 1.5 Mb/s in cells, "
            f"16 / (1.5 Mb/s / 8 x cap(L)): {floors[best]:.1f} µs/byte at best ({best} B), "
            + ", ".join(f"{floors[L]:.1f}" for L in SIZES) + f" for L = {', '.join(map(str, SIZES))} (floor column of table1.csv); "
            f"the paper's R must be defined otherwise (catalogue I2). Ours {src}.")


@figure("fig6", runs=lambda g: _star(g, ("reno", "boston"), 8) + _star(g, ("reno", "boston"), 64))
def fig6(c, runs):
    """Loss rates and goodput with an 8 kB window (§4.2 last ¶, Fig. 6)."""
    df, pts = table(runs, c.grid.seconds)
    c.write("fig6", pts[pts.w_kb == 8], df[df.w_kb == 8])
    _panels(c, pts, 8, "fig6", "Fig. 6: 16 sources, 8 kB window")
    eta = _at(pts, "eta")
    gap = {w: {L: float(np.mean([eta["boston", L, b, w] - eta["reno", L, b, w] for b in BUFFERS])) for L in SIZES} for w in (8, 64)}
    n = sum(gap[8][L] < gap[64][L] for L in SIZES)
    c.claim("c1", statement="the two protocols converge as the window shrinks", kind="shape", paper_value="§4.2 last ¶", ours=gap,
            holds=check(("L (of 4) whose mean over B of (eta_Boston - eta_Reno) is smaller at 8 kB than at 64 kB", n, at_least(3))), rule="",
            deviation="Measured (`python -m atmsim reproduce boston97 --figure fig6 --out DIR`, fig6_runs.csv): mean gap at 8 / 64 kB "
                      + ", ".join(f"{L} B {gap[8][L]:.3f} / {gap[64][L]:.3f}" for L in SIZES) + ".")
    slack = 0.01
    share = frac([eta["boston", L, b, 8] >= eta["reno", L, b, 8] - slack for L in SIZES for b in BUFFERS])
    c.claim("c2", statement="Boston still at least as good as Reno with an 8 kB window", kind="shape", paper_value="Fig. 6", ours=share,
            holds=check((f"share of the 24 points at 8 kB with eta_Boston >= eta_Reno - {slack}", share, at_least(0.9))), rule="",
            deviation="Measured (`python -m atmsim reproduce boston97 --figure fig6 --out DIR`, fig6.csv): eta_Boston < eta_Reno - "
                      f"{slack} at " + ", ".join(f"{L}/{b} ({eta['boston', L, b, 8]:.3f} vs {eta['reno', L, b, 8]:.3f})"
                                                for L in SIZES for b in BUFFERS if eta["boston", L, b, 8] < eta["reno", L, b, 8] - slack)
                      + ".")


def _window_points(g):
    return ((4352, 9180), (64, 512, 2000)) if g.quick else (SIZES, BUFFERS)


def _windows_runs(g):
    sizes, buffers = _window_points(g)
    mid = [g.run(p, L, B, w, 1) for w in (16, 32) for p in ("reno", "boston") for L in sizes for B in buffers]
    return mid + _star(g, ("reno", "boston"), 8) + _star(g, ("reno", "boston"), 64)


@figure("windows", runs=_windows_runs)
def windows(c, runs):
    """The gap between Boston and Reno against the window, 8 to 64 kB (§4.2 last ¶)."""
    df, pts = table(runs, c.grid.seconds)
    sizes, buffers = _window_points(c.grid)
    eta = _at(pts, "eta")
    G = {w: float(np.mean([eta["boston", L, b, w] - eta["reno", L, b, w] for L in sizes for b in buffers])) for w in (8, 16, 32, 64)}
    import pandas as pd

    c.write("windows", pd.DataFrame([{"w_kb": w, "gap": v} for w, v in G.items()]), df)
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(list(G), list(G.values()), marker="o")
    ax.set_xlabel("window (kB)")
    ax.set_ylabel("mean eta_Boston - eta_Reno")
    ax.grid(alpha=0.3)
    save(fig, c.out / "windows.png")
    ws = [8, 16, 32, 64]
    inv = [G[a] - G[b] for a, b in zip(ws, ws[1:]) if G[b] < G[a]]
    c.claim("c1", statement="a gradual convergence as the window shrinks from 64 to 8 kB", kind="shape", paper_value="§4.2 last ¶", ours=G,
            holds=check(("decreases of G from one window to the next larger (8, 16, 32, 64 kB)", len(inv), at_most(1)),
                  ("largest decrease", max(inv, default=0.0), at_most(0.01))),
            rule="G(w) = mean over (L, B) of eta_Boston - eta_Reno",
            note=f"pooled over L in {list(sizes)}, B in {list(buffers)} cells; 16 and 32 kB with seed 1 only")


def _epd_buffers(g):
    return (64, 512, 2000) if g.quick else BUFFERS


# epd.c1's sweep of the EPD threshold, which the paper does not give: T / B from the default's floor (half the buffer)
# to the buffer itself (where EPD refuses a frame only when the buffer is full, as PPD would), beside the default.
EPD_FRACTIONS = (0.5, 0.75, 1.0)
EPD_SHARE = at_least(0.7)  # epd.c1: share of the points with eta_Boston >= eta_Reno+EPD


def _epd_runs(g) -> dict:
    """Reno+EPD (the default threshold), Reno and Boston on the grid; Reno+EPD at each swept threshold at the
    grid's first seed."""
    sweep = [dataclasses.replace(r, overrides=r.overrides + (f"switch.epd_threshold={max(1, int(b * f))}",))
             for L in SIZES for b in _epd_buffers(g) for f in EPD_FRACTIONS
             for r in [g.run("reno-epd", L, b, 64, g.seeds[0], tag={"threshold": f})]]
    return {"grid": _star(g, ("reno-epd",), 64, buffers=_epd_buffers(g)) + _star(g, ("reno", "boston"), 64), "threshold": sweep}


def _epd_sweep(c, df, sweep, pairs) -> tuple[str, list]:
    """epd.c1 at each swept threshold against Boston's runs of the same seed (epd_threshold.csv): the text, and the
    thresholds at which the row's share is in its band."""
    sw, _ = table(sweep, c.grid.seconds)
    sw.to_csv(c.out / "epd_threshold.csv", index=False)
    first = int(sw.seed.min())
    if first not in set(df.seed):  # a remake without that seed (seeds.leave_one_out): nothing to compare with
        return "", []
    at = df[(df.seed == first) & (df.w_kb == 64)].set_index(["protocol", "L", "B"]).eta
    share = {"the default": frac([at["boston", L, b] >= at["reno-epd", L, b] for L, b in pairs])}
    for f, g in sw.groupby("threshold"):
        e = g.set_index(["L", "B"]).eta
        share[f"{f:g} x B"] = frac([at["boston", L, b] >= e[L, b] for L, b in pairs])
    ok = [k for k, v in share.items() if EPD_SHARE.holds(v)]
    return (f" EPD threshold sweep (seed {first}, epd_threshold.csv), the share of the points with eta_Boston >= eta_Reno+EPD "
            "by threshold: " + ", ".join(f"{k}: {v:.3f}" for k, v in share.items())
            + ". Thresholds with the row's share in its band: " + (", ".join(ok) or "none") + "."), ok


@figure("epd", runs=_epd_runs)
def epd(c, runs):
    """Reno with Early Packet Discard beside Reno and Boston, 64 kB window (§1, §5; the paper shows no data)."""
    df, pts = table(runs["grid"], c.grid.seconds)
    bs = _epd_buffers(c.grid)
    c.write("epd", pts[pts.B.isin(bs)], df)
    eta, busy, per_lost = _at(pts, "eta"), _at(pts, "bottleneck_busy"), _at(pts, "cells_per_lost_frame")
    dup = _at(pts, "duplicate_share")
    pairs = [(L, b) for L in SIZES for b in bs]
    src = _cmd("epd", "epd.csv")
    s1 = frac([eta["boston", L, b, 64] >= eta["reno-epd", L, b, 64] for L, b in pairs])
    swept, fits = _epd_sweep(c, df, runs["threshold"], pairs)

    eoc = _at(pts, "eta_over_cap")

    def mean(col, p, f=lambda v: v):
        return float(np.mean([f(col[p, L, b, 64]) for L, b in pairs]))

    def rest(p):  # line share carrying cells that complete no new segment and are no duplicate segment
        return float(np.mean([busy[p, L, b, 64] - eoc[p, L, b, 64] - dup[p, L, b, 64] for L, b in pairs]))
    c.claim("c1", statement="Boston outperforms Reno with EPD switches", kind="shape", paper_value="§5 (no data shown)", ours=s1,
            holds=check((f"share of the {len(pairs)} points with eta_Boston >= eta_Reno+EPD", s1, EPD_SHARE)), rule="",
            deviation=f"Measured {src}, means over the points: Reno+EPD loses "
                      f"{np.mean([per_lost['reno-epd', L, b, 64] / cells(L) for L, b in pairs]):.0%} of a damaged frame's cells "
                      f"(EPD discards frames whole; Boston {np.mean([per_lost['boston', L, b, 64] / cells(L) for L, b in pairs]):.0%}), "
                      f"so the cells that cross the bottleneck belong to whole frames; bottleneck busy Reno+EPD "
                      f"{mean(busy, 'reno-epd'):.3f}, Boston {mean(busy, 'boston'):.3f}; line share spent on duplicate segments "
                      f"Reno+EPD {mean(dup, 'reno-epd'):.3f}, Boston {mean(dup, 'boston'):.3f}, on cells that complete no new "
                      f"segment (busy - eta/cap - duplicates) Reno+EPD {rest('reno-epd'):.3f}, Boston {rest('boston'):.3f}; eta Reno+EPD {mean(eta, 'reno-epd'):.3f}, "
                      f"Boston {mean(eta, 'boston'):.3f}. The threshold is the project's default (buffer minus one frame, at least half "
                      "the buffer); the paper shows no EPD data." + swept + (SETTLE_SIMULATOR if fits else ""))
    s2 = frac([eta["reno-epd", L, b, 64] >= eta["reno", L, b, 64] for L, b in pairs])
    c.claim("c2", statement="EPD improves Reno's effective throughput", kind="shape", paper_value="§1, quoting [22]", ours=s2,
            holds=check((f"share of the {len(pairs)} points with eta_Reno+EPD >= eta_Reno", s2, at_least(0.7))), rule="",
            note="EPD threshold: the project's default (the buffer minus one frame, at least half the buffer); the paper gives none.",
            deviation=f"Measured {src}: eta_Reno+EPD < eta_Reno at " + ", ".join(
                f"{L}/{b} ({eta['reno-epd', L, b, 64]:.3f} vs {eta['reno', L, b, 64]:.3f})" for L, b in pairs
                if eta["reno-epd", L, b, 64] < eta["reno", L, b, 64]) + ".")
