//! Per-VC queueing with round-robin service (the CreditNet switch, Morris &
//! Kung §II; atm.md §7.2 rule 5), and the sending side of credit-based flow
//! control (the N23 scheme in its counter form, credit.md §2).
//!
//! Unlike the FIFO fast path, the next cell to leave is not known when a cell
//! arrives (it depends on the other VCs and on credit), so a port with this
//! discipline takes a departure event per cell.
//!
//! The ring holds the VCs eligible for service: backlogged and, with credit,
//! holding credit. A VC with no credit leaves the ring and the link to the
//! others (no head-of-line blocking across VCs); a credit cell puts it back.

use crate::net::Unit;
use crate::time::Time;
use std::collections::VecDeque;

/// Sender-side credit state of one link, per VC, and the receiver's
/// forwarded-cell counter of the same link (kept here, indexed by the link,
/// because the simulator owns both ends).
#[derive(Clone, Debug)]
pub struct Credit {
    /// Buffer reserved per VC at the receiver (N2 + N3).
    pub buf_alloc: u64,
    /// Receiver sends one credit cell per `n2` cells it forwards.
    pub n2: u64,
    pub balance: Vec<i64>,
    pub tx_cnt: Vec<u64>,
    /// Receiver side: cells of the VC that left its buffer (`Fwd_Cnt`).
    pub fwd_cnt: Vec<u64>,
    pub credit_cells: u64,
}

impl Credit {
    pub fn new(num_vcs: usize, buf_alloc: u64, n2: u64) -> Self {
        Credit {
            buf_alloc,
            n2,
            balance: vec![buf_alloc as i64; num_vcs],
            tx_cnt: vec![0; num_vcs],
            fwd_cnt: vec![0; num_vcs],
            credit_cells: 0,
        }
    }

    /// Receiver rule 4: a cell of `vc` left the receiver's buffer; returns
    /// the value of a credit cell to send upstream, if one is due.
    pub fn forwarded(&mut self, vc: usize) -> Option<u64> {
        self.fwd_cnt[vc] += 1;
        if self.fwd_cnt[vc] % self.n2 == 0 {
            self.credit_cells += 1;
            Some(self.fwd_cnt[vc])
        } else {
            None
        }
    }

    /// Sender rule 2: a credit cell carrying `fwd` arrived.
    pub fn update(&mut self, vc: usize, fwd: u64) {
        self.balance[vc] = self.buf_alloc as i64 - (self.tx_cnt[vc] - fwd) as i64;
    }
}

#[derive(Clone, Debug)]
pub struct PerVc {
    /// Queued cells with their arrival time, per VC.
    queues: Vec<VecDeque<(Time, Unit)>>,
    ring: VecDeque<u32>,
    in_ring: Vec<bool>,
    /// The cell in transmission and when its last bit leaves; it keeps its
    /// buffer slot until then.
    pub in_tx: Option<(Unit, Time)>,
    pub credit: Option<Credit>,
    pub queued: u64,
    /// Highest occupancy any single VC reached (cells, incl. in transmission).
    pub peak_per_vc: u64,
}

impl PerVc {
    pub fn new(num_vcs: usize, credit: Option<Credit>) -> Self {
        PerVc {
            queues: vec![VecDeque::new(); num_vcs],
            ring: VecDeque::new(),
            in_ring: vec![false; num_vcs],
            in_tx: None,
            credit,
            queued: 0,
            peak_per_vc: 0,
        }
    }

    /// Cells of `vc` at the port, counting one in transmission.
    pub fn occupancy_of(&self, vc: usize, now: Time) -> u64 {
        let tx = matches!(self.in_tx, Some((u, end)) if u.vc.ix() == vc && end > now);
        self.queues[vc].len() as u64 + tx as u64
    }

    /// Cells at the port, counting one in transmission.
    pub fn occupancy(&self, now: Time) -> u64 {
        self.queued + matches!(self.in_tx, Some((_, end)) if end > now) as u64
    }

    fn eligible(&self, vc: usize) -> bool {
        !self.queues[vc].is_empty() && self.credit.as_ref().is_none_or(|c| c.balance[vc] > 0)
    }

