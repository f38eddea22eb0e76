//! The per-unit path, the hot path of every run: a unit leaves a pipe, is
//! offered to the next port of its VC's route, or, at the end of the route,
//! goes through AAL5 reassembly to its destination.

use super::service::Leaves;
use super::World;
use crate::atm::aal5::Verdict;
use crate::engine::{Event, PortEvent};
use crate::ledger::{Fate, Loss};
use crate::net::drop::DropReason;
use crate::net::port::{LazyNicOffer, Offer};
use crate::net::route::{ends_route, ESCAPE, STEP};
use crate::net::{EqdsKind, FrameHeader, Limit, NdpKind, NodeId, PortId, Unit, VcId, CELL_BYTES};
use crate::time::{secs, Time};
use crate::trace::{EventKind, PortChange};

impl World {
    /// Inlined into the event loop (`World::run_observed`), of whose
    /// events it is nearly all: its frame's saving and restoring of
    /// registers went with the call (ndp-in-out 0.2 s 405.9 -> 396.1 M
    /// instructions, eqds-incast-128 697.9 -> 685.4 M, topology 1 3 s
    /// 426.9 -> 425.6 M, fabric-perm 50 us 1,376.3 -> 1,380.1 M).
    #[inline(always)]
    pub(super) fn pipe_head(&mut self, p: PortId) {
        let port = &mut self.ports[p.ix()];
        let unit = port.pop_pipe();
        let far_exits = port.far_exits;
        if let Some(next) = port.pipe.front() {
            self.sched.schedule(next.arrive_at, Event::Port(PortEvent::PipeHead(p)));
        }
        self.unit_hops += 1;
        // The unit's own code names its next port among the far node's
        // exits (`net/route.rs`): no table of every route is read per hop.
        let next_port = self.vcs.exits().exit(far_exits + (unit.route & STEP));
        let (next_port, unit) = if next_port.0 < ESCAPE.0 {
            (next_port, unit)
        } else if ends_route(next_port, unit.route) {
            return self.receive(p, unit);
        } else {
            let (next_port, route) = self.vcs.exits().escaped(unit.route);
            (next_port, unit.on_route(route))
        };
        if !self.services.takes.at_switch || self.at_switch(p, next_port, unit) {
            self.enter(next_port, unit)
        }
    }

    /// The slot of a round-robin switch ends: its input ports' cells enter
    /// their output ports in round-robin order of inputs.
    pub(super) fn input_slot(&mut self, node: NodeId) {
        let rr = self.services.input_rr_mut().expect("input slots only with round-robin input service");
        rr.drain(node);
        let mut order = std::mem::take(&mut rr.order);
        for &(p, unit) in &order {
            self.enter(p, unit);
        }
        order.clear();
        self.services.input_rr_mut().expect("still there").order = order;
    }

    /// Offers a unit to a port; schedules the pipe if it was idle. Inlined
    /// into every caller (`pipe_head` above all): the FIFO's arm in the
    /// caller's frame, every other port one call away (`enter_other`).
    /// One call less per unit-hop: topology 1 (3 s) 434.3 M -> 419.5 M
    /// instructions, 3 % less CPU (20 s, pinned, interleaved).
    #[inline(always)]
    pub(super) fn enter(&mut self, p: PortId, unit: Unit) {
        // The common case: a plain FIFO port, no service at ports.
        if !self.services.takes.at_port && self.ports[p.ix()].is_plain_fifo() {
            match self.ports[p.ix()].offer_fifo(self.now, &unit) {
                Ok((arrive_at, pipe_was_empty)) => self.accepted(p, &unit, 1, arrive_at, pipe_was_empty),
                Err(_) => self.unit_dropped(unit),
            }
            return;
        }
        self.enter_other(p, unit);
    }

