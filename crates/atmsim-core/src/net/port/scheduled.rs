//! The ports whose discipline picks the next cell, per VC (round robin,
//! optionally under credit) or by priority (VBR before ABR): admission
//! against the VC's or the class's own queue, and each start of
//! transmission an event ([`Port::start_next`]), where a FIFO port
//! (`fifo_path.rs`) knows every departure when the unit arrives.

use super::{Discipline, Offer, Port, PortStats};
use crate::net::drop::{Action, DropReason};
use crate::net::pervc::CreditCell;
use crate::net::pipe::Pipe;
use crate::net::{InFlight, Unit};
use crate::time::{Serializer, Time};

/// What a per-VC port started to transmit. Either way the transmitter is
/// free again at `free_at` (the port's next event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Started {
    /// A data cell, put into the pipe.
    Cell { unit: Unit, free_at: Time, arrive_at: Time, pipe_was_empty: bool },
    /// An in-band credit cell for the opposite direction's `link`: it
    /// reaches that link's sender at `arrive_at`.
    Credit { credit: CreditCell, free_at: Time, arrive_at: Time },
}

impl Started {
    /// When the transmitter is free again.
    pub fn free_at(&self) -> Time {
        match *self {
            Started::Cell { free_at, .. } | Started::Credit { free_at, .. } => free_at,
        }
    }
}

/// Puts a cell that waited since `arrived` on the line at `now` (a port
/// whose discipline picks the next cell: per VC or by priority): the
/// transmitter's busy time, the occupancy integral, and the pipe.
/// Inlined into every caller: a host NIC runs it for every packet it sends,
/// and out of line its arguments and its answer went through the stack.
#[inline(always)]
pub(super) fn line_cell(
    ser: &mut Serializer,
    stats: &mut PortStats,
    pipe: &mut Pipe,
    delay: Time,
    now: Time,
    arrived: Time,
    unit: Unit,
) -> Started {
    let start = ser.free_at().max(now);
    let end = ser.send(now, unit.wire_bytes as u64);
    stats.busy += end - start;
    stats.occupancy_integral += (end - arrived) as u128;
    let arrive_at = end + delay;
    let pipe_was_empty = pipe.is_empty();
    pipe.push_back(InFlight { arrive_at, unit: unit.onward() });
    Started::Cell { unit, free_at: end, arrive_at, pipe_was_empty }
}

/// Bytes of a credit cell on the wire.
const CREDIT_CELL_BYTES: u64 = crate::net::CELL_BYTES as u64;

/// The unit a per-VC or priority port queues (marked, if the policy marks
/// it), or the reason it refuses the unit. Only a FIFO port knows where its
/// waiting units are, so only a FIFO port can carry out an eviction (random
/// drop is a router policy; routers are FIFO, `scenario/resolve/ports.rs`).
#[inline]
fn admitted(action: Action, unit: &Unit, stats: &mut PortStats) -> Result<Unit, DropReason> {
    match action {
        Action::Admit => Ok(*unit),
        Action::Mark => {
            stats.units_marked += 1;
            Ok(unit.congested())
        }
        Action::Drop(reason) => Err(reason),
        Action::Evict { .. } => unreachable!("eviction needs a FIFO port"),
        Action::Trim { .. } => unreachable!("trimming needs a trimming port"),
    }
}

impl Port {
    /// Per-VC path: admission sees the VC's own queue against the limit.
    pub(super) fn offer_per_vc(&mut self, now: Time, unit: &Unit) -> Offer {
        self.stats.units_in += 1;
        let Discipline::PerVc(pv) = &mut self.discipline else { unreachable!("per-VC port") };
        let action = self.policy.admit(unit, pv.occupancy_of(unit.vc.ix(), now), now, &self.ser);
        let unit = match admitted(action, unit, &mut self.stats) {
            Ok(unit) => unit,
            Err(reason) => {
                self.stats.dropped(reason);
                return Offer::Dropped(reason);
            }
        };
        pv.enqueue(now, unit);
        let total = pv.occupancy(now);
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(total);
        Offer::Queued(self.start_next(now))
    }

