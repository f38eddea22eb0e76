"""ECN (RFC 3168) at RED routers and in TCP (docs/packet.md "ECN at RED
routers", docs/tcp.md "ECN"): RED's early drops of ECN-capable packets become
CE marks, the senders halve their windows on the echo, and retransmissions in
the second half of the run fall well below RED-with-drops'; the marks and the
flags are on the wire of a capture, as tshark reads them.
"""
import json

import pytest

import atmsim
from test_capture import needs_tshark, tshark_rows

SCENARIO = "aron97-topo1-packet"
RED = ["router.policy=red", "switch.buffer=60packets", "router.red.ecn=true"]


def bottleneck(summary):
    return next(p for p in summary["ports"] if p["name"] == "R1->R2")


def late_retransmissions(sets):
    """Retransmitted segments in [5 s, 10 s] (the second half, clear of the start's overshoot) and the 10 s run."""
    half = atmsim.run(SCENARIO, sets + ["duration=5s"], seed=1).summary
    full = atmsim.run(SCENARIO, sets + ["duration=10s"], seed=1).summary
    rtx = sum(f["segments_retransmitted"] for f in full["flows"]) - sum(f["segments_retransmitted"] for f in half["flows"])
    return rtx, full


def test_ecn_turns_early_drops_into_marks_and_retransmissions_fall():
    totals = {False: 0, True: 0}
    for variant in ["lite", "newreno", "vegas"]:
        for ecn in (False, True):
            sets = RED + [f"tcp.variant={variant}"] + (["tcp.ecn=true"] if ecn else [])
            rtx, s = late_retransmissions(sets)
            totals[ecn] += rtx
            p = bottleneck(s)
            early = p["drops_by_reason"].get("red", 0) - p["red_forced_drops"]
            flows = s["flows"]
            if not ecn:
                assert p["units_marked"] == 0 and early > 20, (variant, p)
                assert all("ecn_echoes" not in f for f in flows)
                continue
            # Only packets that are not ECN-capable are still dropped early: retransmissions (RFC 3168 §6.1.5).
            assert p["units_marked"] > 50 and early <= 5, (variant, p)
            ce = sum(f["ecn_ce_received"] for f in flows)
            assert 0 < ce <= p["units_marked"], (variant, ce)
            for f in flows:
                assert f["ecn_reductions"] <= min(f["ecn_echoes"], f["ecn_ce_received"]), f
                assert f["ecn_cwr_sent"] >= f["ecn_reductions"], f
    assert totals[True] < 0.5 * totals[False], totals


def test_red_with_ecn_and_no_ecn_capable_packet_is_plain_red():
    plain = atmsim.run(SCENARIO, ["router.policy=red", "switch.buffer=60packets", "duration=3s"], seed=2).summary
    marking = atmsim.run(SCENARIO, RED + ["duration=3s"], seed=2).summary
    assert bottleneck(marking)["units_marked"] == 0 and bottleneck(marking)["red_forced_drops"] > 0
    for s in (plain, marking):
        s.pop("wall_s")
        for p in s["ports"]:
            p.pop("units_marked", None)
            p.pop("red_forced_drops", None)
    assert plain == marking


def test_gentle_red_with_ecn_turns_forced_drops_into_marks_but_the_overshoot_still_overflows():
    # docs/packet.md P5, gentle RED: at 60 packets the start's overshoot drives RED's average above
    # max_th; gentle RED marks there (early drops up to 2·max_th) where plain RED forces drops, so
    # forced drops fall and marks rise, but the queue then reaches the buffer: tail drops rise.
    # All of it happens in the first second; 2 s runs suffice.
    for variant in ["lite", "newreno", "vegas"]:
        sets = RED + [f"tcp.variant={variant}", "tcp.ecn=true", "duration=2s"]
        plain = bottleneck(atmsim.run(SCENARIO, sets, seed=1).summary)
        gentle = bottleneck(atmsim.run(SCENARIO, sets + ["router.red.gentle=true"], seed=1).summary)
        assert gentle["red_forced_drops"] < 0.5 * plain["red_forced_drops"], (variant, plain, gentle)
        assert gentle["units_marked"] > 2 * plain["units_marked"], (variant, plain, gentle)
        assert gentle["drops_by_reason"]["tail"] > plain["drops_by_reason"]["tail"], (variant, plain, gentle)


@pytest.mark.parametrize("sets,key", [
    (["tcp.ecn=true"], "tcp.ecn"),
    (["network=packet", "tcp.ecn=yes"], "tcp.ecn"),
    (["network=packet", "router.policy=red", "switch.buffer=21packets", "router.red.ecn=1"], "router.red.ecn"),
    (["network=packet", "router.policy=red", "switch.buffer=21packets", "router.red.gentle=yes"], "router.red.gentle"),
])
def test_bad_ecn_input_exits_2_naming_the_key(cli, sets, key):
    args = ["run", "aron97-topo1-atm"]
    for s in sets:
        args += ["--set", s]
    p = cli(*args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"atmsim: error: {key}: "), p.stderr


@needs_tshark
def test_the_capture_shows_ect_ce_ece_and_cwr(cli, tmp_path):
    out, pcap = tmp_path / "run", tmp_path / "pcap"
    args = ["run", SCENARIO, "--json", "--out", str(out), "--pcap", str(pcap)]
    for s in RED + ["tcp.ecn=true", "duration=3s", 'capture.ports=["R1->R2"]', 'capture.hosts=["S1", "D1"]']:
        args += ["--set", s]
    summary = json.loads(cli(*args, check=True).stdout)
    f1 = summary["flows"][0]
    fields = ["ip.dsfield.ecn", "tcp.flags.ece", "tcp.flags.cwr", "tcp.flags.syn", "tcp.srcport", "tcp.len"]
    port = tshark_rows(pcap / "port-R1-R2.pcap", fields)
    assert sum(r["ip.dsfield.ecn"] == "3" for r in port) == bottleneck(summary)["units_marked"] > 0
    for host in ("S1", "D1"):
        rows = tshark_rows(pcap / f"host-{host}.pcap", fields)
        data = [r for r in rows if r["tcp.srcport"] == "1024" and r["tcp.len"] not in ("", "0")]
        acks = [r for r in rows if r["tcp.srcport"] == "33000"]
        # The ECN-setup SYN (ECE and CWR) and SYN-ACK (ECE alone), RFC 3168 §6.1.1.
        syn = next(r for r in rows if r["tcp.flags.syn"] == "1" and r["tcp.srcport"] == "1024")
        synack = next(r for r in rows if r["tcp.flags.syn"] == "1" and r["tcp.srcport"] == "33000")
        assert (syn["tcp.flags.ece"], syn["tcp.flags.cwr"], synack["tcp.flags.ece"], synack["tcp.flags.cwr"]) == ("1", "1", "1", "0")
        assert all(r["ip.dsfield.ecn"] == "0" for r in acks), "pure ACKs are not ECT (§6.1.4)"
        assert sum(r["tcp.flags.cwr"] == "1" for r in data) == f1["ecn_cwr_sent"] > 0
        assert sum(r["tcp.flags.ece"] == "1" for r in acks if r["tcp.flags.syn"] == "0") == f1["ecn_echoes"] > 0
        marked = sum(r["ip.dsfield.ecn"] == "3" for r in data)
        # Sent ECT(0) at S1; at D1 some arrive CE.
        assert marked == (0 if host == "S1" else f1["ecn_ce_received"])
        assert sum(r["ip.dsfield.ecn"] == "2" for r in data) + marked + f1["segments_retransmitted"] >= len(data)
