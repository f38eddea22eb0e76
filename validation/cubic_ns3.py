"""CUBIC beside ns-3 3.44's TcpCubic (docs/validation.md, "CUBIC beside ns-3"): the dumbbell
of validation/dctcp_ns3.py (N senders -> R1 -> R2 -> D, 10 Gb/s bottleneck, 1,500-byte
packets) with tail drop, CUBIC with SACK on both: atmsim's `cubic-sack`, ns-3's TcpCubic
with Sack = true (bench/ns3/dctcp_ns3.py --cc cubic).

    python validation/cubic_ns3.py [--ns3-python PY | --refresh-atmsim] [--only NAMES] [--plot PNG]

Scenarios (SCENARIOS): two long-lived flows (started 10 us apart) at round trips of 100 and
500 us (C·RTT = 83 and 417 packets) and buffers of 25, 100 and 400 packets; at 100 us and
100 packets also one flow alone, and ns-3 with one of its TcpCubic rules changed by its
attribute (atmsim unchanged): TcpFriendliness off, FastConvergence off, CubicDelta 0, and
its default PRR recovery; an 8-to-1 incast of 8 x 64 KB started together, with 400 packets
of buffer (nothing lost), with 32 (losses), and with 32 and no SACK (atmsim's `cubic`,
NewReno recovery underneath; ns-3's Sack = false); the last two also with limited transmit
(C8): with SACK on both (`-lt`: ns-3's LimitedTransmit, atmsim's tcp.limited_transmit),
without SACK on ns-3 alone (`-nosack-ns3lt`).

Set alike on both, beyond dctcp_ns3.py's alignment (its docstrings say what): the senders'
links run at 40 Gb/s (with every link at 10 Gb/s a sender's packets reach R1 no faster than
R1 sends them, so one flow holds the port full and the other's are all dropped: a lockout,
not CUBIC); the minimum RTO is 200 ms (atmsim: 10-ms ticks, rttmin_ticks = 20; ns-3:
MinRto 0.2 s): without HyStart (ns-3's off, atmsim models none) slow start overshoots by
hundreds of packets and a 1-s RTO would leave the first second idle; ns-3's HyStart off.

Measured as dctcp_ns3.py measures (per-flow goodput, the port's occupancy, drops, each
cwnd's mean and the sawtooth's peaks and troughs over the read interval), and over the whole
run each flow's retransmitted segments, fast recoveries and timeouts (ns-3: entries into
CA_RECOVERY and CA_LOSS), and flow 1's cwnd on a grid (TRACE_MS) over the read interval.

Without --ns3-python the ns-3 rows come from the store; with it ns-3 runs (one process a
scenario, 1-2 min each on a shared machine) and the store is rewritten with both sides. With
--refresh-atmsim the store's atmsim rows are rewritten and its ns-3 rows kept: after a change
to atmsim alone, ns-3's runs need not be repeated.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from atmsim.one_line_args import OneLineParser

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dctcp_ns3", ROOT / "validation" / "dctcp_ns3.py")
dumbbell = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("dctcp_ns3", dumbbell)
_spec.loader.exec_module(dumbbell)

STORE = ROOT / "validation" / "ns3" / "cubic_dumbbell_reference.json"
MSS = 1460
#: flow 1's cwnd is sampled every this many ms over the read interval, per round trip (us)
TRACE_MS = {100: 1.0, 500: 2.0}
#: what atmsim runs; the keys prefixed ns3_ are ns-3's alone
ATMSIM_KEYS = ("flows", "buffer", "rtt_us", "bytes", "duration", "warmup", "variant", "access_gbps", "tick",
               "rttmin_ticks", "sack", "limited_transmit")


def _cubic(buffer: int, rtt_us: int, duration: float, warmup: float, **more) -> dict:
    return {"flows": 2, "k": 0, "buffer": buffer, "rtt_us": rtt_us, "bytes": 0, "duration": duration,
            "warmup": warmup, "delayed_ack": False, "sack": True, "variant": "cubic-sack", "policy": "tail",
            "access_gbps": 40, "tick": "10ms", "rttmin_ticks": 20, "ns3_recovery": "classic",
            "ns3_cubic_attr": [], **more}


_HERE = _cubic(100, 100, 1.0, 0.4)
#: name -> parameters. The long-lived runs are read over [warmup, duration], after slow
#: start's losses and their timeouts; the incasts over the whole run.
SCENARIOS = {
    **{f"dumbbell-100us-b{b}": _cubic(b, 100, 1.0, 0.4) for b in (25, 100, 400)},
    **{f"dumbbell-500us-b{b}": _cubic(b, 500, 1.6, 0.6) for b in (25, 100, 400)},
    "dumbbell-100us-b100-1flow": {**_HERE, "flows": 1},
    "dumbbell-100us-b100-ns3nofriendly": {**_HERE, "ns3_cubic_attr": ["TcpFriendliness=false"]},
    "dumbbell-100us-b100-ns3nofastconv": {**_HERE, "ns3_cubic_attr": ["FastConvergence=false"]},
    "dumbbell-100us-b100-ns3cubicdelta0": {**_HERE, "ns3_cubic_attr": ["CubicDelta=0"]},
    "dumbbell-100us-b100-ns3prr": {**_HERE, "ns3_recovery": "prr"},
    "incast-8x64KB": {**_cubic(400, 100, 0.5, 0.0), "flows": 8, "bytes": 65536},
    "incast-8x64KB-buffer32": {**_cubic(32, 100, 2.0, 0.0), "flows": 8, "bytes": 65536},
    "incast-8x64KB-buffer32-nosack": {**_cubic(32, 100, 2.0, 0.0), "flows": 8, "bytes": 65536, "sack": False,
                                      "variant": "cubic"},
    # C8: limited transmit on both (ns-3's LimitedTransmit, atmsim's tcp.limited_transmit); without
    # SACK on ns-3 alone (atmsim's NewReno counts the three duplicates at entry, RFC 6582)
    "incast-8x64KB-buffer32-lt": {**_cubic(32, 100, 2.0, 0.0), "flows": 8, "bytes": 65536,
                                  "ns3_limited_transmit": True, "limited_transmit": True},
    "incast-8x64KB-buffer32-nosack-ns3lt": {**_cubic(32, 100, 2.0, 0.0), "flows": 8, "bytes": 65536, "sack": False,
                                            "variant": "cubic", "ns3_limited_transmit": True},
}
ALIGNED = [f"dumbbell-{rtt}us-b{b}" for rtt in (100, 500) for b in (25, 100, 400)]


def atmsim_part(p: dict) -> tuple:
    """The parameters atmsim's run depends on: scenarios equal in these share one atmsim run."""
    return tuple((k, p.get(k, False)) for k in ATMSIM_KEYS)


