"""Another reading of a paper's setup, measured beside the one its claims use (issue 37: a departure
from the catalogue must be stated in every row whose verdict it changes).

A paper may declare `Reading`s: a name for rows ("N = 256"), what the reading is, and `twin(spec)`,
the run under that reading (None for a run the reading does not touch). The harness adds every twin to
the runs it makes, and after each figure makes the figure's body again, into a scratch folder, with
each run replaced by its twin: the same code, on the other reading's runs. Each row then carries the
verdict and margin it has under every reading (`readings`), and a row whose verdict differs says so in
its note, with the margin the other reading gives. A figure none of whose runs the reading touches is
not made again. If the body cannot be made from the twins, the rows say null for that reading.

A reading that doubles a paper's runs may be left out of `--quick` (`quick=False`: CI's length), and one
whose failing rows are judged against it (settled.py: a row that fails under every faithful reading) says
so in those rows' notes too (`quote_failing`), with its margin.
"""
from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional


@dataclasses.dataclass(frozen=True)
class Reading:
    name: str  # how rows name it, e.g. "N = 256"
    why: str  # what it is, for the note of a row whose verdict it changes
    twin: Callable[[Any], Optional[Any]]  # the run under this reading, None if the reading does not touch it
    quick: bool = True  # also in --quick runs
    quote_failing: bool = False  # a row failing under both readings says so, with this reading's margin


def _twin(reading: Reading, spec):
    t = reading.twin(spec)
    return spec if t is None else t


def twins(reading: Reading, declared):
    """A figure's declared runs with each run replaced by its twin (same shape); None if none changes."""
    if isinstance(declared, dict):
        out = {k: [_twin(reading, s) for s in g] for k, g in declared.items()}
        changed = any(a != b for k in declared for a, b in zip(declared[k], out[k]))
    else:
        out = [_twin(reading, s) for s in declared]
        changed = any(a != b for a, b in zip(declared, out))
    return out if changed else None


def verdicts(make: Callable[[Path, Any], list], declared) -> Optional[dict]:
    """{claim ID: (holds, margin)} of the figure made from `declared` (the twins) into a scratch folder;
    None if the body cannot be made from them."""
    with tempfile.TemporaryDirectory(prefix="atmsim-reading-") as scratch:
        try:
            claims = make(Path(scratch), declared)
        except Exception:  # noqa: BLE001 - a body that cannot be made under the reading: its rows say null
            return None
    return {c.id: (bool(c.holds), c.margin) for c in claims}


def annotate(made: list, reading: Reading, got: Optional[dict]) -> None:
    """Each claim of `made` gets its verdict under `reading`; one whose verdict differs says so in its note."""
    for c in made:
        holds, margin = (got or {}).get(c.id, (None, None))
        c.readings = {**(c.readings or {}), reading.name: {"holds": holds, "margin": margin}}
        m = "" if margin is None else f" (margin {margin:+.3g})"
        if holds is not None and holds != bool(c.holds):
            said = f"this claim {'holds' if holds else 'fails'}{m}"
        elif reading.quote_failing and holds is False and not c.holds:
            said = f"this claim fails too{m}"
        else:
            continue
        c.note = (f"{c.note.rstrip().rstrip('.')}. " if c.note else "") + f"At {reading.name} ({reading.why}) {said}."
