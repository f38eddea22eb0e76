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

from atmsim.claims import at_least, at_most, below, check, within
from atmsim.reproduce import seeds
from atmsim.reproduce.harness import figure, per_run

from .buffers import _log_runs, _rng, pause_summary
from .pauses import pause_classes
from .common import (CELL_PAYLOAD, CELL_RATE_53, MSS, MTU, OC3_CELLS, PACKET_CELLS, WARMUP_S, cells, credit_overrides, g_max, goodput,
                     pairs)

FIG8_C2_RATIO = (1.2, 4.0)  # fig8.c2's band on total(two) / total(one), as its rule states


def _fig8_runs(g) -> dict:
    """Configs (a) (one TCP) and (b) (two TCPs), with and without credit, each with its warm-up prefix;
    for c6, config (b) without credit with the bottleneck S1->S2 logged; for c2's note, (a) and (b)
    without credit at each seed of seeds.SWEEP_SEEDS (the seed sweep, not fig8's sample: seeds.SWEEP)."""
    return {"main": [r for cfg in "ab" for cr in (False, True) for s in g.seeds
                     for r in g.pair(cfg, tuple(credit_overrides()) if cr else (), s, tag=dict(config=cfg, credit=cr))],
            "competition": [g.run("b", ("trace.port=S1->S2",), s, True) for s in g.seeds],
            "lone": _log_runs(g),
            seeds.SWEEP: [r for cfg in "ab" for s in seeds.SWEEP_SEEDS for r in g.pair(cfg, (), s, tag=dict(config=cfg))]}


