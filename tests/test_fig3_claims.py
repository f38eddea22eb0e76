"""aron97 fig3 claim logic (Aron & Druschel §4, Fig. 3) on synthetic run tables.

The acceptance rules are checked against data whose answer is known by
construction, so a wrong rule shows up without running the simulator."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from atmsim.reproduce import aron97
from atmsim.reproduce.harness import Ctx

IDS = [f"aron97.fig3.c{i}" for i in range(1, 10)] + ["aron97.fig3.fair"]


def synth(ks, seeds, pkt_e, gap, dead=0.01, fair=0.97, to_atm=5, to_pkt=1, eps=(10, 5, 6, 2, 9, 1)):
    """One row per run. pkt_e(t, k, s) -> E_pkt; gap(t, k) -> 1 - E_atm/E_pkt (same for every seed);
    eps = (atm episodes, atm consecutive, atm single, pkt consecutive, pkt single, ...) per run."""
    rows = []
    for t in (1, 2):
        for k in ks:
            for s in seeds:
                p = pkt_e(t, k, s)
                for net, e in (("packet", p), ("atm", p * (1 - gap(t, k)))):
                    atm = net == "atm"
                    rows.append(dict(
                        topology=t, network=net, variant="lite", k=k, seed=s, buffer_bytes=k * 9168, E=e, E_common=e,
                        fairness=fair(t, k) if callable(fair) else fair, timeouts=to_atm if atm else to_pkt,
                        retx_bytes_mean=300e3 if atm else 50e3, episodes=eps[0], consecutive=eps[1] if atm else eps[3],
                        single=eps[2] if atm else eps[4], multiple=eps[0] - (eps[2] if atm else eps[4]),
                        dead_cell_share=dead if atm else 0.0, u_max_bytes=(aron97.U_MAX_ATM if atm else aron97.U_MAX_PACKET),
                        duration_s=10.0))
    return pd.DataFrame(rows)


def claims(df):
    """fig3's claim rows by ID, from the claim logic alone (a context bound to fig3, nothing written)."""
    ctx = Ctx("aron97", None, Path("unused")).at("fig3")
    aron97.fig3_claims(ctx, df, aron97.fig3_points(df))
    return {c.id: c.row() for c in ctx.claims}


ks_st = st.lists(st.sampled_from(aron97.K_FULL), min_size=2, max_size=8, unique=True).map(sorted)
seeds_st = st.integers(1, 4).map(lambda n: list(range(1, n + 1)))


@settings(deadline=None, max_examples=20)
@given(ks_st, seeds_st, st.floats(0.12, 0.28), st.floats(0.5, 0.95), st.floats(0.0, 0.2))
def test_constant_gap_in_band_satisfies_c1_c2_and_rows_are_complete(ks, seeds, g, base, slope):
    df = synth(ks, seeds, lambda t, k, s: base + slope * k / 60 * (s % 2), lambda t, k: g)
    r = claims(df)
    assert list(r) == IDS
    assert r["aron97.fig3.c1"]["holds"] and r["aron97.fig3.c2"]["holds"]
    ours = r["aron97.fig3.c2"]["ours"]["topo1"]
    assert ours["max_gap"] == pytest.approx(g, abs=1e-6) and ours["median_gap"] == pytest.approx(g, abs=1e-6)
    # Dead cells (0.01) below every gap (>= 0.12), at every point.
    assert r["aron97.fig3.c4"]["holds"]
    assert r["aron97.fig3.c7"]["holds"]  # 5 ATM timeouts > 1 packet timeout everywhere
    assert r["aron97.fig3.c8"]["holds"]  # ATM 5/10 consecutive, packet 2/10 consecutive and 9/10 single
    assert r["aron97.fig3.fair"]["holds"]
    for row in r.values():
        assert isinstance(row["holds"], bool) and row["claim"].startswith(row["id"])
        json.dumps(row, allow_nan=False)


@settings(deadline=None, max_examples=15)
@given(ks_st, seeds_st, st.floats(-0.2, 0.0))
def test_atm_not_below_packet_fails_c1_c2_and_c4_has_no_point(ks, seeds, g):
    r = claims(synth(ks, seeds, lambda t, k, s: 0.8, lambda t, k: g))
    assert not r["aron97.fig3.c1"]["holds"]
    assert not r["aron97.fig3.c2"]["holds"]
    assert not r["aron97.fig3.c4"]["holds"]  # no point with gap >= 0.05: a claim with no point fails (§0)
    assert "no such point" in r["aron97.fig3.c4"]["note"]


