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

# The ATM network has no twin in ns-2 (no cells), nor have AFR and Vegas-RM alone (docs/validation.md).
_CELLS = "a cell-level simulator independent of ours (ns-2 has no cells)"

WOULD_SETTLE = {
    "fig3.c9": "fig3's ATM curve under a stated order of simultaneous cell arrivals at the bottleneck switch, which the "
               "paper leaves open: the independent cell-level simulator validation/cellsim fails this row at ten seeds "
               "under each of its readings, and at five seeds holds it under a random order (docs/validation.md). It "
               "is not seed noise at ten seeds (docs/reproductions.md).",
    "fig6.c2": f"Vegas-AFR over ATM from {_CELLS}, and over the packet network from a packet simulator with AFR; "
               "ns-2 runs only the packet side, as Vegas (docs/validation.md).",
    "fig7.c2": f"Lite, Vegas-RM and Vegas-AFR over ATM from {_CELLS}.",
    "fig7.c5": f"Vegas-RM-AFR over ATM from {_CELLS}; ns-2 runs only the packet baseline (docs/validation.md).",
    "fig8.c4": "Vegas-RM alone (Vegas with Vegas-SS and Vegas-CA disabled) in an independent packet simulator; "
               "ns-2's Vegas cannot disable them.",
    "fig12.c2": f"Lite-AFR over ATM at the fine tick from {_CELLS}; ns-2 runs only the packet baseline "
                "(docs/validation.md). The verdict also rests on the baseline's tick, which the paper does not state "
                "and which only an amendment of the catalogue may change.",
    "fig12.c4": "Vegas-AFR at both ticks in an independent simulator (ns-2 has no AFR; its Vegas changes with the "
                "tick too, docs/validation.md).",
}


would_settle = functools.partial(sentence, WOULD_SETTLE)
