//! The controller's own rules: timeouts, AFR around any recovery, and the
//! composition of growth and recovery.

use super::testutil::{cc, ctx, fr, new_ack, MSS};
use super::*;
use crate::transport::tcp::afr::Predictor;

#[test]
fn timeout_halves_into_ssthresh_and_restarts_at_one_segment() {
    let mut cc = cc(variant("lite").unwrap());
    cc.w.cwnd = 9 * MSS;
    cc.on_timeout(&ctx(1, 9 * MSS));
    assert_eq!(cc.ssthresh(), 4 * MSS);
    assert_eq!(cc.cwnd(), MSS);
    cc.w.cwnd = 3 * MSS;
    cc.on_timeout(&ctx(1, 3 * MSS));
    assert_eq!(cc.ssthresh(), 2 * MSS, "never below two segments");
}

#[test]
fn timeout_halves_the_smaller_of_peer_window_and_cwnd_and_clears_dupacks() {
    let mut cc = cc(variant("lite").unwrap());
    cc.w.cwnd = 30 * MSS;
    cc.on_dup_ack(&ctx(1, 30 * MSS));
    cc.on_timeout(&AckCtx { snd_wnd: 10 * MSS, ..ctx(1, 30 * MSS) });
    assert_eq!(cc.ssthresh(), 5 * MSS);
    assert_eq!(cc.dupacks(), 0);
}

fn with_afr(variant: Variant) -> CongestionControl {
    let mut cc = CongestionControl::new(variant, MSS, 1, 1 << 30, true, Some(Afr::new(Predictor::Saturating)));
    cc.w.cwnd = 20 * MSS;
    cc
}

/// Two consecutive-loss episodes: the ACK after each retransmission stops
/// exactly at its end.
fn learn_consecutive(cc: &mut CongestionControl) {
    for k in 0..2 {
        let c = ctx(1 + k * 4 * MSS, 1 + 20 * MSS);
        for _ in 0..3 {
            cc.on_dup_ack(&c);
        }
        new_ack(cc, MSS, c.snd_una + MSS, 1 + 20 * MSS);
    }
}

#[test]
fn afr_doubles_the_fast_retransmission_in_double_states() {
    let mut cc = with_afr(variant("lite").unwrap());
    let c = ctx(1, 1 + 20 * MSS);
    learn_consecutive(&mut cc);
    assert_eq!(cc.afr().unwrap().state, 2);
    for _ in 0..2 {
        cc.on_dup_ack(&c);
    }
    assert_eq!(cc.on_dup_ack(&c), fr(2, true));
}

#[test]
fn afr_doubles_whichever_recovery_decides_and_keeps_its_snd_nxt_rule() {
    for (variant, restore) in
        [(variant("tahoe").unwrap(), false), (variant("newreno").unwrap(), true), (variant("vegas-rm").unwrap(), true)]
    {
        let mut cc = with_afr(variant);
        cc.afr_mut().unwrap().state = 3;
        let c = ctx(1, 1 + 20 * MSS);
        cc.on_dup_ack(&c);
        cc.on_dup_ack(&c);
        assert_eq!(cc.on_dup_ack(&c), fr(2, restore), "{variant:?}");
        assert_eq!(cc.afr().unwrap().extra_retransmits, 1);
    }
}

#[test]
fn afr_learns_through_a_vegas_rm_recovery() {
    let mut cc = with_afr(variant("vegas-rm").unwrap());
    learn_consecutive(&mut cc);
    assert_eq!(cc.afr().unwrap().state, 2);
}

#[test]
fn afr_single_when_nothing_follows_the_lost_segment() {
    let mut cc = with_afr(variant("lite").unwrap());
    cc.afr_mut().unwrap().state = 3;
    let c = ctx(1, 1 + MSS);
    cc.on_dup_ack(&c);
    cc.on_dup_ack(&c);
    assert_eq!(cc.on_dup_ack(&c), fr(1, true));
}

#[test]
fn a_timeout_ends_the_afr_episode_without_a_verdict() {
    let mut cc = with_afr(variant("lite").unwrap());
    let c = ctx(1, 1 + 20 * MSS);
    for _ in 0..3 {
        cc.on_dup_ack(&c);
    }
    cc.on_timeout(&c);
    new_ack(&mut cc, MSS, 1 + MSS, 1 + 20 * MSS);
    let afr = cc.afr().unwrap();
    assert_eq!((afr.state, afr.episodes_consecutive, afr.episodes_single), (0, 0, 0));
}

