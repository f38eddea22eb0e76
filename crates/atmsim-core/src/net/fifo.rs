//! The FIFO discipline on a fixed-rate line: the fast path.
//!
//! A work-conserving FIFO knows, when a unit arrives, exactly when that
//! unit's last bit will leave: the later of now and the end of the previous
//! unit, plus its transmission time. So it needs no departure event: it keeps
//! each queued unit's departure time in a ring (to know the occupancy at the
//! next arrival) and the port puts the unit straight into its pipe.

use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Fifo {
    /// Departure time and size of each unit still in the port.
    departures: VecDeque<(Time, u32)>,
    queued_bytes: u64,
}

impl Fifo {
    /// Forgets the units whose last bit has left by `now`.
    #[inline]
    pub fn drain(&mut self, now: Time) {
        while let Some(&(end, bytes)) = self.departures.front() {
            if end > now {
                break;
            }
            self.queued_bytes -= bytes as u64;
            self.departures.pop_front();
        }
    }

    /// Occupancy (after `drain`): bytes, or units, counting the unit in
    /// transmission.
    #[inline]
    pub fn occupancy(&self, in_bytes: bool) -> u64 {
        if in_bytes {
            self.queued_bytes
        } else {
            self.departures.len() as u64
        }
    }

    /// A unit of `bytes` entered and leaves at `end`.
    #[inline]
    pub fn push(&mut self, end: Time, bytes: u32) {
        self.departures.push_back((end, bytes));
        self.queued_bytes += bytes as u64;
    }

    /// Removes the unit at position `ix` (0 is the one in transmission, so
    /// `ix >= 1`); the units behind it leave `shift` earlier. Returns its
    /// departure time and size.
    pub fn remove(&mut self, ix: usize, shift: Time) -> (Time, u32) {
        let (end, bytes) = self.departures.remove(ix).expect("a queued unit");
        for d in self.departures.range_mut(ix..) {
            d.0 -= shift;
        }
        self.queued_bytes -= bytes as u64;
        (end, bytes)
    }

    /// Units still queued (not yet fully sent).
    pub fn len(&self) -> usize {
        self.departures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.departures.is_empty()
    }

    /// The part of queued units' stay that lies beyond `horizon`, weighted
    /// by bytes or by one per unit (for time averages over [0, horizon]).
    pub fn stay_beyond(&self, horizon: Time, in_bytes: bool) -> u128 {
        self.departures
            .iter()
            .filter(|&&(end, _)| end > horizon)
            .map(|&(end, bytes)| if in_bytes { bytes as u128 } else { 1 } * (end - horizon) as u128)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drain_forgets_departed_units_in_order() {
        let mut f = Fifo::default();
        f.push(10, 53);
        f.push(20, 53);
        f.drain(10);
        assert_eq!((f.occupancy(false), f.occupancy(true)), (1, 53));
        f.drain(19);
        assert_eq!(f.len(), 1);
        f.drain(20);
        assert!(f.is_empty());
    }

    #[test]
    fn stay_beyond_the_horizon() {
        let mut f = Fifo::default();
        f.push(10, 100);
        f.push(30, 50);
        assert_eq!(f.stay_beyond(20, false), 10);
        assert_eq!(f.stay_beyond(20, true), 500);
    }
}
