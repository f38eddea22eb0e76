//! The world: ports, VCs, hosts and flows in arenas, and the event loop that
//! runs them. Each event goes to the component that owns it:
//!
//! | file | what it wires |
//! | --- | --- |
//! | `build.rs` | the arenas from a [`Model`]: ports by discipline, the VC table, hosts, flows, first events |
//! | `forward.rs` | the per-unit path (the hot path): pipe heads, ports, drops, reassembly |
//! | `credit.rs` | per-VC transmissions and credit cells between the two ends of a link |
//! | `hosts.rs` | handing segments to links and to transports, through the host/adapter model if any |
//! | `abr.rs` | ABR sources pacing their VCs at ACR, RM cells, destinations, ERICA at switch ports |
//! | `transport.rs` | transports and sources: TCP senders/receivers, their timers, datagram sources |
//! | `arb.rs` | ARB senders and receivers: pacing wake-ups, data, rate replies |
//! | `boston.rs` | TCP Boston's pieces, partial reassembly and partial ACKs; the measurements of its paper |
//! | `capture.rs` | packet captures: the port log's hook shared with them, hosts' packets, pcap files at the end |
//! | `service.rs` | what a service declares and does (`ServiceKind`), the hooks it takes (`Takes`) |
//! | `services.rs` | the registry of the optional mechanisms (ABR, Boston, round-robin input, watched ports, scripted drops in `services/`), and the hooks through which they take part |
//! | `fabric.rs`, `fabric_fail.rs`, `fabric_stages.rs`, `fabric_sample.rs` | a scheduled cell fabric: VOQs, credits, cells over fabric links and elements, reassembly; link failures; three stages; the fabric trace |
//! | `triggers.rs` | flows started by other flows' completions (a connection matrix's triggers) |
//! | `finish.rs` | the summary and the accounting identity at the end |
//!
//! Components (ports, TCP senders and receivers, credit counters, host
//! pipelines, sources) are plain values that take an input and return what
//! to do; only this module schedules events.

mod abr;
mod arb;
mod boston;
mod build;
mod capture;
mod credit;
mod eqds;
mod eqds_build;
mod fabric;
mod fabric_arrival;
mod fabric_fail;
mod fabric_group;
mod fabric_link;
mod fabric_sample;
mod fabric_stages;
mod fct;
mod finish;
mod forward;
mod hosts;
mod ndp;
mod service;
mod services;
mod transport;
mod triggers;
mod warm;

pub use services::SERVICES;

use crate::atm::aal5::{MergeWatch, Reassembler};
use crate::engine::{AbrEvent, CreditEvent, Event, HostEvent, PortEvent, Scheduler, SourceEvent, TransportEvent};
use crate::host::HostPipeline;
use crate::ledger::{Ledger, Loss};
use crate::net::{FlowId, Port, PortId, Segment, VcTable};
use crate::scenario::{Model, ScenarioError};
use crate::send_jitter::SendJitter;
use crate::source::DatagramSource;
use crate::time::Time;
use crate::trace::Traces;
use crate::transport::arb::{ArbReceiver, ArbSender};
use crate::transport::ndp::{NdpSink, NdpSource, PullPacer};
use crate::transport::tcp::{TcpReceiver, TcpSender};
use fabric_group::Due;
use std::time::Instant;

/// Events between two calls of a run's observer ([`World::run_observed`]):
/// about a tenth of a second of wall time on one core.
pub const OBSERVE_EVERY: u64 = 1 << 20;

/// What moves a flow's data: a TCP connection, or a one-way datagram source.
/// An EQDS flow's sender and receiver are kept with the hosts' EQDS state
/// (`eqds::EqdsEnds`).
enum Endpoints {
    Tcp { sender: TcpSender, receiver: TcpReceiver },
    Datagram(DatagramSource),
    Arb { sender: ArbSender, receiver: ArbReceiver },
    Ndp { source: Box<NdpSource>, sink: Box<NdpSink> },
    Eqds,
}

struct Flow {
    endpoints: Endpoints,
    /// Payload bytes to deliver, if the transfer is bounded.
    bytes: Option<u64>,
    completed_at: Option<Time>,
    /// Data units this flow has lost (for loss episodes).
    losses: Vec<Loss>,
    /// Payload delivered in order at the start and the end of `[measure]`'s window.
    measured: Vec<u64>,
}

