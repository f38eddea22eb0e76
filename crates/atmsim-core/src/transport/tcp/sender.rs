//! The sending side of the BSD TCP: connection setup, the send loop
//! (`tcp_output`), ACK processing (`tcp_input`), and the coarse retransmit
//! timer (`tcp_timers`). Window rules are delegated to [`CongestionControl`].
//!
//! Sequence space: the SYN is byte 0, data starts at 1; numbers never wrap.

use super::afr::Afr;
use super::congestion::{AckCtx, CongestionControl, DupAckAction, NewAckAction};
use super::ecn::EcnSender;
use super::rtt::{RttEstimator, MAX_RXTSHIFT};
use super::sack_option::PERMITTED_BYTES;
use super::TcpConfig;
use crate::net::{flags, Segment};
use crate::time::Time;
use std::collections::VecDeque;

mod sack;

/// When an outstanding segment was last sent and how often (Vegas-RM needs
/// both; a segment, not a cell, so this is off the per-cell path).
#[derive(Clone, Copy, Debug)]
struct SentSegment {
    seq: u64,
    len: u64,
    sent_at: Time,
    transmissions: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    Closed,
    SynSent,
    Established,
    /// Gave up after `TCP_MAXRXTSHIFT` consecutive timeouts.
    Aborted,
}

/// Something the sender did that traces and statistics want to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderEvent {
    Timeout,
    FastRetransmit,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_retransmitted: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// SYNs sent (the first and any retransmitted by the timer).
    pub syns_sent: u64,
    /// Segments from the receiver (SYN-ACKs and ACKs) given to `on_ack`.
    pub segments_received: u64,
    /// BSD's `tcps_rcvdupack`: established, an ACK that acknowledges
    /// nothing new, carries no data, no SYN and the same window.
    pub dup_acks: u64,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub state: SenderState,
    pub mss: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub snd_wnd: u64,
    /// Sender buffer: the send window never exceeds it.
    pub snd_buf: u64,
    /// One past the last byte the application gives (u64::MAX: unbounded).
    pub app_end: u64,
    /// Retransmit timer in ticks; 0 = not running.
    pub rexmt: u32,
    pub rxtshift: u32,
    pub rtt: RttEstimator,
    pub cc: CongestionControl,
    pub stats: SenderStats,
    /// Exact smoothed RTT (ps) of timed segments, for loss-episode grouping
    /// in reports; not used by the protocol.
    pub srtt_exact: Time,
    rtt_sent_at: Time,
    sent: VecDeque<SentSegment>,
    give_up: bool,
    /// ECN (RFC 3168 §6.1), when the scenario enables it (`tcp.ecn`).
    pub ecn: Option<EcnSender>,
    /// `tcp.limited_transmit` (SACK variants): see `sender/sack.rs`.
    limited_transmit: bool,
}

impl TcpSender {
    pub fn new(cfg: &TcpConfig, bytes: Option<u64>) -> Self {
        let mss = cfg.mss as u64;
        TcpSender {
            state: SenderState::Closed,
            mss,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            snd_wnd: 0,
            snd_buf: cfg.snd_buf,
            app_end: bytes.map_or(u64::MAX, |b| 1 + b),
            rexmt: 0,
            rxtshift: 0,
            rtt: RttEstimator::new(cfg.bp95, cfg.rttmin_ticks, cfg.rxtmax_ticks),
            cc: CongestionControl::new(cfg.variant, mss, cfg.initial_window as u64, cfg.max_cwnd(), cfg.bp95, cfg.afr.map(Afr::new)),
            stats: SenderStats::default(),
            give_up: cfg.give_up,
            srtt_exact: 0,
            rtt_sent_at: 0,
            sent: VecDeque::new(),
            ecn: cfg.ecn.then(EcnSender::default),
            limited_transmit: cfg.limited_transmit,
        }
    }

    /// The context the window rules see.
    fn ctx(&self, now: Time, acked: u64, rtt_sample: Option<Time>) -> AckCtx {
        let (oldest_sent_at, oldest_transmissions) = self.sent.front().map_or((now, 1), |s| (s.sent_at, s.transmissions));
        AckCtx {
            now,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            snd_wnd: self.snd_wnd,
            acked,
            oldest_sent_at,
            oldest_transmissions,
            rtt_sample,
            echo_cut: self.ecn.as_ref().is_some_and(|e| e.echo_cut_covers(self.snd_una)),
        }
    }

