"""What the fabric's figures share: the closed forms of docs/fabric.md, the runs' scenarios (the
built-ins `fabric-incast` and `fabric-perm`, their flows and fabric keys set by overrides), and
reading a traced run's egress port."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

import atmsim
from atmsim.reproduce.harness import Run

INCAST, PERM = "fabric-incast", "fabric-perm"
#: The default fabric (docs/fabric.md): cell payload and header, credit worth, control payload,
#: fabric links per FAP, link and port rates (bits per second), delays (ps).
P, H, W, CTL, LINKS = 256, 16, 4096, 8, 18
LINK_BPS, PORT_BPS = Fraction(10625, 100) * 10**9, 400 * 10**9
D_LINK, D_PORT = 50_000, 100_000
#: The incast's packets: 485 of 4,150 B and one of 858 B per flow (2,000,000 B of UDP payload).
MTU, LAST = 4150, 858
FLOW_IP_BYTES = 485 * MTU + LAST


@dataclass(frozen=True)
class Grid:
    """The fabric's runs take well under a second each, except the 127-source incast and the
    permutations; --quick leaves out the 127-source incast."""

    quick: bool


def grid(quick: bool) -> Grid:
    return Grid(quick)


def cells(length: int) -> int:
    return -(-length // P)


def efficiency(length: int) -> float:
    """E(L) = L / (L + h·⌈L/P⌉): the share of a fabric link's bytes that is packet."""
    return length / (length + H * cells(length))


def tx_ps(nbytes: int, bps) -> int:
    """A transmitter's time for `nbytes`, rounded up to the picosecond as the core's."""
    return math.ceil(Fraction(nbytes * 8 * 10**12) / bps)


def zero_load_ps(length: int) -> int:
    """F12: host to FAP, FlowStatus there and Credit back (two hops each), the cells one per link,
    FAP to host (docs/fabric.md, "Zero-load latency")."""
    largest = min(length, P) + H
    return 2 * (tx_ps(length, PORT_BPS) + D_PORT) + 4 * (tx_ps(CTL + H, LINK_BPS) + D_LINK) + 2 * (tx_ps(largest, LINK_BPS) + D_LINK)


def one_source(length: int, how: str, *extra: str, tag=None, trace: bool = False) -> Run:
    """One UDP flow h4 -> h0 of `length`-byte IP packets, `how` its rate and size."""
    flow = f'flow=[{{name = "f", kind = "udp", src = "h4", dst = "h0", datagram = "{length - 28}B", {how}}}]'
    return Run(INCAST, (flow, *extra), tag=tag or length, trace=trace)


def sources_to(dst: int, srcs, *extra: str, tag=None, trace: bool = False) -> Run:
    """UDP flows from `srcs` at 400 Gb/s, 2,000,000 B each, to host `dst`."""
    flows = ", ".join(f'{{name = "s{s}", kind = "udp", src = "h{s}", dst = "h{dst}", rate = "400Gbps", '
                      f'datagram = "4122B", bytes = "2000000B"}}' for s in srcs)
    return Run(INCAST, (f"flow=[{flows}]", *extra), tag=tag, trace=trace)


def incast_127(*extra: str, trace: bool = False, tag=None) -> Run:
    """127 -> 1 on a 32-FAP fabric (128 hosts): every host but h0 sends to it."""
    return sources_to(0, range(1, 128), "fabric.faps=32", "duration=10ms", *extra, tag=tag, trace=trace)


def departures(tr) -> tuple:
    """A traced run's egress port departures (`departures_of` its port log)."""
    return departures_of(atmsim.trace_frames(tr)["port"])


def departures_of(log) -> tuple:
    """A port log's departures (end of each packet's last bit), sorted: times, flows, frames."""
    dep = log[log.change == "depart"]
    order = np.argsort(dep.t.to_numpy(), kind="stable")
    return dep.t.to_numpy()[order], dep.flow.to_numpy()[order], dep.frame.to_numpy()[order]


def busy_share(ends, frames) -> tuple:
    """The egress port's busy share from its first start to its last end, and its idle gaps (s).
    In whole picoseconds, as the core keeps time: the log's times are seconds, and a start computed
    as an end less a packet time in floating point leaves gaps of 10^-22 s between back-to-back
    packets (11,702 "gaps" in the 127-source incast, 530 of them real)."""
    ends_ps = np.rint(np.asarray(ends) * 1e12).astype(np.int64)
    starts_ps = ends_ps - np.where(frames == 485, tx_ps(LAST, PORT_BPS), tx_ps(MTU, PORT_BPS))
    gaps_ps = np.maximum(starts_ps[1:] - ends_ps[:-1], 0)
    return float(1 - gaps_ps.sum() / (ends_ps[-1] - starts_ps[0])), gaps_ps / 1e12


def spread_after_start(ends, flows, frames, n: int) -> int:
    """F6: the largest gap in bytes out between two sources, once all n have had a packet out and
    until the first has sent everything."""
    out, spread = {}, 0
    for flow, frame in zip(flows, frames):
        out[flow] = out.get(flow, 0) + (LAST if frame == 485 else MTU)
        if out[flow] >= FLOW_IP_BYTES:
            break
        if len(out) == n:
            spread = max(spread, max(out.values()) - min(out.values()))
    return spread


def voq_stall(ends, flows, frames, ports_per_fap: int = 4) -> dict:
    """F6 per VOQ: an incast's sources (flows named `s<host>`) grouped by the FAP that hosts them (a
    source FAP's hosts share its one VOQ for the egress port). The longest wait of any VOQ between two
    of its departures (`fap`, from `from_s` to `to_s`, `left` bytes still to send), and the largest
    gap in bytes out between two VOQs before that wait began, once all had sent (`spread`)."""
    fap = np.array([int(f[1:]) // ports_per_fap for f in flows])
    size = np.where(frames == 485, LAST, MTU)
    groups = np.unique(fap)
    # Each VOQ's longest wait between departures (index i of the departure before it), the longest of all.
    waits = [(float(np.diff(t).max()), int(f), int(np.diff(t).argmax())) for f in groups if len(t := ends[fap == f]) > 1]
    _, stalled, i = max(waits, key=lambda w: w[0], default=(0.0, int(groups[0]), 0))  # the first on a tie
    mine = np.flatnonzero(fap == stalled)
    before = mine[i] + 1  # departures up to the stalled VOQ's last before its wait
    total = len(set(np.asarray(flows)[mine])) * FLOW_IP_BYTES
    index = np.searchsorted(groups, fap[:before])
    out = np.zeros((before, len(groups)))
    out[np.arange(before), index] = size[:before]
    out = out.cumsum(axis=0)
    live = (out > 0).all(axis=1)
    spread = int((out.max(axis=1) - out.min(axis=1))[live].max()) if live.any() else 0
    return {"fap": stalled, "from_s": float(ends[mine[i]]), "to_s": float(ends[mine[i + 1]]),
            "left": int(total - size[mine[: i + 1]].sum()), "spread": spread}