@settings(deadline=None, max_examples=15)
@given(ks_st, seeds_st, st.floats(0.0, 1.0), st.randoms(use_true_random=False))
def test_analytic_claims_hold_whatever_the_data_and_row_order_does_not_matter(ks, seeds, e, rnd):
    df = synth(ks, seeds, lambda t, k, s: e, lambda t, k: 0.1)
    r = claims(df)
    assert r["aron97.fig3.c5"]["holds"] and r["aron97.fig3.c6"]["holds"]
    assert r["aron97.fig3.c5"]["ours"]["payload_MB"] == pytest.approx(175.90, abs=0.005)
    assert r["aron97.fig3.c5"]["ours"]["atm_payload_MB"] == pytest.approx(159.30, abs=0.005)
    assert r["aron97.fig3.c5"]["ours"]["cell_time_us"] == pytest.approx(3.000, abs=5e-4)
    assert 0.025 <= r["aron97.fig3.c6"]["ours"]["share_packet"] <= 0.026
    assert 0.028 <= r["aron97.fig3.c6"]["ours"]["share_atm"] <= 0.0285
    idx = list(range(len(df)))
    rnd.shuffle(idx)
    assert claims(df.iloc[idx].reset_index(drop=True)) == r


@settings(deadline=None, max_examples=15)
@given(ks_st, st.floats(0.10, 0.40), st.floats(0.0, 0.05))
def test_c9_compares_total_variation(ks, amp, pkt_amp):
    """A zig-zag ATM curve against a nearly flat packet curve: c9 holds iff TV_atm >= 1.5 TV_pkt."""
    zig = {k: (i % 2) for i, k in enumerate(ks)}
    df = synth(ks, [1], lambda t, k, s: 0.9 - pkt_amp * zig[k], lambda t, k: 0.15 + amp * zig[k])
    r = claims(df)["aron97.fig3.c9"]
    both = [r["ours"][f"topo{t}"] for t in (1, 2)]
    tv_a, tv_p = r["ours"]["topo1"]["tv_atm"], r["ours"]["topo1"]["tv_packet"]
    assert tv_p == pytest.approx(pkt_amp * (len(ks) - 1), abs=1e-5)  # rows round to 6 decimals
    assert r["holds"] == all(b["tv_atm"] >= 1.5 * b["tv_packet"] for b in both)
    assert tv_a > 0


@settings(deadline=None, max_examples=15)
@given(ks_st, seeds_st, st.floats(0.0, 0.78))
def test_fairness_floor(ks, seeds, low):
    """One topology-1 point below 0.79 (median over seeds) breaks aron97.fig3.fair; 0.75 on topology 2 does not."""
    bad_k = ks[0]
    r = claims(synth(ks, seeds, lambda t, k, s: 0.8, lambda t, k: 0.15,
                     fair=lambda t, k: low if (t, k) == (1, bad_k) else 0.99))
    assert not r["aron97.fig3.fair"]["holds"]
    r = claims(synth(ks, seeds, lambda t, k, s: 0.8, lambda t, k: 0.15,
                     fair=lambda t, k: 0.75 if (t, k) == (2, bad_k) else 0.99))
    assert r["aron97.fig3.fair"]["holds"] == (len(ks) * 4 - 1 > len(ks) * 2)  # > half of points >= 0.95


def test_c8_without_episodes_does_not_hold_and_says_why():
    r = claims(synth([9, 30], [1], lambda t, k, s: 0.8, lambda t, k: 0.15, eps=(0, 0, 0, 0, 0, 0)))
    assert not r["aron97.fig3.c8"]["holds"]
    assert "no loss episode" in r["aron97.fig3.c8"]["note"]
    json.dumps(r, allow_nan=False)


@settings(deadline=None, max_examples=25)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=9))
def test_points_are_medians_over_seeds(values):
    df = synth([9], list(range(1, len(values) + 1)), lambda t, k, s: values[s - 1], lambda t, k: 0.0)
    pts = aron97.fig3_points(df)
    assert list(pts.columns[:14]) == aron97.FIG3_COLUMNS
    assert len(pts) == 4
    for e in pts["E"]:
        assert e == pytest.approx(float(np.median(values)))


def test_a_failing_row_carries_its_measured_mechanism_and_a_holding_one_does_not():
    """Issue 24: the note of a failing row is computed from the runs (here: which points leave the band, and
    1 - E = idle + waste when the run table has the link columns); a holding row gets no such note."""
    df = synth([9, 21, 30], [1, 2], lambda t, k, s: 0.8, lambda t, k: 0.35)
    df["link_idle"] = np.where(df.network == "atm", 0.45, 0.15)
    df["link_waste"] = 1 - df["E"] - df["link_idle"]
    r = claims(df)
    c2 = r["aron97.fig3.c2"]
    assert not c2["holds"]
    assert "median gap 0.350" in c2["note"] and "gap > 0.30 at 3 of 3 points" in c2["note"]
    assert "ATM idle 0.450" in c2["note"] and "packet idle 0.150" in c2["note"]
    assert r["aron97.fig3.c1"]["holds"] and r["aron97.fig3.c1"]["note"] == ""
