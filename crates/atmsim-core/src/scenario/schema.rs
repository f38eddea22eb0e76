//! The TOML schema of a scenario file, as written: every quantity is still a
//! string with its unit (see [`super::units`]); [`super::validate`] checks
//! them and resolves the file into a [`super::Model`].
//!
//! Every section but `[topology]`, `[[link]]` and `[[flow]]` may be left out
//! and every key has a default; unknown keys are errors. `atmsim show` prints
//! a file with all defaults filled in ([`super::to_toml`]), which reads back
//! to the same scenario.
//!
//! Sources cited: Aron & Druschel, "End-to-End TCP Congestion Control over
//! ATM Networks", Rice TR97-273, 1997; Morris & Kung, "Impact of ATM
//! Switching and Flow Control on TCP Performance: Measurements on an
//! Experimental Switch", GLOBECOM 1995; ITU-T I.363.5 (AAL5); RFC 1483 and
//! its successor RFC 2684 (IP over AAL5); ATM Forum Traffic Management 4.0.
//!
//! Where the core type a key selects carries no parameters (`network`,
//! `atm.encapsulation`, `tcp.afr_predictor`, `credit.transport`) the file
//! names that type directly; the `*Name` enums here exist only where the core
//! type carries parameters the resolver computes, each saying why.

use crate::atm::aal5::Encapsulation;
use crate::transport::tcp::afr::Predictor;
use serde::{Deserialize, Serialize};

/// What the switching nodes are (`network` in a scenario file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// ATM switches: packets travel as cells, forwarded one by one by
    /// output-buffered switches (Aron & Druschel 1997, §3).
    #[default]
    Atm,
    /// The same nodes as IP routers: store-and-forward, whole packets.
    Packet,
}

/// What the seed of a run randomises (`seed_randomizes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedUse {
    /// Each host's coarse-timer phase is drawn uniformly in [0, tick), and
    /// nothing else. The BSD slow timer is a free-running per-host clock, so
    /// its phase against the traffic is the natural run-to-run variation;
    /// the papers average over seeds (Aron & Druschel §4: medians of 5 runs)
    /// without saying what they vary.
    #[default]
    TimerPhase,
    /// Fully deterministic: every host ticks at phase 0.
    Nothing,
}

/// When a run whose flows are all bounded ends (`stop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopRule {
    /// At the last bounded flow's delivery, or at `duration` if sooner:
    /// nothing after it can change a flow's outcome, so it is not simulated.
    #[default]
    Done,
    /// At `duration` always, as htsim runs to its `-end` and ns-3 to its
    /// `Simulator::Stop`: what the network does after the last completion
    /// (an EQDS pacer's slow pulls to finished flows, timers) is simulated
    /// and counted, for counts compared over the same span.
    Duration,
}

impl StopRule {
    fn is_default(rule: &Option<StopRule>) -> bool {
        matches!(rule, None | Some(StopRule::Done))
    }
}

/// `[atm]`: how IP packets become cells (only used on `network = "atm"`,
/// accepted on both so a scenario can flip networks).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AtmSection {
    /// "raw48": no AAL5 trailer, only padding to whole cells, as Aron &
    /// Druschel's simulator (§3: a 9168-byte packet is 191 cells);
    /// "aal5-vcmux": the 8-byte AAL5 CPCS trailer (ITU-T I.363.5) with
    /// VC-based multiplexing (RFC 2684 §6, RFC 1483 §5);
    /// "aal5-llc": the trailer and the 8-byte LLC/SNAP header (RFC 2684 §5,
    /// RFC 1483 §4), classical IP over ATM (RFC 1577) as Morris & Kung's hosts.
    pub encapsulation: Encapsulation,
}
impl Default for AtmSection {
    fn default() -> Self {
        AtmSection { encapsulation: Encapsulation::Raw48 }
    }
}

/// `[ip]`: packet sizes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IpSection {
    /// IP + TCP header bytes per segment (40: 20 + 20, no options).
    pub header_bytes: u32,
    /// Largest IP packet; 9180 bytes is the default MTU of IP over AAL5
    /// (RFC 1626, kept by RFC 1577).
    pub mtu: String,
}
impl Default for IpSection {
    fn default() -> Self {
        IpSection { header_bytes: 40, mtu: "9180B".into() }
    }
}

