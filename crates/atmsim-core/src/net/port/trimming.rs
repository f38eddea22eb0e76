//! The ports of NDP and EQDS networks: a switch's trimming port (NDP
//! N2–N4: `net/trim.rs`, its decisions from `net/drop/trim.rs`) and a
//! host's NIC (N6: `net/host_nic.rs`). Both pick the next packet at each
//! end of transmission, as the per-VC and priority ports do
//! (`scheduled.rs`).

use super::scheduled::line_cell;
use super::{Discipline, Offer, Port, Started};
use crate::net::drop::{Action, DropPolicy, DropReason};
use crate::net::Unit;
use crate::time::Time;

impl Port {
    /// A trimming port: a full data packet is admitted, or trimmed (it or
    /// the newest waiting one) as the policy decides; a header joins the
    /// header queue unless it would overflow it (N3: twice the data limit).
    pub(super) fn offer_trim(&mut self, now: Time, unit: &Unit) -> Offer {
        self.stats.units_in += 1;
        let Discipline::Trim(q) = &mut self.discipline else { unreachable!("a trimming port") };
        let DropPolicy::Trim(policy) = &mut self.policy else { unreachable!("a trimming port's policy trims") };
        let header_limit = 2 * policy.limit_bytes;
        let header_bytes = q.trim_to;
        let mut dropped = None;
        // A header (a trimmed packet, an ACK, NACK or PULL) is a packet of header bytes alone.
        let header = if unit.wire_bytes <= header_bytes {
            Some(*unit)
        } else {
            match policy.decide(unit, q.data_bytes) {
                Action::Admit => {
                    q.push_data(now, *unit);
                    None
                }
                Action::Trim { newest } => {
                    // The newest waiting data packet, if any is waiting (the one in
                    // transmission is never cut; htsim's could be, with a queue of one).
                    let victim = if newest { q.take_newest_data() } else { None };
                    policy.trimmed += 1;
                    match victim {
                        Some((_, v)) => {
                            q.push_data(now, *unit);
                            policy.replaced(q.data_bytes);
                            Some(v.trimmed(header_bytes))
                        }
                        None => Some(unit.trimmed(header_bytes)),
                    }
                }
                other => unreachable!("a trimming policy answers admit or trim: {other:?}"),
            }
        };
        if let Some(h) = header {
            if q.header_fits(h.wire_bytes as u64, header_limit) {
                q.push_header(now, h);
            } else {
                policy.header_drops += 1;
                self.stats.dropped(DropReason::HeaderQueue);
                dropped = Some(h);
            }
        }
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(q.data_bytes);
        Offer::Trimmed { started: self.start_next(now), dropped }
    }

    /// A trimming port: the next packet, headers first (N4).
    pub(super) fn start_next_trim(&mut self, now: Time) -> Option<Started> {
        let Discipline::Trim(q) = &mut self.discipline else { return None };
        if q.in_tx.is_some() {
            return None;
        }
        let (arrived, unit, header) = q.pop_next()?;
        let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, arrived, unit);
        q.in_tx = Some((unit, started.free_at(), header));
        Some(started)
    }

    pub(super) fn finish_trim(&mut self, now: Time) -> Option<Unit> {
        let Discipline::Trim(q) = &mut self.discipline else { return None };
        match q.in_tx {
            Some((u, end, header)) if end <= now => {
                q.in_tx = None;
                q.sent(&u, header);
                Some(u)
            }
            _ => None,
        }
    }

    /// A host's NIC: every packet enters (a host keeps its own data).
    pub(super) fn offer_nic(&mut self, now: Time, unit: &Unit) -> Offer {
        self.stats.units_in += 1;
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        if nic.in_tx.is_none() && nic.queued() == 0 {
            // An idle NIC with nothing waiting (most packets of a receiving
            // host: its ACKs and PULLs) sends the packet at once: what
            // queueing it and taking it back out would do, as the only one.
            self.stats.peak_occupancy = self.stats.peak_occupancy.max(1);
            let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, now, *unit);
            nic.in_tx = Some((*unit, started.free_at()));
            return Offer::Queued(Some(started));
        }
        nic.enqueue(now, *unit);
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(nic.occupancy());
        Offer::Queued(self.start_next(now))
    }

    /// A host's NIC: the next packet, control first, round robin within a class.
    pub(super) fn start_next_nic(&mut self, now: Time) -> Option<Started> {
        let Discipline::HostNic(nic) = &mut self.discipline else { return None };
        if nic.in_tx.is_some() {
            return None;
        }
        let (arrived, unit) = nic.pop_next()?;
        let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, arrived, unit);
        nic.in_tx = Some((unit, started.free_at()));
        Some(started)
    }
}
