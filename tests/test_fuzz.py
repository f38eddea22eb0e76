"""Fuzzing the scenario input: whatever a user writes, atmsim either runs it to
a physically valid, balanced summary or refuses it with one line naming the
key — never a panic, a traceback, a hang or a runaway.

Each case takes a built-in scenario, shortens it to 20 ms, and overrides one
key with a value drawn near every integer limit, in every unit (and in none),
or as junk. The default budget is small (CI); `ATMSIM_FUZZ_EXAMPLES=100000
python -m pytest tests/test_fuzz.py` is the long run.
"""
import json
import math
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atmsim import ScenarioError, _core, load_scenario

EXAMPLES = int(os.environ.get("ATMSIM_FUZZ_EXAMPLES", "150"))
SCENARIOS = {name: load_scenario(name) for name in
             ("aron97-topo1-atm", "aron97-topo2-packet", "morris-kung95-a", "morris-kung95-fig6")}

# Keys of every section; a few are arrays of tables addressed by name or ends.
KEYS = [
    "seed", "network", "atm.encapsulation", "ip.header_bytes", "ip.mtu",
    "tcp.variant", "tcp.afr_predictor", "tcp.bp95", "tcp.mss", "tcp.window", "tcp.initial_window",
    "tcp.delayed_ack", "tcp.tick", "tcp.rttmin_ticks", "tcp.rxtmax_ticks",
    "switch.buffer", "switch.queueing", "switch.policy", "switch.epd_threshold", "switch.eom_reserve",
    "switch.input_service",
    "router.policy", "credit.enabled", "credit.n2", "credit.n3", "credit.switch_delay", "credit.host_delay",
    "credit.transport", "host.model", "host.tcp_rate", "host.bus_rate", "host.send_jitter", "trace.interval", "trace.port",
    "report.bottleneck", "link.S1-R1.rate", "link.R1-R2.delay", "link.R1-R2.buffer", "link.H1-S.rate",
    "flow.f1.start", "flow.f1.bytes", "flow.f1.kind", "flow.f1.rate", "flow.f1.datagram",
    "flow.f1.send_at", "flow.f1.drop_segments", "flow.u.datagram", "flow.u.rate",
]
LIMITS = ["0", "1", "2", "127", "255", "256", "65535", "65536", "2147483647", "2147483648", "4294967295",
          "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
          "18446744073709551616", "340282366920938463463374607431768211456", "99999999999999999999",
          "0.5", "1.5", "0.000000000000000001", "-1", "-0", "1e9", "nan", "inf", ""]
UNITS = ["", "B", "KB", "KiB", "MB", "GiB", "cells", "packets", "s", "ms", "us", "ns", "ps", "bps", "Mbps",
         "Gbps", "cells/s", "us/cell", "B/s", "MB/s", "Mbs", "xyz", "/3Mbps"]
WORDS = ["true", "false", "atm", "packet", "tail", "ppd", "epd", "eom-protect", "per-vc", "fifo", "round-robin", "lite", "vegas",
         "in-band", "adapter", "udp", "tcp", "[]", "[1, 2]", '["0us", "1us"]', '"quoted"', "{}", "R1->R2", "nope"]

values = st.one_of(
    st.builds(lambda n, u: n + u, st.sampled_from(LIMITS), st.sampled_from(UNITS)),
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


def physically_valid(s: dict) -> None:
    acc = s["accounting"]
    assert acc["balanced"], acc
    for k in ("effective_throughput", "fairness", "cell_loss_ratio", "dead_cell_share"):
        assert math.isfinite(s[k]) and s[k] >= 0, (k, s[k])
    assert s["fairness"] <= 1 + 1e-9 and s["cell_loss_ratio"] <= 1
    for p in s["ports"]:
        assert 0 <= p["busy_fraction"] <= 1 + 1e-12, p
        if p["limit"] is not None:
            assert p["peak_occupancy"] <= p["limit"] or p["unit"] == "cells", p


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scenario=st.sampled_from(sorted(SCENARIOS)), key=st.sampled_from(KEYS), value=values)
def test_any_single_override_runs_valid_or_fails_in_one_line(scenario, key, value):
    sets = [f"{key}={value}"]
    if key != "duration":
        sets.append("duration=20ms")
    try:
        summary, _ = _core.run(SCENARIOS[scenario], sets, None, False)
    except ScenarioError as e:
        msg = str(e)
        assert msg and "\n" not in msg and ": " in msg, msg
        return
    physically_valid(json.loads(summary))
