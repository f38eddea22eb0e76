//! An output port: a queueing discipline, a transmitter and the pipe of the
//! link behind it (htsim's queue + pipe, fused), with admission at the door.
//!
//! The discipline decides the order of service:
//! - [`Fifo`]: the fast path. A FIFO on a fixed-rate line knows each unit's
//!   departure when it arrives, so the unit goes straight into the pipe with
//!   its arrival time at the far node and the port schedules no departure
//!   event: one scheduler event per unit-hop.
//! - [`PerVc`]: per-VC queues served round robin, optionally under credit
//!   flow control; the next cell is not known in advance, so each start of
//!   transmission is an event ([`Port::start_next`]).
//!
//! A new discipline (a two-class priority port serving VBR before ABR, a
//! push-out queue) is one more variant of [`Discipline`] in its own file.
//! Its [`DropPolicy`] (`net/drop/`) decides whether an arriving unit may
//! enter at all; the port carries out the decision and counts it.
//!
//! Occupancy counts the unit in transmission (as Aron & Druschel's and
//! Morris & Kung's buffer sizes do). The time-average occupancy comes from
//! Little's law: the sum of every unit's time in the port divided by the
//! observation time.

use crate::net::drop::{Action, DropPolicy, DropReason};
use crate::net::fifo::Fifo;
use crate::net::host_nic::HostNic;
use crate::net::pervc::PerVc;
use crate::net::pipe::Pipe;
use crate::net::priority::Priority;
use crate::net::trim::TrimQueues;
use crate::net::trim_fifo::TrimFifo;
use crate::net::{NodeId, Unit};
use crate::time::{Rate, Serializer, Time};

mod evict;
mod fifo_path;
mod scheduled;
mod trim_fifo_path;
mod trimming;

pub use scheduled::Started;
pub use trimming::LazyNicOffer;

/// Buffer limit of a port. Counts include the unit in transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Host adapters: the host holds data rather than lose it.
    Unlimited,
    /// At most this many units (cells on ATM, packets on a router).
    Units(u64),
    /// At most this many bytes of queued units (packet routers).
    Bytes(u64),
}

/// The counters updated on every unit first (`repr(C)`: they share a line
/// with the end of the port's drop policy; the 16-byte sum last, where its
/// alignment pads least).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    pub units_in: u64,
    pub peak_occupancy: u64,
    /// Time the transmitter was busy.
    pub busy: Time,
    /// A trimming port's most bytes of headers held at once (N3); in the
    /// padding before the 16-byte sum, on the line every unit updates.
    pub peak_header_bytes: u64,
    /// Σ over accepted units of (occupancy weight × time in port), in
    /// weight·ps, where the weight is 1 unit or the unit's bytes.
    pub occupancy_integral: u128,
    pub units_dropped: u64,
    pub dropped_by: [u64; DropReason::COUNT],
    /// Units forwarded that belong to a frame already doomed upstream (the
    /// "dead" cells that waste bandwidth, Romanow & Floyd 1995).
    pub dead_units: u64,
    /// In-band credit cells sent on this line.
    pub credit_cells: u64,
    /// Units admitted with congestion marked ([`Action::Mark`]).
    pub units_marked: u64,
}

impl PortStats {
    pub fn dropped(&mut self, reason: DropReason) {
        self.units_dropped += 1;
        self.dropped_by[reason as usize] += 1;
    }
}

/// How a port orders the units it holds.
///
/// The variants other than the FIFO fast path are boxed, so that a port
/// stays small (see [`Port`]).
pub enum Discipline {
    Fifo(Fifo),
    PerVc(Box<PerVc>),
    /// Two classes, VBR before ABR (`net/priority.rs`).
    Priority(Box<Priority>),
    /// A data queue and a header queue served first, trimming on overflow
    /// (NDP; `net/trim.rs`): the next packet chosen at each end of transmission.
    Trim(Box<TrimQueues>),
    /// The same, headers placed ahead of waiting data as they arrive
    /// (`net/trim_fifo.rs`): one event per packet-hop.
    TrimFifo(TrimFifo),
    /// A host's NIC: control before data, round robin across its VCs
    /// (NDP and EQDS hosts; `net/host_nic.rs`).
    HostNic(Box<HostNic>),
}

