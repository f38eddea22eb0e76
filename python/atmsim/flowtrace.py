"""Reading a TCP run's window and event traces per flow: acknowledged bytes
over time, coarse-timeout episodes and their backoff, the segments lost in
the initial slow start, and how long each flow holds the largest window.

Input: the `window` and `events` tables of a traced run (`atmsim.run(...,
trace=True).traces`, or the csv files of `atmsim run --out DIR`). Every
function is pure and works on plain DataFrames, so tests can feed it
hand-made traces.

What the traces give, and what is derived here:

- `window` has one row per sender action (ACK, tick, timeout) with cwnd,
  ssthresh and `unacked` = snd_max − snd_una; `events` has every segment
  sent (`send` for new data, `retransmit` below the highest sequence sent),
  every `loss` (the frame's first sequence number, at the instant its first
  unit was dropped), every `timeout` and `fast_retransmit` (with snd_una),
  and every `tick`.
- **Acknowledged bytes** at a window row: snd_una − 1 (the SYN takes
  sequence 0), with snd_una = snd_max − unacked and snd_max the highest
  sequence sent by then plus one segment (bulk senders send whole segments;
  `mss` says how long).
- **A timeout episode** is the stall around one or more coarse timeouts of
  the same snd_una: from the last advance of snd_una before the first
  timeout to its first advance after the last one. Its backoff time is the
  time between the first and last timeouts of the episode (the doubled
  RTOs), its idle time before the timer the time from the last advance to
  the first timeout.
- **The initial overshoot** of a flow: the original transmissions it lost
  before its first loss recovery (its first timeout or fast retransmit),
  i.e. the distinct sequence numbers dropped among those sent before that
  event, each counted only if dropped before its first retransmission.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def _numbered(df: pd.DataFrame, flows_summary: list) -> pd.DataFrame:
    """`df` with its flow column as the flows' indices in the summary (names are mapped back)."""
    if pd.api.types.is_numeric_dtype(df.flow):
        return df
    index = {f["name"]: i for i, f in enumerate(flows_summary)}
    return df.assign(flow=df.flow.map(index).astype(int))


def _flow(df: pd.DataFrame, flow: int) -> pd.DataFrame:
    return df[df.flow == flow].sort_values("t", kind="stable")


def acked_bytes(window: pd.DataFrame, events: pd.DataFrame, flow: int, mss: int) -> pd.DataFrame:
    """Columns t, acked: the flow's acknowledged data bytes after each of its window rows."""
    w = _flow(window, flow)
    sends = _flow(events[events.kind == "send"], flow)
    st = sends.t.to_numpy()
    top = np.maximum.accumulate(sends.seq.to_numpy()) if len(sends) else np.zeros(0, np.uint64)
    i = np.searchsorted(st, w.t.to_numpy(), side="right")
    if len(top):
        snd_max = np.where(i > 0, top[np.maximum(i - 1, 0)].astype(np.int64) + mss, 1)
    else:
        snd_max = np.ones(len(i), np.int64)
    una = np.maximum(snd_max - w.unacked.to_numpy().astype(np.int64), 1)
    return pd.DataFrame({"t": w.t.to_numpy(), "acked": np.maximum.accumulate(una - 1)})


def at(series: pd.DataFrame, col: str, times) -> np.ndarray:
    """A step function (the last row at or before each time; 0 before the first row) sampled at `times`."""
    i = np.searchsorted(series.t.to_numpy(), np.asarray(times), side="right")
    v = series[col].to_numpy()
    return np.where(i > 0, v[np.maximum(i - 1, 0)] if len(v) else 0, 0)


def timeout_episodes(acked: pd.DataFrame, events: pd.DataFrame, flow: int, end: float) -> pd.DataFrame:
    """One row per stall of the flow around coarse timeouts of one snd_una (see the module doc):
    una, timeouts, t_stall (last advance before), t_first, t_last (timeouts), t_resume (first advance
    after, or `end`), idle_s, backoff_s, stall_s."""
    to = _flow(events[events.kind == "timeout"], flow)
    t, a = acked.t.to_numpy(), acked.acked.to_numpy()
    rows = []
    for una, grp in to.groupby((to.seq != to.seq.shift()).cumsum(), sort=False):
        u = int(grp.seq.iloc[0])
        t1, t2 = float(grp.t.iloc[0]), float(grp.t.iloc[-1])
        level = max(u - 1, 0)
        j = int(np.searchsorted(a, level, side="left"))  # first row with acked >= level: the last advance
        t_stall = float(t[j]) if j < len(t) and t[j] <= t1 else t1
        after = np.nonzero((t > t2) & (a > level))[0]
        t_resume = float(t[after[0]]) if len(after) else end
        rows.append({"flow": flow, "una": u, "timeouts": len(grp), "t_stall": t_stall, "t_first": t1, "t_last": t2,
                     "t_resume": t_resume, "idle_s": t1 - t_stall, "backoff_s": t2 - t1, "stall_s": t_resume - t_stall})
    cols = ["flow", "una", "timeouts", "t_stall", "t_first", "t_last", "t_resume", "idle_s", "backoff_s", "stall_s"]
    return pd.DataFrame(rows, columns=cols)


