"""`atmsim sweep`: grid expansion, validation before output, determinism across worker counts."""
import pandas as pd
import pytest

from atmsim import sweep


def test_parse_and_expand_the_grid():
    g = sweep.parse_vary(["switch.buffer=48KB,96KB", "network=atm,packet"])
    assert sweep.points(g) == [{"switch.buffer": "48KB", "network": "atm"}, {"switch.buffer": "48KB", "network": "packet"},
                               {"switch.buffer": "96KB", "network": "atm"}, {"switch.buffer": "96KB", "network": "packet"}]
    for bad in (["switch.buffer"], ["=1,2"], ["a=1", "a=2"], ["a="]):
        with pytest.raises(ValueError, match="--vary"):
            sweep.parse_vary(bad)


def test_results_do_not_depend_on_the_worker_count():
    grid = {"switch.buffer": ["48KB", "192.5KB"]}
    one, f1 = sweep.run("aron97-topo1-atm", grid, ["duration=1s"], [1, 2], workers=1)
    two, f2 = sweep.run("aron97-topo1-atm", grid, ["duration=1s"], [1, 2], workers=2)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(f1, f2)
    assert one.balanced.all() and len(one) == 4 and len(f1) == 4 * 8
    pts = sweep.medians(one, ["switch.buffer"])
    assert pts["switch.buffer"].tolist() == ["48KB", "192.5KB"]


def test_cli_writes_tables_and_rejects_bad_points_before_output(cli, tmp_path):
    out = tmp_path / "s"
    r = cli("sweep", "aron97-topo1-atm", "--vary", "switch.buffer=48KB,1000000cellz", "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "switch.buffer" in r.stderr
    assert not out.exists()
    r = cli("sweep", "aron97-topo1-atm", "--vary", "tcp.variant=lite,vegas", "--set", "duration=1s", "--seeds", "1,2",
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 4 and set(runs["tcp.variant"]) == {"lite", "vegas"}
    assert len(pd.read_csv(out / "points.csv")) == 2
