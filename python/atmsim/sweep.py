"""Sweeps: a grid over any scenario keys x seeds, as tables: one row per
run, one row per flow of each run, medians per point.

A sweep takes the reproduction harness's road from a grid to medians
(reproduce/harness.py): `product` expands the grid, `run_all` runs each
distinct run once over worker processes (results identical for any worker
count, resumable cache), `medians` reduces each point's seeds.
"""
from __future__ import annotations

import math

from typing import Optional, Sequence

import pandas as pd

import atmsim
from atmsim.reproduce.harness import Run, medians, product, run_all
from atmsim.runner import RunFailed

__all__ = ["LOSS_COLUMNS", "RUN_COLUMNS", "loss_columns", "medians", "parse_vary", "plan", "points", "run"]

RUN_COLUMNS = ["effective_throughput", "effective_throughput_common", "fairness", "cell_loss_ratio", "dead_cell_share"]

#: The runs table's names for the loss ratio and the units dropped, by the networks a sweep ran: the summary's
#: keys (a contract: docs/metrics.md) say cells, which a packet network's are not.
LOSS_COLUMNS = {
    frozenset({"atm"}): ("cell_loss_ratio", "cells_dropped"),
    frozenset({"packet"}): ("packet_loss_ratio", "packets_dropped"),
    frozenset({"atm", "packet"}): ("loss_ratio", "units_dropped"),  # each row in its network's unit
}


def loss_columns(networks) -> tuple[str, str]:
    """(loss ratio, units dropped): the runs table's names for a sweep over `networks` ("atm", "packet")."""
    return LOSS_COLUMNS.get(frozenset(networks), LOSS_COLUMNS[frozenset({"atm"})])


#: Most runs (grid points x seeds) one sweep may have: the runs are expanded in memory before the first one
#: starts, so the cap counts the seeds too (1,000 points x 20,000 seeds once ended in a MemoryError).
MAX_RUNS = 100_000


def parse_vary(items: Sequence[str]) -> dict[str, list[str]]:
    """`key=v1,v2,...` strings into {key: [values]}; ValueError('key: problem') if malformed."""
    grid: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key or not vals:
            raise ValueError(f"--vary: '{item}' is not key=value1,value2,...")
        if key in grid:
            raise ValueError(f"--vary: key '{key}' given twice")
        if key == "seed":  # the tables' seed column is the sweep's own axis
            raise ValueError(f"--vary: seed: give the seeds with --seeds {','.join(vals)} (each point runs once per seed)")
        grid[key] = vals
    check_size(grid, [None])
    return grid


def check_size(grid: dict[str, list[str]], seeds: Sequence[Optional[int]]) -> None:
    """ValueError (one line) if the sweep has more than MAX_RUNS runs: grid points x seeds. Every way
    into a sweep (the CLI before its output folder, `plan` and `run` for the Python API) checks it
    before a run is expanded."""
    size = math.prod(len(v) for v in grid.values())
    if size > MAX_RUNS:
        raise ValueError(f"--vary: the grid has {size:,} points, more than {MAX_RUNS:,} "
                         "(split the sweep, or vary fewer values)")
    runs = size * len(seeds)
    if runs > MAX_RUNS:
        raise ValueError(f"--seeds: {size:,} points x {len(seeds):,} seeds = {runs:,} runs, more than {MAX_RUNS:,} "
                         "(split the sweep, or give fewer seeds or values)")


def points(grid: dict[str, list[str]]) -> list[dict[str, str]]:
    """Every combination of the grid's values, in the order given."""
    return product(grid)


def plan(scenario: str, grid: dict[str, list[str]], fixed: Sequence[str],
         seeds: Sequence[Optional[int]]) -> tuple[list[Run], list[dict]]:
    """One Run per valid grid point and seed, tagged with its point, and the
    failures: one row per invalid point (its key values and the one-line
    reason). If no point is valid, the first point's ScenarioError is raised:
    a mistyped key or a bad fixed override fails before anything runs; so
    does a sweep of more than MAX_RUNS runs (ValueError)."""
    check_size(grid, seeds)
    text = atmsim.load_scenario(scenario)
    out, failures, first = [], [], None
    for p in points(grid):
        overrides = tuple(fixed) + tuple(f"{k}={v}" for k, v in p.items())
        try:
            atmsim._core.resolve(text, list(overrides))
        except atmsim.ScenarioError as e:
            first = first or e
            failures.append({**p, "seed": None, "reason": str(e)})
            continue
        out += [Run(scenario, overrides, seed, tag=p) for seed in seeds]
    if not out and first is not None:
        raise first
    return out, failures


def run(scenario: str, grid: dict[str, list[str]], fixed: Sequence[str] = (), seeds: Sequence[Optional[int]] = (None,),
        workers: Optional[int] = None, cache_dir=None, progress=None,
        scheduler=None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Runs the sweep; returns (runs, flows, failures) tables. A point that is
    invalid, or a run that fails, is a row of `failures` (key values, seed,
    one-line reason); every other run finishes and is kept."""
    rs, failures = plan(scenario, grid, fixed, seeds)
    results = run_all(rs, workers=workers, cache_dir=cache_dir, progress=progress, label=f"sweep: {len(rs)} runs",
                      scheduler=scheduler, keep_going=True)
    runs, flows = [], []
    for r in rs:
        s = results[r]
        if isinstance(s, RunFailed):
            failures.append({**r.tag, "seed": r.seed, "reason": s.reason})
            continue
        point, seed = r.tag, s["seed"]
        acc = s["accounting"]
        runs.append({**point, "seed": seed, **{c: s[c] for c in RUN_COLUMNS},
                     "bytes_delivered": acc["bytes_delivered"], "cells_dropped": acc["cells_dropped"],
                     "timeouts": sum(f["timeouts"] for f in s["flows"]), "balanced": acc["balanced"],
                     "_network": s["network"]})
        for f in s["flows"]:
            flows.append({**point, "seed": seed, **{k: v for k, v in f.items() if not isinstance(v, (list, dict))}})
    return _in_units(pd.DataFrame(runs)), pd.DataFrame(flows), pd.DataFrame(failures, columns=[*grid, "seed", "reason"])


def _in_units(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs table with its loss columns named in the sweep's units (`loss_columns`)."""
    if runs.empty:
        return runs
    ratio, dropped = loss_columns(set(runs.pop("_network")))
    return runs.rename(columns={"cell_loss_ratio": ratio, "cells_dropped": dropped})
