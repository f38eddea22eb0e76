//! The fate of every frame (AAL5 PDU, or packet) a VC carries, for the
//! accounting identity (docs/metrics.md) and for loss statistics.
//!
//! A frame ends in exactly one way: delivered intact to TCP, dropped whole in
//! queues (no cell reached the destination), discarded at reassembly (some
//! cells arrived but the PDU was damaged or merged), or it is still in flight
//! when the run stops. Frames of a VC are numbered in order, so the ledger is
//! a ring indexed by frame number: no hashing, one update per cell event.

use crate::net::FrameHeader;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    InFlight,
    Delivered,
    Dropped,
    Discarded,
    /// Trimmed to its header on the way (NDP N2), and the header reached
    /// the receiver: its payload is the accounting identity's trimmed term.
    Trimmed,
}

#[derive(Clone, Copy, Debug)]
pub struct FrameRecord {
    /// The header the frame carries: kept once here rather than in each of
    /// its cells, so a cell in flight stays small; the receiver reads it
    /// when the frame is delivered.
    pub header: FrameHeader,
    pub ncells: u16,
    pub arrived: u16,
    pub dropped: u16,
    pub fate: Fate,
    /// When the frame was handed to the network.
    pub sent_at: Time,
    /// The sender's smoothed RTT (ps) then: the loss-episode window.
    pub srtt: Time,
}

/// A frame that was lost, for loss-episode statistics.
#[derive(Clone, Copy, Debug)]
pub struct Loss {
    pub seq: u64,
    pub len: u32,
    pub sent_at: Time,
    pub srtt: Time,
}

#[derive(Clone, Debug, Default)]
pub struct Ledger {
    base: u32,
    frames: VecDeque<FrameRecord>,
    pub next_frame: u32,
    /// One past the highest sequence number sent (to tell retransmissions).
    pub max_seq_sent: u64,
    pub bytes_dropped: u64,
    pub bytes_discarded: u64,
    pub bytes_delivered: u64,
    pub frames_discarded: u64,
    pub frames_dropped: u64,
    pub bytes_trimmed: u64,
    pub frames_trimmed: u64,
    pub cells_sent: u64,
    pub cells_arrived: u64,
    pub cells_dropped: u64,
    /// The frame whose cells are arriving, and how many of them have
    /// arrived that its record does not count yet. A frame's cells arrive
    /// one after another, so its record (a load that waits on the VC's
    /// ledger, then on the frame's slot) is written once per frame, when
    /// the next frame's cells begin, not once per cell: [`Ledger::arrived`]
    /// adds the two. (Frame 0 with no cells at first: any frame may come
    /// first, and writing no cells changes no record.)
    arriving: u32,
    arriving_cells: u16,
}

impl Ledger {
    /// Registers a new frame; returns its number.
    pub fn push(&mut self, header: FrameHeader, ncells: u16, sent_at: Time, srtt: Time) -> u32 {
        let (seq, len) = (header.seq(), header.payload_len());
        let f = self.next_frame;
        self.next_frame += 1;
        self.cells_sent += ncells as u64;
        self.max_seq_sent = self.max_seq_sent.max(seq + len as u64);
        self.frames.push_back(FrameRecord { header, ncells, arrived: 0, dropped: 0, fate: Fate::InFlight, sent_at, srtt });
        f
    }

    #[inline]
    fn rec(&mut self, frame: u32) -> &mut FrameRecord {
        let i = (frame - self.base) as usize;
        &mut self.frames[i]
    }

    /// A cell of `frame` was dropped in a queue. Returns the frame's record
    /// if this drop made it lost as a whole.
    #[inline]
    pub fn cell_dropped(&mut self, frame: u32) -> Option<Loss> {
        self.cells_dropped += 1;
        let r = self.rec(frame);
        r.dropped += 1;
        // Every cell is counted once, arrived or dropped: all dropped, none arrived.
        if r.dropped == r.ncells {
            return self.resolve(frame, Fate::Dropped);
        }
        None
    }

    /// The record of a frame whose fate is still open.
    pub fn record(&self, frame: u32) -> FrameRecord {
        self.frames[(frame - self.base) as usize]
    }

    /// The header of a frame whose fate is still open (read in place: the
    /// rest of its record is not copied).
    #[inline]
    pub fn open_header(&self, frame: u32) -> FrameHeader {
        self.frames[(frame - self.base) as usize].header
    }

    /// The record of a frame whose fate is still open, read in place (for
    /// its address: `world/warm.rs` fetches it ahead); `None` once its fate
    /// is fixed.
    pub fn open_record(&self, frame: u32) -> Option<&FrameRecord> {
        self.frames.get(frame.checked_sub(self.base)? as usize)
    }

    /// The record a cell of another frame than the one arriving would
    /// settle first (`cell_arrived`), read in place, if still open.
    pub fn arriving_record(&self) -> Option<&FrameRecord> {
        self.open_record(self.arriving)
    }

    /// The segment header of a frame whose fate is still open (`None` once
    /// its fate is fixed and the record is gone).
    pub fn header(&self, frame: u32) -> Option<FrameHeader> {
        let i = frame.checked_sub(self.base)? as usize;
        self.frames.get(i).map(|r| r.header)
    }

    #[inline]
    pub fn cell_arrived(&mut self, frame: u32) {
        self.cells_arrived += 1;
        if frame != self.arriving {
            self.settle_arrivals();
            self.arriving = frame;
        }
        self.arriving_cells += 1;
    }

    /// A packet, its frame's one unit, arrived: the frame's fate is fixed
    /// at once (`World::frame_arrived`), so no record counts it as arrived
    /// (only reassembly reads those counts, and only cells are reassembled).
    #[inline]
    pub fn packet_arrived(&mut self) {
        self.cells_arrived += 1;
    }

