"""Every registered mechanism (drop policy, TCP variant) is documented, pinned and checked, read
from the core's registries rather than a list kept here: a mechanism registered without its docs
row, its golden file or a docs page fails; every key it declares is refused where it would do
nothing and accepted where it runs; every choice list in an error names every registered choice."""
from pathlib import Path

import pytest

import atmsim
from atmsim import registry_doc

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "crates/atmsim-core/tests/golden"
MECHANISMS = atmsim.registry()
IDS = [f"{m['selected_by']}={m['name']}" for m in MECHANISMS]
# Where a mechanism of each selecting key is not selected: a built-in scenario and the override
# that selects another mechanism there.
ELSEWHERE = {
    "switch.policy": ("aron97-topo1-atm", ["switch.policy=tail"]),
    "router.policy": ("aron97-topo1-packet", ["router.policy=tail", "switch.buffer=60packets"]),
    "tcp.variant": ("aron97-topo1-atm", ["tcp.variant=lite"]),
    "flow.kind": ("aron97-topo1-packet", []),
    "workload.pattern": ("eqds-one", []),
    # A service turned on by its own boolean key, refused where no port would be watched (per-VC queues).
    "occupancy.percentiles": ("morris-kung95-a", []),
}
# Keys that select one mechanism for the whole scenario by name (a flow's kind is chosen per flow, by
# the schema's own list of kinds; a service's own key is a boolean).
SELECTORS = sorted(k for k in ELSEWHERE if k not in ("flow.kind", "occupancy.percentiles"))


def test_the_registry_is_read_not_listed():
    # Both drop-policy keys and the TCP variants register something, and names are unique per key.
    selectors = {m["selected_by"] for m in MECHANISMS}
    assert {"switch.policy", "router.policy", "tcp.variant"} <= selectors
    pairs = [(m["selected_by"], m["name"]) for m in MECHANISMS]
    assert len(pairs) == len(set(pairs))


def test_the_docs_key_reference_is_written_from_the_registry():
    text = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    want = registry_doc.replace_block(text, registry_doc.render(MECHANISMS))
    assert text == want, "docs/scenarios.md's registry block is stale: run `python -m atmsim.registry_doc`"


def test_a_forgotten_docs_row_is_caught():
    # A mechanism registered after the block was written shows in the rendering and not in the docs.
    toy = {**MECHANISMS[0], "name": "toy", "about": "a toy", "keys": [], "counters": []}
    text = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    assert registry_doc.replace_block(text, registry_doc.render(MECHANISMS + [toy])) != text


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_every_mechanism_has_a_docs_page_and_a_recorded_golden(m):
    page = m["docs"].split("#")[0]
    assert (ROOT / "docs" / page).is_file(), f"{m['name']}: docs/{page} does not exist"
    assert m["goldens"], f"{m['name']} declares no golden variation"
    for g in m["goldens"]:
        f = GOLDEN / (f"{g['scenario']}.s1.json" if not g["variation"] else f"matrix/{g['scenario']}.{g['variation']}.json")
        assert f.is_file(), f"{m['name']}: golden {f.relative_to(ROOT)} was never recorded (ATMSIM_BLESS=1 cargo test --test golden)"


@pytest.mark.parametrize("selector", SELECTORS)
def test_an_unknown_choice_lists_every_registered_one(selector):
    scenario, sets = ELSEWHERE[selector]
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve(scenario, sets + [f"{selector}=no-such-thing"])
    message = str(e.value)
    assert message.startswith(f"{selector}:"), message
    for m in MECHANISMS:
        if m["selected_by"] == selector:
            assert f'"{m["name"]}"' in message, (m["name"], message)


def _other_value(key: dict):
    """A valid value of `key` other than its default (TOML text)."""
    if key["kind"] == "bool":
        return "false" if key["default"] == "true" else "true"
    if key["kind"] == "count":
        return "7"
    if key["kind"] == "choice":
        return '"' + next(c for c in key["choices"] if f'"{c}"' != key["default"]) + '"'
    default = float(key["default"]) if not key["computed"] else 1.0
    return str(default / 2 if default <= 1 else default * 1.5)


KEYS = [(m, k) for m in MECHANISMS for k in m["keys"]]


@pytest.mark.parametrize("m,key", KEYS, ids=[f"{m['name']}:{k['name']}" for m, k in KEYS])
def test_every_declared_key_runs_where_its_mechanism_does_and_is_refused_elsewhere(m, key):
    value = _other_value(key)
    golden = m["goldens"][0]
    here = atmsim.resolve(golden["scenario"], list(golden["overrides"]) + [f"{key['name']}={value}"])
    assert key["name"].rsplit(".", 1)[1] in here, f"{key['name']} is not written back by show"
    scenario, sets = ELSEWHERE[m["selected_by"]]
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve(scenario, sets + [f"{key['name']}={value}"])
    assert str(e.value).startswith(f"{key['name']}: does nothing here"), str(e.value)
    # Restating the default is not an error.
    if not key["computed"]:
        atmsim.resolve(scenario, sets + [f"{key['name']}={key['default']}"])


@pytest.mark.parametrize("m,key", KEYS, ids=[f"{m['name']}:{k['name']}" for m, k in KEYS])
def test_every_declared_key_refuses_a_value_of_the_wrong_type_naming_itself(m, key):
    golden = m["goldens"][0]
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve(golden["scenario"], list(golden["overrides"]) + [f'{key["name"]}="x"'])
    assert str(e.value).startswith(f"{key['name']}: must be"), str(e.value)
