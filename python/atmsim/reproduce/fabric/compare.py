"""C1: the scheduled fabric beside a fat tree of the same hosts and host-facing capacity, under
identical matrices (docs/fabric.md, "The fabric beside a fat tree").

Both networks have 16 hosts on 400 Gb/s links and the same one-way propagation between hosts on
different FAPs or pods (300 ns: the fabric's 100 ns port + 2 × 50 ns fabric link + 100 ns port; the
k = 4 tree's six 50-ns links). The fabric is the default one with 4 FAPs (4 ports each, 18 links
of 106.25 Gb/s to 6 FEs: 1.2 × its ports' capacity raw); the tree is htsim's 16-host k = 4 tree
of `eqds-incast` at 400 Gb/s, full bisection. Every switch port of both holds 145,250 B (35 packets
of 4,150 B, as `eqds-incast`).

Transports. On the tree: EQDS on trimming switches and DCTCP on marking switches, as in
docs/fabrics.md's side-by-side comparison (validation/fabric_transports.py, whose settings are
repeated here). On the fabric: UDP at the NIC rate (the fabric's design point, F4's: no end-to-end
congestion control, the VOQs hold the backlog and the egress schedulers' credits decide who
sends), for the matrices whose flows all start at 0; and TCP with DCTCP's sender for every matrix,
the collectives included (their flows start on triggers, which only TCP, NDP and EQDS flows
have). The fabric marks nothing (DNX marks ECN at the VOQs by their latency, which is not
modelled), and its egress ports are tail-drop: a DCTCP sender there is a window-limited TCP whose
backlog the VOQs hold.
"""
from __future__ import annotations

import random

import numpy as np
import pandas as pd

import atmsim
from atmsim.claims import at_least, at_most, check
from atmsim.reproduce.arb.common import jain
from atmsim.reproduce.harness import Run, figure, summary_of

from . import links, reorder
from .common import D_PORT, LAST, MTU, PORT_BPS, tx_ps

HOSTS, FLOW_BYTES, SEED = 16, 2_000_000, 13
FABRIC = ("fabric-incast", ("fabric.faps=4", "switch.buffer=145250B", "router.policy=tail"))
TREE = ("eqds-incast", ("topology.rate=400Gbps", "topology.delay=50ns"))
COMMON = ("duration=20ms", "occupancy.percentiles=true")
TCP = ("ip.mtu=4150B", "tcp.mss=4110B", "tcp.window=4MiB", "tcp.delayed_ack=false", "tcp.tick=1ms", "tcp.variant=dctcp-sack")
#: (network, transport) -> (base scenario, overrides, flow kind)
SYSTEMS = {
    ("fabric", "UDP at NIC rate"): (FABRIC, (), "udp"),
    # The SLOW state's pace is not public (docs/fabric.md, R4): at the default 0.1 of the port rate every
    # flow's last norm_to_slow bytes (40 KB) trickle out; at 1 they do not.
    ("fabric", "UDP, SLOW at port rate"): (FABRIC, ("fabric.crs.slow_rate=1",), "udp"),
    ("fabric", "DCTCP senders"): (FABRIC, TCP, "tcp"),
    # DCTCP's marking where the fabric keeps its backlog: the VOQs, at the tree's K (12 packets of 4,150 B).
    ("fabric", "DCTCP, ECN at VOQs (K = 12)"): (FABRIC, (*TCP, "fabric.voq.ecn_above=49800B"), "tcp"),
    ("fat tree", "EQDS (trim)"): (TREE, (), "eqds"),
    ("fat tree", "DCTCP (K = 12)"): (TREE, (*TCP, "router.policy=dctcp", "switch.buffer=35packets", "router.dctcp.k=12"), "tcp"),
}
MATRICES = ("incast 15 -> 1", "permutation", "all-to-all", "ring all-reduce")
#: Short names for the claim's note, which carries no number of its own (tests/test_notes.py).
SHORT = {**dict(zip(MATRICES, ("incast", "permutation", "all-to-all", "ring"))),
         **dict(zip(SYSTEMS, ("fabric UDP", "fabric UDP (SLOW at port rate)", "fabric DCTCP", "fabric DCTCP (VOQ ECN)",
                                 "tree EQDS", "tree DCTCP")))}
