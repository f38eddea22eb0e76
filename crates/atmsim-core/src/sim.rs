//! The world: ports, routes, hosts and TCP connections wired together, and
//! the event loop that runs them.
//!
//! A unit's life (ARCHITECTURE.md): a TCP segment is cut into cells (or one
//! packet) at the sending host and each unit is offered to the first port of
//! its VC's route. A port either drops it or queues it and puts it in its
//! pipe with the time it reaches the far node. When a pipe's head is due,
//! the unit moves to the next port of the route, or, at the last hop, into
//! the destination's AAL5 reassembly and then TCP.

use crate::atm::aal5::{Reassembler, Verdict};
use crate::engine::{Event, Scheduler};
use crate::host::HostPipeline;
use crate::ledger::{Fate, Ledger, Loss};
use crate::net::pervc::{Credit, PerVc};
use crate::net::port::{CreditCell, Offer, Started};
use crate::net::{FlowId, HostId, Limit, Port, PortId, Route, Segment, Unit, VcId};
use crate::scenario::{App, CreditTransport, Model, Network, SeedUse, FAST_TICK, UDP_HEADER_BYTES};
use crate::stats::{jain_fairness, loss_episodes};
use crate::summary::{Accounting, FlowSummary, HostSummary, PortSummary, Summary};
use crate::time::{secs, Serializer, Time};
use crate::trace::{EventKind, PortChange, Traces};
use crate::transport::tcp::{Reply, SenderEvent, SenderState, TcpReceiver, TcpSender};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// No frame is known to be doomed on the VC.
const NONE: u32 = u32::MAX;

struct Connection {
    sender: TcpSender,
    receiver: TcpReceiver,
    bytes: Option<u64>,
    completed_at: Option<Time>,
    /// A constant-rate (UDP) source instead of TCP: its clock and counters.
    cbr: Option<Cbr>,
}

/// A datagram source: constant rate (`clock`), or scripted (`script`, the
/// absolute send times, consumed from `next_at`).
struct Cbr {
    payload: u32,
    clock: Option<Serializer>,
    script: Vec<Time>,
    next_at: usize,
    next_seq: u64,
    bytes_sent: u64,
    datagrams_sent: u64,
    bytes_delivered: u64,
}

struct Host {
    senders: Vec<FlowId>,
    receivers: Vec<FlowId>,
    /// The Morris & Kung host/adapter pipeline, if the scenario models hosts.
    pipe: Option<HostPipeline>,
}

pub struct Simulation {
    model: Model,
    atm: bool,
    sched: Scheduler,
    now: Time,
    ports: Vec<Port>,
    /// VC 2f carries flow f's data, VC 2f+1 its ACKs.
    routes: Vec<Route>,
    /// Per port, the port of the same link in the other direction.
    reverse: Vec<PortId>,
    ledgers: Vec<Ledger>,
    reassembly: Vec<Reassembler>,
    /// Per VC: the frame known to be doomed (a cell dropped, or merged with
    /// a frame whose EOM was dropped), for dead-cell counts.
    doomed: Vec<u32>,
    conns: Vec<Connection>,
    hosts: Vec<Host>,
    losses: Vec<Vec<Loss>>,
    seg_buf: Vec<Segment>,
    traces: Option<Traces>,
    /// The port whose changes are logged (`trace.port`, traces on).
    log_port: Option<PortId>,
    unfinished: usize,
    unit_hops: u64,
    wall_s: f64,
}

fn data_vc(f: FlowId) -> VcId {
    VcId(2 * f.0)
}
fn ack_vc(f: FlowId) -> VcId {
    VcId(2 * f.0 + 1)
}

