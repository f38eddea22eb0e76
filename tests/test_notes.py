"""Notes are computed, never typed (issue 37): every number in a claims.json note comes from the run
the row belongs to, or from a probe `reproduce` itself runs.

A note is rendered by the figure's code from its runs; the numbers in it are either interpolated (read
from the runs) or typed in a string literal of the code. This test finds the typed ones: it reads every
string literal of the package (python/atmsim, including the literal parts of f-strings) and looks for
each literal that carries a number in every note of `reproduce all --quick` (the goldens, which
tests/test_golden.py checks are exactly what the quick run writes). A literal found in a note put its
numbers there by hand. Numbers that are identifiers (figure and claim IDs, node names, sections of a
paper, dates of amendments, file names) are not quantities and are skipped, and so is a number the
row itself states as its claim, rule or paper value (a note restating its threshold). Every other
typed number must be in TYPED, each with the reason it is not a measurement (a parameter of the
setup, of the model or of a probe); a new one fails until it is computed or listed, and an entry no
note uses any more fails too, so the list cannot grow stale.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python/atmsim"
GOLDEN = ROOT / "tests/golden/reproduce-all-quick"

# Identifiers, not quantities: figure and claim IDs, paper IDs and citation keys, sections, amendment
# dates, file names, command-line options with their values, named nodes and ports of a topology, the simulators
# ns-1, ns-2 and ns-3, and a paper's figure by its own name ("Fig. 4").
IDENTIFIERS = re.compile("|".join([
    r"\bfig\d+[a-z]?(?:-[a-z]+)*", r"\btable\d+", r"\b[ca]\d+\b", r"§\s?\d+(?:\.\d+)*", r"\d{4}-\d{2}-\d{2}",
    r"[\w-]*\d[\w-]*\.(?:csv|png|json|md|toml)\b", r"--[\w-]+ [\w,.=-]+",
    r"\b(?:aron97|jain96|boston97|morris[-_]kung95|eqds22|ndp17|arb)\b", r"\[[A-Z]+\d+\]", r"\bcatalogue \d+(?:\.\d+)*",
    r"\b(?:[Nn]ode|host|switch|gateway|S|R)[ -]?\d+\b", r"\b[\w-]+->[\w-]+\b", r"\bperm-\d+[\w-]*", r"\b[A-Za-z_]+\d+\b",
    r"\bns-\d\b", r"\bFigs?\. \d+",
]))
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# Typed numbers that are not measurements, by the literal that carries them (its first 60 characters)
# and why. Empty entries are not allowed: each says what the number is.
TYPED: dict[str, str] = {
    ' times in all (an 8-packet window seldom returns three dupli': "setup: node 5's window of 8 packets (§4.4)",
    " s round trip). The four short connections' windows (4 x 8 =": 'setup: four short connections with 8-packet windows (§4.4)',
    ': at buffers 11-13 the short connections lose ': "grid: the buffers the note sums over, just below the paper's 14",
    'Measured by `python -m atmsim.reproduce.arb.anatomy fig9` (s': 'probe: the seed and window the fig9 probe is defined with (anatomy.py)',
    ' of 30 when the forward line idles), but the ten windows are': 'setup: the 30-packet buffer of the short-pipe runs',
    ' s in periods >= 1 s; utilisation ': "threshold: idle periods counted from 1 s on (the probe's measure)",
    ' s in periods >= 1 s; without fast retransmit ': "threshold: idle periods counted from 1 s on (the probe's measure)",
    '. None reaches 0.70 (docs/arb.md §8).': "paper: the paper's 70 % utilisation",
    'each cut of Rr(1 - A/Mr) acts one interval plus a round trip': 'formula: the rate cut Rr(1 - A/Mr) of §2',
    "Below a ratio of 1.2 node 1's share has median ": 'threshold: the RTT ratio the note splits the points at',
    '. Measured by `python -m atmsim.reproduce.arb.anatomy fig12`': 'probe: the window the fig12 probe is defined with (anatomy.py)',
    ' connections of the probe runs that lose more than one packe': 'setup: the 8 Mb/s line and its 1 ms packet time',
    ' probe runs where node 1 is window-limited >= 90 % of the ti': 'probe: the start offsets of the probe runs (10 ms, 15 s) and its 90 % threshold',
    '); with node 2 starting at 15 s node 1 is parked when it arr': 'probe: the start offsets of the probe runs (10 ms, 15 s)',
    ' times per 100 s, and ': 'unit: cuts counted per 100 s',
    ' by their coarse timeouts (8 senders): ': "setup: topology 1's 8 senders",
    "A flow's share of its run's bytes by its own coarse timeouts": 'setup: the fair share of 8 senders, 1/8',
    ') over the points where they differ by more than 0.02': 'threshold: the points the note compares',
    '8 senders': "setup: topology 1's 8 senders",
    ' |difference| at the points whose 500-ms runs time out fewer': "threshold: the note splits the points at 5 timeouts per run; the 500 ms tick is the paper's",
    '; 5 times or more: ': 'threshold: the note splits the points at 5 timeouts per run',
    ' segments, a roughly fixed amount (8 flows x alpha..beta = 8': "setup: 8 flows and Vegas's alpha = 1, beta = 3 segments",
    ". Arithmetic on the paper's setup: the path holds BDP = 141.": "setup: the paper's link rate, round trip and packet size (§3)",
    '); when the windows halve together the aggregate window (BDP': 'formula: the halved aggregate window (BDP + B) / 2',
    ' At k >= 12 the packet runs retransmit ': 'threshold: the buffers the note ranges over',
    "The paper's 77-88 µs/byte lie below the physical floor of 16": "paper and setup: the paper's values, 16 connections on a 1.5 Mb/s line, 8 bits a byte",
    '). Without the access excess (a = 1) both deliver ': 'formula: the access excess a = 1 is no excess',
    'One source can overflow the 1.5 Mb/s output only because its': 'setup: the 1.5 Mb/s output and 53-byte cells',
    'x faster than the output drains them (G2); while the buffer ': 'formula: the fraction 1 - 1/a',
    ' cells (m (1 - 1/a) = ': 'formula: m (1 - 1/a)',
    ' % from 103.32; no subset gives 103.32 (closest: without 31/': "paper and setup: the slides' 103.32 and one RM cell in 32",
    '). A 568-byte PDU really takes 12 cells (576 B): our own max': "setup: a 568-byte PDU in 12 cells of 48 bytes, ERICA's 90 % target, one RM cell in 32",
    " of them at 2; the other sources' lowest: median ": "paper: the slides' SSTHRESH = 2",
    '), and from there its window grew linearly, the slides\' "SST': "paper: the slides' SSTHRESH = 2, quoted",
    'With the VBR background at 0.8 of the line (our choice; the ': 'setup: our choice of the VBR rate (scenario)',
    '. A 65,535-byte window of full segments occupies ': "setup: TCP's largest window without scaling",
    ', 64 KiB, seed 1, 20 s): all ': 'probe: the seed and duration the anatomy probe is defined with',
    ' times over [1 s, end]: the retransmission timer, not the pa': 'window: statistics from 1 s on',
    '[1 s, end]': 'window: statistics from 1 s on',
    ' times longer than 2 s, their timed segments dropped ': 'threshold: a long pause is one over 2 s',
    ' us its 100 cells take to drain at ': 'setup: the 100-cell buffer of the run',
    'needed = C x RTT_link + N2 (Kung et al. 1994; docs/credit.md': "citation year, and the scenario's N2 = 10",
    'over [1 s, end]': 'window: statistics from 1 s on',
    'not run by --quick (built only: a 1,024-host run is too long': 'setup: the 1,024 hosts of the scenario',
}


def literals() -> dict[str, str]:
    """Every string literal of the package that carries a number outside an identifier -> where it is."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if len(text) >= 6 and re.search("[A-Za-z]", text) and numbers(text):
                    out.setdefault(text, f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def numbers(text: str) -> list[str]:
    """The numbers of `text` that are quantities (identifiers blanked out)."""
    return NUMBER.findall(IDENTIFIERS.sub(" ", text))


def rows() -> list[dict]:
    return [r for p in sorted(GOLDEN.glob("*.claims.json")) for r in json.loads(p.read_text(encoding="utf-8"))]


def audit(notes: list[dict], lits: dict[str, str]) -> tuple[dict, int, int]:
    """(typed literals found in notes -> (where, row IDs, their numbers the row does not state), numbers
    in the notes in all, numbers interpolated)."""
    typed: dict[str, tuple] = {}
    total = derived = 0
    for r in notes:
        note = r.get("note") or ""
        if not note:
            continue
        stated = set(numbers(" ".join(str(r.get(k, "")) for k in ("claim", "rule", "paper_value"))))
        found = [t for t in lits if t in note]
        typed_count = 0
        for t in found:
            own = [n for n in numbers(t) if n not in stated]
            typed_count += len(numbers(t)) * note.count(t)
            if own:
                where, ids, nums = typed.get(t, (lits[t], [], set()))
                typed[t] = (where, ids + [r["id"]], nums | set(own))
        n = len(numbers(note))
        total += n
        derived += max(n - typed_count, 0)
    return typed, total, derived


def test_every_typed_number_in_a_note_is_listed_with_its_reason():
    typed, total, derived = audit(rows(), literals())
    unlisted = [f"{w}: {sorted(n)} in {ids[0]} ({len(ids)} rows): {t[:80]!r}"
                for t, (w, ids, n) in typed.items() if t[:60] not in TYPED]
    assert not unlisted, "numbers typed into notes (compute them from the runs, or list them in TYPED):\n" + "\n".join(unlisted)
    stale = [k for k in TYPED if not any(t[:60] == k for t in typed)]
    assert not stale, f"TYPED lists literals no note uses: {stale}"
    assert all(TYPED.values()), "every TYPED entry says why its number is not a measurement"
    assert 0 < derived <= total


def test_the_audit_catches_a_typed_number():
    # A note carrying a literal's measured-looking number is caught; the same text with the number
    # interpolated (absent from every literal) is not; a number the row states as its rule is not.
    lits = {"the start-up loses 30 of 40 segments": "x.py:1", "Jain index above ": "x.py:2"}
    caught, _, _ = audit([{"id": "p.f.c1", "note": "so the start-up loses 30 of 40 segments here"}], lits)
    assert list(caught) == ["the start-up loses 30 of 40 segments"]
    assert caught["the start-up loses 30 of 40 segments"][2] == {"30", "40"}
    clean, total, derived = audit([{"id": "p.f.c1", "note": "Jain index above 0.95 in 12 runs"}], lits)
    assert clean == {} and (total, derived) == (2, 2)
    restated, _, _ = audit([{"id": "p.f.c1", "rule": "share >= 30 of 40", "note": "the start-up loses 30 of 40 segments"}], lits)
    assert restated == {}
