"""CUBIC beside ns-3 (docs/tcp.md, "CUBIC and the ns-3 cross-check"): the stored ns-3 3.44
results (validation/ns3/cubic_reference.json, from `python bench/ns3/sack.py --cubic ...`)
against fresh atmsim runs, so no ns-3 is needed here.

- The stored atmsim rows are what atmsim gives today, run by run: a model change that moves
  them must rerun the comparison (and say what moved), not leave a stale table in the docs.
- At every buffer atmsim's cubic-sack keeps E within 0.07 of ns-3's TcpCubic with SACK (the
  largest gap measured is 0.064, at 192,528 B, atmsim above at four of five buffers; it was
  0.045 before atmsim's α_cubic followed RFC 9438 §4.3, and seeds 2-5 give 0.051-0.068 there;
  on ns-3's timer granularity 0.039, the rest not traced) and sends about one retransmission per drop, as ns-3 does: the two agree on what
  the protocol does with the bottleneck; fairness moves with timer phases in both and is not
  compared.
"""
import json
from pathlib import Path

import pytest

import atmsim

STORE = json.loads((Path(__file__).resolve().parents[1] / "validation" / "ns3" / "cubic_reference.json")
                   .read_text(encoding="utf-8"))
ROWS = {(r["model"], r["buffer"]): r for r in STORE["rows"]}
BUFFERS = sorted({b for _, b in ROWS})


def fresh(variant, buffer, *more):
    s = atmsim.run("aron97-topo1-packet", [f"tcp.variant={variant}", f"switch.buffer={buffer}B", *more]).summary
    flows = s["flows"]
    return {"effective_throughput": s["effective_throughput"], "fairness": s["fairness"],
            "retransmissions": sum(f["segments_retransmitted"] for f in flows),
            "timeouts": sum(f["timeouts"] for f in flows), "recoveries": sum(f["fast_retransmits"] for f in flows),
            "bottleneck_drops": next(p["units_dropped"] for p in s["ports"] if p["name"] == s["bottleneck"])}


@pytest.mark.parametrize("buffer", BUFFERS)
def test_cubic_sack_beside_ns3(buffer):
    ours = fresh("cubic-sack", buffer)
    stored = {k: v for k, v in ROWS[("atmsim cubic-sack", buffer)].items() if k not in ("model", "buffer")}
    assert ours == pytest.approx(stored, rel=1e-12), "atmsim moved: rerun bench/ns3/sack.py --cubic and update the store"
    ns3 = ROWS[("ns-3 cubic-sack", buffer)]
    assert abs(ours["effective_throughput"] - ns3["effective_throughput"]) <= 0.07, (ours, ns3)
    for r in (ours, ns3):
        assert 0.9 <= r["retransmissions"] / r["bottleneck_drops"] <= 1.1, r


def test_the_store_covers_both_simulators_at_every_buffer():
    models = {m for m, _ in ROWS}
    assert models == {"ns-3 cubic-sack", "ns-3 cubic-sack-prr", "atmsim cubic-sack", "atmsim cubic"}
    assert len(ROWS) == 4 * len(BUFFERS) and len(BUFFERS) == 5


def test_no_tcpcubic_attribute_closes_the_drop_gap_at_the_small_buffers():
    """docs/tcp.md, "CUBIC beside ns-3": ns-3 rerun with one TcpCubic rule changed at a time
    (stored under attribute_rows). CubicDelta 0 gives the identical run; no change brings ns-3's
    drops near atmsim's, whose count of fast recoveries is ns-3's own within 12 % (98 and 104
    against 104 and 94): ns-3 drops more packets a fast recovery."""
    attr = {(r["model"].split()[-1], r["buffer"]): r for r in STORE["attribute_rows"]}
    small = BUFFERS[:2]
    assert set(attr) == {(a, b) for a in ("CubicDelta=0", "FastConvergence=false", "TcpFriendliness=false") for b in small}
    numbers = ("effective_throughput", "fairness", "retransmissions", "timeouts", "recoveries", "bottleneck_drops")
    for b in small:
        ns3, ours = ROWS[("ns-3 cubic-sack", b)], ROWS[("atmsim cubic-sack", b)]
        assert {k: attr[("CubicDelta=0", b)][k] for k in numbers} == {k: ns3[k] for k in numbers}
        for (_, buffer), r in attr.items():
            if buffer == b:
                assert r["bottleneck_drops"] > 1.3 * ours["bottleneck_drops"], r
        assert ours["recoveries"] == pytest.approx(ns3["recoveries"], rel=0.12)
        assert ours["bottleneck_drops"] / ours["recoveries"] < 0.7 * ns3["bottleneck_drops"] / ns3["recoveries"]


def test_the_bsd_timer_is_part_of_the_gap_at_192528_bytes():
    """docs/tcp.md, "CUBIC beside ns-3": at 192,528 B ns-3's timeouts all fall at 1.22-1.27 s and
    its flows then all compete, where atmsim's BSD 500-ms timer keeps flows out for seconds. On
    ns-3's timer granularity (a 1-s minimum RTO on a 10-ms clock) atmsim's E comes from 0.064
    above ns-3's to 0.039: part of the gap, not all of it. Limited transmit moves E by less
    than 0.005."""
    ns3 = ROWS[("ns-3 cubic-sack", 192528)]["effective_throughput"]
    bsd = fresh("cubic-sack", 192528)["effective_throughput"]
    fine = fresh("cubic-sack", 192528, "tcp.tick=10ms", "tcp.rttmin_ticks=100")["effective_throughput"]
    assert fine - ns3 < bsd - ns3 - 0.02
    assert fine - ns3 > 0.03
    limited = fresh("cubic-sack", 192528, "tcp.limited_transmit=true")["effective_throughput"]
    assert abs(limited - bsd) < 0.005
