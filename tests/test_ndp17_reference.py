"""The htsim numbers the ndp17 reproduction ships (python/atmsim/reproduce/ndp17/htsim_841d9e7.json) are
the stored fresh htsim runs (validation/htsim/htsim_reference.json), not typed: the reproduction reads
them from the package because validation/ is not installed."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation/htsim"))

import reference  # noqa: E402


def test_the_shipped_htsim_numbers_are_the_stored_runs():
    shipped = json.loads((ROOT / "python/atmsim/reproduce/ndp17/htsim_841d9e7.json").read_text(encoding="utf-8"))
    assert shipped["htsim_commit"] == reference.load()["htsim"]["commit"]
    names = ["A-B", "A-C", "A-D", "A-E", "F-E"]
    assert shipped["fig21_gbps"] == {n: f["rate_at_0_2_gbps"] for n, f in zip(names, reference.ndp_in_out_flows())}
    for st in ("perm", "pull"):
        assert shipped["fig22_gbps"][st] == {f"{x['src']}-{x['dst']}": x["rate_at_0_2_gbps"] for x in reference.ndp_failure(st)["flows"]}
    assert shipped["user_cpu_s"]["fig22_perm"] == reference.user_cpu_s("ndp_failure_perm")


def test_the_failure_scenario_runs_htsims_own_permutation():
    from atmsim.toml import tomllib

    text = (ROOT / "python/atmsim/scenarios/ndp-failure.toml").read_text(encoding="utf-8")
    flows = [(int(f["src"][1:]), int(f["dst"][1:])) for f in tomllib.loads(text)["flow"]]
    assert flows == [tuple(p) for p in reference.ndp_permutation("perm")]
