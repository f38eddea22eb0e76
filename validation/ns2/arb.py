#!/usr/bin/env python3
"""The ARB paper's TCP-SS dumbbells in ns-2 and atmsim (Chang, Huynh & Gray; docs/arb.md).

    python validation/ns2/arb.py efficiency [--draws 1,2,3]          # arb-oneway, arb-twoway, arb-twoway-short
    python validation/ns2/arb.py fairness [--d23 5:27.5:0.5] [--draws 1,2,3] [--gateways tail,random-drop]
    python validation/ns2/arb.py all --write-reference validation/ns2/arb_reference.json
    python validation/ns2/arb.py parting --d23 5:26:21 --gateways tail   # where the packets first differ
    python validation/ns2/arb.py oneway-losses                           # D1/D11 and D18 in the one-way run
    python validation/ns2/arb.py bursty --draws 1,2,3 --write-reference validation/ns2/arb_bursty_reference.json
                                                                         # Fig. 17's marks, drop tail, buffers 5-13

Every flow of the built-in scenarios runs as TCP-SS (`flow.NAME.kind=tcp`, the reproduction's
overrides), and twin.py (twin_model.py) writes ns-2's Tcl from the resolved scenario: the same rates, delays,
buffers (in packets), packet and ACK sizes, window, initial window, timers and starts, drop tail as
ns-2's DropTail and random drop as ns-2's Queue/RED with thresholds it never reaches and
`drop_rand_` (twin_model.RANDOM_DROP_TCL). Phase is varied as in the twin: draw N adds U[0, 1 ms) to every
flow's start in both simulators, atmsim runs with seed N (its timers' phases) and ns-2's RNG with
seed N (random drop's victims). The paper's measures (docs/arb.md §7), over the same windows as the
reproduction, from each simulator's own record:

* utilisation: busy fraction of each bottleneck direction, every packet counted (ns-2: the `-`
  events of the traced ports; atmsim: the ports' busy_fraction, difference of two runs);
* throughput per source: payload delivered in order in the window (ns-2: the `r` events at the end
  of the bottleneck plus the uncongested hops after it; atmsim: bytes_delivered, difference of two
  runs that end at the window's two ends: runs are deterministic, so one is the other's prefix);
  fairness: Jain's index over the sources; the fairness runs' share: delivered packets x 1000 B over
  the bottleneck's capacity in the window (fairness.py's measure);
* drops: data packets of each source dropped in the window (ns-2: `d` events of the traced ports;
  atmsim: segments_lost), and every packet dropped (ACKs too) at the bottleneck ports.

docs/validation.md ("The ARB paper's TCP-SS dumbbells in ns-2") has the mapping and the results.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atmsim
import twin
from atmsim.reproduce.arb.common import ratio_of, transport
from phase import atmsim_port_packets, frange, ns2_port_packets, print_partings, save_panels
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

FWD, REV = "switch-1->switch-2", "switch-2->switch-1"
# case: (scenario, extra overrides, window (s), bottleneck ports measured)
EFFICIENCY = {
    "oneway": ("arb-oneway", (), (100.0, 1000.0), (FWD,)),
    "twoway": ("arb-twoway", (), (100.0, 1000.0), (FWD, REV)),
    "twoway-short": ("arb-twoway-short", (), (100.0, 1000.0), (FWD, REV)),
}
FAIR_WINDOW = (20.0, 120.0)
FAIR_PORT = "gateway-3->node-4"
D23 = "link.node-2-gateway-3.delay"


def fairness_case(d23_ms: float, gateway: str) -> tuple:
    return ("arb-fairness", (f"{D23}={round(d23_ms * 1000)}us", f"router.policy={gateway}"), FAIR_WINDOW, (FAIR_PORT,))


# ------------------------------------------------------------------------------------------------
# ns-2

def _busy(rate, t, size, t0, t1):
    a, b = t, t + size * 8 / rate
    return max(0.0, min(b, t1) - max(a, t0))


def ns2_measure(tw: twin.Twin, ports, files: dict, stdout: str, window) -> dict:
    """Utilisation per port, delivered payload per flow in the window, drops, from ns-2's traces."""
    t0, t1 = window
    nflow = len(tw.flows)
    home, after = {}, {}
    for i, f in enumerate(tw.flows, 1):   # the traced port each flow's data cross, and the hops after it
        p = twin._path(tw, f.src, f.dst)
        hops = [f"{p[k]}->{p[k + 1]}" for k in range(len(p) - 1)]
        home[i] = next(h for h in hops if h in ports)
        after[i] = [twin._link(tw, *h.split("->")) for h in hops[hops.index(home[i]) + 1:]]
    busy = {p: 0.0 for p in ports}
    data_drops, all_drops = [0] * nflow, {p: 0 for p in ports}
    arrivals = {i: [] for i in range(1, nflow + 1)}
    for port in ports:
        rate, _ = twin._link(tw, *port.split("->"))
        with open(files[port], encoding="utf-8") as fh:
            for line in fh:
                w = line.split()
                if len(w) < 12:
                    continue
                ev, t, size, fid, seq = w[0], float(w[1]), int(w[5]), int(w[7]), int(w[10])
                if ev == "-":
                    busy[port] += _busy(rate, t, size, t0, t1)
                elif ev == "d" and t0 <= t < t1:
                    all_drops[port] += 1
                    if w[4] == "tcp":
                        data_drops[fid - 1] += 1
                elif ev == "r" and w[4] == "tcp" and seq >= 1 and home[fid] == port:
                    arrivals[fid].append((t + sum(size * 8 / r + d for r, d in after[fid]), seq))
    delivered = []
    for i in range(1, nflow + 1):   # in-order packets delivered by t0 and by t1
        got, nxt, at = set(), 1, {}
        for t, seq in sorted(arrivals[i]):
            for edge in (t0, t1):
                if t > edge and edge not in at:
                    at[edge] = nxt - 1
            got.add(seq)
            while nxt in got:
                got.discard(nxt)
                nxt += 1
        for edge in (t0, t1):
            at.setdefault(edge, nxt - 1)
        delivered.append((at[t1] - at[t0]) * tw.mss)
    return _summary(delivered, {p: busy[p] / (t1 - t0) for p in ports}, data_drops, all_drops, window)


