//! Per-VC queueing with round-robin service (the CreditNet switch, Morris &
//! Kung 1995 §II), optionally under credit-based flow control (`credit.rs`),
//! and the in-band credit cells this port sends for the opposite direction.
//!
//! Unlike the FIFO fast path, the next cell to leave is not known when a cell
//! arrives (it depends on the other VCs and on credit), so a port with this
//! discipline takes a departure event per cell.
//!
//! The ring holds the VCs eligible for service: backlogged and, with credit,
//! holding credit. A VC with no credit leaves the ring and the link to the
//! others (no head-of-line blocking across VCs); a credit cell puts it back.

use crate::net::credit::Credit;
use crate::net::{PortId, Unit, VcId};
use crate::time::Time;
use std::collections::VecDeque;

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
    /// In-band credit cells for the opposite direction, sent before any
    /// data cell (strict priority; our choice, as CreditNet carried credits
    /// in band), and whether one is on the line now.
    pub credit_out: VecDeque<CreditCell>,
    pub credit_in_tx: bool,
}

/// A credit cell waiting to cross this port's line: for VC `vc` of `link`
/// (the port in the other direction), carrying the receiver's `fwd` count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditCell {
    pub link: PortId,
    pub vc: VcId,
    pub fwd: u64,
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
            credit_out: VecDeque::new(),
            credit_in_tx: false,
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
    pub fn pop_next(&mut self) -> Option<(Time, Unit)> {
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

    fn cell(vc: u32) -> Unit {
        Unit::new(VcId(vc), 0, 0, 1, 53)
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
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_next()).map(|(_, u)| u.vc.0).collect();
        assert_eq!(order, vec![0, 2, 0, 2, 0, 0]);
    }

    #[test]
    fn two_greedy_vcs_share_fifty_fifty_within_one_cell() {
        let mut q = PerVc::new(2, None);
        let mut sent = [0i64; 2];
        for step in 0..1001 {
            q.enqueue(step, cell(0));
            q.enqueue(step, cell(1));
            let (_, u) = q.pop_next().unwrap();
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
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_next()).map(|(_, u)| u.vc.0).collect();
        assert_eq!(order, vec![0, 1, 0, 1], "two credits each, then stall");
        // The receiver forwarded one cell of VC 1: one credit back.
        q.on_credit(1, 1);
        assert_eq!(q.pop_next().map(|(_, u)| u.vc.0), Some(1));
        assert!(q.pop_next().is_none());
    }
}
