//! The receiver's side of AIDA: the distinct pieces held of each segment not
//! yet rebuilt. A segment of m cells is rebuilt as soon as m distinct pieces
//! are held, whichever transmissions they came from (Bestavros & Kim §3);
//! a duplicate index adds nothing. A segment is its sequence number and
//! length: a shorter retransmission at the same sequence number is another
//! dispersal, whose pieces do not mix with the first.

use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
struct Held {
    /// The piece indices held, sorted (a segment needs at most a few
    /// hundred; N itself may be large).
    pieces: Vec<u16>,
}

#[derive(Clone, Debug, Default)]
pub struct PieceStore {
    segs: BTreeMap<(u64, u32), Held>,
}

impl PieceStore {
    /// Adds piece `index` of the segment `seq`, `len`; returns the distinct
    /// pieces now held of it.
    pub fn add(&mut self, seq: u64, len: u32, index: u16) -> u16 {
        let h = self.segs.entry((seq, len)).or_default();
        if let Err(at) = h.pieces.binary_search(&index) {
            h.pieces.insert(at, index);
        }
        h.pieces.len() as u16
    }

    /// Distinct pieces held of the segment `seq`, `len`.
    pub fn held(&self, seq: u64, len: u32) -> u16 {
        self.segs.get(&(seq, len)).map_or(0, |h| h.pieces.len() as u16)
    }

    /// Of the segments starting at `seq`, the one with most pieces held:
    /// (its length, the pieces), if any.
    pub fn most_held_at(&self, seq: u64) -> Option<(u32, u16)> {
        self.segs.range((seq, 0)..=(seq, u32::MAX)).map(|(&(_, len), h)| (len, h.pieces.len() as u16)).max_by_key(|&(len, c)| (c, len))
    }

    /// Is piece `index` of the segment `seq`, `len` held?
    pub fn has(&self, seq: u64, len: u32, index: u16) -> bool {
        self.segs.get(&(seq, len)).is_some_and(|h| h.pieces.binary_search(&index).is_ok())
    }

    /// The segment was rebuilt: forget it.
    pub fn forget(&mut self, seq: u64, len: u32) {
        self.segs.remove(&(seq, len));
    }

    /// Forgets every segment starting below `rcv_nxt`.
    pub fn forget_below(&mut self, rcv_nxt: u64) {
        self.segs = self.segs.split_off(&(rcv_nxt, 0));
    }

    /// Segments with pieces held.
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_pieces_only() {
        let mut s = PieceStore::default();
        assert_eq!(s.add(1, 100, 0), 1);
        assert_eq!(s.add(1, 100, 0), 1);
        assert_eq!(s.add(1, 100, 255), 2);
        assert_eq!(s.add(1, 100, 64), 3);
        assert_eq!(s.add(1, 100, 65535), 4);
        assert!(s.has(1, 100, 255) && s.has(1, 100, 64) && !s.has(1, 100, 63));
        assert_eq!(s.held(1, 100), 4);
        assert_eq!(s.held(2, 100), 0);
    }

    #[test]
    fn segments_are_kept_apart_and_forgotten() {
        let mut s = PieceStore::default();
        s.add(1, 100, 3);
        s.add(101, 100, 3);
        s.add(201, 100, 4);
        s.forget_below(101);
        assert_eq!((s.held(1, 100), s.held(101, 100), s.len()), (0, 1, 2));
        s.forget(201, 100);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_shorter_segment_at_the_same_sequence_number_is_kept_apart() {
        let mut s = PieceStore::default();
        s.add(1, 9140, 0);
        s.add(1, 9140, 1);
        s.add(1, 4000, 0);
        assert_eq!((s.held(1, 9140), s.held(1, 4000)), (2, 1));
        assert_eq!(s.most_held_at(1), Some((9140, 2)));
        assert_eq!(s.most_held_at(2), None);
    }
}
