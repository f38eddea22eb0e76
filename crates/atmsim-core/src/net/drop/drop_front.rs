//! Drop from front: when a packet arrives to a full buffer, the packet at
//! the head of the queue (the oldest one waiting, not the one in
//! transmission) is discarded and the arrival joins the tail. ns-2 offers
//! it as `Queue/DropTail`'s `drop_front_`; Lakshman, Neidhardt & Ott
//! ("The drop from front strategy in TCP and in TCP over ATM", INFOCOM
//! 1996) show it tells a TCP sender of congestion a queueing delay sooner
//! than tail drop does. The drop counts as `tail` (no room).
//!
//! (This file and its line in `net/drop/mod.rs`'s registry are all it takes:
//! the port carries out the eviction, `net/port/evict.rs`.)

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, KeyError, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};

impl Policy for DropFront {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "drop-front",
        selected_by: "router.policy",
        networks: Networks::Packet,
        about: "drop from front (ns-2's drop_front_; Lakshman, Neidhardt & Ott 1996): a full port discards its oldest waiting packet",
        docs: "packet.md",
        keys: &[],
        counters: &["tail"],
        goldens: &[Golden {
            scenario: "aron97-topo1-packet",
            variation: "drop-front",
            overrides: &["router.policy=drop-front", "switch.buffer=3packets"],
        }],
    }];
    type Spec = ();
    const EVICTS: bool = true;
    fn resolve(_: &str, _: &ResolveCx) -> Result<(), KeyError> {
        Ok(())
    }
    fn build(_: (), units: u64, _: &PortContext) -> Self {
        DropFront { limit: units }
    }
    #[inline]
    fn admit(&mut self, _: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        DropFront::admit(self, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropFront {
    /// At most this many packets, counting the one in transmission.
    pub limit: u64,
}

impl DropFront {
    #[inline]
    pub fn admit(&self, q: u64) -> Action {
        if q < self.limit {
            Action::Admit
        } else if q >= 2 {
            Action::Evict { victim: 0, reason: DropReason::Tail }
        } else {
            // Only the packet in transmission is there: the arrival goes.
            Action::Drop(DropReason::Tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_loses_its_oldest_waiting_packet() {
        let d = DropFront { limit: 3 };
        assert_eq!(d.admit(2), Action::Admit);
        assert_eq!(d.admit(3), Action::Evict { victim: 0, reason: DropReason::Tail });
        assert_eq!(DropFront { limit: 1 }.admit(1), Action::Drop(DropReason::Tail));
    }
}
