"""pcap captures (`atmsim run --pcap DIR`, docs/captures.md), read back by the
real tools: tshark's TCP analysis must count exactly the packets,
retransmissions and duplicate ACKs atmsim's own TCP counted, at the times
atmsim's event trace gives; ATM ports decode as AAL5 PDUs with their VPI/VCI.

.ci/run installs tshark; the tshark tests skip only where it is missing
outside CI (under CI=true a missing tshark fails them).
"""
import collections
import csv
import json
import os
import shutil
import struct
import subprocess
from decimal import Decimal

import pytest

import atmsim

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None and not os.environ.get("CI"),
                                  reason="tshark not installed (.ci/run installs it)")
FIELDS = ["frame.time_epoch", "frame.len", "frame.cap_len", "ip.len", "tcp.srcport", "tcp.dstport", "tcp.seq_raw",
          "tcp.analysis.retransmission", "tcp.analysis.duplicate_ack"]


def tshark_rows(path, fields=FIELDS):
    """One dict per frame of tshark's dissection (presence fields: non-empty when set)."""
    assert TSHARK, "tshark is missing: .ci/run installs it (apt-get install tshark)"
    out = subprocess.run([TSHARK, "-r", str(path), "-T", "fields", *sum((["-e", f] for f in fields), [])],
                         capture_output=True, text=True, check=True).stdout
    return [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]


def pcap_records(data):
    """(magic, linktype, [(ts_ns, caplen, origlen)]) of a little-endian pcap file, parsed by hand."""
    magic, _, _, _, _, _, linktype = struct.unpack_from("<IHHiIII", data, 0)
    recs, off = [], 24
    while off < len(data):
        sec, frac, caplen, orig = struct.unpack_from("<IIII", data, off)
        recs.append((sec * 10**9 + frac, caplen, orig))
        off += 16 + caplen
    return magic, linktype, recs


def run_cli(cli, tmp_path, scenario, *sets):
    out, pcap = tmp_path / "run", tmp_path / "pcap"
    args = ["run", scenario, "--json", "--out", str(out), "--pcap", str(pcap)]
    for s in sets:
        args += ["--set", s]
    summary = json.loads(cli(*args, check=True).stdout)
    return summary, out, pcap


def check_sender_hosts(summary, pcap, flows):
    """tshark's counts at each sender's host equal the sender's own counters."""
    totals = collections.Counter()
    for i, c in enumerate(summary["capture"]["tcp"][:flows]):
        port = str(1024 + i)
        rows = tshark_rows(pcap / f"host-S{i + 1}.pcap")
        sent = [r for r in rows if r["tcp.srcport"] == port]
        got = {
            "sent": len(sent),
            "received": sum(r["tcp.dstport"] == port for r in rows),
            "retransmissions": sum(bool(r["tcp.analysis.retransmission"]) for r in sent),
            "dup_acks": sum(bool(r["tcp.analysis.duplicate_ack"]) for r in rows if r["tcp.dstport"] == port),
        }
        want = {
            "sent": c["syns_sent"] + c["segments_sent"],
            "received": c["segments_received"],
            "retransmissions": c["segments_retransmitted"] + c["syns_sent"] - 1,
            "dup_acks": c["dup_acks"],
        }
        assert got == want, c["flow"]
        totals.update(got)
    return totals


@needs_tshark
def test_tshark_counts_equal_atmsim_counters_on_a_lossy_packet_run(cli, tmp_path):
    summary, out, pcap = run_cli(cli, tmp_path, "aron97-topo1-packet", "duration=2s")
    totals = check_sender_hosts(summary, pcap, flows=8)
    assert totals["retransmissions"] > 50 and totals["dup_acks"] > 50, "the run must lose packets"
    # ... and tshark finds the retransmissions where atmsim's event trace puts them (ns, raw seq).
    with open(out / "trace_events.csv", encoding="utf-8") as f:
        events = [r for r in csv.DictReader(f) if r["flow"] == "f1" and r["kind"] == "retransmit"]
    ours = sorted((round(float(r["t"]) * 1e9), int(r["seq"])) for r in events)
    rows = tshark_rows(pcap / "host-S1.pcap")
    theirs = sorted((int(Decimal(r["frame.time_epoch"]) * 10**9), int(r["tcp.seq_raw"]))
                    for r in rows if r["tcp.analysis.retransmission"] and r["tcp.srcport"] == "1024")
    # (the trace's times are float seconds: within the nanosecond the capture truncates to)
    assert [q for _, q in ours] == [q for _, q in theirs] and len(ours) > 5
    assert all(abs(a - b) <= 1 for (a, _), (b, _) in zip(ours, theirs))
    # IP lengths true to the model, payload truncated at the snap length.
    assert all(r["ip.len"] == r["frame.len"] and int(r["frame.cap_len"]) == min(96, int(r["frame.len"])) for r in rows)
    lens = collections.Counter(r["ip.len"] for r in rows if r["tcp.srcport"] == "1024")
    assert lens.most_common(1)[0][0] == "9168" and lens["40"] == 1  # full segments (9128 + 40), one SYN


