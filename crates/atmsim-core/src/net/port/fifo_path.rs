//! The FIFO fast path of a [`Port`]: a plain FIFO port's offer without
//! an [`Offer`] to build and match, the queueing every FIFO offer ends in,
//! and a whole frame queued at once at a host adapter.

use super::{Discipline, Offer, Port};
use crate::net::drop::{Action, DropPolicy, DropReason};
use crate::net::{InFlight, Unit};
use crate::time::Time;

impl Port {
    /// A FIFO port whose policy never evicts ([`Port::offer_fifo`]'s
    /// condition).
    #[inline]
    pub fn is_plain_fifo(&self) -> bool {
        matches!(self.discipline, Discipline::Fifo(_)) && !self.policy.may_evict()
    }

    /// [`Port::offer`] at a plain FIFO port ([`Port::is_plain_fifo`]), the
    /// path of nearly every unit: when the unit reaches the far node and
    /// whether the pipe was empty, or why it was dropped. A small result
    /// in registers, where [`Offer`] (with a per-VC port's `Started`) is
    /// built in memory and matched again.
    #[inline(always)]
    pub fn offer_fifo(&mut self, now: Time, unit: &Unit) -> Result<(Time, bool), DropReason> {
        debug_assert!(self.is_plain_fifo());
        let in_bytes = self.policy.counts_bytes();
        match self.admit_fifo(now, unit, in_bytes) {
            Action::Admit => Ok(self.queue_fifo(now, unit, in_bytes)),
            Action::Drop(reason) => {
                self.stats.dropped(reason);
                Err(reason)
            }
            Action::Mark => {
                self.stats.units_marked += 1;
                Ok(self.queue_fifo(now, &unit.congested(), in_bytes))
            }
            Action::Evict { .. } => unreachable!("a plain FIFO port never evicts"),
            Action::Trim { .. } => unreachable!("only a trimming port trims"),
        }
    }

    /// A unit arrives at a FIFO port: the units that left by `now` are
    /// forgotten and the drop policy decides against the occupancy. Counts
    /// the arrival, not a refusal (the port carries out the action).
    /// `in_bytes`: whether occupancy counts bytes.
    #[inline(always)]
    pub(super) fn admit_fifo(&mut self, now: Time, unit: &Unit, in_bytes: bool) -> Action {
        let Discipline::Fifo(fifo) = &mut self.discipline else { unreachable!("FIFO port") };
        fifo.drain(now, &self.pipe, self.delay);
        self.stats.units_in += 1;
        self.policy.admit(unit, fifo.occupancy(in_bytes), now, &self.ser)
    }

    /// Queues an admitted unit at a FIFO port. On the path of every unit at
    /// every FIFO port: always inlined.
    #[inline(always)]
    pub(in crate::net) fn accept(&mut self, now: Time, unit: &Unit) -> Offer {
        let (arrive_at, pipe_was_empty) = self.queue_fifo(now, unit, self.policy.counts_bytes());
        Offer::Accepted { arrive_at, pipe_was_empty }
    }

