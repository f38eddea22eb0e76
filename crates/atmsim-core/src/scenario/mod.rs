//! Scenarios: the TOML schema, `--set` overrides, validation with precise
//! errors, and the resolved [`Model`] the simulator is built from.
//!
//! Every problem is reported as one [`ScenarioError`] naming the key
//! (`link[R1-R2].rate: rate '0Mbps' must be positive`) before anything runs.

pub mod units;

use crate::atm::aal5::Encapsulation;
use crate::atm::discard::DiscardPolicy;
use crate::host::HostModel;
use crate::net::{Limit, NodeId, PortId};
use crate::time::{Rate, Time, PS_PER_MS};
use crate::transport::tcp::afr::Predictor;
use crate::transport::tcp::{TcpConfig, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use units::{parse_buffer, parse_bytes, parse_rate, parse_time, BufferSize};

/// An invalid scenario: the offending key and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub key: String,
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.problem)
    }
}
impl std::error::Error for ScenarioError {}

fn err<T>(key: impl Into<String>, problem: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { key: key.into(), problem: problem.into() })
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    #[default]
    Atm,
    Packet,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedUse {
    /// Each host's coarse-timer phase is drawn uniformly in [0, tick)
    /// (tcp.md §1.1): the run-to-run variation the papers average over.
    #[default]
    TimerPhase,
    /// Fully deterministic: every host ticks at phase 0.
    Nothing,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncapName {
    #[default]
    Raw48,
    Aal5Vcmux,
    Aal5Llc,
}

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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictorName {
    #[default]
    Saturating,
    Hysteresis,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AtmSection {
    /// raw48 (Aron & Druschel's x-sim), aal5-vcmux, aal5-llc.
    pub encapsulation: EncapName,
}
impl Default for AtmSection {
    fn default() -> Self {
        AtmSection { encapsulation: EncapName::Raw48 }
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
    pub afr_predictor: PredictorName,
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
            afr_predictor: PredictorName::Saturating,
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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CreditTransport {
    #[default]
    InBand,
    OutOfBand,
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

/// IP + UDP header bytes.
pub const UDP_HEADER_BYTES: u32 = 28;

/// What drives a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// A TCP bulk transfer (of `FlowModel::bytes`, or unbounded).
    Tcp,
    /// Datagrams of `payload` bytes at a constant payload `rate`, or, when
    /// `rate` is None, one at each time of `FlowModel::send_at`.
    Cbr { payload: u32, rate: Option<Rate> },
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

/// Parses TOML text and applies `key=value` overrides.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| ScenarioError {
        key: "scenario".into(),
        problem: format!("invalid TOML: {}", e.message()),
    })?;
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." || path.is_empty() { "scenario".to_string() } else { path };
        ScenarioError { key, problem: e.into_inner().to_string().replace('\n', " ").trim().to_string() }
    })
}

/// `a.b.c=value`: tables by key; arrays of tables by index, by `name`, or
/// (links) by `A-B`. Values are TOML (`5`, `true`, `"x"`) or bare strings.
fn apply_override(table: &mut toml::Table, o: &str) -> Result<(), ScenarioError> {
    let Some((path, raw)) = o.split_once('=') else {
        return err(o, "override must be key=value");
    };
    let (path, raw) = (path.trim(), raw.trim());
    let value = match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap(),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return err(path, "empty key segment");
    }
    let mut cur = table;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if last {
            cur.insert(part.to_string(), value);
            return Ok(());
        }
        let next = cur.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match next {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) => {
                let sel = parts[i + 1];
                let found = items.iter_mut().enumerate().find(|(ix, v)| {
                    sel.parse::<usize>().ok() == Some(*ix)
                        || v.get("name").and_then(|n| n.as_str()) == Some(sel)
                        || v.get("ends").and_then(|e| e.as_array()).is_some_and(|e| {
                            let names: Vec<&str> = e.iter().filter_map(|x| x.as_str()).collect();
                            names.join("-") == sel
                        })
                });
                let Some((_, elem)) = found else {
                    return err(parts[..i + 2].join("."), format!("no {part} named or numbered '{sel}'"));
                };
                if i + 2 == parts.len() {
                    return err(path, "cannot replace a whole array element; set one of its keys");
                }
                // Skip the selector segment.
                let rest = parts[i + 2..].join(".");
                let toml::Value::Table(t) = elem else {
                    return err(path, "not a table");
                };
                return apply_override(t, &format!("{rest}={raw}"));
            }
            _ => return err(parts[..=i].join("."), "is a value, not a table"),
        };
    }
    Ok(())
}

