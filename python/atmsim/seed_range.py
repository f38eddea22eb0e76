"""The one range of a run's seed, on every path into a run (issue 38: the command line's `--seed` took
up to 2^64 - 1 while `--set seed=` and a scenario file took up to 2^63 - 1): 0 to 2^63 - 1. A scenario
file's `seed` is a TOML integer, signed 64-bit (TOML 1.0, "Integer"), so no larger seed could be written
into the scenario that reproduces a run; the core refuses one given to a run too
(`resolve/mod.rs`, `MAX_SEED`).

Standard library only, so that a script run by another interpreter can load this file by its path."""
from __future__ import annotations

import argparse

SEED_MAX = 2**63 - 1
#: What a seed may be, in the words every refusal uses.
RANGE = f"a whole number from 0 to {SEED_MAX}"
#: Most seeds one range ("1-N") may expand to: a sweep's cap on runs (`sweep.MAX_RUNS`).
MAX_SEEDS = 100_000


def seed(value, name: str = "seed", text: bool = False) -> int:
    """`value` (an int, or with `text` its digits) as a seed; ValueError naming `name` and the range if it is
    none (a Python caller's "7" is refused, as the core would)."""
    n = value
    if text and isinstance(value, str):
        try:
            n = int(value.strip())
        except ValueError:
            n = None
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= SEED_MAX:
        raise ValueError(f"{name}: must be {RANGE}, not {value!r}")
    return n


def seeds(text: str, name: str = "--seeds", ranges: bool = False) -> list[int]:
    """Comma-separated seeds (with `ranges`, also "LO-HI", both ends included), each checked as `seed`."""
    out: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-") if ranges else (part, "", "")
        if not part.strip():
            raise ValueError(f"{name}: an empty seed in {text!r}: give comma-separated seeds, each {RANGE}")
        if not dash:
            out.append(seed(part.strip(), name, text=True))
            continue
        a, b = seed(lo or part.strip(), name, text=True), seed(hi, name, text=True)
        if b < a or b - a >= MAX_SEEDS:
            raise ValueError(f"{name}: the range {part.strip()!r} must go up and hold at most {MAX_SEEDS:,} seeds")
        out += range(a, b + 1)
        if len(out) > MAX_SEEDS:
            raise ValueError(f"{name}: more than {MAX_SEEDS:,} seeds")
    return out


def _argparse_type(parse):
    """`parse` as an argparse `type`: its ValueError becomes argparse's one line, naming the option (the
    message less its own "name: " prefix, which argparse supplies)."""

    def typ(text: str):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e).split(": ", 1)[1]) from None

    return typ


def argparse_seeds(ranges: bool = False):
    """An argparse `type` for a `--seeds` option."""
    return _argparse_type(lambda text: seeds(text, "seeds", ranges))


#: An argparse `type` for one seed.
argparse_seed = _argparse_type(lambda text: seed(text, "seed", text=True))


def argparse_seed_count(text: str) -> int:
    """An argparse `type` for a count N of seeds, the seeds 1 to N: a range of seeds as `seeds` bounds one."""
    try:
        n = seed(text, "seeds", text=True)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_SEEDS:
        raise argparse.ArgumentTypeError(f"must be a count of seeds from 1 to {MAX_SEEDS} (the seeds 1 to N, each {RANGE}), "
                                         f"not {text!r}")
    return n
