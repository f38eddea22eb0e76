//! A receiving host's pull pacer and its fair pull queue (htsim
//! `NdpPullPacer::sendPacket`, `doNextEvent`, `release_pulls`;
//! `FairPullQueue`; rules N9–N10 of docs/fabrics.md).
//!
//! Pulls leave at most one per spacing (a full packet's time at line rate):
//! an ACK or NACK that finds no pull waiting and a spacing passed since the
//! last pull carries its pull itself and leaves at once; otherwise it leaves
//! at once without it, and a separate PULL waits in the queue of its flow.
//! Each tick serves the next flow with a pull waiting after the last one
//! served (flows in id order, round robin). A flow whose last byte has
//! arrived has its waiting pulls discarded.

use crate::base::{NdpHeader, NdpKind};
use crate::net::FlowId;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct PullPacer {
    spacing: Time,
    /// When the last pull left (htsim starts it at 0).
    last_pull: Time,
    /// The flows this host receives, in id order, and each one's waiting pulls.
    flows: Vec<FlowId>,
    queues: Vec<VecDeque<NdpHeader>>,
    /// The slot served next looks from here.
    next: usize,
    waiting: usize,
    /// A tick is scheduled.
    tick_pending: bool,
    /// Most pulls waiting at once.
    pub peak_waiting: usize,
}

impl PullPacer {
    /// A pacer for the flows `flows` (ascending ids) at a host whose pulls
    /// are `spacing` apart.
    pub fn new(spacing: Time, flows: Vec<FlowId>) -> PullPacer {
        debug_assert!(flows.windows(2).all(|w| w[0] < w[1]));
        let queues = vec![VecDeque::new(); flows.len()];
        PullPacer { spacing, last_pull: 0, flows, queues, next: 0, waiting: 0, tick_pending: false, peak_waiting: 0 }
    }

    pub fn spacing(&self) -> Time {
        self.spacing
    }

    fn slot(&self, f: FlowId) -> usize {
        self.flows.binary_search(&f).expect("a flow this host receives")
    }

    /// An ACK or NACK of flow `f` that asks for a pull, at `now`: returns it
    /// as it leaves (with its pull, or without it if a PULL was queued
    /// instead) and the time of a tick to schedule, if one is needed.
    pub fn send(&mut self, now: Time, f: FlowId, mut answer: NdpHeader) -> (NdpHeader, Option<Time>) {
        debug_assert!(answer.flag && matches!(answer.kind, NdpKind::Ack | NdpKind::Nack));
        let mut tick = None;
        if self.waiting == 0 {
            if now - self.last_pull >= self.spacing {
                self.last_pull = now;
                return (answer, None);
            }
            if !self.tick_pending {
                self.tick_pending = true;
                tick = Some(self.last_pull + self.spacing);
            }
        }
        let pull = NdpHeader { kind: NdpKind::Pull, len: 0, flag: true, ..answer };
        let s = self.slot(f);
        self.queues[s].push_back(pull);
        self.waiting += 1;
        self.peak_waiting = self.peak_waiting.max(self.waiting);
        answer.flag = false;
        answer.pull_no = 0;
        (answer, tick)
    }

    /// The pacer's tick at `now`: the next PULL to send (round robin over the
    /// flows with pulls waiting) and the time of the next tick, if any.
    pub fn tick(&mut self, now: Time) -> (Option<(FlowId, NdpHeader)>, Option<Time>) {
        self.tick_pending = false;
        if self.waiting == 0 {
            return (None, None);
        }
        let n = self.queues.len();
        let s = (0..n).map(|i| (self.next + i) % n).find(|&s| !self.queues[s].is_empty()).expect("a pull waits");
        let pull = self.queues[s].pop_front().expect("non-empty");
        self.next = (s + 1) % n;
        self.waiting -= 1;
        self.last_pull = now;
        let next = (self.waiting > 0).then(|| {
            self.tick_pending = true;
            now + self.spacing
        });
        (Some((self.flows[s], pull)), next)
    }

    /// Flow `f` has everything: its waiting pulls would send nothing new.
    pub fn flush(&mut self, f: FlowId) {
        let s = self.slot(f);
        self.waiting -= self.queues[s].len();
        self.queues[s].clear();
    }

    /// Pulls waiting now.
    pub fn waiting(&self) -> usize {
        self.waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(pull_no: u32) -> NdpHeader {
        NdpHeader { kind: NdpKind::Ack, seq: 1, cum_ack: 0, len: 0, pull_no, path: 0, data_path: 0, flag: true }
    }

    #[test]
    fn one_pull_per_spacing_round_robin_across_flows() {
        let (a, b) = (FlowId(2), FlowId(7));
        let mut p = PullPacer::new(100, vec![a, b]);
        // Nothing waiting and a spacing passed: the ACK carries its pull.
        let (sent, tick) = p.send(1000, a, ack(1));
        assert!(sent.flag && tick.is_none());
        // Within the spacing: the ACK leaves without it, a PULL waits, a tick is due at 1100.
        let (sent, tick) = p.send(1010, a, ack(2));
        assert!(!sent.flag && sent.pull_no == 0 && tick == Some(1100));
        let (_, tick) = p.send(1020, a, ack(3));
        assert!(tick.is_none(), "a tick is already due");
        p.send(1030, b, ack(1));
        // Ticks alternate between the flows: a's 2, b's 1, a's 3.
        let mut served = Vec::new();
        let mut t = Some(1100);
        while let Some(now) = t {
            let (pull, next) = p.tick(now);
            let (f, h) = pull.unwrap();
            served.push((f.0, h.pull_no, h.kind, now));
            t = next;
        }
        assert_eq!(served, [(2, 2, NdpKind::Pull, 1100), (7, 1, NdpKind::Pull, 1200), (2, 3, NdpKind::Pull, 1300)]);
        p.send(1310, a, ack(4));
        p.flush(a);
        assert_eq!(p.waiting(), 0);
        assert_eq!(p.tick(1400).0, None);
    }
}
