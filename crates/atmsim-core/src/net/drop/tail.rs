//! Tail drop: the arrival is refused when the buffer is full ("drop-tail"
//! in Aron & Druschel; the plain ATM switch port and IP router port).

use super::{Action, DropReason};
use crate::net::Unit;

/// At most `limit` units (cells, or packets on a router), counting the one
/// in transmission: accept iff q < limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tail {
    pub limit: u64,
}

impl Tail {
    #[inline(always)]
    pub fn admit(&self, q: u64) -> Action {
        if q < self.limit {
            Action::Admit
        } else {
            Action::Drop(DropReason::Tail)
        }
    }
}

/// At most `limit` bytes of queued packets: a router whose buffer is given
/// in bytes takes a packet iff it fits whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailBytes {
    pub limit: u64,
}

impl TailBytes {
    #[inline]
    pub fn admit(&self, unit: &Unit, q: u64) -> Action {
        if q + unit.wire_bytes as u64 <= self.limit {
            Action::Admit
        } else {
            Action::Drop(DropReason::Tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    #[test]
    fn tail_drop_is_stateless_and_counts_the_unit_in_transmission() {
        let t = Tail { limit: 10 };
        assert_eq!(t.admit(9), Action::Admit);
        assert_eq!(t.admit(10), Action::Drop(DropReason::Tail));
        assert_eq!(t.admit(9), Action::Admit);
    }

    #[test]
    fn a_byte_limit_takes_a_packet_that_fits_exactly() {
        let t = TailBytes { limit: 1000 };
        let packet = |bytes| Unit::new(VcId(0), 0, 0, 1, bytes);
        assert_eq!(t.admit(&packet(600), 400), Action::Admit);
        assert_eq!(t.admit(&packet(601), 400), Action::Drop(DropReason::Tail));
    }
}
