"""Rule 2 (issue 38), swept over every key of the registry (`atmsim.registry()`): a parameter is checked
against the others it relates to (thresholds, targets and reserves against the buffer they live in, packet
sizes against the MTU, host counts against the tree). Each key is either in RELATED, with the scenario
that selects it, the largest value its relation allows and the message naming the relation one past it,
or in UNRELATED with the reason no other parameter bounds it; a key registered later fails
test_every_registry_key_is_classified until it is placed. Past its limit a key is refused, exit 2, one
line naming it and the relation in the user's words (no Rust value shapes such as `Bytes(1000000)`);
at its limit it is taken. Found by this sweep: ndp.mss = 4294967296 was taken as 0 (and eqds.paths,
eqds.cwnd ... wrapped alike), RED's min_th at or past the buffer left a drop-tail queue, an EQDS
packet larger than ip.mtu ran."""
import re

import pytest

import atmsim
from conftest import run_cli

ATM_EPD = ("aron97-topo1-atm", ["switch.policy=epd"])
RED = ("aron97-topo1-packet", ["router.policy=red", "switch.buffer=20packets", "router.red.max_th=40"])
INCAST = ("eqds-perm-16", ["workload.pattern=incast", "workload.kind=eqds"])
RING = ("eqds-perm-16", ["workload.pattern=ring_allreduce", "workload.kind=eqds"])
SHIFT = ("eqds-perm-16", ["workload.pattern=shift_all_to_all", "workload.kind=eqds"])
EQDS = ("eqds-one", ["tcp.mss=1000B", "ip.mtu=4150B"])

#: key: ((scenario, overrides), the largest value taken, what the refusal one past it says).
RELATED = {
    "switch.epd_threshold": (ATM_EPD, 4011, "the buffer in cells"),
    "switch.eom_reserve": (("aron97-topo1-atm", ["switch.policy=eom-protect"]), 4010, "smaller than the buffer"),
    "router.red.min_th": (RED, 19, "not below the buffer (20 packets)"),
    "router.dctcp.k": (("aron97-topo1-packet", ["router.policy=dctcp", "switch.buffer=20packets"]), 19,
                       "not below the buffer (20 packets)"),
    "ndp.mss": (("ndp-in-out", []), 9116, "must fit ip.mtu (9180 bytes)"),
    "ndp.header_bytes": (("ndp-in-out", []), 180, "must fit ip.mtu (9180 bytes)"),
    "eqds.mss": (EQDS, 4086, "must fit ip.mtu (4150 bytes)"),
    "eqds.header_bytes": (EQDS, 64, "must fit ip.mtu (4150 bytes)"),
    "workload.senders": (INCAST, 15, "the tree has 16 hosts"),
    "workload.receiver": (INCAST, 15, "beyond the tree's 16 hosts"),
    "workload.group": (RING, 16, "the tree's 16 hosts"),
}

#: key: why no other parameter bounds it (its own range, from the registry, still holds).
UNRELATED = {
    "router.red.max_th": "a slope: past the buffer the drop probability at the buffer is lower, and taken",
    "router.red.max_p": "a probability, in (0, 1]",
    "router.red.w_q": "an averaging weight, in (0, 1]",
    "router.red.ecn": "a switch", "router.red.gentle": "a switch", "router.include_arrival": "a switch",
    "occupancy.percentiles": "a switch", "router.trim_service": "a choice", "ndp.paths": "a choice",
    "ndp.nack_draws_path": "a switch",
    "switch.fair_share.r": "a fraction of the fair share, in (0, 1]",
    "switch.fair_share.z": "a multiple of the fair share",
    "ndp.initial_window": "a window: a flow's bytes bound what it sends",
    "ndp.pull_rate": "a multiple of the line rate, in (0, 100]",
    "eqds.cwnd": "a window: a flow's bytes bound what it sends",
    "eqds.paths": "entropies, up to 32768 whatever the tree",
    "eqds.pull_interval": "a multiple of one frame's time, in (0, 100]",
    "eqds.pacer_mtu": "htsim's pacer counts its own MTU (4,160), not the packets'",
    "eqds.credit_per_pull": "quanta per pull: how much each pull releases",
    "eqds.ack_threshold": "bytes between ACKs: past a flow's size, one ACK at its end",
    "eqds.rto_base_us": "a time", "eqds.rto_queue_drains": "a multiple of a queue's drain time",
    "workload.bytes": "a flow's size", "workload.bucket": "a collective's size",
}

