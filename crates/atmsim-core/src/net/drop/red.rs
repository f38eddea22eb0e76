//! RED, Random Early Detection (Floyd & Jacobson, "Random early detection
//! gateways for congestion avoidance", IEEE/ACM ToN 1(4), 1993): the modern
//! reference beside drop tail and random drop. On each arrival the gateway
//! updates an exponentially weighted average of its queue (decayed over idle
//! periods as if `m` small packets had left), drops with a probability that
//! grows linearly from 0 at `min_th` to `max_p` at `max_th`, spread evenly
//! between drops by the count since the last one, and drops every arrival
//! above `max_th` or to a full buffer. Draws come from the port's own stream.

use super::{Action, DropReason};
use crate::net::PortId;
use crate::rng::{stream, Stream};
use crate::time::Time;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// RED's parameters, in packets (FJ93's defaults: 5, 15, 1/50, 0.002).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
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
}

impl Red {
    pub fn new(cfg: RedConfig, limit: u64, packet_time: Time, seed: u64, port: PortId) -> Self {
        Red { cfg, limit, packet_time: packet_time.max(1), avg: 0.0, count: -1, rng: stream(seed, Stream::Port(port)) }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// A packet arrives at `now` to a queue of `q` packets (counting the one
    /// in transmission); an empty queue has been idle since `idle_since`.
    pub fn admit(&mut self, q: u64, now: Time, idle_since: Time) -> Action {
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
            return Action::Drop(DropReason::Red);
        }
        self.count += 1;
        let pb = self.cfg.max_p * (self.avg - self.cfg.min_th) / (self.cfg.max_th - self.cfg.min_th);
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if self.rng.gen::<f64>() < pa {
            self.count = 0;
            return Action::Drop(DropReason::Red);
        }
        Action::Admit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: RedConfig = RedConfig { min_th: 5.0, max_th: 15.0, max_p: 0.02, w_q: 0.002 };

    #[test]
    fn below_min_th_everything_enters_and_a_full_buffer_drops() {
        let mut r = Red::new(CFG, 20, 10, 1, PortId(0));
        for _ in 0..1000 {
            assert!(r.admit(4, 0, 0) == Action::Admit);
        }
        assert!(r.avg < 5.0 && r.avg > 3.0, "{}", r.avg);
        assert_eq!(r.admit(20, 0, 0), Action::Drop(DropReason::Tail));
    }

    #[test]
    fn between_the_thresholds_drops_are_early_and_spread() {
        let mut r = Red::new(CFG, 100, 10, 3, PortId(2));
        r.avg = 10.0;
        // pb = 0.01 at avg 10: with the count correction, about one drop per ~50 arrivals.
        let drops = (0..5000).filter(|_| r.admit(10, 0, 0) == Action::Drop(DropReason::Red)).count();
        assert!((60..200).contains(&drops), "{drops}");
        r.avg = 15.0;
        assert_eq!(r.admit(15, 0, 0), Action::Drop(DropReason::Red));
    }

    #[test]
    fn an_idle_queue_decays_the_average() {
        let mut r = Red::new(CFG, 20, 10, 1, PortId(0));
        r.avg = 10.0;
        // Idle for 1000 packet times: (1 - 0.002)^1000 = 0.135.
        assert!(r.admit(0, 10_000, 0) == Action::Admit);
        assert!((r.avg - 10.0 * 0.998f64.powi(1000)).abs() < 1e-9);
    }
}
