"""The cases of the Fall & Floyd forced-drop suite (forced_drops.py runs them): which packets
are dropped, how ns-2 opens the connection (`PROFILES`), the run's timing and packet sizes, the TCP
variants paired across the two simulators (`VARIANTS`), where and why each case's traces part
(`CAUSES`), and `Trace`, what one simulator did in a case. The parameters are those of ns-2.35's
test-suite-tcpVariants.tcl; forced_drops.py's docstring lists them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

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
