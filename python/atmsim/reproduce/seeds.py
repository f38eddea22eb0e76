"""How much a verdict rests on one seed (issue 37, item 4): every claims.json row states how many
seeds its figure's runs have (`seeds`) and whether its verdict survives leaving out any one of them
(`survives_leaving_out_one_seed`).

The rule is the same for every paper and every row: each seed of the figure is left out in turn and
the figure's body is made again, into a scratch folder, from the results of the other seeds' runs (no
new simulation: the results are the ones the reproduction already has). A verdict survives if every
such remake gives it again. A group of runs at one seed only (a traced probe at seed 1, a fixed
trace run) is kept as it is: it is no sample over seeds, and the body needs it. With one seed there
is nothing to leave out, and a body that cannot be made without a seed tells nothing either: the row
then says null. A group named `SWEEP` is a seed sweep on which a failing row's note measures seed noise
(settled.py's `seeds`): it is not the figure's sample, so it is neither counted nor left out.
"""
from __future__ import annotations

import dataclasses
import math
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np


#: The name of a declared group of runs at many seeds that a note measures seed noise on (settled.py's
#: `seeds`, at least 10 seeds); the figure's values do not rest on it, so its seeds are not the row's.
SWEEP = "seed-sweep"
SWEEP_SEEDS = tuple(range(1, 11))  # a seed sweep's seeds: the fewest the amendment of 2026-11-29 asks of a comparison in doubt
#: A seed sweep's seeds on `--quick`: enough to go through every step of the notes (per-seed values, a standard
#: error), too few to settle anything (settled.py asks 10); the sweeps of issue 37's third pass took morris-kung95's
#: quick run from 113 runs to 555, which the golden test of `reproduce all --quick` pays on every CI run.
QUICK_SWEEP_SEEDS = SWEEP_SEEDS[:3]


def sweep_seeds(grid) -> tuple:
    """The seeds of a figure's seed sweep on `grid`: SWEEP_SEEDS, or QUICK_SWEEP_SEEDS on the quick grid."""
    return QUICK_SWEEP_SEEDS if getattr(grid, "quick", False) else SWEEP_SEEDS


def counted(declared):
    """The declared runs whose seeds are the figure's: all but the seed sweep."""
    return {k: g for k, g in declared.items() if k != SWEEP} if isinstance(declared, dict) else declared


def _seed(spec) -> Optional[int]:
    return getattr(spec, "seed", None)


def _sampled(group: list) -> bool:
    """Whether a list of runs samples several seeds (only those lose a seed when one is left out)."""
    return len({_seed(s) for s in group} - {None}) > 1


def seeds_of(declared) -> list:
    """The seeds sampled by a figure's declared runs (a list of specs or a dict of named lists)."""
    declared = counted(declared)
    groups = declared.values() if isinstance(declared, dict) else [declared]
    return sorted({_seed(s) for g in groups if _sampled(list(g)) for s in g} - {None})


def without(declared, seed):
    """The declared runs with the runs of `seed` left out of every group that samples several seeds (the
    seed sweep kept whole)."""
    def drop(group):
        group = list(group)
        return [s for s in group if _seed(s) != seed] if _sampled(group) else group

    return {k: g if k == SWEEP else drop(g) for k, g in declared.items()} if isinstance(declared, dict) else drop(declared)


def _point(spec):
    """A run's grid point: the run with its seed taken away (None: a spec that cannot say, its own point)."""
    try:
        return dataclasses.replace(spec, seed=None)
    except (TypeError, ValueError):
        return spec


def _outcome(result) -> object:
    """What a run gave, seed and wall time aside: its summary (a traced run's summary counts every event
    its traces record)."""
    summary = result[0] if isinstance(result, tuple) else result
    if not isinstance(summary, dict):
        return summary
    return {k: v for k, v in summary.items() if k not in ("seed", "wall_s")}


