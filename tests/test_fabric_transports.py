"""Today's transports side by side on the 16-host fat tree
(validation/fabric_transports.py; docs/fabrics.md, "Transports side by side"):
every flow of every transport completes, and none beats physics — no flow
finishes faster than its bytes alone on the idle tree (slowdown >= 1), and a
15 -> 1 incast takes at least its 30 MB at the receiver's 100 Gb/s."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("fabric_transports", ROOT / "validation" / "fabric_transports.py")
study = importlib.util.module_from_spec(_spec)
sys.modules["fabric_transports"] = study
_spec.loader.exec_module(study)


@pytest.mark.parametrize("workload", list(study.WORKLOADS))
@pytest.mark.parametrize("transport", list(study.TRANSPORTS))
def test_every_flow_completes_no_faster_than_its_ideal(transport, workload):
    m = study.measure(transport, workload, 13)
    assert m["completed"] == m["flows"] > 0, m
    assert m["min"] >= 1.0, m
    if workload.startswith("incast"):
        # 15 x 2 MB of payload through the receiver's downlink, headers not even counted.
        assert m["last_fct_us"] >= 15 * 2e6 * 8 / 100e9 * 1e6, m
