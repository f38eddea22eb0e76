//! ECN at a whole sender and receiver (RFC 3168 §6.1), case by case, for
//! every variant: the handshake, ECT on new data only, the window halved
//! once per window of data, CWR, and the receiver's echo.

use super::tests::{cfg, MSS};
use super::*;
use crate::net::{flags, Segment};
use crate::time::PS_PER_MS;
use crate::transport::tcp::congestion::variant;
use crate::transport::tcp::ecn::EcnReceiver;

fn ecn_cfg(variant: Variant) -> TcpConfig {
    TcpConfig { ecn: true, ..cfg(variant) }
}

fn ack(n: u64, fl: u8) -> Segment {
    Segment { seq: 0, ack: n, len: 0, wnd: (64 * MSS) as u32, flags: flags::ACK | fl, opt: 0, sack: 0 }
}

/// An ECN sender after the handshake with an ECN receiver, grown to a
/// window of about `segs` segments by ACKs without ECE.
fn established(variant: Variant, segs: usize) -> TcpSender {
    let mut s = TcpSender::new(&ecn_cfg(variant), None);
    let mut r = TcpReceiver::new(64 * MSS as u32, MSS, false).with_ecn(EcnReceiver::default());
    let mut out = Vec::new();
    s.open(0, &mut out);
    assert_eq!(out[0].flags, flags::SYN | flags::ECE | flags::CWR, "an ECN-setup SYN");
    assert_eq!(r.on_segment(&out[0]), Reply::SynAck);
    let synack = r.make_ack(Reply::SynAck);
    assert_eq!(synack.flags, flags::SYN | flags::ACK | flags::ECE, "an ECN-setup SYN-ACK");
    s.on_ack(0, &synack, &mut out);
    assert!(s.ecn.as_ref().unwrap().active);
    // ACKs 1 ms apart: Vegas grows on its fine RTT samples.
    let mut next = 1 + MSS;
    for k in 0..segs {
        s.on_ack(k as u64 * PS_PER_MS, &ack(next, 0), &mut out);
        next += MSS;
    }
    s
}

#[test]
fn without_ecn_at_the_receiver_nothing_is_ect() {
    let mut s = TcpSender::new(&ecn_cfg(variant("lite").unwrap()), None);
    let mut r = TcpReceiver::new(64 * MSS as u32, MSS, false);
    let mut out = Vec::new();
    s.open(0, &mut out);
    r.on_segment(&out[0]);
    out.clear();
    s.on_ack(0, &r.make_ack(Reply::SynAck), &mut out);
    assert!(!out.is_empty() && out.iter().all(|x| x.flags == flags::ACK), "{out:?}");
}

#[test]
fn an_echo_halves_the_window_once_per_window_for_every_variant() {
    for variant in [
        variant("lite").unwrap(),
        variant("tahoe").unwrap(),
        variant("timeout-only").unwrap(),
        variant("newreno").unwrap(),
        variant("vegas-rm").unwrap(),
        variant("vegas").unwrap(),
        variant("sack").unwrap(),
    ] {
        let mut s = established(variant, 40);
        let (cwnd, una, max) = (s.cc.cwnd(), s.snd_una, s.snd_max);
        assert!(cwnd >= 3 * MSS, "{variant:?}: {cwnd}");
        let mut out = Vec::new();
        s.on_ack(0, &ack(una + MSS, flags::ECE), &mut out);
        let half = (cwnd.min(64 * MSS) / 2 / MSS).max(2) * MSS;
        assert!(half < cwnd);
        assert_eq!((s.cc.cwnd(), s.cc.ssthresh()), (half, half), "{variant:?}: halved, not grown by the ACK");
        assert!(out.iter().all(|x| x.seq >= max), "{variant:?}: nothing retransmitted");
        assert_eq!(s.stats.segments_retransmitted, 0, "{variant:?}");
        // More echoes of the same window: no second reduction.
        // More echoes of the same window (data sent before the reduction):
        // no second reduction.
        let mut echoes = 1;
        for k in 2.. {
            if una + k * MSS > max {
                break;
            }
            s.on_ack(0, &ack(una + k * MSS, flags::ECE), &mut out);
            echoes += 1;
        }
        assert!(echoes >= 3 && s.cc.cwnd() <= half, "{variant:?}: once per window");
        let e = s.ecn.as_ref().unwrap().stats;
        assert_eq!((e.echoes, e.reductions), (echoes, 1), "{variant:?}");
    }
}

#[test]
fn cwr_rides_on_the_first_new_data_after_a_reduction_and_the_next_window_may_reduce_again() {
    let mut s = established(variant("lite").unwrap(), 12);
    let mut out = Vec::new();
    let una = s.snd_una;
    s.on_ack(0, &ack(una + MSS, flags::ECE), &mut out);
    // The halved window has no room yet; ACKs without ECE open it.
    let mut next = una + 2 * MSS;
    while out.is_empty() {
        s.on_ack(0, &ack(next, 0), &mut out);
        next += MSS;
    }
    assert_eq!(out[0].flags, flags::ACK | flags::ECT | flags::CWR, "{out:?}");
    assert!(out[1..].iter().all(|x| x.flags == flags::ACK | flags::ECT));
    let boundary = s.ecn.as_ref().map(|_| out[0].seq).unwrap();
    let cwnd = s.cc.cwnd();
    // An echo of data sent before the reduction: ignored; of data after: reduces.
    s.on_ack(0, &ack(next, flags::ECE), &mut out);
    assert_eq!(s.cc.cwnd(), cwnd);
    s.on_ack(0, &ack(boundary + MSS, flags::ECE), &mut out);
    assert!(s.cc.cwnd() < cwnd, "the next window reduces again");
    assert_eq!(s.ecn.as_ref().unwrap().stats.reductions, 2);
}

