"""ARB's rate interval M by the catalogue's rule, computed from each run's own scenario (issue 37).

[CHG] never give M. The catalogue's reason for it, "about 8 packets at the fair share rate, >= 1 RTT"
(../shared/spec/arb.md §6, written before the first ARB run), with [CHG §2]'s "the smaller M the better" and
[CHG §3.3]'s "each connection uses the same congestion parameters", gives one M per run: the larger of 8
data-packet times at the fair share and the longest round trip without queueing of the run's ARB connections,
unrounded (docs/arb.md §3, "M by the catalogue's rule", written down before any run at its values). The values
the scenarios carry (2 s, 0.5 s) round it once per line rate and fall short of a round trip on the long pipe and
on the long connections of Figs. 15 and 16; the figures' ARB runs use the rule instead (common.Grid.run).
"""
from __future__ import annotations

import functools
import re
from collections import deque

import atmsim
from atmsim.toml import tomllib

PACKETS = 8  # "about 8 packets at the fair share rate" (catalogue, spec/arb.md §6)
RATE = {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3, "bps": 1.0}
TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
BYTES = {"B": 1, "KiB": 1024, "kB": 1000}


def quantity(text: str, units: dict) -> float:
    m = re.fullmatch(r"([\d.]+)\s*([A-Za-z]+)", str(text).strip())
    if m is None or m.group(2) not in units:
        raise ValueError(f"interval rule: cannot read '{text}'")
    return float(m.group(1)) * units[m.group(2)]


def _route(links: list, src: str, dst: str) -> list:
    """The links (index, direction +1 for ends[0] -> ends[1]) from src to dst, by breadth-first search."""
    prev, todo = {src: None}, deque([src])
    while todo:
        n = todo.popleft()
        for i, ln in enumerate(links):
            a, b = ln["ends"]
            for x, y, d in ((a, b, 1), (b, a, -1)):
                if x == n and y not in prev:
                    prev[y] = (n, i, d)
                    todo.append(y)
    if dst not in prev:
        raise ValueError(f"interval rule: no route from {src} to {dst}")
    hops, n = [], dst
    while prev[n] is not None:
        n, i, d = prev[n]
        hops.append((i, d))
    return hops[::-1]


def bounds(scenario: str, overrides=(), queue_packets: int = 0) -> dict:
    """{"t8": 8 data-packet times at the fair share, "rtt0": the longest round trip without queueing (plus
    `queue_packets` data packets at each connection's slowest line)} over the run's ARB connections, in seconds."""
    sc = tomllib.loads(atmsim.resolve(scenario, list(overrides)))
    links = sc["link"]
    data_bits = quantity(sc["ip"]["mtu"], BYTES) * 8  # ARB sends full packets; replies are header-only (docs/arb.md §2)
    reply_bits = sc["ip"]["header_bytes"] * 8
    rate = [quantity(ln["rate"], RATE) for ln in links]
    delay = [quantity(ln["delay"], TIME) for ln in links]
    arb = [f for f in sc.get("flow", []) if f.get("kind") == "arb"]
    if not arb:
        raise ValueError(f"interval rule: {scenario} has no ARB connection")
    routes = {f["name"]: _route(links, f["src"], f["dst"]) for f in arb}
    sharing = {}  # (link, direction) -> ARB connections sending over it that way
    for r in routes.values():
        for hop in r:
            sharing[hop] = sharing.get(hop, 0) + 1
    t8 = rtt0 = 0.0
    for r in routes.values():
        slow = min(r, key=lambda h: rate[h[0]])
        t8 = max(t8, PACKETS * data_bits / (rate[slow[0]] / sharing[slow]))
        rtt = sum(2 * delay[i] + (data_bits + reply_bits) / rate[i] for i, _ in r)
        rtt0 = max(rtt0, rtt + queue_packets * data_bits / rate[slow[0]])
    return {"t8": t8, "rtt0": rtt0}


@functools.lru_cache(maxsize=4096)
def rule_interval_s(scenario: str, overrides: tuple = (), queue_packets: int = 0) -> float:
    """M = max(T8, RTT0) of the run (docs/arb.md §3); queue_packets = 3 is the reading that counts the queue at
    which the receivers cut in the round trip."""
    b = bounds(scenario, overrides, queue_packets)
    return max(b["t8"], b["rtt0"])


def interval_override(m_s: float) -> str:
    """The `arb.interval` override for M, to the microsecond."""
    return f"arb.interval={round(m_s * 1e6)}us"