/// The fully resolved scenario as TOML (defaults filled in).
pub fn to_toml(s: &Scenario) -> String {
    toml::to_string(s).expect("a valid scenario serialises")
}

/// One output port of the built network.
#[derive(Clone, Debug)]
pub struct PortModel {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub limit: Limit,
    pub policy: DiscardPolicy,
    pub per_vc: bool,
    /// Credit flow control on this link: (N2 + N3, N2).
    pub credit: Option<(u64, u64)>,
    /// Credit processing delay at the receiving end of this link.
    pub credit_delay: Time,
}

#[derive(Clone, Debug)]
pub struct FlowModel {
    pub name: String,
    pub app: App,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub bytes: Option<u64>,
    /// Sorted indices of data segments whose first transmission is dropped.
    pub drop_segments: Vec<u64>,
    /// Scripted datagram source: send times after `start`, ascending.
    pub send_at: Vec<Time>,
    pub data_route: Vec<PortId>,
    pub ack_route: Vec<PortId>,
}

/// A validated scenario with every quantity in simulator units.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub network: Network,
    pub duration: Time,
    pub seed: u64,
    pub seed_use: SeedUse,
    pub encap: Encapsulation,
    pub header_bytes: u32,
    pub tcp: TcpConfig,
    pub tick: Time,
    pub node_names: Vec<String>,
    pub is_host: Vec<bool>,
    pub ports: Vec<PortModel>,
    pub flows: Vec<FlowModel>,
    pub bottleneck: PortId,
    pub trace_interval: Time,
    /// The port whose occupancy changes are logged (`trace.port`).
    pub trace_port: Option<PortId>,
    pub credit_transport: CreditTransport,
    pub host: Option<HostModel>,
}

impl Model {
    /// Units of a full-size data segment on the wire (cells or 1 packet) and
    /// its wire bytes.
    pub fn wire_bytes_of(&self, payload: u32) -> u64 {
        let ip = payload + self.header_bytes;
        match self.network {
            Network::Atm => self.encap.cells(ip) as u64 * 53,
            Network::Packet => ip as u64,
        }
    }
}

fn time(key: &str, s: &str) -> Result<Time, ScenarioError> {
    parse_time(s).or_else(|p| err(key, p))
}

