"""What would settle each arb row that nothing settles yet (issue 37: a row left at `settled_by = "none"` names,
in its note, the experiment that would settle it).

Appended to the row's note only when the row fails; settled.py lists none of these rows (tests/test_open_rows.py
checks both lists stay apart). Why: docs/arb.md (§2 and the bullets on Figs. 10, 11, 15 and 16). The ARB runs
have no seed to sweep (the seed reaches nothing ARB reads), so seeds cannot settle them; the sentences carry no
number.
"""
from __future__ import annotations

import functools

from atmsim.reproduce.open_rows import sentence

# M's sweep, in the note, settles the row only if no M fits (a test checks no such row is settled by sweep).
_M = ("M as [CHG] ran it (the authors' code or a statement), or one M fixed for every ARB figure by a rule written "
      "before results, with every ARB claim judged at it.")

WOULD_SETTLE = {
    "fig10.c2": _M,
    "fig11.c3": _M,
    "fig15.c1": "M and the handling of overlapping requests as [CHG] ran them (the authors' code), or ARB on fig15's "
                "dumbbell in an independent simulator.",
    # the note's sweep of M x Rinc settles it only if no pair fits
    "fig16-arb.c1": "M and Rinc as [CHG] would run ARB on this topology (the authors' code or a statement), or their ARB "
                    "on it: [CHG] argue the row and did not simulate it.",
}


would_settle = functools.partial(sentence, WOULD_SETTLE)
