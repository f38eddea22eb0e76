//! A virtual output queue at an ingress FAP, one per (source FAP, egress
//! port): the packets waiting, their bytes (Qsize), the credit balance
//! (CrBal) and the credit-request state (CRS) that Broadcom's SDK drives
//! by Qsize − CrBal against its thresholds (`bcm_cosq_delay_tolerance_t`,
//! `credit_request_thresholds.c`; docs/fabric.md R3):
//!
//! - OFF → NORM when Qsize − CrBal > `off_to_norm`, else OFF → SLOW when it
//!   is > `off_to_slow`; SLOW → NORM past `off_to_norm`; NORM → SLOW below
//!   `norm_to_slow`;
//! - any state → OFF when satisfied: CrBal > `satisfied_backoff`, or CrBal
//!   exceeds Qsize by more than `satisfied_backlog`, or the queue is empty
//!   with CrBal ≥ `empty_off`;
//! - an empty queue keeps at most `max_empty_balance` of credit (the rest is
//!   discarded, and counted).
//!
//! A packet leaves when CrBal > 0, so CrBal may go below zero by less than
//! one packet. The identity CrBal = granted·W − dequeued − discarded holds
//! at every step (F8, checked in the tests and at the end of every run).

use super::CrsThresholds;
use crate::net::Unit;
use crate::ring::Ring;

/// The credit-request state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Crs {
    Off = 0,
    Slow = 1,
    Norm = 2,
}

