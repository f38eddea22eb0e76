//! Closing the books: per-flow and per-port results, and the accounting
//! identity checked on every run (bytes sent = delivered + held out of
//! order + duplicate + dropped in queues + discarded at reassembly + in
//! flight; cells sent = delivered + dropped + in flight; every queue within
//! its limit) and its physical sanity (no line busier than the time that
//! passed, no more payload through any line than it carries).

use super::eqds::EqdsEnds;
use super::{Endpoints, Flow, World};
use crate::capture::write::CaptureFile;
use crate::net::drop::{DropPolicy, DropReason};
use crate::net::port::Discipline;
use crate::net::VcRole;
use crate::net::{Limit, Port};
use crate::stats::{jain_fairness, loss_episodes};
use crate::summary::{Accounting, EqdsCounts, FlowSummary, HostSummary, NdpCounts, PortSummary, PullQueueSummary, Summary};
use crate::time::{secs, Time};
use crate::trace::{TraceNames, Traces};
use crate::transport::arb::{ArbReceiver, ArbSender};
use crate::transport::tcp::congestion::Growth;
use crate::transport::tcp::{SenderState, TcpSender};

/// Bytes a flow contributes to the identity.
#[derive(Default)]
struct FlowBytes {
    sent: u64,
    delivered: u64,
    held_out_of_order: u64,
    duplicate: u64,
    /// Received by the transport (in order or not), for the cross-check
    /// against the ledger's delivered frames.
    received: u64,
}

