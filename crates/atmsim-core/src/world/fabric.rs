//! The scheduled cell fabric wired into the world (`fabric/`;
//! docs/fabric.md). A packet that reaches the switch "fabric" from a host
//! is taken at the `at_switch` hook into its VOQ at the host's FAP; credits
//! release it into cells sprayed over the FAP's links; fabric elements
//! pass cells on towards their destination FAP; the egress reassembles the
//! packet and offers it to the port from the fabric to its host, where the
//! route it carried goes on. Control cells (FlowStatus, Credit) cross the
//! same links before data. A cell on a fabric link is due twice (its
//! transmitter's end, its arrival at the far end), each in the event of the
//! links due at that instant in a run with nothing between
//! (`fabric_group.rs`), in the scheduler's gap lanes for a full cell; link-level
//! credit takes one event per N2 cells.

use super::fabric_group::Due;
use super::World;
use crate::engine::{Event, FabricEvent, Scheduler};
use crate::fabric::link::FabricLink;
use crate::fabric::reassembly::{DepthHistogram, Reassembly, Released};
use crate::fabric::scheduler::{EgressScheduler, Slot};
use crate::fabric::segmenter::Segmenter;
use crate::fabric::tables::Tables;
use crate::fabric::voq::Voq;
use crate::fabric::{Cell, CellKind, FabricConfig, PRIORITIES};
use crate::net::{PortId, Unit};
use crate::scenario::fabric::{fraction, scaled};
use crate::scenario::model::FabricModel;
use crate::scenario::Model;

/// Counts of cells by kind: [data, FlowStatus, Credit].
pub(super) type ByKind = [u64; 3];

/// An arrival's entry in its group (`fabric_group.rs`): its link, and
/// above this bit the queue whose wire it is at the back of
/// (`FabricLink::start`).
pub(super) const ARRIVAL_QUEUE: u32 = 30;
const _: () = assert!(crate::fabric::PRIORITIES <= 1 << (32 - ARRIVAL_QUEUE));

/// What an up link sent, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct UpCounts {
    pub(super) data_cells: u64,
    pub(super) wire_bytes: u64,
}

pub(in crate::world) struct Fabric {
    pub(super) cfg: FabricConfig,
    /// The geometry's answers each cell asks, as tables (`fabric/tables.rs`).
    pub(super) tables: Tables,
    pub(super) segmenter: Segmenter,
    pub(super) links: Vec<FabricLink>,
    /// Per up link (a FAP's into the fabric), its data cells and wire
    /// bytes sent: only the report reads them, so they stay out of the
    /// link's hot lines (`fabric/link.rs`), 16 bytes a link.
    pub(super) up_counts: Vec<UpCounts>,
    /// The most cells of one link in its far end's buffer at once, any link.
    pub(super) peak_resident: u64,
    pub(super) voqs: Vec<Voq>,
    pub(super) streams: Vec<Reassembly>,
    /// Cells held out of order at each data cell's arrival, every stream.
    pub(super) depth_at_arrival: DepthHistogram,
    pub(super) schedulers: Vec<EgressScheduler>,
    /// Per egress port, its scheduler's credit rate with every link up.
    pub(super) full_credit_rates: Vec<crate::time::Rate>,
    /// Per FAP, its next link (round-robin spraying).
    spray_next: Vec<u32>,
    /// Per (FE, destination FAP), its next link down.
    pub(super) fe_next: Vec<u32>,
    /// Per egress port, the world's port to its host; per node, its egress
    /// port (hosts) or u32::MAX.
    pub(super) egress: Vec<PortId>,
    port_of_node: Vec<u32>,
    /// Per flow, its traffic class (empty: every flow in class 0).
    tc_of_flow: Vec<u8>,
    /// Per VOQ, the link queue its data cells wait in (its class's
    /// priority's; empty: every class at the lowest).
    data_queue: Vec<u8>,
    /// Per FAP, bytes in its VOQs.
    pub(super) voq_bytes: Vec<u64>,
    pub(super) voq_drops: u64,
    /// Packets marked CE at their VOQ (`voq_ecn_above`).
    pub(super) voq_marks: u64,
    pub(super) voq_drop_bytes: u64,
    /// Cells made (by FAPs) and cells received (by FAPs), by kind; payload
    /// bytes of data made and received.
    pub(super) made: ByKind,
    pub(super) received: ByKind,
    pub(super) data_bytes_made: u64,
    pub(super) data_bytes_received: u64,
    pub(super) packets_in: u64,
    pub(super) packets_out: u64,
    /// Runs of bytes cut into cells (a packet, or with packing every
    /// packet a VOQ released at once).
    pub(super) bursts: u64,
    /// Lost cells by kind (a failed link's), their data payload, and the
    /// packets discarded at reassembly for them; cells lost at a failure's
    /// instant and cells sent onto a failed link before its detection.
    pub(super) lost: ByKind,
    pub(super) lost_payload: u64,
    pub(super) packets_discarded: u64,
    pub(super) lost_at_failure: u64,
    pub(super) lost_before_detection: u64,
    /// Cells lost after detection for want of a link that reaches their FAP.
    pub(super) lost_unreachable: u64,
    /// Per (FE, destination FAP), the usable links down from it.
    pub(super) reach: Vec<u32>,
    /// No failure detected yet: every link usable, every element reaches
    /// every FAP, so round-robin spraying takes the next link unchecked.
    pub(super) all_usable: bool,
    /// Cells lost as they were queued, and link credits owed for cells an
    /// element lost, for the world to follow up (`fabric_fail.rs`).
    pub(super) dead: Vec<Cell>,
    pub(super) late_credits: Vec<(u32, u64)>,
    /// Links given a cell while idle, to be started (`start_waking`).
    pub(super) waking: Vec<u32>,
    /// Ends of transmission and arrivals due at one instant, one event per
    /// group (`fabric_group.rs`).
    pub(super) groups: super::fabric_group::Groups,
    /// Three stages: the inner hops' pointers and reach (`fabric_stages.rs`).
    pub(super) stages: crate::fabric::stages::StageState,
}

