//! Packet captures in the world: the port log's hook, shared with them (one
//! `watching` flag of the services (`services.rs`), tested once per offer),
//! and, at the end, the pcap files and the counters to check them against.

use super::service::{ServiceKind, Takes};
use super::{Endpoints, World};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::capture::write::{file_name, CaptureFile, Encoder};
use crate::capture::{Capture, CaptureError, WriteFailure};
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
    /// Turns captures on, the files kept in memory: what `[capture]` names,
    /// or by default every host of a flow and the bottleneck port. Call
    /// before `run`.
    pub fn enable_capture(&mut self) -> Result<(), ScenarioError> {
        self.enable_capture_to(None).map_err(|e| match e {
            CaptureError::Scenario(e) => e,
            CaptureError::Write(f) => unreachable!("a file in memory opens: {f:?}"),
        })
    }

    /// Turns captures on, the files written into `dir` as the run goes (in
    /// memory without one).
    pub fn enable_capture_to(&mut self, dir: Option<&std::path::Path>) -> Result<(), CaptureError> {
        check(&self.model)?;
        let c = self.model.capture.clone().unwrap_or_else(|| CaptureModel::default_for(&self.model));
        let mut cap = Capture::new(&c.ports, &c.hosts, self.ports.len(), self.hosts.len(), self.vcs.len(), self.atm);
        let names = cap.recordings.iter().map(|r| file_name(&self.model, r.point)).collect();
        cap.write_to(Encoder::new(&self.model, &self.vcs, c.snaplen), names, dir, c.max_bytes)?;
        self.services.capture(cap, !c.ports.is_empty());
        Ok(())
    }

    fn capture(&self) -> Option<&Capture> {
        self.services.watch().and_then(|w| w.capture.as_deref())
    }

    /// Must the run stop before its end? The port log or the pcap files
    /// reached their cap, or a capture file could not be written.
    pub(super) fn cap_reached(&self) -> bool {
        self.port_log_overflow().is_some() || self.capture().is_some_and(|c| c.full_at.is_some() || c.failed.is_some())
    }

    /// The error of a run whose pcap files reached `capture.max_bytes`, or None.
    pub fn capture_overflow(&self) -> Option<ScenarioError> {
        let c = self.capture()?;
        let t = c.full_at?;
        let cap = self
            .model
            .capture
            .as_ref()
            .map_or_else(|| crate::scenario::capture::DEFAULT_MAX_BYTES.to_string(), |m| format!("{} bytes", m.max_bytes));
        Some(ScenarioError {
            key: "capture.max_bytes".into(),
            problem: format!(
                "the pcap files reached their cap ({cap}) at {:.6} s of {} s; shorten the duration, capture fewer ports and hosts (capture.ports, capture.hosts) or fewer bytes of each packet (capture.snaplen), or raise capture.max_bytes",
                crate::time::secs(t),
                crate::time::secs(self.model.duration)
            ),
        })
    }

    /// The write that failed during the run, if one did.
    pub fn take_capture_failure(&mut self) -> Option<WriteFailure> {
        self.services.capture_mut()?.failed.take()
    }

    /// Closes the pcap files after the run: what left by its end written.
    pub fn close_captures(&mut self) -> Result<(), WriteFailure> {
        let now = self.now;
        self.services.capture_mut().map_or(Ok(()), |c| c.finish(now))
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
        let now = self.now;
        let Some(c) = self.services.capture_mut() else { return };
        match offer {
            Offer::Accepted { arrive_at, .. } => c.departs(p, now, arrive_at - delay, unit, seg),
            Offer::PushedOut { arrive_at, victim, shift } => {
                c.evicted(p, &victim, shift);
                c.departs(p, now, arrive_at - delay, unit, seg);
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
            c.departs(p, t, t, unit, seg);
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

    /// The pcap files, closed (by `close_captures`, or here when they are in memory).
    pub(super) fn capture_files(&mut self) -> Vec<CaptureFile> {
        let now = self.now;
        let Some(c) = self.services.capture_mut() else { return Vec::new() };
        c.finish(now).expect("files in memory are written without failure; files on disk were closed by close_captures");
        c.take_files()
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
        w.services.capture_mut().unwrap().keep_rows();
        w.run();
        w
    }

    /// The files written as the run goes, whenever a recording flushes (here
    /// at every row, the most often), are byte for byte those written from
    /// every row at the end: push-outs (random drop, drop front), ATM FIFO
    /// and per-VC ports, hosts.
    #[test]
    fn files_written_as_the_run_goes_are_those_written_at_the_end() {
        let atm = atm_routers();
        let drop_front = ROUTERS.replace("policy = \"random-drop\"\ninclude_arrival = false", "policy = \"drop-front\"");
        let cases: [(&str, &[&str]); 4] =
            [(ROUTERS, &[]), (&drop_front, &[]), (&atm, &["switch.policy=epd"]), (&atm, &["switch.queueing=per-vc"])];
        for (text, set) in cases {
            let files = |every: Option<usize>| {
                let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
                let mut w = World::new(validate(&parse(text, &set).unwrap(), None).unwrap(), false);
                w.enable_capture().unwrap();
                let c = w.services.capture_mut().unwrap();
                c.flush_every(every.unwrap_or(usize::MAX));
                w.run();
                let written_during_the_run = w.services.capture_mut().unwrap().bytes();
                w.close_captures().unwrap();
                (written_during_the_run, w.capture_files())
            };
            let ((during, streamed), (_, at_end)) = (files(Some(1)), files(None));
            let total: usize = at_end.iter().map(|f| f.bytes.len()).sum();
            assert!(during as usize > total / 2, "{set:?}: the files were written as the run went ({during} of {total} bytes)");
            assert_eq!(streamed.len(), at_end.len());
            assert!(at_end[0].packets > 100, "{set:?}: the port's file");
            for (a, b) in streamed.iter().zip(&at_end) {
                assert_eq!((&a.name, a.packets), (&b.name, b.packets), "{set:?}");
                assert!(a.bytes == b.bytes, "{set:?}: {} differs", a.name);
            }
        }
    }

    /// Files that reach `capture.max_bytes` stop the run with the key named;
    /// nothing past the cap is written.
    #[test]
    fn the_pcap_files_stop_at_their_cap() {
        // Long enough for the run to be observed (every 2^20 events) well before its end.
        let set = vec!["capture.max_bytes=200KB".to_string(), "duration=1000s".to_string()];
        let mut w = World::new(validate(&parse(ROUTERS, &set).unwrap(), None).unwrap(), false);
        w.enable_capture().unwrap();
        w.services.capture_mut().unwrap().flush_every(64);
        assert!(!w.run_observed(&mut |_, _| true), "the run stops at the cap");
        let e = w.capture_overflow().expect("the cap is named");
        assert_eq!(e.key, "capture.max_bytes", "{e}");
        assert!(w.now < 500 * crate::time::PS_PER_S, "{e}");
        assert!(w.services.capture_mut().unwrap().bytes() <= 200_000);
    }

    /// `ROUTERS` as an ATM network of tail-drop switches.
    fn atm_routers() -> String {
        ROUTERS
            .replace("\"packet\"", "\"atm\"")
            .replace("4packets", "200cells")
            .replace("[router]\npolicy = \"random-drop\"\ninclude_arrival = false\n", "")
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
        let text = atm_routers();
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
