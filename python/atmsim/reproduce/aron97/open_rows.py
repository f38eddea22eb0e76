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

# With the ties at the bottleneck broken alike in both simulators (atmsim's static access offsets handed to cellsim),
# these three rows hold in both under every reading: their failure is the shipped scenario's exact tie order.
_TIES = (f"with the ties there broken alike in both simulators (static access offsets), atmsim and {_CELLSIM} both "
         "hold this row under every reading, so its failure is the shipped scenario's order of exact ties "
         "(docs/validation.md)")

WOULD_SETTLE = {
    "fig6.c2": f"the order of simultaneous cell arrivals at the bottleneck switch stated, which the paper leaves open: "
               f"on topology one {_TIES}; on topology two both hold it too under the scenario's reading and with an "
               "arrival judged first, and cellsim fails it there only under ns-2's reading of Vegas-RM's worried check.",
    "fig7.c5": f"the order of simultaneous cell arrivals at the bottleneck switch stated, which the paper leaves open: "
               f"{_TIES}.",
    "fig12.c2": f"the order of simultaneous cell arrivals at the bottleneck switch stated, which the paper leaves open: "
                f"{_TIES}. The verdict also rests on the baseline's tick, which the paper does not state and which "
                "only an amendment of the catalogue may change.",
}


would_settle = functools.partial(sentence, WOULD_SETTLE)
