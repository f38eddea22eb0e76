//! Case-by-case tests of the sender against scripted ACK sequences.

use super::*;
use crate::net::{flags, Segment};
use crate::transport::tcp::congestion::variant;

pub(super) const MSS: u64 = 1000;

/// A connection's configuration for the sender tests (also SACK's, in
/// `sender/sack.rs`).
pub(super) fn cfg(variant: Variant) -> TcpConfig {
    TcpConfig {
        limited_transmit: false,
        variant,
        afr: None,
        bp95: true,
        mss: MSS as u32,
        snd_buf: 64 * MSS,
        rcv_buf: 64 * MSS,
        initial_window: 1,
        delayed_ack: false,
        rttmin_ticks: 2,
        rxtmax_ticks: 128,
        give_up: true,
        ecn: false,
    }
}

fn ack(n: u64) -> Segment {
    Segment { seq: 0, ack: n, len: 0, wnd: (64 * MSS) as u32, flags: flags::ACK, opt: 0, sack: 0 }
}

/// A sender after the handshake; returns it and the first data segments.
fn established(variant: Variant) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(&cfg(variant), None);
    let mut out = Vec::new();
    s.open(0, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].flags, flags::SYN);
    out.clear();
    let synack = Segment { flags: flags::SYN | flags::ACK, ..ack(1) };
    s.on_ack(0, &synack, &mut out);
    assert_eq!(s.state, SenderState::Established);
    (s, out)
}

/// Grows the window in slow start by ACKing every segment in turn.
fn grow(s: &mut TcpSender, segs: usize) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut next = 1 + MSS;
    for _ in 0..segs {
        s.on_ack(0, &ack(next), &mut out);
        next += MSS;
    }
    out
}

#[test]
fn slow_start_sends_two_segments_per_ack() {
    let (mut s, first) = established(variant("lite").unwrap());
    assert_eq!(first.len(), 1, "initial window of one segment");
    let mut out = Vec::new();
    s.on_ack(0, &ack(1 + MSS), &mut out);
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|x| x.len as u64 == MSS));
}

#[test]
fn window_limit_bounds_outstanding_data() {
    let (mut s, _) = established(variant("lite").unwrap());
    grow(&mut s, 200);
    assert!(s.cc.cwnd() >= 64 * MSS);
    assert_eq!(s.snd_max - s.snd_una, 64 * MSS, "send buffer/receiver window caps the flight");
}

#[test]
fn fast_retransmit_on_the_third_duplicate_ack() {
    let (mut s, _) = established(variant("lite").unwrap());
    grow(&mut s, 10);
    let una = s.snd_una;
    let mut out = Vec::new();
    assert_eq!(s.on_ack(0, &ack(una), &mut out), None);
    assert_eq!(s.on_ack(0, &ack(una), &mut out), None);
    assert!(out.is_empty());
    assert_eq!(s.on_ack(0, &ack(una), &mut out), Some(SenderEvent::FastRetransmit));
    assert_eq!(out.len(), 1, "exactly the missing segment");
    assert_eq!(out[0].seq, una);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.segments_retransmitted, 1);
    assert_eq!(s.snd_nxt, s.snd_max, "snd_nxt restored after the retransmission");
}

#[test]
fn duplicate_acks_need_the_timer_running_and_same_window() {
    let (mut s, _) = established(variant("lite").unwrap());
    grow(&mut s, 4);
    let una = s.snd_una;
    let mut out = Vec::new();
    let other_wnd = Segment { wnd: 1234, ..ack(una) };
    for _ in 0..3 {
        s.on_ack(0, &other_wnd, &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 0, "a window update is not a duplicate ACK");
}

#[test]
fn timeout_backs_off_exponentially_and_goes_back_n() {
    let (mut s, _) = established(variant("lite").unwrap());
    grow(&mut s, 6);
    let mut out = Vec::new();
    let mut tick = 0;
    let mut fired = Vec::new();
    while fired.len() < 4 && tick < 10_000 {
        tick += 1;
        if s.on_slow_tick(0, &mut out) == Some(SenderEvent::Timeout) {
            fired.push(tick);
            let seg = out.last().unwrap();
            assert_eq!(seg.seq, s.snd_una, "go-back-N from snd_una");
            assert_eq!(s.cc.cwnd(), MSS);
        }
    }
    assert_eq!(s.stats.timeouts, 4);
    let gaps: Vec<_> = fired.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps[1], 2 * gaps[0], "{gaps:?}");
    assert_eq!(gaps[2], 2 * gaps[1], "{gaps:?}");
}

