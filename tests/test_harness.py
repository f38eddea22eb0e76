"""The reproduction harness: each figure declares its runs once, the union of
the selected figures' runs is computed once; the registry; sweeps on the
same road; the light CLI commands stay light."""
import dataclasses
import json
import subprocess
import sys

import pandas as pd
import pytest

from atmsim import sweep
from atmsim.errors import InputError
from atmsim.reproduce import harness, names, paper
from atmsim.runner import Job


@dataclasses.dataclass(frozen=True)
class FakeSpec:
    name: str

    def job(self):
        return Job(f"# {self.name}", (), None)


def fake_paper(calls, balanced=True):
    """Two figures sharing run "b"; figure two declares named groups."""

    def declare(fig, runs):
        def runs_of(grid):
            calls.setdefault(("declared", fig), 0)
            calls[("declared", fig)] += 1
            return runs
        return runs_of

    def body(fig):
        def make(c, pairs):
            calls[("made", fig)] = pairs
            c.claim("c1", statement="a statement", kind="shape", paper_value="§1", ours=len(pairs), holds=True, rule="rule")
        return make

    one = harness.Figure("one", body("one"), declare("one", [FakeSpec("a"), FakeSpec("b")]))
    two = harness.Figure("two", body("two"), declare("two", {"x": [FakeSpec("b")], "y": [FakeSpec("c"), FakeSpec("a")]}))
    return harness.Paper("fake", (one, two), lambda quick, **test: ("grid", quick, test), test_options=("seeds",))


class FakeRunner:
    """Stands in for runner.run_jobs: records each call's jobs; run "c" is unbalanced if told so."""

    def __init__(self):
        self.calls, self.balanced = [], True

    def __call__(self, jobs, **kw):
        self.calls.append([j.scenario for j in jobs])
        return [{"name": j.scenario[2:], "accounting": {"balanced": self.balanced or j.scenario != "# c"}} for j in jobs]


@pytest.fixture
def fake_runner(monkeypatch):
    fake = FakeRunner()
    monkeypatch.setattr(harness, "run_jobs", fake)
    return fake


def test_union_of_runs_is_computed_once_and_each_figure_gets_its_own(fake_runner, tmp_path):
    calls = {}
    rows = harness.reproduce(fake_paper(calls), None, quick=True, out=tmp_path, seeds=[1])
    assert fake_runner.calls == [["# a", "# b", "# c"]], "one pool, every distinct run once"
    assert calls[("declared", "one")] == calls[("declared", "two")] == 1, "each figure declares its runs once"
    assert [(s.name, r["name"]) for s, r in calls[("made", "one")]] == [("a", "a"), ("b", "b")]
    two = calls[("made", "two")]
    assert {k: [(s.name, r["name"]) for s, r in v] for k, v in two.items()} == {"x": [("b", "b")], "y": [("c", "c"), ("a", "a")]}
    assert [r["id"] for r in rows] == ["fake.one.c1", "fake.two.c1"]
    assert json.loads((tmp_path / "claims.json").read_text(encoding="utf-8")) == rows


def test_selected_figures_only_and_bad_input_before_any_run(fake_runner, tmp_path):
    calls = {}
    p = fake_paper(calls)
    harness.reproduce(p, ["two"], out=tmp_path)
    assert fake_runner.calls == [["# b", "# c", "# a"]] and ("declared", "one") not in calls
    with pytest.raises(InputError, match="^--figure: paper fake has no figure 'three'"):
        harness.plan(p, ["three"])
    with pytest.raises(InputError, match="^--ks: not supported for paper fake"):
        harness.plan(p, None, ks=[3])
    assert len(fake_runner.calls) == 1


def test_an_unbalanced_run_stops_the_reproduction(fake_runner, tmp_path):
    fake_runner.balanced = False
    with pytest.raises(RuntimeError, match="accounting identity violated in 1 runs"):
        harness.reproduce(fake_paper({}), None, out=tmp_path)
    assert not (tmp_path / "claims.json").exists()


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("quick", [True, False])
def test_every_registered_figure_declares_its_runs_once(name, quick):
    real = paper(name)
    counted = {}

    def counting(f):
        def runs(grid):
            counted[f.id] = counted.get(f.id, 0) + 1
            return f.runs(grid)
        return dataclasses.replace(f, runs=runs)

    p = dataclasses.replace(real, figures=tuple(counting(f) for f in real.figures))
    plan = harness.plan(p, None, quick)
    assert counted == {f: 1 for f in real.figure_ids()}
    union = plan.union()
    assert len(union) == len(set(union)) > 0
    for f in real.figure_ids():
        declared = plan.declared[f]
        specs = [s for g in declared.values() for s in g] if isinstance(declared, dict) else declared
        assert specs and all(s in set(union) for s in specs), f
        assert all(isinstance(s.job(), Job) for s in specs[:3])


def test_registry_names_and_errors():
    # Other papers register beside these two (arb, ...): the list is sorted and holds both.
    assert {"aron97", "morris-kung95"} <= set(names()) and names() == sorted(names())
    assert paper("aron97").figure_ids()[0] == "fig3"
    with pytest.raises(InputError, match="^paper: unknown paper 'x'"):
        paper("x")


def test_sweep_takes_the_harness_road_to_medians():
    assert sweep.medians is harness.medians
    assert sweep.points({"a": [1, 2], "b": ["x"]}) == harness.product({"a": [1, 2], "b": ["x"]})
    df = pd.DataFrame({"k": [1, 1, 2], "seed": [1, 2, 1], "E": [0.1, 0.3, 0.5], "ok": [True, False, True], "s": "x"})
    m = harness.medians(df, ["k"])
    assert list(m.columns) == ["k", "E"] and m["E"].tolist() == pytest.approx([0.2, 0.5])
    assert harness.medians(df, [])["E"].tolist() == pytest.approx([0.3])


