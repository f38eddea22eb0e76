//! A host's network interface as htsim models it for NDP and EQDS
//! (`FairPriorityQueue`, rule N6 of docs/fabrics.md): two classes served
//! strictly — control packets (ACKs, PULLs) before full data and NACKs —
//! and within a class, round robin across the VCs that have packets
//! waiting. A VC's class is fixed (an NDP flow's ACKs and PULLs travel on
//! one VC, its NACKs on another). No limit: a host holds its own data
//! rather than lose it.
//!
//! Round robin rather than FIFO is what gives a host's flows equal shares
//! of its uplink whatever the rate at which each is pulled (NDP's Fig. 21
//! closed form rests on it).

use crate::net::Unit;
use crate::time::Time;
use std::collections::VecDeque;

/// One class: per-slot queues and the round-robin order of the slots that
/// have packets waiting.
#[derive(Clone, Debug, Default)]
struct Class {
    queues: Vec<VecDeque<(Time, Unit)>>,
    /// Slots with packets waiting, in service order: the slot served next
    /// is at the front, and a slot served goes to the back if it still has
    /// packets (htsim serves the next non-empty flow after the last served).
    active: VecDeque<u32>,
    len: u64,
}

impl Class {
    fn push(&mut self, slot: u32, now: Time, unit: Unit) {
        let q = &mut self.queues[slot as usize];
        if q.is_empty() {
            self.active.push_back(slot);
        }
        q.push_back((now, unit));
        self.len += 1;
    }

    fn pop(&mut self) -> Option<(Time, Unit)> {
        let slot = self.active.pop_front()?;
        let q = &mut self.queues[slot as usize];
        let next = q.pop_front().expect("an active slot has packets");
        if !q.is_empty() {
            self.active.push_back(slot);
        }
        self.len -= 1;
        Some(next)
    }
}

#[derive(Clone, Debug, Default)]
pub struct HostNic {
    high: Class,
    low: Class,
    /// The VCs that start at this host, ascending, each with whether its
    /// class is the high one; a VC's slot is its position here (found by
    /// binary search: a few VCs per host, and no table the size of the run's
    /// VCs at every host, which would grow with hosts × flows).
    vcs: Vec<(u32, bool)>,
    /// The packet being sent, when its last bit leaves.
    pub in_tx: Option<(Unit, Time)>,
    /// The end of that transmission as an event not scheduled (yet): its
    /// place in the order, reserved (`Scheduler::reserve`). It matters only
    /// if a packet waits then, so `world/credit.rs` schedules it when one
    /// arrives before it (most packets of a receiving host find the NIC
    /// idle: one event less per packet).
    pub deferred_free: Option<u64>,
    /// Ends of transmission are no events at all: the choice at each end is
    /// made the next time the port is looked at (a packet arrives, or the
    /// pipe's head leaves), over the packets that had arrived by then
    /// (`Port::nic_ends_before`). Where the NIC is not watched and its link
    /// has a delay (set by `world/build.rs`).
    pub lazy: bool,
}

impl HostNic {
    /// A NIC for the VCs `vcs` (the VCs of the run that start at its host,
    /// each with its class: true for the high one).
    pub fn new(vcs: &[(u32, bool)]) -> HostNic {
        let mut vcs = vcs.to_vec();
        vcs.sort_unstable();
        let class = || Class { queues: vec![VecDeque::new(); vcs.len()], ..Class::default() };
        HostNic { high: class(), low: class(), vcs, in_tx: None, deferred_free: None, lazy: false }
    }

    pub fn enqueue(&mut self, now: Time, unit: Unit) {
        let slot = self.vcs.binary_search_by_key(&unit.vc.0, |&(vc, _)| vc).expect("a VC that starts at this host") as u32;
        if self.vcs[slot as usize].1 {
            self.high.push(slot, now, unit);
        } else {
            self.low.push(slot, now, unit);
        }
    }

    /// The next packet to send: the high class first, round robin within a class.
    /// Most ends of transmission find nothing waiting (a receiving host's
    /// ACKs and PULLs go one at a time), so the count is read first and no
    /// class is looked at then (Fig. 21: 208 k calls of the classes' `pop`
    /// for nothing, 5.7 M instructions; docs/performance.md, session 28).
    #[inline]
    pub fn pop_next(&mut self) -> Option<(Time, Unit)> {
        if self.queued() == 0 {
            return None;
        }
        self.high.pop().or_else(|| self.low.pop())
    }

    /// Packets waiting, not yet on the line.
    pub fn queued(&self) -> u64 {
        self.high.len + self.low.len
    }

    /// Packets held, the one in transmission included.
    pub fn occupancy(&self) -> u64 {
        self.queued() + self.in_tx.is_some() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn pkt(vc: u32, frame: u32) -> Unit {
        Unit::new(VcId(vc), frame, 0, 1, 9064)
    }

    #[test]
    fn control_first_then_round_robin_across_flows_within_a_class() {
        // VCs 1 and 3 carry data, 4 NACKs (low class), 5 ACKs (high class).
        let mut nic = HostNic::new(&[(1, false), (3, false), (4, false), (5, true)]);
        for f in 0..3 {
            nic.enqueue(0, pkt(1, f));
        }
        nic.enqueue(0, pkt(3, 10));
        nic.enqueue(0, pkt(4, 20)); // a NACK: with data
        nic.enqueue(0, pkt(5, 21)); // an ACK: first
        let order: Vec<(u32, u32)> = std::iter::from_fn(|| nic.pop_next()).map(|(_, u)| (u.vc.0, u.frame)).collect();
        assert_eq!(order, [(5, 21), (1, 0), (3, 10), (4, 20), (1, 1), (1, 2)]);
        assert_eq!(nic.queued(), 0);
    }
}