COLLECTIVES = MATRICES[2:]


def derangement(n: int, seed: int) -> list:
    """Every host sends to another, each receives once: shuffles redrawn until none sends to itself
    (the rule of the core's `"permutation"` generator, here drawn in Python so that UDP flows,
    which the generators do not make, run the same matrix)."""
    rng = random.Random(seed)
    while True:
        dst = list(range(n))
        rng.shuffle(dst)
        if all(d != s for s, d in enumerate(dst)):
            return dst


def pairs(matrix: str) -> list:
    if matrix == "incast 15 -> 1":
        return [(s, 0) for s in range(1, HOSTS)]
    return list(enumerate(derangement(HOSTS, SEED)))


def flow_list(matrix: str, kind: str) -> str:
    """The matrix's flows of `kind`, every one FLOW_BYTES from 0, as a `flow=[...]` override."""
    how = 'rate = "400Gbps", datagram = "4122B", ' if kind == "udp" else ""
    return "flow=[" + ", ".join(f'{{name = "f{s}_{d}", kind = "{kind}", src = "h{s}", dst = "h{d}", {how}bytes = "{FLOW_BYTES}B"}}'
                                for s, d in pairs(matrix)) + "]"


def collective(matrix: str, quick: bool, kind: str) -> tuple:
    """The core's generators: a shift all-to-all of 16 ranks (each flow opened when the rank's
    previous one is sent), a ring all-reduce of 16 ranks (each step opened when the previous arrived)."""
    if matrix == "all-to-all":
        return ("workload.pattern=shift_all_to_all", f"workload.bytes={200_000 if quick else FLOW_BYTES}", f"workload.kind={kind}")
    # PyTorch DDP's 25-MB bucket (the generator's default), --quick: a sixteenth of it.
    return ("workload.pattern=ring_allreduce", f"workload.bucket={1_638_400 if quick else 26_214_400}", f"workload.kind={kind}")


def _runs(g) -> list:
    out = []
    for (net, tp), ((base, sets), extra, kind) in SYSTEMS.items():
        for m in MATRICES:
            if m in COLLECTIVES and kind == "udp":
                continue
            flows = collective(m, g.quick, kind) if m in COLLECTIVES else (flow_list(m, kind),)
            incast = m == MATRICES[0]
            trace = ("trace.interval=1us", "trace.port=fabric->h0" if net == "fabric" else "trace.port=tor0->h0") if incast else ()
            out.append(Run(base, (*COMMON, *sets, *extra, *flows, *trace), seed=SEED, trace=incast, tag=(m, net, tp)))
    # The same UDP incast with the first source's NIC traced: every source sends alike from 0, so its
    # departures are each source's, and the fabric's backlog for h0 is 15 of them less h0's arrivals.
    (base, sets), _, _ = SYSTEMS[("fabric", "UDP at NIC rate")]
    out.append(Run(base, (*COMMON, *sets, flow_list(MATRICES[0], "udp"), "trace.interval=1us", "trace.port=h1->fabric"),
                   seed=SEED, trace=True, tag=("source", "fabric", "UDP at NIC rate")))
    return out