#[test]
fn retransmissions_are_not_ect() {
    let mut s = established(variant("lite").unwrap(), 10);
    let una = s.snd_una;
    let mut out = Vec::new();
    for _ in 0..3 {
        s.on_ack(0, &ack(una, 0), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(out[0].seq, una);
    assert_eq!(out[0].flags & flags::ECT, 0, "a fast retransmission");
    // The fast retransmit was this window's reduction: an echo now does not cut again.
    let ssthresh = s.cc.ssthresh();
    s.on_ack(0, &ack(una, flags::ECE), &mut out);
    assert_eq!(s.cc.ssthresh(), ssthresh);
    out.clear();
    while s.stats.timeouts == 0 {
        s.on_slow_tick(0, &mut out);
    }
    assert!(out.iter().all(|x| x.seq >= s.snd_max || x.flags & flags::ECT == 0), "after a timeout: {out:?}");
}

#[test]
fn the_receiver_echoes_a_ce_mark_on_every_ack_until_cwr() {
    let mut r = TcpReceiver::new(64 * MSS as u32, MSS, false).with_ecn(EcnReceiver::default());
    r.on_segment(&Segment { flags: flags::SYN | flags::ECE | flags::CWR, ..Segment::default() });
    let data = |seq: u64, fl: u8| Segment { seq, ack: 1, len: MSS as u32, wnd: 0, flags: flags::ACK | flags::ECT | fl, opt: 0, sack: 0 };
    r.on_segment(&data(1, 0));
    assert_eq!(r.make_ack(Reply::Ack).flags, flags::ACK);
    r.on_segment(&data(1 + MSS, flags::CE));
    assert_eq!(r.make_ack(Reply::Ack).flags, flags::ACK | flags::ECE);
    r.on_segment(&data(1 + 2 * MSS, 0));
    assert_eq!(r.make_ack(Reply::Ack).flags, flags::ACK | flags::ECE, "until CWR");
    r.on_segment(&data(1 + 3 * MSS, flags::CWR));
    assert_eq!(r.make_ack(Reply::Ack).flags, flags::ACK);
    assert_eq!(r.ecn.as_ref().unwrap().ce_received, 1);
}

/// Three duplicate ACKs for `una`, each SACKing one more segment above it
/// (the non-SACK variants ignore the blocks).
fn three_dupacks(s: &mut TcpSender, una: u64, out: &mut Vec<Segment>) {
    for i in 1..=3 {
        s.on_ack_with_sack(0, &ack(una, 0), &[(una + i * MSS, una + (i + 1) * MSS)], out);
    }
}

/// N11 (docs/validation.md): a loss in the window an echo already cut is
/// the congestion that echo answered. The fast retransmit resends, but
/// ssthresh stays where the echo put it: one reduction per window of data
/// (RFC 3168 §6.1.2; Linux keeps ssthresh entering recovery from CWR).
#[test]
fn a_loss_in_the_window_an_echo_cut_retransmits_without_cutting_again() {
    for name in ["lite", "tahoe", "newreno", "vegas-rm", "vegas", "sack", "cubic", "dctcp"] {
        let mut s = established(variant(name).unwrap(), 40);
        let una = s.snd_una;
        let mut out = Vec::new();
        s.on_ack(0, &ack(una + MSS, flags::ECE), &mut out);
        let cut = s.cc.ssthresh();
        assert!(cut < 40 * MSS, "{name}: the echo cut ({cut})");
        three_dupacks(&mut s, una + MSS, &mut out);
        assert_eq!(s.stats.fast_retransmits, 1, "{name}: the hole is resent");
        assert_eq!(s.cc.ssthresh(), cut, "{name}: no second cut in the window");
        assert_eq!(s.ecn.as_ref().unwrap().stats.reductions, 1, "{name}");
        // The recovery ends with a window to send from.
        s.on_ack(0, &ack(s.snd_max, 0), &mut out);
        assert!(s.cc.cwnd() >= 2 * MSS, "{name}: cwnd {} after the recovery", s.cc.cwnd());
    }
}

/// The contrast: a loss of data sent after the echo's cut is a new
/// congestion event and cuts again.
#[test]
fn a_loss_of_data_sent_after_the_echo_cut_cuts_again() {
    for name in ["lite", "newreno", "sack"] {
        let mut s = established(variant(name).unwrap(), 12);
        let una = s.snd_una;
        let mut out = Vec::new();
        s.on_ack(0, &ack(una + MSS, flags::ECE), &mut out);
        let mut next = una + 2 * MSS;
        while out.is_empty() {
            s.on_ack(0, &ack(next, 0), &mut out);
            next += MSS;
        }
        let boundary = out[0].seq;
        while next <= boundary {
            s.on_ack(0, &ack(next, 0), &mut out);
            next += MSS;
        }
        let before = s.cc.ssthresh();
        three_dupacks(&mut s, boundary, &mut out);
        assert_eq!(s.stats.fast_retransmits, 1, "{name}");
        assert!(s.cc.ssthresh() < before, "{name}: {} against {before}", s.cc.ssthresh());
    }
}