/// `[tcp]`: every connection's TCP, a BSD implementation with 4.4BSD-Lite's
/// timers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSection {
    /// A TCP variant registered under `tcp.variant`
    /// (`transport/tcp/congestion/`: lite, tahoe, newreno, vegas-rm, vegas,
    /// sack, ...; "-afr" adds Adaptive Fast Retransmit, Aron & Druschel
    /// §5.1.1).
    pub variant: String,
    /// AFR's 2-bit state (used by "-afr" variants only). "saturating": a
    /// saturating counter, two consecutive-loss episodes to switch to
    /// retransmitting two segments and two single-loss ones to switch back
    /// (Aron & Druschel §5.1.1); "hysteresis": the textbook 2-bit branch
    /// predictor, a contrary outcome in a weak state jumps to the opposite
    /// strong one.
    pub afr_predictor: Predictor,
    /// The fixes of Brakmo & Peterson, "Performance Problems in BSD4.4 TCP"
    /// (1995): the "TCP-Lite" of Aron & Druschel (footnote 2).
    pub bp95: bool,
    /// Maximum segment size (TCP payload); default MTU 9180 − 40.
    pub mss: String,
    /// Send buffer and receive window; above 64 KiB it assumes RFC 1323
    /// window scaling (at most 1 GiB).
    pub window: String,
    /// Initial window in segments (default: 2 for vegas, as Aron & Druschel
    /// §5.3, 1 otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// BSD delayed ACKs: one ACK per two segments, or at the 200 ms fast timer.
    pub delayed_ack: bool,
    /// Coarse (slow) timer tick: 500 ms in BSD; Aron & Druschel §5.4 also
    /// run 10 ms.
    pub tick: String,
    /// Smallest retransmission timeout, in ticks (BSD t_rttmin).
    pub rttmin_ticks: u32,
    /// Largest retransmission timeout, in ticks (BSD TCPTV_REXMTMAX).
    pub rxtmax_ticks: u32,
    /// Abort after 12 consecutive timeouts (BSD); false: never (ns-1).
    pub give_up: bool,
    /// ECN (RFC 3168 §6.1) at both ends: negotiated on the SYN and SYN-ACK,
    /// new data sent ECT(0), CE echoed as ECE until CWR, the window halved
    /// at most once per window of data. Needs `network = "packet"`.
    #[serde(skip_serializing_if = "is_false")]
    pub ecn: bool,
    /// Limited transmit with SACK (RFC 6675 §5 step 3, RFC 3042): before
    /// loss recovery each duplicate ACK may send new data while cwnd − pipe
    /// ≥ 1 SMSS; the data so sent stays out of the FlightSize that sets
    /// ssthresh (RFC 5681 §3.2). Needs a SACK variant.
    #[serde(skip_serializing_if = "is_false")]
    pub limited_transmit: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for TcpSection {
    fn default() -> Self {
        TcpSection {
            variant: "lite".into(),
            afr_predictor: Predictor::Saturating,
            bp95: true,
            mss: "9140B".into(),
            window: "64KiB".into(),
            initial_window: None,
            delayed_ack: true,
            tick: "500ms".into(),
            rttmin_ticks: 2,
            rxtmax_ticks: 128,
            give_up: true,
            ecn: false,
            limited_transmit: false,
        }
    }
}

pub use super::schema_switch::{InputServiceName, QueueingName, SwitchSection};

pub use super::schema_packet::RouterSection;

pub use super::schema_hosts::{CreditSection, HostKind, HostSection};

/// `[report]`: how results are normalised.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSection {
    /// The port whose capacity normalises effective throughput, "A->B"
    /// (Aron & Druschel §4: useful data over what "could have been
    /// transferred over the bottleneck link"). Default: the switch port
    /// crossed by most flows.
    pub bottleneck: Option<String>,
}

pub use super::schema_trace::TraceSection;