    /// Forgets the segments `ack` covers; returns the exact RTT of the
    /// newest of them if it was sent only once (Karn's rule, fine clock).
    fn release_acked(&mut self, now: Time, ack: u64) -> Option<Time> {
        let mut sample = None;
        while let Some(s) = self.sent.front() {
            if s.seq + s.len > ack {
                break;
            }
            sample = (s.transmissions == 1).then(|| now - s.sent_at);
            self.sent.pop_front();
        }
        sample
    }

    /// Records a transmission of [seq, seq + len) in the send log.
    fn log_send(&mut self, now: Time, seq: u64, len: u64) {
        let end = self.sent.back().map_or(0, |s| s.seq + s.len);
        if seq >= end {
            self.sent.push_back(SentSegment { seq, len, sent_at: now, transmissions: 1 });
            return;
        }
        let i = self.sent.partition_point(|s| s.seq + s.len <= seq);
        if let Some(s) = self.sent.get_mut(i) {
            s.sent_at = now;
            s.transmissions += 1;
        }
    }

    /// Bytes sent and not yet acknowledged.
    pub fn unacked(&self) -> u64 {
        self.snd_max.saturating_sub(self.snd_una.max(1))
    }

    /// `min(snd_wnd, snd_buf)`: the send window of App. A's traces.
    pub fn send_window(&self) -> u64 {
        self.snd_wnd.min(self.snd_buf)
    }

    pub fn finished(&self) -> bool {
        self.snd_una >= self.app_end
    }

    /// The application opens the connection: send the SYN (it is timed).
    pub fn open(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.state = SenderState::SynSent;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.start_timing(now, 0);
        self.rexmt = self.rtt.rxtcur;
        self.stats.syns_sent += 1;
        out.push(self.syn());
    }

    fn start_timing(&mut self, now: Time, seq: u64) {
        self.rtt.t_rtt = 1;
        self.rtt.t_rtseq = seq;
        self.rtt_sent_at = now;
    }

    fn take_sample(&mut self, now: Time) {
        self.rtt.sample(self.rtt.t_rtt);
        self.rxtshift = 0;
        let s = now - self.rtt_sent_at;
        self.srtt_exact = if self.srtt_exact == 0 { s } else { self.srtt_exact - self.srtt_exact / 8 + s / 8 };
    }

    /// `tcp_output`: send what the window allows. Bulk senders send only
    /// full segments, except the last one of a finite transfer.
    pub fn output(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.state != SenderState::Established {
            return;
        }
        loop {
            let win = self.send_window().min(self.cc.cwnd());
            let off = self.snd_nxt - self.snd_una;
            if win <= off || self.snd_nxt >= self.app_end {
                break;
            }
            let avail = self.app_end - self.snd_nxt;
            let mut len = self.mss.min(avail).min(win - off);
            let retransmission = self.snd_nxt < self.snd_max;
            if retransmission {
                // A SACK sender resends only what the receiver lacks.
                match self.sack_hole(len) {
                    Some(l) => len = l,
                    None => continue,
                }
            }
            // BSD silly-window avoidance: a full segment, the rest of the
            // data, or a retransmission.
            if len < self.mss && len < avail && !retransmission {
                break;
            }
            self.emit(now, self.snd_nxt, len, out);
            self.snd_nxt += len;
        }
    }

    /// Emits one data segment at `seq` and does the bookkeeping of
    /// `tcp_output` for it (timing, snd_max, the retransmit timer).
    fn emit(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Segment>) {
        let new_data = seq >= self.snd_max;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if seq < self.snd_max {
            self.stats.segments_retransmitted += 1;
            self.stats.bytes_retransmitted += len.min(self.snd_max - seq);
        }
        if seq + len > self.snd_max {
            self.snd_max = seq + len;
            if self.rtt.t_rtt == 0 {
                self.start_timing(now, seq);
            }
        }
        if self.rexmt == 0 {
            self.rexmt = self.rtt.rxtcur;
        }
        self.log_send(now, seq, len);
        let ecn = self.ecn.as_mut().map_or(0, |e| e.data_flags(new_data));
        out.push(Segment { seq, ack: 1, len: len as u32, wnd: 0, flags: flags::ACK | ecn, opt: 0, sack: 0 });
    }

