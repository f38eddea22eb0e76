//! The FIFO discipline on a fixed-rate line: the fast path.
//!
//! A work-conserving FIFO knows, when a unit arrives, exactly when that
//! unit's last bit will leave: the later of now and the end of the previous
//! unit, plus its transmission time. So it needs no departure event, and no
//! queue of its own: the port puts the unit straight into its pipe with its
//! arrival time at the far node (its departure plus the link delay), and the
//! units still in the port are the newest entries of the pipe. The FIFO only
//! counts them (and their bytes), forgetting the ones whose departure has
//! passed when it next looks.

use crate::net::pipe::Pipe;
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Fifo {
    /// The last `queued` entries of the pipe are (or, until the next
    /// `drain`, may be) still in the port.
    queued: usize,
    queued_bytes: u64,
    /// When the oldest of them leaves the port (its last bit), and its
    /// bytes; `Time::MAX` while none is counted. Kept here so that an
    /// arrival finding the oldest unit still in transmission, most
    /// arrivals at a busy port, reads nothing of the pipe (whose oldest
    /// queued entry, a buffer's length behind its newest, is rarely in the
    /// first-level cache).
    oldest_leaves: Time,
    oldest_bytes: u16,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo { queued: 0, queued_bytes: 0, oldest_leaves: Time::MAX, oldest_bytes: 0 }
    }
}

impl Fifo {
    /// Forgets the units whose last bit has left by `now`.
    #[inline]
    pub fn drain(&mut self, now: Time, pipe: &Pipe, delay: Time) {
        while self.oldest_leaves <= now {
            self.forget_oldest(pipe, delay);
        }
    }

    /// The oldest counted unit has left: the next one becomes the oldest.
    #[inline]
    fn forget_oldest(&mut self, pipe: &Pipe, delay: Time) {
        self.queued -= 1;
        self.queued_bytes -= self.oldest_bytes as u64;
        if self.queued == 0 {
            self.oldest_leaves = Time::MAX;
        } else {
            let next = pipe.from_back(self.queued);
            self.oldest_leaves = next.arrive_at - delay;
            self.oldest_bytes = next.unit.wire_bytes;
        }
    }

    /// Occupancy (after `drain`): bytes, or units, counting the unit in
    /// transmission.
    #[inline]
    pub fn occupancy(&self, in_bytes: bool) -> u64 {
        if in_bytes {
            self.queued_bytes
        } else {
            self.queued as u64
        }
    }

    /// A unit of `bytes` entered (it is the pipe's newest entry); its last
    /// bit leaves at `leaves`.
    #[inline]
    pub fn push(&mut self, bytes: u16, leaves: Time) {
        self.push_many(1, bytes, leaves);
    }

    /// `n` units of `bytes` each entered (the pipe's newest entries), the
    /// first leaving at `first_leaves`.
    #[inline]
    pub fn push_many(&mut self, n: u64, bytes: u16, first_leaves: Time) {
        if self.queued == 0 {
            (self.oldest_leaves, self.oldest_bytes) = (first_leaves, bytes);
        }
        self.queued += n as usize;
        self.queued_bytes += n * bytes as u64;
    }

    /// The pipe's oldest unit reached the far node, leaving `pipe` behind:
    /// if it was still counted, it has long left the port (a unit reaches
    /// the far node after its last bit left).
    #[inline]
    pub fn left_pipe(&mut self, pipe: &Pipe, delay: Time) {
        if self.queued > pipe.len() {
            self.forget_oldest(pipe, delay);
        }
    }

    /// A queued unit of `bytes` was taken out of the pipe (random drop).
    /// Never the oldest (the unit in transmission stays), so the oldest's
    /// departure is unchanged.
    pub fn remove(&mut self, bytes: u16) {
        debug_assert!(self.queued >= 2, "the unit in transmission is not removed");
        self.queued -= 1;
        self.queued_bytes -= bytes as u64;
    }

    /// Units still counted (after `drain`: still in the port).
    pub fn len(&self) -> usize {
        self.queued
    }

