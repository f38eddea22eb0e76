//! The resolved scenario: every quantity in simulator units, every name
//! turned into an id, every route computed. The simulator is built from a
//! [`Model`] and never sees the TOML.

use crate::atm::aal5::Encapsulation;
use crate::atm::discard::DiscardPolicy;
use crate::host::HostModel;
use crate::net::{Limit, NodeId, PortId};
use crate::time::{Rate, Time, PS_PER_MS};
use crate::transport::tcp::TcpConfig;
use serde::{Deserialize, Serialize};

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
pub enum CreditTransport {
    #[default]
    InBand,
    OutOfBand,
}

/// IP + UDP header bytes.
pub const UDP_HEADER_BYTES: u32 = 28;

/// The default coarse tick and fast (delayed-ACK) tick of BSD.
pub const FAST_TICK: Time = 200 * PS_PER_MS;

/// What drives a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// A TCP bulk transfer (of `FlowModel::bytes`, or unbounded).
    Tcp,
    /// Datagrams of `payload` bytes at a constant payload `rate`, or, when
    /// `rate` is None, one at each time of `FlowModel::send_at`.
    Cbr { payload: u32, rate: Option<Rate> },
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