impl Fabric {
    pub(super) fn new(model: &Model, fm: &FabricModel) -> Fabric {
        let cfg = fm.config.clone();
        let g = &cfg.geometry;
        // An arrival's group entry carries the link and its queue (`ARRIVAL_QUEUE`).
        assert!(g.link_count() < 1 << ARRIVAL_QUEUE, "{} fabric links", g.link_count());
        let links = (0..g.link_count() as u32).map(|l| FabricLink::new(cfg.link_rate, g.delay(l), Some(cfg.llfc))).collect();
        let voqs = g.voq_count() as usize;
        let schedulers: Vec<EgressScheduler> = fm
            .egress
            .iter()
            .map(|p| {
                let r = model.ports[p.ix()].rate;
                let credit_rate = scaled(r, cfg.overspeed_ppm).expect("checked when resolved");
                let slow = fraction(r, cfg.slow_ppm).expect("checked when resolved");
                EgressScheduler::with_classes(g.faps, g.tcs, cfg.strict, &cfg.weights, credit_rate, slow, cfg.credit_worth)
            })
            .collect();
        Fabric {
            segmenter: Segmenter { payload: cfg.cell_payload, header: cfg.cell_header },
            links,
            up_counts: vec![UpCounts::default(); (g.faps * g.links) as usize],
            peak_resident: 0,
            voqs: (0..voqs).map(|_| Voq::new()).collect(),
            streams: (0..voqs).map(|_| Reassembly::default()).collect(),
            depth_at_arrival: DepthHistogram::default(),
            full_credit_rates: schedulers.iter().map(EgressScheduler::credit_rate).collect(),
            schedulers,
            spray_next: vec![0; g.faps as usize],
            fe_next: vec![0; (g.fe_count() * g.faps) as usize],
            egress: fm.egress.clone(),
            port_of_node: fm.port_of_node.clone(),
            tc_of_flow: fm.tc_of_flow.clone(),
            data_queue: match cfg.class_priorities.is_empty() {
                true => Vec::new(),
                false => (0..voqs as u32).map(|v| (PRIORITIES - 1) as u8 - cfg.class_priorities[g.voq_tc(v) as usize]).collect(),
            },
            voq_bytes: vec![0; g.faps as usize],
            voq_drops: 0,
            voq_marks: 0,
            voq_drop_bytes: 0,
            made: [0; 3],
            received: [0; 3],
            data_bytes_made: 0,
            data_bytes_received: 0,
            packets_in: 0,
            packets_out: 0,
            bursts: 0,
            lost: [0; 3],
            lost_payload: 0,
            packets_discarded: 0,
            lost_at_failure: 0,
            lost_before_detection: 0,
            lost_unreachable: 0,
            reach: vec![g.links_per_fe(); (g.fe_count() * g.faps) as usize],
            all_usable: true,
            dead: Vec::new(),
            late_credits: Vec::new(),
            waking: Vec::new(),
            groups: super::fabric_group::Groups::new(),
            stages: crate::fabric::stages::StageState::new(g),
            tables: Tables::new(g),
            cfg,
        }
    }

    /// Packets the fabric holds: in VOQs and on their way through it.
    pub(super) fn packets_held(&self) -> u64 {
        self.voqs.iter().map(|v| v.packets.len() as u64).sum::<u64>() + self.streams.iter().map(|s| s.packets.len() as u64).sum::<u64>()
    }

