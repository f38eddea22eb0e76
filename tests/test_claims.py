"""The claim bands: one written test decides the verdict, gives the margin and
renders the rule, so a row's rule text and its code cannot disagree."""
import math

from hypothesis import example, given
from hypothesis import strategies as st

from atmsim import claims
from atmsim.claims import Band, above, at_least, at_most, below, check, within

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@st.composite
def bands(draw):
    lo, hi = sorted([draw(finite), draw(finite)])
    kind = draw(st.sampled_from(["lo", "hi", "both"]))
    strict = draw(st.booleans()) and kind != "both"
    if kind == "lo":
        return Band(lo=lo, strict=strict)
    if kind == "hi":
        return Band(hi=hi, strict=strict)
    return Band(lo=lo, hi=hi)


@given(bands(), finite)
@example(Band(lo=0.0, hi=5e-324), 5e-324)  # a subnormal width: halving it gives 0
def test_a_value_holds_exactly_when_its_margin_is_not_negative(band, x):
    m = band.margin(x)
    if band.strict:
        assert band.holds(x) == (m > 0)
    elif band.lo is not None and band.hi is not None and band.lo == band.hi:
        assert band.holds(x) == (x == band.lo)
    else:
        assert band.holds(x) == (m >= 0)


def test_margins_are_relative_to_the_band():
    assert at_least(0.8).margin(0.8) == 0
    assert math.isclose(at_least(0.8).margin(0.6), -0.25)
    assert math.isclose(at_most(0.0062).margin(0.0031), 0.5)
    assert math.isclose(within(0.45, 0.85).margin(0.65), 1.0)
    assert math.isclose(within(0.45, 0.85).margin(0.45), 0.0)
    assert math.isclose(within(0.45, 0.85).margin(0.95), -0.5)
    assert above(0).margin(0.25) == 0.25  # an end at 0 scales by 1
    # A tie on an open end fails with margin 0: "strictly better" is not shown by a tie.
    assert not above(0.5).holds(0.5) and above(0.5).margin(0.5) == 0
    assert not below(1).holds(float("nan")) and below(1).margin(float("nan")) is None


def test_check_needs_every_test_and_renders_each_into_the_rule():
    v = check(("share of points with E_vrm > E_lite", 0.9, at_least(0.8)), ("gain ratio", 0.4, at_least(0.5)))
    assert not v.holds
    assert math.isclose(v.margin, -0.2)
    assert v.text == "share of points with E_vrm > E_lite >= 0.8 and gain ratio >= 0.5"
    row = claims.make("p", "f", "c1", "s", "shape", "pv", 0.9, v, "topology 1").row()
    assert row["holds"] is False and row["rule"] == f"topology 1: {v.text}"
    assert row["margin"] == -0.2
    # A missing value fails the claim and leaves the margin unknown.
    assert check(("x", None, at_least(0)), ("y", 3, at_least(0))).margin is None
    assert claims.make("p", "f", "c1", "s", "shape", "pv", 1, True, "r").row()["margin"] is None


def test_a_verdict_near_its_threshold_is_flagged_as_a_knife_edge():
    # aron97.fig12.fair's 0.7907 against >= 0.79 holds by 0.09 % of its threshold: flagged; 0.80 is 1.3 % in.
    def row(x, band):
        return claims.make("p", "f", "c1", "s", "value", "pv", x, check(("x", x, band)), "").row()

    assert row(0.7907, at_least(0.79))["knife_edge"] is True
    assert row(0.80, at_least(0.79))["knife_edge"] is False
    assert row(0, at_most(0))["knife_edge"] is True  # "no loss" at 0 drops: one drop flips it
    assert row(0.7825, at_least(0.79))["knife_edge"] is True and row(0.7825, at_least(0.79))["holds"] is False
    assert row(0.4515, within(0.45, 0.85))["knife_edge"] is True  # 1 % of half the width is 0.002
    assert row(0.4525, within(0.45, 0.85))["knife_edge"] is False
    assert claims.make("p", "f", "c1", "s", "shape", "pv", 1, True, "r").row()["knife_edge"] is None  # no margin


