"""morris-kung95 with credit flow control (§V): Figs. 8 and 9, one TCP
against UDP, and how much credit buffer a VC needs.

Credit flow control (N23, hop by hop, in-band credit cells) reserves
N2 + N3 = 100 cells per VC at the switch (§V); the hosts then move 13 MB/s
(software credit in the driver, §III).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from atmsim.reproduce.harness import figure

from .common import CELL_PAYLOAD, CELL_RATE_53, MSS, MTU, OC3_CELLS, PACKET_CELLS, cells, credit_overrides, g_max, goodput

def _fig8_runs(g) -> dict:
    """Configs (a) (one TCP) and (b) (two TCPs), with and without credit; for c6, config (b) without
    credit with the bottleneck S1->S2 logged."""
    return {"main": [g.run(cfg, tuple(credit_overrides()) if cr else (), s, tag=dict(config=cfg, credit=cr))
                     for cfg in "ab" for cr in (False, True) for s in g.seeds],
            "competition": [g.run("b", ("trace.port=S1->S2",), s, True) for s in g.seeds]}


@figure("fig8", runs=_fig8_runs)
def fig8(c, runs):
    """With and without credit flow control, one and two TCPs (§V ¶2, Fig. 8)."""
    rows = []
    for run, r in runs["main"]:
        cfg, cr, seed = run.tag["config"], run.tag["credit"], run.seed
        rows.append({"config": cfg, "credit": cr, "seed": seed, "total_MBps": goodput(r) / 1e6,
                     "per_flow_MBps": [f["bytes_delivered"] / r["end_time_s"] / 1e6 for f in r["flows"]],
                     "fairness": r["fairness"], "cells_dropped": r["accounting"]["cells_dropped"],
                     "peak_per_vc_ok": r["accounting"]["queues_within_limits"], "timeouts": sum(f["timeouts"] for f in r["flows"])})
    df = pd.DataFrame(rows)
    df.pipe(c.table, "fig8")
    med = df.groupby(["config", "credit"])[["total_MBps", "fairness"]].median()
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    labels = ["one TCP", "two TCPs"]
    x = np.arange(2)
    ax.bar(x - 0.2, [med.loc[(k, False), "total_MBps"] for k in "ab"], 0.4, label="no flow control", color="0.6")
    ax.bar(x + 0.2, [med.loc[(k, True), "total_MBps"] for k in "ab"], 0.4, label="credit flow control", color="0.2")
    ax.set_xticks(x, labels)
    ax.set_ylabel("total goodput (MB/s)")
    ax.legend(fontsize=8)
    save(fig, c.out / "fig8.png")
    one, two = med.loc[("a", False), "total_MBps"], med.loc[("b", False), "total_MBps"]
    c.claim("fig8", "c1", "one TCP without flow control gets a few percent of the bandwidth", "value", "0.1 MB/s (§V)", one, one <= 0.35,
            "goodput <= 0.35 MB/s")
    c.claim("fig8", "c2", "two TCPs without flow control: the TCPs rarely compete", "value", "0.2 MB/s (§V)",
            {"total": two, "ratio_two_one": two / one if one else None}, two <= 0.6 and one > 0 and 1.2 <= two / one <= 4.0,
            "total <= 0.6 MB/s and total(two)/total(one) in [1.2, 4.0]")
    gm = g_max(MTU) / 1e6
    cr1 = med.loc[("a", True), "total_MBps"]
    c.claim("fig8", "c3", "with credit one TCP gets its maximum possible bandwidth", "value", "5.7 MB/s (§V)", cr1, cr1 >= 0.97 * gm,
            f">= 0.97 G_max = {0.97 * gm:.2f} MB/s")
    cr2, j2 = med.loc[("b", True), "total_MBps"], med.loc[("b", True), "fairness"]
    c.claim("fig8", "c4", "with credit two TCPs get the whole link, shared equally", "value", "5.7 MB/s (§V)",
            {"total": cr2, "jain": j2}, cr2 >= 0.97 * gm and j2 >= 0.95, "total >= 0.97 G_max and Jain's index >= 0.95")
    credit_runs = df[df.credit]
    c.claim("fig8", "c5", "with credit no cell is ever lost and no VC exceeds its 100 cells", "hard", "§V",
            {"cells_dropped": int(credit_runs.cells_dropped.sum()), "within_limits": bool(credit_runs.peak_per_vc_ok.all())},
            credit_runs.cells_dropped.sum() == 0 and credit_runs.peak_per_vc_ok.all(), "zero drops in every credit run; per-VC peak <= 100 cells")
    fig8_competition(c, runs["competition"])
    payload_155 = OC3_CELLS / PACKET_CELLS * MSS
    c.claim("fig8", "c7", "a 155 Mb/s link delivers about 17 MB/s of payload, a 53 Mb/s link about 5.7", "analytic", "17 / 5.7 MB/s (§V)",
            {"oc3_MBps": payload_155 / 1e6, "oc3_Mbps": payload_155 * 8 / 1e6, "link53_MBps": gm}, abs(payload_155 / 16.81e6 - 1) < 0.01 and abs(gm / 5.73 - 1) < 0.01,
            "353,207.5/192 x 9140 = 16.81 MB/s; 120,370.4/192 x 9140 = 5.73 MB/s")


def fig8_competition(c, runs, bin_s=0.010):
    """fig8.c6 from the port log of S1->S2 in config (b) without credit: how
    often both VCs have cells there, and how long each TCP waits for a
    retransmission timeout (from the last cell of its VC at the bottleneck
    to the timeout)."""
    from atmsim import portlog

    both, waiting = [], {0: [], 1: []}
    for _, (s, tr) in runs:
        end = s["end_time_s"]
        log = pd.DataFrame({k: np.asarray(v) for k, v in tr["port"].items()})
        ev = pd.DataFrame({k: np.asarray(v) for k, v in tr["events"].items()})
        bins = np.arange(0, end + bin_s, bin_s)
        active = []
        # Each flow's data VC, by the names the core gives the numbered VCs (no numbering rule).
        names = tr["names"]
        data_vc = {fl: v for v, (fl, d) in enumerate(zip(names["vc_flow"], names["vc_direction"])) if d == "data"}
        for f in (0, 1):
            occ = portlog.occupancy(log, vc=data_vc[names["flow"][f]])
            hit = np.zeros(len(bins) - 1, bool)
            if len(occ):
                hit[np.clip(np.searchsorted(bins, occ.t.to_numpy(), side="right") - 1, 0, len(hit) - 1)] = True
                hit |= portlog.value_at(occ, bins[:-1]) > 0  # cells left over from an earlier bin
            active.append(hit)
            t_log = occ.t.to_numpy()
            to = ev[(ev.kind == "timeout") & (ev.flow == f)].t.to_numpy()
            last = t_log[np.maximum(np.searchsorted(t_log, to) - 1, 0)] if len(t_log) else np.zeros(len(to))
            waiting[f].append(float(np.sum(to - np.minimum(last, to))) / end)
        both.append(float(np.mean(active[0] & active[1])))
    b = float(np.median(both))
    w = {f"tcp{f + 1}": float(np.median(v)) for f, v in waiting.items()}
    c.claim("fig8", "c6", "the TCPs rarely compete; both spend most of their time in retransmit time-outs", "shape", "§IV last ¶",
            {"share_of_10ms_bins_both_vcs_queued": b, "share_of_time_waiting_for_timeout": w},
            b <= 0.2 and min(w.values()) >= 0.8,
            "config (b) without credit: both VCs have cells at S1 in <= 20 % of 10 ms bins and each TCP waits for a "
            "timeout >= 80 % of the time", "waiting = from the VC's last cell change at S1->S2 to the timeout that follows")


def _udp(share: float) -> tuple:
    """Config (b) with the second TCP replaced by a UDP source at `share` of G_max, each 9152-byte
    datagram a 9180-byte IP packet."""
    rate = share * g_max(MTU) * 8
    return ("flow.tcp2.kind=udp", f"flow.tcp2.rate={rate:.0f}bps", "flow.tcp2.datagram=9152B")


def _tcp_udp_runs(g) -> list:
    """A 40 % UDP source with and without credit, each seed; 30 % and 50 % without credit, one seed."""
    return ([g.run("b", _udp(0.4) + (tuple(credit_overrides()) if cr else ()), s, tag=dict(credit=cr, share=0.4))
             for cr in (False, True) for s in g.seeds]
            + [g.run("b", _udp(f), 1, tag=dict(credit=False, share=f)) for f in (0.3, 0.5)])


@figure("fig8-tcp-udp", runs=_tcp_udp_runs)
def fig8_tcp_udp(c, runs):
    """One TCP and one UDP source, with and without credit (§V ¶3)."""
    gm = g_max(MTU)
    rows = []
    for run, r in runs:
        rows.append({"credit": run.tag["credit"], "udp_share": round(run.tag["share"], 2), "seed": run.seed,
                     "tcp_MBps": goodput(r, 0) / 1e6, "udp_MBps": goodput(r, 1) / 1e6,
                     "cells_dropped": r["accounting"]["cells_dropped"]})
    df = pd.DataFrame(rows)
    df.pipe(c.table, "fig8-tcp-udp")
    main = df[df.udp_share == 0.4].groupby("credit")[["tcp_MBps", "udp_MBps", "cells_dropped"]].median()
    src = 0.4 * gm / 1e6
    u, t = main.loc[True, "udp_MBps"], main.loc[True, "tcp_MBps"]
    c.claim("fig8-tcp-udp", "c1", "with credit UDP gets its full source rate", "value", "§V ¶3", {"udp": u, "source": src}, u >= 0.98 * src,
            "UDP goodput >= 0.98 x source rate")
    c.claim("fig8-tcp-udp", "c2", "with credit TCP gets essentially the remaining bandwidth", "value", "§V ¶3",
            {"tcp": t, "remaining": gm / 1e6 - src}, t >= 0.95 * (gm / 1e6 - src), "TCP goodput >= 0.95 x (G_max - UDP rate)")
    tot = (main.loc[False, "tcp_MBps"] + main.loc[False, "udp_MBps"]) / (gm / 1e6)
    sens = df[~df.credit].groupby("udp_share")[["tcp_MBps", "udp_MBps"]].median().sum(axis=1) / (gm / 1e6)
    c.claim("fig8-tcp-udp", "c3", "without credit total utilisation by TCP and UDP falls below 45%", "value", "< 45 % (§V ¶3)",
            {"utilisation": tot, "sensitivity_udp_share": {str(k): float(v) for k, v in sens.items()}}, tot < 0.45,
            "(TCP + UDP goodput) / G_max < 0.45 at a 40 % UDP source", "UDP rate 40 % of G_max [choice G9]")
    c.claim("fig8-tcp-udp", "c4", "without credit TCP's throughput drops significantly", "shape", "§V ¶3",
            {"without": main.loc[False, "tcp_MBps"], "with": t}, main.loc[False, "tcp_MBps"] <= 0.25 * t, "TCP goodput <= 0.25 x with credit")
    drops = int(df[df.credit].cells_dropped.sum())
    c.claim("fig8-tcp-udp", "c5", "zero loss with credit", "hard", "§V", drops, drops == 0, "no cell dropped in any credit run")


# --------------------------------------------------------------------------- fig9, credit-buffer

@figure("fig9", runs=lambda g: {"stats": [g.run("a", tuple(credit_overrides()), 1)],
                                "trace": [g.run("a", tuple(credit_overrides()) + ("trace.port=S->B", "duration=1.1s"), 1, True)]})
def fig9(c, runs):
    """Occupancy with credit flow control on (§V ¶4, Fig. 9). Statistics over a full credit run; the
    trace (occupancy at every change, port log) from a second run of 1.1 s, plotted over [1.0, 1.1] s."""
    from atmsim import portlog

    [(_, s)] = runs["stats"]
    [(_, (_, tr))] = runs["trace"]
    occ = portlog.occupancy(tr["port"], vc=0)
    occ = occ[occ.t >= 1.0].reset_index(drop=True)
    occ[["t", "change", "eom", "q"]].pipe(c.table, "fig9")
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.step(occ.t, occ.q * CELL_PAYLOAD / 1000, where="post", color="k", lw=0.7)
    ax.set_ylim(0, 5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("switch buffer (KB of payload)")
    ax.set_title("config (a) with credit flow control: occupancy at the 53 Mb/s port, every change", fontsize=9)
    save(fig, c.out / "fig9.png")
    port = {p["name"]: p for p in s["ports"]}
    peak = port["S->B"]["peak_occupancy"]
    c.claim("fig9", "c1", "the switch never buffers more than the 100 cells it reserved", "hard", "§V ¶4", peak, peak <= 100,
            "occupancy <= 100 cells always")
    # Data cells only: the port also carries the in-band credit cells of the reverse link.
    busy = port["S->B"]["busy_fraction"] - port["S->B"]["credit_cells"] / (CELL_RATE_53 * s["end_time_s"])
    c.claim("fig9", "c2", "enough cells are always buffered to keep the output link busy", "value", "§V ¶4", busy, busy >= 0.99,
            "the 53 Mb/s port sends data cells in >= 99 % of its slots", "measured over the whole run (the paper's trace starts in steady state)")
    # Host A's backlog: IP bytes TCP has sent but the host still holds (socket, CPU, bus), in cells, plus
    # the cells waiting in its adapter for credit (the A->S port).
    host_bytes = next(h["mean_tx_backlog_bytes"] for h in s["hosts"] if h["name"] == "A")
    host = host_bytes * cells(MTU) / MTU + port["A->S"]["mean_occupancy"]
    sw = port["S->B"]["mean_occupancy"]
    c.claim("fig9", "c3", "the switch withholds credit so hosts buffer data instead of sending it", "trace", "§V ¶1",
            {"host_cells": host, "of_which_adapter_cells": port["A->S"]["mean_occupancy"], "switch_cells": sw}, host >= 5 * sw,
            "time-average backlog of the VC at host A (socket queue + adapter) >= 5 x time-average switch occupancy")
    # Troughs: zig-zag minima with a swing of at least N2 = 10 cells (credit arrives in steps of N2), below the median.
    q = occ.q.to_numpy()
    _, tro = portlog.extrema(occ, min_swing=10)
    tro = tro[q[tro] < np.median(q)]
    tt = occ.t.to_numpy()[tro]

    def share_after(kind):
        eom = occ[(occ.change == kind) & occ.eom].t.to_numpy()
        j = np.searchsorted(eom, tt, side="right") - 1
        lag = np.where(j >= 0, tt - eom[np.maximum(j, 0)], np.inf)
        return float(np.mean(lag <= 300e-6)) if len(tt) else float("nan"), float(np.median(lag)) if len(tt) else float("nan")

    fwd, fwd_lag = share_after("depart")
    inp, inp_lag = share_after("arrive")
    c.claim("fig9", "c4", "the large oscillations correspond to packet boundaries", "trace", "§V ¶4",
            {"troughs": len(tt), "share_within_300us_after_eom_forwarded": fwd, "median_lag_after_eom_forwarded_us": fwd_lag * 1e6,
             "share_within_300us_after_eom_arrived": inp, "median_lag_after_eom_arrived_us": inp_lag * 1e6},
            fwd >= 0.7, ">= 70 % of troughs (below the median) within 300 us after the switch forwards an EOM cell of the VC",
            "Our troughs follow packet boundaries at the switch input instead: the sending adapter fetches the next packet over "
            "the bus (92 us) after a packet's last cell, and no cell arrives meanwhile; at 100 cells of buffer the switch "
            "forwards that EOM ~0.8 ms later. The paper gives no time reference for its oscillations.")


def _credit_buffer_runs(g) -> list:
    """Config (a) with credit, Buf_Alloc = N2 + N3 cells per VC, N2 = min(10, Buf_Alloc / 4)."""
    sizes = [12, 36, 100] if g.quick else [12, 24, 36, 48, 100]
    return [g.run("a", tuple(credit_overrides()) + (f"credit.n2={min(10, b // 4)}", f"credit.n3={b - min(10, b // 4)}"), s, tag=b)
            for b in sizes for s in g.seeds]


@figure("credit-buffer", runs=_credit_buffer_runs)
def credit_buffer(c, runs):
    """How much credit buffer a LAN VC needs (§V last ¶; an extension of the paper)."""
    df = pd.DataFrame([{"buf_alloc": run.tag, "seed": run.seed, "goodput_MBps": goodput(r) / 1e6,
                        "cells_dropped": r["accounting"]["cells_dropped"]} for run, r in runs])
    df.pipe(c.table, "credit-buffer")
    med = df.groupby("buf_alloc")["goodput_MBps"].median()
    gm = g_max(MTU) / 1e6
    need = credit_buffer_needed()
    pd.DataFrame([{"link": k, **v} for k, v in need.items()]).pipe(c.table, "credit-buffer-needed")
    ok = all(med[b] >= 0.99 * gm for b in med.index if b >= 36)
    c.claim("credit-buffer", "c1", "in a LAN a few dozen cells per VC suffice", "shape", "§V last ¶",
            {"goodput_MBps": {str(b): float(v) for b, v in med.items()},
             "needed_cells_n2_10": {k: v["buf_alloc_needed"] for k, v in need.items()}}, ok,
            "goodput >= 0.99 G_max for every Buf_Alloc >= 36 cells",
            "needed = C x RTT_link + N2 (Kung et al. 1994; docs/credit.md) per link of config (a), in-band credit, N2 = 10")


def credit_buffer_needed(n2=10, prop=1e-6, host_proc=5e-6, host_rate=13e6):
    """Buf_Alloc that keeps each link of config (a) busy for one VC: N2 + N3 >= C x RTT_link + N2 (the N23
    scheme of Kung, Blackwell & Chapman, SIGCOMM'94: full rate needs N3 at least the credit round trip in
    cells), RTT_link = the receiver's processing + a credit cell on the reverse line + propagation + a data
    cell + propagation, credit travelling in-band. Host B also needs the time its adapter takes to move a
    cell to memory."""
    out = {}
    for link, c_fwd, c_rev, proc in (("A->S", OC3_CELLS, OC3_CELLS, 0.0),
                                     ("S->B", CELL_RATE_53, OC3_CELLS, host_proc + CELL_PAYLOAD / host_rate)):
        rtt = proc + 1 / c_rev + prop + 1 / c_fwd + prop
        out[link] = {"rtt_us": rtt * 1e6, "rtt_cells": rtt * c_fwd, "buf_alloc_needed": math.ceil(rtt * c_fwd + n2)}
    return out
