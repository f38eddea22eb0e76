"""Rule 3 (issue 38) for queues, swept over every key that sizes one: a buffer (cells, packets or bytes), a
credit or link-level credit allowance, a fabric's VOQ buffer, a window, a UDP source's rate (what waits at
its host) may be set past the machine's memory, and a run that fills such a queue grew until it was killed
(ndp.initial_window = 2 x 10^7 ended in an allocation failure with a backtrace). Every queue of the run full
at once is bounded before the run (`resolve/queue_memory.rs`, docs/performance.md): past it, exit 2 and one
line naming the key, the most it may be there and the memory it would take.

QUEUE_KEYS holds each queue-sizing key with a scenario where it sizes a queue and a value far past the
bound; NOT_QUEUES the keys whose names look alike, with the reason they size none. A key of the schema
whose name says buffer, queue, window, backlog or N2/N3 fails test_every_buffer_like_key_is_classified
until it is placed."""
import re

import pytest

from conftest import run_cli
from test_fuzz import EXTRA_KEYS, FIELDS

ATM = "aron97-topo1-atm"
INCAST = [f"flow.s{i}.{k}" for i in range(4, 61, 4) for k in ("rate=800Gbps", "bytes=unbounded")]
UNBOUNDED = [f"flow.f{i}.bytes=unbounded" for i in range(1, 9)]

#: key: (scenario, other overrides, the key's value far past the bound, the key the refusal names).
QUEUE_KEYS = {
    "switch.buffer": (ATM, [], "switch.buffer=10000000000cells", "switch.buffer"),
    "link.buffer": (ATM, [], "link.R1-R2.buffer=10000000000cells", "link[R1-R2].buffer"),
    "credit.n2": (ATM, ["credit.enabled=true", "credit.n3=1"], "credit.n2=1000000000", "credit.n2"),
    "credit.n3": (ATM, ["credit.enabled=true"], "credit.n3=1000000000", "credit.n3"),
    "fabric.voq.buffer": ("fabric-incast", [], "fabric.voq.buffer=1000GB", "fabric.voq.buffer"),
    "fabric.llfc.n2": ("fabric-incast", ["fabric.llfc.n3=1"], "fabric.llfc.n2=1000000", "fabric.llfc.n2"),
    "fabric.llfc.n3": ("fabric-incast", [], "fabric.llfc.n3=1000000000", "fabric.llfc.n3"),
    "tcp.window": (ATM, UNBOUNDED, "tcp.window=1GiB", "tcp.window"),
    "flow.window": (ATM, UNBOUNDED + ["switch.buffer=1200000cells", "flow.f4.window=1GiB"], "flow.f3.window=1GiB",
                    "flow[f4].window"),
    "ndp.initial_window": ("ndp-in-out", [], "ndp.initial_window=20000000", "ndp.initial_window"),
    "eqds.cwnd": ("eqds-perm-16", ["workload.pattern=permutation", "workload.kind=eqds",
                                   "workload.bytes=4611686018427387904"], "eqds.cwnd=4000000000", "eqds.cwnd"),
    # fabric-incast's 15 UDP sources at twice their links' rate for 0.6 s: each under a host's own bound
    # (2^23 packets), 1.1 x 10^8 packets together; the sources are alike, and one of them is named.
    "flow.rate": ("fabric-incast", INCAST, "duration=0.6s", r"flow\[s\d+\]\.rate"),
}

#: Keys whose names look like a queue's size, and why none is.
NOT_QUEUES = {
    "switch.queueing": "a choice (one FIFO or a queue per VC) within the same buffer",
    "tcp.initial_window": "segments sent at the start, within tcp.window",
    "trace.port_rows": "rows of the port log, not a queue; at most MAX_PORT_ROWS (resolve/mod.rs)",
    "fabric.crs.satisfied_backlog": "a threshold on a VOQ's bytes, below fabric.voq.buffer",
    "eqds.rto_queue_drains": "a time: the retransmission timeout in queue drain times",
}

BUFFER_LIKE = re.compile(r"buffer|queue|window|cwnd|backlog|_rows$|\.n[23]$")


def schema_keys() -> set:
    keys = {k for f in FIELDS.values() for k in f} | set(EXTRA_KEYS) | {"link.R1-R2.buffer"}
    return {re.sub(r"^(flow|link)\.[^.]+\.", r"\1.", k) for k in keys}


def test_every_buffer_like_key_is_classified():
    like = {k for k in schema_keys() if BUFFER_LIKE.search(k)}
    assert like == (set(QUEUE_KEYS) | set(NOT_QUEUES)) - {"flow.rate"}, "classify the new keys"
    assert not set(QUEUE_KEYS) & set(NOT_QUEUES)


@pytest.mark.parametrize("key", sorted(QUEUE_KEYS))
def test_a_queue_past_memory_is_refused_before_the_run_naming_its_key(key):
    scenario, sets, past, named = QUEUE_KEYS[key]
    ok = run_cli("validate", scenario, *[a for s in sets for a in ("--set", s)])
    assert ok.returncode == 0, ok.stderr
    # `validate` resolves the scenario as `run` does before it starts (a run that is not refused would fill them).
    p = run_cli("validate", scenario, *[a for s in [*sets, past] for a in ("--set", s)])
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    line = p.stderr.strip()
    assert re.match(rf"atmsim: error: {named if key == 'flow.rate' else re.escape(named)}: ", line), line
    assert "more than the 8 GB a run's queues may hold" in line and "docs/performance.md" in line, line
    # The most it may be, in the key's words (cells, packets, bytes), or what to change for a rate.
    assert re.search(r"at most \d+ (cells|packets|B) here|at most \d+ here \(cells beyond|send at most the link's rate", line), line
    assert not re.search(r"\b(Bytes|Units|Some|None|Limit)\(", line), line


def test_the_built_in_scenarios_stay_within_the_bound():
    for name in FIELDS:
        p = run_cli("validate", name)
        assert p.returncode == 0, (name, p.stderr)
