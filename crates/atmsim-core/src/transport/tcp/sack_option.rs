//! The SACK option (RFC 2018) on the receiver's side: which blocks an ACK
//! reports and in which order, the option's size on the wire, and the log
//! that carries each ACK's blocks to the sender.
//!
//! An ACK's blocks do not ride in the [`Segment`](crate::net::Segment) every
//! cell copies: the ACK carries their size (`opt`, counted in its length and
//! cells) and a number (`sack`); the blocks wait in the receiver's log until
//! the sender gets that ACK. ACKs of a connection arrive in order (one
//! reply VC, FIFO queues), so entries older than the ACK that arrives belong
//! to ACKs that were lost and are dropped. The log holds at most the ACKs in
//! flight.

use std::collections::VecDeque;

/// Blocks per option: RFC 2018 §3, "the 40 bytes available for TCP options
/// can specify a maximum of 4 blocks" (3 with timestamps; atmsim sends none).
pub const MAX_BLOCKS: usize = 4;

/// SACK-permitted (RFC 2018 §2: kind 4, length 2) padded to a 4-byte
/// boundary, on the SYN and the SYN-ACK.
pub const PERMITTED_BYTES: u8 = 4;

/// Up to [`MAX_BLOCKS`] SACK blocks [start, end), most recent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    n: u8,
    b: [(u64, u64); MAX_BLOCKS],
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.b[..self.n as usize]
    }

    pub fn len(&self) -> usize {
        self.n as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Appends a block unless the option is full or already has it.
    fn push(&mut self, blk: (u64, u64)) {
        if (self.n as usize) < MAX_BLOCKS && !self.as_slice().contains(&blk) {
            self.b[self.n as usize] = blk;
            self.n += 1;
        }
    }

    /// Option bytes on the wire: the option is 8n + 2 bytes (RFC 2018 §3),
    /// preceded by two NOPs so the header stays a multiple of 4 bytes (the
    /// layout of RFC 2018's examples and of common stacks): 8n + 4. No
    /// option, no bytes.
    pub fn option_bytes(&self) -> u8 {
        if self.n == 0 {
            0
        } else {
            8 * self.n + 4
        }
    }
}

/// The receiver's SACK state.
#[derive(Clone, Debug, Default)]
pub struct SackReceiver {
    /// The blocks of the last option sent (as current blocks are derived
    /// from them, "the most recently reported SACK blocks").
    last: SackBlocks,
    /// First byte of the segment that triggers the next ACK, if it landed
    /// out of order (did not advance `rcv_nxt`).
    trigger: Option<u64>,
    /// Options sent and not yet read by the sender: (ACK number, blocks).
    log: VecDeque<(u32, SackBlocks)>,
    next_id: u32,
}

/// The reassembly-list block [start, end) that contains `seq`.
fn block_of(ooo: &[(u64, u64)], seq: u64) -> Option<(u64, u64)> {
    let i = ooo.partition_point(|&(_, e)| e <= seq);
    ooo.get(i).copied().filter(|&(s, _)| s <= seq)
}

impl SackReceiver {
    /// A data segment starting at `seq` arrived; `in_order`: it advanced
    /// `rcv_nxt`.
    pub fn on_data(&mut self, seq: u64, in_order: bool) {
        self.trigger = (!in_order).then_some(seq);
    }

    /// The blocks of the ACK about to be sent, in RFC 2018 §4's order: first
    /// the block containing the segment that triggered this ACK (unless
    /// that segment advanced the cumulative ACK), then the most recently
    /// reported blocks that are still held and not already included, each
    /// as its current extent (it may have grown). `ooo` is the reassembly
    /// list (disjoint, sorted, above `rcv_nxt`). No D-SACK (RFC 2883): a
    /// duplicate below `rcv_nxt` is not reported.
    pub fn blocks(&mut self, ooo: &[(u64, u64)]) -> SackBlocks {
        let mut out = SackBlocks::default();
        if let Some(blk) = self.trigger.take().and_then(|s| block_of(ooo, s)) {
            out.push(blk);
        }
        for &(s, _) in self.last.as_slice() {
            if let Some(blk) = block_of(ooo, s) {
                out.push(blk);
            }
        }
        self.last = out;
        out
    }

    /// Logs an option sent on an ACK; returns the ACK's number (from 1).
    pub fn post(&mut self, blocks: SackBlocks) -> u32 {
        self.next_id += 1;
        self.log.push_back((self.next_id, blocks));
        self.next_id
    }