@figure("fig8", runs=_fig8_runs)
def fig8(c, runs):
    """With and without credit flow control, one and two TCPs (§V ¶2, Fig. 8). Goodput over [1 s, end]."""
    rows = []
    for run, r, r0 in pairs(runs["main"]):
        cfg, cr, seed = run.tag["config"], run.tag["credit"], run.seed
        per = [goodput(r, r0, flow=i) / 1e6 for i in range(len(r["flows"]))]
        rows.append({"config": cfg, "credit": cr, "seed": seed, "total_MBps": goodput(r, r0) / 1e6,
                     "per_flow_MBps": per, "fairness": sum(per) ** 2 / (len(per) * sum(x * x for x in per)) if any(per) else float("nan"),
                     "cells_dropped": r["accounting"]["cells_dropped"],
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
    c.claim("c1", statement="one TCP without flow control gets a few percent of the bandwidth", kind="value", paper_value="0.1 MB/s (§V)", ours=one,
            holds=check(("goodput (MB/s)", one, at_most(0.35))), rule="over [1 s, end], median over seeds")
    c.claim("c2", statement="two TCPs without flow control: the TCPs rarely compete", kind="value", paper_value="0.2 MB/s (§V)",
            ours={"total": two, "ratio_two_one": two / one if one else None},
            holds=check(("total goodput (MB/s)", two, at_most(0.6)), ("total(two) / total(one)", two / one if one else None, within(*FIG8_C2_RATIO))),
            rule="over [1 s, end], medians over seeds",
            deviation=f"{_fig8_c2_note(df, runs['lone'], runs['competition'])} {_fig8_c2_noise(c, runs[seeds.SWEEP])}"
            + (" What would settle it: the sweep at the full grid's longer runs (docs/morris-kung95.md, fig8.c2)." if c.grid.quick else ""))
    gm = g_max(MTU) / 1e6
    cr1 = med.loc[("a", True), "total_MBps"]
    c.claim("c3", statement="with credit one TCP gets its maximum possible bandwidth", kind="value", paper_value="5.7 MB/s (§V)", ours=cr1,
            holds=check(("goodput / G_max", cr1 / gm, at_least(0.97))), rule=f"G_max = {gm:.2f} MB/s; over [1 s, end]")
    cr2, j2 = med.loc[("b", True), "total_MBps"], med.loc[("b", True), "fairness"]
    c.claim("c4", statement="with credit two TCPs get the whole link, shared equally", kind="value", paper_value="5.7 MB/s (§V)",
            ours={"total": cr2, "jain": j2}, holds=check(("total goodput / G_max", cr2 / gm, at_least(0.97)), ("Jain's index of the two", j2, at_least(0.95))),
            rule="over [1 s, end]")
    credit_runs = df[df.credit]
    over = int((~credit_runs.peak_per_vc_ok.astype(bool)).sum())
    c.claim("c5", statement="with credit no cell is ever lost and no VC exceeds its 100 cells", kind="hard", paper_value="§V",
            ours={"cells_dropped": int(credit_runs.cells_dropped.sum()), "within_limits": over == 0},
            holds=check(("cells dropped in all credit runs", int(credit_runs.cells_dropped.sum()), at_most(0)),
                  ("credit runs with a VC above its 100 cells at some instant", over, at_most(0))), rule="whole runs")
    fig8_competition(c, runs["competition"])
    payload_155 = OC3_CELLS / PACKET_CELLS * MSS
    c.claim("c7", statement="a 155 Mb/s link delivers about 17 MB/s of payload, a 53 Mb/s link about 5.7", kind="analytic", paper_value="17 / 5.7 MB/s (§V)",
            ours={"oc3_MBps": payload_155 / 1e6, "oc3_Mbps": payload_155 * 8 / 1e6, "link53_MBps": gm},
            holds=check(("353,207.5/192 x 9140 / 16.81 MB/s", payload_155 / 16.81e6, within(0.99, 1.01)),
                  ("120,370.4/192 x 9140 / 5.73 MB/s", gm / 5.73, within(0.99, 1.01))), rule="")


def _fig8_c2_noise(c, sweep) -> str:
    """fig8.c2's ratio total(two) / total(one) at each seed of the sweep (fig8_seeds.csv), and whether its
    excess over the band lies inside their noise (seeds.noise)."""
    df = pd.DataFrame([{"config": run.tag["config"], "seed": run.seed, "total_MBps": goodput(r, r0) / 1e6}
                       for run, r, r0 in pairs(sweep)])
    df.pipe(c.table, "fig8_seeds")
    by = df.pivot(index="seed", columns="config", values="total_MBps")
    per_seed = (by["b"] / by["a"]).to_dict()
    return seeds.noise("total(two) / total(one)", per_seed, by["b"].median() / by["a"].median(), FIG8_C2_RATIO)


def _fig8_c2_note(df: pd.DataFrame, lone, pair) -> str:
    """fig8.c2's deviation: how the TCPs pause in config (a) (the fig4 runs) and (b) (the c6 runs)."""
    def classes(runs):
        out = [pc for run, result in runs for pc in _flow_pause_classes(run, result)]
        return pause_summary(out), len(out)

    a, na = classes(lone)
    b, nb = classes(pair)
    nf = df[~df.credit].groupby("config")
    per_a = nf.total_MBps.median()["a"]
    per_b = float(np.median([x for l in df[(~df.credit) & (df.config == "b")].per_flow_MBps for x in l]))
    to = nf.timeouts.median()
    return (f"Each TCP of config (b) delivers {per_b:.3f} MB/s, {per_b / per_a:.2f} x the lone TCP of config (a) ({per_a:.3f}): "
            f"over [1 s, end] the lone TCP's pauses alternate between {_rng(a['short'])} ({len(a['short'])} over {na} runs) and "
            f"{_rng(a['long'])} ({len(a['long'])}), each long one after a burst whose timed segment was dropped "
            f"({a['long_timed_lost']} of {len(a['long'])}), so that no RTT sample reset the back-off (fig4.c1's note); the TCPs of "
            f"(b) pause {len(b['short'])} times over {nb} TCP-runs, {_rng(b['short'])}, {len(b['long'])} times longer than 2 s, "
            f"their timed segments dropped {b['short_timed_lost'] + b['long_timed_lost']} times. Timeouts per run: "
            f"(a) {to['a']:.0f}, (b) {to['b']:.0f} for two TCPs. fig8.csv and the traced runs of fig4 and fig8.c6 "
            f"(`python -m atmsim reproduce morris-kung95 --figure fig8`).")


@per_run
def _flow_pause_classes(spec, result) -> list:
    """`pause_classes` of each TCP of one traced run, read once per run (harness.per_run: fig8 made again without a
    seed reads the same runs)."""
    s, tr = result
    ev = pd.DataFrame({k: np.asarray(v) for k, v in tr["events"].items()})
    return [pause_classes(ev[ev.flow == f], s["end_time_s"]) for f in np.unique(ev.flow)]


COMPETITION_BIN_S = 0.010  # fig8.c6: the bins in which both VCs having cells at S1->S2 counts as competing


@per_run
def _competition_of(spec, result) -> tuple:
    """One traced config-(b) run of fig8.c6, read from its port log once per run (harness.per_run: fig8 made again
    without a seed reads the same runs): (the share of bins with cells of both VCs at S1->S2, {TCP: the share of
    the time it waits for a timeout})."""
    from atmsim import portlog

    s, tr = result
    end = s["end_time_s"]
    waiting = {}
    log = pd.DataFrame({k: np.asarray(v) for k, v in tr["port"].items()})
    ev = pd.DataFrame({k: np.asarray(v) for k, v in tr["events"].items()})
    bins = np.arange(WARMUP_S, end + COMPETITION_BIN_S / 2, COMPETITION_BIN_S)
    active = []
    # Each flow's data VC, by the names the core gives the numbered VCs (no numbering rule).
    names = tr["names"]
    data_vc = {fl: v for v, (fl, d) in enumerate(zip(names["vc_flow"], names["vc_direction"])) if d == "data"}
    for f in (0, 1):
        occ = portlog.occupancy(log, vc=data_vc[names["flow"][f]])
        hit = np.zeros(len(bins) - 1, bool)
        if len(occ):
            tt = occ.t.to_numpy()
            inside = (tt >= bins[0]) & (tt < bins[-1])
            hit[np.searchsorted(bins, tt[inside], side="right") - 1] = True
            hit |= portlog.value_at(occ, bins[:-1]) > 0  # cells left over from an earlier bin
        active.append(hit)
        t_log = occ.t.to_numpy()
        to = ev[(ev.kind == "timeout") & (ev.flow == f)].t.to_numpy()
        to = to[to >= WARMUP_S]
        last = t_log[np.maximum(np.searchsorted(t_log, to) - 1, 0)] if len(t_log) else np.zeros(len(to))
        start = np.maximum(np.minimum(last, to), WARMUP_S)
        waiting[f] = float(np.sum(to - start)) / (end - WARMUP_S)
    return float(np.mean(active[0] & active[1])), waiting


def fig8_competition(c, runs):
    """fig8.c6 from the port log of S1->S2 in config (b) without credit: how
    often both VCs have cells there, and how long each TCP waits for a
    retransmission timeout (from the last cell of its VC at the bottleneck
    to the timeout)."""
    both, waiting = [], {0: [], 1: []}
    for run, result in runs:
        b, w = _competition_of(run, result)
        both.append(b)
        for f in (0, 1):
            waiting[f].append(w[f])
    b = float(np.median(both))
    w = {f"tcp{f + 1}": float(np.median(v)) for f, v in waiting.items()}
    c.claim("c6", statement="the TCPs rarely compete; both spend most of their time in retransmit time-outs", kind="shape", paper_value="§IV last ¶",
            ours={"share_of_10ms_bins_both_vcs_queued": b, "share_of_time_waiting_for_timeout": w},
            holds=check(("share of 10 ms bins with cells of both VCs at S1", b, at_most(0.2)),
                  ("smaller share of time a TCP waits for a timeout", min(w.values()), at_least(0.8))),
            rule="config (b) without credit, over [1 s, end], medians over seeds",
            note="waiting = from the VC's last cell change at S1->S2 to the timeout that follows")


def _udp(share: float) -> tuple:
    """Config (b) with the second TCP replaced by a UDP source at `share` of G_max, each 9152-byte
    datagram a 9180-byte IP packet."""
    rate = share * g_max(MTU) * 8
    return ("flow.tcp2.kind=udp", f"flow.tcp2.rate={rate:.0f}bps", "flow.tcp2.datagram=9152B")


def _tcp_udp_runs(g) -> list:
    """A 40 % UDP source with and without credit, each seed; 30 % and 50 % without credit, one seed; each
    with its warm-up prefix."""
    return ([r for cr in (False, True) for s in g.seeds
             for r in g.pair("b", _udp(0.4) + (tuple(credit_overrides()) if cr else ()), s, tag=dict(credit=cr, share=0.4))]
            + [r for f in (0.3, 0.5) for r in g.pair("b", _udp(f), 1, tag=dict(credit=False, share=f))])


@figure("fig8-tcp-udp", runs=_tcp_udp_runs)
def fig8_tcp_udp(c, runs):
    """One TCP and one UDP source, with and without credit (§V ¶3). Goodput over [1 s, end]."""
    gm = g_max(MTU)
    rows = []
    for run, r, r0 in pairs(runs):
        rows.append({"credit": run.tag["credit"], "udp_share": round(run.tag["share"], 2), "seed": run.seed,
                     "tcp_MBps": goodput(r, r0, flow=0) / 1e6, "udp_MBps": goodput(r, r0, flow=1) / 1e6,
                     "cells_dropped": r["accounting"]["cells_dropped"]})
    df = pd.DataFrame(rows)
    df.pipe(c.table, "fig8-tcp-udp")
    main = df[df.udp_share == 0.4].groupby("credit")[["tcp_MBps", "udp_MBps", "cells_dropped"]].median()
    src = 0.4 * gm / 1e6
    u, t = main.loc[True, "udp_MBps"], main.loc[True, "tcp_MBps"]
    c.claim("c1", statement="with credit UDP gets its full source rate", kind="value", paper_value="§V ¶3", ours={"udp": u, "source": src},
            holds=check(("UDP goodput / source rate", u / src, at_least(0.98))), rule="over [1 s, end], median over seeds")
    c.claim("c2", statement="with credit TCP gets essentially the remaining bandwidth", kind="value", paper_value="§V ¶3",
            ours={"tcp": t, "remaining": gm / 1e6 - src}, holds=check(("TCP goodput / (G_max - UDP source rate)", t / (gm / 1e6 - src), at_least(0.95))),
            rule="over [1 s, end], median over seeds")
    tot = (main.loc[False, "tcp_MBps"] + main.loc[False, "udp_MBps"]) / (gm / 1e6)
    sens = df[~df.credit].groupby("udp_share")[["tcp_MBps", "udp_MBps"]].median().sum(axis=1) / (gm / 1e6)
    c.claim("c3", statement="without credit total utilisation by TCP and UDP falls below 45%", kind="value", paper_value="< 45 % (§V ¶3)",
            ours={"utilisation": tot, "sensitivity_udp_share": {str(k): float(v) for k, v in sens.items()}},
            holds=check(("(TCP + UDP goodput) / G_max at a 40 % UDP source", tot, below(0.45))), rule="over [1 s, end]",
            note="UDP rate 40 % of G_max [choice G9]")
    c.claim("c4", statement="without credit TCP's throughput drops significantly", kind="shape", paper_value="§V ¶3",
            ours={"without": main.loc[False, "tcp_MBps"], "with": t},
            holds=check(("TCP goodput without credit / with", main.loc[False, "tcp_MBps"] / t if t else None, at_most(0.25))), rule="over [1 s, end]")
    drops = int(df[df.credit].cells_dropped.sum())
    c.claim("c5", statement="zero loss with credit", kind="hard", paper_value="§V", ours=drops, holds=check(("cells dropped in all credit runs", drops, at_most(0))),
            rule="whole runs")


# --------------------------------------------------------------------------- fig9, credit-buffer

FIG9_FROM_S = 0.1  # fig9.c2: slots counted from 0.1 s on (catalogue 2.9)
EOM_LAG_S = 300e-6  # fig9.c4: a trough "at" a packet boundary


def _fig9_runs(g) -> dict:
    """A credit run for the statistics with its prefixes to 0.1 s (c2) and to the warm-up (c3), and a
    traced run of 1.1 s whose last 0.1 s is the plotted trace."""
    o = tuple(credit_overrides())
    return {"stats": [g.run("a", o, 1)], "from": [g.run("a", o + (f"duration={FIG9_FROM_S:g}s",), 1)],
            "warm": [g.run("a", o + (f"duration={WARMUP_S:g}s",), 1)],
            "trace": [g.run("a", o + ("trace.port=S->B", "duration=1.1s"), 1, True)]}


def _port_integrals(s: dict) -> dict:
    """Per port: busy seconds, credit cells sent and the occupancy's time integral (cell-seconds) over
    [0, end] of the run, so that a prefix run's can be subtracted."""
    end = s["end_time_s"]
    return {p["name"]: {"busy_s": p["busy_fraction"] * end, "credit_cells": p["credit_cells"], "occupancy_cs": p["mean_occupancy"] * end}
            for p in s["ports"]}


@figure("fig9", runs=_fig9_runs)
def fig9(c, runs):
    """Occupancy with credit flow control on (§V ¶4, Fig. 9). Statistics over a full credit run (c2 from
    0.1 s on, c3 over [1 s, end], differences with the same run stopped there); the trace (occupancy at
    every change, port log) from a second run of 1.1 s, plotted over [1.0, 1.1] s."""
    from atmsim import portlog

    [(_, s)] = runs["stats"]
    [(_, s_from)] = runs["from"]
    [(_, s_warm)] = runs["warm"]
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
    c.claim("c1", statement="the switch never buffers more than the 100 cells it reserved", kind="hard", paper_value="§V ¶4", ours=peak,
            holds=check(("peak occupancy of the VC at S->B (cells)", peak, at_most(100))), rule="whole run")
    # Data cells only: the port also carries the in-band credit cells of the reverse link.
    full, head = _port_integrals(s)["S->B"], _port_integrals(s_from)["S->B"]
    span = s["end_time_s"] - s_from["end_time_s"]
    busy = ((full["busy_s"] - head["busy_s"]) - (full["credit_cells"] - head["credit_cells"]) / CELL_RATE_53) / span
    c.claim("c2", statement="enough cells are always buffered to keep the output link busy", kind="value", paper_value="§V ¶4", ours=busy,
            holds=check(("share of the 53 Mb/s port's slots with a data cell of the VC, from 0.1 s on", busy, at_least(0.99))), rule="")
    # Host A's backlog: IP bytes TCP has sent but the host still holds (socket, CPU, bus), in cells, plus
    # the cells waiting in its adapter for credit (the A->S port); time averages over [1 s, end].
    span = s["end_time_s"] - s_warm["end_time_s"]

    def host_bytes(x):
        return next(h["mean_tx_backlog_bytes"] for h in x["hosts"] if h["name"] == "A") * x["end_time_s"]

    pi, pw = _port_integrals(s), _port_integrals(s_warm)
    adapter = (pi["A->S"]["occupancy_cs"] - pw["A->S"]["occupancy_cs"]) / span
    host = (host_bytes(s) - host_bytes(s_warm)) / span * cells(MTU) / MTU + adapter
    sw = (pi["S->B"]["occupancy_cs"] - pw["S->B"]["occupancy_cs"]) / span
    c.claim("c3", statement="the switch withholds credit so hosts buffer data instead of sending it", kind="trace", paper_value="§V ¶1",
            ours={"host_cells": host, "of_which_adapter_cells": adapter, "switch_cells": sw},
            holds=check(("time-average backlog of the VC at host A (socket queue + adapter) / time-average switch occupancy", host / sw if sw else None,
                   at_least(5))), rule="over [1 s, end]")
    # Troughs: zig-zag minima with a swing of at least N2 = 10 cells (credit arrives in steps of N2), below the median.
    q = occ.q.to_numpy()
    _, tro = portlog.extrema(occ, min_swing=10)
    tro = tro[q[tro] < np.median(q)]
    tt = occ.t.to_numpy()[tro]

    def share_after(kind):
        eom = occ[(occ.change == kind) & occ.eom].t.to_numpy()
        j = np.searchsorted(eom, tt, side="right") - 1
        lag = np.where(j >= 0, tt - eom[np.maximum(j, 0)], np.inf)
        return float(np.mean(lag <= EOM_LAG_S)) if len(tt) else float("nan"), float(np.median(lag)) if len(tt) else float("nan")

    fwd, fwd_lag = share_after("depart")
    inp, inp_lag = share_after("arrive")
    fetch = MTU / _bus_rate()
    drain = 100 / CELL_RATE_53
    c.claim("c4", statement="the large oscillations correspond to packet boundaries", kind="trace", paper_value="§V ¶4",
            ours={"troughs": len(tt), "share_within_300us_after_eom_forwarded": fwd, "median_lag_after_eom_forwarded_us": fwd_lag * 1e6,
             "share_within_300us_after_eom_arrived": inp, "median_lag_after_eom_arrived_us": inp_lag * 1e6},
            holds=check((f"share of troughs (below the median) within {EOM_LAG_S * 1e6:.0f} us after the switch forwards an EOM cell of the VC", fwd,
                   at_least(0.7))),
            rule="trace of [1.0, 1.1] s",
            deviation=f"Our troughs follow packet boundaries at the switch input instead: {inp:.0%} of the {len(tt)} troughs come within "
            f"{EOM_LAG_S * 1e6:.0f} us after an EOM cell of the VC arrives at the switch (median lag {inp_lag * 1e6:.0f} us), "
            f"about the {fetch * 1e6:.0f} us "
            f"the sending adapter takes to fetch the next packet over the bus after a packet's last cell (MTU / host.bus_rate), "
            f"during which no cell arrives; the switch forwards that EOM a median {fwd_lag * 1e6:.0f} us later ({fwd:.0%} within "
            f"{EOM_LAG_S * 1e6:.0f} us), about the {drain * 1e6:.0f} us its 100 cells take to drain at {CELL_RATE_53:,.0f} cells/s. "
            f"The paper gives no time "
            f"reference for its oscillations. `python -m atmsim reproduce morris-kung95 --figure fig9` (fig9.csv holds the trace). "
            "What would settle it: the time reference of the paper's trace (where its cells were counted), which it does not give.")


def _bus_rate() -> float:
    """host.bus_rate of config (a), bytes/s."""
    from atmsim.toml import tomllib

    import atmsim

    rate = tomllib.loads(atmsim.resolve("morris-kung95-a", []))["host"]["bus_rate"]
    num, unit = rate[:-4], rate[-4:]
    assert unit == "MB/s", rate
    return float(num) * 1e6


def _credit_buffer_runs(g) -> list:
    """Config (a) with credit, Buf_Alloc = N2 + N3 cells per VC, N2 = min(10, Buf_Alloc / 4), each with its warm-up prefix."""
    sizes = [12, 36, 100] if g.quick else [12, 24, 36, 48, 100]
    return [r for b in sizes for s in g.seeds
            for r in g.pair("a", tuple(credit_overrides()) + (f"credit.n2={min(10, b // 4)}", f"credit.n3={b - min(10, b // 4)}"), s, tag=b)]


@figure("credit-buffer", runs=_credit_buffer_runs)
def credit_buffer(c, runs):
    """How much credit buffer a LAN VC needs (§V last ¶; an extension of the paper). Goodput over [1 s, end]."""
    df = pd.DataFrame([{"buf_alloc": run.tag, "seed": run.seed, "goodput_MBps": goodput(r, r0) / 1e6,
                        "cells_dropped": r["accounting"]["cells_dropped"]} for run, r, r0 in pairs(runs)])
    df.pipe(c.table, "credit-buffer")
    med = df.groupby("buf_alloc")["goodput_MBps"].median()
    gm = g_max(MTU) / 1e6
    need = credit_buffer_needed()
    pd.DataFrame([{"link": k, **v} for k, v in need.items()]).pipe(c.table, "credit-buffer-needed")
    worst = float(min(med[b] for b in med.index if b >= 36) / gm)
    c.claim("c1", statement="in a LAN a few dozen cells per VC suffice", kind="shape", paper_value="§V last ¶",
            ours={"goodput_MBps": {str(b): float(v) for b, v in med.items()},
             "needed_cells_n2_10": {k: v["buf_alloc_needed"] for k, v in need.items()}},
            holds=check(("smallest goodput / G_max at Buf_Alloc >= 36 cells", worst, at_least(0.99))), rule="over [1 s, end], median over seeds",
            note="needed = C x RTT_link + N2 (Kung et al. 1994; docs/credit.md) per link of config (a), in-band credit, N2 = 10")


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
