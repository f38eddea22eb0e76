"""What would settle each arb row that nothing settles yet (issue 37: a row left at `settled_by = "none"` names,
in its note, the experiment that would settle it).

Appended to the row's note only when the row fails; settled.py lists none of these rows (tests/test_open_rows.py
checks both lists stay apart). Why: docs/arb.md (§3 and the bullets on Figs. 10 and 11). The ARB runs
have no seed to sweep (the seed reaches nothing ARB reads), so seeds cannot settle them; the sentences carry no
number.
"""
from __future__ import annotations

import functools

from atmsim.reproduce.open_rows import sentence

# M by the catalogue's rule (docs/arb.md §3) is judged under both readings of its round trip (common.RTT_WITH_QUEUE): a
# row that fails under one and holds under the other is not settled by the sweep of faithful readings.
_M = ("M as [CHG] ran it (the authors' code or a statement): the row fails at the catalogue's rule for M with the round "
      "trip counted without queueing and holds with the queue at which the receivers cut counted in it, so no sweep of "
      "the faithful readings settles it.")

WOULD_SETTLE = {
    "fig10.c2": _M,
    "fig11.c3": _M,
}


would_settle = functools.partial(sentence, WOULD_SETTLE)
