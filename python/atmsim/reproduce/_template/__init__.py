"""The skeleton of a reproduced paper: copy this folder to start one
(docs/reproductions.md, "Adding a paper").

    cp -r python/atmsim/reproduce/_template python/atmsim/reproduce/<folder>

The folder's name is the paper's ID with `-` written `_` (morris_kung95 is
morris-kung95); set `ID` below to that ID. Nothing else registers the paper:
`atmsim reproduce --help`, `reproduce ID`, `reproduce all`, the report and
the golden test find it by its folder (a folder whose name starts with `_`,
like this one, is not a paper). Then replace the example figure by the
paper's, split into modules by theme as it grows (aron97/, jain96/), write
the paper's section in docs/reproductions.md, and record its goldens
(ATMSIM_BLESS=1 python -m pytest tests/test_golden.py).

Replace this docstring by the paper's: authors, year, "title" (venue), and
its figures. Claim IDs ID.FIGURE.cN.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import atmsim
from atmsim.claims import above, check
from atmsim.reproduce.harness import Paper, Run, figure, medians, summary_of

ID = "template"
SCENARIO = "aron97-topo1-packet"  # a built-in scenario name, or the path of a TOML file


@dataclass(frozen=True)
class Grid:
    """What the figures' runs depend on: the full grid, `--quick`'s, or a test grid (--seeds, --duration)."""

    quick: bool
    seeds: tuple
    duration: str


def grid(quick: bool, seeds: Optional[list] = None, duration: Optional[str] = None) -> Grid:
    if duration:
        atmsim.resolve(SCENARIO, [f"duration={duration}"])  # a bad --duration is refused before any output
    return Grid(quick, tuple(seeds or ([1] if quick else [1, 2, 3])), duration or ("1s" if quick else "10s"))


def _example_runs(g: Grid) -> list:
    """The runs the figure needs, declared once; the harness runs them (shared runs once) and hands them back."""
    return [Run(SCENARIO, (f"duration={g.duration}",), seed) for seed in g.seeds]


@figure("example", runs=_example_runs)
def example(c, runs):
    """A figure: its table (example.csv, one row per point; example_runs.csv, one per run), its plot
    (example.png) and its claims, each computed from the runs by the rule written beside it."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from atmsim.plotting import save

    df = pd.DataFrame([{"seed": run.seed, "E": summary_of(r)["effective_throughput"]} for run, r in runs])
    pts = medians(df, [])
    c.write("example", pts, df)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.bar([str(s) for s in df.seed], df.E, color="0.5")
    ax.set_xlabel("seed")
    ax.set_ylabel("effective throughput")
    save(fig, c.out / "example.png")
    e = float(pts.E.iloc[0])
    # The figure binds the claim: its ID is ID.example.c1.
    c.claim("c1", statement="the bottleneck carries useful data", kind="value", paper_value="E > 0 (§N, Fig. N)",
            ours=e, holds=check(("median over seeds of the effective throughput", e, above(0))), rule="")


PAPER = Paper(ID, (example,), grid, test_options=("seeds", "duration"))