#[test]
fn karn_no_rtt_sample_from_retransmitted_data() {
    let (mut s, _) = established(variant("lite").unwrap());
    let srtt_before = s.rtt.srtt;
    let mut out = Vec::new();
    // Let the first data segment time out, then ACK it after many ticks.
    while s.stats.timeouts == 0 {
        s.on_slow_tick(0, &mut out);
    }
    assert_eq!(s.rtt.t_rtt, 0, "timing cancelled by the timeout");
    for _ in 0..20 {
        s.on_slow_tick(0, &mut out);
    }
    s.on_ack(0, &ack(1 + MSS), &mut out);
    assert_eq!(s.rtt.srtt, srtt_before, "the ambiguous ACK gave no sample");
    assert!(s.rxtshift > 0, "backed-off RTO kept until a valid sample");
}

#[test]
fn a_valid_sample_resets_the_backoff() {
    let (mut s, _) = established(variant("lite").unwrap());
    let mut out = Vec::new();
    while s.stats.timeouts == 0 {
        s.on_slow_tick(0, &mut out);
    }
    s.on_ack(0, &ack(1 + MSS), &mut out); // no sample (Karn)
    s.on_slow_tick(0, &mut out);
    s.on_ack(0, &ack(1 + 2 * MSS), &mut out); // new data was timed
    assert_eq!(s.rxtshift, 0);
}

#[test]
fn finite_transfer_sends_a_short_last_segment_and_finishes() {
    let mut s = TcpSender::new(&cfg(variant("lite").unwrap()), Some(2500));
    let mut out = Vec::new();
    s.open(0, &mut out);
    out.clear();
    s.on_ack(0, &Segment { flags: flags::SYN | flags::ACK, ..ack(1) }, &mut out);
    s.on_ack(0, &ack(1 + MSS), &mut out);
    s.on_ack(0, &ack(1 + 2 * MSS), &mut out);
    let lens: Vec<u32> = out.iter().map(|x| x.len).collect();
    assert_eq!(lens, vec![1000, 1000, 500]);
    s.on_ack(0, &ack(2501), &mut out);
    assert!(s.finished());
}

#[test]
fn syn_is_retransmitted_on_timeout() {
    let mut s = TcpSender::new(&cfg(variant("lite").unwrap()), None);
    let mut out = Vec::new();
    s.open(0, &mut out);
    for _ in 0..12 {
        s.on_slow_tick(0, &mut out);
    }
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|x| x.flags == flags::SYN));
}

#[test]
fn a_syn_timeout_leaves_slow_start_at_two_segments_as_bsd_does() {
    // 4.4BSD-Lite's TCPT_REXMT sets ssthresh for every timeout, the SYN's
    // too; before the SYN-ACK the send window is 0, so ssthresh is 2
    // segments (ns-2 does the same: docs/validation.md D18).
    let mut s = TcpSender::new(&cfg(variant("lite").unwrap()), None);
    let mut out = Vec::new();
    s.open(0, &mut out);
    let before = s.cc.ssthresh();
    while out.len() < 2 {
        s.on_slow_tick(0, &mut out);
    }
    assert!(before > 64 * MSS, "no limit before a loss: {before}");
    assert_eq!((s.cc.ssthresh(), s.cc.cwnd()), (2 * MSS, MSS));
    out.clear();
    s.on_ack(0, &Segment { flags: flags::SYN | flags::ACK, ..ack(1) }, &mut out);
    // Established: one segment out, the window grows by one per ACK to ssthresh, then linearly.
    let sent = grow(&mut s, 4);
    assert!(s.cc.cwnd() < 4 * MSS, "congestion avoidance from 2 segments: cwnd {} after {} segments", s.cc.cwnd(), sent.len());
}

#[test]
fn bsd_aborts_after_twelve_backoffs_where_ns1_retransmits_on() {
    for give_up in [true, false] {
        let mut s = TcpSender::new(&TcpConfig { give_up, ..cfg(variant("lite").unwrap()) }, None);
        let mut out = Vec::new();
        s.open(0, &mut out);
        for tick in 1..20_000u64 {
            s.on_slow_tick(tick, &mut out);
        }
        assert_eq!(s.state == SenderState::Aborted, give_up);
        if !give_up {
            assert!(s.stats.timeouts > 12 && s.rxtshift == 12, "{} timeouts", s.stats.timeouts);
        }
    }
}
