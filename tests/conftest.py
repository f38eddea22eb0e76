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
