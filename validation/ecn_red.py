"""RED with ECN against RED with drops on Aron & Druschel's topology 1 as a
packet network (issue 28, docs/packet.md "ECN at RED routers"): per TCP
variant, retransmissions (over the run and after its first 2 s), timeouts,
the bottleneck's drops by kind (buffer full, RED early, RED forced), its CE
marks, the effective throughput E and Jain's fairness index, as a table and
a figure.

    python validation/ecn_red.py [--out out/ecn-red] [--seeds 1,2,3,4,5] [--buffers 21,60] [--no-gentle]

Every arm runs `router.red.ecn = true`: the router reports its forced drops
(average queue at or above max_th, 2·max_th when gentle) beside its marks;
the arm "RED, drops" sends nothing ECN-capable (`tcp.ecn = false`), so every
early drop stays a drop and the run is plain RED's, draw for draw (the
script checks this on its first point against `router.red.ecn = false`).
The arm "RED + ECN" adds `tcp.ecn = true` at both ends. The arms "gentle
RED, drops" and "gentle RED + ECN" are the same with `router.red.gentle =
true` (Floyd 2000: early drops, so marks with ECN, up to 2·max_th); every
other RED parameter stays FJ93's. Each arm's runs are independent of the
others, so the first two arms' rows are the same with or without the gentle
ones (`--no-gentle` leaves them out).
"""

from __future__ import annotations

from pathlib import Path

import atmsim
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

SCENARIO = "aron97-topo1-packet"
VARIANTS = ["lite", "tahoe", "newreno", "sack", "vegas"]
ARMS = [("RED, drops", []), ("RED + ECN", ["tcp.ecn=true"])]
GENTLE_ARMS = [("gentle RED, drops", ["router.red.gentle=true"]), ("gentle RED + ECN", ["router.red.gentle=true", "tcp.ecn=true"])]
WARMUP = 5.0  # s: the second half of a 10 s run, clear of the initial overshoot and its recovery


def sets(buffer: int, variant: str, extra: list[str]) -> list[str]:
    return ["router.policy=red", f"switch.buffer={buffer}packets", "router.red.ecn=true", f"tcp.variant={variant}", *extra]


def measures(summary: dict) -> dict:
    p = next(p for p in summary["ports"] if p["name"] == summary["bottleneck"])
    fl = summary["flows"]
    red = p["drops_by_reason"].get("red", 0)
    forced = p.get("red_forced_drops", 0)
    return {
        "rtx": sum(f["segments_retransmitted"] for f in fl),
        "timeouts": sum(f["timeouts"] for f in fl),
        "tail": p["drops_by_reason"].get("tail", 0),
        "early": red - forced,
        "forced": forced,
        "marks": p.get("units_marked", 0),
        "E": summary["effective_throughput"],
        "J": summary["fairness"],
    }


def point(buffer: int, variant: str, extra: list[str], seeds: list[int], duration: float) -> dict:
    """Means over seeds; `*_late`: the counts after the warm-up."""
    acc: dict[str, float] = {}
    for seed in seeds:
        full = measures(atmsim.run(SCENARIO, sets(buffer, variant, extra) + [f"duration={duration}s"], seed=seed).summary)
        warm = measures(atmsim.run(SCENARIO, sets(buffer, variant, extra) + [f"duration={WARMUP}s"], seed=seed).summary)
        for k in ("rtx", "timeouts", "tail", "early", "forced", "marks"):
            full[f"{k}_late"] = full[k] - warm[k]
        for k, v in full.items():
            acc[k] = acc.get(k, 0.0) + v / len(seeds)
    return acc


def same_as_plain_red(buffer: int, seed: int) -> None:
    """RED with ECN on and no ECN-capable packet is plain RED (the same draws)."""
    plain = atmsim.run(SCENARIO, ["router.policy=red", f"switch.buffer={buffer}packets"], seed=seed).summary
    marking = atmsim.run(SCENARIO, sets(buffer, "lite", []), seed=seed).summary
    for s in (plain, marking):
        for p in s["ports"]:
            p.pop("units_marked", None)
            p.pop("red_forced_drops", None)
        s.pop("wall_s")
    assert plain == marking, "router.red.ecn without ECN-capable packets changed the run"


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/ecn-red"))
    ap.add_argument("--seeds", type=argparse_seeds(), default=[1, 2, 3, 4, 5], help="comma-separated (default 1,2,3,4,5)")
    ap.add_argument("--buffers", default="21,60", help="bottleneck buffers in packets (21: the scenario's 192,528 B)")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--no-gentle", action="store_true", help="only the two arms of plain RED")
    args = ap.parse_args(argv)
    arms = ARMS if args.no_gentle else ARMS + GENTLE_ARMS
    seeds = args.seeds
    buffers = [int(b) for b in args.buffers.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    same_as_plain_red(buffers[0], seeds[0])
    rows = []
    print(f"Means over seeds {','.join(map(str, seeds))} of {args.duration:g} s runs at the bottleneck R1->R2; in parentheses "
          f"the part after the first {WARMUP:g} s (the run minus its first {WARMUP:g} s).\n")
    print("| buffer | variant | router | retransmitted | timeouts | tail drops | early drops | forced drops | CE marks "
          "| E | Jain |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for buffer in buffers:
        for variant in VARIANTS:
            for arm, extra in arms:
                m = point(buffer, variant, extra, seeds, args.duration)
                rows.append((buffer, variant, arm, m))
                cells = " | ".join(f"{m[k]:.1f} ({m[k + '_late']:.1f})" for k in ("rtx", "timeouts", "tail", "early", "forced", "marks"))
                print(f"| {buffer} | {variant} | {arm} | {cells} | {m['E']:.3f} | {m['J']:.3f} |")
    figure(rows, buffers, arms, args.out / "ecn-red.png")


def figure(rows, buffers: list[int], arms, path: Path) -> None:
    """Per buffer: retransmissions after the warm-up per variant, one bar per arm; E and Jain."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(2, len(buffers), figsize=(4.2 * len(buffers), 5.5), squeeze=False)
    x = np.arange(len(VARIANTS))
    for col, buffer in enumerate(buffers):
        top, bottom = axes[0][col], axes[1][col]
        width = 0.76 / len(arms)
        for k, (arm, extra) in enumerate(arms):
            ms = [next(m for b, v, a, m in rows if b == buffer and v == var and a == arm) for var in VARIANTS]
            top.bar(x + (k - (len(arms) - 1) / 2) * width, [m["rtx_late"] for m in ms], width, label=arm)
            style = "-" if "tcp.ecn=true" in extra else "--"
            bottom.plot(x, [m["E"] for m in ms], marker="o", linestyle=style, label=f"E, {arm}")
            bottom.plot(x, [m["J"] for m in ms], marker="s", linestyle=style, label=f"Jain, {arm}")
        top.set_title(f"bottleneck buffer {buffer} packets", fontsize=9)
        top.set_ylabel(f"retransmissions after {WARMUP:g} s")
        top.set_xticks(x, VARIANTS, fontsize=8)
        bottom.set_xticks(x, VARIANTS, fontsize=8)
        bottom.set_ylim(0, 1.05)
        top.set_ylim(0, top.get_ylim()[1] * 1.3)  # room for the legend above the bars
        top.legend(fontsize=6, ncols=2)
        if col == 0:
            bottom.legend(fontsize=6, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
