//! The TOML schema of a scenario file, as written: every quantity is still a
//! string with its unit; [`super::validate`] resolves them into a
//! [`super::Model`].

use super::model::{CreditTransport, Network, SeedUse};
use crate::atm::aal5::Encapsulation;
use crate::transport::tcp::afr::Predictor;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    #[default]
    Tail,
    Ppd,
    Epd,
    EomProtect,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueingName {
    /// One FIFO per output port (the papers' "FCFS output buffering").
    #[default]
    Fifo,
    /// One queue per VC, served round robin (CreditNet); the limit is per VC.
    PerVc,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VariantName {
    #[default]
    Lite,
    LiteAfr,
    Tahoe,
    Newreno,
    VegasRm,
    VegasRmAfr,
    Vegas,
    VegasAfr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AtmSection {
    /// raw48 (Aron & Druschel's x-sim), aal5-vcmux, aal5-llc.
    pub encapsulation: Encapsulation,
}
impl Default for AtmSection {
    fn default() -> Self {
        AtmSection { encapsulation: Encapsulation::Raw48 }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IpSection {
    /// IP + TCP header bytes per segment (40: no options).
    pub header_bytes: u32,
    pub mtu: String,
}
impl Default for IpSection {
    fn default() -> Self {
        IpSection { header_bytes: 40, mtu: "9180B".into() }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSection {
    /// lite (4.4BSD-Lite Reno-style recovery), tahoe, newreno, vegas-rm,
    /// vegas; "-afr" adds adaptive fast retransmit (Aron & Druschel §5).
    pub variant: VariantName,
    /// AFR's 2-bit predictor (tcp.md §3).
    pub afr_predictor: Predictor,
    /// Brakmo–Peterson fixes (the "Lite.4" of Aron & Druschel).
    pub bp95: bool,
    pub mss: String,
    /// Send buffer and receive window.
    pub window: String,
    /// Initial window in segments (default: 2 for vegas, 1 otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    pub delayed_ack: bool,
    /// Coarse (slow) timer tick.
    pub tick: String,
    pub rttmin_ticks: u32,
    pub rxtmax_ticks: u32,
}
impl Default for TcpSection {
    fn default() -> Self {
        TcpSection {
            variant: VariantName::Lite,
            afr_predictor: Predictor::Saturating,
            bp95: true,
            mss: "9140B".into(),
            window: "64KiB".into(),
            initial_window: None,
            delayed_ack: true,
            tick: "500ms".into(),
            rttmin_ticks: 2,
            rxtmax_ticks: 128,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSection {
    /// Output buffer of every switch/router port: bytes (payload bytes on
    /// ATM, "effective buffer size"), "N cells" or "N packets".
    pub buffer: String,
    pub queueing: QueueingName,
    pub policy: PolicyName,
    /// EPD threshold in cells (default: limit − cells of a full frame, ≥ limit/2).
    pub epd_threshold: Option<u64>,
    /// EOM-protection reserve in cells (default: VCs through the port).
    pub eom_reserve: Option<u64>,
}
impl Default for SwitchSection {
    fn default() -> Self {
        SwitchSection {
            buffer: "512cells".into(),
            queueing: QueueingName::Fifo,
            policy: PolicyName::Tail,
            epd_threshold: None,
            eom_reserve: None,
        }
    }
}

/// `[router]`: what only the IP routers of `network = "packet"` have.
///
/// The buffer of a router port stays `switch.buffer` (bytes or packets), so
/// that one scenario runs on both networks by flipping `network` alone:
/// Aron & Druschel (1997, §4, Fig. 3) compare ATM and packet networks at the
/// same "effective buffer size" in payload bytes (`switch.buffer =
/// "192528B"` is B/48 cells on ATM and B bytes on a router). Only the keys
/// whose meaning differs between cells and packets are split: the frame
/// discard keys stay in `[switch]` and are refused on a packet network.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RouterSection {
    /// What a full router port does with an arriving packet.
    pub policy: RouterPolicyName,
}

/// Router drop policies by name. A name enum rather than the core's
/// `DiscardPolicy` because the policies to come (random drop, RED) carry
/// parameters, which will be keys of `[router]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouterPolicyName {
    /// Drop the arriving packet if it does not fit in the buffer (bytes or
    /// packets, counting the packet in transmission).
    #[default]
    Tail,
}

/// Credit-based hop-by-hop flow control (N23, credit.md).
///
/// How credits travel (`transport`):
/// - "in-band" (default, credit.md §3 [choice]; CreditNet carried credits as
///   cells): after the receiver's processing delay a 53-byte credit cell
///   queues at the port of the reverse direction, is sent before any data
///   cell there (strict priority), takes one cell slot, and reaches the
///   sender after the link's propagation delay;
/// - "out-of-band": the credit reaches the sender one processing delay plus
///   one propagation delay after it is due and takes no slot (an idealised
///   side channel, for comparison).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CreditSection {
    pub enabled: bool,
    /// One credit cell per `n2` cells forwarded.
    pub n2: u64,
    /// Round-trip cover; each VC reserves n2 + n3 cells at every receiver.
    pub n3: u64,
    /// Credit processing delay in switches and in host adapters.
    pub switch_delay: String,
    pub host_delay: String,
    pub transport: CreditTransport,
}

impl Default for CreditSection {
    fn default() -> Self {
        CreditSection {
            enabled: false,
            n2: 10,
            n3: 90,
            switch_delay: "0us".into(),
            host_delay: "5us".into(),
            transport: CreditTransport::InBand,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostKind {
    /// Zero processing time, cut-through adapters (Aron & Druschel §3).
    #[default]
    Ideal,
    /// Morris & Kung's hosts: CPU at `tcp_rate`, one-packet adapters on a
    /// bus at `bus_rate` (experiments.md morris-kung95 G5).
    Adapter,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostSection {
    pub model: HostKind,
    pub tcp_rate: String,
    pub bus_rate: String,
}
impl Default for HostSection {
    fn default() -> Self {
        HostSection { model: HostKind::Ideal, tcp_rate: "15MB/s".into(), bus_rate: "100MB/s".into() }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSection {
    /// The port whose capacity normalises effective throughput, "A->B".
    /// Default: the switch port crossed by most flows.
    pub bottleneck: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSection {
    /// Sampling interval of queue occupancy traces.
    pub interval: String,
    /// A port ("A->B") whose every occupancy change (arrival, departure,
    /// drop) is logged, per cell, when traces are on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
}
impl Default for TraceSection {
    fn default() -> Self {
        TraceSection { interval: "10ms".into(), port: None }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub hosts: Vec<String>,
    pub switches: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two ends; a link is full duplex (one port each way).
    pub ends: [String; 2],
    pub rate: String,
    pub delay: String,
    /// Overrides `switch.buffer` for the switch ends of this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    pub src: String,
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
    /// "tcp" (default), or "udp": a constant-rate datagram source.
    #[serde(default)]
    pub kind: FlowKind,
    /// UDP: payload rate, e.g. "18.3Mbps".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// UDP: payload bytes per datagram (default: tcp.mss + 12, the same IP size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datagram: Option<String>,
    /// UDP, instead of `rate`: a scripted source that hands one datagram to
    /// its host's adapter at each of these times after `start` (ascending).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub send_at: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowKind {
    #[default]
    Tcp,
    Udp,
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
    pub network: Network,
    pub duration: String,
    #[serde(default = "one")]
    pub seed: u64,
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
    pub topology: Topology,
    #[serde(rename = "link")]
    pub links: Vec<LinkSpec>,
    #[serde(rename = "flow")]
    pub flows: Vec<FlowSpec>,
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