/// A flow's summary row and its bytes. A datagram flow reports the TCP-only
/// fields (window, RTT, AFR) of an idle sender, as it always has.
fn flow_summary(name: &str, flow: &Flow, eqds: Option<&EqdsEnds>, idle: &TcpSender) -> (FlowSummary, FlowBytes) {
    let (s, b, kind, datagrams) = match &flow.endpoints {
        Endpoints::Tcp { sender, receiver } => {
            let r = &receiver.stats;
            let bytes = FlowBytes {
                sent: sender.stats.bytes_sent,
                delivered: r.bytes_delivered,
                held_out_of_order: receiver.held_out_of_order(),
                duplicate: r.bytes_duplicate,
                received: r.bytes_received,
            };
            (sender, bytes, "tcp", 0)
        }
        Endpoints::Datagram(d) => {
            let bytes = FlowBytes { sent: d.bytes_sent, delivered: d.bytes_delivered, received: d.bytes_delivered, ..Default::default() };
            (idle, bytes, "udp", d.datagrams_sent)
        }
        Endpoints::Arb { sender, receiver } => (idle, arb_bytes(sender, receiver), "arb", 0),
        Endpoints::Ndp { source, sink } => {
            let bytes = FlowBytes {
                sent: source.stats.bytes_sent,
                delivered: sink.bytes_delivered(),
                held_out_of_order: sink.held_out_of_order(),
                duplicate: sink.stats.bytes_duplicate,
                received: sink.stats.bytes_received,
            };
            (idle, bytes, "ndp", 0)
        }
        Endpoints::Eqds => {
            let EqdsEnds { source, sink } = eqds.expect("an EQDS flow's ends");
            let bytes = FlowBytes {
                sent: source.stats.bytes_sent,
                delivered: sink.bytes_delivered(),
                held_out_of_order: sink.held_out_of_order(),
                duplicate: sink.stats.bytes_duplicate,
                received: sink.stats.bytes_received,
            };
            (idle, bytes, "eqds", 0)
        }
    };
    let afr = s.cc.afr();
    let mut fs = FlowSummary {
        name: name.to_string(),
        kind,
        bytes_delivered: b.delivered,
        segments_sent: s.stats.segments_sent + datagrams,
        bytes_sent: b.sent,
        segments_retransmitted: s.stats.segments_retransmitted,
        bytes_retransmitted: s.stats.bytes_retransmitted,
        timeouts: s.stats.timeouts,
        fast_retransmits: s.stats.fast_retransmits,
        segments_lost: flow.losses.len() as u64,
        loss_episodes: 0,
        single_loss_episodes: 0,
        multiple_loss_episodes: 0,
        consecutive_loss_episodes: 0,
        loss_episode_sizes: [0; 8],
        completion_time_s: flow.completed_at.map(secs),
        srtt_s: (kind == "tcp").then(|| secs(s.srtt_exact)),
        cwnd: (kind == "tcp").then(|| s.cc.cwnd()),
        ssthresh: (kind == "tcp").then(|| s.cc.ssthresh()),
        aborted: s.state == SenderState::Aborted,
        afr_time_in_states_s: afr.map(|a| a.time_in.map(secs)),
        afr_extra_retransmits: afr.map_or(0, |a| a.extra_retransmits),
        afr_needless_extra: afr.map_or(0, |a| a.needless_extra),
        arb_rate_bps: None,
        ecn_ce_received: None,
        ecn_echoes: None,
        ecn_reductions: None,
        ecn_cwr_sent: None,
        dctcp_alpha: None,
        dctcp_alpha_updates: None,
        ndp: None,
        eqds: None,
        goodput_bps: None,
        fct_slowdown: None,
    };
    if let Endpoints::Ndp { source, sink } = &flow.endpoints {
        let st = &source.stats;
        fs.segments_sent = st.packets_sent;
        fs.segments_retransmitted = st.packets_retransmitted;
        fs.bytes_retransmitted = st.bytes_retransmitted;
        fs.ndp = Some(NdpCounts { trimmed: sink.stats.trimmed, acks: st.acks, nacks: st.nacks, pulls: st.pulls });
    }
    if let Some(EqdsEnds { source, sink }) = eqds {
        let st = &source.stats;
        fs.segments_sent = st.packets_sent;
        fs.segments_retransmitted = st.packets_retransmitted;
        fs.bytes_retransmitted = st.bytes_retransmitted;
        fs.timeouts = st.timeouts;
        let (acks, nacks, pulls, rts, timeouts) = (st.acks, st.nacks, st.pulls, st.rts_sent, st.timeouts);
        fs.eqds = Some(EqdsCounts { trimmed: sink.stats.trimmed, acks, nacks, pulls, rts, timeouts });
    }
    if let Endpoints::Tcp { sender: s, receiver: r } = &flow.endpoints {
        if let (Some(e), Some(re)) = (&s.ecn, &r.ecn) {
            fs.ecn_ce_received = Some(re.ce_received);
            fs.ecn_echoes = Some(e.stats.echoes);
            fs.ecn_reductions = Some(e.stats.reductions);
            fs.ecn_cwr_sent = Some(e.stats.cwr_sent);
        }
        if let Growth::Dctcp(d) = s.cc.growth() {
            (fs.dctcp_alpha, fs.dctcp_alpha_updates) = (Some(d.alpha()), Some(d.updates));
        }
    }
    if let Endpoints::Arb { sender, .. } = &flow.endpoints {
        arb_counts(&mut fs, sender);
    }
    fs.set_episodes(&loss_episodes(&flow.losses));
    (fs, b)
}

/// An ARB flow's bytes. Data discarded beyond a gap by the go-back-N
/// receiver is counted with duplicates: the sender sends it again.
fn arb_bytes(s: &ArbSender, r: &ArbReceiver) -> FlowBytes {
    let rs = &r.stats;
    FlowBytes {
        sent: s.stats.bytes_sent,
        delivered: rs.bytes_delivered,
        held_out_of_order: 0,
        duplicate: rs.bytes_duplicate,
        received: rs.bytes_received,
    }
}

/// An ARB flow's counts in the flow row (the TCP-only fields stay those of
/// an idle sender); NAK go-backs are reported as fast retransmits.
fn arb_counts(fs: &mut FlowSummary, s: &ArbSender) {
    let st = &s.stats;
    fs.segments_sent = st.segments_sent;
    fs.segments_retransmitted = st.segments_retransmitted;
    fs.bytes_retransmitted = st.bytes_retransmitted;
    fs.timeouts = st.timeouts;
    fs.fast_retransmits = st.naks;
    fs.arb_rate_bps = Some(s.rc.rs);
}

