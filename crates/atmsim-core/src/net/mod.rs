//! Network plumbing shared by the ATM and packet networks: routes as plain
//! data, output ports and their drop policies, over the floor's typed ids
//! and units (`crate::base`, re-exported here).
//!
//! One engine, two granularities: on an ATM link a [`Unit`] is a
//! 53-byte cell that knows its VC, its frame and whether it ends the frame; on
//! a packet link it is a whole IP packet (a frame of one unit). Queues, links,
//! drop policies and statistics see only units.

pub mod credit;
pub mod drop;
pub mod fifo;
pub mod host_nic;
pub mod input_rr;
pub mod pervc;
pub mod pipe;
pub mod port;
pub mod priority;
pub mod route;
pub mod trim;
pub mod trim_fifo;
pub mod vc;

pub use crate::base::{
    flags, ArbData, ArbReply, CellKind, Datagram, EqdsHeader, EqdsKind, FlowId, FrameHeader, HostId, InFlight, NdpHeader, NdpKind, NodeId,
    PortId, Segment, Unit, VcId, CELL_BYTES, CELL_PAYLOAD, HOP_BITS, MAX_CELL_INDEX,
};
pub use port::{Discipline, Limit, Port, PortStats};
pub use vc::{Vc, VcRole, VcTable};
