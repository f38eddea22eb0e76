//! RED, Random Early Detection (Floyd & Jacobson, "Random early detection
//! gateways for congestion avoidance", IEEE/ACM ToN 1(4), 1993): the modern
//! reference beside drop tail and random drop. On each arrival the gateway
//! updates an exponentially weighted average of its queue (decayed over idle
//! periods as if `m` small packets had left), drops with a probability that
//! grows linearly from 0 at `min_th` to `max_p` at `max_th`, spread evenly
//! between drops by the count since the last one, and drops every arrival
//! above `max_th` or to a full buffer. Draws come from the port's own stream.
//!
//! With ECN (`router.red.ecn`, RFC 3168 §7; ns-2's `setbit_`), an early
//! drop of an ECN-capable packet becomes a CE mark: the packet enters. The
//! forced drops stay drops, of every packet: above `max_th` (RFC 3168 §7
//! marks "when the router would otherwise drop for early-drop reasons";
//! ns-2 2.35 `queue/red.cc`, `REDQueue::drop_early`, marks only while
//! `v_ave < th_max`, and `enque` drops `DTYPE_FORCED` packets outright) and
//! to a full buffer. The draws are the same with ECN or without, so a run
//! with ECN and no ECN-capable packet is a run of plain RED.

use super::{Action, DropReason};
use crate::net::PortId;
use crate::rng::{stream, Stream};
use crate::time::Time;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// RED's parameters, in packets (FJ93's defaults: 5, 15, 1/50, 0.002), and
/// whether early drops of ECN-capable packets become marks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub ecn: bool,
}

#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    limit: u64,
    /// Transmission time of a full packet: the unit of idle-time decay.
    packet_time: Time,
    pub avg: f64,
    /// Arrivals since the last drop (-1: the average is below min_th).
    count: i64,
    rng: ChaCha8Rng,
    /// Drops at or above `max_th` (RED's forced drops, not the buffer's).
    pub forced_drops: u64,
}

impl Red {
    pub fn new(cfg: RedConfig, limit: u64, packet_time: Time, seed: u64, port: PortId) -> Self {
        Red { cfg, limit, packet_time: packet_time.max(1), avg: 0.0, count: -1, rng: stream(seed, Stream::Port(port)), forced_drops: 0 }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Early drops of ECN-capable packets become marks.
    pub fn marks(&self) -> bool {
        self.cfg.ecn
    }

    /// A packet arrives at `now` to a queue of `q` packets (counting the one
    /// in transmission); an empty queue has been idle since `idle_since`;
    /// `ect`: the packet is ECN-capable.
    pub fn admit(&mut self, q: u64, now: Time, idle_since: Time, ect: bool) -> Action {
        let w = self.cfg.w_q;
        if q == 0 {
            let m = now.saturating_sub(idle_since) / self.packet_time;
            self.avg *= (1.0 - w).powi(m.min(i32::MAX as u64) as i32);
        } else {
            self.avg = (1.0 - w) * self.avg + w * q as f64;
        }
        if q >= self.limit {
            self.count = 0;
            return Action::Drop(DropReason::Tail);
        }
        if self.avg < self.cfg.min_th {
            self.count = -1;
            return Action::Admit;
        }
        if self.avg >= self.cfg.max_th {
            self.count = 0;
            self.forced_drops += 1;
            return Action::Drop(DropReason::Red);
        }
        self.count += 1;
        let pb = self.cfg.max_p * (self.avg - self.cfg.min_th) / (self.cfg.max_th - self.cfg.min_th);
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if self.rng.gen::<f64>() < pa {
            self.count = 0;
            // RFC 3168 §7: mark rather than drop an ECN-capable packet.
            return if self.cfg.ecn && ect { Action::Mark } else { Action::Drop(DropReason::Red) };
        }
        Action::Admit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: RedConfig = RedConfig { min_th: 5.0, max_th: 15.0, max_p: 0.02, w_q: 0.002, ecn: false };

    #[test]
    fn below_min_th_everything_enters_and_a_full_buffer_drops() {
        let mut r = Red::new(CFG, 20, 10, 1, PortId(0));
        for _ in 0..1000 {
            assert!(r.admit(4, 0, 0, false) == Action::Admit);
        }
        assert!(r.avg < 5.0 && r.avg > 3.0, "{}", r.avg);
        assert_eq!(r.admit(20, 0, 0, false), Action::Drop(DropReason::Tail));
    }

    #[test]
    fn between_the_thresholds_drops_are_early_and_spread() {
        let mut r = Red::new(CFG, 100, 10, 3, PortId(2));
        r.avg = 10.0;
        // pb = 0.01 at avg 10: with the count correction, about one drop per ~50 arrivals.
        let drops = (0..5000).filter(|_| r.admit(10, 0, 0, false) == Action::Drop(DropReason::Red)).count();
        assert!((60..200).contains(&drops), "{drops}");
        r.avg = 15.0;
        assert_eq!(r.admit(15, 0, 0, false), Action::Drop(DropReason::Red));
    }

    #[test]
    fn an_idle_queue_decays_the_average() {
        let mut r = Red::new(CFG, 20, 10, 1, PortId(0));
        r.avg = 10.0;
        // Idle for 1000 packet times: (1 - 0.002)^1000 = 0.135.
        assert!(r.admit(0, 10_000, 0, false) == Action::Admit);
        assert!((r.avg - 10.0 * 0.998f64.powi(1000)).abs() < 1e-9);
    }

    #[test]
    fn with_ecn_an_early_drop_marks_an_ect_packet_and_drops_the_others() {
        let ecn = RedConfig { ecn: true, ..CFG };
        let (mut plain, mut marking) = (Red::new(CFG, 100, 10, 3, PortId(2)), Red::new(ecn, 100, 10, 3, PortId(2)));
        (plain.avg, marking.avg) = (10.0, 10.0);
        let mut early = 0;
        for i in 0..5000 {
            // The same draws: where plain RED drops early, ECN RED marks an
            // ECT packet and drops a non-ECT one (every third arrival).
            let ect = i % 3 != 0;
            let (p, m) = (plain.admit(10, 0, 0, false), marking.admit(10, 0, 0, ect));
            match p {
                Action::Drop(DropReason::Red) => {
                    early += 1;
                    assert_eq!(m, if ect { Action::Mark } else { Action::Drop(DropReason::Red) }, "arrival {i}");
                }
                _ => assert_eq!(m, Action::Admit, "arrival {i}"),
            }
        }
        assert!(early > 50, "{early}");
        assert_eq!((plain.forced_drops, marking.forced_drops), (0, 0));
    }

    #[test]
    fn with_ecn_forced_drops_still_drop_ect_packets() {
        let mut r = Red::new(RedConfig { ecn: true, ..CFG }, 20, 10, 1, PortId(0));
        r.avg = 15.0;
        assert_eq!(r.admit(15, 0, 0, true), Action::Drop(DropReason::Red), "avg >= max_th: forced");
        assert_eq!(r.forced_drops, 1);
        r.avg = 6.0;
        assert_eq!(r.admit(20, 0, 0, true), Action::Drop(DropReason::Tail), "a full buffer");
        assert!(r.marks());
    }
}
