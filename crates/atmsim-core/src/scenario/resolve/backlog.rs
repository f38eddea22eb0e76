//! What may wait at a host (issue 38, rules 2 and 3). A host's own port
//! has no limit — a host holds its own data rather than lose it
//! (`Limit::Unlimited`, `ports.rs`) — so what bounds its queue is what its
//! senders offer: TCP, ARB, NDP and EQDS by their windows and credit, a
//! constant-rate UDP source by nothing but its rate against the link. One
//! offered faster than its host's link leaves the excess waiting in memory,
//! about 128 bytes a packet (a unit, its place in the link's pipe and its
//! header in the ledger): the fuzzer (seed 3803) ran fabric-incast with a
//! flow at 65,536 Gb/s into a 400-Gb/s port, 2^62 bytes to send, and its
//! 20 ms left about 39 million datagrams waiting, 3.9 GB resident. So the
//! most that may wait at a host by the end of the run is bounded here,
//! before it starts, naming the flow's rate.

use super::{err, ScenarioError};
use crate::atm::aal5::Encapsulation;
use crate::base::CELL_BYTES;
use crate::scenario::model::{App, FlowModel, PortModel, UDP_HEADER_BYTES};
use crate::scenario::Network;
use crate::time::{secs, Time};
use std::collections::BTreeMap;

/// Memory of one queued cell or packet: its 24-byte entry (arrival time
/// and unit) in a ring that doubles as it grows, and the sender's record of
/// it in the ledger. Measured: 3 × 10^6 UDP packets held at R1->R2 of
/// aron97-topo1-packet took 113 bytes each more than 100 did (peak resident,
/// docs/performance.md "What bounds a validated run's memory"); rounded up.
pub const QUEUED_UNIT_BYTES: u64 = 128;

/// Most units (cells or packets) that may wait at one host: about 1.1 GB
/// at [`QUEUED_UNIT_BYTES`] a packet; all the hosts' together, with the
/// switches' queues, are bounded in `queue_memory.rs`.
pub const MAX_WAITING_UNITS: u64 = 1 << 23;

/// What the constant-rate sources of one host port offer.
struct Offered {
    /// Bits a second on the wire, all of them together.
    bps: f64,
    /// Wire bytes they send in all, if every one is bounded.
    bytes: Option<f64>,
    /// The earliest start.
    from: Time,
    /// The fewest wire bytes of one unit (a cell, or the smallest datagram).
    unit: f64,
    /// The fastest of them (rate, flow index): the one the error names.
    top: (f64, usize),
}

/// Units that may wait at one host by the end of the run, and the key that
/// sizes them (its fastest source's rate): one of the run's queues that
/// `queue_memory.rs` adds up.
pub(super) struct Waiting {
    pub units: f64,
    pub key: String,
}