REGISTRY_KEYS = sorted({k["name"] for m in atmsim.registry() for k in m["keys"]})


def test_every_registry_key_is_classified():
    assert set(RELATED) | set(UNRELATED) == set(REGISTRY_KEYS), "classify the new keys"
    assert not set(RELATED) & set(UNRELATED)


def refusal(scenario, sets):
    p = run_cli("validate", scenario, *[a for s in sets for a in ("--set", s)])
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    assert not re.search(r"\b(Bytes|Units|Some|None|Limit)\(", p.stderr), p.stderr
    return p.stderr


@pytest.mark.parametrize("key", sorted(RELATED))
def test_a_key_past_what_its_relation_allows_is_refused_naming_both(key):
    (scenario, sets), limit, says = RELATED[key]
    atmsim.resolve(scenario, [*sets, f"{key}={limit}"])
    line = refusal(scenario, [*sets, f"{key}={limit + 1}"])
    assert line.startswith(f"atmsim: error: {key}: ") and says in line, line


@pytest.mark.parametrize("key", [k for m in atmsim.registry() for k in m["keys"] if k["kind"] == "count"],
                         ids=lambda k: k["name"])
def test_no_count_wraps_past_what_it_is_kept_in(key):
    # 2^32 was taken as 0 where a key is kept in 32 bits; 2^63 - 1 past any; each refused or, where the
    # key is a size the run may hold (workload.bytes), kept as written.
    scenario, sets = next((s for k, (s, _, _) in RELATED.items() if k == key["name"]), None) or {
        "ndp": ("ndp-in-out", []), "eqds": ("eqds-one", []), "workload": SHIFT,
        "switch": ("aron97-topo1-atm", ["switch.policy=eom-protect"]),
        "router": ("aron97-topo1-packet", ["router.policy=dctcp", "switch.buffer=20packets"])}[key["name"].split(".")[0]]
    for value in (2**32, 2**63 - 1):
        try:
            resolved = atmsim.resolve(scenario, [*sets, f"{key['name']}={value}"])
        except atmsim.ScenarioError as e:
            assert str(e).startswith(f"{key['name']}: "), e
            continue
        assert re.search(rf"^{key['name'].split('.')[-1]} = {value}$", resolved, re.M), (key["name"], value)


#: Keys the core keeps in 32 bits: 2^32 was taken and wrapped (ndp.mss = 4294967296 ran as 0).
KEPT_IN_32_BITS = ["ndp.mss", "ndp.header_bytes", "ndp.initial_window", "eqds.header_bytes", "eqds.cwnd",
                   "eqds.paths", "eqds.pacer_mtu", "eqds.credit_per_pull"]


@pytest.mark.parametrize("key", KEPT_IN_32_BITS)
def test_a_key_kept_in_32_bits_refuses_2_to_the_32(key):
    scenario = "ndp-in-out" if key.startswith("ndp.") else "eqds-one"
    line = refusal(scenario, [f"{key}={2**32}"])
    assert line.startswith(f"atmsim: error: {key}: must be a whole number of ") and "to 4294967295" in line, line


def test_a_negative_host_number_is_refused_as_a_host_number():
    # workload.receiver=-1 said "must be a whole number of host number, at least 0".
    line = refusal(*INCAST[:1], [*INCAST[1], "workload.receiver=-1"])
    assert line.strip() == ("atmsim: error: workload.receiver: must be a host number, from 0 to the number of hosts "
                            "less one (hosts are numbered from 0), not -1"), line


