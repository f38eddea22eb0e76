"""The Fall & Floyd forced-drop suite (ns-2's test-suite-tcpVariants.tcl) against atmsim.

validation/ns2/forced_drops.py runs both simulators; docs/validation.md has the mapping and the
results. Here, without ns-2: atmsim's own behaviour on the 16 + 4 cases, and atmsim's packets
against ns-2's as stored in validation/ns2/ns2_reference.json (identical up to the documented
point of divergence, no earlier). With `ns` on PATH, also: ns-2 still produces that reference.
Regenerate it with `python validation/ns2/forced_drops.py --write-reference
validation/ns2/ns2_reference.json` when a change is intended, and update docs/validation.md.
"""
import json
import os
import shutil
import sys
import tempfile

import pytest

import atmsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "validation", "ns2"))
import forced_drops as fd  # noqa: E402

with open(os.path.join(ROOT, "validation", "ns2", "ns2_reference.json"), encoding="utf-8") as f:
    REFERENCE = json.load(f)["cases"]


def _run_atmsim(variant, ndrops):
    v = fd.VARIANTS[variant]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "scenario.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(fd.atmsim_toml(v, fd.DROPS[ndrops]))
        r = atmsim.run(path, trace=True)
    tr = fd.parse_atmsim_rows(r.traces["events"].to_dict("records"), r.traces["window"].to_dict("records"))
    return tr, r.flows


_CACHE = {}


def atmsim_case(variant, ndrops):
    key = (fd.VARIANTS[variant].atmsim, ndrops)   # reno and reno-nobugfix share atmsim's lite runs
    if key not in _CACHE:
        _CACHE[key] = _run_atmsim(variant, ndrops)
    return _CACHE[key]


def ns2_from_reference(case):
    tr = fd.Trace()
    top = 0
    for t, p in REFERENCE[case]["sends"]:
        tr.sends.append((t, p, p <= top))
        top = max(top, p)
    return tr


# atmsim's own behaviour: (fast retransmits, timeouts) per variant and number of drops.
EXPECTED = {
    "tahoe": {1: (1, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0)},
    "reno": {1: (1, 0), 2: (2, 0), 3: (2, 1), 4: (2, 1)},      # atmsim lite: BSD Reno
    "newreno": {1: (1, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0)},
    "sack": {1: (1, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0)},
}


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_atmsim_recovery_on_the_forced_drops(variant):
    for nd in (1, 2, 3, 4):
        tr, _ = atmsim_case(variant, nd)
        drops = fd.DROPS[nd]
        assert (len(tr.fast_retransmits), len(tr.timeouts)) == EXPECTED[variant][nd], (variant, nd)
        # the scripted drops are exactly ns-2's packet numbers, at the first transmissions
        assert [p for _, p in tr.drops] == drops
        # third duplicate ACK of packet 13, as in ns-2 (SACK: its option bytes delay it by 0.2 ms, D9)
        assert tr.fast_retransmits[0] == pytest.approx(1.0692, abs=1e-9 if variant != "sack" else 3e-4)
        rtx = [p for _, p, r in tr.sends if r]
        ns2_done = REFERENCE[f"{variant}-{nd}"]["ns2"]["last_drop_acked_s"]
        if variant in ("newreno", "sack"):
            # one retransmission per drop, no timeout: every loss repaired in one recovery
            assert sorted(rtx) == drops
        if variant in ("tahoe", "newreno"):
            # the last dropped packet is acknowledged at the very instant it is in ns-2
            assert tr.recovered_at(max(drops)) == pytest.approx(ns2_done, abs=1e-6)
        if variant == "sack":
            # later by 21-41 ms: RFC 6675 resends a hole once 3 segments above it are SACKed (D7)
            assert ns2_done < tr.recovered_at(max(drops)) < ns2_done + 0.05 or nd == 1
        if variant == "tahoe":
            assert rtx[0] == 14


def test_reno_one_drop_is_one_fast_retransmit_and_the_same_packets_as_ns2():
    tr, _ = atmsim_case("reno", 1)
    assert len(tr.fast_retransmits) == 1 and tr.timeouts == []
    assert [(t, p) for t, p, r in tr.sends if r] == [(pytest.approx(1.0692, abs=1e-9), 14)]
    assert tr.recovered_at(14) == pytest.approx(1.28108, abs=1e-9)
    c = fd.compare(ns2_from_reference("reno-1"), tr)
    assert c["identical_packets"] == 36
    # where they part, atmsim's cwnd went from ssthresh to ssthresh + 1 MSS (BSD, D1)
    assert fd.slow_start_at_equality(tr, c["parts_at_s"])


def test_sack_four_drops_recovers_without_timeout():
    tr, flows = atmsim_case("sack", 4)
    assert tr.timeouts == [] and len(tr.fast_retransmits) == 1
    assert sorted(p for _, p, r in tr.sends if r) == [14, 24, 26, 28]
    assert flows.timeouts.iloc[0] == 0


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_atmsim_against_ns2_reference(case):
    variant, nd = case.rsplit("-", 1)
    tr, _ = atmsim_case(variant, int(nd))
    ref = REFERENCE[case]
    c = fd.compare(ns2_from_reference(case), tr)
    # identical (same packets at the same instants) exactly as far as docs/validation.md says
    assert c["identical_packets"] == ref["identical_packets"], c["timing_divergence"]
    assert c["near_identical_packets"] == ref["near_identical_packets"]
    assert c["same_packet_order"] == ref["same_packet_order"], c["order_divergence"]
    if variant in ("tahoe", "reno", "reno-nobugfix") and case not in ("reno-4", "reno-nobugfix-4"):
        assert fd.slow_start_at_equality(tr, c["parts_at_s"]), case
    if variant == "sack":
        # no packet at the same instant: the SACK option's bytes (D9) shift them by 0.09-0.2 ms
        assert c["identical_packets"] == 0 and 0.08 < c["max_dt_while_near_ms"] < 0.25


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian package ns2) not installed")
@pytest.mark.parametrize("case", ["reno-1", "sack-4"])
def test_ns2_still_gives_the_reference(case, tmp_path):
    variant, nd = case.rsplit("-", 1)
    ns = fd.run_ns2(fd.VARIANTS[variant], fd.DROPS[int(nd)], str(tmp_path))
    ref = REFERENCE[case]
    assert [[round(t, 6), p] for t, p, _ in ns.sends] == ref["sends"]
    assert fd.summarize(ns, fd.DROPS[int(nd)]) == ref["ns2"]
