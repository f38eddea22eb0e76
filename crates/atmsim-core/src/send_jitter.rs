//! A random per-packet processing time at an ideal host's transmit side.
//!
//! Identical senders on identical paths deliver their packets to a shared
//! queue at exactly the same instants, and a deterministic simulator breaks
//! the tie the same way every time: the run locks into one phase, and which
//! flow loses is decided by the tie rule rather than by the protocols
//! (Floyd & Jacobson, "On traffic phase effects in packet-switched
//! gateways", 1992). Real hosts add a few microseconds of variable
//! processing; this component adds a delay uniform in [0, max] to each
//! packet, drawn from the host's own random stream, and keeps the host's
//! packets in order (a packet never overtakes the one before it).

use crate::net::{FrameHeader, VcId};
use crate::time::Time;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct SendJitter {
    max: Time,
    rng: ChaCha8Rng,
    /// Packets waiting, with the time each is released, in order.
    waiting: VecDeque<(Time, VcId, FrameHeader)>,
}

impl SendJitter {
    pub fn new(max: Time, rng: ChaCha8Rng) -> Self {
        SendJitter { max, rng, waiting: VecDeque::new() }
    }

    /// A packet handed over at `now`; returns its release time if it is now
    /// the first waiting (the caller schedules its release).
    pub fn submit(&mut self, now: Time, vc: VcId, seg: FrameHeader) -> Option<Time> {
        let drawn = now + self.rng.gen_range(0..=self.max);
        let at = self.waiting.back().map_or(drawn, |&(prev, _, _)| drawn.max(prev));
        self.waiting.push_back((at, vc, seg));
        (self.waiting.len() == 1).then_some(at)
    }

    /// Releases the first waiting packet; returns it and the release time of
    /// the next, if any.
    pub fn release(&mut self) -> ((VcId, FrameHeader), Option<Time>) {
        let (_, vc, seg) = self.waiting.pop_front().expect("a release has a packet");
        ((vc, seg), self.waiting.front().map(|&(at, _, _)| at))
    }

    /// Payload bytes waiting (sent by the transport, not yet on the link).
    pub fn waiting_payload(&self) -> u64 {
        self.waiting.iter().map(|(_, _, s)| s.payload_len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn seg(seq: u64) -> FrameHeader {
        FrameHeader::Datagram(crate::net::Datagram { seq, len: 100 })
    }

    #[test]
    fn delays_are_within_bounds_and_order_is_kept() {
        let max = 5_000;
        let mut j = SendJitter::new(max, ChaCha8Rng::seed_from_u64(1));
        // Packet k is handed over at time 10·k (faster than the jitter, so
        // some wait behind their predecessor).
        let mut next = j.submit(0, VcId(0), seg(0));
        assert!(next.is_some(), "the first packet is scheduled");
        for k in 1..200u64 {
            assert!(j.submit(10 * k, VcId(0), seg(k)).is_none(), "only the first waiting is scheduled");
        }
        let (mut prev, mut seqs, mut behind) = (0, Vec::new(), 0);
        while let Some(at) = next {
            let ((_, s), n) = j.release();
            let handed = 10 * s.seq();
            assert!(at >= prev, "release times never go back");
            // Waiting behind its predecessor never pushes a packet past its
            // own bound: the predecessor's bound is earlier.
            assert!(at >= handed && at <= handed + max, "within [t, t + max]");
            behind += (at > handed && at == prev) as u32;
            prev = at;
            seqs.push(s.seq());
            next = n;
        }
        assert_eq!(seqs, (0..200).collect::<Vec<_>>());
        assert!(behind > 0, "some packets waited behind their predecessor");
        assert_eq!(j.waiting_payload(), 0);
    }

    #[test]
    fn the_same_stream_gives_the_same_delays() {
        let draw = |seed| {
            let mut j = SendJitter::new(1_000_000, ChaCha8Rng::seed_from_u64(seed));
            j.submit(0, VcId(0), seg(1)).unwrap()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }
}
