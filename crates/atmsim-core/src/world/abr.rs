//! The ABR service wired into the world (TM 4.0 §5.10; Jain et al., "TCP/IP
//! over ABR", ATM Forum 96-0177R1): every TCP VC is an ABR VC whose cells
//! wait at the source until its ACR lets them go, RM cells travel in band
//! with the data, destinations turn them around, and ERICA at every switch
//! output port measures the load and lowers the ER of backward RM cells; or,
//! with binary-feedback switches (`abr.switch = "efci"`), the ports set EFCI
//! on data cells (their drop policy, `net/drop/efci.rs`), destinations turn
//! it into CI, and with relative rate marking the switches set CI in
//! backward RM cells too.
//!
//! The components (`atm::abr`) are plain values; this file only moves
//! cells between them and schedules the sources' send opportunities
//! (`AbrEvent::Send`). A run without `[abr]` never reaches it (one branch per
//! unit-hop).

use super::service::{Leaves, ServiceKind, Takes};
use super::World;
use crate::atm::abr::destination::{AbrDestination, Turnaround};
use crate::atm::abr::erica::{Erica, EricaVariant};
use crate::atm::abr::source::{AbrSource, SourceCell};
use crate::atm::abr::{cells_per_second, AbrConfig, AbrSwitch, Direction, EfciConfig, RmCells, VbrConfig};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::engine::{AbrEvent, Event};
use crate::net::{FrameHeader, PortId, Unit, VcId, VcTable};
use crate::scenario::Model;
use crate::summary::{AbrSourceSummary, AbrSummary};
use crate::time::{secs, Time};
use crate::trace::AbrTrace;
use std::collections::VecDeque;

/// One ABR VC: its source, the destination of its forward RM cells, and the
/// data cells waiting at the source for ACR.
pub(super) struct AbrVc {
    source: AbrSource,
    dest: AbrDestination,
    waiting: VecDeque<Unit>,
    /// The pending `AbrEvent::Send`, if any.
    scheduled: Option<Time>,
    /// The VC that carries this VC's backward RM cells (the other direction
    /// of the same connection).
    reply: VcId,
    /// Σ waiting cells × time, time with cells waiting, since `changed`.
    waiting_integral: u128,
    waiting_time: Time,
    changed: Time,
    peak_waiting: u64,
}

impl AbrVc {
    /// Accumulates the waiting-cell statistics up to `now`.
    fn account(&mut self, now: Time) {
        let dt = now - self.changed;
        self.waiting_integral += self.waiting.len() as u128 * dt as u128;
        if !self.waiting.is_empty() {
            self.waiting_time += dt;
        }
        self.changed = now;
    }
}

/// RM cells: every one sent is delivered (at the destination or back at the
/// source), dropped in a queue, or still in a pipe.
#[derive(Default)]
struct RmCounts {
    sent: u64,
    delivered: u64,
    dropped: u64,
}

/// The ABR state of a run.
pub(super) struct AbrState {
    vcs: Vec<Option<AbrVc>>,
    /// The VBR background and the one-port VC its cells use.
    vbr: Option<(VbrConfig, VcId)>,
    vbr_cells: RmCounts,
    /// Per port, ERICA if the port leaves a switch.
    erica: Vec<Option<Erica>>,
    /// Per port, the node it leaves (to find a VC's forward port at a switch).
    port_from: Vec<u32>,
    rm: RmCounts,
    /// The fields of the RM cells in the network.
    rm_cells: RmCells,
    variant: EricaVariant,
    turnaround: Turnaround,
    /// Binary-feedback switches (then no port runs ERICA).
    efci: Option<EfciConfig>,
}

impl ServiceKind for AbrState {
    const MECHANISM: Mechanism = Mechanism {
        name: "abr",
        selected_by: "[abr]",
        networks: Networks::Atm,
        about: "the ABR service (TM 4.0; Jain et al. 1996): sources at ACR, RM cells, ERICA or EFCI switches, VBR background",
        docs: "jain96.md",
        keys: &[],
        counters: &["abr"],
        goldens: &[Golden { scenario: "jain96-2src", variation: "", overrides: &[] }],
    };