def _grid(p: dict) -> np.ndarray | None:
    return None if p["bytes"] else dumbbell.grid(p, TRACE_MS[p["rtt_us"]])


def measure(p: dict, workdir: Path) -> dict:
    """One atmsim run, measured as bench/ns3/dctcp_ns3.py --cc cubic measures ns-3."""
    r = dumbbell.run(p, workdir)
    m = dumbbell.measured(p, r)
    for f, s in zip(m["flows"], r.summary["flows"]):
        for key in ("reductions", "alpha"):
            del f[key]
        f.update(recoveries=s["fast_retransmits"], timeouts=s["timeouts"], retransmitted=s["segments_retransmitted"])
    del m["marks"]
    grid = _grid(p)
    if grid is not None:
        m["cwnd_trace"] = dumbbell.cwnd_on_grid(r, grid)
    return m


def cycles(t: np.ndarray, c: np.ndarray, start: float) -> tuple[np.ndarray, np.ndarray]:
    """Congestion events of a cwnd series (c[i] from t[i] on) after start: (times in s, the
    window just before each). A drop of more than 3 segments is a cut; cuts within 3 ms of
    the previous one belong to the same event (a recovery steps the window down)."""
    times, peaks = [], []
    for j in np.flatnonzero(np.diff(c) < -3) + 1:
        if t[j] > start and (not times or t[j] - times[-1] > 3e-3):
            times.append(t[j])
            peaks.append(c[j - 1])
    return np.array(times), np.array(peaks)


def atmsim_cycles(p: dict, workdir: Path) -> tuple[np.ndarray, np.ndarray]:
    """Flow 1's congestion events in atmsim, from every change of its window."""
    w = dumbbell.run(p, workdir).traces["window"]
    w = w[w.flow == "f1"]
    return cycles(w.t.to_numpy(), w.cwnd.to_numpy() / MSS, p["warmup"])


def ns3_cycles(p: dict, m: dict) -> tuple[np.ndarray, np.ndarray]:
    """Flow 1's congestion events in ns-3, from its cwnd on the grid (times to within TRACE_MS)."""
    return cycles(_grid(p), np.asarray(m["cwnd_trace"]), p["warmup"])


def describe(lengths: np.ndarray) -> str:
    """Cycle lengths as 'mean ms (min-max, n = count)', or 'none' for an empty set."""
    if not len(lengths):
        return "none"
    return f"{lengths.mean() * 1e3:.1f} ms ({lengths.min() * 1e3:.1f}-{lengths.max() * 1e3:.1f}, n = {len(lengths)})"


def print_cycles(name: str, store: dict, workdir: Path) -> None:
    """C1 measured: the cycle lengths of flow 1, in atmsim split by whether fast convergence
    began the cycle (the cut before it a fraction of a segment below the one before that)."""
    p = SCENARIOS[name]
    times, peaks = atmsim_cycles(p, workdir)
    length, after_fc = np.diff(times)[1:], peaks[1:-1] < peaks[:-2]
    print(f"{name}: atmsim cycles {describe(length)}; after a cut below the previous peak (fast convergence) "
          f"{describe(length[after_fc])}, after the others {describe(length[~after_fc])}; "
          f"peaks {peaks.min():.1f}-{peaks.max():.1f}")
    t3, p3 = ns3_cycles(p, store["scenarios"][name]["ns3"])
    print(f"{name}: ns-3 cycles {describe(np.diff(t3))}; peaks {p3.min():.0f}-{p3.max():.0f}")


