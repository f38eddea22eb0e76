//! `[switch]`: the output ports of ATM switches (and the buffer of IP
//! routers' ports too), their queueing, discard policy and input service.

use serde::{Deserialize, Serialize};

/// `switch.policy`: what an ATM switch port drops when it fills. Frame
/// discard is what ATM Forum TM 4.0 allows a network to apply to UBR
/// traffic. A name enum because the core's `DropSpec` carries the EPD
/// threshold and the EOM reserve, which depend on each port's buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// Plain tail drop: a cell is accepted iff the queue is below its limit
    /// ("drop-tail", Aron & Druschel §3).
    #[default]
    Tail,
    /// Partial Packet Discard (Armitage & Adams 1993; Romanow & Floyd 1995):
    /// once a cell of a frame is dropped, drop the rest of the frame but keep
    /// its last cell (EOM) if there is room, so the next frame reassembles.
    Ppd,
    /// Early Packet Discard (Romanow & Floyd 1995): refuse a whole frame when
    /// its first cell finds at least `switch.epd_threshold` cells queued.
    Epd,
    /// "Intelligent tail drop" (Jain et al., ATM Forum 96-0177): non-EOM
    /// cells may use the buffer up to `switch.eom_reserve` cells short of the
    /// limit, EOM cells the whole buffer.
    EomProtect,
    /// EOM protection with Partial Packet Discard: as `eom-protect`, and
    /// once a cell of a frame is dropped the rest of the frame is dropped
    /// too, its EOM kept if there is room (Jain et al.'s slides drop no EOM;
    /// Romanow & Floyd's PPD drops what the receiver would discard anyway).
    EomProtectPpd,
    /// Selective Drop (Goyal et al. 1998, §4): EPD that, once the buffer
    /// holds `switch.fair_share.r` of its cells, refuses a new frame only
    /// of a VC holding more than Z times its fair share (FIFO ports only;
    /// `net/drop/fair_share.rs`).
    SelectiveDrop,
    /// Fair Buffer Allocation (Heinanen & Kilkki 1995): as Selective Drop,
    /// with a bound on the VC's share that tightens as the buffer fills.
    Fba,
}

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
    /// "tail", "ppd", "epd", "eom-protect", "eom-protect-ppd",
    /// "selective-drop" or "fba" (ATM only; see [`PolicyName`]).
    pub policy: PolicyName,
    /// EPD threshold in cells (default: the buffer minus the cells of a full
    /// frame, at least half the buffer; Romanow & Floyd give the mechanism,
    /// not a threshold).
    pub epd_threshold: Option<u64>,
    /// EOM-protection reserve in cells (default: the number of VCs in the
    /// scenario, two per flow).
    pub eom_reserve: Option<u64>,
    /// How a switch moves cells from its input ports to its output buffers:
    /// "arrival" (at their arrival instants, in event order) or
    /// "round-robin" (in cell slots, inputs served round robin; ATM only;
    /// Bestavros & Kim 1997 §4.1; see [`InputServiceName`]).
    pub input_service: InputServiceName,
    /// `[switch.fair_share]`: the parameters of "selective-drop" and "fba".
    #[serde(skip_serializing_if = "FairShareSection::is_default")]
    pub fair_share: FairShareSection,
}

/// `[switch.fair_share]`: R as a share of the buffer, and Z, of Selective
/// Drop and Fair Buffer Allocation (Goyal et al. 1998 §4 name them R and
/// Z). Defaults [choice]: R = 0.9 of the buffer, near the top as EPD's
/// threshold is; Z = 0.8, a VC is refused a little below its fair share;
/// `validation/ubr_plus.py` measures the sensitivity to both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FairShareSection {
    /// Occupancy, as a share of the buffer, from which frames are tested.
    pub r: f64,
    /// How many times its fair share a VC may hold and still start a frame.
    pub z: f64,
}

impl Default for FairShareSection {
    fn default() -> Self {
        FairShareSection { r: 0.9, z: 0.8 }
    }
}

impl FairShareSection {
    pub fn is_default(&self) -> bool {
        *self == FairShareSection::default()
    }
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
            policy: PolicyName::Tail,
            epd_threshold: None,
            eom_reserve: None,
            input_service: InputServiceName::Arrival,
            fair_share: FairShareSection::default(),
        }
    }
}
