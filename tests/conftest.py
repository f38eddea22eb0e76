import os
import subprocess
import sys

import pytest
from hypothesis import settings

# The suite draws the same property-test examples on every run (and every
# machine): a red run is reproducible, and CI cannot turn red on a draw no
# one has seen. ATMSIM_HYPOTHESIS=random draws fresh ones, for hunting.
settings.register_profile("deterministic", derandomize=True)
settings.register_profile("random", derandomize=False)
settings.load_profile("random" if os.environ.get("ATMSIM_HYPOTHESIS") == "random" else "deterministic")


def run_cli(*args, check=False):
    """Runs `atmsim ARGS` in a fresh interpreter; returns CompletedProcess."""
    p = subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(p.stderr)
    return p


def assert_refused(scenario, sets, key):
    """`atmsim validate SCENARIO --set S...` exits 2 with one line naming `key`."""
    p = run_cli("validate", scenario, *[a for s in sets for a in ("--set", s)])
    assert p.returncode == 2 and key in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def mount(tmp_path):
    """mount(name, options): a small tmpfs at tmp_path/name, another device than tmp_path (skipped where
    mounting is not allowed); unmounted after the test."""
    made = []

    def make(name, options="size=8m"):
        d = tmp_path / name
        d.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "atmsim-test", str(d)], capture_output=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip()})")
        made.append(d)
        return d

    yield make
    for d in made:
        subprocess.run(["umount", str(d)], capture_output=True)


#: The longest tests (minutes, most of them spent in process pools or compilers), started first: under
#: `-n auto` (pytest-xdist) each runs while the other workers take the short tests, rather than starting
#: late and leaving one core idle to the end (`reproduce all --quick` alone is a fifth of the suite).
FIRST = ("test_golden.py::test_reproduce_all_quick_matches_golden",
         "test_recipe.py::test_a_toy_drop_policy_service_and_tcp_variant_are_one_file_and_one_line_each")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.rpartition("/")[2], len(FIRST)))
    # A module-scoped fixture (a reproduction, a cluster, a compiled program: up to 40 s) is made once
    # per process that runs its module's tests: `--dist loadgroup` is to keep its tests on one worker.
    # Not yet: pytest-xdist 3.8 marks a group in `item._nodeid`, which pytest 9 no longer reads (a test
    # checked: a marked module's tests ran on both workers), so each test is scheduled on its own.
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info and any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
