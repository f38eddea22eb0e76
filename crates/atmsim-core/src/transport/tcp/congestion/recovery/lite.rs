//! 4.4BSD-Lite fast retransmit and fast recovery (`tcp_input.c`; Jacobson's
//! 1990 "Reno" algorithm, later RFC 5681 §3.2): on the third duplicate ACK
//! halve the window, retransmit the missing segment, then inflate by one MSS
//! per further duplicate; the next new ACK deflates to ssthresh.
//!
//! Consequences the papers rely on: a partial ACK also ends recovery (no
//! NewReno), so a second loss in the window needs three new duplicates or a
//! timeout, and each further fast retransmission halves again — two losses
//! found by duplicate ACKs quarter the window (Aron & Druschel §5.1).

use super::{AckOutcome, DupOutcome, LossRecovery, Recovery, THRESH};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::{declare, on_lite, topology1, with_afr, AckCtx, TcpVariant, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Lite;

impl LossRecovery for Lite {
    const VARIANTS: &'static [TcpVariant] = &[
        on_lite(
            declare(
                "lite",
                "4.4BSD-Lite: slow start, congestion avoidance, Reno fast retransmit and fast recovery",
                &[Golden { scenario: "aron97-topo1-atm", variation: "", overrides: &[] }],
            ),
            || Recovery::Lite(Lite),
        ),
        TcpVariant {
            afr: true,
            ..on_lite(
                with_afr("lite-afr", "Lite with Adaptive Fast Retransmit", &[topology1("lite-afr", &["tcp.variant=lite-afr"])]),
                || Recovery::Lite(Lite),
            )
        },
    ];

    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
        let d = w.dupacks;
        if d == THRESH {
            w.ssthresh = w.loss_ssthresh(c, w.half(c.snd_wnd));
            // The sender retransmits with cwnd = 1 MSS, then inflates by the
            // three segments that left the network.
            w.cwnd = w.ssthresh + THRESH as u64 * w.mss;
            DupOutcome::FastRetransmit { restore_snd_nxt: true, cut_to: None }
        } else if d > THRESH {
            w.inflate();
            DupOutcome::Send
        } else {
            DupOutcome::Nothing
        }
    }

    /// Deflate after fast recovery. The test is strict, `t_dupacks >
    /// tcprexmtthresh`, verbatim in 4.4BSD-Lite and Lite2 `tcp_input.c`: a
    /// new ACK after exactly three duplicates keeps ssthresh + 3 MSS. The
    /// growth then adds a full MSS, as cwnd == ssthresh is not "> ssthresh".
    fn on_new_ack(&mut self, w: &mut Window, _c: &AckCtx, dupacks: u32) -> AckOutcome {
        let left_recovery = dupacks > THRESH && w.cwnd > w.ssthresh;
        if left_recovery {
            w.cwnd = w.ssthresh;
        }
        AckOutcome { left_recovery, ..AckOutcome::GROW }
    }

    fn on_timeout(&mut self, _c: &AckCtx) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::testutil::{cc, ctx, fr, new_ack, MSS};
    use crate::transport::tcp::congestion::{DupAckAction, variant};

    #[test]
    fn lite_fast_retransmit_on_third_dup_ack_and_inflation() {
        let mut cc = cc(variant("lite").unwrap());
        cc.w.cwnd = 20 * MSS;
        cc.w.ssthresh = 100 * MSS;
        let c = ctx(1, 20 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        assert_eq!(cc.on_dup_ack(&c), fr(1, true));
        assert_eq!(cc.ssthresh(), 10 * MSS);
        assert_eq!(cc.cwnd(), 13 * MSS);
        assert_eq!(cc.on_dup_ack(&c), DupAckAction::Send);
        assert_eq!(cc.cwnd(), 14 * MSS);
        // The recovering ACK deflates to ssthresh, then adds a full MSS
        // because cwnd == ssthresh is not > ssthresh.
        new_ack(&mut cc, MSS, 1 + MSS, 20 * MSS);
        assert_eq!(cc.cwnd(), 11 * MSS);
    }

    #[test]
    fn lite_exactly_three_dups_do_not_deflate() {
        let mut cc = cc(variant("lite").unwrap());
        cc.w.cwnd = 20 * MSS;
        let c = ctx(1, 20 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        new_ack(&mut cc, MSS, 1 + MSS, 20 * MSS);
        // ssthresh + 3 MSS + MSS²/cwnd (congestion avoidance).
        assert_eq!(cc.cwnd(), 13 * MSS + MSS * MSS / (13 * MSS));
    }

    #[test]
    fn two_fast_retransmits_quarter_the_window() {
        let mut cc = cc(variant("lite").unwrap());
        cc.w.cwnd = 32 * MSS;
        let c = ctx(1, 32 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        new_ack(&mut cc, MSS, 1 + MSS, 32 * MSS); // partial ACK ends recovery
        let before = cc.ssthresh();
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        assert!(cc.ssthresh() <= before / 2 + 2 * MSS, "{} vs {}", cc.ssthresh(), before);
        assert!(cc.ssthresh() <= 32 * MSS / 4 + 2 * MSS);
    }

    fn window(cwnd: u64, dupacks: u32) -> Window {
        Window { cwnd, ssthresh: 1 << 30, mss: MSS, max_cwnd: 1 << 30, dupacks, decrease: (1, 2) }
    }

    #[test]
    fn halving_takes_the_smaller_of_peer_window_and_cwnd_in_whole_segments() {
        let mut w = window(20 * MSS, 3);
        let c = ctx(1, 20 * MSS);
        Lite.on_dup_ack(&mut w, &crate::transport::tcp::congestion::AckCtx { snd_wnd: 9 * MSS + 500, ..c });
        assert_eq!(w.ssthresh, 4 * MSS, "9.5 segments / 2, truncated");
        let mut w = window(3 * MSS, 3);
        Lite.on_dup_ack(&mut w, &c);
        assert_eq!(w.ssthresh, 2 * MSS, "never below two segments");
        assert_eq!(w.cwnd, 5 * MSS);
    }

    #[test]
    fn inflation_is_capped_by_the_window_limit() {
        let mut w = window(20 * MSS, 4);
        w.max_cwnd = 20 * MSS + 500;
        assert_eq!(Lite.on_dup_ack(&mut w, &ctx(1, 20 * MSS)), DupOutcome::Send);
        assert_eq!(w.cwnd, 20 * MSS + 500);
    }

    #[test]
    fn no_deflation_when_the_window_is_not_above_ssthresh() {
        let mut w = window(8 * MSS, 0);
        w.ssthresh = 10 * MSS;
        assert_eq!(Lite.on_new_ack(&mut w, &ctx(1, 8 * MSS), 5), AckOutcome::GROW);
        assert_eq!(w.cwnd, 8 * MSS);
        w.ssthresh = 4 * MSS;
        let out = Lite.on_new_ack(&mut w, &ctx(1, 8 * MSS), 5);
        assert!(out.left_recovery && out.grow);
        assert_eq!(w.cwnd, 4 * MSS);
    }
}