/// The fields a unit-hop reads come first, in as few cache lines as they
/// fit (`repr(C)` keeps the order; a port starts on a line): the pipe and
/// the discipline, then the transmitter and the delay, then the drop
/// policy and the counters every unit updates (the first four lines hold
/// them all); the other statistics follow, names and rarely used parts
/// last.
#[repr(C, align(64))]
pub struct Port {
    /// Units on the wire towards `to`, in arrival order.
    pub pipe: Pipe,
    /// Where `to`'s exits start in the run's table of every node's exits
    /// (`net/route.rs`): a unit leaving the pipe takes the exit its route
    /// code names. Beside the pipe, on the line its head event reads (it
    /// fills padding: the port stays 448 bytes).
    pub far_exits: u32,
    pub discipline: Discipline,
    pub(super) ser: Serializer,
    pub delay: Time,
    pub policy: DropPolicy,
    pub stats: PortStats,
    pub limit: Limit,
    pub from: NodeId,
    pub to: NodeId,
    pub name: String,
}

/// What happened to a unit offered to a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Queued; it reaches the far node at this time. `pipe_was_empty` tells
    /// the caller to schedule the pipe's head event.
    Accepted {
        arrive_at: Time,
        pipe_was_empty: bool,
    },
    /// Queued at a per-VC port; it may have started transmission at once.
    Queued(Option<Started>),
    /// At a trimming port that places packets as they arrive: what was
    /// appended behind everything (it reaches the far node at this time; was
    /// the pipe empty?), and a header refused by the full header queue.
    Placed {
        appended: Option<(Time, bool)>,
        dropped: Option<Unit>,
    },
    /// At a trimming port: queued whole or as a trimmed header (counted
    /// at the port), or, trimmed, refused by the full header queue; a data
    /// packet trimmed to make room may have been refused so (`dropped`).
    Trimmed {
        started: Option<Started>,
        dropped: Option<Unit>,
    },
    Dropped(DropReason),
    /// Accepted into a full random-drop port by evicting `victim`, a
    /// queued unit; every unit behind the victim leaves `shift` earlier.
    /// The pipe was not empty.
    PushedOut {
        arrive_at: Time,
        victim: Unit,
        shift: Time,
    },
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Time,
        limit: Limit,
        policy: DropPolicy,
        discipline: Discipline,
    ) -> Port {
        Port {
            name,
            from,
            to,
            delay,
            limit,
            policy,
            discipline,
            ser: Serializer::new(rate),
            pipe: Pipe::new(),
            far_exits: 0,
            stats: PortStats::default(),
        }
    }

    pub fn rate(&self) -> Rate {
        self.ser.rate()
    }

    #[inline]
    pub fn is_per_vc(&self) -> bool {
        matches!(self.discipline, Discipline::PerVc(_))
    }

    pub fn per_vc(&self) -> Option<&PerVc> {
        match &self.discipline {
            Discipline::PerVc(pv) => Some(pv),
            _ => None,
        }
    }

    pub fn host_nic_mut(&mut self) -> Option<&mut HostNic> {
        match &mut self.discipline {
            Discipline::HostNic(nic) => Some(nic),
            _ => None,
        }
    }

    pub fn per_vc_mut(&mut self) -> Option<&mut PerVc> {
        match &mut self.discipline {
            Discipline::PerVc(pv) => Some(pv),
            _ => None,
        }
    }

    /// Bytes queued at `now` (the unit in transmission counted) at a port
    /// served first in, first out; other disciplines in their own measure.
    pub fn occupancy_bytes(&mut self, now: Time) -> u64 {
        match &mut self.discipline {
            Discipline::Fifo(f) => {
                f.drain(now, &self.pipe, self.delay);
                f.occupancy(true)
            }
            _ => self.occupancy(now),
        }
    }

    /// Occupancy at `now` in the limit's measure (bytes for a byte limit,
    /// units otherwise).
    pub fn occupancy(&mut self, now: Time) -> u64 {
        let in_bytes = self.policy.counts_bytes();
        match &mut self.discipline {
            Discipline::PerVc(pv) => pv.occupancy(now),
            Discipline::Priority(pr) => pr.occupancy(),
            Discipline::Trim(t) => t.occupancy_bytes(),
            Discipline::TrimFifo(t) => {
                t.drain(now, &self.pipe, self.delay);
                t.data_bytes() + t.header_bytes()
            }
            Discipline::HostNic(n) => n.occupancy(),
            Discipline::Fifo(f) => {
                f.drain(now, &self.pipe, self.delay);
                f.occupancy(in_bytes)
            }
        }
    }

    /// A unit arrives at the port at `now`: admit it or drop it, then queue
    /// it (a FIFO computes at once when it reaches the far node).
    #[inline]
    pub fn offer(&mut self, now: Time, unit: &Unit) -> Offer {
        match self.discipline {
            Discipline::Fifo(_) => {}
            Discipline::PerVc(_) => return self.offer_per_vc(now, unit),
            Discipline::Priority(_) => return self.offer_priority(now, unit),
            Discipline::Trim(_) => return self.offer_trim(now, unit),
            Discipline::TrimFifo(_) => return self.offer_trim_fifo(now, unit),
            Discipline::HostNic(_) => return self.offer_nic(now, unit),
        }
        let in_bytes = self.policy.counts_bytes();
        match self.admit_fifo(now, unit, in_bytes) {
            Action::Admit => {
                let (arrive_at, pipe_was_empty) = self.queue_fifo(now, unit, in_bytes);
                Offer::Accepted { arrive_at, pipe_was_empty }
            }
            Action::Mark => {
                self.stats.units_marked += 1;
                let (arrive_at, pipe_was_empty) = self.queue_fifo(now, &unit.congested(), in_bytes);
                Offer::Accepted { arrive_at, pipe_was_empty }
            }
            Action::Evict { victim, reason } => self.push_out(now, unit, victim, reason),
            Action::Drop(reason) => {
                self.stats.dropped(reason);
                Offer::Dropped(reason)
            }
            Action::Trim { .. } => unreachable!("only a trimming port trims"),
        }
    }

    /// When the last unit queued at this FIFO port leaves the line.
    pub fn last_departure(&self) -> Time {
        self.ser.free_at()
    }

    /// Cells waiting in per-VC queues (not yet in the pipe).
    pub fn queued_per_vc(&self) -> u64 {
        match &self.discipline {
            Discipline::PerVc(pv) => pv.queued,
            Discipline::Priority(pr) => pr.queued(),
            Discipline::Trim(t) => t.queued(),
            Discipline::TrimFifo(_) => 0,
            Discipline::HostNic(n) => n.queued(),
            Discipline::Fifo(_) => 0,
        }
    }

    /// Time-average occupancy over [0, horizon], excluding the part of queued
    /// units' stay that lies beyond the horizon.
    pub fn mean_occupancy(&self, horizon: Time) -> f64 {
        if horizon == 0 {
            return 0.0;
        }
        let mut integral = self.stats.occupancy_integral;
        match &self.discipline {
            Discipline::Fifo(f) => integral -= f.stay_beyond(&self.pipe, self.delay, horizon, self.policy.counts_bytes()),
            Discipline::TrimFifo(t) => integral -= t.stay_beyond(&self.pipe, self.delay, horizon),
            _ => {}
        }
        integral as f64 / horizon as f64
    }

    /// Busy time within [0, horizon] (the line may be committed beyond it).
    pub fn busy_until(&self, horizon: Time) -> Time {
        let beyond = self.ser.free_at().saturating_sub(horizon);
        self.stats.busy.saturating_sub(beyond)
    }

    /// The unit at the head of the pipe reaches the far node: it leaves
    /// the pipe (and, if a FIFO still counted it, the port's books).
    /// Returns the unit (heading for its next hop). Inlined into the
    /// event loop with `World::pipe_head`: out of line there, its call took
    /// 34 of a packet-hop's 532 instructions (ndp-in-out).
    #[inline(always)]
    pub fn pop_pipe(&mut self) -> Unit {
        let head = *self.pipe.front().expect("a pipe event has a unit");
        self.pipe.drop_front();
        match &mut self.discipline {
            Discipline::Fifo(fifo) => fifo.left_pipe(&self.pipe, self.delay),
            Discipline::TrimFifo(t) => t.left_pipe(&self.pipe, self.delay),
            _ => self.nic_left_pipe(head.arrive_at),
        }
        head.unit
    }

    /// A lazy NIC's packet reached the far end, a link delay after its end
    /// of transmission: the choices due before now are made (the caller
    /// schedules the pipe's new head). Out of line and cold: the FIFO's
    /// path above is every run's, and its code must not grow.
    #[cold]
    #[inline(never)]
    fn nic_left_pipe(&mut self, now: Time) {
        if matches!(&self.discipline, Discipline::HostNic(nic) if nic.lazy) {
            self.nic_ends_before(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drop::{DropSpec, PortContext};
    use crate::net::{PortId, VcId};
    use crate::time::PS_PER_US;

    pub(super) fn cell(frame: u32, index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(0), frame, index, ncells, 53)
    }

    pub(super) fn port(limit: Limit) -> Port {
        let rate = Rate::new(424, 3 * PS_PER_US as u128).unwrap();
        let policy = DropPolicy::new(DropSpec::Tail(()), &PortContext { limit, num_vcs: 1, seed: 1, port: PortId(0), packet_time: 1 });
        Port::new("p".into(), NodeId(0), NodeId(1), rate, 10 * PS_PER_US, limit, policy, Discipline::Fifo(Fifo::default()))
    }

    #[test]
    fn what_a_unit_hop_reads_lies_in_the_first_four_lines_of_its_port() {
        use std::mem::{offset_of, size_of};
        // The pipe, the discipline, the transmitter, the delay, the drop
        // policy, and the counters every unit updates.
        let ends = [
            offset_of!(Port, policy) + size_of::<DropPolicy>(),
            offset_of!(Port, stats.busy) + size_of::<Time>(),
            offset_of!(Port, stats.occupancy_integral) + size_of::<u128>(),
        ];
        assert!(ends.iter().all(|&end| end <= 4 * 64), "{ends:?}");
        // Where the unit leaving the pipe goes next, on the pipe's line;
        // in padding, so a port is no larger for it.
        assert!(offset_of!(Port, far_exits) + size_of::<u32>() <= 64);
        // A trimming port's books are in the port, on its first two lines
        // (no box: at 1,024 hosts a box cost a miss a port visited).
        assert_eq!(size_of::<crate::net::trim_fifo::TrimFifo>(), 32);
        assert!(offset_of!(Port, discipline) + size_of::<Discipline>() <= 2 * 64);
        assert_eq!(size_of::<Port>(), 448);
        assert_eq!(std::mem::align_of::<Port>(), 64);
    }

    #[test]
    fn a_marked_unit_is_queued_marked_and_counted() {
        // EFCI from the third cell queued on (two waiting), on the general
        // and the fast FIFO paths alike.
        let (mut general, mut fast) = (port(Limit::Units(8)), port(Limit::Units(8)));
        for p in [&mut general, &mut fast] {
            p.policy = p.policy.clone().with_efci_marking(2, 2);
        }
        for k in 0..4 {
            assert!(matches!(general.offer(0, &cell(k, 0, 1)), Offer::Accepted { .. }));
            assert!(fast.offer_fifo(0, &cell(k, 0, 1)).is_ok());
        }
        for p in [&general, &fast] {
            let marked: Vec<bool> = p.pipe.iter().map(|f| f.unit.is_congested()).collect();
            assert_eq!(marked, [false, false, true, true]);
            assert_eq!(p.stats.units_marked, 2);
        }
    }

    #[test]
    fn tail_drop_counts_the_unit_in_transmission() {
        let mut p = port(Limit::Units(2));
        let c = cell(0, 0, 4);
        assert!(matches!(p.offer(0, &c), Offer::Accepted { arrive_at, .. } if arrive_at == 13 * PS_PER_US));
        assert!(matches!(p.offer(0, &c), Offer::Accepted { arrive_at, .. } if arrive_at == 16 * PS_PER_US));
        assert_eq!(p.offer(0, &c), Offer::Dropped(DropReason::Tail));
        // After the first cell has left (3 µs), there is room again.
        assert!(matches!(p.offer(3 * PS_PER_US, &c), Offer::Accepted { .. }));
        assert_eq!(p.stats.units_in, 4);
        assert_eq!(p.stats.units_dropped, 1);
        assert_eq!(p.stats.peak_occupancy, 2);
        assert_eq!(p.pipe.len(), 3);
    }

    #[test]
    fn accepted_plus_dropped_equals_arrivals_under_overload() {
        let mut p = port(Limit::Units(5));
        for i in 0..1000u64 {
            p.offer(i * PS_PER_US, &cell(0, 0, 1)); // 3x overload
        }
        assert_eq!(p.stats.units_in, p.pipe.len() as u64 + p.stats.units_dropped);
        assert!(p.stats.units_dropped > 600);
        assert!(p.stats.peak_occupancy <= 5);
    }

    #[test]
    fn byte_limit_admits_whole_packets_only() {
        let mut p = port(Limit::Bytes(9168 * 2));
        let mut pkt = cell(0, 0, 1);
        pkt.wire_bytes = 9168;
        assert!(matches!(p.offer(0, &pkt), Offer::Accepted { .. }));
        assert!(matches!(p.offer(0, &pkt), Offer::Accepted { .. }));
        assert_eq!(p.offer(0, &pkt), Offer::Dropped(DropReason::Tail));
    }

    #[test]
    fn mean_occupancy_by_littles_law() {
        let mut p = port(Limit::Units(100));
        // Two cells back to back at t=0: occupancy 2 for 3 µs, 1 for 3 µs.
        p.offer(0, &cell(0, 0, 2));
        p.offer(0, &cell(0, 1, 2));
        let m = p.mean_occupancy(12 * PS_PER_US);
        assert!((m - 9.0 / 12.0).abs() < 1e-12, "{m}");
        assert_eq!(p.busy_until(12 * PS_PER_US), 6 * PS_PER_US);
    }
}
