"""CUBIC beside ns-3 3.44's TcpCubic on the dumbbells (docs/validation.md, "CUBIC beside ns-3"):
the stored ns-3 results (validation/ns3/cubic_dumbbell_reference.json, from `python
validation/cubic_ns3.py --ns3-python PY`) against fresh atmsim runs, so no ns-3 is needed.

The stored atmsim rows are what atmsim gives today: a model change that moves them must rerun
the comparison (and say what moved), not leave a stale table in the docs. The tolerances are
the largest gaps measured over the six aligned dumbbells with a margin; each gap has its named
cause (C1-C9 in docs/validation.md):

* link use within 0.015 (largest gap 0.005);
* the flows' mean window, and the sawtooth's mean peak and trough, within 3 % (largest 1.6 %),
  trough / peak 0.690-0.699 in both (β = 0.7: C3, C4); how the two flows split the link is
  not compared (atmsim's deterministic dumbbell splits up to 5.83 / 3.90 Gb/s, ns-3's at most
  4.72 / 5.02: not traced);
* the port's mean queue within a tenth of the buffer (largest 6.1 of 100 packets, at 500 us);
* atmsim cuts from 5 % less often than ns-3 to 30 % more (measured 2 % less to 12 % more: C1,
  with two flows a peak can pass the last cwnd_prior, where α_cubic turns 1 in atmsim as
  RFC 9438 §4.3 says and never in ns-3).
"""
from __future__ import annotations


import numpy as np
import pytest
from ns3_rows import assert_rows_are_todays, assert_store_covers, fct, load_study

study, STORE = load_study("cubic_ns3")
HERE = "dumbbell-100us-b100"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    cache: dict[tuple, dict] = {}

    def get(name: str) -> dict:
        p = study.SCENARIOS[name]
        key = study.atmsim_part(p)
        if key not in cache:
            cache[key] = study.measure(p, tmp_path_factory.mktemp("cubic"))
        return cache[key]
    return get


def test_the_store_covers_every_scenario_with_its_parameters():
    assert_store_covers(STORE, study.SCENARIOS)
    for name, entry in STORE.items():
        assert entry["ns3"]["cubic_attributes"] == ["HyStart=false"] + study.SCENARIOS[name]["ns3_cubic_attr"]
        assert entry["ns3"]["recovery"] == ("TcpPrrRecovery" if name.endswith("ns3prr") else "TcpClassicRecovery")
        assert entry["ns3"].get("limited_transmit", False) == study.SCENARIOS[name].get("ns3_limited_transmit", False)


@pytest.mark.parametrize("name", sorted(study.SCENARIOS))
def test_atmsim_rows_are_todays(fresh, name):
    assert_rows_are_todays(fresh(name), STORE[name]["atmsim"], "validation/cubic_ns3.py --ns3-python PY")


@pytest.mark.parametrize("name", study.ALIGNED)
def test_dumbbell_beside_ns3(fresh, name):
    ours, ns3, buffer = fresh(name), STORE[name]["ns3"], study.SCENARIOS[name]["buffer"]
    assert abs(ours["utilisation"] - ns3["utilisation"]) <= 0.015
    assert abs(ours["queue_mean"] - ns3["queue_mean"]) <= 0.1 * buffer
    assert ours["queue_max"] == ns3["queue_max"] == buffer
    for key in ("mean_cwnd", "peak_cwnd", "trough_cwnd"):
        assert study.mean(ours, key) == pytest.approx(study.mean(ns3, key), rel=0.03), key
    for m in (ours, ns3):
        assert 0.685 <= study.mean(m, "trough_cwnd") / study.mean(m, "peak_cwnd") <= 0.70
    assert 0.95 * study.mean(ns3, "decreases") <= study.mean(ours, "decreases") <= 1.3 * study.mean(ns3, "decreases")


def test_the_reno_friendly_region_drives_the_window_at_these_round_trips():
    """C2: without TcpFriendliness ns-3's window grows by its cubic alone and hardly cuts in
    0.6 s; so the rules of the cubic term (its RTT lookahead, CubicDelta, W_max after fast
    convergence) cannot move these runs: ns-3 without fast convergence gives the same run."""
    base, friendless = STORE[HERE]["ns3"], STORE[f"{HERE}-ns3nofriendly"]["ns3"]
    assert study.mean(friendless, "decreases") <= 0.1 * study.mean(base, "decreases")
    for name in (f"{HERE}-ns3nofastconv", f"{HERE}-ns3cubicdelta0"):
        other = STORE[name]["ns3"]
        assert other["flows"] == base["flows"] and other["queue_mean"] == base["queue_mean"], name


def test_one_flow_cuts_as_often_as_in_ns3(fresh):
    """C1: one flow, so no competitor's cut to pass: the two cut as often (within 10 %), at
    peaks and troughs equal within a segment."""
    name = f"{HERE}-1flow"
    ours, ns3 = fresh(name), STORE[name]["ns3"]
    assert study.mean(ours, "decreases") == pytest.approx(study.mean(ns3, "decreases"), rel=0.10)
    for key in ("peak_cwnd", "trough_cwnd"):
        assert abs(study.mean(ours, key) - study.mean(ns3, key)) <= 1.0, key


