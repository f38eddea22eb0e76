"""Every code name the docs give is checked against the code (issue 33): a Rust or Python name that
no longer exists, a `Type::member` whose type has no such member, a name said to be in a file that
does not define it (`file.rs::fn`, "`file.rs` (`fn`, ...)", "`fn` (`file.rs`)", a table row
whose first cell is the file), a claim id that no paper has, fails. Names that are not ours (BSD's,
ns-2's, ns-3's, RFC 6675's) are listed in EXTERNAL with the reason; Wireshark's fields are dotted
like scenario keys and left to test_docs.py. `python tests/test_docs_refs.py` prints what it finds
and how many names it checked, by kind."""
import importlib
import json
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from atmsim import reproduce
from docrefs import ROOT, python, rust

DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "ARCHITECTURE.md", ROOT / "README.md"]
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"[\w./-]+\.(rs|py|md|toml|tcl|sh|c|cc|h|json|csv|png|html|tr|txt|pcap)|[\w.-]+(/[\w.-]+)*/")
IDENT = re.compile(r"[A-Za-z_]\w*")
CAMEL = re.compile(r"_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
CONST = re.compile(r"[A-Z][A-Z0-9_]*_[A-Z0-9_]+|[A-Z]{2,}[0-9]*")
SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+")
QUALIFIED = re.compile(r"(\w+(?:\.rs)?::)+\w+|[\w/]+\.rs::\w+")

# Names the docs quote from other code, each with the reason it is not ours. A pattern matches the
# whole name (the part before any `::` or `(`).
EXTERNAL = {
    # 4.4BSD-Lite's TCP (Wright & Stevens, TCP/IP Illustrated vol. 2), which docs/tcp.md follows
    # routine by routine.
    r"tcp_(output|slowtimo|fasttimo|newtcpcb|mss|xmit_timer|timers|reass)|TCP_REASS": "4.4BSD-Lite's TCP routines and macros",
    r"TCPTV_\w+|TCPT_\w+|TCP_MAXRXTSHIFT|t_(srtt|rxtcur)|snd_(cwnd|scale)|tcps_rcvdupack": "4.4BSD-Lite's TCP constants, tcpcb fields and statistics",
    r"bictcp_update": "Linux's CUBIC (net/ipv4/tcp_cubic.c), which docs/tcp.md names for a choice CUBIC's RFC leaves open",
    # ns-2 2.35 (docs/validation.md, docs/packet.md compare with it line by line).
    r"REDQueue|DTYPE_(FORCED|UNFORCED)|drop_early|calculate_p_new|th_max": "ns-2's RED (queue/red.cc)",
    r"TcpAgent|reset_rtx_timer|rtt_update|rtt_timeout|send_much|TCPSink": "ns-2's TCP agents (tcp/tcp.cc, tcp-sink.cc)",
    r"(RENO_|NEWRENO_)?FAST_RETX|FAST_RECOVERY|TIMEOUT": "ns-2's trace event names (tcp/tcp.h)",
    r"ListErrorModel|DropTail|Random|ScoreBoardRQ": "ns-2 classes (queue/errmodel.cc, drop-tail.cc, tools/random.h, tcp/scoreboard-rq.cc)",
    # ns-3 (docs/tcp.md, docs/packet.md compare with it).
    r"RedQueueDisc|UseHardDrop|Gentle|DropEarly|UseEcn|UNFORCED_MARK": "ns-3's RedQueueDisc and its attributes",
    r"TcpNewReno|TcpCubic|CubicDelta|m_delayMin|TcpDctcp|TcpClassicRecovery|TcpPrrRecovery|TcpTxBuffer|TcpCongestionOps|TcpRecoveryOps": "ns-3's TCP classes",
    r"BytesInFlight|ReTxTimeout|CA_RECOVERY|SlowStartThreshold|HighestSequence|HighestRxAck": "ns-3's TCP socket methods, states and traces",
    r"AvailableWindow|EnterRecovery|LimitedTransmit": "ns-3's TcpSocketBase methods and its LimitedTransmit attribute",
    # htsim at commit 841d9e7 (docs/fabrics.md names the file and function of each NDP rule).
    r"FatTreeTopology|CompositeQueue|FairPriorityQueue|FairPullQueue|NdpSrc|NdpSink|NdpPullPacer|NdpPacket|Packet|"
    r"NdpSinkLoggerSampling|SCATTER_PERMUTE|PULL_BASED|RESEND_ON_TIMEOUT": "htsim's NDP classes, functions and macros (sim/ndp.cpp, compositequeue.cpp, ...)",
    # htsim's EQDS at the same commit (docs/fabrics.md names the file and function of each EQDS rule).
    r"Eqds(Src|Sink|NIC|PullPacer|BasePacket|DataPacket)|FatTreeSwitch|freeBSDHash|PULL_QUANTUM|DEFAULT_CWND|"
    r"DEFAULT_QUEUE_SIZE|path_entropy_size|startFlow|stopSpeculating|spendCredit|computePullTarget|handlePullTarget|"
    r"doNextEvent|requestPull|requestRetransmit|requestSending|startSending|cantSend|process(Trimmed|Nack|Data|Ack|Rts)|"
    r"penalizePath|sackBitmapBase|buildSackBitmap|sendNewPacket|nextEntropy|startRTO|recalculateRTO|rtxTimerExpired|"
    r"sendRTS|checkFinished|getNextHop": "htsim's EQDS classes, functions and constants (sim/eqds.cpp, eqdspacket.h, main_eqds.cpp)",
    # htsim's connection matrices and triggers (docs/fabrics.md, "Traffic matrices").
    # htsim's DCTCP marking queue (sim/ecnqueue.cpp) and Linux's DCTCP (net/ipv4/tcp_dctcp.c), which docs/packet.md
    # and docs/tcp.md compare ours with.
    r"ECNQueue|dctcp_ece_ack_update|GetSsThresh": "htsim's ECNQueue, Linux's and ns-3's DCTCP functions",
    r"ConnectionMatrix|add_failed_link|EventList|Trigger|SingleShotTrigger|MultiShotTrigger|BarrierTrigger":
        "htsim's connection-matrix loader and triggers (sim/datacenter/connection_matrix.cpp, sim/trigger.cpp)",
    # htsim's source routes and their Route (sim/route.h), which a matrix's failure lines break (docs/fabrics.md).
    r"get_bidir_paths|Route::push_back": "htsim's FatTreeTopology::get_bidir_paths and Route::push_back (sim/datacenter/fat_tree_topology.cpp, sim/route.h)",
    # RFC 6675's pseudo-functions, which recovery/sack.rs and scoreboard.rs implement.
    r"IsLost|SetPipe|Update|NextSeg": "RFC 6675's functions",
    # Rust, its standard library and crates: what the code is written in, not what it defines.
    r"Option|None|Vec|Rc|Copy|repr|black_box|deny_unknown_fields|Arbitrary": "Rust, std, serde and proptest",
    # Pseudo-code expressions quoted from the models (`int(window/2)`, `min(cwnd, ssthresh)`).
    r"int|min": "arithmetic in quoted pseudo-code",
}

# Names a doc gives as history (a former name, a reverted experiment), each with the reason.
HISTORY = {
    ("performance.md", "Admission"): "the drop layer's former name, given as `Admission` (now `DropPolicy`)",
    ("performance.md", "Serializer::send_train"): "an experiment tried and reverted (the table of rejected changes)",
}


def spans(doc: Path):
    """(line number, line, span, its start) of every inline code span outside fenced blocks."""
    fenced = False
    for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            for m in SPAN.finditer(line):
                yield n, line, m.group(1).strip(), m.start()


def bare(t: str) -> str:
    """A name without its call or argument list: `Unit::new(..)` -> `Unit::new`."""
    return re.sub(r"\(.*$", "", t).strip().rstrip(".,;:")


def external(name: str) -> bool:
    return any(re.fullmatch(p, name) for p in EXTERNAL)


def files_for(path: str) -> list:
    """The Rust or Python files a path or a path's tail names (a folder: every file under it)."""
    path = path.rstrip("/")
    every = rust().files + list(python().items)
    if path.endswith((".rs", ".py")):
        return [f for f in every if f == path or f.endswith("/" + path)]
    return [f for f in every if ("/" + path + "/") in ("/" + f)]


def known(name: str) -> bool:
    """`name` is defined somewhere in the Rust or Python sources, or is a whole string literal there
    (a summary field, a drop reason, a unit, a column)."""
    r, p = rust(), python()
    return (r.defined(name) or p.defined(name) or any(name in m for m in p.members.values())
            or name in r.strings or name in p.strings)


def resolve_qualified(name: str):
    """None if `module::Type::member` or `file.rs::item` resolves, else why not."""
    r = rust()
    if ".rs::" in name:
        path, item = name.rsplit("::", 1)
        files = files_for(path)
        if not files:
            return f"no file {path}"
        return None if any(item in r.names[f] for f in files) else f"{item} is not defined in {path}"
    segs = name.split("::")
    modules = []
    while len(segs) > 1 and segs[0] in r.modules and not segs[0][:1].isupper():
        modules.append(segs.pop(0))
    if modules:
        # The leading modules that are files or folders; the rest (`tests`, `flags`) are inline.
        paths = [(r.module_path(f), f) for f in r.files]
        n = max(k for k in range(len(modules) + 1) if any(p[:k] == tuple(modules[:k]) for p, _ in paths))
        files = [f for p, f in paths if p[:n] == tuple(modules[:n])]
        if not any(segs[0] in r.names[f] or segs[0] in r.reexports[f] for f in files):
            return f"{segs[0]} is not defined in module {'::'.join(modules)}"
        if len(segs) == 1:
            return None
    if not r.defined(segs[0]):
        return f"no {segs[0]} in the Rust sources"
    for owner, member in zip(segs, segs[1:]):
        if member not in r.members[owner]:
            return f"{owner} has no member {member}"
    return None


@lru_cache(maxsize=None)
def claim_ids() -> frozenset:
    """Every claim of the papers, as `reproduce all --quick` pins them (tests/golden/)."""
    return frozenset(c["id"] for f in (ROOT / "tests/golden/reproduce-all-quick").glob("*.claims.json")
                     for c in json.loads(f.read_text(encoding="utf-8")))


CLAIM = re.compile(r"([\w-]+\.)?[\w-]+\.(c\d+|fair)")
# Dotted names that are scenario keys, not Python (`report.bottleneck` is a key; report.py a module).
KEY_HEADS = {"atm", "ip", "tcp", "switch", "router", "credit", "host", "report", "trace", "arb", "abr", "boston",
             "capture", "flow", "link", "topology", "accounting", "erica", "efci", "vbr", "red", "loss", "fair_share",
             "workload"}


def claim_problem(doc: Path, t: str):
    if re.search(r"[A-Z]", t):
        return None  # a pattern: `PAPER.FIGURE.cN`
    # A paper's own doc (docs/boston97.md) names its claims without the paper (`table1.c6`).
    paper = doc.stem if doc.stem in reproduce.names() else None
    ids = claim_ids()
    if t in ids or (paper and f"{paper}.{t}" in ids) or (not paper and t.count(".") == 1 and any(i.endswith("." + t) for i in ids)):
        return None
    return f"no claim {t} among the papers' claims (tests/golden/reproduce-all-quick)"


def python_problem(name: str):
    """Why a dotted Python name (`atmsim.read`, `Ctx.claim`, `twin.offset_sets`) names nothing."""
    p = python()
    head, *rest = name.split(".")
    if head in ("atmsim", "_core"):
        obj = importlib.import_module("atmsim") if head == "atmsim" else importlib.import_module("atmsim._core")
        for i, part in enumerate(rest):
            if not hasattr(obj, part):
                try:
                    obj = importlib.import_module(".".join([obj.__name__, part]))
                    continue
                except ImportError:
                    return f"{'.'.join([head, *rest[:i]])} has no {part}"
            obj = getattr(obj, part)
        return None
    if head in p.members:
        return None if rest[0] in p.members[head] else f"class {head} has no {rest[0]}"
    modules = [f for f in p.items if Path(f).stem == head]
    if modules and head not in KEY_HEADS:
        return None if any(rest[0] in p.items[f] for f in modules) else f"no {rest[0]} in {head}.py"
    return None


def global_problem(t: str):
    """Why the code span `t`, read on its own, names nothing in the code (None if it does, or if
    it is not a name of code)."""
    name = bare(t)
    if not name or external(name.split("::")[0]) or external(name):
        return None
    if QUALIFIED.fullmatch(name):
        return resolve_qualified(name)
    if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", name) and not PATH.fullmatch(name):
        return python_problem(name)
    if "." in name or "/" in name or " " in name or not IDENT.fullmatch(name):
        return None
    if (CAMEL.fullmatch(name) or CONST.fullmatch(name) or SNAKE.fullmatch(name) or t.endswith(")")) and not known(name):
        return f"{name} is not defined in the Rust or Python sources"
    return None


# A name after one of these words is used, not defined, where the line is ("from a `Model`").
USED = re.compile(r"\b(a|an|its|their|of|into|from|as|returns?|returning)\s+$", re.I)


def attributions(line: str):
    """(name, [paths]) pairs a line states: "`path` (`name`, ...)", "`name` (`path`)", and in a
    table row whose first cell names files, the names in its second cell before the next path."""
    out = []

    def named(text, glosses=True):
        """The names in `text` before its first path, but for those after a word like "a" and,
        unless `glosses`, those in parentheses (a type glossed in a table row: "transmitter
        (`Serializer`)")."""
        names = []
        for m in SPAN.finditer(text):
            if PATH.fullmatch(m.group(1)):
                break
            before = text[:m.start()]
            if not USED.search(before) and (glosses or before.count("(") == before.count(")")):
                names.append(m.group(1))
        return names

    for m in re.finditer(r"`([^`]+)` \(", line):
        if PATH.fullmatch(m.group(1)):
            depth, i = 1, m.end()
            while i < len(line) and depth:
                depth += {"(": 1, ")": -1}.get(line[i], 0)
                i += 1
            out += [(s, [m.group(1)]) for s in named(line[m.end():i - 1])]
    for m in re.finditer(r"`([^`]+)`: ", line):
        # "`file.rs`: `a`, `b` (...)": the names up to the end of the clause.
        if PATH.fullmatch(m.group(1)) and m.group(1).endswith((".rs", ".py")):
            clause = re.split(r"[;|]|\)(?![^(]*\))", line[m.end():])[0]
            out += [(s, [m.group(1)]) for s in named(clause, glosses=False)]
    for m in re.finditer(r"`([^`]+)` \(`([^`]+)`[);]", line):
        if PATH.fullmatch(m.group(2)) and not PATH.fullmatch(m.group(1)):
            out.append((m.group(1), [m.group(2)]))
    cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
    if len(cells) >= 2:
        first = SPAN.findall(cells[0])
        if first and all(PATH.fullmatch(s) and (s.endswith((".rs", ".py")) or s.endswith("/")) for s in first):
            out += [(s, first) for s in named(cells[1], glosses=False)]
    return out


def attribution_problem(name: str, paths):
    """Why `name` is not defined in any of the files `paths` name (None if it is, or if it is no
    name of our code)."""
    name = bare(name)
    r, p = rust(), python()
    if external(name) or not IDENT.fullmatch(name.split("::")[0]):
        return None
    files = [f for path in paths for f in files_for(path)]
    if not files:
        return None  # the path check reports it
    segs = name.split("::")
    if len(segs) == 2 and "variant" in r.kinds[segs[1]] and segs[1] in r.members[segs[0]]:
        return None  # `Enum::Variant`: an event or an action the file uses
    head = segs[0]
    where = " or ".join(paths)
    if files[0].endswith(".py"):
        if not (CAMEL.fullmatch(head) or "_" in head) or not p.defined(head):
            return None
        if any(head in p.items[f] or head in p.imports[f] or head in p.used[f] for f in files):
            return None
        return f"{head} is not defined in {where}"
    if not r.defined(head):
        return None  # a word of prose or a value; names that exist nowhere are global_problem's
    if len(segs) == 2:
        if any(segs[1] in r.impl_members[f, head] for f in files):
            return None
        if segs[1] in r.members[head] and any(head in r.items[f] for f in files):
            return None  # a field of a struct defined there
        return f"{name}: no `impl {head}` in {where} defines {segs[1]}"
    if any(head in r.names[f] or head in r.reexports[f] for f in files):
        return None
    return f"{head} is not defined in {where} (it is in {', '.join(r.files_defining(head)) or 'neither'})"


def problems(doc: Path):
    out, seen_lines = [], set()
    for n, line, t, _ in spans(doc):
        why = None if (doc.name, bare(t)) in HISTORY else global_problem(t)
        if CLAIM.fullmatch(t):
            why = claim_problem(doc, t)
        if why:
            out.append(f"{doc.relative_to(ROOT)}:{n}: `{t}`: {why}")
        if n not in seen_lines:
            seen_lines.add(n)
            for name, path in attributions(line):
                why = attribution_problem(name, path)
                if why:
                    out.append(f"{doc.relative_to(ROOT)}:{n}: `{name}` beside {path}: {why}")
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_code_name_the_docs_give_is_defined_where_they_say(doc):
    found = problems(doc)
    assert not found, "\n".join(found)


def kind(t: str) -> str:
    """What `global_problem` checks a span as (None: not a name of code)."""
    name = bare(t)
    if not name:
        return None
    if external(name.split("::")[0]) or external(name):
        return "external name (allowlisted)"
    if ".rs::" in name:
        return "file.rs::item"
    if QUALIFIED.fullmatch(name):
        return "Type::member or module::item"
    if "." in name or "/" in name or " " in name or not IDENT.fullmatch(name):
        return None
    if CAMEL.fullmatch(name) or CONST.fullmatch(name) or SNAKE.fullmatch(name) or t.endswith(")"):
        return "type, variant, constant or function name"
    return None


def kind_of(doc: Path, t: str):
    if CLAIM.fullmatch(t) and not re.search(r"[A-Z]", t):
        return "claim id"
    name = bare(t)
    if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", name) and not PATH.fullmatch(name):
        head = name.split(".")[0]
        if head in ("atmsim", "_core") or head in python().members or (
                head not in KEY_HEADS and any(Path(f).stem == head for f in python().items)):
            return "Python module.name or Class.member"
        return None
    return kind(t)


def checked_beside(name: str) -> bool:
    head = name.split("::")[0]
    return bool(IDENT.fullmatch(head)) and not external(name) and (rust().defined(head) or python().defined(head))


def counts() -> Counter:
    """The statements checked, by kind."""
    out = Counter()
    for doc in DOCS:
        lines = set()
        for n, line, t, _ in spans(doc):
            k = kind_of(doc, t)
            if k:
                out[k] += 1
            if n not in lines:
                lines.add(n)
                out["name beside its file"] += sum(1 for name, _ in attributions(line) if checked_beside(bare(name)))
    return out


def test_the_checker_still_reads_the_docs():
    # A change of the docs' markup (or of SPAN) must not leave the test above checking nothing.
    c = counts()
    assert c["Type::member or module::item"] > 100 and c["name beside its file"] > 80 and c["file.rs::item"] >= 1, c


if __name__ == "__main__":
    for d in DOCS:
        for x in problems(d):
            print(x)
    print(counts())
