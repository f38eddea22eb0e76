//! The SACK sender (RFC 6675 §5): every ACK goes to the SACK recovery with
//! its blocks; in loss recovery the sender sends what `NextSeg()` picks
//! while cwnd − pipe ≥ 1 SMSS, instead of `tcp_output`'s in-order send.
//! Reliable delivery (RTT samples, the retransmit timer, the send log) is
//! the same as for every variant (docs/tcp.md B5-B8).

use super::{SenderEvent, TcpSender};
use crate::net::Segment;
use crate::time::Time;
use crate::transport::tcp::congestion::{NextSeg, SackStep};

impl TcpSender {
    /// An ACK at an established SACK sender, `seg.ack ≤ snd_max`.
    pub(super) fn sack_ack(&mut self, now: Time, seg: &Segment, blocks: &[(u64, u64)], out: &mut Vec<Segment>) -> Option<SenderEvent> {
        let ack = seg.ack;
        let (mut acked, mut sample) = (0, None);
        if ack > self.snd_una {
            // B5 steps 1-4.
            acked = ack - self.snd_una;
            if self.rtt.t_rtt != 0 && ack > self.rtt.t_rtseq {
                self.take_sample(now);
            }
            self.rexmt = if ack == self.snd_max { 0 } else { self.rtt.rxtcur };
            sample = self.release_acked(now, ack);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
        }
        self.snd_wnd = seg.wnd as u64;
        let c = self.ctx(now, acked, sample);
        match self.cc.on_sack_ack(&c, blocks) {
            SackStep::Normal => {
                self.output(now, out);
                // Not during a go-back after a timeout (snd_nxt < snd_max).
                if self.limited_transmit && self.cc.dupacks() > 0 && self.snd_nxt == self.snd_max {
                    self.limited_send(now, out);
                }
                None
            }
            SackStep::Exit => {
                self.output(now, out);
                None
            }
            SackStep::Enter => {
                // Step 4.3: the first segment presumed lost; the timer
                // restarts with it (B4 step 6), as in every fast retransmit.
                self.stats.fast_retransmits += 1;
                self.rexmt = 0;
                self.snd_nxt = self.snd_max;
                let sack = self.cc.sack().expect("a SACK sender");
                if let Some((seq, len)) = sack.first_hole(self.snd_una, self.snd_max, self.mss) {
                    self.sack_retransmit(now, seq, len, 0, out);
                }
                self.sack_send(now, out);
                Some(SenderEvent::FastRetransmit)
            }
            SackStep::Recover => {
                self.sack_send(now, out);
                None
            }
        }
    }

