"""buildtools/pgo.py, the opt-in PGO build: its training runs must stay runnable as the scenarios change
(a renamed built-in or a key now refused would make the tool fail after its first build, minutes in),
and its --keep folder is checked before anything is built. The builds themselves are not run here
(two builds' time); docs/performance.md gives the measured gain."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import atmsim

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("pgo", ROOT / "buildtools" / "pgo.py")
pgo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pgo)


def test_every_training_run_names_a_built_in_and_its_overrides_resolve():
    names = set(atmsim.list_scenarios())
    for name, sets in pgo.TRAINING:
        assert name in names, name
        atmsim.resolve(name, sets)  # raises ScenarioError on a key refused or a value out of range


def test_the_training_covers_both_networks_and_every_fabric_transport():
    networks = {atmsim.model_facts(name, sets).get("network") for name, sets in pgo.TRAINING}
    assert {"atm", "packet"} <= networks, networks
    assert {"ndp-in-out", "eqds-incast-128", "fabric-perm"} <= {name for name, _ in pgo.TRAINING}


def test_a_keep_folder_that_holds_files_is_refused_before_any_build(tmp_path):
    (tmp_path / "mine.txt").write_text("a user's file")
    p = subprocess.run([sys.executable, str(ROOT / "buildtools" / "pgo.py"), "--keep", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--keep" in p.stderr, p.stderr
    assert (tmp_path / "mine.txt").read_text() == "a user's file"
