//! Flow completion times against the unloaded ideal (docs/fabrics.md,
//! "Outputs"): per flow that completed — NDP, EQDS, or TCP on a packet
//! network — its FCT slowdown, and per run the slowdown's 50th, 99th and
//! 99.9th percentiles by flow-size class, as datacenter studies report them.
//!
//! The ideal is the same flow's bytes alone on an idle network: its first
//! packet stored and forwarded hop by hop, the rest streamed behind it at the
//! slowest line of its route, plus, for NDP and EQDS, the final ACK's way back
//! (each hop's header time and delay), the instant the sender counts the flow
//! complete. A TCP flow completes when its last byte reaches the receiver, so
//! its ideal has no way back; its handshake and slow start count against it,
//! as they would against it beside a transport that has neither.

use super::World;
use crate::scenario::{App, FlowModel};
use crate::summary::{FctClass, FlowSummary};
use crate::time::{secs, Time};

/// Upper ends of the flow-size classes (payload bytes): < 100 KB, < 1 MB, < 10 MB, the rest.
const CLASSES: [(u64, &str); 4] = [(100_000, "<100KB"), (1_000_000, "100KB-1MB"), (10_000_000, "1MB-10MB"), (u64::MAX, ">=10MB")];

impl World {
    /// The unloaded ideal FCT of flow `f`, a transfer of `bytes` payload in
    /// packets of `mss` payload and `header` bytes.
    fn ideal_fct(&self, f: &FlowModel, bytes: u64, mss: u64, header: u64, ack_back: bool) -> Time {
        let ports = &self.model.ports;
        let packets = bytes.div_ceil(mss);
        let first = bytes.min(mss) + header;
        let wire = bytes + packets * header;
        let slowest = f.data_route.iter().map(|p| ports[p.ix()].rate).min_by_key(|r| r.tx_time(1 << 20)).expect("a route");
        let through: Time = f.data_route.iter().map(|p| ports[p.ix()].rate.tx_time(first) + ports[p.ix()].delay).sum();
        let back: Time =
            if ack_back { f.ack_route.iter().map(|p| ports[p.ix()].rate.tx_time(header) + ports[p.ix()].delay).sum() } else { 0 };
        through + slowest.tx_time(wire - first) + back
    }

    /// Each completed flow's slowdown into its row (NDP, EQDS, and TCP on a
    /// packet network: an ATM route's wire is cells), and the run's
    /// percentiles by size class.
    pub(super) fn fct_slowdowns(&self, rows: &mut [FlowSummary]) -> Vec<FctClass> {
        let mut by_class: Vec<Vec<f64>> = vec![Vec::new(); CLASSES.len()];
        for (i, ((f, flow), row)) in self.model.flows.iter().zip(&self.flows).zip(rows.iter_mut()).enumerate() {
            let (mss, header, ack_back) = match f.app {
                App::Ndp(cfg) => (cfg.mss as u64, cfg.header as u64, true),
                App::Eqds(cfg) => ((cfg.mtu - cfg.header) as u64, cfg.header as u64, true),
                App::Tcp if !self.atm => (self.model.tcp.mss as u64, self.model.header_bytes as u64, false),
                _ => continue,
            };
            let (Some(bytes), Some(done)) = (f.bytes, flow.completed_at) else { continue };
            let slowdown = secs(done - self.started_at(i, f)) / secs(self.ideal_fct(f, bytes, mss, header, ack_back));
            row.fct_slowdown = Some(slowdown);
            let class = CLASSES.iter().position(|&(hi, _)| bytes < hi).expect("the last class is open");
            by_class[class].push(slowdown);
        }
        CLASSES
            .iter()
            .zip(by_class)
            .filter(|(_, v)| !v.is_empty())
            .map(|(&(_, name), mut v)| {
                v.sort_by(f64::total_cmp);
                FctClass { class: name, flows: v.len() as u64, p50: rank(&v, 0.5), p99: rank(&v, 0.99), p999: rank(&v, 0.999) }
            })
            .collect()
    }
}

/// The nearest-rank `q`-quantile of sorted values.
fn rank(sorted: &[f64], q: f64) -> f64 {
    let k = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn nearest_rank_quantiles() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!((rank(&v, 0.5), rank(&v, 0.99), rank(&v, 0.999)), (500.0, 990.0, 999.0));
        assert_eq!(rank(&[7.0], 0.999), 7.0);
    }

    #[test]
    fn a_lone_ndp_flow_completes_close_to_its_ideal() {
        // One 1-MB NDP flow on an idle k = 4 tree: slowdown just above 1 (the first window and the
        // pulls' clocking), never below.
        let text = include_str!("../../../../python/atmsim/scenarios/ndp-in-out.toml");
        let o: Vec<String> =
            ["topology.k=4", "flow.A-B.dst=h15", "flow.A-B.bytes=1MB", "duration=10ms", "measure.from=1ms", "measure.to=10ms"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        let mut s = crate::scenario::parse(text, &o).unwrap();
        s.flows.truncate(1);
        let m = crate::scenario::validate(&s, None).unwrap();
        let mut w = super::World::new(m, false);
        w.run();
        let (summary, _) = w.finish();
        let sd = summary.flows[0].fct_slowdown.expect("completed");
        assert!((1.0..1.2).contains(&sd), "{sd}");
        eprintln!("slowdown of a lone 1-MB NDP flow: {sd}");
        assert_eq!(summary.fct_slowdown.len(), 1);
        assert_eq!(
            (summary.fct_slowdown[0].class, summary.fct_slowdown[0].flows),
            ("1MB-10MB", 1),
            "classes are [lo, hi): 1 MB is in 1MB-10MB"
        );
    }

    fn lone_flow(scenario: &str, overrides: &[&str]) -> crate::summary::Summary {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let mut s = crate::scenario::parse(scenario, &o).unwrap();
        s.flows.truncate(1);
        let mut w = super::World::new(crate::scenario::validate(&s, None).unwrap(), false);
        w.run();
        w.finish().0
    }

    #[test]
    fn a_lone_tcp_flow_is_slowed_by_its_handshake_and_slow_start_and_atm_has_no_ideal() {
        // One 1-MB TCP flow alone on aron97's packet network (141 Mb/s, 60 ms of round trip): the
        // ideal is its bytes' 57 ms at line rate plus one way; the handshake (a round trip) and
        // slow start from one segment (about 5 more) come on top.
        let text = include_str!("../../../../python/atmsim/scenarios/aron97-topo1-packet.toml");
        let s = lone_flow(text, &["flow.f1.bytes=1MB", "duration=2s"]);
        let sd = s.flows[0].fct_slowdown.expect("completed");
        assert!((3.0..10.0).contains(&sd), "{sd}");
        assert_eq!((s.fct_slowdown.len(), s.fct_slowdown[0].class), (1, "1MB-10MB"));
        let atm = include_str!("../../../../python/atmsim/scenarios/aron97-topo1-atm.toml");
        let s = lone_flow(atm, &["flow.f1.bytes=1MB", "duration=2s"]);
        assert!(s.flows[0].completion_time_s.is_some() && s.flows[0].fct_slowdown.is_none());
    }
}
