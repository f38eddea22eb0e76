//! Tail drop: the arrival is refused when the buffer is full ("drop-tail"
//! in Aron & Druschel; the plain ATM switch port and IP router port).

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, KeyError, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};

impl Policy for Tail {
    const MECHANISMS: &'static [Mechanism] = &[
        Mechanism {
            name: "tail",
            selected_by: "switch.policy",
            networks: Networks::Both,
            about: "plain tail drop: a cell enters iff the queue is below its limit (\"drop-tail\", Aron & Druschel §3)",
            docs: "atm.md",
            keys: &[],
            counters: &["tail"],
            goldens: &[Golden { scenario: "aron97-topo1-atm", variation: "", overrides: &[] }],
        },
        Mechanism {
            name: "tail",
            selected_by: "router.policy",
            networks: Networks::Both,
            about: "drop the arriving packet if it does not fit in the buffer (bytes or packets, counting the one in transmission)",
            docs: "packet.md",
            keys: &[],
            counters: &["tail"],
            goldens: &[Golden { scenario: "aron97-topo1-packet", variation: "", overrides: &[] }],
        },
    ];
    type Spec = ();
    fn resolve(_: &str, _: &ResolveCx) -> Result<(), KeyError> {
        Ok(())
    }
    fn build(_: (), units: u64, _: &PortContext) -> Self {
        Tail { limit: units }
    }
    #[inline(always)]
    fn admit(&mut self, _: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        Tail::admit(self, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

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
