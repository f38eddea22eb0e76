//! The optional mechanisms of a run, as services: ABR (`abr.rs`), TCP
//! Boston (`boston.rs`), the round-robin service of switch inputs
//! (`net/input_rr.rs`), watched ports (packet captures and the port log,
//! `capture.rs`), scripted drops (`services/scripted.rs`) and switch ports'
//! occupancy percentiles (`services/occupancy.rs`). Each
//! implements `ServiceKind` (`service.rs`) in its own file and is listed
//! once in [`registry!`] below, which writes [`Service`] and the dispatch of
//! its hooks by `match` (no `dyn`):
//!
//! | hook | when | services |
//! | --- | --- | --- |
//! | [`World::cut_frame`] | a segment is cut into a frame at its source | Watch (the host's packet), Boston (the frame's pieces) |
//! | [`World::frame_leaves`] | the frame would enter its first port | ScriptedDrops (dropped), Abr (waits for ACR) |
//! | [`World::entering_port`], [`World::offered`], [`World::departed`] | a unit enters a port; what the port did; a queued unit left | Abr (ERICA counts it; EFCI switches' relative rate marking sets CI); Watch; PortOccupancy (`offered`) |
//! | [`World::at_switch`] | a unit reaches a switch's input | InputRoundRobin (parked until its slot ends) |
//! | [`World::at_destination`] | a data cell reaches its destination | Boston (partial reassembly), Abr with EFCI switches (the destination remembers EFCI) |
//! | own events | `Event::Abr`, `PortEvent::InputSlot` | Abr, InputRoundRobin |
//! | [`Services::in_flight`] | the accounting identity | Abr (RM cells; cells waiting at sources), InputRoundRobin (parked cells) |
//! | [`World::service_summaries`] | the summary | Abr, Watch (captures), and the block of any service with a `summary_block`; Boston's is built in `finish.rs` |
//!
//! The per-unit path tests one flag per hook ("any service here?"): a run
//! without services pays one predictable branch per hook.

use super::abr::AbrState;
use super::boston::Boston;
use super::capture::Watch;
use super::fabric::Fabric;
use super::service::{Leaves, ServiceKind, Takes};
use super::World;
use crate::base::mechanism::Mechanism;
use crate::capture::Capture;
use crate::net::input_rr::{InputRoundRobin, Park};
use crate::net::port::Offer;
use crate::net::{FrameHeader, PortId, Unit, VcId};
use crate::scenario::Model;
use crate::summary::Summary;
use crate::time::Time;

/// Reaches a registered service's value in the run's list (written by
/// [`registry!`] for each service).
pub(super) trait Registered: Sized {
    fn of(s: &Service) -> Option<&Self>;
    fn of_mut(s: &mut Service) -> Option<&mut Self>;
}

