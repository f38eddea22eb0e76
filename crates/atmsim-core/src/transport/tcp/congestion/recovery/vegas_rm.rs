//! Vegas-RM, the retransmission mechanism of TCP Vegas (Brakmo, O'Malley &
//! Peterson 1994; Brakmo & Peterson 1995; as in the Arizona code ported to
//! ns-2 `tcp-vegas.cc`), one of the three mechanisms Aron & Druschel switch
//! separately (§5, §5.1):
//! - a fine-grained timeout, checked on each duplicate ACK and on the first
//!   two new ACKs after a retransmission, catches losses before three
//!   duplicates arrive — including the second of two consecutive losses;
//! - the window shrinks at most once per RTT, to 3/4 rather than 1/2.
//!
//! The BSD coarse timer stays as the backstop (`sender.rs`).

use super::{AckOutcome, DupOutcome, LossRecovery, Recovery, THRESH};
use crate::time::Time;
use crate::transport::tcp::congestion::{declare, on_lite, topology1, with_afr, AckCtx, NewAckAction, TcpVariant, Window};

/// The fine-grained RTT estimator and timeout of Vegas-RM (exact clock).
#[derive(Clone, Debug, Default)]
pub struct FineTimer {
    /// 8 × smoothed RTT, 4 × mean deviation, in ps.
    sa: i128,
    sd: i128,
    /// The fine timeout; 0 until the first sample.
    pub v_timeout: Time,
}

impl FineTimer {
    /// A sample from a segment sent exactly once (Jacobson 1988's gains,
    /// 1/8 and 1/4, on the exact clock).
    pub fn sample(&mut self, rtt: Time) {
        let r = rtt as i128;
        if self.v_timeout == 0 {
            self.sa = 8 * r;
            self.sd = r;
        } else {
            let mut n = r - self.sa / 8;
            self.sa += n;
            n = n.abs() - self.sd / 4;
            self.sd += n;
        }
        // (srtt + 2·dev) × 17/16, as the Arizona code.
        let mut v = (self.sa / 4 + self.sd) / 2;
        v += v / 16;
        self.v_timeout = v.max(1) as Time;
    }

    /// Has the segment sent at `sent_at` waited longer than the timeout?
    pub fn expired(&self, now: Time, sent_at: Time) -> bool {
        self.v_timeout != 0 && now.saturating_sub(sent_at) >= self.v_timeout
    }
}

#[derive(Clone, Debug, Default)]
pub struct VegasRm {
    pub fine: FineTimer,
    /// First and second new ACK after a retransmission still to check.
    pub worried: u8,
    /// Time of the last window decrease (one per RTT).
    pub t_cwnd_changed: Time,
    /// Window to fall back to when recovery ends.
    pub newcwnd: u64,
    /// After a coarse timeout: no RM action until this is acknowledged
    /// (ns-2 `bug_fix_`).
    pub timeout_recover: Option<u64>,
}

