//! The receiving side of the BSD TCP (4.4BSD-Lite `tcp_input.c` with
//! `TCP_REASS`, `tcp_output.c`; delayed ACKs as RFC 1122 §4.2.3.2).
//!
//! In-order data is delivered to the application at once (it reads
//! immediately, so the advertised window is the whole receive buffer).
//! Out-of-order data waits in a reassembly list and is ACKed at once, which
//! produces the sender's duplicate ACKs. With delayed ACKs (`bsd_delack`) an
//! in-order segment sets the delayed-ACK flag and an ACK goes out once two
//! full segments are unacknowledged, or at the next 200 ms fast tick; without
//! them (`ack_every_segment`, Aron & Druschel) every segment is ACKed.

use super::ecn::EcnReceiver;
use super::sack_option::{SackBlocks, SackReceiver, PERMITTED_BYTES};
use crate::net::{flags, Segment};

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    /// Payload bytes of all data segments handed to TCP.
    pub bytes_received: u64,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Bytes that arrived again (already delivered or already queued).
    pub bytes_duplicate: u64,
    pub acks_sent: u64,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    pub rcv_nxt: u64,
    /// Out-of-order data beyond `rcv_nxt`: disjoint, sorted [start, end).
    ooo: Vec<(u64, u64)>,
    pub rcv_buf: u32,
    pub delayed_ack: bool,
    pub mss: u64,
    /// A delayed ACK is owed.
    ack_pending: bool,
    /// `rcv_nxt` carried by the last ACK sent.
    last_ack_sent: u64,
    /// SACK (RFC 2018), when the connection negotiated it.
    sack: Option<SackReceiver>,
    /// ECN (RFC 3168 §6.1.3, or DCTCP's RFC 8257 §3.2), when enabled.
    pub ecn: Option<EcnReceiver>,
    /// The ACK a DCTCP receiver owed for earlier data when a segment changed
    /// its CE state, sent before the segment's own (RFC 8257 §3.2).
    state_change_ack: Option<Segment>,
    pub stats: ReceiverStats,
}

/// What the receiver wants sent after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    Nothing,
    Ack,
    SynAck,
}

impl TcpReceiver {
    pub fn new(rcv_buf: u32, mss: u64, delayed_ack: bool) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            rcv_buf,
            delayed_ack,
            mss,
            ack_pending: false,
            last_ack_sent: 0,
            sack: None,
            ecn: None,
            state_change_ack: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Reports SACK blocks on its ACKs (the SYNs carried SACK-permitted).
    pub fn with_sack(mut self) -> Self {
        self.sack = Some(SackReceiver::default());
        self
    }

    /// ECN-capable: agrees to an ECN-setup SYN and echoes CE marks
    /// ([`EcnReceiver::default`] for RFC 3168, [`EcnReceiver::dctcp`]).
    pub fn with_ecn(mut self, ecn: EcnReceiver) -> Self {
        self.ecn = Some(ecn);
        self
    }

    /// The ACK to send before the reply to the segment just handed in: a
    /// DCTCP receiver's delayed ACK of earlier data, with their CE state.
    pub fn take_state_change_ack(&mut self) -> Option<Segment> {
        self.state_change_ack.take()
    }

    /// The SACK blocks of the ACK numbered `id` (`Segment::sack`), read once
    /// by the sender when that ACK arrives.
    pub fn sack_blocks(&mut self, id: u32) -> SackBlocks {
        self.sack.as_mut().map_or_else(SackBlocks::default, |s| s.take(id))
    }

    /// Bytes waiting in the reassembly list.
    pub fn held_out_of_order(&self) -> u64 {
        self.ooo.iter().map(|&(s, e)| e - s).sum()
    }

    pub fn on_segment(&mut self, seg: &Segment) -> Reply {
        if seg.flags & flags::SYN != 0 {
            self.rcv_nxt = self.rcv_nxt.max(1);
            if let Some(ecn) = &mut self.ecn {
                ecn.on_syn(seg);
            }
            return Reply::SynAck;
        }
        if self.rcv_nxt == 0 || seg.len == 0 {
            // Data before the SYN cannot happen on an in-order network.
            return Reply::Nothing;
        }
        let changed = self.ecn.as_ref().is_some_and(|e| e.changes_state(seg));
        if changed && self.ack_pending {
            self.state_change_ack = Some(self.make_ack(Reply::Ack));
        }
        if let Some(ecn) = &mut self.ecn {
            ecn.on_data(seg);
        }
        let (s, e) = (seg.seq, seg.seq + seg.len as u64);
        self.stats.bytes_received += seg.len as u64;
        let had_hole = !self.ooo.is_empty();
        let new = self.insert(s.max(self.rcv_nxt), e);
        self.stats.bytes_duplicate += seg.len as u64 - new;
        let before = self.rcv_nxt;
        // Pull contiguous data to the application.
        while let Some(&(fs, fe)) = self.ooo.first() {
            if fs > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(fe);
            self.ooo.remove(0);
        }
        self.stats.bytes_delivered += self.rcv_nxt - before;
        let in_order = self.rcv_nxt > before;
        if let Some(sack) = &mut self.sack {
            sack.on_data(s, in_order);
        }
        if !self.delayed_ack || !in_order || had_hole || changed {
            return Reply::Ack;
        }
        // Delayed ACK: answer at once when the window would open by two
        // segments (every second full segment), else at the fast tick.
        if self.rcv_nxt - self.last_ack_sent >= 2 * self.mss {
            Reply::Ack
        } else {
            self.ack_pending = true;
            Reply::Nothing
        }
    }

