"""Issue 38, rule 7 (one line naming the key), as a sweep: every key the fuzzer draws (test_fuzz.FIELDS: each
section's keys, every key of the registry, [capture], [measure], [workload], trace.port, ...) in every fuzzed
scenario and in two of a fat tree (eqds-one; ndp-in-out, which writes a [measure] window), set alone to a value
out of range or of the wrong type, is refused by a line that names that key in full: `capture.snaplen`, never
the section `capture` alone; a flow's and a link's key as every message writes them, `flow[f1].window`,
`link[R1-R2].rate`. A refusal that is another key's (the one the key set left wrong) names the key set in its
words: "boston.pieces: ... (with boston.payload = true: GF(2^8))"."""
import re

import pytest

import test_fuzz as F
from atmsim import ScenarioError, _core, load_scenario

#: Out of range, or of the wrong type, for every kind of key (counts, reals, quantities, times, words, lists).
BAD = ["-1", "0", "nope", "[1]", "{ a = 1 }", "1e308", "99999999999999999999", '"x"', "true", "1.5", '"0B"',
       '"-1ms"', '"999999s"']
NAMES = (*F.NAMES, "eqds-one", "ndp-in-out")
TEXTS = {name: F.SCENARIOS.get(name) or load_scenario(name) for name in NAMES}


def as_written(key: str) -> str:
    """A key as the messages write it: an item of [[flow]] or [[link]] by its name in brackets."""
    return re.sub(r"^(flow|link)\.([^.]+)\.", r"\1[\2].", key)


def unnamed(name: str, values=BAD) -> list:
    """Each `key=value` of the scenario refused by a line that does not name the key."""
    out = []
    for key in F.FIELDS.get(name) or F.fields(name):
        for value in values:
            try:
                _core.resolve(TEXTS[name], [f"{key}={value}"])
            except ScenarioError as e:
                if as_written(key) not in str(e):
                    out.append(f"{key}={value} -> {e}")
    return out


@pytest.mark.parametrize("name", NAMES)
def test_a_key_set_wrong_is_named_in_full(name):
    missing = unnamed(name)
    assert not missing, f"{len(missing)} refusals that do not name their key, e.g. {missing[:5]}"


def test_the_sweep_draws_the_keys_of_the_leftovers():
    # The keys whose refusals named their section (session 37): drawn in every scenario.
    for name in NAMES:
        assert {"capture.snaplen", "capture.max_bytes", "measure.from", "measure.to", "workload.kind"} <= set(F.fields(name))


def refusal(name: str, sets: list, text: str = "") -> str:
    with pytest.raises(ScenarioError) as e:
        _core.resolve(text or TEXTS[name], sets)
    return str(e.value)


def test_capture_keys_are_named_not_the_section():
    # `--set capture.snaplen=0` was "capture: names no port and no host (capture.ports, capture.hosts)".
    assert refusal("aron97-topo1-atm", ["capture.snaplen=0"]) == "capture.snaplen: 0 is outside 64..=262144 bytes"
    assert refusal("aron97-topo1-atm", ["capture.max_bytes=1B"]).startswith("capture.max_bytes: '1B' is less than 4096 bytes")
    nothing = "does nothing here: [capture] names no port and no host (set capture.ports or capture.hosts)"
    assert refusal("aron97-topo1-atm", ["capture.snaplen=128"]) == f"capture.snaplen: {nothing}"
    assert refusal("aron97-topo1-atm", ["capture.ports=[]"]) == f"capture.ports: {nothing}"
    # In a file: its first key; a [capture] of no key is still the section's.
    text = TEXTS["aron97-topo1-atm"]
    assert refusal("", [], text + "\n[capture]\nmax_bytes = \"1MB\"\n") == f"capture.max_bytes: {nothing}"
    assert refusal("", [], text + "\n[capture]\n") == f"capture: {nothing}"


def test_measure_windows_name_the_key_at_fault():
    # ndp-in-out measures from 0.1 s to 0.2 s of a 0.2 s run. measure.from=5s was "measure.to: must be later
    # than measure.from"; measure.from=1ms alone, on a scenario without [measure], "measure.to: missing: ...".
    assert refusal("ndp-in-out", ["measure.from=5s"]) == "measure.from: '5s' is at or past the run's end (duration 0.2s)"
    assert refusal("ndp-in-out", ["measure.to=50ms"]) == "measure.to: '50ms' must be later than measure.from ('0.1s')"
    assert refusal("ndp-in-out", ["measure.to=1s"]) == "measure.to: '1s' is past the run's end (duration 0.2s)"
    assert refusal("aron97-topo1-atm", ["measure.from=1ms"]) == \
        "measure.to: missing: it has no default, so the scenario must give it beside measure.from"


def test_workload_kind_is_named_not_the_section():
    # `--set workload.kind=tcp` where no matrix or pattern gives flows was "workload: gives no flows: ...".
    assert refusal("aron97-topo1-atm", ["workload.kind=tcp"]) == ("workload.kind: does nothing here: the [workload] gives no "
                                                                  "flows: set workload.matrix (a connection matrix file) or workload.pattern")
    assert refusal("eqds-one", ["workload.kind=tcp"]).startswith("workload.kind: does nothing here")
    assert refusal("eqds-one", ["workload.pattern=incast", "workload.kind=udp"]).startswith('workload.kind: "udp": ')
    # fabric-incast's flows are UDP, which a matrix's cannot be: named by the key that set the workload.
    assert refusal("fabric-incast", ["workload.pattern=incast"]).startswith(
        'workload.pattern: the scenario\'s flows are "udp", which a matrix\'s flows cannot be: set workload.kind')


@pytest.mark.parametrize("setting, line", [
    ("capture.snaplen=0", "capture.snaplen: 0 is outside 64..=262144 bytes"),
    ("workload.kind=tcp", "workload.kind: does nothing here: "),
])
def test_the_cli_names_the_key_in_one_line(cli, setting, line):
    r = cli("validate", "aron97-topo1-atm", "--set", setting)
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"atmsim: error: {line}"), r.stderr