def test_knife_edges_are_shown_on_the_console_and_in_the_report(capsys):
    from atmsim import html_report, report

    rows = [claims.make("p", "f", f"c{i}", "s", "value", "pv", x, check(("x", x, at_least(0.79))), "").row()
            for i, x in ((1, 0.7907), (2, 0.95))]
    report.print_verdicts(rows, "index.html")
    out = capsys.readouterr().out
    assert "p f  2/2 held; on a knife edge: p.f.c1\n" in out and "within 1% of its threshold" in out
    assert report.KNIFE in html_report._claim_row(rows[0]) and report.KNIFE not in html_report._claim_row(rows[1])


def test_every_claim_of_every_paper_is_written_with_bands():
    # Issue 24: each rule's test is written once (claims.check), so every row of every paper has a
    # margin and a rule rendered from its bands; a claim decided by a bare bool would have neither.
    from pathlib import Path
    import json

    golden = Path(__file__).resolve().parent / "golden" / "reproduce-all-quick"
    rows = [r for p in sorted(golden.glob("*.claims.json")) for r in json.loads(p.read_text(encoding="utf-8"))]
    from atmsim.reproduce import names

    assert {r["paper"] for r in rows} == set(names())
    # A margin is missing only where the quick grid does not measure the value (ours is null).
    bare = [r["id"] for r in rows if (r["margin"] is None and r["ours"] is not None) or not r["rule"].strip()]
    assert bare == []
    unexplained = [r["id"] for r in rows if not r["holds"] and not r["note"].strip()]
    assert unexplained == []


def test_every_claim_names_a_registered_figure_and_its_parts_by_keyword():
    # Issue 26: a claim row belongs to a figure its paper registers (so `--figure` and the report
    # find it), and a claim's parts are named at every call (no ten positional arguments).
    import inspect
    import json
    from pathlib import Path

    from atmsim.reproduce import figures_of
    from atmsim.reproduce.harness import Ctx

    golden = Path(__file__).resolve().parent / "golden" / "reproduce-all-quick"
    rows = [r for p in sorted(golden.glob("*.claims.json")) for r in json.loads(p.read_text(encoding="utf-8"))]
    stray = [r["id"] for r in rows if r["figure"] not in figures_of(r["paper"])]
    assert stray == []
    params = inspect.signature(Ctx.claim).parameters
    keyword_only = [n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert keyword_only[:6] == ["statement", "kind", "paper_value", "ours", "holds", "rule"]


def test_every_paper_binds_its_claims_to_the_figure_the_same_way():
    # Issue 33: a claim names its ID only (the harness binds the figure), and no paper builds or appends claim
    # rows itself: every paper, the template included, goes through `c.claim(ID, ...)`.
    import ast
    from pathlib import Path

    import atmsim.reproduce as registry

    root = Path(registry.__file__).parent
    off = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "harness.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "claim":
                if len(node.args) != 1:
                    off.append(f"{where}: claim() with {len(node.args)} positional arguments")
            if isinstance(node, ast.ImportFrom) and node.module == "atmsim.claims" and any(a.name == "make" for a in node.names):
                off.append(f"{where}: imports claims.make")
            if isinstance(node, ast.Attribute) and node.attr == "claims" and isinstance(node.ctx, ast.Store):
                off.append(f"{where}: assigns .claims")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "claims"):
                off.append(f"{where}: .claims.{node.func.attr}()")
    assert off == []


def test_every_row_of_the_quick_goldens_flags_its_knife_edge_by_its_margin():
    import json
    from pathlib import Path

    golden = Path(__file__).resolve().parent / "golden/reproduce-all-quick"
    rows = [r for p in sorted(golden.glob("*.claims.json")) for r in json.loads(p.read_text(encoding="utf-8"))]
    assert rows and all(r["knife_edge"] == (None if r["margin"] is None else abs(r["margin"]) <= claims.KNIFE_EDGE_MARGIN)
                        for r in rows)
    assert any(r["knife_edge"] and r["holds"] for r in rows)
