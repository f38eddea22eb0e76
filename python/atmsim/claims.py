"""Claim rows of claims.json: one per claim ID `PAPER.FIGURE.cN`, with the
paper's value and where the paper states it, ours, whether it holds by the
acceptance rule written beside it, how far inside or outside its band it lies
(`margin`), whether that margin puts it on a knife edge (`knife_edge`: within
KNIFE_EDGE_MARGIN of its threshold), and a note on any deviation; a failing row
also says what settles it, if anything does (`settled_by`, `evidence`: settled.py).

A claim's acceptance test is written once, as bands on named numbers
(`check(("share of points", 0.83, at_least(0.8)), ...)`): the same `Band`
decides the verdict, gives the margin and is rendered into the row's `rule`,
so the code and the rule text cannot disagree."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from atmsim.settled import settle

#: A verdict whose margin lies within this of 0 (either side) is on a knife edge: its value sits within 1 %
#: of the band's scale from the band's end (one-sided: 1 % of the threshold; two-sided: 1 % of half the
#: width; a count against a bound of 0, such as "no loss" at 0 drops, is at its end: one event flips it).
KNIFE_EDGE_MARGIN = 0.01


def knife_edge(margin: Optional[float]) -> Optional[bool]:
    """Whether a verdict with this margin sits within KNIFE_EDGE_MARGIN of its threshold (None: no margin)."""
    m = _number(margin)
    return None if m is None else abs(m) <= KNIFE_EDGE_MARGIN


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
    margin: Optional[float] = None
    seeds: Optional[int] = None  # the seeds of the figure's runs (reproduce/seeds.py)
    survives_leaving_out_one_seed: Optional[bool] = None  # None: one seed, or a body that needs them all
    readings: Optional[dict] = None  # {reading: {"holds", "margin"}} under the paper's other readings (reproduce/readings.py)

    def row(self) -> dict:
        d = asdict(self)
        d["claim"] = f"{self.id} {self.statement}"
        d["holds"] = bool(self.holds)
        d["ours"] = _clean(self.ours)
        d["margin"] = _clean(self.margin)
        row = {k: d[k] for k in ("paper", "figure", "claim", "paper_value", "ours", "holds", "margin", "id", "kind", "rule", "note",
                                 "seeds", "survives_leaving_out_one_seed")}
        row["knife_edge"] = knife_edge(self.margin)
        if self.readings:  # only papers that declare another reading of their setup
            row["readings"] = {k: {"holds": v["holds"], "margin": _clean(v["margin"])} for k, v in self.readings.items()}
        if not row["holds"]:  # what settles the deviation, if anything does (settled.py)
            row["settled_by"], row["evidence"] = settle(self.id, self.note)
        return row


def make(paper, figure, cid, statement, kind, paper_value, ours, holds, rule, note="") -> Claim:
    """The claim `paper.figure.cid`; kind is analytic, value, shape, trace or hard. `holds` is a
    bool, or a `Verdict` from `check`, which also gives the margin and the rule's test."""
    if isinstance(holds, Verdict):
        rule = f"{rule}: {holds.text}" if rule else holds.text
        return Claim(paper, figure, f"{paper}.{figure}.{cid}", statement, kind, paper_value, ours, holds.holds, rule, note, holds.margin)
    return Claim(paper, figure, f"{paper}.{figure}.{cid}", statement, kind, paper_value, ours, bool(holds), rule, note)


@dataclass(frozen=True)
class Band:
    """The values a number may take for a claim to hold: [lo, hi], either end
    open (`strict`) or absent. `margin(x)` is how far x lies inside (+) or
    outside (-) the band relative to its scale: for a two-sided band the
    distance to the nearer end over half the band's width (1 at its centre),
    for a one-sided band the distance to its end over that end's magnitude
    (over 1 when the end is 0). A value on a closed end holds with margin 0;
    on an open end it fails with margin 0."""

    lo: Optional[float] = None
    hi: Optional[float] = None
    strict: bool = False

    def holds(self, x) -> bool:
        x = _number(x)
        if x is None:
            return False
        if self.lo is not None and (x <= self.lo if self.strict else x < self.lo):
            return False
        if self.hi is not None and (x >= self.hi if self.strict else x > self.hi):
            return False
        return True

    def margin(self, x) -> Optional[float]:
        x = _number(x)
        if x is None:
            return None
        if self.lo is not None and self.hi is not None:
            if self.hi == self.lo:  # a single admissible value
                return 0.0 if x == self.lo else -abs(x - self.lo)
            # Half the width, or the width when halving a subnormal width
            # rounds to 0 (a band [0, 5e-324] once had a holding value with
            # a negative margin).
            half = (self.hi - self.lo) / 2 or (self.hi - self.lo)
            return min(x - self.lo, self.hi - x) / half
        if self.lo is not None:
            return (x - self.lo) / (abs(self.lo) or 1.0)
        return (self.hi - x) / (abs(self.hi) or 1.0)

    def __str__(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"in ({_fmt(self.lo)}, {_fmt(self.hi)})" if self.strict else f"in [{_fmt(self.lo)}, {_fmt(self.hi)}]"
        if self.lo is not None:
            return f"{'>' if self.strict else '>='} {_fmt(self.lo)}"
        return f"{'<' if self.strict else '<='} {_fmt(self.hi)}"


def at_least(t: float) -> Band:
    return Band(lo=t)


def above(t: float) -> Band:
    return Band(lo=t, strict=True)


def at_most(t: float) -> Band:
    return Band(hi=t)


def below(t: float) -> Band:
    return Band(hi=t, strict=True)


def within(lo: float, hi: float) -> Band:
    return Band(lo=lo, hi=hi)


@dataclass(frozen=True)
class Verdict:
    """The outcome of a claim's tests: holds iff every named value lies in
    its band; the margin is the smallest of theirs (None when a value is
    missing); `text` renders the tests for the row's rule."""

    holds: bool
    margin: Optional[float]
    text: str


def check(*tests) -> Verdict:
    """`tests`: (name, value, Band) triples, all of which must hold."""
    if not tests:
        raise ValueError("a claim needs at least one test")
    holds = all(band.holds(v) for _, v, band in tests)
    margins = [band.margin(v) for _, v, band in tests]
    margin = None if any(m is None for m in margins) else min(margins)
    return Verdict(holds, margin, " and ".join(f"{name} {band}" for name, _, band in tests))


def _number(x) -> Optional[float]:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _fmt(t: float) -> str:
    return f"{t:g}"


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
        for r in json.loads(path.read_text(encoding="utf-8")):
            rows[r.get("id") or r["claim"].split()[0]] = r
    for c in claims:
        rows[c.id] = c.row()
    out = sorted(rows.values(), key=lambda r: r["id"])
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


def frac(flags) -> float:
    flags = list(flags)
    return sum(bool(f) for f in flags) / len(flags) if flags else float("nan")


def ratio_or_none(a: float, b: float) -> Optional[float]:
    return None if b == 0 else a / b