fn port_summary(p: &Port, horizon: Time, atm: bool) -> PortSummary {
    let units = if atm { "cells" } else { "packets" };
    let (unit, limit) = match p.limit {
        Limit::Unlimited => (units, None),
        Limit::Units(n) => (units, Some(n)),
        Limit::Bytes(b) => ("bytes", Some(b)),
    };
    let mut by = std::collections::BTreeMap::new();
    for (k, name) in DropReason::NAMES.iter().enumerate() {
        if p.stats.dropped_by[k] > 0 {
            by.insert(*name, p.stats.dropped_by[k]);
        }
    }
    PortSummary {
        name: p.name.clone(),
        unit,
        limit,
        units_in: p.stats.units_in,
        units_dropped: p.stats.units_dropped,
        drops_by_reason: by,
        peak_occupancy: p.stats.peak_occupancy,
        peak_header_bytes: match &p.discipline {
            Discipline::Trim(t) => Some(t.peak_header_bytes),
            Discipline::TrimFifo(_) => Some(p.stats.peak_header_bytes),
            _ => None,
        },
        mean_occupancy: p.mean_occupancy(horizon),
        dead_units: p.stats.dead_units,
        busy_fraction: if horizon > 0 { p.busy_until(horizon) as f64 / horizon as f64 } else { 0.0 },
        credit_cells: p.stats.credit_cells,
        units_marked: p.policy.may_mark().then_some(p.stats.units_marked),
        policy_counters: p.policy.counters().into_iter().collect(),
        occupancy_units: None,
    }
}

/// Goodput over `[measure]`'s window, bits/s: payload delivered in order
/// between its two marks (the second, if the run ended first, is the end).
fn goodput(window: Option<(Time, Time)>, marks: &[u64], delivered_at_end: u64, end: Time) -> Option<f64> {
    let (from, to) = window?;
    let start = *marks.first()?;
    let (stop, to) = match marks.get(1) {
        Some(&d) => (d, to),
        None => (delivered_at_end, end),
    };
    (to > from).then(|| (stop - start) as f64 * 8.0 / secs(to - from))
}

/// What one line did over a run, for the physical check.
struct LineLoad {
    /// Time its transmitter was busy.
    busy: Time,
    /// What its line can carry in the run's time, in bytes.
    capacity_bytes: f64,
    /// Payload delivered by the flows whose data crosses it.
    payload_bytes: u64,
}

/// Physically possible: no line busier than the time that passed, and none
/// carried more payload for the flows crossing it than its line can carry
/// in that time (so no flow or bottleneck throughput above 1).
fn physically_possible(lines: &[LineLoad], horizon: Time) -> bool {
    lines.iter().all(|l| l.busy <= horizon && l.payload_bytes as f64 <= l.capacity_bytes)
}

/// Did the port stay within its limit (per VC for a per-VC port)?
fn within_limit(p: &Port) -> bool {
    let limit = match p.limit {
        Limit::Unlimited => return true,
        Limit::Units(n) | Limit::Bytes(n) => n,
    };
    // A trimming port's data queue may end a replacement over its limit (N2, `TrimPolicy::replaced`).
    let limit = match &p.policy {
        DropPolicy::Trim(t) => limit.max(t.over_limit_by_replacement),
        _ => limit,
    };
    p.per_vc().map_or(p.stats.peak_occupancy, |pv| pv.peak_per_vc) <= limit
}

impl World {
    /// Builds the summary (and hands over the traces).
    pub fn finish(self) -> (Summary, Option<Traces>) {
        let (summary, traces, _) = self.finish_with_captures();
        (summary, traces)
    }

