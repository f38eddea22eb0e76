"""Paper reproductions: the registry, which lists no paper.

A paper is a package in this folder (or in a folder named by $ATMSIM_PAPERS)
whose `__init__` defines `PAPER`, a `harness.Paper`: its figures (runs
declared once per figure, tables, plots, claims) and its grid. The harness
(harness.py) does everything else. The paper's ID is its folder's name with
`_` written `-` (morris_kung95 is morris-kung95); folders whose name starts
with `_` are not papers (`_template`, the skeleton to copy: docs/reproductions.md,
"Adding a paper"). So adding a paper is adding its folder, nothing else: the
CLI asks this registry for the names, figures and grids, the report for the
figures' order, the golden test for the papers to pin.

`names()` finds the papers by their folders without importing them (a
paper's modules import numpy and pandas, which the light commands must not);
`paper(name)` imports one when it is asked for.
"""
from __future__ import annotations

import importlib
import os
import pkgutil

from atmsim.errors import InputError

# Folders of papers kept outside this package (os.pathsep-separated), searched after it.
PAPERS_ENV = "ATMSIM_PAPERS"
_HERE = list(__path__)


def folders() -> list[str]:
    """Where papers are looked for: this package's folder, then each folder of $ATMSIM_PAPERS (checked)."""
    extra = [d for d in os.environ.get(PAPERS_ENV, "").split(os.pathsep) if d]
    for d in extra:
        if not os.path.isdir(d):
            raise InputError(f"{PAPERS_ENV}: '{d}' is not a folder")
    return list(dict.fromkeys(_HERE + extra))


def _packages() -> dict[str, str]:
    """Paper ID -> its package's name; the first folder holding a name wins."""
    found: dict[str, str] = {}
    for m in pkgutil.iter_modules(folders()):
        if m.ispkg and not m.name.startswith("_"):
            found.setdefault(m.name.replace("_", "-"), m.name)
    return found


def names() -> list[str]:
    return sorted(_packages())


def paper(name: str):
    """The `harness.Paper` registered as `name`; InputError if there is none."""
    packages = _packages()
    if name not in packages:
        raise InputError(f"paper: unknown paper '{name}' (implemented: {', '.join(sorted(packages))}, all)")
    for d in folders():  # a paper from $ATMSIM_PAPERS imports as atmsim.reproduce.<package>, as the others do
        if d not in __path__:
            __path__.append(d)
    module = importlib.import_module(f"{__name__}.{packages[name]}")
    p = getattr(module, "PAPER", None)
    if p is None or p.id != name:
        got = "no PAPER" if p is None else f"PAPER's ID '{p.id}'"
        raise ImportError(f"{module.__file__}: {got}; its folder makes it paper '{name}'")
    return p


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
