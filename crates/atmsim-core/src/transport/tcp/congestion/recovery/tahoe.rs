//! Tahoe fast retransmit (4.3BSD-Tahoe; Jacobson 1988; Fall & Floyd 1996):
//! on the third duplicate ACK halve ssthresh, set cwnd to one segment and
//! retransmit; no fast recovery. The sender continues from the
//! retransmitted segment (go-back-N, as ns's Tahoe), not where it was.

use super::{AckOutcome, DupOutcome, LossRecovery, Recovery, THRESH};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::{declare, on_lite, topology1, AckCtx, TcpVariant, Window};

#[derive(Clone, Debug, Default)]
pub struct Tahoe {
    /// `snd_max` at the last fast retransmission or timeout: no fast
    /// retransmission until it is passed.
    recover: u64,
}

impl LossRecovery for Tahoe {
    const VARIANTS: &'static [TcpVariant] = &[on_lite(
        declare(
            "tahoe",
            "4.3BSD-Tahoe: fast retransmit without fast recovery",
            &[
                topology1("tahoe", &["tcp.variant=tahoe"]),
                Golden { scenario: "aron97-topo1-packet", variation: "tahoe-cells", overrides: &["tcp.variant=tahoe", "switch.buffer=21packets"] },
            ],
        ),
        || Recovery::Tahoe(Tahoe::default()),
    )];

    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
        // Go-back-N resends data the receiver already holds; its duplicate
        // ACKs must not trigger another fast retransmit before the old
        // window is acknowledged (ns-2 `bug_fix_`; RFC 6582 §4 keeps the
        // same guard after a timeout).
        if w.dupacks == THRESH && c.snd_una > self.recover {
            w.ssthresh = w.loss_ssthresh(c, w.half(c.snd_wnd));
            w.cwnd = w.mss;
            self.recover = c.snd_max;
            DupOutcome::FastRetransmit { restore_snd_nxt: false, cut_to: None }
        } else {
            DupOutcome::Nothing
        }
    }

    /// No recovery to end: slow start resumes from one segment.
    fn on_new_ack(&mut self, _w: &mut Window, _c: &AckCtx, _dupacks: u32) -> AckOutcome {
        AckOutcome::GROW
    }

    /// The go-back-N after a timeout resends the window too.
    fn on_timeout(&mut self, c: &AckCtx) {
        self.recover = c.snd_max;
    }
}

#[cfg(test)]
mod tests {
    use crate::transport::tcp::congestion::testutil::{cc, ctx, fr, new_ack, MSS};
    use crate::transport::tcp::congestion::{DupAckAction, Recovery, variant};

    #[test]
    fn tahoe_fast_retransmit_restarts_from_one_segment() {
        let mut cc = cc(variant("tahoe").unwrap());
        cc.w.cwnd = 16 * MSS;
        let c = ctx(1, 16 * MSS);
        cc.on_dup_ack(&c);
        cc.on_dup_ack(&c);
        assert_eq!(cc.on_dup_ack(&c), fr(1, false));
        assert_eq!(cc.cwnd(), MSS);
        assert_eq!(cc.ssthresh(), 8 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        // Duplicates caused by the go-back-N resend of the same window do
        // not fast-retransmit again.
        cc.reset_dupacks();
        let same_window = ctx(1 + 5 * MSS, 16 * MSS);
        for _ in 0..3 {
            assert_eq!(cc.on_dup_ack(&same_window), DupAckAction::Nothing);
        }
    }

    #[test]
    fn no_inflation_and_slow_start_after_the_retransmission() {
        let mut cc = cc(variant("tahoe").unwrap());
        cc.w.cwnd = 16 * MSS;
        let c = ctx(1, 16 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        for _ in 0..5 {
            assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
            assert_eq!(cc.cwnd(), MSS);
        }
        // The ACK of the retransmission: no deflation, one MSS of slow start.
        new_ack(&mut cc, 5 * MSS, 1 + 5 * MSS, 16 * MSS);
        assert_eq!(cc.cwnd(), 2 * MSS);
    }

    #[test]
    fn a_loss_beyond_the_old_window_fast_retransmits_again() {
        let mut cc = cc(variant("tahoe").unwrap());
        cc.w.cwnd = 16 * MSS;
        for _ in 0..3 {
            cc.on_dup_ack(&ctx(1, 16 * MSS));
        }
        new_ack(&mut cc, 16 * MSS, 16 * MSS + 1, 20 * MSS);
        let later = ctx(16 * MSS + 1, 20 * MSS);
        cc.on_dup_ack(&later);
        cc.on_dup_ack(&later);
        assert_eq!(cc.on_dup_ack(&later), fr(1, false));
    }

    #[test]
    fn a_timeout_moves_the_guard_to_the_highest_sequence_sent() {
        let mut cc = cc(variant("tahoe").unwrap());
        cc.on_timeout(&ctx(1, 30 * MSS));
        let Recovery::Tahoe(t) = &cc.recovery else { panic!("tahoe") };
        assert_eq!(t.recover, 30 * MSS);
        for _ in 0..3 {
            assert_eq!(cc.on_dup_ack(&ctx(1 + 10 * MSS, 30 * MSS)), DupAckAction::Nothing);
        }
    }
}
