"""The scheduled cell fabric (docs/fabric.md) against its closed forms and invariants.

F12: one packet's zero-load latency, to the picosecond; F1: the cell tax, exact in bytes at every
packet size; F2: continuous packing within one cell per credit of P/(P + h); the 15-to-1 incast
(`fabric-incast`): no loss inside the fabric and every link within its link credit (F5), every
VOQ's credit identity (F8), per-source fairness (F6), and the egress port's busy share (F4) and the
tail FCT bracket (F7), which hold only when the egress pause threshold covers the synchronized
credit skips the 4,096-B credit and the 4,150-B packet beat out (measured here); bad keys refused.
"""

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import atmsim
from atmsim.reproduce.fabric.common import FLOW_IP_BYTES, busy_share, departures_of, spread_after_start, voq_stall

BASE = """name = "fabric-test"
network = "packet"
duration = "2ms"
flow = [{{ name = "f", kind = "udp", src = "h4", dst = "h0", datagram = "{datagram}B", {how} }}]
[ip]
mtu = "9180B"
[switch]
buffer = "1MB"
[topology]
kind = "fabric"
{extra}
"""

PORT_BPS, LINK_BPS = 400 * 10**9, Fraction(10625, 100) * 10**9
D_PORT, D_LINK = 100_000, 50_000  # ps
P, H, CTL, W = 256, 16, 8, 4096


def tx(nbytes, bps) -> int:
    """A transmitter's time for `nbytes`, rounded up to the picosecond, as the core's."""
    return math.ceil(Fraction(nbytes * 8 * 10**12) / bps)


def run(tmp_path, datagram, how, extra="", set=(), trace=False):
    path = tmp_path / "fabric.toml"
    path.write_text(BASE.format(datagram=datagram, how=how, extra=extra), encoding="utf-8")
    return atmsim.run(str(path), set=list(set), trace=trace)


