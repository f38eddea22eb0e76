"""The notes of ARB's failing queue and utilisation rows (Figs. 7, 10, 11, 16-arb), measured on the
figure's own runs (issue 37: a note's numbers come from the run it annotates).

What the notes say of ARB's queue (docs/arb.md §2, §8): the receivers force a cut once the queueing their
packets meet exceeds the accumulation threshold, which the runs count as 3 packets of the bottleneck's queue
([CHG §3.3]; `arb.accumulation`, whose other reading, 3 packet times at each connection's own rate, let N
connections sharing a queue grow it to about 3N packets), and a cut acts one rate interval plus a round trip
after the request that measured it. The notes name the threshold the run resolved to and quote what the runs
show: how high the queue goes, how long it stays empty after the cuts, and how many of the cuts fall within
one rate interval of another connection's.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

import atmsim
from atmsim.toml import tomllib

from .common import PAPER_CUT_QUEUE, WARMUP_S, frame, queue_series
from .interval_rule import TIME, quantity



def run_interval_s(run) -> float:
    """The ARB rate interval M of the run `run`: its `arb.interval` override (the catalogue's rule sets one on every
    ARB run of the figures, interval_rule.py), else its scenario's `[arb] interval`, in seconds."""
    arb = tomllib.loads(atmsim.resolve(run.scenario, list(run.overrides)))["arb"]
    return quantity(arb["interval"], TIME)


def accumulation_threshold(run) -> str:
    """The accumulation threshold the ARB run `run` resolves to, in words: its `arb.k_acc` and what
    `arb.accumulation` counts it in."""
    # The resolved scenario writes [arb], defaults filled in, wherever ARB flows run.
    arb = tomllib.loads(atmsim.resolve(run.scenario, list(run.overrides)))["arb"]
    if arb["accumulation"] == "queue":
        return f"{arb['k_acc']:g} packets of the bottleneck's queue (arb.accumulation = \"queue\")"
    return f"{arb['k_acc']:g} packet times at each connection's own measured rate (arb.accumulation = \"{arb['accumulation']}\")"


def cuts(tr: dict, t0: float = WARMUP_S) -> pd.DataFrame:
    """Every decrease of a connection's allowed rate Rs after t0 (columns flow, t)."""
    r = frame(tr, "rate")
    out = []
    for f, g in r.sort_values("t", kind="stable").groupby("flow"):
        dec = np.diff(g.rate_bps.to_numpy()) < 0
        t = g.t.to_numpy()[1:][dec]
        out.append(pd.DataFrame({"flow": int(f), "t": t[t >= t0]}))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame({"flow": [], "t": []})


def synchronised_share(c: pd.DataFrame, window: float) -> float:
    """The share of cuts with another connection's cut within `window` seconds."""
    if len(c) < 2 or c.flow.nunique() < 2:
        return float("nan")
    t, f = c.t.to_numpy(), c.flow.to_numpy()
    near = [bool(((np.abs(t - ti) <= window) & (f != fi)).any()) for ti, fi in zip(t, f)]
    return float(np.mean(near))


def empty_periods(s: dict, tr: dict, port: str, t0: float = WARMUP_S) -> np.ndarray:
    """Lengths (s) of the runs of samples where the port's sampled queue is empty, from t0 on."""
    t, q = queue_series(s, tr, port, t0)
    if len(t) < 2:
        return np.array([])
    dt = float(np.median(np.diff(t)))
    empty = np.concatenate([[0], (q == 0).astype(int), [0]])
    d = np.diff(empty)
    return (np.where(d == -1)[0] - np.where(d == 1)[0]) * dt


def queue_note(pairs, ports, scenario: str) -> str:
    """The queue of ARB runs against the number of connections, and how synchronised their cuts are
    (medians over seeds of each run's values over [100 s, end])."""
    m = run_interval_s(pairs[0][0])
    rows = []
    for run, (s, tr) in pairs:
        c = cuts(tr)
        for p in ports:
            t, q = queue_series(s, tr, p)
            e = empty_periods(s, tr, p)
            rows.append({"max": float(q.max()), "mean": float(q.mean()), "above3": float((q > PAPER_CUT_QUEUE).mean()),
                         "empty": float((q == 0).mean()), "empty_median_s": float(np.median(e)) if len(e) else float("nan"),
                         "sync": synchronised_share(c, m), "cuts_per_100s": 100 * len(c) / (s["end_time_s"] - WARMUP_S),
                         "conns": len(s["flows"]) / len(ports)})
    d = pd.DataFrame(rows).median()
    together = "they cut together" if d["sync"] >= 0.5 else "most cuts are a connection's own"
    return (f"accumulation threshold: {accumulation_threshold(pairs[0][0])}; connections per queue: {d['conns']:.0f}; over [{WARMUP_S:.0f} s, end] the queue averages {d['mean']:.2f} "
            f"packets, reaches {d['max']:.0f} and is above {PAPER_CUT_QUEUE} packets {d['above3']:.1%} of the time; it is "
            f"empty {d['empty']:.1%} of the time, in periods of a median {d['empty_median_s']:.2f} s. The receivers' "
            f"accumulation rule cuts the senders {d['cuts_per_100s']:.1f} times per 100 s, and {d['sync']:.0%} of the cuts "
            f"fall within one rate interval ({m:.4g} s) of another connection's: {together} (medians over seeds).")


def bursty_note(df: pd.DataFrame, rtt5_s: float) -> str:
    """fig16-arb: node 5's mean share and the loss ratio per buffer, and node 5's round trip."""
    per = df.groupby("buffer").share5.mean()
    tot = df.groupby("buffer")[["lost", "sent"]].sum()
    lossy = [int(b) for b in tot.index if tot.lost[b] > 0]
    return (f"Node 5's mean share per buffer: {', '.join(f'{b}: {v:.1%}' for b, v in per.items())}; drops / packets sent per "
            f"buffer: {', '.join(f'{b}: {v:.4f}' for b, v in (tot.lost / tot.sent).items())}"
            + (f"; the runs lose packets at buffers {', '.join(map(str, lossy))}" if lossy else "; no run loses a packet")
            + f". Node 5's round trip is {rtt5_s:.2f} s, so its NAKs and replies arrive last (fig16-arb.csv).")
