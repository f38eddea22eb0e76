//! The optional mechanisms of a run, as services: ABR (`abr.rs`), TCP
//! Boston (`boston.rs`), the round-robin service of switch inputs
//! (`net/input_rr.rs`), watched ports (packet captures and the port log,
//! `capture.rs`) and scripted drops. Each is built from the model by its
//! own constructor and takes part in a run through a fixed set of hooks,
//! dispatched by `match` over [`Service`] (no `dyn`):
//!
//! | hook | when | services |
//! | --- | --- | --- |
//! | [`World::cut_frame`] | a segment is cut into a frame at its source | Watch (the host's packet), Boston (the frame's pieces) |
//! | [`World::frame_leaves`] | the frame would enter its first port | ScriptedDrops (dropped), Abr (waits for ACR) |
//! | [`World::entering_port`], [`World::offered`], [`World::departed`] | a unit enters a port; what the port did; a queued unit left | Abr (ERICA counts it; EFCI switches' relative rate marking sets CI); Watch |
//! | [`World::at_switch`] | a unit reaches a switch's input | InputRoundRobin (parked until its slot ends) |
//! | [`World::at_destination`] | a data cell reaches its destination | Boston (partial reassembly), Abr with EFCI switches (the destination remembers EFCI) |
//! | own events | `Event::Abr`, `PortEvent::InputSlot` | Abr, InputRoundRobin |
//! | [`Services::in_flight`] | the accounting identity | Abr (RM cells; cells waiting at sources), InputRoundRobin (parked cells) |
//! | [`World::service_summaries`] | the summary | Abr, Boston, Watch |
//!
//! The per-unit path tests one flag per hook ("any service here?"): a run
//! without services pays one predictable branch per hook.

use super::abr::AbrState;
use super::boston::Boston;
use super::World;
use crate::capture::Capture;
use crate::net::input_rr::{InputRoundRobin, Park};
use crate::net::port::Offer;
use crate::net::{FlowId, FrameHeader, PortId, Unit, VcId};
use crate::scenario::{App, Model};
use crate::summary::Summary;
use crate::time::Time;

/// One service of a run.
pub(super) enum Service {
    Abr(Box<AbrState>),
    Boston(Box<Boston>),
    InputRoundRobin(Box<InputRoundRobin>),
    Watch(Box<Watch>),
    ScriptedDrops(ScriptedDrops),
}

/// Ports whose every change is recorded: the port log (`trace.port`) and
/// packet captures.
#[derive(Default)]
pub(super) struct Watch {
    /// The port whose changes are logged (`trace.port`, traces on).
    pub log_port: Option<PortId>,
    pub capture: Option<Box<Capture>>,
}

/// Losses the scenario scripts (`flow.drop_segments`): the first
/// transmission of these data segments is dropped whole at the sender's
/// adapter.
pub(super) struct ScriptedDrops {
    /// Per flow, the sorted segment numbers.
    segments: Vec<Vec<u64>>,
    mss: u64,
}

impl ScriptedDrops {
    fn new(model: &Model) -> Option<Self> {
        let segments: Vec<Vec<u64>> = model.flows.iter().map(|f| f.drop_segments.clone()).collect();
        segments.iter().any(|s| !s.is_empty()).then_some(ScriptedDrops { segments, mss: model.tcp.mss as u64 })
    }

    /// Is the data segment of flow `f` starting at `seq` one the scenario drops?
    fn drops(&self, f: FlowId, seq: u64) -> bool {
        let list = &self.segments[f.ix()];
        !list.is_empty() && list.binary_search(&((seq - 1) / self.mss)).is_ok()
    }
}

/// The services of a run and which hooks any of them takes.
#[derive(Default)]
pub(super) struct Services {
    list: Vec<Service>,
    /// Some service sees units entering ports (ABR's ERICA, a watched port).
    pub at_port: bool,
    /// Some port is logged or captured: offers and departures are recorded.
    pub watching: bool,
    /// Units arriving at switches are parked (round-robin input service).
    pub at_switch: bool,
    /// Some service takes part in cutting frames at sources.
    pub at_source: bool,
    /// Some service sees data cells at their destinations (Boston; ABR
    /// with EFCI switches).
    pub at_destination: bool,
    /// EFCI switches set CI in backward RM cells entering ports (relative
    /// rate marking, in place of the ABR service's other work at ports).
    pub relative_rate: bool,
}

