"""The measurements behind the jain96 claims' notes, one figure at a time
and on any seeds or run length:

    python -m atmsim.reproduce.jain96.probe FIGURE [--seeds 1-5] [--duration 6s] [--out DIR]

runs FIGURE's runs (the full grid; `--seeds`, a list or range such as 1,2,3
or 1-10, and `--duration` change them as the test-grid options of
`harness.reproduce` do) and prints each claim's verdict, margin, measured
values and note: a failing claim's note is the measured mechanism, computed
from the same runs. With no options it prints what `atmsim reproduce
jain96` writes into claims.json for that figure.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from atmsim.reproduce import harness

from . import PAPER
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds


def main(argv=None) -> None:
    ap = OneLineParser(prog="python -m atmsim.reproduce.jain96.probe", description=__doc__.split("\n\n")[0])
    ap.add_argument("figure", choices=PAPER.figure_ids())
    ap.add_argument("--seeds", type=argparse_seeds(ranges=True), default=None, help="e.g. 1,2,3 or 1-10 (default: the full grid's 1-3)")
    ap.add_argument("--duration", default=None, help="run length, e.g. 6s (default 3s)")
    ap.add_argument("--out", type=Path, default=None, help="where to write the figure's files (default: a temporary directory)")
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = harness.reproduce(PAPER, [a.figure], out=a.out or Path(tmp), workers=a.workers,
                                 seeds=a.seeds, duration=a.duration)
    for r in rows:
        if r["figure"] != a.figure:
            continue
        print(f"{r['id']}: {'holds' if r['holds'] else 'FAILS'} (margin {r['margin']})")
        print(f"  rule: {r['rule']}")
        print(f"  ours: {json.dumps(r['ours'])}")
        if r["note"]:
            print(f"  note: {r['note']}")


if __name__ == "__main__":
    main()
