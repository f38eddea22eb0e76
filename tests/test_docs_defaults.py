"""The defaults docs/scenarios.md gives are the schema's (issue 33): each row of a `| key | default |
meaning |` table is checked through the tool itself. A stated default `v` of key `k` holds if
resolving a scenario with `k = v` set gives exactly the text it gives without (so units may be
written differently: `"1ms"` and `"1000us"` are the same default); "required" if leaving the key
out is refused naming it; "none"/"absent" if the resolved scenario has no such key. A default the
schema computes from other keys is listed in COMPUTED with the reason, and checked where it can be."""
import re
from atmsim.toml import tomllib
from fractions import Fraction

import pytest

import atmsim
from docrefs import ROOT

SCENARIOS_MD = ROOT / "docs/scenarios.md"

# Two switches between two hosts, so that `[abr.vbr]`'s default port, "SW1->SW2", exists.
BASE = '''name = "defaults"
network = "{network}"
duration = "1s"
topology = {{ hosts = ["A", "B"], switches = ["SW1", "SW2"] }}
link = [{{ ends = ["A", "SW1"], rate = "155.52Mbps", delay = "1us" }},
        {{ ends = ["SW1", "SW2"], rate = "155.52Mbps", delay = "1us" }},
        {{ ends = ["SW2", "B"], rate = "155.52Mbps", delay = "1us" }}]
flow = [{{ name = "f", src = "A", dst = "B" }}]
{extra}
'''

# A scheduled cell fabric's keys are checked on a fabric (`topology.kind = "fabric"` generates the hosts).
FABRIC = '''name = "defaults"
network = "packet"
duration = "1ms"
flow = [{ name = "f", kind = "udp", src = "h0", dst = "h1", rate = "1Gbps" }]
[topology]
kind = "fabric"
'''

# The scenario in which a key is checked, by the key's leading part: its section present (with
# what it needs to be accepted) and the mechanism it configures chosen.
CONTEXT = [
    ("router.red.", "packet", "", ["router.policy=red", "switch.buffer=20packets"]),
    ("router.include_arrival", "packet", "", ["router.policy=random-drop", "switch.buffer=20packets"]),
    ("router.", "packet", "", []),
    ("arb.", "packet", "", ["flow.f.kind=arb"]),
    ("abr.", "atm", "[abr]\n[abr.vbr]\n", []),
    ("boston.", "atm", "[boston]\n", ["tcp.delayed_ack=false"]),
    ("capture.hosts", "atm", "[capture]\nports = [\"SW1->SW2\"]\n", []),
    ("capture.", "atm", "[capture]\nhosts = [\"A\"]\n", []),
    ("switch.fair_share.", "atm", "", ["switch.policy=fba"]),
    # `stop` applies to runs whose flows are all bounded (refused elsewhere: it would do nothing).
    ("stop", "atm", "", ['flow.f.bytes="100000B"']),
    ("", "atm", "", []),
]

# Defaults the schema derives from other keys, as the table says; each with the reason and, where
# the tool shows it, a check.
COMPUTED = {
    "tcp.initial_window": "2 for vegas/vegas-afr, else 1: an Option resolved per variant (scenario/resolve/tcp.rs)",
    "abr.crm": "ceil(TBE/Nrm): from two other keys",
    "report.bottleneck": "the switch port most data routes cross: from the topology",
    "flow.datagram": "MSS + 12 bytes: from tcp.mss",
    "fabric.llfc.n3": "the cells a link sends in a round trip of its longest delay, plus one: from the link rate, cell size, delay and skew",
    "workload.kind": "the kind the scenario's own flows share: from its [[flow]]s (scenario/workload.rs)",
}


