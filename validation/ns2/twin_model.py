"""The ns-2 twin's model of a resolved atmsim scenario and its ns-2 2.35 Tcl writer (twin.py runs it).

`Twin` holds what ns-2 needs of a resolved packet scenario (rates, delays, buffers, packet sizes,
window, initial window, timers, starts, the router's drop policy); `ns2_tcl` writes the Tcl;
`_path` and `_link` answer routing questions the measurements need. twin.py builds a `Twin` from
`atmsim.resolve` (`load`) and re-exports these names; docs/validation.md has every mapping choice.
"""
from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass, field

ACK_BYTES = 40             # ns-2 TCPSink ACK = tcpip_base_hdr_size_; atmsim's pure ACK = ip.header_bytes
HOST_QUEUE = 100_000       # packets: an atmsim host (model "ideal") never drops what it sends

# ------------------------------------------------------------------------------------------------
# units of the resolved TOML

_TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_SIZE = {"B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def seconds(text: str) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(ps|ns|us|ms|s)\s*", text)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    return float(m.group(1)) * _TIME[m.group(2)]


def picoseconds(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(ps|ns|us|ms|s)\s*", text)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    return round(float(m.group(1)) * _TIME[m.group(2)] * 1e12)


def size_bytes(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(B|KB|MB|GB|KiB|MiB|GiB)\s*", text)
    if not m:
        raise ValueError(f"not a byte size: {text!r}")
    return round(float(m.group(1)) * _SIZE[m.group(2)])


# ------------------------------------------------------------------------------------------------
# the variants: atmsim tcp.variant -> ns-2 agent and sink

@dataclass(frozen=True)
class NsVariant:
    agent: str
    sink: str              # sink without delayed ACKs
    sink_delack: str       # sink with delayed ACKs
    tcl: str = ""          # class settings before the agents are made
    note: str = ""


NS_VARIANTS = {
    # BSD Reno: fast retransmit on every third duplicate after a new ACK, no recover_ guard (D2).
    "lite": NsVariant("TCP/Reno", "TCPSink", "TCPSink/DelAck", "Agent/TCP set bugFix_ false\n",
                      "Agent/TCP/Reno, bugFix_ false (BSD Reno, D2)"),
    # atmsim's tahoe carries ns-2's bug_fix_ guard (tcp.md V7): ns-2's default bugFix_ true.
    "tahoe": NsVariant("TCP", "TCPSink", "TCPSink/DelAck", "", "Agent/TCP (bugFix_ true, as atmsim V7)"),
    # ns-2.35's defaults: partial_window_deflation_ 1 and newreno_changes1_ 1 (RFC 6582's deflation and
    # its "Impatient" timer, as atmsim V8).
    "newreno": NsVariant("TCP/Newreno", "TCPSink", "TCPSink/DelAck", "", "Agent/TCP/Newreno (ns-2.35 defaults)"),
    "sack": NsVariant("TCP/Sack1", "TCPSink/Sack1", "TCPSink/Sack1/DelAck", "", "Agent/TCP/Sack1 + TCPSink/Sack1"),
    "vegas": NsVariant("TCP/Vegas", "TCPSink", "TCPSink/DelAck", "", "Agent/TCP/Vegas (alpha 1, beta 3, gamma 1)"),
}


# ------------------------------------------------------------------------------------------------
# the twin: what of the resolved scenario ns-2 needs

@dataclass
class Link:
    a: str
    b: str
    rate_ab: float   # bits/s, a -> b
    rate_ba: float
    delay: float     # s


@dataclass
class Flow:
    name: str
    src: str
    dst: str
    start_ps: int
    bytes: int | None


@dataclass
class Twin:
    name: str
    network: str
    duration: float
    variant: str
    mss: int
    header_bytes: int
    window_bytes: int
    initial_window: int
    delayed_ack: bool
    tick: float
    rttmin_ticks: int
    rxtmax_ticks: int
    buffer: str               # the resolved switch.buffer ("192528B" or "21packets")
    hosts: list
    switches: list
    links: list
    flows: list
    bottleneck: str           # "R1->R2"
    u_max_bytes: float
    seed_randomizes: str
    link_buffers: dict = field(default_factory=dict)   # "A->B": buffer text, per-link overrides
    policy: str = "tail"      # router.policy: "tail" or "random-drop"

    # -- derived ns-2 numbers
    @property
    def packet_bytes(self) -> int:
        return self.mss + self.header_bytes

    @property
    def window_packets(self) -> int:
        """ns-2's window_ (packets): the whole segments that fit in atmsim's byte window (B4: a bulk
        sender sends only full segments, so 512 KiB / 9128 B = 57.4 gives 57 in flight)."""
        return self.window_bytes // self.mss

    def queue_limit(self, port: str, unit_bytes: int) -> int:
        """ns-2 queue-limit (packets) of a switch output port that carries units of `unit_bytes`.
        ns-2's DropTail drops an arrival when waiting + 1 >= limit (drop-tail.cc), i.e. it holds
        `limit` packets counting the one in transmission, as atmsim's byte and packet limits do
        (packet.md P3), so a byte buffer B holds floor(B / unit) such packets in both."""
        buf = self.link_buffers.get(port, self.buffer)
        if buf.endswith("packets"):
            return int(buf[:-len("packets")])
        return size_bytes(buf) // unit_bytes

    @property
    def rto_init(self) -> float:
        """BSD's first RTO: 12 ticks (tcp.md B3), clamped into [min, max]."""
        return min(max(12, self.rttmin_ticks), self.rxtmax_ticks) * self.tick


# ------------------------------------------------------------------------------------------------
# ns-2 Tcl

def _fmt(x: float) -> str:
    return repr(float(x))


def ns2_tcl(tw: Twin, trace_file: str = "bottleneck.tr", events: bool = False, cwnd: bool = False,
            seed: int = 0, traces: dict | None = None) -> str:
    """ns-2 2.35 Tcl of the twin. Start times are the twin's own (add the jitter with `load(...,
    jitter_sets)`). At the end it prints one line per flow: `flow I ndatapack nrexmitpack nrexmit
    ack` and traces the bottleneck's queue (+ - d r) to `trace_file`, and any port "A->B" of
    `traces` to its file. `seed` seeds ns-2's default RNG (random drop's victims; 0: ns-2's fixed
    default stream)."""
    v = NS_VARIANTS[tw.variant]
    sink = v.sink_delack if tw.delayed_ack else v.sink
    host_set = set(tw.hosts)
    out = [
        f"# Written by validation/ns2/twin.py: the ns-2 twin of atmsim's {tw.name} (variant {tw.variant}).",
        "remove-all-packet-headers",
        "add-packet-header Flags IP TCP",
        f"Agent/TCP set packetSize_ {tw.mss}              ;# tcp.mss",
        f"Agent/TCP set tcpip_base_hdr_size_ {tw.header_bytes}        ;# ip.header_bytes: {tw.packet_bytes}-byte packets",
        f"Agent/TCP set window_ {tw.window_packets}                  ;# tcp.window {tw.window_bytes} B / MSS, whole segments",
        f"Agent/TCP set windowInit_ {tw.initial_window}               ;# tcp.initial_window",
        "Agent/TCP set syn_ true                  ;# atmsim opens with a SYN (B1)",
        "Agent/TCP set delay_growth_ true",
        f"Agent/TCP set tcpTick_ {_fmt(tw.tick)}             ;# tcp.tick",
        f"Agent/TCP set minrto_ {_fmt(tw.rttmin_ticks * tw.tick)}              ;# rttmin_ticks x tick",
        f"Agent/TCP set maxrto_ {_fmt(tw.rxtmax_ticks * tw.tick)}             ;# rxtmax_ticks x tick",
        f"Agent/TCP set rtxcur_init_ {_fmt(tw.rto_init)}         ;# BSD's first RTO, 12 ticks (B3)",
        "Agent/TCP set precisionReduce_ false     ;# integer halving, as BSD",
        "Agent/TCP set updated_rttvar_ false",
        "Agent/TCP set singledup_ 0               ;# no limited transmit (atmsim has none)",
        "Agent/TCP set maxburst_ 0                ;# no burst limit (B4)",
        "Agent/TCP set overhead_ 0",
        f"Agent/TCPSink set packetSize_ {tw.header_bytes}         ;# a pure ACK is ip.header_bytes, as atmsim's",
        "Agent/TCPSink/DelAck set interval_ 0.2   ;# BSD's 200 ms fast timer (B2)",
        "Agent/TCPSink/Sack1/DelAck set interval_ 0.2",
        v.tcl.rstrip("\n"),
        RANDOM_DROP_TCL if tw.policy == "random-drop" else "",
        "set ns [new Simulator]",
    ]
    if seed:
        out += ["global defaultRNG", f"$defaultRNG seed {seed}"]
    qtype = "RED" if tw.policy == "random-drop" else "DropTail"
    if events:   # ns-2's event trace: FAST_RETX, TIMEOUT ... with times, per agent (for reading runs)
        out += ["set evf [open events.tr w]", "$ns eventtrace-all $evf"]
    for n in tw.hosts + tw.switches:
        out.append(f"set n({n}) [$ns node]")
    for ln in tw.links:
        # ns-2's duplex-link has one bandwidth; atmsim's rates are per direction (equal here).
        if ln.rate_ab != ln.rate_ba:
            raise ValueError(f"link {ln.a}-{ln.b}: different rates per direction")
        out.append(f"$ns duplex-link $n({ln.a}) $n({ln.b}) {_fmt(ln.rate_ab)} {_fmt(ln.delay)} {qtype}")
        for a, b in ((ln.a, ln.b), (ln.b, ln.a)):
            if a in host_set:
                lim = HOST_QUEUE
            else:
                # data ports hold full packets; a port that carries ACKs only holds B / 40 of them
                carries_data = any(_on_path(tw, f, a, b) for f in tw.flows)
                lim = tw.queue_limit(f"{a}->{b}", tw.packet_bytes if carries_data else ACK_BYTES)
                if tw.policy == "random-drop":
                    lim -= 1   # RED's limit counts the waiting packets only (red.cc: drop when qlen >= qlim)
            out.append(f"$ns queue-limit $n({a}) $n({b}) {lim}")
    bn_a, bn_b = tw.bottleneck.split("->")
    out += [f"set tf [open {trace_file} w]", f"$ns trace-queue $n({bn_a}) $n({bn_b}) $tf"]
    for i, (port, path) in enumerate(sorted((traces or {}).items())):
        a, b = port.split("->")
        out += [f"set xf({i}) [open {path} w]", f"$ns trace-queue $n({a}) $n({b}) $xf({i})"]
    for i, f in enumerate(tw.flows, 1):
        out.append(f"set tcp({i}) [$ns create-connection {v.agent} $n({f.src}) {sink} $n({f.dst}) {i}]")
        out.append(f"set ftp({i}) [$tcp({i}) attach-app FTP]")
        if cwnd:   # cwnd_ and ssthresh_ of every agent, for reading runs
            if i == 1:
                out.append("set cwf [open cwnd.tr w]")
            out += [f"$tcp({i}) attach $cwf", f"$tcp({i}) trace cwnd_", f"$tcp({i}) trace ssthresh_"]
        if f.bytes is None:
            out.append(f"$ns at {_fmt(f.start_ps / 1e12)} \"$ftp({i}) start\"")
        else:
            out.append(f"$ns at {_fmt(f.start_ps / 1e12)} \"$ftp({i}) produce {math.ceil(f.bytes / tw.mss)}\"")
    out += [
        "proc finish {} {",
        "    global ns tf tcp",
        "    flush $tf",
        "    close $tf",
        "    catch {global evf; flush $evf; close $evf}",
        "    catch {global xf; foreach i [array names xf] { flush $xf($i); close $xf($i) }}",
        "    catch {global cwf; flush $cwf; close $cwf}",
        f"    for {{set i 1}} {{$i <= {len(tw.flows)}}} {{incr i}} {{",
        "        puts \"flow $i [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_] [$tcp($i) set ack_]\"",
        "    }",
        "    exit 0",
        "}",
        f"$ns at {_fmt(tw.duration)} \"finish\"",
        "$ns run",
    ]
    return "\n".join(x for x in out if x) + "\n"


# Random drop (Mankin 1990) in ns-2.35: Queue/RED whose thresholds are never reached, so it makes only
# "forced" drops, when the waiting packets reach the limit; the arriving packet is enqueued first and the
# victim drawn uniformly among all waiting (red.cc: pickPacketToDrop, drop_rand_), as atmsim's random-drop
# with include_arrival (docs/arb.md, Gateways).
RANDOM_DROP_TCL = """\
Queue/RED set thresh_ 1000000
Queue/RED set maxthresh_ 2000000
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set gentle_ false
Queue/RED set setbit_ false
Queue/RED set drop_rand_ true"""


def _path(tw: Twin, src: str, dst: str) -> list:
    """Nodes from src to dst (shortest hop path, as ns-2's static routing and atmsim's routes)."""
    adj = {}
    for ln in tw.links:
        adj.setdefault(ln.a, []).append(ln.b)
        adj.setdefault(ln.b, []).append(ln.a)
    prev, q = {src: None}, deque([src])
    while q:
        x = q.popleft()
        for y in adj.get(x, []):
            if y not in prev:
                prev[y] = x
                q.append(y)
    p, x = [], dst
    while x is not None:
        p.append(x)
        x = prev[x]
    return p[::-1]


def _on_path(tw: Twin, f: Flow, a: str, b: str) -> bool:
    p = _path(tw, f.src, f.dst)
    return any(p[i] == a and p[i + 1] == b for i in range(len(p) - 1))


def _link(tw: Twin, a: str, b: str) -> tuple:
    for ln in tw.links:
        if (ln.a, ln.b) == (a, b):
            return ln.rate_ab, ln.delay
        if (ln.b, ln.a) == (a, b):
            return ln.rate_ba, ln.delay
    raise KeyError(f"{a}-{b}")
