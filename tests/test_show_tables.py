"""`atmsim show` (and `atmsim.resolve`) prints every mechanism that takes effect with its defaults filled
in, and none that does not, over every section the schema knows (IN_EFFECT); a section's keys set where it
does nothing are refused (DESIGN: "defaults filled in for every mechanism that takes effect"; issue 38:
an `[arb]` equal to its defaults was left out though ARB flows ran, a `[fabric]` at its defaults though the
fabric was the topology, `[ndp]` and `[eqds]` unless a key was set; later `[router]` on ATM networks,
`[switch]`'s ATM keys and `[credit]` on packet networks, `[credit]` with credit off, an empty `[report]`
on fabrics). Checked over every built-in scenario
and every golden variation of every registered mechanism (the registry's own list of the cases that
select each one), not case by case: what is in effect is read from the resolved scenario's own words
(its flows' kinds, its topology, its policy), independently of how `show` decides it."""
import re
from pathlib import Path

import pytest

import atmsim
from atmsim.toml import tomllib

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = sorted(p.stem for p in (ROOT / "python/atmsim/scenarios").glob("*.toml"))
REGISTRY = atmsim.registry()
VARIATIONS = sorted({(g["scenario"], tuple(g["overrides"])) for m in REGISTRY for g in m["goldens"]}
                    | {(name, ()) for name in BUILT_IN}
                    # ARB scenarios run TCP-SS with their flows' kind set to tcp; [arb] then configures nothing.
                    | {("arb-fairness", ("flow.f1.kind=tcp", "flow.f2.kind=tcp"))})


def at(doc: dict, dotted: str):
    """The value at a dotted key of the resolved TOML, or None."""
    for part in dotted.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def kinds(doc: dict) -> set:
    """The kinds of the flows that run: the workload's, or each written flow's (TCP by default)."""
    if "workload" in doc:
        return {doc["workload"]["kind"]}
    return {f.get("kind", "tcp") for f in doc.get("flow", [])}


def selected(m: dict, doc: dict) -> bool:
    """Does the resolved scenario select registry mechanism `m` by its key (not a section's presence)?"""
    if m["selected_by"] == "flow.kind":
        return m["name"] in kinds(doc)
    if m["selected_by"] == "tcp.variant" and not kinds(doc) & {"tcp", "arb"}:
        return False
    if any(k["name"] == m["selected_by"] for k in m["keys"]):  # a service its own key switches on
        return at(doc, m["selected_by"]) not in (None, False)
    return at(doc, m["selected_by"]) == m["name"]


@pytest.mark.parametrize("scenario,sets", VARIATIONS, ids=[f"{s}{'+' if o else ''}{'+'.join(o)}" for s, o in VARIATIONS])
def test_every_mechanism_in_effect_and_none_other_is_shown_with_its_defaults(scenario, sets):
    text = atmsim.resolve(scenario, list(sets))
    doc, file = tomllib.loads(text), tomllib.loads(atmsim.load_scenario(scenario))
    runs = kinds(doc)
    # Sections whose presence is the mechanism (ABR, TCP Boston): as the file writes them.
    for section in ("abr", "boston"):
        assert (section in doc) == (section in file), section
    assert ("arb" in doc) == ("arb" in runs), "[arb] exactly where ARB flows run"
    if "arb" in runs:
        assert set(doc["arb"]) >= {"rinc", "theta", "interval", "k_acc", "accumulation"}, doc["arb"]
    fabric = at(doc, "topology.kind") == "fabric"
    assert ("fabric" in doc) == fabric, "[fabric] exactly where the fabric is the topology"
    if fabric:
        assert {"faps", "fes", "port_rate", "link_rate", "cell_payload"} <= set(doc["fabric"]), doc["fabric"]
    # [tcp]: all of it with TCP (or ARB) flows; else only the MSS, which sizes the other kinds' packets.
    assert (set(doc["tcp"]) == {"mss"}) == (not runs & {"tcp", "arb"}), doc["tcp"]
    # Every registered mechanism selected here: each key with a default value written; a key of none, absent.
    keys_in_effect = {k["name"] for m in REGISTRY if selected(m, doc) for k in m["keys"]}
    for m in REGISTRY:
        for k in m["keys"]:
            if k["name"] in keys_in_effect:
                assert k["computed"] or at(doc, k["name"]) is not None, f"{m['name']}: {k['name']} not shown"
            else:
                assert at(doc, k["name"]) is None, f"{k['name']} shown, but {m['name']} is not in effect"
    # What show prints always validates, and reads back to itself.
    assert atmsim.resolve(text) == text


def written(section: str):
    """In effect where the scenario's file, or one of its overrides, writes a key of `section`."""
    return lambda doc, file, sets: section in file or any(s.split("=", 1)[0].strip().split(".")[0] == section
                                                          for s in sets)