def udp_ideal_s(nbytes: int) -> float:
    """A UDP flow's unloaded FCT by the core's rule for the others (`world/fct.rs`): its first packet
    stored and forwarded over its route (host port, egress port: the fabric is one switch in routes),
    the rest streamed at 400 Gb/s. The cells' way through the fabric counts against it, as for TCP."""
    packets = -(-nbytes // (MTU - 28))
    wire = nbytes + 28 * packets
    return (2 * (tx_ps(MTU, PORT_BPS) + D_PORT) + tx_ps(wire - MTU, PORT_BPS)) / 1e12


def _in_bytes(p: dict, value: float) -> float:
    """A port's occupancy in bytes: a packet-counting port's packets are at most MTU bytes."""
    return value * (MTU if p["unit"] == "packets" else 1)


def slowdowns(s: dict) -> np.ndarray:
    """Each completed flow's FCT over its unloaded ideal, sorted (the core's; UDP's by `udp_ideal_s`)."""
    return np.sort([f["fct_slowdown"] if f["kind"] != "udp" else f["completion_time_s"] / udp_ideal_s(f["bytes_sent"])
                    for f in s["flows"] if f["completion_time_s"] is not None])


def _row(matrix: str, net: str, tp: str, s: dict) -> dict:
    flows = s["flows"]
    done = [f for f in flows if f["completion_time_s"] is not None]
    slow = slowdowns(s)
    starts_at_zero = matrix not in COLLECTIVES
    fct = np.array([f["completion_time_s"] for f in done]) * 1e6 if starts_at_zero else np.array([np.nan])
    switch = [p for p in s["ports"] if not p["name"].startswith("h")]
    up = links.up_link_loads(s)
    fab = s.get("fabric")
    spread = (fab["up_link_data_cells_most"] / (fab["cells_made"]["data"] / (4 * 18)) if fab else max(up) / np.mean(up))
    jobs = s.get("jobs") or []
    return {"matrix": matrix, "network": net, "transport": tp, "flows": len(flows), "completed": len(done),
            "fct_p50_us": float(np.percentile(fct, 50)), "fct_p99_us": float(np.percentile(fct, 99)), "fct_max_us": float(fct.max()),
            "slowdown_min": float(slow.min()), "slowdown_p50": float(np.percentile(slow, 50)),
            "slowdown_p99": float(np.percentile(slow, 99)), "slowdown_max": float(slow.max()),
            "jain_rates": jain([f["bytes_delivered"] / f["completion_time_s"] for f in done]) if starts_at_zero else np.nan,
            "collective_us": max(f["completion_time_s"] for f in done) * 1e6 if not starts_at_zero else np.nan,
            "busbw_gbps": jobs[0]["busbw_bytes_per_s"] * 8 / 1e9 if jobs else np.nan,
            "voq_peak_kb": fab["voq_peak_bytes"] / 1e3 if fab else np.nan,
            "queue_peak_kb": max(_in_bytes(p, p["peak_occupancy"]) for p in switch) / 1e3,
            "queue_p99_packets": max(p.get("occupancy_units_p99", 0) for p in switch),
            "uplink_busiest_over_mean": float(spread),
            "reorder_depth_cells": fab["reorder_depth_max"] if fab else np.nan, **reorder.quantiles(fab),
            "dropped": sum(p["units_dropped"] for p in switch) + (fab["voq_drops"] if fab else 0),
            "trimmed": sum(p.get("trimmed", 0) for p in switch), "timeouts": sum(f["timeouts"] for f in flows)}


def rows(runs) -> tuple:
    """The table's rows, every flow's slowdown and up-link loads by (matrix, network, transport), and the
    incast's traces."""
    out, curves, traces, loads = [], {}, {}, {}
    for run, r in runs:
        m, net, tp = run.tag
        if m == "source":
            traces["source"] = atmsim.trace_frames(r[1])
            continue
        s = summary_of(r)
        out.append(_row(m, net, tp, s))
        curves[run.tag] = slowdowns(s)
        loads[run.tag] = links.up_link_loads(s)
        if isinstance(r, tuple):
            traces[(net, tp)] = atmsim.trace_frames(r[1])
    df = pd.DataFrame(out)
    # The fabric's backlog over time is known for the UDP incast only (every source alike: `fabric_backlog`).
    _, pct, _ = fabric_backlog(traces["source"], traces[("fabric", "UDP at NIC rate")])
    udp_incast = (df.matrix == MATRICES[0]) & (df.transport == "UDP at NIC rate")
    for q, v in pct.items():
        df[f"fabric_held_p{q}_kb"] = np.where(udp_incast, v, np.nan)
    return df, curves, traces, loads


def _cdfs(c, curves) -> None:
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    colour = {key: f"C{i}" for i, key in enumerate(SYSTEMS)}
    for ax, m in zip(axes.flat, MATRICES):
        for (mm, net, tp), v in curves.items():
            if mm == m:
                ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=f"{net}, {tp}", color=colour[(net, tp)],
                        linestyle="-" if net == "fabric" else "--")
        ax.set_xscale("log")
        ax.set_xlabel("FCT slowdown (FCT / unloaded ideal)")
        ax.set_ylabel("share of flows")
        ax.set_title(m)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    save(fig, c.out / "C1_slowdown.png")


