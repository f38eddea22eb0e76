//! An EQDS sender's send records and its retransmission timer (rule E11 of
//! docs/fabrics.md; htsim `EqdsSrc::createSendRecord`, `startRTO`,
//! `recalculateRTO`). The timeout is fixed (no RTT estimate: htsim never
//! calls `computeDynamicRTO`) and runs on the oldest outstanding packet.

use crate::time::Time;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default)]
pub struct SendRecords {
    /// Per packet number outstanding: its bytes on the wire and when it left.
    records: BTreeMap<u32, (u32, Time)>,
    /// The same, by send time.
    by_time: BTreeSet<(Time, u32)>,
    /// The timer, when it runs: when it expires and the send time it covers.
    pub timer: Option<(Time, Time)>,
    rto: Time,
}

impl SendRecords {
    pub fn new(rto: Time) -> SendRecords {
        SendRecords { rto, ..SendRecords::default() }
    }

    pub fn rto(&self) -> Time {
        self.rto
    }

    /// Packet `psn` of `bytes` left at `now`; the timer starts if it is idle.
    pub fn sent(&mut self, psn: u32, bytes: u32, now: Time) {
        self.records.insert(psn, (bytes, now));
        self.by_time.insert((now, psn));
        self.start(now, now);
    }

    fn start(&mut self, send_time: Time, now: Time) {
        match self.timer {
            None => self.timer = Some(((send_time + self.rto).max(now), send_time)),
            Some((due, _)) if send_time + self.rto < due => self.timer = Some(((send_time + self.rto).max(now), send_time)),
            Some(_) => {}
        }
    }

    /// The timer restarts on the oldest packet still outstanding.
    fn recalculate(&mut self, now: Time) {
        self.timer = None;
        if let Some(&(t, _)) = self.by_time.first() {
            self.start(t, now);
        }
    }

    /// Packet `psn` is answered (ACKed or NACKed): its bytes, if it was outstanding.
    pub fn remove(&mut self, psn: u32, now: Time) -> Option<u32> {
        let (bytes, t) = self.records.remove(&psn)?;
        self.by_time.remove(&(t, psn));
        if self.timer.is_some_and(|(_, covered)| covered == t) {
            self.recalculate(now);
        }
        Some(bytes)
    }

    /// Every packet below `psn` is answered: the bytes freed.
    pub fn remove_below(&mut self, psn: u32, now: Time) -> u64 {
        let mut freed = 0;
        while let Some((&p, _)) = self.records.first_key_value() {
            if p >= psn {
                break;
            }
            freed += self.remove(p, now).unwrap_or(0) as u64;
        }
        freed
    }

    /// The timer expired at `now`: the oldest packet, forgotten (its
    /// number and bytes); the timer restarts on the next oldest.
    pub fn expire(&mut self, now: Time) -> Option<(u32, u32)> {
        self.timer = None;
        let (t, psn) = self.by_time.pop_first()?;
        let (bytes, _) = self.records.remove(&psn).expect("a record per send time");
        debug_assert!(t + self.rto <= now);
        self.recalculate(now);
        Some((psn, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timer_follows_the_oldest_outstanding_packet() {
        let mut r = SendRecords::new(100);
        r.sent(0, 10, 0);
        r.sent(1, 10, 5);
        assert_eq!(r.timer, Some((100, 0)));
        r.remove(0, 20);
        assert_eq!(r.timer, Some((105, 5)), "restarted on packet 1");
        r.sent(2, 10, 30);
        assert_eq!(r.expire(105), Some((1, 10)));
        assert_eq!(r.timer, Some((130, 30)));
        assert_eq!(r.remove_below(3, 140), 10);
        assert!(r.records.is_empty() && r.timer.is_none());
    }
}