impl Flow {
    /// Payload delivered in order to the receiving application; an EQDS
    /// flow's receiver is among `eqds`, the ends kept with the hosts.
    pub(super) fn delivered(&self, eqds: Option<&eqds::EqdsEnds>) -> u64 {
        match &self.endpoints {
            Endpoints::Tcp { receiver, .. } => receiver.stats.bytes_delivered,
            Endpoints::Datagram(d) => d.bytes_delivered,
            Endpoints::Arb { receiver, .. } => receiver.stats.bytes_delivered,
            Endpoints::Ndp { sink, .. } => sink.bytes_delivered(),
            Endpoints::Eqds => eqds.expect("an EQDS flow's ends").sink.bytes_delivered(),
        }
    }
}

struct Host {
    /// TCP flows this host sends and receives (for its timers).
    senders: Vec<FlowId>,
    receivers: Vec<FlowId>,
    /// The Morris & Kung host/adapter pipeline, if the scenario models hosts.
    pipe: Option<HostPipeline>,
    /// The random per-packet processing time of an ideal host, if any.
    jitter: Option<SendJitter>,
}

pub struct World {
    model: Model,
    atm: bool,
    sched: Scheduler,
    now: Time,
    ports: Vec<Port>,
    vcs: VcTable,
    /// Per port, the port of the same link in the other direction.
    reverse: Vec<PortId>,
    /// Per VC: the fate of its frames, its AAL5 reassembly, and the frame
    /// known to be doomed (a cell dropped, or merged at the receiver with
    /// the cells of a frame whose EOM was dropped), for dead-cell counts,
    /// with what the drops tell of such merges (`MergeWatch`).
    ledgers: Vec<Ledger>,
    reassembly: Vec<Reassembler>,
    doomed: Vec<u32>,
    merges: Vec<MergeWatch>,
    flows: Vec<Flow>,
    hosts: Vec<Host>,
    seg_buf: Vec<Segment>,
    ndp_buf: Vec<crate::net::NdpHeader>,
    /// Per host, the pull pacer of its NDP receivers (`ndp.rs`).
    pacers: Vec<Option<PullPacer>>,
    /// The NICs, pull pacers and timers of a run with EQDS flows (`eqds.rs`).
    eqds_hosts: Option<Box<eqds::EqdsHosts>>,
    traces: Option<Traces>,
    /// Bounded flows not yet complete (`usize::MAX`: some flow is unbounded,
    /// so the run lasts its full duration).
    unfinished: usize,
    unit_hops: u64,
    /// The two pipe heads revealed last, newest first, and the next port
    /// found for the one before them: their data fetched ahead a step a
    /// reveal (`warm.rs`).
    warming: [Option<PortId>; 3],
    /// The unit found at the end of its route at the last reveal's second
    /// step (its VC and frame), whose ledger record the next fetches.
    warming_end: Option<(crate::net::VcId, u32)>,
    /// Whether to fetch pipe heads' data ahead (`warm.rs`): only when the
    /// ports outgrow a core's own cache ([`warm::WARM_FROM_BYTES`]); on a
    /// smaller network every line is there already and the steps would
    /// cost instructions for nothing (a speed setting: no value changes).
    warm_ahead: bool,
    wall_s: f64,
    /// The run's optional mechanisms (`services.rs`).
    services: services::Services,
    /// Flows started by others' completions, if the run has any (`triggers.rs`).
    triggers: Option<Box<triggers::TriggerState>>,
    /// Host NICs schedule the end of a transmission only when a packet
    /// waits for it (`credit.rs`, `transmitter_free_at`).
    defer_nic_free: bool,
    /// Some NIC defers its ends of transmission as events (one with no
    /// link delay, not lazy): only such a NIC has an arrival to watch
    /// for (`credit.rs`, `nic_arrival`).
    eager_nics_defer: bool,
    /// No host models its pipeline or jitters its sends: a segment goes
    /// straight onto the link and straight to its transport, with no host
    /// record read (`hosts.rs`).
    plain_hosts: bool,
}

impl World {
    /// Runs until the scenario's duration, or until every finite transfer
    /// has been delivered.
    pub fn run(&mut self) {
        self.run_observed(&mut |_, _| true);
    }