def fabric_backlog(source_trace, egress_trace) -> tuple:
    """The bytes the fabric holds for h0 over time in the UDP incast (VOQs, cells on their way,
    reassembly): 15 sources' packets into the fabric by t (the traced source's departures, one port
    delay later) less the packets that reached h0's egress queue by t; and its time-weighted p50 and
    p99 (KB) from the first packet to the last; and the step function itself (bytes at given times)."""
    def timeline(log, change: str, delay: float) -> tuple:
        rows = log[log.change == change]
        order = np.argsort(rows.t.to_numpy(), kind="stable")
        sizes = np.where(rows.frame.to_numpy()[order] == 485, LAST, MTU)
        return rows.t.to_numpy()[order] + delay, np.concatenate([[0], np.cumsum(sizes)])

    into, cum_in = timeline(source_trace["port"], "depart", D_PORT / 1e12)
    reached, cum_out = timeline(egress_trace["port"], "arrive", 0.0)

    def held(ts):
        return (HOSTS - 1) * cum_in[np.searchsorted(into, ts, side="right")] - cum_out[np.searchsorted(reached, ts, side="right")]

    ts = np.linspace(0, reached[-1], 600)
    # Time-weighted percentiles, exact: the backlog is a step function changing only at these instants.
    steps = np.unique(np.concatenate([[0.0], into, reached]))
    steps = steps[steps <= reached[-1]]
    level, weight = held(steps)[:-1], np.diff(steps)
    order = np.argsort(level, kind="stable")
    cum = np.cumsum(weight[order]) / weight.sum()
    pct = {q: float(level[order][np.searchsorted(cum, q / 100)]) / 1e3 for q in (50, 99)}
    return pd.DataFrame({"t_us": ts * 1e6, "fabric_held_kb": held(ts) / 1e3}), pct, held


def fabric_sampled(trace, exact=None) -> pd.DataFrame:
    """The fabric trace (every 1 µs) summed over the devices: the FAPs' VOQ and reassembly bytes, the
    cells waiting in the elements; beside it, where given, `exact(t)`: the bytes held for h0 by
    `fabric_backlog`'s step function at the same instants."""
    f = trace["fabric"]
    fe = f.node.str.startswith("fe").to_numpy()
    by_t = f.groupby("t", sort=True)
    out = pd.DataFrame({"t_us": np.asarray(list(by_t.groups)) * 1e6,
                        "voq_kb": by_t.voq_bytes.sum().to_numpy() / 1e3,
                        "reassembly_kb": by_t.reassembly_bytes.sum().to_numpy() / 1e3,
                        "element_cells": f[fe].groupby("t", sort=True).queued_cells.sum().to_numpy()})
    if exact is not None:
        out["exact_held_kb"] = exact(out.t_us.to_numpy() / 1e6) / 1e3
    return out


