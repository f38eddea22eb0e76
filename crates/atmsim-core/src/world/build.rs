//! Building the world from a resolved [`Model`].

use super::services::Services;
use super::{Endpoints, Flow, Host, World};
use crate::atm::abr::AbrSwitch;
use crate::engine::{Event, Scheduler, SourceEvent, TransportEvent};
use crate::host::HostPipeline;
use crate::ledger::Ledger;
use crate::net::credit::Credit;
use crate::net::drop::{DropPolicy, DropSpec, PortContext, TrimService};
use crate::net::fifo::Fifo;
use crate::net::host_nic::HostNic;
use crate::net::pervc::PerVc;
use crate::net::route::Exits;
use crate::net::trim::TrimQueues;
use crate::net::trim_fifo::TrimFifo;
use crate::net::{Discipline, FlowId, HostId, Port, PortId, VcRole, VcTable, CELL_BYTES};
use crate::rng::{stream, Stream};
use crate::scenario::{App, Model, Network, SeedUse, FAST_TICK, UDP_HEADER_BYTES};
use crate::send_jitter::SendJitter;
use crate::source::DatagramSource;
use crate::trace::Traces;
use crate::transport::arb::{ArbReceiver, ArbSender};
use crate::transport::ndp::{NdpConfig, NdpSink, NdpSource, PathChoice, PullPacer, Strategy};
use crate::transport::tcp::congestion::EcnUse;
use crate::transport::tcp::ecn::EcnReceiver;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use rand::Rng;

/// No frame is known to be doomed on the VC.
pub(super) const NONE: u32 = crate::atm::aal5::NO_FRAME;

impl World {
    pub fn new(model: Model, trace: bool) -> Self {
        let (hosts, vcs, mut flows, eqds_ends) = endpoints(&model);
        let num_vcs = vcs.len();
        let vbr_port = model.abr.as_ref().and_then(|a| a.vbr).map(|v| v.port.ix());
        let warm_ahead = super::warm::outgrows_cache(model.ports.len());
        let mut ports: Vec<Port> = super::warm::port_array(model.ports.len(), warm_ahead);
        ports.extend((0..model.ports.len()).map(|i| port(&model, PortId(i as u32), num_vcs, vbr_port == Some(i))));
        for (i, port) in ports.iter_mut().enumerate() {
            port.far_exits = vcs.exits().far(PortId(i as u32));
        }
        let ndp = model.flows.iter().find_map(|f| match f.app {
            App::Ndp(cfg) => Some(cfg),
            _ => None,
        });
        if let Some(cfg) = ndp {
            ndp_ports(&model, &vcs, cfg.header, true, &mut ports);
        }
        let pacers = ndp.map_or_else(Vec::new, |cfg| pacers(&model, cfg, hosts.len()));
        let eqds = model.flows.iter().find_map(|f| match f.app {
            App::Eqds(cfg) => Some(cfg),
            _ => None,
        });
        if let Some(cfg) = eqds {
            // EQDS's own NIC (E3) paces each host's packets at line rate, so
            // its port stays a plain FIFO at most a packet deep.
            ndp_ports(&model, &vcs, cfg.header, false, &mut ports);
        }
        let eqds_hosts = eqds.map(|cfg| Box::new(super::eqds::EqdsHosts::new(&model, cfg, hosts.len(), eqds_ends)));
        // Each port's opposite direction, found through a map of (from, to)
        // so that 10^5 links are not searched pairwise.
        let by_ends: std::collections::HashMap<_, _> = model.ports.iter().enumerate().map(|(i, p)| ((p.from, p.to), i)).collect();
        let reverse = model.ports.iter().map(|p| PortId(*by_ends.get(&(p.to, p.from)).expect("links are full duplex") as u32)).collect();

        let mut sched = Scheduler::default();
        if warm_ahead {
            sched.reveal_at(super::warm::REVEAL_AT);
        }
        // A cell fabric's links carry most of a fabric run's events: their gaps first.
        if let Some(fm) = &model.fabric {
            super::fabric::gaps(&model, fm).into_iter().for_each(|g| sched.add_lane(g));
            for (i, failure) in fm.config.failures.iter().enumerate() {
                sched.schedule(failure.at, Event::Fabric(crate::engine::FabricEvent::Fail(i as u32)));
            }
        }
        declare_lanes(&model, &mut sched);
        // The pull pacers tick a fixed spacing apart: a gap lane of their own.
        if let Some(spacing) = pacers.iter().flatten().map(|p| p.spacing()).next() {
            sched.add_lane(spacing);
        }
        // EQDS's NIC turns and pacer ticks recur at fixed gaps too.
        if let (Some(cfg), Some(e)) = (eqds, &eqds_hosts) {
            e.gaps(&cfg).into_iter().for_each(|g| sched.add_lane(g));
        }
        if let Some((from, to)) = model.measure {
            sched.schedule(from, Event::Measure);
            sched.schedule(to, Event::Measure);
        }
        first_events(&model, &mut flows, &hosts, trace, &mut sched);
        let services = Services::new(&model, &vcs, trace);
        if let Some(first) = services.abr().and_then(|a| a.vbr_first()) {
            sched.schedule(first, Event::Abr(crate::engine::AbrEvent::Vbr));
        }
        let bounded = flows.iter().filter(|c| c.bytes.is_some()).count();
        let mut world = World {
            atm: model.network == Network::Atm,
            sched,
            now: 0,
            ports,
            reverse,
            ledgers: vec![Ledger::default(); num_vcs],
            reassembly: vec![Default::default(); num_vcs],
            doomed: vec![NONE; num_vcs],
            merges: vec![Default::default(); num_vcs],
            // usize::MAX: never counted down to 0, so the run lasts its duration.
            unfinished: if bounded == flows.len() && !model.run_to_duration { bounded } else { usize::MAX },
            flows,
            hosts,
            vcs,
            seg_buf: Vec::with_capacity(64),
            ndp_buf: Vec::with_capacity(64),
            pacers,
            eqds_hosts,
            traces: trace.then(|| {
                let mut t = Traces::default();
                t.port.cap = Some(usize::try_from(model.trace_port_rows).unwrap_or(usize::MAX));
                t
            }),
            unit_hops: 0,
            warming: [None; 3],
            warming_end: None,
            warm_ahead,
            wall_s: 0.0,
            // A watched port reports departures at its end-of-transmission events (the port log,
            // captures); the occupancy percentiles read each unit's departure when it is offered
            // and watch switch ports only, so they leave the deferral on.
            defer_nic_free: false,
            eager_nics_defer: false,
            plain_hosts: model.host.is_none() && model.send_jitter == 0,
            services,
            triggers: model.triggers.as_ref().map(super::triggers::TriggerState::new),
            model,
        };
        let defer = world.services.watch().is_none() && !trace && world.model.host.is_none();
        world.defer_nic_ends(defer);
        if world.warm_ahead {
            world.huge_pages();
        }
        world
    }
}

