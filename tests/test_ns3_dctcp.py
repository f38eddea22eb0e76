"""DCTCP beside ns-3 3.44's TcpDctcp (docs/validation.md, "DCTCP beside ns-3"): the stored
ns-3 results (validation/ns3/dctcp_reference.json, from `python validation/dctcp_ns3.py
--ns3-python PY`) against fresh atmsim runs of the same scenarios, so no ns-3 is needed.

The stored atmsim rows are what atmsim gives today: a model change that moves them must rerun
the comparison (and say what moved), not leave a stale table in the docs. The tolerances are
the largest gaps measured over the six aligned dumbbells with a margin; each gap has its named
cause (N1-N11 in docs/validation.md):

* link use within 0.01 (largest gap 0.001);
* the port's mean queue within 1 packet (largest 0.4) and its maximum within 2 (atmsim's is
  1 higher at every K, N1);
* each flow's mean window, and the sawtooth's mean peak and trough, within 3 % (largest 1.5 %);
* decreases within 12 % and marks within 12 % (largest 9.3 % and 8.4 %, at 100 us, where
  atmsim cuts more often because ns-3 freezes its window after an echo, N2);
* alpha at the end within 0.05 (largest 0.041, at 500 us: alpha moves by about g x M at each
  marked window, so one instant of the sawtooth differs from another).

The buffer sweep (K = 20, SACK, 40-Gb/s access links) is held to the same tolerances where the
buffer does not bind the sawtooth (32 and 400 packets), but alpha within 0.07 (largest 0.059)
and the drops of slow start's overshoot within 20 % (35 against 33 and 29 against 27); at 22 packets (K + 2), where
atmsim once departed by N11 (fixed), link use within 0.01 and the queue's mean within 1 packet.
"""
from __future__ import annotations

import numpy as np
import pytest
from ns3_rows import assert_rows_are_todays, assert_store_covers, fct, load_study

study, STORE = load_study("dctcp_ns3")
ALIGNED = [f"dumbbell-{rtt}us-k{k}" for rtt in (100, 500) for k in (10, 20, 40)]
#: the buffer sweep where the buffer holds the sawtooth: name -> alpha tolerance
UNBOUND = {f"dumbbell-{rtt}us-k20-b{b}-sack": 0.07 for rtt in (100, 500) for b in (32, 400)}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = study.measure(study.SCENARIOS[name], tmp_path_factory.mktemp(name))
        return cache[name]
    get.workdir = tmp_path_factory.mktemp("runs")
    return get


def _mean(m: dict, key: str) -> float:
    vals = [f[key] for f in m["flows"] if f[key] is not None]
    return sum(vals) / len(vals)


def test_the_store_covers_every_scenario_with_its_parameters():
    assert_store_covers(STORE, study.SCENARIOS)
    for name, entry in STORE.items():
        assert entry["ns3"]["recovery"] == ("TcpPrrRecovery" if name.endswith("ns3prr") else "TcpClassicRecovery")


@pytest.mark.parametrize("name", sorted(study.SCENARIOS))
def test_atmsim_rows_are_todays(fresh, name):
    assert_rows_are_todays(fresh(name), STORE[name]["atmsim"], "validation/dctcp_ns3.py --ns3-python PY")


@pytest.mark.parametrize("name", ALIGNED + sorted(UNBOUND))
def test_dumbbell_beside_ns3(fresh, name):
    ours, ns3 = fresh(name), STORE[name]["ns3"]
    alpha_tolerance = UNBOUND.get(name, 0.05)
    assert abs(ours["utilisation"] - ns3["utilisation"]) <= 0.01
    assert abs(ours["queue_mean"] - ns3["queue_mean"]) <= 1.0
    assert abs(ours["queue_max"] - ns3["queue_max"]) <= 2
    for a, b in zip(ours["flows"], ns3["flows"]):
        assert a["mean_cwnd"] == pytest.approx(b["mean_cwnd"], rel=0.03)
    for key in ("peak_cwnd", "trough_cwnd"):
        assert _mean(ours, key) == pytest.approx(_mean(ns3, key), rel=0.03), key
    assert _mean(ours, "decreases") == pytest.approx(_mean(ns3, "decreases"), rel=0.12)
    assert ours["marks"] == pytest.approx(ns3["marks"], rel=0.12)
    assert abs(_mean(ours, "alpha") - _mean(ns3, "alpha")) <= alpha_tolerance
    if name.endswith("-b32-sack"):  # slow start's overshoot, before any echo
        assert ours["drops"] == pytest.approx(ns3["drops"], rel=0.2) and ours["drops"] > 0
    else:
        assert ours["drops"] == ns3["drops"] == 0


