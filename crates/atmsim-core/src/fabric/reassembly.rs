//! Egress reassembly of one stream (source FAP, egress port): cells arrive
//! out of order because they were sprayed over links of different delays
//! and queues; they are put back in order by their sequence number, and a
//! packet leaves, whole, once every byte of it has arrived in order
//! (`dnx_data_ingr_reassembly`; docs/fabric.md R8). The stream's packets
//! are known in order from their VOQ, so the cells need to carry only
//! their number and size, and packing across packets changes nothing here.
//! The reorder depth reported is the most cells held at once waiting for an
//! earlier one.

use crate::net::Unit;
use crate::ring::Ring;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// The number of the next cell due in order.
    next_seq: u32,
    /// Payload of the cells next_seq, next_seq + 1, ... that arrived (0: not yet).
    window: VecDeque<u16>,
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
    pub fn give_up(&mut self, seq: u32, payload: u16) {
        self.cell(seq, payload | LOST);
    }

    /// The cell `seq` of `payload` bytes arrived.
    pub fn cell(&mut self, seq: u32, payload: u16) {
        debug_assert!(payload & !LOST > 0);
        let k = seq.wrapping_sub(self.next_seq) as usize;
        if self.window.len() <= k {
            self.window.resize(k + 1, 0);
        }
        debug_assert_eq!(self.window[k], 0, "cell {seq} arrived twice");
        self.window[k] = payload;
        self.held += 1;
        while let Some(&p) = self.window.front() {
            if p == 0 {
                break;
            }
            self.window.pop_front();
            let bytes = (p & !LOST) as u64;
            if p & LOST != 0 {
                self.lost.push_back((self.in_order, self.in_order + bytes));
            }
            self.in_order += bytes;
            self.ready += bytes;
            self.next_seq = self.next_seq.wrapping_add(1);
            self.held -= 1;
        }
        self.peak_held = self.peak_held.max(self.held);
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

    /// Cells held out of order now.
    pub fn held(&self) -> u32 {
        self.held
    }

    /// Bytes that arrived but belong to no packet delivered yet.
    pub fn bytes_waiting(&self) -> u64 {
        self.ready + self.window.iter().map(|&p| (p & !LOST) as u64).sum::<u64>()
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
}