/// Port `p` of the model: its discipline (the VBR background's port serves
/// by priority) and its drop policy, behind `[abr.loss]`'s random cell loss
/// on the port it names, inside EFCI marking on every switch port of a run
/// with binary-feedback ABR switches (`abr.switch = "efci"`).
fn port(model: &Model, p: PortId, num_vcs: usize, vbr_port: bool) -> Port {
    let m = &model.ports[p.ix()];
    let discipline = if vbr_port {
        Discipline::Priority(Box::default())
    } else if m.per_vc {
        let credit = m.credit.map(|(buf, n2)| Credit::new(num_vcs, buf, n2));
        Discipline::PerVc(Box::new(PerVc::new(num_vcs, credit)))
    } else {
        Discipline::Fifo(Fifo::default())
    };
    let packet_time = m.rate.tx_time(model.wire_bytes_of(model.tcp.mss));
    let cx = PortContext { limit: m.limit, num_vcs, seed: model.seed, port: p, packet_time };
    let mut policy = DropPolicy::new(m.drop, &cx);
    if let Some((_, probability)) = model.abr.as_ref().and_then(|a| a.loss).filter(|&(lp, _)| lp == p) {
        policy = policy.behind_line_loss(probability, model.seed, p);
    }
    if let Some(AbrSwitch::Efci(e)) = model.abr.as_ref().map(|a| a.switch) {
        if !model.is_host[m.from.ix()] {
            policy = policy.with_efci_marking(e.high, e.low);
        }
    }
    Port::new(m.name.clone(), m.from, m.to, m.rate, m.delay, m.limit, policy, discipline)
}

