"""Rule 6 (issue 38): every mechanism probe the package ships (`python -m
atmsim.reproduce.PAPER.anatomy`) keeps the CLI's contract: `--help` works, the `--set KEY=VALUE`
syntax its docstring gives is taken, and bad input is one line and exit 2; a run the probe cannot
measure (the overrides leave it nothing) is one line and exit 1, never a traceback."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim.reproduce

PROBES = sorted(f"atmsim.reproduce.{p.parent.name}.anatomy"
                for p in Path(atmsim.reproduce.__file__).parent.glob("*/anatomy.py"))


def probe(module, *args):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True)


def one_line(r, code):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr and "Warning" not in r.stderr, r.stderr
    return r.stderr


def test_every_shipped_probe_is_found():
    assert "atmsim.reproduce.arb.anatomy" in PROBES and "atmsim.reproduce.morris_kung95.anatomy" in PROBES


@pytest.mark.parametrize("module", PROBES)
def test_help_and_bad_input(module):
    h = probe(module, "--help")
    assert h.returncode == 0 and "--set KEY=VALUE" in h.stdout and h.stderr == ""
    for args, says in ((["nosuchfigure"], "unknown probe 'nosuchfigure'"),
                       ([], "the following arguments are required: what"),
                       (["fig3", "--set", "novalue"], "--set: 'novalue' is not key=value"),
                       (["fig3", "--set"], "--set: expected one argument")):
        assert says in one_line(probe(module, *args), 2), (args, says)


@pytest.mark.parametrize("module", PROBES)
def test_an_unknown_key_is_one_line_naming_it_before_any_run(module):
    what = {"atmsim.reproduce.arb.anatomy": "fig9"}.get(module, "fig3")
    assert "error: bogus: unknown field" in one_line(probe(module, what, "--set", "bogus=1"), 2)


def test_the_docstrings_set_syntax_runs():
    r = probe("atmsim.reproduce.morris_kung95.anatomy", "fig3", "--set", "duration=1s")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["1500@64KiB"]["L"] == 1500
    bare = probe("atmsim.reproduce.morris_kung95.anatomy", "fig3", "duration=1s")
    assert bare.returncode == 0 and bare.stdout == r.stdout, "the bare KEY=VALUE form is the same"


def test_a_run_the_probe_cannot_measure_is_one_line_exit_1():
    # fig9 measures from t0 = 100 s: a 1-s run leaves it an empty series (an IndexError's traceback before).
    line = one_line(probe("atmsim.reproduce.arb.anatomy", "fig9", "--set", "duration=1s"), 1)
    assert line.startswith("python -m atmsim.reproduce.arb.anatomy: error: fig9: the probe cannot measure"), line
