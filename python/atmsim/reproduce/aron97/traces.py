"""aron97 Figs. 4 and 5: window traces of TCP-Lite on topology 1 at the
paper's 192.5K buffer (§5.1, §5.2, App. A), ATM and packet network.

One traced run each (seed 1, k = 21); the typical sender is the one with the
median useful bytes. The paper's ATM trace has timeouts near 1.5, 6.5, 8
and 10 s, and cwnd halved twice for the losses of one window near 4.2 s
(§5.1 ¶4).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.claims import above, at_least, at_most, check
from atmsim.reproduce.harness import figure

from .common import Spec


def _trace_spec(net: str) -> Spec:
    return Spec(1, net, "lite", 21, 1, trace=True)


def _trace_run(result):
    """The summary, the traces as tables, and the typical sender: the one with the median useful bytes."""
    s, tr = result
    frames = {k: pd.DataFrame({col: np.asarray(v) for col, v in cols.items()}) for k, cols in tr.items() if k != "names"}
    bytes_ = [f["bytes_delivered"] for f in s["flows"]]
    typical = int(np.argsort(bytes_)[len(bytes_) // 2])  # the median sender
    return s, frames, typical


def _double_halvings(ev: pd.DataFrame, flow: int, rtt: float):
    """Pairs of fast retransmits of one flow less than two RTTs apart with no
    timeout between: cwnd halved twice for losses of one window."""
    e = ev[(ev.flow == flow) & ev.kind.isin(["fast_retransmit", "timeout"])].sort_values("t")
    out = []
    rows = list(e.itertuples())
    for a, b in zip(rows, rows[1:]):
        if a.kind == b.kind == "fast_retransmit" and b.t - a.t < 2 * rtt:
            out.append((a.t, b.t))
    return out


def _slow_start_timeouts(ev: pd.DataFrame, win: pd.DataFrame) -> int:
    """Senders whose first coarse timeout comes before 3 s and was caused by a
    loss in slow start (aron97.fig4.c2): the timeout retransmits snd_una (the
    event's seq); the transmission of that segment that was lost is the last
    one sent before its last loss before the timeout; it was sent in slow
    start if the last window sample at or before its send has cwnd < ssthresh.
    (The flow's first loss alone would not do: before any loss ssthresh is at
    its initial maximum, so every flow is "in slow start" there.)"""
    n = 0
    for fl in sorted(ev.flow.unique()):
        e = ev[ev.flow == fl]
        to = e[e.kind == "timeout"].sort_values("t")
        if to.empty or to.t.iloc[0] >= 3.0:
            continue
        t_to, seq = to.t.iloc[0], to.seq.iloc[0]
        lost = e[(e.kind == "loss") & (e.seq == seq) & (e.t <= t_to)]
        if lost.empty:
            continue
        sent = e[e.kind.isin(["send", "retransmit", "fast_retransmit"]) & (e.seq == seq) & (e.t <= lost.t.max())]
        sent = sent[sent.kind != "fast_retransmit"]
        if sent.empty:
            continue
        w = win[(win.flow == fl) & (win.t <= sent.t.max())]
        if not w.empty and w.cwnd.iloc[-1] < w.ssthresh.iloc[-1]:
            n += 1
    return n


def _window_figure(c, which: str, runs):
    """Fig. 4 (ATM) or Fig. 5 (packet): the typical sender's window trace in the style of App. A
    (Figs. 13-14), and the trace claims of §5.1 and §5.2 over all 8 senders of the run."""
    import matplotlib.pyplot as plt
    from atmsim.plotting import save, window_trace

    net = "atm" if which == "fig4" else "packet"
    s, tr, typ = _trace_run(runs[net][0][1])
    win, ev = tr["window"], tr["events"]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    window_trace(ax, win, ev, typ, f"TCP-Lite, {net}, topology 1, 192.5K buffer, sender S{typ + 1} (median)", s["end_time_s"])
    save(fig, c.out / f"{which}.png")
    per_flow = pd.DataFrame(s["flows"])
    per_flow["flow"] = range(len(per_flow))
    per_flow[["flow", "name", "bytes_delivered", "timeouts", "fast_retransmits", "loss_episodes", "single_loss_episodes",
              "consecutive_loss_episodes"]].pipe(c.table, f"{which}")
    name = s["flows"][typ]["name"]  # traces name their flow, as the summary does
    win[win.flow == typ].assign(flow=name).pipe(c.table, f"{which}_window")
    ev[ev.flow == typ].assign(flow=name).pipe(c.table, f"{which}_events")
    rtt = 0.0625
    f = s["flows"][typ]
    if which == "fig4":
        c.claim("c1", statement="the ATM typical sender has repeated coarse timeouts", kind="trace", paper_value="4 timeouts (near 1.5, 6.5, 8, 10 s; §5.1)",
                ours=f["timeouts"], holds=check(("coarse timeouts of the median sender in 10 s", f["timeouts"], at_least(2))), rule="")
        early = _slow_start_timeouts(ev, win)
        c.claim("c2", statement="an early timeout from losses during the initial slow start", kind="trace", paper_value="near 1.5 s (§5.1)",
                ours=early, holds=check(("ATM senders whose first timeout comes before 3 s and whose timed-out segment was lost "
                              "in a transmission sent while cwnd < ssthresh", early, at_least(4))),
                rule="the timed-out segment is snd_una at the timeout; its lost transmission is the last one sent before "
                "its last loss; cwnd and ssthresh from the last window sample at or before that send")
        pairs = {fl: _double_halvings(ev, fl, rtt) for fl in range(8)}
        n_pairs = sum(len(p) for p in pairs.values())
        c.claim("c3", statement="fast retransmit halves cwnd twice for losses in one window", kind="trace", paper_value="near 4.2 s (§5.1 ¶4)",
                ours=n_pairs, holds=check(("ATM episodes with two fast retransmits of one flow within two RTTs, no timeout between",
                                n_pairs, at_least(1))), rule="8 senders")
        deep = 0
        for fl, ps in pairs.items():
            for t1, t2 in ps:
                to = ev[(ev.flow == fl) & (ev.t > t2) & ev.kind.isin(["timeout", "fast_retransmit"])].sort_values("t")
                if to.empty or to.kind.iloc[0] != "timeout":
                    continue
                before = win[(win.flow == fl) & (win.t < t1)]
                after = win[(win.flow == fl) & (win.t >= to.t.iloc[0])]
                if not before.empty and not after.empty and after.ssthresh.iloc[0] <= before.cwnd.iloc[-1] / 4:
                    deep += 1
        c.claim("c4", statement="after a timeout that followed double halving, slow start ends at a small fraction of the earlier cwnd",
                kind="trace", paper_value="1/8 (§5.1 ¶4)", ours=deep,
                holds=check(("ATM double-halving episodes ending in a timeout after which ssthresh <= 1/4 of cwnd before the "
                       "first fast retransmit", deep, at_least(1))), rule="8 senders")
    else:
        atm_s, _, atm_typ = _trace_run(runs["atm"][0][1])
        atm_to = atm_s["flows"][atm_typ]["timeouts"]
        c.claim("c1", statement="the packet-network typical sender has few timeouts, fewer than over ATM", kind="trace", paper_value="Fig. 5 vs Fig. 4",
                ours={"packet": f["timeouts"], "atm": atm_to},
                holds=check(("coarse timeouts of the median packet sender in 10 s", f["timeouts"], at_most(1)),
                      ("the median ATM sender's minus the median packet sender's", atm_to - f["timeouts"], above(0))), rule="")
        eps = per_flow[["loss_episodes", "single_loss_episodes"]].sum()
        share = eps.single_loss_episodes / eps.loss_episodes if eps.loss_episodes else float("nan")
        c.claim("c2", statement="on the packet network losses are single and cwnd shows the fast-recovery saw-tooth", kind="trace",
                paper_value="§5.2 ¶2", ours={"single_share": share, "typical_fast_retransmits": f["fast_retransmits"]},
                holds=check(("share of single-segment loss episodes (8 senders)", share, at_least(0.8)),
                      ("fast recoveries of the median sender", f["fast_retransmits"], at_least(3))), rule="")


@figure("fig4", runs=lambda g: {"atm": [_trace_spec("atm")]})
def fig4(c, runs):
    _window_figure(c, "fig4", runs)


@figure("fig5", runs=lambda g: {"packet": [_trace_spec("packet")], "atm": [_trace_spec("atm")]})
def fig5(c, runs):
    _window_figure(c, "fig5", runs)
