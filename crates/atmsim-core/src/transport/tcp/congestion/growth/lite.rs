//! BSD slow start and congestion avoidance (Jacobson 1988, as coded in
//! 4.4BSD-Lite `tcp_input.c`; RFC 5681 §3.1), optionally with Brakmo &
//! Peterson's 1995 fix (the "Lite.4" of Aron & Druschel).

use super::WindowGrowth;
use crate::transport::tcp::congestion::{AckCtx, Window};

#[derive(Clone, Debug)]
pub struct Lite {
    /// Brakmo & Peterson 1995: congestion avoidance adds MSS²/cwnd per ACK;
    /// without it, 4.4BSD-Lite's MSS²/cwnd + MSS/8, whose extra term grows
    /// the window faster than one segment per RTT.
    bp95: bool,
}

impl Lite {
    pub fn new(bp95: bool) -> Self {
        Lite { bp95 }
    }

    pub fn bp95(&self) -> bool {
        self.bp95
    }
}

impl WindowGrowth for Lite {
    /// One MSS per ACK while cwnd ≤ ssthresh (BSD tests `cw > ssthresh` for
    /// avoidance, so cwnd == ssthresh still slow-starts), else MSS²/cwnd in
    /// integer bytes; never beyond `TCP_MAXWIN << snd_scale`.
    fn on_ack(&mut self, w: &mut Window, _c: &AckCtx) {
        let incr = if w.cwnd <= w.ssthresh {
            w.mss
        } else {
            let ca = w.mss * w.mss / w.cwnd;
            if self.bp95 {
                ca
            } else {
                ca + w.mss / 8
            }
        };
        w.cwnd = (w.cwnd + incr).min(w.max_cwnd);
    }

    /// One segment (`tcp_timers`, Jacobson 1988).
    fn restart_window(&self, mss: u64) -> u64 {
        mss
    }

    /// Vegas-RM with Lite's growth (Aron & Druschel §5): the paper does not
    /// say where Lite's avoidance resumes after Vegas's 3/4 decrease; our
    /// choice is from the reduced window, so ssthresh = the new window.
    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
        w.ssthresh = newcwnd;
    }

    /// The recoveries set ssthresh themselves; nothing to add.
    fn on_recovery_exit(&mut self, _w: &mut Window) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(g: &mut Lite, w: &mut Window) {
        g.on_ack(w, &AckCtx::default());
    }

    #[test]
    fn slow_start_then_congestion_avoidance_increments() {
        let mut g = Lite::new(false);
        let mut w = Window::new(MSS, 1, 1 << 30);
        w.ssthresh = 2 * MSS;
        ack(&mut g, &mut w);
        assert_eq!(w.cwnd, 2 * MSS);
        // cwnd == ssthresh is still slow start (BSD: `cw > ssthresh` for CA).
        ack(&mut g, &mut w);
        assert_eq!(w.cwnd, 3 * MSS);
        ack(&mut g, &mut w);
        // Original Lite: MSS²/cwnd + MSS/8.
        assert_eq!(w.cwnd, 3 * MSS + MSS / 3 + MSS / 8);
    }

    #[test]
    fn bp95_congestion_avoidance_has_no_eighth_segment() {
        let mut g = Lite::new(true);
        let mut w = Window::new(MSS, 3, 1 << 30);
        w.ssthresh = 2 * MSS;
        ack(&mut g, &mut w);
        assert_eq!(w.cwnd, 3 * MSS + MSS * MSS / (3 * MSS));
        // Integer bytes: MSS² / cwnd, truncated, from the current cwnd.
        ack(&mut g, &mut w);
        assert_eq!(w.cwnd, 3333 + 1_000_000 / 3333);
    }

    #[test]
    fn window_limit_caps_cwnd() {
        let mut g = Lite::new(true);
        let mut w = Window::new(MSS, 1, 3 * MSS);
        for _ in 0..10 {
            ack(&mut g, &mut w);
        }
        assert_eq!(w.cwnd, 3 * MSS);
    }

    #[test]
    fn restarts_from_one_segment() {
        assert_eq!(Lite::new(true).restart_window(MSS), MSS);
        assert_eq!(Lite::new(false).restart_window(MSS), MSS);
    }

    #[test]
    fn a_cut_window_becomes_ssthresh_and_recovery_exit_keeps_it() {
        let mut g = Lite::new(true);
        let mut w = Window::new(MSS, 20, 1 << 30);
        g.on_window_cut(&mut w, 15 * MSS);
        assert_eq!(w.ssthresh, 15 * MSS);
        g.on_recovery_exit(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, 15 * MSS));
    }
}
