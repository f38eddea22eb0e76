"""Stored rows against fresh ones, for the ns-3 side-by-side tests (test_ns3_dctcp.py,
test_ns3_cubic_dumbbell.py): every text and flag equal, every number to 1e-9."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_study(name: str):
    """validation/NAME.py as a module, and its stored scenarios."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "validation" / f"{name}.py")
    study = importlib.util.module_from_spec(spec)
    sys.modules[name] = study
    spec.loader.exec_module(study)
    return study, json.loads(study.STORE.read_text(encoding="utf-8"))["scenarios"]


def flat(x, path=""):
    """A nested row as {path: leaf}, so pytest.approx can compare it."""
    if isinstance(x, dict):
        return {k: v for key, val in x.items() for k, v in flat(val, f"{path}/{key}").items()}
    if isinstance(x, list):
        return {k: v for i, val in enumerate(x) for k, v in flat(val, f"{path}/{i}").items()}
    return {path: x}


def assert_rows_are_todays(fresh: dict, stored: dict, rerun: str) -> None:
    ours, stored = flat(fresh), flat(stored)
    numbers = {k for k, v in stored.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert {k: v for k, v in ours.items() if k not in numbers} == {k: v for k, v in stored.items() if k not in numbers}
    assert {k: ours[k] for k in numbers} == pytest.approx({k: stored[k] for k in numbers}, rel=1e-9), \
        f"atmsim moved: rerun {rerun} and update the docs"


def fct(m: dict) -> float:
    """The last completion time of a finite-flow run (s)."""
    return max(f["completion_s"] for f in m["flows"])


def assert_store_covers(store: dict, scenarios: dict) -> None:
    """Every scenario stored, each with the parameters it has today."""
    assert set(store) == set(scenarios)
    for name, entry in store.items():
        assert entry["parameters"] == scenarios[name], name
