//! CUBIC (RFC 9438): in congestion avoidance the window follows the cubic
//! W_cubic(t) = C·(t − K)³ + W_max of the time t since the epoch began,
//! with C = 0.4 segments/s³ and K the time the curve takes to climb back
//! from cwnd_epoch to W_max; below the Reno-friendly estimate W_est it
//! follows W_est instead. Every loss response (fast retransmit, ECN echo,
//! timeout) takes β_cubic = 0.7 of the window, not ½ ([`Cubic::decrease`]),
//! whichever loss recovery (NewReno, SACK) runs underneath.
//!
//! Windows are bytes, as in the rest of the TCP; the RFC's segments are MSS.
//! Deterministic on any machine: K is an integer cube root (no libm `cbrt`,
//! whose last bit differs between C libraries), the rest IEEE arithmetic.

use super::{Growth, WindowGrowth};
use crate::base::mechanism::Golden;
use crate::time::{Time, PS_PER_S};
use crate::transport::tcp::congestion::recovery::{newreno::NewReno, sack::Sack, Recovery};
use crate::transport::tcp::congestion::{EcnUse, declare, topology1, AckCtx, Congestion, TcpVariant, Window};

/// C (segments/s³), RFC 9438 §4.1.
pub const C: f64 = 0.4;
/// β_cubic as a fraction, RFC 9438 §4.1.
pub const BETA: (u64, u64) = (7, 10);
/// α_cubic = 3(1 − β)/(1 + β) = 9/17 (RFC 9438 §4.3): W_est's growth per
/// RTT while it is below W_max, so that CUBIC and Reno get equal shares.
pub const ALPHA_RENO_FRIENDLY: f64 = 9.0 / 17.0;
/// Initial window (segments): RFC 6928's 10, as Linux and ns-3 since 2019.
pub const INITIAL_WINDOW: u32 = 10;

/// One congestion-avoidance stage (RFC 9438 §4.2): from the first ACK in
/// congestion avoidance after a congestion event (or after slow start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    /// t_epoch.
    pub start: Time,
    /// cwnd_epoch (bytes).
    pub cwnd_epoch: u64,
    /// K (ps).
    pub k: Time,
    /// W_est (bytes), the Reno-friendly estimate (§4.3).
    pub w_est: f64,
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// W_max (bytes): the window just before the last reduction, less after
    /// fast convergence (§4.7); 0 before the first congestion event.
    pub w_max: f64,
    /// cwnd_prior (bytes): the window just before the last reduction, which
    /// W_est must reach before it grows one segment a window (§4.3); 0
    /// before the first congestion event.
    pub cwnd_prior: f64,
    /// The current congestion-avoidance stage, once begun.
    pub epoch: Option<Epoch>,
    /// The last reduction was a timeout: the next stage starts at its own
    /// window, K = 0 and W_max = cwnd_epoch (§4.8).
    after_timeout: bool,
    /// Smoothed RTT (ps) of the exact samples (RFC 6298's gain ⅛), the RTT
    /// W_cubic looks ahead by (§4.2, "W_cubic(t + RTT)"); 0 before one.
    pub srtt: Time,
    /// Bytes of growth not yet whole (the window is integer bytes).
    carry: f64,
}

impl Cubic {
    /// W_cubic(t) in bytes, t since the epoch began (ps).
    pub fn w_cubic(&self, e: &Epoch, mss: u64, t: Time) -> f64 {
        let d = (t as f64 - e.k as f64) / PS_PER_S as f64;
        C * mss as f64 * d * d * d + self.w_max
    }

    fn begin_epoch(&mut self, now: Time, cwnd: u64, mss: u64) -> Epoch {
        let w_max = self.w_max.floor() as u64;
        // After a timeout (§4.8), or with W_max not above the window (no
        // loss yet: slow start ended at ssthresh): the curve starts at its
        // inflection, as Linux's `bictcp_update` does.
        let k = if self.after_timeout || w_max <= cwnd {
            self.w_max = cwnd as f64;
            0
        } else {
            k_of(w_max - cwnd, mss)
        };
        self.after_timeout = false;
        Epoch { start: now, cwnd_epoch: cwnd, k, w_est: cwnd as f64 }
    }
}

