"""`atmsim show` prints the scenario; an option of `atmsim run` or `sweep` (`--pcap`, `--seed`, `--out`,
`--vary`, ...) is not part of it, so show cannot hold it (issue 38). Given to `show` or `validate`, every
such option is refused, exit 2, one line naming it and saying so (it was "no such option", and `--seed`
was told "did you mean --set?"), swept over every option the two commands have; the docs say which run
options are not in show's output."""
from pathlib import Path

import pytest

from atmsim.cli import main

ROOT = Path(__file__).resolve().parent.parent
RUN_OPTIONS = sorted({o for c in ("run", "sweep") for p in main.commands[c].params if p.opts[0].startswith("--")
                      for o in p.opts + p.secondary_opts} - {"--set"})


@pytest.mark.parametrize("option", RUN_OPTIONS)
def test_a_run_option_given_to_show_or_validate_is_refused_as_not_part_of_the_scenario(cli, option):
    for command in ("show", "validate"):
        p = cli(command, "aron97-topo1-atm", option, "x")
        assert p.returncode == 2 and p.stdout == "", p.stderr
        assert p.stderr.startswith(f"atmsim: error: {option}: an option of atmsim "), p.stderr
        assert f"not part of the scenario: atmsim {command} takes the scenario and --set alone" in p.stderr
        assert len(p.stderr.splitlines()) == 1, p.stderr


def test_seed_points_to_the_scenarios_own_seed_and_an_unknown_option_stays_unknown(cli):
    p = cli("show", "aron97-topo1-atm", "--seed", "5")
    assert "(the scenario's own seed is --set seed=N)" in p.stderr, p.stderr
    assert 'seed = 5\n' in cli("show", "aron97-topo1-atm", "--set", "seed=5").stdout
    p = cli("show", "aron97-topo1-atm", "--bogus")
    assert p.returncode == 2 and p.stderr == "atmsim: error: --bogus: no such option\n", p.stderr


def test_the_docs_name_every_run_option_that_show_leaves_out():
    text = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    para = text.split("Not part of the scenario", 1)[1].split("\n\n", 1)[0]
    missing = [o for o in RUN_OPTIONS if f"`{o}`" not in para and not o.startswith("--no-")]
    assert not missing, f"docs/scenarios.md: name {missing} among the run options show leaves out"
