//! A two-class output port: higher-priority (VBR) cells are always served
//! before lower-priority (ABR) ones, one cell at a time, without preemption
//! of the cell in transmission (Jain et al., "TCP/IP over ABR", slide "n
//! Source + VBR Configuration": ABR gets what the VBR background leaves).
//!
//! Which cell goes next depends on arrivals still to come, so, like a per-VC
//! port, a priority port takes one `PortEvent::Free` per transmission.
//!
//! Buffer: the port's limit and discard policy apply to the lower class
//! alone (the ABR buffer of the slides, "TBE × # sources × {1, 2, 4}");
//! the higher class has its own queue, never dropped (our choice: VBR at
//! most at line rate with strict priority queues at most a cell or two).

use crate::net::Unit;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Priority {
    high: VecDeque<(Time, Unit)>,
    low: VecDeque<(Time, Unit)>,
    /// The cell being sent, when its last bit leaves, and its class.
    pub in_tx: Option<(Unit, Time, bool)>,
}

impl Priority {
    /// Lower-class cells held (queued or in transmission): what admission sees.
    pub fn low_occupancy(&self) -> u64 {
        self.low.len() as u64 + self.in_tx.is_some_and(|(_, _, high)| !high) as u64
    }

    /// Every cell held.
    pub fn occupancy(&self) -> u64 {
        (self.high.len() + self.low.len()) as u64 + self.in_tx.is_some() as u64
    }

    /// Cells queued, not yet on the line.
    pub fn queued(&self) -> u64 {
        (self.high.len() + self.low.len()) as u64
    }

    pub fn enqueue(&mut self, now: Time, unit: Unit, high: bool) {
        if high {
            self.high.push_back((now, unit));
        } else {
            self.low.push_back((now, unit));
        }
    }

    /// The next cell to send, higher class first: (arrival time, cell, class).
    pub fn pop_next(&mut self) -> Option<(Time, Unit, bool)> {
        if let Some((t, u)) = self.high.pop_front() {
            return Some((t, u, true));
        }
        self.low.pop_front().map(|(t, u)| (t, u, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cell(vc: u32) -> Unit {
        Unit::new(VcId(vc), 0, 0, 1, 53)
    }

    #[test]
    fn the_higher_class_always_goes_first_then_fifo_within_a_class() {
        let mut p = Priority::default();
        p.enqueue(0, cell(1), false);
        p.enqueue(1, cell(2), false);
        p.enqueue(2, cell(9), true);
        p.enqueue(3, cell(8), true);
        let order: Vec<u32> = std::iter::from_fn(|| p.pop_next()).map(|(_, u, _)| u.vc.0).collect();
        assert_eq!(order, vec![9, 8, 1, 2]);
    }

    #[test]
    fn admission_sees_only_the_lower_class() {
        let mut p = Priority::default();
        p.enqueue(0, cell(1), false);
        p.enqueue(0, cell(9), true);
        let (_, u, high) = p.pop_next().unwrap();
        p.in_tx = Some((u, 10, high));
        assert_eq!((p.low_occupancy(), p.occupancy(), p.queued()), (1, 2, 1));
        let (_, u, high) = p.pop_next().unwrap();
        p.in_tx = Some((u, 20, high));
        assert_eq!((p.low_occupancy(), p.occupancy(), p.queued()), (1, 1, 0));
    }
}