def initial_overshoot(window: pd.DataFrame, events: pd.DataFrame, flow: int) -> dict:
    """The flow's first loss recovery and what its initial slow start lost (see the module doc):
    t_first_loss, t_recovery, recovery ('timeout' / 'fast_retransmit' / ''), lost (segments),
    cwnd_at_loss (bytes: the last window before the first loss)."""
    ev = _flow(events, flow)
    rec = ev[ev.kind.isin(["timeout", "fast_retransmit"])]
    losses = ev[ev.kind == "loss"]
    out = {"t_first_loss": float(losses.t.iloc[0]) if len(losses) else float("nan"),
           "t_recovery": float(rec.t.iloc[0]) if len(rec) else float("nan"),
           "recovery": str(rec.kind.iloc[0]) if len(rec) else "", "lost": 0, "cwnd_at_loss": float("nan")}
    if losses.empty:
        return out
    t_rec = out["t_recovery"] if len(rec) else np.inf
    sent = ev[(ev.kind == "send") & (ev.t <= t_rec)]
    top = int(sent.seq.max()) if len(sent) else 0
    retx = ev[ev.kind == "retransmit"].groupby("seq").t.min()
    first_loss = losses.groupby("seq").t.min()
    cand = first_loss[first_loss.index <= top]
    lost = [s for s, tl in cand.items() if s not in retx.index or tl < retx[s]]
    out["lost"] = len(lost)
    w = _flow(window, flow)
    w = w[w.t <= out["t_first_loss"]]
    if len(w):
        out["cwnd_at_loss"] = float(w.cwnd.iloc[-1])
    return out


def lost_retransmissions(events: pd.DataFrame, flow: int) -> int:
    """Losses of segments the flow had already retransmitted (a loss after a retransmission of its sequence)."""
    ev = _flow(events, flow)
    retx = ev[ev.kind == "retransmit"].groupby("seq").t.min()
    lo = ev[(ev.kind == "loss") & ev.seq.isin(retx.index)]
    return int((lo.t.to_numpy() >= retx.reindex(lo.seq).to_numpy()).sum())


def largest_window_share(window: pd.DataFrame, flows, grid) -> pd.Series:
    """Per flow, the share of the sample times `grid` at which its cwnd is the largest of all flows
    (ties shared equally)."""
    cw = np.stack([at(_flow(window, f), "cwnd", grid).astype(float) for f in flows])
    top = cw == cw.max(axis=0)
    return pd.Series((top / top.sum(axis=0)).mean(axis=1), index=list(flows))


def anatomy(window: pd.DataFrame, events: pd.DataFrame, flows_summary: list, mss: int, end: float,
            step: float = 0.001):
    """The per-flow table of a traced run and the acknowledged bytes on a grid of `step` seconds.

    Returns (table, curves, episodes): table has one row per flow (flow, name, bytes_delivered,
    share, timeouts, episodes, backoffs, stall_s, backoff_s, idle_s, first_recovery, t_first_loss,
    overshoot_lost, retx_lost, cwnd_at_loss_segs, mean_cwnd_segs, max_cwnd_segs, largest_window_share);
    curves has columns t and one acked-bytes column per flow; episodes lists every timeout episode.
    The traces may number the flows (the core's columns) or name them (`Result.traces`)."""
    window, events = (_numbered(df, flows_summary) for df in (window, events))
    flows = list(range(len(flows_summary)))
    grid = np.arange(0.0, end + step / 2, step)
    total = sum(f["bytes_delivered"] for f in flows_summary) or 1
    lw = largest_window_share(window, flows, grid)
    rows, curves, eps = [], {"t": grid}, []
    for f in flows:
        ack = acked_bytes(window, events, f, mss)
        curves[f"flow{f}"] = at(ack, "acked", grid)
        ep = timeout_episodes(ack, events, f, end)
        eps.append(ep)
        ov = initial_overshoot(window, events, f)
        cw = at(_flow(window, f), "cwnd", grid).astype(float)
        s = flows_summary[f]
        rows.append({"flow": f, "name": s.get("name", f"f{f + 1}"), "bytes_delivered": s["bytes_delivered"],
                     "share": s["bytes_delivered"] / total, "timeouts": int(ep.timeouts.sum()), "episodes": len(ep),
                     "backoffs": int((ep.timeouts - 1).sum()), "stall_s": float(ep.stall_s.sum()),
                     "backoff_s": float(ep.backoff_s.sum()), "idle_s": float(ep.idle_s.sum()),
                     "first_recovery": ov["recovery"], "t_first_loss": ov["t_first_loss"],
                     "overshoot_lost": ov["lost"], "retx_lost": lost_retransmissions(events, f), "cwnd_at_loss_segs": ov["cwnd_at_loss"] / mss,
                     "mean_cwnd_segs": float(cw.mean()) / mss, "max_cwnd_segs": float(cw.max()) / mss,
                     "largest_window_share": float(lw[f])})
    return pd.DataFrame(rows), pd.DataFrame(curves), pd.concat(eps, ignore_index=True)
