//! ARB's sender (Chang, Huynh & Gray §2, "algorithm to send data"): one
//! packet (Bs) per burst period Bt = Bs/Rs on a local timer, a rate request
//! on the first packet of a burst once M has passed since the last one, and
//! the rate control of `rate.rs` on every reply.
//!
//! Our choices where the paper is silent: requests may overlap (a round
//! trip can exceed M); each is remembered with the Ra it carried, the oldest
//! unanswered one times out after Tout; a reply also settles older
//! unanswered requests. Reliability is go-back-N on the receiver's NAK
//! (the paper's ARB runs lose nothing, so it gives no mechanism): the sender
//! rewinds to the first missing byte, at the paced rate, and ignores a
//! repeated NAK for the same byte within Tout of the rewind (packets sent
//! before the rewind still arrive out of order and are NAKed again).

use super::rate::RateControl;
use super::{ps, ArbConfig, ArbData, ArbReply};
use crate::time::Time;
use std::collections::VecDeque;

/// No wake-up is scheduled.
pub const NO_WAKE: Time = Time::MAX;

#[derive(Clone, Copy, Debug)]
struct Request {
    id: u32,
    sent_at: Time,
    ra: f64,
}

#[derive(Clone, Debug, Default)]
pub struct ArbSenderStats {
    pub bytes_sent: u64,
    pub segments_sent: u64,
    pub bytes_retransmitted: u64,
    pub segments_retransmitted: u64,
    pub timeouts: u64,
    pub naks: u64,
    pub requests: u64,
}

/// What a reply did (for traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyOutcome {
    Rate,
    /// A NAK the sender acted on: it went back to this byte.
    WentBack(u64),
    /// A NAK ignored as a repeat.
    Ignored,
}

#[derive(Clone, Debug)]
pub struct ArbSender {
    cfg: ArbConfig,
    pub rc: RateControl,
    /// Payload bytes to send (None: always has data).
    limit: Option<u64>,
    /// Next byte to send, and the highest byte ever sent (+1).
    pub snd_nxt: u64,
    max_sent: u64,
    /// The receiver's next expected byte, from its last reply.
    pub snd_una: u64,
    /// When the last packet left, and when the next burst may go.
    last_sent_at: Option<Time>,
    next_burst_at: Time,
    /// The wake-up the world has scheduled for this sender.
    scheduled: Time,
    last_request_at: Time,
    bits_since_request: f64,
    next_request_id: u32,
    outstanding: VecDeque<Request>,
    /// Ra of recent requests by id, for replies that arrive after their timeout.
    recent_ra: [(u32, f64); 16],
    /// The byte of the last rewind and when it happened.
    last_rewind: Option<(u64, Time)>,
    pub stats: ArbSenderStats,
}

impl ArbSender {
    pub fn new(cfg: &ArbConfig, limit: Option<u64>, start: Time) -> Self {
        ArbSender {
            cfg: *cfg,
            rc: RateControl::new(cfg),
            limit,
            snd_nxt: 1,
            max_sent: 1,
            snd_una: 1,
            last_sent_at: None,
            next_burst_at: start,
            scheduled: NO_WAKE,
            last_request_at: start,
            bits_since_request: 0.0,
            next_request_id: 1,
            outstanding: VecDeque::with_capacity(8),
            recent_ra: [(0, 0.0); 16],
            last_rewind: None,
            stats: ArbSenderStats::default(),
        }
    }

    fn has_data(&self) -> bool {
        self.limit.is_none_or(|b| self.snd_nxt <= b)
    }

    /// The time a new wake-up event is needed at, if any: when the next
    /// burst is due earlier than the one scheduled (a rate increase) or none
    /// is scheduled. Records it as scheduled. A rate increase can make the
    /// next burst (the last one plus the new Bt) overdue: it then goes at
    /// `now`, never in the past.
    pub fn wake_needed(&mut self, now: Time) -> Option<Time> {
        let due = self.next_burst_at.max(now);
        if !self.has_data() || due >= self.scheduled {
            return None;
        }
        self.scheduled = due;
        Some(due)
    }

    /// Is a wake-up event at `t` the one currently scheduled? Stale ones
    /// (replaced by an earlier one) are ignored.
    pub fn is_current_wake(&mut self, t: Time) -> bool {
        if t != self.scheduled {
            return false;
        }
        self.scheduled = NO_WAKE;
        true
    }