def identical(group: list, results: dict) -> bool:
    """Whether a group sampling several seeds gives, at each of its grid points run at several seeds, the
    same outcome at every seed: then its seeds sample nothing. A group none of whose points runs at two
    seeds (the seed also chose the overrides, as boston97's start times) has nothing to compare: not
    identical."""
    if not _sampled(group):
        return False
    by_point: dict = {}  # point -> {seed: outcome}; a run declared twice (boston97's 8 and 16 kB at 9180 B) is one
    for s in group:
        by_point.setdefault(_point(s), {})[_seed(s)] = _outcome(results[s])
    repeated = [list(outs.values()) for outs in by_point.values() if len(outs) > 1]
    return bool(repeated) and all(all(o == outs[0] for o in outs[1:]) for outs in repeated)


def collapse(declared, results: dict):
    """The declared runs with each group whose seeds change nothing (`identical`) cut to its first seed's
    runs: a group at one seed, which leaving out a seed keeps whole and which counts one seed."""
    def one(group):
        group = list(group)
        if not identical(group, results):
            return group
        first = min(_seed(s) for s in group if _seed(s) is not None)
        return [s for s in group if _seed(s) in (first, None)]

    return {k: g if k == SWEEP else one(g) for k, g in declared.items()} if isinstance(declared, dict) else one(declared)


def leave_one_out(make: Callable[[Path, Any], list], declared) -> tuple[int, dict[str, Optional[list]]]:
    """(the number of seeds, {claim ID: its verdict with each seed left out}). `make(out, declared)`
    makes the figure from the given runs into the folder `out` and returns its claims. A claim whose
    figure could not be made without some seed maps to None."""
    seeds = seeds_of(declared)
    verdicts: dict[str, Optional[list]] = {}
    if len(seeds) < 2:
        return len(seeds), verdicts
    failed = False
    with tempfile.TemporaryDirectory(prefix="atmsim-leave-one-out-") as scratch:
        for seed in seeds:
            try:
                claims = make(Path(scratch), without(declared, seed))
            except Exception:  # noqa: BLE001 - a body that needs every seed: the row says null, the run goes on
                failed = True
                continue
            for c in claims:
                verdicts.setdefault(c.id, []).append(bool(c.holds))
    if failed:
        verdicts = {k: None for k in verdicts}
    return len(seeds), verdicts


def survives(holds: bool, verdicts: Optional[list], n_seeds: int) -> Optional[bool]:
    """Whether every remake without one seed gives the verdict again (None: nothing to tell)."""
    if n_seeds < 2 or not verdicts or len(verdicts) != n_seeds:
        return None
    return all(v == bool(holds) for v in verdicts)


def noise(what: str, per_seed: dict, value: float, band: tuple[float, float]) -> str:
    """A failing row's seed noise, for its note (settled.py's `seeds`): `per_seed` {seed: the row's
    quantity in that seed's runs}, `value` the quantity as the claim aggregates it over those seeds, `band`
    (lo, hi) the claim's band on it (ends included). If the value lies in the band, the failure was the
    grid's few seeds; otherwise the effect is the value's distance from the nearer end, and it lies inside the noise if
    smaller than twice the standard error of the per-seed values (the amendment's test for a comparison).
    The text says the seed count, which settled.py requires to be at least 10."""
    xs = [float(x) for x in per_seed.values()]
    n = len(xs)
    se = float(np.std(xs, ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    head = (f"Over {n} seeds ({min(per_seed)}-{max(per_seed)}) {what} is from {min(xs):.3f} to {max(xs):.3f} per seed, "
            f"{value:.3f} as the claim aggregates it, standard error {se:.3f}: ")
    if band[0] <= value <= band[1]:
        return head + f"inside the band at {n} seeds."
    edge = band[0] if value < band[0] else band[1]
    effect = abs(value - edge)
    where = "inside" if effect < 2 * se else "outside"
    return head + f"its distance from {edge:g} ({effect:.3f}) lies {where} twice its standard error ({2 * se:.3f})."


def noise_at(points: dict, band: tuple[float, float], what: str) -> str:
    """`noise` at each failing point of a row: `points` {label: (per-seed values, the aggregated value)}, one
    sentence per point ("At LABEL, WHAT: Over N seeds ..."), so that a row is settled by seeds only if every
    point's effect lies inside its noise (settled.py's patterns require it)."""
    return " ".join(f"At {label}, {what}: " + noise("it", per, value, band) for label, (per, value) in points.items())
