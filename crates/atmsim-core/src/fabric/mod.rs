//! A scheduled cell fabric in the manner of Broadcom's DNX (Jericho FAPs,
//! Ramon fabric elements; Meta's Disaggregated Scheduled Fabric, Stardust,
//! NSDI 2019): packets wait at their ingress FAP in virtual output queues,
//! leave only against credits that the egress port's scheduler grants, are
//! cut into cells sprayed over every fabric link, switched by fabric
//! elements and reassembled at the egress FAP (docs/fabric.md).
//!
//! The components are plain values, one job each, that return what to do;
//! `world/fabric.rs` wires them and schedules their events:
//!
//! | file | component |
//! | --- | --- |
//! | `segmenter.rs` | cells of a packet, or of a run of packets packed continuously |
//! | `voq.rs` | a VOQ: bytes waiting, credit balance, the OFF/SLOW/NORM credit-request state |
//! | `scheduler.rs` | an egress port's credit scheduler: round robin over NORM, then paced SLOW |
//! | `link.rs` | one direction of a fabric link: per-priority FIFOs, transmitter, wire, link-level credit |
//! | `cell_ring.rs` | a link's FIFO of cells, with a small header |
//! | `reassembly.rs` | per (source FAP, egress port): cells back into order, packets out whole |
//! | `geometry.rs` | which link joins which FAP to which fabric element, and their delays |
//! | `stages.rs` | three stages: the FE2 spine's links between the FE13 groups |
//! | `tables.rs` | the geometry's answers every cell asks, computed once |
//! | `nodes.rs` | the devices in one numbering, and which one sends on each link (the fabric trace) |

pub mod cell_ring;
pub mod geometry;
pub mod link;
pub mod nodes;
pub mod reassembly;
pub mod scheduler;
pub mod segmenter;
pub mod stages;
pub mod tables;
pub mod voq;

pub use geometry::Geometry;

use crate::time::{Rate, Time};

/// The credit-request thresholds of a VOQ, in bytes of Qsize − CrBal
/// (Broadcom SDK `credit_request_thresholds.c`; docs/fabric.md R3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrsThresholds {
    pub off_to_slow: i64,
    pub off_to_norm: i64,
    pub norm_to_slow: i64,
    pub satisfied_backoff: i64,
    pub satisfied_backlog: i64,
    pub empty_off: i64,
    pub max_empty_balance: i64,
}

/// A fabric as resolved from `[fabric]` (`scenario/fabric.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct FabricConfig {
    pub geometry: Geometry,
    /// Every fabric link's rate (both directions).
    pub link_rate: Rate,
    /// Largest payload of a cell, and the header each cell adds on the wire.
    pub cell_payload: u32,
    pub cell_header: u32,
    /// Continuous packet-cell packing: the packets one credit releases are
    /// cut as one byte stream.
    pub packing: bool,
    /// Spraying picks the least-loaded link (cells waiting for it plus its
    /// cells in the far end, ties in round-robin order) rather than the next.
    pub least_loaded: bool,
    /// Bytes one credit is worth.
    pub credit_worth: u32,
    /// Payload bytes of a control cell (FlowStatus, Credit).
    pub control_bytes: u32,
    /// VOQ bytes a FAP holds, all its VOQs together.
    pub voq_buffer: u64,
    /// CE on an ECN-capable packet that finds more than this many bytes in
    /// its VOQ (`fabric.voq.ecn_above`).
    pub voq_ecn_above: Option<u64>,
    pub crs: CrsThresholds,
    /// The egress scheduler's credit rate over the port rate, in parts per
    /// million above 1.
    pub overspeed_ppm: u64,
    /// Egress-queue bytes at or above which the scheduler grants nothing.
    pub egress_stop: u64,
    /// A SLOW VOQ's credit rate as parts per million of the port rate.
    pub slow_ppm: u64,
    /// Link-level credit: (N2 + N3, N2) cells per link.
    pub llfc: (u64, u64),
    /// How long a stream waits for a lost cell before giving up its packets.
    pub reassembly_timeout: Time,
    /// From a link's failure to the sprayers leaving it out.
    pub detect: Time,
    /// Balanced input: a FAP's credit rate follows its usable links from the fabric.
    pub balanced_input: bool,
    /// The highest classes in strict priority, and the others' weights (lowest first).
    pub strict: u32,
    pub weights: Vec<u32>,
    /// Per class, its data cells' priority, 0 to `PRIORITIES` − 2 (empty:
    /// every class at 0).
    pub class_priorities: Vec<u8>,
    /// Links failing or slowing during the run, in time order.
    pub failures: Vec<LinkFailure>,
}

/// One `[[fabric.fail]]`: these link directions, at this time, go down
/// (`rate` None) or slow to `rate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkFailure {
    pub links: Vec<u32>,
    pub at: Time,
    pub rate: Option<Rate>,
}

/// What a cell carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CellKind {
    /// Payload of the stream `voq`: its `seq`-th cell.
    Data,
    /// A VOQ's new credit-request state (`seq` holds it), to the egress scheduler.
    FlowStatus,
    /// One credit for VOQ `voq`, from its egress scheduler.
    Credit,
}

/// The cell priorities (Jericho's four): control cells at the top, data at
/// its class's priority (`FabricConfig::class_priorities`). A link's queue
/// `PRIORITIES − 1 − p` holds priority p, so the control cells' queue is
/// the first.
pub const PRIORITIES: usize = 4;

/// One fabric cell: 16 bytes, copied through queues and wires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The VOQ (source FAP, egress port) it belongs to or is about.
    pub voq: u32,
    /// Data: the cell's number in its stream; FlowStatus: its number (above
    /// two bits) and the state (the two low bits).
    pub seq: u32,
    /// The fabric link it last crossed (its buffer's link-level credit is
    /// returned when it leaves the element).
    pub from_link: u32,
    /// Payload bytes (data) or control bytes.
    pub payload: u16,
    /// Destination FAP.
    pub dst_fap: u8,
    pub kind: CellKind,
}

const _: () = assert!(std::mem::size_of::<Cell>() == 16);
