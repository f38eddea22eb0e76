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
        c.claim("fig4", "c1", "the ATM typical sender has repeated coarse timeouts", "trace", "4 timeouts (near 1.5, 6.5, 8, 10 s; §5.1)",
                f["timeouts"], f["timeouts"] >= 2, ">= 2 coarse timeouts of the median sender in 10 s")
        early = 0
        for fl in range(8):
            to = ev[(ev.flow == fl) & (ev.kind == "timeout")]
            if to.empty or to.t.min() >= 3.0:
                continue
            losses = ev[(ev.flow == fl) & (ev.kind == "loss") & (ev.t < to.t.min())]
            if losses.empty:
                continue
            w = win[(win.flow == fl) & (win.t <= losses.t.min())]
            if not w.empty and w.cwnd.iloc[-1] < w.ssthresh.iloc[-1]:
                early += 1
        c.claim("fig4", "c2", "an early timeout from losses during the initial slow start", "trace", "near 1.5 s (§5.1)",
                early, early >= 4, ">= 4 of 8 ATM senders time out before 3 s after losing segments sent while cwnd < ssthresh",
                "slow start judged from the last window sample before the flow's first loss")
        pairs = {fl: _double_halvings(ev, fl, rtt) for fl in range(8)}
        n_pairs = sum(len(p) for p in pairs.values())
        c.claim("fig4", "c3", "fast retransmit halves cwnd twice for losses in one window", "trace", "near 4.2 s (§5.1 ¶4)",
                n_pairs, n_pairs >= 1, ">= 1 ATM episode with two fast retransmits of one flow within two RTTs, no timeout between")
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
        c.claim("fig4", "c4", "after a timeout that followed double halving, slow start ends at a small fraction of the earlier cwnd",
                "trace", "1/8 (§5.1 ¶4)", deep, deep >= 1,
                "ssthresh after the timeout <= 1/4 of cwnd before the first fast retransmit, in >= 1 ATM episode")
    else:
        atm_s, _, atm_typ = _trace_run(runs["atm"][0][1])
        atm_to = atm_s["flows"][atm_typ]["timeouts"]
        c.claim("fig5", "c1", "the packet-network typical sender has few timeouts, fewer than over ATM", "trace", "Fig. 5 vs Fig. 4",
                {"packet": f["timeouts"], "atm": atm_to}, f["timeouts"] <= 1 and f["timeouts"] < atm_to,
                "median packet sender <= 1 timeout in 10 s and fewer than the median ATM sender")
        eps = per_flow[["loss_episodes", "single_loss_episodes"]].sum()
        share = eps.single_loss_episodes / eps.loss_episodes if eps.loss_episodes else float("nan")
        c.claim("fig5", "c2", "on the packet network losses are single and cwnd shows the fast-recovery saw-tooth", "trace",
                "§5.2 ¶2", {"single_share": share, "typical_fast_retransmits": f["fast_retransmits"]},
                share >= 0.8 and f["fast_retransmits"] >= 3,
                ">= 80 % single-segment episodes (8 senders) and >= 3 fast recoveries of the median sender")


@figure("fig4", runs=lambda g: {"atm": [_trace_spec("atm")]})
def fig4(c, runs):
    _window_figure(c, "fig4", runs)


@figure("fig5", runs=lambda g: {"packet": [_trace_spec("packet")], "atm": [_trace_spec("atm")]})
def fig5(c, runs):
    _window_figure(c, "fig5", runs)
