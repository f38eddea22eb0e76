"""Claim rows of claims.json: one per claim ID `PAPER.FIGURE.cN`, with the
paper's value and where the paper states it, ours, whether it holds by the
acceptance rule written beside it, and a note on any deviation."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional


@dataclass
class Claim:
    paper: str
    figure: str
    id: str
    statement: str
    kind: str
    paper_value: str
    ours: Any
    holds: bool
    rule: str
    note: str = ""

    def row(self) -> dict:
        d = asdict(self)
        d["claim"] = f"{self.id} {self.statement}"
        d["holds"] = bool(self.holds)
        d["ours"] = _clean(self.ours)
        return {k: d[k] for k in ("paper", "figure", "claim", "paper_value", "ours", "holds", "id", "kind", "rule", "note")}


def make(paper, figure, cid, statement, kind, paper_value, ours, holds, rule, note="") -> Claim:
    """The claim `paper.figure.cid`; kind is analytic, value, shape, trace or hard."""
    return Claim(paper, figure, f"{paper}.{figure}.{cid}", statement, kind, paper_value, ours, bool(holds), rule, note)


def plain(v):
    """`v` with numpy scalars as Python numbers (recursively), so that text
    made from it reads 1, not np.int64(1); floats to 6 decimals."""
    return _clean(v)


def _clean(v):
    if isinstance(v, (bool, int)) and not hasattr(v, "dtype"):
        return v
    if isinstance(v, float):
        v = float(v)
        return None if math.isnan(v) else round(v, 6)
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if hasattr(v, "item"):
        return _clean(v.item())
    return v


def merge_write(path: Path, claims: list[Claim]) -> list[dict]:
    """Writes claims.json, replacing rows with the same id and keeping others."""
    rows: dict[str, dict] = {}
    if path.exists():
        for r in json.loads(path.read_text()):
            rows[r.get("id") or r["claim"].split()[0]] = r
    for c in claims:
        rows[c.id] = c.row()
    out = sorted(rows.values(), key=lambda r: r["id"])
    path.write_text(json.dumps(out, indent=1) + "\n")
    return out


def frac(flags) -> float:
    flags = list(flags)
    return sum(bool(f) for f in flags) / len(flags) if flags else float("nan")


def ratio_or_none(a: float, b: float) -> Optional[float]:
    return None if b == 0 else a / b
