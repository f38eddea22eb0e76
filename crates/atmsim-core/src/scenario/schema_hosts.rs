//! The sections of `schema.rs` for Morris & Kung's CreditNet experiments,
//! in their own file: `[credit]` (N23 credit flow control on every link)
//! and `[host]` (the hosts' processing: ideal, or CPU and adapters).

use serde::{Deserialize, Serialize};

/// How credit cells reach the upstream sender (`credit.transport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CreditTransport {
    /// As CreditNet, which carried credits as cells (Morris & Kung 1995):
    /// after the receiver's processing delay a 53-byte credit cell
    /// queues at the port of the reverse direction, is sent before any data
    /// cell there (strict priority), takes one cell slot, and reaches the
    /// sender after the link's propagation delay.
    #[default]
    InBand,
    /// An idealised side channel, for comparison: the credit reaches the
    /// sender one processing delay plus one propagation delay after it is
    /// due and takes no slot.
    OutOfBand,
}

/// `[credit]`: credit-based hop-by-hop flow control, N23 of Kung, Blackwell
/// & Chapman (SIGCOMM 1994), as in CreditNet (Morris & Kung §II, §V), on
/// every link of every VC, host links included. ATM only; the switch then
/// never drops, so `switch.policy` must stay "tail", and each VC's queue at
/// a switch is the receive buffer of its upstream link: n2 + n3 cells.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CreditSection {
    pub enabled: bool,
    /// The receiver of a link sends one credit per `n2` cells forwarded.
    pub n2: u64,
    /// Cells covering the credit round trip; each VC reserves n2 + n3 cells
    /// at every receiver (Morris & Kung §V: 100 cells per VC).
    pub n3: u64,
    /// Credit processing delay in switches.
    pub switch_delay: String,
    /// Credit processing delay in host adapters (Morris & Kung §III: credit
    /// handled "partially in software").
    pub host_delay: String,
    /// How credits travel: "in-band" cells or an "out-of-band" side channel.
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

/// `host.model`. A name enum because the core's host model carries the rates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostKind {
    /// Zero processing time, cut-through adapters (Aron & Druschel §3).
    #[default]
    Ideal,
    /// Morris & Kung's hosts (§III): TCP processing at `tcp_rate` per
    /// packet, and adapters that hold one packet on board in each direction,
    /// moved across the host bus at `bus_rate`.
    Adapter,
}

/// `[host]`: the hosts' processing.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostSection {
    pub model: HostKind,
    /// TCP throughput of a host's CPU (Morris & Kung §III: "about 15
    /// megabytes per second").
    pub tcp_rate: String,
    /// Host bus between memory and adapter.
    pub bus_rate: String,
    /// Ideal hosts only: every packet a host sends waits an extra random
    /// processing time, uniform in [0, send_jitter], drawn from the host's
    /// own random stream, packets kept in order. Breaks the exact arrival
    /// ties of identical paths, which lock a deterministic simulation into
    /// one phase (Floyd & Jacobson, "On traffic phase effects in
    /// packet-switched gateways", 1992; ns-2's `overhead_` serves the same
    /// end). "0ps": off.
    pub send_jitter: String,
}
impl Default for HostSection {
    fn default() -> Self {
        HostSection { model: HostKind::Ideal, tcp_rate: "15MB/s".into(), bus_rate: "100MB/s".into(), send_jitter: "0ps".into() }
    }
}