impl Simulation {
    pub fn new(model: Model, trace: bool) -> Self {
        let num_vcs = 2 * model.flows.len();
        let ports: Vec<Port> = model
            .ports
            .iter()
            .map(|p| {
                let mut port = Port::new(p.name.clone(), p.from, p.to, p.rate, p.delay, p.limit, p.policy, num_vcs);
                if p.per_vc {
                    let credit = p.credit.map(|(buf, n2)| Credit::new(num_vcs, buf, n2));
                    port.per_vc = Some(PerVc::new(num_vcs, credit));
                }
                port
            })
            .collect();
        let host_of: Vec<Option<HostId>> = {
            let mut n = 0;
            model
                .is_host
                .iter()
                .map(|&h| {
                    h.then(|| {
                        n += 1;
                        HostId(n - 1)
                    })
                })
                .collect()
        };
        let mut hosts: Vec<Host> = (0..model.is_host.iter().filter(|&&h| h).count())
            .map(|_| Host { senders: Vec::new(), receivers: Vec::new(), pipe: model.host.as_ref().map(HostPipeline::new) })
            .collect();
        let mut routes = Vec::with_capacity(num_vcs);
        let mut conns = Vec::new();
        for (i, f) in model.flows.iter().enumerate() {
            let fid = FlowId(i as u32);
            let src = host_of[f.src.ix()].expect("validated: src is a host");
            let dst = host_of[f.dst.ix()].expect("validated: dst is a host");
            let header_bytes = match f.app {
                App::Tcp => model.header_bytes,
                App::Cbr { .. } => UDP_HEADER_BYTES,
            };
            routes.push(Route { ports: f.data_route.clone(), dst, flow: fid, is_data: true, header_bytes });
            routes.push(Route { ports: f.ack_route.clone(), dst: src, flow: fid, is_data: false, header_bytes: model.header_bytes });
            let cbr = match f.app {
                App::Tcp => {
                    hosts[src.ix()].senders.push(fid);
                    hosts[dst.ix()].receivers.push(fid);
                    None
                }
                App::Cbr { payload, rate } => Some(Cbr {
                    payload,
                    clock: rate.map(Serializer::new),
                    script: f.send_at.iter().map(|&t| f.start + t).collect(),
                    next_at: 0,
                    next_seq: 1,
                    bytes_sent: 0,
                    datagrams_sent: 0,
                    bytes_delivered: 0,
                }),
            };
            conns.push(Connection {
                cbr,
                sender: TcpSender::new(&model.tcp, f.bytes),
                receiver: TcpReceiver::new(model.tcp.rcv_buf.min(u32::MAX as u64) as u32, model.tcp.mss as u64, model.tcp.delayed_ack),
                bytes: f.bytes,
                completed_at: None,
            });
        }
        let mut sched = Scheduler::default();
        for (i, f) in model.flows.iter().enumerate() {
            let ev = match f.app {
                App::Tcp => Event::FlowStart(FlowId(i as u32)),
                App::Cbr { .. } => Event::CbrSend(FlowId(i as u32)),
            };
            let first = f.send_at.first().map_or(f.start, |&t| f.start + t);
            sched.schedule(first, ev);
        }
        // The seed draws each host's timer phase and nothing else (tcp.md §1.1).
        let mut rng = ChaCha8Rng::seed_from_u64(model.seed);
        for (h, host) in hosts.iter().enumerate() {
            let phase = match model.seed_use {
                SeedUse::TimerPhase => rng.gen_range(0..model.tick),
                SeedUse::Nothing => 0,
            };
            if !host.senders.is_empty() {
                sched.schedule(phase, Event::SlowTick(HostId(h as u32)));
            }
            if model.tcp.delayed_ack && !host.receivers.is_empty() {
                sched.schedule(phase % FAST_TICK, Event::FastTick(HostId(h as u32)));
            }
        }
        if trace {
            sched.schedule(0, Event::TraceSample);
        }
        let unfinished = conns.iter().filter(|c| c.bytes.is_some()).count();
        let bounded_all = unfinished == conns.len();
        Simulation {
            atm: model.network == Network::Atm,
            sched,
            now: 0,
            ports,
            ledgers: vec![Ledger::default(); num_vcs],
            reassembly: vec![Reassembler::default(); num_vcs],
            doomed: vec![NONE; num_vcs],
            losses: vec![Vec::new(); conns.len()],
            conns,
            hosts,
            routes,
            reverse: model
                .ports
                .iter()
                .map(|p| {
                    let r = model.ports.iter().position(|q| q.from == p.to && q.to == p.from);
                    PortId(r.expect("links are full duplex") as u32)
                })
                .collect(),
            seg_buf: Vec::with_capacity(64),
            traces: trace.then(Traces::default),
            log_port: if trace { model.trace_port } else { None },
            unfinished: if bounded_all { unfinished } else { usize::MAX },
            unit_hops: 0,
            wall_s: 0.0,
            model,
        }
    }

