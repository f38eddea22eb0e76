//! Egress reassembly of one stream (source FAP, egress port): cells arrive
//! out of order because they were sprayed over links of different delays
//! and queues; they are put back in order by their sequence number, and a
//! packet leaves, whole, once every byte of it has arrived in order
//! (`dnx_data_ingr_reassembly`; docs/fabric.md R8). The stream's packets
//! are known in order from their VOQ, so the cells need to carry only
//! their number and size, and packing across packets changes nothing here.
//! The reorder depth reported is the most cells held at once waiting for an
//! earlier one, per stream, and over the fabric the distribution of the
//! cells held just after each data cell's arrival ([`DepthHistogram`]).

use crate::net::Unit;
use crate::ring::Ring;
use std::collections::VecDeque;

/// The payloads of the cells from the next due in order on (0: not arrived
/// yet), in a ring of slots whose count is a power of two, so a place is a
/// mask; slots past the last placed are always 0.
#[derive(Clone, Debug, Default)]
struct SeqWindow {
    slots: Vec<u16>,
    head: usize,
    /// Slots from the head up to the farthest placed.
    len: usize,
}

impl SeqWindow {
    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// Slot `k` from the front set to `payload`.
    #[inline]
    fn set(&mut self, k: usize, payload: u16) {
        if k >= self.slots.len() {
            self.grow(k + 1);
        }
        let at = (self.head + k) & self.mask();
        debug_assert_eq!(self.slots[at], 0, "a cell arrived twice");
        self.slots[at] = payload;
        self.len = self.len.max(k + 1);
    }

    /// The front slot (0 if empty or not arrived).
    #[inline]
    fn front(&self) -> u16 {
        if self.len == 0 {
            0
        } else {
            self.slots[self.head]
        }
    }

    #[inline]
    fn pop_front(&mut self) {
        self.slots[self.head] = 0;
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
    }

    #[cold]
    fn grow(&mut self, need: usize) {
        let mut slots = vec![0; need.next_power_of_two().max(16)];
        for (i, slot) in slots.iter_mut().enumerate().take(self.len) {
            *slot = self.slots[(self.head + i) & self.mask()];
        }
        self.slots = slots;
        self.head = 0;
    }

    fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (0..self.len).map(|i| self.slots[(self.head + i) & self.mask()])
    }
}

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// The number of the next cell due in order.
    next_seq: u32,
    /// Payload of the cells next_seq, next_seq + 1, ... that arrived (0: not yet).
    window: SeqWindow,
    /// Cells held waiting for an earlier one; the most at once.
    held: u32,
    pub peak_held: u32,
    /// Bytes arrived in order that no whole packet has taken yet.
    ready: u64,
    /// The stream's packets in the fabric, oldest first.
    pub packets: Ring<Unit>,
    /// Cells numbered so far by the ingress (the next cell's number).
    pub numbered: u32,
    /// Bytes put in order so far, and those of them taken by packets.
    in_order: u64,
    taken: u64,
    /// Byte ranges of lost cells, given up after the reassembly timeout:
    /// a packet that overlaps one is discarded.
    lost: VecDeque<(u64, u64)>,
}

/// What [`Reassembly::next_packet`] releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Released {
    /// Every byte arrived: the packet goes on.
    Whole(Unit),
    /// Some of its bytes were in a lost cell: discarded.
    Discarded(Unit),
}

/// A lost cell's payload in the window, told apart by its top bit (a
/// payload is at most 16 KB).
const LOST: u16 = 1 << 15;

impl Reassembly {
    /// The ingress numbers its next cell.
    pub fn number(&mut self) -> u32 {
        let n = self.numbered;
        self.numbered = n.wrapping_add(1);
        n
    }

    /// The cell `seq` of `payload` bytes was lost, and the stream has given it up.
    /// It holds a place, not a cell: counting it as held would make the depth
    /// depend on the order of give-ups at one instant.
    pub fn give_up(&mut self, seq: u32, payload: u16) {
        self.place(seq, payload | LOST);
    }

    /// The cell `seq` of `payload` bytes arrived.
    pub fn cell(&mut self, seq: u32, payload: u16) {
        self.held += 1;
        self.place(seq, payload);
        self.peak_held = self.peak_held.max(self.held);
    }

    /// Puts a cell, or a lost cell's place, in the window, and takes what is
    /// now in order.
    fn place(&mut self, seq: u32, payload: u16) {
        debug_assert!(payload & !LOST > 0);
        self.window.set(seq.wrapping_sub(self.next_seq) as usize, payload);
        loop {
            let p = self.window.front();
            if p == 0 {
                break;
            }
            self.window.pop_front();
            let bytes = (p & !LOST) as u64;
            if p & LOST != 0 {
                self.lost.push_back((self.in_order, self.in_order + bytes));
            } else {
                self.held -= 1;
            }
            self.in_order += bytes;
            self.ready += bytes;
            self.next_seq = self.next_seq.wrapping_add(1);
        }
    }

