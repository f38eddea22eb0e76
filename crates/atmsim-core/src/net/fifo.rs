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

use crate::time::Time;
use crate::net::pipe::Pipe;

#[derive(Clone, Debug, Default)]
pub struct Fifo {
    /// The last `queued` entries of the pipe are (or, until the next
    /// `drain`, may be) still in the port.
    queued: usize,
    queued_bytes: u64,
}

impl Fifo {
    /// Forgets the units whose last bit has left by `now`.
    #[inline]
    pub fn drain(&mut self, now: Time, pipe: &Pipe, delay: Time) {
        while self.queued > 0 {
            let oldest = pipe.from_back(self.queued);
            if oldest.arrive_at - delay > now {
                break;
            }
            self.queued_bytes -= oldest.unit.wire_bytes as u64;
            self.queued -= 1;
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

    /// A unit of `bytes` entered (it is the pipe's newest entry).
    #[inline]
    pub fn push(&mut self, bytes: u16) {
        self.queued += 1;
        self.queued_bytes += bytes as u64;
    }

    /// The pipe's oldest unit (of `bytes`) reached the far node, leaving
    /// `pipe_len` behind: if it was still counted, it has long left the
    /// port (a unit reaches the far node after its last bit left).
    #[inline]
    pub fn left_pipe(&mut self, pipe_len: usize, bytes: u16) {
        if self.queued > pipe_len {
            self.queued -= 1;
            self.queued_bytes -= bytes as u64;
        }
    }

    /// A queued unit of `bytes` was taken out of the pipe (random drop).
    pub fn remove(&mut self, bytes: u16) {
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
        f.push(bytes);
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
        f.left_pipe(pipe.len(), first.unit.wire_bytes);
        assert_eq!((f.len(), f.occupancy(true)), (1, 50));
        // A unit already forgotten by `drain` is not subtracted twice.
        f.drain(30, &pipe, 5);
        let second = pipe.pop_front().unwrap();
        f.left_pipe(pipe.len(), second.unit.wire_bytes);
        assert_eq!((f.len(), f.occupancy(true)), (0, 0));
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
