"""A row's seed count and whether its verdict survives leaving out any one seed (issue 37, item 4;
python/atmsim/reproduce/seeds.py), on made-up figures whose verdicts depend on the seeds they get."""
from atmsim import claims
from atmsim.reproduce import seeds
from atmsim.reproduce.harness import Run


def runs(*ss, name="x"):
    return [Run(name, (), s) for s in ss]


def test_a_group_at_one_seed_is_kept_and_the_others_lose_the_seed():
    declared = {"main": runs(1, 2, 3), "probe": runs(1, name="probe")}
    assert seeds.seeds_of(declared) == [1, 2, 3]
    left = seeds.without(declared, 1)
    assert [r.seed for r in left["main"]] == [2, 3] and left["probe"] == declared["probe"]
    assert seeds.seeds_of(runs(1)) == []


def _make(rule):
    """A figure with one claim that holds when rule(seeds it was given) does."""
    def make(out, declared):
        got = {r.seed for r in (declared["main"] if isinstance(declared, dict) else declared)}
        return [claims.make("p", "f", "c1", "s", "shape", "", len(got), rule(got), "")]
    return make


def test_a_verdict_carried_by_one_seed_does_not_survive():
    n, v = seeds.leave_one_out(_make(lambda got: 3 in got), runs(1, 2, 3))
    assert n == 3 and v == {"p.f.c1": [True, True, False]}
    assert seeds.survives(True, v["p.f.c1"], n) is False
    n, v = seeds.leave_one_out(_make(lambda got: len(got) >= 2), runs(1, 2, 3))
    assert seeds.survives(True, v["p.f.c1"], n) is True


def test_one_seed_or_a_body_that_needs_every_seed_tells_nothing():
    n, v = seeds.leave_one_out(_make(lambda got: True), runs(1))
    assert (n, v) == (0, {}) and seeds.survives(True, v.get("p.f.c1"), n) is None

    def needs_seed_1(out, declared):
        if 1 not in {r.seed for r in declared}:
            raise KeyError(1)
        return _make(lambda got: True)(out, declared)

    n, v = seeds.leave_one_out(needs_seed_1, runs(1, 2))
    assert v == {"p.f.c1": None} and seeds.survives(True, v["p.f.c1"], n) is None


def test_seeds_that_give_identical_runs_are_one_run_not_independent_seeds():
    # A group declared at three seeds whose runs are equal (seed and wall time aside) samples nothing:
    # collapse keeps its first seed's run, the figure counts one seed and no verdict "survives".
    same = {r: {"seed": r.seed, "wall_s": 0.1 * r.seed, "drops": 4} for r in runs(1, 2, 3)}
    varied = {r: {"seed": r.seed, "drops": r.seed} for r in runs(1, 2, 3, name="y")}
    results = {**same, **varied}
    assert seeds.identical(runs(1, 2, 3), results) and not seeds.identical(runs(1, 2, 3, name="y"), results)
    assert seeds.collapse(runs(1, 2, 3), results) == runs(1)
    declared = {"main": runs(1, 2, 3), "other": runs(1, 2, 3, name="y")}
    assert seeds.collapse(declared, results) == {"main": runs(1), "other": runs(1, 2, 3, name="y")}
    n, v = seeds.leave_one_out(_make(lambda got: True), seeds.collapse(runs(1, 2, 3), results))
    assert (n, v) == (0, {}) and seeds.survives(True, v.get("p.f.c1"), n) is None
    # A seed that also picks the overrides (boston97's start times) makes each point a one-seed point:
    # nothing to compare, so the group is a sample, even if the outcomes happened to agree.
    own = [Run("x", (f"start={s}",), s) for s in (1, 2, 3)]
    assert not seeds.identical(own, {r: {"seed": r.seed, "drops": 4} for r in own})
    assert not seeds.identical(own + own[:1], {r: {"seed": r.seed, "drops": 4} for r in own})  # a run declared twice