    /// The next packet whose bytes have all arrived in order or been given up.
    pub fn next_packet(&mut self) -> Option<Released> {
        let len = self.packets.front()?.wire_bytes as u64;
        if self.ready < len {
            return None;
        }
        self.ready -= len;
        let (start, end) = (self.taken, self.taken + len);
        self.taken = end;
        let unit = self.packets.pop_front().expect("a front");
        let hit = self.lost.front().is_some_and(|&(a, _)| a < end);
        while self.lost.front().is_some_and(|&(_, b)| b <= end) {
            self.lost.pop_front();
        }
        debug_assert!(self.lost.front().is_none_or(|&(a, _)| a >= start));
        Some(if hit { Released::Discarded(unit) } else { Released::Whole(unit) })
    }

    /// Whether [`Reassembly::next_packet`] would release a packet now.
    #[inline]
    pub fn has_packet(&self) -> bool {
        self.packets.front().is_some_and(|p| self.ready >= p.wire_bytes as u64)
    }

    /// Cells held out of order now (arrived, waiting for an earlier one).
    pub fn held(&self) -> u32 {
        self.held
    }

    /// Bytes that arrived but belong to no packet delivered yet.
    pub fn bytes_waiting(&self) -> u64 {
        self.ready + self.window.iter().map(|p| (p & !LOST) as u64).sum::<u64>()
    }
}

/// Depths counted one by one; above, one bin per power of two.
pub const EXACT_DEPTHS: u32 = 64;
/// Bins: 0 to 63 one each, then [64, 127], [128, 255], ... [2^31, 2^32 − 1].
pub const DEPTH_BINS: usize = EXACT_DEPTHS as usize + 26;

/// How many cells a stream holds out of order just after a data cell
/// arrives (the cell itself counted if it waits), over every arrival at
/// every stream of the fabric: what a reassembly buffer must hold for a
/// given share of arrivals. Fixed bins, exact below [`EXACT_DEPTHS`] (the
/// depths skew and spraying give on a fabric of tens of links, docs/fabric.md
/// F11), so each arrival costs an add and no memory grows.
#[derive(Clone, Debug)]
pub struct DepthHistogram {
    pub counts: [u64; DEPTH_BINS],
}

impl Default for DepthHistogram {
    fn default() -> Self {
        DepthHistogram { counts: [0; DEPTH_BINS] }
    }
}

impl DepthHistogram {
    /// The bin of `held` cells.
    #[inline]
    pub fn bin(held: u32) -> usize {
        if held < EXACT_DEPTHS {
            held as usize
        } else {
            // 64 has its top bit at 6: bin EXACT_DEPTHS.
            EXACT_DEPTHS as usize + (31 - held.leading_zeros() as usize) - 6
        }
    }

    /// The depths bin `b` counts, least and most.
    pub fn bounds(b: usize) -> (u32, u32) {
        if b < EXACT_DEPTHS as usize {
            return (b as u32, b as u32);
        }
        let top = (b - EXACT_DEPTHS as usize + 6) as u32;
        (1 << top, ((1u64 << (top + 1)) - 1) as u32)
    }

    /// One arrival: an add. Every bin is in range already; the `min` tells
    /// the compiler so, and it drops the bounds check.
    #[inline]
    pub fn record(&mut self, held: u32) {
        self.counts[Self::bin(held).min(DEPTH_BINS - 1)] += 1;
    }

