"""What the arb figures share: the grid, runs of the built-in arb scenarios
with TCP-SS or ARB connections, and the measures of Chang, Huynh & Gray
(§3-§4) computed from summaries and traces.

Measures (docs/arb.md, "Metrics"): link utilisation is the busy fraction of
the bottleneck direction, counting every packet (data, retransmissions,
ACKs, rate replies); queue statistics count the packet in transmission and
are time averages of the queue sampled every 20 ms over the measurement
window; the queue amplitude is the median over 10 s windows of (max - min).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

import atmsim
from atmsim.reproduce.harness import Run
from atmsim.reproduce.readings import Reading

from .interval_rule import interval_override, rule_interval_s

SAMPLE = "20ms"  # queue sampling interval of traced runs
WARMUP_S = 100.0  # efficiency runs: statistics over [100 s, end]


RTT1_MS = 2 * (5 + 100) + 1 + 10 + 0.4 + 0.04  # fairness topology: node 1's round trip, 221.44 ms (§4.1)


def ratio_of(d23_ms: float) -> float:
    """RTT2/RTT1 of the fairness topology for node 2's access delay d23."""
    return (RTT1_MS + 2 * (d23_ms - 5)) / RTT1_MS


def d23_of(ratio: float) -> float:
    return 5 + (ratio - 1) * RTT1_MS / 2


def flow_names(scenario: str) -> list[str]:
    """The flow names of a built-in scenario, in file order."""
    return re.findall(r'^name = "([^"]+)"', atmsim.load_scenario(scenario), re.M)[1:]


def transport(scenario: str, kind: str) -> tuple:
    """Overrides that make every flow of `scenario` TCP-SS ("tcp") or ARB ("arb")."""
    return tuple(f"flow.{n}.kind={kind}" for n in flow_names(scenario))


@dataclass(frozen=True)
class Grid:
    quick: bool
    seeds: tuple
    # Fairness sweeps: RTT2/RTT1 up to this ratio (d23 from 5 ms by 0.25 ms).
    ratio_max: float

    def run(self, scenario: str, kind: str, overrides=(), seed: int = 1, trace: bool = False, tag=None) -> Run:
        o = transport(scenario, kind) + tuple(overrides)
        if kind == "arb" and not any(x.startswith("arb.interval=") for x in o):
            # M by the catalogue's rule (interval_rule.py, docs/arb.md §3), not the scenario's rounded value
            o += (interval_override(rule_interval_s(scenario, o)),)
        if trace:
            o += (f"trace.interval={SAMPLE}",)
        return Run(scenario, o, seed, trace, tag)


def _with_own_rate_threshold(run: Run) -> Optional[Run]:
    """An ARB run with the accumulation threshold at each connection's own rate; None for a TCP-SS run."""
    if not any(o.endswith(".kind=arb") for o in run.overrides):
        return None
    return dataclasses.replace(run, overrides=run.overrides + ("arb.accumulation=own-rate",))


# The accumulation rule's other reading (docs/arb.md §2, issue 37): the runs count k_acc = 3 in packets of the
# bottleneck's queue, [CHG §3.3] "when the queue length is greater than 3 packets"; before issue 37 they counted it in
# packet times at each connection's own measured rate. Every row gives its verdict under both.
OWN_RATE = Reading("accumulation = own-rate", "k_acc in packet times at each connection's own measured rate, the rule "
                   "before the §3.3 reading, instead of in packets of the bottleneck's queue", _with_own_rate_threshold)


PAPER_CUT_QUEUE = 3  # packets: "when the queue length is greater than 3 packets, senders ... cut back" (§3.3)


def _with_queue_in_round_trip(run: Run) -> Optional[Run]:
    """An ARB run whose M by the catalogue's rule counts the receivers' threshold queue in the round trip; None for a
    TCP-SS run or one whose M is set by hand (a sweep, a probe)."""
    base = tuple(o for o in run.overrides if not o.startswith("arb.interval="))
    if len(base) == len(run.overrides) or interval_override(rule_interval_s(run.scenario, base)) not in run.overrides:
        return None
    m = rule_interval_s(run.scenario, base, PAPER_CUT_QUEUE)
    if interval_override(m) in run.overrides:  # the queue does not move M (the short pipe: 8 packets at the fair share bind)
        return None
    return dataclasses.replace(run, overrides=base + (interval_override(m),))


# M by the catalogue's rule, "about 8 packets at the fair share rate, >= 1 RTT" (interval_rule.py, docs/arb.md §3): the
# runs count the round trip without queueing, as [CHG §4.1] count 221.44 ms; the other faithful reading counts the
# queue at which the receivers cut (3 packets at the bottleneck) in it. Every row gives its verdict under both.
RTT_WITH_QUEUE = Reading("M with the cut queue in the round trip", f"M by the catalogue's rule counting the {PAPER_CUT_QUEUE} "
                         "packets of queue at which the receivers cut in the round trip, instead of the round trip without queueing",
                         _with_queue_in_round_trip)