    /// Runs until the scenario's duration, or until every finite transfer
    /// has been delivered.
    pub fn run(&mut self) {
        let started = Instant::now();
        while let Some((t, ev)) = self.sched.pop_until(self.model.duration) {
            self.now = t;
            match ev {
                Event::PipeHead(p) => self.pipe_head(p),
                Event::PortFree(p) => {
                    if let Some(done) = self.ports[p.ix()].finish_tx(t) {
                        if self.log_port == Some(p) {
                            self.log(t, &done, PortChange::Depart);
                        }
                        if done.hop > 0 {
                            let upstream = self.routes[done.vc.ix()].ports[done.hop as usize - 1];
                            self.forwarded(upstream, done.vc, t);
                        } else if done.is_eom() && self.model.host.is_some() {
                            // The packet has left the sending host's adapter.
                            let h = self.routes[done.vc.ix() ^ 1].dst;
                            self.adapter_free(h);
                        }
                    }
                    if let Some(st) = self.ports[p.ix()].start_next(t) {
                        self.started(p, st);
                    }
                }
                Event::CreditEmit { link, vc, fwd } => self.emit_credit(link, vc, fwd),
                Event::Credit { port, vc, fwd } => {
                    if let Some(st) = self.ports[port.ix()].on_credit(t, vc.ix(), fwd) {
                        self.started(port, st);
                    }
                }
                Event::SlowTick(h) => self.slow_tick(h),
                Event::FastTick(h) => self.fast_tick(h),
                Event::FlowStart(f) => {
                    let mut out = std::mem::take(&mut self.seg_buf);
                    self.conns[f.ix()].sender.open(t, &mut out);
                    self.after_sender(f, None, out);
                }
                Event::TraceSample => self.sample_queues(),
                Event::CbrSend(f) => self.cbr_send(f),
                Event::AdapterLoaded(h) => {
                    let (vc, seg) = self.hosts[h.ix()].pipe.as_mut().expect("host model").loaded(t);
                    if let Some(eom_leaves) = self.segment_onto_link(vc, seg) {
                        self.sched.schedule(eom_leaves, Event::AdapterFree(h));
                    }
                }
                Event::AdapterFree(h) => self.adapter_free(h),
                Event::HostDeliver(h) => {
                    let ((vc, seg), next) = self.hosts[h.ix()].pipe.as_mut().expect("host model").deliver();
                    if let Some(at) = next {
                        self.sched.schedule(at, Event::HostDeliver(h));
                    }
                    self.deliver_to_tcp(vc, seg);
                }
            }
            if self.unfinished == 0 {
                break;
            }
        }
        if self.unfinished != 0 {
            self.now = self.model.duration;
        }
        self.wall_s = started.elapsed().as_secs_f64();
    }

    #[inline]
    fn pipe_head(&mut self, p: PortId) {
        let port = &mut self.ports[p.ix()];
        let inflight = port.pipe.pop_front().expect("a pipe event has a unit");
        if let Some(next) = port.pipe.front() {
            self.sched.schedule(next.arrive_at, Event::PipeHead(p));
        }
        self.unit_hops += 1;
        let mut unit = inflight.unit;
        unit.hop += 1;
        let route = &self.routes[unit.vc.ix()];
        match route.ports.get(unit.hop as usize) {
            Some(&next_port) => self.enter(next_port, unit),
            None => self.receive(unit),
        }
    }

    /// Offers a unit to a port; schedules the pipe if it was idle.
    #[inline]
    fn enter(&mut self, p: PortId, unit: Unit) {
        let port = &mut self.ports[p.ix()];
        let offer = port.offer(self.now, &unit);
        if self.log_port == Some(p) {
            self.log_offer(p, &unit, offer);
        }
        let port = &mut self.ports[p.ix()];
        match offer {
            Offer::Accepted { arrive_at, pipe_was_empty } => {
                if self.doomed[unit.vc.ix()] == unit.frame {
                    port.stats.dead_units += 1;
                }
                if pipe_was_empty {
                    self.sched.schedule(arrive_at, Event::PipeHead(p));
                }
            }
            Offer::Queued(started) => {
                if let Some(st) = started {
                    self.started(p, st);
                }
            }
            Offer::Dropped(_) => self.unit_dropped(unit),
        }
    }

    /// Logs what `offer` did with a unit at the logged port.
    #[cold]
    fn log_offer(&mut self, p: PortId, unit: &Unit, offer: Offer) {
        let now = self.now;
        match offer {
            Offer::Accepted { arrive_at, .. } => {
                self.log(now, unit, PortChange::Arrive);
                self.log(arrive_at - self.ports[p.ix()].delay, unit, PortChange::Depart);
            }
            Offer::Queued(_) => self.log(now, unit, PortChange::Arrive),
            Offer::Dropped(_) => self.log(now, unit, PortChange::Drop),
        }
    }

