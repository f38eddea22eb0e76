//! A fabric link's FIFO of cells of one priority, those on its wire first
//! (sent, oldest first) and then those waiting: a cell stays where it was
//! queued until it arrives, so a start copies nothing to a wire of its
//! own (`link.rs`). `ring.rs`'s power-of-two ring with a 32-byte header
//! rather than 48 (a boxed slice, the whole capacity written at growth,
//! and 32-bit positions), so that a link's data cells' FIFO shares one
//! line with its state: a busy fabric's links do not fit in the L1, and
//! each header a cell-hop reads is a likely miss.

use super::Cell;

#[derive(Clone, Debug)]
pub struct CellRing {
    /// Zero or a power of two slots, all written (the unused ones hold
    /// copies of a cell): the capacity is the slice's length.
    buf: Box<[Cell]>,
    /// Position of the oldest cell.
    head: u32,
    len: u32,
    /// The oldest `sent` cells are on the wire; the rest wait.
    sent: u32,
}

impl Default for CellRing {
    fn default() -> Self {
        CellRing::new()
    }
}

impl CellRing {
    pub fn new() -> Self {
        CellRing { buf: Box::new([]), head: 0, len: 0, sent: 0 }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// Cells waiting (not sent).
    #[inline]
    pub fn waiting(&self) -> usize {
        (self.len - self.sent) as usize
    }

    /// Cells on the wire.
    #[inline]
    pub fn on_wire(&self) -> usize {
        self.sent as usize
    }

    /// Sends the oldest waiting cell (there must be one): the cell; the
    /// copy left on the wire carries `number` as its `from_link` (the
    /// order of the wires of a link's FIFOs, for a failure; nothing reads
    /// a cell's `from_link` between its start and its arrival, where it is
    /// set again).
    #[inline]
    pub fn send(&mut self, number: u32) -> Cell {
        debug_assert!(self.sent < self.len);
        let at = (self.head as usize + self.sent as usize) & self.mask();
        let c = self.buf[at];
        self.buf[at].from_link = number;
        self.sent += 1;
        c
    }

    /// The oldest cell on the wire arrives: out of the ring.
    #[inline]
    pub fn arrive(&mut self) -> Option<Cell> {
        if self.sent == 0 {
            return None;
        }
        let c = self.buf[self.head as usize];
        self.head = ((self.head as usize + 1) & self.mask()) as u32;
        self.len -= 1;
        self.sent -= 1;
        Some(c)
    }

    /// The oldest cell on the wire, if any.
    pub fn wire_front(&self) -> Option<&Cell> {
        (self.sent > 0).then(|| &self.buf[self.head as usize])
    }

    /// Takes out the waiting cells, oldest first.
    pub fn drain_waiting(&mut self, mut f: impl FnMut(Cell)) {
        for i in self.sent..self.len {
            f(self.buf[(self.head as usize + i as usize) & self.mask()]);
        }
        self.len = self.sent;
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
const _: () = assert!(std::mem::size_of::<CellRing>() == 32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::CellKind;

    #[test]
    fn keeps_order_across_wraps_and_growth() {
        let cell = |seq| Cell { voq: 0, seq, from_link: 0, payload: 1, dst_fap: 0, kind: CellKind::Data };
        let mut r = CellRing::new();
        let (mut queued, mut sent, mut arrived) = (0, 0, 0);
        for round in 0..200 {
            for _ in 0..(round % 7 + 1) * 3 {
                r.push_back(cell(queued));
                queued += 1;
            }
            for _ in 0..(round % 5 + 1) * 2 {
                if r.waiting() > 0 {
                    assert_eq!(r.send(sent + 1000).seq, sent);
                    sent += 1;
                }
            }
            for _ in 0..(round % 3 + 1) * 2 {
                if let Some(c) = r.arrive() {
                    assert_eq!((c.seq, c.from_link), (arrived, arrived + 1000));
                    arrived += 1;
                }
            }
            assert_eq!((r.on_wire(), r.waiting()), ((sent - arrived) as usize, (queued - sent) as usize));
            assert!(r.iter().map(|c| c.seq).eq(arrived..queued));
        }
        let mut left = Vec::new();
        r.drain_waiting(|c| left.push(c.seq));
        assert!(left.into_iter().eq(sent..queued));
        assert_eq!((r.waiting(), r.on_wire()), (0, (sent - arrived) as usize));
    }
}