@pytest.mark.parametrize("rtt", (100, 500))
def test_where_the_buffer_binds_before_marking_a_loss_in_the_echoed_window_cuts_no_more(fresh, rtt):
    """N11, fixed: at K + 2 packets of buffer the packets that arrive after the first marks are
    dropped, in the window the echo already cut. ns-3 (with SACK) retransmits them from CA_CWR
    without a second cut and keeps the link full; atmsim once halved again on the fast
    retransmit and lost 2-5 % of link use. Now its fast retransmit keeps the echo's ssthresh
    (RFC 3168 §6.1.2, RFC 8257 §3.5: one reduction a window across all signals;
    `Window::loss_ssthresh`), and the two agree: the link as full, the queue as deep, no
    halving within a round trip of an echo's cut."""
    name = f"dumbbell-{rtt}us-k20-b22-sack"
    ours, ns3 = fresh(name), STORE[name]["ns3"]
    assert sum(f["retransmitted"] for f in ns3["flows"]) > 50 and ns3["utilisation"] > 0.999
    assert ours["drops"] > 50, "the buffer still binds: the case is exercised"
    assert ours["utilisation"] == pytest.approx(ns3["utilisation"], abs=0.01)
    assert abs(ours["queue_mean"] - ns3["queue_mean"]) <= 1.0
    w = study.run(study.SCENARIOS[name], fresh.workdir).traces["window"]
    w = w[w.flow == "f1"]
    t, c = w.t.to_numpy(), w.cwnd.to_numpy()
    cut = np.flatnonzero(np.diff(c) < 0) + 1
    ratio = c[cut] / c[cut - 1]
    halves, echo_cuts = t[cut][ratio < 0.55], t[cut][ratio > 0.85]
    assert len(echo_cuts) > 10
    rtt_s = 1.2 * rtt * 1e-6
    assert not any(((h - echo_cuts > 0) & (h - echo_cuts < rtt_s)).any() for h in halves)


@pytest.mark.parametrize("k", (10, 20, 40))
def test_at_100us_atmsim_cuts_more_often_as_ns3_freezes_after_an_echo(fresh, k):
    """N2: ns-3 does not grow its window in CA_CWR, atmsim only skips the ECE ACKs."""
    ours, ns3 = fresh(f"dumbbell-100us-k{k}"), STORE[f"dumbbell-100us-k{k}"]["ns3"]
    assert _mean(ours, "decreases") > _mean(ns3, "decreases")
    assert ours["marks"] > ns3["marks"]


def test_ns3s_default_prr_spreads_the_cut_and_lowers_the_queue(fresh):
    """N7: atmsim sits with ns-3's classic recovery, not with its PRR."""
    ours, prr = fresh("dumbbell-100us-k20-ns3prr"), STORE["dumbbell-100us-k20-ns3prr"]["ns3"]
    classic = STORE["dumbbell-100us-k20"]["ns3"]
    assert abs(ours["queue_mean"] - classic["queue_mean"]) <= 1.0 < ours["queue_mean"] - prr["queue_mean"]
    assert ours["utilisation"] == pytest.approx(prr["utilisation"], abs=0.01)


def test_delayed_acks_slow_atmsims_bsd_growth(fresh):
    """N4: BSD growth per ACK against ns-3's per segment: with an ACK per two segments atmsim's
    window climbs more slowly: a shallower sawtooth, fewer marks; the mean window and queue stay close."""
    ours, ns3 = fresh("dumbbell-100us-k20-delack"), STORE["dumbbell-100us-k20-delack"]["ns3"]
    assert _mean(ours, "mean_cwnd") == pytest.approx(_mean(ns3, "mean_cwnd"), rel=0.03)
    assert abs(ours["queue_mean"] - ns3["queue_mean"]) <= 1.5
    assert ours["marks"] < 0.8 * ns3["marks"] and _mean(ours, "alpha") < _mean(ns3, "alpha")
    ours_swing = _mean(ours, "peak_cwnd") - _mean(ours, "trough_cwnd")
    assert ours_swing < _mean(ns3, "peak_cwnd") - _mean(ns3, "trough_cwnd")


def test_incast_without_loss_beside_ns3(fresh):
    """N2, N3: ns-3 cuts with alpha = 1 and then freezes, so it finishes later (by 7 %)."""
    ours, ns3 = fresh("incast-8x64KB"), STORE["incast-8x64KB"]["ns3"]
    assert fct(ours) == pytest.approx(fct(ns3), rel=0.10) and fct(ours) < fct(ns3)
    assert ours["drops"] == ns3["drops"] == 0
    assert ours["marks"] == pytest.approx(ns3["marks"], rel=0.15)
    assert ours["queue_max"] == ns3["queue_max"]


def test_incast_with_losses_and_sack_beside_ns3(fresh):
    """N6, N8: the same drops, completion within 10 %; ns-3 also counts its dropped packets as marked."""
    ours, ns3 = fresh("incast-8x64KB-buffer32-sack"), STORE["incast-8x64KB-buffer32-sack"]["ns3"]
    assert fct(ours) == pytest.approx(fct(ns3), rel=0.10)
    assert ours["drops"] == pytest.approx(ns3["drops"], rel=0.10) and ours["drops"] > 0
    assert abs(ours["marks"] - (ns3["marks"] - ns3["drops"])) <= 5


def test_incast_with_losses_without_sack(fresh):
    """N10: ns-3 does not fast-retransmit in CA_CWR, so without SACK its flows wait for the 1-s
    timeout; atmsim's NewReno recovers every drop."""
    ours, ns3 = fresh("incast-8x64KB-buffer32"), STORE["incast-8x64KB-buffer32"]["ns3"]
    assert ours["drops"] == pytest.approx(ns3["drops"], rel=0.10) and ours["drops"] > 0
    assert fct(ours) < 0.01 < 1.0 < fct(ns3)
