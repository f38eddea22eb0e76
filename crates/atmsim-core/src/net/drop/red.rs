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
//!
//! Gentle RED (`router.red.gentle`; S. Floyd, "Recommendation on using the
//! gentle variant of RED", 2000): between `max_th` and `2·max_th` the drop
//! probability rises linearly from `max_p` to 1 instead of jumping to 1,
//! with the same count correction, and only above `2·max_th` is every
//! arrival dropped (forced). A drop in the gentle region is an early drop,
//! so with ECN it marks an ECN-capable packet: ns-2 2.35 `queue/red.cc`
//! (`REDQueue::enque` forces only at `qavg >= 2 * th_max` when `gentle_`,
//! otherwise calls `drop_early`, whose `calculate_p_new` gives
//! `v_c * v_ave + v_d`, and a drop there is `DTYPE_UNFORCED`, marked when
//! `setbit_` and the packet is ECT) and ns-3's `RedQueueDisc::DoEnqueue`
//! (`DTYPE_FORCED` only at `2 * m_maxTh` when `Gentle`; `DropEarly` there
//! is `DTYPE_UNFORCED`, marked with `UseEcn` as `UNFORCED_MARK`). Both
//! default gentle on (ns-2's `ns-default.tcl` `Queue/RED set gentle_ true`
//! since 2001; ns-3's `Gentle` attribute true). Off by default here
//! [choice]: Floyd & Jacobson 1993 have no gentle mode, and our
//! reproductions follow them; with it off the arithmetic and the draws are
//! exactly those of plain RED.

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Bound, Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::{PortId, Unit};
use crate::rng::{stream, Stream};
use crate::time::{Serializer, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// RED's parameters, in packets (FJ93's defaults: 5, 15, 1/50, 0.002),
/// whether early drops of ECN-capable packets become marks, and whether
/// the drop probability above `max_th` is gentle (Floyd 2000).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub ecn: bool,
    pub gentle: bool,
}

const fn real(name: &'static str, lo: Bound, hi: Bound, default: &'static str, about: &'static str) -> Key {
    Key { name, kind: KeyKind::Real { lo, hi }, default: KeyDefault::Value(default), about }
}

const RED_ECN: &[&str] = &["router.policy=red", "switch.buffer=60packets", "router.red.ecn=true", "tcp.ecn=true"];

