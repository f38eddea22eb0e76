"""DCTCP against its fluid model (Alizadeh et al., "Data Center TCP",
SIGCOMM 2010, §3.3) and the guideline for its marking threshold K (§3.4):
N long-lived DCTCP flows share one bottleneck of capacity C and round trip
RTT whose switch marks above K packets (docs/validation.md, "DCTCP against its
fluid model").

    python validation/dctcp_fluid.py [--out out/dctcp-fluid] [--flows 2,10] [--ks 2,4,8,12,20,40,65]

The analysis (synchronised flows, windows in packets, C·RTT in packets):

    W* = (C·RTT + K)/N            the window at which the queue reaches K
    α  ≈ √(2/W*)                  the marked fraction in steady state
    A  = N·(W* + 1)·α/2 ≈ ½·√(2N(C·RTT + K))     the queue's amplitude
    T_C = (W* + 1)·α/2 ≈ ½·√(2(C·RTT + K)/N)     its period, in RTTs
    Q_max = K + N                 the queue's maximum

and the guideline: the queue never empties (full throughput) when
Q_min = Q_max − A > 0, i.e. K > (C·RTT)/7 for the synchronised worst case.

The network: N senders at C into one switch, the C bottleneck, one receiver;
C = 10 Gb/s, 1,500-byte packets, propagation RTT 100 µs (the paper's Fig. 13
setting: C·RTT = 83.3 packets), a buffer of 400 packets (nothing is lost), no
delayed ACKs. The queue is read from the bottleneck's port log at every
change over [20 ms, 50 ms]; the sawtooth's peaks and troughs are the extrema that
stand out by 3 packets or more (the queue jitters by a packet or two as the
senders' packets interleave); Q_max and Q_min are their means, the period the
mean time from peak to peak, counted in round trips of the run: 100 µs plus
the mean queue's drain time (the fluid model's window grows one packet per
round trip, and a queue of 40 packets lengthens each by 48 µs). "queue empty" is
the share of the window's time the queue is empty: the bottleneck is idle then.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import atmsim
from atmsim import portlog
from atmsim.one_line_args import OneLineParser

RATE_BPS = 10e9
PACKET_BYTES = 1500
RTT_S = 100e-6
WARMUP_S, DURATION_S = 0.020, 0.050
SWING = 3  # packets: the least rise or fall that counts as the sawtooth's


def bdp_packets() -> float:
    return RATE_BPS * RTT_S / (8 * PACKET_BYTES)


def scenario(flows: int) -> str:
    """The dumbbell as a scenario file: S1..SN -> R1 -> R2 -> D."""
    hosts = [f"S{i}" for i in range(1, flows + 1)] + ["D"]
    # 1 µs on each access link, 48 µs on the bottleneck: 100 µs of propagation a round trip.
    links = [(f"S{i}", "R1", "1us") for i in range(1, flows + 1)] + [("R1", "R2", "48us"), ("R2", "D", "1us")]
    lines = [
        'name = "dctcp-dumbbell"',
        f'description = "{flows} DCTCP flows through one 10 Gb/s bottleneck (Alizadeh et al. 2010 section 3.3)"',
        'network = "packet"',
        f'duration = "{DURATION_S * 1e3:g}ms"',
        "seed = 1",
        "[ip]\nheader_bytes = 40\nmtu = \"1500B\"",
        '[tcp]\nvariant = "dctcp"\nmss = "1460B"\nwindow = "4MiB"\ndelayed_ack = false\ntick = "500ms"\nrttmin_ticks = 2\nrxtmax_ticks = 128',
        '[switch]\nbuffer = "400packets"',
        '[router]\npolicy = "dctcp"',
        '[report]\nbottleneck = "R1->R2"',
        "[topology]",
        "hosts = [" + ", ".join(f'"{h}"' for h in hosts) + "]",
        'switches = ["R1", "R2"]',
    ]
    for a, b, delay in links:
        lines.append(f'[[link]]\nends = ["{a}", "{b}"]\nrate = "10Gbps"\ndelay = "{delay}"')
    for i in range(1, flows + 1):
        lines.append(f'[[flow]]\nname = "f{i}"\nsrc = "S{i}"\ndst = "D"\nstart = "{(i - 1) * 10}us"')
    return "\n".join(lines) + "\n"


def fluid(flows: int, k: int) -> dict:
    """The fluid model's sawtooth (Alizadeh et al. §3.3), packets and RTTs."""
    w_star = (bdp_packets() + k) / flows
    alpha = math.sqrt(2 / w_star)
    d = (w_star + 1) * alpha / 2
    return {"q_max": k + flows, "amplitude": flows * d, "q_min": k + flows - flows * d, "period_rtt": d, "alpha": alpha}


