//! DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010; RFC 8257): a
//! Reno window that reacts to the *extent* of congestion. The sender
//! estimates α, the fraction of its bytes that met a queue above the
//! switches' marking threshold K, once per window of data (RFC 8257 §3.3):
//!
//!   α ← (1 − g)·α + g·M,   M = bytes acknowledged with ECE / bytes acknowledged
//!
//! with g = 1/16 and α = 1 at the start (§3.3, "conservative"); and on an
//! ECN echo, at most once per window (RFC 3168's rule, kept in `ecn.rs`),
//! it sets ssthresh = cwnd·(1 − α/2) (§3.4) where RFC 3168 would halve.
//! A loss still halves the window, as standard TCP (§3.5), and so does a
//! timeout. Growth is Reno's (RFC 5681: one MSS per ACK in slow start,
//! MSS²/cwnd in congestion avoidance), with 10 segments initially as Linux
//! and ns-3.
//!
//! The receiver's half of DCTCP, the echo of every CE state change even with
//! delayed ACKs (§3.2), is `ecn.rs`'s [`EcnUse::Dctcp`]; the switches' half,
//! marking on the instantaneous queue, is `router.policy = "dctcp"`
//! (`net/drop/dctcp_mark.rs`).
//!
//! α is kept in fixed point, a fraction of [`ALPHA_ONE`], updated with exact
//! integer arithmetic (floor), so runs are identical on any machine.

use super::lite::Lite;
use super::{Growth, WindowGrowth};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::transport::tcp::congestion::recovery::{newreno::NewReno, sack::Sack, Recovery};
use crate::transport::tcp::congestion::{declare, AckCtx, EcnUse, TcpVariant, Window};

/// α = 1 in fixed point (2^20: finer than Linux's 2^10, so that α of a
/// single marked segment in a window of 1,000 is not lost to rounding).
pub const ALPHA_ONE: u64 = 1 << 20;
/// g, the estimator's gain, as a fraction: RFC 8257 §3.3 ("SHOULD be 1/16"),
/// Alizadeh et al. §3.4.
pub const GAIN: (u64, u64) = (1, 16);
/// Initial window (segments): RFC 6928's 10, as Linux and ns-3.
pub const INITIAL_WINDOW: u32 = 10;

const DCTCP_SWITCHES: &[&str] =
    &["tcp.variant=dctcp", "network=packet", "switch.buffer=60packets", "router.policy=dctcp", "router.dctcp.k=15"];

/// DCTCP needs routers' CE marks (RFC 3168 §5): packet networks only.
const fn packet_only(m: Mechanism) -> Mechanism {
    Mechanism { networks: Networks::Packet, ..m }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    /// Reno's slow start and congestion avoidance (Lite with Brakmo &
    /// Peterson's increment: MSS²/cwnd, RFC 5681 eq. 3).
    reno: Lite,
    /// α as a fraction of [`ALPHA_ONE`].
    pub alpha: u64,
    /// DCTCP.BytesAcked and DCTCP.BytesMarked of the current window.
    bytes_acked: u64,
    bytes_marked: u64,
    /// DCTCP.WindowEnd: α is updated when SND.UNA passes it.
    window_end: u64,
    /// α updates so far (windows observed).
    pub updates: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp { reno: Lite::new(true), alpha: ALPHA_ONE, bytes_acked: 0, bytes_marked: 0, window_end: 0, updates: 0 }
    }
}

impl Dctcp {
    /// α as a real number in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / ALPHA_ONE as f64
    }

    /// The α of the next window from this one's counts (§3.3 steps 5–6):
    /// α(1 − g) + g·marked/acked, exactly, rounded down.
    fn next_alpha(&self) -> u64 {
        let (num, den) = GAIN;
        let (acked, marked) = (self.bytes_acked as u128, self.bytes_marked as u128);
        let kept = self.alpha as u128 * (den - num) as u128 * acked;
        let new = num as u128 * marked * ALPHA_ONE as u128;
        ((kept + new) / (den as u128 * acked)) as u64
    }
}

