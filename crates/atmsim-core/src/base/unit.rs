//! What a link carries: a cell (ATM) or a packet, as one 16-byte [`Unit`],
//! and the cell's sizes.

use super::ids::VcId;
use crate::time::Time;

/// What a link carries: a cell (ATM) or a packet.
///
/// Sixteen bytes: a unit names its frame, and the frame's segment header is
/// kept once in the VC's ledger (`ledger::FrameRecord`), read when the
/// frame is delivered. A unit in flight (with its arrival time) is 24 bytes,
/// so the pipes of long, fast links stay small in memory and in cache.
///
/// The layout is fixed (`repr(C)`, two 8-byte words), so a unit moves as
/// whole words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct Unit {
    pub vc: VcId,
    /// Frame number on the VC (frames on a VC are numbered 0, 1, 2, ...).
    pub frame: u32,
    /// The rest of its route as a code (`net/route.rs`): per hop after the
    /// port it is at, lowest first, the next port's index among its node's
    /// output ports, [`HOP_BITS`] bits each. In a pipe, the low bits name
    /// the port it enters next; entering that port's pipe moves the code on
    /// by a hop (see [`Unit::onward`]). Leaving a pipe reads the unit's own
    /// bits and the far node's few exits, not a table of every route.
    pub route: u32,
    /// The cell's index in its frame, with four marks above it: the frame's
    /// last cell (EOM), a cell of no frame (RM and VBR cells), congestion
    /// experienced (EFCI in a cell's header, I.361 PTI; CE in a packet's IP
    /// header, RFC 3168 §5), and an ECN-capable transport (ECT, RFC 3168).
    cell: u16,
    /// Bytes on the wire: 53 for a cell, the IP length for a packet (at
    /// most 65535, IPv4's total length field, RFC 791; `ip.mtu` is checked
    /// against it).
    pub wire_bytes: u16,
}

/// Bits of a unit's route code per hop (`Unit::route`): a node's output
/// ports are numbered 0..31 in it (31 escapes to a table, `net/route.rs`).
pub const HOP_BITS: u32 = 5;

/// Bytes of an ATM cell on the wire: a 5-byte header and 48 of payload
/// (I.361).
pub const CELL_BYTES: u32 = 53;
/// Payload bytes of a cell (I.361, I.363.5).
pub const CELL_PAYLOAD: u32 = 48;

/// What a unit carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// A cell (or a packet) of a data frame.
    Data,
    /// A resource-management cell of ABR, its fields in this slot.
    Rm { slot: u32 },
    /// A cell of the VBR background.
    Vbr,
}

/// The frame numbers of the cells of no frame, which also name their kind:
/// a VBR cell's, and the top of the RM cells' (`RM_FRAME_TOP - slot`).
/// No data frame reaches them (frames count from 0, and `u32::MAX` means
/// "no frame doomed"), so no per-frame state (the dead-cell watch, the
/// ledger) ever matches a cell of no frame.
const VBR_FRAME: u32 = u32::MAX - 1;
const RM_FRAME_TOP: u32 = u32::MAX - 2;

const EOM: u16 = 1 << 15;
const FRAMELESS: u16 = 1 << 14;
/// Congestion experienced: EFCI set in a cell by a switch (TM 4.0 §5.10.6),
/// CE set in a packet by an ECN router (RFC 3168 §5).
const CONGESTED: u16 = 1 << 13;
/// The packet's sender is ECN-capable (ECT(0), RFC 3168 §5): a router may
/// mark it rather than drop it.
const ECT: u16 = 1 << 12;
/// The marks a unit keeps when re-indexed: they belong to the frame (ECT)
/// or were set on the way (CE/EFCI), not to the cell's place in it.
const CARRIED: u16 = CONGESTED | ECT;
/// The largest index a cell can have (a 65535-byte packet is 1366 cells;
/// a TCP Boston frame's count is checked against this when the scenario
/// is read).
pub const MAX_CELL_INDEX: u16 = ECT - 1;

impl Unit {
    /// Cell `index` of frame `frame`, of `ncells` cells (1 and 1 for a
    /// packet; 0 cells: a cell of no frame), with no route until placed on
    /// one ([`Unit::on_route`]).
    #[inline]
    pub fn new(vc: VcId, frame: u32, index: u16, ncells: u16, wire_bytes: u16) -> Unit {
        Unit { vc, frame, route: 0, cell: 0, wire_bytes }.with_index(index, ncells)
    }