/// The ports of a run with NDP or EQDS flows: with `host_nic`, every host's
/// port is its NIC (control first, round robin across the VCs that start
/// there: N6), and every trimming port trims to the transport's header (N2, E7).
fn ndp_ports(model: &Model, vcs: &VcTable, header: u32, host_nic: bool, ports: &mut [Port]) {
    // A VC's class at its host's NIC: ACKs and PULLs high, data and NACKs low.
    let mut nack = vec![false; vcs.len()];
    for v in (0..model.flows.len()).filter_map(|f| vcs.nack_of(FlowId(f as u32))) {
        nack[v.ix()] = true;
    }
    let mut starting: Vec<Vec<(u32, bool)>> = vec![Vec::new(); ports.len()];
    for (i, v) in vcs.iter().enumerate() {
        let high = v.role == VcRole::Reply && !nack[i];
        starting[v.ports[0].ix()].push((i as u32, high));
    }
    for (i, (p, m)) in ports.iter_mut().zip(&model.ports).enumerate() {
        if model.is_host[m.from.ix()] {
            if !host_nic {
                continue;
            }
            p.discipline = Discipline::HostNic(Box::new(HostNic::new(&starting[i])));
        } else if let DropSpec::Trim(service) = m.drop {
            p.discipline = match service {
                TrimService::Exact => Discipline::Trim(Box::new(TrimQueues::new(header as u16))),
                TrimService::Strict => {
                    let crate::net::Limit::Bytes(limit) = m.limit else { unreachable!("a trimming port's buffer is in bytes") };
                    Discipline::TrimFifo(TrimFifo::new(header as u16, limit))
                }
            };
        }
    }
}

/// Per host, the pull pacer of the NDP flows it receives (flows in id
/// order), its spacing from the host's own line (N9).
fn pacers(model: &Model, cfg: NdpConfig, num_hosts: usize) -> Vec<Option<PullPacer>> {
    let host_of = host_ids(model);
    let mut receives: Vec<Vec<FlowId>> = vec![Vec::new(); num_hosts];
    let mut line = vec![None; num_hosts];
    for (i, f) in model.flows.iter().enumerate() {
        if matches!(f.app, App::Ndp(_)) {
            let h = host_of[f.dst.ix()].expect("a host").ix();
            receives[h].push(FlowId(i as u32));
            line[h] = Some(model.ports[f.ack_route[0].ix()].rate);
        }
    }
    receives.into_iter().zip(line).map(|(flows, line)| line.map(|rate| PullPacer::new(cfg.pull_spacing(rate), flows))).collect()
}

/// Each node's host id, if it is a host (hosts numbered in node order).
fn host_ids(model: &Model) -> Vec<Option<HostId>> {
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
}

