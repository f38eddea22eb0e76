//! Packet captures in the world: the port log's hook, shared with them (one
//! `watching` flag of the services (`services.rs`), tested once per offer),
//! and, at the end, the pcap files and the counters to check them against.

use super::service::{ServiceKind, Takes};
use super::{Endpoints, World};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::capture::write::{files, CaptureFile};
use crate::capture::Capture;
use crate::net::port::Offer;
use crate::net::{FrameHeader, PortId, Unit, VcId, VcTable};
use crate::scenario::capture::{check, CaptureModel};
use crate::scenario::{Model, ScenarioError};
use crate::summary::{CaptureFileSummary, CaptureSummary, CaptureTcpCounters};
use crate::time::Time;
use crate::trace::PortChange;

/// Ports whose every change is recorded: the port log (`trace.port`) and
/// packet captures.
#[derive(Default)]
pub(super) struct Watch {
    /// The port whose changes are logged (`trace.port`, traces on).
    pub log_port: Option<PortId>,
    pub capture: Option<Box<Capture>>,
}

impl ServiceKind for Watch {
    const MECHANISM: Mechanism = Mechanism {
        name: "watch",
        selected_by: "trace.port (traces on) or --pcap",
        networks: Networks::Both,
        about: "watched ports: every change of a port logged (the port log), packets of ports and hosts written as pcap files",
        docs: "captures.md",
        keys: &[],
        counters: &["capture"],
        // The port log of Morris & Kung's Fig. 6 run (its traces' digest); captures are pinned
        // by `tests/golden.rs`'s CAPTURES.
        goldens: &[Golden { scenario: "morris-kung95-fig6", variation: "", overrides: &[] }],
    };

    /// The port log, when traces are on; captures join it (`Services::capture`).
    fn from_model(model: &Model, _: &VcTable, trace: bool) -> Option<Self> {
        let log_port = if trace { model.trace_port } else { None };
        log_port.map(|p| Watch { log_port: Some(p), capture: None })
    }

    fn takes(&self) -> Takes {
        Takes { watching: true, at_port: true, at_source: self.capture.is_some(), ..Takes::default() }
    }

    /// A captured host's packet as it is cut into a frame.
    fn cut_frame(w: &mut World, me: usize, vc: VcId, seg: &FrameHeader, _: bool, ncells: u32) -> u32 {
        let (src, now) = (w.vcs.get(vc).src, w.now);
        if let Some(c) = w.services.at_mut::<Watch>(me).capture.as_deref_mut() {
            c.at_host(src, now, vc, seg, true);
        }
        ncells
    }
}

impl World {
    /// Turns captures on: what `[capture]` names, or by default every host
    /// of a flow and the bottleneck port. Call before `run`.
    pub fn enable_capture(&mut self) -> Result<(), ScenarioError> {
        check(&self.model)?;
        let c = self.model.capture.clone().unwrap_or_else(|| CaptureModel::default_for(&self.model));
        let cap = Capture::new(&c.ports, &c.hosts, self.ports.len(), self.hosts.len(), self.vcs.len(), self.atm);
        self.services.capture(cap, !c.ports.is_empty());
        Ok(())
    }

    /// What `offer` did with a unit at a logged or captured port.
    #[cold]
    #[inline(never)]
    pub(super) fn watch_offer(&mut self, p: PortId, unit: &Unit, offer: Offer) {
        if self.services.log_port() == Some(p) {
            self.log_offer(p, unit, offer);
        }
        let delay = self.ports[p.ix()].delay;
        let mut seg = self.segment_of(unit);
        if !self.atm && matches!(offer, Offer::Accepted { .. } | Offer::PushedOut { .. }) {
            // The packet leaves as queued, with the CE mark this port may
            // have set (RFC 3168 §5): the pipe's newest entry.
            let queued = &self.ports[p.ix()].pipe.from_back(1).unit;
            if queued.is_congested() && queued.vc == unit.vc && queued.frame == unit.frame {
                seg = seg.map(FrameHeader::congestion_experienced);
            }
        }
        let Some(c) = self.services.capture_mut() else { return };
        match offer {
            Offer::Accepted { arrive_at, .. } => c.departs(p, arrive_at - delay, unit, seg),
            Offer::PushedOut { arrive_at, victim, shift } => {
                c.evicted(p, &victim, shift);
                c.departs(p, arrive_at - delay, unit, seg);
            }
            // Per-VC and priority ports: recorded when the unit leaves.
            Offer::Queued(_) | Offer::Dropped(_) | Offer::Trimmed { .. } | Offer::Placed { .. } => {}
        }
    }

