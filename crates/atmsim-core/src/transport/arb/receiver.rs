//! ARB's receiver (Chang, Huynh & Gray §2): it measures the rate at which a
//! connection's data arrives between two rate requests (Rr over Mr), lowers
//! it when it sees queueing accumulate along the path, and answers each
//! request with a reply carrying Rr. The application reads at once, so Rr is
//! the network rate.
//!
//! Queueing-accumulation detection is described only in words ("the
//! receiver accumulates the changes of delay ... and forces the sender down");
//! our rule: the accumulated change of one-way delay since the emptiest
//! moment seen, A = d - d_min (the queueing the connection's packets now
//! meet along the path), is checked at each request; when A exceeds `k_acc`
//! packet times (at the bottleneck's rate, or at the connection's own
//! measured rate: the two readings of `accumulation.rs`), the reply reports Rr·(1 − A/Mr),
//! removing the rate that built the standing queue, and carries the ACCUM
//! flag, which makes the sender reduce to θ·Rr even when that Rr is within
//! ΔR of its rate (the hold band the rule exists to break; without the flag
//! the ΔR test decided, and the threshold did nothing below about 2H packet
//! times, H the bounded queues of the path: issue 24). Only differences of
//! delay are used, so sender and receiver clocks need not agree. (A running
//! sum reset after each cut, which we tried first, loses the standing queue
//! it leaves behind: the queue then creeps up to the buffer size.)
//!
//! Reliability (our choice): in-order delivery with go-back-N; a packet
//! beyond a gap is discarded (counted with duplicates: the sender sends it
//! again) and the first one answers at once with a NAK (a reply with the
//! LOSS flag and id 0); replies to requests carry LOSS while the gap lasts.

use super::{ArbConfig, ArbData, ArbReply, RR_UNIT};
use crate::time::{secs, Time};

#[derive(Clone, Debug, Default)]
pub struct ArbReceiverStats {
    pub bytes_received: u64,
    pub bytes_delivered: u64,
    /// Data received again, or beyond a gap (discarded).
    pub bytes_duplicate: u64,
    pub replies: u64,
    pub naks: u64,
}

#[derive(Clone, Debug)]
pub struct ArbReceiver {
    cfg: ArbConfig,
    /// Next byte expected in order.
    pub expected: u64,
    /// The byte a NAK was last sent for (one NAK per gap).
    nak_for: u64,
    /// One past the highest byte seen: a gap lasts while it exceeds `expected`.
    highest: u64,
    bits_since_request: f64,
    /// When the previous request (or the first packet) arrived.
    last_request_at: Option<Time>,
    /// The smallest one-way delay seen (seconds): the path without queueing.
    min_delay: f64,
    pub last_rr: f64,
    pub stats: ArbReceiverStats,
}

impl ArbReceiver {
    pub fn new(cfg: &ArbConfig) -> Self {
        ArbReceiver {
            cfg: *cfg,
            expected: 1,
            nak_for: 0,
            highest: 1,
            bits_since_request: 0.0,
            last_request_at: None,
            min_delay: f64::INFINITY,
            last_rr: 0.0,
            stats: ArbReceiverStats::default(),
        }
    }

    /// A data packet arrives at `now`; returns the reply or NAK to send, if any.
    pub fn on_data(&mut self, now: Time, seg: &ArbData) -> Option<ArbReply> {
        self.stats.bytes_received += seg.len as u64;
        let gap_seen = seg.seq > self.expected;
        self.highest = self.highest.max(seg.seq + seg.len as u64);
        if seg.seq == self.expected {
            self.expected += seg.len as u64;
            self.stats.bytes_delivered += seg.len as u64;
        } else {
            self.stats.bytes_duplicate += seg.len as u64;
        }
        let bits = 8.0 * (seg.len + self.cfg.header_bytes) as f64;
        self.min_delay = self.min_delay.min(secs(now - seg.sent_at));
        let Some(since) = self.last_request_at else {
            self.last_request_at = Some(now);
            self.bits_since_request = bits;
            return self.nak(gap_seen);
        };
        let Some(request) = seg.request else {
            self.bits_since_request += bits;
            return self.nak(gap_seen);
        };
        let mr = secs(now - since);
        let rr_net = if mr > 0.0 { self.bits_since_request / mr } else { self.last_rr };
        let (rr, accumulated) = self.accumulation(secs(now - seg.sent_at), rr_net, mr);
        self.last_request_at = Some(now);
        self.bits_since_request = bits;
        self.last_rr = rr;
        self.stats.replies += 1;
        if gap_seen {
            self.nak_for = self.expected;
        }
        let mut reply = self.reply(request, self.highest > self.expected);
        reply.accumulated = accumulated;
        Some(reply)
    }

    /// The queueing-accumulation rule (module comment): the rate to report,
    /// and whether the rule fired (the reply's ACCUM flag).
    fn accumulation(&mut self, delay: f64, rr_net: f64, mr: f64) -> (f64, bool) {
        let accumulated = delay - self.min_delay;
        if rr_net <= 0.0 || mr <= 0.0 {
            return (rr_net, false);
        }
        let threshold = self.cfg.accumulation.threshold(self.cfg.k_acc, self.cfg.packet_bits(), rr_net);
        if accumulated > threshold {
            return (rr_net * (1.0 - accumulated / mr).max(0.0), true);
        }
        (rr_net, false)
    }

