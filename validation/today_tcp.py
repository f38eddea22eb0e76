"""Today's TCP on the seeds' networks (issue 35): what a 2026 TCP would have done over 1997's
ATM and packet networks. Aron & Druschel's topology 1 (8 bulk senders, one 141.33 Mb/s
bottleneck, 30 ms; `aron97-topo1-atm` and `aron97-topo1-packet`), with TCP-Lite (Lite.4, the
paper's), NewReno with SACK (`sack`: RFC 2018 + RFC 6675 on BSD growth) and CUBIC with SACK
(`cubic-sack`, RFC 9438, 10 segments initially), against the router buffer, on:

* ATM with tail drop, with Early Packet Discard, and with per-VC queues (tail drop per VC);
* a packet network with tail drop, with RED (Floyd & Jacobson's parameters), and with RED
  marking ECN (both ends ECN-capable).

For each (network arm, variant, buffer) the median over seeds of the effective throughput E
and of Jain's fairness index over the 8 flows, as a table (markdown) and a figure.

    python validation/today_tcp.py [--out out/today-tcp] [--seeds 1,2,3,4,5] [--ks 3,9,15,21,30,45] [--duration 10s]

Buffers are k full packets of 9,168 bytes (the paper's "effective" buffer: payload bytes on
ATM, 48 to a cell; whole packets on the packet network), as `atmsim reproduce aron97` counts
them. Every run is an `atmsim.run` of a built-in scenario with overrides: the command is the
whole method.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import atmsim
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

PACKET = 9168
VARIANTS = [("Lite", "lite"), ("NewReno+SACK", "sack"), ("CUBIC+SACK", "cubic-sack")]
ARMS = [
    ("ATM, tail drop", "aron97-topo1-atm", lambda k: [f"switch.buffer={k * PACKET}B"]),
    ("ATM, EPD", "aron97-topo1-atm", lambda k: [f"switch.buffer={k * PACKET}B", "switch.policy=epd"]),
    ("ATM, per-VC queues", "aron97-topo1-atm", lambda k: [f"switch.buffer={k * PACKET}B", "switch.queueing=per-vc"]),
    ("packet, tail drop", "aron97-topo1-packet", lambda k: [f"switch.buffer={k}packets"]),
    ("packet, RED", "aron97-topo1-packet", lambda k: [f"switch.buffer={k}packets", "router.policy=red"]),
    ("packet, RED + ECN", "aron97-topo1-packet",
     lambda k: [f"switch.buffer={k}packets", "router.policy=red", "router.red.ecn=true", "tcp.ecn=true"]),
]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def measure(scenario: str, sets: list[str], seeds: list[int]) -> dict:
    es, js, rtx, tos = [], [], [], []
    for seed in seeds:
        s = atmsim.run(scenario, sets, seed=seed).summary
        assert s["accounting"]["balanced"], (scenario, sets, seed)
        es.append(s["effective_throughput"])
        js.append(s["fairness"])
        rtx.append(sum(f["segments_retransmitted"] for f in s["flows"]))
        tos.append(sum(f["timeouts"] for f in s["flows"]))
    med = statistics.median
    return {"E": med(es), "E_min": min(es), "E_max": max(es), "J": med(js), "rtx": med(rtx), "timeouts": med(tos)}


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("out/today-tcp"))
    ap.add_argument("--seeds", type=argparse_seeds(), default=[1, 2, 3, 4, 5], help="comma-separated (default 1,2,3,4,5)")
    ap.add_argument("--ks", default="3,9,15,21,30,45", help="buffers in 9,168-byte packets")
    ap.add_argument("--duration", default="10s")
    a = ap.parse_args(argv)
    try:
        seeds, ks = a.seeds, _ints(a.ks)
        atmsim.resolve("aron97-topo1-atm", [f"duration={a.duration}"])
    except (ValueError, atmsim.ScenarioError) as e:
        ap.error(str(e))
    rows = []
    for arm, scenario, buffer_sets in ARMS:
        for label, variant in VARIANTS:
            for k in ks:
                sets = [*buffer_sets(k), f"tcp.variant={variant}", f"duration={a.duration}"]
                rows.append({"arm": arm, "variant": label, "k": k, **measure(scenario, sets, seeds)})
                r = rows[-1]
                print(f"{arm:20s} {label:13s} k={k:2d}  E {r['E']:.3f} [{r['E_min']:.3f}, {r['E_max']:.3f}]  "
                      f"J {r['J']:.3f}  rtx {r['rtx']:.0f}  timeouts {r['timeouts']:.0f}", flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    write_table(rows, ks, a.out / "today-tcp.md", seeds)
    plot(rows, ks, a.out / "today-tcp.png")
    print(f"wrote {a.out}/today-tcp.md and today-tcp.png")


def write_table(rows: list[dict], ks: list[int], path: Path, seeds: list[int]) -> None:
    by = {(r["arm"], r["variant"], r["k"]): r for r in rows}
    lines = [f"Median E (and Jain's index) over seeds {','.join(map(str, seeds))}; buffer k × 9,168 B", "",
             "| network | TCP | " + " | ".join(f"k = {k}" for k in ks) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in ks) + " |"]
    for arm, _, _ in ARMS:
        for label, _ in VARIANTS:
            cells = [f"{by[arm, label, k]['E']:.3f} ({by[arm, label, k]['J']:.2f})" for k in ks]
            lines.append(f"| {arm} | {label} | " + " | ".join(cells) + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def plot(rows: list[dict], ks: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(ARMS), figsize=(3.2 * len(ARMS), 5.6), sharex=True, sharey="row")
    for col, (arm, _, _) in enumerate(ARMS):
        for label, _ in VARIANTS:
            pts = [r for r in rows if r["arm"] == arm and r["variant"] == label]
            axes[0][col].plot([r["k"] * PACKET / 1000 for r in pts], [r["E"] for r in pts], marker="o", ms=3, label=label)
            axes[1][col].plot([r["k"] * PACKET / 1000 for r in pts], [r["J"] for r in pts], marker="o", ms=3, label=label)
        axes[0][col].set_title(arm, fontsize=9)
        axes[1][col].set_xlabel("buffer (KB)")
    axes[0][0].set_ylabel("effective throughput E")
    axes[1][0].set_ylabel("Jain's fairness index")
    axes[0][0].legend(fontsize=7)
    for ax in axes.flat:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
