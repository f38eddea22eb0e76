"""Paper reproductions: one module per paper, each with its grid, its claims
(experiments.md IDs) and its figures. `PAPERS[name].reproduce(figures, quick,
out, workers)` writes `<figure>.csv`, `<figure>.png` and merges `claims.json`."""
from . import aron97, morris_kung95

PAPERS = {"aron97": aron97, "morris-kung95": morris_kung95}


def figures_of(paper: str) -> list[str]:
    return list(PAPERS[paper].FIGURES)
