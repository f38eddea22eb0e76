//! The books of a trimming port served as one FIFO with headers placed
//! ahead of waiting data (`router.trim_service = "strict"`, the default;
//! `net/port/trim_fifo_path.rs` carries it out): NDP's two queues (N2–N3)
//! kept, like [`crate::net::fifo::Fifo`], as the newest entries of the link's
//! pipe, each with its departure known, so that a packet-hop costs one
//! event. A header arriving while data waits goes in right after the
//! headers already waiting (the data behind it leaves one header time
//! later): the header queue is served first, strictly. htsim's N4 serves
//! data once in every 100,001 services at which both queues wait
//! (`router.trim_service = "exact"`, `net/trim.rs`, one event more per
//! packet-hop); the two agree until 100,000 such services have passed.
//!
//! The port holds, in service order: the packet in transmission, the
//! headers waiting, the data waiting.

use crate::net::pipe::Pipe;
use crate::time::Time;

/// 32 bytes, held in the port itself (no box): a packet-hop at a trimming
/// port reads these books on the port's first lines, not on a line of their
/// own (at 1,024 hosts, one cache miss a port visited; docs/performance.md,
/// "The trimming books in the port"). The byte counts are 32-bit: a
/// trimming port's data queue is at most [`TrimFifo::MAX_LIMIT_BYTES`]
/// (checked when the scenario is resolved), its header queue twice that.
#[derive(Clone, Debug)]
pub struct TrimFifo {
    /// When the packet in transmission leaves.
    oldest_leaves: Time,
    /// Packets in the port (the newest entries of the pipe), the one in
    /// transmission included.
    queued: u32,
    /// Headers waiting, not yet started (right behind the one in transmission).
    waiting_headers: u32,
    /// Bytes of full data packets held, the one in transmission included (N2).
    data_bytes: u32,
    /// Bytes of headers held, the one in transmission included (N3).
    header_bytes: u32,
    /// The data queue's limit in bytes (the policy's, kept here for the
    /// common arrival, which then reads nothing else, `offer_trim_plain`).
    limit_bytes: u32,
    /// The size of the packet in transmission.
    oldest_bytes: u16,
    /// A packet of at most this many bytes is a header (NDP N1: 64).
    pub trim_to: u16,
}

impl TrimFifo {
    /// The largest data queue a trimming port may have, in bytes (1 GiB):
    /// its header queue (twice as many bytes) and a data queue over its
    /// limit by one replaced packet then still count in 32 bits.
    pub const MAX_LIMIT_BYTES: u64 = 1 << 30;

    pub fn new(trim_to: u16, limit_bytes: u64) -> TrimFifo {
        assert!(limit_bytes <= Self::MAX_LIMIT_BYTES, "a trimming port's limit is checked when resolved");
        TrimFifo {
            oldest_leaves: Time::MAX,
            queued: 0,
            waiting_headers: 0,
            data_bytes: 0,
            header_bytes: 0,
            limit_bytes: limit_bytes as u32,
            oldest_bytes: 0,
            trim_to,
        }
    }