    /// Priority path: VBR cells (`atm::abr::is_vbr`) join the higher class
    /// unconditionally; the others face admission against the lower class.
    pub(super) fn offer_priority(&mut self, now: Time, unit: &Unit) -> Offer {
        self.stats.units_in += 1;
        let high = unit.is_vbr();
        let Discipline::Priority(pr) = &mut self.discipline else { unreachable!("priority port") };
        let mut unit = *unit;
        if !high {
            match admitted(self.policy.admit(&unit, pr.low_occupancy(), now, &self.ser), &unit, &mut self.stats) {
                Ok(queued) => unit = queued,
                Err(reason) => {
                    self.stats.dropped(reason);
                    return Offer::Dropped(reason);
                }
            }
        }
        pr.enqueue(now, unit, high);
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(pr.low_occupancy());
        Offer::Queued(self.start_next(now))
    }

    /// Priority path: the next cell, higher class first.
    fn start_next_priority(&mut self, now: Time) -> Option<Started> {
        let Discipline::Priority(pr) = &mut self.discipline else { return None };
        if pr.in_tx.is_some() {
            return None;
        }
        let (arrived, unit, high) = pr.pop_next()?;
        let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, arrived, unit);
        pr.in_tx = Some((unit, started.free_at(), high));
        Some(started)
    }

    /// Per-VC path: start the next transmission if the transmitter is idle:
    /// a waiting credit cell first, else the next data cell in round-robin
    /// order, if any VC may send. The transmitter is idle only once the
    /// `PortFree` event of the previous transmission has run
    /// ([`Port::finish_tx`]), so two events at the same instant cannot start
    /// two transmissions.
    pub fn start_next(&mut self, now: Time) -> Option<Started> {
        match self.discipline {
            Discipline::Priority(_) => return self.start_next_priority(now),
            Discipline::Trim(_) => return self.start_next_trim(now),
            Discipline::HostNic(_) => return self.start_next_nic(now),
            _ => {}
        }
        let Discipline::PerVc(pv) = &mut self.discipline else { return None };
        if pv.in_tx.is_some() || pv.credit_in_tx {
            return None;
        }
        if let Some(credit) = pv.credit_out.pop_front() {
            let start = self.ser.free_at().max(now);
            let end = self.ser.send(now, CREDIT_CELL_BYTES);
            pv.credit_in_tx = true;
            self.stats.busy += end - start;
            self.stats.credit_cells += 1;
            return Some(Started::Credit { credit, free_at: end, arrive_at: end + self.delay });
        }
        let (arrived, unit) = pv.pop_next()?;
        let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, arrived, unit);
        pv.in_tx = Some((unit, started.free_at()));
        Some(started)
    }

    /// Per-VC path: the transmission in progress has ended (the port's
    /// `PortFree` event); returns the data cell that left, whose buffer slot
    /// is free now, which is what credit reports upstream.
    pub fn finish_tx(&mut self, now: Time) -> Option<Unit> {
        match &mut self.discipline {
            Discipline::Trim(_) => return self.finish_trim(now),
            Discipline::HostNic(nic) => {
                return match nic.in_tx {
                    Some((u, end)) if end <= now => {
                        nic.in_tx = None;
                        Some(u)
                    }
                    _ => None,
                }
            }
            _ => {}
        }
        if let Discipline::Priority(pr) = &mut self.discipline {
            return match pr.in_tx {
                Some((u, end, _)) if end <= now => {
                    pr.in_tx = None;
                    Some(u)
                }
                _ => None,
            };
        }
        let pv = self.per_vc_mut()?;
        if pv.credit_in_tx {
            pv.credit_in_tx = false;
            return None;
        }
        match pv.in_tx {
            Some((u, end)) if end <= now => {
                pv.in_tx = None;
                Some(u)
            }
            _ => None,
        }
    }

    /// Per-VC path: a credit cell for `vc` carrying `fwd` arrived.
    pub fn on_credit(&mut self, now: Time, vc: usize, fwd: u64) -> Option<Started> {
        self.per_vc_mut()?.on_credit(vc, fwd);
        self.start_next(now)
    }

    /// Per-VC path: queue an in-band credit cell for the other direction.
    pub fn send_credit(&mut self, now: Time, credit: CreditCell) -> Option<Started> {
        self.per_vc_mut()?.credit_out.push_back(credit);
        self.start_next(now)
    }
}
