"""Issue 38, rule 1, for the keys of the schema's own sections ([credit], [host], [tcp], [trace],
[capture], [atm]): `atmsim show` prints a key exactly where it takes effect, and a key that does nothing there,
set off its default, is refused naming it ("does nothing here"). `show` printed all of [credit] with credit
flow control off, the adapters' `host.tcp_rate` and `host.bus_rate` on ideal hosts and `tcp.afr_predictor`
without an AFR variant and `[atm]` on packet networks, and left out `trace.port_rows` and `capture.max_bytes` at their defaults where a port
was logged or a capture configured; `host.tcp_rate` on ideal hosts and `atm.encapsulation` on a packet network were taken without effect. Checked over
every built-in scenario and golden variation (tests/test_show_tables.py's list), with what is in effect read
from the resolved scenario's own words, independently of the core's table of them."""
import pytest

import atmsim
from atmsim.toml import tomllib
from test_show_tables import VARIATIONS, at, kinds

# A value other than the default for each key the rule covers.
OFF_DEFAULT = {"credit.n2": "5", "credit.n3": "200", "credit.switch_delay": "1us", "credit.host_delay": "1us",
               "credit.transport": "out-of-band", "host.tcp_rate": "1MB/s", "host.bus_rate": "1MB/s",
               "host.send_jitter": "1us", "tcp.afr_predictor": "hysteresis", "trace.port_rows": "5",
               "atm.encapsulation": "aal5-llc"}


def in_effect(doc: dict) -> dict:
    """For each key the rule covers: does it take effect in the resolved scenario `doc`?"""
    credit = at(doc, "credit.enabled") is True
    adapter = at(doc, "host.model") == "adapter"
    tcp = bool(kinds(doc) & {"tcp", "arb"})
    effect = {k: credit for k in OFF_DEFAULT if k.startswith("credit.")}
    effect |= {"host.tcp_rate": adapter, "host.bus_rate": adapter, "host.send_jitter": not adapter,
               "tcp.afr_predictor": tcp and str(at(doc, "tcp.variant")).endswith("-afr"),
               "trace.port_rows": at(doc, "trace.port") is not None, "atm.encapsulation": doc["network"] == "atm"}
    return effect


@pytest.mark.parametrize("scenario,sets", VARIATIONS, ids=[f"{s}{'+' if o else ''}{'+'.join(o)}" for s, o in VARIATIONS])
def test_show_prints_a_key_exactly_where_it_takes_effect_and_setting_one_elsewhere_is_refused(scenario, sets):
    text = atmsim.resolve(scenario, list(sets))
    doc = tomllib.loads(text)
    for key, effect in in_effect(doc).items():
        assert (at(doc, key) is not None) == effect, f"{key}: shown {at(doc, key) is not None}, in effect {effect}"
        if effect:
            continue
        with pytest.raises(atmsim.ScenarioError, match=rf"^{key}: does nothing here"):
            atmsim.resolve(scenario, [*sets, f"{key}={OFF_DEFAULT[key]}"])
    assert ("capture" in doc) == ("max_bytes" in doc.get("capture", {})), "capture.max_bytes wherever [capture] is"


def test_the_keys_take_effect_where_their_mechanism_runs(cli):
    # The same keys are taken where they do something, and show prints them.
    text = atmsim.resolve("morris-kung95-a", ["credit.enabled=true", "credit.n2=5", "host.model=adapter",
                                              "host.tcp_rate=1MB/s"])
    assert "n2 = 5" in text and 'tcp_rate = "1MB/s"' in text
    text = atmsim.resolve("aron97-topo1-atm", ["trace.port=S1->R1"])
    assert "port_rows = 20000000" in text
    r = cli("validate", "aron97-topo1-atm", "--set", "host.bus_rate=1MB/s")
    assert r.returncode == 2 and r.stderr == ("atmsim: error: host.bus_rate: does nothing here: hosts are ideal "
                                              '(host.model = "adapter" uses it)\n'), r.stderr


def test_capture_max_bytes_is_shown_with_a_capture():
    text = atmsim.resolve("aron97-topo1-atm", ['capture.hosts=["S1"]'])
    assert 'max_bytes = "2GB"' in text and atmsim.resolve(text) == text