    /// [`Port::accept`] without the [`Offer`]; `in_bytes`: whether
    /// occupancy counts bytes.
    #[inline(always)]
    pub(super) fn queue_fifo(&mut self, now: Time, unit: &Unit, in_bytes: bool) -> (Time, bool) {
        let Discipline::Fifo(fifo) = &mut self.discipline else { unreachable!("FIFO port") };
        let start = self.ser.free_at().max(now);
        let end = self.ser.send(now, unit.wire_bytes as u64);
        self.stats.busy += end - start;
        fifo.push(unit.wire_bytes, end);
        let occ = fifo.occupancy(in_bytes);
        if occ > self.stats.peak_occupancy {
            self.stats.peak_occupancy = occ;
        }
        let stay = (end - now) as u128;
        self.stats.occupancy_integral += if in_bytes { unit.wire_bytes as u128 * stay } else { stay };
        let arrive_at = end + self.delay;
        let pipe_was_empty = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrive_at, unit: unit.onward() });
        (arrive_at, pipe_was_empty)
    }

    /// May a whole frame be queued at once ([`Port::accept_frame`])? At a
    /// FIFO that admits everything (a host adapter) no unit of a frame can
    /// be refused or evict another, so none needs admission's verdict.
    pub fn takes_whole_frames(&self) -> bool {
        matches!(self.discipline, Discipline::Fifo(_)) && matches!(self.policy, DropPolicy::Unlimited)
    }

    /// Queues the `ncells` units of a frame at `now`, exactly as that
    /// many offers of them in order would, with one drain and no admission
    /// (requires [`Port::takes_whole_frames`]). Returns when the first unit
    /// reaches the far node, and whether the pipe was empty before it.
    ///
    /// The cells go back to back, so the books are kept once per frame:
    /// the line is busy from the first cell's start to the last cell's end,
    /// the occupancy only grows while they enter (its peak is the last
    /// one's), and their stays sum to the sum of their ends less `ncells`
    /// times `now`. Per cell only its end and its pipe entry remain.
    #[inline]
    pub fn accept_frame(&mut self, now: Time, first: Unit, ncells: u16) -> (Time, bool) {
        debug_assert!(self.takes_whole_frames() && first.index() == 0 && ncells > 0);
        let Discipline::Fifo(fifo) = &mut self.discipline else { unreachable!("FIFO port") };
        fifo.drain(now, &self.pipe, self.delay);
        let in_bytes = self.policy.counts_bytes();
        let (n, wire) = (ncells as u64, first.wire_bytes);
        let start = self.ser.free_at().max(now);
        let pipe_was_empty = self.pipe.is_empty();
        let onward = first.onward();
        // The transmitter as a local value, so that its state stays in
        // registers across the pipe's writes (with the writes through
        // `extend_with`: 437.5 M → 430.2 M instructions on the 3-s
        // topology 1, against `self.ser` and `push_back` per cell).
        let (mut ser, delay) = (self.ser.clone(), self.delay);
        let mut ends = 0u128;
        let mut end = start;
        self.pipe.extend_with(ncells as usize, |k| {
            end = if k == 0 { ser.send(now, wire as u64) } else { ser.send_again(now) };
            ends += end as u128;
            InFlight { arrive_at: end + delay, unit: onward.with_index(k as u16, ncells) }
        });
        self.ser = ser;
        let first_arrival = self.pipe.from_back(ncells as usize).arrive_at;
        fifo.push_many(n, wire, first_arrival - delay);
        let stats = &mut self.stats;
        stats.units_in += n;
        stats.busy += end - start;
        stats.peak_occupancy = stats.peak_occupancy.max(fifo.occupancy(in_bytes));
        let stays = ends - n as u128 * now as u128;
        stats.occupancy_integral += if in_bytes { wire as u128 * stays } else { stays };
        (first_arrival, pipe_was_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cell, port};
    use super::*;
    use crate::net::Limit;
    use crate::time::PS_PER_US;

    /// What a port holds and has counted, for comparing two of them.
    fn books(p: &Port) -> (Vec<(Time, Unit)>, Time, u64, u64, u128, u64) {
        let pipe = p.pipe.iter().map(|f| (f.arrive_at, f.unit)).collect();
        (pipe, p.ser.free_at(), p.stats.units_in, p.stats.peak_occupancy, p.stats.occupancy_integral, p.stats.busy)
    }

    #[test]
    fn a_frame_at_once_is_its_cells_one_by_one() {
        let (mut whole, mut single) = (port(Limit::Unlimited), port(Limit::Unlimited));
        assert!(whole.takes_whole_frames() && !port(Limit::Units(4)).takes_whole_frames());
        // Two frames, the second while the first is still queued and after part of it left.
        for (now, frame, n) in [(0, 0, 5u16), (7 * PS_PER_US, 1, 3)] {
            let head = whole.accept_frame(now, cell(frame, 0, n), n);
            let mut first = None;
            for i in 0..n {
                let Offer::Accepted { arrive_at, pipe_was_empty } = single.offer(now, &cell(frame, i, n)) else { panic!("accepted") };
                first.get_or_insert((arrive_at, pipe_was_empty));
            }
            assert_eq!(Some(head), first);
            assert_eq!(books(&whole), books(&single));
        }
    }

    #[test]
    fn the_fifo_fast_path_offers_as_offer_does() {
        let (mut fast, mut general) = (port(Limit::Units(3)), port(Limit::Units(3)));
        assert!(fast.is_plain_fifo());
        for k in 0..12u64 {
            let (now, c) = (k * PS_PER_US, cell(k as u32, 0, 1));
            let expected = match general.offer(now, &c) {
                Offer::Accepted { arrive_at, pipe_was_empty } => Ok((arrive_at, pipe_was_empty)),
                Offer::Dropped(reason) => Err(reason),
                other => panic!("a plain FIFO port: {other:?}"),
            };
            assert_eq!(fast.offer_fifo(now, &c), expected);
        }
        assert_eq!(books(&fast), books(&general));
        assert!(fast.stats.units_dropped > 0 && fast.stats.units_dropped == general.stats.units_dropped);
    }
}