/// Writes, from the one list of services (in the order their hooks run):
/// their modules when they are files of `services/`, [`Service`], the
/// accessors ([`Registered`]), [`SERVICES`] and the dispatch of the hooks
/// every service may take.
macro_rules! registry {
    ($($($module:ident)? { $variant:ident: $ty:ty },)*) => {
        $($(mod $module;)?)*

        /// One service of a run.
        pub(super) enum Service {
            $($variant(Box<$ty>),)*
        }

        $(
            impl Registered for $ty {
                fn of(s: &Service) -> Option<&Self> {
                    match s {
                        Service::$variant(x) => Some(x),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
                fn of_mut(s: &mut Service) -> Option<&mut Self> {
                    match s {
                        Service::$variant(x) => Some(x),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*

        /// Every registered service's declaration, in registration order.
        pub const SERVICES: &[&Mechanism] = &[$(&<$ty as ServiceKind>::MECHANISM,)*];

        impl Service {
            /// The services the model asks for, in registration order.
            fn all_from(model: &Model, vcs: &crate::net::VcTable, trace: bool) -> Vec<Service> {
                let mut out = Vec::new();
                $(
                    if let Some(s) = <$ty as ServiceKind>::from_model(model, vcs, trace) {
                        out.push(Service::$variant(Box::new(s)));
                    }
                )*
                out
            }

            fn takes(&self) -> Takes {
                match self { $(Service::$variant(s) => s.takes(),)* }
            }

            fn in_flight(&self) -> [u64; 4] {
                match self { $(Service::$variant(s) => s.in_flight(),)* }
            }

            fn units_dropped(&self) -> u64 {
                match self { $(Service::$variant(s) => s.units_dropped(),)* }
            }

            fn balanced(&self) -> bool {
                match self { $(Service::$variant(s) => s.balanced(),)* }
            }

            fn summary_block(&self) -> Option<(&'static str, serde_json::Value)> {
                match self { $(Service::$variant(s) => s.summary_block().map(|b| (<$ty as ServiceKind>::MECHANISM.name, b)),)* }
            }
        }

        impl World {
            /// Hook: a segment is cut into a frame of `ncells` cells at its
            /// source; returns the frame's cells (Boston's pieces may change them).
            #[inline(never)]
            pub(super) fn cut_frame(&mut self, vc: VcId, seg: &FrameHeader, first_transmission: bool, ncells: u32) -> u32 {
                let mut ncells = ncells;
                for i in 0..self.services.list.len() {
                    ncells = match &self.services.list[i] {
                        $(Service::$variant(_) => <$ty as ServiceKind>::cut_frame(self, i, vc, seg, first_transmission, ncells),)*
                    };
                }
                ncells
            }

            /// Hook: the frame of `seg` (its first unit `first`) would enter
            /// its first port: the first service that keeps it says what
            /// became of it.
            #[inline(never)]
            pub(super) fn frame_leaves(&mut self, vc: VcId, seg: &FrameHeader, first_transmission: bool, first: Unit, ncells: u16) -> Leaves {
                for i in 0..self.services.list.len() {
                    let leaves = match &self.services.list[i] {
                        $(Service::$variant(_) => <$ty as ServiceKind>::frame_leaves(self, i, vc, seg, first_transmission, first, ncells),)*
                    };
                    if leaves != Leaves::Onward {
                        return leaves;
                    }
                }
                Leaves::Onward
            }
        }
    };
}

// The registry: every service, one line each, in the order their hooks run
// (a file of `services/` names its module first).
registry! {
    { Watch: Watch },
    { Boston: Boston },
    scripted { ScriptedDrops: scripted::ScriptedDrops },
    { Abr: AbrState },
    input_rr { InputRoundRobin: InputRoundRobin },
    occupancy { PortOccupancy: occupancy::PortOccupancy },
    fabric { Fabric: Fabric },
}

/// The services of a run and which hooks any of them takes (what the
/// per-unit path tests, one flag per hook).
#[derive(Default)]
pub(super) struct Services {
    list: Vec<Service>,
    pub takes: Takes,
    /// The fabric's place in the list (set whenever the list changes): it
    /// is reached several times a cell-hop, and a search of the list each
    /// time cost `fabric-perm` 0.6 % of its instructions (docs/performance.md,
    /// session 39).
    fabric_at: Option<usize>,
}

impl Services {
    /// The services the model asks for, in the order their hooks run.
    pub(super) fn new(model: &Model, vcs: &crate::net::VcTable, trace: bool) -> Self {
        let mut s = Services::default();
        for service in Service::all_from(model, vcs, trace) {
            s.add(service);
        }
        s
    }

    fn add(&mut self, service: Service) {
        self.takes = self.takes.or(service.takes());
        self.list.push(service);
        self.list_changed();
    }

    /// Every service that watches offers also sees units entering ports
    /// (the Watch and occupancy services, and captures): the per-unit path
    /// tests `at_port` alone for both (`World::enter_other`).
    fn list_changed(&mut self) {
        assert!(!self.takes.watching || self.takes.at_port, "a service watching offers takes at_port too");
        self.fabric_at = self.list.iter().position(|s| matches!(s, Service::Fabric(_)));
    }

    /// The registered service of type `T`, if the run has it.
    pub(super) fn get<T: Registered>(&self) -> Option<&T> {
        self.list.iter().find_map(T::of)
    }
    pub(super) fn get_mut<T: Registered>(&mut self) -> Option<&mut T> {
        self.list.iter_mut().find_map(T::of_mut)
    }
    /// The service at place `me` of the list, which its hooks are told.
    pub(super) fn at_mut<T: Registered>(&mut self, me: usize) -> &mut T {
        T::of_mut(&mut self.list[me]).expect("a hook is told its own place")
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
        self.list_changed();
        self.takes.at_source = true;
        // Or'd: another service (occupancy percentiles) may watch offers too.
        self.takes.watching |= log || watches_ports;
        self.takes.at_port |= self.takes.watching;
    }

    pub(super) fn abr(&self) -> Option<&AbrState> {
        self.get()
    }
    pub(super) fn abr_mut(&mut self) -> Option<&mut AbrState> {
        self.get_mut()
    }
    pub(super) fn boston_mut(&mut self) -> Option<&mut Boston> {
        self.get_mut()
    }
    pub(super) fn input_rr_mut(&mut self) -> Option<&mut InputRoundRobin> {
        self.get_mut()
    }
    pub(super) fn fabric(&self) -> Option<&Fabric> {
        self.get()
    }
    #[inline]
    pub(super) fn fabric_mut(&mut self) -> Option<&mut Fabric> {
        Fabric::of_mut(&mut self.list[self.fabric_at?])
    }
    pub(super) fn watch(&self) -> Option<&Watch> {
        self.get()
    }
    pub(super) fn capture_mut(&mut self) -> Option<&mut Capture> {
        self.get_mut::<Watch>().and_then(|w| w.capture.as_deref_mut())
    }
    pub(super) fn log_port(&self) -> Option<PortId> {
        self.watch().and_then(|w| w.log_port)
    }

    /// The services' terms of the accounting identity: (cells sent,
    /// delivered, dropped, in flight) that no VC's ledger or port holds.
    pub(super) fn in_flight(&self) -> [u64; 4] {
        let mut terms = [0; 4];
        for s in &self.list {
            for (t, x) in terms.iter_mut().zip(s.in_flight()) {
                *t += x;
            }
        }
        terms
    }

    /// Units the services dropped outside ports.
    pub(super) fn units_dropped(&self) -> u64 {
        self.list.iter().map(Service::units_dropped).sum()
    }

    /// Every service's own books balance.
    pub(super) fn balanced(&self) -> bool {
        self.list.iter().all(Service::balanced)
    }
}

impl World {
    /// Hook: `unit` is about to be offered to port `p`.
    #[inline(never)]
    pub(super) fn entering_port(&mut self, p: PortId, unit: &Unit) {
        if self.services.takes.relative_rate {
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
        if self.services.takes.watching {
            let (ports, now) = (&self.ports, self.now);
            if let Some(occupancy) = self.services.get_mut::<occupancy::PortOccupancy>() {
                occupancy.offered(p, &ports[p.ix()], now, &offer);
            }
            if self.services.watch().is_some() {
                self.watch_offer(p, unit, offer);
            }
        }
    }

    /// Hook: a per-VC or priority port's transmission of `unit` ended at `t`.
    #[inline(never)]
    pub(super) fn departed(&mut self, p: PortId, t: Time, unit: &Unit) {
        if self.services.takes.watching {
            self.watch_depart(p, t, unit);
        }
    }

    /// Hook: `unit` left link `from` into a switch, bound for port `next`;
    /// true if it enters `next` now.
    #[inline(never)]
    pub(super) fn at_switch(&mut self, from: PortId, next: PortId, unit: Unit) -> bool {
        if self.services.fabric_mut().is_some() {
            self.fabric_ingress(from, next, unit);
            return false;
        }
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
        summary.services = self.services.list.iter().filter_map(Service::summary_block).collect();
        if let Some(occupancy) = self.services.get_mut::<occupancy::PortOccupancy>() {
            occupancy.fill(horizon, &mut summary.ports);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::World;

    /// Turning captures on puts the Watch service first in the list: the
    /// fabric, found by its kept place, is still found, and the run is the
    /// same but for the captures.
    #[test]
    fn the_fabric_is_found_after_captures_move_the_list() {
        let text = include_str!("../../../../python/atmsim/scenarios/fabric-incast.toml");
        let run = |capture: bool| {
            let sets = vec!["duration=20us".to_string()];
            let m = crate::scenario::validate(&crate::scenario::parse(text, &sets).unwrap(), None).unwrap();
            let mut w = World::new(m, false);
            if capture {
                w.enable_capture().unwrap();
            }
            assert!(w.services.fabric_mut().is_some(), "capture {capture}");
            w.run();
            let (s, _) = w.finish();
            let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
            v["fabric"].clone()
        };
        let (plain, captured) = (run(false), run(true));
        assert!(plain["cells_made"]["data"].as_u64().unwrap() > 0);
        assert_eq!(plain, captured);
    }
}