/// The hosts, the VC table and the flows of the model: each flow's
/// endpoints (a TCP connection, a datagram source, an ARB pair) and its VCs,
/// in flow order, then the VBR background's one-port VC.
fn endpoints(model: &Model) -> (Vec<Host>, VcTable, Vec<Flow>, Vec<Option<super::eqds::EqdsEnds>>) {
    let host_of = host_ids(model);
    let num_hosts = model.is_host.iter().filter(|&&h| h).count();
    let mut hosts: Vec<Host> = (0..num_hosts)
        .map(|h| Host {
            senders: Vec::new(),
            receivers: Vec::new(),
            pipe: model.host.as_ref().map(HostPipeline::new),
            jitter: (model.send_jitter > 0).then(|| SendJitter::new(model.send_jitter, stream(model.seed, Stream::Host(HostId(h as u32))))),
        })
        .collect();
    let ends: Vec<_> = model.ports.iter().map(|p| (p.from, p.to)).collect();
    let mut vcs = VcTable::new(Exits::new(&ends, &model.is_host));
    let mut flows = Vec::with_capacity(model.flows.len());
    let mut eqds_ends = Vec::new();
    let salts = if model.flows.iter().any(|f| matches!(f.app, App::Eqds(_))) { super::eqds_build::switch_salts(model) } else { Vec::new() };
    for (i, f) in model.flows.iter().enumerate() {
        let fid = FlowId(i as u32);
        let src = host_of[f.src.ix()].expect("validated: src is a host");
        let dst = host_of[f.dst.ix()].expect("validated: dst is a host");
        let endpoints = match f.app {
            App::Tcp => {
                hosts[src.ix()].senders.push(fid);
                hosts[dst.ix()].receivers.push(fid);
                let h = model.header_bytes;
                vcs.open(fid, src, dst, (f.data_route.clone(), h), Some((f.ack_route.clone(), h)));
                let mut tcp = model.tcp.clone();
                if let Some(w) = f.window {
                    (tcp.snd_buf, tcp.rcv_buf) = (w, w);
                }
                let rcv_buf = tcp.rcv_buf.min(u32::MAX as u64) as u32;
                let mut receiver = TcpReceiver::new(rcv_buf, model.tcp.mss as u64, model.tcp.delayed_ack);
                if tcp.variant.sack_option {
                    receiver = receiver.with_sack();
                }
                if tcp.ecn {
                    receiver = receiver.with_ecn(match tcp.variant.ecn {
                        EcnUse::Optional => EcnReceiver::default(),
                        EcnUse::Dctcp => EcnReceiver::dctcp(),
                    });
                }
                Endpoints::Tcp { sender: TcpSender::new(&tcp, f.bytes), receiver }
            }
            App::Cbr { payload, rate } => {
                vcs.open(fid, src, dst, (f.data_route.clone(), UDP_HEADER_BYTES), None);
                let script = f.send_at.iter().map(|&t| f.start + t).collect();
                Endpoints::Datagram(DatagramSource::new(payload, rate, script, f.bytes))
            }
            App::Arb(cfg) => {
                let h = model.header_bytes;
                vcs.open(fid, src, dst, (f.data_route.clone(), h), Some((f.ack_route.clone(), h)));
                Endpoints::Arb { sender: ArbSender::new(&cfg, f.bytes, f.start), receiver: ArbReceiver::new(&cfg) }
            }
            App::Ndp(cfg) => {
                vcs.open_multipath(fid, src, dst, &f.data_paths, &f.ack_paths, cfg.header);
                let out = PathChoice::new(f.data_paths.len(), cfg.strategy, stream(model.seed, Stream::Flow(fid)));
                // The receiver sprays its answers as "perm" whatever the sender's strategy (N15).
                let back = PathChoice::new(f.ack_paths.len(), Strategy::Perm, stream(model.seed, Stream::FlowReceiver(fid)));
                Endpoints::Ndp { source: Box::new(NdpSource::new(&cfg, f.bytes, out)), sink: Box::new(NdpSink::new(back)) }
            }
            App::Eqds(cfg) => {
                eqds_ends.resize_with(i, || None);
                eqds_ends.push(Some(super::eqds_build::endpoints(model, &cfg, fid, f, (src, dst), &salts, &mut vcs)));
                Endpoints::Eqds
            }
        };
        flows.push(Flow { endpoints, bytes: f.bytes, completed_at: None, losses: Vec::new(), measured: Vec::new() });
    }
    // The VBR background (Jain et al.) gets a one-way VC over its port
    // alone, after every flow's VCs.
    if let Some(v) = model.abr.as_ref().and_then(|a| a.vbr) {
        vcs.open(FlowId(model.flows.len() as u32), HostId(0), HostId(0), (vec![v.port], 0), None);
    }
    eqds_ends.resize_with(model.flows.len(), || None);
    (hosts, vcs, flows, eqds_ends)
}

/// Declares the scheduler's lanes and its far horizon (engine/mod.rs).
fn declare_lanes(model: &Model, sched: &mut Scheduler) {
    // The gaps after which a link's next unit reaches the far end: one
    // unit time (`unit_sizes`), rounded down or up to whole picoseconds,
    // behind a busy line; that plus the link's delay when the pipe was
    // empty (the scheduler's lanes, engine/mod.rs; the first ports' gaps,
    // up to its limit).
    let sizes = unit_sizes(model);
    let mut longest = 0;
    for &unit_bytes in &sizes {
        for p in &model.ports {
            let up = p.rate.tx_time(unit_bytes);
            let down = if !(unit_bytes as u128 * 8 * p.rate.ps as u128).is_multiple_of(p.rate.bits as u128) { up - 1 } else { up };
            for gap in [up, down, up + p.delay, down + p.delay] {
                sched.add_lane(gap);
            }
            longest = longest.max(up + p.delay);
        }
    }
    // Events due later than any pipe head (timers) wait in a heap apart.
    sched.set_far_from(longest + 1);
}

