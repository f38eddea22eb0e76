//! Congestion control: the window rules, apart from reliable delivery.
//!
//! The sender (`sender.rs`) owns sequence numbers, timers and the RTT
//! estimator; it tells the congestion controller what happened (a duplicate
//! ACK, a new ACK, a timeout) and carries out what the controller answers
//! (retransmit, send more). This is the narrow interface later variants
//! (Vegas, AFR, Boston, ARB) plug into.
//!
//! Variants (tcp.md §1.6, §1.8, §5):
//! - `Lite`: 4.4BSD-Lite fast retransmit and fast recovery. With the
//!   Brakmo–Peterson fixes (`bp95`, the paper's "Lite.4") congestion
//!   avoidance adds MSS²/cwnd per ACK; without them, MSS²/cwnd + MSS/8.
//! - `Tahoe`: fast retransmit with cwnd = 1 MSS, no fast recovery; the
//!   sender continues from the retransmitted segment (go-back-N, ns style).
//! - `NewReno`: RFC 6582 partial-ACK recovery (for comparison with other
//!   simulators).

/// The sender state the window rules read.
#[derive(Clone, Copy, Debug)]
pub struct Flight {
    pub snd_una: u64,
    pub snd_max: u64,
    /// Peer's advertised window.
    pub snd_wnd: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Lite,
    Tahoe,
    NewReno,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Lite => "lite",
            Variant::Tahoe => "tahoe",
            Variant::NewReno => "newreno",
        }
    }
}

/// The controller's answer to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    Nothing,
    /// Retransmit the segment at `snd_una`. `restore_snd_nxt`: afterwards
    /// continue where the sender was (BSD); else continue after the
    /// retransmitted segment (go-back-N).
    FastRetransmit { restore_snd_nxt: bool },
    /// The window grew (recovery inflation): try to send.
    Send,
}

/// The controller's answer to an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAckAction {
    Nothing,
    /// NewReno partial ACK: retransmit the segment now at `snd_una`.
    RetransmitFirst,
}

#[derive(Clone, Debug)]
pub struct CongestionControl {
    pub variant: Variant,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// `TCP_MAXWIN << snd_scale`: cwnd never grows beyond it.
    pub max_cwnd: u64,
    /// Brakmo–Peterson fixes: no MSS/8 term in congestion avoidance.
    pub bp95: bool,
    /// NewReno: in recovery until `recover` is acknowledged.
    in_recovery: bool,
    recover: u64,
}

impl CongestionControl {
    pub fn new(variant: Variant, mss: u64, initial_window: u64, max_cwnd: u64, bp95: bool) -> Self {
        CongestionControl {
            variant,
            cwnd: initial_window * mss,
            // 65535 << 14: effectively unlimited (tcp.md §1.2).
            ssthresh: 65535 << 14,
            mss,
            max_cwnd,
            bp95,
            in_recovery: false,
            recover: 0,
        }
    }

