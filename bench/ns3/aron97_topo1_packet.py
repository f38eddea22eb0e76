#!/usr/bin/env python3
"""ns-3 mirror of atmsim's `aron97-topo1-packet` scenario (side-by-side benchmark).

Aron & Druschel 1997, topology 1, packet network:

    S1..S8 --(141.33 Mb/s, 1 us)--> R1 --(141.33 Mb/s, 30 ms)--> R2 --(141.33 Mb/s, 1 us)--> D1..D8

141.333... Mb/s = one 424-bit (53-byte) cell every 3 us, i.e. 424e6/3 b/s.  Round-trip
propagation 60.004 ms.  8 bulk TCP transfers Si -> Di of 60,000,000 bytes, Si starting at
(i-1) x 10 ms; 10 s of simulated time.

Requires the PyPI package `ns3` (ns-3.44 with cppyy bindings):  pip install ns3

Prints ONE JSON object on stdout (cppyy's harmless "Failed to materialize symbols"
warnings go to stderr).

Mirroring choices (atmsim reference: python/atmsim/scenarios/aron97-topo1-packet.toml,
docs/reproductions.md):

* IP packet = 9168 bytes: MSS 9128 + 20 IP + 20 TCP (no timestamps, no SACK).  Device
  MTU 9180 everywhere.
* PPP header: ns-3's PointToPointNetDevice adds a 2-byte PPP header, so a 9168-byte IP
  packet is a 9170-byte frame (+0.022 %).  By default the data rate of every link is scaled
  by 9170/9168 so that a full-sized packet's serialisation time is exactly
  9168*8 bits / (424e6/3 b/s) = 518.943 us, as in atmsim (a 40-byte ACK becomes a 42-byte
  frame: +5 % of a negligible time).  `--no-ppp-compensation` uses the nominal rate.
* Router buffers (the limit counts the packet in transmission; 192528 B = 21 x 9168 B):
  the traffic-control layer's default root queue disc (FqCoDel, installed by
  Ipv4AddressHelper::Assign) is REMOVED from every device (TrafficControlHelper::Uninstall),
  so the only buffer at a router output is the PointToPointNetDevice's DropTailQueue.  That
  queue is set to MaxSize 192528B at every router output.  ns-3 dequeues the packet in
  transmission from that queue, and the device's flow control (NetDeviceQueueInterface)
  stops the queue as soon as it could not take one more MTU (9180 B): with 9170-byte frames
  it stops at 20 queued frames (20*9170 + 9180 > 192528).  The 21st arrival is then dropped
  by the traffic-control layer (trace "TcDrop"), not by the queue.  So a router output holds
  20 waiting + 1 in transmission = 21 full packets = 192528 IP bytes counting the packet in
  transmission, exactly atmsim's limit.  (Even without flow control the byte limit would
  admit 20 frames: 21*9170 = 192570 > 192528.)  Bottleneck drops = TcDrop on R1 + drops of
  the R1->R2 DropTailQueue itself (normally 0).  TcDrop is counted for all of R1's devices,
  but R1's other outputs (towards S1..S8) carry only ACKs and never fill.
* Host NIC queues: 100000 packets (never a bottleneck; the window is 57 segments).
* TCP: ns3::TcpNewReno + ns3::TcpClassicRecovery (not PRR), Sack=false, Timestamp=false,
  (`--sack`: Sack=true, ns-3's RFC 6675 scoreboard, pipe and NextSeg; `--recovery prr`:
  ns3::TcpPrrRecovery, RFC 6937, instead of the classic recovery; `--cc cubic`:
  ns3::TcpCubic, RFC 9438, instead of TcpNewReno, with `--initial-cwnd` and ns-3's HyStart
  off unless `--hystart`; `--cubic-attr Name=value` sets another TcpCubic attribute),
  WindowScaling=true, SndBufSize = RcvBufSize = 524288 (512 KiB window), SegmentSize
  9128, InitialCwnd 1, DelAckCount 1 (no delayed ACK), MinRto 1 s (BSD rttmin = 2
  ticks of 500 ms), ClockGranularity 1 ms (default), LimitedTransmit=false (RFC 3042 is
  not part of the BSD-derived sender atmsim models).  atmsim's BSD coarse 500-ms timer and
  its per-seed timer phase have no ns-3 counterpart: ns-3 uses a fine-grained RTO.
* Apps: BulkSend (MaxBytes 60,000,000, SendSize 9128) and PacketSink; Simulator::Stop(10 s).
* E = bytes delivered to the 8 sinks / U_max, U_max = (424e6/3) * 10 / 8 / 9168 * 9128
  (payload of full segments the bottleneck could carry in 10 s, as atmsim computes it).
* Counters (C++ callbacks on each sender's socket, connected when its application starts):
  retransmissions = data segments sent at a sequence number below the highest one the
  socket has sent (trace "Tx"); timeouts = RTO expiries, seen as the RTO doubling that
  ns-3's ReTxTimeout applies (trace "RTO", new == min(2 old, 60 s)); recoveries = entries
  into CA_RECOVERY, loss_states = entries into CA_LOSS (trace "CongState").
"""

