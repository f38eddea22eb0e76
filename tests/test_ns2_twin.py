"""The ns-2 twin of aron97's packet network (validation/ns2/twin.py; docs/validation.md, "An ns-2
twin of aron97's packet network").

Without ns-2: the Tcl writer maps the resolved scenario's numbers (rates, delays, queue limits,
packet size, window, timers, starts with their jitter) and the trace reader computes atmsim's
metrics from a made-up trace. With `ns` on PATH: one small case end to end (k = 9, Lite, one draw,
3 s) in both simulators.
"""
import os
import re
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "validation", "ns2"))
import twin

RATE = 53 * 8 / 3e-6  # one 53-byte cell every 3 us: 141.33 Mb/s


def _tcl(sets=(), draw=0):
    tw0 = twin.load(twin.SCENARIO, list(sets))
    tw = twin.load(twin.SCENARIO, list(sets) + twin.jitter_sets(tw0, draw))
    return tw, twin.ns2_tcl(tw)


def _setting(tcl, name):
    m = re.search(rf"^Agent/TCP set {re.escape(name)} (\S+)", tcl, re.MULTILINE)
    return m.group(1) if m else None


def test_tcl_maps_the_resolved_scenario():
    _, tcl = _tcl(twin.point_sets("lite", 21))
    # links: 17 duplex links, all at one cell per 3 us; 1 us access, 30 ms bottleneck
    links = re.findall(r"^\$ns duplex-link \$n\((\w+)\) \$n\((\w+)\) (\S+) (\S+) DropTail$", tcl, re.MULTILINE)
    assert len(links) == 17
    for a, b, bw, delay in links:
        assert float(bw) == pytest.approx(RATE, rel=1e-12)
        assert float(delay) == (0.03 if {a, b} == {"R1", "R2"} else 1e-6)
    # queue limits: 21 packets on the data ports (192528 B / 9168 B), B / 40 ACKs back, hosts unlimited
    lim = {(a, b): int(n) for a, b, n in re.findall(r"^\$ns queue-limit \$n\((\w+)\) \$n\((\w+)\) (\d+)$", tcl, re.MULTILINE)}
    assert lim[("R1", "R2")] == 21 and lim[("R2", "D3")] == 21
    assert lim[("R2", "R1")] == 192528 // 40 and lim[("R1", "S5")] == 192528 // 40
    assert lim[("S1", "R1")] == lim[("D8", "R2")] == twin.HOST_QUEUE
    # packets: 9128 B of payload + 40 B of headers; window 512 KiB = 57 whole segments
    assert _setting(tcl, "packetSize_") == "9128" and _setting(tcl, "tcpip_base_hdr_size_") == "40"
    assert _setting(tcl, "window_") == "57" and _setting(tcl, "windowInit_") == "1"
    # timers: 500 ms tick, RTO in [2, 128] ticks, first RTO 12 ticks; no limited transmit
    assert float(_setting(tcl, "tcpTick_")) == 0.5
    assert float(_setting(tcl, "minrto_")) == 1.0 and float(_setting(tcl, "maxrto_")) == 64.0
    assert float(_setting(tcl, "rtxcur_init_")) == 6.0 and _setting(tcl, "singledup_") == "0"
    # Lite = ns-2 Reno without bugFix_ (D2), per-packet ACKs (tcp.delayed_ack = false)
    assert _setting(tcl, "bugFix_") == "false"
    assert len(re.findall(r"create-connection TCP/Reno \$n\(S\d\) TCPSink \$n\(D\d\)", tcl)) == 8
    # starts staggered by 10 ms; 60 MB = 6574 segments each; the run ends at 10 s
    starts = [float(t) for t in re.findall(r'^\$ns at (\S+) "\$ftp\(\d\) produce 6574"$', tcl, re.MULTILINE)]
    assert starts == pytest.approx([i * 0.01 for i in range(8)], abs=1e-12)
    assert '$ns at 10.0 "finish"' in tcl
    assert "trace-queue $n(R1) $n(R2)" in tcl


def test_tcl_follows_overrides_variants_and_jitter():
    sets = twin.point_sets("vegas", 9, "3s") + ["tcp.delayed_ack=true"]
    _, tcl = _tcl(sets, draw=4)
    assert re.search(r"queue-limit \$n\(R1\) \$n\(R2\) 9$", tcl, re.MULTILINE)
    assert _setting(tcl, "windowInit_") == "2"            # Vegas starts with 2 segments (tcp.md B3)
    assert "create-connection TCP/Vegas $n(S1) TCPSink/DelAck $n(D1)" in tcl
    assert '$ns at 3.0 "finish"' in tcl
    starts = [float(t) for t in re.findall(r'^\$ns at (\S+) "\$ftp', tcl, re.MULTILINE)]
    j = twin.jitter(4, 8)
    assert all(0 <= x < twin.JITTER_PS for x in j) and len(set(j)) == 8
    assert starts == pytest.approx([i * 0.01 + x / 1e12 for i, x in enumerate(j)], abs=1e-15)
    # the same jitter reaches atmsim's flows
    sets = twin.jitter_sets(twin.load(twin.SCENARIO, sets), 4)
    assert sets[0] == f"flow.f1.start={j[0]}ps" and sets[7] == f"flow.f8.start={70_000_000_000 + j[7]}ps"
    _, tcl = _tcl(twin.point_sets("sack", 3))
    assert "create-connection TCP/Sack1 $n(S2) TCPSink/Sack1 $n(D2)" in tcl
    with pytest.raises(ValueError):
        twin.load(twin.SCENARIO, ["tcp.variant=vegas-rm"])


