"""Memory of traces (issue 38): the core hands columns over as bytes, a port log has a cap that holds in the
run, a reproduction keeps its traced runs on disk until a figure reads them."""
import json
import subprocess
import sys
import time

import numpy as np
import pytest

import atmsim
from atmsim import _core, trace_columns

TOPO1 = atmsim.load_scenario("aron97-topo1-atm")
LOGGED = ["trace.port=R1->R2", "switch.buffer=20KB"]


def _raw(duration="1s"):
    summary, raw = _core.run(TOPO1, [f"duration={duration}", *LOGGED], None, True)
    return json.loads(summary), raw


def test_the_core_hands_over_compact_columns_that_decode_to_the_runs_numbers():
    s, raw = _raw()
    rows = len(np.frombuffer(raw["port"]["t"][1], "<f8"))
    assert sum(len(col[1]) for col in raw["port"].values()) == 18 * rows  # bytes, not lists of Python objects
    log = trace_columns.decode(raw)["port"]
    assert {k: v.dtype.kind for k, v in log.items()} == {"t": "f", "vc": "i", "frame": "i", "eom": "b", "change": "U"}
    port = next(p for p in s["ports"] if p["name"] == "R1->R2")
    change = log["change"]
    assert (change == "drop").sum() == port["units_dropped"] > 0
    assert (change != "depart").sum() == port["units_in"]  # every unit offered: admitted or dropped
    ev = trace_columns.decode(raw)["events"]
    assert (ev["kind"] == "timeout").sum() == sum(f["timeouts"] for f in s["flows"])
    assert trace_columns.decode(trace_columns.decode(raw))["port"]["t"].tolist() == log["t"].tolist()  # idempotent


def test_spilled_traces_read_back_what_was_spilled(tmp_path):
    _, raw = _raw("0.5s")
    spilled = trace_columns.spill(tmp_path / "run-0", raw)
    decoded = trace_columns.decode(raw)
    assert list(spilled) == list(raw) and spilled["names"] == raw["names"]
    for table in decoded:
        if table != "names":
            assert decoded[table].keys() == spilled[table].keys()
            assert all(np.array_equal(decoded[table][c], spilled[table][c]) for c in decoded[table]), table
    # The tables read the same as frames, and nothing of them stays in the mapping itself.
    a, b = atmsim.trace_frames(raw), atmsim.trace_frames(spilled)
    assert all(a[t].equals(b[t]) for t in a)
    assert sum(f.stat().st_size for f in (tmp_path / "run-0").iterdir()) > 18 * len(decoded["port"]["t"])
    assert vars(spilled).keys() == {"_folder", "_tables"}


@pytest.mark.parametrize("how", [["--trace"], ["--out", "OUT"]])
def test_a_port_log_at_its_cap_stops_the_run(cli, tmp_path, how):
    # 40 simulated seconds of trace.port took 5.7 GB and any duration validated: the cap holds in the run.
    how = [str(tmp_path / "o") if a == "OUT" else a for a in how]
    sets = ["duration=600s", "trace.port=R1->R2", "trace.port_rows=300000"]
    t0 = time.monotonic()
    r = cli("run", "aron97-topo1-atm", *[a for s in sets for a in ("--set", s)], *how)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("atmsim: error: trace.port_rows: the port log of R1->R2 reached its 300000 rows at ")
    assert " s of 600 s " in r.stderr and "raise trace.port_rows" in r.stderr
    assert time.monotonic() - t0 < 30 and not (tmp_path / "o").exists()
    with pytest.raises(atmsim.ScenarioError, match="trace.port_rows: the port log of R1->R2 reached"):  # the API
        atmsim.run("aron97-topo1-atm", set=sets, trace=True)
    # Untraced, nothing is logged: the same scenario runs (briefly here).
    assert atmsim.run("aron97-topo1-atm", set=["duration=0.1s", "trace.port=R1->R2"]).summary["accounting"]["balanced"]


@pytest.mark.parametrize("sets", [
    # The run ends at 178 us when its one 2-MB flow is delivered: about a thousand rows, not 163 million.
    ("duration=60s", "trace.port=tor6->h13"),
    # The workload's flows are the same 2 MB from h0 to h13, from a matrix written out.
    ("duration=60s", "trace.port=tor6->h13", "workload.pattern=incast", "workload.senders=1",
     "workload.receiver=13"),
])
def test_a_traced_run_that_fits_is_not_refused(sets):
    # The check before the run took the bottleneck's line as busy for the whole duration (2 rows per unit it could
    # carry: 163,398,693 rows in 60 s) and refused these runs, whose logs hold a few thousand rows.
    r = atmsim.run("eqds-one", set=list(sets), trace=True)
    rows = len(r.traces["port"])
    assert 0 < rows < 10_000 and r.summary["end_time_s"] < 0.001 and r.summary["accounting"]["balanced"], rows


