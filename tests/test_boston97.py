"""boston97 on a short grid: every claim row, the paper's metrics, bad input."""
import json

import pandas as pd
import pytest

from atmsim.reproduce import boston97 as bk
from atmsim.reproduce import harness

CLAIMS = (["fig5.c%d" % k for k in range(1, 9)] + ["table1.c%d" % k for k in range(1, 7)] + ["fig6.c1", "fig6.c2", "windows.c1"]
          + ["fig7.c%d" % k for k in range(1, 10)] + ["epd.c1", "epd.c2"])


def test_setup_arithmetic():
    assert [bk.cells(L) for L in (512, 1518, 4352, 9180)] == [11, 32, 91, 192]
    assert [round(bk.cap(L), 3) for L in (512, 1518, 4352, 9180)] == [0.878, 0.895, 0.902, 0.902]
    assert [bk.window_packets(64, L) for L in (512, 1518, 4352, 9180)] == [128, 43, 15, 7]
    assert [bk.window_packets(8, L) for L in (512, 1518, 4352, 9180)] == [16, 5, 1, 1]
    from atmsim.reproduce.boston97.common import start_times

    assert start_times(1) == start_times(1) and start_times(1) != start_times(2)
    assert all(0 <= t < 1 for t in start_times(3))


def test_every_claim_is_a_row_on_a_short_grid(tmp_path):
    rows = {r["id"]: r for r in harness.reproduce(bk.PAPER, None, quick=True, out=tmp_path, workers=2, duration="20s")}
    for cid in CLAIMS:
        assert f"boston97.{cid}" in rows, cid
    assert len([r for r in rows if r.startswith("boston97.")]) == 28
    unexplained = [cid for cid, r in rows.items() if not r["holds"] and not r["note"].strip()]
    assert not unexplained, f"a failing claim carries its reason: {unexplained}"
    # The footnote arithmetic does not depend on the runs.
    assert rows["boston97.fig7.c9"]["holds"]
    fig5 = pd.read_csv(tmp_path / "fig5.csv")
    assert len(fig5) == 2 * 4 * 6
    assert (fig5.eta <= fig5.L.map(bk.cap) + 1e-9).all()
    boston, reno = fig5[fig5.protocol == "boston"], fig5[fig5.protocol == "reno"]
    assert (boston.partial_acks > 0).any() and (reno.partial_acks == 0).all()
    t1 = pd.read_csv(tmp_path / "table1.csv")
    assert len(t1) == 24 and {"paper_boston", "paper_reno", "floor_us_per_byte"} <= set(t1.columns)
    series = pd.read_csv(tmp_path / "fig7_series.csv")
    assert (series.switch_input_Bps >= 0).all() and series.accepted_Bps.sum() > 0
    for png in ["fig5.png", "fig6.png", "fig7.png", "windows.png"]:
        assert (tmp_path / png).stat().st_size > 0


def test_summary_has_the_boston_block_only_with_the_section(cli):
    r = cli("run", "boston97", "--set", "duration=5s", "--json", check=True)
    s = json.loads(r.stdout)
    assert len(s["boston"]) == 16 and s["accounting"]["balanced"]
    r = cli("run", "morris-kung95-a", "--set", "duration=1s", "--json", check=True)
    assert "boston" not in json.loads(r.stdout)


@pytest.mark.parametrize("key, value", [("boston.pieces", "100"), ("tcp.delayed_ack", "true"), ("boston.matrix", "hilbert"),
                                        ("switch.input_service", "fair")])
def test_bad_boston_keys_exit_2_naming_the_key(cli, key, value):
    r = cli("run", "boston97", "--set", f"{key}={value}")
    assert r.returncode == 2
    assert key in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_sensitivity_variants_change_what_they_name(tmp_path):
    import atmsim
    from atmsim.reproduce.boston97 import sensitivity as sens

    g = bk.grid(False, [1], "3s")
    runs = sens.runs(g)
    assert len(runs) == len(sens.VARIANTS) * 2 * len(sens.SIZES) * len(sens.BUFFERS)
    for r in runs:
        facts = atmsim.model_facts(r.scenario, r.overrides)
        cell_access = r.tag["variant"].startswith("cell-access")
        assert (facts["ports"]["S7->X"]["rate_bps"] == 1.5e6) == cell_access
    # On one point: the four variants give four different runs, each balanced.
    point = [r for r in runs if r.tag["protocol"] == "boston" and r.tag["L"] == 9180 and r.tag["B"] == 64]
    res = harness.run_all(point, workers=2)
    assert all(harness.summary_of(r)["accounting"]["balanced"] for r in res.values())
    df, pts = sens.table(res, g.seconds)
    assert len(pts) == 4 and df.cells_sent.nunique() == 4
    assert ((0 <= pts.bottleneck_busy) & (pts.bottleneck_busy <= 1)).all()