#[test]
fn reset_dupacks_restarts_the_count() {
    let mut cc = cc(variant("lite").unwrap());
    cc.w.cwnd = 20 * MSS;
    let c = ctx(1, 20 * MSS);
    cc.on_dup_ack(&c);
    cc.on_dup_ack(&c);
    cc.reset_dupacks();
    assert_eq!(cc.dupacks(), 0);
    assert_eq!(cc.on_dup_ack(&c), DupAckAction::Nothing);
}

#[test]
fn variants_name_their_growth_and_recovery() {
    let parts = |v: Variant| {
        let cc = cc(v);
        (cc.growth().clone(), cc.recovery().clone())
    };
    assert!(matches!(parts(variant("lite").unwrap()), (Growth::Lite(_), Recovery::Lite(_))));
    assert!(matches!(parts(variant("tahoe").unwrap()), (Growth::Lite(_), Recovery::Tahoe(_))));
    assert!(matches!(parts(variant("newreno").unwrap()), (Growth::Lite(_), Recovery::NewReno(_))));
    assert!(matches!(parts(variant("vegas-rm").unwrap()), (Growth::Lite(_), Recovery::VegasRm(_))));
    assert!(matches!(parts(variant("vegas").unwrap()), (Growth::Vegas(_), Recovery::VegasRm(_))));
    let Growth::Lite(g) = (variant("lite").unwrap().growth)(false) else { unreachable!() };
    assert!(!g.bp95());
    assert_eq!(variant("vegas-rm").unwrap().initial_window, 1);
    assert_eq!(cc(variant("vegas").unwrap()).window().ssthresh, 65535 << 14);
}

/// Vegas-RM with Lite's growth resumes avoidance from the decreased window;
/// with Vegas's growth ssthresh drops to two segments when recovery ends.
#[test]
fn the_growth_chooses_ssthresh_around_a_vegas_rm_recovery() {
    for (variant, cut_ssthresh, exit_ssthresh) in
        [(variant("vegas-rm").unwrap(), 15 * MSS, 15 * MSS), (variant("vegas").unwrap(), 1 << 30, 2 * MSS)]
    {
        let mut cc = cc(variant);
        cc.w.cwnd = 20 * MSS;
        cc.w.ssthresh = 1 << 30;
        // The lost segment was sent once, after the last decrease (at 0).
        let c = AckCtx { now: 10, oldest_sent_at: 5, oldest_transmissions: 1, ..ctx(1, 1 + 20 * MSS) };
        for _ in 0..4 {
            cc.on_dup_ack(&c);
        }
        assert_eq!(cc.ssthresh(), cut_ssthresh, "{variant:?}");
        assert_eq!(cc.cwnd(), 19 * MSS, "{variant:?}: 15 + 3, inflated by one");
        cc.on_new_ack(&AckCtx { acked: MSS, ..ctx(1 + MSS, 1 + 20 * MSS) });
        assert_eq!(cc.ssthresh(), exit_ssthresh, "{variant:?}");
    }
}

/// Parts no variant names still compose: Lite's recovery ending under
/// Vegas's growth leaves the window in Vegas's avoidance.
#[test]
fn with_parts_composes_any_growth_with_any_recovery() {
    let growth = Growth::Vegas(growth::vegas::Vegas::new());
    let recovery = Recovery::Lite(recovery::lite::Lite);
    let mut cc = CongestionControl::with_parts(Window::new(MSS, 20, 1 << 30), growth, recovery, None);
    let c = ctx(1, 1 + 20 * MSS);
    for _ in 0..4 {
        cc.on_dup_ack(&c);
    }
    assert_eq!((cc.ssthresh(), cc.cwnd()), (10 * MSS, 14 * MSS));
    new_ack(&mut cc, MSS, 1 + MSS, 1 + 20 * MSS);
    assert_eq!(cc.ssthresh(), 2 * MSS);
    cc.on_timeout(&c);
    assert_eq!(cc.cwnd(), 2 * MSS, "Vegas's restart window");
}