/// `[topology]`: node names, unique, without "->" — written out
/// (`kind = "explicit"`, with `[[link]]`s), or generated (`kind =
/// "fattree"`, `scenario/fattree.rs`: the hosts, switches and links of a
/// k-ary fat tree as htsim builds it, which then validate as if written).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// "explicit" (the default: the nodes and `[[link]]`s as written) or
    /// "fattree".
    #[serde(default, skip_serializing_if = "TopologyKind::is_explicit")]
    pub kind: TopologyKind,
    /// End systems: they run TCP and never forward.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// ATM switches, or IP routers on `network = "packet"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<String>,
    /// Fat tree: the switches' radix (even); default: the smallest whose
    /// tree holds `host_count` hosts (as htsim derives it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
    /// Fat tree: 3 (ToR, aggregation, core) or 2 (leaf-spine: ToR and
    /// aggregation); default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<u32>,
    /// Fat tree: hosts h0, h1, ... (default: all the tree holds, k³/4 with 3
    /// tiers, k²/2 with 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_count: Option<u32>,
    /// Fat tree: every link's rate, e.g. "10Gbps".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// Fat tree: every link's one-way delay (htsim: 1 µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<String>,
    /// The time a packet (or cell) spends crossing a switch between its
    /// arrival and its entry into the output queue, at every switch (htsim's
    /// `FatTreeSwitch` pipe, `switch_latency`, 0 by default); any topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_latency: Option<String>,
    /// Ports whose rate differs from their link's in this direction only
    /// (NDP Fig. 22: one core-to-aggregation direction at a tenth of the rate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub port_rate: Vec<PortRate>,
}

/// `[topology] kind`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    #[default]
    Explicit,
    Fattree,
    /// A scheduled cell fabric (`[fabric]`, `scenario/fabric.rs`).
    Fabric,
}

impl TopologyKind {
    fn is_explicit(&self) -> bool {
        *self == TopologyKind::Explicit
    }
}

/// `[[topology.port_rate]]`: one direction of a link at another rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortRate {
    /// The port, "A->B".
    pub port: String,
    pub rate: String,
}

/// `[measure]`: the window of `flows[].goodput_bps` (payload delivered in
/// order within it, over its length): htsim's NDP figures read rates so.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSection {
    pub from: String,
    pub to: String,
}

/// `[[link]]`, named `A-B` by its ends in errors and overrides
/// (`--set link.A-B.delay=5ms`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two ends; a link is full duplex (one port each way).
    pub ends: [String; 2],
    /// Line rate of each direction, e.g. "155.52Mbps" or "3us/cell".
    pub rate: String,
    /// One-way propagation delay.
    pub delay: String,
    /// Overrides `switch.buffer` for the switch ends of this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
}

/// `[[flow]]`, named by `name` in errors and overrides (`--set flow.f1.bytes=1MB`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    /// Sending host.
    pub src: String,
    /// Receiving host; the route is the shortest path in hops.
    pub dst: String,
    #[serde(default = "zero_time")]
    pub start: String,
    /// Bytes to transfer, or "unbounded".
    #[serde(default = "unbounded")]
    pub bytes: String,
    /// Scripted losses: the first transmissions of these data segments
    /// (0 = the first segment after the handshake) are dropped whole at the
    /// sender's adapter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop_segments: Vec<u64>,
    /// "tcp" (default), or "udp": a datagram source (Morris & Kung §V run
    /// one TCP against one UDP).
    #[serde(default)]
    pub kind: FlowKind,
    /// UDP: payload rate, e.g. "18.3Mbps".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// UDP: payload bytes per datagram (default: tcp.mss + 12, the IP size
    /// of a full TCP segment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datagram: Option<String>,
    /// TCP: this connection's window (send and receive buffers) instead of
    /// `tcp.window` (Chang et al. §4.3 give each source its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// UDP, instead of `rate`: a scripted source that hands one datagram to
    /// its host's adapter at each of these times after `start` (ascending).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub send_at: Vec<String>,
    /// Its traffic class in a scheduled fabric (0 … `fabric.tcs` − 1; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<u32>,
}

/// `flow.kind`. A name enum because the core's `App` carries the UDP rate
/// and datagram size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowKind {
    #[default]
    Tcp,
    Udp,
    /// An ARB rate-based connection (Chang, Huynh & Gray), parameters in `[arb]`.
    Arb,
    /// An NDP connection (Handley et al. 2017, as htsim runs it), sprayed
    /// over every shortest path; parameters in `[ndp]`.
    Ndp,
    /// An EQDS connection (Olteanu et al. 2022, as htsim runs it), sprayed
    /// by entropy over every shortest path; parameters in `[eqds]`.
    Eqds,
}

fn zero_time() -> String {
    "0s".into()
}
fn unbounded() -> String {
    "unbounded".into()
}
fn one() -> u64 {
    1
}