/// Refuses a run in which more than [`MAX_WAITING_UNITS`] units could wait
/// at a host: its constant-rate UDP sources together faster than its link,
/// for long enough. The bound is what the excess over the link's rate
/// leaves by the end of the run, or every byte they send, whichever is less.
/// Returns what may wait at each host that could hold a backlog.
pub(super) fn host_backlog(
    network: Network,
    encap: Encapsulation,
    flows: &[FlowModel],
    ports: &[PortModel],
    duration: Time,
) -> Result<Vec<Waiting>, ScenarioError> {
    let mut waits = Vec::new();
    let mut by_port: BTreeMap<usize, Offered> = BTreeMap::new();
    for (i, f) in flows.iter().enumerate() {
        let (App::Cbr { payload, rate: Some(rate) }, Some(p)) = (&f.app, f.data_route.first()) else { continue };
        let ip = payload + UDP_HEADER_BYTES;
        let (wire, unit) = match network {
            Network::Atm => (encap.cells(ip) * CELL_BYTES, CELL_BYTES),
            Network::Packet => (ip, ip),
        };
        let per_payload = wire as f64 / *payload as f64;
        let bps = rate.bits_per_second() * per_payload;
        let bytes = f.bytes.map(|b| b as f64 * per_payload);
        let o = by_port.entry(p.ix()).or_insert(Offered { bps: 0.0, bytes: Some(0.0), from: f.start, unit: unit as f64, top: (bps, i) });
        o.bps += bps;
        o.bytes = o.bytes.zip(bytes).map(|(a, b)| a + b);
        o.from = o.from.min(f.start);
        o.unit = o.unit.min(unit as f64);
        if bps > o.top.0 {
            o.top = (bps, i);
        }
    }
    for (p, o) in by_port {
        let link = ports[p].rate.bits_per_second();
        let excess = o.bps - link;
        if excess <= 0.0 {
            continue;
        }
        let waiting = (excess / 8.0 * secs(duration.saturating_sub(o.from))).min(o.bytes.unwrap_or(f64::INFINITY));
        let units = waiting / o.unit;
        let f = &flows[o.top.1];
        if units > MAX_WAITING_UNITS as f64 {
            return err(
                format!("flow[{}].rate", f.name),
                format!(
                    "the UDP sources of {} send {:.3} Gb/s on the wire into its {:.3} Gb/s link ({}): the excess waits at the host, up to {:.0} {} by the end of the run (about {:.1} GB of memory), more than the {MAX_WAITING_UNITS} a host may hold; send at most the link's rate, fewer bytes (flow[{}].bytes) or for a shorter duration",
                    ports[p].name.split("->").next().unwrap_or("the host"),
                    o.bps / 1e9,
                    link / 1e9,
                    ports[p].name,
                    units,
                    if network == Network::Atm { "cells" } else { "packets" },
                    units * QUEUED_UNIT_BYTES as f64 / 1e9,
                    f.name,
                ),
            );
        }
        waits.push(Waiting { units, key: format!("flow[{}].rate", f.name) });
    }
    Ok(waits)
}

#[cfg(test)]
mod tests {
    use super::MAX_WAITING_UNITS;
    use crate::scenario::test_support::check;

    /// BASE's f1 (A -> X at 141.33 Mb/s) as a UDP source of 9,100-B datagrams (one a packet, 9,128 B on
    /// the wire; 191 cells on ATM).
    fn udp(rate: &str, more: &[&str]) -> Result<crate::scenario::Model, crate::scenario::ScenarioError> {
        let r = format!("flow.f1.rate={rate}");
        check(&[&["flow.f1.kind=udp", r.as_str(), "flow.f1.datagram=9100B"], more].concat())
    }

    #[test]
    fn a_source_faster_than_its_link_for_long_enough_is_refused_naming_its_rate() {
        // 1000 × the link for 50,000 s: about 1.8 × 10^13 cells would wait at A.
        let e = udp("141.33Gbps", &["duration=50000s"]).unwrap_err();
        assert_eq!(e.key, "flow[f1].rate", "{e}");
        assert!(e.problem.contains("waits at the host") && e.problem.contains("A->X") && !e.problem.contains('\n'), "{e}");
    }

    #[test]
    fn the_bound_is_the_excess_over_the_run_or_every_byte_sent_whichever_is_less() {
        // At the link's rate or below, nothing waits for long, however long the run.
        assert!(udp("100Mbps", &["duration=50000s"]).is_ok());
        // Twice the link's rate in payload: 314.4 Mb/s of cells on the wire, 173.1 Mb/s of excess, which
        // leaves 2^23 cells (444.6 MB) waiting after about 20.5 s: 15 s is accepted, 30 s refused.
        assert!(udp("282.66Mbps", &["duration=15s"]).is_ok());
        assert_eq!(udp("282.66Mbps", &["duration=30s"]).unwrap_err().key, "flow[f1].rate");
        // A bounded source's bytes bound it too: 100 MB can never be 2^23 cells waiting.
        assert!(udp("141.33Gbps", &["duration=50000s", "flow.f1.bytes=100MB"]).is_ok());
        assert!(MAX_WAITING_UNITS as f64 * 53.0 > 100e6 * 1.2);
    }
}