    /// The pacing timer fires at `now`: check the oldest request's timeout,
    /// then send one packet if the burst is due.
    pub fn on_wake(&mut self, now: Time) -> Option<ArbData> {
        self.check_timeout(now);
        if now < self.next_burst_at || !self.has_data() {
            return None;
        }
        let len = self.limit.map_or(self.cfg.payload as u64, |b| (b + 1 - self.snd_nxt).min(self.cfg.payload as u64)) as u32;
        let mut seg = ArbData { seq: self.snd_nxt, len, sent_at: now, request: None };
        // Bs is one packet, so every packet is the first of its burst.
        if now - self.last_request_at >= self.cfg.interval {
            let ra = self.bits_since_request / crate::time::secs(now - self.last_request_at);
            let id = self.next_request_id;
            self.next_request_id = self.next_request_id.wrapping_add(1).max(1);
            self.outstanding.push_back(Request { id, sent_at: now, ra });
            self.recent_ra[id as usize % 16] = (id, ra);
            self.last_request_at = now;
            self.bits_since_request = 0.0;
            self.stats.requests += 1;
            seg.request = Some(id);
        }
        let bits = 8.0 * (len + self.cfg.header_bytes) as f64;
        self.bits_since_request += bits;
        if self.snd_nxt < self.max_sent {
            self.stats.bytes_retransmitted += len as u64;
            self.stats.segments_retransmitted += 1;
        }
        self.stats.bytes_sent += len as u64;
        self.stats.segments_sent += 1;
        self.snd_nxt += len as u64;
        self.max_sent = self.max_sent.max(self.snd_nxt);
        self.last_sent_at = Some(now);
        self.next_burst_at = now + ps(self.rc.burst_period());
        Some(seg)
    }

    fn check_timeout(&mut self, now: Time) {
        if let Some(r) = self.outstanding.front() {
            if now - r.sent_at >= self.cfg.timeout {
                self.outstanding.pop_front();
                self.stats.timeouts += 1;
                self.rc.on_timeout_or_loss(None);
                self.reschedule_burst();
            }
        }
    }

    /// The next burst after a rate change: one new Bt after the last packet.
    fn reschedule_burst(&mut self) {
        if let Some(t) = self.last_sent_at {
            self.next_burst_at = t + ps(self.rc.burst_period());
        }
    }

