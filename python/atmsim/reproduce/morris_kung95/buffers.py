"""morris-kung95 Figs. 3, 4 and 5: TCP through a per-VC switch buffer
without flow control (§IV).

Config (a): one TCP from host A through the switch to host B; the buffer
per VC and the MTU vary in Fig. 3, Figs. 4 and 5 trace the 32 KiB buffer.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.claims import above, at_least, at_most, below, check, frac, within
from atmsim.reproduce import seeds
from atmsim.reproduce.harness import figure, per_run

from . import noise
from .pauses import pauses_of
from .common import (B_FULL, B_QUICK, BUFFER_A, CELL_PAYLOAD, CELL_RATE_53, HEADER, MSS, MTU, MTUS, OC3_CELLS,
                     PACKET_CELLS, WARMUP_S, g_max, goodput, pairs, window_cells_kib)


BAD_B, FULL_B, PPD_B = 32, 64, 48  # KiB: "badly unless ... close to an entire 64Kbyte window"; PPD judged up to 48 KiB
GOOD = at_least(0.9)  # fig3.c2 and B90: goodput / G_max
PPD_GAIN, PPD_TOP = at_most(0.1), at_most(0.3)  # fig3.c6: (PPD - tail) / G_max, PPD / G_max
NO_TWIN = ("or a BSD TCP over a per-VC cell buffer on another simulator; ns-2 has no cells, and the independent cell-level "
           "simulator validation/cellsim does not settle this row (docs/validation.md).")
# fig3.c4-c6: the cell-level twin (validation/cellsim/mk95_points.json) fails each row too (python/atmsim/settled.py).
TWIN = ("An independent cell-level simulator of config (a), written from the paper and the catalogue without atmsim's code "
        "(validation/cellsim), fails this row too, by the same mechanism (docs/validation.md).")


def _probe_runs(what: str) -> list:
    """The runs of the mechanism probe `what` (anatomy.py), imported late so that `python -m ...anatomy` runs it as a script."""
    from . import anatomy

    return anatomy.runs(what)


def _probe(what: str, pairs) -> dict:
    from . import anatomy

    return anatomy.measure(what, pairs)


def _buffers(g) -> list[int]:
    return B_QUICK if g.quick else B_FULL


def _fig3_runs(g) -> dict:
    """Config (a) without flow control: each MTU x per-VC buffer x seed with tail drop, PPD at MTU 9180,
    and (full grid) an ablation without host storage; each run with its warm-up prefix (`Grid.pair`). The probe
    `anatomy fig3` (traced) explains fig3.c2; the seed sweep (noise.py) is c4's and c6's notes'."""
    runs = []
    for L in MTUS:
        base = (f"ip.mtu={L}B", f"tcp.mss={L - HEADER}B")
        for b in _buffers(g):
            buf = (f"switch.buffer={b * 1024 // CELL_PAYLOAD}cells",)
            for s in g.seeds:
                runs += g.pair("a", base + buf, s, tag=dict(L=L, B_kib=b, series="host storage", seed=s))
                if L == MTU:
                    runs += g.pair("a", base + buf + ("switch.policy=ppd",), s, tag=dict(L=L, B_kib=b, series="PPD", seed=s))
            if not g.quick:  # ablation: cut-through adapters and an ACK for every packet, one seed
                runs += g.pair("a", base + buf + ("host.model=ideal", "tcp.delayed_ack=false"), 1,
                               tag=dict(L=L, B_kib=b, series="no host storage", seed=1))
    return {"grid": runs, "anatomy": _probe_runs("fig3"), seeds.SWEEP: noise.fig3_runs(g)}


