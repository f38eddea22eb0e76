"""DCTCP beside ns-3 3.44's TcpDctcp (docs/validation.md, "DCTCP beside ns-3"): the
dumbbell of validation/dctcp_fluid.py (N senders -> R1 -> R2 -> D, 10 Gb/s, 1,500-byte
packets) in atmsim, and the same network in ns-3 (bench/ns3/dctcp_ns3.py).

    python validation/dctcp_ns3.py [--ns3-python PY | --refresh-atmsim] [--store validation/ns3/dctcp_reference.json] [--only NAMES]
    python validation/dctcp_ns3.py --plot docs/validation/dctcp-ns3-cwnd.png

Scenarios (SCENARIOS): two long-lived flows with K = 10, 20, 40 at propagation round
trips of 100 us and 500 us (C·RTT = 83 and 417 packets), buffer 400 packets; at 100 us
and K = 20 also with ns-3's default PRR recovery (atmsim unchanged) and with delayed ACKs
on both (ns-3's DelAckCount 2, atmsim's BSD delayed ACK); an 8-to-1 incast, 8 x 64 KB
started together, K = 20, with a 400-packet buffer (nothing lost) and a 32-packet one
(the initial windows alone overflow it), there also with SACK on both (atmsim's
`dctcp-sack`, ns-3's Sack = true); and a buffer sweep at K = 20, both round trips: buffers of
22, 32 and 400 packets (SWEEP_BUFFERS says why those), SACK on both, senders' links at 40 Gb/s,
flow 1's cwnd on a grid (TRACE_MS) for the figure (--plot).
Each is measured the same way on both (`measure` here, the docstring of dctcp_ns3.py there):
per-flow goodput and the link's use, the bottleneck port's occupancy (time-weighted mean and
max, counting the packet in transmission), marks and drops, each sender's cwnd (mean, and
the sawtooth's mean peak and trough: the value before and after each decrease), its ECN
reductions, α at the end, and the incast's completion times.

Without --ns3-python the ns-3 rows come from the store; with it ns-3 runs (one process a
scenario, ~1 min each on a shared machine) and the store is rewritten with both sides. With
--refresh-atmsim the store's atmsim rows are rewritten and its ns-3 rows kept: after a change
to atmsim alone, ns-3's runs need not be repeated.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import atmsim
from atmsim import portlog
from atmsim.one_line_args import OneLineParser

ROOT = Path(__file__).resolve().parents[1]
NS3_SCRIPT = ROOT / "bench" / "ns3" / "dctcp_ns3.py"
STORE = ROOT / "validation" / "ns3" / "dctcp_reference.json"
RATE_BPS, PACKET, MSS = 10e9, 1500, 1460


def _dumbbell(k: int, rtt_us: int, duration: float, warmup: float, **more) -> dict:
    return {"flows": 2, "k": k, "buffer": 400, "rtt_us": rtt_us, "bytes": 0, "duration": duration, "warmup": warmup,
            "delayed_ack": False, "ns3_recovery": "classic", "sack": False, **more}


#: flow 1's cwnd is sampled every this many ms over the read interval, per round trip (us)
TRACE_MS = {100: 0.05, 500: 0.25}
#: The buffer sweep at K = 20 (packets, the one in transmission included): 400 never binds
#: (the sawtooth peaks at K + 3-4); 32 holds the sawtooth but not slow start's first overshoot,
#: so it binds once, before any echo has cut; 22 = K + 2 binds every cycle, before marking
#: controls the queue: what arrives in the round trip between the first mark and its echo,
#: beyond 2 packets above K, is dropped.
SWEEP_BUFFERS = (22, 32, 400)


def _buffer_sweep(buffer: int, rtt_us: int) -> dict:
    """A dumbbell of the buffer sweep: losses, so SACK on both (without it ns-3 waits for a
    timeout after a loss in CA_CWR, N10) and senders' links at 40 Gb/s (at 10 Gb/s a flow
    that fills the port alone locks the other out, as in validation/cubic_ns3.py)."""
    long = {100: (0.05, 0.02), 500: (0.40, 0.20)}[rtt_us]
    return {**_dumbbell(20, rtt_us, *long), "buffer": buffer, "sack": True, "access_gbps": 40,
            "trace_ms": TRACE_MS[rtt_us]}


#: name -> parameters; the long-lived runs are read over [warmup, duration], the incasts over
#: the whole run. At 500 us the windows climb from the first cuts by one packet a round trip
#: for ~100 round trips: those runs are read over [200 ms, 400 ms].
SCENARIOS = {
    **{f"dumbbell-100us-k{k}": _dumbbell(k, 100, 0.05, 0.02) for k in (10, 20, 40)},
    **{f"dumbbell-500us-k{k}": _dumbbell(k, 500, 0.40, 0.20) for k in (10, 20, 40)},
    "dumbbell-100us-k20-ns3prr": _dumbbell(20, 100, 0.05, 0.02, ns3_recovery="prr"),
    "dumbbell-100us-k20-delack": _dumbbell(20, 100, 0.05, 0.02, delayed_ack=True),
    "incast-8x64KB": {**_dumbbell(20, 100, 0.05, 0.0), "flows": 8, "bytes": 65536},
    "incast-8x64KB-buffer32": {**_dumbbell(20, 100, 3.0, 0.0), "flows": 8, "bytes": 65536, "buffer": 32},
    "incast-8x64KB-buffer32-sack": {**_dumbbell(20, 100, 3.0, 0.0), "flows": 8, "bytes": 65536, "buffer": 32, "sack": True},
    **{f"dumbbell-{rtt}us-k20-b{b}-sack": _buffer_sweep(b, rtt) for rtt in (100, 500) for b in SWEEP_BUFFERS},
}


def scenario(p: dict) -> str:
    """The dumbbell as a scenario file: S1..SN -> R1 -> R2 -> D, RTT/2 - 2 us on the bottleneck.
    validation/cubic_ns3.py's scenarios add `variant`, `policy` ("tail"), `access_gbps`, `tick`,
    `rttmin_ticks` and (one of them) `limited_transmit`."""
    n, finite = p["flows"], p["bytes"] > 0
    variant = p.get("variant", "dctcp-sack" if p["sack"] else "dctcp")
    router = (f'[router]\npolicy = "dctcp"\n[router.dctcp]\nk = {p["k"]}' if p.get("policy", "dctcp") == "dctcp"
              else f'[router]\npolicy = "{p["policy"]}"')
    access = p.get("access_gbps", 10)
    hosts = [f"S{i}" for i in range(1, n + 1)] + ["D"]
    lines = [
        'name = "dctcp-ns3"', 'network = "packet"', f'duration = "{p["duration"] * 1e3:g}ms"', "seed = 1",
        '[ip]\nheader_bytes = 40\nmtu = "1500B"',
        f'[tcp]\nvariant = "{variant}"\nmss = "1460B"\nwindow = "4MiB"\ntick = "{p.get("tick", "500ms")}"\nrttmin_ticks = {p.get("rttmin_ticks", 2)}',
        f'delayed_ack = {"true" if p["delayed_ack"] else "false"}' + ("\nlimited_transmit = true" if p.get("limited_transmit") else ""),
        f'[switch]\nbuffer = "{p["buffer"]}packets"',
        router,
        '[report]\nbottleneck = "R1->R2"',
        "[topology]", "hosts = [" + ", ".join(f'"{h}"' for h in hosts) + "]", 'switches = ["R1", "R2"]',
    ]
    if not finite:
        lines.append(f'[measure]\nfrom = "{p["warmup"] * 1e3:g}ms"\nto = "{p["duration"] * 1e3:g}ms"')
    links = [(f"S{i}", "R1", 1.0, access) for i in range(1, n + 1)] + [("R1", "R2", p["rtt_us"] / 2 - 2, 10),
                                                                       ("R2", "D", 1.0, 10)]
    for a, b, delay, gbps in links:
        lines.append(f'[[link]]\nends = ["{a}", "{b}"]\nrate = "{gbps:g}Gbps"\ndelay = "{delay:g}us"')
    for i in range(1, n + 1):
        start = 0 if finite else (i - 1) * 10
        size = f'\nbytes = "{p["bytes"]}B"' if finite else ""
        lines.append(f'[[flow]]\nname = "f{i}"\nsrc = "S{i}"\ndst = "D"\nstart = "{start}us"{size}')
    return "\n".join(lines) + "\n"


def _time_weighted(t: np.ndarray, v: np.ndarray, start: float, end: float) -> float:
    """Mean of the step function v (v[i] from t[i] on) over [start, end]."""
    edges = np.clip(np.append(t, end), start, end)
    return float((v * np.diff(edges)).sum() / (end - start))


def run(p: dict, workdir: Path):
    """One atmsim run of the scenario, the bottleneck port and the windows traced."""
    path = workdir / "dctcp-ns3.toml"
    path.write_text(scenario(p), encoding="utf-8")
    return atmsim.run(str(path), set=["trace.port=R1->R2"], trace=True)


def measure(p: dict, workdir: Path) -> dict:
    """One atmsim run, measured as bench/ns3/dctcp_ns3.py measures ns-3."""
    return measured(p, run(p, workdir))


def grid(p: dict, step_ms: float) -> np.ndarray:
    """The instants (s) every step_ms over the read interval [warmup, duration], both ends in."""
    step = step_ms / 1e3
    return p["warmup"] + step * np.arange(int(round((p["duration"] - p["warmup"]) / step)) + 1)


def cwnd_on_grid(r, at: np.ndarray) -> list[float]:
    """Flow f1's cwnd (segments) at each instant of `at`: the last change at or before it."""
    w = r.traces["window"]
    w = w[w.flow == "f1"]
    t, cwnd = w.t.to_numpy(), w.cwnd.to_numpy()
    i = np.searchsorted(t, at, side="right") - 1
    return [float(cwnd[j]) / MSS if j >= 0 else 0.0 for j in i]


