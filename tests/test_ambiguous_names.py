"""Rule 9 (issue 38), swept: a name that could mean two things is refused, never guessed. Every built-in
scenario and paper given by a prefix or in another case, every word of every key that selects a
mechanism (`atmsim.registry()`) and of every registry key of kind choice in another case, and a flow
named like another flow's number: each refused, exit 2, one line naming the key and listing the
choices. (Rule 10, a built-in name beside a file of that name: tests/test_scenario_names.py.) Found by
this sweep: with flows named "1" and "x", `--set flow.1.bytes=...` set the first flow (named "1"), not
flow number 1; now refused as meaning either."""
import pytest

import atmsim
from conftest import run_cli

BUILTINS = [line for line in run_cli("list", check=True).stdout.splitlines() if line and not line[0].isspace()]
PAPERS = ["arb", "aron97", "boston97", "eqds22", "fabric", "jain96", "morris-kung95", "ndp17"]


def refused(*args):
    p = run_cli(*args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, (args, p.stderr)
    return p.stderr


def variants(name):
    """The ways a name could be taken for another: a prefix, upper case, capitalised."""
    return sorted({name[: max(1, len(name) // 2)], name.upper(), name.capitalize()} - {name})


@pytest.mark.parametrize("name", BUILTINS)
def test_a_scenario_by_prefix_or_case_is_refused(name, tmp_path):
    for v in variants(name):
        if v in BUILTINS:
            continue
        line = refused("validate", v)
        assert f"unknown scenario '{v}'" in line and name in line, line


@pytest.mark.parametrize("paper", PAPERS)
def test_a_paper_by_prefix_or_case_is_refused(paper, tmp_path):
    for v in variants(paper):
        line = refused("reproduce", v, "--out", str(tmp_path / "o"))
        assert f"unknown paper '{v}'" in line and paper in line, line
        assert not (tmp_path / "o").exists()


WORDS = sorted({(m["selected_by"], m["name"]) for m in atmsim.registry()
                if m["selected_by"] in ("switch.policy", "router.policy", "tcp.variant")}
               | {(k["name"], c) for m in atmsim.registry() for k in m["keys"] if k["kind"] == "choice"
                  for c in k["choices"]})


@pytest.mark.parametrize("key, word", WORDS)
def test_a_choice_word_in_another_case_is_refused(key, word):
    scenario = "aron97-topo1-atm" if key.startswith("switch.") or key.startswith("tcp.") else "eqds-one"
    for v in variants(word):
        if (key, v) in WORDS:
            continue
        line = refused("validate", scenario, "--set", f"{key}={v}")
        assert line.startswith(f"atmsim: error: {key}: ") and f'"{word}"' in line, line


def test_a_flow_named_like_another_flows_number_is_refused(tmp_path):
    text = atmsim.resolve("aron97-topo1-atm").replace('name = "f1"', 'name = "1"', 1)
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    line = refused("validate", str(path), "--set", "flow.1.start=1s")
    assert "flow.1: could mean flow number 1 or the flow named '1' (number 0)" in line, line
    run_cli("validate", str(path), "--set", "flow.f2.start=1s", check=True)
