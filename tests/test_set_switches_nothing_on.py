"""Issue 38, rule 1: `--set` never switches a mechanism on by itself being set. Setting any
`abr.*` or `boston.*` key on a scenario without that section made it an ABR (or Boston) scenario
(topology 1's E went from 0.366 to 0.805); now the key is refused, exit 2, one line naming it."""
import pytest

import atmsim

CASES = [("abr.efci.backward_ci=false", "abr.efci.backward_ci"), ("abr.tbe=512", "abr.tbe"),
         ("abr.erica.variant=plus", "abr.erica.variant"), ("boston.aida=false", "boston.aida"),
         ("boston.per_second=true", "boston.per_second")]


@pytest.mark.parametrize("set_,key", CASES)
def test_a_key_of_an_absent_section_is_refused_from_the_cli(cli, set_, key):
    r = cli("run", "aron97-topo1-atm", "--set", set_, "--set", "duration=200ms")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"atmsim: error: {key}: does nothing here") and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("set_,key", CASES)
def test_and_from_the_python_api(set_, key):
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve("aron97-topo1-atm", [set_])
    assert str(e.value).startswith(f"{key}: does nothing here")


def test_a_section_the_scenario_writes_takes_overrides_as_before():
    assert "tbe = 1024" in atmsim.resolve("jain96-2src", ["abr.tbe=1024"])
    assert "aida = false" in atmsim.resolve("boston97", ["boston.aida=false"])


def test_an_arb_key_set_where_no_flow_is_arb_is_refused(cli):
    # arb-bursty runs TCP-SS: [arb] waits for flow.fN.kind=arb, and `--set arb.theta=0.5` was taken without
    # effect (issue 38, rule 1; `atmsim show` writes no [arb] where no flow is ARB).
    r = cli("validate", "arb-bursty", "--set", "arb.theta=0.5")
    assert r.returncode == 2 and r.stderr.startswith("atmsim: error: arb.theta: does nothing here: no flow of this "
                                                     "scenario is ARB") and r.stderr.count("\n") == 1, r.stderr
    atmsim.resolve("arb-bursty", ["arb.theta=0.95"])  # what the scenario has, restated
    arb = [f"flow.f{k}.kind=arb" for k in range(1, 6)]
    assert "theta = 0.5" in atmsim.resolve("arb-bursty", [*arb, "arb.theta=0.5"])
    assert "[arb]" not in atmsim.resolve("arb-bursty")