    /// A per-VC or priority port's transmission of `unit` ended at `t`.
    #[cold]
    #[inline(never)]
    pub(super) fn watch_depart(&mut self, p: PortId, t: Time, unit: &Unit) {
        if self.services.log_port() == Some(p) {
            self.log(t, unit, PortChange::Depart);
        }
        let mut seg = self.segment_of(unit);
        if unit.is_congested() && !self.atm {
            seg = seg.map(FrameHeader::congestion_experienced);
        }
        if let Some(c) = self.services.capture_mut() {
            c.departs(p, t, unit, seg);
        }
    }

    /// The segment header of a unit's frame, kept once per frame in the
    /// ledger (`None` for RM and VBR cells, which belong to no frame).
    fn segment_of(&self, unit: &Unit) -> Option<FrameHeader> {
        if unit.is_frameless() {
            return None;
        }
        self.ledgers[unit.vc.ix()].header(unit.frame)
    }

    pub(super) fn capture_files(&self) -> Vec<CaptureFile> {
        let Some(c) = self.services.watch().and_then(|w| w.capture.as_deref()) else { return Vec::new() };
        let snaplen = self.model.capture.as_ref().map_or(crate::scenario::capture::DEFAULT_SNAPLEN, |m| m.snaplen);
        files(c, &self.model, &self.vcs, snaplen, self.now)
    }

    pub(super) fn capture_summary(&self, files: &[CaptureFile]) -> Option<CaptureSummary> {
        self.services.watch().and_then(|w| w.capture.as_ref())?;
        let tcp = self
            .flows
            .iter()
            .zip(&self.model.flows)
            .filter_map(|(flow, m)| match &flow.endpoints {
                Endpoints::Tcp { sender, .. } => Some(CaptureTcpCounters {
                    flow: m.name.clone(),
                    syns_sent: sender.stats.syns_sent,
                    segments_sent: sender.stats.segments_sent,
                    segments_retransmitted: sender.stats.segments_retransmitted,
                    segments_received: sender.stats.segments_received,
                    dup_acks: sender.stats.dup_acks,
                }),
                _ => None,
            })
            .collect();
        let files = files.iter().map(|f| CaptureFileSummary { name: f.name.clone(), linktype: f.linktype, packets: f.packets }).collect();
        Some(CaptureSummary { files, tcp })
    }
}

#[cfg(test)]
mod tests {
    use super::World;
    use crate::capture::Row;
    use crate::net::drop::DropReason;
    use crate::net::VcRole;
    use crate::scenario::{parse, validate};
    use crate::time::PS_PER_MS;

    fn world(text: &str, set: &[&str], trace: bool) -> World {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        let mut w = World::new(validate(&parse(text, &set).unwrap(), None).unwrap(), trace);
        w.enable_capture().unwrap();
        w.run();
        w
    }

