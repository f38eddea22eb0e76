//! The ATM Forum's Available Bit Rate service (Traffic Management
//! Specification 4.0, af-tm-0056.000, §5.10), as Jain et al. simulate it in
//! "TCP/IP over ABR" (ATM Forum 96-0177R1):
//! - [`source`]: the source end system, whose allowed cell rate (ACR) paces
//!   its VC's cells and is steered by the resource management (RM) cells it
//!   gets back (TM 4.0 source rules 1-11);
//! - [`destination`]: the destination end system, which turns forward RM
//!   cells around (TM 4.0 destination rules);
//! - [`erica`]: the ERICA explicit-rate switch algorithm at an output port
//!   (Jain et al., ATM Forum/96-1172).
//!
//! Each is a plain value: it takes an input (a send opportunity, an RM cell,
//! a cell arriving at a port) and returns what to do. Rates are `f64` cells
//! per second, as the standard writes them; times are simulator picoseconds.

pub mod destination;
pub mod erica;
pub mod source;

#[cfg(test)]
mod parking_lot;

use crate::net::{Segment, Unit, VcId};
use crate::time::{Time, PS_PER_S};

/// Bits of one ATM cell on the wire: rates in b/s divide by this to give
/// cells/s.
pub const CELL_BITS: f64 = 424.0;

/// Cells per second of a line of `bits_per_second`.
pub fn cells_per_second(bits_per_second: f64) -> f64 {
    bits_per_second / CELL_BITS
}

/// Time between cells at `rate` cells/s, rounded up to a whole picosecond so
/// a source never exceeds its rate.
pub fn cell_spacing(rate: f64) -> Time {
    debug_assert!(rate > 0.0);
    (PS_PER_S as f64 / rate).ceil() as Time
}

/// Which way an RM cell travels: forward with the data (DIR = 0), or
/// backward to the source after the destination turned it around (DIR = 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// The fields of an RM cell that ABR uses (TM 4.0 §5.10.3.1; QL, SN and RA
/// are unused by ABR and not modelled). Rates are cells/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmCell {
    pub dir: Direction,
    /// Backward explicit congestion notification: set when a switch or
    /// destination generated the cell itself (never by our end systems).
    pub bn: bool,
    /// Congestion indication: the source must decrease.
    pub ci: bool,
    /// No increase.
    pub ni: bool,
    /// Explicit rate: switches only ever lower it.
    pub er: f64,
    /// Current cell rate: the source's ACR when it sent the cell.
    pub ccr: f64,
    pub mcr: f64,
    /// Out-of-rate (CLP = 1) cell, sent at TCR when ACR is below it.
    pub out_of_rate: bool,
}

/// Frame number of an RM cell: no data frame has it (frames count from 0,
/// and `u32::MAX` means "no frame doomed"), so no frame state matches it.
const RM_FRAME: u32 = u32::MAX - 1;

const F_BACKWARD: u8 = 1;
const F_BN: u8 = 2;
const F_CI: u8 = 4;
const F_NI: u8 = 8;
const F_OUT_OF_RATE: u8 = 16;
/// A VBR background cell (not an RM cell): also a unit of no frame.
const F_VBR: u8 = 32;

impl RmCell {
    /// The RM cell as a unit on `route_vc` (the owner's VC going forward,
    /// the owner's reply VC going back). A unit of a zero-cell "frame" is an
    /// RM cell: never an EOM, never part of a data frame. Its fields ride
    /// in the segment header every cell carries: ER and CCR as `f64` bits,
    /// MCR as `f32` bits, the owner VC in `wnd`, the flags in `flags`.
    pub fn to_unit(&self, owner: VcId, route_vc: VcId) -> Unit {
        let flags = ((self.dir == Direction::Backward) as u8 * F_BACKWARD)
            | (self.bn as u8 * F_BN)
            | (self.ci as u8 * F_CI)
            | (self.ni as u8 * F_NI)
            | (self.out_of_rate as u8 * F_OUT_OF_RATE);
        let seg = Segment { seq: self.er.to_bits(), ack: self.ccr.to_bits(), len: (self.mcr as f32).to_bits(), wnd: owner.0, flags, opt: 0, sack: 0 };
        Unit { vc: route_vc, hop: 0, index: 0, ncells: 0, frame: RM_FRAME, wire_bytes: 53, seg }
    }

    /// The RM cell a unit carries and the VC that owns it (whose source sent
    /// it and whose rate it governs); `None` for a data cell.
    #[inline]
    pub fn from_unit(u: &Unit) -> Option<(RmCell, VcId)> {
        if u.ncells != 0 || u.seg.flags & F_VBR != 0 {
            return None;
        }
        let f = u.seg.flags;
        let cell = RmCell {
            dir: if f & F_BACKWARD != 0 { Direction::Backward } else { Direction::Forward },
            bn: f & F_BN != 0,
            ci: f & F_CI != 0,
            ni: f & F_NI != 0,
            er: f64::from_bits(u.seg.seq),
            ccr: f64::from_bits(u.seg.ack),
            mcr: f32::from_bits(u.seg.len) as f64,
            out_of_rate: f & F_OUT_OF_RATE != 0,
        };
        Some((cell, VcId(u.seg.wnd)))
    }

