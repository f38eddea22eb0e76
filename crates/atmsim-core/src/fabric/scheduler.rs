//! The egress end-to-end credit scheduler of one port (DNX's end-to-end
//! scheduler; docs/fabric.md R4). It knows each source FAP's VOQ for this
//! port by the state its last FlowStatus reported, and hands out credits
//! worth `credit_worth` bytes at the port rate × (1 + overspeed), exactly
//! paced (a serializer of its own):
//!
//! - while the egress queue holds `egress_stop` bytes or more it grants
//!   nothing (the slot passes);
//! - otherwise the next NORM VOQ in round-robin order gets the credit;
//! - if none is NORM, the next SLOW VOQ whose own pace allows (one credit
//!   per `credit_worth` at `slow_rate` × the port rate) gets it;
//! - with nothing to serve it stops, and a FlowStatus wakes it.
//!
//! With traffic classes a VOQ is a *member* (class, source FAP), numbered
//! class · faps + source. NORM members come before SLOW ones as above; among
//! members of one state the highest `strict` classes go first in strict
//! priority, highest first, and the others share by smooth weighted round
//! robin (each asking class gains its weight, the richest is served and pays
//! the asking classes' total: nginx's SWRR, exact and deterministic); within
//! a class, sources in round-robin order.

use super::voq::Crs;
use crate::time::{Rate, Serializer, Time};

/// What one credit slot did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A credit for this member's VOQ (class · faps + source FAP); the next slot at the time given.
    Grant(u32, Time),
    /// The egress queue is full: no credit; the next slot at the time given.
    Paused(Time),
    /// Only SLOW VOQs not yet due: the next slot when the first is.
    Wait(Time),
    /// No VOQ asks: the scheduler stops until a FlowStatus.
    Idle,
}

#[derive(Clone, Debug)]
pub struct EgressScheduler {
    /// Per member, its VOQ's state as last reported, as bit sets.
    norm: Vec<u64>,
    slow: Vec<u64>,
    /// Per member, when a SLOW VOQ may have its next credit.
    slow_due: Vec<Time>,
    /// Per member, the number of the newest FlowStatus heard.
    heard: Vec<u32>,
    /// Per class, the last source served (round robin starts after it).
    last: Vec<u32>,
    faps: u32,
    tcs: u32,
    strict: u32,
    /// Per class below the strict ones, its weight and its SWRR balance.
    weights: Vec<i64>,
    balance: Vec<i64>,
    generator: Serializer,
    worth: u64,
    slow_gap: Time,
    /// A slot is scheduled, at `next_slot` (a slot event at another time is
    /// stale: a FlowStatus moved the slot sooner).
    pub running: bool,
    pub next_slot: Time,
    /// The scheduled slot waits for a SLOW VOQ's pace.
    waiting: bool,
    pub granted: u64,
    pub paused_slots: u64,
}

impl EgressScheduler {
    /// `credit_rate`: the port rate × (1 + overspeed); `slow_rate`: a SLOW
    /// VOQ's own credit rate.
    pub fn new(faps: u32, credit_rate: Rate, slow_rate: Rate, worth: u32) -> EgressScheduler {
        EgressScheduler::with_classes(faps, 1, 0, &[1], credit_rate, slow_rate, worth)
    }

    /// `tcs` classes, the highest `strict` in strict priority, the others
    /// weighted by `weights` (lowest class first).
    pub fn with_classes(
        faps: u32,
        tcs: u32,
        strict: u32,
        weights: &[u32],
        credit_rate: Rate,
        slow_rate: Rate,
        worth: u32,
    ) -> EgressScheduler {
        debug_assert_eq!(weights.len() as u32, tcs - strict);
        let members = (faps * tcs) as usize;
        let words = members.div_ceil(64);
        EgressScheduler {
            norm: vec![0; words],
            slow: vec![0; words],
            slow_due: vec![0; members],
            heard: vec![0; members],
            last: vec![faps - 1; tcs as usize],
            faps,
            tcs,
            strict,
            weights: weights.iter().map(|&w| w as i64).collect(),
            balance: vec![0; weights.len()],
            generator: Serializer::new(credit_rate),
            worth: worth as u64,
            slow_gap: slow_rate.tx_time(worth as u64),
            running: false,
            next_slot: 0,
            waiting: false,
            granted: 0,
            paused_slots: 0,
        }
    }

