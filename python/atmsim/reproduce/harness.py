"""The reproduction harness: from the runs each figure declares to its
tables, plots and claims.

A paper is a `Paper`: its ID, its figures in order, and its grid (full,
`--quick`, or a test grid given by hidden options). A `Figure` declares the
runs it needs once, as a function of the grid, and a body that turns their
results into csv, png and claims. `plan` asks every selected figure for its
runs (all input errors surface here, before anything is written);
`execute` runs the union of those runs once, in one process pool with the
runner's resumable cache (results do not depend on the number of workers),
checks the accounting identity of every run, and calls each figure's body
with its own runs and their results. A body has no way to start a
simulation: what it did not declare, it does not get.

`atmsim sweep` takes the same road: `product` expands a grid, `run_all`
runs the union through the same runner and cache, `medians` reduces the
seeds of each point.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import atmsim
from atmsim import claims, provenance
from atmsim.errors import InputError
from atmsim.reproduce import readings, seeds
from atmsim.runner import Job, run_jobs


@dataclass(frozen=True)
class Run:
    """One simulation: a built-in scenario name (or TOML file), `--set`
    overrides, seed (None: the scenario's), traces or not. `tag` carries
    what the figure wants to know about the run (series, grid point) and is
    not part of its identity: two figures declaring the same run share it."""

    scenario: str
    overrides: tuple = ()
    seed: Optional[int] = None
    trace: bool = False
    tag: Any = field(default=None, compare=False)

    def job(self) -> Job:
        return Job(atmsim.load_scenario(self.scenario), tuple(self.overrides), self.seed, self.trace)


Declared = Union[list, dict]  # a figure's runs: a list of specs, or named groups of them
Pairs = Union[list, dict]  # the same shape with (spec, result) pairs


def _no_runs(grid) -> list:
    return []


@dataclass(frozen=True)
class Figure:
    """One figure ID of `--figure`: `runs(grid)` declares its simulations
    (any hashable specs with a `job()` method, as a list or a dict of named
    lists); `make(ctx, pairs)` gets them back as (spec, result) pairs in the
    same shape, a result being the summary dict, or (summary, traces) for a
    traced run."""

    id: str
    make: Callable
    runs: Callable = _no_runs


def figure(id: str, runs: Callable = _no_runs):
    """Decorator: the function below is the body of figure `id`, whose runs `runs(grid)` declares."""
    return lambda make: Figure(id, make, runs)


@dataclass(frozen=True)
class Paper:
    """A reproduced paper: ID (its claims are `ID.FIGURE.cN`), figures in the
    order `reproduce ID` runs them, `grid(quick, **test)` building the grid,
    and the names of the test-grid options `grid` accepts."""

    id: str
    figures: tuple
    grid: Callable
    test_options: tuple = ()
    readings: tuple = ()  # other readings of the setup, each verdict given under them too (readings.py)

    def figure_ids(self) -> list[str]:
        return [f.id for f in self.figures]

    def figure(self, id: str) -> Figure:
        for f in self.figures:
            if f.id == id:
                return f
        raise InputError(f"--figure: paper {self.id} has no figure '{id}' (implemented: {', '.join(self.figure_ids())})")


class Ctx:
    """What a figure body sees: the grid, the output directory, the figure it
    makes and the claims so far. `execute` hands each body the run's context
    bound to the body's figure (`at`), so a claim names only its own ID."""

    def __init__(self, paper: str, grid, out: Path, figure: Optional[str] = None, rows: Optional[list] = None):
        self.paper = paper
        self.grid = grid
        self.quick = getattr(grid, "quick", False)
        self.out = Path(out)
        self.figure = figure
        self.claims: list[claims.Claim] = [] if rows is None else rows

    def at(self, figure: str) -> "Ctx":
        """This context bound to `figure`: its claims are PAPER.figure.cN, and they join this one's."""
        return Ctx(self.paper, self.grid, self.out, figure, self.claims)

    def claim(self, cid, *, statement, kind, paper_value, ours, holds, rule, note="", deviation="", one_run=False):
        """Claim `cid` of the bound figure, its parts named (keywords only). `holds`: a bool, or a
        `claims.Verdict` (from `claims.check`), which also renders its tests into the rule and gives
        the margin. `deviation`: the mechanism behind a failing claim, written as the row's note only
        when the claim does not hold. `one_run`: the claim's values rest on runs the figure makes at one
        seed only (though its other runs sample several), so its row counts one seed."""
        if self.figure is None:
            raise TypeError("Ctx.claim: the context is bound to no figure (Ctx.at(FIGURE))")
        ok = holds.holds if isinstance(holds, claims.Verdict) else holds
        if deviation and not ok:
            note = f"{note} {deviation}".strip()
        self.claims.append(claims.make(self.paper, self.figure, cid, statement, kind, paper_value, ours, holds, rule, note))
        if one_run:
            self.claims[-1].seeds = 1

    def write(self, name: str, points, runs=None) -> None:
        """`<name>.csv` (one row per point) and, if given, `<name>_runs.csv` (one row per run),
        each with a Parquet twin (`atmsim.tables`)."""
        self.table(points, name)
        if runs is not None:
            self.table(runs, f"{name}_runs")

    def table(self, df, name: str) -> None:
        """Any table of the figure: `<name>.csv` and its Parquet twin."""
        from atmsim import tables

        tables.write(df, self.out / name)


def _specs(declared: Declared) -> list:
    return [s for group in declared.values() for s in group] if isinstance(declared, dict) else list(declared)


def _bind(declared: Declared, results: dict) -> Pairs:
    if isinstance(declared, dict):
        return {k: [(s, results[s]) for s in group] for k, group in declared.items()}
    return [(s, results[s]) for s in declared]


@dataclass
class Plan:
    """The selected figures of one paper and the runs each declared."""

    paper: Paper
    grid: Any
    figures: list
    declared: dict = field(default_factory=dict)  # figure ID -> its declared runs
    twins: dict = field(default_factory=dict)  # figure ID -> {reading name: its runs under the reading}

    def union(self) -> list:
        """Every run of the selected figures once, in order of first declaration; then their twins."""
        groups = [self.declared[f] for f in self.figures] + [t for f in self.figures for t in self.twins.get(f, {}).values()]
        return list(dict.fromkeys(s for d in groups for s in _specs(d)))


def plan(paper: Paper, figures: Optional[Sequence[str]] = None, quick: bool = False, **test) -> Plan:
    """Checks the figure IDs and test-grid options, builds the grid and asks
    each figure for its runs (once). Raises InputError or ScenarioError."""
    figures = list(figures) if figures else paper.figure_ids()
    for f in figures:
        paper.figure(f)
    extra = [k for k, v in test.items() if v is not None and k not in paper.test_options]
    if extra:
        raise InputError(f"--{extra[0]}: not supported for paper {paper.id}")
    grid = paper.grid(quick, **{k: v for k, v in test.items() if v is not None})
    declared = {f: paper.figure(f).runs(grid) for f in figures}
    quick_grid = getattr(grid, "quick", False)
    twins = {f: {r.name: t for r in paper.readings if (r.quick or not quick_grid)
                 and (t := readings.twins(r, declared[f])) is not None} for f in figures}
    return Plan(paper, grid, figures, declared, twins)


def run_all(specs: Sequence, workers=None, cache_dir=None, progress=None, label="simulating", scheduler=None,
            keep_going=False, spill_dir=None) -> dict:
    """Runs each distinct spec once (runner.run_jobs: worker pool or Dask cluster, run cache); returns {spec: result}
    (with keep_going, a failed run's result is a runner.RunFailed; with spill_dir, traces are kept there)."""
    union = list(dict.fromkeys(specs))
    return dict(zip(union, run_jobs([s.job() for s in union], workers=workers, progress=progress,
                                    cache_dir=cache_dir, label=label, scheduler=scheduler, keep_going=keep_going,
                                    spill_dir=spill_dir)))


def per_run(fn: Callable) -> Callable:
    """`fn(spec, result)`, a figure's reading of one run's traces into a few numbers, kept by the run's
    identity (`Run`, its tag left out): a run's outputs are its spec's alone, so the figure made again
    without a seed (`seeds.leave_one_out`) or under another reading reuses the numbers rather than
    reading the same traces again (jain96's tail-drop read 196 port logs for 52 runs). Only the numbers
    are kept, never the traces; at most `KEPT` runs, the oldest let go first."""
    kept: dict = {}

    def read(spec, result):
        if spec not in kept:
            if len(kept) >= per_run.KEPT:
                kept.pop(next(iter(kept)))
            kept[spec] = fn(spec, result)
        return kept[spec]
    read.__doc__ = fn.__doc__
    return read


per_run.KEPT = 4096


def summary_of(result) -> dict:
    """The summary of a result: untraced runs are the summary, traced ones (summary, traces)."""
    return result[0] if isinstance(result, tuple) else result


def execute(p: Plan, out: Path, workers=None, cache_dir=None, progress=None, scheduler=None) -> list[dict]:
    """Runs the union of the plan's runs, then each figure into `out`; merges
    their claims into out/claims.json and returns all its rows."""
    import tempfile

    union = p.union()
    ctx = Ctx(p.paper.id, p.grid, out)
    # Traced runs' columns wait on disk until their figure reads them (a paper traces dozens of runs, some
    # with a port log of a million rows): the traces in memory are those of the figure being made.
    with tempfile.TemporaryDirectory(prefix="atmsim-traces-") as spill:
        results = run_all(union, workers, cache_dir, progress, label=f"{p.paper.id}: {len(union)} runs",
                          scheduler=scheduler, spill_dir=spill)
        unbalanced = [s for s, r in results.items() if not summary_of(r)["accounting"]["balanced"]]
        if unbalanced:
            raise RuntimeError(f"accounting identity violated in {len(unbalanced)} runs, e.g. {unbalanced[0]}")
        for f in p.figures:
            made = len(ctx.claims)
            p.paper.figure(f).make(ctx.at(f), _bind(p.declared[f], results))
            _seed_robustness(p, p.paper.figure(f), results, ctx.claims[made:])
            _other_readings(p, p.paper.figure(f), results, ctx.claims[made:])
    provenance.record(ctx.out, p.paper.id, ctx.quick, {f: _specs(p.declared[f]) for f in p.figures})
    return claims.merge_write(ctx.out / "claims.json", ctx.claims)


def _seed_robustness(p: Plan, fig: Figure, results: dict, made: list) -> None:
    """Each claim of `fig` gets its seed count and whether its verdict survives leaving out any one seed
    (seeds.py): the body made again on the other seeds' results, into a scratch folder."""
    remake = _remake(p, fig, results)
    # A group whose seeds give identical runs is one run (seeds.collapse): its copies are no sample.
    declared = seeds.collapse(p.declared[fig.id], results)
    specs = _specs(seeds.counted(declared))  # a run of no seed (None) runs at its scenario's own: one seed
    n_seeds = len({getattr(s, "seed", None) for s in specs}) if specs else None
    n_sampled, verdicts = seeds.leave_one_out(remake, declared)
    for c in made:
        if c.seeds is not None and c.seeds < 2:  # the claim rests on runs at one seed (Ctx.claim's seeds)
            continue
        c.seeds = n_seeds
        c.survives_leaving_out_one_seed = seeds.survives(c.holds, verdicts.get(c.id), n_sampled)


def _remake(p: Plan, fig: Figure, results: dict) -> Callable:
    """`remake(out, declared)`: the claims of `fig` made again from other runs into the folder `out` (its tables
    written, its plots not drawn: only the claims are kept)."""
    from atmsim import plotting

    def remake(out: Path, declared) -> list:
        scratch = Ctx(p.paper.id, p.grid, out, fig.id)
        with plotting.undrawn():
            fig.make(scratch, _bind(declared, results))
        return scratch.claims
    return remake


def _other_readings(p: Plan, fig: Figure, results: dict, made: list) -> None:
    """Each claim of `fig` gets its verdict under each of the paper's other readings (readings.py)."""
    for r in p.paper.readings:
        twins = p.twins.get(fig.id, {}).get(r.name)
        if twins is not None:
            readings.annotate(made, r, readings.verdicts(_remake(p, fig, results), twins))


def reproduce(paper: Paper, figures=None, quick=False, out: Path = Path("out"), workers=None, cache_dir=None,
              progress=None, **test) -> list[dict]:
    """plan + execute."""
    return execute(plan(paper, figures, quick, **test), out, workers, cache_dir, progress)


# --------------------------------------------------------------------------- grids and medians

def product(axes: dict) -> list[dict]:
    """Every combination of the axes' values ({name: [values]}), the first axis varying slowest."""
    keys = list(axes)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(axes[k] for k in keys))]


def medians(df, by: Sequence[str]):
    """Per point (the columns `by`), the median over seeds of every numeric
    column; booleans and `seed` are left out. The papers' aggregation: a
    point's value is the median over its seeds."""
    by = list(by)
    num = df.select_dtypes("number").drop(columns=["seed"], errors="ignore")
    keep = [c for c in num.columns if c not in by]
    if not by:
        return df[keep].median().to_frame().T
    return df[by + keep].groupby(by, sort=False).median().reset_index()
