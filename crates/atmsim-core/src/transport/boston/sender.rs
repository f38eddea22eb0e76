//! The sender's side of AIDA: per unacknowledged segment, the next unused
//! piece index and the most pieces the receiver has reported holding.
//!
//! Bestavros & Kim §3: a segment of m cells is dispersed into N ≥ m pieces;
//! the first transmission sends n of them (n = m without spatial
//! redundancy); when the receiver reports holding r pieces, a
//! retransmission sends m − r pieces not sent before. When the N pieces are
//! used up, indices are reused from the oldest on (our choice: the paper's
//! N is large enough never to run out; with GF(2^8), a 192-cell segment
//! has only 64 spares).

use std::collections::VecDeque;

/// One transmission of a segment: pieces `first_piece, first_piece + 1, …`
/// (modulo N), `ncells` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    pub first_piece: u16,
    pub ncells: u16,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    seq: u64,
    /// A retransmission may be shorter than the original (a window that is
    /// not a whole number of segments): a different segment to disperse.
    len: u32,
    /// Next piece index to send (counts up; taken modulo N).
    next_piece: u32,
    /// Most pieces the receiver reported holding.
    r_max: u16,
}

#[derive(Clone, Debug)]
pub struct PieceSender {
    pieces: u16,
    redundancy: u16,
    /// Unacknowledged segments in sequence order.
    pending: VecDeque<Pending>,
}

impl PieceSender {
    pub fn new(pieces: u16, redundancy: u16) -> Self {
        PieceSender { pieces, redundancy, pending: VecDeque::new() }
    }

    fn find(&self, seq: u64, len: u32) -> Result<usize, usize> {
        self.pending.binary_search_by_key(&(seq, len), |p| (p.seq, p.len))
    }

    /// The pieces a transmission of the segment `seq`, `len` (m cells) carries.
    pub fn transmit(&mut self, seq: u64, len: u32, m: u16) -> Transmission {
        let n = self.pieces as u32;
        let i = match self.find(seq, len) {
            Ok(i) => i,
            Err(i) => {
                self.pending.insert(i, Pending { seq, len, next_piece: 0, r_max: 0 });
                i
            }
        };
        let p = &mut self.pending[i];
        let count = if p.next_piece == 0 { (m as u32 + self.redundancy as u32).min(n) } else { (m - p.r_max.min(m - 1)) as u32 };
        let first = (p.next_piece % n) as u16;
        p.next_piece += count;
        Transmission { first_piece: first, ncells: count as u16 }
    }

    /// An ACK for everything below `ack`, reporting `held` pieces of the
    /// segment `ack`, `len` (every ACK carries it: our choice, so that
    /// pieces that arrived during an earlier loss are not resent).
    pub fn on_ack(&mut self, ack: u64, len: u32, held: u16) {
        while self.pending.front().is_some_and(|p| p.seq < ack) {
            self.pending.pop_front();
        }
        if let Ok(i) = self.find(ack, len) {
            let p = &mut self.pending[i];
            p.r_max = p.r_max.max(held);
        }
    }

    /// The pieces the receiver is known to hold of the segment `seq`, `len`.
    pub fn reported(&self, seq: u64, len: u32) -> u16 {
        self.find(seq, len).map_or(0, |i| self.pending[i].r_max)
    }

    /// Segments still awaiting an ACK.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_transmission_sends_m_pieces_without_redundancy() {
        let mut s = PieceSender::new(256, 0);
        assert_eq!(s.transmit(1, 500, 11), Transmission { first_piece: 0, ncells: 11 });
        assert_eq!(s.transmit(513, 500, 11), Transmission { first_piece: 0, ncells: 11 });
        assert_eq!(s.pending(), 2);
    }

    #[test]
    fn redundancy_adds_pieces_up_front_within_n() {
        let mut s = PieceSender::new(256, 3);
        assert_eq!(s.transmit(1, 500, 11).ncells, 14);
        assert_eq!(s.transmit(9000, 9000, 254).ncells, 256);
    }

    #[test]
    fn retransmission_sends_m_minus_r_fresh_pieces() {
        let mut s = PieceSender::new(256, 0);
        s.transmit(1, 1500, 32);
        s.on_ack(1, 1500, 20);
        assert_eq!(s.reported(1, 1500), 20);
        assert_eq!(s.transmit(1, 1500, 32), Transmission { first_piece: 32, ncells: 12 });
        // A later ACK reporting fewer pieces does not lower r.
        s.on_ack(1, 1500, 5);
        assert_eq!(s.transmit(1, 1500, 32), Transmission { first_piece: 44, ncells: 12 });
    }

    #[test]
    fn no_partial_ack_means_m_fresh_pieces() {
        let mut s = PieceSender::new(256, 0);
        s.transmit(1, 1500, 32);
        assert_eq!(s.transmit(1, 1500, 32), Transmission { first_piece: 32, ncells: 32 });
    }

    #[test]
    fn indices_wrap_round_robin_when_n_is_used_up() {
        let mut s = PieceSender::new(256, 0);
        s.transmit(1, 9140, 192);
        assert_eq!(s.transmit(1, 9140, 192), Transmission { first_piece: 192, ncells: 192 });
        // 384 pieces sent: the next starts at 384 mod 256 = 128.
        assert_eq!(s.transmit(1, 9140, 192).first_piece, 128);
    }

    #[test]
    fn an_ack_forgets_acknowledged_segments_and_reports_for_the_next() {
        let mut s = PieceSender::new(256, 0);
        for seq in [1, 101, 201] {
            s.transmit(seq, 100, 3);
        }
        s.on_ack(201, 100, 2);
        assert_eq!(s.pending(), 1);
        assert_eq!(s.reported(201, 100), 2);
        assert_eq!(s.reported(1, 100), 0);
        assert_eq!(s.transmit(201, 100, 3).ncells, 1);
    }

    #[test]
    fn a_shorter_retransmission_is_another_segment() {
        let mut s = PieceSender::new(256, 0);
        s.transmit(1, 9140, 192);
        s.on_ack(1, 9140, 150);
        s.on_ack(1, 4000, 7);
        // 4000 bytes at the same sequence number: dispersed afresh.
        assert_eq!(s.transmit(1, 4000, 84), Transmission { first_piece: 0, ncells: 84 });
        assert_eq!(s.transmit(1, 9140, 192).ncells, 42);
    }

    #[test]
    fn at_least_one_piece_is_sent() {
        let mut s = PieceSender::new(256, 0);
        s.transmit(1, 100, 3);
        s.on_ack(1, 100, 3);
        assert_eq!(s.transmit(1, 100, 3).ncells, 1);
    }
}