def run_ns2(tw: twin.Twin, ports, window, seed: int) -> dict:
    wd = tempfile.mkdtemp(prefix="arb-")
    try:
        files = {p: os.path.join(wd, p.replace("->", "_") + ".tr") for p in ports}
        with open(os.path.join(wd, "arb.tcl"), "w", encoding="utf-8") as f:
            f.write(twin.ns2_tcl(tw, "bottleneck.tr", seed=seed, traces={p: files[p] for p in ports if p != tw.bottleneck}))
        files[tw.bottleneck] = os.path.join(wd, "bottleneck.tr")
        p = subprocess.run(["ns", "arb.tcl"], cwd=wd, capture_output=True, text=True, timeout=600, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"ns failed ({p.returncode}): {p.stderr.strip()[-500:]}")
        return ns2_measure(tw, ports, files, p.stdout, window)
    finally:
        shutil.rmtree(wd, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# atmsim

def run_atmsim(scenario, sets, ports, window, seed) -> dict:
    t0, t1 = window
    s0 = atmsim.run(scenario, list(sets) + [f"duration={t0}s"], seed=seed).summary
    s1 = atmsim.run(scenario, list(sets) + [f"duration={t1}s"], seed=seed).summary
    f0, f1 = s0["flows"], s1["flows"]
    p0 = {p["name"]: p for p in s0["ports"]}
    p1 = {p["name"]: p for p in s1["ports"]}
    delivered = [b["bytes_delivered"] - a["bytes_delivered"] for a, b in zip(f0, f1)]
    util = {p: (p1[p]["busy_fraction"] * t1 - p0[p]["busy_fraction"] * t0) / (t1 - t0) for p in ports}
    return _summary(delivered, util, [b["segments_lost"] - a["segments_lost"] for a, b in zip(f0, f1)],
                    {p: p1[p]["units_dropped"] - p0[p]["units_dropped"] for p in ports}, window)


def _summary(delivered, util, data_drops, all_drops, window) -> dict:
    span = window[1] - window[0]
    return {"util": util, "kbps": [d * 8 / span / 1e3 for d in delivered], "jain": twin.jain(delivered),
            "delivered": delivered, "data_drops": data_drops, "drops": all_drops}


def fairness_partings(d23_ms: float, gateway: str = "tail", until: float = 20.0) -> dict:
    """Both simulators' packets at the fairness gateway (draw 0, the first `until` seconds), as
    phase.py's suite plot reads them, for finding where the two runs part (phase.partings)."""
    scenario, extra, _, _ = fairness_case(d23_ms, gateway)
    sets = list(transport(scenario, "tcp")) + list(extra)
    tw = dataclasses.replace(twin.load(scenario, sets), duration=until)
    rate, _ = twin._link(tw, *FAIR_PORT.split("->"))
    with tempfile.TemporaryDirectory() as wd:
        with open(os.path.join(wd, "arb.tcl"), "w", encoding="utf-8") as f:
            f.write(twin.ns2_tcl(tw, seed=1))
        subprocess.run(["ns", "arb.tcl"], cwd=wd, capture_output=True, text=True, timeout=600, check=True)
        ns = ns2_port_packets(os.path.join(wd, "bottleneck.tr"))
    run = atmsim.run(scenario, sets + [f"duration={until}s", f"trace.port={FAIR_PORT}"], seed=1, trace=True).traces
    return {"ns2": ns, "atmsim": atmsim_port_packets(run, tw.mss, tw.packet_bytes, tw.header_bytes, rate)}


def _behind(sends, t_lost, seq):
    """(packets the source sent after `seq`'s last sending before t_lost in the same round, until a
    gap of 1 s; that sending's time)."""
    i = max(k for k, (t, n) in enumerate(sends) if n == seq and t <= t_lost)
    n, last = 0, sends[i][0]
    for t, _ in sends[i + 1:]:
        if t - last > 1.0:
            break
        n, last = n + 1, t
    return n, sends[i][0]


def oneway_losses(syn_reset: bool = False, window=(100.0, 1000.0)) -> dict:
    """arb-oneway without start jitter: for every data packet lost in the window, how many packets
    of its connection followed it in the same round and how long after its sending it was
    retransmitted, in both simulators; and ns-2's utilisation. `syn_reset`: ns-2 puts ssthresh back
    to its window just after each SYN's timeout (atmsim's behaviour, D18)."""
    scenario, _, _, ports = EFFICIENCY["oneway"]
    sets = list(transport(scenario, "tcp"))
    tw = twin.load(scenario, sets)
    out = {"ns2": [], "atmsim": []}
    with tempfile.TemporaryDirectory() as wd:
        tcl = twin.ns2_tcl(tw, traces={"host-1->switch-1": "src.tr"})
        if syn_reset:   # the SYN of flow i leaves at its start and times out 1.2 s later (rtxcur_init_)
            tcl = tcl.replace("proc finish", "\n".join(
                f'$ns at {f.start_ps / 1e12 + tw.rto_init + 0.01!r} "$tcp({i}) set ssthresh_ {tw.window_packets}"'
                for i, f in enumerate(tw.flows, 1)) + "\nproc finish")
        with open(os.path.join(wd, "arb.tcl"), "w", encoding="utf-8") as f:
            f.write(tcl)
        p = subprocess.run(["ns", "arb.tcl"], cwd=wd, capture_output=True, text=True, timeout=600, check=True)
        files = {ports[0]: os.path.join(wd, "bottleneck.tr")}
        util = ns2_measure(tw, ports, files, p.stdout, window)["util"][ports[0]]
        sends = {}
        with open(os.path.join(wd, "src.tr"), encoding="utf-8") as fh:
            for line in fh:
                w = line.split()
                if w[0] == "+" and w[4] == "tcp":
                    sends.setdefault(int(w[7]), []).append((float(w[1]), int(w[10])))
        with open(files[ports[0]], encoding="utf-8") as fh:
            for line in fh:
                w = line.split()
                if w[0] == "d" and w[4] == "tcp" and window[0] <= float(w[1]) < window[1]:
                    fl, seq = int(w[7]), int(w[10])
                    behind, ts = _behind(sends[fl], float(w[1]), seq)
                    again = min(x for x, n in sends[fl] if n == seq and x > ts)
                    out["ns2"].append((behind, round(again - ts, 2)))
    ev = atmsim.run(scenario, sets, seed=1, trace=True).traces["events"]
    rows = [(float(t), k, f, (int(q) - 1) // tw.mss + 1) for t, k, f, q in zip(ev["t"], ev["kind"], ev["flow"], ev["seq"])]
    for fl in sorted({r[2] for r in rows}):
        sends = [(t, n) for t, k, f, n in rows if f == fl and k in ("send", "retransmit")]
        for t, k, f, n in rows:
            if f == fl and k == "loss" and window[0] <= t < window[1]:
                behind, ts = _behind(sends, t, n)
                again = min(x for x, m in sends if m == n and x > ts)
                out["atmsim"].append((behind, round(again - ts, 2)))
    out["ns2_util"] = util
    return out


# ------------------------------------------------------------------------------------------------
# Fig. 17's bias against the bursty connection (bursty.py: node 5 at d56 = 453 ms, drop tail, buffers
# below 14 packets), per 50-s mark in both simulators: node 5's share of the line and of the data drops.

def bursty_marks(job) -> list:
    """(buffer, draw): one ns-2 run traced at the gateway and atmsim's runs ending at each mark (the
    reproduction's overrides and marks, bursty.py), with the draw's start jitter in both."""
    from atmsim.reproduce.arb import bursty

    buffer, draw = job
    sc = "arb-bursty"
    sets = list(transport(sc, "tcp")) + [f"link.node-5-gateway.delay={round(bursty.D56['fig17'] * 1000)}us",
                                         "router.policy=tail", f"switch.buffer={buffer}packets"]
    sets += twin.jitter_sets(twin.load(sc, sets), draw)
    tw = twin.load(sc, sets)
    port = tw.bottleneck
    rows = []
    with tempfile.TemporaryDirectory(prefix="arb-bursty-") as wd:
        with open(os.path.join(wd, "arb.tcl"), "w", encoding="utf-8") as f:
            f.write(twin.ns2_tcl(tw, "bottleneck.tr", seed=draw))
        p = subprocess.run(["ns", "arb.tcl"], cwd=wd, capture_output=True, text=True, timeout=600, check=True)
        for t0, t1 in zip(bursty.ENDS[:-1], bursty.ENDS[1:]):
            row = {"buffer": buffer, "draw": draw, "period_end_s": t1}
            for sim, m in (("ns2", ns2_measure(tw, (port,), {port: os.path.join(wd, "bottleneck.tr")}, p.stdout, (t0, t1))),
                           ("atmsim", run_atmsim(sc, sets, (port,), (t0, t1), draw))):
                drops = m["data_drops"]
                row[f"{sim}_share5"] = m["delivered"][4] / bursty.PAYLOAD_B * bursty.DATA_B * 8 / (bursty.LINE_BPS * (t1 - t0))
                row[f"{sim}_drop_share5"] = drops[4] / sum(drops) if sum(drops) else None
            rows.append(row)
    return rows


def bursty(draws, jobs: int, reference=None, argv=()) -> None:
    from atmsim.reproduce.arb import bursty as b

    todo = [(buf, d) for buf in range(5, b.SMALL_B) for d in draws]
    with ProcessPoolExecutor(jobs) as ex:
        rows = [r for rs in ex.map(bursty_marks, todo) for r in rs]
    lo, hi = b.TAIL_BAND
    for sim in ("ns2", "atmsim"):
        inb = statistics.mean(lo <= r[f"{sim}_share5"] <= hi for r in rows)
        below = sum(r[f"{sim}_share5"] < lo for r in rows)
        mx = max(r[f"{sim}_drop_share5"] or 0.0 for r in rows)
        print(f"{sim}: {len(rows)} marks, node 5's share in [{lo:.1%}, {hi:.1%}] in {inb:.2f} of them, below in {below}; "
              f"largest drop share {mx:.2f}")
    if reference:
        with open(reference, "w", encoding="utf-8") as f:
            head = {"ns": twin.ns2_version(), "draws": ",".join(map(str, draws)),
                    "command": "python validation/ns2/arb.py " + " ".join(argv)}
            f.write(json.dumps(head)[:-1] + ', "marks": [\n')
            f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n]}\n")


# ------------------------------------------------------------------------------------------------

def run_case(case: tuple, draw: int, ns2: bool = True) -> dict:
    scenario, extra, window, ports = case
    sets = list(transport(scenario, "tcp")) + list(extra)
    tw0 = twin.load(scenario, sets)
    sets += twin.jitter_sets(tw0, draw)
    row = {"scenario": scenario, "extra": list(extra), "draw": draw,
           "atmsim": run_atmsim(scenario, sets, ports, window, draw)}
    if ns2:
        row["ns2"] = run_ns2(twin.load(scenario, sets), ports, window, draw)
    return row


def _job(args):
    key, case, draw, ns2 = args
    r = run_case(case, draw, ns2)
    r["key"] = key
    return r


def cases(what: str, d23s, gateways) -> dict:
    out = {}
    if what in ("efficiency", "all"):
        out.update(EFFICIENCY)
    if what in ("fairness", "all"):
        for gw in gateways:
            for d in d23s:
                out[f"fair {gw} {d:g}"] = fairness_case(d, gw)
    return out


def points(rows) -> list:
    """Per case: medians over the draws (and min-max of Jain) of every measure, both simulators."""
    by = {}
    for r in rows:
        by.setdefault(r["key"], []).append(r)
    pts = []
    for key, rs in by.items():
        p = {"key": key, "scenario": rs[0]["scenario"], "extra": rs[0]["extra"], "n": len(rs)}
        for sim in ("atmsim", "ns2"):
            if sim not in rs[0]:
                continue
            nfl = len(rs[0][sim]["kbps"])
            p[f"{sim}_util"] = {port: statistics.median(r[sim]["util"][port] for r in rs) for port in rs[0][sim]["util"]}
            p[f"{sim}_kbps"] = [statistics.median(r[sim]["kbps"][i] for r in rs) for i in range(nfl)]
            jn = [r[sim]["jain"] for r in rs]
            p[f"{sim}_jain"] = [statistics.median(jn), min(jn), max(jn)]
            p[f"{sim}_data_drops"] = [statistics.median(r[sim]["data_drops"][i] for r in rs) for i in range(nfl)]
            p[f"{sim}_drops"] = statistics.median(sum(r[sim]["drops"].values()) for r in rs)
            if rs[0]["scenario"] == "arb-fairness":   # node 1's share of the line (fairness.py's measure)
                sh = [share(r[sim]["kbps"][0]) for r in rs]
                p[f"{sim}_share1"] = [statistics.median(sh), min(sh), max(sh)]
        pts.append(p)
    return pts


def share(kbps: float) -> float:
    """Delivered payload rate as whole 1000-byte packets over the 800 kb/s line."""
    return kbps * 1e3 * 1000 / 960 / 800e3


def _d23(p) -> float:
    return float(p["extra"][0].split("=")[1][:-2]) / 1000


def efficiency_table(pts) -> str:
    lines = ["| run | utilisation ns-2 / atmsim | throughput per source, kb/s: ns-2 / atmsim | Jain ns-2 / atmsim | "
             "data drops per source: ns-2 / atmsim | all drops at the bottleneck ns-2 / atmsim |",
             "| --- | --- | --- | --- | --- | --- |"]
    for p in pts:
        if p["scenario"] == "arb-fairness":
            continue
        ut = ", ".join(f"{p['ns2_util'][k]:.3f} / {p['atmsim_util'][k]:.3f}" for k in p["ns2_util"])
        kb = "; ".join(f"{a:.1f} / {b:.1f}" for a, b in zip(p["ns2_kbps"], p["atmsim_kbps"]))
        dd = "; ".join(f"{a:g} / {b:g}" for a, b in zip(p["ns2_data_drops"], p["atmsim_data_drops"]))
        lines.append(f"| {p['key']} | {ut} | {kb} | {p['ns2_jain'][0]:.3f} / {p['atmsim_jain'][0]:.3f} | {dd} | "
                     f"{p['ns2_drops']:g} / {p['atmsim_drops']:g} |")
    return "\n".join(lines)


def fairness_table(pts) -> str:
    lines = ["| gateway | d23 ms | RTT2/RTT1 | node 1's share: ns-2 (min-max) | atmsim (min-max) | "
             "node 1's data drops: ns-2 / atmsim | node 2's: ns-2 / atmsim |", "| --- | ---: | ---: | --- | --- | --- | --- |"]
    for p in sorted((p for p in pts if p["scenario"] == "arb-fairness"), key=lambda p: (p["extra"][1], _d23(p))):
        d = _d23(p)
        n, a = p["ns2_share1"], p["atmsim_share1"]
        lines.append(f"| {p['extra'][1].split('=')[1]} | {d:g} | {ratio_of(d):.3f} | {n[0]:.3f} ({n[1]:.2f}-{n[2]:.2f}) | "
                     f"{a[0]:.3f} ({a[1]:.2f}-{a[2]:.2f}) | {p['ns2_data_drops'][0]:g} / {p['atmsim_data_drops'][0]:g} | "
                     f"{p['ns2_data_drops'][1]:g} / {p['atmsim_data_drops'][1]:g} |")
    return "\n".join(lines)


def plot_fairness(pts, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fair = [p for p in pts if p["scenario"] == "arb-fairness"]
    gws = sorted({p["extra"][1].split("=")[1] for p in fair}, key=lambda g: g != "tail")
    fig, axes = plt.subplots(1, len(gws), figsize=(5.5 * len(gws), 3.6), sharey=True, squeeze=False)
    for ax, gw in zip(axes[0], gws):
        sel = sorted((p for p in fair if p["extra"][1].endswith("=" + gw)), key=_d23)
        x = [ratio_of(_d23(p)) for p in sel]
        for sim, mk, lab in (("ns2", "o", "ns-2"), ("atmsim", "x", "atmsim")):
            ax.plot(x, [100 * p[f"{sim}_share1"][0] for p in sel], mk + "-", ms=3.5, lw=0.7, label=lab)
            ax.fill_between(x, [100 * p[f"{sim}_share1"][1] for p in sel], [100 * p[f"{sim}_share1"][2] for p in sel], alpha=0.15)
        ax.set_title(f"TCP-SS, {gw}, 15-packet gateway")
        ax.set_xlabel("RTT ratio (node 2 / node 1)")
        ax.set_ylim(0, 100)
    save_panels(fig, axes, "node 1's share of 800 kb/s, 20-120 s (%)", path)


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("efficiency", "fairness", "all", "parting", "oneway-losses", "bursty"),
                    help="parting: where the two simulators' packets at the fairness gateway first differ (--d23 "
                         "values); oneway-losses: arb-oneway's losses, what follows each and when it is resent")
    ap.add_argument("--d23", default="5:27.5:0.5", help="fairness: node 2's access delays, ms (from:to:step)")
    ap.add_argument("--gateways", default="tail,random-drop")
    ap.add_argument("--draws", type=argparse_seeds(), default=[1, 2, 3],
                    help="comma-separated (default 1,2,3): each both simulators' seed")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="an override for every case, in both")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--write-reference", metavar="FILE", help="store the points (both simulators) as JSON")
    args = ap.parse_args(argv)
    if shutil.which("ns") is None:
        sys.exit("ns (ns-2) is not on PATH: apt-get install ns2")
    if args.what == "bursty":
        bursty(args.draws, args.jobs, args.write_reference, argv if argv is not None else sys.argv[1:])
        return
    if args.what == "oneway-losses":
        from collections import Counter
        r = oneway_losses()
        print(f"ns-2 utilisation {r['ns2_util']:.3f}; {oneway_losses(True)['ns2_util']:.3f} with ssthresh reset after "
              "the SYN timeouts (D18)")
        for sim in ("ns2", "atmsim"):
            c = Counter(r[sim])
            print(f"{sim}: {len(r[sim])} losses; (packets behind in the round, s to the retransmission): "
                  + ", ".join(f"{k}: {v}" for k, v in c.most_common()))
        return
    if args.what == "parting":
        for gw in args.gateways.split(","):
            for d in frange(args.d23):
                print_partings(fairness_partings(d, gw), f"{gw} d23 = {d:g} ms")
        return
    cs = {k: (sc, ex + tuple(args.set), w, p) for k, (sc, ex, w, p) in cases(args.what, frange(args.d23), args.gateways.split(",")).items()}
    todo = [(k, c, d, True) for k, c in cs.items() for d in args.draws]
    with ProcessPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(_job, todo))
    pts = points(rows)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"arb-{args.what}.json"), "w", encoding="utf-8") as f:
        json.dump({"ns": twin.ns2_version(), "rows": rows}, f)
    if args.what != "fairness":
        print(efficiency_table(pts))
    if args.what != "efficiency":
        print(fairness_table(pts))
        plot_fairness(pts, os.path.join(args.out, "arb-fairness.png"))
    if args.write_reference:
        with open(args.write_reference, "w", encoding="utf-8") as f:
            head = {"ns": twin.ns2_version(), "draws": args.draws, "command": "python validation/ns2/arb.py " + " ".join(argv or sys.argv[1:])}
            f.write(json.dumps(head)[:-1] + ', "points": [\n')
            f.write(",\n".join(json.dumps(p, separators=(",", ":")) for p in pts) + "\n]}\n")


if __name__ == "__main__":
    main()
