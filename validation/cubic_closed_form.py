"""CUBIC's window against its closed form W(t) = C(t - K)^3 + W_max (RFC 9438 §4.2), measured
on a whole simulation (docs/validation.md, "CUBIC's closed form, measured").

    python validation/cubic_closed_form.py [--duration 60]

One `cubic-sack` flow S -> R1 -> R2 -> D through a 100 Mb/s bottleneck with a 100-ms
propagation round trip (C·RTT = 833 packets) and a 100-packet tail-drop buffer, senders' and
receiver's links at 1 Gb/s, an ACK per segment. Long round trips and large windows put the
cubic term in charge: W(t) leaves cwnd_epoch at 3CK^2 = 64-96 segments a second (K = 7-9 s),
W_est at 9/17 segment a round trip, 5.3 a second at most, and W_est stays below W(t) through
every epoch (they start equal; `cubic_over_w_est` is W(t) − W_est at its least from 1 s
into the epoch on), so each loss-free epoch between two cuts is the closed form's.

Per epoch, from the window trace: the epoch begins at the first ACK that grows the window
after a cut (t_epoch, RFC 9438 §4.2), cwnd_epoch is the window there, W_max the window just
before the cut, or (1 + β)/2 of it where it is below the W_max before (fast convergence,
§4.7); K = ∛((W_max − cwnd_epoch)/C) as computed; and measured: the largest |cwnd − W(t)|
in segments over the whole epoch and after its first round trip (the window reaches the
curve during the first round trip: it aims at W(t + RTT), §4.4), and K as observed: the
K that fits the epoch's cwnd best (least squares over K ± 1 s, to the millisecond).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import atmsim
from atmsim.one_line_args import OneLineParser

MSS = 1460
C, BETA = 0.4, 0.7
RTT_S = 0.1
ALPHA_CUBIC = 3 * (1 - BETA) / (1 + BETA)  # W_est's growth per round trip (§4.3)


def scenario(duration_s: float) -> str:
    links = [("S1", "R1", "1Gbps", "1us"), ("R1", "R2", "100Mbps", f"{RTT_S / 2 * 1e6 - 2:g}us"), ("R2", "D", "1Gbps", "1us")]
    return "\n".join([
        'name = "cubic-closed-form"', 'network = "packet"', f'duration = "{duration_s:g}s"', "seed = 1",
        '[ip]\nheader_bytes = 40\nmtu = "1500B"',
        '[tcp]\nvariant = "cubic-sack"\nmss = "1460B"\nwindow = "8MiB"\ndelayed_ack = false',
        '[switch]\nbuffer = "100packets"', '[router]\npolicy = "tail"', '[report]\nbottleneck = "R1->R2"',
        '[topology]\nhosts = ["S1", "D"]\nswitches = ["R1", "R2"]',
        *(f'[[link]]\nends = ["{a}", "{b}"]\nrate = "{rate}"\ndelay = "{delay}"' for a, b, rate, delay in links),
        '[[flow]]\nname = "f1"\nsrc = "S1"\ndst = "D"\nstart = "0us"',
    ]) + "\n"


def epochs(t: np.ndarray, cwnd: np.ndarray) -> list[dict]:
    """The loss-free epochs of a window trace (cwnd in segments, cwnd[i] from t[i] on), each
    measured against the closed form; an epoch the run ends before it grows is left out."""
    out, w_max_before = [], None
    cuts = np.flatnonzero(np.diff(cwnd) < -3) + 1
    for a, b in zip(cuts, [*cuts[1:], len(cwnd)]):
        peak = cwnd[a - 1]
        w_max = peak if w_max_before is None or peak >= w_max_before else peak * (1 + BETA) / 2
        w_max_before = w_max
        grows = np.flatnonzero(np.diff(cwnd[a:b]) > 0)
        if not len(grows):
            continue
        first = a + grows[0] + 1
        t0, c0 = t[first], cwnd[first - 1]
        k = float(np.cbrt((w_max - c0) / C)) if w_max > c0 else 0.0
        tt, cc = t[first:b] - t0, cwnd[first:b]
        w = C * (tt - k) ** 3 + w_max
        dev = np.abs(cc - w)
        # W_est at its fastest (9/17 segment per propagation round trip; queueing only slows it)
        w_est = c0 + ALPHA_CUBIC * tt / RTT_S
        out.append({"start_s": float(t0), "end_s": float(t[b - 1]), "w_max": float(w_max), "cwnd_epoch": float(c0),
                    "k_s": k, "k_fit_s": fitted_k(tt, cc, w_max, k),
                    "max_dev": float(dev.max()), "max_dev_after_rtt": float(dev[tt > RTT_S].max()),
                    "mean_dev": float(dev.mean()), "cubic_over_w_est": least((w - w_est)[tt >= 1.0]),
                    "samples": int(len(cc))})
    return out


def least(x: np.ndarray) -> float:
    """The smallest value, or NaN for none (an epoch the run ends within its first second)."""
    return float(x.min()) if x.size else float("nan")


def fitted_k(tt: np.ndarray, cc: np.ndarray, w_max: float, k: float) -> float:
    """The K within 1 s of k that fits cwnd cc at times tt best (least squares): in 10-ms
    steps, then in 1-ms steps around the best."""
    def best(candidates: np.ndarray) -> float:
        sse = [float(np.sum((cc - C * (tt - x) ** 3 - w_max) ** 2)) for x in candidates]
        return float(candidates[int(np.argmin(sse))])
    coarse = best(k + np.arange(-100, 101) * 1e-2)
    return best(coarse + np.arange(-10, 11) * 1e-3)


def measure(duration_s: float) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cubic-closed-form.toml"
        path.write_text(scenario(duration_s), encoding="utf-8")
        w = atmsim.run(str(path), trace=True).traces["window"]
    w = w[w.flow == "f1"]
    return epochs(w.t.to_numpy(), w.cwnd.to_numpy() / MSS)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    a = ap.parse_args()
    print("| epoch (s) | W_max | cwnd_epoch | K computed (s) | K observed (s) | max abs(cwnd − W(t)) | after 1 RTT | mean "
          "| W(t) − W_est from 1 s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for e in measure(a.duration):
        print(f"| {e['start_s']:.3f}-{e['end_s']:.3f} | {e['w_max']:.1f} | {e['cwnd_epoch']:.1f} | {e['k_s']:.3f} | "
              f"{e['k_fit_s']:.3f} | {e['max_dev']:.2f} | {e['max_dev_after_rtt']:.2f} | {e['mean_dev']:.2f} | "
              f"{e['cubic_over_w_est']:.0f} |")


if __name__ == "__main__":
    main()
