//! One direction of a fabric link: the cells waiting for it, one FIFO per
//! cell priority served highest first (`PRIORITIES`), its transmitter, its wire, and the link-level
//! flow control that keeps a fabric lossless (DNX's LLFC; here the N23
//! counters of `net/credit.rs` per link rather than per VC: at most N2 + N3
//! of its cells in the far end's buffer, a credit back every N2 cells the
//! far end forwards; docs/fabric.md R6).

use super::cell_ring::CellRing;
use super::{Cell, CellKind, PRIORITIES};
use crate::time::{Rate, Serializer, Time};

// `FabricLink::start` masks a queue's number by `PRIORITIES - 1`.
const _: () = assert!(PRIORITIES.is_power_of_two());

/// Laid out by hand, hot state first (`repr(C)`): a busy fabric has more
/// links than the L1 holds (`fabric-perm`: 512), and each cell-hop finds
/// its link at its enqueue, start, end and arrival, so every line a step
/// touches is a likely miss. A data cell's enqueue, its link's end and its
/// arrival, and a forward, touch line 0 only; a start lines 0 and 1 (and
/// 2 on for a control cell's queue); the test
/// `the_hot_fields_sit_in_the_first_lines` keeps it so. The counts only a
/// report reads are the fabric's (`Fabric::up_counts`, the peak resident),
/// and the wire is each queue's sent cells (no wire of its own, no copy).
/// Session 40, `fabric-perm` 50 µs under cachegrind (48-KiB L1D), L1 data
/// misses a cell-hop: 23.65 in the compiler's order (a start over five
/// lines of seven), 22.04 with the hot fields first (four of six lines),
/// 19.16 with 24-byte ring headers (two of four, the wire's header and the
/// data queue's in line 0), 17.62 with the wire the queues' sent cells
/// (instructions 1,178.2, 1,169.2, 1,160.1, 1,139.6 M).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct FabricLink {
    // Line 0: what an enqueue, an end, an arrival, a forward read.
    /// A transmission is under way: its end is scheduled.
    pub busy: bool,
    /// Bit q set: queue q holds a cell waiting (the next is the lowest set bit).
    waiting: u8,
    /// The wire carries cells (false once it failed: what enters is lost).
    pub up: bool,
    /// Sprayers and fabric elements may choose it (false once a failure is detected).
    pub usable: bool,
    /// Cells the far end forwards before its next credit (N2 down to 1:
    /// `fwd_cnt` a multiple of N2 without a division per cell); 0 with no
    /// link-level credit. N2 is at most 1,000,000 (`scenario/fabric.rs`).
    until_credit: u32,
    /// Cells the far end may still take (i64::MAX with no link-level
    /// credit: never reached, so a start checks only this).
    balance: i64,
    /// Cells started (with credit on, also the count behind the balance).
    tx_cnt: u64,
    /// The far end's count of this link's cells it forwarded (`Fwd_Cnt`).
    fwd_cnt: u64,
    /// Queue `PRIORITIES` − 1, the lowest priority's: data cells' by
    /// default. Each queue holds its cells on the wire too, ahead of those
    /// waiting (`cell_ring.rs`): the wire is the queues' sent cells, each
    /// arriving a cell time after the one sent before it or later, at the
    /// time its start scheduled (the time is not kept here, nor the order
    /// across queues: each arrival is told its queue, `Fabric::start`).
    data: CellRing,
    // Line 1: the transmitter (its rate, read when the cell's size changes, last).
    pub delay: Time,
    transmitter: Serializer,
    // Line 2 on.
    /// Link-level credit: (N2 + N3) cells at most in the far end, 0 for none.
    buf_alloc: u64,
    n2: u64,
    /// Queues 0 to `PRIORITIES` − 2: the control cells' first.
    higher: [CellRing; PRIORITIES - 1],
    /// Starts refused for want of credit.
    pub credit_stalls: u64,
}