def measured(p: dict, r) -> dict:
    """The run r of scenario p, measured as bench/ns3/dctcp_ns3.py measures ns-3."""
    s = r.summary
    finite = p["bytes"] > 0
    start = 0.0 if finite else p["warmup"]
    end = max(f["completion_time_s"] for f in s["flows"]) if finite else p["duration"]
    occ = portlog.occupancy(r.traces["port"], direction="data")
    t, q = occ.t.to_numpy(), occ.q.to_numpy()
    before = t <= start
    q0 = q[before][-1] if before.any() else 0
    inside = (t > start) & (t <= end)
    tq, qq = np.append(start, t[inside]), np.append(q0, q[inside])
    win = r.traces["window"]
    flows = []
    for f in s["flows"]:
        w = win[win.flow == f["name"]]
        wt, cw = w.t.to_numpy(), w.cwnd.to_numpy().astype(float)
        drop = np.flatnonzero((np.diff(cw) < 0) & (wt[1:] >= start) & (wt[1:] <= end)) + 1
        k0 = wt <= start
        c0 = cw[k0][-1] if k0.any() else 0.0
        keep = (wt > start) & (wt <= end)
        span = end - start
        flows.append({
            "goodput_bps": f["bytes_delivered"] * 8 / span if finite else f["goodput_bps"],
            "mean_cwnd": _time_weighted(np.append(start, wt[keep]), np.append(c0, cw[keep]), start, end) / MSS,
            "decreases": len(drop),
            "peak_cwnd": float(cw[drop - 1].mean() / MSS) if len(drop) else None,
            "trough_cwnd": float(cw[drop].mean() / MSS) if len(drop) else None,
            "reductions": f.get("ecn_reductions"),
            "alpha": f.get("dctcp_alpha"),
            "completion_s": f["completion_time_s"] if finite else None,
        })
    port = next(x for x in s["ports"] if x["name"] == "R1->R2")
    out = {
        "simulator": "atmsim", "flows": flows,
        "utilisation": sum(f["goodput_bps"] for f in flows) / (RATE_BPS * MSS / PACKET),
        "queue_mean": _time_weighted(tq, qq, start, end), "queue_max": int(qq.max()),
        "marks": port.get("units_marked", 0), "drops": port["units_dropped"],
    }
    if p.get("trace_ms"):
        out["cwnd_trace"] = cwnd_on_grid(r, grid(p, p["trace_ms"]))
    return out