impl Services {
    /// The services the model asks for, in the order their hooks run.
    pub(super) fn new(model: &Model, vcs: &crate::net::VcTable, trace: bool) -> Self {
        let mut s = Services::default();
        let log_port = if trace { model.trace_port } else { None };
        let candidates = [
            log_port.map(|p| Service::Watch(Box::new(Watch { log_port: Some(p), capture: None }))),
            model.boston.clone().map(|c| {
                let tcp: Vec<bool> = model.flows.iter().map(|f| f.app == App::Tcp).collect();
                Service::Boston(Box::new(Boston::new(c, model.header_bytes, &tcp)))
            }),
            ScriptedDrops::new(model).map(Service::ScriptedDrops),
            model.abr.as_ref().map(|cfg| Service::Abr(Box::new(AbrState::new(cfg, model, vcs)))),
            model.input_round_robin.then(|| {
                let ends: Vec<_> = model.ports.iter().map(|p| (p.from, p.to, p.rate)).collect();
                Service::InputRoundRobin(Box::new(InputRoundRobin::new(&ends, &model.is_host)))
            }),
        ];
        for service in candidates.into_iter().flatten() {
            s.add(service);
        }
        s
    }

    fn add(&mut self, service: Service) {
        match &service {
            Service::Abr(a) => {
                self.at_port |= a.takes_at_port();
                self.at_source = true;
                self.at_destination |= a.takes_at_destination();
                self.relative_rate |= a.marks_backward();
            }
            Service::Boston(_) => {
                self.at_source = true;
                self.at_destination = true;
            }
            Service::InputRoundRobin(_) => self.at_switch = true,
            Service::Watch(w) => {
                self.watching = true;
                self.at_port = true;
                self.at_source |= w.capture.is_some();
            }
            Service::ScriptedDrops(_) => self.at_source = true,
        }
        self.list.push(service);
    }

    /// Turns packet captures on (the Watch service, made if there is none).
    pub(super) fn capture(&mut self, capture: Capture, watches_ports: bool) {
        let at = self.list.iter().position(|s| matches!(s, Service::Watch(_)));
        let mut watch = match at {
            Some(i) => match self.list.remove(i) {
                Service::Watch(w) => w,
                _ => unreachable!("the position of the Watch service"),
            },
            None => Box::default(),
        };
        watch.capture = Some(Box::new(capture));
        let log = watch.log_port.is_some();
        self.list.insert(at.unwrap_or(0), Service::Watch(watch));
        self.at_source = true;
        self.watching = log || watches_ports;
        self.at_port |= self.watching;
    }

    pub(super) fn abr(&self) -> Option<&AbrState> {
        self.list.iter().find_map(|s| if let Service::Abr(a) = s { Some(&**a) } else { None })
    }
    pub(super) fn abr_mut(&mut self) -> Option<&mut AbrState> {
        self.list.iter_mut().find_map(|s| if let Service::Abr(a) = s { Some(&mut **a) } else { None })
    }
    pub(super) fn boston_mut(&mut self) -> Option<&mut Boston> {
        self.list.iter_mut().find_map(|s| if let Service::Boston(b) = s { Some(&mut **b) } else { None })
    }
    pub(super) fn input_rr_mut(&mut self) -> Option<&mut InputRoundRobin> {
        self.list.iter_mut().find_map(|s| if let Service::InputRoundRobin(r) = s { Some(&mut **r) } else { None })
    }
    pub(super) fn watch(&self) -> Option<&Watch> {
        self.list.iter().find_map(|s| if let Service::Watch(w) = s { Some(&**w) } else { None })
    }
    pub(super) fn capture_mut(&mut self) -> Option<&mut Capture> {
        self.list.iter_mut().find_map(|s| if let Service::Watch(w) = s { w.capture.as_deref_mut() } else { None })
    }
    pub(super) fn log_port(&self) -> Option<PortId> {
        self.watch().and_then(|w| w.log_port)
    }

    /// The services' terms of the accounting identity: (cells sent,
    /// delivered, dropped, in flight) that no VC's ledger or port holds.
    pub(super) fn in_flight(&self) -> [u64; 4] {
        let mut terms = [0; 4];
        for s in &self.list {
            match s {
                // RM cells are cells of the identity (and of the CLR); data
                // cells waiting at ABR sources are sent (cut) but in no pipe.
                Service::Abr(abr) => {
                    let (sent, delivered, dropped) = abr.rm_counts();
                    terms[0] += sent;
                    terms[1] += delivered;
                    terms[2] += dropped;
                    terms[3] += abr.cells_waiting();
                }
                // Cells waiting in a round-robin switch's input ports for their slot's end.
                Service::InputRoundRobin(rr) => terms[3] += rr.waiting(),
                Service::Boston(_) | Service::Watch(_) | Service::ScriptedDrops(_) => {}
            }
        }
        terms
    }
}

/// What becomes of a frame leaving its source ([`World::frame_leaves`]).
pub(super) enum Leaves {
    /// Into its first port.
    Onward,
    /// Dropped whole at the sender's adapter (a scripted loss).
    Dropped,
    /// Waiting at its ABR source for ACR.
    Queued,
}

