"""Morris & Kung Fig. 4's pauses: the gaps of 0.5 s or more in a source's sending, the bursts between
them, and whether a long pause follows a timeout whose retransmission was itself lost (fig4.c2 as
written, amended 2026-11-29). Read by fig4 (buffers.py) and by its seed sweep (noise.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.reproduce.harness import per_run

from .common import WARMUP_S


def pauses_and_bursts(ev: pd.DataFrame, end: float, gap=0.5, t0: float = 0.0):
    """Pauses (>= gap s without a packet sent) and bursts (the activity between them), each kept if it
    starts at t0 or later: (pause lengths, burst lengths, pause intervals)."""
    t = np.sort(ev[ev.kind.isin(["send", "retransmit"])].t.to_numpy())
    if len(t) == 0:
        return [], [], []
    gaps = np.diff(t)
    idx = np.where(gaps >= gap)[0]
    keep = t[idx] >= t0
    pauses = list(gaps[idx][keep])
    intervals = list(zip(t[idx][keep], t[idx + 1][keep]))
    starts = np.concatenate([[t[0]], t[idx + 1]])
    ends = np.concatenate([t[idx], [t[-1]]])
    b = starts >= t0
    return pauses, list((ends - starts)[b]), intervals


def pause_classes(ev: pd.DataFrame, end: float, t0: float = WARMUP_S, long_s: float = 2.0) -> dict:
    """Pauses from t0 on split at `long_s`, and for each class how many follow a burst in which the first
    new segment sent after the timeout that opened it was dropped: the segment BSD times for an RTT
    sample (Karn's rule), whose loss leaves the back-off of the next timer in place."""
    p, _, iv = pauses_and_bursts(ev, end, t0=t0)
    to = np.sort(ev[ev.kind == "timeout"].t.to_numpy())
    sends = ev[ev.kind == "send"].sort_values("t")
    loss = ev[ev.kind == "loss"]
    out = {"short": [], "long": [], "short_timed_lost": 0, "long_timed_lost": 0}
    for a, z in iv:
        k = "long" if z - a > long_s else "short"
        out[k].append(float(z - a))
        j = np.searchsorted(to, a, side="right") - 1
        first = sends[sends.t >= to[j]] if j >= 0 else sends.iloc[:0]
        if len(first):
            seq, t1 = first.seq.iloc[0], first.t.iloc[0]
            out[k + "_timed_lost"] += bool(((loss.t >= t1) & (loss.t <= a) & (loss.seq == seq)).any())
    return out


def after_lost_retransmission(ev: pd.DataFrame, intervals, long_s: float = 2.0) -> tuple[int, int, int]:
    """fig4.c2 as written (amended 2026-11-29): of the pauses longer than `long_s` (their (start, end)
    intervals), (how many, how many follow a timeout whose retransmission was itself lost, how many lie
    between two timeouts). The timeout a pause follows is the last one at or before its start; its
    retransmission is the first segment retransmitted at or after it, before the pause; it was lost if
    a loss of that sequence number comes after it and before the pause ends."""
    to = np.sort(ev[ev.kind == "timeout"].t.to_numpy())
    retx = ev[ev.kind == "retransmit"].sort_values("t", kind="stable")
    loss = ev[ev.kind == "loss"]
    n = lost = between = 0
    for a, z in intervals:
        if z - a <= long_s:
            continue
        n += 1
        j = np.searchsorted(to, a, side="right") - 1
        if j < 0:
            continue
        # The proxy the rule used until 2026-11-29: a timeout at the pause's end and one up to 3 s before its start.
        between += bool(np.any(np.abs(to - z) < 1e-6) and to[j] > a - 3.0)
        r = retx[(retx.t >= to[j]) & (retx.t <= a)]
        if len(r):
            seq, t1 = r.seq.iloc[0], r.t.iloc[0]
            lost += bool(((loss.t >= t1) & (loss.t <= z) & (loss.seq == seq)).any())
    return n, lost, between


@per_run
def pauses_of(spec, result) -> dict:
    """One traced config-(a) run's pauses, read from its events once per run (`harness.per_run`: fig4 made again
    without a seed reads the same runs, its seed sweep whole each time). From 1 s on: `pauses`, `bursts`, the long
    pauses' counts `long`, `after_lost`, `between` (after_lost_retransmission) and `classes` (pause_classes);
    `all_pauses` from 0. Shared between readers, who only read them."""
    s, tr = result
    ev = pd.DataFrame({k: np.asarray(v) for k, v in tr["events"].items()})
    end = s["end_time_s"]
    p, b, iv = pauses_and_bursts(ev, end, t0=WARMUP_S)
    n, lost, between = after_lost_retransmission(ev, iv)
    return {"pauses": p, "bursts": b, "all_pauses": pauses_and_bursts(ev, end)[0], "classes": pause_classes(ev, end),
            "long": n, "after_lost": lost, "between": between}
