#!/usr/bin/env python3
"""Floyd & Jacobson's phase tests: ns-2 against atmsim, share by share.

    python validation/ns2/phase.py                      # the suite's tests phase, phase1, phase2
    python validation/ns2/phase.py sweep [--d2 1:16:0.25] [--jitter 0,0.01] [--seeds 1,2,3]
    python validation/ns2/phase.py all --write-reference validation/ns2/phase_reference.json

ns-2's tcl/test/test-suite-simple.tcl has three tests of the phase effects of Floyd & Jacobson
("On traffic phase effects in packet-switched gateways", Internetworking: Research and Experience
3(3), 1992): on its topology net0 (s1 and s2 -> r1 -> k1) two Tahoe connections share a drop-tail
bottleneck, and which one gets the line depends on the difference of their path delays modulo the
bottleneck's packet time (10 ms), not on the protocol. `phase` (s2's access link 3 ms): "connection 0
wins"; `phase1` (9.5 ms): "connection 1 wins"; `phase2` (3 ms, a random `overhead_` of 10 and 15 ms
before each send): "neither connection loses". This script writes the tests' Tcl from the suite's
parameters (not copied), runs them in the installed ns-2 (`ns`) and the same network in atmsim
(validation/ns2/phase.toml), and compares each connection's share of the bottleneck; `sweep` varies
s2's access delay over a range, with and without random send times, to show the whole curve in both.

The suite's parameters (test-suite-simple.tcl, ns-2.35; defaults read back from the installed `ns`):

* net0: s1 -- r1 and s2 -- r1 8 Mb/s 5 ms, r1 -- k1 800 kb/s 100 ms, drop tail; the tests set
  s2 -- r1 to 3 ms (9.5 ms in phase1) and queue-limit r1->k1 16, k1->r1 100; other queues 50;
* connection 0: Agent/TCP (Tahoe) s1 -> k1, fid 0, FTP from 5 s; connection 1: s2 -> k1, fid 1,
  FTP from 1 s; window_ 32; TCPSink (an ACK per packet); the trace (r1's queues) ends at 25 s;
* the suite's top: useHeaders_ false (packets are packetSize_ 1000 bytes), tcpTick_ 0.1, minrto_ 1,
  rtxcur_init_ 6, updated_rttvar_ false, rfc2988_ false, singledup_ 0;
* ns-2.35 defaults that matter: windowInit_ 2, syn_ true, delay_growth_ true, maxrto_ 60, bugFix_ true;
* overhead_ (tcp.cc send_much): when the window opens and overhead_ > 0, the agent arms a timer of
  U[0, overhead_) and, when it fires, sends everything the window then allows; phase2 gives
  connection 0 10 ms and connection 1 15 ms.

Measure: a connection's share is the data packets it delivered in order to k1 between T0 = 5 s and
T1 = 25 s (both connections running, the window the suite plots) over the bottleneck's 100
packets/s; ns-2's from its trace of r1->k1 (`r` events), atmsim's from two runs that end at T0 and T1
(runs are deterministic, so the first is the second's prefix). docs/validation.md, "Floyd &
Jacobson's phase tests", has the mapping, the results and the named differences.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import atmsim
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seeds

SCENARIO = os.path.join(HERE, "phase.toml")
T0, T1 = 5.0, 25.0          # both connections run; the suite's trace ends at 25 s
PKT_PER_S = 800e3 / 8000    # the bottleneck carries 100 packets of 1000 bytes a second
PAYLOAD = 960               # atmsim's MSS: 1000-byte packets with 40 header bytes
D2_SET = "link.s2-r1.delay"
# test: (s2's access delay in ms, overhead_ of connection 0 and of connection 1 in s, the suite's guide)
TESTS = {
    "phase": (3.0, 0.0, 0.0, "Phase effects: connection 0 wins."),
    "phase1": (9.5, 0.0, 0.0, "Phase effects: connection 1 wins."),
    "phase2": (3.0, 0.01, 0.015, "Phase effects: TCP/overhead_ is used, and neither connection loses."),
}


def ns2_tcl(d2_ms: float, overhead0: float = 0.0, overhead1: float = 0.0, seed: int = 0,
            duration: float = T1, trace: str = "out.tr") -> str:
    """The suite's test on net0 with s2's access delay d2_ms and the two overhead_ values; `seed`
    seeds ns-2's defaultRNG (0: ns-2's fixed default stream), which only overhead_ draws from."""
    out = [
        "# Written by validation/ns2/phase.py: ns-2's test-suite-simple.tcl phase tests (net0).",
        "remove-all-packet-headers",
        "add-packet-header Flags IP TCP",
        "Agent/TCP set rtxcur_init_ 6.0",
        "Agent/TCP set updated_rttvar_ false",
        "Agent/TCP set minrto_ 1",
        "Agent/TCP set useHeaders_ false",
        "Agent/TCP set singledup_ 0",
        "Agent/TCP set tcpTick_ 0.1",
        "Agent/TCP set rfc2988_ false",
        "set ns [new Simulator]",
    ]
    if seed:
        out += ["global defaultRNG", f"$defaultRNG seed {seed}"]
    out += [
        "foreach n {s1 s2 r1 k1} { set node($n) [$ns node] }",
        "$ns duplex-link $node(s1) $node(r1) 8Mb 5ms DropTail",
        "$ns duplex-link $node(s2) $node(r1) 8Mb 5ms DropTail",
        "$ns duplex-link $node(r1) $node(k1) 800Kb 100ms DropTail",
        "$ns queue-limit $node(r1) $node(k1) 6",
        "$ns queue-limit $node(k1) $node(r1) 6",
        # the test's own settings
        f"$ns delay $node(s2) $node(r1) {d2_ms}ms",
        f"$ns delay $node(r1) $node(s2) {d2_ms}ms",
        "$ns queue-limit $node(r1) $node(k1) 16",
        "$ns queue-limit $node(k1) $node(r1) 100",
        "set tcp1 [$ns create-connection TCP $node(s1) TCPSink $node(k1) 0]",
        "$tcp1 set window_ 32",
        "set tcp2 [$ns create-connection TCP $node(s2) TCPSink $node(k1) 1]",
        "$tcp2 set window_ 32",
    ]
    if overhead0:
        out.append(f"$tcp1 set overhead_ {overhead0!r}")
    if overhead1:
        out.append(f"$tcp2 set overhead_ {overhead1!r}")
    out += [
        "set ftp1 [$tcp1 attach-app FTP]",
        "set ftp2 [$tcp2 attach-app FTP]",
        "$ns at 5.0 \"$ftp1 start\"",
        "$ns at 1.0 \"$ftp2 start\"",
        f"set tf [open {trace} w]",
        "$ns trace-queue $node(r1) $node(k1) $tf",
        "proc finish {} {",
        "    global tf tcp1 tcp2",
        "    flush $tf",
        "    close $tf",
        "    puts \"agent 0 [$tcp1 set nrexmit_] [$tcp1 set nrexmitpack_]\"",
        "    puts \"agent 1 [$tcp2 set nrexmit_] [$tcp2 set nrexmitpack_]\"",
        "    exit 0",
        "}",
        f"$ns at {duration!r} \"finish\"",
        "$ns run",
    ]
    return "\n".join(out) + "\n"


def parse_ns2(trace: str, stdout: str, t0: float = T0, t1: float = T1) -> dict:
    """Per connection: data packets delivered in order at k1 in [t0, t1] (from the `r` events of
    r1->k1; packet 0 is the SYN), drops at r1 in [t0, t1], timeouts over the run."""
    nxt, got = [1, 1], [set(), set()]
    at0, drops = [0, 0], [0, 0]
    done0 = False
    with open(trace, encoding="utf-8") as fh:
        for line in fh:
            w = line.split()
            if len(w) < 12 or w[4] != "tcp":
                continue
            t, fid, seq = float(w[1]), int(w[7]), int(w[10])
            if t > t1:
                break
            if not done0 and t > t0:
                at0, done0 = [n - 1 for n in nxt], True
            if w[0] == "r" and seq >= 1:
                got[fid].add(seq)
                while nxt[fid] in got[fid]:
                    got[fid].discard(nxt[fid])
                    nxt[fid] += 1
            elif w[0] == "d" and t >= t0:
                drops[fid] += 1
    if not done0:
        at0 = [n - 1 for n in nxt]
    timeouts = [0, 0]
    for line in stdout.splitlines():
        w = line.split()
        if w[:1] == ["agent"]:
            timeouts[int(w[1])] = int(w[2])
    return _measure([nxt[i] - 1 - at0[i] for i in (0, 1)], drops, timeouts, t1 - t0)


def _measure(delivered, drops, timeouts, span) -> dict:
    share = [d / (PKT_PER_S * span) for d in delivered]
    return {"share0": share[0], "share1": share[1], "delivered": delivered, "drops": drops, "timeouts": timeouts}


def run_ns2(d2_ms, overhead0=0.0, overhead1=0.0, seed=0, keep: str | None = None) -> dict:
    wd = keep or tempfile.mkdtemp(prefix="phase-")
    os.makedirs(wd, exist_ok=True)
    try:
        with open(os.path.join(wd, "phase.tcl"), "w", encoding="utf-8") as f:
            f.write(ns2_tcl(d2_ms, overhead0, overhead1, seed))
        p = subprocess.run(["ns", "phase.tcl"], cwd=wd, capture_output=True, text=True, timeout=300, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"ns failed ({p.returncode}): {p.stderr.strip()[-500:]}")
        return parse_ns2(os.path.join(wd, "out.tr"), p.stdout)
    finally:
        if keep is None:
            shutil.rmtree(wd, ignore_errors=True)


def atmsim_sets(d2_ms: float, jitter_s: float = 0.0) -> list:
    return [f"{D2_SET}={round(d2_ms * 1e9)}ps", f"host.send_jitter={round(jitter_s * 1e12)}ps"]


def run_atmsim(d2_ms, jitter_s=0.0, seed=1, scenario: str = SCENARIO) -> dict:
    sets = atmsim_sets(d2_ms, jitter_s)
    # The later connection starts at T0 itself: a run must hold its start (a start at or past the
    # end is refused), so the first run ends one picosecond after T0, before anything it sends lands.
    s0 = atmsim.run(scenario, sets + [f"duration={round(T0 * 1e12) + 1}ps"], seed=seed).summary
    s1 = atmsim.run(scenario, sets + [f"duration={T1}s"], seed=seed).summary
    f0, f1 = s0["flows"], s1["flows"]
    delivered = [(f1[i]["bytes_delivered"] - f0[i]["bytes_delivered"]) / PAYLOAD for i in (0, 1)]
    drops = [f1[i]["segments_lost"] - f0[i]["segments_lost"] for i in (0, 1)]
    return _measure(delivered, drops, [f["timeouts"] for f in f1], T1 - T0)


# ------------------------------------------------------------------------------------------------
# cases: (d2 ms, ns-2 overhead_ of each connection, atmsim send_jitter, seed)

def _job(case):
    d2, oh0, oh1, jit, seed, ns2 = case
    row = {"d2_ms": d2, "overhead": [oh0, oh1], "jitter_s": jit, "seed": seed}
    if ns2:
        row["ns2"] = run_ns2(d2, oh0, oh1, seed if (oh0 or oh1) else 0)
    row["atmsim"] = run_atmsim(d2, jit, seed)
    return row


def run_cases(cases, jobs=2) -> list:
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            return list(ex.map(_job, cases))
    return [_job(c) for c in cases]


def suite_cases(seeds=(1, 2, 3, 4, 5), ns2=True) -> list:
    """The three tests; phase2 in ns-2 as the suite has it (10 and 15 ms) and with 10 ms for both
    (atmsim's send_jitter is one value for every host), over `seeds`."""
    out = []
    for name, (d2, oh0, oh1, _) in TESTS.items():
        if oh0 or oh1:
            for s in seeds:
                out.append((d2, oh0, oh1, oh0, s, ns2))
                out.append((d2, oh0, oh0, oh0, s, ns2))
        else:
            out.append((d2, 0.0, 0.0, 0.0, 1, ns2))
    return out


def sweep_cases(d2s, jitters, seeds, ns2=True) -> list:
    out = []
    for j in jitters:
        for d2 in d2s:
            for s in (seeds if j else [1]):
                out.append((d2, j, j, j, s, ns2))
    return out


def median_rows(rows) -> list:
    """Per (d2, overhead, jitter): the median over seeds of each share, and the range."""
    by = {}
    for r in rows:
        by.setdefault((r["d2_ms"], tuple(r["overhead"]), r["jitter_s"]), []).append(r)
    out = []
    for (d2, oh, j), rs in sorted(by.items(), key=lambda x: (x[0][1], x[0][2], x[0][0])):
        p = {"d2_ms": d2, "overhead": list(oh), "jitter_s": j, "n": len(rs)}
        for sim in ("ns2", "atmsim"):
            if sim in rs[0]:
                for m in ("share0", "share1"):
                    v = [r[sim][m] for r in rs]
                    p[f"{sim}_{m}"] = [statistics.median(v), min(v), max(v)]
                p[f"{sim}_drops"] = statistics.median(sum(r[sim]["drops"]) for r in rs)
        out.append(p)
    return out


def table(pts) -> str:
    lines = ["| s2 delay | ns-2 overhead_ | atmsim send_jitter | runs | ns-2: share 0 / share 1 | atmsim: share 0 / share 1 | drops ns-2 / atmsim |",
             "| ---: | --- | ---: | ---: | --- | --- | --- |"]
    for p in pts:
        ns = f"{p['ns2_share0'][0]:.3f} / {p['ns2_share1'][0]:.3f}" if "ns2_share0" in p else "-"
        if "ns2_share0" in p and p["n"] > 1:
            ns += f" (0: {p['ns2_share0'][1]:.2f}-{p['ns2_share0'][2]:.2f})"
        at = f"{p['atmsim_share0'][0]:.3f} / {p['atmsim_share1'][0]:.3f}"
        if p["n"] > 1:
            at += f" (0: {p['atmsim_share0'][1]:.2f}-{p['atmsim_share0'][2]:.2f})"
        oh = " / ".join(f"{x * 1000:g} ms" for x in p["overhead"]) if any(p["overhead"]) else "0"
        lines.append(f"| {p['d2_ms']:g} ms | {oh} | {p['jitter_s'] * 1000:g} ms | {p['n']} | {ns} | {at} | "
                     f"{p.get('ns2_drops', '-')} / {p['atmsim_drops']} |")
    return "\n".join(lines)


def plot(pts, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    jits = sorted({p["jitter_s"] for p in pts})
    fig, axes = plt.subplots(1, len(jits), figsize=(5 * len(jits), 3.6), sharey=True, squeeze=False)
    for ax, j in zip(axes[0], jits):
        sel = [p for p in pts if p["jitter_s"] == j and p["overhead"][0] == p["overhead"][1]]
        x = [p["d2_ms"] for p in sel]
        for sim, mk, lab in (("ns2", "o", "ns-2"), ("atmsim", "x", "atmsim")):
            ax.plot(x, [p[f"{sim}_share0"][0] for p in sel], mk + "-", ms=4, lw=0.7, label=f"{lab}: connection 0 (s1)")
            if len(sel) and sel[0]["n"] > 1:
                ax.fill_between(x, [p[f"{sim}_share0"][1] for p in sel], [p[f"{sim}_share0"][2] for p in sel], alpha=0.15)
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.set_xlabel("s2's access delay (ms); s1's is 5 ms")
        ax.set_title("no random send time" if not j else f"random send time U[0, {j * 1000:g} ms)")
        ax.set_ylim(0, 1)
    save_panels(fig, axes, "connection 0's share of 800 kb/s, 5-25 s", path)


def save_panels(fig, axes, ylabel: str, path: str):
    """Label and legend on the first of a row of panels, then write the figure."""
    import matplotlib.pyplot as plt

    axes[0][0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def traces(test: str, workdir: str) -> dict:
    """What the suite plots, for one test without random send times: every data packet leaving r1
    for k1 and every drop there, as (time, connection, packet number), in both simulators."""
    d2 = TESTS[test][0]
    run_ns2(d2, keep=workdir)
    run = atmsim.run(SCENARIO, atmsim_sets(d2) + ["trace.port=r1->k1"], trace=True).traces
    return {"ns2": ns2_port_packets(os.path.join(workdir, "out.tr")),
            "atmsim": atmsim_port_packets(run, PAYLOAD, 1000, 40, 800e3)}


def ns2_port_packets(trace: str, t1: float = float("inf")) -> dict:
    """TCP packets of an ns-2 queue trace: `-` (start of transmission) and `d` as (t, fid, packet)."""
    out = {"depart": [], "drop": []}
    with open(trace, encoding="utf-8") as fh:
        for line in fh:
            w = line.split()
            if len(w) >= 12 and w[4] == "tcp" and w[0] in "-d" and float(w[1]) <= t1:
                out["depart" if w[0] == "-" else "drop"].append((float(w[1]), int(w[7]), int(w[10])))
    return out


def atmsim_port_packets(run: dict, payload: int, data_bytes: int, syn_bytes: int, rate_bps: float) -> dict:
    """The same from an atmsim run's traces (a port log and the events). The port log times a
    departure at the end of its transmission, so each is moved back by one transmission (ns-2's `-`
    is the start); it numbers a flow's frames in the order they were sent (the SYN 0), so frame k is
    the flow's k-th send or retransmission, whose byte gives ns-2's packet number. A flow named
    "c0" or "f1" is connection 0 or 1, ns-2's fid."""
    ev, tr = run["events"], run["port"]
    number = {}   # frame index -> packet number, per flow
    for f, k, seq in zip(ev["flow"], ev["kind"], ev["seq"]):
        if k in ("send", "retransmit"):
            number.setdefault(f, [0]).append((int(seq) - 1) // payload + 1)
    out = {"depart": [], "drop": []}
    for t, f, d, n, c in zip(tr["t"], tr["flow"], tr["direction"], tr["frame"], tr["change"]):
        if d == "data" and c in ("depart", "drop"):
            pkt = number[f][int(n)]
            t = float(t) - (data_bytes if pkt else syn_bytes) * 8 / rate_bps * (c == "depart")
            out[c].append((t, int(f[1:]), pkt))
    return out


def partings(tr: dict) -> list:
    """Per connection: how many departures are the same packet at the same instant (1 us) in both,
    and the first pair that is not: (connection, count, ns-2's (t, packet), atmsim's)."""
    out = []
    for c in sorted({x[1] for x in tr["ns2"]["depart"]}):
        a = [(t, n) for t, cc, n in tr["ns2"]["depart"] if cc == c]
        b = [(t, n) for t, cc, n in tr["atmsim"]["depart"] if cc == c]
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x[1] != y[1] or abs(x[0] - y[0]) > 1e-6), min(len(a), len(b)))
        out.append((c, i, a[i] if i < len(a) else None, b[i] if i < len(b) else None))
    return out


def print_partings(tr: dict, label: str):
    for c, i, a, b in partings(tr):
        fa = f"{a[0]:.5f} s packet {a[1]}" if a else "end"
        fb = f"{b[0]:.5f} s packet {b[1]}" if b else "end"
        print(f"{label}: connection {c}: {i} identical departures; then ns-2 {fa}, atmsim {fb}")


def plot_suite(tr: dict, path: str, t0: float = 5.0, t1: float = 9.0):
    """The suite's plot (test-suite-simple.tcl `finish`): connection + (packet number mod 90) / 100
    against time at r1 -> k1, departures and drops; ns-2 and atmsim overlaid, one panel per test."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tr), figsize=(6 * len(tr), 4), sharey=True, squeeze=False)
    for ax, (test, t) in zip(axes[0], tr.items()):
        for sim, mk, col in (("ns2", "o", "C0"), ("atmsim", "x", "C1")):
            for kind, size in (("depart", 3), ("drop", 40)):
                pts = [(x, c + (n % 90) / 100) for x, c, n in t[sim][kind] if t0 <= x <= t1]
                if not pts:
                    continue
                style = {"marker": mk, "color": col} if kind == "depart" else {"marker": "s", "facecolors": "none", "edgecolors": col}
                ax.scatter(*zip(*pts), s=size, lw=0.6, label=f"{'ns-2' if sim == 'ns2' else sim}: {'packets' if kind == 'depart' else 'drops'}",
                           **style)
        ax.set_title(f"{test}: {TESTS[test][3]}", fontsize=9)
        ax.set_xlabel("time (s) at r1 -> k1")
    save_panels(fig, axes, "connection + (packet number mod 90) / 100", path)


def ns2_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True, check=False).stdout
    return "ns-2 " + (out or "unknown")


def frange(spec: str) -> list:
    """'from:to:step' as the list of values, both ends included."""
    a, b, step = (float(x) for x in spec.split(":"))
    n = int(round((b - a) / step))
    return [round(a + i * step, 6) for i in range(n + 1)]


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", nargs="?", default="suite", choices=("suite", "sweep", "all"))
    ap.add_argument("--d2", default="1:16:0.25", help="sweep: s2's access delays, ms (from:to:step)")
    ap.add_argument("--jitter", default="0,0.01", help="sweep: random send time bounds, s (both simulators)")
    ap.add_argument("--seeds", type=argparse_seeds(), default=[1, 2, 3, 4, 5], help="comma-separated (default 1,2,3,4,5)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-ns2", action="store_true", help="atmsim only")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--write-reference", metavar="FILE", help="store ns-2's results (and atmsim's) as JSON")
    args = ap.parse_args(argv)
    ns2 = not args.no_ns2
    if ns2 and shutil.which("ns") is None:
        sys.exit("ns (ns-2) is not on PATH: apt-get install ns2 (or --no-ns2)")
    seeds = args.seeds
    cases = []
    if args.what in ("suite", "all"):
        cases += suite_cases(seeds, ns2)
    if args.what in ("sweep", "all"):
        cases += sweep_cases(frange(args.d2), [float(j) for j in args.jitter.split(",")], seeds, ns2)
    rows = run_cases(list(dict.fromkeys(cases)), args.jobs)   # "all": the suite's cases are in the sweep too
    pts = median_rows(rows)
    print(table(pts))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"phase-{args.what}.json"), "w", encoding="utf-8") as f:
        json.dump({"ns": ns2_version() if ns2 else None, "rows": rows}, f)
    if args.what != "sweep" and ns2:
        with tempfile.TemporaryDirectory() as wd:
            tr = {t: traces(t, os.path.join(wd, t)) for t in ("phase", "phase1")}
        for t in tr:
            print_partings(tr[t], t)
        plot_suite(tr, os.path.join(args.out, "phase-suite.png"))
    if args.what != "suite" and ns2:
        plot(pts, os.path.join(args.out, "phase-sweep.png"))
    if args.write_reference:
        with open(args.write_reference, "w", encoding="utf-8") as f:
            f.write(json.dumps({"ns": ns2_version(), "what": args.what, "window_s": [T0, T1],
                                "command": "python validation/ns2/phase.py " + " ".join(argv or sys.argv[1:])})[:-1] + ', "points": [\n')
            f.write(",\n".join(json.dumps(p, separators=(",", ":")) for p in pts) + "\n]}\n")


if __name__ == "__main__":
    main()
