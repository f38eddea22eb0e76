#!/usr/bin/env python3
"""ns-3 mirror of atmsim's DCTCP and CUBIC dumbbells (validation/dctcp_ns3.py,
validation/cubic_ns3.py): one scenario, one JSON object.

    python bench/ns3/dctcp_ns3.py --flows 2 --k 20 --rtt-us 100 [--bytes 0] [--buffer 400]
                                  [--duration 0.05] [--warmup 0.02] [--recovery classic|prr]
    python bench/ns3/dctcp_ns3.py --cc cubic --sack --buffer 100 [--cubic-attr TcpFriendliness=false ...]

    S1..SN --(10 Gb/s or --access-gbps, 1 us)--> R1 --(10 Gb/s, RTT/2 - 2 us)--> R2 --(10 Gb/s, 1 us)--> D

N TcpDctcp senders (BulkSend; `--bytes 0` = unbounded, else a finite transfer each, all
started at 0: the incast) into one receiver D, every link 10 Gb/s, 1,500-byte IP packets.
Requires the PyPI package `ns3` (ns-3.44, cppyy bindings). cppyy's "Failed to materialize
symbols" lines on stderr are harmless.

Mirroring choices (atmsim's side: validation/dctcp_ns3.py; the differences that remain:
docs/validation.md, "DCTCP beside ns-3"):

* PPP: ns-3's point-to-point device adds 2 bytes to every frame; every rate is scaled by
  1502/1500 so that a 1,500-byte IP packet serialises in 1.2 us as in atmsim.
* The bottleneck port R1->R2: a RedQueueDisc as ns-3's DCTCP example sets it up (QW = 1:
  the instantaneous queue; UseEcn; UseHardDrop false: mark, do not drop, above MaxTh) with
  MinTh = MaxTh (a step) and Gentle false (otherwise ns-3 marks at random between MaxTh and
  2 MaxTh). Below it the device's DropTailQueue of 1 packet. ns-3's RED marks when the QUEUE
  DISC holds MaxTh packets or more (and more than 1) as the packet arrives; atmsim marks when
  the PORT holds more than K, the packet in transmission included. While the queue disc is
  not empty the port holds it, the 1 packet in the device queue (flow control stops the
  queue disc from feeding more) and the 1 in transmission, so MinTh = MaxTh = K - 1 marks
  exactly when atmsim does (for K >= 3; at B = K + 2 only the last place is marked, and at
  B <= K + 1 ns-3 marks only packets it then drops, N8, where atmsim marks none). The buffer B (atmsim's, counting the packet in
  transmission) is the queue disc's MaxSize B - 2 packets. No BQL (the helper enables none).
* `--cc cubic`: ns3::TcpCubic (HyStart off: atmsim models none; every other attribute at
  ns-3's default unless `--cubic-attr Name=value` sets it), and the bottleneck port a
  FifoQueueDisc of B - 2 packets over the same 1-packet device queue: tail drop at the same
  B as atmsim's `router.policy = "tail"`; K is not used.
* Every other device: the default FqCoDel queue disc removed; host NIC queues 100,000 packets.
* TCP: ns3::TcpDctcp (g = 1/16, alpha = 1 at first, ECT(0)), SegmentSize 1460, no
  timestamps, no SACK (atmsim's `dctcp`: NewReno underneath; `--sack`: atmsim's `dctcp-sack`), window scaling, 4 MiB buffers,
  InitialCwnd 10, DelAckCount 1 (an ACK per segment: atmsim's delayed_ack = false; with
  `--del-ack-count 2` ns-3's default, an ACK every second segment or after DelAckTimeout 200 ms),
  LimitedTransmit off (`--limited-transmit` on; with SACK ns-3 sends new data on the first
  duplicate ACKs whichever it is, docs/validation.md C8), MinRto 1 s (atmsim's 2 ticks of 500 ms; `--min-rto` sets it), TcpClassicRecovery (cwnd =
  ssthresh at once on an echo, as atmsim; `--recovery prr` for ns-3's default PRR).
* Measured over [warmup, duration] (finite flows: from 0 to the last flow's last byte, when
  the run stops): each sink's bytes, the
  port's occupancy (queue disc + device queue + the packet in transmission, time-weighted
  mean and max), each sender's cwnd (time-weighted mean, and at every decrease the value
  before and after: the sawtooth's peaks and troughs), and over the whole run its ECN reductions (entries into CA_CWR),
  at the end each sender's alpha (TcpDctcp's CongestionEstimate trace), the queue disc's
  marks and drops, and for finite flows each one's completion time (the
  sink's last byte); over the whole run each sender's recoveries (entries into CA_RECOVERY),
  timeouts (entries into CA_LOSS; those from CA_CWR, after an ECN echo, also apart) and
  retransmitted segments (the Retransmission trace);
  with `--trace-ms T` flow 1's cwnd every T ms over the measured interval.
"""

