//! An EQDS sender's send records and its retransmission timer (rule E11 of
//! docs/fabrics.md; htsim `EqdsSrc::createSendRecord`, `startRTO`,
//! `recalculateRTO`). The timeout is fixed (no RTT estimate: htsim never
//! calls `computeDynamicRTO`) and runs on the oldest outstanding packet.

use crate::time::Time;
use std::collections::VecDeque;

/// The records as two sorted rings rather than two B-trees: the packets
/// outstanding are a window that mostly grows at the back and is answered
/// from the front, so a ring keeps each in a line or two, where a tree's
/// nodes were spread over the heap (1.6 of the 1,024-host permutation's
/// 14.9 L2-size misses a packet-hop: docs/performance.md) and allocated as
/// they split. Both keep the trees' order and their answers exactly.
///
/// The timer first (`repr(C)`): every event of the flow reads it, and
/// with the timeout and the number-order ring it fills one cache line.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct SendRecords {
    /// The timer, when it runs: when it expires and the send time it covers.
    pub timer: Option<(Time, Time)>,
    rto: Time,
    /// Per packet number outstanding, in number order: its bytes on the
    /// wire and when it left (a map: a number sent again replaces its record).
    records: VecDeque<(u32, u32, Time)>,
    /// The same, in (send time, number) order (a set).
    by_time: VecDeque<(Time, u32)>,
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
        // A new number at the latest time, nearly every send, goes at the
        // back of both without a search: a search's probes are lines of the
        // window no recent send touched (cache misses on a large network).
        if self.records.back().is_none_or(|r| r.0 < psn) {
            self.records.push_back((psn, bytes, now));
        } else {
            match self.records.binary_search_by_key(&psn, |r| r.0) {
                Ok(i) => self.records[i] = (psn, bytes, now),
                Err(i) => self.records.insert(i, (psn, bytes, now)),
            }
        }
        if self.by_time.back().is_none_or(|&b| b < (now, psn)) {
            self.by_time.push_back((now, psn));
        } else if let Err(i) = self.by_time.binary_search(&(now, psn)) {
            self.by_time.insert(i, (now, psn));
        }
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
        if let Some(&(t, _)) = self.by_time.front() {
            self.start(t, now);
        }
    }

    /// Packet `psn` is answered (ACKed or NACKed): its bytes, if it was outstanding.
    pub fn remove(&mut self, psn: u32, now: Time) -> Option<u32> {
        // Answers come mostly in order: the oldest first, without a search.
        let i = match self.records.front() {
            Some(r) if r.0 == psn => 0,
            _ => self.records.binary_search_by_key(&psn, |r| r.0).ok()?,
        };
        let (_, bytes, t) = self.records.remove(i).expect("a record found");
        if self.by_time.front() == Some(&(t, psn)) {
            self.by_time.pop_front();
        } else if let Ok(j) = self.by_time.binary_search(&(t, psn)) {
            self.by_time.remove(j);
        }
        if self.timer.is_some_and(|(_, covered)| covered == t) {
            self.recalculate(now);
        }
        Some(bytes)
    }

    /// Every packet below `psn` is answered: the bytes freed.
    pub fn remove_below(&mut self, psn: u32, now: Time) -> u64 {
        let mut freed = 0;
        while let Some(&(p, _, _)) = self.records.front() {
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
        let (t, psn) = self.by_time.pop_front()?;
        let i = self.records.binary_search_by_key(&psn, |r| r.0).expect("a record per send time");
        let (_, bytes, _) = self.records.remove(i).expect("a record found");
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
    /// The B-trees the rings replaced, as they answered.
    #[derive(Default)]
    struct Trees {
        records: std::collections::BTreeMap<u32, (u32, Time)>,
        by_time: std::collections::BTreeSet<(Time, u32)>,
    }

    #[test]
    fn the_rings_answer_as_the_trees_did() {
        // Numbers from a small range, so that numbers are sent again
        // (retransmissions, an RTS sharing the next packet's number) and
        // send times tie.
        let (mut x, mut now) = (11u64, 0u64);
        let (mut rings, mut trees) = (SendRecords::new(50), Trees::default());
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            now += (x >> 60) % 4;
            let psn = ((x >> 20) % 40) as u32;
            match (x >> 40) % 5 {
                0 | 1 => {
                    rings.sent(psn, psn + 1, now);
                    trees.records.insert(psn, (psn + 1, now));
                    trees.by_time.insert((now, psn));
                }
                2 => {
                    let expected = trees.records.remove(&psn).map(|(b, t)| {
                        trees.by_time.remove(&(t, psn));
                        b
                    });
                    assert_eq!(rings.remove(psn, now), expected);
                }
                3 => {
                    let below: Vec<u32> = trees.records.range(..psn).map(|(&p, _)| p).collect();
                    let mut freed = 0;
                    for p in below {
                        let (b, t) = trees.records.remove(&p).unwrap();
                        trees.by_time.remove(&(t, p));
                        freed += b as u64;
                    }
                    assert_eq!(rings.remove_below(psn, now), freed);
                }
                _ => {
                    if trees.by_time.first().is_some_and(|&(t, p)| t + 50 <= now && trees.records.get(&p).is_some_and(|r| r.1 == t)) {
                        let (_, p) = trees.by_time.pop_first().unwrap();
                        let (b, _) = trees.records.remove(&p).unwrap();
                        assert_eq!(rings.expire(now), Some((p, b)));
                    }
                }
            }
            assert!(rings.records.iter().map(|r| (r.0, (r.1, r.2))).eq(trees.records.iter().map(|(&p, &v)| (p, v))));
            assert!(rings.by_time.iter().eq(trees.by_time.iter()));
        }
    }
}