    /// The summary, the traces and, if captures were on, the pcap files.
    pub fn finish_with_captures(mut self) -> (Summary, Option<Traces>, Vec<CaptureFile>) {
        let boston = self.boston_summary();
        let m = &self.model;
        let horizon = self.now;
        let bn = &self.ports[m.bottleneck.ix()];
        let cap_bytes = m.bottleneck_capacity_bytes();
        let (u_max, u_common) = (m.u_max_bytes(), m.u_max_common_bytes());

        for flow in self.flows.iter_mut() {
            if let Endpoints::Tcp { sender, .. } = &mut flow.endpoints {
                if let Some(afr) = sender.cc.afr_mut() {
                    afr.finish(horizon);
                }
            }
        }
        let mut idle = TcpSender::new(&m.tcp, None);
        if let Some(afr) = idle.cc.afr_mut() {
            afr.finish(horizon);
        }
        let mut acc = Accounting::default();
        let (mut received, mut ledger_delivered) = (0u64, 0u64);
        let mut flows = Vec::new();
        for (i, flow) in self.flows.iter().enumerate() {
            let eqds = super::eqds::flow_ends(self.eqds_hosts.as_deref(), i);
            let (mut fs, b) = flow_summary(&m.flows[i].name, flow, eqds, &idle);
            fs.goodput_bps = goodput(m.measure, &flow.measured, flow.delivered(eqds), horizon);
            let led = &self.ledgers[self.vcs.payload_of(crate::net::FlowId(i as u32)).ix()];
            acc.bytes_sent += b.sent;
            acc.bytes_delivered += b.delivered;
            acc.bytes_held_out_of_order += b.held_out_of_order;
            acc.bytes_duplicate += b.duplicate;
            acc.bytes_dropped_in_queues += led.bytes_dropped;
            acc.bytes_discarded_at_reassembly += led.bytes_discarded;
            acc.bytes_trimmed += led.bytes_trimmed;
            acc.bytes_in_flight += led.bytes_in_flight();
            received += b.received;
            ledger_delivered += led.bytes_delivered;
            flows.push(fs);
        }
        // Packets inside host pipelines: sent by TCP but not yet on the link,
        // or off the link but not yet at TCP.
        let (mut host_tx, mut host_rx) = (0, 0);
        for p in self.hosts.iter().filter_map(|h| h.pipe.as_ref()) {
            let (t, r) = p.data_payload();
            host_tx += t;
            host_rx += r;
        }
        // Packets waiting out a host's random processing time.
        host_tx += self.hosts.iter().filter_map(|h| h.jitter.as_ref()).map(|j| j.waiting_payload()).sum::<u64>();
        acc.bytes_in_flight += host_tx + host_rx;
        let received_ok = ledger_delivered == received + host_rx;
        let mut frames_discarded = 0;
        for l in &self.ledgers {
            acc.cells_sent += l.cells_sent;
            acc.cells_delivered += l.cells_arrived;
            acc.cells_dropped += l.cells_dropped;
            frames_discarded += l.frames_discarded;
        }
        acc.cells_in_flight = self.ports.iter().map(|p| p.pipe.len() as u64 + p.queued_per_vc()).sum();
        // The services' cells: RM cells, cells waiting at ABR sources or in input ports.
        let [sent, delivered, dropped, in_flight] = self.services.in_flight();
        acc.cells_sent += sent;
        acc.cells_delivered += delivered;
        acc.cells_dropped += dropped;
        acc.cells_in_flight += in_flight;
        acc.queues_within_limits = self.ports.iter().all(within_limit);
        let port_drops: u64 = self.ports.iter().map(|p| p.stats.units_dropped).sum();
        let ports: Vec<PortSummary> = self.ports.iter().map(|p| port_summary(p, horizon, self.atm)).collect();
        let host_names = m.node_names.iter().zip(&m.is_host).filter(|(_, &h)| h).map(|(n, _)| n);
        let hosts: Vec<HostSummary> = host_names
            .zip(&self.hosts)
            .filter_map(|(name, h)| {
                let pipe = h.pipe.as_ref()?;
                Some(HostSummary { name: name.clone(), mean_tx_backlog_bytes: pipe.mean_tx_backlog(horizon) })
            })
            .collect();
        let host_names = m.node_names.iter().zip(&m.is_host).filter(|(_, &h)| h).map(|(n, _)| n);
        let pull_queues: Vec<PullQueueSummary> = host_names
            .zip(&self.pacers)
            .filter_map(|(name, p)| Some(PullQueueSummary { host: name.clone(), peak_pulls_waiting: p.as_ref()?.peak_waiting as u64 }))
            .collect();
        let bytes_sum = acc.bytes_delivered
            + acc.bytes_held_out_of_order
            + acc.bytes_duplicate
            + acc.bytes_dropped_in_queues
            + acc.bytes_discarded_at_reassembly
            + acc.bytes_trimmed
            + acc.bytes_in_flight;
        // Every line's load: the payload delivered by the flows whose data crosses it.
        let mut lines: Vec<LineLoad> = self
            .ports
            .iter()
            .map(|p| LineLoad { busy: p.busy_until(horizon), capacity_bytes: p.rate().bytes_in(horizon), payload_bytes: 0 })
            .collect();
        for (f, fs) in m.flows.iter().zip(&flows) {
            // A flow sprayed over many paths loads for sure only the ports all of them cross.
            for p in f.data_route.iter().filter(|p| f.data_paths.iter().all(|path| path.contains(p))) {
                lines[p.ix()].payload_bytes += fs.bytes_delivered;
            }
        }
        acc.balanced = acc.bytes_sent == bytes_sum
            && boston.iter().all(|b| b.payload_mismatches == 0)
            && received_ok
            && acc.cells_sent == acc.cells_delivered + acc.cells_dropped + acc.cells_in_flight
            && port_drops + self.services.units_dropped() == acc.cells_dropped
            && self.services.balanced()
            && acc.queues_within_limits
            && physically_possible(&lines, horizon);
        let fct_slowdown = self.fct_slowdowns(&mut flows);
        let delivered: Vec<f64> = flows.iter().map(|f| f.bytes_delivered as f64).collect();
        let total: f64 = delivered.iter().sum();
        // Fairness is over the flows the run started: a written flow always starts (one that
        // would start at or past the end is refused, `resolve/flows.rs`), but a workload's flow
        // waiting for a trigger that never fired is no share of the line, and counting its zero
        // made the index lower the shorter the run (issue 38).
        let started: Vec<f64> = (0..flows.len()).filter(|&f| self.ever_started(f)).map(|f| delivered[f]).collect();
        let dead_share = if self.atm { bn.stats.dead_units as f64 / (cap_bytes / crate::net::CELL_BYTES as f64) } else { 0.0 };
        let mut summary = Summary {
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
            fairness: jain_fairness(&started),
            flows_not_started: (flows.len() - started.len()) as u64,
            bottleneck: bn.name.clone(),
            dead_cell_share: dead_share,
            cell_loss_ratio: if acc.cells_sent > 0 { acc.cells_dropped as f64 / acc.cells_sent as f64 } else { 0.0 },
            frames_discarded_at_reassembly: frames_discarded,
            flows,
            ports,
            hosts,
            pull_queues,
            accounting: acc,
            abr: None,
            boston,
            fct_slowdown,
            capture: None,
            services: Default::default(),
        };
        let files = self.capture_files();
        self.service_summaries(&mut summary, &files);
        if !self.model.jobs.is_empty() {
            summary.services.insert("jobs", self.job_summaries());
        }
        let mut traces = self.traces.take();
        if let Some(tr) = traces.as_mut() {
            tr.names = self.trace_names();
        }
        (summary, traces, files)
    }

