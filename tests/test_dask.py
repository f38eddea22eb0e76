"""Sweeps and reproductions on a real dask.distributed cluster give the same
tables, byte for byte, as the local process pool."""
import pytest

distributed = pytest.importorskip("distributed")

SWEEP = ["sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,96KB", "--vary", "tcp.variant=lite,newreno",
         "--set", "duration=0.5s", "--seeds", "1,2", "--no-cache"]


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two worker processes on loopback."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c.scheduler_address


def test_sweep_on_a_cluster_equals_the_local_pool(cli, tmp_path, cluster):
    cli(*SWEEP, "--workers", "2", "--out", str(tmp_path / "pool"), check=True)
    cli(*SWEEP, "--scheduler", cluster, "--out", str(tmp_path / "dask"), check=True)
    for name in ("runs.csv", "flows.csv", "points.csv"):
        assert (tmp_path / "pool" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_reproduction_on_a_cluster_equals_the_local_pool(cli, tmp_path, cluster):
    args = ["reproduce", "morris-kung95", "--quick", "--figure", "fig8", "--no-cache"]
    cli(*args, "--out", str(tmp_path / "pool"), check=True)
    cli(*args, "--scheduler", cluster, "--out", str(tmp_path / "dask"), check=True)
    for f in ("fig8.csv", "claims.json"):
        assert (tmp_path / "pool" / f).read_bytes() == (tmp_path / "dask" / f).read_bytes(), f


def test_unreachable_scheduler_is_one_line(cli, tmp_path):
    r = cli(*SWEEP, "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--scheduler" in r.stderr, r.stderr
