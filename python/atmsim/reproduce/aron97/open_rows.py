"""What would settle each aron97 row that nothing settles yet (issue 37: a row left at `settled_by = "none"`
names, in its note, the experiment that would settle it).

Each sentence is appended to the row's note only when the row fails, as its deviation is; settled.py lists none
of these rows (tests/test_open_rows.py checks both lists stay apart). Why each one needs what it names:
docs/reproductions.md ("Measured and not settled") and docs/validation.md ("Evidence for issue 37"). The
sentences carry no number: the numbers they rest on are the runs', in the rest of the note or in the docs.
"""
from __future__ import annotations

import functools

from atmsim.reproduce.open_rows import sentence

# The ATM network has no twin in ns-2 (no cells), nor have AFR and Vegas-RM alone; validation/cellsim, a cell-level
# simulator written without our code, runs them on topology 1 (docs/validation.md).
_CELLSIM = "the independent cell-level simulator validation/cellsim"

WOULD_SETTLE = {
    "fig6.c2": f"the order of simultaneous cell arrivals at the bottleneck switch and the reading of Vegas-RM's worried "
               f"check stated, which the paper leaves open, and topology two in an independent simulator: {_CELLSIM} "
               "holds this row on topology one under its scenario's reading and fails it under random ties and under "
               "ns-2's worried check (docs/validation.md).",
    "fig7.c2": f"the order of simultaneous cell arrivals at the bottleneck switch and the reading of Vegas-RM's worried "
               f"check stated, which the paper leaves open: {_CELLSIM} holds this row under its scenario's reading and "
               "fails it under random ties and under ns-2's worried check (docs/validation.md).",
    "fig7.c5": f"the order of simultaneous cell arrivals at the bottleneck switch stated, which the paper leaves open: "
               f"{_CELLSIM} holds this row under its scenario's reading and fails it under random ties "
               "(docs/validation.md).",
    "fig8.c4": f"the reading of Vegas-RM's worried check stated, which the paper leaves open: {_CELLSIM} holds this row "
               "under three of its readings and fails it under ns-2's worried check (docs/validation.md).",
    "fig12.c2": f"the order of simultaneous cell arrivals at the bottleneck switch stated, which the paper leaves open: "
                f"{_CELLSIM} holds this row under its scenario's reading and fails it under random ties "
                "(docs/validation.md). The verdict also rests on the baseline's tick, which the paper does not state "
                "and which only an amendment of the catalogue may change.",
    "fig12.c4": f"the order of simultaneous cell arrivals at the bottleneck switch and the reading of Vegas-RM's worried "
                f"check stated, which the paper leaves open: {_CELLSIM} holds this row under its scenario's reading "
                "and fails it under random ties and under ns-2's worried check (docs/validation.md).",
}


would_settle = functools.partial(sentence, WOULD_SETTLE)