@figure("fig3", runs=_fig3_runs)
def fig3(c, runs):
    """Goodput against the switch buffer and the MTU, no flow control (§IV ¶1-2, Fig. 3)."""
    bs = _buffers(c.grid)
    rows = []
    for run, r, r0 in pairs(runs["grid"]):
        f, f0 = r["flows"][0], r0["flows"][0]
        rows.append({**run.tag, "goodput_MBps": goodput(r, r0) / 1e6, "g_max_MBps": g_max(run.tag["L"]) / 1e6,
                     "delivered_kB": (f["bytes_delivered"] - f0["bytes_delivered"]) / 1e3,
                     **{k: f[k] - f0[k] for k in ("timeouts", "fast_retransmits", "segments_lost", "loss_episodes")},
                     "cells_dropped": r["accounting"]["cells_dropped"] - r0["accounting"]["cells_dropped"]})
    df = pd.DataFrame(rows)
    cols = ["goodput_MBps", "g_max_MBps", "delivered_kB", "timeouts", "fast_retransmits", "segments_lost", "loss_episodes"]
    pts = df.groupby(["series", "L", "B_kib"], sort=False)[cols].median().reset_index()
    pts["share"] = pts.goodput_MBps / pts.g_max_MBps
    pts.pipe(c.table, "fig3")
    df.pipe(c.table, "fig3_runs")
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for (series, L), g in pts.groupby(["series", "L"], sort=False):
        ax.plot(g.B_kib, g.goodput_MBps, "-" if series == "host storage" else ("--" if series == "PPD" else ":"), marker="o", ms=3,
                label=f"MTU {L}, {series}")
    ax.set_xlabel("switch buffer per VC (KiB of payload)")
    ax.set_ylabel("goodput (MB/s)")
    ax.set_title("config (a), no flow control")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
    save(fig, c.out / "fig3.png")

    win = "[1 s, end]" if WARMUP_S == 1 else f"[{WARMUP_S:g} s, end]"
    main = pts[pts.series == "host storage"]
    share = main.set_index(["L", "B_kib"])["share"]
    c1 = [share[L, b] for L in MTUS for b in bs if b <= BAD_B]
    c.claim("c1", statement="regardless of packet size TCP performs badly unless the buffer is close to a 64 KB window", kind="shape",
            paper_value="§IV ¶1", ours=max(c1), holds=check((f"largest goodput / G_max at B <= {BAD_B} KiB, every MTU", max(c1), at_most(0.2))),
            rule=f"goodput over {win}, median over seeds")
    c2 = [share[L, b] for L in MTUS for b in bs if b >= FULL_B]
    c.claim("c2", statement="performance is good with a full 64 KB window of buffer", kind="shape", paper_value="§IV ¶1", ours=min(c2),
            holds=check((f"smallest goodput / G_max at B >= {FULL_B} KiB, every MTU", min(c2), GOOD)), rule="with host storage",
            deviation=_c2_note(main, _probe("fig3", runs["anatomy"])["1500@64KiB"]))

    def b90(L, table=share):
        ok = [b for b in bs if GOOD.holds(table[L, b])]
        return min(ok) if ok else None

    c.claim("c3", statement="performance is good at slightly less than 64K: packets are stored in hosts and adapters", kind="shape",
            paper_value="§IV ¶2", ours=b90(9180), holds=check((f"B90(9180) (KiB; smallest grid B with goodput / G_max {GOOD})", b90(9180), at_most(60))), rule="")
    gp = main.set_index(["L", "B_kib"])["goodput_MBps"]
    b = {L: b90(L) for L in MTUS}
    steps = [None if b[x] is None or b[y] is None else b[x] - b[y] for x, y in zip(MTUS, MTUS[1:])]
    big = frac([gp[9180, x] >= gp[1500, x] for x in bs])
    c.claim("c4", statement="large packets perform better than small", kind="shape", paper_value="§IV ¶2",
            ours={"B90": b, "share_9180_ge_1500": big},
            holds=check(*((f"B90({x}) - B90({y}) (KiB)", d, at_least(0)) for (x, y), d in zip(zip(MTUS, MTUS[1:]), steps)),
                  ("share of B with goodput(9180) >= goodput(1500)", big, at_least(0.8))), rule="B90 non-increasing in the MTU",
            deviation=_c4_note(pts[pts.series == "host storage"], bs) + noise.fig3_c4_noise(c, runs[seeds.SWEEP], bs)
            + " " + TWIN)
    abl = pts[pts.series == "no host storage"]
    if len(abl):
        ash = abl.set_index(["L", "B_kib"])["share"]
        a = {L: b90(L, ash) for L in MTUS}
        d = abs(bs.index(a[1500]) - bs.index(a[9180])) if a[1500] is not None and a[9180] is not None else None
        c.claim("c5", statement="the large-packet advantage comes only from storage in hosts and adapters", kind="shape", paper_value="§IV ¶2",
                ours={"B90_1500": a[1500], "B90_9180": a[9180]},
                holds=check(("without host storage: |B90(1500) - B90(9180)| in grid steps", d, at_most(1))), rule="one seed",
                deviation=_c5_note(abl, a, bs) + " " + TWIN)
    else:
        c.claim("c5", statement="the large-packet advantage comes only from storage in hosts and adapters", kind="shape", paper_value="§IV ¶2",
                ours=None, holds=check(("without host storage: |B90(1500) - B90(9180)| in grid steps", None, at_most(1))), rule="one seed",
                note="ablation runs only in the full grid; the full run judges the row (docs/morris-kung95.md, fig3.c5)")
    ppd = pts[pts.series == "PPD"].set_index("B_kib")["goodput_MBps"]
    g = g_max(9180) / 1e6
    small = [x for x in bs if x <= PPD_B]
    gain = max((ppd[x] - gp[9180, x]) / g for x in small)
    top = max(ppd[x] / g for x in small)
    c.claim("c6", statement="Partial Packet Discard has only a marginal effect on efficiency", kind="shape", paper_value="§IV",
            ours={f"{x}KiB": {"ppd": float(ppd[x]), "tail": float(gp[9180, x])} for x in small},
            holds=check((f"MTU 9180, B <= {PPD_B} KiB: largest (goodput(PPD) - goodput(tail)) / G_max", gain, PPD_GAIN),
                  ("largest goodput(PPD) / G_max", top, PPD_TOP)), rule="",
            deviation=_c6_note(pts, small, g) + noise.fig3_c6_noise(c, runs[seeds.SWEEP], small, PPD_GAIN.hi, PPD_TOP.hi)
            + " " + TWIN)