    /// Cells made and not received: waiting for a link, on a wire.
    pub(super) fn cells_inside(&self) -> u64 {
        self.links.iter().map(|l| l.queued() + l.on_wire()).sum()
    }

    /// Puts a cell made at `fap` on one of the links not known to have
    /// failed whose FE reaches the cell's FAP: the next in round-robin
    /// order, or with `least_loaded` the one with the fewest cells waiting
    /// for it or held in its far end (a load-aware sprayer in the manner of
    /// Juniper's choice of fabric sub-channel by credit count and memory
    /// occupancy, US patent 11,070,474; ties in round-robin order). The link, or None if the cell was
    /// lost (no link reaches, or a failed one not yet detected took it).
    pub(super) fn spray(&mut self, fap: u32, cell: Cell) -> Option<u32> {
        let g = &self.cfg.geometry;
        self.made[cell.kind as usize] += 1;
        let first = self.spray_next[fap as usize];
        if self.all_usable && !self.cfg.least_loaded {
            // What the search below finds at its first step.
            self.spray_next[fap as usize] = if first + 1 == g.links { 0 } else { first + 1 };
            let link = g.up(fap, first);
            return self.enqueue(link, cell).then_some(link);
        }
        let mut best: Option<(u64, u32)> = None;
        for k in 0..g.links {
            // (first + k) mod links, without a division: first < links.
            let i = if first + k >= g.links { first + k - g.links } else { first + k };
            let link = g.up(fap, i);
            let fe = self.tables.fe_of_up[link as usize];
            let l = &self.links[link as usize];
            if !l.usable || !self.leads_to(fe, cell.dst_fap as u32) {
                continue;
            }
            if !self.cfg.least_loaded {
                best = Some((0, i));
                break;
            }
            let load = l.queued() + l.resident();
            if best.is_none_or(|(b, _)| load < b) {
                best = Some((load, i));
            }
        }
        let Some((_, i)) = best else {
            self.lost_unreachable += 1;
            self.lose(cell);
            return None;
        };
        self.spray_next[fap as usize] = if i + 1 == g.links { 0 } else { i + 1 };
        let link = g.up(fap, i);
        self.enqueue(link, cell).then_some(link)
    }

    pub(super) fn lose(&mut self, cell: Cell) {
        self.lost[cell.kind as usize] += 1;
        if cell.kind == CellKind::Data {
            self.lost_payload += cell.payload as u64;
        }
        self.dead.push(cell);
    }

    /// Queues a cell for a link; false if the link has failed (the cell is lost).
    #[inline(always)]
    pub(super) fn enqueue(&mut self, link: u32, cell: Cell) -> bool {
        let queue = match cell.kind {
            CellKind::Data => self.data_queue.get(cell.voq as usize).map_or(PRIORITIES - 1, |&q| q as usize),
            CellKind::FlowStatus | CellKind::Credit => 0,
        };
        let l = &mut self.links[link as usize];
        if !l.up {
            self.lose_on_failed_link(cell);
            return false;
        }
        l.enqueue(cell, queue);
        if !l.busy {
            self.waking.push(link);
        }
        true
    }

    /// A cell sent onto a failed link before the failure was detected.
    #[cold]
    #[inline(never)]
    fn lose_on_failed_link(&mut self, cell: Cell) {
        self.lost_before_detection += 1;
        self.lose(cell);
    }
}

/// The gaps at which a fabric's events recur, for the scheduler's lanes
/// (engine/mod.rs), most frequent first: a full cell's time on a fabric
/// link (its end), that plus the link delay (its arrival), the same for a
/// control cell (FlowStatus and Credit: at full load about one cell in ten,
/// whose ends and arrivals otherwise went to the heap), the link delay (a
/// link credit), and an egress scheduler's credit slot, rounded down and
/// up.
pub(super) fn gaps(model: &Model, fm: &FabricModel) -> Vec<crate::time::Time> {
    let cfg = &fm.config;
    let cell = cfg.link_rate.tx_time((cfg.cell_payload + cfg.cell_header) as u64);
    let control = cfg.link_rate.tx_time((cfg.control_bytes + cfg.cell_header) as u64);
    let delay = cfg.geometry.delays[0];
    let mut out = vec![cell, cell + delay, control, control + delay, delay];
    if let Some(rate) = fm.egress.first().and_then(|p| scaled(model.ports[p.ix()].rate, cfg.overspeed_ppm)) {
        let slot = rate.tx_time(cfg.credit_worth as u64);
        out.extend([slot, slot - 1]);
    }
    out
}

