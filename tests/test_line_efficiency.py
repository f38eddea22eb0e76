"""Line efficiency by hand against the simulator (docs/validation.md, "Hand computations").

aron97's topology 1 (one cell every 3 us: 141.33 Mb/s) with one saturating UDP source, f1 at 25 MB/s
(more than the line carries), the other flows left out and a buffer that never fills: between 1 s
and 2 s the receiver must get exactly what the bottleneck's line carries in that second, computed
by hand from the encapsulation (docs/atm.md, "Worked examples"; docs/packet.md):

* packet network: 9168-byte IP packets (9140 bytes of UDP payload) at 141.33 Mb/s;
* ATM, raw48 (x-sim's, no AAL5 trailer): 9168 / 48 = 191 cells a packet, 53 bytes a cell on the wire;
* ATM, AAL5 with LLC/SNAP: 8 + 9168 + 8 = 9184 bytes, 192 cells (16 pad bytes).

The window is a difference of two runs of the same scenario (runs are deterministic, so the first is
the second's prefix); a packet straddles each end, so the tolerance is one packet's payload.
"""
import pytest

import atmsim

LINE_BPS = 53 * 8 / 3e-6
PAYLOAD = 9140            # 9168-byte datagram - 28 bytes of IP and UDP headers
# With no TCP flow left, the file's TCP settings would configure nothing and are refused (issue 38, rule 1):
# restated at their defaults.
SETS = (["flow.f1.kind=udp", "flow.f1.rate=25MB/s", "switch.buffer=1000000B", "tcp.window=64KiB", "tcp.delayed_ack=true"]
        + [f"flow.f{i}=off" for i in range(2, 9)])


def delivered(scenario, sets, t):
    return atmsim.run(scenario, SETS + sets + [f"duration={t}s"]).summary["flows"][0]["bytes_delivered"]


@pytest.mark.parametrize("scenario,sets,wire_bytes", [
    ("aron97-topo1-packet", [], 9168),
    ("aron97-topo1-atm", [], 191 * 53),
    ("aron97-topo1-atm", ["atm.encapsulation=aal5-llc"], 192 * 53),
])
def test_the_line_carries_what_the_encapsulation_allows(scenario, sets, wire_bytes):
    got = delivered(scenario, sets, 2) - delivered(scenario, sets, 1)
    by_hand = LINE_BPS / 8 / wire_bytes * PAYLOAD
    assert abs(got - by_hand) <= PAYLOAD, (got, by_hand)