    /// [`World::enter`] at any port but a plain FIFO: a trimming port's
    /// common arrivals (NDP: a data packet that fits, a header with no
    /// data waiting) here, and the rest in [`World::enter_general`].
    /// Inlined, with the trimming port's whole arrival
    /// ([`Port::offer_trim_plain`]): `ndp-in-out` (0.2 s) 500.0 M -> 466.0 M
    /// instructions, topology 1 (3 s) 451.3 M -> 453.5 M. (Looking the port
    /// up once for both arms instead gave 486.8 M: the compiler's choices
    /// of registers, not the lookups, decide.)
    /// A run that watches offers takes `at_port` too (`Services`): one
    /// flag tested, not two (with a trimming port's one peak update a
    /// packet, `Port::append_placed`: ndp-in-out 0.2 s 340.30 -> 335.43 M).
    #[inline(always)]
    fn enter_other(&mut self, p: PortId, unit: Unit) {
        if !self.services.takes.at_port {
            if let Some((arrive_at, pipe_was_empty)) = self.ports[p.ix()].offer_trim_plain(self.now, &unit) {
                return self.accepted(p, &unit, 1, arrive_at, pipe_was_empty);
            }
        }
        self.enter_general(p, unit);
    }

    /// [`World::enter`] for every other port or run: per-VC and priority
    /// disciplines, evicting policies, services at ports (ABR, a watched
    /// port). Out of line, so that the common case's function stays small.
    #[inline(never)]
    fn enter_general(&mut self, p: PortId, unit: Unit) {
        if self.services.takes.at_port {
            self.entering_port(p, &unit);
        }
        let offer = self.ports[p.ix()].offer(self.now, &unit);
        if self.services.takes.watching {
            self.offered(p, &unit, offer);
        }
        match offer {
            Offer::Accepted { arrive_at, pipe_was_empty } => self.accepted(p, &unit, 1, arrive_at, pipe_was_empty),
            Offer::Queued(started) => {
                if let Some(st) = started {
                    self.started(p, st);
                }
            }
            Offer::Dropped(_) => self.unit_dropped(unit),
            Offer::PushedOut { victim, .. } => self.pushed_out(p, unit, victim),
            Offer::Placed { appended, dropped } => {
                if let Some((arrive_at, pipe_was_empty)) = appended {
                    self.accepted(p, &unit, 1, arrive_at, pipe_was_empty);
                }
                if let Some(d) = dropped {
                    self.unit_dropped(d);
                }
            }
            Offer::Trimmed { started, dropped } => {
                if let Some(st) = started {
                    self.started(p, st);
                }
                if let Some(d) = dropped {
                    self.unit_dropped(d);
                }
            }
        }
    }

    /// Offers a unit to the first port of `vc`'s route, placed on it.
    pub(super) fn enter_route(&mut self, vc: VcId, unit: Unit) {
        let (first, route) = self.vcs.route_start(vc, 0);
        self.enter(first, unit.on_route(route));
    }

    /// Offers the units of a frame, in order, to the first port of its
    /// route: at a port that takes whole frames (a host adapter), at once.
    /// Inlined into `segment_onto_link`, its one caller (out of line, its
    /// call cost eqds-incast-128 1.6 % more instructions).
    #[inline(always)]
    fn enter_frame(&mut self, p: PortId, first: Unit, ncells: u16) {
        // A packet sent by a host with a lazy NIC (NDP's and EQDS's hosts),
        // decided here, out of the pipe head's path, whose code it would
        // crowd (`enter_other`: eqds-incast-128 +1.4 % instructions there).
        if ncells == 1 && !self.services.takes.at_port {
            match self.ports[p.ix()].offer_lazy_nic(self.now, &first) {
                LazyNicOffer::OnTheLine { arrive_at, pipe_was_empty } => return self.accepted(p, &first, 1, arrive_at, pipe_was_empty),
                LazyNicOffer::Waits => return,
                LazyNicOffer::Other => {}
            }
        }
        let port = &mut self.ports[p.ix()];
        if self.services.takes.at_port || !port.takes_whole_frames() {
            for index in 0..ncells {
                self.enter(p, first.with_index(index, ncells));
            }
            return;
        }
        let (arrive_at, pipe_was_empty) = port.accept_frame(self.now, first, ncells);
        self.accepted(p, &first, ncells as u64, arrive_at, pipe_was_empty);
    }