/// K = ∛((W_max − cwnd_epoch)/C) (§4.2, eq. 2) in ps, from the deficit in
/// bytes: the integer cube root of the deficit in ns³ (C·MSS bytes/s³),
/// exact whatever the machine.
pub fn k_of(deficit: u64, mss: u64) -> Time {
    // ns³ = deficit / (0.4 · mss) · 10^27 = deficit · 25 · 10^26 / mss;
    // below 2^128 for any window up to TCP_MAXWIN << 14 (2^30 bytes).
    let ns3 = deficit as u128 * 25 * 10u128.pow(26) / mss as u128;
    icbrt(ns3) as Time * 1_000
}

/// ⌊∛x⌋ by bisection.
fn icbrt(x: u128) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << 43); // (2^43)³ > 2^128
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if mid.checked_mul(mid).and_then(|m| m.checked_mul(mid)).is_some_and(|c| c <= x) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl WindowGrowth for Cubic {
    const VARIANTS: &'static [TcpVariant] = &[
        TcpVariant {
            mechanism: declare(
                "cubic",
                "CUBIC window growth (RFC 9438: C = 0.4, β = 0.7, the Reno-friendly region, fast convergence) with NewReno recovery (RFC 6582); 10 segments initially",
                &[
                    topology1("cubic", &["tcp.variant=cubic"]),
                    Golden { scenario: "aron97-topo1-packet", variation: "cubic", overrides: &["tcp.variant=cubic"] },
                ],
            ),
            growth: |_| Growth::Cubic(Cubic::default()),
            recovery: || Recovery::NewReno(NewReno::default()),
            afr: false,
            initial_window: INITIAL_WINDOW,
            sack_option: false,
            ecn: EcnUse::Optional,
        },
        TcpVariant {
            mechanism: declare(
                "cubic-sack",
                "CUBIC window growth (RFC 9438) with SACK loss recovery (RFC 2018, RFC 6675), as Linux runs it; 10 segments initially",
                &[Golden { scenario: "aron97-topo1-packet", variation: "cubic-sack", overrides: &["tcp.variant=cubic-sack"] }],
            ),
            growth: |_| Growth::Cubic(Cubic::default()),
            recovery: || Recovery::Sack(Sack::default()),
            afr: false,
            initial_window: INITIAL_WINDOW,
            sack_option: true,
            ecn: EcnUse::Optional,
        },
    ];

    /// Slow start below ssthresh (RFC 9438 §4.10, RFC 5681: one MSS per
    /// ACK); above it the window moves towards W_cubic(t + RTT), or follows
    /// W_est where that is larger (§4.2–§4.5).
    fn on_ack(&mut self, w: &mut Window, c: &AckCtx) {
        if let Some(rtt) = c.rtt_sample {
            self.srtt = if self.srtt == 0 { rtt } else { self.srtt - self.srtt / 8 + rtt / 8 };
        }
        if w.cwnd < w.ssthresh {
            w.cwnd = (w.cwnd + w.mss).min(w.max_cwnd);
            return;
        }
        let e = match self.epoch {
            Some(e) => e,
            None => self.begin_epoch(c.now, w.cwnd, w.mss),
        };
        let t = c.now - e.start;
        let cwnd = w.cwnd as f64;
        // §4.3: W_est grows α_cubic segments per window of ACKed data, 1
        // once it has reached cwnd_prior (the window before the last cut, not
        // W_max, which fast convergence lowers: the rule of RFC 9438 as
        // published, where drafts of rfc8312bis said W_max).
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { ALPHA_RENO_FRIENDLY };
        let w_est = e.w_est + alpha * w.mss as f64 * c.acked as f64 / cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        let grown = if self.w_cubic(&e, w.mss, t) < w_est {
            // Reno-friendly region: cwnd = W_est.
            w_est.max(cwnd) - cwnd
        } else {
            // Concave and convex regions (§4.4, §4.5): (target − cwnd)/cwnd
            // segments per ACK, target = W_cubic(t + RTT) within [cwnd, 1.5·cwnd].
            let target = self.w_cubic(&e, w.mss, t + self.srtt).clamp(cwnd, 1.5 * cwnd);
            (target - cwnd) * w.mss as f64 / cwnd
        };
        let total = self.carry + grown;
        let whole = total.floor();
        self.carry = total - whole;
        w.cwnd = (w.cwnd + whole as u64).min(w.max_cwnd);
    }

    /// One segment (RFC 9438 §4.8 follows RFC 5681 here).
    fn restart_window(&self, mss: u64) -> u64 {
        mss
    }

    /// A recovery that cuts the window itself (none of CUBIC's variants):
    /// avoidance resumes from the cut window, as for Lite.
    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
        w.ssthresh = newcwnd;
    }

    /// The recovery deflated to ssthresh; the next ACK in congestion
    /// avoidance begins the epoch.
    fn on_recovery_exit(&mut self, _w: &mut Window) {}

    fn decrease(&self) -> (u64, u64) {
        BETA
    }

    /// A congestion event (§4.6, §4.7, §4.8): W_max is the window before
    /// the reduction, or (1 + β)/2 of it when that is below the last W_max
    /// (fast convergence: a flow losing ground releases bandwidth); the
    /// epoch ends.
    fn on_congestion(&mut self, _w: &mut Window, cwnd_before: u64, why: Congestion) {
        let before = cwnd_before as f64;
        self.cwnd_prior = before;
        self.w_max = if before < self.w_max { before * (BETA.0 + BETA.1) as f64 / (2 * BETA.1) as f64 } else { before };
        self.epoch = None;
        self.carry = 0.0;
        self.after_timeout = why == Congestion::Timeout;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;
    use crate::transport::tcp::congestion::{variant, CongestionControl, DupAckAction};

    const MSS: u64 = 1000;

    #[test]
    fn the_integer_cube_root_is_exact() {
        for r in [0u128, 1, 2, 7, 1000, 123_456, (1 << 42) + 5] {
            assert_eq!(icbrt(r * r * r), r);
            if r > 0 {
                assert_eq!(icbrt(r * r * r - 1), r - 1);
            }
        }
        assert_eq!(icbrt(u128::MAX), 6_981_463_658_331);
    }

    #[test]
    fn k_is_the_cube_root_of_the_deficit_over_c() {
        // 30 segments short of W_max: K = ∛(30 / 0.4) = ∛75 s = 4.217163 s (RFC 9438 eq. 2).
        let k = k_of(30 * MSS, MSS);
        assert!((k as f64 / 1e12 - 75f64.powf(1.0 / 3.0)).abs() < 1e-9, "{k}");
        assert_eq!(k_of(0, MSS), 0);
    }

    /// ACKs of one window per round trip of `rtt`, each covering one segment
    /// with an exact RTT sample, from `t0` for `rounds` rounds; after each
    /// round (time, cwnd, W_est).
    fn ack_clock(cc: &mut CongestionControl, t0: Time, rtt: Time, rounds: u32) -> Vec<(Time, u64, f64)> {
        let mut out = vec![];
        let (mut t, mut una) = (t0, 0u64);
        for _ in 0..rounds {
            let n = cc.cwnd() / MSS;
            for i in 0..n {
                una += MSS;
                let c = AckCtx { now: t + rtt * i / n, snd_una: una, snd_nxt: una, snd_max: una, snd_wnd: 1 << 40, acked: MSS, rtt_sample: Some(rtt), ..Default::default() };
                cc.on_new_ack(&c);
            }
            t += rtt;
            let Growth::Cubic(g) = cc.growth() else { unreachable!() };
            out.push((t, cc.cwnd(), g.epoch.map_or(0.0, |e| e.w_est)));
        }
        out
    }

    fn cubic() -> CongestionControl {
        CongestionControl::new(variant("cubic").unwrap(), MSS, 10, 1 << 40, false, None)
    }

    /// A loss at 100 segments: ssthresh = cwnd = 70, W_max = 100; then the
    /// window follows max(W_cubic(t), W_est(t)) to within one segment at
    /// every round through the whole loss-free epoch, concave to W_max, the
    /// plateau, convex beyond.
    #[test]
    fn a_loss_free_epoch_follows_the_cubic_to_the_packet() {
        let mut cc = cubic();
        let rtt = 100 * PS_PER_MS;
        let mut w = cc.window().clone();
        w.cwnd = 100 * MSS;
        w.ssthresh = 100 * MSS;
        cc = CongestionControl::with_parts(w, cc.growth().clone(), cc.recovery().clone(), None);
        for _ in 0..3 {
            cc.on_dup_ack(&AckCtx { snd_una: MSS, snd_nxt: 101 * MSS, snd_max: 101 * MSS, snd_wnd: 1 << 40, ..Default::default() });
        }
        assert_eq!(cc.ssthresh(), 70 * MSS, "β_cubic = 0.7 of the flight");
        let Growth::Cubic(g) = cc.growth() else { unreachable!() };
        assert_eq!(g.w_max, 100_000.0);
        // The recovery over (the window deflated to ssthresh), CUBIC's state as the loss left it.
        let mut w = cc.window().clone();
        w.cwnd = 70 * MSS;
        cc = CongestionControl::with_parts(w, cc.growth().clone(), Recovery::NewReno(NewReno::default()), None);
        let k = 75f64.powf(1.0 / 3.0); // s
        let t0 = 0;
        let mut regions = [0u32; 2];
        for (t, cwnd, _) in ack_clock(&mut cc, t0, rtt, 120) {
            let ts = (t - t0) as f64 / 1e12;
            let cubic_seg = 0.4 * (ts - k).powi(3) + 100.0;
            // W_est's closed form: 70 + α·rounds until it reaches W_max = 100, then one segment a round.
            let (rounds, to_w_max) = (ts / 0.1, 30.0 / ALPHA_RENO_FRIENDLY);
            let est_seg = if rounds < to_w_max { 70.0 + ALPHA_RENO_FRIENDLY * rounds } else { 100.0 + rounds - to_w_max };
            let expect = cubic_seg.max(est_seg);
            regions[(est_seg > cubic_seg) as usize] += 1;
            assert!((cwnd as f64 / MSS as f64 - expect).abs() <= 1.0, "t = {ts:.1} s: cwnd {} segments, closed form {expect:.2}", cwnd as f64 / MSS as f64);
        }
        // Concave to W_max (0-4.2 s), W_est above the plateau (5.6-8 s), convex beyond (8-12 s).
        assert!(regions[0] > 60 && regions[1] > 20, "both regions visited: {regions:?}");
    }

    #[test]
    fn fast_convergence_releases_bandwidth_on_a_second_loss_below_w_max() {
        let mut g = Cubic::default();
        let mut w = Window::new(MSS, 10, 1 << 40);
        g.on_congestion(&mut w, 100 * MSS, Congestion::Loss);
        assert_eq!(g.w_max, 100_000.0);
        g.on_congestion(&mut w, 80 * MSS, Congestion::Loss);
        assert_eq!(g.w_max, 68_000.0, "80 × (1 + 0.7)/2");
        g.on_congestion(&mut w, 90 * MSS, Congestion::Echo);
        assert_eq!(g.w_max, 90_000.0, "above W_max: the window itself");
    }

    #[test]
    fn w_est_grows_at_alpha_until_cwnd_prior_not_w_max() {
        // After fast convergence W_max (68) is below cwnd_prior (80): between them W_est
        // still grows α_cubic = 9/17 segment a window (RFC 9438 §4.3), and 1 beyond.
        let mut g = Cubic::default();
        let mut w = Window::new(MSS, 10, 1 << 40);
        g.on_congestion(&mut w, 100 * MSS, Congestion::Loss);
        g.on_congestion(&mut w, 80 * MSS, Congestion::Loss);
        assert_eq!((g.w_max, g.cwnd_prior), (68_000.0, 80_000.0));
        w.cwnd = 70 * MSS;
        w.ssthresh = 56 * MSS;
        let ack = |g: &mut Cubic, w: &mut Window| {
            let before = g.epoch.map(|e| e.w_est);
            g.on_ack(w, &AckCtx { now: 1, acked: w.cwnd, ..Default::default() });
            g.epoch.unwrap().w_est - before.unwrap_or(g.epoch.unwrap().w_est)
        };
        ack(&mut g, &mut w); // begins the epoch
        g.epoch.as_mut().unwrap().w_est = 75_000.0;
        assert!((ack(&mut g, &mut w) - ALPHA_RENO_FRIENDLY * MSS as f64).abs() < 1e-6, "above W_max, below cwnd_prior");
        g.epoch.as_mut().unwrap().w_est = 80_000.0;
        assert!((ack(&mut g, &mut w) - MSS as f64).abs() < 1e-6, "at cwnd_prior");
    }

    #[test]
    fn a_timeout_takes_beta_and_the_next_epoch_starts_at_its_own_window() {
        let mut cc = cubic();
        let c = AckCtx { snd_una: 0, snd_nxt: 10 * MSS, snd_max: 10 * MSS, snd_wnd: 1 << 40, ..Default::default() };
        cc.on_timeout(&c);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 7 * MSS), "one segment; ssthresh 0.7 × 10 (RFC 9438 §4.8)");
        for i in 1..=6 {
            cc.on_new_ack(&AckCtx { now: i, snd_una: i * MSS, snd_nxt: 10 * MSS, snd_max: 10 * MSS, snd_wnd: 1 << 40, acked: MSS, ..Default::default() });
        }
        assert_eq!(cc.cwnd(), 7 * MSS, "slow start to ssthresh");
        cc.on_new_ack(&AckCtx { now: 7, snd_una: 7 * MSS, snd_nxt: 10 * MSS, snd_max: 10 * MSS, snd_wnd: 1 << 40, acked: MSS, ..Default::default() });
        let Growth::Cubic(g) = cc.growth() else { unreachable!() };
        let e = g.epoch.unwrap();
        assert_eq!((e.k, e.cwnd_epoch, g.w_max), (0, 7 * MSS, 7_000.0), "K = 0, W_max = cwnd_epoch");
    }

    #[test]
    fn an_ecn_echo_takes_beta_of_the_window() {
        let mut cc = cubic();
        let c = AckCtx { snd_una: 0, snd_nxt: 10 * MSS, snd_max: 10 * MSS, snd_wnd: 1 << 40, ..Default::default() };
        cc.on_ecn_echo(&c);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (7 * MSS, 7 * MSS));
    }

    #[test]
    fn the_variants_start_with_ten_segments_and_sack_asks_for_blocks() {
        let (plain, sack) = (variant("cubic").unwrap(), variant("cubic-sack").unwrap());
        assert_eq!((plain.initial_window, sack.initial_window), (10, 10));
        assert!(!plain.sack_option && sack.sack_option);
        let cc = CongestionControl::new(sack, MSS, 10, 1 << 40, false, None);
        assert!(cc.sack().is_some() && cc.window().decrease == BETA);
        let mut dup = cubic();
        let actions: Vec<_> = (0..3)
            .map(|_| dup.on_dup_ack(&AckCtx { snd_una: MSS, snd_nxt: 11 * MSS, snd_max: 11 * MSS, snd_wnd: 1 << 40, ..Default::default() }))
            .collect();
        assert!(matches!(actions[2], DupAckAction::FastRetransmit { .. }) && actions[..2] == [DupAckAction::Nothing; 2]);
        assert_eq!(dup.ssthresh(), 7 * MSS, "0.7 × a flight of 10");
    }
}
