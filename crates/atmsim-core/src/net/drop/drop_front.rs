//! Drop from front: when a packet arrives to a full buffer, the packet at
//! the head of the queue (the oldest one waiting, not the one in
//! transmission) is discarded and the arrival joins the tail. ns-2 offers
//! it as `Queue/DropTail`'s `drop_front_`; Lakshman, Neidhardt & Ott
//! ("The drop from front strategy in TCP and in TCP over ATM", INFOCOM
//! 1996) show it tells a TCP sender of congestion a queueing delay sooner
//! than tail drop does. The drop counts as `tail` (no room).
//!
//! (This file and its variant, `DropSpec::DropFront` and the name
//! `router.policy = "drop-front"` are all it took to add the policy: the
//! port carries out the eviction, `net/port/evict.rs`.)

use super::{Action, DropReason};

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
