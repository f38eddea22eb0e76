"""Traces name flows, ports and VCs as the summary does; a long single run
reports the simulated time it has reached, and Ctrl-C or SIGTERM stop it."""
import io
import json
import signal
import subprocess
import sys

import pytest

import atmsim
from atmsim import _core, trace_columns
from atmsim.progress import RunProgress


def test_trace_tables_name_flows_ports_and_vcs():
    sets = ["duration=1s", "trace.port=R1->R2"]
    r = atmsim.run("aron97-topo1-atm", set=sets, trace=True)
    flows, ports = list(r.flows["name"]), set(r.ports["name"])
    for table in ("window", "events"):
        assert sorted(set(r.traces[table]["flow"])) == sorted(flows), table
    assert "R1->R2" in set(r.traces["queue"]["port"]) and set(r.traces["queue"]["port"]) <= ports
    log = r.traces["port"]
    assert list(log.columns) == ["t", "flow", "direction", "frame", "eom", "change"]
    assert set(log.direction) == {"data"} and set(log.flow) == set(flows)  # ACKs take R2->R1
    # The same rows as the core's numbered columns, named.
    _, raw = _core.run(atmsim.load_scenario("aron97-topo1-atm"), sets, None, True)
    raw = trace_columns.decode(raw)  # the core hands columns over as bytes
    names = raw["names"]
    assert list(r.traces["window"]["flow"]) == [names["flow"][f] for f in raw["window"]["flow"]]
    assert list(log.flow) == [names["vc_flow"][v] for v in raw["port"]["vc"]]


def test_run_out_writes_named_traces(cli, tmp_path):
    import pandas as pd

    cli("run", "morris-kung95-a", "--set", "duration=1s", "--set", "trace.port=S->B", "--out", str(tmp_path / "r"), check=True)
    log = pd.read_csv(tmp_path / "r" / "trace_port.csv")
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert set(log.flow) <= {f["name"] for f in summary["flows"]} and "vc" not in log
    queue = pd.read_csv(tmp_path / "r" / "trace_queue.csv")
    assert set(queue.port) <= {p["name"] for p in summary["ports"]} and "S->B" in set(queue.port)


def test_progress_sees_the_simulated_time_every_2_20_events():
    calls = []
    r = atmsim.run("aron97-topo1-atm", set=["duration=8s"], progress=lambda now, d: calls.append((now, d)))
    assert len(calls) == r.summary["events"] >> 20 >= 2
    assert [d for _, d in calls] == [8.0] * len(calls)
    assert all(a[0] < b[0] for a, b in zip(calls, calls[1:])) and calls[-1][0] <= 8.0


def test_an_exception_in_progress_stops_the_run_as_ctrl_c_does():
    def interrupt(now, duration):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atmsim.run("aron97-topo1-atm", set=["duration=100s"], progress=interrupt)


def test_plain_progress_lines_after_a_quiet_start_then_every_period():
    now = [0.0]
    out = io.StringIO()
    p = RunProgress("x", terminal=False, clock=lambda: now[0], stream=out)
    for t, sim in ((1.0, 1.0), (RunProgress.QUIET, 3.0), (RunProgress.QUIET + 1, 4.0),
                   (RunProgress.QUIET + RunProgress.PERIOD, 8.0)):
        now[0] = t
        p(sim, 20.0)
    lines = out.getvalue().splitlines()
    assert lines == ["atmsim: x: simulated 3.000 s of 20.000 s (15%), 3 s elapsed, about 17 s left",
                     "atmsim: x: simulated 8.000 s of 20.000 s (40%), 8 s elapsed, about 12 s left"]


def test_sigterm_stops_a_long_run_with_one_line():
    # Waits for the run's first progress line (a few seconds), then sends SIGTERM. One
    # unbounded flow keeps the run going for its whole 100000 s (hours of wall time).
    p = subprocess.Popen([sys.executable, "-m", "atmsim.cli", "run", "aron97-topo1-atm", "--set", "duration=100000s",
                          "--set", "flow.f1.bytes=unbounded"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    p.send_signal(signal.SIGTERM)
    rest = p.stderr.read()
    assert p.wait(timeout=60) == 130
    assert first.startswith("atmsim: aron97-topo1-atm: simulated ") and "s of 100000.000 s" in first
    assert rest.strip() == "atmsim: error: interrupted" and p.stdout.read() == ""
