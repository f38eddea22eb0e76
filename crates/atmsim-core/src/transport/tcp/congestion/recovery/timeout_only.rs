//! No fast retransmit at all: duplicate ACKs do nothing and only the
//! retransmission timer recovers a loss. Jain et al.'s TCP ("TCP/IP over
//! ABR", slide "TCP/IP Parameters": "Fast retransmit/recovery not completely
//! experimented"; their main runs recover by timeout).

use super::{AckOutcome, DupOutcome, LossRecovery, Recovery};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::{declare, on_lite, AckCtx, TcpVariant, Window};

#[derive(Clone, Debug, Default)]
pub struct TimeoutOnly;

impl LossRecovery for TimeoutOnly {
    const VARIANTS: &'static [TcpVariant] = &[on_lite(
        declare(
            "timeout-only",
            "slow start and congestion avoidance, no fast retransmit (Jain et al. 1996)",
            &[Golden { scenario: "jain96-2src", variation: "", overrides: &[] }],
        ),
        || Recovery::TimeoutOnly(TimeoutOnly),
    )];

    fn on_dup_ack(&mut self, _w: &mut Window, _c: &AckCtx) -> DupOutcome {
        DupOutcome::Nothing
    }

    fn on_new_ack(&mut self, _w: &mut Window, _c: &AckCtx, _dupacks: u32) -> AckOutcome {
        AckOutcome::GROW
    }

    fn on_timeout(&mut self, _c: &AckCtx) {}
}

#[cfg(test)]
mod tests {
    use crate::transport::tcp::congestion::testutil::{cc, ctx, MSS};
    use crate::transport::tcp::congestion::{DupAckAction, variant};

    #[test]
    fn duplicate_acks_never_retransmit_nor_touch_the_window() {
        let mut cc = cc(variant("timeout-only").unwrap());
        cc.w.cwnd = 16 * MSS;
        let c = ctx(1, 16 * MSS);
        for _ in 0..10 {
            assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
        }
        assert_eq!(cc.cwnd(), 16 * MSS);
    }
}
