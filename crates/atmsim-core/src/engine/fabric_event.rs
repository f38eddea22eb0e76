//! The events of a scheduled cell fabric (`world/fabric.rs`).

#[cfg(test)]
use super::packed;

/// Events of a scheduled cell fabric (`world/fabric.rs`); ids are fabric
/// links and egress ports of the fabric (`fabric/geometry.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum FabricEvent {
    /// The fabric links of a group (`world/fabric_group.rs`), in order:
    /// each one's transmitter finished a cell, so it starts the next.
    LinkFree(u32),
    /// The fabric links of a group, in order: the cell at the head of each
    /// one's wire reaches the far end.
    LinkHead(u32),
    /// An egress port's credit scheduler reaches its next slot.
    CreditSlot(u32),
    /// A link-level credit (the far end's forwarded count) reaches a link's sender.
    LinkCredit {
        link: u32,
        #[cfg_attr(test, proptest(strategy = "0..=packed::MAX_CREDIT_COUNT"))]
        fwd: u64,
    },
    /// The `[[fabric.fail]]` of this index happens.
    Fail(u32),
    /// It is detected: sprayers and fabric elements leave its links out.
    Detect(u32),
    /// A stream gives up a lost data cell: `cell` holds its number (low 32
    /// bits) and payload (above).
    GiveUp {
        voq: u32,
        #[cfg_attr(test, proptest(strategy = "0..=packed::MAX_CREDIT_COUNT"))]
        cell: u64,
    },
    /// A VOQ whose FlowStatus was lost sends its state again.
    StatusAgain(u32),
}