@pytest.mark.parametrize("args", [["list"], ["validate", "aron97-topo1-atm"], ["show", "aron97-topo1-atm"],
                                  ["run", "aron97-topo1-packet", "--set", "duration=100ms", "--json"]])
def test_light_commands_import_no_heavy_module(args):
    code = ("import sys\nfrom atmsim import cli\ntry:\n    cli.main(%r)\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in ('numpy', 'pandas', 'matplotlib', 'rich', 'pyarrow', 'multiprocessing') if m in sys.modules)\n"
            "print('HEAVY', heavy, file=sys.stderr)" % (args,))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "HEAVY []" in p.stderr, p.stderr


def test_a_deviation_note_is_written_only_when_the_claim_fails(tmp_path):
    from atmsim.reproduce.harness import Ctx

    run = Ctx("p", None, tmp_path)
    c = run.at("f")
    c.claim("c1", statement="s", kind="value", paper_value="1", ours=1, holds=True, rule="rule", deviation="why")
    c.claim("c2", statement="s", kind="value", paper_value="1", ours=2, holds=False, rule="rule", note="measured", deviation="why")
    assert [r.note for r in run.claims] == ["", "measured why"]
    # The context names the figure: a claim names only its own ID, and an unbound context has no figure to give.
    assert [r.id for r in run.claims] == ["p.f.c1", "p.f.c2"]
    with pytest.raises(TypeError, match="bound to no figure"):
        run.claim("c3", statement="s", kind="value", paper_value="1", ours=1, holds=True, rule="")


def test_report_orders_figures_as_the_paper_does_and_notes_read_numbers():
    from atmsim.claims import plain
    from atmsim.claim_order import figure_order

    rows = [{"figure": f} for f in ("fig10", "fig3", "table1", "fig8-tcp-udp", "fig8", "credit-buffer")]
    assert figure_order(rows) == ["credit-buffer", "fig3", "fig8", "fig8-tcp-udp", "fig10", "table1"]
    # A registered paper's figures come in the order the paper declares them; plots follow.
    rows = [{"paper": "boston97", "figure": f} for f in ("epd", "fig7", "fig5", "table1")]
    assert figure_order(rows, ["fig6", "extra2", "extra10"]) == ["fig5", "table1", "fig6", "fig7", "epd", "extra2", "extra10"]
    from atmsim.claim_order import in_paper_order

    claims = [{"paper": "aron97", "figure": f, "id": f"aron97.{f}.c{n}"} for f, n in (("fig10", 1), ("fig3", 10), ("fig3", 2))]
    assert [r["id"] for r in in_paper_order(claims)] == ["aron97.fig3.c2", "aron97.fig3.c10", "aron97.fig10.c1"]
    import numpy as np

    assert str(plain({"k": np.int64(45), "x": np.float64(0.5), "n": "atm"})) == "{'k': 45, 'x': 0.5, 'n': 'atm'}"


def test_per_run_reads_a_run_once_by_its_identity_and_keeps_a_bounded_number():
    from atmsim.reproduce.harness import Run, per_run

    reads = []

    @per_run
    def count(spec, traces):
        reads.append(spec.seed)
        return {"rows": len(traces)}

    a, same_run_other_tag = Run("x", (), 1, True, tag="grid"), Run("x", (), 1, True, tag="sweep")
    assert count(a, [1, 2]) == {"rows": 2}
    assert count(same_run_other_tag, [1, 2]) == {"rows": 2} and reads == [1]  # the tag is no part of a run
    assert count(Run("x", (), 2, True), [1]) == {"rows": 1} and reads == [1, 2]
    kept, per_run.KEPT = per_run.KEPT, 2
    try:
        count(Run("x", (), 3, True), [])  # a third run: the oldest (seed 1) is let go
        count(a, [1, 2])
        assert reads == [1, 2, 3, 1]
    finally:
        per_run.KEPT = kept


def test_a_remake_keeps_its_claims_and_tables_and_draws_no_plot(tmp_path):
    # The remakes without a seed or under another reading go to a scratch folder of which only the claims are
    # kept: drawing their pngs was most of boston97's figure phase. The figure made for real still draws its own.
    import matplotlib.pyplot as plt
    import pandas as pd

    from atmsim import plotting
    from atmsim.reproduce.harness import Ctx, Paper, Plan, Run, _remake, figure

    @figure("f")
    def f(c, pairs):
        fig, ax = plt.subplots()
        ax.plot([r for _, r in pairs])
        plotting.save(fig, c.out / "f.png")
        c.table(pd.DataFrame({"r": [r for _, r in pairs]}), "f")
        c.claim("c1", statement="s", kind="value", paper_value="1", ours=len(pairs), holds=True, rule="r")

    runs = [Run("x", (), s) for s in (1, 2)]
    plan = Plan(Paper("p", (f,), lambda quick: None), None, ["f"], {"f": runs})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    made = _remake(plan, f, {runs[0]: 1.0, runs[1]: 2.0})(scratch, runs[:1])
    assert [c.id for c in made] == ["p.f.c1"] and made[0].ours == 1
    assert (scratch / "f.csv").exists() and not (scratch / "f.png").exists()
    f.make(Ctx("p", None, tmp_path, "f"), list(zip(runs, (1.0, 2.0))))
    assert (tmp_path / "f.png").stat().st_size > 0
