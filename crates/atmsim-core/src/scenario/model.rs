//! The resolved scenario: every quantity in simulator units, every name
//! turned into an id, every route computed. The simulator is built from a
//! [`Model`] and never sees the TOML.

pub use super::schema::{Network, SeedUse};
pub use super::schema_hosts::CreditTransport;
use crate::atm::aal5::Encapsulation;
use crate::host::HostModel;
use crate::net::drop::DropSpec;
use crate::net::{HostId, Limit, NodeId, PortId};
use crate::time::{Rate, Time, PS_PER_MS};
use crate::transport::boston::BostonConfig;
use crate::transport::tcp::TcpConfig;

/// What a run with captures on records (`[capture]`, resolved in
/// `capture.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureModel {
    pub ports: Vec<PortId>,
    pub hosts: Vec<HostId>,
    pub snaplen: u32,
    /// Most bytes of all its pcap files (`capture.max_bytes`).
    pub max_bytes: u64,
}

/// IP + UDP header bytes.
pub const UDP_HEADER_BYTES: u32 = 28;

/// The BSD fast timer period (PR_FASTHZ = 5), on which delayed ACKs go out.
pub const FAST_TICK: Time = 200 * PS_PER_MS;

/// What drives a flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum App {
    /// A TCP bulk transfer (of `FlowModel::bytes`, or unbounded).
    Tcp,
    /// Datagrams of `payload` bytes at a constant payload `rate`, or, when
    /// `rate` is None, one at each time of `FlowModel::send_at`.
    Cbr { payload: u32, rate: Option<Rate> },
    /// An ARB rate-based connection (Chang, Huynh & Gray), unbounded or of
    /// `FlowModel::bytes`.
    Arb(crate::transport::arb::ArbConfig),
    /// An NDP connection, unbounded or of `FlowModel::bytes`.
    Ndp(crate::transport::ndp::NdpConfig),
    /// An EQDS connection of `FlowModel::bytes`.
    Eqds(crate::transport::eqds::EqdsConfig),
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
    /// What the port drops when it fills (`net/drop/`).
    pub drop: DropSpec,
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
    /// A TCP window of its own (bytes), instead of `tcp.window`.
    pub window: Option<u64>,
    pub data_route: Vec<PortId>,
    pub ack_route: Vec<PortId>,
    /// A flow sprayed per packet: every shortest path each way (the first
    /// is `data_route`, `ack_route`); empty for a flow of one route.
    pub data_paths: Vec<Vec<PortId>>,
    pub ack_paths: Vec<Vec<PortId>>,
}

/// A validated scenario with every quantity in simulator units.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub network: Network,
    pub duration: Time,
    /// Run to `duration` even when every bounded flow is done (`stop = "duration"`).
    pub run_to_duration: bool,
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
    /// Most rows its log may hold (`trace.port_rows`).
    pub trace_port_rows: u64,
    pub credit_transport: CreditTransport,
    pub host: Option<HostModel>,
    /// Random extra processing time of each packet an ideal host sends, at
    /// most this (0: none).
    pub send_jitter: Time,
    /// The ABR service (`[abr]`), if any.
    pub abr: Option<crate::atm::abr::AbrConfig>,
    /// TCP Boston and its measurements (`[boston]`).
    pub boston: Option<BostonConfig>,
    /// What `[capture]` names (recorded only when a run asks for captures).
    pub capture: Option<CaptureModel>,
    /// A scheduled cell fabric between the hosts (`[fabric]`), if any.
    pub fabric: Option<FabricModel>,
    /// Switches serve their input ports round robin in cell slots
    /// (`switch.input_service = "round-robin"`, `net/input_rr.rs`).
    pub input_round_robin: bool,
    /// `[measure]`'s window, if any.
    pub measure: Option<(Time, Time)>,
    /// The keys registered mechanisms declare, as the scenario sets them
    /// (checked; a service reads its own in `from_model`).
    pub params: crate::base::mechanism::Params,
    /// Flows started by other flows' completions (a matrix's triggers), if any.
    pub triggers: Option<TriggerPlan>,
    /// Collectives reported as one job each (`[workload]`'s ring all-reduce).
    pub jobs: Vec<JobModel>,
}

/// Which flows start when others finish (a connection matrix's triggers,
/// `scenario/matrix_check.rs`; run by `world/triggers.rs`): per flow, the
/// trigger it waits for (its `start` is then unused) and the triggers its
/// sender's and its receiver's completion activate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TriggerPlan {
    pub waits_on: Vec<Option<u32>>,
    pub on_sent: Vec<Option<u32>>,
    pub on_received: Vec<Option<u32>>,
    /// By index (the numbers above).
    pub triggers: Vec<TriggerModel>,
}

/// One trigger: how it fires and the flows it starts, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerModel {
    pub kind: super::matrix::TriggerKind,
    pub targets: Vec<crate::net::FlowId>,
}

/// A collective: its flows, the bytes each rank reduces and the ranks, for
/// nccl-tests' algbw and busbw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobModel {
    pub name: String,
    pub flows: Vec<crate::net::FlowId>,
    pub bytes: u64,
    pub ranks: u32,
}

impl Model {
    /// Units of a full-size data segment on the wire (cells or 1 packet) and
    /// its wire bytes.
    pub fn wire_bytes_of(&self, payload: u32) -> u64 {
        let ip = payload + self.header_bytes;
        match self.network {
            Network::Atm => self.encap.cells(ip) as u64 * crate::net::CELL_BYTES as u64,
            Network::Packet => ip as u64,
        }
    }

    /// Payload bytes the bottleneck can carry in the scenario's duration.
    pub fn bottleneck_capacity_bytes(&self) -> f64 {
        self.ports[self.bottleneck.ix()].rate.bytes_in(self.duration)
    }

    /// U_max: the payload the bottleneck could carry in full segments in the
    /// simulated time, on this network (Aron & Druschel §4: effective
    /// throughput is delivered payload over U_max).
    pub fn u_max_bytes(&self) -> f64 {
        let mss = self.tcp.mss;
        self.bottleneck_capacity_bytes() / self.wire_bytes_of(mss) as f64 * mss as f64
    }

    /// The same with IP packets on both networks: U_max of the packet network.
    pub fn u_max_common_bytes(&self) -> f64 {
        let mss = self.tcp.mss;
        self.bottleneck_capacity_bytes() / (mss + self.header_bytes) as f64 * mss as f64
    }
}

/// The fabric of a run: its configuration and, per egress port (host
/// h_i's), the port from the fabric to the host.
#[derive(Clone, Debug, PartialEq)]
pub struct FabricModel {
    pub config: crate::fabric::FabricConfig,
    pub egress: Vec<PortId>,
    /// Per node, its egress port's number if it is a host (u32::MAX otherwise).
    pub port_of_node: Vec<u32>,
    /// Per flow, its traffic class (empty: all 0).
    pub tc_of_flow: Vec<u8>,
}