import json
import os
import sys
import time
from fractions import Fraction

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "atmsim"))
from one_line_args import OneLineParser  # noqa: E402 - standard library only: ns-3's interpreter may lack atmsim

CELL_RATE_BPS = Fraction(424_000_000, 3)  # 424 bits every 3 us
IP_PACKET = 9168
MSS = 9128
PPP_HEADER = 2
MTU = 9180
ROUTER_BUFFER_BYTES = 192528  # 21 x 9168
HOST_QUEUE_PACKETS = 100000
WINDOW = 524288
N_FLOWS = 8
FLOW_BYTES = 60_000_000
DURATION_S = 10
STAGGER_MS = 10


def u_max_bytes(duration_s=DURATION_S):
    """Payload in full segments the bottleneck can carry in `duration_s` (exact)."""
    return CELL_RATE_BPS * duration_s / 8 / IP_PACKET * MSS


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return (s * s) / (len(xs) * q) if q else 0.0


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=DURATION_S, help="simulated seconds (10)")
    ap.add_argument("--flows", type=int, default=N_FLOWS)
    ap.add_argument("--bytes", type=int, default=FLOW_BYTES, help="bytes per flow")
    ap.add_argument("--queue-bytes", type=int, default=ROUTER_BUFFER_BYTES,
                    help="router output DropTailQueue MaxSize in bytes (192528)")
    ap.add_argument("--no-ppp-compensation", action="store_true",
                    help="use the nominal 141.333 Mb/s instead of scaling by 9170/9168")
    ap.add_argument("--sack", action="store_true", help="TcpSocketBase::Sack = true")
    ap.add_argument("--recovery", choices=("classic", "prr"), default="classic",
                    help="TcpL4Protocol::RecoveryType: TcpClassicRecovery or TcpPrrRecovery")
    ap.add_argument("--cc", choices=("newreno", "cubic"), default="newreno",
                    help="TcpL4Protocol::SocketType: TcpNewReno or TcpCubic")
    ap.add_argument("--initial-cwnd", type=int, default=1, help="TcpSocket::InitialCwnd, segments (1)")
    ap.add_argument("--cubic-attr", action="append", default=[], metavar="NAME=VALUE",
                    help="a TcpCubic attribute (FastConvergence, TcpFriendliness, Beta, C, CubicDelta in ms)")
    ap.add_argument("--hystart", action="store_true",
                    help="TcpCubic::HyStart on (ns-3's default; atmsim models no HyStart, so off here)")
    args = ap.parse_args(argv)

    t_import = time.perf_counter()
    from ns import ns  # noqa: E402  (slow: cppyy loads all ns-3 libraries)
    import cppyy

    # C++ drop counter for the traffic-control layer (a Python callback would slow Run()).
    cppyy.cppdef(r"""
    namespace atmbench {
    static uint64_t g_tc_drops = 0;
    void OnTcDrop(ns3::Ptr<const ns3::Packet> p) { g_tc_drops++; }
    uint64_t TcDrops() { return g_tc_drops; }
    static uint32_t g_peak = 0;
    void OnQueueLen(uint32_t, uint32_t now) { if (now > g_peak) g_peak = now; }
    uint32_t PeakQueue() { return g_peak; }
    bool HookQueueLen(ns3::Ptr<ns3::QueueBase> q) {
      return q->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&OnQueueLen));
    }
    bool HookTcDrop(ns3::Ptr<ns3::Node> n) {
      auto tc = n->GetObject<ns3::TrafficControlLayer>();
      return tc && tc->TraceConnectWithoutContext("TcDrop", ns3::MakeCallback(&OnTcDrop));
    }
    // Per-sender counters: retransmitted data segments, RTO expiries, state entries.
    static std::map<const ns3::TcpSocketBase*, uint32_t> g_max_end;
    static uint64_t g_rexmit = 0, g_rto = 0, g_recovery = 0, g_loss = 0;
    void OnTx(ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h,
              ns3::Ptr<const ns3::TcpSocketBase> s) {
      uint32_t len = p->GetSize();
      if (len == 0) return;  // pure ACK or SYN: the trace carries the payload only
      uint32_t seq = h.GetSequenceNumber().GetValue();
      uint32_t& end = g_max_end[ns3::PeekPointer(s)];
      if (seq < end) g_rexmit++;
      if (seq + len > end) end = seq + len;
    }
    void OnRto(ns3::Time o, ns3::Time n) {
      if (n > o && n == std::min(o * 2, ns3::Seconds(60))) g_rto++;
    }
    void OnCong(ns3::TcpSocketState::TcpCongState_t o, ns3::TcpSocketState::TcpCongState_t n) {
      if (n == ns3::TcpSocketState::CA_RECOVERY && o != n) g_recovery++;
      if (n == ns3::TcpSocketState::CA_LOSS && o != n) g_loss++;
    }
    void HookSocket(uint32_t node) {
      std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
      ns3::Config::ConnectWithoutContext(base + "Tx", ns3::MakeCallback(&OnTx));
      ns3::Config::ConnectWithoutContext(base + "RTO", ns3::MakeCallback(&OnRto));
      ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeCallback(&OnCong));
    }
    // The socket exists once the application has started (BulkSend creates it then).
    void HookSocketAt(uint32_t node, double at_s) {
      ns3::Simulator::Schedule(ns3::Seconds(at_s), &HookSocket, node);
    }
    uint64_t Rexmits() { return g_rexmit; }
    uint64_t Rtos() { return g_rto; }
    uint64_t Recoveries() { return g_recovery; }
    uint64_t LossStates() { return g_loss; }
    }
    """)
    atmbench = cppyy.gbl.atmbench
    t_setup = time.perf_counter()

    # ---- TCP defaults -------------------------------------------------------------------
    C = ns.Config.SetDefault
    cc = ns.TcpCubic if args.cc == "cubic" else ns.TcpNewReno
    C("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(cc.GetTypeId()))
    if args.cc == "cubic":
        C("ns3::TcpCubic::HyStart", ns.BooleanValue(args.hystart))
        from dctcp_ns3 import cubic_value  # same folder; ns-3's attribute types by name
        for setting in args.cubic_attr:
            C("ns3::TcpCubic::" + setting.split("=")[0], cubic_value(ns, setting))
    recovery = ns.TcpPrrRecovery if args.recovery == "prr" else ns.TcpClassicRecovery
    C("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(recovery.GetTypeId()))
    C("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    C("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(args.initial_cwnd))
    C("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    C("ns3::TcpSocket::SndBufSize", ns.UintegerValue(WINDOW))
    C("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(WINDOW))
    C("ns3::TcpSocketBase::Sack", ns.BooleanValue(args.sack))
    C("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    C("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    C("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    C("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
    C("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(1)))

    # ---- topology -----------------------------------------------------------------------
    nf = args.flows
    senders = ns.NodeContainer(); senders.Create(nf)
    dests = ns.NodeContainer(); dests.Create(nf)
    routers = ns.NodeContainer(); routers.Create(2)
    r1, r2 = routers.Get(0), routers.Get(1)
    stack = ns.InternetStackHelper()
    stack.Install(senders); stack.Install(dests); stack.Install(routers)

    rate = CELL_RATE_BPS if args.no_ppp_compensation else \
        CELL_RATE_BPS * (IP_PACKET + PPP_HEADER) / IP_PACKET
    rate_bps = round(rate)  # ns3::DataRate is an integer bit/s; error < 1e-8

    def link(a, b, delay, a_is_router, b_is_router):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(rate_bps)))
        p2p.SetDeviceAttribute("Mtu", ns.UintegerValue(MTU))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>",
                     "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dB" % args.queue_bytes)))
        devs = p2p.Install(a, b)
        for i, is_router in ((0, a_is_router), (1, b_is_router)):
            if not is_router:
                d = ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(i))
                d.GetQueue().SetMaxSize(ns.QueueSize("%dp" % HOST_QUEUE_PACKETS))
        return devs

    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()
    subnet = [0]

    def assign(devs):
        subnet[0] += 1
        addr.SetBase(ns.Ipv4Address("10.%d.%d.0" % (subnet[0] // 256, subnet[0] % 256)),
                     ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(devs)
        # Assign() installed the default FqCoDel root queue disc: remove it (see docstring).
        tch.Uninstall(devs)
        return ifs

    us1, ms30 = ns.MicroSeconds(1), ns.MilliSeconds(30)
    for i in range(nf):
        assign(link(senders.Get(i), r1, us1, False, True))
    bott = link(r1, r2, ms30, True, True)
    assign(bott)
    dest_addrs = []
    for i in range(nf):
        ifs = assign(link(r2, dests.Get(i), us1, True, False))
        dest_addrs.append(ifs.GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    bott_queue = ns.DynamicCast[ns.PointToPointNetDevice](bott.Get(0)).GetQueue()
    if not atmbench.HookTcDrop(r1):
        sys.exit("could not connect TrafficControlLayer::TcDrop on R1")
    if not atmbench.HookQueueLen(bott_queue):
        sys.exit("could not connect PacketsInQueue on the R1->R2 queue")

    # ---- applications -------------------------------------------------------------------
    port = 5000
    sinks = []
    stop = ns.Seconds(args.duration)
    for i in range(nf):
        sh = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                 ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        apps = sh.Install(dests.Get(i))
        apps.Start(ns.Seconds(0.0))
        sinks.append(ns.DynamicCast[ns.PacketSink](apps.Get(0)))
        bh = ns.BulkSendHelper("ns3::TcpSocketFactory",
                               ns.InetSocketAddress(dest_addrs[i], port).ConvertTo())
        bh.SetAttribute("MaxBytes", ns.UintegerValue(args.bytes))
        bh.SetAttribute("SendSize", ns.UintegerValue(MSS))
        bapps = bh.Install(senders.Get(i))
        bapps.Start(ns.MilliSeconds(i * STAGGER_MS))
        # 1 us after the start: the socket exists, its SYN has not been answered yet.
        atmbench.HookSocketAt(senders.Get(i).GetId(), i * STAGGER_MS / 1000 + 1e-6)
    ns.Simulator.Stop(stop)

    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0

    per_flow = [int(s.GetTotalRx()) for s in sinks]
    delivered = sum(per_flow)
    umax = u_max_bytes(args.duration)
    tc_drops = int(atmbench.TcDrops())
    q_drops = int(bott_queue.GetTotalDroppedPackets())
    ns.Simulator.Destroy()

    try:
        from importlib.metadata import version
        ver = version("ns3")
    except Exception:  # pragma: no cover
        ver = "unknown"
    out = {
        "simulator": "ns-3",
        "version": ver,
        "scenario": "aron97-topo1-packet",
        "tcp": "%s+%s%s" % (cc.__name__, recovery.__name__, "+SACK" if args.sack else ""),
        "wall_s": wall,
        "setup_s": t0 - t_setup,
        "import_s": t_setup - t_import,
        "sim_time_s": args.duration,
        "effective_throughput": float(Fraction(delivered) / umax),
        "bytes_delivered": delivered,
        "u_max_bytes": float(umax),
        "per_flow_bytes": per_flow,
        "bottleneck_drops": tc_drops + q_drops,
        "bottleneck_drops_tc_layer": tc_drops,
        "bottleneck_drops_device_queue": q_drops,
        # waiting packets only (ns-3 does not count the one in transmission): expect 20
        "bottleneck_peak_queue_packets": int(atmbench.PeakQueue()),
        "fairness": jain(per_flow),
        "retransmissions": int(atmbench.Rexmits()),
        "timeouts": int(atmbench.Rtos()),
        "recoveries": int(atmbench.Recoveries()),
        "loss_states": int(atmbench.LossStates()),
        "link_rate_bps": rate_bps,
        "router_queue_bytes": args.queue_bytes,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
