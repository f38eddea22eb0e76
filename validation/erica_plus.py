"""ERICA against ERICA+ on jain96's two-source configuration without loss
(issue 28, docs/jain96.md "ERICA+: queue control"): the bottleneck's busy
fraction, mean queue and the flows' goodput over [2 s, 10 s], and the queue
and the sources' allowed rates over time, as a table and a figure.

    python validation/erica_plus.py [--out out/erica-plus] [--duration 10]

Each row's window is the difference of two runs of the same scenario, one
of `duration` and one of 2 s (a run's first two seconds are the same run).
"""

from __future__ import annotations

from pathlib import Path

import atmsim
from atmsim.one_line_args import OneLineParser

SCENARIO = "jain96-2src"
LOSSLESS = ["switch.buffer=100000cells"]
CASES = [
    ("ERICA, U = 0.9", ["abr.erica.variant=full"]),
    ("ERICA+, T0 = 200 us", ["abr.erica.variant=plus", "abr.erica.target_delay=200us"]),
    ("ERICA+, T0 = 500 us", ["abr.erica.variant=plus"]),
    ("ERICA+, T0 = 1 ms", ["abr.erica.variant=plus", "abr.erica.target_delay=1ms"]),
]


def bottleneck(summary: dict) -> dict:
    return next(p for p in summary["ports"] if p["name"] == summary["bottleneck"])


def window(sets: list[str], t1: float, t2: float) -> dict:
    """Busy fraction, mean queue (cells) and goodput (Mb/s) over [t1, t2]."""
    a = atmsim.run(SCENARIO, LOSSLESS + sets + [f"duration={t1}s"]).summary
    b = atmsim.run(SCENARIO, LOSSLESS + sets + [f"duration={t2}s"]).summary
    pa, pb = bottleneck(a), bottleneck(b)
    span = t2 - t1
    delivered = sum(f["bytes_delivered"] for f in b["flows"]) - sum(f["bytes_delivered"] for f in a["flows"])
    return {
        "busy": (pb["busy_fraction"] * t2 - pa["busy_fraction"] * t1) / span,
        "queue": (pb["mean_occupancy"] * t2 - pa["mean_occupancy"] * t1) / span,
        "goodput_mbps": delivered * 8 / span / 1e6,
        "dropped": pb["units_dropped"],
    }


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/erica-plus"))
    ap.add_argument("--duration", type=float, default=10.0)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| switch | busy fraction | mean queue (cells) | goodput (Mb/s) | drops |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, sets in CASES:
        w = window(sets, 2.0, args.duration)
        print(f"| {label} | {w['busy']:.3f} | {w['queue']:.0f} | {w['goodput_mbps']:.1f} | {w['dropped']} |")
    figure(args.out / "erica-plus.png")


def figure(path: Path) -> None:
    """The bottleneck's queue over the first 3 s, ERICA beside ERICA+ (500 us)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for label, sets in (CASES[0], CASES[2]):
        r = atmsim.run(SCENARIO, LOSSLESS + sets + ["duration=3s", "trace.interval=1ms"], trace=True)
        q = r.traces["queue"]
        q = q[q["port"] == r.summary["bottleneck"]]
        ax.plot(q["t"], q["occupancy"], label=label, linewidth=0.8)
    ax.axhline(500e-6 * 155.52e6 / 424, color="grey", linestyle=":", label="ERICA+'s target queue (500 us)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue at SW1->SW2 (cells)")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