def test_every_cycle_of_one_flow_lasts_as_long_as_ns3s(tmp_path):
    """C1 measured: one flow loses at about 185 segments every cycle. RFC 9438 §4.3 turns
    α_cubic to 1 once W_est reaches cwnd_prior, the window before the cut, which a cycle
    after fast convergence reaches no sooner than the others; so atmsim's cycles are all
    alike (before atmsim followed that rule it turned α_cubic to 1 at W_max, 0.85 of
    cwnd_prior after fast convergence, and such cycles lasted 3/4 of the others), and as long
    as ns-3's, whose α_cubic never turns 1, within a millisecond (its cwnd is read on a 1-ms grid)."""
    name = f"{HERE}-1flow"
    p = study.SCENARIOS[name]
    times, peaks = study.atmsim_cycles(p, tmp_path)
    length = np.diff(times)[1:]
    after_fc = peaks[1:-1] < peaks[:-2]
    assert len(length) >= 20
    if after_fc.any():
        assert length[after_fc].mean() >= 0.95 * length[~after_fc].mean()
    assert np.ptp(length) <= 0.0015
    times3, _ = study.ns3_cycles(p, STORE[name]["ns3"])
    assert np.ptp(np.diff(times3)) <= 0.0015
    assert abs(np.diff(times3).mean() - length.mean()) <= 0.001


def test_incast_without_loss_is_the_same_slow_start(fresh):
    """Eight initial windows of 10 and slow start into 400 packets: nothing lost, no CUBIC
    decision taken; the two agree to the microsecond and to the packet."""
    ours, ns3 = fresh("incast-8x64KB"), STORE["incast-8x64KB"]["ns3"]
    assert ours["drops"] == ns3["drops"] == 0
    assert fct(ours) == pytest.approx(fct(ns3), abs=2e-6)
    assert ours["queue_max"] == ns3["queue_max"] and ours["queue_mean"] == pytest.approx(ns3["queue_mean"], abs=0.1)


@pytest.mark.parametrize("name", ["incast-8x64KB-buffer32", "incast-8x64KB-buffer32-nosack"])
def test_incast_with_losses_beside_ns3(fresh, name):
    """32 packets: the same drops and the same fast recoveries, no timeout in either; completion
    within 10 % (C8)."""
    ours, ns3 = fresh(name), STORE[name]["ns3"]
    assert ours["drops"] == ns3["drops"] > 0
    for key in ("recoveries", "timeouts"):
        assert sum(f[key] for f in ours["flows"]) == sum(f[key] for f in ns3["flows"]), key
    assert fct(ours) == pytest.approx(fct(ns3), rel=0.10)


def _done_us(m: dict) -> list[float]:
    return [f["completion_s"] * 1e6 for f in m["flows"]]


def test_with_sack_the_incast_gap_is_limited_transmit_and_one_tie(fresh):
    """C8 with SACK: ns-3 sends a new segment on each of the first two duplicate ACKs whatever
    its LimitedTransmit says (its SACK pipe counts SACKed segments out of the flight), so its
    run with LimitedTransmit on is the same run. atmsim with tcp.limited_transmit does the same:
    flows 3-7, which lose the same segments in both, then finish within 6 us of ns-3's (without it
    up to 20 us later); the last flow still finishes later (739 against 716 us) because an arrival
    that meets a departure at the full port is admitted in atmsim and dropped in ns-3, which makes
    flow 8 lose segment 17 rather than 16 (the flows these ties reach, 1, 2 and 8, are left out)."""
    base, lt = STORE["incast-8x64KB-buffer32"]["ns3"], STORE["incast-8x64KB-buffer32-lt"]["ns3"]
    assert lt["flows"] == base["flows"] and lt["queue_mean"] == base["queue_mean"]
    ns3 = _done_us(base)[2:7]
    plain, limited = _done_us(fresh("incast-8x64KB-buffer32"))[2:7], _done_us(fresh("incast-8x64KB-buffer32-lt"))[2:7]
    assert max(abs(a - b) for a, b in zip(limited, ns3)) <= 6
    assert max(a - b for a, b in zip(plain, ns3)) >= 15
    assert fct(fresh("incast-8x64KB-buffer32-lt")) == pytest.approx(fct(base), rel=0.04)
    assert fct(fresh("incast-8x64KB-buffer32")) > 1.05 * fct(base)


def test_without_sack_ns3_counts_the_first_duplicates_only_with_limited_transmit(fresh):
    """C8 without SACK: RFC 6582 §3.2 step 2 enters recovery with cwnd = ssthresh + 3 SMSS, the
    three duplicates counted as segments that left; ns-3 counts one unless LimitedTransmit is on
    (then each of the first two adds a Reno SACK). With it on, ns-3's incast is atmsim's to the
    microsecond (flows 3-7 within 2 us, the last 1,034 against 1,033 us); off, 11 % slower."""
    ours = fresh("incast-8x64KB-buffer32-nosack")
    off, on = STORE["incast-8x64KB-buffer32-nosack"]["ns3"], STORE["incast-8x64KB-buffer32-nosack-ns3lt"]["ns3"]
    assert max(abs(a - b) for a, b in zip(_done_us(ours)[2:7], _done_us(on)[2:7])) <= 2
    assert fct(on) == pytest.approx(fct(ours), rel=0.005)
    assert fct(off) > 1.08 * fct(ours)
