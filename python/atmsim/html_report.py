"""The offline HTML report: every reproduced figure beside the
paper's numbers and the verdict of each claim it tests.

It reads what `atmsim reproduce` wrote (claims.json and <figure>.png, in DIR
or, after `reproduce all`, in DIR/<paper>/) and writes one self-contained
report.html next to them; images are referenced by relative path.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from atmsim.report import compact

STYLE = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;width:100%;font-size:13px;margin:.5em 0 2em}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
.ok{color:#070;font-weight:bold}.no{color:#b00;font-weight:bold}img{max-width:100%}
.note{color:#555;font-size:12px}h2{border-bottom:2px solid #444}"""


def paper_dirs(root: Path) -> list[Path]:
    """Directories holding a claims.json: root itself, or its paper subdirectories."""
    if (root / "claims.json").exists():
        return [root]
    return sorted(p for p in root.iterdir() if (p / "claims.json").exists())


CLAIM_KEYS = ("paper", "figure", "claim", "paper_value", "ours", "holds", "id")


def load_claims(path: Path) -> list[dict]:
    """The rows of a claims.json, checked: a list of objects with every key a
    row has. Raises InputError naming the file otherwise."""
    from atmsim.errors import InputError

    try:
        rows = json.loads(Path(path).read_text())
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("expected a list of claim objects")
        for i, r in enumerate(rows):
            missing = [k for k in CLAIM_KEYS if k not in r]
            if missing:
                raise ValueError(f"row {i} lacks {', '.join(missing)}")
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: malformed claims.json ({' '.join(str(e).split())})") from None
    return rows


def _natural(fig: str):
    """fig3 before fig10: digits compare as numbers."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", fig)]


def _paper_order(paper) -> list[str]:
    """The figures of a registered paper in the order it declares them (the paper's own)."""
    from .reproduce import PAPERS, figures_of

    return figures_of(paper) if paper in PAPERS else []


def _figure_order(rows: list[dict], extra=()) -> list[str]:
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
        rank = {f: i for i, f in enumerate(_figure_order(mine))}
        out += sorted(mine, key=lambda r: (rank[r["figure"]], _natural(r["id"])))
    return out


def render(root: Path) -> str:
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    dirs = paper_dirs(root)
    if not dirs:
        raise FileNotFoundError(f"{root}: no claims.json (run `atmsim reproduce` first)")
    parts = [f"<!doctype html><meta charset=utf-8><title>atmsim report</title><style>{STYLE}</style>",
             "<h1>atmsim: reproduced figures and claims</h1>"]
    summary = []
    for d in dirs:
        rows = load_claims(d / "claims.json")
        held = sum(r["holds"] for r in rows)
        name = rows[0]["paper"] if rows else d.name
        summary.append(f"<li><a href='#{html.escape(name)}'>{html.escape(name)}</a>: {held} of {len(rows)} claims hold</li>")
        parts.append(f"<h2 id='{html.escape(name)}'>{html.escape(name)}</h2>")
        pngs = {p.stem: p for p in d.glob("*.png")}
        for fig in _figure_order(rows, pngs):
            parts.append(f"<h3>{html.escape(fig)}</h3>")
            if fig in pngs:
                parts.append(f"<img src='{html.escape(str(pngs[fig].relative_to(root)))}' alt='{html.escape(fig)}'>")
            fr = in_paper_order([r for r in rows if r["figure"] == fig])
            if not fr:
                continue
            parts.append("<table><tr><th>claim</th><th>paper</th><th>ours</th><th>holds</th><th>rule</th></tr>")
            for r in fr:
                verdict = "<span class=ok>yes</span>" if r["holds"] else "<span class=no>no</span>"
                note = f"<div class=note>{html.escape(r.get('note') or '')}</div>" if r.get("note") else ""
                parts.append(f"<tr><td><b>{html.escape(r['id'])}</b> {html.escape(r['claim'].split(' ', 1)[-1])}{note}</td>"
                             f"<td>{html.escape(str(r['paper_value']))}</td><td>{html.escape(compact(r['ours'], 200))}</td>"
                             f"<td>{verdict}</td><td>{html.escape(r.get('rule', ''))}</td></tr>")
            parts.append("</table>")
    parts.insert(2, "<ul>" + "".join(summary) + "</ul>")
    return "\n".join(parts) + "\n"


def write(root: Path) -> Path:
    path = Path(root) / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render(root))
    tmp.replace(path)
    return path