impl Policy for Red {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "red",
        selected_by: "router.policy",
        networks: Networks::Packet,
        about: "RED (Floyd & Jacobson 1993): early random drops from the average queue; with ECN, CE marks (RFC 3168 §7)",
        docs: "packet.md",
        keys: &[
            real("router.red.min_th", Bound::Open(0.0), Bound::None, "5.0", "lower threshold of the average queue, packets (below max_th and the buffer)"),
            real("router.red.max_th", Bound::Open(0.0), Bound::None, "15.0", "upper threshold of the average queue, packets"),
            real("router.red.max_p", Bound::Open(0.0), Bound::Closed(1.0), "0.02", "drop probability at max_th"),
            real("router.red.w_q", Bound::Open(0.0), Bound::Closed(1.0), "0.002", "weight of the queue's moving average"),
            Key {
                name: "router.red.ecn",
                kind: KeyKind::Bool,
                default: KeyDefault::Value("false"),
                about: "mark instead of drop: an early drop of an ECN-capable packet sets CE (RFC 3168 §7; ns-2's setbit_)",
            },
            Key {
                name: "router.red.gentle",
                kind: KeyKind::Bool,
                default: KeyDefault::Value("false"),
                about: "gentle RED (Floyd 2000): early drops up to 2·max_th, forced drops only above",
            },
        ],
        counters: &["red", "tail", "red_forced_drops", "units_marked"],
        goldens: &[
            // Floyd & Jacobson's defaults on a buffer large enough that early drops dominate.
            Golden { scenario: "aron97-topo1-packet", variation: "red", overrides: &["router.policy=red", "switch.buffer=60packets"] },
            // With ECN (RFC 3168) and ECN TCP on the same buffer: early drops become CE marks.
            Golden { scenario: "aron97-topo1-packet", variation: "red-ecn", overrides: RED_ECN },
            // Gentle RED (Floyd 2000) with ECN: early drops, marked, up to 2·max_th.
            Golden {
                scenario: "aron97-topo1-packet",
                variation: "red-ecn-gentle",
                overrides: &["router.policy=red", "switch.buffer=60packets", "router.red.ecn=true", "tcp.ecn=true", "router.red.gentle=true"],
            },
        ],
    }];
    type Spec = RedConfig;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<RedConfig, KeyError> {
        let p = cx.params;
        let cfg = RedConfig {
            min_th: p.real("router.red.min_th", 5.0),
            max_th: p.real("router.red.max_th", 15.0),
            max_p: p.real("router.red.max_p", 0.02),
            w_q: p.real("router.red.w_q", 0.002),
            ecn: p.bool("router.red.ecn", false),
            gentle: p.bool("router.red.gentle", false),
        };
        if cfg.min_th >= cfg.max_th {
            return Err(KeyError::new("router.red.min_th", "need 0 < min_th < max_th"));
        }
        // The average queue never passes the buffer: a min_th at or above it
        // would leave RED a drop-tail queue (issue 38, rule 2). A max_th past
        // it is a slope, and taken.
        if cfg.min_th >= cx.units as f64 {
            let problem = format!("{} packets is not below the buffer ({} packets): the average queue never reaches it, so RED would never act", cfg.min_th, cx.units);
            return Err(KeyError::new("router.red.min_th", problem));
        }
        Ok(cfg)
    }
    fn build(cfg: RedConfig, units: u64, cx: &PortContext) -> Self {
        Red::new(cfg, units, cx.packet_time, cx.seed, cx.port)
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action {
        Red::admit(self, q, now, if q == 0 { line.free_at() } else { now }, unit.is_ecn_capable())
    }
    fn limit(&self) -> u64 {
        self.limit
    }
    fn may_mark(&self) -> bool {
        self.marks()
    }
    /// With ECN, its forced drops, reported beside its marks.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        if self.marks() {
            vec![("red_forced_drops", self.forced_drops)]
        } else {
            Vec::new()
        }
    }
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
    /// Drops at or above `max_th` (`2·max_th` when gentle): RED's forced
    /// drops, not the buffer's.
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
        let (max_th, gentle) = (self.cfg.max_th, self.cfg.gentle);
        if self.avg >= max_th && !(gentle && self.avg < 2.0 * max_th) {
            self.count = 0;
            self.forced_drops += 1;
            return Action::Drop(DropReason::Red);
        }
        self.count += 1;
        let pb = if self.avg >= max_th {
            // The gentle region (Floyd 2000): max_p at max_th to 1 at 2·max_th.
            self.cfg.max_p + (1.0 - self.cfg.max_p) * (self.avg - max_th) / max_th
        } else {
            self.cfg.max_p * (self.avg - self.cfg.min_th) / (max_th - self.cfg.min_th)
        };
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if self.rng.gen::<f64>() < pa {
            self.count = 0;
            // RFC 3168 §7: mark rather than drop an ECN-capable packet; in
            // the gentle region too, as ns-2 and ns-3 do (module comment).
            return if self.cfg.ecn && ect { Action::Mark } else { Action::Drop(DropReason::Red) };
        }
        Action::Admit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: RedConfig = RedConfig { min_th: 5.0, max_th: 15.0, max_p: 0.02, w_q: 0.002, ecn: false, gentle: false };
    const GENTLE: RedConfig = RedConfig { gentle: true, ..CFG };

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

    /// Runs `cfg` without and with ECN side by side at average `avg` (queue
    /// `avg` at each arrival) and checks that they draw alike: where the
    /// first drops early, the second marks an ECT packet and drops a non-ECT
    /// one (every third arrival). Returns the early drops; neither forces.
    fn marks_where_plain_drops(cfg: RedConfig, avg: u64, seed: u64, n: usize) -> usize {
        let ecn = RedConfig { ecn: true, ..cfg };
        let (mut plain, mut marking) = (Red::new(cfg, 100, 10, seed, PortId(2)), Red::new(ecn, 100, 10, seed, PortId(2)));
        (plain.avg, marking.avg) = (avg as f64, avg as f64);
        let mut early = 0;
        for i in 0..n {
            let ect = i % 3 != 0;
            let (p, m) = (plain.admit(avg, 0, 0, false), marking.admit(avg, 0, 0, ect));
            match p {
                Action::Drop(DropReason::Red) => {
                    early += 1;
                    assert_eq!(m, if ect { Action::Mark } else { Action::Drop(DropReason::Red) }, "arrival {i}");
                }
                _ => assert_eq!(m, Action::Admit, "arrival {i}"),
            }
        }
        assert_eq!((plain.forced_drops, marking.forced_drops), (0, 0));
        early
    }

    #[test]
    fn with_ecn_an_early_drop_marks_an_ect_packet_and_drops_the_others() {
        let early = marks_where_plain_drops(CFG, 10, 3, 5000);
        assert!(early > 50, "{early}");
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

    #[test]
    fn gentle_is_plain_red_below_max_th_draw_for_draw() {
        // Below max_th the gentle flag changes nothing: the same decisions,
        // from the same draws, and the same average.
        let (mut plain, mut gentle) = (Red::new(CFG, 100, 10, 3, PortId(2)), Red::new(GENTLE, 100, 10, 3, PortId(2)));
        (plain.avg, gentle.avg) = (10.0, 10.0);
        for i in 0..5000 {
            assert_eq!(plain.admit(10, 0, 0, false), gentle.admit(10, 0, 0, false), "arrival {i}");
        }
        assert_eq!(plain.avg.to_bits(), gentle.avg.to_bits());
        // Above max_th plain RED forces every drop; gentle RED does not.
        (plain.avg, gentle.avg) = (18.0, 18.0);
        assert_eq!(plain.admit(18, 0, 0, false), Action::Drop(DropReason::Red));
        assert_eq!((plain.forced_drops, gentle.forced_drops), (1, 0));
    }

    #[test]
    fn gentle_region_drops_early_with_the_count_correction() {
        // At 1.2·max_th (avg 18): pb = 0.02 + 0.98·3/15 = 0.216, and
        // pa = pb / (1 - count·pb) after count arrivals since the last drop:
        // 0.2755, 0.3803, 0.6136, then 1 at the fourth. Expected arrivals per
        // drop 1 + 0.7245 + 0.4492 + 0.1736 = 2.347: about 2130 in 5000.
        let mut r = Red::new(GENTLE, 100, 10, 3, PortId(2));
        r.avg = 18.0;
        let mut since = 0;
        let mut drops = 0;
        for _ in 0..5000 {
            since += 1;
            if r.admit(18, 0, 0, false) == Action::Drop(DropReason::Red) {
                assert!(since <= 4, "the count forces a drop by the fourth arrival");
                (drops, since) = (drops + 1, 0);
            }
        }
        assert!((1950..2320).contains(&drops), "{drops}");
        assert_eq!(r.forced_drops, 0, "early drops, not forced ones");
        // At 1.5·max_th (avg 22.5): pb = 0.02 + 0.98·0.5 = 0.51, and after a
        // drop the first arrival has count 1, pa = 0.51 / 0.49 > 1: FJ93's
        // count correction (ns-2 with wait_ false) drops every arrival there,
        // still early. Arrivals of 23 keep the average in (22.5, 23).
        r.avg = 22.5;
        for i in 0..200 {
            assert_eq!(r.admit(23, 0, 0, false), Action::Drop(DropReason::Red), "arrival {i}");
        }
        assert_eq!(r.forced_drops, 0);
    }

    #[test]
    fn gentle_forces_drops_from_twice_max_th() {
        let mut r = Red::new(RedConfig { ecn: true, ..GENTLE }, 100, 10, 1, PortId(0));
        r.avg = 29.9;
        // Just below 2·max_th, pb = 0.9935: an early drop, so an ECT packet is marked.
        assert_eq!(r.admit(30, 0, 0, true), Action::Mark);
        assert_eq!(r.forced_drops, 0);
        r.avg = 30.0;
        assert_eq!(r.admit(30, 0, 0, true), Action::Drop(DropReason::Red), "avg >= 2·max_th: forced, even with ECN");
        assert_eq!(r.admit(30, 0, 0, false), Action::Drop(DropReason::Red));
        assert_eq!(r.forced_drops, 2);
        r.avg = 20.0;
        assert_eq!(r.admit(100, 0, 0, true), Action::Drop(DropReason::Tail), "a full buffer");
    }

    #[test]
    fn with_ecn_the_gentle_region_marks_what_gentle_red_drops() {
        // At 1.2·max_th about 43 % of arrivals are dropped early (above).
        let early = marks_where_plain_drops(GENTLE, 18, 5, 2000);
        assert!(early > 500, "{early}");
    }
}