def ns3(p: dict, python: str) -> dict:
    args = [python, str(NS3_SCRIPT), "--flows", str(p["flows"]), "--k", str(p["k"]), "--buffer", str(p["buffer"]),
            "--rtt-us", str(p["rtt_us"]), "--bytes", str(p["bytes"]), "--duration", str(p["duration"]),
            "--warmup", str(p["warmup"]), "--recovery", p["ns3_recovery"], "--del-ack-count", "2" if p["delayed_ack"] else "1",
            "--access-gbps", str(p.get("access_gbps", 10))] + (["--sack"] if p["sack"] else [])
    args += ["--trace-ms", str(p["trace_ms"])] if p.get("trace_ms") else []
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=1800)
    return json.loads(out.stdout.strip().splitlines()[-1])


def row_start(name: str, p: dict, m: dict) -> tuple[str, str]:
    """A table row's first four cells, and its completion-time cell (finite flows only)."""
    f = m["flows"]
    fct = f"{max(x['completion_s'] for x in f) * 1e6:.0f}" if p["bytes"] else "-"
    rates = " / ".join(f"{x['goodput_bps'] / 1e9:.2f}" for x in f) if len(f) <= 2 else "-"
    return f"| {name} | {m['simulator']} | {m['utilisation']:.3f} | {rates} | ", fct


