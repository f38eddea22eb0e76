//! Admission: whether a unit arriving at a port may enter its buffer.
//!
//! One enum of policies, each variant carrying its own per-port state, so a
//! queueing discipline asks one question (`admit`) whatever the network:
//! - ATM switch ports limit cells and apply a cell discard policy (tail,
//!   PPD, EPD, EOM protection; see `atm::discard`), the frame-aware ones with
//!   per-VC frame state;
//! - IP router ports limit packets (tail drop) or bytes (a packet enters iff
//!   it fits whole);
//! - host adapters never drop (the host holds data rather than lose it).
//!
//! - RED router ports (Floyd & Jacobson 1993, `net/red.rs`) drop early with
//!   a probability from their average queue, drawn from the port's own
//!   random stream (`crate::rng`).

use crate::atm::discard::{DiscardPolicy, DropReason, VcDiscard};
use crate::net::red::Red;
use crate::net::{Limit, Unit};
use crate::time::{Serializer, Time};

/// (`repr(u8)`: an explicit tag byte, tested with one compare on every
/// unit; without it the tag hides in a niche of the `Vec` and takes a
/// dozen instructions to decode.)
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Admission {
    /// Host adapters: everything enters.
    Unlimited,
    /// At most `limit` units (cells, or packets on a router), under a cell
    /// discard policy; `frames` is the per-VC frame state of the
    /// frame-aware policies (empty for tail drop). (A boxed slice, two
    /// words, rather than a vector, three: with it a port's admission and
    /// its per-unit counters share a cache line, see `Port`.)
    Units { limit: u64, policy: DiscardPolicy, frames: Box<[VcDiscard]> },
    /// At most `limit` bytes of queued packets: tail drop of routers whose
    /// buffer is given in bytes.
    Bytes { limit: u64 },
    /// RED on a packet limit.
    Red(Box<Red>),
}

impl Admission {
    pub fn new(limit: Limit, policy: DiscardPolicy, num_vcs: usize) -> Self {
        match limit {
            Limit::Unlimited => Admission::Unlimited,
            Limit::Units(limit) => {
                let frames = if policy.needs_vc_state() { vec![VcDiscard::default(); num_vcs] } else { Vec::new() }.into_boxed_slice();
                Admission::Units { limit, policy, frames }
            }
            Limit::Bytes(limit) => Admission::Bytes { limit },
        }
    }

    /// The buffer limit this admission enforces.
    pub fn limit(&self) -> Limit {
        match *self {
            Admission::Unlimited => Limit::Unlimited,
            Admission::Units { limit, .. } => Limit::Units(limit),
            Admission::Bytes { limit } => Limit::Bytes(limit),
            Admission::Red(ref r) => Limit::Units(r.limit()),
        }
    }

    /// Is occupancy measured in bytes (rather than units)?
    #[inline]
    pub fn counts_bytes(&self) -> bool {
        matches!(self, Admission::Bytes { .. })
    }

    /// Decides the fate of `unit` arriving at `now` to a buffer holding `q`
    /// (units, or bytes for a byte limit; counting the unit in transmission);
    /// the port's transmitter tells RED since when an empty queue is idle.
    /// Called for every unit at every port: always inlined.
    #[inline(always)]
    pub fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Result<(), DropReason> {
        // Tail drop on a unit limit, the plain switch port, decided first
        // (one test rather than two jump tables).
        if let Admission::Units { limit, policy: DiscardPolicy::Tail, .. } = self {
            return DiscardPolicy::Tail.decide(None, unit, q, *limit);
        }
        match self {
            Admission::Unlimited => Ok(()),
            Admission::Units { limit, policy, frames } => policy.decide(frames.get_mut(unit.vc.ix()), unit, q, *limit),
            Admission::Bytes { limit } => {
                if q + unit.wire_bytes as u64 <= *limit {
                    Ok(())
                } else {
                    Err(DropReason::Tail)
                }
            }
            Admission::Red(r) => r.admit(q, now, if q == 0 { line.free_at() } else { now }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn line() -> Serializer {
        Serializer::new(crate::time::Rate::new(1, 1).unwrap())
    }

    fn unit(vc: u32, index: u16, ncells: u16, wire_bytes: u16) -> Unit {
        Unit::new(VcId(vc), 0, index, ncells, wire_bytes)
    }

    #[test]
    fn unlimited_admits_everything() {
        let mut a = Admission::new(Limit::Unlimited, DiscardPolicy::Tail, 1);
        assert!(a.admit(&unit(0, 0, 1, 53), u64::MAX - 1, 0, &line()).is_ok());
    }

    #[test]
    fn byte_limit_admits_whole_packets_only() {
        let mut a = Admission::new(Limit::Bytes(1000), DiscardPolicy::Tail, 1);
        assert!(a.admit(&unit(0, 0, 1, 600), 400, 0, &line()).is_ok());
        assert_eq!(a.admit(&unit(0, 0, 1, 601), 400, 0, &line()), Err(DropReason::Tail));
        assert!(a.counts_bytes());
    }

    #[test]
    fn frame_state_is_per_vc() {
        // PPD: VC 0 loses a middle cell and discards the rest of its frame;
        // VC 1's frame at the same port is unaffected.
        let mut a = Admission::new(Limit::Units(4), DiscardPolicy::Ppd, 2);
        assert_eq!(a.admit(&unit(0, 1, 3, 53), 4, 0, &line()), Err(DropReason::Tail));
        assert!(a.admit(&unit(1, 1, 3, 53), 0, 0, &line()).is_ok());
        assert_eq!(a.admit(&unit(0, 1, 3, 53), 0, 0, &line()), Err(DropReason::Ppd));
        assert_eq!(a.limit(), Limit::Units(4));
    }
}
