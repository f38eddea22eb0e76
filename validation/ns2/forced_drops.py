#!/usr/bin/env python3
"""The Fall & Floyd forced-drop suite: ns-2 against atmsim, packet by packet.

    python validation/ns2/forced_drops.py [--variants tahoe,reno,newreno,sack]
        [--drops 1,2,3,4] [--out validation/ns2/out] [--no-plots] [--json]

ns-2's `tcl/test/test-suite-tcpVariants.tcl` (Fall & Floyd, "Simulation-based
comparisons of Tahoe, Reno and SACK TCP", CCR 26(3), 1996) runs one TCP over
its topology `net4` and drops chosen packets of the first windows by number
at the bottleneck. This script rebuilds those tests (the Tcl is written here,
from the suite's parameters, not copied), runs them in the ns-2 installed on
the machine (`ns`, Debian's ns2 2.35), runs the same scenario in atmsim
(`python -m atmsim run FILE --out DIR`), and compares the two sequence-number
versus time traces of the packets the source sends. docs/validation.md has
every mapping choice and the results.

The suite's parameters (test-suite-tcpVariants.tcl, ns-2.35; defaults from
ns-2.35's ns-default.tcl, read back from the installed `ns`):

* net4: s1 -- r1 8 Mb/s 0 ms, r1 -- k1 800 kb/s 100 ms, drop tail, queue
  limit 8 on r1->k1 (and k1->r1); s2 (idle) also hangs off r1.
* one connection s1 -> k1, fid 1; Agent/TCP (Tahoe), TCP/Reno, TCP/Newreno
  with TCPSink, TCP/Sack1 with TCPSink/Sack1; window_ 28; FTP from t = 1 s
  to 6 s.
* drops: an ErrorModel/List on r1->k1 bound to fid 1 drops the packets
  numbered {14}, {14 28}, {14 26 28}, {14 24 26 28} (counted from 0 over
  every packet of the flow that reaches the link's error module).
* overrides at the top of the suite: precisionReduce_ false, rtxcur_init_ 6,
  updated_rttvar_ false, minrto_ 1, Newreno newreno_changes1_ 0 and
  partial_window_deflation_ 0, singledup_ 0 (no limited transmit).
* ns-2.35 defaults that matter: packetSize_ 1000 (+ 40 bytes of headers,
  useHeaders_), syn_ true (packet 0 is a 40-byte SYN), delay_growth_ true and
  windowInit_ 2 (2 data packets after the SYN's ACK), tcpTick_ 0.01,
  maxrto_ 60, bugFix_ true, ssthresh_ 0 (reset to window_), TCPSink ACKs
  every packet (40 bytes; Sack1 sinks add 8 bytes per block, up to 3).
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from atmsim.one_line_args import OneLineParser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Packets dropped by number at r1->k1 (packet 0 is the SYN, so packet n >= 1 is data packet n).
DROPS = {1: [14], 2: [14, 28], 3: [14, 26, 28], 4: [14, 24, 26, 28]}


@dataclass(frozen=True)
class Profile:
    """How ns-2 opens the connection. `suite`: ns-2.35 as the test suite runs it (a 40-byte SYN,
    packet 0, then 2 data packets); `iw1`: no SYN and an initial window of 1 (the 1996 paper's
    ns-1 setting; atmsim still shakes hands, so ns-2's times are shifted to its first data packet)."""
    name: str
    ns_tcl: str
    initial_window: int
    first_data: int        # ns-2 seqno of the first data packet
    align: bool            # shift ns-2's times so that both first data packets leave together


PROFILES = {
    "suite": Profile("suite", "", 2, 1, False),
    "iw1": Profile("iw1", "Agent/TCP set syn_ false\nAgent/TCP set delay_growth_ false\n"
                          "Agent/TCP set windowInit_ 1\n", 1, 0, True),
}

START = 1.0        # the suite's FTP starts at t = 1 s; atmsim's flow at 0
DURATION = 5.0     # the suite stops at t = 6 s
PAYLOAD = 1000     # ns-2 packetSize_; atmsim tcp.mss
HEADERS = 40       # ns-2 tcpip_base_hdr_size_; atmsim ip.header_bytes


@dataclass(frozen=True)
class Variant:
    name: str
    ns_agent: str          # Agent/<ns_agent>
    ns_sink: str           # Agent/<ns_sink>
    atmsim: str            # tcp.variant
    ns_extra: str = ""     # extra Tcl before the connection is made
    label: str = ""


VARIANTS = {
    "tahoe": Variant("tahoe", "TCP", "TCPSink", "tahoe", label="Tahoe: ns-2 Agent/TCP vs atmsim tahoe"),
    "reno": Variant("reno", "TCP/Reno", "TCPSink", "lite", label="Reno: ns-2 Agent/TCP/Reno vs atmsim lite"),
    "newreno": Variant("newreno", "TCP/Newreno", "TCPSink", "newreno",
                       label="NewReno: ns-2 Agent/TCP/Newreno vs atmsim newreno"),
    "sack": Variant("sack", "TCP/Sack1", "TCPSink/Sack1", "sack", label="SACK: ns-2 Agent/TCP/Sack1 vs atmsim sack"),
    # Not in the suite: ns-2's Reno without its bugFix_ (BSD Reno may fast-retransmit again in the
    # same window, as atmsim's lite does).
    "reno-nobugfix": Variant("reno-nobugfix", "TCP/Reno", "TCPSink", "lite", "Agent/TCP set bugFix_ false\n",
                             label="Reno, bugFix_ false: ns-2 Agent/TCP/Reno vs atmsim lite"),
}

# ns-2 event-trace names of a fast retransmission, by agent (tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc).
NS_FAST_RETX = {"FAST_RETX", "RENO_FAST_RETX", "NEWRENO_FAST_RETX", "FAST_RECOVERY"}


# Where and why each case's traces part (found with --side; docs/validation.md, "Named
# differences", D1-D10).
CAUSES = {
    ("tahoe", 1): "D1 in the slow start after the fast retransmit (first ACK at cwnd = ssthresh = 7)",
    ("tahoe", 2): "D1 in the slow start after the fast retransmit",
    ("tahoe", 3): "D1 in the slow start after the fast retransmit",
    ("tahoe", 4): "D1 in the slow start after the fast retransmit",
    ("reno", 1): "D1 at the ACK that ends recovery",
    ("reno", 2): "D1 at the partial ACK that ends recovery; then D2 (2nd fast retransmit vs timeout)",
    ("reno", 3): "D1 at the partial ACK that ends recovery; then D2 (2nd fast retransmit vs timeout)",
    ("reno", 4): "D2: atmsim's 2nd fast retransmit at 1.364 s, ns-2's timeout at 2.281 s",
    ("newreno", 1): "D4: ssthresh 7.5 segments, slow start on the ACK after the full ACK",
    ("newreno", 2): "D4: ssthresh 7.5 segments, slow start on the ACK after the full ACK",
    ("newreno", 3): "D5 at the first partial ACK (new data go out with the retransmission)",
    ("newreno", 4): "D5 at the first partial ACK (new data go out with the retransmission)",
    ("sack", 1): "D9 throughout (0.09-0.13 ms); D1 on the ACK after the recovery (cwnd = ssthresh = 7.5, D4)",
    ("sack", 2): "D9 throughout; D7 at the partial ACK (ns-2: 2 packets and the 2nd hole sooner)",
    ("sack", 3): "D9 throughout; D7 (ns-2 resends hole 26 once 27 is SACKed, atmsim sends new data)",
    ("sack", 4): "D9 throughout; D7 (ns-2 resends hole 24 once 25 is SACKed, atmsim sends new data)",
    ("reno-nobugfix", 1): "D1 at the ACK that ends recovery",
    ("reno-nobugfix", 2): "D1 at the partial ACK; 2nd fast retransmit at the same instant in both",
    ("reno-nobugfix", 3): "D1 at the partial ACK; 2nd fast retransmit together; timeout 2.570 vs 2.576 s (D10)",
    ("reno-nobugfix", 4): "D1 hidden (window full), ssthresh 4 vs 3 at the 2nd fast retransmit, D3; D10",
}


# ----------------------------------------------------------------------------------------------
# ns-2

NS_TCL = """\
# Written by validation/ns2/forced_drops.py: the test {test} of ns-2's
# test-suite-tcpVariants.tcl (topology net4), rebuilt from its parameters.
remove-all-packet-headers
add-packet-header Flags IP TCP
Agent/TCP set precisionReduce_ false
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set updated_rttvar_ false
Agent/TCP set minrto_ 1
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
Agent/TCP set singledup_ 0
Trace set show_tcphdr_ 1
{extra}
set ns [new Simulator]
set trf [open all.tr w]
$ns trace-all $trf
set evf [open events.tr w]
$ns eventtrace-all $evf

# net4
set s1 [$ns node]
set s2 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb 0ms DropTail
$ns duplex-link $s2 $r1 8Mb 0ms DropTail
$ns duplex-link $r1 $k1 800Kb 100ms DropTail
$ns queue-limit $r1 $k1 8
$ns queue-limit $k1 $r1 8
set lossy [$ns link $r1 $k1]
set em [new ErrorModule Fid]
set periodic [new ErrorModel/Periodic]
$periodic unit pkt
$lossy errormodule $em

set tcp [$ns create-connection {agent} $s1 {sink} $k1 1]
$tcp set window_ 28
set ftp [$tcp attach-app FTP]
$ns at {start} "$ftp start"

set cwf [open cwnd.tr w]
$tcp attach $cwf
$tcp trace cwnd_
$tcp trace ssthresh_

set dl [new ErrorModel/List]
$dl droplist {{{drops}}}
$em insert $dl
$em bind $dl 1

proc finish {{}} {{
    global ns trf evf cwf
    $ns halt
    close $trf
    close $evf
    close $cwf
    exit 0
}}
$ns at {stop} "finish"
$ns run
"""


def ns2_tcl(v: Variant, drops: list, profile: Profile = PROFILES["suite"]) -> str:
    return NS_TCL.format(test=f"{v.name} {drops}", extra=profile.ns_tcl + v.ns_extra, agent=v.ns_agent,
                         sink=v.ns_sink,
                         start=START, stop=START + DURATION, drops=" ".join(map(str, drops)))


def ns2_binary() -> str | None:
    return shutil.which("ns")


@dataclass
class Trace:
    """What one simulator did: times relative to the application's start (s), packet numbers as
    ns-2 numbers them (suite profile: 0 = SYN, data packet n carries bytes (n-1)*1000+1 .. n*1000
    in atmsim; iw1 profile: data packet n carries bytes n*1000+1 .. (n+1)*1000)."""
    sends: list = field(default_factory=list)      # (t, pkt, retransmission?) of every data packet the source sends
    acks: list = field(default_factory=list)       # (t, cumulative ack: highest packet acknowledged) at the source
    drops: list = field(default_factory=list)      # (t, pkt)
    fast_retransmits: list = field(default_factory=list)  # t
    timeouts: list = field(default_factory=list)   # t
    cwnd: list = field(default_factory=list)       # (t, cwnd in packets)
    window: list = field(default_factory=list)     # atmsim: (t, cwnd, ssthresh) in bytes, every window row

    def recovered_at(self, pkt: int):
        """First time the source holds an ACK covering data packet `pkt`."""
        return next((t for t, a in self.acks if a >= pkt), None)

    def acked_by(self, t_end: float = DURATION):
        return max((a for t, a in self.acks if t <= t_end), default=0)

    def shifted(self, dt: float, t_end: float = DURATION) -> "Trace":
        """The trace with every time moved by dt, cut at t_end."""
        def keep(rows):
            return [r for r in rows if (r if isinstance(r, float) else r[0]) <= t_end]
        return Trace(keep([(t + dt, p, r) for t, p, r in self.sends]), keep([(t + dt, a) for t, a in self.acks]),
                     keep([(t + dt, p) for t, p in self.drops]), keep([t + dt for t in self.fast_retransmits]),
                     keep([t + dt for t in self.timeouts]), keep([(t + dt, c) for t, c in self.cwnd]),
                     keep([(t + dt, c, s) for t, c, s in self.window]))


def run_ns2(v: Variant, drops: list, workdir: str, profile: Profile = PROFILES["suite"]) -> Trace:
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, "test.tcl"), "w", encoding="utf-8") as f:
        f.write(ns2_tcl(v, drops, profile))
    p = subprocess.run([ns2_binary(), "test.tcl"], cwd=workdir, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"ns failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return parse_ns2(workdir, profile.first_data)


def parse_ns2(workdir: str, first_data: int = 1) -> Trace:
    tr = Trace()
    top = -1
    with open(os.path.join(workdir, "all.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) < 12:
                continue
            ev, t, a, b, kind, seq = w[0], float(w[1]) - START, w[2], w[3], w[4], int(w[10])
            # nodes: s1 = 0, s2 = 1, r1 = 2, k1 = 3
            if ev == "+" and (a, b) == ("0", "2") and kind == "tcp" and seq >= first_data:
                tr.sends.append((t, seq, seq <= top))
                top = max(top, seq)
            elif ev == "d" and kind == "tcp":
                tr.drops.append((t, seq))
            elif ev == "r" and (a, b) == ("2", "0") and kind == "ack":
                tr.acks.append((t, seq))
    with open(os.path.join(workdir, "events.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[0] == "E":
                if w[5] in NS_FAST_RETX:
                    tr.fast_retransmits.append(float(w[1]) - START)
                elif w[5] == "TIMEOUT":
                    tr.timeouts.append(float(w[1]) - START)
    with open(os.path.join(workdir, "cwnd.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 7 and w[5] == "cwnd_":
                tr.cwnd.append((float(w[0]) - START, float(w[6])))
    return tr


# ----------------------------------------------------------------------------------------------
# atmsim

ATMSIM_TOML = """\
# Written by validation/ns2/forced_drops.py: ns-2's test-suite-tcpVariants.tcl ({test}), in atmsim.
name = "ff96-{name}-{ndrops}drops"
description = "Fall & Floyd 1996 forced drops as in ns-2's test-suite-tcpVariants (net4): one flow, 8 Mb/s 0 ms then 800 kb/s 100 ms, 8 waiting packets, window 28 x 1000 B; drops {drops}."
network = "packet"
duration = "{duration}s"
seed = 1
seed_randomizes = "nothing"

[ip]
header_bytes = {headers}          # ns-2 tcpip_base_hdr_size_: 1000 + 40 = 1040-byte packets
mtu = "{mtu}B"

[tcp]
variant = "{variant}"
bp95 = true                 # no MSS/8 term in congestion avoidance (ns-2 adds 1/cwnd per ACK)
mss = "{payload}B"                # ns-2 packetSize_
window = "{window}B"            # window_ 28 packets
initial_window = {iw}          # ns-2 windowInit_ ({profile} profile)
delayed_ack = false         # TCPSink ACKs every packet
tick = "10ms"               # tcpTick_ 0.01
rttmin_ticks = 100          # minrto_ 1 (s)
rxtmax_ticks = 6000         # maxrto_ 60 (s)

[switch]
buffer = "8packets"         # ns-2 queue-limit 8: DropTail drops when waiting + 1 >= 8, so 8 with the one in transmission

[topology]
hosts = ["s1", "k1"]
switches = ["r1"]

[[link]]
ends = ["s1", "r1"]
rate = "8Mbps"
delay = "0s"

[[link]]
ends = ["r1", "k1"]
rate = "800kbps"
delay = "100ms"

[[flow]]
name = "f1"
src = "s1"
dst = "k1"
start = "0s"
drop_segments = [{segments}]   # ns-2 packet n = atmsim segment n - {first} ({profile} profile)
"""


def atmsim_toml(v: Variant, drops: list, profile: Profile = PROFILES["suite"]) -> str:
    return ATMSIM_TOML.format(test=f"{v.name} {drops}", name=v.name, ndrops=len(drops), drops=drops,
                              duration=int(DURATION), headers=HEADERS, mtu=PAYLOAD + HEADERS, variant=v.atmsim,
                              payload=PAYLOAD, window=28 * PAYLOAD, iw=profile.initial_window,
                              profile=profile.name, first=profile.first_data,
                              segments=", ".join(str(d - profile.first_data) for d in drops))


def run_atmsim(v: Variant, drops: list, workdir: str, profile: Profile = PROFILES["suite"],
               python: str = sys.executable) -> Trace:
    os.makedirs(workdir, exist_ok=True)
    toml = os.path.join(workdir, "scenario.toml")
    with open(toml, "w", encoding="utf-8") as f:
        f.write(atmsim_toml(v, drops, profile))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([python, "-m", "atmsim", "run", toml, "--out", os.path.join(workdir, "out")],
                       capture_output=True, text=True, timeout=300, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"atmsim failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return parse_atmsim(os.path.join(workdir, "out"), profile.first_data)


def _pkt(seq_byte: int, first_data: int = 1) -> int:
    """ns-2 packet number of the atmsim segment starting at byte `seq_byte` (the SYN is byte 0)."""
    return (seq_byte - 1) // PAYLOAD + first_data


def parse_atmsim_rows(events, window, first_data: int = 1) -> Trace:
    """`events` and `window` as iterables of dicts (csv rows or DataFrame records)."""
    tr = Trace()
    for r in events:
        kind, t = r["kind"], float(r["t"])
        if kind in ("send", "retransmit"):
            tr.sends.append((t, _pkt(int(r["seq"]), first_data), kind == "retransmit"))
        elif kind == "loss":
            tr.drops.append((t, _pkt(int(r["seq"]), first_data)))
        elif kind == "fast_retransmit":
            tr.fast_retransmits.append(t)
        elif kind == "timeout":
            tr.timeouts.append(t)
    # snd_una from the window rows: snd_max - unacked, snd_max = one segment past the highest sent.
    sends = sorted(tr.sends)
    i, top, last = 0, None, -1
    for r in window:
        t = float(r["t"])
        while i < len(sends) and sends[i][0] <= t:
            top = sends[i][1] if top is None else max(top, sends[i][1])
            i += 1
        if top is None:
            continue
        snd_max = (top - first_data + 1) * PAYLOAD + 1
        una = snd_max - int(r["unacked"])
        acked = (una - 1) // PAYLOAD + first_data - 1   # highest data packet acknowledged
        if acked > last:
            tr.acks.append((t, acked))
            last = acked
        tr.cwnd.append((t, int(r["cwnd"]) / PAYLOAD))
        tr.window.append((t, int(r["cwnd"]), int(r["ssthresh"])))
    return tr


def parse_atmsim(outdir: str, first_data: int = 1) -> Trace:
    with open(os.path.join(outdir, "trace_events.csv"), encoding="utf-8") as f:
        events = list(csv.DictReader(f))
    with open(os.path.join(outdir, "trace_window.csv"), encoding="utf-8") as f:
        window = list(csv.DictReader(f))
    return parse_atmsim_rows(events, window, first_data)


# ----------------------------------------------------------------------------------------------
# comparison

EPS = 1e-6   # s: the same instant (ns-2 prints 15 significant digits, atmsim's clock is in ps)
NEAR = 1e-3  # s: the same packet within 1 ms, i.e. but for the SACK option's bytes on the wire (D9)


def compare(ns: Trace, at: Trace) -> dict:
    """Walk the two send sequences in order. `timing`: first index whose packet or time (beyond
    EPS) differs; `near`: the same with times allowed to differ by NEAR; `order`: first index
    whose packet numbers differ, whatever the times."""
    n = min(len(ns.sends), len(at.sends))
    timing = near = order = None
    max_dt = 0.0
    for i in range(n):
        (tn, pn, _), (ta, pa, _) = ns.sends[i], at.sends[i]
        if pn != pa:
            order = i
            break
        if timing is None and abs(tn - ta) > EPS:
            timing = i
        if near is None and abs(tn - ta) > NEAR:
            near = i
        if near is None:
            max_dt = max(max_dt, abs(tn - ta))
    if order is None and len(ns.sends) != len(at.sends):
        order = n
    if timing is None:
        timing = order
    if near is None:
        near = order

    def ev(tr, i):
        if i is None or i >= len(tr.sends):
            return None
        t, p, r = tr.sends[i]
        return {"t": round(t, 6), "pkt": p, "rtx": r}

    def parts_at(i):
        """When the traces part at index i: the earlier of the two sends there."""
        ts = [tr.sends[i][0] for tr in (ns, at) if i is not None and i < len(tr.sends)]
        return round(min(ts), 6) if ts else None

    return {
        "n_ns2": len(ns.sends), "n_atmsim": len(at.sends),
        "identical_packets": timing if timing is not None else n,
        "parts_at_s": parts_at(timing),
        "timing_divergence": None if timing is None else {"index": timing, "ns2": ev(ns, timing),
                                                           "atmsim": ev(at, timing)},
        "near_identical_packets": near if near is not None else n,
        "near_parts_at_s": parts_at(near),
        "max_dt_while_near_ms": round(max_dt * 1e3, 3),
        "same_packet_order": order if order is not None else n,
        "order_parts_at_s": parts_at(order),
        "order_divergence": None if order is None else {"index": order, "ns2": ev(ns, order),
                                                        "atmsim": ev(at, order)},
    }


def slow_start_at_equality(at: Trace, t: float) -> bool:
    """Whether an ACK at time `t` took atmsim's cwnd from ssthresh or above (cwnd == ssthresh, or
    an inflated window deflated to ssthresh at the end of a recovery) to ssthresh + 1 MSS: BSD's
    slow start at cwnd = ssthresh (tcp_input.c: congestion avoidance only if cw > snd_ssthresh),
    where ns-2 (tcp.cc opencwnd: slow start only if cwnd_ < ssthresh_) adds 1/cwnd."""
    before = [w for w in at.window if w[0] < t - EPS]
    now = [w for w in at.window if abs(w[0] - t) <= EPS]
    if not before or not now:
        return False
    _, cwnd, ssthresh = before[-1]
    return cwnd >= ssthresh and any(c == s + PAYLOAD and s == ssthresh for _, c, s in now)


def summarize(tr: Trace, drops: list) -> dict:
    rec = tr.recovered_at(max(drops))
    return {
        "fast_retransmits": len(tr.fast_retransmits),
        "timeouts": len(tr.timeouts),
        "retransmissions": sum(1 for s in tr.sends if s[2]),
        "drops": [p for _, p in tr.drops],
        "last_drop_acked_s": None if rec is None else round(rec, 6),
        "acked_by_5s": tr.acked_by(DURATION),
        "fast_retransmit_times": [round(t, 6) for t in tr.fast_retransmits],
        "timeout_times": [round(t, 6) for t in tr.timeouts],
    }


# ----------------------------------------------------------------------------------------------
# plots

def plot_variant(v: Variant, cases: dict, path: str, tmax: float = 2.0, note: str = ""):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True, sharey=True)
    for ax, (nd, (ns, at)) in zip(axes.flat, sorted(cases.items())):
        for tr, style in ((ns, dict(marker="o", s=22, facecolors="none", edgecolors="tab:blue", label="ns-2 2.35")),
                          (at, dict(marker="x", s=14, color="tab:red", label="atmsim"))):
            pts = [(t, p) for t, p, _ in tr.sends if t <= tmax]
            if pts:
                ax.scatter([t for t, _ in pts], [p for _, p in pts], linewidths=0.8, **style)
        dropped = [(t, p) for t, p in ns.drops if t <= tmax]
        ax.scatter([t for t, _ in dropped], [p + 2.5 for _, p in dropped], marker="v", s=18, color="gray",
                   label="dropped (ns-2)")
        ax.set_title(f"{nd} drop{'s' if nd > 1 else ''}: {DROPS[nd]}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("time since the application started (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("packet number")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    fig.suptitle(v.label + note, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


# ----------------------------------------------------------------------------------------------

def ns2_version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    return "ns-2 " + (out or "unknown")


def reference(ns: Trace, row: dict) -> dict:
    """What tests/test_ns2_forced_drops.py checks atmsim against, without ns-2: every data packet
    ns-2's source sent (time rounded to the microsecond, packet number)."""
    c = row["compare"]
    return {"sends": [[round(t, 6), p] for t, p, _ in ns.sends], "ns2": row["ns2"],
            "identical_packets": c["identical_packets"], "near_identical_packets": c["near_identical_packets"],
            "same_packet_order": c["same_packet_order"],
            "cause": row["cause"]}


def side_by_side(ns: Trace, at: Trace, t0: float, t1: float):
    """Both simulators' sends, ACK advances, fast retransmits, timeouts and cwnd changes, by time."""
    def events(tr, tag):
        out = [(t, 3, f"{tag} send {p}{' (rtx)' if r else ''}") for t, p, r in tr.sends]
        out += [(t, 0, f"{tag} ack {a}") for t, a in tr.acks]
        out += [(t, 2, f"{tag} FAST RETRANSMIT") for t in tr.fast_retransmits]
        out += [(t, 2, f"{tag} TIMEOUT") for t in tr.timeouts]
        last = None
        for t, c in tr.cwnd:
            if c != last:
                out.append((t, 1, f"{tag} cwnd {c:.3f}"))
            last = c
        return [(round(t, 9), tag != "ns-2", k, s) for t, k, s in out if t0 <= t <= t1]
    for t, right, _, s in sorted(events(ns, "ns-2") + events(at, "atmsim"), key=lambda e: e[:3]):
        print(f"{t:10.6f}  " + (" " * 30 if right else "") + s)


def case_dir(outdir: str, profile: Profile, name: str, nd) -> str:
    return os.path.join(outdir, ("" if profile.name == "suite" else profile.name + "-") + f"{name}-{nd}")


def align(ns: Trace, at: Trace, profile: Profile) -> Trace:
    """ns-2's trace, shifted (iw1 profile) so that its first data packet leaves with atmsim's."""
    if not profile.align or not ns.sends or not at.sends:
        return ns
    return ns.shifted(at.sends[0][0] - ns.sends[0][0])


def run_case(v: Variant, nd: int, outdir: str, profile: Profile = PROFILES["suite"]) -> tuple:
    drops = DROPS[nd]
    base = case_dir(outdir, profile, v.name, nd)
    ns = run_ns2(v, drops, os.path.join(base, "ns2"), profile)
    at = run_atmsim(v, drops, os.path.join(base, "atmsim"), profile)
    return align(ns, at, profile), at


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default="tahoe,reno,newreno,sack,reno-nobugfix")
    ap.add_argument("--drops", default="1,2,3,4")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--json", action="store_true", help="print every case as JSON")
    ap.add_argument("--profile", default="suite", choices=sorted(PROFILES),
                    help="suite: ns-2.35 as the test suite runs (SYN, initial window 2); iw1: no SYN, "
                         "initial window 1, ns-2 times aligned at the first data packet")
    ap.add_argument("--side", metavar="VARIANT:DROPS:T0:T1",
                    help="print both traces of a case already run (sends, ACKs, cwnd changes) between T0 and T1")
    ap.add_argument("--write-reference", metavar="FILE",
                    help="store ns-2's sends and the comparison, for tests (validation/ns2/ns2_reference.json)")
    args = ap.parse_args(argv)
    if ns2_binary() is None:
        sys.exit("ns (ns-2) is not on PATH: apt-get install ns2")
    os.makedirs(args.out, exist_ok=True)
    if args.side:
        name, nd, t0, t1 = args.side.split(":")
        prof = PROFILES[args.profile]
        base = case_dir(args.out, prof, name, nd)
        at = parse_atmsim(os.path.join(base, "atmsim", "out"), prof.first_data)
        ns = align(parse_ns2(os.path.join(base, "ns2"), prof.first_data), at, prof)
        side_by_side(ns, at, float(t0), float(t1))
        return
    rows, refs = [], {}
    for name in args.variants.split(","):
        v = VARIANTS[name]
        cases = {}
        for nd in [int(x) for x in args.drops.split(",")]:
            ns, at = run_case(v, nd, args.out, PROFILES[args.profile])
            cases[nd] = (ns, at)
            rows.append({"variant": name, "drops": nd, "drop_list": DROPS[nd], "ns2": summarize(ns, DROPS[nd]),
                         "atmsim": summarize(at, DROPS[nd]), "compare": compare(ns, at),
                         "cause": CAUSES.get((name, nd), "") if args.profile == "suite" else ""})
            refs[f"{name}-{nd}"] = reference(ns, rows[-1])
        if not args.no_plots and len(cases) == 4:
            suite = args.profile == "suite"
            plot_variant(v, cases, os.path.join(args.out, f"ff96-{'' if suite else args.profile + '-'}{name}.png"),
                         note="" if suite else " (ns-2 without SYN, initial window 1; aligned at the first data packet)")
    with open(os.path.join(args.out, f"results-{args.profile}.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    if args.write_reference and args.profile == "suite":
        with open(args.write_reference, "w", encoding="utf-8") as f:
            f.write('{"ns": %s, "cases": {\n' % json.dumps(ns2_version()))
            f.write(",\n".join("%s: %s" % (json.dumps(k), json.dumps(v, separators=(",", ":")))
                               for k, v in refs.items()))
            f.write("\n}}\n")
    if args.json:
        print(json.dumps(rows, indent=1))
    print_table(rows)


def _fmt(s: dict) -> str:
    t = "-" if s["last_drop_acked_s"] is None else f"{s['last_drop_acked_s']:.3f}"
    return f"{s['fast_retransmits']:>2} FR {s['timeouts']:>2} TO  {t:>6} s {s['acked_by_5s']:>4}"


def print_table(rows):
    print("times from the application's start; 'acked' = first ACK covering the last dropped packet; "
          "'by 5s' = packets acked by 5 s")
    print("identical = packets sent identically (same packet, same instant) before the traces part at (s); "
          "<1 ms: the same within 1 ms; order: the same packets whatever the times")
    print(f"{'variant':<14}{'drops':>5}  {'ns-2: FR, TO, acked, by 5s':<30}{'atmsim: FR, TO, acked, by 5s':<30}"
          f"{'identical':>9} {'at':>6} {'<1 ms':>6} {'at':>6} {'order':>6} {'at':>6}  cause")
    for r in rows:
        c = r["compare"]
        until = "end" if c["parts_at_s"] is None else f"{c['parts_at_s']:.3f}"
        nuntil = "end" if c["near_parts_at_s"] is None else f"{c['near_parts_at_s']:.3f}"
        ountil = "end" if c["order_divergence"] is None or c["order_divergence"]["ns2"] is None \
            else f"{c['order_parts_at_s']:.3f}"
        print(f"{r['variant']:<14}{r['drops']:>5}  {_fmt(r['ns2']):<30}{_fmt(r['atmsim']):<30}"
              f"{c['identical_packets']:>9} {until:>6} {c['near_identical_packets']:>6} {nuntil:>6}"
              f" {c['same_packet_order']:>6} {ountil:>6}  {r['cause']}")


if __name__ == "__main__":
    main()