def row(name: str, p: dict, m: dict) -> str:
    f = m["flows"]
    mean = lambda key: np.mean([x[key] for x in f if x[key] is not None]) if any(x[key] is not None for x in f) else float("nan")  # noqa: E731
    start, fct = row_start(name, p, m)
    return (start +
            f"{m['queue_mean']:.1f} / {m['queue_max']} | {m['marks']} | {m['drops']} | {mean('mean_cwnd'):.1f} | "
            f"{mean('peak_cwnd'):.1f} / {mean('trough_cwnd'):.1f} | {mean('decreases'):.0f} | {mean('alpha'):.3f} | {fct} |")


HEADER = ("| scenario | simulator | link use | Gb/s per flow | queue mean / max | marks | drops | mean cwnd | "
          "cwnd peak / trough | decreases | α end | FCT max (µs) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | "
          "---: | ---: | ---: | ---: | ---: |")


def write(store: dict, path: Path, doc: str = __doc__, script: str = "dctcp_ns3.py", ns3_args: str = "") -> None:
    """The store with what it holds and how to remake it (validation/cubic_ns3.py's too)."""
    store["what"] = doc.splitlines()[0]
    store["command"] = f"python validation/{script} --ns3-python PY"
    store["ns3"] = f"ns3 3.44.post0 (PyPI), bench/ns3/dctcp_ns3.py{ns3_args}"
    # Whole or not at all: the store holds hours of ns-3 runs, and a run stopped mid-write must not cut it.
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(store, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


SWEEP = [f"dumbbell-{rtt}us-k20-b{b}-sack" for rtt in (100, 500) for b in SWEEP_BUFFERS]


def plot_cwnd(panels: list[tuple], labels: tuple[str, str], path: Path) -> None:
    """Flow 1's cwnd in both simulators, a 2 x 3 grid of panels, each (name, scenario, its stored
    entry, the x-axis' end in ms or None); validation/cubic_ns3.py's figure too."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.5))
    for ax, (name, p, entry, x_end) in zip(axes.flat, panels):
        t = (entry["grid"] - p["warmup"]) * 1e3
        for side, style, label in (("ns3", "C0-", labels[0]), ("atmsim", "C3-", labels[1])):
            ax.plot(t, entry[side]["cwnd_trace"], style, lw=0.9, label=label)
        if x_end:
            ax.set_xlim(0, x_end)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(f"ms after {p['warmup'] * 1e3:.0f} ms")
        ax.set_ylabel("flow 1 cwnd (segments)")
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def plot(store: dict, path: Path) -> None:
    """Flow 1's cwnd over the first 5 ms (100 us) or 50 ms (500 us) of the read interval, one
    panel per dumbbell of the buffer sweep."""
    panels = []
    for name in SWEEP:
        p = SCENARIOS[name]
        entry = {**store["scenarios"][name], "grid": grid(p, p["trace_ms"])}
        panels.append((name, p, entry, 5 if p["rtt_us"] == 100 else 50))
    plot_cwnd(panels, ("ns-3 TcpDctcp", "atmsim dctcp-sack"), path)


def read_store(ap, path: Path) -> dict:
    """The store at `path` (none yet: empty); one that cannot be read, or is not a store, is one line."""
    if not path.exists():
        return {"scenarios": {}}
    try:
        store = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        ap.error(f"--store {path}: cannot be read ({e})")
    if not isinstance(store, dict) or not isinstance(store.get("scenarios"), dict):
        ap.error(f"--store {path}: not a store of scenarios (no 'scenarios' table)")
    return store


def names_and_store(ap, a, scenarios: dict) -> tuple[list, dict]:
    """The scenarios `--only` names (every one by default) and the store, checked: an unknown name,
    --refresh-atmsim beside --ns3-python, or a scenario to run without ns-3 whose ns-3 row the store
    lacks is one line, exit 2 (this script's and cubic_ns3.py's)."""
    names = a.only.split(",") if a.only else list(scenarios)
    unknown = [n for n in names if n not in scenarios]
    if unknown:
        ap.error(f"--only: no scenario {unknown[0]!r} (see SCENARIOS)")
    if a.refresh_atmsim and a.ns3_python:
        ap.error("--refresh-atmsim keeps the stored ns-3 rows: leave out --ns3-python")
    store = read_store(ap, Path(a.store))
    missing = [n for n in names if n not in store["scenarios"]]
    if missing and not a.ns3_python:
        ap.error(f"{a.store} holds no ns-3 row for {missing[0]}: run with --ns3-python")
    return names, store


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", help="an interpreter with the ns3 package: rerun ns-3 and rewrite the store")
    ap.add_argument("--refresh-atmsim", action="store_true",
                    help="rewrite the store's atmsim rows, keep its ns-3 rows (after a change to atmsim)")
    ap.add_argument("--store", default=str(STORE))
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--plot", help="write flow 1's cwnd in the buffer sweep to this PNG (from the store) and stop")
    a = ap.parse_args()
    if a.plot:
        plot(read_store(ap, Path(a.store)), Path(a.plot))
        return
    names, store = names_and_store(ap, a, SCENARIOS)
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            p = SCENARIOS[name]
            ours = measure(p, Path(tmp))
            if a.ns3_python:
                print(f"ns-3 {name} ...", file=sys.stderr, flush=True)
                store["scenarios"][name] = {"parameters": p, "ns3": ns3(p, a.ns3_python), "atmsim": ours}
                write(store, Path(a.store))
            elif a.refresh_atmsim:
                store["scenarios"][name]["atmsim"] = ours
                write(store, Path(a.store))
            print(row(name, p, store["scenarios"][name]["ns3"]))
            print(row(name, p, ours))


if __name__ == "__main__":
    main()
