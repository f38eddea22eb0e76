"""The htsim numbers the eqds22 reproduction ships (python/atmsim/reproduce/eqds22/htsim_841d9e7.json) are
the stored fresh htsim runs (validation/htsim/htsim_reference.json), not typed."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation/htsim"))

import reference  # noqa: E402


def test_the_shipped_htsim_numbers_are_the_stored_runs():
    shipped = json.loads((ROOT / "python/atmsim/reproduce/eqds22/htsim_841d9e7.json").read_text(encoding="utf-8"))
    assert shipped["htsim_commit"] == reference.load()["htsim"]["commit"]
    for name, run in shipped["runs"].items():
        d = reference.eqds(name)
        fcts = [f["fct_us"] for f in d["flows"]]
        assert (run["tail_us"], run["min_us"], run["retransmissions"]) == (d["tail_fct_us"], d["min_fct_us"], d["totals"]["rtx"])
        assert abs(run["mean_us"] - sum(fcts) / len(fcts)) < 1e-9
        assert (run["finished"], run["connections"]) == (d["finished"], d["connections"])
        assert run["median_us"] == d["median_fct_us"] and run["user_cpu_s"] == reference.user_cpu_s(name)
        for flow, fct in run.get("flow_fct_us", {}).items():
            assert fct == next(f["fct_us"] for f in d["flows"] if f["name"] == flow)
    assert sorted(shipped["runs"]) == sorted(reference.EQDS_SCENARIOS), "every validate.txt run is shipped"


def test_the_shipped_seed_sweeps_are_the_stored_runs():
    shipped = json.loads((ROOT / "python/atmsim/reproduce/eqds22/htsim_841d9e7.json").read_text(encoding="utf-8"))
    assert sorted(shipped["seed_sweeps"]) == sorted(reference.SEED_SWEEPS)
    for name, seeds in reference.SEED_SWEEPS.items():
        stored = reference.seed_sweep(name)
        connections = reference.eqds(name)["connections"]
        assert sorted(stored) == seeds and all(v["finished"] == connections for v in stored.values())
        assert {int(s): v for s, v in shipped["seed_sweeps"][name].items()} == {
            s: {k: v[k] for k in ("tail_us", "median_us", "retransmissions")} for s, v in stored.items()}
