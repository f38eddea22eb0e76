//! The pipe of a link: the units on the wire (and, at a FIFO port, the ones
//! still queued for it), in arrival order, each with its arrival time at the
//! far node.
//!
//! A ring buffer whose capacity is a power of two, so a position is a mask
//! rather than a comparison and a subtraction, and the hot path (`front`,
//! `pop_front`, `push_back`, `from_back`) has no wrap-around branch. It grows
//! by doubling and never shrinks: after the first round trip of a run a pipe
//! holds its largest window without allocating again. The slots of a new
//! capacity are filled as the ring first reaches them, never in advance, so
//! memory the ring has not yet used is not resident (an in-flight cell costs
//! its 24 bytes, not the doubling's spare room).

use crate::net::InFlight;

#[derive(Clone, Debug)]
pub struct Pipe {
    /// The slots used so far: `buf.len() <= cap`, and every live position
    /// is below `buf.len()` (positions are written in ring order, so the
    /// next one is at most `buf.len()` until the ring first wraps, when
    /// `buf.len() == cap`).
    buf: Vec<InFlight>,
    /// Zero or a power of two.
    cap: usize,
    /// Position of the oldest unit.
    head: usize,
    len: usize,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe::new()
    }
}

impl Pipe {
    pub fn new() -> Self {
        Pipe {
            buf: Vec::new(),
            cap: 0,
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.cap.wrapping_sub(1)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The oldest unit (the next to reach the far node).
    #[inline]
    pub fn front(&self) -> Option<&InFlight> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        let f = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(f)
    }

    /// Forgets the oldest unit (the pipe is not empty).
    #[inline]
    pub fn drop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
    }

    #[inline]
    pub fn push_back(&mut self, f: InFlight) {
        if self.len == self.cap {
            self.grow();
        }
        let at = (self.head + self.len) & self.mask();
        if at == self.buf.len() {
            self.buf.push(f);
        } else {
            self.buf[at] = f;
        }
        self.len += 1;
    }

    /// The `i`-th unit from the oldest (0 is the front).
    #[inline]
    pub fn get(&self, i: usize) -> &InFlight {
        assert!(i < self.len, "pipe index {i} beyond its {} units", self.len);
        &self.buf[(self.head + i) & self.mask()]
    }

    /// The `k`-th newest unit (1 is the newest).
    #[inline]
    pub fn from_back(&self, k: usize) -> &InFlight {
        self.get(self.len - k)
    }

    /// The units from the `i`-th on, oldest first.
    pub fn iter_from(&self, i: usize) -> impl Iterator<Item = &InFlight> {
        (i..self.len).map(move |j| self.get(j))
    }

    pub fn iter(&self) -> impl Iterator<Item = &InFlight> {
        self.iter_from(0)
    }

    /// Applies `f` to the units from the `i`-th on.
    pub fn update_from(&mut self, i: usize, mut f: impl FnMut(&mut InFlight)) {
        let mask = self.mask();
        for j in i..self.len {
            f(&mut self.buf[(self.head + j) & mask]);
        }
    }

    /// Takes out the `i`-th unit; the ones behind it close the gap.
    pub fn remove(&mut self, i: usize) -> InFlight {
        let victim = *self.get(i);
        let mask = self.mask();
        for j in i..self.len - 1 {
            self.buf[(self.head + j) & mask] = self.buf[(self.head + j + 1) & mask];
        }
        self.len -= 1;
        victim
    }

    /// Doubles the capacity, the units kept in order from position 0.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.cap).max(16);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        self.buf = buf;
        self.cap = cap;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Unit, VcId};
    use std::collections::VecDeque;

    fn f(t: u64) -> InFlight {
        InFlight {
            arrive_at: t,
            unit: Unit {
                vc: VcId(0),
                frame: t as u32,
                hop: 0,
                index: 0,
                ncells: 1,
                wire_bytes: 53,
            },
        }
    }

    #[test]
    fn behaves_as_a_deque_across_growth_and_wrap_around() {
        let (mut p, mut d) = (Pipe::new(), VecDeque::new());
        let mut x = 7u64;
        for t in 0..5000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 61) < 5 {
                p.push_back(f(t));
                d.push_back(f(t));
            } else {
                assert_eq!(
                    p.pop_front().map(|i| i.arrive_at),
                    d.pop_front().map(|i| i.arrive_at)
                );
            }
            assert_eq!(p.len(), d.len());
            assert_eq!(
                p.front().map(|i| i.arrive_at),
                d.front().map(|i| i.arrive_at)
            );
            if !d.is_empty() {
                assert_eq!(p.from_back(1).arrive_at, d.back().unwrap().arrive_at);
                let mid = d.len() / 2;
                assert_eq!(p.get(mid).arrive_at, d[mid].arrive_at);
            }
        }
        assert!(p
            .iter()
            .map(|i| i.arrive_at)
            .eq(d.iter().map(|i| i.arrive_at)));
    }

    #[test]
    fn a_new_capacity_is_filled_only_as_the_ring_reaches_it() {
        let mut p = Pipe::new();
        for t in 0..17 {
            p.push_back(f(t));
        }
        assert_eq!((p.cap, p.buf.len()), (32, 17));
        for t in 17..40 {
            p.pop_front();
            p.push_back(f(t));
        }
        assert_eq!((p.cap, p.buf.len()), (32, 32));
        assert!(p.iter().map(|i| i.arrive_at).eq(23..40));
    }

    #[test]
    fn remove_closes_the_gap_and_update_reaches_the_tail() {
        let mut p = Pipe::new();
        // Wrap the ring first so the removal crosses its end.
        for t in 0..12 {
            p.push_back(f(t));
        }
        for _ in 0..10 {
            p.pop_front();
        }
        for t in 12..24 {
            p.push_back(f(t));
        }
        assert_eq!(p.remove(3).arrive_at, 13);
        p.update_from(10, |i| i.arrive_at += 100);
        let got: Vec<_> = p.iter().map(|i| i.arrive_at).collect();
        assert_eq!(
            got,
            vec![10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 121, 122, 123]
        );
        assert_eq!(p.iter_from(11).count(), 2);
    }

    #[test]
    #[should_panic(expected = "beyond")]
    fn indexing_past_the_end_panics() {
        let mut p = Pipe::new();
        p.push_back(f(1));
        p.get(1);
    }
}