    fn from_model(model: &Model, vcs: &VcTable, _: bool) -> Option<Self> {
        model.abr.as_ref().map(|cfg| AbrState::new(cfg, model, vcs))
    }

    fn takes(&self) -> Takes {
        Takes {
            at_port: self.takes_at_port(),
            at_source: true,
            at_destination: self.takes_at_destination(),
            relative_rate: self.marks_backward(),
            ..Takes::default()
        }
    }

    /// RM cells are cells of the identity (and of the CLR); data cells
    /// waiting at ABR sources are sent (cut) but in no pipe.
    fn in_flight(&self) -> [u64; 4] {
        let (sent, delivered, dropped) = self.rm_counts();
        [sent, delivered, dropped, self.cells_waiting()]
    }

    /// An ABR VC's frame waits at its source for ACR.
    fn frame_leaves(w: &mut World, me: usize, vc: VcId, _: &FrameHeader, _: bool, first: Unit, ncells: u16) -> Leaves {
        if !w.services.at_mut::<AbrState>(me).is_abr(vc) {
            return Leaves::Onward;
        }
        for index in 0..ncells {
            w.abr_enqueue(first.with_index(index, ncells));
        }
        Leaves::Queued
    }
}

impl AbrState {
    /// Every VC of a TCP connection is ABR (the ACK direction too, with the
    /// same parameters: our choice, Jain et al. do not say); ERICA runs at
    /// every output port of every switch.
    pub(super) fn new(cfg: &AbrConfig, model: &Model, vcs: &VcTable) -> Self {
        let mut abr_vcs: Vec<Option<AbrVc>> = (0..vcs.len()).map(|_| None).collect();
        for (i, f) in model.flows.iter().enumerate() {
            if f.app != crate::scenario::App::Tcp {
                continue;
            }
            let fid = crate::net::FlowId(i as u32);
            let (data, ack) = (vcs.payload_of(fid), vcs.reply_of(fid));
            for (vc, reply) in [(data, ack), (ack, data)] {
                abr_vcs[vc.ix()] = Some(AbrVc {
                    source: AbrSource::new(cfg.source),
                    dest: AbrDestination::new(cfg.turnaround),
                    waiting: VecDeque::new(),
                    scheduled: None,
                    reply,
                    waiting_integral: 0,
                    waiting_time: 0,
                    changed: 0,
                    peak_waiting: 0,
                });
            }
        }
        let efci = match cfg.switch {
            AbrSwitch::Erica => None,
            AbrSwitch::Efci(e) => Some(e),
        };
        let erica = model
            .ports
            .iter()
            .map(|p| {
                let switch = !model.is_host[p.from.ix()] && efci.is_none();
                switch.then(|| Erica::new(cfg.erica, cells_per_second(p.rate.bits_per_second()), vcs.len()))
            })
            .collect();
        AbrState {
            vcs: abr_vcs,
            vbr: cfg.vbr.map(|v| (v, VcId(vcs.len() as u32 - 1))),
            vbr_cells: RmCounts::default(),
            erica,
            port_from: model.ports.iter().map(|p| p.from.0).collect(),
            rm: RmCounts::default(),
            rm_cells: RmCells::default(),
            variant: cfg.erica.variant,
            turnaround: cfg.turnaround,
            efci,
        }
    }

    /// Does this service see units entering ports? ERICA counts every cell;
    /// EFCI switches only set CI in backward RM cells, and only with
    /// relative rate marking.
    pub(super) fn takes_at_port(&self) -> bool {
        self.efci.is_none_or(|e| e.backward_ci)
    }

    /// Do its switches set CI in backward RM cells (relative rate marking)?
    pub(super) fn marks_backward(&self) -> bool {
        self.efci.is_some_and(|e| e.backward_ci)
    }