    /// The sender reads the option of ACK number `id` (0: none). Options of
    /// earlier ACKs were lost with them.
    pub fn take(&mut self, id: u32) -> SackBlocks {
        if id == 0 {
            return SackBlocks::default();
        }
        while let Some(&(i, blocks)) = self.log.front() {
            if i > id {
                break;
            }
            self.log.pop_front();
            if i == id {
                return blocks;
            }
        }
        SackBlocks::default()
    }

    /// Options logged and not yet read (bounded by the ACKs in flight).
    pub fn logged(&self) -> usize {
        self.log.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(r: &mut SackReceiver, ooo: &[(u64, u64)], seq: u64) -> Vec<(u64, u64)> {
        r.on_data(seq, false);
        r.blocks(ooo).as_slice().to_vec()
    }

    #[test]
    fn first_block_holds_the_triggering_segment_then_the_recent_ones() {
        let mut r = SackReceiver::default();
        // rcv_nxt = 1; segments of 100 bytes, 101 lost, then 301 lost.
        assert_eq!(report(&mut r, &[(201, 301)], 201), [(201, 301)]);
        assert_eq!(report(&mut r, &[(201, 301), (401, 501)], 401), [(401, 501), (201, 301)]);
        // A segment extending the older block moves it first, grown.
        assert_eq!(report(&mut r, &[(201, 301), (401, 601)], 501), [(401, 601), (201, 301)]);
        assert_eq!(report(&mut r, &[(201, 301), (401, 601), (701, 801)], 701), [(701, 801), (401, 601), (201, 301)]);
        // Filling 301..401 merges two blocks: reported once.
        assert_eq!(report(&mut r, &[(201, 601), (701, 801)], 301), [(201, 601), (701, 801)]);
    }

    #[test]
    fn at_most_four_blocks_the_oldest_falls_off() {
        let mut r = SackReceiver::default();
        let mut ooo = Vec::new();
        for k in 0..5u64 {
            ooo.push((201 + 200 * k, 301 + 200 * k));
            let b = report(&mut r, &ooo, 201 + 200 * k);
            assert_eq!(b[0], (201 + 200 * k, 301 + 200 * k));
        }
        let b = r.last;
        assert_eq!(b.len(), 4);
        assert!(!b.as_slice().contains(&(201, 301)), "the least recent is not repeated");
        assert_eq!(b.option_bytes(), 36, "4 blocks: 8 x 4 + 2, two NOPs: within 40 bytes");
    }

    #[test]
    fn an_in_order_segment_is_not_a_first_block_and_delivered_blocks_go() {
        let mut r = SackReceiver::default();
        report(&mut r, &[(201, 301)], 201);
        report(&mut r, &[(201, 301), (401, 501)], 401);
        // 101..201 arrives: rcv_nxt jumps to 301, one block remains.
        r.on_data(101, true);
        assert_eq!(r.blocks(&[(401, 501)]).as_slice(), [(401, 501)]);
        // 301..401 arrives: everything delivered, no option.
        r.on_data(301, true);
        let b = r.blocks(&[]);
        assert!(b.is_empty());
        assert_eq!(b.option_bytes(), 0);
    }

    #[test]
    fn a_duplicate_of_held_data_reports_its_block_first() {
        let mut r = SackReceiver::default();
        report(&mut r, &[(201, 301)], 201);
        report(&mut r, &[(201, 301), (401, 501)], 401);
        assert_eq!(report(&mut r, &[(201, 301), (401, 501)], 201), [(201, 301), (401, 501)]);
    }

    #[test]
    fn option_sizes_padded_to_four_bytes() {
        let mut b = SackBlocks::default();
        let sizes: Vec<u8> = (0..5u64)
            .map(|k| {
                let s = b.option_bytes();
                b.push((k * 10, k * 10 + 5));
                s
            })
            .collect();
        assert_eq!(sizes, [0, 12, 20, 28, 36]);
        assert_eq!(b.len(), 4, "a fifth block does not fit");
    }

    #[test]
    fn the_log_hands_each_ack_its_blocks_and_forgets_lost_ones() {
        let mut r = SackReceiver::default();
        let blk = |s| {
            let mut b = SackBlocks::default();
            b.push((s, s + 100));
            b
        };
        let ids: Vec<u32> = (0..4).map(|k| r.post(blk(100 * k))).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        assert_eq!(r.take(0), SackBlocks::default(), "an ACK without option");
        assert_eq!(r.take(1).as_slice(), [(0, 100)]);
        // ACK 2 was lost: reading 3 drops it.
        assert_eq!(r.take(3).as_slice(), [(200, 300)]);
        assert_eq!(r.logged(), 1);
        assert_eq!(r.take(3), SackBlocks::default(), "read once");
        assert_eq!(r.take(4).as_slice(), [(300, 400)]);
        assert_eq!(r.logged(), 0);
    }
}