/// A scenario file, as written (all quantities still strings with units).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// "atm" (cells) or "packet" (IP routers).
    pub network: Network,
    /// Simulated time; the run also ends when every finite transfer is done
    /// (unless `stop = "duration"`).
    pub duration: String,
    /// When a run of bounded flows ends: "done" (the default) or "duration".
    /// Written out only when it is "duration" (the default changes nothing).
    #[serde(default, skip_serializing_if = "StopRule::is_default")]
    pub stop: Option<StopRule>,
    /// The run's seed (`--seed` overrides it).
    #[serde(default = "one")]
    pub seed: u64,
    /// What the seed randomises: "timer-phase" or "nothing".
    #[serde(default)]
    pub seed_randomizes: SeedUse,
    #[serde(default)]
    pub atm: AtmSection,
    #[serde(default)]
    pub ip: IpSection,
    #[serde(default)]
    pub tcp: TcpSection,
    #[serde(default)]
    pub switch: SwitchSection,
    #[serde(default)]
    pub router: RouterSection,
    #[serde(default)]
    pub credit: CreditSection,
    #[serde(default)]
    pub host: HostSection,
    #[serde(default)]
    pub report: ReportSection,
    #[serde(default)]
    pub trace: TraceSection,
    /// A window over which every flow's goodput is measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<MeasureSection>,
    /// Written by `atmsim show` only where ARB flows run (`to_toml`).
    #[serde(default)]
    pub arb: crate::scenario::schema_packet::ArbSection,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abr: Option<super::abr_schema::AbrSection>,
    /// TCP Boston and its measurements (`scenario/boston.rs`).
    pub boston: Option<crate::transport::boston::BostonConfig>,
    /// Ports and hosts written as pcap files by `--pcap` (`scenario/capture.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<super::schema_capture::CaptureSection>,
    /// A scheduled cell fabric between the hosts (`topology.kind = "fabric"`);
    /// `atmsim show` writes it, defaults filled in, wherever the fabric is the topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric: Option<super::schema_fabric::FabricSection>,
    pub topology: Topology,
    #[serde(rename = "link", default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkSpec>,
    /// The flows; a `[workload]` replaces them.
    #[serde(rename = "flow", default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSpec>,
    /// Flows from a connection matrix or a generated pattern (`scenario/workload.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<super::schema_workload::WorkloadSection>,
    /// The keys the mechanisms declare (`base::mechanism::Key`), read and
    /// written by `scenario/params.rs` rather than as fields.
    #[serde(skip)]
    pub params: crate::base::mechanism::Params,
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, key_of};

    #[test]
    fn unknown_key_is_named() {
        assert_eq!(key_of(&["tcp.colour=5"]), "tcp.colour");
        let e = check(&["bogus=1"]).unwrap_err();
        assert!(e.problem.contains("unknown field"), "{e}");
    }

    #[test]
    fn core_enums_read_their_kebab_case_names() {
        use crate::atm::aal5::Encapsulation;
        use crate::transport::tcp::afr::Predictor;
        for (name, e) in [("raw48", Encapsulation::Raw48), ("aal5-vcmux", Encapsulation::Aal5VcMux), ("aal5-llc", Encapsulation::Aal5Llc)] {
            assert_eq!(check(&["tcp.variant=lite-afr", &format!("atm.encapsulation={name}")]).unwrap().encap, e);
        }
        for (name, p) in [("saturating", Predictor::Saturating), ("hysteresis", Predictor::Hysteresis)] {
            assert_eq!(check(&["tcp.variant=lite-afr", &format!("tcp.afr_predictor={name}")]).unwrap().tcp.afr, Some(p));
        }
        assert_eq!(key_of(&["atm.encapsulation=aal5-vc-mux"]), "atm.encapsulation");
        assert_eq!(key_of(&["tcp.afr_predictor=Saturating"]), "tcp.afr_predictor");
    }

    #[test]
    fn bad_enum_value_and_bad_types() {
        assert_eq!(key_of(&["network=frame-relay"]), "network");
        assert_eq!(key_of(&["tcp.initial_window=\"two\""]), "tcp.initial_window");
        assert_eq!(key_of(&["flow.f1.start=5 parsecs"]), "flow[f1].start");
        assert_eq!(key_of(&["flow.f9.start=5ms"]), "flow.f9");
    }
}
