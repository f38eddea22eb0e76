//! The floor every other module stands on, importing nothing above it:
//! typed ids, the unit a link carries and the cell's sizes, and the header
//! a frame carries. (With `time`, `ring` and `rng` beside it; the layering
//! is checked by `tests/test_layers.py`.)

pub mod header;
pub mod ids;
pub mod mechanism;
pub mod unit;

pub use header::{flags, ArbData, ArbReply, Datagram, EqdsHeader, EqdsKind, FrameHeader, NdpHeader, NdpKind, Segment};
pub use ids::{FlowId, HostId, NodeId, PortId, VcId};
pub use unit::{CellKind, InFlight, Unit, CELL_BYTES, CELL_PAYLOAD, HOP_BITS, MAX_CELL_INDEX};