@needs_tshark
def test_tshark_decodes_the_atm_capture(cli, tmp_path):
    summary, out, pcap = run_cli(cli, tmp_path, "aron97-topo1-atm", "duration=1s", "atm.encapsulation=aal5-llc",
                                 "switch.buffer=48KB", "trace.port=R1->R2",
                                 'capture.ports=["R1->R2"]', 'capture.hosts=["S1", "S2"]')
    assert [f["name"] for f in summary["capture"]["files"]] == ["port-R1-R2.pcap", "host-S1.pcap", "host-S2.pcap"]
    # The AAL5 PDUs leaving the port: one per EOM cell the port log saw leave, per VCI (32 + the VC's
    # number; the port log names a VC by its flow and direction, the core's trace names list them by number).
    raw = atmsim._core.run(atmsim.load_scenario("aron97-topo1-atm"), ["duration=0.1s"], None, True)[1]["names"]
    vci = {(flow, d): 32 + i for i, (flow, d) in enumerate(zip(raw["vc_flow"], raw["vc_direction"]))}
    with open(out / "trace_port.csv", encoding="utf-8") as f:
        eoms = collections.Counter(vci[r["flow"], r["direction"]] for r in csv.DictReader(f)
                                   if r["change"] == "depart" and r["eom"] == "True" and float(r["t"]) <= 1.0)
    rows = tshark_rows(pcap / "port-R1-R2.pcap", ["atm.vpi", "atm.vci", "atm.aal", "llc.type", "ip.len", "tcp.srcport"])
    assert collections.Counter(int(r["atm.vci"]) for r in rows) == eoms
    assert {(r["atm.vpi"], r["atm.aal"]) for r in rows} == {("0", "4")}  # AAL5 in Wireshark's numbering
    # Intact PDUs carry LLC/SNAP and IP; those that lost cells upstream are only their length.
    intact = [r for r in rows if r["ip.len"]]
    assert {r["llc.type"] for r in intact} == {"0x0800"} and 500 < len(intact) < len(rows)
    assert len(rows) == summary["capture"]["files"][0]["packets"]
    # The reassembled packets at the sending hosts: tshark's analysis again equals the TCP's counters.
    assert summary["ports"][[p["name"] for p in summary["ports"]].index("R1->R2")]["units_dropped"] > 0
    check_sender_hosts(summary, pcap, flows=2)


def test_api_captures_are_nanosecond_pcaps_as_the_summary_counts():
    sets = ["duration=0.3s", "capture.snaplen=64", 'capture.ports=["R1->R2"]', 'capture.hosts=["S1", "D8"]']
    r = atmsim.run("aron97-topo1-atm", set=sets, capture=True)
    files = {f["name"]: f for f in r.summary["capture"]["files"]}
    assert set(files) == set(r.captures) == {"port-R1-R2.pcap", "host-S1.pcap", "host-D8.pcap"}
    for name, data in r.captures.items():
        magic, linktype, recs = pcap_records(data)
        assert magic == 0xA1B23C4D and linktype == files[name]["linktype"]
        assert len(recs) == files[name]["packets"] > 0
        assert all(cap <= min(orig, 64) for _, cap, orig in recs)
        assert [t for t, _, _ in recs] == sorted(t for t, _, _ in recs)
    assert files["port-R1-R2.pcap"]["linktype"] == 123 and files["host-S1.pcap"]["linktype"] == 101
    # Captures off: no capture block, and the summary is otherwise the same.
    plain = atmsim.run("aron97-topo1-atm", set=sets).summary
    s = dict(r.summary)
    s.pop("capture")
    assert "capture" not in plain and {**s, "wall_s": 0} == {**plain, "wall_s": 0}


@pytest.mark.parametrize("sets, key", [
    (["ip.header_bytes=50"], "ip.header_bytes"),
    (['capture.ports=["R9->R2"]'], "capture.ports"),
    (['capture.hosts=["R1"]'], "capture.hosts"),
    (['capture.hosts=["S1"]', "capture.snaplen=8"], "capture.snaplen"),
    (["capture.snaplen=96"], "capture.snaplen"),  # a [capture] naming nothing: the key that made it, not "capture"
    (["capture.snaplen=0"], "capture.snaplen"),
])
def test_bad_capture_input_exits_2_naming_the_key(cli, tmp_path, sets, key):
    args = ["run", "aron97-topo1-packet", "--pcap", str(tmp_path / "p")]
    for s in sets:
        args += ["--set", s]
    p = cli(*args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"atmsim: error: {key}: ")
    assert not (tmp_path / "p").exists()
