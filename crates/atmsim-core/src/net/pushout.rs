//! Random drop, the push-out gateway of Mankin (SIGCOMM 1990) and RFC 1254
//! that Chang, Huynh & Gray (§4.2) and Floyd & Jacobson set against drop
//! tail: when a packet arrives to a full buffer, a packet chosen uniformly
//! at random is discarded. By default the arrival is one of the candidates
//! with every waiting packet (each packet present equally likely); with
//! `include_arrival = false` only waiting packets are ("a packet in the
//! queue is randomly chosen", §4.2). The packet in transmission never is.
//!
//! The port is a FIFO whose departures are known at arrival (the fast
//! path), so evicting a waiting packet moves every packet behind it up by
//! the victim's transmission time, in the pipe and in the transmitter. Draws come from the port's own random stream.

use crate::atm::discard::DropReason;
use crate::net::port::{Discipline, Offer, Port};
use crate::net::{PortId, Unit};
use crate::rng::{stream, Stream};
use crate::time::Time;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
pub struct RandomDrop {
    rng: ChaCha8Rng,
    pub include_arrival: bool,
}

impl RandomDrop {
    pub fn new(seed: u64, port: PortId, include_arrival: bool) -> Self {
        RandomDrop { rng: stream(seed, Stream::Port(port)), include_arrival }
    }

    /// The victim among `waiting` packets (not in transmission) and maybe
    /// the arrival: `Some(k)` is the k-th waiting packet, `None` the arrival.
    pub fn victim(&mut self, waiting: usize) -> Option<usize> {
        let n = waiting + self.include_arrival as usize;
        if n == 0 {
            return None;
        }
        let k = self.rng.gen_range(0..n);
        (k < waiting).then_some(k)
    }
}

impl Port {
    /// A unit arrives to a full random-drop port at `now`.
    pub(super) fn push_out(&mut self, now: Time, unit: &Unit) -> Offer {
        let Discipline::Fifo(fifo) = &mut self.discipline else { unreachable!("random drop runs on FIFO ports") };
        let waiting = fifo.len().saturating_sub(1);
        let rd = self.random_drop.as_mut().expect("a random-drop port");
        let Some(k) = rd.victim(waiting) else {
            self.stats.units_dropped += 1;
            self.stats.dropped_by[DropReason::RandomDrop as usize] += 1;
            return Offer::Dropped(DropReason::RandomDrop);
        };
        // The fifo's position 0 is the unit in transmission; the queued
        // units are the last `fifo.len()` entries of the pipe.
        let ix = 1 + k;
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
        let weight = if self.admission.counts_bytes() { bytes as u128 } else { 1 };
        self.stats.occupancy_integral -= weight * (end - now) as u128 + behind * weight * shift as u128;
        self.stats.busy -= shift;
        self.stats.units_dropped += 1;
        self.stats.dropped_by[DropReason::RandomDrop as usize] += 1;
        self.evicted = Some(victim);
        self.evicted_shift = shift;
        match self.accept(now, unit) {
            Offer::Accepted { arrive_at, .. } => Offer::PushedOut { arrive_at },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::discard::DiscardPolicy;
    use crate::net::fifo::Fifo;
    use crate::net::{Limit, NodeId, VcId};
    use crate::time::Rate;

    fn packet(frame: u32, bytes: u16) -> Unit {
        Unit::new(VcId(0), frame, 0, 1, bytes)
    }

    /// A 3-packet router port at 8 bits per microsecond (1 byte/us).
    fn port(include_arrival: bool) -> Port {
        let mut p = Port::new(
            "X->Y".into(),
            NodeId(0),
            NodeId(1),
            Rate::new(8, 1_000_000).unwrap(),
            0,
            Limit::Units(3),
            DiscardPolicy::Tail,
            1,
            Discipline::Fifo(Fifo::default()),
        );
        p.random_drop = Some(Box::new(RandomDrop::new(7, PortId(0), include_arrival)));
        p
    }

    #[test]
    fn the_victim_is_never_the_packet_in_transmission() {
        let mut rd = RandomDrop::new(1, PortId(3), false);
        assert_eq!(rd.victim(0), None);
        let mut seen = [0; 3];
        for _ in 0..300 {
            seen[rd.victim(3).unwrap()] += 1;
        }
        assert!(seen.iter().all(|&n| n > 60), "{seen:?}");
        let mut with_arrival = RandomDrop::new(1, PortId(3), true);
        assert!((0..100).any(|_| with_arrival.victim(2).is_none()));
    }

    #[test]
    fn eviction_moves_later_packets_up_and_keeps_the_books() {
        let mut p = port(false);
        for (f, b) in [(0, 100), (1, 200), (2, 300)] {
            assert!(matches!(p.accept(0, &packet(f, b)), Offer::Accepted { .. }));
        }
        // Full: packets end at 100, 300, 600 us. The arrival evicts packet 1 or 2.
        let Offer::PushedOut { arrive_at } = p.offer(0, &packet(3, 50)) else { panic!("pushed out") };
        let victim = p.evicted.take().unwrap();
        let us = 1_000_000;
        let ends: Vec<_> = p.pipe.iter().map(|f| f.arrive_at / us).collect();
        match victim.frame {
            1 => assert_eq!(ends, vec![100, 400, 450]),
            2 => assert_eq!(ends, vec![100, 300, 350]),
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