def grid(quick: bool, seeds: Optional[list] = None, ratio_max: Optional[float] = None) -> Grid:
    return Grid(quick, tuple(seeds or ([1] if quick else [1, 2, 3])), ratio_max or (1.1 if quick else 1.5))


# --------------------------------------------------------------------------- traces

def frame(tr: dict, table: str) -> pd.DataFrame:
    return pd.DataFrame({k: np.asarray(v) for k, v in tr[table].items()}) if table in tr else pd.DataFrame()


def port_index(s: dict, name: str) -> int:
    return [p["name"] for p in s["ports"]].index(name)


def queue_series(s: dict, tr: dict, port: str, t0: float = WARMUP_S) -> tuple[np.ndarray, np.ndarray]:
    """(t, occupancy) of a port's sampled queue from t0 on."""
    q = frame(tr, "queue")
    q = q[(q.port == port_index(s, port)) & (q.t >= t0)]
    return q.t.to_numpy(), q.occupancy.to_numpy().astype(float)


def queue_stats(s: dict, tr: dict, port: str, t0: float = WARMUP_S) -> dict:
    t, q = queue_series(s, tr, port, t0)
    amp = []
    for w0 in np.arange(t0, t[-1], 10.0):
        sel = q[(t >= w0) & (t < w0 + 10.0)]
        if len(sel):
            amp.append(sel.max() - sel.min())
    return {
        "mean": float(q.mean()),
        "var": float(q.var()),
        "sd": float(q.std()),
        "max_after_warmup": float(q.max()),
        "peak": s["ports"][port_index(s, port)]["peak_occupancy"],
        "amplitude": float(np.median(amp)) if amp else float("nan"),
        "utilisation": float((q > 0).mean()),
        "time_above_3": float((q > 3).mean()),
    }


def drops(s: dict) -> int:
    return sum(p["units_dropped"] for p in s["ports"])


def packets_sent(s: dict) -> int:
    return sum(f["segments_sent"] for f in s["flows"])


def useful_utilisation(s: dict, s0: dict, capacity_bps: float, wire_bytes: int, payload: int) -> float:
    """First-delivery data (delivered payload, in wire bits of full packets) over the line's capacity
    between the end of `s0`, the same run stopped at the warm-up, and the end of `s`."""
    d = sum(f["bytes_delivered"] for f in s["flows"]) - sum(f["bytes_delivered"] for f in s0["flows"])
    return d * wire_bytes / payload * 8 / (capacity_bps * (s["end_time_s"] - s0["end_time_s"]))


def loss_epochs(ev: pd.DataFrame, gap: float) -> list[pd.DataFrame]:
    """Loss events grouped into epochs: a loss within `gap` of the previous one joins its epoch."""
    loss = ev[ev.kind == "loss"].sort_values("t")
    if loss.empty:
        return []
    ts = loss.t.to_numpy()
    starts = np.concatenate([[0], np.where(np.diff(ts) > gap)[0] + 1, [len(ts)]])
    return [loss.iloc[a:b] for a, b in zip(starts[:-1], starts[1:])]


def reply_arrivals(tr: dict, flow: str, t0: float = WARMUP_S) -> np.ndarray:
    """Times the ACKs (or rate replies) of `flow` (its name) leave the logged port, from t0 on."""
    names = tr["names"]
    vc = next(v for v, (f, d) in enumerate(zip(names["vc_flow"], names["vc_direction"])) if f == flow and d == "reply")
    log = frame(tr, "port")
    t = np.sort(log[(log.vc == vc) & (log.change == "depart")].t.to_numpy())
    return t[t >= t0]


def rate_means(tr: dict, t0: float, t1: float) -> dict:
    """Time-weighted mean allowed rate Rs of each ARB flow over [t0, t1] (b/s)."""
    r = frame(tr, "rate")
    out = {}
    for f, g in r.groupby("flow"):
        t = np.concatenate([g.t.to_numpy(), [t1]])
        v = g.rate_bps.to_numpy()
        keep = t[1:] > t0
        a = np.maximum(t[:-1], t0)[keep]
        b = np.minimum(t[1:], t1)[keep]
        out[int(f)] = float(np.sum(v[keep] * (b - a)) / (t1 - t0)) if np.sum(b - a) > 0 else float("nan")
    return out


def jain(x) -> float:
    x = np.asarray(list(x), dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if len(x) and (x ** 2).sum() > 0 else float("nan")