def tables():
    """(keys, default cell, line number) of every `| key | default | meaning |` row."""
    heads, in_table = [], False
    for n, line in enumerate(SCENARIOS_MD.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#"):
            heads = re.findall(r"`\[+([a-z_.]+)\]+`", line)
            in_table = False
        elif re.fullmatch(r"\| key \| default \| meaning \|", line.strip()):
            in_table = True
        elif in_table and line.startswith("|") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            keys = re.findall(r"`([a-z0-9_.]+)`", re.sub(r"\(.*?\)", "", cells[0]))
            yield [full_key(heads, k) for k in keys], cells[1], n
        elif not line.startswith("|"):
            in_table = False


def full_key(heads: list, key: str) -> str:
    """A key as `--set` names it: a table under "`[abr]` and `[abr.erica]`" writes `erica.a`."""
    if not heads or key.split(".")[0] in {h.split(".")[0] for h in heads}:
        return key
    return f"{heads[0]}.{key}"


def split_defaults(cell: str) -> list:
    """`"155.52Mbps"`, `"0"`, `"10Mbps"` -> three; a parenthesised gloss is dropped."""
    out, depth, cur = [], 0, ""
    for ch in cell:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    parts = [re.sub(r"\(.*\)", "", p).strip().strip("`").strip() for p in out]
    return [p for p in parts if p]


def toml_value(text: str):
    """The TOML literal a default cell gives, or None if it gives none (prose)."""
    if re.fullmatch(r"\d+/\d+", text):
        return repr(float(Fraction(text)))
    try:
        tomllib.loads(f"v = {text}")
        return text
    except tomllib.TOMLDecodeError:
        return None


def context(key: str):
    if key.startswith("fabric."):
        return FABRIC, []
    for prefix, network, extra, sets in CONTEXT:
        if key.startswith(prefix):
            return BASE.format(network=network, extra=extra), sets
    raise AssertionError(key)


def lookup(resolved: dict, key: str):
    node = resolved
    for part in key.split("."):
        if part == "flow":
            node = node["flow"][0]
            continue
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def rows():
    out = []
    for keys, cell, n in tables():
        values = split_defaults(cell)
        if len(values) == 1:
            values = values * len(keys)
        out.append((n, keys, values))
    return out


def problem(key: str, stated: str):
    text, sets = context(key)
    if key in COMPUTED:
        return None
    if stated == "required":
        where = r"(?m)^flow = .*" if key.startswith("flow.") else r"(?m)^.*"
        found = re.search(where + rf"\b{key.split('.')[-1]} = .*", text)
        if not found:
            return "stated required, but the scenario this test builds does without it"
        line = found.group()
        cut = re.sub(rf",? ?\b{key.split('.')[-1]} = \"[^\"]*\"", "", line, count=1)
        cut = re.sub(r"\{\s*,", "{", cut)
        stripped = text.replace(line, cut)
        try:
            atmsim.resolve(stripped, sets)
        except atmsim.ScenarioError as e:
            return None if key.split(".")[-1] in str(e) else f"refused without it, but not naming it: {e}"
        return "stated required, but a scenario without it is accepted"
    if stated in ("none", "absent"):
        value = lookup(tomllib.loads(atmsim.resolve(text, sets)), key)
        return None if value is None else f"stated {stated}, but resolves to {value!r}"
    literal = toml_value(stated)
    if literal is None:
        return f"default {stated!r} is not a value: give one, or list the key in COMPUTED with why"
    set_key = key.replace("flow.", "flow.f.", 1) if key.startswith("flow.") else key
    try:
        with_it = atmsim.resolve(text, sets + [f"{set_key}={literal}"])
    except atmsim.ScenarioError as e:
        return f"setting the stated default {literal} is refused: {e}"
    without = atmsim.resolve(text, sets)
    if with_it != without and not same_quantities(tomllib.loads(with_it), tomllib.loads(without)):
        shown = lookup(tomllib.loads(without), key)
        return f"stated {literal}, but the schema's default is {shown!r}" + (" (not printed at its default)" if shown is None else "")
    return None


# Times and sizes as the schema writes them (scenario/units.rs), to compare a default written in
# another unit: "1ms" is "1000us". Cells and packets are not converted (their bytes depend on the
# network).
UNITS = {**{u: (f, "time") for u, f in {"s": 10**12, "ms": 10**9, "us": 10**6, "µs": 10**6, "ns": 10**3, "ps": 1}.items()},
         **{u: (f, "size") for u, f in {"B": 1, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9,
                                        "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}.items()},
         **{u: (f, "rate") for u, f in {"bps": 1, "b/s": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9,
                                        "B/s": 8, "kB/s": 8 * 10**3, "MB/s": 8 * 10**6, "GB/s": 8 * 10**9}.items()}}


def quantity(value):
    """("1ms") -> (10**9, "time"); anything else unchanged."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-zµ/]+)\s*", value) if isinstance(value, str) else None
    if not m or m.group(2) not in UNITS:
        return value
    factor, kind = UNITS[m.group(2)]
    return Fraction(m.group(1)) * factor, kind


def same_quantities(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_quantities(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_quantities(x, y) for x, y in zip(a, b))
    return a == b or quantity(a) == quantity(b)


def test_every_key_table_row_gives_the_schemas_default():
    checked, found = 0, []
    for n, keys, values in rows():
        if all(k in COMPUTED for k in keys):
            continue
        assert len(values) == len(keys), f"docs/scenarios.md:{n}: {len(keys)} keys, {len(values)} defaults"
        for key, stated in zip(keys, values):
            why = problem(key, stated)
            checked += key not in COMPUTED
            if why:
                found.append(f"docs/scenarios.md:{n}: {key}: {why}")
    assert checked > 80, f"only {checked} defaults found: has the table layout changed?"
    assert not found, "\n".join(found)


@pytest.mark.parametrize("key", sorted(COMPUTED))
def test_every_computed_default_names_a_documented_key(key):
    assert any(key in keys for _, keys, _ in rows()), f"{key} is in COMPUTED but in no table of docs/scenarios.md"


if __name__ == "__main__":
    for n, keys, values in rows():
        for key, stated in zip(keys, values):
            print(n, key, stated, "->", "computed" if key in COMPUTED else problem(key, stated) or "ok")