    const ROUTERS: &str = r#"
name = "cap"
network = "packet"
duration = "5s"
[tcp]
mss = "1460B"
window = "64KB"
[switch]
buffer = "4packets"
[router]
policy = "random-drop"
include_arrival = false
[capture]
ports = ["R1->R2"]
hosts = ["C", "D"]
[topology]
hosts = ["A", "B", "C", "D"]
switches = ["R1", "R2"]
[[link]]
ends = ["A", "R1"]
rate = "100Mbps"
delay = "1us"
[[link]]
ends = ["B", "R1"]
rate = "100Mbps"
delay = "1us"
[[link]]
ends = ["R1", "R2"]
rate = "10Mbps"
delay = "5ms"
[[link]]
ends = ["R2", "C"]
rate = "100Mbps"
delay = "1us"
[[link]]
ends = ["R2", "D"]
rate = "100Mbps"
delay = "1us"
[[flow]]
name = "f1"
src = "A"
dst = "C"
[[flow]]
name = "f2"
src = "B"
dst = "D"
"#;

    /// Packets leaving a random-drop port, evictions and all, are those that
    /// reach the far hosts, each exactly one hop later: the capture follows
    /// the push-outs (the port log does not).
    #[test]
    fn a_push_out_port_capture_is_what_arrives_downstream() {
        let w = world(ROUTERS, &[], false);
        let bottleneck = &w.ports[w.model.ports.iter().position(|p| p.name == "R1->R2").unwrap()];
        assert!(bottleneck.stats.dropped_by[DropReason::RandomDrop as usize] > 10, "the test needs push-outs");
        let c = w.services.watch().and_then(|x| x.capture.as_deref()).unwrap();
        let port_rows = &c.recordings[0].rows;
        for (f, host) in [(0u32, 1), (1, 2)] {
            let data = w.vcs.iter().position(|v| v.flow.0 == f && v.role == VcRole::Data).unwrap() as u32;
            let sent: Vec<&Row> = port_rows.iter().filter(|r| r.vc.0 == data).collect();
            let got: Vec<&Row> = c.recordings[host].rows.iter().filter(|r| !r.sent && r.vc.0 == data).collect();
            assert!(got.len() > 40 && sent.len() >= got.len() && sent.len() - got.len() <= 5, "{} {}", sent.len(), got.len());
            for (s, g) in sent.iter().zip(&got) {
                let tx = w.model.ports.iter().find(|p| p.name == "R2->C").unwrap().rate.tx_time((s.seg.payload_len() + 40) as u64);
                assert_eq!((s.seg, s.t + 5 * PS_PER_MS + tx + 1_000_000), (g.seg, g.t));
            }
        }
    }

    /// On ATM the PDUs recorded at a port are the EOM departures of its
    /// port log, FIFO (departures known at arrival) or per-VC (known when
    /// they happen).
    #[test]
    fn atm_pdus_are_the_eom_departures_of_the_port_log() {
        let text = ROUTERS
            .replace("\"packet\"", "\"atm\"")
            .replace("4packets", "200cells")
            .replace("[router]\npolicy = \"random-drop\"\ninclude_arrival = false\n", "");
        for queueing in ["fifo", "per-vc"] {
            let q = format!("switch.queueing={queueing}");
            let w = world(&text, &[&q, "switch.policy=epd", "trace.port=R1->R2"], true);
            let log = &w.traces.as_ref().unwrap().port;
            let mut departs: Vec<(u64, u32, u32)> = (0..log.t.len())
                .filter(|&i| log.eom[i] && log.change[i] == crate::trace::PortChange::Depart)
                .map(|i| ((log.t[i] * 1e9).round() as u64, log.vc[i], log.frame[i]))
                .collect();
            departs.sort();
            let mut rows: Vec<(u64, u32, u32)> = w.services.watch().and_then(|x| x.capture.as_ref()).unwrap().recordings[0]
                .rows
                .iter()
                .map(|r| ((r.t as f64 / 1e3).round() as u64, r.vc.0, r.frame))
                .collect();
            rows.sort();
            assert!(rows.len() > 100, "{queueing}");
            assert_eq!(rows, departs, "{queueing}");
            assert!(w.ports.iter().any(|p| p.stats.units_dropped > 0), "{queueing}: the test needs losses");
        }
    }
}
