//! Pending events as the scheduler's heaps hold them: 16 bytes, the time
//! and one *tag* word, the insertion number above the bits of an id.
//!
//! A pipe head's id is its port; any other event waits in a slab and its
//! id is its slot there, above the ports (`slot_bit` set). Pipe heads are
//! nearly every event of a run, so the heaps move two words where a whole
//! event would be five, and a pipe head is recognised by one comparison.
//! The order is (time, insertion number) as ever: insertion numbers are
//! unique, so the id below them never decides anything.
//!
//! The split of the tag between number and id adapts: it starts at
//! [`ID_BITS`] id bits (ports and slots up to 2²³, insertion numbers up to
//! 2⁴⁰), and when numbers run out or an id does not fit, every pending
//! event is renumbered 0, 1, 2, ... in its order, with a wider id if
//! needed ([`Tags::renumber`]). Renumbering keeps every comparison between
//! pending events, so the heaps and lanes stay valid as they are.

use super::packed::Packed;
use super::{Event, PortEvent, Popped};
use crate::net::PortId;
use crate::time::Time;

/// Id bits to start with.
pub(super) const ID_BITS: u32 = 24;

/// A pending event in two words: see the module's comment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scheduled {
    pub(super) at: Time,
    pub(super) tag: u64,
}

impl Scheduled {
    /// Time, then insertion number, as one integer.
    #[inline(always)]
    pub(super) fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.tag as u128
    }
}

/// Insertion numbers, the split of a tag, and the slab of events that are
/// not pipe heads.
pub(super) struct Tags {
    /// The next tag's insertion number, in place (shifted above the id),
    /// and the step from one number to the next (`1 << id_bits`).
    next: u64,
    step: u64,
    /// The first number that does not fit, in place (0 when the numbers
    /// fill the word: the next tag wraps around to 0 after the last one,
    /// and numbers start from 1).
    end: u64,
    /// `1 << (id_bits - 1)`: ids from here on are slab slots.
    slot_bit: u64,
    pub(super) id_bits: u32,
    slab: Vec<Packed>,
    free: Vec<u32>,
    /// Times the pending events were renumbered (tests).
    #[cfg(test)]
    pub(super) renumbered: u32,
}

impl Default for Tags {
    fn default() -> Self {
        Tags::with_id_bits(ID_BITS)
    }
}

impl Tags {
    pub(super) fn with_id_bits(id_bits: u32) -> Self {
        Tags::numbered_from(1, id_bits, 0, Vec::new(), Vec::new())
    }

    /// Tags whose next insertion number is `first` (numbers end at
    /// `end`, or fill the word if `end` is 0).
    fn numbered_from(first: u64, id_bits: u32, end: u64, slab: Vec<Packed>, free: Vec<u32>) -> Self {
        Tags {
            next: first << id_bits,
            step: 1 << id_bits,
            end: end << id_bits,
            slot_bit: 1 << (id_bits - 1),
            id_bits,
            slab,
            free,
            #[cfg(test)]
            renumbered: 0,
        }
    }

    /// The insertion number of a tag.
    fn seq(&self, tag: u64) -> u64 {
        tag >> self.id_bits
    }

    /// Pretends that insertion numbers end before `end` (tests of
    /// renumbering).
    #[cfg(test)]
    pub(super) fn end_numbers_at(&mut self, end: u64) {
        self.end = end << self.id_bits;
    }

    /// The tag of a new event, its slot taken if it is not a pipe head, or
    /// `None` if the event is not representable before renumbering (the
    /// caller renumbers and asks again).
    #[inline(always)]
    pub(super) fn tag(&mut self, event: Event) -> Option<u64> {
        if self.next == self.end {
            return None;
        }
        let id = match event {
            Event::Port(PortEvent::PipeHead(p)) if (p.0 as u64) < self.slot_bit => p.0 as u64,
            Event::Port(PortEvent::PipeHead(_)) => return None,
            _ => self.store(event)?,
        };
        let tag = self.next | id;
        self.next = self.next.wrapping_add(self.step);
        Some(tag)
    }

    /// Puts a non-pipe-head event into the slab: its id, if it fits.
    #[inline(never)]
    fn store(&mut self, event: Event) -> Option<u64> {
        let slot = match self.free.last() {
            Some(&slot) => slot as usize,
            None if (self.slab.len() as u64) < self.slot_bit => self.slab.len(),
            None => return None,
        };
        let packed = Packed::of(event);
        if slot == self.slab.len() {
            self.slab.push(packed);
        } else {
            self.free.pop();
            self.slab[slot] = packed;
        }
        Some(self.slot_bit | slot as u64)
    }

    /// The event of a tag being handed out (its slot, if any, is free
    /// again).
    #[inline(always)]
    pub(super) fn event(&mut self, tag: u64) -> Popped {
        let id = tag & (self.step - 1);
        if id < self.slot_bit {
            return Popped::PipeHead(PortId(id as u32));
        }
        let slot = (id - self.slot_bit) as usize;
        self.free.push(slot as u32);
        Popped::Other(self.slab[slot])
    }

    /// Makes room for `event`: renumbers the pending events (all of
    /// `pending`, in whatever structures they wait) 0, 1, 2, ... in their
    /// order, widening the id if `event`'s does not fit. Comparisons
    /// between pending events are unchanged, so heaps stay heaps and lanes
    /// stay sorted.
    #[cold]
    pub(super) fn renumber(&mut self, event: Event, pending: &mut [&mut [Scheduled]]) {
        let needed = match event {
            Event::Port(PortEvent::PipeHead(p)) => p.0 as u64 + 1,
            _ => self.slab.len() as u64 + 1,
        };
        let mut id_bits = self.id_bits;
        while (1u64 << (id_bits - 1)) < needed.max(self.slab.len() as u64 + 1) {
            id_bits += 1;
        }
        let mut seqs: Vec<u64> = pending.iter().flat_map(|part| part.iter().map(|s| self.seq(s.tag))).collect();
        seqs.sort_unstable();
        let count = seqs.len() as u64;
        assert!(id_bits < 64 && count + 1 < 1 << (64 - id_bits), "more pending events than a tag can number");
        let new_slot_bit = 1u64 << (id_bits - 1);
        for part in pending.iter_mut() {
            for s in part.iter_mut() {
                let id = s.tag & (self.step - 1);
                let id = if id < self.slot_bit { id } else { id - self.slot_bit + new_slot_bit };
                let rank = seqs.binary_search(&self.seq(s.tag)).expect("a pending insertion number") as u64;
                s.tag = (rank + 1) << id_bits | id;
            }
        }
        // Numbers end where the new split ends them (or, in a test that
        // shortened them, where it did, while that leaves room).
        let test_end = self.seq(self.end);
        let end = if test_end > count + 2 && test_end < 1 << (64 - id_bits) { test_end } else { 0 };
        #[cfg(test)]
        let renumbered = self.renumbered + 1;
        *self = Tags::numbered_from(count + 1, id_bits, end, std::mem::take(&mut self.slab), std::mem::take(&mut self.free));
        #[cfg(test)]
        {
            self.renumbered = renumbered;
        }
    }
}
