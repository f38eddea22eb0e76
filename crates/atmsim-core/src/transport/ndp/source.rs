//! NDP's sender (htsim `NdpSrc`; rules N7, N11–N13 of docs/fabrics.md).
//! It sends its first window unpulled, then one packet per pull: a NACKed
//! packet first (the lowest sequence number), else new data. Pull numbers
//! are cumulative, so a lost PULL costs nothing once a later one arrives.

use super::paths::{Feedback, PathChoice};
use super::NdpConfig;
use crate::base::{NdpHeader, NdpKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_retransmitted: u64,
    pub bytes_retransmitted: u64,
    pub acks: u64,
    pub nacks: u64,
    pub pulls: u64,
}

#[derive(Clone, Debug)]
pub struct NdpSource {
    mss: u32,
    /// Payload bytes to send; `None`: unbounded.
    size: Option<u64>,
    /// Bytes sent as new data (the next new packet starts at this + 1).
    highest_sent: u64,
    /// The receiver's cumulative ACK.
    pub cum_ack: u64,
    /// NACKed packets waiting to be sent again, lowest sequence number first.
    rtx: BinaryHeap<Reverse<u64>>,
    /// Pulls served, and the highest pull number received (N11).
    last_pull: u32,
    max_pull: u32,
    paths: PathChoice,
    initial_window: u32,
    nack_draws_path: bool,
    pub stats: SourceStats,
}

impl NdpSource {
    pub fn new(cfg: &NdpConfig, size: Option<u64>, paths: PathChoice) -> NdpSource {
        NdpSource {
            mss: cfg.mss,
            size,
            highest_sent: 0,
            cum_ack: 0,
            rtx: BinaryHeap::new(),
            last_pull: 0,
            max_pull: 0,
            paths,
            initial_window: cfg.initial_window,
            nack_draws_path: cfg.nack_draws_path,
            stats: SourceStats::default(),
        }
    }

    /// The flow starts: its first window goes out unpulled (N7).
    pub fn start(&mut self, out: &mut Vec<NdpHeader>) {
        for _ in 0..self.initial_window {
            if !self.send_packet(out) {
                break;
            }
        }
    }

    /// Has every byte been acknowledged (bounded flows)?
    pub fn is_done(&self) -> bool {
        self.size.is_some_and(|s| self.cum_ack >= s)
    }

    /// An ACK arrived: new data acknowledged, and a pull if it carries one.
    /// Returns true if it completed the flow.
    pub fn on_ack(&mut self, h: &NdpHeader, out: &mut Vec<NdpHeader>) -> bool {
        self.stats.acks += 1;
        self.paths.feedback(h.data_path, Feedback::Ack);
        let was_done = self.is_done();
        self.cum_ack = self.cum_ack.max(h.cum_ack);
        if self.is_done() {
            return !was_done;
        }
        if h.flag {
            self.pull(h.pull_no, out);
        }
        false
    }

    /// A NACK arrived: the packet waits to be sent again (its path chosen
    /// then); packets go at once if the NACK carries a pull or pulls are
    /// outstanding (N13). With `nack_draws_path` the NACK first takes a
    /// path from the cycle that no packet uses, as htsim's
    /// `NdpSrc::processNack` does: it makes the packet it queues with
    /// `choose_route`, and `send_packet` replaces that route with a second
    /// `choose_route` when the packet goes. The skipped draw leaves a
    /// flow's packets less evenly spread over its paths (docs/validation.md,
    /// H1: 12.6 % fewer trims in Fig. 22 without it).
    pub fn on_nack(&mut self, h: &NdpHeader, out: &mut Vec<NdpHeader>) {
        self.stats.nacks += 1;
        self.paths.feedback(h.data_path, Feedback::Nack);
        if self.nack_draws_path {
            self.paths.next_path();
        }
        self.rtx.push(Reverse(h.seq));
        if h.flag || self.last_pull < self.max_pull {
            self.pull(if h.flag { h.pull_no } else { 0 }, out);
        }
    }

    /// A PULL arrived.
    pub fn on_pull(&mut self, h: &NdpHeader, out: &mut Vec<NdpHeader>) {
        self.stats.pulls += 1;
        self.cum_ack = self.cum_ack.max(h.cum_ack);
        self.pull(h.pull_no, out);
    }

    /// Sends until as many pulled packets have gone as the highest pull
    /// number says (N11), or nothing is left to send.
    fn pull(&mut self, pull_no: u32, out: &mut Vec<NdpHeader>) {
        self.max_pull = self.max_pull.max(pull_no);
        while self.last_pull < self.max_pull {
            if !self.send_packet(out) {
                break;
            }
            self.last_pull += 1;
        }
    }

    /// Payload bytes of the packet starting at `seq`.
    fn len_at(&self, seq: u64) -> u32 {
        match self.size {
            Some(s) => (s - (seq - 1)).min(self.mss as u64) as u32,
            None => self.mss,
        }
    }