    #[cold]
    fn log(&mut self, t: Time, unit: &Unit, change: PortChange) {
        if let Some(tr) = &mut self.traces {
            tr.port.push(secs(t), unit.vc.0, unit.frame, unit.is_eom(), change);
        }
    }

    fn unit_dropped(&mut self, unit: Unit) {
        let vc = unit.vc.ix();
        // A lost EOM merges the next frame into this one at the receiver:
        // that frame is doomed from its first cell.
        self.doomed[vc] = if self.atm && unit.is_eom() { unit.frame + 1 } else { unit.frame };
        if let Some(loss) = self.ledgers[vc].cell_dropped(unit.frame) {
            self.record_loss(unit.vc, loss);
        }
    }

    /// Is the data segment starting at `seq` one the scenario drops?
    fn scripted_drop(&self, f: FlowId, seq: u64) -> bool {
        let list = &self.model.flows[f.ix()].drop_segments;
        !list.is_empty() && list.binary_search(&((seq - 1) / self.model.tcp.mss as u64)).is_ok()
    }

    /// A per-VC port started a transmission: schedule the port's next
    /// departure (where a data cell's buffer slot is freed and credited),
    /// and the pipe, or the credit cell's arrival upstream.
    fn started(&mut self, p: PortId, st: Started) {
        match st {
            Started::Cell { unit, free_at, arrive_at, pipe_was_empty } => {
                if self.doomed[unit.vc.ix()] == unit.frame {
                    self.ports[p.ix()].stats.dead_units += 1;
                }
                self.sched.schedule(free_at, Event::PortFree(p));
                if pipe_was_empty {
                    self.sched.schedule(arrive_at, Event::PipeHead(p));
                }
            }
            Started::Credit { credit, free_at, arrive_at } => {
                self.sched.schedule(free_at, Event::PortFree(p));
                self.sched.schedule(arrive_at, Event::Credit { port: credit.link, vc: credit.vc, fwd: credit.fwd });
            }
        }
    }

    /// A cell of `vc` that crossed `link` leaves the receiver's buffer at
    /// `left` (now, or later for a host adapter that drains at a fixed
    /// rate, in order): the receiver counts it and, every N2 cells, sends a
    /// credit upstream after its processing delay (credit.md §2 rule 4, §3).
    fn forwarded(&mut self, link: PortId, vc: VcId, left: Time) {
        let port = &mut self.ports[link.ix()];
        let Some(credit) = port.per_vc.as_mut().and_then(|pv| pv.credit.as_mut()) else {
            return;
        };
        if let Some(fwd) = credit.forwarded(vc.ix()) {
            let ready = left + self.model.ports[link.ix()].credit_delay;
            match self.model.credit_transport {
                CreditTransport::OutOfBand => {
                    let at = ready + port.delay;
                    self.sched.schedule(at, Event::Credit { port: link, vc, fwd });
                }
                CreditTransport::InBand if ready == self.now => self.emit_credit(link, vc, fwd),
                CreditTransport::InBand => self.sched.schedule(ready, Event::CreditEmit { link, vc, fwd }),
            }
        }
    }

    /// An in-band credit cell for `link` queues at the reverse port.
    fn emit_credit(&mut self, link: PortId, vc: VcId, fwd: u64) {
        let rev = self.reverse[link.ix()];
        if let Some(st) = self.ports[rev.ix()].send_credit(self.now, CreditCell { link, vc, fwd }) {
            self.started(rev, st);
        }
    }

    fn record_loss(&mut self, vc: VcId, loss: Loss) {
        let route = &self.routes[vc.ix()];
        if route.is_data {
            let f = route.flow;
            self.losses[f.ix()].push(loss);
            if let Some(tr) = &mut self.traces {
                tr.event(secs(self.now), f.0, EventKind::Loss, loss.seq);
            }
        }
    }