    /// A FIFO port accepted `units` units of `unit`'s frame (the first
    /// reaches the far node at `arrive_at`).
    #[inline(always)]
    fn accepted(&mut self, p: PortId, unit: &Unit, units: u64, arrive_at: Time, pipe_was_empty: bool) {
        if self.doomed[unit.vc.ix()] == unit.frame {
            self.ports[p.ix()].stats.dead_units += units;
        }
        if pipe_was_empty {
            self.sched.schedule(arrive_at, Event::Port(PortEvent::PipeHead(p)));
        }
    }

    /// A random-drop port accepted `unit` by evicting `victim`.
    #[cold]
    fn pushed_out(&mut self, p: PortId, unit: Unit, victim: Unit) {
        if self.doomed[unit.vc.ix()] == unit.frame {
            self.ports[p.ix()].stats.dead_units += 1;
        }
        self.unit_dropped(victim);
    }

    pub(super) fn unit_dropped(&mut self, unit: Unit) {
        if unit.is_frameless() {
            self.services.abr_mut().expect("RM and VBR cells only on ABR runs").frameless_dropped(&unit);
            return;
        }
        let vc = unit.vc.ix();
        // `Some`: this was the frame's last cell on its way, all are dropped.
        let lost = self.ledgers[vc].cell_dropped(unit.frame);
        // A lost EOM merges the next frame into this one at the receiver if
        // some cell is there to merge with: that frame is doomed from its
        // first cell (`MergeWatch`).
        self.doomed[vc] =
            if self.atm { self.merges[vc].dropped(unit.frame, unit.is_eom(), lost.is_some(), self.doomed[vc]) } else { unit.frame };
        if let Some(loss) = lost {
            self.record_loss(unit.vc, loss);
        }
    }

    pub(super) fn record_loss(&mut self, vc: VcId, loss: Loss) {
        let v = self.vcs.get(vc);
        if v.carries_payload() {
            let f = v.flow;
            self.flows[f.ix()].losses.push(loss);
            if let Some(tr) = &mut self.traces {
                tr.event(secs(self.now), f.0, EventKind::Loss, loss.seq);
            }
        }
    }

    /// A frame the scenario drops (`ScriptedDrops`): every unit is dropped
    /// at `port`, the first of its route, and counted there.
    pub(super) fn scripted_drop(&mut self, port: PortId, first: Unit, ncells: u16) {
        for index in 0..ncells {
            let stats = &mut self.ports[port.ix()].stats;
            stats.units_in += 1;
            stats.dropped(DropReason::Scripted);
            self.unit_dropped(first.with_index(index, ncells));
        }
    }

    /// Cuts a segment into units (cells, or one packet) and offers them to
    /// the first port of the VC's route. Returns that port, unless the frame
    /// was dropped at its source (only a modelled host's adapter reads it).
    pub(super) fn segment_onto_link(&mut self, vc: VcId, seg: FrameHeader) -> Option<PortId> {
        let v = self.vcs.get(vc);
        let ip_len = seg.ip_len(v.header_bytes);
        // `ip.mtu` leaves room for TCP options within IPv4's 65535 bytes
        // (validated), so an IP length fits a unit.
        let (ncells, wire) = if self.atm { (self.model.encap.cells(ip_len), CELL_BYTES as u16) } else { (1, ip_len as u16) };
        // Only a TCP flow's segments carry its smoothed RTT: the flow's record
        // (a cache line missed on a large network) is read for them alone.
        let srtt = match (v.carries_payload(), &seg) {
            (true, FrameHeader::Tcp(_)) => match &self.flows[v.flow.ix()].endpoints {
                super::Endpoints::Tcp { sender, .. } => sender.srtt_exact,
                _ => 0,
            },
            _ => 0,
        };
        let (first_port, route) = self.vcs.route_start(vc, seg.path());
        // Read by the services at the source only: no header match or ledger
        // read for the packets of a run without them.
        let at_source = self.services.takes.at_source;
        let first_transmission = at_source && seg.payload_len() > 0 && seg.seq() >= self.ledgers[vc.ix()].max_seq_sent;
        let ncells = if at_source { self.cut_frame(vc, &seg, first_transmission, ncells) } else { ncells };
        let frame = self.ledgers[vc.ix()].push(seg, ncells as u16, self.now, srtt);
        if self.eager_nics_defer {
            // A host's NIC is the first port of every route from it.
            self.nic_arrival(first_port);
        }
        let ncells = ncells as u16;
        let first = Unit::new(vc, frame, 0, ncells, wire).on_route(route);
        let leaves = if at_source { self.frame_leaves(vc, &seg, first_transmission, first, ncells) } else { Leaves::Onward };
        match leaves {
            // ECT(0) from the sender (RFC 3168 §6.1.2) rides on the unit,
            // where a router's policy sees it. Only packet networks send ECT,
            // so the frame is one unit, offered as `enter_frame` would
            // (`accept_frame` is tested equal to offering units one by one);
            // the cells of other frames keep marks the compiler knows to be
            // 0, and cutting them costs no more than before ECN.
            Leaves::Onward if !self.atm && seg.is_ect() => {
                debug_assert_eq!(ncells, 1, "ECT only on packet networks");
                self.enter(first_port, first.ecn_capable());
            }
            Leaves::Onward => self.enter_frame(first_port, first, ncells),
            Leaves::Queued => {}
            Leaves::Dropped => return None,
        }
        Some(first_port)
    }