def test_the_fabric_egress_stop_names_the_buffer_in_bytes():
    line = refusal("fabric-incast", ["fabric.scheduler.egress_stop=1GB"])
    assert "below the egress port's buffer (1000000 B)" in line, line


# Relations outside the registry (issue 38, rules 1 and 2), each decided by a measurement. Refused: an
# abr.pcr above an ABR source's own link (its cells cannot leave faster; what it schedules faster queues in
# its own adapter: jain96-2src with abr.switch = "efci" and PCR twice the links, S1's port peaks at 1,796
# cells against 33), and, with traces on, a trace.interval longer than the run (only the sample at 0,
# before anything happened). Each only where set: a default never refuses a scenario.
REFUSED_PAST_THE_LINK = [
    ("jain96-2src", ["abr.pcr=155.52Mbps"], ["abr.pcr=155.53Mbps"], "abr.pcr: '155.53Mbps' is above the rate of S1->SW1"),
    ("jain96-2src", ["link.S1-SW1.rate=100Mbps", "abr.pcr=100Mbps"], ["link.S1-SW1.rate=100Mbps", "abr.pcr=100.01Mbps"],
     "(100 Mb/s), the link an ABR source sends on"),
]


@pytest.mark.parametrize("scenario, taken, refused, says", REFUSED_PAST_THE_LINK)
def test_a_pcr_past_the_link_is_refused_and_at_the_limit_taken(scenario, taken, refused, says):
    atmsim.resolve(scenario, taken)
    line = refusal(scenario, refused)
    assert says in line, line
    with pytest.raises(atmsim.ScenarioError) as api:
        atmsim.resolve(scenario, refused)
    assert line == f"atmsim: error: {api.value}\n", (line, api.value)


def test_a_pcr_at_its_default_is_not_checked():
    atmsim.resolve("jain96-2src", ["link.S1-SW1.rate=100Mbps"])


def test_a_trace_interval_longer_than_the_run_is_refused_with_traces_on(cli):
    line = "trace.interval: 0.001 s is longer than the run (0.0005 s): its traces would hold only their sample at 0"
    p = cli("run", "jain96-2src", "--set", "duration=0.5ms", "--trace")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [f"atmsim: error: {line} (use a shorter period)"], p.stderr
    with pytest.raises(atmsim.ScenarioError, match=re.escape(line)):
        atmsim.run("jain96-2src", set=["duration=0.5ms"], trace=True)
    # Without traces it samples nothing whatever the run; at the run's length, a sample at its end too; the
    # default (10 ms) is never refused.
    atmsim.run("jain96-2src", set=["duration=0.5ms"])
    assert atmsim.run("jain96-2src", set=["duration=1ms"], trace=True).traces["queue"]["t"].max() == 0.001
    atmsim.run("eqds-one", set=["duration=1ms"], trace=True)


# Kept: key -> why it may pass the other key, each measured below.
KEPT_PAST = {
    "fabric.crs.max_empty_balance": "past fabric.voq.buffer: credit is spent by packets as they pass, not held "
                                    "beside them, so a larger balance lets a later burst through unqueued",
    "tcp.tick": "past duration: no tick fires in the run, so no retransmission timeout does",
}


