"""Mechanism probes for the arb deviations that remain (docs/arb.md §8):
each runs one point of a figure with traces and returns the numbers that
explain it. No claims: these are the measurements the deviation notes cite.

    python -m atmsim.reproduce.arb.anatomy fig9    # TCP-SS two-way short pipe: idle time, ACK compression
    python -m atmsim.reproduce.arb.anatomy fig12   # Tahoe pair: which packets find the buffer full, start order
    python -m atmsim.reproduce.arb.anatomy fig15   # ARB long RTT: increases from stale Ra when RTT > M

Extra arguments are `--set` overrides (KEY=VALUE) applied to every run.

Each probe is a run (`Probe`) and a measure of its result; the figures whose
failing claims cite a probe declare the same runs (`runs(what)`) and quote
`measure(what, results)`, so a note's numbers are what this command prints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from atmsim.reproduce import probes as probe_plumbing
from atmsim.reproduce.harness import Run

from .common import d23_of, ratio_of, transport


@dataclass(frozen=True)
class Probe:
    """One traced run (seed 1) and the measure that reads it: `measure(summary, traces)`, traces as
    `atmsim.run` gives them (names, not indices)."""

    scenario: str
    kind: str
    overrides: tuple
    measure: Callable

    def run(self) -> Run:
        return Run(self.scenario, transport(self.scenario, self.kind) + self.overrides, 1, True)


def _idle_runs(idle: np.ndarray, dt: float) -> np.ndarray:
    """Lengths (s) of the runs of consecutive idle samples."""
    edges = np.diff(np.concatenate([[0], idle.astype(int), [0]]))
    return (np.where(edges == -1)[0] - np.where(edges == 1)[0]) * dt


FWD, REV = "switch-1->switch-2", "switch-2->switch-1"


def twoway_short_probe(duration: float = 400.0, t0: float = 100.0, extra=()) -> Probe:
    o = (f"duration={duration}s", "trace.interval=20ms", f"trace.port={FWD}") + tuple(extra)
    return Probe("arb-twoway-short", "tcp", o, lambda s, tr: _twoway_short(s, tr, t0))


def twoway_short(duration: float = 400.0, t0: float = 100.0, extra=()) -> dict:
    """fig9: utilisation and idle periods of each direction, who shares the forward queue, ACK spacing, windows and losses."""
    return probe_plumbing.result(twoway_short_probe(duration, t0, extra))


def _twoway_short(s: dict, tr: dict, t0: float) -> dict:
    fwd, rev = FWD, REV
    q = tr["queue"][tr["queue"].t >= t0]
    occ = {p: q[q.port == p].occupancy.to_numpy() for p in (fwd, rev)}
    n = min(len(v) for v in occ.values())
    out = {}
    for p in (fwd, rev):
        runs = _idle_runs(occ[p][:n] == 0, 0.02)
        out[p] = {"utilisation": float((occ[p][:n] > 0).mean()), "mean_queue": float(occ[p][:n].mean()), "idle_periods": len(runs),
                  "median_idle_s": float(np.median(runs)) if len(runs) else 0.0, "idle_in_runs_over_1s": float(runs[runs >= 1].sum())}
    idle_f = occ[fwd][:n] == 0
    out["rev_queue_when_fwd_idle"] = float(occ[rev][:n][idle_f].mean()) if idle_f.any() else float("nan")
    out["queue_correlation"] = float(np.corrcoef(occ[fwd][:n], occ[rev][:n])[0, 1])
    log = tr["port"][tr["port"].t >= t0]
    ack = log.direction == "reply"  # a flow's ACKs travel on its reply VC
    out["fwd_port"] = {f"{c}_{'ack' if a else 'data'}": int(v) for (c, a), v in log.groupby([log.change, ack]).size().items()}
    # Runs of data departures between two ACK departures: how long the other direction waits for its ACKs.
    kinds = ack[log.change == "depart"].to_numpy().astype(int)
    edges = np.diff(np.concatenate([[1], kinds, [1]]))
    runs = np.where(edges == 1)[0] - np.where(edges == -1)[0]
    out["data_runs_between_acks"] = {"median": float(np.median(runs)), "p90": float(np.percentile(runs, 90)), "max": int(runs.max())}
    acks = log[ack & (log.change == "depart")]
    order = [f["name"] for f in s["flows"]]
    out["ack_gaps_flow"] = min(acks.flow.unique(), key=order.index)  # the first flow whose ACKs cross the forward port
    first = acks[acks.flow == out["ack_gaps_flow"]].t.to_numpy()
    gaps = np.diff(np.sort(first))
    ack_s = 8 * 50 / 50e3  # one 50-byte ACK at 50 kb/s
    out["ack_gaps_back_to_back"] = float(np.mean(gaps < 1.5 * ack_s)) if len(gaps) else float("nan")
    ev = tr["events"][tr["events"].t >= t0]
    w = tr["window"][tr["window"].t >= t0]
    w = w[w.flow.isin(ev[ev.kind == "send"].flow.unique())]  # connections that run
    out["mean_cwnd_packets"] = float(w.cwnd.mean() / 450)
    out["mean_ssthresh_packets"] = float(w.ssthresh.mean() / 450)
    out["events"] = {k: int(v) for k, v in ev[ev.kind != "tick"].groupby("kind").size().items()}
    return out


GATEWAY = "gateway-3->node-4"


def phase_probe(d23_ms: float, f2_start: str = "10ms", duration: float = 120.0, warm: float = 20.0, extra=()) -> Probe:
    o = (f"link.node-2-gateway-3.delay={round(d23_ms * 1000)}us", f"flow.f2.start={f2_start}", f"duration={duration}s",
         "trace.interval=10ms", f"trace.port={GATEWAY}") + tuple(extra)
    return Probe("arb-fairness", "tcp", o, lambda s, tr: {"f2_start": f2_start, **_phase(s, tr, d23_ms, duration, warm)})


def phase(d23_ms: float, f2_start: str = "10ms", duration: float = 120.0, warm: float = 20.0, extra=()) -> dict:
    """fig12: per connection, its share, its drops, and where in the gateway's 10 ms service time its arrivals and drops fall."""
    return probe_plumbing.result(phase_probe(d23_ms, f2_start, duration, warm, extra))