/// Checks a parsed scenario and resolves it into a [`Model`].
pub fn validate(s: &Scenario, seed: Option<u64>) -> Result<Model, ScenarioError> {
    let duration = time("duration", &s.duration)?;
    if duration == 0 {
        return err("duration", "must be positive");
    }
    let header_bytes = s.ip.header_bytes;
    if header_bytes < 40 {
        return err("ip.header_bytes", "must be at least 40 (IP and TCP headers)");
    }
    let mtu = parse_bytes(&s.ip.mtu).or_else(|p| err("ip.mtu", p))?;
    let mss = parse_bytes(&s.tcp.mss).or_else(|p| err("tcp.mss", p))?;
    if mss == 0 {
        return err("tcp.mss", "must be positive");
    }
    if mss + header_bytes as u64 > mtu {
        return err("tcp.mss", format!("{mss} + {header_bytes} header bytes exceeds ip.mtu {mtu}"));
    }
    if mss > 65495 {
        return err("tcp.mss", "larger than an AAL5 PDU can carry");
    }
    let window = parse_bytes(&s.tcp.window).or_else(|p| err("tcp.window", p))?;
    if window < mss {
        return err("tcp.window", "smaller than one segment");
    }
    if window > 1 << 30 {
        return err("tcp.window", "larger than RFC 1323 window scaling allows (1 GiB)");
    }
    let tick = time("tcp.tick", &s.tcp.tick)?;
    if tick == 0 {
        return err("tcp.tick", "must be positive");
    }
    let (variant, afr) = match s.tcp.variant {
        VariantName::Lite => (Variant::Lite, false),
        VariantName::LiteAfr => (Variant::Lite, true),
        VariantName::Tahoe => (Variant::Tahoe, false),
        VariantName::Newreno => (Variant::NewReno, false),
        VariantName::VegasRm => (Variant::VegasRm, false),
        VariantName::VegasRmAfr => (Variant::VegasRm, true),
        VariantName::Vegas => (Variant::Vegas, false),
        VariantName::VegasAfr => (Variant::Vegas, true),
    };
    let initial_window = s.tcp.initial_window.unwrap_or(variant.default_initial_window());
    if initial_window == 0 {
        return err("tcp.initial_window", "must be at least one segment");
    }
    if s.tcp.rttmin_ticks == 0 || s.tcp.rxtmax_ticks < s.tcp.rttmin_ticks {
        return err("tcp.rxtmax_ticks", "must be >= tcp.rttmin_ticks >= 1");
    }
    let tcp = TcpConfig {
        variant,
        afr: afr.then_some(match s.tcp.afr_predictor {
            PredictorName::Saturating => Predictor::Saturating,
            PredictorName::Hysteresis => Predictor::Hysteresis,
        }),
        bp95: s.tcp.bp95,
        mss: mss as u32,
        snd_buf: window,
        rcv_buf: window,
        initial_window,
        delayed_ack: s.tcp.delayed_ack,
        rttmin_ticks: s.tcp.rttmin_ticks,
        rxtmax_ticks: s.tcp.rxtmax_ticks,
    };
    let encap = match s.atm.encapsulation {
        EncapName::Raw48 => Encapsulation::Raw48,
        EncapName::Aal5Vcmux => Encapsulation::Aal5VcMux,
        EncapName::Aal5Llc => Encapsulation::Aal5Llc,
    };
    let trace_interval = time("trace.interval", &s.trace.interval)?;
    if trace_interval == 0 {
        return err("trace.interval", "must be positive");
    }

    // Nodes.
    let mut node_names = Vec::new();
    let mut is_host = Vec::new();
    for (list, host, key) in [(&s.topology.hosts, true, "topology.hosts"), (&s.topology.switches, false, "topology.switches")] {
        for n in list {
            if n.is_empty() || n.contains("->") {
                return err(key, format!("invalid node name '{n}'"));
            }
            if node_names.contains(n) {
                return err(key, format!("node '{n}' is defined twice"));
            }
            node_names.push(n.clone());
            is_host.push(host);
        }
    }
    let node = |key: &str, n: &str| -> Result<NodeId, ScenarioError> {
        match node_names.iter().position(|x| x == n) {
            Some(i) => Ok(NodeId(i as u32)),
            None => err(key, format!("unknown node '{n}'")),
        }
    };

    // Credit flow control.
    let credit_cfg = if s.credit.enabled {
        if s.network != Network::Atm {
            return err("credit.enabled", "credit flow control needs network = \"atm\"");
        }
        if s.credit.n2 == 0 {
            return err("credit.n2", "must be at least 1");
        }
        if s.switch.policy != PolicyName::Tail {
            return err("switch.policy", "credit-controlled VCs never drop; use \"tail\"");
        }
        Some((s.credit.n2 + s.credit.n3, s.credit.n2))
    } else {
        None
    };
    let credit_switch_delay = time("credit.switch_delay", &s.credit.switch_delay)?;
    let credit_host_delay = time("credit.host_delay", &s.credit.host_delay)?;
    if s.switch.queueing == QueueingName::PerVc && s.network != Network::Atm {
        return err("switch.queueing", "per-VC queueing needs network = \"atm\"");
    }

    // Ports: two per link.
    let num_vcs = 2 * s.flows.len();
    let mut ports: Vec<PortModel> = Vec::new();
    for l in &s.links {
        let lkey = format!("link[{}-{}]", l.ends[0], l.ends[1]);
        let a = node(&format!("{lkey}.ends"), &l.ends[0])?;
        let b = node(&format!("{lkey}.ends"), &l.ends[1])?;
        if a == b {
            return err(format!("{lkey}.ends"), "a link needs two different nodes");
        }
        let rate = parse_rate(&l.rate).or_else(|p| err(format!("{lkey}.rate"), p))?;
        let delay = time(&format!("{lkey}.delay"), &l.delay)?;
        for (from, to) in [(a, b), (b, a)] {
            let name = format!("{}->{}", node_names[from.ix()], node_names[to.ix()]);
            if ports.iter().any(|p| p.name == name) {
                return err(format!("{lkey}.ends"), format!("duplicate link {name}"));
            }
            let (limit, policy) = if is_host[from.ix()] {
                (Limit::Unlimited, DiscardPolicy::Tail)
            } else {
                let (key, text) = match &l.buffer {
                    Some(b) => (format!("{lkey}.buffer"), b.as_str()),
                    None => ("switch.buffer".to_string(), s.switch.buffer.as_str()),
                };
                switch_limit(s, &key, text, mss as u32 + header_bytes, encap, num_vcs)?
            };
            let sender_is_host = is_host[from.ix()];
            let credit = credit_cfg;
            let limit = match (credit, sender_is_host) {
                // With credit a switch's VC queue is the receiver buffer of
                // the upstream link: N2 + N3 cells, never overrun.
                (Some((b, _)), false) => Limit::Units(b),
                _ => limit,
            };
            let credit_delay = if is_host[to.ix()] { credit_host_delay } else { credit_switch_delay };
            ports.push(PortModel {
                name,
                from,
                to,
                rate,
                delay,
                limit,
                policy,
                per_vc: credit.is_some() || (!sender_is_host && s.switch.queueing == QueueingName::PerVc),
                credit,
                credit_delay,
            });
        }
    }

    // Flows and routes (shortest path in hops; hosts do not forward).
    let mut flows = Vec::new();
    for f in &s.flows {
        let fkey = format!("flow[{}]", f.name);
        if s.flows.iter().filter(|g| g.name == f.name).count() > 1 {
            return err(fkey, "flow name used twice");
        }
        let src = node(&format!("{fkey}.src"), &f.src)?;
        let dst = node(&format!("{fkey}.dst"), &f.dst)?;
        if !is_host[src.ix()] {
            return err(format!("{fkey}.src"), format!("'{}' is a switch, not a host", f.src));
        }
        if !is_host[dst.ix()] || src == dst {
            return err(format!("{fkey}.dst"), format!("'{}' must be another host", f.dst));
        }
        let start = time(&format!("{fkey}.start"), &f.start)?;
        let bytes = if f.bytes == "unbounded" {
            None
        } else {
            let b = parse_bytes(&f.bytes).or_else(|p| err(format!("{fkey}.bytes"), p))?;
            if b == 0 {
                return err(format!("{fkey}.bytes"), "must be positive");
            }
            Some(b)
        };
        let data_route = route(&ports, &is_host, src, dst)
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.dst"), problem: format!("'{}' is unreachable from '{}'", f.dst, f.src) })?;
        let ack_route = route(&ports, &is_host, dst, src)
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.src"), problem: format!("'{}' is unreachable from '{}'", f.src, f.dst) })?;
        let mut send_at = Vec::new();
        let app = match f.kind {
            FlowKind::Tcp => {
                if f.rate.is_some() || f.datagram.is_some() || !f.send_at.is_empty() {
                    return err(format!("{fkey}.rate"), "rate, datagram and send_at are for kind = \"udp\"");
                }
                App::Tcp
            }
            FlowKind::Udp => {
                let rate = match (&f.rate, f.send_at.is_empty()) {
                    (Some(_), false) => return err(format!("{fkey}.send_at"), "give either rate or send_at, not both"),
                    (None, true) => return err(format!("{fkey}.rate"), "a udp flow needs a rate (or send_at)"),
                    (Some(r), true) => Some(parse_rate(r).or_else(|p| err(format!("{fkey}.rate"), p))?),
                    (None, false) => None,
                };
                for (k, t) in f.send_at.iter().enumerate() {
                    let at = time(&format!("{fkey}.send_at[{k}]"), t)?;
                    if send_at.last().is_some_and(|&prev| at < prev) {
                        return err(format!("{fkey}.send_at[{k}]"), "times must be ascending");
                    }
                    send_at.push(at);
                }
                let payload = match &f.datagram {
                    Some(d) => parse_bytes(d).or_else(|p| err(format!("{fkey}.datagram"), p))?,
                    None => mss + 40 - UDP_HEADER_BYTES as u64,
                };
                if payload == 0 || payload + UDP_HEADER_BYTES as u64 > mtu {
                    return err(format!("{fkey}.datagram"), format!("must be 1..={} bytes (ip.mtu)", mtu - UDP_HEADER_BYTES as u64));
                }
                App::Cbr { payload: payload as u32, rate }
            }
        };
        let mut drop_segments = f.drop_segments.clone();
        drop_segments.sort_unstable();
        drop_segments.dedup();
        flows.push(FlowModel { name: f.name.clone(), app, src, dst, start, bytes, drop_segments, send_at, data_route, ack_route });
    }
    if flows.is_empty() {
        return err("flow", "a scenario needs at least one flow");
    }

    let trace_port = match &s.trace.port {
        Some(name) => match ports.iter().position(|p| &p.name == name) {
            Some(i) => Some(PortId(i as u32)),
            None => return err("trace.port", format!("no port named '{name}' (use \"A->B\")")),
        },
        None => None,
    };
    let bottleneck = match &s.report.bottleneck {
        Some(name) => match ports.iter().position(|p| &p.name == name) {
            Some(i) => PortId(i as u32),
            None => return err("report.bottleneck", format!("no port named '{name}' (use \"A->B\")")),
        },
        None => {
            let crossing = |p: usize| flows.iter().filter(|f| f.data_route.contains(&PortId(p as u32))).count();
            (0..ports.len())
                .filter(|&p| !is_host[ports[p].from.ix()])
                .max_by_key(|&p| (crossing(p), std::cmp::Reverse(ports[p].rate.bits_per_second() as u64), std::cmp::Reverse(p)))
                .map(|p| PortId(p as u32))
                .unwrap_or(flows[0].data_route[0])
        }
    };

    let host = match s.host.model {
        HostKind::Ideal => None,
        HostKind::Adapter => Some(HostModel {
            tcp_rate: parse_rate(&s.host.tcp_rate).or_else(|p| err("host.tcp_rate", p))?,
            bus_rate: parse_rate(&s.host.bus_rate).or_else(|p| err("host.bus_rate", p))?,
        }),
    };

    Ok(Model {
        host,
        name: s.name.clone(),
        network: s.network,
        duration,
        seed: seed.unwrap_or(s.seed),
        seed_use: s.seed_randomizes,
        encap,
        header_bytes,
        tcp,
        tick,
        node_names,
        is_host,
        ports,
        flows,
        bottleneck,
        trace_interval,
        trace_port,
        credit_transport: s.credit.transport,
    })
}