def measure(flows: int, k: int, path: Path, duration: float = DURATION_S, warmup: float = WARMUP_S) -> dict:
    """One run: the bottleneck queue's sawtooth and the link's use."""
    path.write_text(scenario(flows), encoding="utf-8")
    sets = [f"router.dctcp.k={k}", "trace.port=R1->R2", f"duration={duration * 1e3:g}ms"]
    r = atmsim.run(str(path), set=sets, trace=True)
    occ = portlog.occupancy(r.traces["port"], direction="data")
    t, q = occ.t.to_numpy(), occ.q.to_numpy()
    # A port logs a departure when it accepts the unit: rows may lie past the run's end.
    keep = (t >= warmup) & (t <= duration)
    t, q = t[keep], q[keep]
    # The sawtooth's peaks and troughs: extrema that stand out by SWING
    # packets (the queue jitters by a packet or two as the senders' packets
    # interleave); one cycle from peak to peak.
    reduced = occ[(occ.t >= warmup) & (occ.t <= duration)].reset_index(drop=True)
    peaks, troughs = portlog.extrema(reduced, SWING)
    q_max = float(np.mean(q[peaks])) if len(peaks) else float("nan")
    q_min = float(np.mean(q[troughs])) if len(troughs) else float("nan")
    period = float(np.mean(np.diff(t[peaks]))) if len(peaks) > 2 else float("nan")
    # Time-weighted: the share of the window the queue is empty (the link idle),
    # and the mean queue, which lengthens every round trip by its drain time.
    dt = np.diff(np.append(t, duration))
    empty = float(dt[q == 0].sum() / dt.sum())
    mean_q = float((q * dt).sum() / dt.sum())
    rtt = RTT_S + mean_q * 8 * PACKET_BYTES / RATE_BPS
    s = r.summary
    port = next(p for p in s["ports"] if p["name"] == "R1->R2")
    alphas = [f["dctcp_alpha"] for f in s["flows"]]
    return {
        "q_max": q_max,
        "amplitude": q_max - q_min,
        "q_min": q_min,
        "period_rtt": period / rtt,
        "rtt_us": rtt * 1e6,
        "cycles": max(len(peaks) - 1, 0),
        "empty_share": empty,
        "alpha": float(np.mean(alphas)),
        "drops": port["units_dropped"],
    }


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/dctcp-fluid")
    ap.add_argument("--flows", default="2,10")
    ap.add_argument("--ks", default="2,4,8,12,20,40,65")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"C·RTT = {bdp_packets():.1f} packets; guideline K > C·RTT/7 = {bdp_packets() / 7:.1f}")
    print("| N | K | Q_max fluid / sim | amplitude fluid / sim | period (RTTs) fluid / sim | α fluid / sim | queue empty | drops |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in (int(x) for x in a.flows.split(",")):
        for k in (int(x) for x in a.ks.split(",")):
            f, m = fluid(n, k), measure(n, k, out / f"dumbbell-{n}.toml")
            print(f"| {n} | {k} | {f['q_max']:.0f} / {m['q_max']:.1f} | {f['amplitude']:.1f} / {m['amplitude']:.1f} | "
                  f"{f['period_rtt']:.2f} / {m['period_rtt']:.2f} | {f['alpha']:.3f} / {m['alpha']:.3f} | "
                  f"{m['empty_share']:.4f} | {m['drops']} |")


if __name__ == "__main__":
    main()