    /// Runs like [`World::run`], and every [`OBSERVE_EVERY`] events calls
    /// `observe(simulated time reached, duration)`: a long run can report its
    /// progress and be stopped (return false) without any per-cell work.
    /// Returns false if `observe` stopped it (the world is then mid-run).
    /// `observe` is called through a pointer so that the event loop is
    /// compiled once, here, whatever the caller (a generic loop would be
    /// monomorphised, and optimised differently, in the Python crate).
    pub fn run_observed(&mut self, observe: &mut dyn FnMut(Time, Time) -> bool) -> bool {
        let started = Instant::now();
        let mut countdown = OBSERVE_EVERY;
        let mut whole = true;
        while let Some((t, ev)) = self.sched.next_until(self.model.duration) {
            self.now = t;
            if self.warm_ahead {
                if let Some(p) = self.sched.take_revealed() {
                    self.warm(p);
                }
            }
            // A pipe head is nearly every event of a run: test for it first;
            // in a cell fabric's, a group of its links' ends or arrivals.
            match ev.pipe_head() {
                Some(p) => self.pipe_head(p),
                None => match ev.fabric_group() {
                    Some((g, arrivals)) => self.group_due(g, if arrivals { Due::Arrival } else { Due::End }),
                    None => self.dispatch(ev.event()),
                },
            }
            if self.unfinished == 0 {
                break;
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = OBSERVE_EVERY;
                if self.warm_ahead {
                    self.huge_pages();
                }
                // A port log or pcap files at their cap, or a capture file
                // that could not be written, stop the run here (nothing
                // beyond was kept): `port_log_overflow`, `capture_overflow`
                // and `take_capture_failure` say why.
                if !observe(self.now, self.model.duration) || self.cap_reached() {
                    whole = false;
                    break;
                }
            }
        }
        // Ends of transmission at lazy NICs up to the last instant run:
        // all of the run's last picosecond when it ran to its end, else
        // those before the instant it stopped at.
        if self.unfinished != 0 && whole {
            self.now = self.model.duration;
            self.nic_ends_at_the_end(self.now + 1);
        } else {
            self.nic_ends_at_the_end(self.now);
        }
        self.wall_s = started.elapsed().as_secs_f64();
        whole
    }

    /// The error of a run whose port log reached `trace.port_rows`, or None
    /// (the rows are not estimated before the run: `resolve::port_rows`).
    pub fn port_log_overflow(&self) -> Option<ScenarioError> {
        let log = &self.traces.as_ref()?.port;
        let t = log.full_at?;
        let name = self.model.trace_port.map(|p| self.model.ports[p.ix()].name.as_str()).unwrap_or("?");
        if log.out_of_memory {
            return Some(ScenarioError {
                key: "trace.port_rows".into(),
                problem: format!(
                    "the port log of {name} could not grow past {} rows at {t:.6} s of {} s: out of memory (the log is held in memory, 18 bytes a row); shorten the duration or lower trace.port_rows",
                    log.t.len(),
                    crate::time::secs(self.model.duration)
                ),
            });
        }
        Some(ScenarioError {
            key: "trace.port_rows".into(),
            problem: format!(
                "the port log of {name} reached its {} rows at {t:.6} s of {} s (the log is held in memory, 18 bytes a row); shorten the duration or raise trace.port_rows",
                log.t.len(),
                crate::time::secs(self.model.duration)
            ),
        })
    }

    /// Hands every other event to the component that owns it.
    #[inline(never)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Port(PortEvent::PipeHead(p)) => self.pipe_head(p),
            Event::Port(PortEvent::Free(p)) => self.port_free(p),
            Event::Port(PortEvent::InputSlot(n)) => self.input_slot(n),
            Event::Credit(CreditEvent::Arrive { port, vc, fwd }) => self.credit_arrives(port, vc, fwd),
            Event::Credit(CreditEvent::Emit { link, vc, fwd }) => self.emit_credit(link, vc, fwd),
            Event::Host(HostEvent::AdapterLoaded(h)) => self.adapter_loaded(h),
            Event::Host(HostEvent::AdapterFree(h)) => self.adapter_free(h),
            Event::Host(HostEvent::Deliver(h)) => self.host_delivers(h),
            Event::Host(HostEvent::JitterRelease(h)) => self.jitter_release(h),
            Event::Transport(TransportEvent::SlowTick(h)) => self.slow_tick(h),
            Event::Transport(TransportEvent::FastTick(h)) => self.fast_tick(h),
            Event::Transport(TransportEvent::Open(f)) => self.open(f),
            Event::Transport(TransportEvent::ArbWake(f)) => self.arb_wake(f),
            Event::Transport(TransportEvent::PullTick(h)) => self.pull_tick(h),
            Event::Transport(TransportEvent::EqdsNic(h)) => self.eqds_nic_event(h),
            Event::Transport(TransportEvent::EqdsPull(h)) => self.eqds_pull_tick(h),
            Event::Transport(TransportEvent::EqdsRto(f)) => self.eqds_rto(f),
            Event::Source(SourceEvent::Send(f)) => self.datagram_send(f),
            Event::Abr(AbrEvent::Send(vc)) => self.abr_send(vc),
            Event::Abr(AbrEvent::Vbr) => self.vbr_send(),
            Event::Fabric(e) => self.fabric_event(e),
            Event::TraceSample => self.sample_queues(),
            Event::Measure => self.measure(),
        }
    }

    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.sched.executed()
    }

    /// `[measure]`'s window opens or closes: every flow's delivered payload is noted.
    fn measure(&mut self) {
        let eqds = self.eqds_hosts.as_deref();
        for (i, flow) in self.flows.iter_mut().enumerate() {
            let d = flow.delivered(eqds::flow_ends(eqds, i));
            flow.measured.push(d);
        }
    }

    /// A bounded flow has delivered everything.
    fn completed(&mut self, f: FlowId) {
        self.flows[f.ix()].completed_at = Some(self.now);
        if self.unfinished != usize::MAX {
            self.unfinished -= 1;
        }
        if self.triggers.is_some() {
            self.sender_done(f);
        }
    }
}