impl WindowGrowth for Dctcp {
    const VARIANTS: &'static [TcpVariant] = &[
        TcpVariant {
            mechanism: packet_only(declare(
                "dctcp",
                "DCTCP (RFC 8257; Alizadeh et al. 2010): Reno growth, α from the fraction of ECN-marked bytes (g = 1/16), cwnd·(1 − α/2) once per window, with NewReno recovery; ECN always on, 10 segments initially",
                &[Golden { scenario: "aron97-topo1-packet", variation: "dctcp", overrides: DCTCP_SWITCHES }],
            )),
            growth: |_| Growth::Dctcp(Dctcp::default()),
            recovery: || Recovery::NewReno(NewReno::default()),
            afr: false,
            initial_window: INITIAL_WINDOW,
            sack_option: false,
            ecn: EcnUse::Dctcp,
        },
        TcpVariant {
            mechanism: packet_only(declare(
                "dctcp-sack",
                "DCTCP (RFC 8257) with SACK loss recovery (RFC 2018, RFC 6675), as Linux runs it",
                &[Golden {
                    scenario: "aron97-topo1-packet",
                    variation: "dctcp-sack",
                    overrides: &["tcp.variant=dctcp-sack", "switch.buffer=60packets", "router.policy=dctcp", "router.dctcp.k=15"],
                }],
            )),
            growth: |_| Growth::Dctcp(Dctcp::default()),
            recovery: || Recovery::Sack(Sack::default()),
            afr: false,
            initial_window: INITIAL_WINDOW,
            sack_option: true,
            ecn: EcnUse::Dctcp,
        },
    ];

    fn on_ack(&mut self, w: &mut Window, c: &AckCtx) {
        self.reno.on_ack(w, c);
    }

    /// One segment (RFC 5681 §3.1).
    fn restart_window(&self, mss: u64) -> u64 {
        mss
    }

    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
        self.reno.on_window_cut(w, newcwnd);
    }

    fn on_recovery_exit(&mut self, _w: &mut Window) {}

    /// RFC 8257 §3.3: count the ACK's bytes, marked or not; once SND.UNA
    /// passes the window's end, fold the window's fraction into α and start
    /// the next window at SND.NXT.
    fn on_ecn_ack(&mut self, acked: u64, marked: bool, snd_una: u64, snd_nxt: u64) {
        self.bytes_acked += acked;
        if marked {
            self.bytes_marked += acked;
        }
        if snd_una <= self.window_end || self.bytes_acked == 0 {
            return;
        }
        self.alpha = self.next_alpha();
        self.updates += 1;
        self.window_end = snd_nxt;
        (self.bytes_acked, self.bytes_marked) = (0, 0);
    }

    /// RFC 8257 §3.4: cwnd·(1 − α/2), at least 2 segments (as RFC 5681's
    /// ssthresh); the reduction rounded down, so it never exceeds α/2.
    fn echo_ssthresh(&self, w: &Window, _snd_wnd: u64) -> u64 {
        let cut = (w.cwnd as u128 * self.alpha as u128 / (2 * ALPHA_ONE as u128)) as u64;
        (w.cwnd - cut).max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A sender keeping `flight` segments in flight and acknowledging them
    /// one ACK per segment, every `marked_every`-th ACK marked (0: none).
    struct Acks {
        una: u64,
        flight: u64,
    }

    impl Acks {
        fn ack(&mut self, d: &mut Dctcp, count: u64, marked_every: u64) {
            for i in 0..count {
                self.una += MSS;
                let marked = marked_every != 0 && i % marked_every == 0;
                // SND.NXT as the ACK arrives: `flight` segments beyond the old SND.UNA.
                d.on_ecn_ack(MSS, marked, self.una, self.una - MSS + self.flight * MSS);
            }
        }
    }

    #[test]
    fn alpha_starts_at_one_and_decays_by_g_per_unmarked_window() {
        let mut d = Dctcp::default();
        let mut acks = Acks { una: 1, flight: 10 };
        assert_eq!(d.alpha, ALPHA_ONE);
        // The first ACK passes WindowEnd = 0: an update from its one segment,
        // and the next window ends 10 segments on.
        acks.ack(&mut d, 1, 0);
        assert_eq!((d.updates, d.alpha), (1, ALPHA_ONE * 15 / 16));
        acks.ack(&mut d, 9, 0);
        assert_eq!(d.updates, 1, "the window has not ended");
        acks.ack(&mut d, 1, 0);
        acks.ack(&mut d, 20, 0);
        assert_eq!(d.updates, 4, "once per window of data");
        // (15/16)^4 of 2^20, rounded down at each step.
        assert_eq!(d.alpha, ALPHA_ONE * 15 / 16 * 15 / 16 * 15 / 16 * 15 / 16);
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        // A constant quarter of the bytes marked: α → 0.25 geometrically,
        // to within the rounding (at most 1/2^20 a step, 16 in all).
        let tolerance = 16.0 / ALPHA_ONE as f64;
        let mut d = Dctcp::default();
        Acks { una: 1, flight: 8 }.ack(&mut d, 8 * 300, 4);
        assert!((d.alpha() - 0.25).abs() <= tolerance, "α = {}", d.alpha());
        let mut none = Dctcp::default();
        Acks { una: 1, flight: 8 }.ack(&mut none, 8 * 300, 0);
        assert!(none.alpha() < 1e-6, "α = {}", none.alpha());
        let mut all = Dctcp { alpha: 0, ..Dctcp::default() };
        Acks { una: 1, flight: 8 }.ack(&mut all, 8 * 300, 1);
        assert!(all.alpha() >= 1.0 - tolerance && all.alpha <= ALPHA_ONE, "α = {}", all.alpha());
    }

    #[test]
    fn the_echo_takes_alpha_over_two_of_the_window() {
        let mut w = Window::new(MSS, 40, 1 << 30);
        let mut d = Dctcp::default();
        assert_eq!(d.echo_ssthresh(&w, u64::MAX), 20 * MSS, "α = 1 halves");
        d.alpha = ALPHA_ONE / 4;
        assert_eq!(d.echo_ssthresh(&w, u64::MAX), 35 * MSS, "α = 1/4 takes 1/8");
        d.alpha = 0;
        assert_eq!(d.echo_ssthresh(&w, u64::MAX), 40 * MSS, "α = 0 takes nothing");
        w.cwnd = 3 * MSS;
        d.alpha = ALPHA_ONE;
        assert_eq!(d.echo_ssthresh(&w, u64::MAX), 2 * MSS, "at least two segments");
    }

    #[test]
    fn loss_still_halves_and_growth_is_renos() {
        let d = Dctcp::default();
        assert_eq!(d.decrease(), (1, 2));
        let mut w = Window::new(MSS, 10, 1 << 30);
        w.ssthresh = 10 * MSS;
        let mut d = Dctcp::default();
        d.on_ack(&mut w, &AckCtx::default());
        assert_eq!(w.cwnd, 11 * MSS, "slow start at cwnd = ssthresh, as BSD");
        d.on_ack(&mut w, &AckCtx::default());
        assert_eq!(w.cwnd, 11 * MSS + MSS * MSS / (11 * MSS), "MSS²/cwnd, no MSS/8");
    }

    #[test]
    fn variants_are_ecn_always_with_ten_segments() {
        for v in Dctcp::VARIANTS {
            assert_eq!((v.ecn, v.initial_window), (EcnUse::Dctcp, 10), "{}", v.name());
        }
    }
}