/// The sizes of the units a run's links carry most, in bytes on the wire:
/// a cell on ATM; on a packet network each flow's full packet (TCP's MSS,
/// a datagram, NDP's and EQDS's MTU), the sizes more flows send first, then
/// the header NDP and EQDS answer every packet with. (The run's own sizes:
/// lanes for TCP's MSS on a run of 4,150-byte datagrams took the last lane
/// a cell fabric left, and its hosts' pipe heads sifted through the heap.)
fn unit_sizes(model: &Model) -> Vec<u64> {
    if model.network == Network::Atm {
        return vec![CELL_BYTES as u64];
    }
    let mut full: Vec<(u64, usize)> = Vec::new();
    let mut headers: Vec<u64> = Vec::new();
    for f in &model.flows {
        let (size, header) = match &f.app {
            App::Ndp(cfg) => ((cfg.mss + cfg.header) as u64, Some(cfg.header as u64)),
            App::Eqds(cfg) => (cfg.mtu as u64, Some(cfg.header as u64)),
            App::Cbr { payload, .. } => ((payload + UDP_HEADER_BYTES) as u64, None),
            App::Tcp | App::Arb(_) => (model.wire_bytes_of(model.tcp.mss), None),
        };
        match full.iter_mut().find(|(s, _)| *s == size) {
            Some(seen) => seen.1 += 1,
            None => full.push((size, 1)),
        }
        headers.extend(header.filter(|h| !headers.contains(h)));
    }
    // Stable: sizes as common keep the order of their first flows.
    full.sort_by_key(|&(_, flows)| std::cmp::Reverse(flows));
    full.into_iter().map(|(size, _)| size).chain(headers).collect()
}

/// Every flow's first event, every host's timers at their phase, and the
/// first trace sample: in this order (ties are served in insertion order).
fn first_events(model: &Model, flows: &mut [Flow], hosts: &[Host], trace: bool, sched: &mut Scheduler) {
    for (i, (f, flow)) in model.flows.iter().zip(flows.iter_mut()).enumerate() {
        let fid = FlowId(i as u32);
        if super::triggers::waits(model.triggers.as_ref(), i) {
            continue; // opened when its trigger fires (`triggers.rs`)
        }
        match &mut flow.endpoints {
            Endpoints::Tcp { .. } | Endpoints::Ndp { .. } | Endpoints::Eqds => {
                sched.schedule(f.start, Event::Transport(TransportEvent::Open(fid)))
            }
            Endpoints::Datagram(d) => sched.schedule(d.first_send(f.start), Event::Source(SourceEvent::Send(fid))),
            Endpoints::Arb { sender, .. } => {
                if let Some(at) = sender.wake_needed(0) {
                    sched.schedule(at, Event::Transport(TransportEvent::ArbWake(fid)));
                }
            }
        }
    }
    // Each host's coarse-timer phase is drawn uniformly in [0, tick): the
    // run-to-run variation the papers average over (real hosts' timers
    // are not synchronised).
    let mut phases = stream(model.seed, Stream::TimerPhases);
    for (h, host) in hosts.iter().enumerate() {
        let phase = match model.seed_use {
            SeedUse::TimerPhase => phases.gen_range(0..model.tick),
            SeedUse::Nothing => 0,
        };
        if !host.senders.is_empty() {
            sched.schedule(phase, Event::Transport(TransportEvent::SlowTick(HostId(h as u32))));
        }
        if model.tcp.delayed_ack && !host.receivers.is_empty() {
            sched.schedule(phase % FAST_TICK, Event::Transport(TransportEvent::FastTick(HostId(h as u32))));
        }
    }
    if trace {
        sched.schedule(0, Event::TraceSample);
    }
}

#[cfg(test)]
mod tests {
    fn sizes_of(name: &str) -> Vec<u64> {
        let text = std::fs::read_to_string(format!("{}/../../python/atmsim/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
        super::unit_sizes(&crate::scenario::validate(&crate::scenario::parse(&text, &[]).unwrap(), None).unwrap())
    }

    /// The lanes follow what the run's flows send: a cell on ATM, the
    /// datagrams of a run of datagrams (not TCP's MSS), NDP's and EQDS's
    /// full packets and then their headers.
    #[test]
    fn unit_sizes_are_the_runs_own() {
        assert_eq!(sizes_of("aron97-topo1-atm"), [53]);
        assert_eq!(sizes_of("fabric-perm"), [4150]);
        assert_eq!(sizes_of("eqds-perm-16"), [4150, 64]);
        assert_eq!(sizes_of("ndp-in-out"), [9000 + 64, 64]);
    }
}