    /// A unit reached the end of its route.
    fn receive(&mut self, unit: Unit) {
        let vc = unit.vc.ix();
        self.ledgers[vc].cell_arrived(unit.frame);
        // Credit for the last link: an ideal host consumes the cell at once;
        // a modelled host's adapter moves cells to host memory at the host's
        // rate, and credits them as they go (credit.md §4).
        let last = *self.routes[vc].ports.last().expect("routes are not empty");
        let dst = self.routes[vc].dst;
        let consumed = self.hosts[dst.ix()].pipe.as_mut().map_or(self.now, |p| p.consume_cell(self.now));
        self.forwarded(last, unit.vc, consumed);
        if self.atm {
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
        self.ledgers[vc].resolve(unit.frame, Fate::Delivered);
        self.deliver(unit.vc, unit.seg);
    }

    /// An intact packet reaches the destination host: to TCP at once, or
    /// after the adapter's bus transfer and the CPU when hosts are modelled.
    fn deliver(&mut self, vc: VcId, seg: Segment) {
        let h = self.routes[vc.ix()].dst;
        let ip_len = seg.len + self.routes[vc.ix()].header_bytes;
        match self.hosts[h.ix()].pipe.as_mut() {
            None => self.deliver_to_tcp(vc, seg),
            Some(pipe) => {
                let (at, head) = pipe.receive(self.now, vc, seg, ip_len);
                if head {
                    self.sched.schedule(at, Event::HostDeliver(h));
                }
            }
        }
    }

    fn deliver_to_tcp(&mut self, vc: VcId, seg: Segment) {
        let route = &self.routes[vc.ix()];
        let f = route.flow;
        if route.is_data {
            let conn = &mut self.conns[f.ix()];
            if let Some(cbr) = &mut conn.cbr {
                cbr.bytes_delivered += seg.len as u64;
                if conn.completed_at.is_none() && conn.bytes == Some(cbr.bytes_delivered) {
                    conn.completed_at = Some(self.now);
                    if self.unfinished != usize::MAX {
                        self.unfinished -= 1;
                    }
                }
                return;
            }
            let reply = conn.receiver.on_segment(&seg);
            if conn.completed_at.is_none() && conn.bytes.is_some_and(|b| conn.receiver.stats.bytes_delivered >= b) {
                conn.completed_at = Some(self.now);
                if self.unfinished != usize::MAX {
                    self.unfinished -= 1;
                }
            }
            if reply != Reply::Nothing {
                let ack = conn.receiver.make_ack(reply);
                self.transmit(ack_vc(f), ack);
            }
        } else {
            let mut out = std::mem::take(&mut self.seg_buf);
            let ev = self.conns[f.ix()].sender.on_ack(self.now, &seg, &mut out);
            self.after_sender(f, ev, out);
        }
    }

    /// Sends what the sender produced and records traces.
    fn after_sender(&mut self, f: FlowId, ev: Option<SenderEvent>, mut out: Vec<Segment>) {
        let t = secs(self.now);
        if let (Some(tr), Some(ev)) = (&mut self.traces, ev) {
            let kind = match ev {
                SenderEvent::Timeout => EventKind::Timeout,
                SenderEvent::FastRetransmit => EventKind::FastRetransmit,
            };
            tr.event(t, f.0, kind, self.conns[f.ix()].sender.snd_una);
        }
        for seg in out.drain(..) {
            if let Some(tr) = &mut self.traces {
                if seg.len > 0 {
                    let kind = if seg.seq < self.ledgers[data_vc(f).ix()].max_seq_sent {
                        EventKind::Retransmit
                    } else {
                        EventKind::Send
                    };
                    tr.event(t, f.0, kind, seg.seq);
                }
            }
            self.transmit(data_vc(f), seg);
        }
        self.seg_buf = out;
        if let Some(tr) = &mut self.traces {
            let s = &self.conns[f.ix()].sender;
            let w = &mut tr.window;
            w.t.push(t);
            w.flow.push(f.0);
            w.cwnd.push(s.cc.cwnd());
            w.ssthresh.push(s.cc.ssthresh());
            w.snd_wnd.push(s.send_window());
            w.unacked.push(s.unacked());
        }
    }

    /// A host sends a segment: straight onto the link, or through its CPU
    /// and one-packet adapter when hosts are modelled.
    fn transmit(&mut self, vc: VcId, seg: Segment) {
        let h = self.routes[vc.ix() ^ 1].dst;
        let ip_len = seg.len + self.routes[vc.ix()].header_bytes;
        match self.hosts[h.ix()].pipe.as_mut() {
            None => {
                self.segment_onto_link(vc, seg);
            }
            Some(pipe) => {
                pipe.submit(self.now, vc, seg, ip_len);
                if let Some(at) = pipe.load(self.now) {
                    self.sched.schedule(at, Event::AdapterLoaded(h));
                }
            }
        }
    }

    /// The transmit adapter is empty again: load the next processed packet.
    fn adapter_free(&mut self, h: HostId) {
        let pipe = self.hosts[h.ix()].pipe.as_mut().expect("host model");
        pipe.adapter_busy = false;
        if let Some(at) = pipe.load(self.now) {
            self.sched.schedule(at, Event::AdapterLoaded(h));
        }
    }

    /// Segments a TCP segment into units and offers them to the first port.
    /// Returns when the last unit leaves that port, if the port knows it
    /// already (FIFO); a per-VC port reports it with its `PortFree` event.
    fn segment_onto_link(&mut self, vc: VcId, seg: Segment) -> Option<Time> {
        let route = &self.routes[vc.ix()];
        let ip_len = seg.len + route.header_bytes;
        let (ncells, wire) = if self.atm { (self.model.encap.cells(ip_len), 53) } else { (1, ip_len) };
        let srtt = if route.is_data { self.conns[route.flow.ix()].sender.srtt_exact } else { 0 };
        let first_port = route.ports[0];
        let first_transmission = seg.len > 0 && seg.seq >= self.ledgers[vc.ix()].max_seq_sent;
        let frame = self.ledgers[vc.ix()].push(seg.seq, seg.len, ncells as u16, self.now, srtt);
        if first_transmission && route.is_data && self.scripted_drop(route.flow, seg.seq) {
            for index in 0..ncells as u16 {
                let unit = Unit { vc, hop: 0, index, ncells: ncells as u16, frame, wire_bytes: wire, seg };
                let port = &mut self.ports[first_port.ix()];
                port.stats.units_in += 1;
                port.stats.units_dropped += 1;
                port.stats.dropped_by[crate::atm::discard::DropReason::Scripted as usize] += 1;
                self.unit_dropped(unit);
            }
            return None;
        }
        for index in 0..ncells as u16 {
            let unit = Unit { vc, hop: 0, index, ncells: ncells as u16, frame, wire_bytes: wire, seg };
            self.enter(first_port, unit);
        }
        let port = &self.ports[first_port.ix()];
        port.per_vc.is_none().then(|| port.last_departure())
    }

    /// A constant-rate source emits one datagram and schedules the next at
    /// the exact instant its rate allows (no drift).
    fn cbr_send(&mut self, f: FlowId) {
        let conn = &mut self.conns[f.ix()];
        let cbr = conn.cbr.as_mut().expect("CbrSend for a CBR flow");
        let len = match conn.bytes {
            Some(b) => (b - cbr.bytes_sent).min(cbr.payload as u64) as u32,
            None => cbr.payload,
        };
        if len == 0 {
            return;
        }
        let seg = Segment { seq: cbr.next_seq, ack: 0, len, wnd: 0, flags: 0 };
        cbr.next_seq += len as u64;
        cbr.bytes_sent += len as u64;
        cbr.datagrams_sent += 1;
        let next = match &mut cbr.clock {
            Some(clock) => Some(clock.send(self.now, len as u64)),
            None => {
                cbr.next_at += 1;
                cbr.script.get(cbr.next_at).copied()
            }
        };
        if let Some(next) = next {
            self.sched.schedule(next, Event::CbrSend(f));
        }
        self.transmit(data_vc(f), seg);
    }

    fn slow_tick(&mut self, h: HostId) {
        for k in 0..self.hosts[h.ix()].senders.len() {
            let f = self.hosts[h.ix()].senders[k];
            if let Some(tr) = &mut self.traces {
                tr.event(secs(self.now), f.0, EventKind::Tick, 0);
            }
            let mut out = std::mem::take(&mut self.seg_buf);
            let ev = self.conns[f.ix()].sender.on_slow_tick(self.now, &mut out);
            self.after_sender(f, ev, out);
        }
        self.sched.schedule(self.now + self.model.tick, Event::SlowTick(h));
    }

    fn fast_tick(&mut self, h: HostId) {
        for k in 0..self.hosts[h.ix()].receivers.len() {
            let f = self.hosts[h.ix()].receivers[k];
            let conn = &mut self.conns[f.ix()];
            if conn.receiver.on_fast_tick() {
                let ack = conn.receiver.make_ack(Reply::Ack);
                self.transmit(ack_vc(f), ack);
            }
        }
        self.sched.schedule(self.now + FAST_TICK, Event::FastTick(h));
    }

    fn sample_queues(&mut self) {
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
        self.sched.schedule(self.now + self.model.trace_interval, Event::TraceSample);
    }

    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.sched.executed()
    }