    /// A reply (or NAK) from the receiver.
    pub fn on_reply(&mut self, now: Time, seg: &ArbReply) -> ReplyOutcome {
        let rr = seg.rate_bps();
        self.snd_una = self.snd_una.max(seg.expected);
        let id = seg.request;
        let mut ra = None;
        if id != 0 {
            if let Some(k) = self.outstanding.iter().position(|r| r.id == id) {
                ra = Some(self.outstanding[k].ra);
                self.outstanding.drain(..=k);
            } else if self.recent_ra[id as usize % 16].0 == id {
                ra = Some(self.recent_ra[id as usize % 16].1);
            }
        }
        let outcome = if seg.loss {
            let repeat = self.last_rewind.is_some_and(|(s, t)| s == seg.expected && now - t < self.cfg.timeout);
            if repeat || seg.expected >= self.snd_nxt {
                ReplyOutcome::Ignored
            } else {
                self.stats.naks += 1;
                self.snd_nxt = seg.expected;
                self.last_rewind = Some((seg.expected, now));
                self.rc.on_timeout_or_loss(Some(rr));
                ReplyOutcome::WentBack(seg.expected)
            }
        } else {
            ReplyOutcome::Rate
        };
        if outcome == ReplyOutcome::Rate {
            if let Some(ra) = ra {
                self.rc.on_reply(rr, ra, seg.accumulated);
            }
        }
        self.reschedule_burst();
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;
    use crate::transport::arb::test_config;

    const S: Time = 1000 * PS_PER_MS;

    fn reply(id: u32, rr: u64, expected: u64, loss: bool) -> ArbReply {
        ArbReply { expected, rr: rr * 1000, request: id, loss, accumulated: false }
    }

    #[test]
    fn paces_one_packet_per_burst_period_and_requests_every_interval() {
        let mut s = ArbSender::new(&test_config(), None, 0);
        assert_eq!(s.wake_needed(0), Some(0));
        assert!(s.is_current_wake(0));
        let first = s.on_wake(0).unwrap();
        assert_eq!((first.seq, first.len, first.request), (1, 450, None));
        // 4000 b/s and 4000-bit packets: one per second.
        assert_eq!(s.wake_needed(0), Some(S));
        assert!(s.on_wake(S).unwrap().request.is_none());
        let third = s.on_wake(2 * S).unwrap();
        assert_eq!((third.request, third.sent_at), (Some(1), 2 * S), "M = 2 s has passed");
        assert_eq!(s.stats.segments_sent, 3);
    }

    #[test]
    fn stale_wakes_are_ignored() {
        let mut s = ArbSender::new(&test_config(), None, 0);
        s.wake_needed(0);
        assert!(!s.is_current_wake(5));
        assert!(s.is_current_wake(0));
        assert_eq!(s.wake_needed(0), Some(0), "nothing scheduled any more");
    }

    #[test]
    fn a_reply_raises_the_rate_and_brings_the_next_burst_forward() {
        let mut s = ArbSender::new(&test_config(), None, 0);
        for k in 0..3 {
            s.on_wake(k * S);
        }
        s.wake_needed(0);
        // The request carried Ra = 8000 bits over 2 s = 4000 b/s.
        assert_eq!(s.on_reply(2 * S + S / 2, &reply(1, 4000, 1351, false)), ReplyOutcome::Rate);
        assert_eq!(s.rc.rs, 4900.0);
        let t = s.wake_needed(2 * S + S / 2).unwrap();
        assert_eq!(t, 2 * S + ps(4000.0 / 4900.0));
        assert_eq!(s.snd_una, 1351);
    }

    #[test]
    fn an_overdue_burst_wakes_now_not_in_the_past() {
        let mut s = ArbSender::new(&test_config(), None, 0);
        for k in 0..3 {
            s.on_wake(k * S);
        }
        assert_eq!(s.wake_needed(2 * S), Some(3 * S));
        // A reply at 2.9 s doubles the rate: the next burst, due 0.5 s after
        // the last packet (2.5 s), is overdue and goes at once.
        assert_eq!(s.on_reply(2 * S + 9 * S / 10, &reply(1, 8000, 1351, false)), ReplyOutcome::Rate);
        assert!(s.next_burst_at < 2 * S + 9 * S / 10, "the burst is overdue");
        let now = 2 * S + 9 * S / 10;
        assert_eq!(s.wake_needed(now), Some(now));
        assert!(s.is_current_wake(now));
        assert!(s.on_wake(now).is_some(), "the overdue packet goes at once");
    }

    #[test]
    fn unanswered_request_times_out_and_halves_the_rate() {
        let mut cfg = test_config();
        cfg.timeout = 3 * S;
        let mut s = ArbSender::new(&cfg, None, 0);
        for k in 0..6 {
            s.on_wake(k * S);
        }
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.rc.rs, 2000.0);
        // A late reply to the timed-out request is still used.
        s.on_reply(6 * S, &reply(1, 4000, 1, false));
        assert_eq!(s.rc.region, super::super::Region::R1);
    }

    #[test]
    fn nak_rewinds_once_and_retransmissions_are_counted() {
        let mut s = ArbSender::new(&test_config(), Some(4500), 0);
        for k in 0..5 {
            s.on_wake(k * S);
        }
        assert_eq!(s.snd_nxt, 2251);
        assert_eq!(s.on_reply(5 * S, &reply(0, 3000, 451, true)), ReplyOutcome::WentBack(451));
        assert_eq!(s.on_reply(5 * S + 1, &reply(0, 3000, 451, true)), ReplyOutcome::Ignored);
        assert_eq!(s.rc.rs, 2000.0);
        let seg = s.on_wake(7 * S).unwrap();
        assert_eq!(seg.seq, 451);
        assert_eq!((s.stats.segments_retransmitted, s.stats.bytes_retransmitted), (1, 450));
    }

    #[test]
    fn a_bounded_transfer_stops_after_its_last_byte() {
        let mut s = ArbSender::new(&test_config(), Some(500), 0);
        assert_eq!(s.on_wake(0).unwrap().len, 450);
        assert_eq!(s.on_wake(S).unwrap().len, 50);
        assert!(s.on_wake(2 * S).is_none());
        assert_eq!(s.wake_needed(0), None);
    }
}