    /// Does it see data cells at their destinations? Only with EFCI
    /// switches, whose marks the destinations remember (rule 1).
    pub(super) fn takes_at_destination(&self) -> bool {
        self.efci.is_some()
    }

    /// A data cell reached its destination: an ABR VC's destination
    /// remembers its EFCI (TM 4.0 §5.10.5, destination rule 1).
    pub(super) fn at_destination(&mut self, unit: &Unit) {
        if let Some(a) = self.vcs[unit.vc.ix()].as_mut() {
            a.dest.on_data(unit.is_congested());
        }
    }

    /// Relative rate marking (TM 4.0 §5.10.6): a backward RM cell entering
    /// port `p` gets CI if its owner's forward port at the same switch is
    /// `congested` (an EFCI port as of its last arrival).
    pub(super) fn relative_rate(&mut self, p: PortId, unit: &Unit, vcs: &VcTable, congested: impl Fn(PortId) -> bool) {
        let Some((cell, owner)) = self.rm_cells.read(unit) else { return };
        if cell.dir != Direction::Backward || cell.ci {
            return;
        }
        let node = self.port_from[p.ix()];
        if vcs.get(owner).ports.iter().any(|&q| self.port_from[q.ix()] == node && congested(q)) {
            self.rm_cells.set_ci(unit);
        }
    }

    /// When the VBR background sends its first cell, if there is one.
    pub(super) fn vbr_first(&self) -> Option<Time> {
        self.vbr.map(|(cfg, _)| cfg.next_cell(0))
    }

    #[inline]
    pub(super) fn is_abr(&self, vc: VcId) -> bool {
        self.vcs[vc.ix()].is_some()
    }

    /// Data and RM cells still at the sources or in no pipe (for the
    /// accounting identity): the data cells waiting for ACR.
    pub(super) fn cells_waiting(&self) -> u64 {
        self.vcs.iter().flatten().map(|a| a.waiting.len() as u64).sum()
    }

    /// RM and VBR cells sent, delivered and dropped (they join the cell identity).
    pub(super) fn rm_counts(&self) -> (u64, u64, u64) {
        let (r, v) = (&self.rm, &self.vbr_cells);
        (r.sent + v.sent, r.delivered + v.delivered, r.dropped + v.dropped)
    }

    pub(super) fn frameless_dropped(&mut self, unit: &Unit) {
        if unit.is_vbr() {
            self.vbr_cells.dropped += 1;
        } else {
            self.rm.dropped += 1;
            self.rm_cells.release(unit);
        }
    }

    /// Does ERICA at port `p` follow its queue (ERICA+)?
    #[inline]
    pub(super) fn controls_queue(&self, p: PortId) -> bool {
        self.erica[p.ix()].as_ref().is_some_and(Erica::controls_queue)
    }

    /// A cell of an ABR VC reaches port `p` at `now` (the port holding
    /// `queue` cells, measured for ERICA+ only): ERICA counts it and,
    /// for an RM cell, reads its CCR (forward) or lowers its ER (backward,
    /// with the state of the owner's forward port at the same switch).
    #[inline]
    pub(super) fn at_port(&mut self, now: Time, p: PortId, unit: &Unit, vcs: &VcTable, queue: u64) {
        if let Some(e) = self.erica[p.ix()].as_mut() {
            e.observe_queue(queue);
        }
        if unit.is_vbr() {
            if let Some(e) = self.erica[p.ix()].as_mut() {
                e.on_higher_priority_cell(now);
            }
            return;
        }
        if self.erica[p.ix()].is_none() || !self.is_abr(unit.vc) {
            return;
        }
        let rm = self.rm_cells.read(unit);
        if let Some((cell, owner)) = rm {
            if cell.dir == Direction::Backward {
                let node = self.port_from[p.ix()];
                let fwd = vcs.get(owner).ports.iter().copied().find(|q| self.port_from[q.ix()] == node);
                if let Some(e) = fwd.and_then(|q| self.erica[q.ix()].as_mut()) {
                    self.rm_cells.set_er(unit, e.on_brm(now, owner.ix(), cell.er));
                }
            }
        }
        let e = self.erica[p.ix()].as_mut().expect("checked");
        e.on_abr_cell(now, unit.vc.ix());
        if let Some((cell, owner)) = rm {
            if cell.dir == Direction::Forward {
                e.on_frm(owner.ix(), cell.ccr);
            }
        }
    }

