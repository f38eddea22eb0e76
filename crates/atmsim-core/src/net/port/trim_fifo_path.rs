//! A trimming port served as one FIFO with headers placed ahead of the
//! waiting data (`net/trim_fifo.rs`): every departure is known when a
//! packet is placed, so a packet-hop costs one event, as at a FIFO port.
//! Placing a header ahead of waiting data delays each of them by the
//! header's time on the line (their entries in the pipe move), and
//! trimming the newest waiting data packet takes it out of the pipe.

use super::{Discipline, Offer, Port};
use crate::net::drop::{Action, DropPolicy, DropReason};
use crate::net::{InFlight, Unit};
use crate::time::Time;

impl Port {
    /// A packet arrives at a trimming port (N2–N3): a full data packet is
    /// admitted or trimmed (it, or the newest waiting one) as the policy
    /// decides; a header goes ahead of the waiting data unless the header
    /// queue is full.
    pub(super) fn offer_trim_fifo(&mut self, now: Time, unit: &Unit) -> Offer {
        let Discipline::TrimFifo(q) = &mut self.discipline else { unreachable!("a trimming port") };
        q.drain(now, &self.pipe, self.delay);
        self.stats.units_in += 1;
        // The limits as the books keep them: the policy lives in a box of
        // its own, read only to trim (at 1,024 hosts the box cost a miss at
        // every header placed ahead of data; docs/performance.md, "Pipe
        // heads revealed four places ahead").
        let (trim_to, limit) = (q.trim_to, q.limit_bytes());
        let header_limit = 2 * limit;
        let (mut header, mut appended) = (None, None);
        if q.is_header(unit.wire_bytes) {
            header = Some(unit.onward());
        } else if q.data_fits(unit.wire_bytes as u64) {
            // What the policy decides for a packet that fits.
            appended = Some(self.append(now, unit));
        } else {
            let DropPolicy::Trim(policy) = &mut self.policy else { unreachable!("a trimming port's policy trims") };
            debug_assert_eq!(policy.limit_bytes, limit, "the books keep the policy's limit");
            match policy.decide(unit, q.data_bytes()) {
                Action::Admit => appended = Some(self.append(now, unit)),
                Action::Trim { newest } => {
                    policy.trimmed += 1;
                    if newest && q.waiting_data() > 0 {
                        header = Some(self.take_newest_data(now).trimmed(trim_to));
                        appended = Some(self.append(now, unit));
                        let (Discipline::TrimFifo(q), DropPolicy::Trim(policy)) = (&self.discipline, &mut self.policy) else {
                            unreachable!("a trimming port")
                        };
                        policy.replaced(q.data_bytes());
                    } else {
                        header = Some(unit.trimmed(trim_to).onward());
                    }
                }
                other => unreachable!("a trimming policy answers admit or trim: {other:?}"),
            }
        }
        let mut dropped = None;
        if let Some(h) = header {
            let Discipline::TrimFifo(q) = &self.discipline else { unreachable!("a trimming port") };
            if q.header_bytes() + h.wire_bytes as u64 > header_limit {
                let DropPolicy::Trim(policy) = &mut self.policy else { unreachable!("trims") };
                policy.header_drops += 1;
                self.stats.dropped(DropReason::HeaderQueue);
                dropped = Some(h);
            } else if q.waiting_data() > 0 {
                self.insert_header(now, h);
            } else {
                appended = Some(self.append_placed(now, h));
            }
        }
        let Discipline::TrimFifo(q) = &self.discipline else { unreachable!("a trimming port") };
        self.stats.peak_occupancy = self.stats.peak_occupancy.max(q.data_bytes());
        Offer::Placed { appended, dropped }
    }

    /// The common arrivals at a trimming port, decided without building an
    /// [`Offer`]: a data packet that fits the data queue, or a header when
    /// no data waits and the header queue has room; either is appended
    /// (when it reaches the far node; was the pipe empty?). `None`: the
    /// general arm decides ([`Port::offer`]).
    #[inline(always)]
    pub fn offer_trim_plain(&mut self, now: Time, unit: &Unit) -> Option<(Time, bool)> {
        let Discipline::TrimFifo(q) = &mut self.discipline else { return None };
        q.drain(now, &self.pipe, self.delay);
        let bytes = unit.wire_bytes as u64;
        let fits = if q.is_header(unit.wire_bytes) {
            q.waiting_data() == 0 && q.header_bytes() + bytes <= 2 * q.limit_bytes()
        } else {
            q.data_fits(bytes)
        };
        if !fits {
            return None;
        }
        self.stats.units_in += 1;
        // The data queue's peak is kept by the append.
        Some(self.append(now, unit))
    }

    /// Appends an arriving packet behind everything the port holds.
    #[inline(always)]
    fn append(&mut self, now: Time, unit: &Unit) -> (Time, bool) {
        self.append_placed(now, unit.onward())
    }

