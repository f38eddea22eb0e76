"""The offline HTML report: one page per reproduced paper, every figure beside
the paper's numbers and ours, each claim with its verdict (holds or deviates)
and explanation, the scenarios the runs used and the atmsim version and commit
that produced them; `DIR/index.html` links the pages.

It reads what `atmsim reproduce` wrote (claims.json, reproduction.json and
<figure>.png, in DIR or, after `reproduce all`, in DIR/<paper>/) and writes
`index.html` in each paper's directory, plus DIR/index.html linking them when
DIR holds several. Pages reference their figures by relative path, load
nothing from the network and reflow on a phone's screen.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from atmsim import provenance
from atmsim.claim_order import figure_order, in_paper_order
from atmsim.report import KNIFE, ours_text

PAGE = "index.html"

STYLE = """*{box-sizing:border-box}body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em;
color:#222;line-height:1.4}img{max-width:100%;height:auto}h2{border-bottom:2px solid #444;margin-top:2em}
table{border-collapse:collapse;width:100%;font-size:14px;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}th{background:#f3f3f3}
.ok{color:#070;font-weight:bold}.no{color:#b00;font-weight:bold}.note{color:#555;font-size:13px}
.meta{color:#555;font-size:13px}pre{overflow-x:auto;background:#f7f7f7;padding:.5em;font-size:12px}
code{word-break:break-word}nav a{margin-right:1em}
@media (max-width:700px){table.claims thead{display:none}table.claims tr{display:block;border:1px solid #ccc;
margin-bottom:.8em}table.claims td{display:block;border:none;border-bottom:1px dotted #ddd}
table.claims td::before{content:attr(data-label) ": ";font-weight:bold;color:#444}}"""

# Marks every image that did not load (and says so on the page); the body's
# data-images attribute tells a headless browser the same.
SCRIPT = """addEventListener('load',function(){var im=[].slice.call(document.images),bad=im.filter(function(i){
return !(i.complete&&i.naturalWidth>0)});document.body.setAttribute('data-images',
bad.length?'broken '+bad.length+' of '+im.length:'loaded '+im.length);bad.forEach(function(i){
i.insertAdjacentHTML('afterend','<p class=no>figure missing: '+i.getAttribute('src')+'</p>')})});"""


def paper_dirs(root: Path) -> list[Path]:
    """Directories holding a claims.json: root itself, or its paper subdirectories (not hidden ones:
    a reproduction's staging folder, .atmsim-staging-PID, is not a paper)."""
    if (root / "claims.json").exists():
        return [root]
    return sorted(p for p in root.iterdir() if not p.name.startswith(".") and (p / "claims.json").exists())


CLAIM_KEYS = ("paper", "figure", "claim", "paper_value", "ours", "holds", "id")


def load_claims(path: Path) -> list[dict]:
    """The rows of a claims.json, checked: a list of objects with every key a
    row has. Raises InputError naming the file otherwise."""
    from atmsim.errors import InputError

    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("expected a list of claim objects")
        for i, r in enumerate(rows):
            missing = [k for k in CLAIM_KEYS if k not in r]
            if missing:
                raise ValueError(f"row {i} lacks {', '.join(missing)}")
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: malformed claims.json ({' '.join(str(e).split())})") from None
    return rows


e = html.escape


def _head(title: str) -> str:
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<meta name=viewport content='width=device-width, initial-scale=1'><title>{e(title)}</title>"
            f"<style>{STYLE}</style><script>{SCRIPT}</script></head><body>")


def _made_by(meta: dict, figures=()) -> str:
    """Which run made the page's figures: one line when one run made them all, else a note that each
    figure says which (a quick and a full run, or two commits, into one folder)."""
    if not meta:
        return "<p class=meta>made by: unknown (no reproduction.json)</p>"
    runs = {tuple(provenance.made_by(meta, f).items()) for f in figures} or {tuple(provenance.made_by(meta, "").items())}
    if len(runs) > 1:
        return (f"<p class=meta>made by {len(runs)} different runs (a quick and a full grid, or several commits): "
                "each figure says which</p>")
    return f"<p class=meta>{_run_label(dict(next(iter(runs))))}</p>"


def _run_label(made: dict) -> str:
    grid = "--quick grid" if made.get("quick") else "full grid"
    return (f"atmsim {e(str(made.get('atmsim_version') or '?'))}, commit <code>{e(str(made.get('commit') or '?'))}</code>, "
            f"core <code>{e(str(made.get('atmsim_core') or '?'))}</code>, {grid}")


VALIDATION = "docs/validation.md"


def _validation() -> str:
    """A line pointing at the validation page (docs/validation.md: every comparison with ns-2, ns-3,
    hand computations and queueing theory). Linked as a file of the source tree this atmsim runs
    from (a clone, or an editable install of one); the report stays offline, so it is named, not
    linked, when atmsim runs from an installed wheel without docs."""
    doc = Path(__file__).resolve().parents[2] / VALIDATION
    what = "How atmsim compares with ns-2, ns-3 and theory, with the commands that regenerate each number: "
    if doc.is_file():
        return f"<p class=meta>{what}<a href='{e(doc.as_uri())}'>{VALIDATION}</a></p>"
    return f"<p class=meta>{what}{VALIDATION} in atmsim's source tree</p>"


def _claim_row(r: dict) -> str:
    verdict = "<span class=ok>holds</span>" if r["holds"] else "<span class=no>deviates</span>"
    if r.get("knife_edge"):
        verdict += f"<br><span class=note>{KNIFE} (margin {e(str(r['margin']))})</span>"
    why = [e(r.get("note") or "")] if r.get("note") else []
    if r.get("rule"):
        why.append(f"<span class=note>rule: {e(r['rule'])}</span>")
    statement = r["claim"].split(" ", 1)[-1]
    return (f"<tr class=claim id='claim-{e(r['id'])}' data-holds='{str(bool(r['holds'])).lower()}'>"
            f"<td data-label=claim><b>{e(r['id'])}</b> {e(statement)}</td>"
            f"<td data-label=paper>{e(str(r['paper_value']))}</td><td data-label=ours>{e(ours_text(r, 200))}</td>"
            f"<td data-label=verdict>{verdict}</td><td data-label=explanation>{'<br>'.join(why)}</td></tr>")


def _runs(fig_meta: dict) -> str:
    if not fig_meta:
        return ""
    parts = [f"<details><summary class=meta>{fig_meta['runs']} runs</summary><ul>"]
    for name, variants in fig_meta["scenarios"].items():
        for v in variants:
            sets = " ".join(f"--set {s}" for s in v["set"]) or "(as written)"
            seeds = ",".join("default" if s is None else str(s) for s in v["seeds"])
            parts.append(f"<li><code>{e(name)} {e(sets)}</code> seeds {e(seeds)}</li>")
    return "".join(parts) + "</ul></details>"


def render_paper(d: Path, up: bool) -> str:
    """The page of the paper reproduced in `d`; `up`: link back to the index one level up."""
    rows = load_claims(d / "claims.json")
    meta = provenance.load(d, strict=True)
    name = rows[0]["paper"] if rows else d.name
    held = sum(r["holds"] for r in rows)
    pngs = {p.stem: p for p in d.glob("*.png")}
    figs = figure_order(rows, pngs)
    parts = [_head(f"atmsim: {name}"), "<nav><a href='../index.html'>all papers</a></nav>" if up else "",
             f"<h1>{e(name)}: reproduced figures and claims</h1>", _made_by(meta, figs), _validation(),
             f"<p>{held} of {len(rows)} claims hold; {len(rows) - held} deviate, each with its explanation.</p>",
             "<nav>" + " ".join(f"<a href='#{e(f)}'>{e(f)}</a>" for f in figs) + " <a href='#scenarios'>scenarios</a></nav>"]
    for fig in figs:
        parts.append(f"<section id='{e(fig)}'><h2>{e(fig)}</h2>")
        if fig in pngs:
            parts.append(f"<img src='{e(pngs[fig].name)}' alt='{e(name)} {e(fig)}'>")
        if meta:
            parts.append(f"<p class='meta made-by'>made by: {_run_label(provenance.made_by(meta, fig))}</p>")
        parts.append(_runs(meta.get("figures", {}).get(fig, {})))
        fr = in_paper_order([r for r in rows if r["figure"] == fig])
        if fr:
            parts.append("<table class=claims><thead><tr><th>claim</th><th>paper</th><th>ours</th><th>verdict</th>"
                         "<th>explanation</th></tr></thead><tbody>")
            parts += [_claim_row(r) for r in fr]
            parts.append("</tbody></table>")
        parts.append("</section>")
    parts.append("<section id=scenarios><h2>scenarios</h2>")
    for sname, text in meta.get("scenarios", {}).items():
        parts.append(f"<details><summary><code>{e(sname)}</code></summary><pre>{e(text)}</pre></details>")
    if not meta.get("scenarios"):
        parts.append("<p class=meta>not recorded (reproduced before reproduction.json existed)</p>")
    parts.append("</section></body></html>")
    return "\n".join(p for p in parts if p) + "\n"


def render_index(root: Path, dirs: list[Path]) -> str:
    """DIR/index.html of `reproduce all`: one line per paper, linking its page."""
    parts = [_head("atmsim reproductions"), "<h1>atmsim: reproduced papers</h1>"]
    metas = [provenance.load(d) for d in dirs]
    runs = {tuple(provenance.made_by(m, f).items()) for m in metas for f in (m.get("figures") or {"": None})}
    if len(runs) == 1:
        parts.append(f"<p class=meta>{_run_label(dict(next(iter(runs))))}</p>")
    parts.append(_validation())
    parts.append("<table><thead><tr><th>paper</th><th>claims</th><th>hold</th><th>deviate</th><th>made by</th></tr></thead>"
                 "<tbody>")
    for d in dirs:
        rows = load_claims(d / "claims.json")
        held, meta = sum(r["holds"] for r in rows), provenance.load(d)
        name = rows[0]["paper"] if rows else d.name
        made = {(m["commit"] or "?") + (" (--quick)" if m["quick"] else "")
                for m in (provenance.made_by(meta, f) for f in (meta.get("figures") or {"": None}))}
        parts.append(f"<tr><td><a href='{e(d.name)}/{PAGE}'>{e(name)}</a></td><td>{len(rows)}</td><td>{held}</td>"
                     f"<td>{len(rows) - held}</td><td class=meta>{e(', '.join(sorted(made)))}</td></tr>")
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts) + "\n"


def pages(root: Path) -> dict:
    """Every paper's page and, for several papers, DIR/index.html, rendered: {path: html}. The
    caller writes them (atmsim.outdir.write_owned: never over a file atmsim did not write)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    dirs = paper_dirs(root)
    if not dirs:
        raise FileNotFoundError(f"{root}: no claims.json (run `atmsim reproduce` first)")
    from atmsim.errors import InputError

    out = {}
    for d in dirs:
        try:
            out[d / PAGE] = render_paper(d, up=d != root)
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            if isinstance(e, InputError):
                raise
            # A row or figure entry of the wrong shape deep inside a file that loaded.
            raise InputError(f"{d}: malformed claims.json or {provenance.FILE} "
                             f"({type(e).__name__}: {' '.join(str(e).split())})") from None
    if dirs != [root]:
        out[root / PAGE] = render_index(root, dirs)
    return out


def write(root: Path, option: str = "directory") -> Path:
    """Writes the pages (`pages`) as `atmsim reproduce` owns them; returns DIR/index.html."""
    from atmsim.outdir import write_owned

    write_owned(root, "reproduce", option, pages(root))
    return Path(root) / PAGE