impl FabricLink {
    pub fn new(rate: Rate, delay: Time, llfc: Option<(u64, u64)>) -> FabricLink {
        let (buf_alloc, n2) = llfc.unwrap_or((0, 0));
        assert!(n2 <= u32::MAX as u64, "N2 of {n2} cells");
        FabricLink {
            busy: false,
            waiting: 0,
            up: true,
            usable: true,
            until_credit: if buf_alloc > 0 { n2 as u32 } else { 0 },
            balance: if buf_alloc > 0 { buf_alloc as i64 } else { i64::MAX },
            tx_cnt: 0,
            fwd_cnt: 0,
            data: CellRing::new(),
            delay,
            transmitter: Serializer::new(rate),
            buf_alloc,
            n2,
            higher: std::array::from_fn(|_| CellRing::new()),
            credit_stalls: 0,
        }
    }

    /// FIFO `queue` (0 first: `PRIORITIES` − 1 − its priority).
    #[inline(always)]
    fn queue(&mut self, queue: usize) -> &mut CellRing {
        if queue == PRIORITIES - 1 {
            &mut self.data
        } else {
            &mut self.higher[queue]
        }
    }

    /// The queues, highest priority first.
    fn queues(&self) -> impl Iterator<Item = &CellRing> {
        self.higher.iter().chain(std::iter::once(&self.data))
    }

    /// The link slows to `rate`; a cell in transmission ends as it began
    /// (the next starts only after it, on a line idle at its start).
    pub fn set_rate(&mut self, rate: Rate) {
        self.transmitter = Serializer::new(rate);
    }

    /// The link fails: every cell waiting for it (`lost(cell, true)`) or
    /// on its wire (`lost(cell, false)`) is lost.
    pub fn fail(&mut self, mut lost: impl FnMut(Cell, bool)) {
        self.up = false;
        self.waiting = 0;
        for q in 0..PRIORITIES {
            self.queue(q).drain_waiting(|c| lost(c, true));
        }
        // The wire in the order the cells were sent: by their numbers
        // (`CellRing::send`), counted from the oldest's.
        let on_wire: usize = (0..PRIORITIES).map(|q| self.queue(q).on_wire()).sum();
        let oldest = (self.tx_cnt as u32).wrapping_sub(on_wire as u32);
        for _ in 0..on_wire {
            let next = (0..PRIORITIES)
                .filter_map(|q| self.queue(q).wire_front().map(|c| (c.from_link.wrapping_sub(oldest), q)))
                .min()
                .expect("a cell on the wire")
                .1;
            lost(self.queue(next).arrive().expect("its front"), false);
        }
    }

    /// The oldest cell on the wire of queue `queue` arrives (None once the
    /// link failed: its wire was emptied).
    #[inline]
    pub fn arrive(&mut self, queue: usize) -> Option<Cell> {
        self.queue(queue & (PRIORITIES - 1)).arrive()
    }

    /// Cells on the wire.
    pub fn on_wire(&self) -> u64 {
        self.queues().map(|q| q.on_wire() as u64).sum()
    }

    pub fn rate(&self) -> Rate {
        self.transmitter.rate()
    }

    /// Cells waiting for the transmitter.
    pub fn queued(&self) -> u64 {
        // The higher queues (line 2 on) only when one holds a cell: the
        // least-loaded sprayer asks every link of its FAP per cell.
        let data = self.data.waiting() as u64;
        if self.waiting & ((1 << (PRIORITIES - 1)) - 1) == 0 {
            return data;
        }
        data + self.higher.iter().map(|q| q.waiting() as u64).sum::<u64>()
    }

    /// Cells started.
    pub fn cells(&self) -> u64 {
        self.tx_cnt
    }

    /// Queues a cell in FIFO `queue` (0 first: `PRIORITIES` − 1 − its priority).
    #[inline(always)]
    pub fn enqueue(&mut self, cell: Cell, queue: usize) {
        self.queue(queue).push_back(cell);
        self.waiting |= 1 << queue;
    }

