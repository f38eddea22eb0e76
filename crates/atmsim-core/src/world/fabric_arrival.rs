//! A cell's arrival at the far end of a fabric link, and a VOQ's release
//! into cells: plain functions of the fabric and the scheduler
//! (`fabric_link.rs` does the same for a link's start), so that a group of
//! arrivals (`fabric_group.rs`) finds the fabric once. Only a packet
//! leaving reassembly needs the world (`World::reassembled`: it enters the
//! port to its host); an arrival that completes one says which.

use super::fabric::{Fabric, ARRIVAL_QUEUE};
use super::World;
use crate::engine::{Event, FabricEvent, Scheduler};
use crate::fabric::tables::FarEnd;
use crate::fabric::voq::Crs;
use crate::fabric::{Cell, CellKind};
use crate::net::PortId;
use crate::time::Time;

impl Fabric {
    /// The cell at the head of a link's wire arrives (`entry`: the link,
    /// and its queue above `ARRIVAL_QUEUE`): at a fabric element, passed
    /// on towards its FAP; at a FAP (its links down), taken. The stream
    /// and its egress port when the cell completes a packet there.
    #[inline]
    pub(super) fn arrival(&mut self, sched: &mut Scheduler, now: Time, entry: u32) -> Option<(u32, PortId)> {
        let (link, queue) = (entry & ((1 << ARRIVAL_QUEUE) - 1), (entry >> ARRIVAL_QUEUE) as usize);
        // A failed link's wire was emptied: its cells' arrivals find nothing.
        let mut cell = self.links[link as usize].arrive(queue)?;
        if let FarEnd::Element(hop) = self.tables.far[link as usize] {
            cell.from_link = link;
            self.fe_forward(hop, cell);
            self.start_waking(sched, now);
            self.follow_losses(sched, now);
            return None;
        }
        self.at_fap(sched, now, link, cell)
    }

    /// A FAP takes a cell at once: the link's credit goes straight back.
    fn at_fap(&mut self, sched: &mut Scheduler, now: Time, link: u32, cell: Cell) -> Option<(u32, PortId)> {
        let l = &mut self.links[link as usize];
        if let Some(fwd) = l.forwarded() {
            let delay = l.delay;
            self.schedule_link_credit(sched, now + delay, link, fwd);
        }
        self.received[cell.kind as usize] += 1;
        match cell.kind {
            CellKind::Data => {
                self.data_bytes_received += cell.payload as u64;
                let port = self.tables.voq_port[cell.voq as usize];
                let stream = &mut self.streams[cell.voq as usize];
                stream.cell(cell.seq, cell.payload);
                let (held, ready) = (stream.held(), stream.has_packet());
                self.depth_at_arrival.record(held);
                if ready {
                    return Some((cell.voq, self.egress[port as usize]));
                }
            }
            CellKind::FlowStatus => {
                let g = &self.cfg.geometry;
                let ((src, port), tc) = (g.voq_ends(cell.voq), g.voq_tc(cell.voq));
                let member = tc * g.faps + src;
                if let Some(at) = self.schedulers[port as usize].status(now, member, Crs::from_u32(cell.seq & 3), cell.seq >> 2) {
                    sched.schedule(at, Event::Fabric(FabricEvent::CreditSlot(port)));
                }
            }
            CellKind::Credit => {
                let worth = self.cfg.credit_worth;
                self.voqs[cell.voq as usize].credit(worth);
                self.release_voq(sched, now, cell.voq);
            }
        }
        None
    }

    /// A VOQ sends what its credit allows and reports a new state; the
    /// links its cells went to start.
    pub(super) fn release_voq(&mut self, sched: &mut Scheduler, now: Time, voq: u32) {
        let (src_fap, port) = self.cfg.geometry.voq_ends(voq);
        let dst_fap = self.cfg.geometry.fap_of_port(port);
        let mut run = 0u64;
        while let Some(unit) = self.voqs[voq as usize].dequeue() {
            let len = unit.wire_bytes as u64;
            self.voq_bytes[src_fap as usize] -= len;
            self.streams[voq as usize].packets.push_back(unit);
            run += len;
            if !self.cfg.packing {
                self.cut(voq, src_fap, dst_fap, run);
                run = 0;
            }
        }
        if run > 0 {
            self.cut(voq, src_fap, dst_fap, run);
        }
        if let Some(state) = self.voqs[voq as usize].settle(&self.cfg.crs) {
            let cell = Cell {
                voq,
                seq: self.voqs[voq as usize].statuses << 2 | state as u32,
                from_link: 0,
                payload: self.cfg.control_bytes as u16,
                dst_fap: dst_fap as u8,
                kind: CellKind::FlowStatus,
            };
            self.spray(src_fap, cell);
        }
        self.start_waking(sched, now);
        self.follow_losses(sched, now);
    }

    /// Cuts a run of `bytes` of VOQ `voq` into cells and sprays them.
    fn cut(&mut self, voq: u32, src_fap: u32, dst_fap: u32, bytes: u64) {
        let segmenter = self.segmenter;
        self.bursts += 1;
        segmenter.cut(bytes, |payload| {
            let seq = self.streams[voq as usize].number();
            self.data_bytes_made += payload as u64;
            self.spray(src_fap, Cell { voq, seq, from_link: 0, payload, dst_fap: dst_fap as u8, kind: CellKind::Data });
        });
    }
}

impl World {
    /// A VOQ's release (`Fabric::release_voq`).
    pub(super) fn voq_release(&mut self, voq: u32) {
        let now = self.now;
        let (f, sched) = self.fabric_and_scheduler();
        f.release_voq(sched, now, voq);
    }
}
