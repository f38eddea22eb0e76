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

/// What a lazy NIC did with an arriving packet ([`Port::offer_lazy_nic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyNicOffer {
    /// Not a lazy NIC: [`Port::offer`] decides.
    Other,
    /// On the line at once: it reaches the far node at `arrive_at` (was
    /// the pipe empty?).
    OnTheLine { arrive_at: Time, pipe_was_empty: bool },
    /// Behind the packet on the line.
    Waits,
}

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

    /// An arrival at a lazy host NIC, decided without building an
    /// [`Offer`]: idle with nothing waiting, the packet goes on the line at
    /// once; busy, it waits (the NIC starts it at an end of transmission,
    /// when next looked at). [`LazyNicOffer::Other`]: not a lazy NIC, and
    /// nothing has changed. A lazy NIC schedules nothing when it starts
    /// (`World::transmitter_free_at`), so the caller of one put on the line
    /// does what a FIFO's acceptance does.
    #[inline(always)]
    pub fn offer_lazy_nic(&mut self, now: Time, unit: &Unit) -> LazyNicOffer {
        let Discipline::HostNic(nic) = &mut self.discipline else { return LazyNicOffer::Other };
        if !nic.lazy {
            return LazyNicOffer::Other;
        }
        self.stats.units_in += 1;
        self.nic_ends_before(now);
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        // Idle only with nothing waiting (`nic_ends_before`): what
        // `offer_nic` does, its `start_next` finding the line busy.
        if nic.in_tx.is_some() {
            self.nic_wait(now, unit);
            return LazyNicOffer::Waits;
        }
        debug_assert_eq!(nic.queued(), 0, "a lazy NIC idles only with nothing waiting");
        let Started::Cell { arrive_at, pipe_was_empty, .. } = self.nic_send_at_once(now, unit) else {
            unreachable!("a NIC starts packets, not credit cells")
        };
        LazyNicOffer::OnTheLine { arrive_at, pipe_was_empty }
    }

    /// An idle NIC with nothing waiting (most packets of a receiving host:
    /// its ACKs and PULLs) sends the packet at once: what queueing it and
    /// taking it back out would do, as the only one.
    #[inline(always)]
    fn nic_send_at_once(&mut self, now: Time, unit: &Unit) -> Started {
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(1);
        let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, now, now, *unit);
        nic.in_tx = Some((*unit, started.free_at()));
        started
    }

    /// A busy NIC: the packet waits in its class.
    #[inline(always)]
    fn nic_wait(&mut self, now: Time, unit: &Unit) {
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        nic.enqueue(now, *unit);
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(nic.occupancy());
    }

    /// A host's NIC: every packet enters (a host keeps its own data).
    pub(super) fn offer_nic(&mut self, now: Time, unit: &Unit) -> Offer {
        self.stats.units_in += 1;
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        if nic.lazy {
            // The ends of transmission before this arrival choose first
            // (their packet is still on the wire: no pipe was empty).
            self.nic_ends_before(now);
        }
        let Discipline::HostNic(nic) = &mut self.discipline else { unreachable!("a host NIC") };
        if nic.in_tx.is_none() && nic.queued() == 0 {
            return Offer::Queued(Some(self.nic_send_at_once(now, unit)));
        }
        self.nic_wait(now, unit);
        Offer::Queued(self.start_next(now))
    }

    /// A lazy NIC (`HostNic::lazy`): makes the choices of the ends of
    /// transmission due before `bound`, in turn, each over the packets
    /// waiting then (every packet that arrived at or before that end: an
    /// arrival triggers this first), and puts each packet chosen on the
    /// line at its end; the NIC goes idle at the first end that finds
    /// nothing waiting. What the end-of-transmission events would do, but
    /// for an arrival at the very picosecond of an end, which the choice
    /// here always sees. The packet on the wire is still in the pipe until
    /// its far end takes it, where this runs first (`Port::pop_pipe`).
    /// Inlined: an arrival most often finds the NIC idle or its end still
    /// ahead, and then costs no call.
    #[inline(always)]
    pub fn nic_ends_before(&mut self, bound: Time) {
        if matches!(&self.discipline, Discipline::HostNic(nic) if nic.in_tx.is_some_and(|(_, end)| end < bound)) {
            self.nic_ends_due(bound);
        }
    }

    /// [`Port::nic_ends_before`] with an end of transmission due.
    #[inline(never)]
    fn nic_ends_due(&mut self, bound: Time) {
        let Discipline::HostNic(nic) = &mut self.discipline else { return };
        while let Some((_, end)) = nic.in_tx {
            if end >= bound {
                return;
            }
            let Some((arrived, unit)) = nic.pop_next() else {
                nic.in_tx = None;
                return;
            };
            let started = line_cell(&mut self.ser, &mut self.stats, &mut self.pipe, self.delay, end, arrived, unit);
            nic.in_tx = Some((unit, started.free_at()));
        }
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

#[cfg(test)]
mod tests {
    use crate::net::drop::{DropPolicy, DropSpec, PortContext};
    use crate::net::host_nic::HostNic;
    use crate::net::port::{LazyNicOffer, Offer};
    use crate::net::{Discipline, Limit, NodeId, Port, PortId, Unit, VcId};
    use crate::time::{Rate, Time};

    /// A NIC at 1 byte per ps with a delay of 50 ps, for VCs 1 and 2 (data)
    /// and 3 (control), its ends of transmission lazy or not.
    fn nic(lazy: bool) -> Port {
        let cx = PortContext { limit: Limit::Unlimited, num_vcs: 4, seed: 1, port: PortId(0), packet_time: 1 };
        let policy = DropPolicy::new(DropSpec::Tail(()), &cx);
        let mut hn = HostNic::new(&[(1, false), (2, false), (3, true)]);
        hn.lazy = lazy;
        let rate = Rate::new(8, 1).unwrap();
        Port::new("h->s".into(), NodeId(0), NodeId(1), rate, 50, Limit::Unlimited, policy, Discipline::HostNic(Box::new(hn)))
    }

    /// Offers `arrivals` (time, unit) to the NIC, its ends of transmission
    /// as events (each after every arrival at its instant) unless lazy;
    /// the far end takes each packet when it arrives; with `plain`, each
    /// arrival is offered as the world offers it to a lazy NIC
    /// ([`Port::offer_lazy_nic`] first). Returns what reached the far end,
    /// when, and the port's books.
    fn drive(lazy: bool, plain: bool, arrivals: &[(Time, Unit)]) -> (Vec<(Time, u32)>, u64, u128, u64, u64) {
        let mut p = nic(lazy);
        let (mut next, mut end, mut out) = (0, None::<Time>, Vec::new());
        loop {
            let ta = arrivals.get(next).map_or(Time::MAX, |a| a.0);
            let te = end.unwrap_or(Time::MAX);
            let tp = p.pipe.front().map_or(Time::MAX, |f| f.arrive_at);
            if ta == Time::MAX && te == Time::MAX && tp == Time::MAX {
                break;
            }
            if ta <= te && ta <= tp {
                if plain && p.offer_lazy_nic(ta, &arrivals[next].1) != LazyNicOffer::Other {
                    next += 1;
                    continue;
                }
                let Offer::Queued(started) = p.offer(ta, &arrivals[next].1) else { unreachable!("a NIC queues") };
                if let (false, Some(st)) = (lazy, started) {
                    end = Some(st.free_at());
                }
                next += 1;
            } else if te <= tp {
                p.finish_tx(te);
                end = p.start_next(te).map(|st| st.free_at());
            } else {
                let u = p.pop_pipe();
                out.push((tp, u.frame));
            }
        }
        (out, p.stats.busy, p.stats.occupancy_integral, p.stats.peak_occupancy, p.stats.units_in)
    }

    #[test]
    fn a_lazy_nic_sends_what_its_ends_of_transmission_would_have() {
        // Data on VCs 1 and 2 (100 or 400 bytes), control on 3 (10 bytes),
        // arriving in bursts and at random, some at the very instant a
        // transmission ends.
        let mut x = 7u64;
        for round in 0..200 {
            let (mut t, mut arrivals) = (0, Vec::new());
            for frame in 0..40 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                t += [0, 0, 10, 60, 100, 250, 400, 900][(x >> 61) as usize];
                let vc = 1 + ((x >> 40) % 3) as u32;
                let bytes = if vc == 3 { 10 } else { [100, 400][((x >> 30) & 1) as usize] };
                arrivals.push((t, Unit::new(VcId(vc), frame, 0, 1, bytes)));
            }
            let eager = drive(false, false, &arrivals);
            assert_eq!(drive(true, false, &arrivals), eager, "round {round}");
            assert_eq!(drive(true, true, &arrivals), eager, "round {round}, the common arrival apart");
            // An eager NIC's arrivals all take the general arm.
            assert_eq!(nic(false).offer_lazy_nic(0, &arrivals[0].1), LazyNicOffer::Other);
        }
    }
}