impl World {
    pub(super) fn fabric(&mut self) -> &mut Fabric {
        self.fabric_and_scheduler().0
    }

    /// The fabric and the scheduler together (two fields, borrowed apart),
    /// for the fabric's plain functions that schedule (`fabric_link.rs`).
    pub(super) fn fabric_and_scheduler(&mut self) -> (&mut Fabric, &mut Scheduler) {
        (self.services.fabric_mut().expect("fabric events only in a fabric run"), &mut self.sched)
    }

    /// Hook: a packet from host link `from` reaches the fabric, bound for
    /// `next` (a port from the fabric to a host): into its VOQ.
    pub(super) fn fabric_ingress(&mut self, from: PortId, next: PortId, unit: Unit) {
        let src_node = self.ports[from.ix()].from;
        let dst_node = self.ports[next.ix()].to;
        let flow = self.vcs.get(unit.vc).flow;
        let f = self.fabric();
        let g = &f.cfg.geometry;
        let src_fap = g.fap_of_port(f.port_of_node[src_node.ix()]);
        let tc = f.tc_of_flow.get(flow.ix()).copied().unwrap_or(0) as u32;
        let voq = g.voq(src_fap, f.port_of_node[dst_node.ix()], tc);
        let len = unit.wire_bytes as u64;
        f.packets_in += 1;
        if f.voq_bytes[src_fap as usize] + len > f.cfg.voq_buffer {
            f.voq_drops += 1;
            f.voq_drop_bytes += len;
            return self.unit_dropped(unit);
        }
        f.voq_bytes[src_fap as usize] += len;
        // DCTCP's rule at the VOQ (scenario/fabric_ecn.rs): CE on an ECN-capable packet finding more than K bytes.
        let marks = f.cfg.voq_ecn_above.is_some_and(|k| f.voqs[voq as usize].qsize > k) && unit.is_ecn_capable();
        f.voq_marks += marks as u64;
        f.voqs[voq as usize].arrive(if marks { unit.congested() } else { unit });
        self.voq_release(voq);
    }

    /// Releases a stream's packets that are complete, or given up.
    pub(super) fn reassembled(&mut self, voq: u32, egress: PortId) {
        while let Some(released) = self.fabric().streams[voq as usize].next_packet() {
            match released {
                Released::Whole(unit) => {
                    self.fabric().packets_out += 1;
                    self.enter(egress, unit);
                }
                Released::Discarded(unit) => {
                    self.fabric().packets_discarded += 1;
                    self.unit_dropped(unit);
                }
            }
        }
    }

    pub(super) fn fabric_event(&mut self, ev: FabricEvent) {
        match ev {
            FabricEvent::LinkFree(g) => self.group_due(g, Due::End),
            FabricEvent::LinkHead(g) => self.group_due(g, Due::Arrival),
            FabricEvent::CreditSlot(p) => self.credit_slot(p),
            FabricEvent::LinkCredit { link, fwd } => {
                self.fabric().links[link as usize].credit(fwd);
                self.fabric_start(link);
            }
            FabricEvent::Fail(i) => self.link_fails(i),
            FabricEvent::Detect(i) => self.failure_detected(i),
            FabricEvent::GiveUp { voq, cell } => self.give_up(voq, cell),
            FabricEvent::StatusAgain(voq) => self.status_again(voq),
        }
    }

    /// An egress port's credit slot: a credit to the next VOQ, or a pause.
    fn credit_slot(&mut self, port: u32) {
        let now = self.now;
        if self.fabric().schedulers[port as usize].next_slot != now {
            return; // stale: a FlowStatus moved this port's slot sooner
        }
        let egress = self.fabric().egress[port as usize];
        let queued = self.ports[egress.ix()].occupancy_bytes(now);
        let f = self.fabric();
        let stop = f.cfg.egress_stop;
        let next = match f.schedulers[port as usize].slot(now, queued, stop) {
            Slot::Grant(member, next) => {
                let g = &f.cfg.geometry;
                let (src, tc) = (member % g.faps, member / g.faps);
                let (voq, dst_fap) = (g.voq(src, port, tc), g.fap_of_port(port));
                let cell =
                    Cell { voq, seq: 0, from_link: 0, payload: f.cfg.control_bytes as u16, dst_fap: src as u8, kind: CellKind::Credit };
                f.spray(dst_fap, cell);
                self.start_waking();
                self.fabric_losses();
                Some(next)
            }
            Slot::Paused(next) | Slot::Wait(next) => Some(next),
            Slot::Idle => None,
        };
        if let Some(t) = next {
            self.sched.schedule(t, Event::Fabric(FabricEvent::CreditSlot(port)));
        }
    }
}
