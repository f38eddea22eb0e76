//! A FIFO port carries out an eviction ([`Action::Evict`]: random drop's
//! push-out, `net/drop/random_drop.rs`, or drop from front,
//! `net/drop/drop_front.rs`): the victim leaves the queue and the arrival
//! takes its place at the back.
//!
//! The port is a FIFO whose departures are known at arrival (the fast
//! path), so evicting a waiting unit moves every unit behind it up by the
//! victim's transmission time, in the pipe and in the transmitter.
//!
//! [`Action::Evict`]: crate::net::drop::Action::Evict

use super::{Discipline, Offer, Port};
use crate::net::drop::DropReason;
use crate::net::Unit;
use crate::time::Time;

impl Port {
    /// A unit arrives at `now` to a full FIFO port whose policy chose the
    /// `k`-th waiting unit (behind the one in transmission) as the victim,
    /// dropped for `reason`.
    pub(super) fn push_out(&mut self, now: Time, unit: &Unit, k: usize, reason: DropReason) -> Offer {
        let Discipline::Fifo(fifo) = &mut self.discipline else { unreachable!("eviction runs on FIFO ports") };
        // The fifo's position 0 is the unit in transmission; the queued
        // units are the last `fifo.len()` entries of the pipe.
        let ix = 1 + k;
        debug_assert!(ix < fifo.len());
        let pipe_ix = self.pipe.len() - fifo.len() + ix;
        let bytes = self.pipe.get(pipe_ix).unit.wire_bytes;
        let shift = self.ser.unsend(bytes as u64);
        let behind = (fifo.len() - ix - 1) as u128;
        let victim = self.pipe.remove(pipe_ix);
        let (end, victim) = (victim.arrive_at - self.delay, victim.unit);
        fifo.remove(bytes);
        self.pipe.update_from(pipe_ix, |f| f.arrive_at -= shift);
        // The books: the victim stays until now, not until `end`; the units
        // behind it each leave `shift` earlier; the line is busy `shift` less.
        let weight = if self.policy.counts_bytes() { bytes as u128 } else { 1 };
        self.stats.occupancy_integral -= weight * (end - now) as u128 + behind * weight * shift as u128;
        self.stats.busy -= shift;
        self.stats.dropped(reason);
        match self.accept(now, unit) {
            Offer::Accepted { arrive_at, .. } => Offer::PushedOut { arrive_at, victim, shift },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drop::{DropPolicy, DropSpec, PortContext};
    use crate::net::fifo::Fifo;
    use crate::net::{Limit, NodeId, PortId, VcId};
    use crate::time::Rate;

    fn packet(frame: u32, bytes: u16) -> Unit {
        Unit::new(VcId(0), frame, 0, 1, bytes)
    }

    /// A 3-packet random-drop router port at 8 bits per microsecond (1 byte/us).
    fn port(include_arrival: bool) -> Port {
        let limit = Limit::Units(3);
        let cx = PortContext { limit, num_vcs: 1, seed: 7, port: PortId(0), packet_time: 1 };
        let policy = DropPolicy::new(DropSpec::RandomDrop(include_arrival), &cx);
        Port::new(
            "X->Y".into(),
            NodeId(0),
            NodeId(1),
            Rate::new(8, 1_000_000).unwrap(),
            0,
            limit,
            policy,
            Discipline::Fifo(Fifo::default()),
        )
    }

    #[test]
    fn eviction_moves_later_packets_up_and_keeps_the_books() {
        let mut p = port(false);
        assert!(!p.is_plain_fifo() && !p.takes_whole_frames());
        for (f, b) in [(0, 100), (1, 200), (2, 300)] {
            assert!(matches!(p.offer(0, &packet(f, b)), Offer::Accepted { .. }));
        }
        // Full: packets end at 100, 300, 600 us. The arrival evicts packet 1 or 2.
        let Offer::PushedOut { arrive_at, victim, shift } = p.offer(0, &packet(3, 50)) else { panic!("pushed out") };
        let us = 1_000_000;
        let ends: Vec<_> = p.pipe.iter().map(|f| f.arrive_at / us).collect();
        match victim.frame {
            1 => assert_eq!((ends.clone(), shift / us), (vec![100, 400, 450], 200)),
            2 => assert_eq!((ends.clone(), shift / us), (vec![100, 300, 350], 300)),
            other => panic!("victim {other}"),
        }
        assert_eq!(arrive_at / us, *ends.last().unwrap());
        assert_eq!(p.last_departure() / us, *ends.last().unwrap());
        assert_eq!(p.stats.busy / us, *ends.last().unwrap());
        // Little's law: the stays that remain sum to the ends (all arrived at 0).
        assert_eq!(p.stats.occupancy_integral / us as u128, ends.iter().sum::<u64>() as u128);
        assert_eq!((p.stats.units_dropped, p.stats.dropped_by[DropReason::RandomDrop as usize]), (1, 1));
    }
}