    /// Steps (C.1)-(C.5): while cwnd − pipe ≥ 1 SMSS, send what
    /// `NextSeg()` returns and count it in pipe.
    fn sack_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        let mss = self.mss;
        let mut pipe = self.cc.sack().expect("a SACK sender").pipe(self.snd_una, self.snd_max, mss);
        while self.cc.cwnd() >= pipe + mss {
            // Rule 2's conditions: unsent data, and room in the peer's window.
            let new_len = mss.min(self.app_end.saturating_sub(self.snd_max));
            let new_data = new_len > 0 && self.snd_max + new_len <= self.snd_una + self.send_window();
            let next = self.cc.sack().expect("a SACK sender").next_seg(self.snd_una, self.snd_max, mss, new_data);
            let len = match next {
                None => break,
                Some(NextSeg::New) => {
                    // (C.3): HighData moves on.
                    self.emit(now, self.snd_max, new_len, out);
                    self.snd_nxt = self.snd_max;
                    new_len
                }
                Some(NextSeg::Retransmit { seq, len, rule }) => {
                    self.sack_retransmit(now, seq, len, rule, out);
                    len
                }
            };
            pipe += len;
        }
    }

    /// Limited transmit (`tcp.limited_transmit`; RFC 6675 §5 step 3, RFC
    /// 3042): on a duplicate ACK before loss recovery, new data while
    /// cwnd − pipe ≥ 1 SMSS and the peer's window allows. With an ACK per
    /// segment each duplicate SACKs one segment, so one new segment goes
    /// out for each, as in Linux and in ns-3's SACK sender.
    fn limited_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        let mss = self.mss;
        let mut pipe = self.cc.sack().expect("a SACK sender").pipe(self.snd_una, self.snd_max, mss);
        while self.cc.cwnd() >= pipe + mss {
            let len = mss.min(self.app_end.saturating_sub(self.snd_max));
            if len == 0 || self.snd_max + len > self.snd_una + self.send_window() {
                break;
            }
            self.emit(now, self.snd_max, len, out);
            self.snd_nxt = self.snd_max;
            self.cc.sack_mut().expect("a SACK sender").limited_sent(len);
            pipe += len;
        }
    }

    /// A retransmission in loss recovery: never timed (Karn), recorded in
    /// HighRxt/RescueRxt (C.2).
    fn sack_retransmit(&mut self, now: Time, seq: u64, len: u64, rule: u8, out: &mut Vec<Segment>) {
        self.rtt.t_rtt = 0;
        self.emit(now, seq, len, out);
        self.cc.sack_mut().expect("a SACK sender").retransmitted(seq, len, rule);
    }

    /// `tcp_output` resending from `snd_nxt < snd_max` (after a timeout):
    /// a SACK sender skips what the receiver has SACKed since (RFC 6675
    /// §5.1: "filling in" the sequence space reported missing). Returns the
    /// length to send at `snd_nxt`, or `None` after moving `snd_nxt` past
    /// SACKed data. Other variants send `len` unchanged.
    pub(super) fn sack_hole(&mut self, len: u64) -> Option<u64> {
        let Some(sack) = self.cc.sack() else { return Some(len) };
        match sack.board().hole_from(self.snd_nxt, self.snd_max) {
            Some((a, b)) if a == self.snd_nxt => Some(len.min(b - a)),
            Some((a, _)) => {
                self.snd_nxt = a;
                None
            }
            None => {
                self.snd_nxt = self.snd_max;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::{flags, Segment};
    use crate::transport::tcp::congestion::variant;
    use crate::transport::tcp::tests::{cfg, MSS};
    use crate::transport::tcp::{Reply, TcpConfig, TcpReceiver, TcpSender, Variant};
    use std::collections::{HashMap, VecDeque};

    /// A sender and a SACK receiver joined by a lossless, instantaneous
    /// path, except for the listed (segment number, transmission) pairs.
    struct Link {
        s: TcpSender,
        r: TcpReceiver,
        drop: Vec<(u64, u32)>,
        sent: HashMap<u64, u32>,
        now: u64,
        ssthresh_at_entry: Vec<u64>,
    }

    impl Link {
        fn new(variant: Variant, segments: u64, drop: &[(u64, u32)]) -> Link {
            let mut r = TcpReceiver::new(64 * MSS as u32, MSS, false);
            if variant.sack_option {
                r = r.with_sack();
            }
            let s = TcpSender::new(&cfg(variant), Some(segments * MSS));
            Link { s, r, drop: drop.to_vec(), sent: HashMap::new(), now: 0, ssthresh_at_entry: Vec::new() }
        }

        /// Runs the transfer to its end, firing the coarse timer whenever
        /// the path falls silent; returns the segments sent.
        fn run(&mut self) -> Vec<Segment> {
            let mut log = Vec::new();
            let mut q = VecDeque::new();
            let mut out = Vec::new();
            self.s.open(0, &mut out);
            while !self.s.finished() {
                q.extend(out.drain(..));
                if q.is_empty() {
                    self.now += 1;
                    self.s.on_slow_tick(self.now, &mut out);
                    continue;
                }
                while let Some(seg) = q.pop_front() {
                    self.now += 1;
                    log.push(seg);
                    if seg.len > 0 {
                        let k = (seg.seq - 1) / MSS;
                        let n = *self.sent.entry(k).and_modify(|n| *n += 1).or_insert(1);
                        if self.drop.contains(&(k, n)) {
                            continue;
                        }
                    }
                    let reply = self.r.on_segment(&seg);
                    if reply == Reply::Nothing {
                        continue;
                    }
                    let ack = self.r.make_ack(reply);
                    let blocks = self.r.sack_blocks(ack.sack);
                    let fr_before = self.s.stats.fast_retransmits;
                    self.s.on_ack_with_sack(self.now, &ack, blocks.as_slice(), &mut out);
                    if self.s.stats.fast_retransmits > fr_before {
                        self.ssthresh_at_entry.push(self.s.cc.ssthresh());
                    }
                    q.extend(out.drain(..));
                }
            }
            log
        }

        fn retransmitted(&self) -> Vec<u64> {
            let mut v: Vec<u64> = self.sent.iter().filter(|&(_, &n)| n > 1).map(|(&k, _)| k).collect();
            v.sort();
            v
        }
    }

    #[test]
    fn a_single_loss_is_repaired_once_with_one_halving() {
        let mut l = Link::new(variant("sack").unwrap(), 60, &[(20, 1)]);
        l.run();
        let st = &l.s.stats;
        assert_eq!((st.timeouts, st.fast_retransmits, st.segments_retransmitted), (0, 1, 1));
        assert_eq!(l.retransmitted(), [20]);
        assert_eq!(l.r.stats.bytes_delivered, 60 * MSS);
        assert_eq!(l.r.stats.bytes_duplicate, 0, "nothing the receiver held was resent");
        assert_eq!(l.ssthresh_at_entry.len(), 1);
        assert!(!l.s.cc.in_recovery());
    }

    #[test]
    fn several_losses_in_one_window_one_recovery_no_timeout() {
        let lost = [(20, 1), (23, 1), (26, 1), (27, 1)];
        let mut l = Link::new(variant("sack").unwrap(), 80, &lost);
        l.run();
        let st = &l.s.stats;
        assert_eq!((st.timeouts, st.fast_retransmits), (0, 1), "one recovery for the window");
        assert_eq!(l.retransmitted(), [20, 23, 26, 27]);
        assert_eq!(st.segments_retransmitted, 4, "each hole once, nothing SACKed resent");
        assert_eq!(l.r.stats.bytes_duplicate, 0);
        // Lite needs a timeout or several halvings for the same losses.
        let mut lite = Link::new(variant("lite").unwrap(), 80, &lost);
        lite.run();
        assert!(lite.s.stats.timeouts + lite.s.stats.fast_retransmits > 1);
    }

    #[test]
    fn a_lost_retransmission_falls_back_to_the_timeout_and_skips_sacked_data() {
        let mut l = Link::new(variant("sack").unwrap(), 60, &[(20, 1), (20, 2), (30, 1), (30, 2)]);
        l.run();
        let st = &l.s.stats;
        assert_eq!((st.fast_retransmits, st.timeouts), (1, 1));
        // After the timeout the scoreboard is cleared and the go-back
        // resends segment 20; the ACK for it SACKs 31 onwards again, so the
        // go-back resends 30 and skips what the receiver holds.
        assert_eq!((l.sent[&20], l.sent[&30]), (3, 3));
        assert_eq!(l.retransmitted(), [20, 30]);
        assert_eq!(l.r.stats.bytes_duplicate, 0, "no SACKed segment resent");
        assert_eq!(l.r.stats.bytes_delivered, 60 * MSS);
    }

    /// New segments sent after segment `k`'s first transmission and before
    /// its retransmission.
    fn new_before_retransmission(log: &[crate::net::Segment], k: u64) -> usize {
        let at = |n: usize| log.iter().enumerate().filter(|(_, s)| s.len > 0 && (s.seq - 1) / MSS == k).nth(n).unwrap().0;
        let (first, again) = (at(0), at(1));
        let top = log[..first].iter().map(|s| s.seq + s.len as u64).max().unwrap();
        log[first + 1..again].iter().filter(|s| s.len > 0 && s.seq >= top).count()
    }

    #[test]
    fn limited_transmit_sends_a_segment_on_each_of_the_first_two_duplicates() {
        // RFC 6675 §5 step 3: before recovery a duplicate ACK that lowers
        // pipe below cwnd sends new data; the data so sent stays out of the
        // FlightSize that sets ssthresh (RFC 5681 §3.2).
        let v = variant("cubic-sack").unwrap();
        let mut plain = Link::new(v, 60, &[(20, 1)]);
        let mut lt = Link::new(v, 60, &[(20, 1)]);
        lt.s = TcpSender::new(&TcpConfig { limited_transmit: true, ..cfg(v) }, Some(60 * MSS));
        let (log_plain, log_lt) = (plain.run(), lt.run());
        assert_eq!(new_before_retransmission(&log_lt, 20), new_before_retransmission(&log_plain, 20) + 2);
        assert_eq!(lt.ssthresh_at_entry, plain.ssthresh_at_entry, "limited transmit's segments not in FlightSize");
        for l in [&plain, &lt] {
            assert_eq!((l.s.stats.timeouts, l.s.stats.fast_retransmits, l.s.stats.segments_retransmitted), (0, 1, 1));
            assert_eq!(l.r.stats.bytes_delivered, 60 * MSS);
        }
    }

    #[test]
    fn syns_carry_sack_permitted_and_data_no_option() {
        let mut l = Link::new(variant("sack").unwrap(), 5, &[]);
        let log = l.run();
        assert_eq!(log[0].flags, flags::SYN);
        assert_eq!(log[0].opt, 4);
        assert!(log[1..].iter().all(|s| s.opt == 0 && s.sack == 0));
        let mut plain = Link::new(variant("newreno").unwrap(), 5, &[]);
        assert_eq!(plain.run()[0].opt, 0);
    }
}