impl Crs {
    pub fn from_u32(x: u32) -> Crs {
        match x {
            0 => Crs::Off,
            1 => Crs::Slow,
            _ => Crs::Norm,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Voq {
    /// Packets waiting, oldest first (a unit's `wire_bytes` is its length).
    pub packets: Ring<Unit>,
    /// Bytes waiting (Qsize).
    pub qsize: u64,
    /// Credit balance in bytes (CrBal).
    pub crbal: i64,
    pub state: Crs,
    /// Bytes that arrived, credits received, bytes dequeued, credit bytes
    /// discarded beyond `max_empty_balance`.
    pub arrived: u64,
    pub granted: u64,
    pub dequeued: u64,
    pub discarded: u64,
    /// Most bytes it held.
    pub peak: u64,
    /// FlowStatus messages sent: each carries its number, so that the
    /// scheduler ignores one overtaken on another link by a newer one.
    pub statuses: u32,
}

impl Default for Voq {
    fn default() -> Self {
        Voq::new()
    }
}

impl Voq {
    pub fn new() -> Voq {
        Voq {
            packets: Ring::new(),
            qsize: 0,
            crbal: 0,
            state: Crs::Off,
            arrived: 0,
            granted: 0,
            dequeued: 0,
            discarded: 0,
            peak: 0,
            statuses: 0,
        }
    }

    /// A packet arrives.
    pub fn arrive(&mut self, unit: Unit) {
        let len = unit.wire_bytes as u64;
        self.packets.push_back(unit);
        self.qsize += len;
        self.arrived += len;
        self.peak = self.peak.max(self.qsize);
    }

    /// A credit of `worth` bytes arrives.
    pub fn credit(&mut self, worth: u32) {
        self.crbal += worth as i64;
        self.granted += 1;
    }

    /// The next packet, if the balance lets it leave.
    pub fn dequeue(&mut self) -> Option<Unit> {
        if self.crbal <= 0 {
            return None;
        }
        let unit = self.packets.pop_front()?;
        let len = unit.wire_bytes as u64;
        self.qsize -= len;
        self.crbal -= len as i64;
        self.dequeued += len;
        Some(unit)
    }

    /// Applies the empty queue's credit cap and the state machine; returns
    /// the new state if it changed (a FlowStatus is then due).
    pub fn settle(&mut self, t: &CrsThresholds) -> Option<Crs> {
        if self.qsize == 0 && self.crbal > t.max_empty_balance {
            self.discarded += (self.crbal - t.max_empty_balance) as u64;
            self.crbal = t.max_empty_balance;
        }
        let q = self.qsize as i64;
        let x = q - self.crbal;
        let satisfied = self.crbal > t.satisfied_backoff || self.crbal - q > t.satisfied_backlog || (q == 0 && self.crbal >= t.empty_off);
        let next = if satisfied {
            Crs::Off
        } else {
            match self.state {
                Crs::Off if x > t.off_to_norm => Crs::Norm,
                Crs::Off if x > t.off_to_slow => Crs::Slow,
                Crs::Slow if x > t.off_to_norm => Crs::Norm,
                Crs::Norm if x < t.norm_to_slow => Crs::Slow,
                s => s,
            }
        };
        (next != self.state).then(|| {
            self.state = next;
            self.statuses = self.statuses.wrapping_add(1);
            next
        })
    }

    /// F8: CrBal = granted·W − dequeued − discarded.
    pub fn identity_holds(&self, worth: u32) -> bool {
        self.crbal == self.granted as i64 * worth as i64 - self.dequeued as i64 - self.discarded as i64
            && self.qsize == self.arrived - self.dequeued
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    /// The SDK's 100G slow-enabled profile rounded up to 4 KB credits.
    pub(crate) const PROFILE: CrsThresholds = CrsThresholds {
        off_to_slow: 0,
        off_to_norm: 40_960,
        norm_to_slow: 40_960,
        satisfied_backoff: 40_960,
        satisfied_backlog: 40_960,
        empty_off: 0,
        max_empty_balance: 4_096,
    };

    fn packet(len: u16) -> Unit {
        Unit::new(VcId(0), 0, 0, 1, len)
    }

    #[test]
    fn one_packet_asks_slowly_a_backlog_normally_and_credit_satisfies() {
        let mut v = Voq::new();
        v.arrive(packet(4150));
        assert_eq!(v.settle(&PROFILE), Some(Crs::Slow), "Qsize − CrBal = 4150 > 0");
        for _ in 0..9 {
            v.arrive(packet(4150));
        }
        assert_eq!(v.settle(&PROFILE), Some(Crs::Norm), "41,500 > 40,960");
        assert_eq!(v.dequeue(), None, "no credit yet");
        v.credit(4096);
        assert!(v.dequeue().is_some(), "CrBal 4096 > 0 lets a 4150-B packet go");
        assert_eq!(v.crbal, -54, "below zero by less than a packet");
        assert_eq!(v.dequeue(), None);
        assert_eq!(v.settle(&PROFILE), Some(Crs::Slow), "37,404 < 40,960");
        // Granted until satisfied: an overdrawn empty queue still asks, to repay.
        while v.state != Crs::Off {
            v.credit(4096);
            while v.dequeue().is_some() {}
            assert!(v.identity_holds(4096));
            v.settle(&PROFILE);
        }
        assert_eq!(v.qsize, 0);
        assert!(v.crbal >= 0, "empty with CrBal ≥ 0");
        assert!(v.identity_holds(4096));
    }

    #[test]
    fn an_empty_queue_banks_at_most_its_max_balance_and_the_rest_is_counted() {
        let mut v = Voq::new();
        for _ in 0..3 {
            v.credit(4096);
        }
        assert_eq!(v.settle(&PROFILE), None, "OFF stays OFF");
        assert_eq!((v.crbal, v.discarded), (4096, 8192));
        assert!(v.identity_holds(4096));
        // A packet that fits the bank leaves at once and asks for nothing.
        v.arrive(packet(1500));
        assert!(v.dequeue().is_some());
        assert_eq!(v.settle(&PROFILE), None);
        assert!(v.identity_holds(4096));
    }

    #[test]
    fn satisfied_by_backoff_and_backlog() {
        let mut v = Voq::new();
        for _ in 0..20 {
            v.arrive(packet(4150));
        }
        assert_eq!(v.settle(&PROFILE), Some(Crs::Norm));
        for _ in 0..11 {
            v.credit(4096);
        }
        assert_eq!(v.settle(&PROFILE), Some(Crs::Off), "CrBal 45,056 > 40,960: backoff");
    }
}