    /// Appends a packet already headed for its next hop. Inlined: a
    /// trimming port's every accepted packet comes here (Fig. 21: this
    /// call's frame was 13 instructions of a packet-hop's 671).
    #[inline(always)]
    fn append_placed(&mut self, now: Time, placed: Unit) -> (Time, bool) {
        let Discipline::TrimFifo(q) = &mut self.discipline else { unreachable!("a trimming port") };
        let bytes = placed.wire_bytes;
        let start = self.ser.free_at().max(now);
        let end = self.ser.send(now, bytes as u64);
        self.stats.busy += end - start;
        q.push(bytes, end);
        // A queue's peak moves only when that queue grows (the drain only
        // lowers either): the header queue's for a header, the data queue's
        // (N2) for a data packet. One update a packet, not two, and no
        // second match of the discipline for the data queue's (with one
        // service flag tested, not two, in `World::enter_other`: ndp-in-out
        // 0.2 s 340.30 -> 335.43 M instructions, eqds-incast-128 646.64 ->
        // 637.52 M).
        if q.is_header(bytes) {
            self.stats.peak_header_bytes = self.stats.peak_header_bytes.max(q.header_bytes());
        } else {
            self.stats.peak_occupancy = self.stats.peak_occupancy.max(q.data_bytes());
        }
        self.stats.occupancy_integral += bytes as u128 * (end - now) as u128;
        let arrive_at = end + self.delay;
        let pipe_was_empty = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrive_at, unit: placed });
        (arrive_at, pipe_was_empty)
    }

    /// Takes the newest waiting data packet out of the pipe (it is the
    /// newest entry): the line is free that much earlier.
    fn take_newest_data(&mut self, now: Time) -> Unit {
        let Discipline::TrimFifo(q) = &mut self.discipline else { unreachable!("a trimming port") };
        let last = self.pipe.len() - 1;
        let victim = self.pipe.remove(last);
        let bytes = victim.unit.wire_bytes;
        let shift = self.ser.unsend(bytes as u64);
        q.remove_newest_data(bytes);
        self.stats.busy -= shift;
        self.stats.occupancy_integral -= bytes as u128 * (victim.arrive_at - self.delay - now) as u128;
        victim.unit
    }

    /// Puts a header (already headed for its next hop) right after the
    /// headers waiting, ahead of the waiting data, which leave its time on
    /// the line later.
    fn insert_header(&mut self, now: Time, h: Unit) {
        let Discipline::TrimFifo(q) = &mut self.discipline else { unreachable!("a trimming port") };
        let behind = q.waiting_data();
        let ix = self.pipe.len() - behind;
        let prev_end = self.pipe.get(ix - 1).arrive_at - self.delay;
        let old_free = self.ser.free_at();
        self.ser.send(now, h.wire_bytes as u64);
        let shift = self.ser.free_at() - old_free;
        let end = prev_end + shift;
        let mut behind_bytes = 0u128;
        self.pipe.insert_shifting(ix, InFlight { arrive_at: end + self.delay, unit: h }, |f| {
            f.arrive_at += shift;
            behind_bytes += f.unit.wire_bytes as u128;
        });
        q.push_header_ahead(h.wire_bytes);
        self.stats.peak_header_bytes = self.stats.peak_header_bytes.max(q.header_bytes());
        self.stats.busy += shift;
        self.stats.occupancy_integral += h.wire_bytes as u128 * (end - now) as u128 + behind_bytes * shift as u128;
    }
}

#[cfg(test)]
mod tests {
    use crate::net::drop::{DropPolicy, DropSpec, PortContext, TrimService};
    use crate::net::port::Offer;
    use crate::net::trim_fifo::TrimFifo;
    use crate::net::{Discipline, Limit, NodeId, Port, PortId, Unit, VcId};
    use crate::time::{Rate, PS_PER_US};

    /// A 1-byte-per-µs line with no delay, 30 bytes of data queue.
    fn port() -> Port {
        let limit = Limit::Bytes(30);
        let cx = PortContext { limit, num_vcs: 1, seed: 3, port: PortId(0), packet_time: 1 };
        let policy = DropPolicy::new(DropSpec::Trim(TrimService::Strict), &cx);
        let rate = Rate::new(8, PS_PER_US as u128).unwrap();
        Port::new("X->Y".into(), NodeId(0), NodeId(1), rate, 0, limit, policy, Discipline::TrimFifo(TrimFifo::new(4, 30)))
    }

    fn pkt(frame: u32, bytes: u16) -> Unit {
        Unit::new(VcId(0), frame, 0, 1, bytes)
    }

    fn ends(p: &Port) -> Vec<(u32, u16, u64)> {
        p.pipe.iter().map(|f| (f.unit.frame, f.unit.wire_bytes, f.arrive_at / PS_PER_US)).collect()
    }

