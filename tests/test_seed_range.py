"""One range of seeds on every path into a run (issue 38, rules 3 and 6): 0 to 2^63 - 1, what a scenario
file's `seed` (a signed 64-bit TOML integer) can hold. `atmsim run --seed` took up to 2^64 - 1 while
`--set seed=` stopped at 2^63 - 1; a run at such a seed could not be written as the scenario that
reproduces it. Swept over every entry point: the command's option, `--set`, the scenario file, the
Python API, the core itself, `sweep`/`reproduce --seeds`, and every option of a shipped script whose name
says seed (read from the scripts' own parsers, so one added later is swept too). Each takes 2^63 - 1 (the
commands) and refuses what is past either end with exit 2 and one line naming the option or key and the
range."""
import json
import subprocess
import sys

import pytest

import atmsim
from atmsim import _core
from atmsim.seed_range import SEED_MAX, argparse_seeds, seeds
from conftest import run_cli
from test_scripts_cli import EVERY, ROOT, RUN_WITH_OPTIONS, invoke

TOP = str(SEED_MAX)
PAST = [str(SEED_MAX + 1), str(2**64 - 1), str(2**64), "-1"]
RANGE = f"0 to {SEED_MAX}"
SHORT = ["--set", "duration=0.2s"]


def one_line(p, *names):
    assert p.returncode == 2, (p.returncode, p.stderr)
    line = p.stderr.strip()
    assert "\n" not in line and "Traceback" not in line and "usage:" not in line, p.stderr
    assert any(n in line for n in names) and TOP in line, line
    return line


def test_the_range_is_what_a_toml_integer_holds():
    assert SEED_MAX == 2**63 - 1


def test_run_seed_option_takes_the_top_and_refuses_past_it():
    assert run_cli("run", "aron97-topo1-atm", "--seed", TOP, *SHORT).returncode == 0
    for past in PAST:
        one_line(run_cli("run", "aron97-topo1-atm", "--seed", past, *SHORT), "--seed")


@pytest.mark.parametrize("command", ["validate", "show", "run"])
def test_set_seed_takes_the_top_and_refuses_past_it(command):
    ok = run_cli(command, "aron97-topo1-atm", "--set", f"seed={TOP}", *SHORT)
    assert ok.returncode == 0, ok.stderr
    for past in PAST:
        line = one_line(run_cli(command, "aron97-topo1-atm", "--set", f"seed={past}", *SHORT), "seed:")
        assert RANGE in line, line


def test_a_scenario_file_seed_has_the_same_range(tmp_path):
    text = atmsim.load_scenario("aron97-topo1-atm")
    for seed, code in [(TOP, 0), *((p, 2) for p in PAST)]:
        f = tmp_path / "s.toml"
        f.write_text(f"seed = {seed}\n" + "\n".join(ln for ln in text.splitlines() if not ln.startswith("seed")))
        p = run_cli("validate", str(f))
        assert p.returncode == code, (seed, p.stderr)
        if code:
            assert RANGE in one_line(p, "seed:")


def test_the_python_api_and_the_core_refuse_past_the_range():
    text = atmsim.load_scenario("aron97-topo1-atm")
    assert atmsim.run(text, ["duration=0.2s"], seed=SEED_MAX).summary["seed"] == SEED_MAX
    for past in [SEED_MAX + 1, 2**64 - 1, 2**64, -1, True, 1.5, "7"]:
        with pytest.raises(atmsim.ScenarioError, match=f"^seed: must be a whole number from {RANGE}, not"):
            atmsim.run(text, ["duration=0.2s"], seed=past)
    # The core holds the range itself, for a caller that bypasses the Python checks.
    with pytest.raises(atmsim.ScenarioError, match=f"from {RANGE}"):
        _core.run(text, ["duration=0.2s"], SEED_MAX + 1, False, None)
    from atmsim.runner import Job, run_jobs

    with pytest.raises(atmsim.ScenarioError, match=f"from {RANGE}"):
        run_jobs([Job(text, ("duration=0.2s",), SEED_MAX + 1)], workers=1)


def test_sweep_and_reproduce_seeds(tmp_path):
    ok = run_cli("sweep", "aron97-topo1-atm", *SHORT, "--seeds", f"1,{TOP}", "--out", str(tmp_path / "sw"), "--no-cache",
                 "--workers", "1", "--no-progress")
    assert ok.returncode == 0, ok.stderr
    import pandas as pd

    assert sorted(pd.read_parquet(tmp_path / "sw" / "runs.parquet")["seed"]) == [1, SEED_MAX]
    for past in PAST + [f"1,{SEED_MAX + 1}", "1,,2"]:
        for cmd in (["sweep", "aron97-topo1-atm", *SHORT, "--out", str(tmp_path / "no")],
                    ["reproduce", "aron97", "--quick", "--figure", "fig3", "--out", str(tmp_path / "no")]):
            line = one_line(run_cli(*cmd, f"--seeds={past}"), "--seeds")
            assert RANGE in line, line
        assert not (tmp_path / "no").exists(), "refused before any output"


# The scripts' options whose name or help says seed, read from their own parsers (test_scripts_cli's stub).
SEED_OPTIONS = r"""
import argparse, json, os, runpy, sys
def options(self, args=None, namespace=None):
    found = []
    for a in self._actions:
        subs = a.choices.values() if isinstance(a, argparse._SubParsersAction) else []
        for sub in subs:
            found += [[sub.prog.split()[-1], b.option_strings[0]] for b in sub._actions
                      if b.option_strings and b.nargs != 0 and "seed" in b.dest + (b.help or "")]
        if a.option_strings and a.nargs != 0 and "seed" in a.dest + (a.help or ""):
            found.append([None, a.option_strings[0]])
    print(json.dumps(found))
    sys.exit(0)
""" + RUN_WITH_OPTIONS


def seed_options(script):
    p = subprocess.run([sys.executable, "-c", SEED_OPTIONS, script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def every_seed_option():
    return {s: seed_options(s) for s in EVERY}


def test_the_sweep_finds_the_seed_options(every_seed_option):
    found = {s for s, opts in every_seed_option.items() if opts}
    assert {"validation/ecn_red.py", "validation/ubr_plus.py", "validation/ns2/aron97_rows.py", "validation/ns2/twin.py",
            "validation/ns2/arb.py",
            "atmsim.reproduce.jain96.probe", "atmsim.reproduce.boston97.sensitivity"} <= found, found


@pytest.mark.parametrize("script", EVERY)
def test_every_script_seed_option_refuses_past_the_range(script, every_seed_option):
    for sub, option in every_seed_option[script]:
        lead = [sub] if sub else []
        if script == "atmsim.reproduce.jain96.probe":
            lead = ["tail-drop"]  # its figure comes first
        for past in PAST:
            p = invoke(script, *lead, f"{option}={past}")
            line = one_line(p, option)
            assert ": error: " in line, line


def test_the_seed_lists_every_script_shares():
    assert seeds(f"0,{TOP}") == [0, SEED_MAX]
    assert argparse_seeds(ranges=True)("1-3,5") == [1, 2, 3, 5]
    for bad in ["", "1,,2", "3-1", "1-100001", "x", "1.5", str(SEED_MAX + 1)]:
        with pytest.raises(ValueError):
            seeds(bad, ranges=True)
