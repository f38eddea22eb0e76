"""Fuzzing the scenario input: whatever a user writes, atmsim either runs it to
a physically valid, balanced summary or refuses it with one line naming the
key — never a panic, a traceback, a hang or a runaway.

Each case takes a built-in scenario (every section: [abr], [arb], [boston]
included), shortens it to 20 ms past its last flow's start (a flow that would
start at or past the end is refused), and overrides one to three of its keys. The
keys are the scenario's own, read from its resolved TOML (flows by name,
links by their ends), so most overrides reach the simulator, and every key
the registry declares (`atmsim.registry()`: RED's, fair share's, EPD's, ...)
with the words of every key that selects a mechanism, `trace.port` and the
keys of the schema's sections with their defaults (`atmsim show` leaves each
out where it does nothing), in every scenario, where they are selected or
not: every key docs/scenarios.md documents is drawn
(test_the_fuzzer_draws_every_key_the_schema_knows); each value keeps
the key's kind (integer, float, bool, quantity with its unit, list of times)
at a magnitude near an integer limit, or is of another unit, type or junk.
The default budget is small (CI); `ATMSIM_FUZZ_EXAMPLES=100000 python -m
pytest tests/test_fuzz.py` is the long run.
"""
import json
import math
import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atmsim import ScenarioError, _core, load_scenario, registry, resolve
from atmsim.toml import tomllib

EXAMPLES = int(os.environ.get("ATMSIM_FUZZ_EXAMPLES", "150"))
NAMES = ("aron97-topo1-atm", "aron97-topo2-packet", "morris-kung95-a", "morris-kung95-fig6",
         "jain96-2src", "arb-twoway-short", "boston97", "fabric-incast")
SCENARIOS = {name: load_scenario(name) for name in NAMES}

# Every key of [fabric] with its default (a default restated is not a key without effect), and a flow's class.
FABRIC_DEFAULTS = {"fabric.faps": 16, "fabric.fes": 6, "fabric.ports_per_fap": 4, "fabric.fap_links": 18,
                    "fabric.port_rate": "400Gbps", "fabric.port_delay": "100ns", "fabric.link_rate": "106.25Gbps",
                    "fabric.link_delay": "50ns", "fabric.link_skew": "0ns", "fabric.cell_payload": "256B",
                    "fabric.cell_header": "16B", "fabric.packing": "off", "fabric.spray": "round-robin",
                    "fabric.credit_worth": "4096B", "fabric.control_bytes": "8B", "fabric.tcs": 1,
                    "fabric.voq.buffer": "64MB", "fabric.crs.max_empty_balance": "4096B", "fabric.crs.slow_rate": 0.1,
                    "fabric.scheduler.overspeed": 0.01, "fabric.scheduler.egress_stop": "16KB",
                    "fabric.scheduler.strict": 0, "fabric.llfc.n2": 10, "fabric.reach.detect": "100us",
                    "fabric.reach.balanced_input": False, "fabric.reassembly_timeout": "10us", "flow.s4.tc": 0,
                    "fabric.class_priorities": [], "fabric.scheduler.weights": [], "fabric.fail": []}

# Keys of sections a scenario may lack, set with their defaults' kinds.
OPTIONAL = {
    "jain96-2src": {"abr.vbr.port": "SW1->SW2", "abr.vbr.rate": "124.416Mbps", "abr.vbr.on": "100ms",
                    "abr.vbr.off": "100ms", "abr.vbr.start": "2ms", "abr.loss.port": "SW1->SW2",
                    "abr.loss.probability": 0.0001, "abr.crm": 16},
    "aron97-topo1-atm": {"boston.aida": False, "boston.pieces": 256, "flow.f1.window": "64KB", "flow.f1.drop_segments": []},
    # With the keys of [fabric] that have no default (a second stage, ECN marking).
    "fabric-incast": {**FABRIC_DEFAULTS, "fabric.fe2s": 2, "fabric.fe2_links": 2, "fabric.group_faps": 8,
                      "fabric.llfc.n3": 90, "fabric.voq.ecn_above": "20000B"},
}
SKIP = re.compile(r"^(name|description|duration|seed_randomizes|topology\..*|link\..*\.ends|flow\..*\.name)$")

