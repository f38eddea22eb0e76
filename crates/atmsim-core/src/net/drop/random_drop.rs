//! Random drop, the push-out gateway of Mankin (SIGCOMM 1990) and RFC 1254
//! that Chang, Huynh & Gray (§4.2) and Floyd & Jacobson set against drop
//! tail: when a packet arrives to a full buffer, a packet chosen uniformly
//! at random is discarded. By default the arrival is one of the candidates
//! with every waiting packet (each packet present equally likely); with
//! `include_arrival = false` only waiting packets are ("a packet in the
//! queue is randomly chosen", §4.2). The packet in transmission never is.
//!
//! The policy only chooses; the port (a FIFO, `net/port/evict.rs`) takes
//! the victim out of its queue. Draws come from the port's own stream.

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::{PortId, Unit};
use crate::time::{Serializer, Time};
use crate::rng::{stream, Stream};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

const INCLUDE_ARRIVAL: &str = "router.include_arrival";

impl Policy for RandomDrop {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "random-drop",
        selected_by: "router.policy",
        networks: Networks::Packet,
        about: "random drop (Mankin 1990; RFC 1254; Chang, Huynh & Gray §4.2): a full port discards a packet chosen at random",
        docs: "packet.md",
        keys: &[Key {
            name: INCLUDE_ARRIVAL,
            kind: KeyKind::Bool,
            default: KeyDefault::Value("true"),
            about: "the arriving packet is a candidate victim with the waiting ones (false: only waiting packets)",
        }],
        counters: &["random_drop"],
        goldens: &[Golden {
            scenario: "aron97-topo1-packet",
            variation: "random-drop",
            overrides: &["router.policy=random-drop", "switch.buffer=3packets"],
        }],
    }];
    /// Whether the arrival is a candidate.
    type Spec = bool;
    const EVICTS: bool = true;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<bool, KeyError> {
        Ok(cx.params.bool(INCLUDE_ARRIVAL, true))
    }
    fn build(include_arrival: bool, units: u64, cx: &PortContext) -> Self {
        RandomDrop::new(units, cx.seed, cx.port, include_arrival)
    }
    #[inline]
    fn admit(&mut self, _: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        RandomDrop::admit(self, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

#[derive(Clone, Debug)]
pub struct RandomDrop {
    /// At most this many packets, counting the one in transmission.
    pub limit: u64,
    rng: ChaCha8Rng,
    pub include_arrival: bool,
}

impl RandomDrop {
    pub fn new(limit: u64, seed: u64, port: PortId, include_arrival: bool) -> Self {
        RandomDrop { limit, rng: stream(seed, Stream::Port(port)), include_arrival }
    }

    /// A packet arrives to a queue of `q` packets (counting the one in
    /// transmission): it enters if there is room, else a victim is drawn.
    #[inline]
    pub fn admit(&mut self, q: u64) -> Action {
        if q < self.limit {
            return Action::Admit;
        }
        match self.victim(q.saturating_sub(1) as usize) {
            Some(k) => Action::Evict { victim: k, reason: DropReason::RandomDrop },
            None => Action::Drop(DropReason::RandomDrop),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_victim_is_never_the_packet_in_transmission() {
        let mut rd = RandomDrop::new(4, 1, PortId(3), false);
        assert_eq!(rd.victim(0), None);
        let mut seen = [0; 3];
        for _ in 0..300 {
            seen[rd.victim(3).unwrap()] += 1;
        }
        assert!(seen.iter().all(|&n| n > 60), "{seen:?}");
        let mut with_arrival = RandomDrop::new(4, 1, PortId(3), true);
        assert!((0..100).any(|_| with_arrival.victim(2).is_none()));
    }

    #[test]
    fn room_admits_and_a_full_queue_evicts_a_waiting_packet_or_drops_the_arrival() {
        let mut rd = RandomDrop::new(4, 1, PortId(3), true);
        assert_eq!(rd.admit(3), Action::Admit);
        let actions: Vec<_> = (0..200).map(|_| rd.admit(4)).collect();
        // Three waiting packets and the arrival, each a quarter of the time.
        let evict = |a: &Action| matches!(a, Action::Evict { victim: 0..=2, reason: DropReason::RandomDrop });
        assert!(actions.iter().all(|a| evict(a) || *a == Action::Drop(DropReason::RandomDrop)));
        let arrivals = actions.iter().filter(|a| matches!(a, Action::Drop(_))).count();
        assert!((20..80).contains(&arrivals), "{arrivals}");
        // Only the packet in transmission and no arrival candidate: the arrival goes.
        let mut alone = RandomDrop::new(1, 1, PortId(3), false);
        assert_eq!(alone.admit(1), Action::Drop(DropReason::RandomDrop));
    }
}
