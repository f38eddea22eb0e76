"""DCTCP on whole networks (docs/validation.md, "DCTCP against its fluid
model"): two long-lived flows through one 10 Gb/s bottleneck follow the
fluid model's sawtooth (Alizadeh et al., SIGCOMM 2010 §3.3), and a marking
threshold below the guideline K > C·RTT/7 (§3.4) lets the queue empty.
Short runs (30 ms, read from 10 ms); the full table is
`python validation/dctcp_fluid.py`."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

import atmsim

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dctcp_fluid", ROOT / "validation" / "dctcp_fluid.py")
study = importlib.util.module_from_spec(_spec)
sys.modules["dctcp_fluid"] = study
_spec.loader.exec_module(study)

DURATION, WARMUP = 0.030, 0.010


def run(tmp_path: Path, flows: int, k: int) -> dict:
    return study.measure(flows, k, tmp_path / f"dumbbell-{flows}.toml", DURATION, WARMUP)


@pytest.mark.parametrize("k", [12, 40])
def test_two_flows_follow_the_fluid_models_sawtooth(tmp_path, k):
    """Stated tolerances: Q_max within 2 packets of K + N, amplitude and
    period (in the run's round trips) within 10 % of the model, α within
    0.03 of √(2/W*)."""
    f, m = study.fluid(2, k), run(tmp_path, 2, k)
    assert m["drops"] == 0 and m["cycles"] >= 10, m
    assert abs(m["q_max"] - f["q_max"]) <= 2, (f, m)
    assert m["amplitude"] == pytest.approx(f["amplitude"], rel=0.10), (f, m)
    assert m["period_rtt"] == pytest.approx(f["period_rtt"], rel=0.10), (f, m)
    assert abs(m["alpha"] - f["alpha"]) <= 0.03, (f, m)


def test_the_threshold_guideline_matters(tmp_path):
    """Below K = C·RTT/7 the sawtooth's trough reaches zero and the
    bottleneck idles; above it the queue never empties."""
    guideline = study.bdp_packets() / 7
    assert 11 < guideline < 12
    low, high = run(tmp_path, 2, 2), run(tmp_path, 2, 20)
    assert study.fluid(2, 2)["q_min"] < 0 < study.fluid(2, 20)["q_min"]
    assert low["empty_share"] > 0.01, low
    assert high["empty_share"] < 1e-3, high
    # The same with ten flows, whose sawtooth is deeper.
    low10, high10 = run(tmp_path, 10, 8), run(tmp_path, 10, 40)
    assert low10["empty_share"] > 0.01 and high10["empty_share"] < 1e-3, (low10, high10)


def test_dctcp_needs_a_packet_network_and_k_below_the_buffer(tmp_path):
    with pytest.raises(atmsim.ScenarioError, match="tcp.variant"):
        atmsim.run("aron97-topo1-atm", set=["tcp.variant=dctcp", "duration=10ms"])
    path = tmp_path / "d.toml"
    path.write_text(study.scenario(2), encoding="utf-8")
    with pytest.raises(atmsim.ScenarioError, match="router.dctcp.k"):
        atmsim.run(str(path), set=["router.dctcp.k=400"])
    assert not math.isnan(study.fluid(2, 20)["alpha"])