    /// The bins that counted an arrival: [least depth, most depth, arrivals].
    pub fn rows(&self) -> Vec<[u64; 3]> {
        let nonzero = self.counts.iter().enumerate().filter(|(_, &c)| c > 0);
        nonzero
            .map(|(b, &c)| {
                let (lo, hi) = Self::bounds(b);
                [lo as u64, hi as u64, c]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    #[test]
    fn cells_out_of_order_release_whole_packets_in_order() {
        let mut r = Reassembly::default();
        // Two packets of 300 and 200 bytes, packed: cells of 256, 244.
        r.packets.push_back(Unit::new(VcId(0), 0, 0, 1, 300));
        r.packets.push_back(Unit::new(VcId(0), 1, 0, 1, 200));
        assert_eq!((r.number(), r.number()), (0, 1));
        r.cell(1, 244);
        assert_eq!((r.held(), r.peak_held), (1, 1));
        assert!(r.next_packet().is_none(), "nothing in order yet");
        r.cell(0, 256);
        assert_eq!(r.held(), 0);
        assert!(matches!(r.next_packet(), Some(Released::Whole(u)) if u.frame == 0));
        assert!(matches!(r.next_packet(), Some(Released::Whole(u)) if u.frame == 1));
        assert!(r.next_packet().is_none());
        assert_eq!(r.bytes_waiting(), 0);
    }

    #[test]
    fn reorder_depth_is_the_most_cells_held_at_once() {
        let mut r = Reassembly::default();
        r.packets.push_back(Unit::new(VcId(0), 0, 0, 1, 1000));
        for seq in [3, 1, 2, 0] {
            r.cell(seq, 250);
        }
        assert_eq!(r.peak_held, 3);
        assert!(r.next_packet().is_some());
    }

    #[test]
    fn depth_bins_are_exact_below_64_then_powers_of_two_and_cover_every_depth() {
        for b in 0..DEPTH_BINS {
            let (lo, hi) = DepthHistogram::bounds(b);
            assert_eq!((DepthHistogram::bin(lo), DepthHistogram::bin(hi)), (b, b), "bin {b}: {lo}..{hi}");
            if b + 1 < DEPTH_BINS {
                assert_eq!(DepthHistogram::bounds(b + 1).0, hi + 1, "bins {b} and {} meet", b + 1);
            }
        }
        assert_eq!(DepthHistogram::bounds(EXACT_DEPTHS as usize), (64, 127));
        assert_eq!(DepthHistogram::bounds(DEPTH_BINS - 1).1, u32::MAX);
        let mut h = DepthHistogram::default();
        // The depths after each of the arrivals 3, 1, 2, 0: 1, 2, 3, then 0.
        let mut r = Reassembly::default();
        for seq in [3, 1, 2, 0] {
            r.cell(seq, 250);
            h.record(r.held());
        }
        h.record(100);
        assert_eq!(h.rows(), vec![[0, 0, 1], [1, 1, 1], [2, 2, 1], [3, 3, 1], [64, 127, 1]]);
    }

    #[test]
    fn a_lost_cell_given_up_discards_the_packets_it_touched_and_no_other() {
        let mut r = Reassembly::default();
        // Packed: 300, 200 and 100 bytes in cells of 256, 244 and 100.
        for (frame, len) in [(0, 300), (1, 200), (2, 100)] {
            r.packets.push_back(Unit::new(VcId(0), frame, 0, 1, len));
        }
        r.cell(0, 256);
        r.cell(2, 100);
        assert!(r.next_packet().is_none(), "waiting for cell 1");
        r.give_up(1, 244); // bytes 256..500: the end of packet 0 and all of packet 1
        assert!(matches!(r.next_packet(), Some(Released::Discarded(u)) if u.frame == 0));
        assert!(matches!(r.next_packet(), Some(Released::Discarded(u)) if u.frame == 1));
        assert!(matches!(r.next_packet(), Some(Released::Whole(u)) if u.frame == 2));
        assert_eq!(r.bytes_waiting(), 0);
    }

    #[test]
    fn cells_given_up_are_not_held_so_their_order_leaves_the_depth_alone() {
        // Cells 0 and 1 lost, 2 and 3 arrived: the two held whichever give-up comes first.
        for order in [[0, 1], [1, 0]] {
            let mut r = Reassembly::default();
            r.cell(2, 100);
            r.cell(3, 100);
            for seq in order {
                r.give_up(seq, 100);
            }
            assert_eq!((r.held(), r.peak_held), (0, 2), "give-ups {order:?}");
        }
    }

    /// The window's ring wraps and grows with its head anywhere: cells
    /// arriving in shuffled blocks of up to 40 (past its first 16 slots),
    /// 5,000 of them, are held and put in order as a set of the numbers
    /// waiting says.
    #[test]
    fn shuffled_cells_are_held_and_released_as_a_plain_set_says() {
        let mut r = Reassembly::default();
        let (mut rng, mut next, mut bytes, mut expected) = (0x9e37_79b9_7f4a_7c15u64, 0u32, 0u64, 0u32);
        let mut draw = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut waiting = std::collections::BTreeSet::new();
        while next < 5_000 {
            let n = 1 + draw(40) as u32;
            let mut block: Vec<u32> = (next..next + n).collect();
            for i in (1..block.len()).rev() {
                block.swap(i, draw(i as u64 + 1) as usize);
            }
            for seq in block {
                let payload = 1 + (seq % 256) as u16;
                r.cell(seq, payload);
                bytes += payload as u64;
                // A plain set of the numbers arrived and not yet in order.
                waiting.insert(seq);
                while waiting.remove(&expected) {
                    expected += 1;
                }
                assert_eq!(r.held() as usize, waiting.len(), "after cell {seq}");
            }
            next += n;
            assert_eq!((r.held(), r.bytes_waiting()), (0, bytes), "a block is whole");
        }
        assert!(r.peak_held >= 16, "the ring grew past its first slots: {}", r.peak_held);
    }
}
