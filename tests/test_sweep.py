"""`atmsim sweep`: grid expansion, failures per point, validation before output, determinism across worker counts."""
import pandas as pd
import pytest

import atmsim
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
    one, f1, bad1 = sweep.run("aron97-topo1-atm", grid, ["duration=1s"], [1, 2], workers=1)
    two, f2, bad2 = sweep.run("aron97-topo1-atm", grid, ["duration=1s"], [1, 2], workers=2)
    assert bad1.empty and bad2.empty
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(f1, f2)
    assert one.balanced.all() and len(one) == 4 and len(f1) == 4 * 8
    pts = sweep.medians(one, ["switch.buffer"])
    assert pts["switch.buffer"].tolist() == ["48KB", "192.5KB"]


def test_cli_writes_tables_and_rejects_an_all_bad_grid_before_output(cli, tmp_path):
    out = tmp_path / "s"
    r = cli("sweep", "aron97-topo1-atm", "--vary", "switch.bufer=48KB,96KB", "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "switch.bufer" in r.stderr
    assert not out.exists()
    r = cli("sweep", "aron97-topo1-atm", "--vary", "tcp.variant=lite,vegas", "--set", "duration=1s", "--seeds", "1,2",
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 4 and set(runs["tcp.variant"]) == {"lite", "vegas"}
    assert len(pd.read_csv(out / "points.csv")) == 2
    assert not (out / "failures.csv").exists()


def test_a_bad_point_is_reported_with_its_values_and_the_others_are_kept(cli, tmp_path):
    out = tmp_path / "s"
    r = cli("sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,1000000cellz,96KB", "--set", "duration=1s",
            "--out", str(out))
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "switch.buffer=1000000cellz" in r.stderr and "switch.buffer:" in r.stderr
    runs = pd.read_csv(out / "runs.csv")
    assert runs["switch.buffer"].tolist() == ["48KB", "96KB"] and runs.balanced.all()
    failed = pd.read_csv(out / "failures.csv")
    assert failed["switch.buffer"].tolist() == ["1000000cellz"] and failed.reason[0].startswith("switch.buffer:")


def test_a_run_that_fails_is_a_failure_row_not_an_abort(monkeypatch):
    # A run can fail after its point validated (a bug, a resource limit): its
    # reason takes its place and the sweep goes on.
    from atmsim import runner

    real = runner._run_one

    def flaky(job):
        if "tcp.variant=vegas" in job.overrides:
            raise RuntimeError("worker lost\n  (simulated)")
        return real(job)

    monkeypatch.setattr(runner, "_run_one", flaky)
    runs, flows, failed = sweep.run("aron97-topo1-packet", {"tcp.variant": ["lite", "vegas"]}, ["duration=0.5s"], [1],
                                    workers=1)
    assert runs["tcp.variant"].tolist() == ["lite"] and len(flows) == 8
    assert failed.to_dict("records") == [{"tcp.variant": "vegas", "seed": 1, "reason": "worker lost (simulated)"}]


def test_seed_is_varied_with_seeds_not_vary(cli, tmp_path):
    # `--vary seed=1,2` made a second seed column: an internal error (AttributeError) writing the tables
    # when a seed failed, duplicate columns otherwise (found by tests/fuzz_long.py).
    out = tmp_path / "sw"
    r = cli("sweep", "aron97-topo2-packet", "--vary", "seed=1,18446744073709551615", "--vary", "tcp.tick=1ms,2ms",
            "--set", "duration=20ms", "--out", str(out))
    assert r.returncode == 2
    assert r.stderr.strip() == ("atmsim: error: --vary: seed: give the seeds with --seeds 1,18446744073709551615 "
                                "(each point runs once per seed)")
    assert not out.exists()


def test_a_failed_points_line_stays_one_line_whatever_its_value_holds(cli, tmp_path):
    # A value with U+0085 (a line break to Python, NEL to a terminal) split the point's report in two
    # (found by tests/fuzz_long.py).
    r = cli("sweep", "jain96-2src", "--set", "duration=20ms", "--vary", "flow.T2.start=0s,a\x85b", "--vary",
            "tcp.tick=100ms", "--workers", "1", "--out", str(tmp_path / "sw"))
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("atmsim: sweep point flow.T2.start=a\\x85b tcp.tick=100ms: flow[T2].start: "), lines


def test_a_grid_too_large_to_expand_is_refused_before_any_work(cli, tmp_path):
    # A 10^4 x 10^4 --vary grid was expanded with no size check (MemoryError or unbounded memory).
    ticks = ",".join(f"{i}ms" for i in range(1, 1001))
    buffers = ",".join(f"{i}cells" for i in range(200, 1200))
    out = tmp_path / "sw"
    r = cli("sweep", "aron97-topo1-atm", "--vary", f"tcp.tick={ticks}", "--vary", f"switch.buffer={buffers}", "--out", str(out))
    assert r.returncode == 2
    assert r.stderr.strip() == ("atmsim: error: --vary: the grid has 1,000,000 points, more than 100,000 "
                                "(split the sweep, or vary fewer values)")
    assert not out.exists()


def test_the_run_cap_counts_the_seeds_on_every_path(cli, tmp_path):
    # 1,000 points x 20,000 seeds passed the points-only cap and ended in a MemoryError.
    ticks = ",".join(f"{i}ms" for i in range(1, 1001))
    seeds = ",".join(str(i) for i in range(1, 20_001))
    out = tmp_path / "sw"
    r = cli("sweep", "aron97-topo1-atm", "--vary", f"tcp.tick={ticks}", "--seeds", seeds, "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.strip() == ("atmsim: error: --seeds: 1,000 points x 20,000 seeds = 20,000,000 runs, more than "
                                "100,000 (split the sweep, or give fewer seeds or values)")
    assert not out.exists()
    grid = {"tcp.tick": ticks.split(",")}
    for api in (sweep.plan, sweep.run):  # the Python API refuses it before expanding a run
        with pytest.raises(ValueError, match="20,000,000 runs"):
            api("aron97-topo1-atm", grid, (), list(range(1, 20_001)))
    # At the cap itself it is accepted: 1,000 points x 100 seeds.
    sweep.check_size(grid, list(range(100)))


@pytest.mark.parametrize("damage", ['{"a": 1}', "[1, 2]", '{"scenario": "x"}', "{oops"])
def test_a_damaged_cache_entry_is_run_again(cli, tmp_path, damage):
    # A cached run of the wrong shape (valid JSON) gave a KeyError traceback and the sweep could not resume.
    out = tmp_path / "s"
    args = ["sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,96KB", "--set", "duration=0.2s",
            "--workers", "1", "--out", str(out)]
    cli(*args, check=True)
    before = (out / "runs.csv").read_text(encoding="utf-8")
    cached = sorted((out / "runs").glob("*.json"))
    assert len(cached) == 2
    cached[0].write_text(damage, encoding="utf-8")
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"atmsim: cache: {cached[0]}: damaged entry (")
    assert lines[0].endswith("; running that point again"), lines[0]
    assert (out / "runs.csv").read_text(encoding="utf-8") == before
    assert cli(*args, check=True).stderr == "", "the rerun repaired the entry"


def test_scheduler_without_dask_names_the_extra(monkeypatch):
    import sys

    from atmsim.errors import InputError
    from atmsim.runner import _dask_client

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(InputError) as e:
        _dask_client("local:2")
    assert str(e.value) == "--scheduler: needs dask.distributed: pip install 'atmsim[dask]'"


def test_the_runs_table_names_losses_in_the_units_of_the_sweeps_networks():
    # A packet run's loss ratio and drops were headed cell_loss_ratio and cells_dropped (issue 38).
    cases = {("packet",): ("packet_loss_ratio", "packets_dropped"), ("atm",): ("cell_loss_ratio", "cells_dropped"),
             ("atm", "packet"): ("loss_ratio", "units_dropped")}
    for networks, (ratio, dropped) in cases.items():
        runs, _, failed = sweep.run("aron97-topo1-packet", {"network": list(networks)}, ["duration=1s", "switch.buffer=24KB"], [1],
                                    workers=1)
        assert failed.empty and runs["network"].tolist() == list(networks)
        other = {"cell_loss_ratio", "cells_dropped", "packet_loss_ratio", "packets_dropped", "loss_ratio",
                 "units_dropped"} - {ratio, dropped}
        assert {ratio, dropped} <= set(runs.columns) and not other & set(runs.columns), networks
        for (_, row), network in zip(runs.iterrows(), networks):
            s = atmsim.run("aron97-topo1-packet", set=["duration=1s", "switch.buffer=24KB", f"network={network}"], seed=1).summary
            assert (row[ratio], row[dropped]) == (s["cell_loss_ratio"], s["accounting"]["cells_dropped"])
            assert row[dropped] > 0