    /// Samples every data VC's ACR and waiting cells into the trace.
    pub(super) fn sample(&self, t: f64, vcs: &VcTable, tr: &mut AbrTrace) {
        for (i, a) in self.vcs.iter().enumerate() {
            let Some(a) = a else { continue };
            let v = vcs.get(VcId(i as u32));
            if v.carries_payload() {
                tr.t.push(t);
                tr.flow.push(v.flow.0);
                tr.acr_cells_per_s.push(a.source.acr());
                tr.waiting.push(a.waiting.len() as u64);
            }
        }
    }

    /// The run's ABR summary at `horizon`.
    pub(super) fn summary(&mut self, horizon: Time, vcs: &VcTable, names: &[String]) -> AbrSummary {
        let mut sources = Vec::new();
        for (i, a) in self.vcs.iter_mut().enumerate() {
            let Some(a) = a else { continue };
            a.account(horizon);
            let v = vcs.get(VcId(i as u32));
            let st = a.source.stats;
            sources.push(AbrSourceSummary {
                flow: names[v.flow.ix()].clone(),
                direction: if v.carries_payload() { "data" } else { "ack" },
                acr_cells_per_s: a.source.acr(),
                mean_waiting_cells: if horizon > 0 { a.waiting_integral as f64 / horizon as f64 } else { 0.0 },
                waiting_fraction: if horizon > 0 { a.waiting_time as f64 / horizon as f64 } else { 0.0 },
                peak_waiting_cells: a.peak_waiting,
                cells_waiting_at_end: a.waiting.len() as u64,
                frm_sent: st.frm_sent + st.out_of_rate_frm_sent,
                brm_received: st.brm_received,
                data_cells_sent: st.data_sent,
                adtf_resets: st.adtf_resets,
                crm_cuts: st.crm_cuts,
                brm_with_ci: self.efci.map(|_| st.brm_with_ci),
            });
        }
        AbrSummary {
            erica_variant: if self.efci.is_some() { "none" } else { self.variant.name() },
            switch: self.efci.map(|_| "efci"),
            turnaround: match self.turnaround {
                Turnaround::Immediate => "immediate",
                Turnaround::Tm4 => "tm4",
            },
            rm_cells_sent: self.rm.sent,
            rm_cells_delivered: self.rm.delivered,
            rm_cells_dropped: self.rm.dropped,
            vbr_cells_sent: self.vbr_cells.sent,
            vbr_cells_dropped: self.vbr_cells.dropped,
            erica_intervals: self.erica.iter().flatten().map(|e| e.intervals).sum(),
            sources,
            end_s: secs(horizon),
        }
    }
}

impl World {
    /// A data cell of an ABR VC joins its source's queue.
    pub(super) fn abr_enqueue(&mut self, unit: Unit) {
        let now = self.now;
        let a = self.services.abr_mut().and_then(|s| s.vcs[unit.vc.ix()].as_mut()).expect("an ABR VC");
        a.account(now);
        a.waiting.push_back(unit);
        a.peak_waiting = a.peak_waiting.max(a.waiting.len() as u64);
        self.abr_kick(unit.vc);
    }

