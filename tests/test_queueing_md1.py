"""Queueing theory: a router port fed with Poisson arrivals of equal packets is an M/D/1 queue, and
its mean occupancy must be Pollaczek-Khinchine's L = rho + rho^2 / (2 (1 - rho)) (docs/validation.md,
"Queueing theory: M/D/1 at a router port").

A UDP source (`send_at`: the arrival times, drawn here from Python's Mersenne Twister) sends
1000-byte packets over a 10 Gb/s access link (0.8 us a packet, against a mean gap of 1.1-2 ms, so the
arrivals at the router stay Poisson to within that) into an 8 Mb/s line (1 ms a packet, deterministic
service) with a buffer that never fills. The port's mean occupancy (Little's law, the packet in
transmission counted: metrics.md, "Port statistics") is compared with L at the measured utilisation
(the port's busy fraction, so the count of arrivals drawn does not enter). Tolerance: three standard
errors of the mean ratio over the ten seeds, estimated from those seeds (measured: mean ratios
0.9988, 0.9987, 0.9951 at rho = 0.5, 0.8, 0.9, standard errors 0.0007, 0.0022, 0.0062).
"""
import math
import random
import statistics

import pytest

import atmsim

T = 200.0          # s of arrivals and of the run
SERVICE = 1e-3     # s: 1000 bytes at 8 Mb/s

SCENARIO = """name = "md1"
description = "M/D/1: Poisson arrivals of 1000-byte packets into an 8 Mb/s router port"
network = "packet"
duration = "{T}s"
seed = 1
seed_randomizes = "nothing"
[ip]
header_bytes = 40
mtu = "1000B"
[tcp]
mss = "960B"
[switch]
buffer = "1000000packets"
[report]
bottleneck = "S->B"
[topology]
hosts = ["A", "B"]
switches = ["S"]
[[link]]
ends = ["A", "S"]
rate = "10Gbps"
delay = "1us"
[[link]]
ends = ["S", "B"]
rate = "8Mbps"
delay = "1us"
[[flow]]
name = "poisson"
kind = "udp"
src = "A"
dst = "B"
datagram = "972B"
send_at = [{times}]
"""


def md1_run(tmp_path, rho: float, seed: int) -> tuple:
    """(measured utilisation, mean occupancy) of one run at offered load rho."""
    rng, t, times = random.Random(f"md1-{rho}-{seed}"), 0.0, []
    while True:
        t += rng.expovariate(rho / SERVICE)
        if t >= T:
            break
        times.append(f'"{round(t * 1e12)}ps"')
    path = tmp_path / f"md1-{rho}-{seed}.toml"
    path.write_text(SCENARIO.format(T=T, times=", ".join(times)), encoding="utf-8")
    s = atmsim.run(str(path)).summary
    assert s["accounting"]["balanced"] and s["accounting"]["bytes_dropped_in_queues"] == 0
    port = next(p for p in s["ports"] if p["name"] == "S->B")
    return port["busy_fraction"], port["mean_occupancy"]


def pollaczek_khinchine(rho: float) -> float:
    return rho + rho * rho / (2 * (1 - rho))


@pytest.mark.parametrize("rho", [0.5, 0.8, 0.9])
def test_router_port_is_an_md1_queue(tmp_path, rho):
    runs = [md1_run(tmp_path, rho, seed) for seed in range(1, 11)]
    ratios = [occ / pollaczek_khinchine(busy) for busy, occ in runs]
    mean, se = statistics.mean(ratios), statistics.stdev(ratios) / math.sqrt(len(ratios))
    assert abs(mean - 1) <= 3 * se, (rho, ratios)
    assert all(abs(busy - rho) < 0.02 for busy, _ in runs)