    /// Bytes of full data packets held (N2).
    #[inline]
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes as u64
    }

    /// Bytes of headers held (N3).
    #[inline]
    pub fn header_bytes(&self) -> u64 {
        self.header_bytes as u64
    }

    /// The data queue's limit in bytes.
    #[inline]
    pub fn limit_bytes(&self) -> u64 {
        self.limit_bytes as u64
    }

    /// Does a full data packet of `bytes` fit under the data queue's limit
    /// (N2; the test `TrimPolicy::decide` makes, on the books' copy of the
    /// limit)?
    #[inline]
    pub fn data_fits(&self, bytes: u64) -> bool {
        self.data_bytes() + bytes <= self.limit_bytes()
    }

    /// Is a packet of `bytes` a header?
    #[inline]
    pub fn is_header(&self, bytes: u16) -> bool {
        bytes <= self.trim_to
    }

    /// Forgets the packets whose last bit has left by `now`.
    #[inline]
    pub fn drain(&mut self, now: Time, pipe: &Pipe, delay: Time) {
        while self.oldest_leaves <= now {
            self.forget_oldest(pipe, delay);
        }
    }

    #[inline]
    fn forget_oldest(&mut self, pipe: &Pipe, delay: Time) {
        self.queued -= 1;
        if self.is_header(self.oldest_bytes) {
            self.header_bytes -= self.oldest_bytes as u32;
        } else {
            self.data_bytes -= self.oldest_bytes as u32;
        }
        if self.queued == 0 {
            self.oldest_leaves = Time::MAX;
        } else {
            let next = pipe.from_back(self.queued as usize);
            self.oldest_leaves = next.arrive_at - delay;
            self.oldest_bytes = next.unit.wire_bytes;
            // The next in service is the first waiting header, if any waits.
            self.waiting_headers = self.waiting_headers.saturating_sub(1);
        }
    }

    /// A packet left the pipe while still counted: no arrival came to
    /// drain it between its end of transmission and its arrival at the far
    /// end (on a lightly loaded port, most packets: Fig. 21, 528,968 of
    /// 620,496 switch hops), or its link has no delay.
    #[inline]
    pub fn left_pipe(&mut self, pipe: &Pipe, delay: Time) {
        if self.queued as usize > pipe.len() {
            if self.queued == 1 {
                self.forget_last();
            } else {
                self.forget_left(pipe, delay);
            }
        }
    }

    /// The one packet held left: the port is idle. In line, small (no
    /// next packet to read from the pipe), and most of the forgets at a
    /// lightly loaded port (Fig. 21: 0.65 of its 0.71 a packet-hop):
    /// ndp-in-out 0.2 s 332.98 -> 329.38 M instructions, eqds-incast-128
    /// 636.71 -> 631.95 M, topology 1 3 s 412.10 -> 412.10 M (the whole
    /// forget in line cost it ~3 %, below), NDP Fig. 22 "perm" 20 ms
    /// 3,474.1 -> 3,477.2 M (busier ports, fewer go idle).
    #[inline]
    fn forget_last(&mut self) {
        self.queued = 0;
        if self.is_header(self.oldest_bytes) {
            self.header_bytes -= self.oldest_bytes as u32;
        } else {
            self.data_bytes -= self.oldest_bytes as u32;
        }
        self.oldest_leaves = Time::MAX;
    }

    /// A packet left with others still held. Out of line:
    /// `Port::pop_pipe`, inlined into every pipe head's event of every run,
    /// stays small (ATM's topology 1 counted ~3 % more instructions with
    /// this inlined there).
    #[inline(never)]
    fn forget_left(&mut self, pipe: &Pipe, delay: Time) {
        self.forget_oldest(pipe, delay);
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.queued as usize
    }

    pub fn is_empty(&self) -> bool {
        self.queued == 0
    }

    /// Data packets waiting (not yet started): the newest entries of the pipe.
    pub fn waiting_data(&self) -> usize {
        self.queued.saturating_sub(1 + self.waiting_headers) as usize
    }

    /// A packet of `bytes` joins, leaving at `leaves`, appended behind all
    /// (`waiting` says whether it waits behind another).
    pub fn push(&mut self, bytes: u16, leaves: Time) {
        if self.queued == 0 {
            (self.oldest_leaves, self.oldest_bytes) = (leaves, bytes);
        } else if self.is_header(bytes) {
            self.waiting_headers += 1;
        }
        self.add(bytes);
        self.queued += 1;
    }

    /// A header went in ahead of the waiting data.
    pub fn push_header_ahead(&mut self, bytes: u16) {
        debug_assert!(self.queued >= 1 && self.waiting_data() >= 1);
        self.waiting_headers += 1;
        self.add(bytes);
        self.queued += 1;
    }

    fn add(&mut self, bytes: u16) {
        if self.is_header(bytes) {
            self.header_bytes += bytes as u32;
        } else {
            self.data_bytes += bytes as u32;
        }
    }

    /// The newest waiting data packet (of `bytes`) was taken out.
    pub fn remove_newest_data(&mut self, bytes: u16) {
        debug_assert!(self.waiting_data() >= 1);
        self.queued -= 1;
        self.data_bytes -= bytes as u32;
    }

    /// Σ over the packets held of bytes × time beyond `horizon` (the part
    /// of their stay the mean occupancy must not count).
    pub fn stay_beyond(&self, pipe: &Pipe, delay: Time, horizon: Time) -> u128 {
        pipe.iter_from(pipe.len() - self.queued as usize)
            .map(|f| (f.arrive_at - delay, f.unit.wire_bytes))
            .filter(|&(end, _)| end > horizon)
            .map(|(end, bytes)| bytes as u128 * (end - horizon) as u128)
            .sum()
    }
}