    /// A unit reached the end of its route, leaving the pipe of `last`,
    /// its route's last port: a packet reaching an ideal host in
    /// [`World::receive_packet`], a cell or a unit reaching a modelled host
    /// in [`World::receive_general`]. Inlined into the pipe head, so that
    /// either costs one call.
    #[inline(always)]
    fn receive(&mut self, last: PortId, unit: Unit) {
        if self.atm || self.model.host.is_some() {
            self.receive_general(last, unit)
        } else {
            self.receive_packet(last, unit)
        }
    }

    /// A packet reached an ideal host, its frame's arrival in line: one
    /// frame set up, not two (ndp-in-out 0.2 s 329.38 -> 327.84 M
    /// instructions, eqds-incast-128 631.95 -> 629.49 M).
    #[inline(never)]
    fn receive_packet(&mut self, last: PortId, unit: Unit) {
        debug_assert!(!unit.is_frameless(), "RM and VBR cells only on ATM");
        self.ledgers[unit.vc.ix()].packet_arrived();
        self.forwarded(last, unit.vc, self.now);
        self.frame_arrives(unit);
    }

    /// [`World::receive`] of a cell, or of a unit at a modelled host.
    #[inline(never)]
    fn receive_general(&mut self, last: PortId, unit: Unit) {
        if unit.is_frameless() {
            return self.abr_frameless_arrives(&unit);
        }
        let vc = unit.vc.ix();
        if self.atm {
            self.ledgers[vc].cell_arrived(unit.frame);
        } else {
            self.ledgers[vc].packet_arrived();
        }
        // Credit for the last link: an ideal host consumes the cell at once;
        // a modelled host's adapter moves cells to host memory at the host's
        // rate, and credits them as they go (Morris & Kung 1995, setup).
        let consumed = match self.model.host {
            None => self.now,
            Some(_) => {
                let dst = self.vcs.get(unit.vc).dst;
                self.hosts[dst.ix()].pipe.as_mut().map_or(self.now, |p| p.consume_cell(self.now))
            }
        };
        self.forwarded(last, unit.vc, consumed);
        if self.atm {
            if self.services.takes.at_destination && self.at_destination(&unit) {
                return;
            }
            match self.reassembly[vc].on_cell(&unit) {
                Verdict::Pending => return,
                Verdict::Deliver => {}
                Verdict::Discard { first, last } => {
                    let mut lost = Vec::new();
                    self.ledgers[vc].discard_range(first, last, |l| lost.push(l));
                    for l in lost {
                        self.record_loss(unit.vc, l);
                    }
                    return;
                }
            }
        }
        self.frame_arrived(unit);
    }

    /// The last unit of an intact frame arrived: its segment goes to the
    /// receiving transport. Once per frame, so out of line: on ATM the
    /// per-cell path above stays small (every cell's event runs it inline).
    #[inline(never)]
    fn frame_arrived(&mut self, unit: Unit) {
        self.frame_arrives(unit);
    }