    /// The names of the flows, ports and VCs the traces number.
    fn trace_names(&self) -> TraceNames {
        let flows: Vec<String> = self.model.flows.iter().map(|f| f.name.clone()).collect();
        // A VC past the flows' is the ABR VBR background's (world/build.rs).
        let vc_flows = self.vcs.iter().map(|v| flows.get(v.flow.ix()).map_or_else(|| "vbr".to_string(), String::clone)).collect();
        let vc_directions = self.vcs.iter().map(|v| if v.role == VcRole::Reply { "reply" } else { "data" }).collect();
        let fabric_nodes = self.model.fabric.as_ref().map_or_else(Vec::new, |f| crate::fabric::nodes::names(&f.config.geometry));
        TraceNames { ports: self.ports.iter().map(|p| p.name.clone()).collect(), flows, vc_flows, vc_directions, fabric_nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::{physically_possible, LineLoad};

    const LINE: LineLoad = LineLoad { busy: 900, capacity_bytes: 1000.0, payload_bytes: 1000 };

    #[test]
    fn a_line_busier_than_time_or_carrying_more_than_its_capacity_is_impossible() {
        assert!(physically_possible(&[LINE, LINE], 1000));
        assert!(physically_possible(&[LineLoad { busy: 1000, ..LINE }], 1000), "busy the whole time");
        assert!(!physically_possible(&[LINE, LineLoad { busy: 1001, ..LINE }], 1000), "busier than the time that passed");
        assert!(!physically_possible(&[LineLoad { payload_bytes: 1001, ..LINE }, LINE], 1000), "more than the line carries");
    }
}