/// The buffer limit and discard policy of a switch (or router) output port.
fn switch_limit(
    s: &Scenario,
    key: &str,
    text: &str,
    max_ip: u32,
    encap: Encapsulation,
    num_vcs: usize,
) -> Result<(Limit, DiscardPolicy), ScenarioError> {
    let size = parse_buffer(text).or_else(|p| err(key, p))?;
    match s.network {
        Network::Atm => {
            let cells = match size {
                // "Effective" buffer: payload bytes, 48 per cell (Aron §4).
                BufferSize::Bytes(b) => b / 48,
                BufferSize::Cells(c) => c,
                BufferSize::Packets(_) => return err(key, "an ATM switch buffer is given in bytes or cells, not packets"),
            };
            if cells == 0 {
                return err(key, format!("'{text}' is smaller than one cell (48 payload bytes)"));
            }
            let frame_cells = encap.cells(max_ip) as u64;
            let policy = match s.switch.policy {
                PolicyName::Tail => DiscardPolicy::Tail,
                PolicyName::Ppd => DiscardPolicy::Ppd,
                PolicyName::Epd => {
                    let t = s.switch.epd_threshold.unwrap_or_else(|| cells.saturating_sub(frame_cells).max(cells / 2));
                    if t == 0 || t > cells {
                        return err("switch.epd_threshold", format!("must be in 1..={cells} (the buffer in cells)"));
                    }
                    DiscardPolicy::Epd { threshold: t }
                }
                PolicyName::EomProtect => {
                    let r = s.switch.eom_reserve.unwrap_or(num_vcs as u64);
                    if r >= cells {
                        return err("switch.eom_reserve", "must be smaller than the buffer");
                    }
                    DiscardPolicy::EomProtect { reserve: r, ppd: false }
                }
            };
            Ok((Limit::Units(cells), policy))
        }
        Network::Packet => {
            if s.switch.policy != PolicyName::Tail {
                return err("switch.policy", "frame discard policies need network = \"atm\"");
            }
            match size {
                BufferSize::Bytes(b) if b < max_ip as u64 => {
                    err(key, format!("'{text}' cannot hold one full packet ({max_ip} bytes)"))
                }
                BufferSize::Bytes(b) => Ok((Limit::Bytes(b), DiscardPolicy::Tail)),
                BufferSize::Packets(0) => err(key, "must hold at least one packet"),
                BufferSize::Packets(n) => Ok((Limit::Units(n), DiscardPolicy::Tail)),
                BufferSize::Cells(_) => err(key, "a router buffer is given in bytes or packets, not cells"),
            }
        }
    }
}

/// Breadth-first shortest path from `src` to `dst` over ports, not
/// forwarding through hosts. Ties go to the link listed first.
fn route(ports: &[PortModel], is_host: &[bool], src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
    let n = is_host.len();
    let mut via: Vec<Option<usize>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut frontier = std::collections::VecDeque::from([src]);
    seen[src.ix()] = true;
    while let Some(u) = frontier.pop_front() {
        if u == dst {
            break;
        }
        if u != src && is_host[u.ix()] {
            continue;
        }
        for (i, p) in ports.iter().enumerate() {
            if p.from == u && !seen[p.to.ix()] {
                seen[p.to.ix()] = true;
                via[p.to.ix()] = Some(i);
                frontier.push_back(p.to);
            }
        }
    }
    if !seen[dst.ix()] {
        return None;
    }
    let mut path = Vec::new();
    let mut cur = dst;
    while cur != src {
        let i = via[cur.ix()]?;
        path.push(PortId(i as u32));
        cur = ports[i].from;
    }
    path.reverse();
    Some(path)
}

/// The default coarse tick and fast (delayed-ACK) tick of BSD.
pub const FAST_TICK: Time = 200 * PS_PER_MS;

#[cfg(test)]
mod tests;