    fn nak(&mut self, gap_seen: bool) -> Option<ArbReply> {
        if !gap_seen || self.nak_for == self.expected {
            return None;
        }
        self.nak_for = self.expected;
        self.stats.naks += 1;
        Some(self.reply(0, true))
    }

    fn reply(&self, id: u32, loss: bool) -> ArbReply {
        ArbReply { expected: self.expected, rr: (self.last_rr / RR_UNIT).round() as u64, request: id, loss, accumulated: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;
    use crate::transport::arb::{test_config, Accumulation};

    const S: Time = 1000 * PS_PER_MS;

    fn data(seq: u64, sent: Time, request: u32) -> ArbData {
        ArbData { seq, len: 450, sent_at: sent, request: (request > 0).then_some(request) }
    }

    #[test]
    fn reports_the_rate_received_between_requests() {
        let mut r = ArbReceiver::new(&test_config());
        // One 4000-bit packet per second, constant delay 100 ms.
        for k in 0..4u64 {
            let req = if k == 2 { 7 } else { 0 };
            let out = r.on_data(k * S + S / 10, &data(1 + 450 * k, k * S, req));
            assert_eq!(out.is_some(), k == 2);
            if let Some(rep) = out {
                assert_eq!((rep.request, rep.rr, rep.expected, rep.loss, rep.accumulated), (7, 4_000_000, 1351, false, false));
            }
        }
        assert_eq!(r.stats.bytes_delivered, 1800);
    }

    #[test]
    fn growing_delay_lowers_the_reported_rate() {
        let mut cfg = test_config();
        cfg.k_acc = 0.5;
        let mut r = ArbReceiver::new(&cfg);
        // The first packet meets an empty path (delay 0).
        r.on_data(0, &data(1, 0, 0));
        // A request 1 s of queueing later, over Mr = 2 s: 2000 b/s, and the
        // threshold is half a packet time at that rate (1 s): no cut.
        let rep = r.on_data(2 * S, &data(451, S, 1)).unwrap();
        assert_eq!((rep.rr, rep.loss, rep.accumulated), (2_000_000, false, false));
        // The next request meets 4 s of queueing over Mr = 4 s (1000 b/s,
        // threshold 2 s): Rr (1 - 4/4) = 0.
        let rep = r.on_data(6 * S, &data(901, 2 * S, 2)).unwrap();
        assert_eq!((rep.rr, rep.loss, rep.accumulated), (0, false, true), "the rule fired: the sender must cut");
    }

    /// The two readings of k_acc on the same arrivals (`accumulation.rs`):
    /// a sender at 4000 b/s (a 4000-bit packet a second) on a path whose
    /// slowest line runs at 12 kb/s (a third of it, as one of three
    /// connections), k_acc = 1. The queue reading's threshold is one packet
    /// of that line, 1/3 s; the own-rate reading's is one packet at the rate
    /// measured over Mr = 2 s + A (two packets), 1.25 s at A = 0.5 s. A
    /// request that meets A = 0.5 s of queueing is cut under the first only,
    /// one that meets 0.2 s under neither, one that meets 3 s (own-rate
    /// threshold 2.5 s) under both.
    #[test]
    fn the_queue_reading_cuts_at_a_queue_the_own_rate_reading_lets_build() {
        let fired = |accumulation: Accumulation, queueing: Time| {
            let mut cfg = test_config();
            cfg.k_acc = 1.0;
            cfg.accumulation = accumulation;
            let mut r = ArbReceiver::new(&cfg);
            // An empty path first (delay 100 ms), then a second without a
            // request, then the request, `queueing` later than the empty path.
            r.on_data(S / 10, &data(1, 0, 0));
            r.on_data(S + S / 10, &data(451, S, 0));
            let rep = r.on_data(2 * S + S / 10 + queueing, &data(901, 2 * S, 1)).unwrap();
            rep.accumulated
        };
        let queue = Accumulation::named("queue", 12e3).unwrap();
        let own = Accumulation::named("own-rate", 12e3).unwrap();
        assert_eq!((fired(queue, S / 2), fired(own, S / 2)), (true, false));
        assert_eq!((fired(queue, S / 5), fired(own, S / 5)), (false, false));
        assert_eq!((fired(queue, 3 * S), fired(own, 3 * S)), (true, true));
    }

    #[test]
    fn a_gap_is_naked_once_and_later_data_is_discarded() {
        let mut r = ArbReceiver::new(&test_config());
        r.on_data(0, &data(1, 0, 0));
        let nak = r.on_data(S, &data(901, S, 0)).unwrap();
        assert_eq!((nak.expected, nak.request, nak.loss), (451, 0, true));
        assert!(r.on_data(2 * S, &data(1351, 2 * S, 0)).is_none());
        // A request during the gap: its reply carries LOSS again.
        let rep = r.on_data(3 * S, &data(1801, 3 * S, 3)).unwrap();
        assert!(rep.loss && !rep.accumulated);
        r.on_data(4 * S, &data(451, 4 * S, 0));
        assert_eq!((r.expected, r.stats.bytes_duplicate, r.stats.bytes_received), (901, 1350, 2250));
    }
}