    /// Writes a new ER into an RM unit in place (a switch lowering it).
    pub fn set_er(u: &mut Unit, er: f64) {
        u.seg.seq = er.to_bits();
    }
}

/// Is this unit a cell of no data frame (an RM or a VBR cell)?
#[inline]
pub fn is_frameless(u: &Unit) -> bool {
    u.ncells == 0
}

/// Is this unit a VBR background cell?
#[inline]
pub fn is_vbr(u: &Unit) -> bool {
    u.ncells == 0 && u.seg.flags & F_VBR != 0
}

/// A VBR background cell on `vc` (its route is the port it loads).
pub fn vbr_unit(vc: VcId) -> Unit {
    let seg = Segment { flags: F_VBR, ..Segment::default() };
    Unit { vc, hop: 0, index: 0, ncells: 0, frame: RM_FRAME, wire_bytes: 53, seg }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn an_rm_cell_survives_the_trip_through_a_unit() {
        let c = RmCell { dir: Direction::Backward, bn: true, ci: false, ni: true, er: 12345.678, ccr: 0.1, mcr: 10.0, out_of_rate: true };
        let u = c.to_unit(VcId(3), VcId(4));
        assert!(is_frameless(&u) && !is_vbr(&u) && !u.is_eom());
        assert_eq!((u.vc, u.wire_bytes), (VcId(4), 53));
        assert_eq!(RmCell::from_unit(&u), Some((c, VcId(3))));
        let mut u = u;
        RmCell::set_er(&mut u, 5.0);
        assert_eq!(RmCell::from_unit(&u).unwrap().0.er, 5.0);
    }

    #[test]
    fn vbr_cells_are_not_rm_cells_and_follow_their_on_periods() {
        let u = vbr_unit(VcId(7));
        assert!(is_vbr(&u) && is_frameless(&u) && RmCell::from_unit(&u).is_none());
        let ms = crate::time::PS_PER_MS;
        let v = VbrConfig { port: crate::net::PortId(0), rate: 1000.0, on: 100 * ms, off: 100 * ms, start: 2 * ms };
        assert_eq!(v.next_cell(0), 2 * ms);
        assert_eq!(v.next_cell(2 * ms + 1), 3 * ms, "one cell per ms while on");
        assert_eq!(v.next_cell(101 * ms + 1), 202 * ms, "none while off");
        let cells = (0..)
            .scan(0, |t, _| {
                let c = v.next_cell(*t);
                *t = c + 1;
                Some(c)
            })
            .take_while(|&c| c < 402 * ms)
            .count();
        assert_eq!(cells, 200, "two on periods of 100 cells in 400 ms");
    }

    #[test]
    fn a_data_cell_is_not_an_rm_cell() {
        let u = Unit { vc: VcId(0), hop: 0, index: 0, ncells: 1, frame: 0, wire_bytes: 53, seg: Segment::default() };
        assert!(!is_frameless(&u) && RmCell::from_unit(&u).is_none());
    }
}

/// The ABR configuration of a run (the scenario's `[abr]`): every TCP VC is
/// an ABR VC with these source parameters, every switch output port runs
/// ERICA, and destinations turn RM cells around in this mode.
#[derive(Clone, Debug, PartialEq)]
pub struct AbrConfig {
    pub source: source::AbrParams,
    pub erica: erica::EricaConfig,
    pub turnaround: destination::Turnaround,
    /// The VBR background, if any.
    pub vbr: Option<VbrConfig>,
    /// Independent random loss of ABR cells entering one port: (port,
    /// probability per cell).
    pub loss: Option<(crate::net::PortId, f64)>,
}

/// A VBR on/off background entering one switch port with priority over ABR
/// (Jain et al., slide "n Source + VBR Configuration": "100 ms on, 100 ms
/// off, start at t = 2ms").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VbrConfig {
    pub port: crate::net::PortId,
    /// Cells/s while on.
    pub rate: f64,
    pub on: Time,
    pub off: Time,
    pub start: Time,
}

impl VbrConfig {
    /// The first cell time at or after `t` (a cell every 1/rate from the
    /// start of each on period, none during off periods).
    pub fn next_cell(&self, t: Time) -> Time {
        let t = t.max(self.start);
        let period = self.on + self.off;
        let k = (t - self.start) / period;
        let on_start = self.start + k * period;
        let spacing = cell_spacing(self.rate);
        let i = (t - on_start).div_ceil(spacing);
        let at = on_start + i * spacing;
        if at < on_start + self.on {
            at
        } else {
            on_start + period
        }
    }
}
