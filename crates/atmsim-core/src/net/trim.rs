//! A trimming port's two queues (NDP, Handley et al. SIGCOMM 2017 §3.1;
//! htsim's `CompositeQueue`, rules N2–N4 of docs/fabrics.md): full data
//! packets wait in a data queue bounded in bytes; headers — data trimmed
//! here or upstream, and every control packet — wait in a header queue of
//! twice that many bytes, served first. When both hold packets, a counter
//! cycles over 100,001 services, 100,000 of them the header queue's and one
//! the data queue's (N4): in effect strict priority, but a data packet is
//! never starved for ever.
//!
//! Which packet goes next depends on arrivals still to come, so, like a
//! per-VC port, a trimming port takes one `PortEvent::Free` per transmission.
//! What to trim when the data queue is full is its drop policy's decision
//! (`net/drop/trim.rs`); this file keeps the queues and carries it out.

use crate::net::Unit;
use crate::time::Time;
use std::collections::VecDeque;

/// Services to the header queue per cycle when both queues wait (N4).
pub const HEADER_SHARE: u32 = 100_000;
/// Services to the data queue per cycle.
pub const DATA_SHARE: u32 = 1;

#[derive(Clone, Debug, Default)]
pub struct TrimQueues {
    data: VecDeque<(Time, Unit)>,
    headers: VecDeque<(Time, Unit)>,
    /// Bytes of full data packets held, the one in transmission included
    /// (N2 counts it: htsim dequeues a packet when its service completes).
    pub data_bytes: u64,
    /// Bytes of headers held, the one in transmission included.
    pub header_bytes: u64,
    /// The packet being sent, when its last bit leaves, and its queue.
    pub in_tx: Option<(Unit, Time, bool)>,
    /// Position in the 100,001-service cycle (N4).
    cycle: u32,
    /// Largest header bytes held.
    pub peak_header_bytes: u64,
    /// Bytes of a trimmed packet: its header (NDP N1: 64).
    pub trim_to: u16,
}

/// What a trimming port did with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trimmed {
    /// Queued as it came.
    Queued,
    /// Queued, after cutting the newest waiting data packet to its header.
    QueuedAfterTrimming,
    /// Cut to its header and queued as one.
    ArrivalTrimmed,
}

impl TrimQueues {
    /// Empty queues that trim packets to `trim_to` bytes.
    pub fn new(trim_to: u16) -> TrimQueues {
        TrimQueues { trim_to, ..TrimQueues::default() }
    }

    /// Queues a full data packet (its admission decided).
    pub fn push_data(&mut self, now: Time, unit: Unit) {
        self.data_bytes += unit.wire_bytes as u64;
        self.data.push_back((now, unit));
    }

    /// Would a header of `bytes` overflow a header queue of `limit` bytes?
    pub fn header_fits(&self, bytes: u64, limit: u64) -> bool {
        self.header_bytes + bytes <= limit
    }

    /// Queues a header (trimmed data or a control packet).
    pub fn push_header(&mut self, now: Time, unit: Unit) {
        self.header_bytes += unit.wire_bytes as u64;
        self.peak_header_bytes = self.peak_header_bytes.max(self.header_bytes);
        self.headers.push_back((now, unit));
    }

    /// Takes the most recently queued data packet still waiting (never the
    /// one in transmission), to be trimmed.
    pub fn take_newest_data(&mut self) -> Option<(Time, Unit)> {
        let (t, u) = self.data.pop_back()?;
        self.data_bytes -= u.wire_bytes as u64;
        Some((t, u))
    }

    /// Packets held, both queues, the one in transmission included.
    pub fn occupancy_bytes(&self) -> u64 {
        self.data_bytes + self.header_bytes
    }

    /// Packets waiting, not yet on the line.
    pub fn queued(&self) -> u64 {
        (self.data.len() + self.headers.len()) as u64
    }

    /// The next packet to send (N4): (arrival time, packet, from the header queue).
    pub fn pop_next(&mut self) -> Option<(Time, Unit, bool)> {
        let header = match (self.headers.is_empty(), self.data.is_empty()) {
            (true, true) => return None,
            (false, true) => true,
            (true, false) => false,
            (false, false) => {
                self.cycle += 1;
                if self.cycle >= HEADER_SHARE + DATA_SHARE {
                    self.cycle = 0;
                }
                self.cycle < HEADER_SHARE
            }
        };
        let (t, u) = if header { self.headers.pop_front() } else { self.data.pop_front() }.expect("checked non-empty");
        Some((t, u, header))
    }

    /// The packet in transmission has left: its bytes leave the books.
    pub fn sent(&mut self, unit: &Unit, header: bool) {
        if header {
            self.header_bytes -= unit.wire_bytes as u64;
        } else {
            self.data_bytes -= unit.wire_bytes as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn pkt(frame: u32, bytes: u16) -> Unit {
        Unit::new(VcId(0), frame, 0, 1, bytes)
    }

    #[test]
    fn headers_go_first_but_data_gets_one_service_in_100001() {
        let mut q = TrimQueues::default();
        for f in 0..3 {
            q.push_data(0, pkt(f, 9064));
        }
        for f in 10..100_010 {
            q.push_header(0, pkt(f, 64));
        }
        let mut order = Vec::new();
        while let Some((_, u, header)) = q.pop_next() {
            q.sent(&u, header);
            order.push(u.frame);
        }
        // htsim's counter starts at 0 and is advanced before it is read: the
        // 100,000th contested service is the data queue's.
        let first_data = order.iter().position(|&f| f < 3).unwrap();
        assert_eq!(first_data, 99_999, "the data packet waits out 99,999 header services");
        assert_eq!(order.len(), 100_003);
        assert_eq!((q.data_bytes, q.header_bytes), (0, 0));
    }

    #[test]
    fn the_newest_waiting_data_packet_is_the_one_trimmed() {
        let mut q = TrimQueues::default();
        q.push_data(0, pkt(0, 9064));
        q.push_data(1, pkt(1, 9064));
        let (_, u) = q.take_newest_data().unwrap();
        assert_eq!(u.frame, 1);
        assert_eq!(q.data_bytes, 9064);
        assert!(q.header_fits(64, 64) && !q.header_fits(65, 64));
    }
}
