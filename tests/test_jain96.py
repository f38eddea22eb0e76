"""jain96 (Jain et al. 1996, TCP/IP over ABR) on a short grid: every claim
row, the hard and analytic claims, the ABR summary and its bad-input errors."""
import json

import pandas as pd

from atmsim.reproduce import harness
from atmsim.reproduce import jain96

CLAIMS = {"infinite-buffers": 5, "finite-buffers": 6, "summary-table": 9, "tbe-sweep": 2, "tail-drop": 4, "fast-retransmit": 3}


def test_every_claim_has_a_row(tmp_path):
    rows = {r["id"]: r for r in harness.reproduce(jain96.PAPER, None, quick=True, out=tmp_path, workers=2, duration="1s")}
    want = {f"jain96.{f}.c{k}" for f, n in CLAIMS.items() for k in range(1, n + 1)}
    assert set(rows) == want and len(want) == 29
    # Every claim is written as bands: a margin, and its tests in the rule.
    assert all(r["margin"] is not None for r in rows.values()), [i for i, r in rows.items() if r["margin"] is None]
    # The slides' own arithmetic, whatever the grid.
    for cid in ["infinite-buffers.c1", "finite-buffers.c6", "summary-table.c9"]:
        assert rows[f"jain96.{cid}"]["holds"], rows[f"jain96.{cid}"]
    assert rows["jain96.summary-table.c9"]["ours"]["buffer_is_tbe_n_1_2_4"][-1] is False, "5720 is not TBE x n x {1, 2, 4}"
    # Intelligent tail drop never drops an EOM cell below the limit: a hard property of every run.
    assert rows["jain96.tail-drop.c2"]["holds"], rows["jain96.tail-drop.c2"]
    assert set(rows["jain96.fast-retransmit.c1"]["ours"]) == {"total_without_frr", "total_with_frr"}
    table = pd.read_csv(tmp_path / "summary-table.csv")
    assert len(table) == 9 and set(table.n) == {2, 5}
    for png in ["infinite-buffers.png", "finite-buffers.png", "summary-table.png", "tbe-sweep.png", "tail-drop.png"]:
        assert (tmp_path / png).stat().st_size > 0


def test_slide_product_and_our_maximum():
    assert round(jain96.slide_product(155), 2) == 99.29
    assert round(jain96.slide_product(155.52), 2) == 99.63
    assert round(jain96.slide_product(155.52, rm=False), 2) == 102.84
    assert round(jain96.own_maximum(), 1) == 109.2


def test_abr_run_reports_its_erica_and_rm_cells(cli):
    r = cli("run", "jain96-2src", "--set", "duration=0.2s", "--json", check=True)
    s = json.loads(r.stdout)
    assert s["abr"]["erica_variant"] == "full" and s["abr"]["rm_cells_sent"] > 0
    assert s["accounting"]["balanced"]


def test_bad_abr_input_is_one_line_and_exit_2(cli):
    r = cli("run", "jain96-2src", "--set", "abr.nrm=1")
    assert r.returncode == 2 and "abr.nrm" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("validate", "jain96-2src", "--set", "abr.erica.variant=plus-plus")
    assert r.returncode == 2 and "abr.erica.variant" in r.stderr
    r = cli("validate", "jain96-2src", "--set", "abr.erica.variant=plus", "--set", "abr.erica.qdlf=2")
    assert r.returncode == 2 and "abr.erica.qdlf" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_lost_eom_merges_the_frame_with_the_next_one_to_arrive():
    """traces.merges reads the reassembly buffers off the cells that got
    through: frame 1 loses its EOM and merges with frame 2; frame 3 arrives
    whole; frame 4 loses every cell, so nothing of it is buffered; RM cells
    (numbered down from 2^32) belong to no frame."""
    from atmsim.reproduce.jain96.traces import merges

    cells = [(1, False, "arrive"), (1, True, "drop"), (2**32 - 3, False, "arrive"), (2, False, "arrive"), (2, True, "arrive"),
             (3, False, "arrive"), (3, True, "arrive"), (4, False, "drop"), (4, True, "drop"), (5, True, "arrive")]
    df = pd.DataFrame(cells, columns=["frame", "eom", "change"])
    assert merges(df) == [[1, 2]]


def test_probe_seed_lists():
    from atmsim.seed_range import argparse_seeds

    seeds = argparse_seeds(ranges=True)  # the probe's --seeds
    assert seeds("1-3,5") == [1, 2, 3, 5] and seeds("7") == [7]
