//! A fabric link's FIFO of cells (its queues and its wire): `ring.rs`'s
//! power-of-two ring with a 24-byte header rather than 48 (a boxed slice,
//! the whole capacity written at growth, and 32-bit positions), so that a
//! link's wire and its data cells' queue share one line with its state
//! (`link.rs`: a busy fabric's links do not fit in the L1, and each header
//! a cell-hop reads is a likely miss).

use super::Cell;

#[derive(Clone, Debug)]
pub struct CellRing {
    /// Zero or a power of two slots, all written (the unused ones hold
    /// copies of a cell): the capacity is the slice's length.
    buf: Box<[Cell]>,
    /// Position of the oldest cell.
    head: u32,
    len: u32,
}

impl Default for CellRing {
    fn default() -> Self {
        CellRing::new()
    }
}

impl CellRing {
    pub fn new() -> Self {
        CellRing { buf: Box::new([]), head: 0, len: 0 }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<Cell> {
        if self.len == 0 {
            return None;
        }
        let c = self.buf[self.head as usize];
        self.head = ((self.head as usize + 1) & self.mask()) as u32;
        self.len -= 1;
        Some(c)
    }

    #[inline]
    pub fn push_back(&mut self, c: Cell) {
        if self.len as usize == self.buf.len() {
            self.grow(c);
        }
        let at = (self.head as usize + self.len as usize) & self.mask();
        self.buf[at] = c;
        self.len += 1;
    }

    /// The cells, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Cell> {
        (0..self.len as usize).map(move |i| &self.buf[(self.head as usize + i) & self.mask()])
    }

    /// Doubles the capacity (16 at first), the cells kept in order from
    /// position 0; `fill` fills the rest.
    #[cold]
    fn grow(&mut self, fill: Cell) {
        let cap = (2 * self.buf.len()).max(16);
        assert!(cap <= 1 << 31, "a fabric link's FIFO beyond 2^31 cells");
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        buf.resize(cap, fill);
        self.buf = buf.into_boxed_slice();
        self.head = 0;
    }
}

// What the ring's header costs (`link.rs` counts on it).
const _: () = assert!(std::mem::size_of::<CellRing>() == 24);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::CellKind;

    #[test]
    fn keeps_order_across_wraps_and_growth() {
        let cell = |seq| Cell { voq: 0, seq, from_link: 0, payload: 1, dst_fap: 0, kind: CellKind::Data };
        let mut r = CellRing::new();
        let (mut next_in, mut next_out) = (0, 0);
        for round in 0..200 {
            for _ in 0..(round % 7 + 1) * 3 {
                r.push_back(cell(next_in));
                next_in += 1;
            }
            for _ in 0..(round % 5 + 1) * 3 {
                if let Some(c) = r.pop_front() {
                    assert_eq!(c.seq, next_out);
                    next_out += 1;
                }
            }
            assert_eq!(r.len() as u32, next_in - next_out);
            assert!(r.iter().map(|c| c.seq).eq(next_out..next_in));
        }
    }
}
