//! The receiver's side of AIDA: the distinct pieces held of each segment not
//! yet rebuilt. A segment of m cells is rebuilt as soon as m distinct pieces
//! are held, whichever transmissions they came from (Bestavros & Kim §3);
//! a duplicate index adds nothing.

use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, Default)]
struct Held {
    /// Which of the (at most 256) piece indices are held.
    mask: [u64; 4],
    count: u16,
}

#[derive(Clone, Debug, Default)]
pub struct PieceStore {
    segs: BTreeMap<u64, Held>,
}

impl PieceStore {
    /// Adds piece `index` of the segment at `seq`; returns the distinct
    /// pieces now held of it.
    pub fn add(&mut self, seq: u64, index: u16) -> u16 {
        let h = self.segs.entry(seq).or_default();
        let (w, b) = (index as usize / 64, index % 64);
        if h.mask[w] >> b & 1 == 0 {
            h.mask[w] |= 1 << b;
            h.count += 1;
        }
        h.count
    }

    /// Distinct pieces held of the segment at `seq`.
    pub fn held(&self, seq: u64) -> u16 {
        self.segs.get(&seq).map_or(0, |h| h.count)
    }

    /// Is piece `index` of `seq` held?
    pub fn has(&self, seq: u64, index: u16) -> bool {
        self.segs.get(&seq).is_some_and(|h| h.mask[index as usize / 64] >> (index % 64) & 1 == 1)
    }

    /// The segment was rebuilt (or is below the cumulative ACK): forget it.
    pub fn forget(&mut self, seq: u64) {
        self.segs.remove(&seq);
    }

    /// Forgets every segment starting below `rcv_nxt`.
    pub fn forget_below(&mut self, rcv_nxt: u64) {
        self.segs = self.segs.split_off(&rcv_nxt);
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
        assert_eq!(s.add(1, 0), 1);
        assert_eq!(s.add(1, 0), 1);
        assert_eq!(s.add(1, 255), 2);
        assert_eq!(s.add(1, 64), 3);
        assert!(s.has(1, 255) && s.has(1, 64) && !s.has(1, 63));
        assert_eq!(s.held(1), 3);
        assert_eq!(s.held(2), 0);
    }

    #[test]
    fn segments_are_kept_apart_and_forgotten() {
        let mut s = PieceStore::default();
        s.add(1, 3);
        s.add(101, 3);
        s.add(201, 4);
        s.forget_below(101);
        assert_eq!((s.held(1), s.held(101), s.len()), (0, 1, 2));
        s.forget(201);
        assert_eq!(s.len(), 1);
    }
}