    /// Credits at `rate` from the next slot on (balanced input, docs/fabric.md R9).
    pub fn set_credit_rate(&mut self, rate: Rate) {
        self.generator = self.generator.at_rate(rate);
    }

    /// The credit rate.
    pub fn credit_rate(&self) -> Rate {
        self.generator.rate()
    }

    /// FlowStatus number `number` from member `src`'s VOQ (numbered from 1); returns
    /// when the next slot should run if the scheduler was stopped and now
    /// has work. Cells of one VOQ cross different links, so a FlowStatus may
    /// be overtaken by a newer one: an older one than the last heard is
    /// ignored (else a VOQ gone NORM could be left SLOW for good).
    pub fn status(&mut self, now: Time, src: u32, state: Crs, number: u32) -> Option<Time> {
        let heard = &mut self.heard[src as usize];
        // Numbers keep 30 bits (two more hold the state): compared as such.
        if ((number.wrapping_sub(*heard) << 2) as i32) <= 0 {
            return None;
        }
        *heard = number;
        let (w, bit) = ((src / 64) as usize, 1u64 << (src % 64));
        self.norm[w] &= !bit;
        self.slow[w] &= !bit;
        match state {
            Crs::Norm => self.norm[w] |= bit,
            Crs::Slow => self.slow[w] |= bit,
            Crs::Off => {}
        }
        if state == Crs::Off {
            return None;
        }
        let at = now.max(self.generator.free_at());
        // Stopped, or waiting for a SLOW VOQ's pace while this VOQ could be
        // served sooner: the next slot moves to its earliest time.
        let sooner = self.waiting && at < self.next_slot && (state == Crs::Norm || self.slow_due[src as usize] <= at);
        if self.running && !sooner {
            return None;
        }
        self.running = true;
        self.waiting = false;
        self.next_slot = at;
        Some(at)
    }

    /// Class `tc`'s next NORM member after its last served, round robin;
    /// with `due_by`, its next SLOW member due by then.
    fn next_in(&self, due_by: Option<Time>, tc: u32) -> Option<u32> {
        let set = if due_by.is_some() { &self.slow } else { &self.norm };
        let n = self.faps;
        let last = self.last[tc as usize];
        (1..=n)
            .map(|k| tc * n + (last + k) % n)
            .find(|&m| set[(m / 64) as usize] & (1 << (m % 64)) != 0 && due_by.is_none_or(|t| self.slow_due[m as usize] <= t))
    }

    /// The NORM member to serve (with `due_by`, the SLOW one due by then):
    /// strict classes first, highest first, then weighted round robin.
    fn pick(&mut self, due_by: Option<Time>) -> Option<u32> {
        for tc in (self.tcs - self.strict..self.tcs).rev() {
            if let Some(m) = self.next_in(due_by, tc) {
                return Some(m);
            }
        }
        let mut best: Option<(usize, u32)> = None;
        let mut asking = 0;
        for tc in 0..(self.tcs - self.strict) as usize {
            let Some(m) = self.next_in(due_by, tc as u32) else { continue };
            self.balance[tc] += self.weights[tc];
            asking += self.weights[tc];
            if best.is_none_or(|(b, _)| self.balance[tc] > self.balance[b]) {
                best = Some((tc, m));
            }
        }
        let (tc, m) = best?;
        self.balance[tc] -= asking;
        Some(m)
    }

    /// A credit slot at `now`, the egress queue holding `egress_bytes`; the
    /// caller schedules the next at the time returned (`next_slot`).
    pub fn slot(&mut self, now: Time, egress_bytes: u64, egress_stop: u64) -> Slot {
        let slot = self.serve(now, egress_bytes, egress_stop);
        self.waiting = matches!(slot, Slot::Wait(_));
        if let Slot::Grant(_, t) | Slot::Paused(t) | Slot::Wait(t) = slot {
            self.next_slot = t;
        }
        slot
    }