    /// Schedules the source's next send opportunity if it has something to
    /// send and none is pending earlier.
    fn abr_kick(&mut self, vc: VcId) {
        let now = self.now;
        let Some(abr) = self.services.abr_mut() else { return };
        let brm_waiting = abr.turnaround == Turnaround::Tm4 && {
            let reply = abr.vcs[vc.ix()].as_ref().expect("an ABR VC").reply;
            abr.vcs[reply.ix()].as_ref().is_some_and(|r| r.dest.has_waiting())
        };
        let a = abr.vcs[vc.ix()].as_mut().expect("an ABR VC");
        if a.waiting.is_empty() && !brm_waiting {
            return;
        }
        let t = a.source.next_opportunity().max(now);
        if t == Time::MAX || a.scheduled.is_some_and(|s| s <= t) {
            return;
        }
        a.scheduled = Some(t);
        self.sched.schedule(t, Event::Abr(AbrEvent::Send(vc)));
    }

    /// A send opportunity of `vc`'s source: rule 3 picks the cell.
    pub(super) fn abr_send(&mut self, vc: VcId) {
        let now = self.now;
        let abr = self.services.abr_mut().expect("ABR run");
        let reply = {
            let a = abr.vcs[vc.ix()].as_mut().expect("an ABR VC");
            if a.scheduled != Some(now) {
                return; // superseded by an earlier opportunity
            }
            a.scheduled = None;
            a.reply
        };
        let brm_waiting = abr.vcs[reply.ix()].as_ref().is_some_and(|r| r.dest.has_waiting());
        let a = abr.vcs[vc.ix()].as_mut().expect("an ABR VC");
        let unit = match a.source.send(now, !a.waiting.is_empty(), brm_waiting) {
            None => None,
            Some(SourceCell::Data) => {
                a.account(now);
                a.waiting.pop_front()
            }
            Some(SourceCell::Frm(cell)) => {
                abr.rm.sent += 1;
                Some(abr.rm_cells.to_unit(cell, vc, vc))
            }
            Some(SourceCell::Brm) => {
                let brm = abr.vcs[reply.ix()].as_mut().and_then(|r| r.dest.take_waiting()).expect("a BRM waits");
                abr.rm.sent += 1;
                Some(abr.rm_cells.to_unit(brm, reply, vc))
            }
        };
        if let Some(u) = unit {
            self.enter_route(vc, u);
        }
        self.abr_kick(vc);
    }

    /// The VBR background's next cell enters its port.
    pub(super) fn vbr_send(&mut self) {
        let abr = self.services.abr_mut().expect("ABR run");
        let (cfg, vc) = abr.vbr.expect("a VBR background");
        abr.vbr_cells.sent += 1;
        let next = cfg.next_cell(self.now + 1);
        self.sched.schedule(next, Event::Abr(AbrEvent::Vbr));
        // (The VBR VC's route is its port alone.)
        self.enter_route(vc, Unit::vbr(vc));
    }

    /// A cell of no frame reached the end of its route: a VBR cell leaves
    /// the network; a forward RM cell is turned around by the owner's
    /// destination, a backward one updates the owner's source.
    pub(super) fn abr_frameless_arrives(&mut self, unit: &Unit) {
        let abr = self.services.abr_mut().expect("ABR run");
        if unit.is_vbr() {
            abr.vbr_cells.delivered += 1;
            return;
        }
        let (cell, owner) = abr.rm_cells.read(unit).expect("an RM cell");
        abr.rm_cells.release(unit);
        abr.rm.delivered += 1;
        let a = abr.vcs[owner.ix()].as_mut().expect("an ABR VC");
        match cell.dir {
            Direction::Forward => {
                let reply = a.reply;
                match a.dest.on_frm(&cell) {
                    // Immediate turnaround: the next cell slot of the
                    // destination's line, ahead of the reverse VC's cells
                    // still waiting for their ACR.
                    Some(brm) => {
                        abr.rm.sent += 1;
                        let unit = abr.rm_cells.to_unit(brm, owner, reply);
                        self.enter_route(reply, unit);
                    }
                    None => self.abr_kick(reply),
                }
            }
            Direction::Backward => {
                a.source.on_brm(&cell);
                self.abr_kick(owner);
            }
        }
    }
}
