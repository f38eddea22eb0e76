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

use crate::net::{CellKind, Unit, VcId};
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

/// The RM cells in the network. A cell on a link is a 16-byte unit that
/// cannot carry an RM cell's fields (ER and CCR, MCR, the owner VC, the
/// flags), so they wait here from the source until the cell is delivered or
/// dropped, in a slot that the unit names (`CellKind::Rm`). Slots are
/// reused: after the first round trip nothing is allocated.
#[derive(Clone, Debug, Default)]
pub struct RmCells {
    slots: Vec<(RmCell, VcId)>,
    free: Vec<u32>,
}

impl RmCells {
    /// The RM cell as a unit on `route_vc` (the owner's VC going forward,
    /// the owner's reply VC going back): a unit of a zero-cell "frame",
    /// never an EOM, never part of a data frame.
    pub fn to_unit(&mut self, cell: RmCell, owner: VcId, route_vc: VcId) -> Unit {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = (cell, owner);
                s
            }
            None => {
                self.slots.push((cell, owner));
                self.slots.len() as u32 - 1
            }
        };
        Unit::rm(route_vc, slot)
    }

    fn slot(u: &Unit) -> Option<usize> {
        match u.kind() {
            CellKind::Rm { slot } => Some(slot as usize),
            CellKind::Data | CellKind::Vbr => None,
        }
    }

    /// The RM cell a unit carries and the VC that owns it (whose source sent
    /// it and whose rate it governs); `None` for a data or VBR cell.
    #[inline]
    pub fn read(&self, u: &Unit) -> Option<(RmCell, VcId)> {
        Self::slot(u).map(|s| self.slots[s])
    }

    /// Writes a new ER into an RM cell in the network (a switch lowering it).
    pub fn set_er(&mut self, u: &Unit, er: f64) {
        let s = Self::slot(u).expect("an RM cell");
        self.slots[s].0.er = er;
    }

    /// Sets CI in an RM cell in the network (a switch's relative rate marking).
    pub fn set_ci(&mut self, u: &Unit) {
        let s = Self::slot(u).expect("an RM cell");
        self.slots[s].0.ci = true;
    }

    /// The RM cell left the network (delivered or dropped): its slot is free.
    pub fn release(&mut self, u: &Unit) {
        let s = Self::slot(u).expect("an RM cell");
        self.free.push(s as u32);
    }

    /// RM cells still in the network.
    pub fn in_network(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn an_rm_cell_survives_the_trip_through_a_unit() {
        let c = RmCell { dir: Direction::Backward, bn: true, ci: false, ni: true, er: 12345.678, ccr: 0.1, mcr: 10.0, out_of_rate: true };
        let mut rm = RmCells::default();
        let u = rm.to_unit(c, VcId(3), VcId(4));
        let other = rm.to_unit(RmCell { er: 1.0, ..c }, VcId(5), VcId(5));
        assert!(u.is_frameless() && !u.is_vbr() && !u.is_eom());
        assert_eq!((u.vc, u.wire_bytes), (VcId(4), 53));
        assert_eq!(rm.read(&u), Some((c, VcId(3))));
        rm.set_er(&u, 5.0);
        rm.set_ci(&u);
        assert_eq!(rm.read(&u).unwrap().0.er, 5.0);
        assert!(rm.read(&u).unwrap().0.ci);
        assert!(!rm.read(&other).unwrap().0.ci);
        assert_eq!(rm.read(&other).unwrap().0.er, 1.0, "each cell its own fields");
        rm.release(&u);
        assert_eq!(rm.in_network(), 1);
        let again = rm.to_unit(c, VcId(6), VcId(6));
        assert_eq!(again.frame, u.frame, "a freed slot is reused");
        assert_eq!(rm.in_network(), 2);
    }

    #[test]
    fn vbr_cells_are_not_rm_cells_and_follow_their_on_periods() {
        let u = Unit::vbr(VcId(7));
        assert!(u.is_vbr() && u.is_frameless() && RmCells::default().read(&u).is_none());
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
        let u = Unit::new(VcId(0), 0, 0, 1, 53);
        assert!(!u.is_frameless() && RmCells::default().read(&u).is_none());
    }
}

/// The ABR configuration of a run (the scenario's `[abr]`): every TCP VC is
/// an ABR VC with these source parameters, every switch output port runs
/// `switch` (ERICA with `erica`, or EFCI marking), and destinations turn RM
/// cells around in this mode.
#[derive(Clone, Debug, PartialEq)]
pub struct AbrConfig {
    pub source: source::AbrParams,
    pub switch: AbrSwitch,
    pub erica: erica::EricaConfig,
    pub turnaround: destination::Turnaround,
    /// The VBR background, if any.
    pub vbr: Option<VbrConfig>,
    /// Independent random loss of ABR cells entering one port: (port,
    /// probability per cell).
    pub loss: Option<(crate::net::PortId, f64)>,
}

/// What the switches' output ports do for ABR (TM 4.0 §5.10.6 lets a switch
/// choose among EFCI marking, relative rate marking and explicit rate
/// marking).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AbrSwitch {
    /// Explicit rate: ERICA lowers the ER of backward RM cells.
    #[default]
    Erica,
    /// Binary feedback: no ER is computed (ER stays at PCR); data cells
    /// leave a congested port with EFCI set.
    Efci(EfciConfig),
}

/// A binary-feedback switch port (`net/drop/efci.rs` marks the cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EfciConfig {
    /// Queue (cells) at which a port turns congested, and at or below which
    /// it turns uncongested again.
    pub high: u64,
    pub low: u64,
    /// Relative rate marking as well: a backward RM cell passing the switch
    /// gets CI while its VC's forward port there is congested.
    pub backward_ci: bool,
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
