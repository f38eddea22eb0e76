//! Congestion control: the window rules, apart from reliable delivery.
//!
//! The sender (`sender.rs`) owns sequence numbers, the retransmit timer, the
//! RTT estimator and the per-segment send log; it tells the congestion
//! controller what happened (a duplicate ACK, a new ACK, a timeout) with an
//! [`AckCtx`] and carries out the answer (retransmit one or two segments,
//! send more). This is the narrow interface every variant plugs into.
//!
//! Variants (tcp.md §1.6, §1.8, §2, §3, §5):
//! - `Lite`: 4.4BSD-Lite fast retransmit and fast recovery. With the
//!   Brakmo–Peterson fixes (`bp95`, the paper's "Lite.4") congestion
//!   avoidance adds MSS²/cwnd per ACK; without them, MSS²/cwnd + MSS/8.
//! - `Tahoe`: fast retransmit with cwnd = 1 MSS, no fast recovery; the
//!   sender continues from the retransmitted segment (go-back-N, ns style).
//! - `NewReno`: RFC 6582 partial-ACK recovery (comparison runs).
//! - `VegasRm`: Lite's slow start and congestion avoidance with Vegas's
//!   retransmission mechanism (Aron & Druschel's "Vegas-RM").
//! - `Vegas`: Vegas-SS + Vegas-RM + Vegas-CA.
//! Any of them may add AFR (`afr.rs`), which doubles fast retransmissions.

use super::afr::Afr;
use super::vegas::{CaState, FineTimer, RmState};
use crate::time::Time;

/// What the window rules may look at when an ACK arrives or a timer fires.
/// For a new ACK, `snd_una` is already the acknowledged point and the
/// oldest-segment fields describe the oldest segment still unacknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckCtx {
    pub now: Time,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Peer's advertised window.
    pub snd_wnd: u64,
    /// Bytes newly acknowledged (new ACKs).
    pub acked: u64,
    /// Last send time and transmissions of the oldest unacknowledged segment.
    pub oldest_sent_at: Time,
    pub oldest_transmissions: u32,
    /// Exact RTT of the newest segment this ACK covers, if it was sent once.
    pub rtt_sample: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Lite,
    Tahoe,
    NewReno,
    VegasRm,
    Vegas,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Lite => "lite",
            Variant::Tahoe => "tahoe",
            Variant::NewReno => "newreno",
            Variant::VegasRm => "vegas-rm",
            Variant::Vegas => "vegas",
        }
    }

    fn vegas_rm(self) -> bool {
        matches!(self, Variant::VegasRm | Variant::Vegas)
    }

    /// Initial window in segments: Vegas starts with 2 (Aron & Druschel
    /// §5.3), the BSD variants with 1.
    pub fn default_initial_window(self) -> u32 {
        if self == Variant::Vegas {
            2
        } else {
            1
        }
    }
}

/// The controller's answer to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    Nothing,
    /// Retransmit `segments` (1, or 2 with AFR) starting at `snd_una`.
    /// `restore_snd_nxt`: afterwards continue where the sender was (BSD);
    /// else continue after the retransmission (go-back-N).
    FastRetransmit { segments: u8, restore_snd_nxt: bool },
    /// The window grew (recovery inflation): try to send.
    Send,
}

/// The controller's answer to an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAckAction {
    Nothing,
    /// Retransmit the segment now at `snd_una` (NewReno partial ACK, or
    /// Vegas-RM's check of the first two ACKs after a retransmission).
    RetransmitFirst,
    /// NewReno partial ACK after the first of a recovery: retransmit, but
    /// leave the retransmit timer running (RFC 6582 §3.2 step 5 and §4,
    /// the "Impatient" variant: only the first partial ACK resets it).
    RetransmitFirstKeepTimer,
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
    /// Consecutive duplicate ACKs (`t_dupacks`).
    pub dupacks: u32,
    /// NewReno: in recovery until `recover` is acknowledged.
    in_recovery: bool,
    recover: u64,
    partial_acks: u32,
    pub fine: FineTimer,
    pub rm: RmState,
    pub ca: CaState,
    pub afr: Option<Afr>,
}

const THRESH: u32 = 3; // tcprexmtthresh