    /// One packet: a NACKed one first (N12), else new data. False if there
    /// is nothing to send.
    fn send_packet(&mut self, out: &mut Vec<NdpHeader>) -> bool {
        let (seq, retransmission) = match self.rtx.pop() {
            Some(Reverse(seq)) => (seq, true),
            None if self.size.is_some_and(|s| self.highest_sent >= s) => return false,
            None => (self.highest_sent + 1, false),
        };
        let len = self.len_at(seq);
        if !retransmission {
            self.highest_sent += len as u64;
        } else {
            self.stats.packets_retransmitted += 1;
            self.stats.bytes_retransmitted += len as u64;
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        let last = self.size.is_some_and(|s| seq - 1 + len as u64 >= s);
        out.push(NdpHeader {
            kind: NdpKind::Data,
            seq,
            cum_ack: 0,
            len,
            pull_no: 0,
            path: self.paths.next_path(),
            data_path: 0,
            flag: last,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PathChoice, Strategy};
    use super::*;
    use rand::SeedableRng;

    fn source(size: Option<u64>) -> NdpSource {
        source_drawing(size, true)
    }

    fn source_drawing(size: Option<u64>, nack_draws_path: bool) -> NdpSource {
        let cfg = NdpConfig { mss: 1000, header: 64, initial_window: 3, pull_rate: 1.0, strategy: Strategy::Perm, nack_draws_path };
        NdpSource::new(&cfg, size, PathChoice::new(4, Strategy::Perm, rand_chacha::ChaCha8Rng::seed_from_u64(1)))
    }

    fn reply(kind: NdpKind, seq: u64, cum_ack: u64, pull_no: u32, flag: bool) -> NdpHeader {
        NdpHeader { kind, seq, cum_ack, len: 0, pull_no, path: 0, data_path: 0, flag }
    }

    #[test]
    fn the_first_window_then_one_packet_per_pull_number() {
        let mut s = source(None);
        let mut out = Vec::new();
        s.start(&mut out);
        assert_eq!(out.iter().map(|h| h.seq).collect::<Vec<_>>(), [1, 1001, 2001]);
        out.clear();
        // Pull 2 arrives before pull 1: it pays for both (N11); pull 1 then adds nothing.
        s.on_pull(&reply(NdpKind::Pull, 0, 1000, 2, true), &mut out);
        assert_eq!(out.iter().map(|h| h.seq).collect::<Vec<_>>(), [3001, 4001]);
        out.clear();
        s.on_pull(&reply(NdpKind::Pull, 0, 1000, 1, true), &mut out);
        assert!(out.is_empty());
        // An ACK without a pull sends nothing.
        s.on_ack(&reply(NdpKind::Ack, 1001, 2000, 0, false), &mut out);
        assert!(out.is_empty() && s.cum_ack == 2000);
    }

    #[test]
    fn a_nacked_packet_goes_first_with_the_next_pull() {
        let mut s = source(Some(4500));
        let mut out = Vec::new();
        s.start(&mut out);
        out.clear();
        s.on_nack(&reply(NdpKind::Nack, 1001, 1000, 0, false), &mut out);
        assert!(out.is_empty(), "no pull with it, none outstanding");
        s.on_ack(&reply(NdpKind::Ack, 2001, 1000, 1, true), &mut out);
        s.on_ack(&reply(NdpKind::Ack, 2001, 1000, 2, true), &mut out);
        s.on_ack(&reply(NdpKind::Ack, 2001, 1000, 3, true), &mut out);
        // The resent packet, then the rest of the flow: the last packet is 500 bytes.
        assert_eq!(
            out.iter().map(|h| (h.seq, h.len, h.flag)).collect::<Vec<_>>(),
            [(1001, 1000, false), (3001, 1000, false), (4001, 500, true)]
        );
        assert_eq!((s.stats.packets_retransmitted, s.stats.bytes_sent), (1, 5500));
        assert!(!s.is_done() && s.on_ack(&reply(NdpKind::Ack, 4001, 4500, 0, false), &mut out) && s.is_done());
    }

    #[test]
    fn a_nack_takes_a_path_from_the_cycle_as_htsim_does() {
        // The paths the cycle hands out, in order, from the same seed.
        let mut cycle = PathChoice::new(4, Strategy::Perm, rand_chacha::ChaCha8Rng::seed_from_u64(1));
        let draws: Vec<u16> = (0..6).map(|_| cycle.next_path()).collect();
        let sent = |draws_on_nack: bool| {
            let mut s = source_drawing(None, draws_on_nack);
            let mut out = Vec::new();
            s.start(&mut out);
            s.on_nack(&reply(NdpKind::Nack, 1001, 1000, 0, false), &mut out);
            s.on_ack(&reply(NdpKind::Ack, 2001, 1000, 1, true), &mut out);
            s.on_ack(&reply(NdpKind::Ack, 2001, 1000, 2, true), &mut out);
            out.iter().map(|h| (h.seq, h.path)).collect::<Vec<_>>()
        };
        // One draw per packet: the resend takes the fourth path, the next new packet the fifth.
        assert_eq!(sent(false), [(1, draws[0]), (1001, draws[1]), (2001, draws[2]), (1001, draws[3]), (3001, draws[4])]);
        // htsim's: the NACK takes the fourth, unused; the resend the fifth, the next packet the sixth.
        assert_eq!(sent(true), [(1, draws[0]), (1001, draws[1]), (2001, draws[2]), (1001, draws[4]), (3001, draws[5])]);
    }
}
