//! DCTCP at a whole sender and receiver (RFC 8257 §3.2–§3.4): over a link
//! that marks a constant share of the data, α converges to that share, with
//! delayed ACKs as without (the receiver's state-change ACKs keep the count
//! exact), and each window's echo takes α/2 of the window.

use super::tests::{cfg, MSS};
use super::*;
use crate::net::{flags, Segment};
use crate::time::PS_PER_MS;
use crate::transport::tcp::congestion::{variant, Growth};
use crate::transport::tcp::ecn::EcnReceiver;

/// Runs a DCTCP connection for `rounds` round trips over a lossless link
/// that marks every `mark_every`-th data segment CE; returns the sender and
/// the receiver.
fn over_a_marking_link(delayed_ack: bool, mark_every: u64, rounds: usize) -> (TcpSender, TcpReceiver) {
    let tcp = TcpConfig { ecn: true, delayed_ack, initial_window: 10, ..cfg(variant("dctcp").unwrap()) };
    let mut s = TcpSender::new(&tcp, None);
    let mut r = TcpReceiver::new(64 * MSS as u32, MSS, delayed_ack).with_ecn(EcnReceiver::dctcp());
    let (mut out, mut acks) = (Vec::new(), Vec::new());
    s.open(0, &mut out);
    let syn = out.pop().unwrap();
    r.on_segment(&syn);
    s.on_ack(0, &r.make_ack(Reply::SynAck), &mut out);
    let mut data_sent = 0u64;
    for round in 1..=rounds {
        let now = round as u64 * PS_PER_MS;
        // The window's data crosses the link; the receiver answers each.
        for mut seg in out.drain(..) {
            assert!(seg.flags & flags::ECT != 0, "DCTCP data is ECN-capable");
            data_sent += 1;
            if data_sent.is_multiple_of(mark_every) {
                seg.flags |= flags::CE;
            }
            let reply = r.on_segment(&seg);
            acks.extend(r.take_state_change_ack());
            if reply != Reply::Nothing {
                acks.push(r.make_ack(reply));
            }
        }
        if r.on_fast_tick() {
            acks.push(r.make_ack(Reply::Ack));
        }
        for a in acks.drain(..) {
            s.on_ack(now, &a, &mut out);
        }
    }
    (s, r)
}

fn alpha(s: &TcpSender) -> f64 {
    match s.cc.growth() {
        Growth::Dctcp(d) => d.alpha(),
        g => panic!("not DCTCP: {g:?}"),
    }
}

#[test]
fn alpha_converges_to_the_marked_share_with_and_without_delayed_acks() {
    for delayed in [false, true] {
        for every in [2, 4, 10] {
            let (s, r) = over_a_marking_link(delayed, every, 400);
            let share = 1.0 / every as f64;
            // After hundreds of windows (1 − g)^n is negligible; what is left
            // is the share's own variation between windows of whole segments.
            let a = alpha(&s);
            assert!((a - share).abs() < 0.02, "delayed ACKs {delayed}, 1 in {every}: α = {a}");
            assert!(r.ecn.as_ref().unwrap().ce_received > 0);
        }
    }
}

#[test]
fn with_delayed_acks_a_change_of_mark_acks_earlier_data_first_with_the_old_state() {
    let mut r = TcpReceiver::new(64 * MSS as u32, MSS, true).with_ecn(EcnReceiver::dctcp());
    r.on_segment(&Segment { flags: flags::SYN | flags::ECE | flags::CWR, ..Segment::default() });
    r.make_ack(Reply::SynAck);
    let data = |k: u64, fl: u8| Segment {
        seq: 1 + k * MSS,
        ack: 1,
        len: MSS as u32,
        wnd: 0,
        flags: flags::ACK | flags::ECT | fl,
        opt: 0,
        sack: 0,
    };
    // One unmarked segment: its ACK is delayed.
    assert_eq!(r.on_segment(&data(0, 0)), Reply::Nothing);
    assert!(r.take_state_change_ack().is_none());
    // A marked one: the owed ACK goes first, without ECE and for the first
    // segment only; the marked segment is ACKed at once, with ECE.
    assert_eq!(r.on_segment(&data(1, flags::CE)), Reply::Ack);
    let earlier = r.take_state_change_ack().expect("the owed ACK");
    assert_eq!((earlier.ack, earlier.flags & flags::ECE), (1 + MSS, 0));
    let now = r.make_ack(Reply::Ack);
    assert_eq!((now.ack, now.flags & flags::ECE), (1 + 2 * MSS, flags::ECE));
    // Marked again: no change, the delayed-ACK rule as before.
    assert_eq!(r.on_segment(&data(2, flags::CE)), Reply::Nothing);
    assert_eq!(r.on_segment(&data(3, flags::CE)), Reply::Ack);
    assert_eq!(r.make_ack(Reply::Ack).flags & flags::ECE, flags::ECE);
    // Unmarked with nothing owed: an immediate ACK, no earlier one.
    assert_eq!(r.on_segment(&data(4, 0)), Reply::Ack);
    assert!(r.take_state_change_ack().is_none());
    assert_eq!(r.make_ack(Reply::Ack).flags & flags::ECE, 0);
}

#[test]
fn each_window_of_echoes_takes_alpha_over_two_once() {
    // Every second segment marked: α → ½, and a window's echo cuts cwnd by
    // α/2 ≈ ¼, not RFC 3168's ½.
    let (mut s, _) = over_a_marking_link(false, 2, 200);
    let e = s.ecn.as_ref().unwrap().stats;
    assert!(e.reductions > 100 && e.reductions < e.echoes, "once per window, not per echo: {e:?}");
    // An echo of everything outstanding (data sent after the last cut).
    let cwnd = s.cc.cwnd();
    let echo = |ack| Segment { seq: 0, ack, len: 0, wnd: (64 * MSS) as u32, flags: flags::ACK | flags::ECE, opt: 0, sack: 0 };
    let mut out = Vec::new();
    s.on_ack(0, &echo(s.snd_max), &mut out);
    let Growth::Dctcp(d) = s.cc.growth() else { unreachable!() };
    assert!((d.alpha() - 0.5).abs() < 0.02, "α = {}", d.alpha());
    let cut = (cwnd as u128 * d.alpha as u128 / (2 << 20)) as u64;
    assert_eq!(s.cc.ssthresh(), cwnd - cut, "cwnd·(1 − α/2), α as updated by this very ACK (§3.3 before §3.4)");
    assert_eq!(s.cc.cwnd(), s.cc.ssthresh());
    // Another echo, acknowledging no data sent after the cut: nothing more;
    // one acknowledging the new data: the next window's cut.
    let (after, recover) = (s.cc.cwnd(), s.snd_una);
    s.on_ack(0, &echo(recover), &mut out);
    assert_eq!(s.cc.cwnd(), after);
    assert!(s.snd_max > recover);
    s.on_ack(0, &echo(s.snd_max), &mut out);
    assert!(s.cc.cwnd() < after);
}