    #[test]
    fn a_header_goes_ahead_of_waiting_data_and_delays_it() {
        let mut p = port();
        for f in 0..3 {
            assert!(matches!(p.offer(0, &pkt(f, 10)), Offer::Placed { appended: Some(_), dropped: None }));
        }
        // At 5 µs packet 0 is on the line, 1 and 2 wait: the header goes between 0 and 1.
        assert!(matches!(p.offer(5 * PS_PER_US, &pkt(9, 4)), Offer::Placed { appended: None, dropped: None }));
        assert_eq!(ends(&p), [(0, 10, 10), (9, 4, 14), (1, 10, 24), (2, 10, 34)]);
        // A second header waits behind the first, still ahead of the data.
        p.offer(6 * PS_PER_US, &pkt(8, 4));
        assert_eq!(ends(&p), [(0, 10, 10), (9, 4, 14), (8, 4, 18), (1, 10, 28), (2, 10, 38)]);
        assert_eq!(p.stats.busy / PS_PER_US, 38);
        // The books: the line's busy period, and every byte's stay.
        let stays: u128 =
            p.pipe.iter().map(|f| f.unit.wire_bytes as u128 * (f.arrive_at / PS_PER_US) as u128).sum::<u128>() - 4 * 5 - 4 * 6;
        assert_eq!(p.stats.occupancy_integral / PS_PER_US as u128, stays);
    }

    #[test]
    fn the_plain_arm_decides_as_the_general_one_or_not_at_all() {
        // The same arrivals offered through both: where the plain arm answers, the books agree.
        let (mut plain, mut general) = (port(), port());
        let arrivals = [(0, 10), (1, 10), (2, 4), (3, 10), (4, 10), (5, 4), (20, 10), (21, 4)];
        for (k, &(t, bytes)) in arrivals.iter().enumerate() {
            let (now, u) = (t * PS_PER_US, pkt(k as u32, bytes));
            let g = general.offer(now, &u);
            match plain.offer_trim_plain(now, &u) {
                Some(placed) => assert_eq!(g, Offer::Placed { appended: Some(placed), dropped: None }, "arrival {k}"),
                None => {
                    assert_eq!(plain.offer(now, &u), g, "arrival {k}");
                }
            }
            assert_eq!(ends(&plain), ends(&general), "arrival {k}");
        }
        assert_eq!(
            (plain.stats.units_in, plain.stats.busy, plain.stats.occupancy_integral),
            (general.stats.units_in, general.stats.busy, general.stats.occupancy_integral)
        );
    }

    #[test]
    fn a_full_data_queue_trims_the_arrival_or_the_newest_waiting_packet() {
        let mut trimmed_newest = 0;
        for seed in 0..40 {
            let mut p = port();
            if let DropPolicy::Trim(t) = &mut p.policy {
                **t = crate::net::drop::TrimPolicy::seeded(30, seed);
            }
            for f in 0..3 {
                p.offer(0, &pkt(f, 10));
            }
            // 30 data bytes held: the fourth does not fit.
            let Offer::Placed { dropped: None, .. } = p.offer(PS_PER_US, &pkt(3, 10)) else { panic!("placed") };
            let got = ends(&p);
            if got.iter().any(|&(f, b, _)| f == 3 && b == 10) {
                // Packet 2 was cut to a header, ahead of packet 1; the arrival queued.
                assert_eq!(got, [(0, 10, 10), (2, 4, 14), (1, 10, 24), (3, 10, 34)]);
                trimmed_newest += 1;
            } else {
                assert_eq!(got, [(0, 10, 10), (3, 4, 14), (1, 10, 24), (2, 10, 34)]);
            }
        }
        assert!((10..=30).contains(&trimmed_newest), "a fair coin: {trimmed_newest} of 40");
    }

    #[test]
    fn a_short_newest_packet_replaced_by_a_full_one_leaves_the_queue_over_its_limit_and_says_so() {
        let mut seen = [false; 2];
        for seed in 0..40 {
            let mut p = port();
            if let DropPolicy::Trim(t) = &mut p.policy {
                **t = crate::net::drop::TrimPolicy::seeded(30, seed);
            }
            // 28 data bytes: 10 on the line, three short packets waiting; a 10-byte arrival does not fit.
            for (f, bytes) in [(0, 10), (1, 6), (2, 6), (3, 6)] {
                p.offer(0, &pkt(f, bytes));
            }
            p.offer(PS_PER_US, &pkt(4, 10));
            let DropPolicy::Trim(t) = &p.policy else { unreachable!() };
            let replaced = ends(&p).iter().any(|&(f, b, _)| f == 4 && b == 10);
            // Packet 3 (6 bytes) gave its place to 10: 32 bytes held against 30, as htsim's queue would.
            let want = if replaced { 32 } else { 0 };
            assert_eq!((t.over_limit_by_replacement, p.stats.peak_occupancy), (want, if replaced { 32 } else { 28 }));
            seen[replaced as usize] = true;
        }
        assert_eq!(seen, [true, true], "both sides of the coin");
    }
}
