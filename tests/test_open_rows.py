"""The rows of aron97 and arb that nothing settles yet name, in their notes, what would settle them (issue 37;
reproduce/aron97/open_rows.py, reproduce/arb/open_rows.py)."""
import json
import re
from pathlib import Path

import pytest

from atmsim.reproduce.arb import open_rows as arb_open
from atmsim.reproduce.aron97 import open_rows as aron97_open
from atmsim.settled import SETTLED

GOLDEN = Path(__file__).resolve().parent / "golden" / "reproduce-all-quick"
PAPERS = {"aron97": aron97_open, "arb": arb_open}


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_open_rows_are_not_listed_as_settled_and_carry_no_typed_number(paper):
    for cid, sentence in PAPERS[paper].WOULD_SETTLE.items():
        assert f"{paper}.{cid}" not in SETTLED, cid
        # the numbers a row rests on are its run's (tests/test_notes.py): the sentence types none
        assert not re.search(r"\d", re.sub(r"\bfig\d+|\bns-2\b", "", sentence)), cid


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_each_open_row_fails_at_none_and_its_note_ends_with_what_would_settle_it(paper):
    rows = {r["id"]: r for r in json.loads((GOLDEN / f"{paper}.claims.json").read_text(encoding="utf-8"))}
    for cid, sentence in PAPERS[paper].WOULD_SETTLE.items():
        r = rows[f"{paper}.{cid}"]
        assert not r["holds"] and r["settled_by"] == "none", cid
        assert f"What would settle it: {sentence}" in r["note"], cid


def test_would_settle_is_empty_for_other_rows():
    assert aron97_open.would_settle("fig3.c1") == "" == aron97_open.would_settle("fig7.c2") and arb_open.would_settle("fig9.c1") == ""
    assert aron97_open.would_settle("fig7.c5").startswith(" What would settle it: ")
