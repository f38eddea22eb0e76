"""`atmsim show` (and `atmsim.resolve`) prints every mechanism that takes effect with its defaults filled
in, and none that does not (DESIGN: "defaults filled in for every mechanism that takes effect"; issue 38:
an `[arb]` equal to its defaults was left out though ARB flows ran, a `[fabric]` at its defaults though the
fabric was the topology, `[ndp]` and `[eqds]` unless a key was set). Checked over every built-in scenario
and every golden variation of every registered mechanism (the registry's own list of the cases that
select each one), not case by case: what is in effect is read from the resolved scenario's own words
(its flows' kinds, its topology, its policy), independently of how `show` decides it."""
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