#: A value of each kind the registry's keys have (their defaults may be text: "the scenario's VCs").
KIND_VALUES = {"real": 1.5, "bool": True, "count": 1}


def registry_keys() -> tuple[dict, dict, dict, dict]:
    """Every key the registry declares (`atmsim.registry()`) with a value of its kind, its default as the
    registry states it and the overrides that select a mechanism it configures; per key that selects a
    mechanism, the names it selects."""
    keys, defaults, selects, words = {}, {}, {}, {}
    for m in registry():
        selector = re.fullmatch(r"(switch|router|tcp)\.[a-z_.]+", m["selected_by"])
        if selector:
            words.setdefault(m["selected_by"], []).append(m["name"])
        for k in m["keys"]:
            keys[k["name"]] = KIND_VALUES.get(k["kind"], 1)
            defaults[k["name"]] = None if k.get("computed") else k.get("default")
            selects.setdefault(k["name"], []).extend([f"{m['selected_by']}={m['name']}"] if selector else [])
    return keys, defaults, selects, words


#: Per registry key, the overrides that select a mechanism it configures (drawn beside it half the time, so
#: the key is drawn where it acts as well as where it is refused).
REGISTRY_KEYS, REGISTRY_DEFAULTS, SELECTS, REGISTRY_WORDS = registry_keys()
#: The keys of the schema's own sections with their defaults: `atmsim show` leaves each out where it does
#: nothing (credit off, a packet network's [switch] but `buffer`, an ATM network's [router], [atm] on a
#: packet network, ...), so no scenario's resolved TOML holds them all; drawn in every scenario, where they
#: act and where they must be refused (a default restated is not a key without effect).
SCHEMA_DEFAULTS = {"switch.queueing": "fifo", "switch.policy": "tail", "switch.input_service": "arrival",
                   "router.policy": "tail", "atm.encapsulation": "raw48", "credit.enabled": False, "credit.n2": 10,
                   "credit.n3": 90, "credit.switch_delay": "0us", "credit.host_delay": "5us",
                   "credit.transport": "in-band", "host.model": "ideal", "host.tcp_rate": "15MB/s",
                   "host.bus_rate": "100MB/s", "host.send_jitter": "0ps", "tcp.ecn": False,
                   "tcp.limited_transmit": False, "tcp.afr_predictor": "saturating", "trace.port_rows": 20000000,
                   "capture.snaplen": 96, "capture.max_bytes": "2GB", "capture.hosts": [], "capture.ports": [],
                   # (drawn as "duration" below, the value that acts; "done", its default, restated is no key
                   # without effect: aron97-topo1-atm with stop=done was flagged so)
                   "stop": "done"}
#: A flow's keys that no scenario writes, with their defaults.
FLOW_DEFAULTS = {"flow.drop_segments": []}
#: Keys no scenario writes unless it uses them, drawn in every scenario too (a port name for trace.port).
EXTRA_KEYS = {**REGISTRY_KEYS, **SCHEMA_DEFAULTS, "trace.port": "S->B", "trace.port_rows": 1000,
              "measure.from": "1ms", "measure.to": "2ms", "workload.matrix": "validation/htsim/matrices/one.cm",
              "workload.pattern": "incast", "workload.kind": "eqds", "stop": "duration"}


def fields(name: str) -> dict:
    """Every settable key of a scenario with its resolved value."""
    doc = tomllib.loads(resolve(name))
    out = {}

    def walk(prefix, table):
        for k, v in table.items():
            if isinstance(v, dict):
                walk(f"{prefix}{k}.", v)
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    tag = item.get("name") or "-".join(item.get("ends", []))
                    walk(f"{prefix}{k}.{tag}.", {kk: vv for kk, vv in item.items()})
            else:
                out[f"{prefix}{k}"] = v

    walk("", doc)
    out.update(OPTIONAL.get(name, {}))
    out.update({k: v for k, v in EXTRA_KEYS.items() if k not in out})
    return {k: v for k, v in sorted(out.items()) if not SKIP.match(k)}


