"""Another reading of a paper's setup measured beside the claims' one (issue 37; python/atmsim/reproduce/
readings.py): every row gets its verdict under the reading, from the same figure code made again on the
twin runs, and a row whose verdict the reading changes says so in its note."""
import json
from pathlib import Path

from atmsim.reproduce import harness, readings
from atmsim.reproduce.boston97 import PAPER as BOSTON97
from atmsim.reproduce.boston97.common import N_256, PIECES_G8, grid
from atmsim.runner import Job

GOLDEN = Path(__file__).resolve().parent.parent / "tests/golden/reproduce-all-quick/boston97.claims.json"


def _paper(monkeypatch):
    """A figure whose claim c1 holds unless its run says x=2, and c2 always; the reading sets x=2 on run "a"."""
    def make(c, pairs):
        wide = any("x=2" in s.overrides for s, _ in pairs)
        c.claim("c1", statement="s", kind="value", paper_value="§1", ours=2 if wide else 1, holds=not wide, rule="r")
        c.claim("c2", statement="s", kind="value", paper_value="§1", ours=0, holds=True, rule="r")
    runs = [harness.Run("a", ("x=1",), 1), harness.Run("b", (), 1)]
    fig = harness.Figure("f", make, lambda grid: runs)
    other = harness.Figure("g", lambda c, pairs: c.claim("c1", statement="s", kind="value", paper_value="§1", ours=0, holds=True,
                                                         rule="r"), lambda grid: [harness.Run("b", (), 1)])
    wide = readings.Reading("x = 2", "a wider x", lambda r: harness.Run(r.scenario, ("x=2",), r.seed) if r.scenario == "a" else None)
    monkeypatch.setattr(harness, "run_jobs", lambda jobs, **kw: [{"accounting": {"balanced": True}} for _ in jobs])
    monkeypatch.setattr(harness.Run, "job", lambda self: Job(self.scenario, self.overrides, self.seed, self.trace))
    return harness.Paper("p", (fig, other), lambda quick, **t: None, readings=(wide,))


def test_each_row_gets_its_verdict_under_the_other_reading_and_a_changed_one_says_so(tmp_path, monkeypatch):
    paper = _paper(monkeypatch)
    plan = harness.plan(paper)
    assert harness.Run("a", ("x=2",), 1) in plan.union() and plan.twins["g"] == {}  # g's runs are not touched
    rows = {r["id"]: r for r in harness.execute(plan, tmp_path)}
    assert rows["p.f.c1"]["readings"] == {"x = 2": {"holds": False, "margin": None}}
    assert rows["p.f.c1"]["note"] == "At x = 2 (a wider x) this claim fails."
    assert rows["p.f.c2"]["readings"] == {"x = 2": {"holds": True, "margin": None}} and rows["p.f.c2"]["note"] == ""
    assert "readings" not in rows["p.g.c1"]


def test_boston97_gives_every_verdict_at_n_256_from_boston_runs_only():
    g = grid(True)
    run = g.run("boston", 9180, 64, 64, 1)
    assert N_256.twin(run).overrides[-1] == f"boston.pieces={PIECES_G8}" and N_256.twin(g.run("reno", 9180, 64, 64, 1)) is None
    plan = harness.plan(BOSTON97, None, True)
    assert set(plan.twins) == set(BOSTON97.figure_ids()) and all(set(t) == {N_256.name} for t in plan.twins.values())
    # The quick golden (what `reproduce all --quick` writes, tests/test_golden.py): every row has its N = 256
    # verdict, and a row whose verdict differs names it in its note.
    rows = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for r in rows:
        other = r["readings"][N_256.name]["holds"]
        assert isinstance(other, bool), r["id"]
        assert (f"At {N_256.name} " in r["note"]) == (other != r["holds"]), r["id"]


def test_a_reading_left_out_of_quick_and_one_that_quotes_rows_failing_under_both(tmp_path, monkeypatch):
    import dataclasses
    from types import SimpleNamespace

    paper = _paper(monkeypatch)
    wide = paper.readings[0]
    loud = dataclasses.replace(wide, quick=False, quote_failing=True)
    paper = dataclasses.replace(paper, readings=(loud,), grid=lambda quick, **t: SimpleNamespace(quick=quick))
    assert harness.plan(paper, None, True).twins == {"f": {}, "g": {}}  # the quick grid does not run it
    plan = harness.plan(paper, None, False)
    assert plan.twins["f"]
    # c1 fails under the reading only: said as before; a row failing under both would say "fails too" with its margin
    rows = {r["id"]: r for r in harness.execute(plan, tmp_path)}
    assert rows["p.f.c1"]["note"] == "At x = 2 (a wider x) this claim fails."
    made = [SimpleNamespace(id="p.f.c1", holds=False, note="Measured 1.", readings=None)]
    readings.annotate(made, loud, {"p.f.c1": (False, -0.25)})
    assert made[0].note == "Measured 1. At x = 2 (a wider x) this claim fails too (margin -0.25)."
    readings.annotate(made, wide, {"p.f.c1": (False, -0.25)})  # a reading that does not quote: unchanged
    assert made[0].note.count("fails too") == 1


def test_boston97_judges_every_run_with_cell_access_on_the_full_grid_only():
    from atmsim.reproduce.boston97 import access
    from atmsim.reproduce.boston97.common import CELL_ACCESS, CELL_LINKS

    g = grid(False)
    run = g.run("reno", 9180, 512, 64, 1)
    assert CELL_ACCESS.twin(run).overrides == run.overrides + CELL_LINKS
    assert CELL_ACCESS.twin(access.runs(g)[0]) is None  # the access sweep sets the links' rate itself
    assert all(CELL_ACCESS.name not in t for t in harness.plan(BOSTON97, None, True).twins.values())
    full = harness.plan(BOSTON97, ["fig5", "fig7"], False)
    assert all(CELL_ACCESS.name in full.twins[f] for f in ("fig5", "fig7"))