impl LossRecovery for VegasRm {
    const VARIANTS: &'static [TcpVariant] = &[
        on_lite(
            declare(
                "vegas-rm",
                "Lite with Vegas's retransmission mechanism only (Aron & Druschel §5)",
                &[topology1("vegas-rm", &["tcp.variant=vegas-rm"])],
            ),
            || Recovery::VegasRm(VegasRm::default()),
        ),
        TcpVariant {
            afr: true,
            ..on_lite(
                with_afr(
                "vegas-rm-afr",
                "Vegas-RM with Adaptive Fast Retransmit",
                &[topology1("vegas-rm-afr", &["tcp.variant=vegas-rm-afr", "tcp.afr_predictor=hysteresis"])],
            ),
                || Recovery::VegasRm(VegasRm::default()),
            )
        },
    ];

    /// Retransmit at once if the oldest segment has outlived the fine
    /// timeout, or on the third duplicate; shrink the window at most once
    /// per RTT; inflate on further duplicates as Reno.
    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
        let d = w.dupacks;
        let expired = self.fine.expired(c.now, c.oldest_sent_at);
        if expired || d == THRESH {
            if self.timeout_recover.is_some_and(|r| c.snd_una < r) {
                // After a coarse timeout, wait until its retransmissions are
                // acknowledged (ns-2 bug_fix_).
                return DupOutcome::Nothing;
            }
            self.worried = 2;
            let tx = c.oldest_transmissions;
            // A retransmission lost again doubles the fine timeout (Karn's
            // backoff); a first loss lengthens it by 1/8.
            if tx > 1 {
                self.fine.v_timeout *= 2;
            } else {
                self.fine.v_timeout += self.fine.v_timeout / 8;
            }
            let mut cut_to = None;
            if c.echo_cut {
                // An ECN echo already cut this window (`Window::loss_ssthresh`):
                // the recovery ends in the window it left.
                self.newcwnd = w.cwnd;
            } else if self.t_cwnd_changed < c.oldest_sent_at {
                // Only a segment sent after the last decrease can decrease again.
                let seg = w.cwnd.min(c.snd_wnd) / w.mss;
                let seg = if seg <= 3 {
                    2
                } else if tx > 1 {
                    seg / 2
                } else {
                    seg - seg / 4
                };
                self.newcwnd = seg * w.mss;
                w.cwnd = self.newcwnd + d as u64 * w.mss;
                self.t_cwnd_changed = c.now;
                cut_to = Some(self.newcwnd);
            }
            if tx == 1 {
                // Further duplicates inflate, as after a third duplicate.
                w.dupacks = THRESH;
            }
            return DupOutcome::FastRetransmit { restore_snd_nxt: true, cut_to };
        }
        if d > THRESH {
            w.inflate();
            return DupOutcome::Send;
        }
        DupOutcome::Nothing
    }

    /// Deflate to the decreased window after recovery, feed the fine timer,
    /// then check the first two new ACKs after a retransmission: a segment
    /// that has outlived the fine timeout is retransmitted at once.
    fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, dupacks: u32) -> AckOutcome {
        if let Some(r) = self.timeout_recover {
            if c.snd_una >= r {
                self.timeout_recover = None;
            }
        }
        let left_recovery = dupacks > THRESH && w.cwnd > self.newcwnd;
        if left_recovery {
            w.cwnd = self.newcwnd;
        }
        if let Some(rtt) = c.rtt_sample {
            self.fine.sample(rtt);
        }
        let mut action = NewAckAction::Nothing;
        if self.worried > 0 {
            self.worried -= 1;
            if c.snd_max > c.snd_una && self.fine.expired(c.now, c.oldest_sent_at) {
                w.dupacks = THRESH;
                action = NewAckAction::RetransmitFirst;
                // This is a retransmission too, so the first and second new
                // ACKs after it are checked again [AD97 §5: "On receiving the
                // first and second non-duplicate ACK after a retransmission";
                // BP95 §3.1]: every expired hole of a window is repaired, one
                // per ACK. ns-2 arms the check only on a duplicate-ACK
                // retransmission, which repairs at most three holes.
                self.worried = 2;
            } else {
                self.worried = 0;
            }
        }
        AckOutcome { action, grow: true, left_recovery }
    }

    /// No window decrease for losses sent before the timeout, no checks of
    /// new ACKs, no fast retransmission until the resent window is through.
    fn on_timeout(&mut self, c: &AckCtx) {
        self.t_cwnd_changed = c.now;
        self.worried = 0;
        self.timeout_recover = Some(c.snd_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{PS_PER_MS, PS_PER_S};
    use crate::transport::tcp::congestion::testutil::{cc, ctx, fr, MSS};
    use crate::transport::tcp::congestion::{CongestionControl, DupAckAction, Recovery, variant};

    #[test]
    fn fine_timer_first_sample() {
        let mut t = FineTimer::default();
        assert!(!t.expired(10 * PS_PER_S, 0), "no timeout before a sample");
        t.sample(100 * PS_PER_MS);
        // sa = 800 ms, sd = 100 ms -> (200 + 100)/2 = 150 ms, ×17/16.
        assert_eq!(t.v_timeout, 150 * PS_PER_MS + 150 * PS_PER_MS / 16);
        t.sample(60 * PS_PER_MS);
        assert!(t.expired(300 * PS_PER_MS, 0));
    }

    fn rm(cc: &mut CongestionControl) -> &mut VegasRm {
        let Recovery::VegasRm(r) = &mut cc.recovery else { panic!("vegas-rm") };
        r
    }

    fn vegas_rm() -> CongestionControl {
        let mut cc = cc(variant("vegas-rm").unwrap());
        rm(&mut cc).fine.sample(100);
        cc.w.cwnd = 20 * MSS;
        cc
    }

    #[test]
    fn vegas_rm_retransmits_on_first_dup_ack_when_expired() {
        let mut cc = vegas_rm();
        let timeout = rm(&mut cc).fine.v_timeout;
        let c = AckCtx { now: 10 + timeout, oldest_sent_at: 10, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(cc.on_dup_ack(&c), fr(1, true));
        assert_eq!(rm(&mut cc).newcwnd, 15 * MSS, "decrease to 3/4");
        assert_eq!(cc.dupacks(), 3, "further duplicates inflate");
        // Not expired: nothing until the third duplicate.
        let mut cc = vegas_rm();
        let c = AckCtx { now: 10, oldest_sent_at: 10, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
    }

    #[test]
    fn vegas_rm_decreases_at_most_once_per_rtt() {
        let mut cc = vegas_rm();
        let t = rm(&mut cc).fine.v_timeout;
        let first = AckCtx { now: 1000, oldest_sent_at: 1000 - t, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        cc.on_dup_ack(&first);
        assert_eq!(rm(&mut cc).newcwnd, 15 * MSS);
        // A second loss of a segment sent before that decrease: retransmit,
        // but keep the window.
        let again = AckCtx { now: 1000 + 10 * t, oldest_sent_at: 900, oldest_transmissions: 1, ..ctx(1 + MSS, 1 + 20 * MSS) };
        cc.reset_dupacks();
        assert_eq!(cc.on_dup_ack(&again), fr(1, true));
        assert_eq!(rm(&mut cc).newcwnd, 15 * MSS);
        // A loss of a segment sent after it may decrease again, to 3/4 of the
        // current window (a retransmitted segment halves it).
        let later = AckCtx { now: 1000 + 30 * t, oldest_sent_at: 1000 + 20 * t, oldest_transmissions: 2, ..ctx(1 + 2 * MSS, 1 + 20 * MSS) };
        cc.w.cwnd = 16 * MSS;
        cc.reset_dupacks();
        cc.on_dup_ack(&later);
        assert_eq!(rm(&mut cc).newcwnd, 8 * MSS);
    }

    #[test]
    fn vegas_rm_checks_the_first_two_new_acks_after_a_retransmission() {
        let mut cc = vegas_rm();
        let t = rm(&mut cc).fine.v_timeout;
        let c = AckCtx { now: 10 * t, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        cc.on_dup_ack(&c);
        // The next new ACK finds the (new) oldest segment also expired: the
        // second loss of the window is repaired without three duplicates.
        let a = AckCtx { now: 10 * t + 1, acked: MSS, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1 + MSS, 1 + 20 * MSS) };
        assert_eq!(cc.on_new_ack(&a), NewAckAction::RetransmitFirst);
        let b = AckCtx { now: 10 * t + 2, acked: MSS, oldest_sent_at: 10 * t, oldest_transmissions: 1, ..ctx(1 + 2 * MSS, 1 + 20 * MSS) };
        assert_eq!(cc.on_new_ack(&b), NewAckAction::Nothing);
        assert_eq!(rm(&mut cc).worried, 0);
    }

    #[test]
    fn a_worried_retransmission_rearms_the_check_so_every_expired_hole_is_repaired() {
        // Four holes in one window, each found expired by the next new ACK: the
        // duplicate-ACK retransmission repairs the first, and each worried
        // retransmission is itself "a retransmission" whose first and second
        // new ACKs are checked, so the second, third and fourth are repaired
        // without waiting for the coarse timer (ns-2 stops after the third).
        let mut cc = vegas_rm();
        let t = rm(&mut cc).fine.v_timeout;
        let c = AckCtx { now: 10 * t, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        cc.on_dup_ack(&c);
        for hole in 1..4u64 {
            let a =
                AckCtx { now: 10 * t + hole, acked: MSS, oldest_sent_at: 0, oldest_transmissions: 1, ..ctx(1 + hole * MSS, 1 + 20 * MSS) };
            assert_eq!(cc.on_new_ack(&a), NewAckAction::RetransmitFirst, "hole {hole}");
            assert_eq!(rm(&mut cc).worried, 2);
        }
        // An ACK whose oldest segment has not expired ends the checks.
        let b = AckCtx { now: 10 * t + 9, acked: MSS, oldest_sent_at: 10 * t, oldest_transmissions: 1, ..ctx(1 + 5 * MSS, 1 + 20 * MSS) };
        assert_eq!(cc.on_new_ack(&b), NewAckAction::Nothing);
        assert_eq!(rm(&mut cc).worried, 0);
    }

    fn window(cwnd: u64, dupacks: u32) -> Window {
        Window { cwnd, ssthresh: 1 << 30, mss: MSS, max_cwnd: 1 << 30, dupacks, decrease: (1, 2) }
    }

    /// A recovery whose fine timer has a sample and is still far from
    /// expiring at `now = 0`.
    fn fresh() -> VegasRm {
        let mut r = VegasRm::default();
        r.fine.sample(PS_PER_S);
        r
    }

    #[test]
    fn third_duplicate_retransmits_without_expiry_and_lengthens_the_timeout() {
        let mut r = fresh();
        let before = r.fine.v_timeout;
        let mut w = window(20 * MSS, 3);
        let c = AckCtx { now: 1, oldest_sent_at: 1, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(r.on_dup_ack(&mut w, &c), DupOutcome::FastRetransmit { restore_snd_nxt: true, cut_to: Some(15 * MSS) });
        assert_eq!(r.fine.v_timeout, before + before / 8);
        assert_eq!(w.cwnd, 15 * MSS + 3 * MSS, "newcwnd + dupacks");
        assert_eq!(r.worried, 2);
        // An expired retransmitted segment doubles the timeout and leaves
        // the duplicate count as it is.
        let before = r.fine.v_timeout;
        let mut w = window(20 * MSS, 5);
        r.on_dup_ack(&mut w, &AckCtx { now: 10 * PS_PER_S, oldest_transmissions: 2, ..c });
        assert_eq!(r.fine.v_timeout, 2 * before);
        assert_eq!(w.dupacks, 5);
    }

    #[test]
    fn small_windows_fall_to_two_segments_and_the_peer_window_counts() {
        let mut r = fresh();
        let mut w = window(3 * MSS, 3);
        let c = AckCtx { now: 1, oldest_sent_at: 1, oldest_transmissions: 1, ..ctx(1, 1 + 3 * MSS) };
        r.on_dup_ack(&mut w, &c);
        assert_eq!(r.newcwnd, 2 * MSS);
        let mut r = fresh();
        let mut w = window(40 * MSS, 3);
        r.on_dup_ack(&mut w, &AckCtx { snd_wnd: 8 * MSS, ..c });
        assert_eq!(r.newcwnd, 6 * MSS, "3/4 of min(cwnd, peer window)");
    }

    #[test]
    fn duplicates_after_the_retransmission_inflate_and_the_new_ack_deflates() {
        let mut r = fresh();
        let mut w = window(20 * MSS, 3);
        let c = AckCtx { now: 1, oldest_sent_at: 1, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        r.on_dup_ack(&mut w, &c);
        w.dupacks = 4;
        assert_eq!(r.on_dup_ack(&mut w, &c), DupOutcome::Send);
        assert_eq!(w.cwnd, 19 * MSS);
        let out = r.on_new_ack(&mut w, &AckCtx { now: 2, ..ctx(1 + MSS, 1 + 20 * MSS) }, 4);
        assert!(out.left_recovery && out.grow);
        assert_eq!(w.cwnd, 15 * MSS);
        // Exactly three duplicates: no deflation.
        let mut w = window(18 * MSS, 0);
        let out = r.on_new_ack(&mut w, &AckCtx { now: 3, ..ctx(1 + 2 * MSS, 1 + 20 * MSS) }, 3);
        assert!(!out.left_recovery);
        assert_eq!(w.cwnd, 18 * MSS);
    }

    #[test]
    fn after_a_timeout_no_action_until_its_window_is_acknowledged() {
        let mut r = fresh();
        r.on_timeout(&AckCtx { now: 5, ..ctx(1, 1 + 20 * MSS) });
        assert_eq!((r.t_cwnd_changed, r.worried, r.timeout_recover), (5, 0, Some(1 + 20 * MSS)));
        let mut w = window(MSS, 3);
        let c = AckCtx { now: 10 * PS_PER_S, oldest_sent_at: 0, oldest_transmissions: 2, ..ctx(1 + 5 * MSS, 1 + 20 * MSS) };
        assert_eq!(r.on_dup_ack(&mut w, &c), DupOutcome::Nothing);
        // The ACK of the timeout's window clears the guard.
        r.on_new_ack(&mut w, &ctx(1 + 20 * MSS, 1 + 25 * MSS), 0);
        assert_eq!(r.timeout_recover, None);
        w.dupacks = 3;
        assert!(matches!(r.on_dup_ack(&mut w, &ctx(1 + 20 * MSS, 1 + 25 * MSS)), DupOutcome::FastRetransmit { .. }));
    }

    #[test]
    fn a_decrease_only_for_segments_sent_after_the_last_one() {
        let mut r = fresh();
        r.t_cwnd_changed = 100;
        let mut w = window(20 * MSS, 3);
        let c = AckCtx { now: 200, oldest_sent_at: 100, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        assert_eq!(r.on_dup_ack(&mut w, &c), DupOutcome::FastRetransmit { restore_snd_nxt: true, cut_to: None });
        assert_eq!(w.cwnd, 20 * MSS);
    }
}