def _occupancy(c, traces) -> None:
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    held, _, exact = fabric_backlog(traces["source"], traces[("fabric", "UDP at NIC rate")])
    c.table(held, "C1_fabric_held")
    top.plot(held.t_us, held.fabric_held_kb, label="fabric, UDP: bytes held for h0 (VOQs, cells, reassembly)")
    sampled = []
    for tp in ("UDP at NIC rate", "DCTCP senders"):
        d = fabric_sampled(traces[("fabric", tp)], exact if tp == "UDP at NIC rate" else None)
        top.plot(d.t_us, d.voq_kb + d.reassembly_kb, ls="--" if tp == "UDP at NIC rate" else "-", lw=0.8,
                 label=f"fabric, {tp}: VOQ + reassembly bytes, the fabric trace every 1 µs")
        sampled.append(d.assign(transport=tp))
    c.table(pd.concat(sampled, ignore_index=True), "C1_fabric_trace")
    top.set_ylabel("KB")
    top.legend(fontsize=7)
    top.grid(alpha=0.3)
    for key, port in ((("fabric", "UDP at NIC rate"), "fabric->h0"), (("fabric", "DCTCP senders"), "fabric->h0"),
                      (("fat tree", "EQDS (trim)"), "tor0->h0"), (("fat tree", "DCTCP (K = 12)"), "tor0->h0")):
        q = traces[key]["queue"]
        q = q[q.port == port]
        # The DCTCP tree's ports count packets: at most 4,150 B each.
        scale = MTU if key == ("fat tree", "DCTCP (K = 12)") else 1
        bottom.plot(q.t.to_numpy() * 1e6, q.occupancy.to_numpy() * scale / 1e3, label=f"{key[0]}, {key[1]}: {port}", lw=0.8)
    bottom.set_ylabel("egress queue to h0 (KB)")
    bottom.set_xlabel("time (µs)")
    bottom.legend(fontsize=7)
    bottom.grid(alpha=0.3)
    save(fig, c.out / "C1_occupancy.png")


@figure("C1", runs=_runs)
def c1(c, runs):
    """The scheduled fabric against EQDS and DCTCP on a fat tree of the same hosts and capacity."""
    df, curves, traces, loads = rows(runs)
    c.write("C1", df)
    _cdfs(c, curves)
    spread = links.loads_table(loads)
    c.table(spread, "C1_links")
    links.plot(c, spread, MATRICES, SYSTEMS, SHORT)
    _occupancy(c, traces)
    c.claim("c1", statement="every flow of every matrix completes on both networks, none faster than its unloaded ideal",
            kind="hard", paper_value="all flows complete; FCT / ideal >= 1",
            ours={"runs": len(df), "flows": int(df.flows.sum()), "completed": int(df.completed.sum()),
                  "least_slowdown": round(float(df.slowdown_min.min()), 4)},
            holds=check(("flows not completed, over the runs", int((df.flows - df.completed).sum()), at_most(0)),
                        ("least FCT / ideal over every flow", float(df.slowdown_min.min()), at_least(1))),
            rule="C1.csv, every run; the ideal is the core's (world/fct.rs), for UDP the same rule in Python",
            note=_note(df), deviation="".join(f" {SHORT[r.matrix]}, {SHORT[(r.network, r.transport)]}: {r.completed}/{r.flows} "
                                              f"done, least slowdown {r.slowdown_min:.3f}." for r in df.itertuples()
                                              if r.completed < r.flows or r.slowdown_min < 1))


def _note(df) -> str:
    """Per matrix, each system's tail: the last flow's FCT, or the collective's completion (µs)."""
    parts = []
    for m, g in df.groupby("matrix", sort=False):
        what = "collective done" if m in COLLECTIVES else "tail FCT"
        value = g.collective_us if m in COLLECTIVES else g.fct_max_us
        parts.append(f"{SHORT[m]}, {what} (µs): " + ", ".join(f"{SHORT[(r.network, r.transport)]} {v:,.1f}"
                                                             for r, v in zip(g.itertuples(), value)))
    return "; ".join(parts) + "."