    /// Starts the next cell if the line is idle, a cell waits and credit
    /// allows: the cell, the end of its transmission, and its queue (its
    /// arrival at the far end is the back of that queue's wire).
    pub fn start(&mut self, now: Time, header: u32) -> Option<(Cell, Time, usize)> {
        if self.busy {
            return None;
        }
        if self.waiting == 0 {
            return None;
        }
        if self.balance <= 0 {
            self.credit_stalls += 1;
            return None;
        }
        // A set bit is below `PRIORITIES` (a power of two): the mask only
        // tells the compiler so, and the bounds check goes.
        let q = self.waiting.trailing_zeros() as usize & (PRIORITIES - 1);
        let number = self.tx_cnt as u32;
        let queue = self.queue(q);
        let cell = queue.send(number);
        if queue.waiting() == 0 {
            self.waiting &= !(1 << q);
        }
        let wire = (cell.payload as u32 + header) as u64;
        let end = self.transmitter.send(now, wire);
        self.busy = true;
        self.tx_cnt += 1;
        self.balance -= 1;
        Some((cell, end, q))
    }

    /// The far end forwarded one of this link's cells; the value of a
    /// credit to send back, if one is due.
    pub fn forwarded(&mut self) -> Option<u64> {
        if self.until_credit == 0 {
            return None;
        }
        self.fwd_cnt += 1;
        self.until_credit -= 1;
        if self.until_credit > 0 {
            return None;
        }
        self.until_credit = self.n2 as u32;
        Some(self.fwd_cnt)
    }

    /// A credit carrying the far end's count `fwd` arrived.
    pub fn credit(&mut self, fwd: u64) {
        self.balance = self.buf_alloc as i64 - (self.tx_cnt - fwd) as i64;
    }

    /// Payload bytes of the data cells waiting for it or on its wire.
    pub fn data_payload_inside(&self) -> u64 {
        let data = |c: &Cell| if c.kind == CellKind::Data { c.payload as u64 } else { 0 };
        self.queues().flat_map(|q| q.iter()).map(data).sum::<u64>()
    }

