//! `[switch]`: the output ports of ATM switches (and the buffer of IP
//! routers' ports too), their queueing, discard policy and input service.
//! The discard policies and their keys are declared in `net/drop/`.

use serde::{Deserialize, Serialize};

/// `switch.queueing`: how an ATM switch port queues cells (maps to the
/// port's per-VC flag).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueingName {
    /// One FIFO per output port (Aron & Druschel §3: "FCFS output-buffered
    /// switches").
    #[default]
    Fifo,
    /// One queue per VC, served round robin one cell at a time, as in
    /// CreditNet (Morris & Kung §II); the buffer limit is per VC.
    PerVc,
}

/// `[switch]`: the output ports of every switching node. `buffer` applies to
/// ATM switches and IP routers alike; the other keys are ATM-only and a
/// packet network refuses them unless they are left at their defaults.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSection {
    /// Output buffer of every switch/router port (`link.buffer` overrides it
    /// per link), counting the unit in transmission: "N cells" (ATM),
    /// "N packets" (routers), or bytes. Bytes are payload bytes on ATM, 48
    /// per cell: Aron & Druschel's "effective switch buffer size" (§4), which
    /// "does not include the space needed for the cell headers", and Morris &
    /// Kung's "memory used by the 48-byte payloads"; on a router they are
    /// IP bytes. So one value compares both networks at the same buffer.
    pub buffer: String,
    /// "fifo" or "per-vc" (ATM only; the limit is then per VC).
    pub queueing: QueueingName,
    /// What a full ATM switch port drops: a drop policy registered under
    /// `switch.policy` (`net/drop/mod.rs`: "tail", "ppd", "epd", ...). Frame
    /// discard is what ATM Forum TM 4.0 allows a network to apply to UBR
    /// traffic. A policy's own keys (`switch.epd_threshold`,
    /// `[switch.fair_share]`) are declared by the policy and read by
    /// `scenario/params.rs`, not fields here.
    pub policy: String,
    /// How a switch moves cells from its input ports to its output buffers:
    /// "arrival" (at their arrival instants, in event order) or
    /// "round-robin" (in cell slots, inputs served round robin; ATM only;
    /// Bestavros & Kim 1997 §4.1; see [`InputServiceName`]).
    pub input_service: InputServiceName,
}

/// `switch.input_service`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputServiceName {
    /// A cell enters its output buffer the instant it arrives; cells of the
    /// same instant in the scheduler's order.
    #[default]
    Arrival,
    /// The fabric runs in slots of one cell time on the switch's fastest
    /// line; at each slot's end the cells that arrived in it enter their
    /// output buffers one per input per round, inputs in round-robin order
    /// (`net/input_rr.rs`).
    RoundRobin,
}
impl Default for SwitchSection {
    fn default() -> Self {
        SwitchSection {
            // 512 cells' payload: 512 cells on ATM, the same memory on a
            // packet network, so that any scenario flips (docs/packet.md P4).
            buffer: "24576B".into(),
            queueing: QueueingName::Fifo,
            policy: "tail".into(),
            input_service: InputServiceName::Arrival,
        }
    }
}
