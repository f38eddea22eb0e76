//! The near events as a timing wheel (Varghese & Lauck, "Hashed and
//! hierarchical timing wheels", SOSP 1987): buckets of equal width in time,
//! one lap of which is longer than any near event is due after the event
//! being run, so every event waiting is less than a lap ahead and its bucket
//! alone says where it stands. A bucket keeps its events in (time,
//! insertion) order; the next event is the first of the first bucket, at or
//! after the present one, that holds any, found in a bitmap of the buckets.
//!
//! Why not a heap: the near events are the pipe heads of busy links, a dozen
//! or more on a fat tree, each due one packet time or a link's delay after
//! the event that schedules it. A binary heap's sift over them was a fifth
//! of every packet-hop's instructions in NDP's Fig. 21 (about 120 of 671);
//! a bucket's insert and a bitmap's scan take a few dozen, whatever the
//! number waiting (docs/performance.md, "Session 37").

use super::Scheduled;
use crate::time::Time;

/// Buckets in one lap.
const BUCKETS: usize = 1024;
const WORDS: usize = BUCKETS / 64;
/// The end of a bucket's list, and of the free list.
const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Entry {
    s: Scheduled,
    next: u32,
}

pub(super) struct Wheel {
    /// A bucket is `1 << shift` picoseconds wide.
    shift: u32,
    /// Per bucket, its first entry (NIL: empty) and its last (when not
    /// empty).
    heads: Box<[u32; BUCKETS]>,
    tails: Box<[u32; BUCKETS]>,
    /// Which buckets hold an entry.
    occupied: [u64; WORDS],
    /// The entries, and the free ones in a list through `next`.
    entries: Vec<Entry>,
    free: u32,
    len: usize,
}

impl Wheel {
    /// A wheel for events due less than `horizon` after the event being
    /// run: a lap is at least one bucket longer than that.
    pub(super) fn new(horizon: Time) -> Wheel {
        let mut shift = 0;
        while horizon >> shift >= (BUCKETS - 2) as Time {
            shift += 1;
        }
        Wheel::new_with_shift(shift)
    }

    /// The longest a wheel of this width can hold an event ahead of the
    /// present (less one bucket, since the present is anywhere in its own).
    pub(super) fn horizon(&self) -> Time {
        ((BUCKETS - 2) as Time) << self.shift
    }

    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn bucket(&self, at: Time) -> usize {
        (at >> self.shift) as usize % BUCKETS
    }

    /// Puts `s` in, due at most [`Wheel::horizon`] after `now` and not
    /// before it.
    #[inline(always)]
    pub(super) fn push(&mut self, s: Scheduled) {
        let b = self.bucket(s.at);
        let ix = match self.free {
            NIL => {
                self.entries.push(Entry { s, next: NIL });
                (self.entries.len() - 1) as u32
            }
            ix => {
                // Field by field: an event built in registers but spilled
                // by its caller (a trimming port's acceptance) was copied
                // whole in 16-byte loads of the 8-byte stores just made, a
                // failed store-to-load forward each (see `packed.rs`).
                let entry = &mut self.entries[ix as usize];
                self.free = entry.next;
                entry.s.at = s.at;
                entry.s.seq = s.seq;
                let [code, ids] = s.event.0;
                entry.s.event.0 = [code, ids];
                entry.next = NIL;
                ix
            }
        };
        self.len += 1;
        let head = self.heads[b];
        if head == NIL {
            self.heads[b] = ix;
            self.tails[b] = ix;
            self.occupied[b / 64] |= 1 << (b % 64);
            return;
        }
        // Behind the last: events at one instant (ATM's links tick in
        // step) arrive in insertion order.
        let tail = self.tails[b];
        if self.entries[tail as usize].s.key() < s.key() {
            self.entries[tail as usize].next = ix;
            self.tails[b] = ix;
        } else if s.key() < self.entries[head as usize].s.key() {
            self.entries[ix as usize].next = head;
            self.heads[b] = ix;
        } else {
            self.insert_after(head, ix);
        }
    }

    /// An event between the first and the last of a bucket: rare while
    /// the buckets are narrow, so out of line. (Never behind the last.)
    #[inline(never)]
    fn insert_after(&mut self, mut at: u32, ix: u32) {
        let key = self.entries[ix as usize].s.key();
        loop {
            let next = self.entries[at as usize].next;
            if next == NIL || key < self.entries[next as usize].s.key() {
                self.entries[ix as usize].next = next;
                self.entries[at as usize].next = ix;
                return;
            }
            at = next;
        }
    }

    /// The bucket of the earliest event, searched from that of `now` (no
    /// event waiting is earlier than `now`); None when empty.
    #[inline(always)]
    pub(super) fn first(&self, now: Time) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let b = self.bucket(now);
        let mut word = b / 64;
        let mut bits = self.occupied[word] & (u64::MAX << (b % 64));
        // At most a lap: past the last word back to the first, and the
        // present word whole (its buckets before the present one are the
        // lap's last).
        while bits == 0 {
            word = (word + 1) % WORDS;
            bits = self.occupied[word];
        }
        Some(word * 64 + bits.trailing_zeros() as usize)
    }

    /// The earliest event of bucket `b` (not empty).
    #[inline(always)]
    pub(super) fn front(&self, b: usize) -> &Scheduled {
        &self.entries[self.heads[b] as usize].s
    }

    /// Takes the earliest event of bucket `b` (not empty) out.
    #[inline(always)]
    pub(super) fn pop_front(&mut self, b: usize) {
        let ix = self.heads[b];
        let next = self.entries[ix as usize].next;
        self.heads[b] = next;
        if next == NIL {
            self.occupied[b / 64] &= !(1 << (b % 64));
        }
        self.entries[ix as usize].next = self.free;
        self.free = ix;
        self.len -= 1;
    }

    /// Every event waiting, in no order, leaving the wheel empty.
    pub(super) fn drain(&mut self) -> Vec<Scheduled> {
        let mut out = Vec::with_capacity(self.len);
        for b in 0..BUCKETS {
            let mut ix = self.heads[b];
            while ix != NIL {
                out.push(self.entries[ix as usize].s);
                ix = self.entries[ix as usize].next;
            }
        }
        *self = Wheel::new_with_shift(self.shift);
        out
    }

    fn new_with_shift(shift: u32) -> Wheel {
        Wheel {
            shift,
            heads: Box::new([NIL; BUCKETS]),
            tails: Box::new([NIL; BUCKETS]),
            occupied: [0; WORDS],
            entries: Vec::new(),
            free: NIL,
            len: 0,
        }
    }
}