    fn refresh(&mut self, vc: usize) {
        if !self.in_ring[vc] && self.eligible(vc) {
            self.in_ring[vc] = true;
            self.ring.push_back(vc as u32);
        }
    }

    pub fn enqueue(&mut self, now: Time, unit: Unit) {
        let vc = unit.vc.ix();
        self.queues[vc].push_back((now, unit));
        self.queued += 1;
        self.peak_per_vc = self.peak_per_vc.max(self.occupancy_of(vc, now));
        self.refresh(vc);
    }

    /// Round robin: the next cell to send, one per eligible VC in turn.
    pub fn next(&mut self) -> Option<(Time, Unit)> {
        while let Some(vc) = self.ring.pop_front() {
            let vc = vc as usize;
            self.in_ring[vc] = false;
            if !self.eligible(vc) {
                continue;
            }
            let item = self.queues[vc].pop_front().expect("eligible VCs are backlogged");
            self.queued -= 1;
            if let Some(c) = &mut self.credit {
                c.balance[vc] -= 1;
                c.tx_cnt[vc] += 1;
            }
            self.refresh(vc);
            return Some(item);
        }
        None
    }

    /// A credit cell for `vc` arrived.
    pub fn on_credit(&mut self, vc: usize, fwd: u64) {
        if let Some(c) = &mut self.credit {
            c.update(vc, fwd);
        }
        self.refresh(vc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Segment, VcId};

    fn cell(vc: u32) -> Unit {
        Unit { vc: VcId(vc), hop: 0, index: 0, ncells: 1, frame: 0, wire_bytes: 53, seg: Segment::default() }
    }

    #[test]
    fn round_robin_serves_backlogged_vcs_in_turn() {
        let mut q = PerVc::new(3, None);
        for _ in 0..4 {
            q.enqueue(0, cell(0));
        }
        for _ in 0..2 {
            q.enqueue(0, cell(2));
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.next()).map(|(_, u)| u.vc.0).collect();
        assert_eq!(order, vec![0, 2, 0, 2, 0, 0]);
    }

    #[test]
    fn two_greedy_vcs_share_fifty_fifty_within_one_cell() {
        let mut q = PerVc::new(2, None);
        let mut sent = [0i64; 2];
        for step in 0..1001 {
            q.enqueue(step, cell(0));
            q.enqueue(step, cell(1));
            let (_, u) = q.next().unwrap();
            sent[u.vc.ix()] += 1;
            assert!((sent[0] - sent[1]).abs() <= 1);
        }
    }

    #[test]
    fn no_credit_no_service_and_no_head_of_line_blocking() {
        let mut q = PerVc::new(2, Some(Credit::new(2, 2, 1)));
        for _ in 0..5 {
            q.enqueue(0, cell(0));
            q.enqueue(0, cell(1));
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.next()).map(|(_, u)| u.vc.0).collect();
        assert_eq!(order, vec![0, 1, 0, 1], "two credits each, then stall");
        // The receiver forwarded one cell of VC 1: one credit back.
        q.on_credit(1, 1);
        assert_eq!(q.next().map(|(_, u)| u.vc.0), Some(1));
        assert!(q.next().is_none());
    }

    #[test]
    fn credit_update_is_exact_and_never_exceeds_buf_alloc() {
        let mut c = Credit::new(1, 10, 2);
        for _ in 0..10 {
            c.balance[0] -= 1;
            c.tx_cnt[0] += 1;
        }
        assert_eq!(c.balance[0], 0);
        // A late credit (F = 2) after a newer one (F = 6) only delays credit.
        c.update(0, 6);
        assert_eq!(c.balance[0], 6);
        c.update(0, 2);
        assert_eq!(c.balance[0], 2);
        c.update(0, 10);
        assert_eq!(c.balance[0], 10);
        assert!(c.balance[0] <= c.buf_alloc as i64);
        assert_eq!(c.forwarded(0), None);
        assert_eq!(c.forwarded(0), Some(2));
    }
}