def _phase(s: dict, tr: dict, d23_ms: float, duration: float, warm: float) -> dict:
    log = tr["port"][tr["port"].t >= warm]
    dep = np.sort(log[log.change == "depart"].t.to_numpy())

    def ph(t):
        return (t - dep[np.maximum(np.searchsorted(dep, t) - 1, 0)]) * 1e3

    out = {"ratio": ratio_of(d23_ms)}
    w = tr["window"][tr["window"].t >= warm]
    for f in (0, 1):
        name = s["flows"][f]["name"]
        mine = log[(log.flow == name) & (log.direction == "data")]
        arr, drp = mine[mine.change == "arrive"].t.to_numpy(), mine[mine.change == "drop"].t.to_numpy()
        out[f"node{f + 1}"] = {
            "line_share": len(mine[mine.change == "depart"]) * 0.01 / (duration - warm),
            "drops": len(drp),
            "arrival_phase_ms": float(np.median(ph(arr))) if len(arr) else None,
            "drop_phase_ms": float(np.median(ph(drp))) if len(drp) else None,
            "window_limited": float((w[w.flow == name].cwnd >= 32 * 960).mean()),
        }
    return out


def feedback_probe(ratio: float, interval: str = "500ms", duration: float = 300.0, t0: float = 100.0, extra=()) -> Probe:
    o = (f"link.node-2-gateway-3.delay={round(d23_of(ratio) * 1000)}us", f"arb.interval={interval}", f"duration={duration}s",
         "trace.interval=20ms") + tuple(extra)
    return Probe("arb-fairness", "arb", o, lambda s, tr: _feedback(s, tr, ratio, interval, t0))


def feedback(ratio: float, interval: str = "500ms", duration: float = 300.0, t0: float = 100.0, extra=()) -> dict:
    """fig15: per ARB connection, its part of the delivered data and the increases larger than Rinc (max(Rs, Ra + Rinc) with an Ra from before a cut)."""
    return probe_plumbing.result(feedback_probe(ratio, interval, duration, t0, extra))


def _feedback(s: dict, tr: dict, ratio: float, interval: str, t0: float) -> dict:
    d = [f["bytes_delivered"] for f in s["flows"]]
    rt = tr["rate"][tr["rate"].t >= t0]
    out = {"ratio": ratio, "interval": interval, "node2_part": d[1] / sum(d)}
    order = [f["name"] for f in s["flows"]]
    for name, g in rt.groupby("flow"):
        f = order.index(name)
        rs, rinc = g.rate_bps.to_numpy(), g.rinc_bps.to_numpy()
        up = np.diff(rs)
        big = up > 1.001 * rinc[:-1]  # the step before this reply's update
        out[f"node{int(f) + 1}"] = {"replies": len(g), "cuts": int((up < 0).sum()), "increases": int((up > 0).sum()),
                                    "increases_above_rinc": int(big.sum()), "excess_kbps": float((up[big] - rinc[:-1][big]).sum() / 1e3)}
    return out


def probes(what: str, extra=()) -> dict:
    """The probes of one figure by label: what `python -m atmsim.reproduce.arb.anatomy WHAT` runs."""
    extra = tuple(extra)
    if what == "fig9":
        one = tuple(f"flow.{d}{k}=off" for k in range(2, 6) for d in "fr")  # one connection each way: the others left out
        return {"tahoe": twoway_short_probe(extra=extra), "timeout_only": twoway_short_probe(extra=extra + ("tcp.variant=timeout-only",)),
                "one_each_way": twoway_short_probe(extra=extra + one)}
    if what == "fig12":
        return {f"{d}ms/{st}": phase_probe(d, st, extra=extra) for d in (6.0, 9.75, 12.0, 38.75) for st in ("10ms", "15s")}
    if what == "fig15":
        return {f"{r}/{m}": feedback_probe(r, m, extra=extra) for r in (1, 4, 8) for m in ("500ms", "2s")}
    raise ValueError(f"unknown probe {what!r}: fig9, fig12 or fig15")


runs, measure, main = probe_plumbing.bind(probes, "python -m atmsim.reproduce.arb.anatomy")

if __name__ == "__main__":
    main()