def test_a_long_port_log_is_handed_over_in_a_moment():
    # A 10 s log (about 4 million rows) took 12-22 s to become Python lists, during which Ctrl-C waited.
    t0 = time.monotonic()
    summary, raw = _core.run(TOPO1, ["duration=10s", "trace.port=R1->R2"], None, True)
    handover = time.monotonic() - t0 - json.loads(summary)["wall_s"]
    assert len(raw["port"]["t"][1]) > 8 * 3_000_000
    assert handover < 3.0, handover


def test_a_traced_reproduction_stays_small():
    # jain96's tail-drop figure (every run traced, the bottleneck's port log on) held every run's traces as
    # Python lists until the end: 2.7 GB at full size. Its quick grid is measured here, peak RSS of the whole
    # process tree as getrusage sees it, in a fresh interpreter so no other child of the test counts.
    prog = ("import resource, subprocess, sys, tempfile\n"
            "with tempfile.TemporaryDirectory() as d:\n"
            "    subprocess.run([sys.executable, '-m', 'atmsim', 'reproduce', 'jain96', '--quick', '--figure',"
            " 'tail-drop', '--out', d, '--no-cache', '--no-progress'], check=True, capture_output=True)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    peak_kb = int(subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True).stdout)
    assert peak_kb < 600_000, f"{peak_kb / 1024:.0f} MB"


def test_a_table_written_in_chunks_is_the_table_written_at_once(tmp_path):
    # `atmsim run --out` writes a port log a million rows at a time (it held the whole log, and every other
    # trace, as DataFrames at once): the files are those of the whole table.
    _, raw = _raw("0.5s")
    whole, chunked = atmsim.trace_frames(raw), atmsim.trace_frames(raw)
    n = chunked.rows("port")
    assert n == len(whole["port"]) > 3000
    parts = list(chunked.chunks("port", size=1000))
    assert len(parts) == -(-n // 1000) and "port" not in chunked._frames  # nothing kept
    with open(tmp_path / "chunked.csv", "w", encoding="utf-8") as f:
        for i, part in enumerate(parts):
            part.to_csv(f, index=False, header=i == 0)
    whole["port"].to_csv(tmp_path / "whole.csv", index=False)
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert [len(p) for p in atmsim.trace_frames({"names": raw["names"], "port": {}}).chunks("port")] == [0]


def test_run_out_writes_the_port_log_it_would_have_written_whole(cli, tmp_path):
    import pandas as pd

    sets = ["duration=4s", "trace.port=R1->R2"]
    for fmt in ("csv", "parquet"):
        cli("run", "aron97-topo1-atm", *[a for s in sets for a in ("--set", s)], "--out", str(tmp_path / fmt),
            "--trace-format", fmt, check=True)
    port = atmsim.run("aron97-topo1-atm", set=sets, trace=True).traces["port"]
    assert len(port) > 1_000_000  # more than one chunk
    port.to_csv(tmp_path / "whole.csv", index=False)
    assert (tmp_path / "csv" / "trace_port.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "parquet" / "trace_port.parquet"), port)


@pytest.mark.parametrize("limit_mb", [500, 800])
def test_at_a_memory_limit_a_traced_run_ends_in_one_line(limit_mb):
    # Under `ulimit -v` (500 MB here) a port log raised past what fits aborted the process with the allocator's
    # "memory allocation of 35840 bytes failed" and a backtrace; at 800 MB the hand-over to Python raised
    # MemoryError, printed as an internal error (issue 38). The log's growth failing now stops the run like its cap
    # (exit 2, naming trace.port_rows), and memory that runs out elsewhere is one line, exit 1.
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    sets = ["duration=600s", "trace.port=R1->R2", "trace.port_rows=50000000"]  # the most it takes (0.9 GB)
    p = subprocess.run([sys.executable, "-m", "atmsim", "run", "aron97-topo1-atm", *[a for s in sets for a in ("--set", s)],
                        "--trace"], capture_output=True, text=True, preexec_fn=limit, timeout=300)
    errors = [x for x in p.stderr.splitlines() if not x.startswith("atmsim: aron97-topo1-atm: simulated")]
    assert p.returncode in (0, 1, 2) and len(errors) == (p.returncode != 0), p.stderr[-2000:]
    assert not errors or errors[0].startswith(("atmsim: error: trace.port_rows: the port log of R1->R2 could not grow past",
                                               "atmsim: error: out of memory: ")), errors