FIELDS = {name: fields(name) for name in NAMES}


def seconds(text: str) -> float:
    """A time as the scenarios write them ("80ms", "0.947s"), in seconds."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*(s|ms|us|ns|ps)\s*", text)
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}[m.group(2)]


#: Each scenario's run: 20 ms past its last flow's start (boston97's sources start up to 0.95 s in).
DURATION = {name: f"duration={round((max(seconds(f['start']) for f in tomllib.loads(resolve(name))['flow']) + 0.02) * 1e6)}us"
            for name in NAMES}


def choices(name: str) -> dict:
    """Per word-valued key, the words it accepts: the variants its error
    message lists, or the scenario's port or node names."""
    facts = _core.model_facts(SCENARIOS[name])
    doc = tomllib.loads(resolve(name))["topology"]
    ports, nodes = sorted(facts["ports"]), [n for v in doc.values() if isinstance(v, list) for n in v]
    out = {}
    for key, value in FIELDS[name].items():
        if not isinstance(value, str) or re.match(r"\s*[0-9.]", value):
            continue
        try:
            _core.resolve(SCENARIOS[name], [f"{key}=nope"])
        except ScenarioError as e:
            msg = str(e)
            words = re.findall(r"`([^`]+)`", msg.split("expected", 1)[1]) if "expected" in msg else []
            out[key] = words[:-1] or (ports if "port" in msg else nodes if "node" in msg else [])
    for key, names in REGISTRY_WORDS.items():  # every mechanism a key selects, whatever its error lists
        out[key] = sorted(set(out.get(key, [])) | set(names))
    return out


CHOICES = {name: choices(name) for name in NAMES}

INT_LIMITS = ["0", "1", "2", "127", "255", "256", "65535", "65536", "2147483647", "2147483648", "4294967295",
              "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
              "18446744073709551616", "340282366920938463463374607431768211456", "99999999999999999999", "-1"]
FLOATS = ["0", "0.0", "-0.0", "1e-300", "5e-324", "0.5", "1.0", "1.5", "1e9", "1e308", "1.7976931348623157e308",
          "-1.0", "nan", "inf", "-inf"]
NUMBERS = INT_LIMITS + ["0.5", "1.5", "0.000000000000000001", "1e9", "-0", "nan", "inf", ""]
UNITS = ["", "B", "KB", "KiB", "MB", "GiB", "cells", "packets", "s", "ms", "us", "ns", "ps", "bps", "Mbps",
         "Gbps", "cells/s", "us/cell", "B/s", "MB/s", "Mbs", "xyz", "/3Mbps"]
WORDS = ["true", "false", "atm", "packet", "tail", "ppd", "epd", "eom-protect", "per-vc", "fifo", "lite", "vegas",
         "in-band", "adapter", "udp", "tcp", "arb", "auto", "full", "basic", "immediate", "vandermonde", "cauchy",
         "ra", "rs", "unbounded", "SW1->SW2", "S1->SW1", "[]", "[1, 2]", '["0us", "1us"]', '"quoted"', "{}",
         "R1->R2", "nope"]

junk = st.one_of(st.sampled_from(WORDS), st.text(max_size=12),
                 st.builds(lambda n, u: n + u, st.sampled_from(NUMBERS), st.sampled_from(UNITS)))