def _c2_note(main: pd.DataFrame, a: dict) -> str:
    """fig3.c2's deviation: the failing points and the probe `anatomy fig3` (MTU 1500, 64 KiB)."""
    bad = main[(main.B_kib >= FULL_B) & ~main.share.map(GOOD.holds)]
    pts_txt = ", ".join(f"MTU {int(r.L)} at {int(r.B_kib)} KiB {r.share:.2f} G_max ({r.timeouts:.0f} timeouts)" for r in bad.itertuples())
    wins = ", ".join(f"{window_cells_kib(L):.1f} KiB (MTU {L})" for L in MTUS)
    return (f"Below {GOOD.lo:g} G_max: {pts_txt}. A 65,535-byte window of full segments occupies {wins} of cell payload (AAL5 padding and "
            f"headers cost small packets more): at MTU {a['L']} {a['window_segments']} segments = {a['window_cells']} cells, "
            f"{a['window_cells'] - a['buffer_cells']} more than the {a['buffer_cells']}-cell buffer, so the switch overflows whenever "
            f"fewer than that many cells of the window are held outside it. Measured by "
            f"`python -m atmsim.reproduce.morris_kung95.anatomy fig3` (MTU {a['L']}, 64 KiB, seed 1, 20 s): all {a['losses']} losses "
            f"come with the whole window out (cwnd {'/'.join(map(str, a['cwnd_at_loss_segments']))} segments, "
            f"{'/'.join(map(str, a['unacked_at_loss_segments']))} unacknowledged), in {a['loss_episodes']} episodes, "
            f"{a['multiple_loss_episodes']} of them of two or more packets; {a['fast_retransmits']} fast retransmits and "
            f"{a['timeouts']} timeouts, each after {min(a['silent_before_timeout_s']):.2f}-{max(a['silent_before_timeout_s']):.2f} s "
            f"without a packet sent.")


