//! Traffic sources that are not transports: datagram (UDP) sources at a
//! constant rate or at scripted instants.
//!
//! A source is a plain value: asked to send at `now`, it returns the
//! datagram and when it wants to send next. The world schedules the next
//! send and carries the datagram. The bulk TCP application (an unlimited or
//! byte-limited transfer) needs no state of its own: it is the TCP sender's
//! `open` at the flow's start. Room here for VBR on/off and rate-paced
//! sources (their own random streams from `crate::rng`).

use crate::net::{Datagram, FrameHeader};
use crate::time::{Rate, Serializer, Time};

/// A datagram source: constant rate (an exact clock, no drift), or scripted
/// (absolute send times).
#[derive(Clone, Debug)]
pub struct DatagramSource {
    payload: u32,
    clock: Option<Serializer>,
    script: Vec<Time>,
    next_at: usize,
    next_seq: u64,
    /// Payload bytes to send in all, if bounded.
    limit: Option<u64>,
    pub bytes_sent: u64,
    pub datagrams_sent: u64,
    pub bytes_delivered: u64,
}

impl DatagramSource {
    /// A source of `payload`-byte datagrams at `rate`, or else at the
    /// absolute times of `script`, sending `limit` bytes if bounded.
    pub fn new(payload: u32, rate: Option<Rate>, script: Vec<Time>, limit: Option<u64>) -> Self {
        DatagramSource {
            payload,
            clock: rate.map(Serializer::new),
            script,
            next_at: 0,
            next_seq: 1,
            limit,
            bytes_sent: 0,
            datagrams_sent: 0,
            bytes_delivered: 0,
        }
    }

    /// When the first datagram goes out, for a flow starting at `start`.
    pub fn first_send(&self, start: Time) -> Time {
        self.script.first().copied().unwrap_or(start)
    }

    /// Sends one datagram at `now`: the datagram (as a segment whose `seq`
    /// numbers payload bytes from 1) and the time of the next send. Nothing
    /// once a bounded source has sent everything.
    pub fn send(&mut self, now: Time) -> Option<(FrameHeader, Option<Time>)> {
        let len = match self.limit {
            Some(b) => (b - self.bytes_sent).min(self.payload as u64) as u32,
            None => self.payload,
        };
        if len == 0 {
            return None;
        }
        let seg = FrameHeader::Datagram(Datagram { seq: self.next_seq, len });
        self.next_seq += len as u64;
        self.bytes_sent += len as u64;
        self.datagrams_sent += 1;
        let next = match &mut self.clock {
            Some(clock) => Some(clock.send(now, len as u64)),
            None => {
                self.next_at += 1;
                self.script.get(self.next_at).copied()
            }
        };
        Some((seg, next))
    }

    /// A datagram of `len` payload bytes reached the destination; returns
    /// true when that completes a bounded transfer.
    pub fn delivered(&mut self, len: u32) -> bool {
        self.bytes_delivered += len as u64;
        self.limit == Some(self.bytes_delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_US;

    #[test]
    fn constant_rate_sends_on_an_exact_clock() {
        // 1000-byte datagrams at 8 Mb/s: one every 1000 µs, no drift.
        let rate = Rate::new(8, PS_PER_US as u128).unwrap();
        let mut s = DatagramSource::new(1000, Some(rate), Vec::new(), None);
        let mut t = 0;
        for k in 1..=1000u64 {
            let (seg, next) = s.send(t).unwrap();
            assert_eq!(seg.seq(), 1 + (k - 1) * 1000);
            t = next.unwrap();
            assert_eq!(t, k * 1000 * PS_PER_US);
        }
    }

    #[test]
    fn scripted_sends_at_the_given_times_then_stops() {
        let mut s = DatagramSource::new(500, None, vec![10, 25, 40], None);
        assert_eq!(s.first_send(0), 10);
        assert_eq!(s.send(10).unwrap().1, Some(25));
        assert_eq!(s.send(25).unwrap().1, Some(40));
        assert_eq!(s.send(40).unwrap().1, None);
        assert_eq!(s.datagrams_sent, 3);
    }

    #[test]
    fn a_bounded_source_sends_exactly_its_bytes() {
        let rate = Rate::new(8, PS_PER_US as u128).unwrap();
        let mut s = DatagramSource::new(1000, Some(rate), Vec::new(), Some(2500));
        let lens: Vec<u32> = std::iter::from_fn(|| s.send(0).map(|(seg, _)| seg.payload_len())).collect();
        assert_eq!(lens, vec![1000, 1000, 500]);
        assert!(!s.delivered(1000));
        assert!(!s.delivered(1000));
        assert!(s.delivered(500));
    }
}