#[cfg(test)]
mod stop_rule_tests {
    use super::World;
    use crate::scenario::test_support::{check, key_of, BASE};
    use crate::scenario::{parse, validate};

    #[test]
    fn a_bounded_run_ends_at_its_last_delivery_unless_told_to_run_its_duration() {
        // 100 kB over BASE's 141 Mb/s path: delivered in well under the second.
        let run = |extra: &[&str]| {
            let m = check(&[&["flow.f1.bytes=\"100000B\""][..], extra].concat()).unwrap();
            let mut w = World::new(m, true);
            assert!(w.run_observed(&mut |_, _| true));
            let done = w.flows[0].completed_at.expect("the flow completes");
            (w.now, done, w.events())
        };
        let (end, done, events) = run(&[]);
        assert_eq!(end, done, "stops at the delivery");
        let (end_d, done_d, events_d) = run(&["stop=\"duration\""]);
        assert_eq!(done_d, done, "the flow's outcome is the same");
        assert_eq!(end_d, crate::time::PS_PER_S, "runs its whole second");
        assert!(events_d > events, "and simulates what follows ({events_d} events against {events})");
        assert_eq!(run(&["stop=\"done\""]).0, end);
    }

    #[test]
    fn stop_is_refused_unless_every_flow_is_bounded() {
        // BASE's flow is unbounded: the run always lasts its duration.
        assert_eq!(key_of(&["stop=\"duration\""]), "stop");
        assert_eq!(key_of(&["stop=\"sometime\""]), "stop");
        // One bounded flow beside an unbounded one: the run lasts its duration all the same.
        let text = format!("{BASE}\n[[flow]]\nname = \"f2\"\nsrc = \"A\"\ndst = \"B\"\n");
        let sets = ["flow.f1.bytes=\"100000B\"".to_string(), "stop=\"duration\"".to_string()];
        let e = validate(&parse(&text, &sets).unwrap(), None).unwrap_err();
        assert_eq!(e.key, "stop");
        assert!(e.problem.contains("flow f2 has no bounded size"), "{e}");
    }
}

#[cfg(test)]
mod port_log_cap_tests {
    use super::World;
    use crate::scenario::test_support::check;

    #[test]
    fn a_port_log_at_its_cap_stops_the_run_and_says_so() {
        // The log keeps exactly its cap, the run stops at the next observation, and the error names the key.
        let m = check(&["trace.port=X->B", "trace.port_rows=1000", "duration=10s"]).unwrap();
        let mut w = World::new(m, true);
        let whole = w.run_observed(&mut |_, _| true);
        let e = w.port_log_overflow().expect("the log reached its cap");
        assert!(!whole && w.now < w.model.duration, "stopped early, at {}", w.now);
        assert_eq!(e.key, "trace.port_rows");
        assert!(e.problem.contains("X->B") && e.problem.contains("its 1000 rows"), "{e}");
        assert_eq!(w.traces.as_ref().unwrap().port.t.len(), 1000);
        // Under its cap a log is whole and no error is raised.
        let mut w = World::new(check(&["trace.port=X->B", "duration=10ms"]).unwrap(), true);
        assert!(w.run_observed(&mut |_, _| true) && w.port_log_overflow().is_none());
        assert!(!w.traces.as_ref().unwrap().port.t.is_empty());
    }
}
