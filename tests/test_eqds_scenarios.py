"""The nine EQDS built-ins are validate.txt's runs: each one's flows are its connection matrix's, in
the matrix's order, and its duration, entropies and tree are the run's -end, -paths and the k htsim
builds for the matrix's node count (validation/htsim/eqds_scenarios.py writes six of them)."""
import sys
from pathlib import Path

import pytest

from atmsim.toml import tomllib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation/htsim"))

import eqds_scenarios  # noqa: E402
import reference  # noqa: E402

# built-in -> the stored htsim run of the same matrix and parameters
RUNS = {"eqds-one": "eqds_one", "eqds-bidir": "eqds_bidir", "eqds-incast": "eqds_incast", "eqds-incast-128": "eqds_incast_128",
        "eqds-outcast-incast": "eqds_outcast_incast", "eqds-perm-16": "eqds_perm_16n_paths128",
        "eqds-perm-16-1path": "eqds_perm_16n_paths1", "eqds-perm-1024": "eqds_perm_1024n_paths128",
        "eqds-perm-1024-1path": "eqds_perm_1024n_paths1"}
DURATION_US = {"1ms": 1000, "2ms": 2000, "3ms": 3000, "30ms": 30000}


def scenario(name):
    return tomllib.loads((ROOT / f"python/atmsim/scenarios/{name}.toml").read_text())


def test_every_eqds_built_in_is_a_stored_htsim_run():
    built = sorted(p.stem for p in (ROOT / "python/atmsim/scenarios").glob("eqds-*.toml"))
    assert built == sorted(RUNS)
    assert sorted(RUNS.values()) == sorted(reference.EQDS_SCENARIOS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_built_in_is_its_matrix_and_parameters(name):
    run = reference.run(RUNS[name])
    matrix = reference.read_matrix(run["matrix"])
    s = scenario(name)
    flows = [(f["src"], f["dst"], f["bytes"], f.get("start", "0s")) for f in s["flow"]]
    assert flows == [(f"h{f['src']}", f"h{f['dst']}", f"{f['size']}B", "0s") for f in matrix["flows"]]
    assert [f["name"] for f in s["flow"]] == [f"Eqds_{f['src']}_{f['dst']}" for f in matrix["flows"]]
    assert all(f["kind"] == "eqds" for f in s["flow"])
    params = dict(zip(run["params"][::2], run["params"][1::2]))
    assert DURATION_US[s["duration"]] == int(params["-end"])
    assert s.get("eqds", {}).get("paths", 64) == int(params.get("-paths", 64))  # main_eqds.cpp's default: 64
    assert s["topology"]["k"] == eqds_scenarios.fat_tree_k(matrix["nodes"])
    assert s["topology"]["k"] ** 3 // 4 == matrix["nodes"]
    assert s["seed"] == 13 and s["switch"]["buffer"] == "145250B" and s["router"]["policy"] == "trim"


def test_htsims_tree_for_each_node_count():
    # FatTreeTopology::set_params: the k whose k^3/4 hosts are exactly the nodes (16 -> 4, 128 -> 8, 1024 -> 16)
    assert [eqds_scenarios.fat_tree_k(n) for n in (16, 128, 1024, 54)] == [4, 8, 16, 6]
    with pytest.raises(ValueError, match="17 hosts"):
        eqds_scenarios.fat_tree_k(17)


def test_the_generated_built_ins_are_what_the_script_writes():
    for name in eqds_scenarios.RUNS:
        assert (ROOT / f"python/atmsim/scenarios/{name}.toml").read_text() == eqds_scenarios.render(name), name
