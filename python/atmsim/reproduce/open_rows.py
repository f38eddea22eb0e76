"""A failing row that nothing settles names, at the end of its note, the experiment that would settle it (issue 37).

Each paper that lists such rows keeps a table {figure.claim: sentence} (reproduce/aron97/open_rows.py,
reproduce/arb/open_rows.py); the sentences carry no number, since a note's numbers are its run's
(tests/test_notes.py), and tests/test_open_rows.py checks settled.py lists none of the rows."""
from __future__ import annotations

PREFIX = " What would settle it: "


def sentence(table: dict, cid: str) -> str:
    """' What would settle it: ...' for a row of `table` (its figure.claim ID), else ''."""
    s = table.get(cid)
    return f"{PREFIX}{s}" if s else ""