    /// Builds the summary (and hands over the traces).
    pub fn finish(mut self) -> (Summary, Option<Traces>) {
        let m = &self.model;
        let horizon = self.now;
        let mss = m.tcp.mss;
        let bn = &self.ports[m.bottleneck.ix()];
        let cap_bytes = bn.rate().bytes_in(m.duration);
        // U_max: the payload the bottleneck could carry in full segments in
        // the simulated time, on this network (experiments.md aron97 §1.1).
        let u_max = cap_bytes / m.wire_bytes_of(mss) as f64 * mss as f64;
        let u_common = cap_bytes / (mss + m.header_bytes) as f64 * mss as f64;

        let mut flows = Vec::new();
        let mut acc = Accounting {
            bytes_sent: 0,
            bytes_delivered: 0,
            bytes_held_out_of_order: 0,
            bytes_duplicate: 0,
            bytes_dropped_in_queues: 0,
            bytes_discarded_at_reassembly: 0,
            bytes_in_flight: 0,
            cells_sent: 0,
            cells_delivered: 0,
            cells_dropped: 0,
            cells_in_flight: 0,
            queues_within_limits: true,
            balanced: false,
        };
        let (mut received_by_tcp, mut ledger_delivered) = (0u64, 0u64);
        for c in self.conns.iter_mut() {
            if let Some(afr) = c.sender.cc.afr_mut() {
                afr.finish(horizon);
            }
        }
        for (i, c) in self.conns.iter().enumerate() {
            let s = &c.sender;
            let afr = s.cc.afr();
            let r = &c.receiver;
            let led = &self.ledgers[2 * i];
            let (udp_sent, udp_delivered) = c.cbr.as_ref().map_or((0, 0), |u| (u.bytes_sent, u.bytes_delivered));
            acc.bytes_sent += s.stats.bytes_sent + udp_sent;
            acc.bytes_delivered += r.stats.bytes_delivered + udp_delivered;
            acc.bytes_held_out_of_order += r.held_out_of_order();
            acc.bytes_duplicate += r.stats.bytes_duplicate;
            acc.bytes_dropped_in_queues += led.bytes_dropped;
            acc.bytes_discarded_at_reassembly += led.bytes_discarded;
            acc.bytes_in_flight += led.bytes_in_flight();
            received_by_tcp += r.stats.bytes_received + udp_delivered;
            ledger_delivered += led.bytes_delivered;
            let mut fs = FlowSummary {
                name: m.flows[i].name.clone(),
                kind: if c.cbr.is_some() { "udp" } else { "tcp" },
                bytes_delivered: r.stats.bytes_delivered + udp_delivered,
                segments_sent: s.stats.segments_sent + c.cbr.as_ref().map_or(0, |u| u.datagrams_sent),
                bytes_sent: s.stats.bytes_sent + udp_sent,
                segments_retransmitted: s.stats.segments_retransmitted,
                bytes_retransmitted: s.stats.bytes_retransmitted,
                timeouts: s.stats.timeouts,
                fast_retransmits: s.stats.fast_retransmits,
                segments_lost: self.losses[i].len() as u64,
                loss_episodes: 0,
                single_loss_episodes: 0,
                multiple_loss_episodes: 0,
                consecutive_loss_episodes: 0,
                loss_episode_sizes: [0; 8],
                completion_time_s: c.completed_at.map(secs),
                srtt_s: secs(s.srtt_exact),
                cwnd: s.cc.cwnd(),
                ssthresh: s.cc.ssthresh(),
                aborted: s.state == SenderState::Aborted,
                afr_time_in_states_s: afr.map(|a| a.time_in.map(secs)),
                afr_extra_retransmits: afr.map_or(0, |a| a.extra_retransmits),
                afr_needless_extra: afr.map_or(0, |a| a.needless_extra),
            };
            fs.set_episodes(&loss_episodes(&self.losses[i]));
            flows.push(fs);
        }
        // Packets inside host pipelines: sent by TCP but not yet on the link,
        // or off the link but not yet at TCP.
        let (mut host_tx, mut host_rx) = (0, 0);
        for h in &self.hosts {
            if let Some(p) = &h.pipe {
                let (t, r) = p.data_payload();
                host_tx += t;
                host_rx += r;
            }
        }
        acc.bytes_in_flight += host_tx + host_rx;
        let received_ok = ledger_delivered == received_by_tcp + host_rx;
        let mut frames_discarded = 0;
        for l in &self.ledgers {
            acc.cells_sent += l.cells_sent;
            acc.cells_delivered += l.cells_arrived;
            acc.cells_dropped += l.cells_dropped;
            frames_discarded += l.frames_discarded;
        }
        acc.cells_in_flight = self.ports.iter().map(|p| p.pipe.len() as u64 + p.queued_per_vc()).sum();
        let port_drops: u64 = self.ports.iter().map(|p| p.stats.units_dropped).sum();
        let mut ports = Vec::new();
        for p in &self.ports {
            let (unit, limit) = match p.limit {
                Limit::Unlimited => (if self.atm { "cells" } else { "packets" }, None),
                Limit::Units(n) => (if self.atm { "cells" } else { "packets" }, Some(n)),
                Limit::Bytes(b) => ("bytes", Some(b)),
            };
            if let Some(l) = limit {
                let peak = p.per_vc.as_ref().map_or(p.stats.peak_occupancy, |pv| pv.peak_per_vc);
                acc.queues_within_limits &= peak <= l;
            }
            let mut by = std::collections::BTreeMap::new();
            for (k, name) in crate::atm::discard::DropReason::NAMES.iter().enumerate() {
                if p.stats.dropped_by[k] > 0 {
                    by.insert(*name, p.stats.dropped_by[k]);
                }
            }
            ports.push(PortSummary {
                name: p.name.clone(),
                unit,
                limit,
                units_in: p.stats.units_in,
                units_dropped: p.stats.units_dropped,
                drops_by_reason: by,
                peak_occupancy: p.stats.peak_occupancy,
                mean_occupancy: p.mean_occupancy(horizon),
                dead_units: p.stats.dead_units,
                busy_fraction: if horizon > 0 { p.busy_until(horizon) as f64 / horizon as f64 } else { 0.0 },
                credit_cells: p.stats.credit_cells,
            });
        }
        let host_names = m.node_names.iter().zip(&m.is_host).filter(|(_, &h)| h).map(|(n, _)| n);
        let hosts: Vec<HostSummary> = host_names
            .zip(&self.hosts)
            .filter_map(|(name, h)| {
                let pipe = h.pipe.as_ref()?;
                Some(HostSummary { name: name.clone(), mean_tx_backlog_bytes: pipe.mean_tx_backlog(horizon) })
            })
            .collect();
        let bytes_sum = acc.bytes_delivered
            + acc.bytes_held_out_of_order
            + acc.bytes_duplicate
            + acc.bytes_dropped_in_queues
            + acc.bytes_discarded_at_reassembly
            + acc.bytes_in_flight;
        acc.balanced = acc.bytes_sent == bytes_sum
            && received_ok
            && acc.cells_sent == acc.cells_delivered + acc.cells_dropped + acc.cells_in_flight
            && port_drops == acc.cells_dropped
            && acc.queues_within_limits;
        let delivered: Vec<f64> = flows.iter().map(|f| f.bytes_delivered as f64).collect();
        let total: f64 = delivered.iter().sum();
        let dead_share = if self.atm { bn.stats.dead_units as f64 / (cap_bytes / 53.0) } else { 0.0 };
        let summary = Summary {
            scenario: m.name.clone(),
            seed: m.seed,
            network: if self.atm { "atm" } else { "packet" },
            duration_s: secs(m.duration),
            end_time_s: secs(horizon),
            events: self.sched.executed(),
            unit_hops: self.unit_hops,
            wall_s: self.wall_s,
            effective_throughput: total / u_max,
            effective_throughput_common: total / u_common,
            u_max_bytes: u_max,
            fairness: jain_fairness(&delivered),
            bottleneck: bn.name.clone(),
            dead_cell_share: dead_share,
            cell_loss_ratio: if acc.cells_sent > 0 { acc.cells_dropped as f64 / acc.cells_sent as f64 } else { 0.0 },
            frames_discarded_at_reassembly: frames_discarded,
            flows,
            ports,
            hosts,
            accounting: acc,
        };
        (summary, self.traces.take())
    }
}
