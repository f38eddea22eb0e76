"""The fabric trace (docs/metrics.md "Traces"): with traces on, every `trace.interval`, one row per
fabric device (FAPs, then FEs, then FE2s) with its VOQs' bytes, the cells waiting for its links and
the bytes its egress holds in reassembly. Checked against the summary's books at the run's end, on
one and three stages; sampling changes nothing else; its rows count against the traces' cap."""

import atmsim

PERM = ["duration=20us", "trace.interval=1us"]


def frame(result):
    return result.traces["fabric"]


def test_the_last_sample_is_the_summarys_books():
    r = atmsim.run("fabric-perm", set=PERM, trace=True)
    f, fab = frame(r), r.summary["fabric"]
    names = [f"fap{i}" for i in range(16)] + [f"fe{i}" for i in range(6)]
    assert list(f.node.unique()) == names
    assert (f.groupby("node", sort=False).size() == 21).all()  # samples at 0, 1, ..., 20 us
    last = f[f.t == f.t.max()]
    assert last.t.iloc[0] * 1e6 == 20
    assert last.voq_bytes.sum() == fab["voq_bytes"] > 0
    assert last.reassembly_bytes.sum() == fab["reassembly_bytes"]
    assert last.queued_cells.sum() <= fab["cells_inside"]
    # The permutation at full load queues cells at the FAPs' links and in the elements.
    assert f[f.node.str.startswith("fe")].queued_cells.max() > 0
    assert (f.largest_link_cells <= f.queued_cells).all() and (f.largest_voq_bytes <= f.voq_bytes).all()
    # Elements hold no VOQ and reassemble nothing.
    assert (f[f.node.str.startswith("fe")][["voq_bytes", "reassembly_bytes"]] == 0).all().all()


def test_sampling_the_fabric_changes_nothing_else():
    traced = atmsim.run("fabric-perm", set=PERM, trace=True).summary
    plain = atmsim.run("fabric-perm", set=PERM).summary
    assert traced["fabric"] == plain["fabric"] and traced["flows"] == plain["flows"]


def test_three_stages_name_their_fe2s():
    r = atmsim.run("fabric-3stage", set=["duration=2us", "trace.interval=1us"], trace=True)
    f = frame(r)
    nodes = list(f.node.unique())
    assert nodes[:256] == [f"fap{i}" for i in range(256)] and nodes[-1] == "fe2_23"
    assert len(nodes) == 256 + 16 * 6 + 24


def test_no_fabric_no_fabric_table():
    r = atmsim.run("aron97-topo1-atm", set=["duration=0.1s"], trace=True)
    assert "fabric" not in r.traces


def test_the_devices_rows_count_against_the_traces_cap(cli):
    p = cli("run", "fabric-perm", "--trace", "--set", "duration=1ms", "--set", "trace.interval=1ns")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "trace.interval" in p.stderr and "22 fabric devices" in p.stderr and "GB of traces" in p.stderr