import json
import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "atmsim"))
from one_line_args import OneLineParser  # noqa: E402 - standard library only: ns-3's interpreter may lack atmsim

MSS = 1460
PACKET = 1500
RATE_BPS = 10_000_000_000
HOST_QUEUE_PACKETS = 100000
WINDOW = 4 * 1024 * 1024

CPP = r"""
namespace dctcpbench {
using namespace ns3;
static double g_from = 0, g_to = 0;
// The bottleneck port: queue disc + device queue + the packet in transmission.
static uint32_t g_qd = 0, g_dq = 0, g_busy = 0;
static double g_last = 0, g_area = 0; static uint32_t g_max = 0;
void Port() {
  double now = Simulator::Now().GetSeconds();
  uint32_t q = g_qd + g_dq + g_busy;
  double a = std::max(g_last, g_from), b = std::min(now, g_to);
  static uint32_t prev = 0;
  if (b > a) g_area += prev * (b - a);
  g_last = now; prev = q;
  if (now >= g_from && now <= g_to && q > g_max) g_max = q;
}
void OnQd(uint32_t, uint32_t n) { g_qd = n; Port(); }
void OnDq(uint32_t, uint32_t n) { g_dq = n; Port(); }
void OnTxBegin(Ptr<const Packet>) { g_busy = 1; Port(); }
void OnTxEnd(Ptr<const Packet>) { g_busy = 0; Port(); }
void Hook(Ptr<QueueDisc> qd, Ptr<QueueBase> dq, Ptr<NetDevice> dev, double from, double to) {
  g_from = from; g_to = to;
  qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQd));
  dq->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDq));
  dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
  dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnTxEnd));
}
double PortMean() { Port(); return g_area / (g_to - g_from); }
uint32_t PortMax() { return g_max; }
// Per sender: cwnd (time-weighted), its decreases, CWR entries, alpha.
struct Flow { bool seen = false; double last = 0, area = 0; uint32_t cwnd = 0; uint64_t dec = 0;
              double peaks = 0, troughs = 0; uint64_t cwr = 0; double alpha = 1; double done = -1;
              uint64_t rx = 0, rx_from = 0; uint64_t rec = 0, loss = 0, loss_cwr = 0, rtx = 0;
              std::vector<double> ts; std::vector<uint32_t> cs; };
static std::vector<Flow> g_flows;
void Cwnd(uint32_t i, uint32_t o, uint32_t n) {
  Flow& f = g_flows[i];
  // The socket set its initial window before the hook: the first change's old value.
  if (!f.seen) { f.seen = true; f.cwnd = o; }
  double now = Simulator::Now().GetSeconds();
  double a = std::max(f.last, g_from), b = std::min(now, g_to);
  if (b > a) f.area += f.cwnd * (b - a);
  f.last = now; f.cwnd = n;
  if (i == 0) { f.ts.push_back(now); f.cs.push_back(n); }
  if (n < o && now >= g_from && now <= g_to) { f.dec++; f.peaks += o; f.troughs += n; }
}
void Cong(uint32_t i, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
  if (o == n) return;
  if (n == TcpSocketState::CA_CWR) g_flows[i].cwr++;
  if (n == TcpSocketState::CA_RECOVERY) g_flows[i].rec++;
  if (n == TcpSocketState::CA_LOSS) { g_flows[i].loss++; if (o == TcpSocketState::CA_CWR) g_flows[i].loss_cwr++; }
}
void Alpha(uint32_t i, uint32_t, uint32_t, double a) { g_flows[i].alpha = a; }
void Rtx(uint32_t i, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
         Ptr<const TcpSocketBase>) { g_flows[i].rtx++; }
void HookSocket(uint32_t i, uint32_t node, bool dctcp) {
  std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
  Config::ConnectWithoutContext(base + "CongestionWindow", MakeBoundCallback(&Cwnd, i));
  Config::ConnectWithoutContext(base + "CongState", MakeBoundCallback(&Cong, i));
  Config::ConnectWithoutContext(base + "Retransmission", MakeBoundCallback(&Rtx, i));
  if (dctcp) Config::ConnectWithoutContext(base + "CongestionOps/$ns3::TcpDctcp/CongestionEstimate",
                                           MakeBoundCallback(&Alpha, i));
}
// Finite flows: the run ends with the last one's last byte, the window with it.
void Rx(uint32_t i, uint64_t want, Ptr<const Packet> p, const Address&) {
  Flow& f = g_flows[i];
  f.rx += p->GetSize();
  if (!want || f.rx < want || f.done >= 0) return;
  f.done = Simulator::Now().GetSeconds();
  for (auto& g : g_flows) if (g.done < 0) return;
  Port(); g_to = f.done; Simulator::Stop();
}
void RxFrom() { for (auto& f : g_flows) f.rx_from = f.rx; }
void Setup(uint32_t n) { g_flows.assign(n, Flow()); Simulator::Schedule(Seconds(g_from), &RxFrom); }
void HookAt(uint32_t i, uint32_t node, double at, bool dctcp) {
  Simulator::Schedule(Seconds(at), &HookSocket, i, node, dctcp);
}
void HookSink(uint32_t i, Ptr<Application> sink, uint64_t want) {
  sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Rx, i, want));
}
double MeanCwnd(uint32_t i) { Cwnd(i, g_flows[i].cwnd, g_flows[i].cwnd); return g_flows[i].area / (g_to - g_from); }
uint64_t Decreases(uint32_t i) { return g_flows[i].dec; }
double Peaks(uint32_t i) { return g_flows[i].peaks; }
double Troughs(uint32_t i) { return g_flows[i].troughs; }
uint64_t Cwr(uint32_t i) { return g_flows[i].cwr; }
double FlowAlpha(uint32_t i) { return g_flows[i].alpha; }
double Done(uint32_t i) { return g_flows[i].done; }
uint64_t RxWindow(uint32_t i) { return g_flows[i].rx - g_flows[i].rx_from; }
uint64_t Recoveries(uint32_t i) { return g_flows[i].rec; }
uint64_t Timeouts(uint32_t i) { return g_flows[i].loss; }
uint64_t TimeoutsFromCwr(uint32_t i) { return g_flows[i].loss_cwr; }
uint64_t Retransmitted(uint32_t i) { return g_flows[i].rtx; }
// Flow 1's cwnd (bytes) at time t: the last change at or before t.
uint32_t CwndAt(double t) {
  Flow& f = g_flows[0];
  auto it = std::upper_bound(f.ts.begin(), f.ts.end(), t);
  return it == f.ts.begin() ? 0 : f.cs[it - f.ts.begin() - 1];
}
}
"""


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flows", type=int, default=2)
    ap.add_argument("--k", type=int, default=20, help="atmsim's K: mark above K packets at the port")
    ap.add_argument("--buffer", type=int, default=400, help="packets at the port, the one in transmission included")
    ap.add_argument("--rtt-us", type=float, default=100.0, help="propagation round trip, us")
    ap.add_argument("--bytes", type=int, default=0, help="bytes per flow (0: unbounded)")
    ap.add_argument("--duration", type=float, default=0.05)
    ap.add_argument("--warmup", type=float, default=0.02)
    ap.add_argument("--stagger-us", type=float, default=10.0, help="flow i starts at i x this")
    ap.add_argument("--del-ack-count", type=int, default=1, help="TcpSocket::DelAckCount (1: an ACK per segment)")
    ap.add_argument("--sack", action="store_true", help="TcpSocketBase::Sack = true (atmsim's dctcp-sack)")
    ap.add_argument("--recovery", choices=("classic", "prr"), default="classic")
    ap.add_argument("--limited-transmit", action="store_true", help="TcpSocketBase::LimitedTransmit = true")
    ap.add_argument("--cc", choices=("dctcp", "cubic"), default="dctcp",
                    help="cubic: TcpCubic over a tail-drop FifoQueueDisc (K unused)")
    ap.add_argument("--cubic-attr", action="append", default=[], metavar="NAME=VALUE",
                    help="a TcpCubic attribute (FastConvergence, TcpFriendliness, Beta, C, CubicDelta in ms)")
    ap.add_argument("--access-gbps", type=float, default=10.0, help="the senders' links S_i -> R1, Gb/s")
    ap.add_argument("--min-rto", type=float, default=1.0, help="TcpSocketBase::MinRto, s")
    ap.add_argument("--trace-ms", type=float, default=0.0, help="also report flow 1's cwnd every this many ms")
    a = ap.parse_args(argv)
    cubic = a.cc == "cubic"
    if a.buffer < 3:
        ap.error("--buffer must be >= 3 (see the docstring)")
    if not cubic and a.k < 3:
        ap.error("--k must be >= 3 (see the docstring)")

    from ns import ns  # slow: cppyy loads every ns-3 library
    import cppyy
    cppyy.cppdef(CPP)
    bench = cppyy.gbl.dctcpbench

    C = ns.Config.SetDefault
    C("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue((ns.TcpCubic if cubic else ns.TcpDctcp).GetTypeId()))
    if cubic:
        C("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
        for setting in a.cubic_attr:
            C("ns3::TcpCubic::" + setting.split("=")[0], cubic_value(ns, setting))
    recovery = ns.TcpPrrRecovery if a.recovery == "prr" else ns.TcpClassicRecovery
    C("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(recovery.GetTypeId()))
    for key, val in (("TcpSocket::SegmentSize", ns.UintegerValue(MSS)),
                     ("TcpSocket::InitialCwnd", ns.UintegerValue(10)),
                     ("TcpSocket::DelAckCount", ns.UintegerValue(a.del_ack_count)),
                     ("TcpSocket::SndBufSize", ns.UintegerValue(WINDOW)),
                     ("TcpSocket::RcvBufSize", ns.UintegerValue(WINDOW)),
                     ("TcpSocketBase::Sack", ns.BooleanValue(a.sack)),
                     ("TcpSocketBase::Timestamp", ns.BooleanValue(False)),
                     ("TcpSocketBase::WindowScaling", ns.BooleanValue(True)),
                     ("TcpSocketBase::LimitedTransmit", ns.BooleanValue(a.limited_transmit)),
                     ("TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(a.min_rto))),
                     ("RedQueueDisc::UseEcn", ns.BooleanValue(True)),
                     ("RedQueueDisc::UseHardDrop", ns.BooleanValue(False)),
                     ("RedQueueDisc::Gentle", ns.BooleanValue(False)),
                     ("RedQueueDisc::QW", ns.DoubleValue(1.0)),
                     ("RedQueueDisc::MeanPktSize", ns.UintegerValue(PACKET)),
                     ("RedQueueDisc::MinTh", ns.DoubleValue(a.k - 1)),
                     ("RedQueueDisc::MaxTh", ns.DoubleValue(a.k - 1)),
                     ("RedQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % (a.buffer - 2))))):
        C("ns3::" + key, val)

    n = a.flows
    senders = ns.NodeContainer(); senders.Create(n)
    routers = ns.NodeContainer(); routers.Create(3)
    r1, r2, dst = routers.Get(0), routers.Get(1), routers.Get(2)
    stack = ns.InternetStackHelper()
    stack.Install(senders); stack.Install(routers)
    rate = ns.DataRate(round(RATE_BPS * (PACKET + 2) / PACKET))
    addr, tch, subnet = ns.Ipv4AddressHelper(), ns.TrafficControlHelper(), [0]

    def link(x, y, delay_us, device_queue, rate=rate):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(rate))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(round(delay_us * 1000))))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(device_queue)))
        devs = p2p.Install(x, y)
        subnet[0] += 1
        addr.SetBase(ns.Ipv4Address("10.%d.%d.0" % (subnet[0] // 256, subnet[0] % 256)), ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(devs)
        tch.Uninstall(devs)  # Assign() installed FqCoDel
        return devs, ifs

    for i in range(n):
        link(senders.Get(i), r1, 1.0, "%dp" % HOST_QUEUE_PACKETS, ns.DataRate(round(a.access_gbps * 1e9 * (PACKET + 2) / PACKET)))
    bott, _ = link(r1, r2, a.rtt_us / 2 - 2.0, "1p")
    _, last = link(r2, dst, 1.0, "%dp" % HOST_QUEUE_PACKETS)
    red = ns.TrafficControlHelper()
    if cubic:
        red.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % (a.buffer - 2))))
    else:
        red.SetRootQueueDisc("ns3::RedQueueDisc")
    qd = red.Install(bott.Get(0)).Get(0)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    finite = a.bytes > 0
    start_from, stop = (0.0, a.duration) if finite else (a.warmup, a.duration)
    bott_dev = ns.DynamicCast[ns.PointToPointNetDevice](bott.Get(0))
    bench.Hook(qd, bott_dev.GetQueue(), bott_dev, start_from, stop)
    bench.Setup(n)

    for i in range(n):
        port = 5000 + i
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                   ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()).Install(dst)
        sink.Start(ns.Seconds(0.0))
        bench.HookSink(i, sink.Get(0), a.bytes)
        bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(last.GetAddress(1), port).ConvertTo())
        bh.SetAttribute("MaxBytes", ns.UintegerValue(a.bytes))
        bh.SetAttribute("SendSize", ns.UintegerValue(MSS))
        apps = bh.Install(senders.Get(i))
        at = 0.0 if finite else i * a.stagger_us * 1e-6
        apps.Start(ns.Seconds(at))
        bench.HookAt(i, senders.Get(i).GetId(), at + 1e-9, not cubic)
    ns.Simulator.Stop(ns.Seconds(a.duration))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0

    stats = qd.GetStats()
    span = (max(bench.Done(i) for i in range(n)) if finite else stop) - start_from
    flows = []
    for i in range(n):
        dec = int(bench.Decreases(i))
        flows.append({
            "goodput_bps": bench.RxWindow(i) * 8 / span,
            "mean_cwnd": bench.MeanCwnd(i) / MSS,
            "decreases": dec,
            "peak_cwnd": bench.Peaks(i) / dec / MSS if dec else None,
            "trough_cwnd": bench.Troughs(i) / dec / MSS if dec else None,
            "reductions": int(bench.Cwr(i)),
            "alpha": float(bench.FlowAlpha(i)),
            "completion_s": float(bench.Done(i)) if finite and bench.Done(i) >= 0 else None,
            "recoveries": int(bench.Recoveries(i)), "timeouts": int(bench.Timeouts(i)),
            "retransmitted": int(bench.Retransmitted(i)), "timeouts_from_cwr": int(bench.TimeoutsFromCwr(i)),
        })
    out = {
        "simulator": "ns-3", "flows": flows, "wall_s": wall,
        "utilisation": sum(f["goodput_bps"] for f in flows) / (RATE_BPS * MSS / PACKET),
        "queue_mean": bench.PortMean(), "queue_max": int(bench.PortMax()),
        "marks": int(stats.nTotalMarkedPackets), "drops": int(stats.nTotalDroppedPackets),
        "queue_disc": ("FifoQueueDisc MaxSize %dp" % (a.buffer - 2) if cubic else
                       "RedQueueDisc MinTh = MaxTh = %d, MaxSize %dp" % (a.k - 1, a.buffer - 2)),
        "recovery": recovery.__name__,
    }
    if a.limited_transmit:
        out["limited_transmit"] = True
    if cubic:
        out["cubic_attributes"] = ["HyStart=false"] + a.cubic_attr
    if a.trace_ms > 0:
        steps = int(round((stop - start_from) * 1e3 / a.trace_ms))
        out["cwnd_trace"] = [bench.CwndAt(start_from + j * a.trace_ms / 1e3) / MSS for j in range(steps + 1)]
    ns.Simulator.Destroy()
    print(json.dumps(out))


def cubic_value(ns, setting):
    """`Name=value` as the AttributeValue TcpCubic's attribute of that name takes."""
    name, _, value = setting.partition("=")
    if name in ("FastConvergence", "TcpFriendliness", "HyStart"):
        return ns.BooleanValue(value.lower() == "true")
    if name == "CubicDelta":
        return ns.TimeValue(ns.MilliSeconds(float(value)))
    return ns.DoubleValue(float(value))


if __name__ == "__main__":
    main()