    /// A segment (ACK or SYN-ACK) arrived from the receiver.
    pub fn on_ack(&mut self, now: Time, seg: &Segment, out: &mut Vec<Segment>) -> Option<SenderEvent> {
        self.on_ack_with_sack(now, seg, &[], out)
    }

    /// An ACK with the blocks of its SACK option (RFC 2018), which only a
    /// SACK sender reads.
    pub fn on_ack_with_sack(&mut self, now: Time, seg: &Segment, sack: &[(u64, u64)], out: &mut Vec<Segment>) -> Option<SenderEvent> {
        if self.ecn.is_none() || self.state != SenderState::Established {
            return self.ack_arrived(now, seg, sack, out);
        }
        self.ecn_ack(now, seg, sack, out)
    }

    /// An ACK at an ECN sender (RFC 3168 §6.1.2): an ECE halves the window
    /// first, at most once per window of data, and the ACK does not open
    /// it; a fast retransmit also counts as the window's reduction.
    fn ecn_ack(&mut self, now: Time, seg: &Segment, sack: &[(u64, u64)], out: &mut Vec<Segment>) -> Option<SenderEvent> {
        let ecn = self.ecn.as_mut().expect("an ECN sender");
        let echo = ecn.echoes(seg);
        if seg.ack > self.snd_una && seg.ack <= self.snd_max {
            // DCTCP counts the bytes each ACK covers, marked or not (RFC 8257 §3.3).
            self.cc.on_ecn_ack(seg.ack - self.snd_una, echo, seg.ack, self.snd_nxt);
        }
        if ecn.reduce_on(seg) && seg.ack <= self.snd_max {
            ecn.reduced_for_echo(self.snd_max);
            let c = self.ctx(now, 0, None);
            self.cc.on_ecn_echo(&c);
        }
        self.cc.set_echo(echo);
        let ev = self.ack_arrived(now, seg, sack, out);
        self.cc.set_echo(false);
        if ev == Some(SenderEvent::FastRetransmit) {
            self.ecn.as_mut().expect("an ECN sender").reduced(self.snd_max);
        }
        ev
    }

    fn ack_arrived(&mut self, now: Time, seg: &Segment, sack: &[(u64, u64)], out: &mut Vec<Segment>) -> Option<SenderEvent> {
        self.stats.segments_received += 1;
        match self.state {
            SenderState::SynSent => {
                if seg.flags & flags::SYN != 0 && seg.ack == 1 {
                    if let Some(ecn) = &mut self.ecn {
                        ecn.on_syn_ack(seg);
                    }
                    self.state = SenderState::Established;
                    self.snd_una = 1;
                    self.snd_wnd = seg.wnd as u64;
                    if self.rtt.t_rtt != 0 {
                        self.take_sample(now);
                    }
                    self.rexmt = 0;
                    self.output(now, out);
                }
                return None;
            }
            SenderState::Established => {}
            _ => return None,
        }
        let ack = seg.ack;
        if ack > self.snd_max {
            return None;
        }
        if self.cc.sack().is_some() {
            return self.sack_ack(now, seg, sack, out);
        }
        if ack <= self.snd_una {
            if seg.len == 0 && seg.wnd as u64 == self.snd_wnd && seg.flags & flags::SYN == 0 {
                self.stats.dup_acks += 1;
            }
            let dup =
                seg.len == 0 && ack == self.snd_una && seg.wnd as u64 == self.snd_wnd && self.rexmt != 0 && self.snd_max > self.snd_una;
            if !dup {
                self.cc.reset_dupacks();
                self.snd_wnd = seg.wnd as u64;
                self.output(now, out);
                return None;
            }
            let c = self.ctx(now, 0, None);
            return match self.cc.on_dup_ack(&c) {
                DupAckAction::Nothing => None,
                DupAckAction::Send => {
                    self.output(now, out);
                    None
                }
                DupAckAction::FastRetransmit { segments, restore_snd_nxt } => {
                    self.stats.fast_retransmits += 1;
                    let onxt = self.snd_nxt;
                    self.rexmt = 0;
                    self.rtt.t_rtt = 0;
                    let mut next = ack;
                    for _ in 0..segments {
                        let len = self.mss.min(self.snd_max - next);
                        if len == 0 {
                            break;
                        }
                        self.emit(now, next, len, out);
                        next += len;
                    }
                    // BSD sends nothing more here: the inflated window
                    // opens only with the next duplicate ACK.
                    self.snd_nxt = if restore_snd_nxt { onxt.max(next) } else { next };
                    Some(SenderEvent::FastRetransmit)
                }
            };
        }
        // New data acknowledged.
        let acked = ack - self.snd_una;
        if self.rtt.t_rtt != 0 && ack > self.rtt.t_rtseq {
            self.take_sample(now);
        }
        let timer_before = self.rexmt;
        self.rexmt = if ack == self.snd_max { 0 } else { self.rtt.rxtcur };
        let sample = self.release_acked(now, ack);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.snd_wnd = seg.wnd as u64;
        let c = self.ctx(now, acked, sample);
        let action = self.cc.on_new_ack(&c);
        if action != NewAckAction::Nothing {
            let len = self.mss.min(self.snd_max - ack);
            if len > 0 {
                // Vegas-RM and NewReno's first partial ACK restart the
                // coarse timer with the retransmission; later partial ACKs
                // leave it running.
                self.rexmt = if action == NewAckAction::RetransmitFirstKeepTimer { timer_before } else { 0 };
                self.rtt.t_rtt = 0;
                self.emit(now, ack, len, out);
                self.snd_nxt = self.snd_nxt.max(ack + len);
            }
        }
        self.output(now, out);
        None
    }