@pytest.mark.parametrize("length", [1500, 4150])
def test_zero_load_latency_to_the_picosecond(tmp_path, length):
    r = run(tmp_path, length - 28, f'send_at = ["0s"], bytes = "{length - 28}B"')
    fct = r.summary["flows"][0]["completion_time_s"]
    largest_cell = min(length, P) + H
    expected = (
        2 * (tx(length, PORT_BPS) + D_PORT)  # host to FAP, FAP to host, store and forward
        + 4 * (tx(CTL + H, LINK_BPS) + D_LINK)  # FlowStatus there, Credit back: two hops each
        + 2 * (tx(largest_cell, LINK_BPS) + D_LINK)  # the cells, one per link, cross in parallel
    )
    assert round(fct * 1e12) == expected, (fct, expected)
    assert r.summary["accounting"]["balanced"]

    # Its cells cross in parallel, one per link: the last, shorter on the wire, arrives first and
    # waits; each full cell arrives in turn, put in order but with the last still held; the last full
    # one releases everything. So the depth is 1 after every arrival but the last (docs/fabric.md R8).
    fab, n = r.summary["fabric"], -(-length // P)
    assert fab["reorder_depth_at_arrival"] == [[0, 0, 1], [1, 1, n - 1]]
    assert fab["reorder_depth_by_stream"] == [[1, 0, 0, 1]] and fab["reorder_depth_max"] == 1


@pytest.mark.parametrize("length", [64, 256, 257, 1500, 4150, 9000])
def test_the_cell_tax_is_exact_at_every_packet_size(tmp_path, length):
    packets = 40
    r = run(tmp_path, length - 28, f'rate = "100Gbps", bytes = "{packets * (length - 28)}B"')
    fab = r.summary["fabric"]
    assert fab["packets_out"] == packets and fab["cells_balanced"]
    data_wire = fab["up_link_wire_bytes"] - fab["control_wire_bytes_made"]
    cells = -(-length // P)
    assert data_wire == packets * (length + H * cells)
    efficiency = packets * length / data_wire
    closed = {64: 0.800, 256: 0.941, 257: 0.889, 1500: 0.940, 4150: 0.938, 9000: 0.940}[length]
    assert abs(efficiency - closed) < 5e-4, efficiency


def test_continuous_packing_is_within_one_cell_a_credit_of_its_limit(tmp_path):
    packets = 400
    how = f'rate = "100Gbps", bytes = "{packets * 229}B"'  # 257-B packets: 2 cells each unpacked
    off = run(tmp_path, 229, how).summary["fabric"]
    on = run(tmp_path, 229, how, extra='[fabric]\npacking = "continuous"').summary["fabric"]
    payload = packets * 257
    for fab in (off, on):
        assert fab["data_payload_bytes_received"] == payload and fab["cells_balanced"]
    wire_on = on["up_link_wire_bytes"] - on["control_wire_bytes_made"]
    wire_off = off["up_link_wire_bytes"] - off["control_wire_bytes_made"]
    assert wire_off == packets * (257 + 2 * H)
    # Each run a credit releases costs at most one short cell beyond P/(P + h).
    assert payload * (P + H) / P <= wire_on <= payload * (P + H) / P + on["credits_received"] * (P + H)
    assert payload / wire_on > payload / wire_off + 0.04


@pytest.fixture(scope="module")
def incast():
    """fabric-incast at its default pause threshold and at one that covers the credit beat."""
    out = {}
    for stop in ("16KB", "96KB"):
        r = atmsim.run("fabric-incast", set=["trace.port=fabric->h0", f"fabric.scheduler.egress_stop={stop}"], trace=True)
        out[stop] = (r.summary, departures_of(r.traces["port"]))
    return out


def test_the_incast_loses_nothing_inside_the_fabric_and_keeps_its_books(incast):
    for summary, _ in incast.values():
        fab = summary["fabric"]
        assert summary["accounting"]["balanced"] and fab["cells_balanced"] and fab["voq_identity_holds"]
        assert fab["voq_drops"] == 0 and summary["accounting"]["cells_dropped"] == 0  # F5
        assert 0 < fab["llfc_peak_resident_cells"] <= fab["llfc_bound_cells"]
        assert fab["cells_made"] == fab["cells_received"] and fab["cells_inside"] == 0
        assert all(f["bytes_delivered"] == 2_000_000 for f in summary["flows"])


def test_back_to_back_packets_leave_no_gap_and_a_picosecond_is_one():
    # The log's times are seconds; 4,150 B at 400 Gb/s is 83,000 ps. Back to back, no gap at all
    # (computed in floating point, each end less a packet time left 10^-22 s "gaps"); one ps late, one.
    frames = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    ends_ps = 5_000_000_000 + 83_000 * np.arange(1, 9)
    ends_ps[5:] += 1
    share, gaps = busy_share(ends_ps / 1e12, frames)
    assert list(gaps > 0) == [False] * 4 + [True] + [False] * 2 and gaps[4] == 1e-12
    assert share == 1 - 1 / (8 * 83_000 + 1)


def test_voq_stall_finds_the_voq_that_waits_and_the_spread_before_it():
    # Hosts 1-3 share FAP 0's VOQ, 4 and 5 FAP 1's; the VOQs take turns and a VOQ's hosts take turns
    # within it, so each of FAP 0's hosts falls behind FAP 1's, while the VOQs stay a packet apart.
    flows, frames, sent = [], [], {}
    voqs = (["s1", "s2", "s3"], ["s4", "s5"])
    for turn in range(2 * 486 * 3):
        hosts = voqs[turn % 2]
        host = hosts[(turn // 2) % len(hosts)]
        if sent.get(host, 0) < 486:
            flows.append(host)
            frames.append(sent.get(host, 0))
            sent[host] = sent.get(host, 0) + 1
    # FAP 1's last five packets wait until FAP 0 has sent all of its.
    fap1 = [i for i, f in enumerate(flows) if f in ("s4", "s5")]
    order = [i for i in range(len(flows)) if i not in fap1[-5:]] + fap1[-5:]
    flows, frames = np.array(flows)[order], np.array(frames)[order]
    ends = np.arange(len(flows), dtype=float)
    last_before = order.index(fap1[-6])
    stall = voq_stall(ends, flows, frames)
    assert (stall["fap"], stall["from_s"], stall["to_s"]) == (1, last_before, len(flows) - 5)
    assert stall["left"] == 3 * 4150 + 2 * 858
    assert 0 < stall["spread"] <= W + 4150, stall
    assert spread_after_start(ends, flows, frames, 5) > 100 * 4150  # per source: FAP 1's hosts a third ahead
    assert FLOW_IP_BYTES == 485 * 4150 + 858


def test_the_full_grid_splits_each_incasts_idle_gaps_by_its_counterfactuals():
    # F4's note: each default-threshold incast runs beside its two counterfactuals (127 -> 1 in the
    # full grid only), and the gaps left with credits worth a packet are the credit loop's, the
    # difference the skipped credits'.
    import pandas as pd

    from atmsim.reproduce.fabric import INCAST_VARIANTS, _incasts, _split
    from atmsim.reproduce.fabric.common import grid

    labels = [label for label, *_ in INCAST_VARIANTS]
    tags = [r.tag for r in _incasts(grid(False))]
    assert all((n, "16KB", v) in tags for n in (15, 127) for v in ["", *labels])
    assert not any(n == 127 for n, *_ in (r.tag for r in _incasts(grid(True))))
    row = {"sources": 127, "egress_stop": "16KB", "busy_share": 0.98, "long_gaps": 0, "overspeed": 0.01}
    df = pd.DataFrame([{**row, "variant": "", "idle_gaps": 530, "idle_us": 97.0, "paused_slots": 1800},
                       {**row, "variant": labels[0], "idle_gaps": 326, "idle_us": 22.5, "paused_slots": 900},
                       {**row, "variant": labels[1], "idle_gaps": 1278, "idle_us": 130.5, "paused_slots": 4776, "overspeed": 0.05}])
    text = _split(df, next(df[df.variant == ""].itertuples()))
    assert "326 gaps of 22.50 µs" in text and "difference, 204 gaps and 74.50 µs (77% of the idle time)" in text
    assert "4776 slots against 1800" in text and "1278 gaps of 130.50 µs" in text


def test_incast_fairness_and_the_credit_beat(incast):
    for stop, (summary, (ends, flows, frames)) in incast.items():
        # F6: after every source has had a packet out, no two sources differ by more than a credit and a packet.
        spread = spread_after_start(ends, flows, frames, 15)
        assert spread <= W + 4150, (stop, spread)
    # F4 and F7. A 4,150-B packet costs more than a 4,096-B credit, so every VOQ skips one credit
    # in ~76; round robin keeps the 15 VOQs in step, so they skip together: 15 credits, 1.2 us,
    # bring nothing. A 16-KB pause threshold cannot cover that; 96 KB does.
    for stop, expect_holds in (("16KB", False), ("96KB", True)):
        summary, (ends, _, frames) = incast[stop]
        share, gaps = busy_share(ends, frames)
        fab = summary["fabric"]
        skips_per_voq = (fab["credits_received"] - fab["packets_out"]) // 15
        long_gaps = int((gaps > 15 * 80e-9 * 0.5).sum())
        t0 = 30_204_120 * 8 / PORT_BPS
        fct_max = max(f["completion_time_s"] for f in summary["flows"])
        upper = t0 + 2e-6  # T_cr (under 0.5 us here) + 2 credit times + a packet time, generously
        if expect_holds:
            assert share >= 0.99 and long_gaps == 0 and t0 < fct_max <= upper, (share, fct_max)
        else:
            assert share < 0.99 and long_gaps == skips_per_voq and fct_max > upper, (share, long_gaps, skips_per_voq)


def test_a_permutation_at_full_load_serves_every_port_and_link_alike():
    """fabric-perm: 64 flows at 400 Gb/s. A FlowStatus overtaken on another link by a newer one is
    ignored; before that rule, a VOQ whose SLOW status arrived after its NORM one stayed at the
    SLOW pace for good (its flow at ~50 Gb/s of 400)."""
    s = atmsim.run("fabric-perm").summary
    fab = s["fabric"]
    assert s["accounting"]["balanced"] and fab["cells_balanced"] and fab["voq_identity_holds"] and fab["voq_drops"] == 0
    delivered = [f["bytes_delivered"] for f in s["flows"]]
    assert min(delivered) >= 0.97 * max(delivered), (min(delivered), max(delivered))
    busy = [p["busy_fraction"] for p in s["ports"] if p["name"].startswith("fabric->")]
    assert min(busy) >= 0.95, min(busy)
    # Links are not loaded alike (spraying takes control cells in the same round robin as data;
    # docs/fabric.md R9), but every link carries data.
    assert fab["up_link_data_cells_least"] > 0.8 * fab["up_link_data_cells_most"]
    # Link by link (16 FAPs x 18 links): the least and the most are the arrays', every cell made is counted on one link.
    per_link, data = fab["up_link_cells"], fab["up_link_data_cells"]
    assert len(per_link) == len(data) == 16 * 18
    assert (min(per_link), max(per_link), min(data), max(data)) == (
        fab["up_link_cells_least"], fab["up_link_cells_most"], fab["up_link_data_cells_least"], fab["up_link_data_cells_most"])
    assert all(d <= c for d, c in zip(data, per_link))
    # Reorder depth: one stream per flow (a FAP's four hosts each to a port of its own), the fabric's
    # peak the streams' largest, and every data cell's arrival in one bin, the deepest at that peak.
    streams, bins = fab["reorder_depth_by_stream"], fab["reorder_depth_at_arrival"]
    assert len(streams) == len(s["flows"]) and max(p for *_, p in streams) == fab["reorder_depth_max"] > 0
    assert sum(c for *_, c in bins) == fab["cells_received"]["data"]
    assert bins[-1][:2] == [fab["reorder_depth_max"]] * 2 and all(c > 0 for *_, c in bins)


@pytest.mark.parametrize("sets, key", [
    (["fabric.fap_links=17"], "fabric.fap_links"),
    # Named as fabric.fap_links ("must be a positive multiple of fabric.fes (0)").
    (["fabric.fes=0"], "fabric.fes"),
    (["fabric.fes=2000"], "fabric.fes"),
    (["fabric.faps=0"], "fabric.faps"),
    (["fabric.faps=300"], "fabric.faps"),
    (["fabric.credit_worth=9000B"], "fabric.credit_worth"),
    (["fabric.credit_worth=1B"], "fabric.credit_worth"),
    (["fabric.packing=maybe"], "fabric.packing"),
    (["fabric.scheduler.egress_stop=2MB"], "fabric.scheduler.egress_stop"),
    (["fabric.crs.off_to_norm=-1KB"], "fabric.crs.off_to_norm"),
    (["fabric.llfc.n3=0"], "fabric.llfc.n3"),
    (["fabric.link_rate=0bps"], "fabric.link_rate"),
    # Links too slow for any credit (at most 8,191 B) were named as fabric.credit_worth, "at least 2154666666667 B here".
    (["fabric.link_rate=1bps"], "fabric.link_rate"),
    (["fabric.port_rate=500000Gbps"], "fabric.port_rate"),
    (["fabric.port_rate=abc"], "fabric.port_rate"),
    (["fabric.port_delay=-1ns"], "fabric.port_delay"),
    (["fabric.crs.slow_rate=0"], "fabric.crs.slow_rate"),
    (["router.policy=trim"], "router.policy"),
    (["topology.k=4"], "topology.k"),
])
def test_bad_fabric_keys_are_refused_naming_the_key(sets, key):
    args = [sys.executable, "-m", "atmsim", "validate", "fabric-incast"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stderr.startswith(f"atmsim: error: {key}: ") and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("key, says", [
    ("fabric.fes=0", "fabric.fes: must be 1 to 1024 (each fabric element takes at least one of a FAP's links), not 0"),
    # Echoed in its 309 digits before.
    ("fabric.scheduler.overspeed=1e308", "fabric.scheduler.overspeed: must be 0 to 1, not 1e308"),
    ("fabric.crs.slow_rate=1e308", "fabric.crs.slow_rate: must be in (0, 1] (a fraction of the port rate), not 1e308"),
])
def test_a_bad_fabric_value_is_echoed_as_written(key, says):
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve("fabric-incast", [key])
    assert str(e.value) == says


def test_a_three_stage_key_is_echoed_as_a_number_not_a_rust_option():
    # "not Some(0)", "not None" before.
    for sets, says in [(["fabric.fe2s=0"], "fabric.fe2s: three stages need at least one FE2, not 0"),
                       (["fabric.group_faps=0"], "divisor of fabric.faps (256), not 0")]:
        with pytest.raises(atmsim.ScenarioError) as e:
            atmsim.resolve("fabric-3stage", sets)
        assert str(e.value).endswith(says), e.value
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve("fabric-incast", ["fabric.stages=3"])
    assert str(e.value) == "fabric.group_faps: three stages need FAPs per group, a divisor of fabric.faps (16): set it"


def test_a_fabric_section_elsewhere_does_nothing_and_is_refused():
    p = subprocess.run([sys.executable, "-m", "atmsim", "validate", "aron97-topo1-packet", "--set", "fabric.faps=4"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "fabric" in p.stderr and "does nothing here" in p.stderr, p.stderr


def test_credits_the_links_cannot_carry_are_refused_and_those_they_can_run():
    # Issue 38 (the fuzzer, seed 38): fabric-incast with 1-B credits held 4 GB after 60 s of wall time, its Credit
    # cells queueing without end before the FAP's links. The refusal names the smallest credit that fits, which runs.
    with pytest.raises(atmsim.ScenarioError, match=r"^fabric.credit_worth: 1 B: a FAP's 4 ports granting") as e:
        atmsim.resolve("fabric-incast", ["fabric.credit_worth=1B"])
    least = int(float(str(e.value).split("at least ")[1].split(" B")[0]))
    with pytest.raises(atmsim.ScenarioError, match="fabric.credit_worth"):
        atmsim.resolve("fabric-incast", [f"fabric.credit_worth={least - 1}B"])
    s = atmsim.run("fabric-incast", set=[f"fabric.credit_worth={least}B", "duration=20ms"]).summary
    assert s["accounting"]["balanced"] and sum(f["bytes_delivered"] for f in s["flows"]) == 30_000_000
