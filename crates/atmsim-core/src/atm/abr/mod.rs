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
