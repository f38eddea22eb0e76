"""Issue 38, rule 7, as a sweep: every key of every fuzzed scenario (test_fuzz.FIELDS: each section's keys and
every key of the registry), set to a value of the wrong shape, is refused in the user's words - never a parser's
or a language's internals ("invalid type: unit variant", "expected struct TcpSection", "expected u64")."""
import re

import pytest

import test_fuzz as F
from atmsim import ScenarioError, _core

INTERNALS = re.compile(r"invalid type|invalid value|unit variant|string only|expected struct|\bstruct [A-Z]"
                       r"|\b[ui](8|16|32|64|size)\b|\bf(32|64)\b|sequence|\bmap\b")
WRONG_SHAPES = ["[1]", "{ a = 1 }", "-1", "1.5", "true", '"x"']


@pytest.mark.parametrize("name", F.NAMES)
def test_every_key_set_to_the_wrong_shape_is_refused_in_words(name):
    seen = 0
    for key in F.FIELDS[name]:
        for value in WRONG_SHAPES:
            try:
                _core.resolve(F.SCENARIOS[name], [f"{key}={value}"])
            except ScenarioError as e:
                seen += 1
                assert not INTERNALS.search(str(e)), f"{key}={value}: {e}"
    assert seen > len(F.FIELDS[name])  # most keys refuse most shapes


def test_the_examples_of_the_issue_read_as_words():
    for sets, words in [(["tcp.delayed_ack=3"], "tcp.delayed_ack: must be true or false, not 3"),
                        (["seed=-1"], "seed: must be a whole number from 0 to 9223372036854775807, not -1"),
                        (["tcp=1"], "tcp: must be a table of keys (a [section] in the file), not 1"),
                        # The range said 0 to 2^64 - 1, and 2^64 - 1 itself was refused: TOML's integers stop at 2^63 - 1.
                        (["seed=18446744073709551615"], "seed: must be a whole number from 0 to 9223372036854775807, "
                                                         "not 18446744073709551615 (more than a TOML integer holds)")]:
        with pytest.raises(ScenarioError) as e:
            _core.resolve(F.SCENARIOS["aron97-topo1-atm"], sets)
        assert str(e.value) == words


def test_a_number_in_quotes_is_said_to_be_text_not_too_large():
    # `--set fabric.fes='"4"'` (and `fes = "4"` in a file) was refused as "not 4 (more than a TOML integer holds)".
    quoted = ('fabric.fes: must be a whole number from 0 to 4294967295, not the text "4" '
              "(a number in quotes is text: write it without the quotes)")
    with pytest.raises(ScenarioError) as e:
        _core.resolve(F.SCENARIOS["fabric-incast"], ['fabric.fes="4"'])
    assert str(e.value) == quoted
    text = F.SCENARIOS["fabric-incast"].replace("[fabric]", '[fabric]\nfes = "4"', 1)
    assert 'fes = "4"' in text
    with pytest.raises(ScenarioError) as e:
        _core.resolve(text, [])
    assert str(e.value) == quoted
    # A declared key (the registry's) alike, and a count past TOML's integers still says so.
    with pytest.raises(ScenarioError, match=r'^eqds.cwnd: .*, not the text "4" \(a number in quotes is text'):
        _core.resolve(F.load_scenario("eqds-one"), ['eqds.cwnd="4"'])
    with pytest.raises(ScenarioError, match=r"not 99999999999999999999 \(more than a TOML integer holds\)$"):
        _core.resolve(F.SCENARIOS["fabric-incast"], ["fabric.fes=99999999999999999999"])


@pytest.mark.parametrize("name", F.NAMES)
def test_a_huge_number_is_echoed_short_never_in_hundreds_of_digits(name):
    # fabric.scheduler.overspeed = 1e308 was echoed back in its 309 digits.
    for key in F.FIELDS[name]:
        for value in ["1e308", "-1e308", "1e-300"]:
            try:
                _core.resolve(F.SCENARIOS[name], [f"{key}={value}"])
            except ScenarioError as e:
                assert not re.search(r"\d{40}", str(e)), f"{key}={value}: {e}"