def credit_on(file: dict, sets) -> bool:
    """Credit flow control as the file and the overrides set it (show leaves `[credit]` out when off)."""
    set_to = [s.split("=", 1)[1].strip() for s in sets if s.split("=", 1)[0].strip() == "credit.enabled"]
    return set_to[-1] == "true" if set_to else at(file, "credit.enabled") is True


def registered(section: str):
    """A section of registered keys alone: in effect where a mechanism with keys in it is selected."""
    return lambda doc, file, sets: any(selected(m, doc) and any(k["name"].startswith(f"{section}.") for k in m["keys"])
                                       for m in REGISTRY)


#: Every section the schema knows: is its mechanism in effect in the resolved scenario `doc` (read from
#: its own words, or from the file and overrides where the section's presence is the switch)?
IN_EFFECT = {
    # IP runs on both networks (over AAL5 on ATM); [tcp] keeps `mss`, which sizes every kind's packets.
    "ip": lambda doc, file, sets: True, "tcp": lambda doc, file, sets: True,
    # `switch.buffer` sizes every switching node's ports, a router's too; hosts, traces, topology always.
    "switch": lambda doc, file, sets: True, "host": lambda doc, file, sets: True,
    "trace": lambda doc, file, sets: True, "topology": lambda doc, file, sets: True,
    "router": lambda doc, file, sets: doc["network"] == "packet",
    "atm": lambda doc, file, sets: doc["network"] == "atm",
    "credit": lambda doc, file, sets: doc["network"] == "atm" and credit_on(file, sets),
    "abr": lambda doc, file, sets: "abr" in file, "boston": lambda doc, file, sets: "boston" in file,
    "arb": lambda doc, file, sets: "arb" in kinds(doc),
    "fabric": lambda doc, file, sets: at(doc, "topology.kind") == "fabric",
    "report": lambda doc, file, sets: at(file, "report.bottleneck") is not None or written("report")({}, {}, sets),
    "measure": written("measure"), "capture": written("capture"), "workload": written("workload"),
    "occupancy": registered("occupancy"), "ndp": registered("ndp"), "eqds": registered("eqds"),
}
ARRAYS = {"flow", "link"}
#: Keys of sections that are in effect only in part, set off their default where they do nothing.
ATM_ONLY = {"switch.queueing": "per-vc", "switch.policy": "epd", "switch.input_service": "round-robin"}
OFF_DEFAULT = {"router.policy": "red", "atm.encapsulation": "aal5-llc", "credit.enabled": "true",
               "credit.n2": "5", "arb.theta": "0.5", "abr.tbe": "1024", "boston.aida": "false", "fabric.faps": "4",
               "ndp.initial_window": "5", "eqds.cwnd": "10"}


def test_every_section_the_schema_knows_is_classified():
    docs = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    headed = {name for head in re.findall(r"^###+ (.*)$", docs, re.M) for name in re.findall(r"`\[(\w+)\]`", head)}
    heads = {k["name"].split(".")[0] for m in REGISTRY for k in m["keys"]}
    assert headed | heads - ARRAYS == set(IN_EFFECT), "classify the new section in IN_EFFECT"


@pytest.mark.parametrize("scenario,sets", VARIATIONS, ids=[f"{s}{'+' if o else ''}{'+'.join(o)}" for s, o in VARIATIONS])
def test_every_section_is_shown_exactly_where_it_takes_effect_and_refused_elsewhere(scenario, sets):
    doc = tomllib.loads(atmsim.resolve(scenario, list(sets)))
    file = tomllib.loads(atmsim.load_scenario(scenario))
    tables = {k for k, v in doc.items() if isinstance(v, dict)}
    assert tables <= set(IN_EFFECT), f"classify {tables - set(IN_EFFECT)} in IN_EFFECT"
    assert all(doc[t] for t in tables), "no empty section: it says nothing"
    for section, effect in IN_EFFECT.items():
        assert (section in doc) == effect(doc, file, sets), f"[{section}]: shown {section in doc}"
    # A packet network's routers take `switch.buffer` alone; an ATM switch all of [switch].
    atm = doc["network"] == "atm"
    assert (set(ATM_ONLY) <= {f"switch.{k}" for k in doc["switch"]}) == atm and "buffer" in doc["switch"]
    # Set where it does nothing, a key is refused naming it (one line, exit 2 on the command line).
    off = [k for k in OFF_DEFAULT if k.split(".")[0] in IN_EFFECT and not IN_EFFECT[k.split(".")[0]](doc, file, sets)]
    for key in off + ([] if atm else list(ATM_ONLY)):
        value = {**OFF_DEFAULT, **ATM_ONLY}[key]
        if key == "credit.enabled" and atm:
            continue  # credit off on ATM: setting it on takes effect
        # (`fabric.faps` too: it was refused as "fabric", the section's name, until the key was named.)
        with pytest.raises(atmsim.ScenarioError, match=rf"^{re.escape(key)}: (does nothing here|.*needs network)"):
            atmsim.resolve(scenario, [*sets, f"{key}={value}"])
