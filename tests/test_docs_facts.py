"""Numbers the docs state as facts about the code (issue 33): sizes that tests assert, constants,
limits, counts. Each fact is a statement the doc must still contain (reworded, the fact here fails
and is updated with it, so no statement silently goes unchecked) and the value the code gives."""
import re
from atmsim.toml import tomllib

import pytest

import atmsim
from atmsim import reproduce
from docrefs import ROOT, rust

CORE = ROOT / "crates/atmsim-core"


def asserted_size(rust_type: str) -> int:
    """The size of `rust_type` a Rust test asserts: `assert_eq!(size_of::<T>(), N)` or `<= N`."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (CORE / "src").rglob("*.rs"))
    found = re.findall(rf"size_of::<(?:super::)?{rust_type}>\(\)(?:, | <= )(\d+)", text)
    assert len(set(found)) == 1, f"no single size asserted for {rust_type}: {found}"
    return int(found[0])


def rust_const(name: str) -> int:
    """The value of an integer `const` of the core, its expression evaluated (`1 << 20`,
    `u64::MAX >> CODE_BITS`)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (CORE / "src").rglob("*.rs"))
    consts = dict(re.findall(r"\bconst (\w+): \w+ = ([^;]+);", text))
    expr = consts[name]
    for other in sorted(set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", expr)) - {"MAX"}, key=len, reverse=True):
        expr = re.sub(rf"\b{other}\b", f"({rust_const(other)})", expr)
    expr = re.sub(r"u64::MAX", str(2**64 - 1), expr).replace("_", "")
    assert re.fullmatch(r"[\d\s()<>+*-]+", expr), expr
    return eval(expr)  # only digits and shifts left, checked above


def core_line_limit() -> int:
    """500, the limit ARCHITECTURE.md states, if every source file of the core is under it."""
    long = {str(p.relative_to(CORE)): n for p in (CORE / "src").rglob("*.rs") if (n := len(p.read_text(encoding="utf-8").splitlines())) >= 500}
    assert not long, f"source files of 500 lines or more: {long}"
    return 500


def port_hot_lines() -> int:
    """The cache lines the test of `Port`'s layout keeps the unit-hop's fields in."""
    test = (CORE / "src/net/port.rs").read_text(encoding="utf-8")
    return int(re.search(r"end <= (\d+) \* 64", test).group(1))


def accepted(setting: str, scenario: str = "") -> bool:
    try:
        atmsim.resolve(scenario or ARB_CAPTURE, [setting])
        return True
    except atmsim.ScenarioError:
        return False


# A packet scenario with captures on, for the limits below.
ARB_CAPTURE = atmsim.load_scenario("arb-oneway") + '\n[capture]\nhosts = ["host-1"]\n'

WORDS = {"three": 3, "four": 4, "five": 5, "six": 6}

# (doc, the statement as a pattern whose group 1 is the number, the number the code gives).
FACTS = [
    ("ARCHITECTURE.md", r"taken back every 2\^(\d+) events", lambda: rust_const("OBSERVE_EVERY").bit_length() - 1),
    ("ARCHITECTURE.md", r"calls an observer every 2\^(\d+) events", lambda: rust_const("OBSERVE_EVERY").bit_length() - 1),
    ("docs/scenarios.md", r"every 2\^(\d+) events", lambda: rust_const("OBSERVE_EVERY").bit_length() - 1),
    ("ARCHITECTURE.md", r"Every source file of the core \(`src/`\) is under (\d+) lines", core_line_limit),
    ("ARCHITECTURE.md", r"\((\d+)-byte entries compared as one integer", lambda: asserted_size("Scheduled")),
    ("ARCHITECTURE.md", r"once the wheel holds (\d+) events", lambda: rust_const("LANES_FROM")),
    ("ARCHITECTURE.md", r"`wheel.rs`: (\d+) buckets", lambda: rust_const("BUCKETS")),
    ("ARCHITECTURE.md", r"up to (\d+) \*gap lanes\*", lambda: rust_const("MAX_LANES")),
    ("ARCHITECTURE.md", r"a credit count \(below 2\^(\d+), checked\)", lambda: (rust_const("MAX_CREDIT_COUNT") + 1).bit_length() - 1),
    ("ARCHITECTURE.md", r"`Event` \(at most (\d+) bytes, checked\)", lambda: asserted_size("Event")),
    ("ARCHITECTURE.md", r"is a cell or a packet: (\d+) bytes as two words", lambda: asserted_size("Unit")),
    ("ARCHITECTURE.md", r"`InFlight` \((\d+) bytes\)", lambda: asserted_size("InFlight")),
    ("ARCHITECTURE.md", r"a cell in flight is (\d+) bytes", lambda: asserted_size("InFlight")),
    ("ARCHITECTURE.md", r"arrival time \+ (\d+)-byte unit", lambda: asserted_size("Unit")),
    ("ARCHITECTURE.md", r"each a\s+(\d+)-byte `Copy` struct", lambda: asserted_size("Unit")),
    ("ARCHITECTURE.md", r"so cells keep a (\d+)-byte header", lambda: asserted_size("Segment")),
    ("ARCHITECTURE.md", r"in its first (\w+) cache lines \(tested\)", port_hot_lines),
    ("ARCHITECTURE.md", r"`rustfmt.toml`: (\d+) columns", lambda: tomllib.loads((ROOT / "rustfmt.toml").read_text(encoding="utf-8"))["max_width"]),
    ("ARCHITECTURE.md", r"every built-in scenario \((\d+) seeds\)", lambda: int(re.search(r"const SEEDS: \[u64; (\d+)\]", (CORE / "tests/golden.rs").read_text(encoding="utf-8")).group(1))),
    # The catalogue covers the seed papers; ndp17's and eqds22's claims are issue 34's bands, fabric's issue 36's closed forms.
    ("docs/reproductions.md", r"every claim of the (\w+) seed papers",
     lambda: len([p for p in reproduce.names() if p not in ("ndp17", "eqds22", "fabric")])),
    ("docs/README.md", r'A "cell" is (\d+) bytes on the wire', lambda: rust_const("CELL_BYTES")),
    ("docs/README.md", r'A "cell" is \d+ bytes on the wire, (\d+) of', lambda: rust_const("CELL_PAYLOAD")),
    ("docs/scenarios.md", r"abort the connection after (\d+) consecutive timeouts", lambda: rust_const("MAX_RXTSHIFT")),
    ("docs/scenarios.md", r"bytes kept per packet \((\d+) to \d+\)", lambda: 64 if accepted("capture.snaplen=64") and not accepted("capture.snaplen=63") else None),
    ("docs/scenarios.md", r"bytes kept per packet \(\d+ to (\d+)\)", lambda: 262144 if accepted("capture.snaplen=262144") and not accepted("capture.snaplen=262145") else None),
    ("docs/scenarios.md", r"at most (\d+) \(IPv4 packets", lambda: 65495 if accepted("ip.mtu=65495B") and not accepted("ip.mtu=65496B") else None),
    ("docs/scenarios.md", r"distinct pieces per segment, at most (\d+)", lambda: 65535 if accepted("boston.pieces=65535", "boston97") and not accepted("boston.pieces=65536", "boston97") else None),
]


@pytest.mark.parametrize("doc, statement, value", FACTS, ids=[f"{d}:{s[:40]}" for d, s, _ in FACTS])
def test_every_number_the_docs_state_about_the_code_is_the_codes(doc, statement, value):
    found = re.findall(statement, (ROOT / doc).read_text(encoding="utf-8"))
    assert found, f"{doc} no longer says /{statement}/: update this fact with the doc"
    code = value()
    for stated in found:
        assert WORDS.get(stated, stated) in (code, str(code)), f"{doc}: /{statement}/ says {stated}, the code {code}"



def variants(enum: str) -> set:
    return {m for m in rust().members[enum] if m[:1].isupper()}


# Lists said to be complete: (doc, the statement as a pattern whose group 1 holds the list, the
# enum whose variants it lists).
LISTS = [
    ("ARCHITECTURE.md", r"`Event` \(at most \d+ bytes, checked\) grouped by owner: ([^|]*?) \|", "Event"),
    ("ARCHITECTURE.md", r"-> Action` — (.*?) — that the port carries out", "Action"),
    ("ARCHITECTURE.md", r"random streams from the run's seed, one per owner \((.*?)\):", "Stream"),
]


@pytest.mark.parametrize("doc, statement, enum", LISTS, ids=[f"{d}:{e}" for d, _, e in LISTS])
def test_every_list_the_docs_give_as_complete_names_every_variant(doc, statement, enum):
    found = re.search(statement, (ROOT / doc).read_text(encoding="utf-8"))
    assert found, f"{doc} no longer says /{statement}/: update this list with the doc"
    listed = {re.sub(r"^\w+::", "", n) for n in re.findall(r"`([\w:]+)", found.group(1))}
    assert listed == variants(enum), f"{doc} lists {sorted(listed)}; {enum} has {sorted(variants(enum))}"


def test_architectures_list_of_commands_is_the_clis():
    from atmsim.cli import main

    row = re.search(r"^\| `atmsim/cli.py` \| click CLI \(.*?\): (.*?); one-line errors", (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"), re.M)
    assert row, "ARCHITECTURE.md's row of atmsim/cli.py no longer lists the commands: update this test with it"
    listed = re.findall(r"(?:^|, )`(\w+)`", re.sub(r"\([^)]*\)", "", row.group(1)))
    assert sorted(listed) == sorted(main.commands), (listed, sorted(main.commands))
