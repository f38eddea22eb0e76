"""The order claims are shown in: paper by paper, each paper's figures in
the order the paper declares them, claims in natural order (c2 before c10).
Shared by the terminal table (`report.py`) and the HTML report."""

from __future__ import annotations


def _natural(fig: str):
    """fig3 before fig10: digits compare as numbers."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", fig)]


def _paper_order(paper) -> list[str]:
    """The figures of a registered paper in the order it declares them (the paper's own)."""
    from .reproduce import figures_of, names

    return figures_of(paper) if paper in names() else []


def figure_order(rows: list[dict], extra=()) -> list[str]:
    """The figures of `rows` (and `extra`, figures with a plot only) in the
    paper's order; figures the paper does not declare follow in natural
    order (fig3 before fig10)."""
    figs = dict.fromkeys([r["figure"] for r in rows] + list(extra))
    order = _paper_order(rows[0].get("paper")) if rows else []
    rank = {f: i for i, f in enumerate(order)}
    return sorted(figs, key=lambda f: (rank.get(f, len(rank)), _natural(f)))


def in_paper_order(rows: list[dict]) -> list[dict]:
    """Claim rows paper by paper, each paper's figures in its order, claims
    in natural order (c2 before c10). claims.json stays sorted by ID."""
    out = []
    for paper in dict.fromkeys(r.get("paper") for r in rows):
        mine = [r for r in rows if r.get("paper") == paper]
        rank = {f: i for i, f in enumerate(figure_order(mine))}
        out += sorted(mine, key=lambda r: (rank[r["figure"]], _natural(r["id"])))
    return out