def test_the_harness_counts_identical_runs_as_one_seed(tmp_path, monkeypatch):
    # Through the harness: a figure declaring seeds 1-3 whose runs all give the same summary gets
    # seeds = 1 and null survival; the same figure with runs that differ gets 3.
    from atmsim.reproduce import harness

    def paper(distinct):
        def make(c, pairs):
            c.claim("c1", statement="s", kind="shape", paper_value="§1", ours=len(pairs), holds=True, rule="r")
        fig = harness.Figure("f", make, lambda grid: runs(1, 2, 3, name="scenario-x"))
        monkeypatch.setattr(harness, "run_jobs", lambda jobs, **kw: [
            {"seed": j.seed, "accounting": {"balanced": True}, "x": j.seed if distinct else 0} for j in jobs])
        monkeypatch.setattr(harness.Run, "job", lambda self: harness.Job(self.scenario, self.overrides, self.seed, self.trace))
        return harness.Paper("p", (fig,), lambda quick, **t: None)

    (tmp_path / "same").mkdir()
    (tmp_path / "distinct").mkdir()
    rows = harness.reproduce(paper(False), out=tmp_path / "same")
    assert (rows[0]["seeds"], rows[0]["survives_leaving_out_one_seed"]) == (1, None)
    rows = harness.reproduce(paper(True), out=tmp_path / "distinct")
    assert (rows[0]["seeds"], rows[0]["survives_leaving_out_one_seed"]) == (3, True)


def test_a_seed_sweep_is_neither_counted_nor_left_out():
    # fig8's seed sweep (seeds.SWEEP) samples seeds for a note's noise measure, not the figure's values.
    declared = {"main": runs(1), seeds.SWEEP: runs(*range(1, 11), name="sweep")}
    assert seeds.seeds_of(declared) == []
    assert seeds.without(declared, 3)[seeds.SWEEP] == declared[seeds.SWEEP]
    assert seeds.counted(declared) == {"main": declared["main"]}


def test_noise_compares_the_effect_with_twice_the_standard_error():
    # Per-seed values 3.0 and 5.0 alternating over 10 seeds: standard error 1.054 / sqrt(10) = 0.333.
    per = {s: 3.0 if s % 2 else 5.0 for s in range(1, 11)}
    inside = seeds.noise("x", per, 4.5, (1.2, 4.0))  # 0.5 from 4.0, under 0.667
    assert "Over 10 seeds (1-10)" in inside and "(0.500) lies inside twice its standard error (0.667)" in inside
    assert "lies outside" in seeds.noise("x", per, 4.9, (1.2, 4.0))  # 0.9 from 4.0
    assert "distance from 1.2 (0.200) lies inside" in seeds.noise("x", per, 1.0, (1.2, 4.0))
    # A value inside the band at these seeds: the row holds there, whatever the noise.
    assert seeds.noise("x", per, 3.5, (1.2, 4.0)).endswith("3.500 as the claim aggregates it, standard error 0.333: "
                                                          "inside the band at 10 seeds.")


def test_the_quick_grid_thins_the_seed_sweeps_of_issue_37s_third_pass_and_settles_nothing_on_them():
    # morris-kung95's fig3 and fig4 and jain96's summary-table and tail-drop sweep seeds 1-10 on the full grid and
    # 1-3 on --quick (each quick run of the golden test paid for the ten); three seeds settle no row (settled.py).
    from atmsim import settled
    from atmsim.reproduce import harness, jain96, morris_kung95

    assert seeds.sweep_seeds(morris_kung95.grid(False)) == seeds.SWEEP_SEEDS == tuple(range(1, 11))
    assert seeds.sweep_seeds(jain96.grid(True)) == seeds.QUICK_SWEEP_SEEDS == (1, 2, 3)
    # fig4's sweep takes seeds 1-40 on the full grid (its pooled median needs them: morris_kung95/noise.py).
    from atmsim.reproduce.morris_kung95.noise import FIG4_SWEEP_SEEDS

    assert FIG4_SWEEP_SEEDS == tuple(range(1, 41))
    for paper, figs in ((morris_kung95.PAPER, ("fig3", "fig4")), (jain96.PAPER, ("summary-table", "tail-drop"))):
        for quick, want in ((True, seeds.QUICK_SWEEP_SEEDS), (False, seeds.SWEEP_SEEDS)):
            p = harness.plan(paper, list(figs), quick)
            for f in figs:
                full = FIG4_SWEEP_SEEDS if (paper.id, f, quick) == ("morris-kung95", "fig4", False) else want
                assert {r.seed for r in p.declared[f][seeds.SWEEP]} == set(full), (paper.id, f, quick)
    note = seeds.noise("x", {1: 3.0, 2: 3.1, 3: 2.9}, 3.0, (2.0, 4.0))
    assert note.startswith("Over 3 seeds (1-3)") and settled.settle("jain96.summary-table.c1", note) == ("none", "")