# Refused past the run (issue 38, rule 1): a written flow starting at or past the end sent nothing (aron97-topo1-atm
# for 1 s, f8 starting at 2 s: 0 segments; at 1 s, one cell in its adapter) and `fairness` counted its zero
# (0.7741 against 0.8283 with f8 at 0.5 s). boston97 and arb's fig9 probe left sources out of runs this way; they
# now use `flow.NAME=off`, which leaves the flow out of the run, fairness included.
@pytest.mark.parametrize("start", ["1s", "2s", "5000s"])
def test_a_flow_starting_at_or_past_the_end_is_refused_naming_its_start(cli, start):
    sets = ["duration=1s", f"flow.f8.start={start}"]
    p = cli("run", "aron97-topo1-atm", *[a for s in sets for a in ("--set", s)])
    line = (f"atmsim: error: flow[f8].start: {start.removesuffix('s')} s is at or past the run's end (duration 1 s): "
            "the flow would never start (start it earlier, or leave it out with --set flow.f8=off)\n")
    assert p.returncode == 2 and p.stderr == line, p.stderr
    with pytest.raises(atmsim.ScenarioError) as api:
        atmsim.run("aron97-topo1-atm", set=sets)
    assert line == f"atmsim: error: {api.value}\n"


def test_a_flow_left_out_is_not_counted_anywhere():
    # The run without f8 is the run with f8 never started, but for f8: its fairness is over the flows that ran.
    short = ["duration=1s", "switch.buffer=20000B"]
    left_out = atmsim.run("aron97-topo1-atm", set=[*short, "flow.f8=off"]).summary
    late = atmsim.run("aron97-topo1-atm", set=[*short, "flow.f8.start=999999999999ps"]).summary
    assert [f["name"] for f in left_out["flows"]] == [f"f{i}" for i in range(1, 8)]
    assert [f["bytes_delivered"] for f in left_out["flows"]] == [f["bytes_delivered"] for f in late["flows"][:7]]
    delivered = [f["bytes_delivered"] for f in left_out["flows"]]
    assert left_out["fairness"] == pytest.approx(sum(delivered) ** 2 / (7 * sum(x * x for x in delivered)))
    assert "name = \"f8\"" not in atmsim.resolve("aron97-topo1-atm", ["flow.f8=off"])


def test_an_empty_voq_balance_above_the_voq_buffer_lets_a_later_burst_through():
    bursts = "flow=[" + ", ".join(f'{{name = "{n}", kind = "udp", src = "h4", dst = "h0", rate = "400Gbps", '
                                  f'datagram = "4122B", bytes = "200000B", start = "{t}"}}'
                                  for n, t in (("a", "0us"), ("b", "100us"))) + "]"
    sets = [bursts, "duration=200us", "fabric.link_delay=5us", "fabric.voq.buffer=16KB", "fabric.crs.off_to_norm=8KB",
            "fabric.crs.norm_to_slow=8KB"]
    second = {b: atmsim.run("fabric-incast", set=[*sets, f"fabric.crs.max_empty_balance={b}"]).summary["flows"][1]
              for b in ("16KB", "1MB")}
    assert second["16KB"]["bytes_delivered"] < 100_000 and second["1MB"]["bytes_delivered"] == 200_000, second


def test_a_tick_past_the_run_is_taken_and_turns_the_timeouts_off():
    sets = ["duration=2s", "switch.buffer=10packets"]
    timeouts = {t: sum(f["timeouts"] for f in atmsim.run("aron97-topo1-packet", set=[*sets, f"tcp.tick={t}"])
                       .summary["flows"]) for t in ("500ms", "5s")}
    assert timeouts["500ms"] > 0 and timeouts["5s"] == 0, timeouts


def test_a_scripted_datagram_at_or_past_the_end_is_refused_naming_its_time(cli):
    # morris-kung95-fig6's last datagram is scripted at 15.552 ms: a 15 ms run took it and never sent it.
    p = cli("validate", "morris-kung95-fig6", "--set", "duration=15ms")
    line = ("atmsim: error: flow[window].send_at[11]: 0.015552 s after the flow's start (0 s) is at or past the run's "
            "end (duration 0.015 s): the datagram would never be sent\n")
    assert p.returncode == 2 and p.stderr == line, p.stderr
    with pytest.raises(atmsim.ScenarioError) as api:
        atmsim.resolve("morris-kung95-fig6", ["duration=15ms"])
    assert line == f"atmsim: error: {api.value}\n"
    atmsim.resolve("morris-kung95-fig6", ["duration=15553us"])