impl World {
    /// Hook: a segment is cut into a frame of `ncells` cells at its source;
    /// returns the frame's cells (Boston's pieces may change them).
    #[inline(never)]
    pub(super) fn cut_frame(&mut self, vc: VcId, seg: &FrameHeader, first_transmission: bool, ncells: u32) -> u32 {
        let mut ncells = ncells;
        for i in 0..self.services.list.len() {
            match &mut self.services.list[i] {
                Service::Watch(w) => {
                    if let Some(c) = w.capture.as_deref_mut() {
                        c.at_host(self.vcs.get(vc).src, self.now, vc, seg, true);
                    }
                }
                Service::Boston(_) => ncells = self.boston_frame(vc, seg, first_transmission, ncells),
                Service::Abr(_) | Service::InputRoundRobin(_) | Service::ScriptedDrops(_) => {}
            }
        }
        ncells
    }

    /// Hook: frame `frame` of `seg` (its first unit `first`) would enter
    /// its first port.
    #[inline(never)]
    pub(super) fn frame_leaves(&mut self, vc: VcId, seg: &FrameHeader, first_transmission: bool, first: Unit, ncells: u16) -> Leaves {
        for i in 0..self.services.list.len() {
            match &self.services.list[i] {
                Service::ScriptedDrops(d) => {
                    let v = self.vcs.get(vc);
                    if first_transmission && v.carries_payload() && d.drops(v.flow, seg.seq()) {
                        self.scripted_drop(v.ports[0], first, ncells);
                        return Leaves::Dropped;
                    }
                }
                Service::Abr(a) if a.is_abr(vc) => {
                    for index in 0..ncells {
                        self.abr_enqueue(first.with_index(index, ncells)); // waits at the source for ACR
                    }
                    return Leaves::Queued;
                }
                Service::Abr(_) | Service::Boston(_) | Service::InputRoundRobin(_) | Service::Watch(_) => {}
            }
        }
        Leaves::Onward
    }

    /// Hook: `unit` is about to be offered to port `p`.
    #[inline(never)]
    pub(super) fn entering_port(&mut self, p: PortId, unit: &Unit) {
        if self.services.relative_rate {
            return self.relative_rate(p, unit);
        }
        let (now, vcs, ports) = (self.now, &self.vcs, &mut self.ports);
        for s in &mut self.services.list {
            if let Service::Abr(abr) = s {
                let queue = if abr.controls_queue(p) { ports[p.ix()].occupancy(now) } else { 0 };
                abr.at_port(now, p, unit, vcs, queue);
            }
        }
    }

    /// [`World::entering_port`] in a run of EFCI switches with relative
    /// rate marking (no port runs ERICA there): CI in backward RM cells.
    /// Out of line, so that ERICA's runs pay one test of a flag.
    #[cold]
    #[inline(never)]
    fn relative_rate(&mut self, p: PortId, unit: &Unit) {
        let ports = &self.ports;
        if let Some(abr) = self.services.list.iter_mut().find_map(|s| if let Service::Abr(a) = s { Some(a) } else { None }) {
            abr.relative_rate(p, unit, &self.vcs, |q| ports[q.ix()].policy.efci_congested());
        }
    }

    /// Hook: what port `p` did with `unit` (recorded by a watched port).
    #[inline(never)]
    pub(super) fn offered(&mut self, p: PortId, unit: &Unit, offer: Offer) {
        if self.services.watching {
            self.watch_offer(p, unit, offer);
        }
    }

    /// Hook: a per-VC or priority port's transmission of `unit` ended at `t`.
    #[inline(never)]
    pub(super) fn departed(&mut self, p: PortId, t: Time, unit: &Unit) {
        if self.services.watching {
            self.watch_depart(p, t, unit);
        }
    }

    /// Hook: `unit` left link `from` into a switch, bound for port `next`;
    /// true if it enters `next` now.
    #[inline(never)]
    pub(super) fn at_switch(&mut self, from: PortId, next: PortId, unit: Unit) -> bool {
        let now = self.now;
        let Some(rr) = self.services.input_rr_mut() else { return true };
        match rr.park(now, from, next, unit) {
            Park::Through => true,
            Park::Parked => false,
            Park::Wake(at) => {
                let node = self.ports[next.ix()].from;
                self.sched.schedule(at, crate::engine::Event::Port(crate::engine::PortEvent::InputSlot(node)));
                false
            }
        }
    }

    /// Hook: a data cell reached its destination (an ABR destination
    /// remembers its EFCI); true if a service took it (Boston's partial
    /// reassembly).
    #[inline(never)]
    pub(super) fn at_destination(&mut self, unit: &Unit) -> bool {
        if let Some(abr) = self.services.abr_mut() {
            abr.at_destination(unit);
        }
        self.services.boston_mut().is_some() && self.boston_cell(unit)
    }

    /// Hook: the services' blocks of the summary.
    pub(super) fn service_summaries(&mut self, summary: &mut Summary, files: &[crate::capture::write::CaptureFile]) {
        let horizon = self.now;
        let names: Vec<String> = self.model.flows.iter().map(|f| f.name.clone()).collect();
        if let Some(abr) = self.services.abr_mut() {
            summary.abr = Some(abr.summary(horizon, &self.vcs, &names));
        }
        summary.capture = self.capture_summary(files);
    }
}
