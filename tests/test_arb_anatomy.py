"""The arb mechanism probes (python/atmsim/reproduce/arb/anatomy.py) measure
what docs/arb.md §8 says they measure, on short runs."""
import pytest

from atmsim.reproduce.arb.anatomy import feedback, phase, twoway_short


def test_tahoe_pair_drops_are_increase_packets_and_the_start_order_picks_the_winner():
    even = phase(6.0, "10ms", duration=60.0)
    late = phase(6.0, "15s", duration=60.0)
    for r in (even, late):
        n2 = r["node2"]
        assert abs(n2["drop_phase_ms"] - n2["arrival_phase_ms"] - 1.0) < 0.01, "the second packet of a pair, 1 ms behind"
    assert even["node1"]["drops"] > 0 and even["node1"]["window_limited"] == 0.0
    assert late["node1"]["drops"] == 0 and late["node1"]["window_limited"] > 0.9 and late["node1"]["line_share"] > 0.85


def test_long_rtt_arb_increases_from_stale_ra_only_when_requests_overlap():
    short_m = feedback(8, "500ms", duration=200.0, t0=50.0)
    long_m = feedback(8, "2s", duration=200.0, t0=50.0)
    assert short_m["node2"]["increases_above_rinc"] > 0 and short_m["node1"]["increases_above_rinc"] == 0
    assert long_m["node2"]["increases_above_rinc"] == 0


def test_twoway_short_pipe_shows_out_of_phase_queues_and_ack_compression():
    r = twoway_short(duration=150.0, t0=50.0)
    assert r["queue_correlation"] < -0.5
    assert r["rev_queue_when_fwd_idle"] > 20
    assert r["ack_gaps_back_to_back"] > 0.3
    assert r["fwd_port"]["arrive_ack"] > 0 and r["fwd_port"]["arrive_data"] > 0, "data and ACKs share the queue"


@pytest.mark.parametrize("module", ["atmsim.reproduce.arb.anatomy", "atmsim.reproduce.morris_kung95.anatomy"])
@pytest.mark.parametrize("args", [[], ["nope"], ["fig3", "tcp.nonsense=1"]])
def test_a_probe_command_refuses_bad_input_in_one_line(module, args):
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"python -m {module}: error: "), p.stderr