    pub fn is_empty(&self) -> bool {
        self.queued == 0
    }

    /// The part of queued units' stay that lies beyond `horizon`, weighted
    /// by bytes or by one per unit (for time averages over [0, horizon]).
    pub fn stay_beyond(&self, pipe: &Pipe, delay: Time, horizon: Time, in_bytes: bool) -> u128 {
        pipe.iter_from(pipe.len() - self.queued)
            .map(|f| (f.arrive_at - delay, f.unit.wire_bytes))
            .filter(|&(end, _)| end > horizon)
            .map(|(end, bytes)| if in_bytes { bytes as u128 } else { 1 } * (end - horizon) as u128)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{InFlight, Unit, VcId};

    fn enter(f: &mut Fifo, pipe: &mut Pipe, end: Time, bytes: u16) {
        let unit = Unit::new(VcId(0), 0, 0, 1, bytes);
        pipe.push_back(InFlight { arrive_at: end + 5, unit });
        f.push(bytes, end);
    }

    #[test]
    fn drain_forgets_departed_units_in_order() {
        let (mut f, mut pipe) = (Fifo::default(), Pipe::new());
        enter(&mut f, &mut pipe, 10, 53);
        enter(&mut f, &mut pipe, 20, 53);
        f.drain(10, &pipe, 5);
        assert_eq!((f.occupancy(false), f.occupancy(true)), (1, 53));
        f.drain(19, &pipe, 5);
        assert_eq!(f.len(), 1);
        f.drain(20, &pipe, 5);
        assert!(f.is_empty());
    }

    #[test]
    fn a_unit_that_left_the_pipe_is_no_longer_counted() {
        let (mut f, mut pipe) = (Fifo::default(), Pipe::new());
        enter(&mut f, &mut pipe, 10, 100);
        enter(&mut f, &mut pipe, 30, 50);
        let first = pipe.pop_front().unwrap();
        assert_eq!(first.unit.wire_bytes, 100);
        f.left_pipe(&pipe, 5);
        assert_eq!((f.len(), f.occupancy(true)), (1, 50));
        // A unit already forgotten by `drain` is not subtracted twice.
        f.drain(30, &pipe, 5);
        pipe.pop_front().unwrap();
        f.left_pipe(&pipe, 5);
        assert_eq!((f.len(), f.occupancy(true)), (0, 0));
    }

    #[test]
    fn the_count_is_the_units_whose_last_bit_has_not_left() {
        // Units of random sizes through a line of one byte per ps, the
        // pipe emptied as units arrive (delay 5), the port looked at now
        // and then: what it counts is always what a scan of the pipe finds.
        let (mut f, mut pipe) = (Fifo::default(), Pipe::new());
        let (mut now, mut free_at, mut x) = (0u64, 0u64, 12345u64);
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            now += (x >> 58) % 40;
            while pipe.front().is_some_and(|e| e.arrive_at <= now) {
                pipe.pop_front();
                f.left_pipe(&pipe, 5);
            }
            if (x >> 40) % 3 == 0 {
                f.drain(now, &pipe, 5);
                let still: Vec<_> = pipe.iter().filter(|e| e.arrive_at - 5 > now).collect();
                assert_eq!(f.len(), still.len());
                assert_eq!(f.occupancy(true), still.iter().map(|e| e.unit.wire_bytes as u64).sum::<u64>());
            }
            if (x >> 20) % 2 == 0 {
                let bytes = 1 + ((x >> 8) % 30) as u16;
                free_at = free_at.max(now) + bytes as u64;
                enter(&mut f, &mut pipe, free_at, bytes);
            }
        }
    }

    #[test]
    fn stay_beyond_the_horizon() {
        let (mut f, mut pipe) = (Fifo::default(), Pipe::new());
        enter(&mut f, &mut pipe, 10, 100);
        enter(&mut f, &mut pipe, 30, 50);
        assert_eq!(f.stay_beyond(&pipe, 5, 20, false), 10);
        assert_eq!(f.stay_beyond(&pipe, 5, 20, true), 500);
    }
}
