"""boston97 sensitivity runs (ours; Bestavros & Kim §4.1 model one switch): the switch's input
service and the access links, at Table 1's smallest, Fig. 7's and the
largest buffer, small and large packets, 64 kB window, 16 sources.

Not part of `atmsim reproduce boston97` (no claims; the paper has one
model): `python -m atmsim.reproduce.boston97.sensitivity [--out DIR]
[--seeds 1,2,3] [--duration 700s]` writes sensitivity.csv (the median over
seeds per point) and sensitivity_runs.csv. Variants:

- packet access, round robin: the reproduction's model (docs/boston97.md §3);
- packet access, arrival order: cells enter the output buffer at their arrival
  instants (`switch.input_service = "arrival"`);
- cell access (`boston97-cellaccess`, G2): access links carry cells at
  1.5 Mb/s, so one source alone can never overflow the output; with either
  input service.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from atmsim.reproduce.harness import medians, run_all, summary_of

from .common import SOURCES, grid, metrics
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

SIZES = (512, 9180)
BUFFERS = (64, 512, 4000)
CELL_ACCESS = tuple(f"link.S{i}-X.rate=1.5Mbps" for i in range(1, SOURCES + 1))
VARIANTS = {
    "packet-access round-robin": (),
    "packet-access arrival": ("switch.input_service=arrival",),
    "cell-access round-robin": CELL_ACCESS,
    "cell-access arrival": CELL_ACCESS + ("switch.input_service=arrival",),
}


def runs(g) -> list:
    """Every (variant, protocol, L, B, seed): the reproduction's run with the variant's overrides last."""
    out = []
    for name, extra in VARIANTS.items():
        for p in ("boston", "reno"):
            for L in SIZES:
                for B in BUFFERS:
                    for s in g.seeds:
                        r = g.run(p, L, B, 64, s, tag={"variant": name})
                        out.append(dataclasses.replace(r, overrides=r.overrides + extra))
    return out


def table(results: dict, seconds: float):
    """Per run the paper's metrics, Jain's index and the bottleneck's busy share; per point the medians."""
    import pandas as pd

    rows = []
    for run, r in results.items():
        s = summary_of(r)
        busy = next(p["busy_fraction"] for p in s["ports"] if p["name"] == s["bottleneck"])
        rows.append({**run.tag, **metrics(s, run.tag["L"], SOURCES, seconds), "fairness": s["fairness"],
                     "bottleneck_busy": busy})
    df = pd.DataFrame(rows)
    return df, medians(df, ["variant", "protocol", "L", "B"])


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/boston97-sensitivity"))
    ap.add_argument("--seeds", type=argparse_seeds(), default=[1, 2, 3],
                    help="comma-separated whole numbers (default 1,2,3)")
    ap.add_argument("--duration", default=None)
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args(argv)
    g = grid(False, a.seeds, a.duration)
    a.out.mkdir(parents=True, exist_ok=True)
    df, pts = table(run_all(runs(g), workers=a.workers, cache_dir=a.out / "runs", label="boston97 sensitivity"), g.seconds)
    df.to_csv(a.out / "sensitivity_runs.csv", index=False)
    pts.to_csv(a.out / "sensitivity.csv", index=False)
    cols = ["variant", "protocol", "L", "B", "clr", "plr", "eta", "response_us_per_byte", "fairness", "bottleneck_busy"]
    print(pts[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