    /// The unit carrying route code `route` (`net/route.rs`): placed on
    /// its route at the route's first port.
    #[inline]
    pub fn on_route(self, route: u32) -> Unit {
        Unit { route, ..self }
    }

    /// The same frame's cell `index` of `ncells`.
    #[inline(always)]
    pub fn with_index(self, index: u16, ncells: u16) -> Unit {
        debug_assert!(index <= MAX_CELL_INDEX && (ncells == 0 || index < ncells));
        let marks = if ncells == 0 {
            FRAMELESS
        } else if index + 1 == ncells {
            EOM
        } else {
            0
        };
        Unit { cell: index | marks | (self.cell & CARRIED), ..self }
    }

    /// The unit with congestion experienced marked (EFCI on a cell, CE on a
    /// packet).
    #[inline]
    pub fn congested(self) -> Unit {
        Unit { cell: self.cell | CONGESTED, ..self }
    }

    /// Was congestion marked on the way (EFCI, or CE)?
    #[inline]
    pub fn is_congested(&self) -> bool {
        self.cell & CONGESTED != 0
    }

    /// The unit sent by an ECN-capable transport (ECT).
    #[inline]
    pub fn ecn_capable(self) -> Unit {
        Unit { cell: self.cell | ECT, ..self }
    }

    /// Sent by an ECN-capable transport?
    #[inline]
    pub fn is_ecn_capable(&self) -> bool {
        self.cell & ECT != 0
    }

    /// Index of this cell in its frame (0 for a packet).
    #[inline]
    pub fn index(&self) -> u16 {
        self.cell & MAX_CELL_INDEX
    }

    /// A cell of no data frame (an RM or a VBR cell)?
    #[inline]
    pub fn is_frameless(&self) -> bool {
        self.cell & FRAMELESS != 0
    }

    /// A VBR background cell on `vc` (Jain et al.'s "n Source + VBR"
    /// configuration): a cell of no frame.
    pub fn vbr(vc: VcId) -> Unit {
        Unit::new(vc, VBR_FRAME, 0, 0, CELL_BYTES as u16)
    }

    /// An RM cell on `vc` whose fields wait in slot `slot` of the run's RM
    /// cells (`atm::abr::RmCells`): a cell of no frame.
    pub fn rm(vc: VcId, slot: u32) -> Unit {
        debug_assert!(slot <= RM_FRAME_TOP);
        Unit::new(vc, RM_FRAME_TOP - slot, 0, 0, CELL_BYTES as u16)
    }

    /// What the unit is: part of a data frame, an RM cell, a VBR cell.
    #[inline]
    pub fn kind(&self) -> CellKind {
        match (self.is_frameless(), self.frame) {
            (false, _) => CellKind::Data,
            (true, VBR_FRAME) => CellKind::Vbr,
            (true, f) => CellKind::Rm { slot: RM_FRAME_TOP - f },
        }
    }

    /// A VBR background cell?
    #[inline]
    pub fn is_vbr(&self) -> bool {
        self.is_frameless() && self.frame == VBR_FRAME
    }

    /// The unit as it goes into a pipe: its route code moved on by the
    /// hop it took, so that its low bits name the port after the pipe.
    /// (Advancing the code when the unit enters the pipe, long before it is
    /// read back, rather than when it leaves, keeps a narrow store and a
    /// wide load of the same unit apart on the hot path: the load would
    /// wait for the store to drain.)
    #[inline(always)]
    pub fn onward(&self) -> Unit {
        Unit { route: self.route >> HOP_BITS, ..*self }
    }

    /// The packet trimmed to its first `header_bytes` (NDP N2): its payload
    /// is cut off, and it travels on as a header-only packet, told apart by
    /// its size alone (a full packet carries at least one payload byte).
    #[inline]
    pub fn trimmed(self, header_bytes: u16) -> Unit {
        debug_assert!(self.index() == 0 && self.is_eom(), "a packet");
        Unit { wire_bytes: header_bytes, ..self }
    }