    fn serve(&mut self, now: Time, egress_bytes: u64, egress_stop: u64) -> Slot {
        let any_slow = self.slow.iter().any(|&w| w != 0);
        if self.norm.iter().all(|&w| w == 0) && !any_slow {
            self.running = false;
            return Slot::Idle;
        }
        if egress_bytes >= egress_stop {
            self.paused_slots += 1;
            return Slot::Paused(self.generator.send(now, self.worth));
        }
        let pick = self.pick(None).or_else(|| self.pick(Some(now)));
        match pick {
            Some(src) => {
                self.last[(src / self.faps) as usize] = src % self.faps;
                self.granted += 1;
                if self.slow[(src / 64) as usize] & (1 << (src % 64)) != 0 {
                    self.slow_due[src as usize] = now + self.slow_gap;
                }
                Slot::Grant(src, self.generator.send(now, self.worth))
            }
            None => {
                let due = (0..self.faps * self.tcs)
                    .filter(|&s| self.slow[(s / 64) as usize] & (1 << (s % 64)) != 0)
                    .map(|s| self.slow_due[s as usize])
                    .min()
                    .expect("some VOQ is SLOW");
                Slot::Wait(due.max(self.generator.free_at()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_S;

    fn gbps(g: u64) -> Rate {
        Rate::new(g as u128 * 1_000_000_000, PS_PER_S as u128).unwrap()
    }

    #[test]
    fn norm_voqs_share_credits_round_robin_at_the_credit_rate() {
        // 4,096-B credits at 409.6 Gb/s: one every 80 ns.
        let mut s = EgressScheduler::new(4, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        assert_eq!(s.status(0, 2, Crs::Norm, 1), Some(0));
        assert_eq!(s.status(0, 0, Crs::Norm, 1), None, "already running");
        let mut t = 0;
        let mut order = Vec::new();
        for _ in 0..4 {
            match s.slot(t, 0, 16_384) {
                Slot::Grant(src, next) => {
                    order.push(src);
                    assert_eq!(next, t + 80_000);
                    t = next;
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(order, vec![0, 2, 0, 2]);
        assert_eq!(s.slot(t, 16_384, 16_384), Slot::Paused(t + 80_000), "a full egress queue pauses it");
        s.status(t, 0, Crs::Off, 2);
        s.status(t, 2, Crs::Off, 2);
        assert_eq!(s.slot(t + 80_000, 0, 16_384), Slot::Idle);
        assert!(!s.running);
        assert_eq!(s.status(t + 50_000, 1, Crs::Norm, 1), Some(t + 80_000), "woken, never faster than its rate");
    }

    #[test]
    fn a_new_credit_rate_takes_effect_after_the_credit_under_way() {
        // 80 ns a credit, then five sixths of the rate: 96 ns (balanced input, 15 of 18 links).
        let full = Rate::new(4096, 10_000).unwrap();
        let mut s = EgressScheduler::new(2, full, gbps(40), 4096);
        s.status(0, 1, Crs::Norm, 1);
        assert_eq!(s.slot(0, 0, 16_384), Slot::Grant(1, 80_000));
        s.set_credit_rate(Rate::new(full.bits as u128 * 15, full.ps as u128 * 18).unwrap());
        assert_eq!(s.slot(80_000, 0, 16_384), Slot::Grant(1, 176_000));
        assert_eq!(s.credit_rate(), Rate::new(4096 * 5, 60_000).unwrap());
    }

    /// Members served in `slots` credit slots, every member NORM.
    fn served(s: &mut EgressScheduler, members: &[u32], slots: usize) -> Vec<u32> {
        for &m in members {
            s.status(0, m, Crs::Norm, 1);
        }
        let mut t = 0;
        (0..slots)
            .map(|_| match s.slot(t, 0, 16_384) {
                Slot::Grant(m, next) => {
                    t = next;
                    m
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_strict_class_goes_first_and_the_others_share_by_weight() {
        let rate = Rate::new(4096, 10_000).unwrap();
        // Three classes of 2 sources (member = class · 2 + source): class 2 strict, 0 and 1 at 3:1.
        let mut s = EgressScheduler::with_classes(2, 3, 1, &[3, 1], rate, gbps(40), 4096);
        assert_eq!(served(&mut s, &[0, 1, 2, 5], 4), vec![4 + 1; 4], "class 2's only member, every slot");
        let mut s = EgressScheduler::with_classes(2, 3, 1, &[3, 1], rate, gbps(40), 4096);
        let got = served(&mut s, &[0, 1, 2], 8);
        // Smooth WRR over classes 0 (weight 3) and 1 (weight 1): 0, 0, 1, 0 each round of four;
        // within class 0 its two sources alternate.
        assert_eq!(got, vec![0, 1, 2, 0, 1, 0, 2, 1]);
        assert_eq!(got.iter().filter(|&&m| m < 2).count(), 6, "three quarters to class 0");
    }

    #[test]
    fn slow_voqs_are_paced_and_norm_goes_first() {
        // Port credits every 80 ns; a SLOW VOQ gets one per 4096·8/40G = 819.2 ns.
        let mut s = EgressScheduler::new(2, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        s.status(0, 1, Crs::Slow, 1);
        assert!(matches!(s.slot(0, 0, 16_384), Slot::Grant(1, 80_000)));
        assert_eq!(s.slot(80_000, 0, 16_384), Slot::Wait(819_200));
        s.status(80_000, 0, Crs::Norm, 1);
        assert!(matches!(s.slot(160_000, 0, 16_384), Slot::Grant(0, _)), "NORM before a SLOW not due");
        assert!(matches!(s.slot(819_200, 0, 16_384), Slot::Grant(0, _)), "NORM still first");
    }

    #[test]
    fn a_norm_voq_is_not_kept_waiting_for_a_slow_ones_pace() {
        let mut s = EgressScheduler::new(2, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        s.status(0, 1, Crs::Slow, 1);
        assert!(matches!(s.slot(0, 0, 16_384), Slot::Grant(1, 80_000)));
        assert_eq!(s.slot(80_000, 0, 16_384), Slot::Wait(819_200));
        assert_eq!(s.status(100_000, 0, Crs::Norm, 1), Some(100_000), "woken at once, not at 819.2 ns");
        assert_eq!(s.next_slot, 100_000, "the waiting slot is stale");
        assert!(matches!(s.slot(100_000, 0, 16_384), Slot::Grant(0, _)));
        // A SLOW status not yet due does not move the slot.
        let mut s = EgressScheduler::new(2, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        s.status(0, 1, Crs::Slow, 1);
        s.slot(0, 0, 16_384);
        s.slot(80_000, 0, 16_384);
        assert_eq!(s.status(90_000, 1, Crs::Slow, 2), None);
    }

    #[test]
    fn flow_status_numbers_compare_in_30_bits() {
        let mut s = EgressScheduler::new(2, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        s.heard[1] = (1 << 30) - 1;
        s.status(0, 1, Crs::Slow, 0); // the number after 2^30 − 1, in the cell's 30 bits
        assert!(s.slow[0] & 2 != 0, "accepted as newer");
        assert_eq!(s.status(0, 1, Crs::Norm, (1 << 30) - 2), None, "an older one, across the wrap, is not");
    }

    #[test]
    fn an_overtaken_flow_status_is_ignored() {
        let mut s = EgressScheduler::new(2, Rate::new(4096, 10_000).unwrap(), gbps(40), 4096);
        s.status(0, 1, Crs::Norm, 2);
        assert_eq!(s.status(0, 1, Crs::Slow, 1), None, "SLOW (1) arrives after NORM (2)");
        assert!(matches!(s.slot(0, 0, 16_384), Slot::Grant(1, _)));
        assert!(matches!(s.slot(80_000, 0, 16_384), Slot::Grant(1, _)), "still NORM: no SLOW pacing");
        s.status(80_000, 1, Crs::Off, 3);
        assert_eq!(s.slot(160_000, 0, 16_384), Slot::Idle);
    }
}