    /// [`World::frame_arrived`], in line where a packet reaches an ideal
    /// host ([`World::receive_packet`]).
    #[inline(always)]
    fn frame_arrives(&mut self, unit: Unit) {
        // The ledger is borrowed once for the header and the fate: its
        // record is found once.
        let ledger = &mut self.ledgers[unit.vc.ix()];
        let mut seg = ledger.open_header(unit.frame);
        if unit.is_congested() && !self.atm {
            // A router marked the packet CE (RFC 3168 §5): its receiver sees
            // the IP header's mark. (On ATM the mark is a cell's EFCI.)
            seg = seg.congestion_experienced();
        }
        // Only a data packet can have been trimmed: the control packets
        // (NDP's ACKs, NACKs and PULLs, most frames received) skip the call.
        let fate = match &seg {
            FrameHeader::Ndp(n) if n.kind == NdpKind::Data => trimmed_on_the_way(&unit, self.vcs.get(unit.vc).header_bytes, &mut seg),
            FrameHeader::Eqds(e) if e.kind == EqdsKind::Data => trimmed_on_the_way(&unit, self.vcs.get(unit.vc).header_bytes, &mut seg),
            _ => Fate::Delivered,
        };
        ledger.resolve(unit.frame, fate);
        self.deliver(unit.vc, &seg);
    }

    /// Logs what `offer` did with a unit at the logged port.
    #[cold]
    pub(super) fn log_offer(&mut self, p: PortId, unit: &Unit, offer: Offer) {
        let now = self.now;
        match offer {
            Offer::Accepted { arrive_at, .. } => {
                self.log(now, unit, PortChange::Arrive);
                self.log(arrive_at - self.ports[p.ix()].delay, unit, PortChange::Depart);
            }
            Offer::Queued(_) | Offer::Trimmed { .. } | Offer::Placed { .. } => self.log(now, unit, PortChange::Arrive),
            Offer::Dropped(_) => self.log(now, unit, PortChange::Drop),
            // The port log does not follow evictions: the departures logged
            // for the units behind the victim are no longer true.
            Offer::PushedOut { .. } => self.log(now, unit, PortChange::Arrive),
        }
    }

    #[cold]
    pub(super) fn log(&mut self, t: Time, unit: &Unit, change: PortChange) {
        if let Some(tr) = &mut self.traces {
            tr.port.push(secs(t), unit.vc.0, unit.frame, unit.is_eom(), change);
        }
    }

    /// Samples every bounded port's occupancy into the queue trace (and
    /// the ABR sources and the fabric's devices into theirs).
    pub(super) fn sample_queues(&mut self) {
        let t = secs(self.now);
        if let Some(tr) = &mut self.traces {
            for (i, p) in self.ports.iter_mut().enumerate() {
                if p.limit != Limit::Unlimited {
                    let occ = p.occupancy(self.now);
                    tr.queue.t.push(t);
                    tr.queue.port.push(i as u32);
                    tr.queue.occupancy.push(occ);
                }
            }
        }
        if let (Some(abr), Some(tr)) = (self.services.abr(), self.traces.as_mut()) {
            abr.sample(t, &self.vcs, &mut tr.abr);
        }
        self.sample_fabric(t);
        self.sched.schedule(self.now + self.model.trace_interval, Event::TraceSample);
    }
}

/// A data packet of NDP or EQDS trimmed on the way arrives as its header
/// alone (NDP N2, EQDS E8): its frame's fate, and its header marked so.
/// Out of line: the cells of every other frame do not carry this code.
/// (Called for data packets only; the kinds are tested again here so that
/// it stands alone.)
#[inline(never)]
fn trimmed_on_the_way(unit: &Unit, header_bytes: u32, seg: &mut FrameHeader) -> Fate {
    let header_only = unit.wire_bytes as u32 == header_bytes;
    match seg {
        FrameHeader::Ndp(n) if n.kind == NdpKind::Data && header_only => n.kind = NdpKind::Trimmed,
        // An EQDS RTS is a header already.
        FrameHeader::Eqds(e) if e.kind == EqdsKind::Data && header_only => e.kind = EqdsKind::Trimmed,
        _ => return Fate::Delivered,
    }
    Fate::Trimmed
}
