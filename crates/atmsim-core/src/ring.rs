//! A FIFO ring of plain values: a link's pipe (`net::pipe`), the scheduler's
//! gap lanes (`engine`).
//!
//! A ring buffer whose capacity is a power of two, so a position is a mask
//! rather than a comparison and a subtraction, and the hot path (`front`,
//! `pop_front`, `push_back`, `from_back`) has no wrap-around branch. It grows
//! by doubling and never shrinks: after the first round trip of a run a pipe
//! holds its largest window without allocating again. The slots of a new
//! capacity are filled as the ring first reaches them, never in advance, so
//! memory the ring has not yet used is not resident (an in-flight cell costs
//! its 24 bytes, not the doubling's spare room).

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The slots used so far: `buf.len() <= cap`, and every live position
    /// is below `buf.len()` (positions are written in ring order, so the
    /// next one is at most `buf.len()` until the ring first wraps, when
    /// `buf.len() == cap`).
    buf: Vec<T>,
    /// Zero or a power of two.
    cap: usize,
    /// Position of the oldest value.
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring::new()
    }
}

impl<T: Copy> Ring<T> {
    pub fn new() -> Self {
        Ring { buf: Vec::new(), cap: 0, head: 0, len: 0 }
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

    /// The oldest value.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let f = self.buf[self.head];
        self.drop_front();
        Some(f)
    }

    /// Forgets the oldest value; the ring must not be empty.
    #[inline]
    pub fn drop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
    }

    #[inline]
    pub fn push_back(&mut self, f: T) {
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

    /// Makes room for `n` more values at once (so that a run of
    /// [`Ring::push_back`] does not grow the ring between them).
    #[inline]
    pub fn reserve(&mut self, n: usize) {
        while self.len + n > self.cap {
            self.grow();
        }
    }

    /// Appends `n` values in order, the `k`-th being `value(k)`: what `n`
    /// calls of [`Ring::push_back`] would do, growing the ring once.
    #[inline]
    pub fn extend_with(&mut self, n: usize, mut value: impl FnMut(usize) -> T) {
        self.reserve(n);
        let (mask, start) = (self.mask(), self.head + self.len);
        for k in 0..n {
            let (at, v) = ((start + k) & mask, value(k));
            if at < self.buf.len() {
                self.buf[at] = v;
            } else {
                self.buf.push(v);
            }
        }
        self.len += n;
    }

    /// The `i`-th value from the oldest (0 is the front).
    #[inline]
    pub fn get(&self, i: usize) -> &T {
        assert!(i < self.len, "ring index {i} beyond its {} values", self.len);
        &self.buf[(self.head + i) & self.mask()]
    }

    /// The `k`-th newest value (1 is the newest).
    #[inline]
    pub fn from_back(&self, k: usize) -> &T {
        self.get(self.len - k)
    }

    /// The values from the `i`-th on, oldest first.
    pub fn iter_from(&self, i: usize) -> impl Iterator<Item = &T> {
        (i..self.len).map(move |j| self.get(j))
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.iter_from(0)
    }

    /// Applies `f` to the values from the `i`-th on.
    pub fn update_from(&mut self, i: usize, mut f: impl FnMut(&mut T)) {
        let mask = self.mask();
        for j in i..self.len {
            f(&mut self.buf[(self.head + j) & mask]);
        }
    }

    /// Takes out the `i`-th value; the ones behind it close the gap.
    pub fn remove(&mut self, i: usize) -> T {
        let victim = *self.get(i);
        let mask = self.mask();
        for j in i..self.len - 1 {
            self.buf[(self.head + j) & mask] = self.buf[(self.head + j + 1) & mask];
        }
        self.len -= 1;
        victim
    }

    /// Puts `value` in as the `i`-th; the ones from there on move back one,
    /// each changed by `f` on the way (a trimming port's header, ahead of
    /// the data waiting behind it, delays each of them).
    pub fn insert_shifting(&mut self, i: usize, value: T, mut f: impl FnMut(&mut T)) {
        assert!(i <= self.len, "ring index {i} beyond its {} values", self.len);
        let last = if self.len > 0 { *self.get(self.len - 1) } else { value };
        self.push_back(last);
        let mask = self.mask();
        for j in (i + 1..self.len).rev() {
            let mut v = self.buf[(self.head + j - 1) & mask];
            f(&mut v);
            self.buf[(self.head + j) & mask] = v;
        }
        self.buf[(self.head + i) & mask] = value;
    }

    /// (capacity, slots used so far), for tests.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> (usize, usize) {
        (self.cap, self.buf.len())
    }

    /// Doubles the capacity, the values kept in order from position 0.
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
    use super::Ring;

    #[test]
    fn an_insert_moves_the_values_behind_it_back_and_changes_them() {
        let mut r: Ring<u32> = Ring::new();
        for v in 0..20 {
            r.push_back(v * 10);
        }
        r.insert_shifting(17, 5, |v| *v += 1);
        let all: Vec<u32> = r.iter().copied().collect();
        assert_eq!(&all[15..], [150, 160, 5, 171, 181, 191]);
        r.insert_shifting(r.len(), 7, |_| unreachable!());
        assert_eq!((*r.from_back(1), r.len()), (7, 22));
        let mut e: Ring<u32> = Ring::new();
        e.insert_shifting(0, 3, |_| unreachable!());
        assert_eq!(e.iter().copied().collect::<Vec<_>>(), [3]);
    }
}