def like(value, words=()) -> st.SearchStrategy:
    """Values of the kind `value` has, at magnitudes near the integer limits
    (for a word, the words its key accepts)."""
    if isinstance(value, bool):
        return st.sampled_from(["true", "false"])
    if isinstance(value, int):
        return st.one_of(st.sampled_from(INT_LIMITS), st.integers(-(2**70), 2**70).map(str))
    if isinstance(value, float):
        return st.one_of(st.sampled_from(FLOATS), st.floats().map(repr).map(lambda r: r.replace("e+", "e")))
    if isinstance(value, list):  # of times (send_at) or of counts (drop_segments, fabric weights)
        times = st.builds(lambda n, u: f'"{n}{u}"', st.sampled_from(INT_LIMITS[:12]), st.sampled_from(["us", "ps", "s"]))
        return st.lists(st.one_of(times, st.sampled_from(INT_LIMITS[:12])), max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
    m = re.fullmatch(r"\s*[0-9.]+\s*([A-Za-z/].*)", str(value))
    if m:  # a quantity: keep its unit
        return st.builds(lambda n, u: n + u, st.sampled_from(NUMBERS[:-1]), st.just(m.group(1)))
    return st.sampled_from(list(words) or WORDS)  # a name or a word


@st.composite
def cases(draw):
    name = draw(st.sampled_from(NAMES))
    keys = draw(st.lists(st.sampled_from(sorted(FIELDS[name])), min_size=1, max_size=3))
    kind = {k: like(FIELDS[name][k], CHOICES[name].get(k, ())) for k in keys}
    pairs = [(k, draw(st.one_of(kind[k], junk) if draw(st.integers(0, 9)) == 0 else kind[k])) for k in keys]
    return name, selecting(pairs, lambda options: draw(st.sampled_from([None, *options])))


def selecting(pairs, pick):
    """`pairs` with, before a registry key, the override that selects a mechanism it configures when `pick`
    (given the choices) returns one rather than None."""
    out = []
    for k, v in pairs:
        chosen = pick(SELECTS[k]) if SELECTS.get(k) else None
        if chosen:
            out.append(tuple(chosen.split("=", 1)))
        out.append((k, v))
    return out


def _same(value: str, default) -> bool:
    """Does `value` as written restate `default` as the registry states it?"""
    if default is None:
        return False
    try:
        return float(value) == float(default)
    except ValueError:
        pass
    try:  # times as quantities: "0s" restates "0us" (credit.switch_delay, the core compares them so too)
        return seconds(value) == seconds(str(default))
    except (AttributeError, TypeError, ValueError):
        return value.strip().lower() == str(default).strip().lower()


def without_effect(name: str, pairs, sets) -> str:
    """For an accepted case: a key that was accepted and had no effect (issue 38, rule 1: a key set to a
    value with no effect is refused; `atmsim show` prints what takes effect): the resolved scenario is the
    one without it, the key is not in it, and the value is not its default. '' if there is none."""
    whole = _core.resolve(SCENARIOS[name], sets)
    for key, value in dict(pairs).items():  # (the last value of a key set twice is the one that counts)
        try:
            base = _core.resolve(SCENARIOS[name], [x for x in sets if not x.startswith(f"{key}=")])
        except ScenarioError:
            continue  # without it the others are invalid: it has an effect
        default = REGISTRY_DEFAULTS.get(key, FABRIC_DEFAULTS.get(key, SCHEMA_DEFAULTS.get(key, FLOW_DEFAULTS.get(
            re.sub(r"^flow\.[^.]+\.", "flow.", key)))))
        if whole == base and not _same(value, default) and not _restated(key, value, base):
            return f"{key}={value} accepted without effect"
    return ""


def _restated(key: str, value: str, resolved: str) -> bool:
    """Does the resolved TOML already write the key's last part with this value (`buffer = "192528B"`: the
    scenario's own value set again)? `atmsim show` writes the defaults of every mechanism in effect, so a
    key being written is not enough."""
    leaf = re.escape(key.rsplit(".", 1)[-1])
    return any(_same(value, v.strip().strip('"')) for v in re.findall(rf"^{leaf} = (.*)$", resolved, re.M))


def resized(pairs) -> bool:
    """Does the case set the sizes U_max counts in (full TCP segments of tcp.mss) or a datagram's? A UDP
    datagram larger than a tcp.mss set smaller carries more payload per header than U_max counts
    (fabric-incast with tcp.mss=1B: effective throughput 1.23, its lines' capacity respected)."""
    return any(k == "tcp.mss" or k.endswith(".datagram") for k, _ in pairs)


def physically_valid(s: dict, one_direction: bool, resized: bool = False) -> None:
    acc = s["accounting"]
    assert acc["balanced"], acc
    for k in ("effective_throughput", "fairness", "cell_loss_ratio", "dead_cell_share"):
        assert math.isfinite(s[k]) and s[k] >= 0, (k, s[k])
    assert s["fairness"] <= 1 + 1e-9 and s["cell_loss_ratio"] <= 1
    if one_direction and not (resized and any(f["kind"] == "udp" for f in s["flows"])):
        # TCP flows that all cross the bottleneck in one direction deliver no more than U_max,
        # its capacity in full segments; on ATM a segment a little shorter than the MSS can
        # fill its last cell better (AAL5 padding), hence the margin.
        limit = 1.01 if s["network"] == "atm" else 1 + 1e-9
        assert s["effective_throughput"] <= limit, s["effective_throughput"]
    for p in s["ports"]:
        assert 0 <= p["busy_fraction"] <= 1 + 1e-12, p
        if p["limit"] is not None:
            assert p["peak_occupancy"] <= p["limit"] or p["unit"] == "cells", p


# U_max (effective throughput's denominator) counts full TCP segments of one
# direction: arb-twoway-short loads both directions of its bottleneck link
# (its throughput reaches 2), and morris-kung95-fig6's UDP datagrams may be
# larger than tcp.mss. Their physical bound is the lines' capacity (balanced).
ONE_DIRECTION = set(NAMES) - {"arb-twoway-short", "morris-kung95-fig6"}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(case=cases())
def test_any_overrides_run_valid_or_fail_in_one_line(case):
    name, pairs = case
    sets = [f"{key}={value}" for key, value in pairs] + [DURATION[name]]
    try:
        summary, _ = _core.run(SCENARIOS[name], sets, None, False)
    except ScenarioError as e:
        msg = str(e)
        assert msg and "\n" not in msg and ": " in msg, msg
        return
    moved = any(k in ("report.bottleneck", "network") or k.endswith((".src", ".dst", ".kind")) for k, _ in pairs)
    physically_valid(json.loads(summary), name in ONE_DIRECTION and not moved, resized(pairs))
    assert not without_effect(name, pairs, sets), without_effect(name, pairs, sets)
    assert not never_started(name, sets), never_started(name, sets)


def never_started(name: str, sets) -> str:
    """For an accepted case: a written flow that starts at or past the run's end, so never does anything
    (issue 38, rule 1: refused, naming its start). '' if there is none."""
    doc = tomllib.loads(_core.resolve(SCENARIOS[name], sets))
    late = [f["name"] for f in doc.get("flow", []) if seconds(f["start"]) >= seconds(doc["duration"])]
    return f"flow {late[0]} accepted though it starts at or past the end" if late else ""


def test_the_fuzzer_flags_a_flow_that_never_starts(monkeypatch):
    # A resolver that took a start past the end (as it did before issue 38's round three) is caught.
    assert never_started("aron97-topo1-atm", ["duration=1s", "flow.f8.start=0.5s"]) == ""
    real = _core.resolve
    monkeypatch.setattr(_core, "resolve", lambda text, sets=(): real(text, [*sets, "duration=1s", "flow.f8.start=0.5s"])
                        .replace('start = "0.5s"', 'start = "2s"'))
    assert never_started("aron97-topo1-atm", []) == "flow f8 accepted though it starts at or past the end"


def test_the_fuzzer_flags_a_key_accepted_without_effect(monkeypatch):
    # The check the long run makes on every accepted case (issue 38): a resolver that dropped
    # router.red.min_th without a word is caught; the key it prints, and a default restated, are not.
    name, sets = "aron97-topo2-packet", ["router.policy=red", "switch.buffer=100packets", DURATION["aron97-topo2-packet"]]
    pairs = [("router.policy", "red"), ("switch.buffer", "100packets")]
    assert without_effect(name, [*pairs, ("router.red.min_th", "3")], [*sets, "router.red.min_th=3"]) == ""
    assert without_effect(name, [*pairs, ("router.red.min_th", "5")], [*sets, "router.red.min_th=5"]) == ""
    real = _core.resolve
    monkeypatch.setattr(_core, "resolve", lambda text, sets=(): real(text, [x for x in sets if "min_th" not in x]))
    assert without_effect(name, [*pairs, ("router.red.min_th", "3")], [*sets, "router.red.min_th=3"]) == \
        "router.red.min_th=3 accepted without effect"
    assert without_effect(name, [*pairs, ("router.red.min_th", "5.0")], [*sets, "router.red.min_th=5.0"]) == ""


def test_a_default_restated_in_another_unit_is_not_a_key_without_effect():
    # Seed 3804 drew credit.switch_delay=0s on fabric-incast (credit is ATM's; default "0us"): taken as
    # restating the default, as the core compares times, and not flagged; 1us there is refused.
    sets = ["credit.switch_delay=0s", DURATION["fabric-incast"]]
    assert without_effect("fabric-incast", [("credit.switch_delay", "0s")], sets) == ""
    assert _same("0s", "0us") and not _same("1us", "0us") and _same("false", False)
    # Seed 3806: fabric.scheduler.weights=[], fabric.class_priorities=[] and fabric.fail=[] restate their defaults.
    for key in ("fabric.scheduler.weights", "fabric.class_priorities", "fabric.fail"):
        assert without_effect("fabric-incast", [(key, "[]")], [f"{key}=[]", DURATION["fabric-incast"]]) == ""


def documented_keys() -> set:
    """Every key docs/scenarios.md's tables give, section by section (a flow's and a link's by their last
    part): the schema as a user reads it, independently of what `atmsim show` prints of a scenario."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs/scenarios.md").read_text(encoding="utf-8")
    keys, section = set(), None
    for line in text.splitlines():
        if line.startswith("#"):
            found = re.findall(r"`\[\[?(\w+)\]?\]`", line)
            section = "" if line.endswith("Top level") else (found[0] if found and line.startswith("### ") else None)
        elif section is not None and (m := re.match(r"^\| (`[^|]*`) \|", line)):
            for k in re.findall(r"`([a-z_.]+)`", m.group(1)):
                whole = not section or "." in k and k.split(".")[0] in (section, "report", "trace")
                keys.add(k if whole else f"{section}.{k}")
    return {k for k in keys if not SKIP.match(k) and k.split(".")[0] != "topology" and k not in ("flow.name", "link.ends")}


def test_the_fuzzer_draws_every_key_the_schema_knows():
    # Issue 38: the fuzzer drew neither trace.port, router.red.* nor switch.fair_share.*; and once
    # `atmsim show` left [credit] out with credit off, nor any [credit] key, nor a packet network's
    # switch.queueing. A flow's or link's key is drawn under its name or ends.
    drawn = {re.sub(r"^(flow|link)\.[^.]+\.", r"\1.", k) for name in NAMES for k in FIELDS[name]}
    missing = sorted(documented_keys() - drawn)
    assert not missing, f"draw these keys in the fuzzer (EXTRA_KEYS, OPTIONAL): {missing}"
    assert {"trace.port", "router.red.min_th", "switch.fair_share.r", "credit.n2"} <= drawn
    for name in NAMES:  # the keys of the schema's sections in every scenario, where they act or not
        assert set(SCHEMA_DEFAULTS) | {"trace.port"} <= set(FIELDS[name]), name