def test_metrics_from_a_made_up_trace(tmp_path):
    """Two flows' packets at the bottleneck: delivered bytes in order by the end, drops, occupancy."""
    tw = twin.load(twin.SCENARIO, twin.point_sets("lite", 3, "1s"))
    tx = 9168 * 8 / RATE
    after = tx + 1e-6                     # R2 -> D: one transmission and 1 us
    rows = []
    uid = 0

    def pkt(fid, seq, t_in, t_out=None, drop=False):
        nonlocal uid
        uid += 1
        rows.append(("+", t_in, fid, seq, uid))
        if drop:
            rows.append(("d", t_in, fid, seq, uid))
        else:
            rows.append(("-", t_out, fid, seq, uid))
            rows.append(("r", t_out + tx + 0.03, fid, seq, uid))
    pkt(1, 1, 0.1, 0.1)
    pkt(1, 2, 0.1, 0.1 + tx, drop=True)
    pkt(1, 3, 0.1 + tx, 0.1 + tx)
    pkt(1, 2, 0.5, 0.5)                   # the retransmission fills the hole: 3 packets in order
    pkt(2, 1, 0.2, 0.2)
    pkt(2, 2, 1.0 - 0.03 - tx - after / 2, 1.0 - 0.03 - tx - after / 2)   # reaches D2 after the end
    rows.sort(key=lambda r: r[1])
    path = tmp_path / "b.tr"
    path.write_text("".join(f"{e} {t!r} 16 17 tcp 9168 ------- {f} 0.0 8.0 {s} {u}\n" for e, t, f, s, u in rows), encoding="utf-8")
    stdout = "".join(f"flow {i} 5 1 {i % 2} 2\n" for i in range(1, 9))
    m = twin.ns2_metrics(tw, str(path), stdout)
    assert m["delivered"][:2] == [3 * 9128, 9128] and sum(m["delivered"][2:]) == 0
    assert m["E"] == pytest.approx(4 * 9128 / tw.u_max_bytes)
    assert m["drops"] == 1 and m["retx"] == 8 and m["timeouts"] == 4
    # 5 accepted packets, each in the queue for one transmission (last one cut at 1 s? no: it ends before)
    assert m["occupancy_share"] == pytest.approx(5 * 9168 * tx / 1.0 / (3 * 9168))


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian package ns2) not installed")
def test_one_case_end_to_end():
    """k = 9, Lite, one draw, 3 s, in both simulators. 3 s is mostly the slow-start overshoot and its
    timeouts (E 0.26 in ns-2, 0.47 in atmsim on draw 1), so only what must hold is checked."""
    r = twin.run_case(twin.SCENARIO, twin.point_sets("lite", 9, "3s"), draw=1)
    for sim in ("ns2", "atmsim"):
        m = r[sim]
        assert 0.1 < m["E"] < 1.0, (sim, m)
        assert 0.125 <= m["jain"] <= 1.0
        assert m["drops"] > 0 and m["retx"] > 0 and m["timeouts"] > 0
        assert 0 < m["occupancy_share"] < 1
        assert len(m["delivered"]) == 8
    # the trace reader against ns-2's own counters: a source holds acknowledged (ack_) at most what
    # reached its destination in order, and at least that less one RTT of the line (60 ms + queue)
    ns = r["ns2"]
    for acked, delivered in zip(ns["acked"], ns["delivered"]):
        assert acked <= delivered <= acked + 0.1 * RATE / 8


def test_atmsim_agrees_with_stored_ns2_with_ties_broken():
    """Lite at k = 21 with the arrival ties broken in both (docs/validation.md, D13): atmsim's medians
    over the 10 draws against ns-2's, stored in validation/ns2/twin_points_offsets.json (no ns-2
    needed). Medians then agree to 2 % in E and 0.03 in Jain; the bands leave room for draw noise."""
    import json
    import statistics

    with open(os.path.join(ROOT, "validation", "ns2", "twin_points_offsets.json"), encoding="utf-8") as f:
        data = json.load(f)
    pt = next(p for p in data["points"] if p["variant"] == "lite" and p["k"] == 21)
    rows = [twin.run_case(twin.SCENARIO, twin.point_sets("lite", 21), d, ns2=False, offset_ps=data["offset_ps"])
            for d in range(1, data["draws"] + 1)]
    e = statistics.median(r["atmsim"]["E"] for r in rows)
    j = statistics.median(r["atmsim"]["jain"] for r in rows)
    assert e == pytest.approx(pt["ns2_E"][0], rel=0.05)
    assert abs(j - pt["ns2_jain"][0]) < 0.1
