//! Egress reassembly of one stream (source FAP, egress port): cells arrive
//! out of order because they were sprayed over links of different delays
//! and queues; they are put back in order by their sequence number, and a
//! packet leaves, whole, once every byte of it has arrived in order
//! (`dnx_data_ingr_reassembly`; docs/fabric.md R7). The stream's packets
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
}

impl Reassembly {
    /// The ingress numbers its next cell.
    pub fn number(&mut self) -> u32 {
        let n = self.numbered;
        self.numbered = n.wrapping_add(1);
        n
    }

    /// The cell `seq` of `payload` bytes arrived.
    pub fn cell(&mut self, seq: u32, payload: u16) {
        debug_assert!(payload > 0);
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
            self.ready += p as u64;
            self.next_seq = self.next_seq.wrapping_add(1);
            self.held -= 1;
        }
        self.peak_held = self.peak_held.max(self.held);
    }

    /// The next packet whose bytes have all arrived in order.
    pub fn next_packet(&mut self) -> Option<Unit> {
        let len = self.packets.front()?.wire_bytes as u64;
        if self.ready < len {
            return None;
        }
        self.ready -= len;
        self.packets.pop_front()
    }

    /// Cells held out of order now.
    pub fn held(&self) -> u32 {
        self.held
    }

    /// Bytes that arrived but belong to no packet delivered yet.
    pub fn bytes_waiting(&self) -> u64 {
        self.ready + self.window.iter().map(|&p| p as u64).sum::<u64>()
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
        assert_eq!(r.next_packet().map(|u| u.frame), Some(0));
        assert_eq!(r.next_packet().map(|u| u.frame), Some(1));
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
}
