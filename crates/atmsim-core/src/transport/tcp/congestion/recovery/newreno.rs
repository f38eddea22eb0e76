//! NewReno (RFC 6582; Hoe 1996): fast recovery lasts until everything sent
//! before the loss is acknowledged; each partial ACK on the way retransmits
//! the next hole, so several losses in a window are repaired without a
//! timeout and with one window reduction. Used for comparison runs.

use super::{AckOutcome, DupOutcome, LossRecovery, Recovery, THRESH};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::{declare, on_lite, topology1, AckCtx, NewAckAction, TcpVariant, Window};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// In recovery until `recover` is acknowledged.
    in_recovery: bool,
    /// `snd_max` when recovery began or at the last timeout (RFC 6582's
    /// `recover`; 0, the initial send sequence, at first).
    recover: u64,
    /// Partial ACKs in this recovery (only the first restarts the timer).
    partial_acks: u32,
}

impl LossRecovery for NewReno {
    const VARIANTS: &'static [TcpVariant] = &[on_lite(
        declare(
            "newreno",
            "Lite with NewReno partial-ACK recovery (RFC 6582), for comparison",
            &[
                topology1("newreno", &["tcp.variant=newreno"]),
                Golden { scenario: "aron97-topo2-packet", variation: "newreno", overrides: &["tcp.variant=newreno", "tcp.tick=100ms"] },
            ],
        ),
        || Recovery::NewReno(NewReno::default()),
    )];

    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate for each further duplicate.
            w.inflate();
            DupOutcome::Send
        } else if w.dupacks == THRESH && c.snd_una > self.recover {
            // RFC 6582 §3.2 step 2: only when the ACK covers more than
            // `recover` ("ack − 1 > recover"), keeping one reduction per
            // window; then RFC 5681 §3.2 steps 2–3 with the flight size.
            let flight = c.snd_max - c.snd_una;
            w.ssthresh = w.loss_ssthresh(c, w.reduced_flight(flight));
            self.recover = c.snd_max;
            self.in_recovery = true;
            self.partial_acks = 0;
            w.cwnd = w.ssthresh + THRESH as u64 * w.mss;
            DupOutcome::FastRetransmit { restore_snd_nxt: true, cut_to: None }
        } else {
            DupOutcome::Nothing
        }
    }

    /// RFC 6582 §3.2 step 3; no window growth while in recovery.
    fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, _dupacks: u32) -> AckOutcome {
        if !self.in_recovery {
            return AckOutcome::GROW;
        }
        if c.snd_una >= self.recover {
            // Full ACK: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
            let flight = c.snd_max.saturating_sub(c.snd_una);
            w.cwnd = w.ssthresh.min(flight.max(w.mss) + w.mss);
            self.in_recovery = false;
            return AckOutcome { action: NewAckAction::Nothing, grow: false, left_recovery: true };
        }
        // Partial ACK: deflate by the data acknowledged, add back one MSS if
        // at least one was acknowledged, retransmit the hole.
        w.cwnd = w.cwnd.saturating_sub(c.acked);
        if c.acked >= w.mss {
            w.cwnd += w.mss;
        }
        w.cwnd = w.cwnd.max(w.mss);
        self.partial_acks += 1;
        // Only the first partial ACK restarts the retransmit timer (RFC
        // 6582 §3.2 step 3 and §4: RFC 3782's "Impatient" variant).
        let action = if self.partial_acks == 1 { NewAckAction::RetransmitFirst } else { NewAckAction::RetransmitFirstKeepTimer };
        AckOutcome { action, grow: false, left_recovery: false }
    }

    /// RFC 6582 §3.2 step 4: leave recovery, `recover` = highest sent.
    fn on_timeout(&mut self, c: &AckCtx) {
        self.in_recovery = false;
        self.recover = c.snd_max;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::testutil::{cc, ctx, fr, new_ack, MSS};
    use crate::transport::tcp::congestion::{CongestionControl, DupAckAction, Recovery, variant};

    fn newreno(cc: &mut CongestionControl) -> &mut NewReno {
        let Recovery::NewReno(r) = &mut cc.recovery else { panic!("newreno") };
        r
    }

    /// A NewReno controller in recovery after a loss at 1 with 20 segments
    /// outstanding and cwnd 20 segments.
    fn recovering() -> CongestionControl {
        let mut cc = cc(variant("newreno").unwrap());
        cc.w.cwnd = 20 * MSS;
        let c = ctx(1, 1 + 20 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        cc
    }

    #[test]
    fn newreno_partial_ack_retransmits_and_stays_in_recovery() {
        let mut cc = recovering();
        assert!(cc.in_recovery());
        assert_eq!(cc.ssthresh(), 10 * MSS);
        assert_eq!(new_ack(&mut cc, 5 * MSS, 1 + 5 * MSS, 1 + 20 * MSS), NewAckAction::RetransmitFirst);
        assert!(cc.in_recovery());
        assert_eq!(new_ack(&mut cc, MSS, 1 + 6 * MSS, 1 + 20 * MSS), NewAckAction::RetransmitFirstKeepTimer);
        assert_eq!(new_ack(&mut cc, 14 * MSS, 1 + 20 * MSS, 1 + 20 * MSS), NewAckAction::Nothing);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd(), MSS + MSS, "min(ssthresh, max(flight=0, MSS) + MSS)");
        // A later loss below the old recovery point does not reduce again.
        cc.w.cwnd = 20 * MSS;
        let mut cc2 = cc.clone();
        newreno(&mut cc2).recover = 1 + 30 * MSS;
        let again = ctx(1 + 20 * MSS, 1 + 30 * MSS);
        for _ in 0..3 {
            assert_eq!(cc2.on_dup_ack(&again), DupAckAction::Nothing);
        }
    }

    #[test]
    fn enters_on_the_third_duplicate_with_half_the_flight() {
        let mut cc = cc(variant("newreno").unwrap());
        cc.w.cwnd = 30 * MSS;
        // Flight 12 segments (less than cwnd): ssthresh 6, cwnd 6 + 3.
        let c = ctx(1, 1 + 12 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), fr(1, true));
        assert_eq!((cc.ssthresh(), cc.cwnd()), (6 * MSS, 9 * MSS));
        assert_eq!(newreno(&mut cc).recover, 1 + 12 * MSS);
        // A small flight still leaves two segments.
        let mut cc = cc_with_flight(3);
        assert_eq!(cc.ssthresh(), 2 * MSS);
        assert!(newreno(&mut cc).in_recovery);
    }

    fn cc_with_flight(segments: u64) -> CongestionControl {
        let mut cc = cc(variant("newreno").unwrap());
        cc.w.cwnd = 30 * MSS;
        for _ in 0..3 {
            cc.on_dup_ack(&ctx(1, 1 + segments * MSS));
        }
        cc
    }

    #[test]
    fn further_duplicates_in_recovery_inflate() {
        let mut cc = recovering();
        assert_eq!(cc.cwnd(), 13 * MSS);
        assert_eq!(cc.on_dup_ack(&ctx(1, 1 + 20 * MSS)), DupAckAction::Send);
        assert_eq!(cc.cwnd(), 14 * MSS);
    }

    #[test]
    fn partial_ack_deflation_rules() {
        // Less than one MSS acknowledged: deflate only, no MSS added back.
        let mut cc = recovering();
        new_ack(&mut cc, 500, 501, 1 + 20 * MSS);
        assert_eq!(cc.cwnd(), 13 * MSS - 500);
        // More acknowledged than the window: never below one MSS.
        let mut cc = recovering();
        cc.w.cwnd = 3 * MSS;
        new_ack(&mut cc, 10 * MSS, 1 + 10 * MSS, 1 + 20 * MSS);
        assert_eq!(cc.cwnd(), MSS);
    }

    #[test]
    fn full_ack_with_data_still_outstanding() {
        let mut cc = recovering();
        // New data was sent during recovery: 5 segments beyond `recover`.
        new_ack(&mut cc, 20 * MSS, 1 + 20 * MSS, 1 + 25 * MSS);
        assert_eq!(cc.cwnd(), 6 * MSS, "min(ssthresh 10, flight 5 + 1)");
        // Out of recovery the window grows again.
        new_ack(&mut cc, MSS, 1 + 21 * MSS, 1 + 25 * MSS);
        assert_eq!(cc.cwnd(), 7 * MSS);
    }

    #[test]
    fn timeout_ends_recovery_and_moves_recover() {
        let mut cc = recovering();
        cc.on_timeout(&ctx(1, 1 + 25 * MSS));
        assert!(!cc.in_recovery());
        assert_eq!(newreno(&mut cc).recover, 1 + 25 * MSS);
        // Duplicates from the go-back-N below the timeout's recovery point
        // do not fast-retransmit.
        for _ in 0..3 {
            assert_eq!(cc.on_dup_ack(&ctx(1 + 3 * MSS, 1 + 25 * MSS)), DupAckAction::Nothing);
        }
    }
}