    /// The last cell of its frame (a packet is its own last cell).
    #[inline]
    pub fn is_eom(&self) -> bool {
        self.cell & EOM != 0
    }
    #[inline]
    pub fn is_first(&self) -> bool {
        self.index() == 0
    }
}

/// Time a unit spends from entering a port's queue to reaching the far node.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct InFlight {
    pub arrive_at: Time,
    pub unit: Unit,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_trimmed_packet_keeps_its_frame_and_its_marks() {
        use super::Unit;
        use crate::base::ids::VcId;
        let cut = Unit::new(VcId(3), 7, 0, 1, 9064).ecn_capable().trimmed(64);
        assert!(cut.is_eom() && cut.is_ecn_capable());
        assert_eq!((cut.vc, cut.frame, cut.wire_bytes, cut.index()), (VcId(3), 7, 64, 0));
    }

    #[test]
    fn a_unit_in_flight_is_24_bytes() {
        // The pipes hold a round trip of these: their size is the memory of
        // a simulated network (bench/scaling.py, family `inflight`).
        assert_eq!(std::mem::size_of::<super::Unit>(), 16);
        assert_eq!(std::mem::size_of::<super::InFlight>(), 24);
    }

    #[test]
    fn a_cell_knows_its_index_and_whether_it_ends_its_frame() {
        use super::{Unit, MAX_CELL_INDEX};
        use crate::base::VcId;
        let cells: Vec<_> = (0..3).map(|i| Unit::new(VcId(4), 9, i, 3, 53)).collect();
        assert_eq!(cells.iter().map(Unit::index).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(cells.iter().map(Unit::is_eom).collect::<Vec<_>>(), [false, false, true]);
        assert!(cells[0].is_first() && !cells[1].is_first());
        assert!(cells.iter().all(|c| !c.is_frameless() && c.frame == 9 && c.vc == VcId(4)));
        // A packet is a frame of one cell: first and last.
        let packet = Unit::new(VcId(0), 1, 0, 1, 1500);
        assert!(packet.is_first() && packet.is_eom() && packet.wire_bytes == 1500);
        // A cell of no frame (RM, VBR) ends nothing.
        let rm = Unit::rm(VcId(0), 7);
        assert!(rm.is_frameless() && !rm.is_eom() && rm.index() == 0);
        assert_eq!(
            (rm.kind(), Unit::vbr(VcId(0)).kind(), packet.kind()),
            (super::CellKind::Rm { slot: 7 }, super::CellKind::Vbr, super::CellKind::Data)
        );
        assert!(Unit::vbr(VcId(2)).is_vbr() && !rm.is_vbr() && !packet.is_vbr());
        // The largest frame a 65535-byte packet makes, and more, keeps its marks apart.
        let last = Unit::new(VcId(0), 0, MAX_CELL_INDEX, MAX_CELL_INDEX + 1, 53);
        assert!(last.is_eom() && !last.is_frameless() && last.index() == MAX_CELL_INDEX);
        assert!(MAX_CELL_INDEX as u32 > 65535 / 48);
        // Re-indexing and moving along the route keep the rest.
        let moved = cells[2].with_index(1, 3).on_route(7 << super::HOP_BITS | 3).onward();
        assert_eq!((moved.index(), moved.is_eom(), moved.route, moved.frame), (1, false, 7, 9));
    }

    #[test]
    fn congestion_and_ecn_marks_stay_apart_from_the_index_and_travel_with_the_cell() {
        use super::{Unit, MAX_CELL_INDEX};
        use crate::base::VcId;
        let plain = Unit::new(VcId(1), 3, MAX_CELL_INDEX, MAX_CELL_INDEX + 1, 53);
        assert!(!plain.is_congested() && !plain.is_ecn_capable());
        let marked = plain.ecn_capable().congested();
        assert!(marked.is_congested() && marked.is_ecn_capable() && marked.is_eom());
        assert_eq!(marked.index(), MAX_CELL_INDEX);
        // A frame's cells made from its first keep its marks (`accept_frame`).
        let again = marked.with_index(0, 4).onward();
        assert!(again.is_congested() && again.is_ecn_capable() && !again.is_eom() && again.index() == 0);
        // RM and VBR cells can carry EFCI too, and stay frameless.
        assert!(Unit::rm(VcId(0), 2).congested().is_frameless());
    }
}