def ns3(p: dict, python: str) -> dict:
    args = [python, str(dumbbell.NS3_SCRIPT), "--cc", "cubic", "--flows", str(p["flows"]),
            "--buffer", str(p["buffer"]), "--rtt-us", str(p["rtt_us"]), "--bytes", str(p["bytes"]),
            "--duration", str(p["duration"]), "--warmup", str(p["warmup"]), "--recovery", p["ns3_recovery"],
            "--access-gbps", str(p["access_gbps"]), "--min-rto", "0.2"]
    args += ["--sack"] if p["sack"] else []
    args += ["--limited-transmit"] if p.get("ns3_limited_transmit") else []
    args += [x for a in p["ns3_cubic_attr"] for x in ("--cubic-attr", a)]
    if not p["bytes"]:
        args += ["--trace-ms", str(TRACE_MS[p["rtt_us"]])]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=3600)
    m = json.loads(out.stdout.strip().splitlines()[-1])
    for f in m["flows"]:  # the DCTCP script's ECN counters: no ECN here
        for key in ("reductions", "alpha", "timeouts_from_cwr"):
            del f[key]
    del m["marks"]
    return m


def mean(m: dict, key: str) -> float:
    vals = [f[key] for f in m["flows"] if f[key] is not None]
    return float(np.mean(vals)) if vals else float("nan")


def total(m: dict, key: str) -> int:
    return sum(f[key] for f in m["flows"])


def row(name: str, p: dict, m: dict) -> str:
    start, fct = dumbbell.row_start(name, p, m)
    return (start + f"{m['queue_mean']:.1f} / {m['queue_max']} | {m['drops']} | {total(m, 'retransmitted')} | "
            f"{total(m, 'recoveries')} | {total(m, 'timeouts')} | {mean(m, 'mean_cwnd'):.1f} | "
            f"{mean(m, 'peak_cwnd'):.1f} / {mean(m, 'trough_cwnd'):.1f} | {mean(m, 'decreases'):.0f} | {fct} |")


HEADER = ("| scenario | simulator | link use | Gb/s per flow | queue mean / max | drops | rexmit | recoveries | "
          "timeouts | mean cwnd | cwnd peak / trough | decreases | FCT max (µs) |\n"
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")


def plot(store: dict, path: Path) -> None:
    """Flow 1's cwnd in both simulators, one panel per aligned dumbbell (at 100 us its first
    200 ms: 10-20 cycles; the whole interval is too dense to read)."""
    panels = [(name, SCENARIOS[name], {**store["scenarios"][name], "grid": _grid(SCENARIOS[name])},
               200 if SCENARIOS[name]["rtt_us"] == 100 else None) for name in ALIGNED]
    dumbbell.plot_cwnd(panels, ("ns-3 TcpCubic", "atmsim cubic-sack"), path)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", help="an interpreter with the ns3 package: rerun ns-3 and rewrite the store")
    ap.add_argument("--refresh-atmsim", action="store_true",
                    help="rewrite the store's atmsim rows, keep its ns-3 rows (after a change to atmsim)")
    ap.add_argument("--store", default=str(STORE))
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--plot", help="write the cwnd traces of the six dumbbells to this PNG")
    ap.add_argument("--cycles", help="print flow 1's cycle lengths in this scenario (C1) and stop")
    a = ap.parse_args()
    names, store = dumbbell.names_and_store(ap, a, SCENARIOS)
    if a.cycles:
        with tempfile.TemporaryDirectory() as tmp:
            print_cycles(a.cycles, store, Path(tmp))
        return
    print(HEADER)
    runs: dict[tuple, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            p = SCENARIOS[name]
            key = atmsim_part(p)
            if key not in runs:
                runs[key] = measure(p, Path(tmp))
            ours = runs[key]
            if a.ns3_python:
                print(f"ns-3 {name} ...", file=sys.stderr, flush=True)
                store["scenarios"][name] = {"parameters": p, "ns3": ns3(p, a.ns3_python), "atmsim": ours}
                dumbbell.write(store, Path(a.store), __doc__, "cubic_ns3.py", " --cc cubic")
            elif a.refresh_atmsim:
                store["scenarios"][name]["atmsim"] = ours
                dumbbell.write(store, Path(a.store), __doc__, "cubic_ns3.py", " --cc cubic")
            print(row(name, p, store["scenarios"][name]["ns3"]))
            print(row(name, p, ours))
    if a.plot:
        plot(store, Path(a.plot))


if __name__ == "__main__":
    main()
