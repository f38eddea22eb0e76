"""Rule 6 (issue 38), swept over every script the repository ships: each `validation/`, `bench/` and `buildtools/`
script with a `__main__` and each `python -m` command of the package beside `atmsim` itself (the paper
probes, the registry doc writer) keeps the CLI's contract. `--help` prints its usage and exits 0; an
unknown option, and a value of the wrong kind for every option that takes a number or a choice, is one
line on stderr naming the script and exits 2, before anything runs: never argparse's usage block, never
a traceback. (tests/test_probes_cli.py tests the anatomy probes' own arguments further.)

The options are read from each script's own parser (argparse's `parse_args` stubbed to print them), so
an option added later is swept too."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(str(p.relative_to(ROOT)) for d in ("validation", "bench", "buildtools") for p in (ROOT / d).rglob("*.py")
                 if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8"))
MODULES = sorted(f"atmsim.{p.relative_to(ROOT / 'python' / 'atmsim').with_suffix('').as_posix().replace('/', '.')}"
                 for p in (ROOT / "python" / "atmsim").rglob("*.py")
                 if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8")
                 and p.name not in ("__main__.py", "cli.py"))  # `atmsim` itself: tests/test_cli.py
EVERY = SCRIPTS + MODULES

# Runs the script named by argv[1] under runpy, once the code before it has replaced argparse's parse_args
# with `options`, which prints what the test reads of the parser and exits.
RUN_WITH_OPTIONS = r"""
argparse.ArgumentParser.parse_args = options
target = sys.argv[1]
sys.argv = [target]
if target.endswith(".py"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""
# The options that take a number or a choice (argparse checks those before the script does anything).
OPTIONS = r"""
import argparse, json, os, runpy, sys
def options(self, args=None, namespace=None):
    out = [a.option_strings[0] for a in self._actions if a.option_strings and a.nargs != 0
           and (a.choices is not None or a.type in (int, float))]
    print(json.dumps(out))
    sys.exit(0)
""" + RUN_WITH_OPTIONS


def invoke(script, *args):
    cmd = [sys.executable, script] if script.endswith(".py") else [sys.executable, "-m", script]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def one_line_exit_2(p):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr and "usage:" not in p.stderr, p.stderr
    assert ": error: " in p.stderr, p.stderr
    return p.stderr


def test_the_sweep_finds_the_scripts():
    assert {"validation/ubr_plus.py", "bench/scaling.py", "bench/ns3/dctcp_ns3.py",
            "validation/htsim/eqds_scenarios.py", "buildtools/pgo.py"} <= set(SCRIPTS)
    assert {"atmsim.reproduce.jain96.probe", "atmsim.reproduce.arb.anatomy", "atmsim.registry_doc"} <= set(MODULES)


@pytest.mark.parametrize("script", EVERY)
def test_help_an_unknown_option_and_every_typed_option_given_junk(script):
    h = invoke(script, "--help")
    assert h.returncode == 0 and "usage:" in h.stdout and "Traceback" not in h.stderr, (h.returncode, h.stderr)
    # An unknown option, and (rule 9) an option's prefix, `--hel` for `--help`, never guessed: one line (the
    # option, or first a required argument missing).
    for bad in ("--no-such-option", "--hel"):
        line = one_line_exit_2(invoke(script, bad))
        assert bad in line or "the following arguments are required" in line, line
    p = subprocess.run([sys.executable, "-c", OPTIONS, script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    for option in json.loads(p.stdout):
        assert option in one_line_exit_2(invoke(script, option, "?junk?")), option
