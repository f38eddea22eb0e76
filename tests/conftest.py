import subprocess
import sys

import pytest


def run_cli(*args, check=False):
    """Runs `atmsim ARGS` in a fresh interpreter; returns CompletedProcess."""
    p = subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(p.stderr)
    return p


@pytest.fixture
def cli():
    return run_cli
