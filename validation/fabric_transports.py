"""Today's transports side by side on one fat tree (docs/validation.md,
"Transports on a fat tree"): EQDS and NDP on trimming switches, DCTCP on
DCTCP-marking switches and CUBIC on tail-drop switches, the same 15 -> 1
incast and the same 16-host permutation of 2 MB flows, on htsim's 16-host
k = 4 tree (100 Gb/s, 1 µs per link, 145,250 B of buffer per switch port).

    python validation/fabric_transports.py [--out docs/validation] [--seeds 13]

Per transport and workload: each flow's FCT slowdown (FCT over its bytes'
unloaded ideal, `world/fct.rs`), its 50th, 99th percentile and maximum over
the flows, the slowest flow's FCT, the switch ports' queues (the highest peak, and the
highest mean, both in bytes; host NICs are not switch ports), and the packets
dropped or trimmed. Writes a table (fabric-transports.md) and a figure
(fabric-transports.png).

Settings, our choices where the papers leave them open:
- every transport's packets are at most 4,150 B on the wire (EQDS's MTU):
  TCP's MSS 4,110 B (40 header bytes), NDP's 4,086 B (its 64-byte header);
- the buffer is 35 packets of 4,150 B for the packet-counting DCTCP port;
- DCTCP's K = 12 packets, twice the guideline C·RTT/7 ≈ 6 (the tree's longest
  round trip, 12 µs of propagation, holds 36 full packets at 100 Gb/s);
- NDP's initial window 40 packets, about one round trip's worth (NDP sends its
  first window unsolicited, Handley et al. §3.2), EQDS's its own default;
- TCP: no delayed ACKs, IW 10, a 1-ms timer tick, so RTO ≥ 2 ms (Linux's
  200-ms floor would stall the incast for 200 ms at the first timeout).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import atmsim
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

MTU = 4150  # bytes: EQDS's MTU, every transport's largest packet here
BASE = "eqds-incast"  # htsim's 16-host tree, 100 Gb/s, 1 µs, 145,250 B per port
COMMON = ["duration=20ms", "workload.bytes=2000000"]
TCP = ["ip.mtu=4150B", "tcp.mss=4110B", "tcp.window=4MiB", "tcp.delayed_ack=false", "tcp.tick=1ms"]
TRANSPORTS = {
    "EQDS (trim)": ["workload.kind=eqds"],
    "NDP (trim)": ["workload.kind=ndp", "ndp.mss=4086", "ndp.initial_window=40"],
    "DCTCP (K = 12)": ["workload.kind=tcp", "tcp.variant=dctcp-sack", "router.policy=dctcp", "switch.buffer=35packets",
                       "router.dctcp.k=12", *TCP],
    "CUBIC (tail)": ["workload.kind=tcp", "tcp.variant=cubic-sack", "router.policy=tail", *TCP],
}
WORKLOADS = {
    "incast 15 -> 1": ["workload.pattern=incast", "workload.receiver=15", "report.bottleneck=tor7->h15"],
    "permutation 16": ["workload.pattern=permutation", "report.bottleneck=h0->tor0"],
}


def measure(transport: str, workload: str, seed: int) -> dict:
    sets = [*COMMON, *WORKLOADS[workload], *TRANSPORTS[transport]]
    s = atmsim.run(BASE, set=sets, seed=seed).summary
    flows = s["flows"]
    sd = np.array([f["fct_slowdown"] for f in flows if f.get("fct_slowdown") is not None])
    fct = [f["completion_time_s"] for f in flows if f.get("completion_time_s") is not None]
    ports = [p for p in s["ports"] if not p["name"].startswith("h")]  # switch ports, not host NICs
    def in_bytes(p: dict, value: float) -> float:
        """A port's occupancy in bytes: a packet-counting port's packets are at most MTU bytes."""
        return value * (MTU if p["unit"] == "packets" else 1)

    return {
        "flows": len(flows),
        "completed": len(fct),
        "p50": float(np.percentile(sd, 50)) if len(sd) else float("nan"),
        "p99": float(np.percentile(sd, 99)) if len(sd) else float("nan"),
        "max": float(sd.max()) if len(sd) else float("nan"),
        "last_fct_us": max(fct) * 1e6 if fct else float("nan"),
        "min": float(sd.min()) if len(sd) else float("nan"),
        "switch_peak_kb": max(in_bytes(p, p["peak_occupancy"]) for p in ports) / 1e3,
        "switch_mean_kb": max(in_bytes(p, p["mean_occupancy"]) for p in ports) / 1e3,
        "dropped": sum(p["units_dropped"] for p in ports),
        "trimmed": sum(p.get("trimmed", 0) for p in ports),
        "timeouts": sum(f["timeouts"] for f in flows),
        "slowdowns": sd,
    }


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/validation")
    ap.add_argument("--seeds", type=argparse_seeds(), default=[13], help="comma-separated (default 13)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = a.seeds
    rows, curves = [], {}
    for w in WORKLOADS:
        for t in TRANSPORTS:
            ms = [measure(t, w, seed) for seed in seeds]
            m = {k: float(np.mean([x[k] for x in ms])) for k in ms[0] if k != "slowdowns"}
            curves[(w, t)] = np.sort(np.concatenate([x["slowdowns"] for x in ms]))
            rows.append((w, t, m))
    lines = [
        f"Means over seeds {', '.join(map(str, seeds))}; 2-MB flows on the 16-host k = 4 tree, 100 Gb/s.",
        "",
        "| workload | transport | completed | slowdown min | p50 | p99 | max | last FCT (µs) | switch queue peak (KB) "
        "| busiest switch queue, mean (KB) | dropped | trimmed | timeouts |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for w, t, m in rows:
        lines.append(f"| {w} | {t} | {m['completed']:.0f}/{m['flows']:.0f} | {m['min']:.2f} | {m['p50']:.2f} | {m['p99']:.2f} | "
                     f"{m['max']:.2f} | {m['last_fct_us']:,.1f} | {m['switch_peak_kb']:.1f} | {m['switch_mean_kb']:.1f} | "
                     f"{m['dropped']:.0f} | {m['trimmed']:.0f} | {m['timeouts']:.0f} |")
    table = "\n".join(lines) + "\n"
    (out / "fabric-transports.md").write_text(table, encoding="utf-8")
    print(table)
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(WORKLOADS), figsize=(11, 4), sharey=True)
    for ax, w in zip(axes, WORKLOADS):
        for t in TRANSPORTS:
            v = curves[(w, t)]
            if len(v):
                ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=t)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("FCT slowdown (FCT / unloaded ideal)")
        ax.set_title(w)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of flows")
    axes[-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fabric-transports.png", dpi=110)
    print(f"wrote {out / 'fabric-transports.md'} and {out / 'fabric-transports.png'}")


if __name__ == "__main__":
    main()
