"""Paper reproductions: the registry.

Each paper is one module (or package) defining `PAPER`, a `harness.Paper`:
its figures (runs declared once per figure, tables, plots, claims) and its
grid. The harness (harness.py) does everything else. Adding a paper is
adding its module and one line to `PAPERS`; the CLI asks this registry for
the names, figures and grids and knows nothing else about a paper.
Importing this registry is cheap: a paper's module (numpy, pandas) is
imported when the paper is asked for.
"""
from __future__ import annotations

import importlib

from atmsim.errors import InputError

# Paper ID (its claim IDs are PAPER.FIGURE.cN) -> the module that defines PAPER.
PAPERS = {
    "aron97": "atmsim.reproduce.aron97",
    "jain96": "atmsim.reproduce.jain96",
    "boston97": "atmsim.reproduce.boston97",
    "morris-kung95": "atmsim.reproduce.morris_kung95",
    "arb": "atmsim.reproduce.arb",
}


def names() -> list[str]:
    return sorted(PAPERS)


def paper(name: str):
    """The `harness.Paper` registered as `name`; InputError if there is none."""
    if name not in PAPERS:
        raise InputError(f"paper: unknown paper '{name}' (implemented: {', '.join(names())}, all)")
    return importlib.import_module(PAPERS[name]).PAPER


def select(name: str, figures=None) -> list:
    """The papers `reproduce NAME [--figure FIGURE]...` covers ("all": every paper), checked;
    `figures` is one figure ID or several."""
    if isinstance(figures, str):
        figures = [figures]
    if name != "all":
        p = paper(name)
        for f in figures or ():
            p.figure(f)
        return [p]
    if figures:
        raise InputError("--figure: give a paper, not 'all', with --figure")
    return [paper(n) for n in names()]


def figures_of(name: str) -> list[str]:
    return paper(name).figure_ids()