    /// Inserts [s, e) into the reassembly list; returns the bytes not
    /// already present. Merges adjacent and overlapping intervals.
    fn insert(&mut self, s: u64, e: u64) -> u64 {
        if s >= e {
            return 0;
        }
        let mut covered = 0;
        for &(fs, fe) in &self.ooo {
            let (a, b) = (fs.max(s), fe.min(e));
            if a < b {
                covered += b - a;
            }
        }
        let pos = self.ooo.partition_point(|&(fs, _)| fs < s);
        self.ooo.insert(pos, (s, e));
        // Merge neighbours.
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ooo.len());
        for &(fs, fe) in &self.ooo {
            match merged.last_mut() {
                Some(last) if fs <= last.1 => last.1 = last.1.max(fe),
                _ => merged.push((fs, fe)),
            }
        }
        self.ooo = merged;
        (e - s) - covered
    }

    /// The 200 ms fast tick: send a pending delayed ACK.
    pub fn on_fast_tick(&mut self) -> bool {
        std::mem::take(&mut self.ack_pending)
    }

    /// The ACK (or SYN-ACK) to send now.
    pub fn make_ack(&mut self, reply: Reply) -> Segment {
        self.ack_pending = false;
        self.last_ack_sent = self.rcv_nxt;
        self.stats.acks_sent += 1;
        let syn = if reply == Reply::SynAck { flags::SYN } else { 0 };
        let (opt, sack) = match &mut self.sack {
            None => (0, 0),
            Some(_) if reply == Reply::SynAck => (PERMITTED_BYTES, 0),
            Some(s) => {
                // RFC 2018 §4: an option on every ACK while data are held
                // out of order.
                let blocks = s.blocks(&self.ooo);
                if blocks.is_empty() {
                    (0, 0)
                } else {
                    (blocks.option_bytes(), s.post(blocks))
                }
            }
        };
        let ecn = self.ecn.as_ref().map_or(0, |e| e.ack_flags(reply == Reply::SynAck));
        Segment { seq: 0, ack: self.rcv_nxt, len: 0, wnd: self.rcv_buf, flags: flags::ACK | syn | ecn, opt, sack }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, len: u32) -> Segment {
        Segment { seq, ack: 1, len, wnd: 0, flags: flags::ACK, opt: 0, sack: 0 }
    }

    fn established(delack: bool) -> TcpReceiver {
        let mut r = TcpReceiver::new(65535, 100, delack);
        assert_eq!(r.on_segment(&Segment { flags: flags::SYN, ..Default::default() }), Reply::SynAck);
        r
    }

    #[test]
    fn in_order_out_of_order_and_duplicates_are_accounted() {
        let mut r = established(false);
        assert_eq!(r.on_segment(&data(1, 100)), Reply::Ack);
        assert_eq!(r.on_segment(&data(201, 100)), Reply::Ack); // hole at 101
        assert_eq!(r.make_ack(Reply::Ack).ack, 101, "duplicate ACK for the hole");
        assert_eq!(r.held_out_of_order(), 100);
        r.on_segment(&data(201, 100)); // duplicate of queued data
        r.on_segment(&data(101, 100)); // fills the hole
        assert_eq!(r.rcv_nxt, 301);
        r.on_segment(&data(1, 100)); // old duplicate
        let s = &r.stats;
        assert_eq!(s.bytes_delivered, 300);
        assert_eq!(s.bytes_duplicate, 200);
        assert_eq!(s.bytes_received, s.bytes_delivered + s.bytes_duplicate + r.held_out_of_order());
    }

    #[test]
    fn delayed_ack_every_second_full_segment() {
        let mut r = established(true);
        r.make_ack(Reply::SynAck);
        assert_eq!(r.on_segment(&data(1, 100)), Reply::Nothing);
        assert_eq!(r.on_segment(&data(101, 100)), Reply::Ack);
        r.make_ack(Reply::Ack);
        assert_eq!(r.on_segment(&data(201, 100)), Reply::Nothing);
        assert!(r.on_fast_tick());
        assert!(!r.on_fast_tick());
    }

    #[test]
    fn delayed_ack_acks_out_of_order_at_once() {
        let mut r = established(true);
        assert_eq!(r.on_segment(&data(101, 100)), Reply::Ack);
        assert_eq!(r.on_segment(&data(1, 100)), Reply::Ack, "hole filled: ACK at once");
    }

    #[test]
    fn sack_acks_carry_their_blocks_by_reference_and_size() {
        let mut r = TcpReceiver::new(65535, 100, false).with_sack();
        let syn = Segment { flags: flags::SYN, ..Default::default() };
        let reply = r.on_segment(&syn);
        let synack = r.make_ack(reply);
        assert_eq!((synack.opt, synack.sack), (PERMITTED_BYTES, 0), "SACK-permitted");
        r.on_segment(&data(1, 100));
        let a = r.make_ack(Reply::Ack);
        assert_eq!((a.opt, a.sack), (0, 0), "nothing held: no option");
        r.on_segment(&data(201, 100));
        let a = r.make_ack(Reply::Ack);
        assert_eq!((a.ack, a.opt), (101, 12));
        assert_eq!(r.sack_blocks(a.sack).as_slice(), [(201, 301)]);
        r.on_segment(&data(401, 100));
        let a = r.make_ack(Reply::Ack);
        assert_eq!(a.opt, 20);
        assert_eq!(r.sack_blocks(a.sack).as_slice(), [(401, 501), (201, 301)]);
        // Without SACK nothing changes.
        let mut plain = established(false);
        plain.on_segment(&data(201, 100));
        let a = plain.make_ack(Reply::Ack);
        assert_eq!((a.opt, a.sack), (0, 0));
    }
}