    /// One coarse tick (`tcp_slowtimo`): run the retransmit timer, then
    /// advance the RTT count of the timed segment.
    pub fn on_slow_tick(&mut self, now: Time, out: &mut Vec<Segment>) -> Option<SenderEvent> {
        let mut ev = None;
        if self.rexmt != 0 {
            self.rexmt -= 1;
            if self.rexmt == 0 {
                ev = self.timeout(now, out);
            }
        }
        if self.rtt.t_rtt != 0 {
            self.rtt.t_rtt += 1;
        }
        ev
    }

    /// Retransmission timeout (`tcp_timers`, TCPT_REXMT).
    fn timeout(&mut self, now: Time, out: &mut Vec<Segment>) -> Option<SenderEvent> {
        self.rxtshift += 1;
        if self.rxtshift > MAX_RXTSHIFT {
            if self.give_up {
                self.state = SenderState::Aborted;
                return None;
            }
            // ns-1: retransmit on at the largest backoff.
            self.rxtshift = MAX_RXTSHIFT;
        }
        self.stats.timeouts += 1;
        self.rtt.rxtcur = self.rtt.backed_off(self.rxtshift);
        self.rexmt = self.rtt.rxtcur;
        if self.rxtshift > 3 {
            self.rtt.forget_after_backoff();
        }
        self.rtt.t_rtt = 0;
        if let Some(ecn) = &mut self.ecn {
            ecn.reduced(self.snd_max);
        }
        if self.state == SenderState::SynSent {
            // 4.4BSD-Lite's TCPT_REXMT sets the window for every timeout,
            // the SYN's too: snd_wnd is still 0, so ssthresh = 2 segments.
            let c = self.ctx(now, 0, None);
            self.cc.on_timeout(&c);
            self.stats.syns_sent += 1;
            out.push(self.syn());
            return Some(SenderEvent::Timeout);
        }
        self.snd_nxt = self.snd_una;
        let c = self.ctx(now, 0, None);
        self.cc.on_timeout(&c);
        self.output(now, out);
        Some(SenderEvent::Timeout)
    }
}

impl TcpSender {
    /// The SYN: with SACK it carries SACK-permitted (RFC 2018 §2); with
    /// ECN it is an ECN-setup SYN (RFC 3168 §6.1.1).
    fn syn(&self) -> Segment {
        let opt = if self.cc.sack().is_some() { PERMITTED_BYTES } else { 0 };
        let ecn = if self.ecn.is_some() { EcnSender::SYN_FLAGS } else { 0 };
        Segment { seq: 0, ack: 0, len: 0, wnd: 0, flags: flags::SYN | ecn, opt, sack: 0 }
    }
}