    /// This link's cells in the far end's buffer now.
    #[inline]
    pub fn resident(&self) -> u64 {
        if self.until_credit == 0 {
            return 0;
        }
        self.tx_cnt - self.fwd_cnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(kind: CellKind, seq: u32) -> Cell {
        Cell { voq: 0, seq, from_link: 0, payload: 256, dst_fap: 0, kind }
    }

    /// The lowest data priority's queue, and the control cells'.
    const DATA: usize = PRIORITIES - 1;
    const CONTROL: usize = 0;

    #[test]
    fn control_cells_go_first_and_the_wire_keeps_order() {
        // 272 wire bytes at 272 bits/ns: 8 ns a cell, 50 ns on the wire.
        let mut l = FabricLink::new(Rate::new(272, 1_000).unwrap(), 50_000, None);
        l.enqueue(cell(CellKind::Data, 0), DATA);
        l.enqueue(cell(CellKind::Credit, 9), CONTROL);
        let (first, end, q) = l.start(0, 16).unwrap();
        assert_eq!((first.kind, end, q), (CellKind::Credit, 8_000, CONTROL));
        assert!(l.start(1_000, 16).is_none(), "busy until its end is handled");
        l.busy = false;
        let (second, end, q) = l.start(8_000, 16).unwrap();
        assert_eq!((second.seq, end, q), (0, 16_000, DATA));
        assert_eq!(l.on_wire(), 2);
        assert_eq!(l.arrive(CONTROL).map(|c| c.kind), Some(CellKind::Credit));
        assert_eq!(l.arrive(DATA).map(|c| (c.kind, c.seq)), Some((CellKind::Data, 0)));
        assert_eq!(l.arrive(DATA), None);
    }

    #[test]
    fn higher_priorities_go_first_and_each_keeps_its_order() {
        let mut l = FabricLink::new(Rate::new(272, 1_000).unwrap(), 0, None);
        for (seq, queue) in [(0, 3), (1, 2), (2, 3), (3, 1), (4, 2), (5, CONTROL)] {
            l.enqueue(cell(if queue == CONTROL { CellKind::FlowStatus } else { CellKind::Data }, seq), queue);
        }
        let mut order = Vec::new();
        while let Some((c, end, _)) = l.start(order.len() as u64 * 8_000, 16) {
            order.push(c.seq);
            l.busy = false;
            assert_eq!(l.queued(), 6 - order.len() as u64, "at {end}");
        }
        assert_eq!(order, [5, 3, 1, 4, 0, 2]);
        // Failing empties every queue; a later cell is served as before.
        l.enqueue(cell(CellKind::Data, 6), 2);
        l.fail(|_, _| {});
        assert_eq!(l.queued(), 0);
        assert!(l.start(80_000, 16).is_none());
    }

    #[test]
    fn link_credit_stops_the_sender_at_n2_plus_n3_and_restarts_it() {
        let mut l = FabricLink::new(Rate::new(272, 1_000).unwrap(), 0, Some((4, 2)));
        for s in 0..10 {
            l.enqueue(cell(CellKind::Data, s), DATA);
        }
        let mut sent = 0;
        while l.start(sent * 8_000, 16).is_some() {
            l.busy = false;
            sent += 1;
        }
        assert_eq!((sent, l.resident(), l.credit_stalls), (4, 4, 1));
        assert_eq!(l.forwarded(), None);
        let fwd = l.forwarded().expect("every N2 = 2 cells a credit");
        l.credit(fwd);
        assert!(l.start(40_000, 16).is_some() && l.start(40_000, 16).is_none(), "busy");
        l.busy = false;
        assert!(l.start(48_000, 16).is_some());
        l.busy = false;
        assert!(l.start(56_000, 16).is_none(), "four in the far end again");
        assert_eq!(l.resident(), 4);
    }

    #[test]
    fn a_failure_loses_the_waiting_cells_then_the_wire_in_the_order_sent() {
        let mut l = FabricLink::new(Rate::new(272, 1_000).unwrap(), 50_000, None);
        l.enqueue(cell(CellKind::Data, 0), DATA);
        l.enqueue(cell(CellKind::Data, 1), DATA);
        l.enqueue(cell(CellKind::Credit, 2), CONTROL);
        for (at, queue) in [(0, CONTROL), (8_000, DATA)] {
            assert_eq!(l.start(at, 16).map(|s| s.2), Some(queue));
            l.busy = false;
        }
        l.enqueue(cell(CellKind::Credit, 3), CONTROL);
        assert!(l.start(16_000, 16).is_some());
        l.enqueue(cell(CellKind::Data, 4), 2);
        let mut lost = Vec::new();
        l.fail(|c, waiting| lost.push((c.seq, waiting)));
        assert_eq!(lost, [(4, true), (1, true), (2, false), (0, false), (3, false)]);
        assert_eq!((l.on_wire(), l.queued(), l.arrive(DATA)), (0, 0, None));
    }

    /// The hot fields stay in the lines the struct's comment names.
    #[test]
    fn the_hot_fields_sit_in_the_first_lines() {
        use std::mem::{offset_of, size_of};
        let line = |offset: usize, size: usize| {
            let (first, last) = (offset / 64, (offset + size - 1) / 64);
            assert_eq!(first, last, "a field at {offset} ({size} bytes) crosses a line");
            first
        };
        type L = FabricLink;
        let ring = size_of::<CellRing>();
        for (off, size) in [
            (offset_of!(L, busy), 1),
            (offset_of!(L, waiting), 1),
            (offset_of!(L, up), 1),
            (offset_of!(L, usable), 1),
            (offset_of!(L, until_credit), 4),
            (offset_of!(L, balance), 8),
            (offset_of!(L, tx_cnt), 8),
            (offset_of!(L, fwd_cnt), 8),
            (offset_of!(L, data), ring),
        ] {
            assert_eq!(line(off, size), 0, "at {off}");
        }
        // The transmitter, its rate last (`time.rs`).
        assert_eq!(line(offset_of!(L, delay), 8), 1);
        assert_eq!(line(offset_of!(L, transmitter), size_of::<Serializer>()), 1);
        assert_eq!(size_of::<Serializer>(), 56);
        assert_eq!(size_of::<L>(), 248);
    }
}