    /// BSD's halving: max(2, min(wnd, cwnd) / 2 / MSS) segments.
    fn half_window(&self, f: &Flight) -> u64 {
        (f.snd_wnd.min(self.cwnd) / 2 / self.mss).max(2) * self.mss
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The `dupacks`-th consecutive duplicate ACK arrived.
    pub fn on_dup_ack(&mut self, dupacks: u32, f: &Flight) -> DupAckAction {
        const THRESH: u32 = 3; // tcprexmtthresh
        match self.variant {
            Variant::Lite => {
                if dupacks == THRESH {
                    self.ssthresh = self.half_window(f);
                    // The sender retransmits with cwnd = 1 MSS, then inflates
                    // by the three segments that left the network.
                    self.cwnd = self.ssthresh + THRESH as u64 * self.mss;
                    DupAckAction::FastRetransmit { restore_snd_nxt: true }
                } else if dupacks > THRESH {
                    self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
                    DupAckAction::Send
                } else {
                    DupAckAction::Nothing
                }
            }
            Variant::Tahoe => {
                if dupacks == THRESH {
                    self.ssthresh = self.half_window(f);
                    self.cwnd = self.mss;
                    DupAckAction::FastRetransmit { restore_snd_nxt: false }
                } else {
                    DupAckAction::Nothing
                }
            }
            Variant::NewReno => {
                if self.in_recovery {
                    self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
                    DupAckAction::Send
                } else if dupacks == THRESH && f.snd_una > self.recover {
                    // RFC 6582 §3.2 step 1–2 (the "ack − 1 > recover" test
                    // keeps one reduction per window).
                    let flight = f.snd_max - f.snd_una;
                    self.ssthresh = (flight / 2).max(2 * self.mss);
                    self.recover = f.snd_max;
                    self.in_recovery = true;
                    self.cwnd = self.ssthresh + THRESH as u64 * self.mss;
                    DupAckAction::FastRetransmit { restore_snd_nxt: true }
                } else {
                    DupAckAction::Nothing
                }
            }
        }
    }

    /// An ACK for `acked` new bytes up to `ack` arrived; `dupacks` is the
    /// count of duplicate ACKs that preceded it.
    pub fn on_new_ack(&mut self, acked: u64, ack: u64, dupacks: u32, f: &Flight) -> NewAckAction {
        if self.variant == Variant::NewReno && self.in_recovery {
            if ack >= self.recover {
                // Full ACK (RFC 6582 §3.2 step 3).
                let flight = f.snd_max.saturating_sub(ack);
                self.cwnd = self.ssthresh.min(flight.max(self.mss) + self.mss);
                self.in_recovery = false;
                return NewAckAction::Nothing;
            }
            // Partial ACK: deflate by the data acknowledged, add back one
            // MSS if at least one was acknowledged, retransmit the next hole.
            self.cwnd = self.cwnd.saturating_sub(acked);
            if acked >= self.mss {
                self.cwnd += self.mss;
            }
            self.cwnd = self.cwnd.max(self.mss);
            return NewAckAction::RetransmitFirst;
        }
        // Lite: leave fast recovery by deflating the window (the strict
        // `t_dupacks > tcprexmtthresh` of tcp_input.c, tcp.md §1.6 (d)).
        if self.variant == Variant::Lite && dupacks > 3 && self.cwnd > self.ssthresh {
            self.cwnd = self.ssthresh;
        }
        let incr = if self.cwnd <= self.ssthresh {
            self.mss
        } else {
            let ca = self.mss * self.mss / self.cwnd;
            if self.bp95 {
                ca
            } else {
                ca + self.mss / 8
            }
        };
        self.cwnd = (self.cwnd + incr).min(self.max_cwnd);
        NewAckAction::Nothing
    }

    /// Retransmission timeout: remember half the window, restart from one
    /// segment (slow start).
    pub fn on_timeout(&mut self, f: &Flight) {
        self.ssthresh = self.half_window(f);
        self.cwnd = self.mss;
        if self.variant == Variant::NewReno {
            self.in_recovery = false;
            self.recover = f.snd_max;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn flight(una: u64, max: u64) -> Flight {
        Flight { snd_una: una, snd_max: max, snd_wnd: 1_000_000 }
    }

    #[test]
    fn lite_fast_retransmit_on_third_dup_ack_and_inflation() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, true);
        cc.cwnd = 20 * MSS;
        cc.ssthresh = 100 * MSS;
        let f = flight(1, 20 * MSS);
        assert_eq!(cc.on_dup_ack(1, &f), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(2, &f), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(3, &f), DupAckAction::FastRetransmit { restore_snd_nxt: true });
        assert_eq!(cc.ssthresh, 10 * MSS);
        assert_eq!(cc.cwnd, 13 * MSS);
        assert_eq!(cc.on_dup_ack(4, &f), DupAckAction::Send);
        assert_eq!(cc.cwnd, 14 * MSS);
        // The recovering ACK deflates to ssthresh, then adds a full MSS
        // because cwnd == ssthresh is not > ssthresh (tcp.md §1.6 (a)).
        cc.on_new_ack(MSS, 2, 4, &f);
        assert_eq!(cc.cwnd, 11 * MSS);
    }

    #[test]
    fn lite_exactly_three_dups_do_not_deflate() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, true);
        cc.cwnd = 20 * MSS;
        let f = flight(1, 20 * MSS);
        for d in 1..=3 {
            cc.on_dup_ack(d, &f);
        }
        cc.on_new_ack(MSS, 2, 3, &f);
        // ssthresh + 3 MSS + MSS²/cwnd (congestion avoidance).
        assert_eq!(cc.cwnd, 13 * MSS + MSS * MSS / (13 * MSS));
    }

    #[test]
    fn two_fast_retransmits_quarter_the_window() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, true);
        cc.cwnd = 32 * MSS;
        let f = flight(1, 32 * MSS);
        for d in 1..=3 {
            cc.on_dup_ack(d, &f);
        }
        cc.on_new_ack(MSS, 2, 3, &f); // partial ACK ends recovery
        let before = cc.ssthresh;
        for d in 1..=3 {
            cc.on_dup_ack(d, &f);
        }
        assert!(cc.ssthresh <= before / 2 + 2 * MSS, "{} vs {}", cc.ssthresh, before);
        assert!(cc.ssthresh <= 32 * MSS / 4 + 2 * MSS);
    }

    #[test]
    fn slow_start_then_congestion_avoidance_increments() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, false);
        cc.ssthresh = 2 * MSS;
        let f = flight(1, 10 * MSS);
        cc.on_new_ack(MSS, 2, 0, &f);
        assert_eq!(cc.cwnd, 2 * MSS);
        // cwnd == ssthresh is still slow start (BSD: `cw > ssthresh` for CA).
        cc.on_new_ack(MSS, 3, 0, &f);
        assert_eq!(cc.cwnd, 3 * MSS);
        cc.on_new_ack(MSS, 4, 0, &f);
        // Original Lite: MSS²/cwnd + MSS/8.
        assert_eq!(cc.cwnd, 3 * MSS + MSS / 3 + MSS / 8);
    }

    #[test]
    fn window_limit_caps_cwnd() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 3 * MSS, true);
        let f = flight(1, 10 * MSS);
        for i in 0..10 {
            cc.on_new_ack(MSS, i, 0, &f);
        }
        assert_eq!(cc.cwnd, 3 * MSS);
    }

    #[test]
    fn timeout_halves_into_ssthresh_and_restarts_at_one_segment() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, true);
        cc.cwnd = 9 * MSS;
        cc.on_timeout(&flight(1, 9 * MSS));
        assert_eq!(cc.ssthresh, 4 * MSS);
        assert_eq!(cc.cwnd, MSS);
        cc.cwnd = 3 * MSS;
        cc.on_timeout(&flight(1, 3 * MSS));
        assert_eq!(cc.ssthresh, 2 * MSS, "never below two segments");
    }

    #[test]
    fn tahoe_fast_retransmit_restarts_from_one_segment() {
        let mut cc = CongestionControl::new(Variant::Tahoe, MSS, 1, 1 << 30, true);
        cc.cwnd = 16 * MSS;
        let f = flight(1, 16 * MSS);
        for d in 1..=2 {
            cc.on_dup_ack(d, &f);
        }
        assert_eq!(cc.on_dup_ack(3, &f), DupAckAction::FastRetransmit { restore_snd_nxt: false });
        assert_eq!(cc.cwnd, MSS);
        assert_eq!(cc.ssthresh, 8 * MSS);
        assert_eq!(cc.on_dup_ack(4, &f), DupAckAction::Nothing);
    }

    #[test]
    fn newreno_partial_ack_retransmits_and_stays_in_recovery() {
        let mut cc = CongestionControl::new(Variant::NewReno, MSS, 1, 1 << 30, true);
        cc.cwnd = 20 * MSS;
        let f = flight(1, 1 + 20 * MSS);
        for d in 1..=3 {
            cc.on_dup_ack(d, &f);
        }
        assert!(cc.in_recovery());
        assert_eq!(cc.ssthresh, 10 * MSS);
        let partial = cc.on_new_ack(5 * MSS, 1 + 5 * MSS, 3, &f);
        assert_eq!(partial, NewAckAction::RetransmitFirst);
        assert!(cc.in_recovery());
        let full = cc.on_new_ack(15 * MSS, 1 + 20 * MSS, 0, &flight(1 + 5 * MSS, 1 + 20 * MSS));
        assert_eq!(full, NewAckAction::Nothing);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd, MSS + MSS, "min(ssthresh, max(flight=0, MSS) + MSS)");
        // A second loss in the same window does not reduce again.
        cc.cwnd = 20 * MSS;
        let again = flight(1 + 10 * MSS, 1 + 20 * MSS);
        for d in 1..=3 {
            assert_ne!(cc.on_dup_ack(d, &again), DupAckAction::FastRetransmit { restore_snd_nxt: true });
        }
    }
}