    /// Writes the arriving frame's cells into its record (if it is still
    /// kept: a frame whose fate is fixed needs no count).
    #[cold]
    fn settle_arrivals(&mut self) {
        let n = std::mem::take(&mut self.arriving_cells);
        if let Some(r) = self.arriving.checked_sub(self.base).and_then(|i| self.frames.get_mut(i as usize)) {
            r.arrived += n;
        }
    }

    /// Cells of `frame` (whose fate is still open) that have arrived.
    pub fn arrived(&self, frame: u32) -> u16 {
        let pending = if frame == self.arriving { self.arriving_cells } else { 0 };
        self.record(frame).arrived + pending
    }

    /// Fixes a frame's fate; returns it as a loss if it was lost. A
    /// delivered frame (nearly every one) is settled inline, with no call;
    /// the others in [`Ledger::resolve_lost`].
    #[inline(always)]
    pub fn resolve(&mut self, frame: u32, fate: Fate) -> Option<Loss> {
        if fate != Fate::Delivered {
            return self.resolve_lost(frame, fate);
        }
        let r = self.rec(frame);
        debug_assert_eq!(r.fate, Fate::InFlight);
        r.fate = fate;
        // Nothing else of the record is read (no copy of it), and the
        // oldest open frame is most often this one.
        self.bytes_delivered += r.header.payload_len() as u64;
        self.forget_resolved();
        None
    }

    /// [`Ledger::resolve`] for every other fate: trimmed, dropped or discarded.
    #[inline(never)]
    fn resolve_lost(&mut self, frame: u32, fate: Fate) -> Option<Loss> {
        let r = self.rec(frame);
        debug_assert_eq!(r.fate, Fate::InFlight);
        r.fate = fate;
        let len = r.header.payload_len();
        let loss = Loss { seq: r.header.seq(), len, sent_at: r.sent_at, srtt: r.srtt };
        match fate {
            Fate::Dropped => {
                self.bytes_dropped += len as u64;
                self.frames_dropped += 1;
            }
            Fate::Discarded => {
                self.bytes_discarded += len as u64;
                self.frames_discarded += 1;
            }
            Fate::Trimmed => {
                self.bytes_trimmed += len as u64;
                self.frames_trimmed += 1;
            }
            Fate::Delivered | Fate::InFlight => {}
        }
        self.forget_resolved();
        Some(loss)
    }

    /// The records of the oldest frames whose fates are fixed leave.
    #[inline]
    fn forget_resolved(&mut self) {
        while self.frames.front().is_some_and(|r| r.fate != Fate::InFlight) {
            self.frames.pop_front();
            self.base += 1;
        }
    }

    /// The frames `first..=last` of a buffer the reassembler discarded: those
    /// that had cells in it become discarded (the others were dropped whole).
    pub fn discard_range(&mut self, first: u32, last: u32, mut on_loss: impl FnMut(Loss)) {
        for f in first..=last {
            if f < self.base {
                continue;
            }
            let r = *self.rec(f);
            if r.fate == Fate::InFlight && self.arrived(f) > 0 {
                if let Some(l) = self.resolve(f, Fate::Discarded) {
                    on_loss(l);
                }
            }
        }
    }

    /// Payload bytes of frames whose fate is still open.
    pub fn bytes_in_flight(&self) -> u64 {
        self.frames.iter().filter(|r| r.fate == Fate::InFlight).map(|r| r.header.payload_len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Segment;

    fn tcp(seq: u64) -> FrameHeader {
        FrameHeader::Tcp(Segment { seq, len: 100, ..Segment::default() })
    }

    #[test]
    fn the_records_fetched_ahead_are_the_ones_an_arrival_touches() {
        let mut l = Ledger::default();
        let a = l.push(tcp(1), 1, 0, 0);
        let b = l.push(tcp(101), 1, 0, 0);
        l.cell_arrived(a);
        // b's cell settles a's count into a's record, then b's record is read.
        assert!(std::ptr::eq(l.arriving_record().unwrap(), &l.frames[0]));
        assert!(std::ptr::eq(l.open_record(b).unwrap(), &l.frames[1]));
        l.cell_arrived(b);
        assert_eq!(l.arrived(a), 1);
        // Once a frame's fate is fixed and its record gone, neither is found.
        l.resolve(a, Fate::Delivered);
        assert!(l.open_record(a).is_none());
        assert!(std::ptr::eq(l.arriving_record().unwrap(), &l.frames[0]));
    }

    #[test]
    fn fates_partition_the_bytes_sent() {
        let mut l = Ledger::default();
        let a = l.push(tcp(1), 3, 0, 0);
        let b = l.push(tcp(101), 3, 0, 0);
        let c = l.push(tcp(201), 3, 0, 0);
        let d = l.push(tcp(301), 3, 0, 0);
        // a: all cells dropped -> dropped whole.
        for _ in 0..3 {
            l.cell_dropped(a);
        }
        // b: two arrive, EOM dropped; c merges into it and is discarded too.
        l.cell_arrived(b);
        l.cell_arrived(b);
        l.cell_dropped(b);
        for _ in 0..3 {
            l.cell_arrived(c);
        }
        // Counted per frame whether or not its record has been written yet.
        assert_eq!((l.arrived(b), l.arrived(c)), (2, 3));
        let mut lost = Vec::new();
        l.discard_range(b, c, |x| lost.push(x.seq));
        // d: one cell still in flight.
        l.cell_arrived(d);
        assert_eq!(lost, vec![101, 201]);
        assert_eq!(l.bytes_dropped, 100);
        assert_eq!(l.bytes_discarded, 200);
        assert_eq!(l.bytes_in_flight(), 100);
        assert_eq!(l.cells_sent, l.cells_arrived + l.cells_dropped + 2);
    }
}
