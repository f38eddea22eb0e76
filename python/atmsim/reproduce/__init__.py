"""Paper reproductions: one module per paper, each with its grid, its claims
(experiments.md IDs) and its figures.

The registry maps the paper ID of experiments.md §0 to its module. A module
provides `FIGURES` (the figure IDs implemented so far, in the order `reproduce
PAPER` without --figure runs them) and `reproduce(figures, quick, out,
workers=None, cache_dir=None, progress=None, **grid)`, which writes
`<figure>.csv`, `<figure>.png`, merges `claims.json` and returns the claim
rows. A paper whose module accepts a test grid (ks, seeds, duration) sets
`TEST_GRID = True`. Adding a figure is adding a function to the module's
figure registry; adding a paper is adding a line here.
"""
from . import aron97, morris_kung95

PAPERS = {"aron97": aron97, "morris-kung95": morris_kung95}


def figures_of(paper: str) -> list[str]:
    return list(PAPERS[paper].FIGURES)


def supports_grid(paper: str) -> bool:
    """Whether the paper's reproduce() takes the hidden test-grid options."""
    return bool(getattr(PAPERS[paper], "TEST_GRID", False))