def _c4_note(main: pd.DataFrame, bs: list) -> str:
    """fig3.c4's deviation, from the points (fig3.csv): below the cliff the timeout cycle sets the goodput."""
    lo = main[main.B_kib <= PPD_B]
    gp = main.set_index(["L", "B_kib"]).goodput_MBps
    worse = [x for x in bs if gp[9180, x] < gp[1500, x]]
    m = max(worse) if worse else None
    by = lo[lo.B_kib == m].set_index("L") if m is not None else None
    per = (lambda L: by.delivered_kB[L] / by.timeouts[L] if by.timeouts[L] else float("nan"))
    segs = {L: 65535 // (L - HEADER) for L in (1500, 9180)}
    return (f"MTU 1500 delivers more than MTU 9180 at B = {', '.join(map(str, worse))} KiB, all below the cliff, where every MTU "
            f"stays under {lo.share.max():.2f} G_max and times out {lo.timeouts.min():.0f}-{lo.timeouts.max():.0f} times over [1 s, end]: "
            f"the retransmission timer, not the packet size, sets the cycle, and the goodput is what a cycle delivers. At {m} KiB "
            f"(median over seeds, fig3.csv) MTU 1500 delivers {per(1500):.0f} kB per timeout with {by.fast_retransmits[1500]:.0f} fast "
            f"retransmits, MTU 9180 {per(9180):.0f} kB with {by.fast_retransmits[9180]:.0f}: with {segs[1500]} segments to a window "
            f"rather than {segs[9180]}, more losses return three duplicate ACKs and are repaired without a timeout. "
            f"`python -m atmsim reproduce morris-kung95 --figure fig3`.")


def _c5_note(abl: pd.DataFrame, a: dict, bs: list) -> str:
    """fig3.c5's deviation, from the ablation points."""
    mid = [x for x in bs if a[9180] is not None and a[1500] is not None and a[9180] < x < a[1500]]
    t = abl.set_index(["L", "B_kib"])
    return (f"Without host storage B90 is {a[1500]} KiB (MTU 1500) and {a[9180]} KiB (MTU 9180). A window's cells still differ: "
            f"{window_cells_kib(1500):.1f} KiB of cell payload at MTU 1500 against {window_cells_kib(9180):.1f} KiB at 9180 (see "
            f"c2's note), a per-cell overhead effect the paper does not mention; at the grid point{'s' if len(mid) > 1 else ''} "
            f"between ({', '.join(f'{x} KiB' for x in mid)}) MTU 1500 gets "
            f"{', '.join(f'{t.share[1500, x]:.2f}' for x in mid)} G_max with "
            f"{', '.join(f'{t.timeouts[1500, x]:.0f}' for x in mid)} timeouts and MTU 9180 "
            f"{', '.join(f'{t.share[9180, x]:.2f}' for x in mid)} with {', '.join(f'{t.timeouts[9180, x]:.0f}' for x in mid)} "
            f"(fig3.csv, series 'no host storage'; `python -m atmsim reproduce morris-kung95 --figure fig3`).")


def _c6_note(pts: pd.DataFrame, small: list, g: float) -> str:
    """fig3.c6's deviation, from the points (median over seeds): where PPD gains, tail drop loses two segments per episode."""
    p = pts[pts.L == 9180].set_index(["series", "B_kib"])
    bad = [x for x in small if not (PPD_GAIN.holds((p.goodput_MBps["PPD", x] - p.goodput_MBps["host storage", x]) / g)
                                    and PPD_TOP.holds(p.goodput_MBps["PPD", x] / g))]
    parts = []
    for x in bad:
        tl, pp = p.loc[("host storage", x)], p.loc[("PPD", x)]
        parts.append(f"at {x} KiB tail drop loses {tl.segments_lost:.0f} segments in {tl.loss_episodes:.0f} episodes with "
                     f"{tl.fast_retransmits:.0f} fast retransmits and {tl.timeouts:.0f} timeouts ({tl.goodput_MBps:.2f} MB/s), PPD "
                     f"{pp.segments_lost:.0f} in {pp.loss_episodes:.0f} with {pp.fast_retransmits:.0f} and {pp.timeouts:.0f} "
                     f"({pp.goodput_MBps:.2f} MB/s)")
    return ("At the edge of the cliff a tail-drop overflow costs two segments (a lost EOM cell merges the next packet into the "
            "damaged one, docs/atm.md A4), fast retransmit repairs one and the other waits for a timeout; PPD keeps the EOM, so an episode costs one "
            "segment, which fast retransmit repairs without a timeout: " + "; ".join(parts)
            + " (medians over seeds, fig3.csv; `python -m atmsim reproduce morris-kung95 --figure fig3`).")


# --------------------------------------------------------------------------- fig4

def _log_runs(g) -> list:
    """Config (a) with the 53 Mb/s port logged, one traced run per seed: fig4 and fig5 read the same runs."""
    return [g.run("a", ("trace.port=S->B",), s, True) for s in g.seeds]


@figure("fig4", runs=lambda g: {"log": _log_runs(g), "warm": [g.run("a", (f"duration={WARMUP_S:g}s",), s) for s in g.seeds],
                                 seeds.SWEEP: noise.fig4_runs(g)})
def fig4(c, runs):
    """Bandwidth over time with timeouts, 32 KiB per-VC buffer, no flow control (§IV ¶3, Fig. 4). Pauses,
    bursts and goodput over [1 s, end] (catalogue 2.2)."""
    warm = {run.seed: s for run, s in runs["warm"]}
    pauses, bursts, rows, classes, all_pauses = [], [], [], [], []
    long_pauses = after_lost = between = 0
    for run, result in runs["log"]:
        seed, s = run.seed, result[0]
        got = pauses_of(run, result)
        p, pc = got["pauses"], got["classes"]
        pauses += p
        bursts += got["bursts"]
        all_pauses += got["all_pauses"]
        classes.append(pc)
        long_pauses, after_lost, between = long_pauses + got["long"], after_lost + got["after_lost"], between + got["between"]
        rows.append({"seed": seed, "goodput_MBps": goodput(s, warm[seed]) / 1e6, "timeouts": s["flows"][0]["timeouts"],
                     "pauses": len(p), "median_pause_s": float(np.median(p)) if p else None,
                     "pauses_over_2s": len(pc["long"]), "after_timed_segment_lost": pc["short_timed_lost"] + pc["long_timed_lost"]})
    pd.DataFrame(rows).pipe(c.table, "fig4")
    s, tr = runs["log"][0][1]
    ev = pd.DataFrame({k: np.asarray(v) for k, v in tr["events"].items()})
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    sends = ev[ev.kind.isin(["send", "retransmit"])]
    bins = np.arange(0, s["end_time_s"] + 0.05, 0.05)
    h, _ = np.histogram(sends.t, bins=bins)
    fig, ax = plt.subplots(figsize=(9, 3.5))
    ax.bar(bins[:-1], h * MTU / 0.05 / 1e6, width=0.05, align="edge", color="0.3")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("MB/s sent (50 ms bins)")
    ax.set_title("config (a), 64 KB window, 32 KiB per-VC buffer, no flow control (seed 1)")
    save(fig, c.out / "fig4.png")
    mp = float(np.median(pauses)) if pauses else float("nan")
    noise_c1, noise_c2 = noise.fig4_noise(c, runs[seeds.SWEEP])
    c.claim("c1", statement="TCP sends small bursts separated by 1.5-second pauses", kind="trace", paper_value="1.5 s (§IV ¶3)", ours=mp,
            holds=check(("median pause (>= 0.5 s without a packet from A), pooled over seeds, s", mp, within(1.0, 2.0))), rule="pauses that start in [1 s, end]",
            deviation=_fig4_note(classes, mp, float(np.median(all_pauses)) if all_pauses else float("nan")) + noise_c1
            + " What would settle it: the lengths of the paper's pauses one by one (it gives one typical length and one trace), "
            + NO_TWIN)
    c.claim("c2", statement="an inactivity period of more than 2 seconds, from exponential back-off", kind="trace", paper_value="> 2 s (§IV ¶3)",
            ours=after_lost,
            holds=check(("pauses > 2 s over the seeds that follow a timeout whose retransmission was itself lost", after_lost, at_least(1))),
            rule="amended 2026-11-29, read as written (the proxy 'the pause lies between two timeouts' is not the claim): "
            "pauses that start in [1 s, end]",
            note=f"{long_pauses} pauses > 2 s over {len(runs['log'])} seeds; {after_lost} follow a timeout whose retransmission "
            f"was lost; {between} lie between two timeouts (the proxy judged until 2026-11-29); "
            f"{pause_summary(classes)['long_timed_lost']} follow a burst whose timed segment was dropped (Karn's rule keeps "
            f"the back-off).", deviation=noise_c2.lstrip()
            + " What would settle it: the paper's own trace of Fig. 4, which would show whether OSF/1's retransmission after a "
            "timeout was lost, " + NO_TWIN)
    mb = float(np.median(bursts)) if bursts else float("nan")
    c.claim("c3", statement="the window outgrows the buffer within tens of milliseconds after TCP retransmits", kind="trace", paper_value="§IV ¶3",
            ours=mb, holds=check(("median burst (s), pooled over seeds", mb, at_most(0.1))), rule="bursts that start in [1 s, end]")
    mg = float(np.median([r["goodput_MBps"] for r in rows]))
    c.claim("c4", statement="mean goodput in this regime", kind="value", paper_value="0.1 MB/s (§V)", ours=mg,
            holds=check(("goodput over [1 s, end] (MB/s), median over seeds", mg, at_most(0.35))), rule="")
    t_host, t_155, t_53 = 65535 / 15e6, 65535 / (OC3_CELLS / PACKET_CELLS * MSS), 65535 / g_max(MTU)
    c.claim("c5", statement="TCP can send a window in less than 10 milliseconds", kind="analytic", paper_value="< 10 ms (§IV ¶3)",
            ours={"host_ms": t_host * 1e3, "oc3_ms": t_155 * 1e3, "drain_53_ms": t_53 * 1e3},
            holds=check(("65,535 B at the host's 15 MB/s (ms)", t_host * 1e3, below(10)), ("at the OC-3 payload rate (ms)", t_155 * 1e3, below(10))),
            rule="the 53 Mb/s link's time to drain it is reported beside them")


def pause_summary(classes: list) -> dict:
    """Pooled `pause_classes` of several runs (or flows)."""
    short = [x for c in classes for x in c["short"]]
    long_ = [x for c in classes for x in c["long"]]
    return {"short": short, "long": long_, "short_timed_lost": sum(c["short_timed_lost"] for c in classes),
            "long_timed_lost": sum(c["long_timed_lost"] for c in classes)}


def _rng(x: list) -> str:
    """A range of seconds for a note: "a-b s", "a s" or "none"."""
    if not x:
        return "none"
    lo, hi = f"{min(x):.2f}", f"{max(x):.2f}"
    return f"{lo} s" if lo == hi else f"{lo}-{hi} s"


def _fig4_note(classes: list, mp: float, mp_all: float) -> str:
    """fig4.c1's deviation, from the fig4 runs' events (fig4.csv)."""
    s = pause_summary(classes)
    n = len(s["short"]) + len(s["long"])
    return (f"Over [1 s, end] the {n} pauses of the seeds are of two kinds: {len(s['short'])} of {_rng(s['short'])} (the 3-tick "
            f"timer, G3) and {len(s['long'])} of {_rng(s['long'])} (twice that), in turn, so the median ({mp:.2f} s) falls between "
            f"them. Each long pause follows a burst in which the first new segment sent after the timeout, the one timed for an RTT "
            f"sample (Karn's rule), was dropped ({s['long_timed_lost']} of {len(s['long'])}; {s['short_timed_lost']} of "
            f"{len(s['short'])} before a short pause): no sample resets the back-off, so the next timer is doubled. Counting the "
            f"start-up pause before 1 s too, the median is {mp_all:.2f} s. Columns pauses_over_2s and after_timed_segment_lost of "
            f"fig4.csv (`python -m atmsim reproduce morris-kung95 --figure fig4`).")


# --------------------------------------------------------------------------- fig5

PACKET_TIME_53 = PACKET_CELLS / CELL_RATE_53  # one 9180-byte packet on the 53 Mb/s link, 1.595 ms


def in_congestion_avoidance(win: pd.DataFrame, t: np.ndarray) -> np.ndarray:
    """cwnd > ssthresh at times t, from the window trace (one flow)."""
    i = np.searchsorted(win.t.to_numpy(), t, side="right") - 1
    ok = i >= 0
    i = np.maximum(i, 0)
    return ok & (win.cwnd.to_numpy()[i] > win.ssthresh.to_numpy()[i])


@per_run
def _overflows_of(spec, result) -> dict:
    """fig5's reading of one traced run's port log, once per run (harness.per_run: fig5 made again without a seed
    reads the same runs): its overflow `episodes`, the `spacing` of its occupancy peaks and the `rises` to them in
    congestion avoidance, and `first`, (seed, the log around it) for its first episode in congestion avoidance
    (None without one)."""
    from atmsim import portlog

    s, tr = result
    seed, eps, spacing, rises, first = spec.seed, [], [], [], None
    occ = portlog.occupancy(tr["port"], vc=0)  # VC 0: the TCP's data
    win = pd.DataFrame({k: np.asarray(v) for k, v in tr["window"].items()})
    win = win[win.flow == 0]
    drops = occ[occ.change == "drop"]
    for e in portlog.episodes(drops.t.to_numpy(), 2 * PACKET_TIME_53):
        d = drops.iloc[e]
        ca = bool(in_congestion_avoidance(win, d.t.to_numpy()[:1])[0])
        per = d.groupby("frame").size()
        eps.append({"seed": seed, "t": d.t.iloc[0], "congestion_avoidance": ca, "packets_damaged": len(per),
                    "cells_lost": int(per.sum()), "cells_lost_per_packet": per.tolist()})
        if ca and first is None:
            t0 = d.t.iloc[0]
            first = (seed, occ[(occ.t >= t0 - 0.035) & (occ.t <= t0 + 0.012)])
    pk, tro = portlog.extrema(occ, min_swing=PACKET_CELLS // 2)  # half a packet: a pair's arrival, not cell jitter
    tp = occ.t.to_numpy()[pk]
    ca = in_congestion_avoidance(win, tp)
    gap = np.diff(tp)
    spacing += list(gap[ca[1:] & ca[:-1] & (gap < 0.05)])  # within one burst
    q = occ.q.to_numpy()
    tt = occ.t.to_numpy()[tro]
    for k in pk[ca]:  # rise from the trough just before each peak
        j = np.searchsorted(tt, occ.t.iloc[k]) - 1
        if j >= 0 and occ.t.iloc[k] - tt[j] < PACKET_TIME_53:
            rises.append(int(q[k] - q[tro[j]]))
    return {"episodes": eps, "spacing": spacing, "rises": rises, "first": first}


@figure("fig5", runs=_log_runs)
def fig5(c, runs):
    """Switch occupancy as the window opens past the buffer (§IV ¶5-7, Fig. 5): occupancy of the VC
    at the 53 Mb/s port at every change (port log of the fig4 runs); overflow episodes = drops closer
    than 2 packet times."""
    eps, spacing, rises, first = [], [], [], None
    for run, result in runs:
        got = _overflows_of(run, result)
        eps += got["episodes"]
        spacing += got["spacing"]
        rises += got["rises"]
        if first is None:
            first = got["first"]
    ep = pd.DataFrame(eps)
    ep.pipe(c.table, "fig5_episodes")
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(8, 3.6))
    if first is not None:
        seed, w = first
        ax.step(w.t, w.q * CELL_PAYLOAD / 1000, where="post", color="k", lw=0.8)
        d = w[w.change == "drop"]
        for _, g in d.groupby("frame"):
            ax.plot([g.t.mean()], [BUFFER_A * CELL_PAYLOAD / 1000 + 2], "o", color="k", ms=8)
        ax.axhline(BUFFER_A * CELL_PAYLOAD / 1000, color="k", lw=0.5, ls=":")
        ax.set_title(f"config (a), 32 KiB per-VC buffer, seed {seed}; disks: damaged packets", fontsize=9)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("switch buffer (KB of payload)")
    save(fig, c.out / "fig5.png")

    sp = float(np.median(spacing)) if spacing else float("nan")
    two_pkt = 2 * PACKET_TIME_53
    c.claim("c1", statement="each peak is a back-to-back pair of packets; the peaks are spaced by the slower output", kind="trace",
            paper_value="§IV ¶5", ours={"median_peak_spacing_ms": sp * 1e3, "two_packet_times_ms": two_pkt * 1e3, "peaks": len(spacing)},
            holds=check(("median spacing of occupancy peaks in congestion avoidance / 2 packet times on the 53 Mb/s link", sp / two_pkt,
                   within(0.75, 1.25))), rule="pooled over seeds")
    ca_ep = ep[ep.congestion_avoidance] if len(ep) else ep
    n = ca_ep.packets_damaged.value_counts() if len(ca_ep) else pd.Series(dtype=int)
    two = float((ca_ep.packets_damaged == 2).mean()) if len(ca_ep) else float("nan")
    others = n.drop(2, errors="ignore")
    lead = float(n.get(2, 0) - (others.max() if len(others) else 0)) / len(ca_ep) if len(ca_ep) else float("nan")
    c.claim("c2", statement="the switch typically drops cells from two packets when TCP opens its window too far", kind="value", paper_value="two (§IV ¶6)",
            ours={"episodes": len(ca_ep), "packets_damaged_counts": {str(k): int(v) for k, v in n.items()}, "share_exactly_two": two},
            holds=check(("share of episodes (cwnd > ssthresh) damaging exactly 2 packets", two, at_least(0.5)),
                  ("its lead over the next most common count (2 is the mode)", lead, above(0))),
            rule="", note=f"all episodes incl. slow start: {len(ep)}")
    per = [x for l in ca_ep.cells_lost_per_packet for x in l] if len(ca_ep) else []
    med = float(np.median(per)) if per else float("nan")
    c.claim("c3", statement="each disk represents a few dozen lost cells", kind="value", paper_value="a few dozen (§IV ¶5)",
            ours={"median_cells_lost_per_damaged_packet": med, "range": [min(per), max(per)] if per else None},
            holds=check(("median cells lost per damaged packet", med, within(12, 100))), rule="episodes with cwnd > ssthresh")
    rise = 2 * PACKET_CELLS * (1 - CELL_RATE_53 / OC3_CELLS)
    mr = float(np.median(rises)) if rises else float("nan")
    c.claim("c4", statement="a back-to-back pair raises the buffer by about 253 cells; 682 cells hold 2.7 such rises", kind="analytic", paper_value="§IV ¶5",
            ours={"rise_cells": rise, "rise_payload_KB": rise * CELL_PAYLOAD / 1000, "rises_in_682": BUFFER_A / rise,
             "measured_median_rise_cells": mr},
            holds=check(("2 x 192 x (1 - 120,370/353,208) cells", rise, within(252, 254)), ("682 / that", BUFFER_A / rise, within(2.65, 2.75))),
            rule="the measured trough-to-peak rise is reported beside it")