impl CongestionControl {
    pub fn new(variant: Variant, mss: u64, initial_window: u64, max_cwnd: u64, bp95: bool, afr: Option<Afr>) -> Self {
        CongestionControl {
            variant,
            cwnd: initial_window * mss,
            // 65535 << 14: effectively unlimited (tcp.md §1.2).
            ssthresh: 65535 << 14,
            mss,
            max_cwnd,
            bp95,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            fine: FineTimer::new(),
            rm: RmState::default(),
            ca: CaState::default(),
            afr,
        }
    }

    /// BSD's halving: max(2, min(wnd, cwnd) / 2 / MSS) segments.
    fn half_window(&self, c: &AckCtx) -> u64 {
        (c.snd_wnd.min(self.cwnd) / 2 / self.mss).max(2) * self.mss
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Congestion window (bytes).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold (bytes).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Adaptive fast retransmit, if enabled.
    pub fn afr(&self) -> Option<&Afr> {
        self.afr.as_ref()
    }

    pub fn afr_mut(&mut self) -> Option<&mut Afr> {
        self.afr.as_mut()
    }

    /// A fast retransmission of the segment at `snd_una`, doubled when AFR
    /// is in a double state and the successor has been sent.
    fn fast_retransmit(&mut self, c: &AckCtx, restore_snd_nxt: bool) -> DupAckAction {
        let end = (c.snd_una + self.mss).min(c.snd_max);
        let successor_sent = c.snd_max > end;
        let mut segments = 1;
        if let Some(afr) = &mut self.afr {
            let double = afr.doubles() && successor_sent;
            afr.open_episode(c.snd_una, end, successor_sent, double);
            if double {
                segments = 2;
            }
        }
        DupAckAction::FastRetransmit { segments, restore_snd_nxt }
    }

    /// A duplicate ACK arrived.
    pub fn on_dup_ack(&mut self, c: &AckCtx) -> DupAckAction {
        self.dupacks += 1;
        let d = self.dupacks;
        if self.variant.vegas_rm() {
            return self.vegas_rm_dup_ack(c);
        }
        match self.variant {
            Variant::Lite => {
                if d == THRESH {
                    self.ssthresh = self.half_window(c);
                    // The sender retransmits with cwnd = 1 MSS, then inflates
                    // by the three segments that left the network.
                    self.cwnd = self.ssthresh + THRESH as u64 * self.mss;
                    self.fast_retransmit(c, true)
                } else if d > THRESH {
                    self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
                    DupAckAction::Send
                } else {
                    DupAckAction::Nothing
                }
            }
            Variant::Tahoe => {
                // Go-back-N resends data the receiver already holds; its
                // duplicate ACKs must not trigger another fast retransmit
                // before the old window is acknowledged (ns-2 `bug_fix_`).
                if d == THRESH && c.snd_una > self.recover {
                    self.ssthresh = self.half_window(c);
                    self.cwnd = self.mss;
                    self.recover = c.snd_max;
                    self.fast_retransmit(c, false)
                } else {
                    DupAckAction::Nothing
                }
            }
            Variant::NewReno => {
                if self.in_recovery {
                    self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
                    DupAckAction::Send
                } else if d == THRESH && c.snd_una > self.recover {
                    // RFC 6582 §3.2 steps 1–2 (the "ack − 1 > recover" test
                    // keeps one reduction per window).
                    let flight = c.snd_max - c.snd_una;
                    self.ssthresh = (flight / 2).max(2 * self.mss);
                    self.recover = c.snd_max;
                    self.in_recovery = true;
                    self.partial_acks = 0;
                    self.cwnd = self.ssthresh + THRESH as u64 * self.mss;
                    self.fast_retransmit(c, true)
                } else {
                    DupAckAction::Nothing
                }
            }
            Variant::VegasRm | Variant::Vegas => unreachable!(),
        }
    }

    /// Vegas-RM on a duplicate ACK (tcp.md §2): retransmit at once if the
    /// oldest segment has outlived the fine timeout, or on the third
    /// duplicate; shrink the window at most once per RTT, to 3/4.
    fn vegas_rm_dup_ack(&mut self, c: &AckCtx) -> DupAckAction {
        let d = self.dupacks;
        let expired = self.fine.expired(c.now, c.oldest_sent_at);
        if expired || d == THRESH {
            if self.rm.timeout_recover.is_some_and(|r| c.snd_una < r) {
                // After a coarse timeout, wait until its retransmissions are
                // acknowledged (ns-2 bug_fix_).
                return DupAckAction::Nothing;
            }
            self.rm.worried = 2;
            let tx = c.oldest_transmissions;
            if tx > 1 {
                self.fine.v_timeout *= 2;
            } else {
                self.fine.v_timeout += self.fine.v_timeout / 8;
            }
            if self.rm.t_cwnd_changed < c.oldest_sent_at {
                let w = self.cwnd.min(c.snd_wnd) / self.mss;
                let w = if w <= 3 {
                    2
                } else if tx > 1 {
                    w / 2
                } else {
                    w - w / 4
                };
                self.rm.newcwnd = w * self.mss;
                self.cwnd = self.rm.newcwnd + d as u64 * self.mss;
                self.rm.t_cwnd_changed = c.now;
                if self.variant == Variant::VegasRm {
                    // Lite's congestion avoidance resumes from 3/4 (tcp.md §2 [choice]).
                    self.ssthresh = self.rm.newcwnd;
                }
            }
            if tx == 1 {
                self.dupacks = THRESH;
            }
            return self.fast_retransmit(c, true);
        }
        if d > THRESH {
            self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
            return DupAckAction::Send;
        }
        DupAckAction::Nothing
    }

    /// An ACK for new data arrived (`c.acked` bytes, now at `c.snd_una`).
    pub fn on_new_ack(&mut self, c: &AckCtx) -> NewAckAction {
        let dupacks = std::mem::take(&mut self.dupacks);
        if let Some(afr) = &mut self.afr {
            afr.on_advance(c.snd_una, c.now);
        }
        if let Some(r) = self.rm.timeout_recover {
            if c.snd_una >= r {
                self.rm.timeout_recover = None;
            }
        }
        match self.variant {
            Variant::NewReno if self.in_recovery => {
                if c.snd_una >= self.recover {
                    // Full ACK (RFC 6582 §3.2 step 3).
                    let flight = c.snd_max.saturating_sub(c.snd_una);
                    self.cwnd = self.ssthresh.min(flight.max(self.mss) + self.mss);
                    self.in_recovery = false;
                    return NewAckAction::Nothing;
                }
                // Partial ACK: deflate by the data acknowledged, add back one
                // MSS if at least one was acknowledged, retransmit the hole.
                self.cwnd = self.cwnd.saturating_sub(c.acked);
                if c.acked >= self.mss {
                    self.cwnd += self.mss;
                }
                self.cwnd = self.cwnd.max(self.mss);
                self.partial_acks += 1;
                if self.partial_acks == 1 {
                    NewAckAction::RetransmitFirst
                } else {
                    NewAckAction::RetransmitFirstKeepTimer
                }
            }
            Variant::VegasRm | Variant::Vegas => {
                if dupacks > THRESH && self.cwnd > self.rm.newcwnd {
                    self.cwnd = self.rm.newcwnd;
                    if self.variant == Variant::Vegas {
                        self.ssthresh = 2 * self.mss; // leave recovery in CA
                    }
                }
                if let Some(rtt) = c.rtt_sample {
                    self.fine.sample(rtt);
                    self.ca.add_sample(rtt);
                }
                if self.variant == Variant::Vegas {
                    self.vegas_ss_ca(c);
                } else {
                    self.lite_increase(c, 0);
                }
                if self.rm.worried > 0 {
                    self.rm.worried -= 1;
                    if c.snd_max > c.snd_una && self.fine.expired(c.now, c.oldest_sent_at) {
                        self.dupacks = THRESH;
                        return NewAckAction::RetransmitFirst;
                    }
                    self.rm.worried = 0;
                }
                NewAckAction::Nothing
            }
            _ => {
                self.lite_increase(c, dupacks);
                NewAckAction::Nothing
            }
        }
    }

    /// Lite's window opening (tcp_input.c): deflate after fast recovery (the
    /// strict `t_dupacks > tcprexmtthresh`, tcp.md §1.6 (d)), then slow start
    /// or congestion avoidance.
    fn lite_increase(&mut self, _c: &AckCtx, dupacks: u32) {
        if self.variant == Variant::Lite && dupacks > THRESH && self.cwnd > self.ssthresh {
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
    }

    /// Vegas-SS and Vegas-CA: decide once per RTT, apply per ACK.
    fn vegas_ss_ca(&mut self, c: &AckCtx) {
        let outstanding = (c.snd_nxt - c.snd_una) as f64 / self.mss as f64;
        if c.snd_una > self.ca.begseq {
            let sent_since = (c.snd_nxt.saturating_sub(self.ca.begseq)) as f64 / self.mss as f64;
            self.ca.once_per_rtt(c.now, &mut self.fine, &mut self.cwnd, &mut self.ssthresh, self.mss, outstanding, sent_since, c.snd_nxt);
        }
        self.ca.per_ack(&mut self.cwnd, self.ssthresh, self.mss, outstanding, self.max_cwnd);
    }

    /// Retransmission timeout: remember half the window, restart slow start
    /// from one segment (two for Vegas, ns-2 `v_slowstart_`).
    pub fn on_timeout(&mut self, c: &AckCtx) {
        self.ssthresh = self.half_window(c);
        self.cwnd = if self.variant == Variant::Vegas { 2 * self.mss } else { self.mss };
        self.dupacks = 0;
        if let Some(afr) = &mut self.afr {
            afr.on_timeout();
        }
        match self.variant {
            Variant::NewReno | Variant::Tahoe => {
                self.in_recovery = false;
                self.recover = c.snd_max;
            }
            Variant::VegasRm | Variant::Vegas => {
                self.rm.t_cwnd_changed = c.now;
                self.rm.worried = 0;
                self.rm.timeout_recover = Some(c.snd_max);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::afr::Predictor;

    const MSS: u64 = 1000;

    fn ctx(una: u64, max: u64) -> AckCtx {
        AckCtx { snd_una: una, snd_nxt: max, snd_max: max, snd_wnd: 1_000_000, ..Default::default() }
    }

    fn lite(bp95: bool) -> CongestionControl {
        CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, bp95, None)
    }

    fn fr(segments: u8, restore: bool) -> DupAckAction {
        DupAckAction::FastRetransmit { segments, restore_snd_nxt: restore }
    }

    fn new_ack(cc: &mut CongestionControl, acked: u64, una: u64, max: u64) -> NewAckAction {
        cc.on_new_ack(&AckCtx { acked, ..ctx(una, max) })
    }

    #[test]
    fn lite_fast_retransmit_on_third_dup_ack_and_inflation() {
        let mut cc = lite(true);
        cc.cwnd = 20 * MSS;
        cc.ssthresh = 100 * MSS;
        let c = ctx(1, 20 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), fr(1, true));
        assert_eq!(cc.ssthresh, 10 * MSS);
        assert_eq!(cc.cwnd, 13 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Send);
        assert_eq!(cc.cwnd, 14 * MSS);
        // The recovering ACK deflates to ssthresh, then adds a full MSS
        // because cwnd == ssthresh is not > ssthresh (tcp.md §1.6 (a)).
        new_ack(&mut cc, MSS, 1 + MSS, 20 * MSS);
        assert_eq!(cc.cwnd, 11 * MSS);
    }

    #[test]
    fn lite_exactly_three_dups_do_not_deflate() {
        let mut cc = lite(true);
        cc.cwnd = 20 * MSS;
        let c = ctx(1, 20 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        new_ack(&mut cc, MSS, 1 + MSS, 20 * MSS);
        // ssthresh + 3 MSS + MSS²/cwnd (congestion avoidance).
        assert_eq!(cc.cwnd, 13 * MSS + MSS * MSS / (13 * MSS));
    }

    #[test]
    fn two_fast_retransmits_quarter_the_window() {
        let mut cc = lite(true);
        cc.cwnd = 32 * MSS;
        let c = ctx(1, 32 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        new_ack(&mut cc, MSS, 1 + MSS, 32 * MSS); // partial ACK ends recovery
        let before = cc.ssthresh;
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        assert!(cc.ssthresh <= before / 2 + 2 * MSS, "{} vs {}", cc.ssthresh, before);
        assert!(cc.ssthresh <= 32 * MSS / 4 + 2 * MSS);
    }

    #[test]
    fn slow_start_then_congestion_avoidance_increments() {
        let mut cc = lite(false);
        cc.ssthresh = 2 * MSS;
        new_ack(&mut cc, MSS, 2, 10 * MSS);
        assert_eq!(cc.cwnd, 2 * MSS);
        // cwnd == ssthresh is still slow start (BSD: `cw > ssthresh` for CA).
        new_ack(&mut cc, MSS, 3, 10 * MSS);
        assert_eq!(cc.cwnd, 3 * MSS);
        new_ack(&mut cc, MSS, 4, 10 * MSS);
        // Original Lite: MSS²/cwnd + MSS/8.
        assert_eq!(cc.cwnd, 3 * MSS + MSS / 3 + MSS / 8);
    }

    #[test]
    fn window_limit_caps_cwnd() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 3 * MSS, true, None);
        for i in 0..10 {
            new_ack(&mut cc, MSS, 2 + i, 10 * MSS);
        }
        assert_eq!(cc.cwnd, 3 * MSS);
    }

    #[test]
    fn timeout_halves_into_ssthresh_and_restarts_at_one_segment() {
        let mut cc = lite(true);
        cc.cwnd = 9 * MSS;
        cc.on_timeout(&ctx(1, 9 * MSS));
        assert_eq!(cc.ssthresh, 4 * MSS);
        assert_eq!(cc.cwnd, MSS);
        cc.cwnd = 3 * MSS;
        cc.on_timeout(&ctx(1, 3 * MSS));
        assert_eq!(cc.ssthresh, 2 * MSS, "never below two segments");
    }

    #[test]
    fn tahoe_fast_retransmit_restarts_from_one_segment() {
        let mut cc = CongestionControl::new(Variant::Tahoe, MSS, 1, 1 << 30, true, None);
        cc.cwnd = 16 * MSS;
        let c = ctx(1, 16 * MSS);
        cc.on_dup_ack(&c);
        cc.on_dup_ack(&c);
        assert_eq!(cc.on_dup_ack(&c), fr(1, false));
        assert_eq!(cc.cwnd, MSS);
        assert_eq!(cc.ssthresh, 8 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        // Duplicates caused by the go-back-N resend of the same window do
        // not fast-retransmit again.
        cc.dupacks = 0;
        let same_window = ctx(1 + 5 * MSS, 16 * MSS);
        for _ in 0..3 {
            assert_eq!(cc.on_dup_ack(&same_window), DupAckAction::Nothing);
        }
    }

    #[test]
    fn newreno_partial_ack_retransmits_and_stays_in_recovery() {
        let mut cc = CongestionControl::new(Variant::NewReno, MSS, 1, 1 << 30, true, None);
        cc.cwnd = 20 * MSS;
        let c = ctx(1, 1 + 20 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        assert!(cc.in_recovery());
        assert_eq!(cc.ssthresh, 10 * MSS);
        assert_eq!(new_ack(&mut cc, 5 * MSS, 1 + 5 * MSS, 1 + 20 * MSS), NewAckAction::RetransmitFirst);
        assert!(cc.in_recovery());
        assert_eq!(new_ack(&mut cc, MSS, 1 + 6 * MSS, 1 + 20 * MSS), NewAckAction::RetransmitFirstKeepTimer);
        assert_eq!(new_ack(&mut cc, 14 * MSS, 1 + 20 * MSS, 1 + 20 * MSS), NewAckAction::Nothing);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd, MSS + MSS, "min(ssthresh, max(flight=0, MSS) + MSS)");
        // A later loss below the old recovery point does not reduce again.
        cc.cwnd = 20 * MSS;
        let mut cc2 = cc.clone();
        cc2.recover = 1 + 30 * MSS;
        let again = ctx(1 + 20 * MSS, 1 + 30 * MSS);
        for _ in 0..3 {
            assert_eq!(cc2.on_dup_ack(&again), DupAckAction::Nothing);
        }
    }

    #[test]
    fn afr_doubles_the_fast_retransmission_in_double_states() {
        let mut cc = CongestionControl::new(Variant::Lite, MSS, 1, 1 << 30, true, Some(Afr::new(Predictor::Saturating)));
        cc.cwnd = 20 * MSS;
        let c = ctx(1, 1 + 20 * MSS);
        // Two consecutive-loss episodes: the ACK after each retransmission
        // stops exactly at its end.
        for k in 0..2 {
            let c = ctx(1 + k * 4 * MSS, 1 + 20 * MSS);
            for _ in 0..3 {
                cc.on_dup_ack(&c);
            }
            new_ack(&mut cc, MSS, c.snd_una + MSS, 1 + 20 * MSS);
        }
        assert_eq!(cc.afr.as_ref().unwrap().state, 2);
        for _ in 0..2 {
            cc.on_dup_ack(&c);
        }
        assert_eq!(cc.on_dup_ack(&c), fr(2, true));
    }

    fn vegas_rm() -> CongestionControl {
        let mut cc = CongestionControl::new(Variant::VegasRm, MSS, 1, 1 << 30, true, None);
        cc.fine.sample(100);
        cc.cwnd = 20 * MSS;
        cc
    }

    #[test]
    fn vegas_rm_retransmits_on_first_dup_ack_when_expired() {
        let mut cc = vegas_rm();
        let timeout = cc.fine.v_timeout;
        let c = AckCtx { now: 10 + timeout, oldest_sent_at: 10, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(cc.on_dup_ack(&c), fr(1, true));
        assert_eq!(cc.rm.newcwnd, 15 * MSS, "decrease to 3/4");
        assert_eq!(cc.dupacks, 3, "further duplicates inflate");
        // Not expired: nothing until the third duplicate.
        let mut cc = vegas_rm();
        let c = AckCtx { now: 10, oldest_sent_at: 10, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
    }

    #[test]
    fn vegas_rm_decreases_at_most_once_per_rtt() {
        let mut cc = vegas_rm();
        let t = cc.fine.v_timeout;
        let first = AckCtx { now: 1000, oldest_sent_at: 1000 - t, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        cc.on_dup_ack(&first);
        assert_eq!(cc.rm.newcwnd, 15 * MSS);
        // A second loss of a segment sent before that decrease: retransmit,
        // but keep the window.
        let again = AckCtx { now: 1000 + 10 * t, oldest_sent_at: 900, oldest_transmissions: 1, ..ctx(1 + MSS, 1 + 20 * MSS) };
        cc.dupacks = 0;
        assert_eq!(cc.on_dup_ack(&again), fr(1, true));
        assert_eq!(cc.rm.newcwnd, 15 * MSS);
        // A loss of a segment sent after it may decrease again, to 3/4 of the
        // current window (a retransmitted segment halves it).
        let later = AckCtx { now: 1000 + 30 * t, oldest_sent_at: 1000 + 20 * t, oldest_transmissions: 2, ..ctx(1 + 2 * MSS, 1 + 20 * MSS) };
        cc.cwnd = 16 * MSS;
        cc.dupacks = 0;
        cc.on_dup_ack(&later);
        assert_eq!(cc.rm.newcwnd, 8 * MSS);
    }

    #[test]
    fn vegas_rm_checks_the_first_two_new_acks_after_a_retransmission() {
        let mut cc = vegas_rm();
        let t = cc.fine.v_timeout;
        let c = AckCtx { now: 10 * t, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        cc.on_dup_ack(&c);
        // The next new ACK finds the (new) oldest segment also expired: the
        // second loss of the window is repaired without three duplicates.
        let a = AckCtx { now: 10 * t + 1, acked: MSS, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1 + MSS, 1 + 20 * MSS) };
        assert_eq!(cc.on_new_ack(&a), NewAckAction::RetransmitFirst);
        let b = AckCtx { now: 10 * t + 2, acked: MSS, oldest_sent_at: 10 * t, oldest_transmissions: 1, ..ctx(1 + 2 * MSS, 1 + 20 * MSS) };
        assert_eq!(cc.on_new_ack(&b), NewAckAction::Nothing);
        assert_eq!(cc.rm.worried, 0);
    }

    #[test]
    fn vegas_initial_window_and_timeout_window_are_two() {
        assert_eq!(Variant::Vegas.default_initial_window(), 2);
        let mut cc = CongestionControl::new(Variant::Vegas, MSS, 2, 1 << 30, true, None);
        cc.cwnd = 10 * MSS;
        cc.on_timeout(&ctx(1, 10 * MSS));
        assert_eq!(cc.cwnd, 2 * MSS);
        assert_eq!(cc.ssthresh, 5 * MSS);
    }
}
