//! What every queue of a run may hold together (issue 38, rule 3). Each
//! queue has a limit — a switch or router port its buffer (`switch.buffer`,
//! a link's `buffer`, with credit `credit.n2` + `credit.n3` cells), a
//! fabric's VOQs theirs per FAP (`fabric.voq.buffer`), a fabric link's far
//! end `fabric.llfc.n2` + `fabric.llfc.n3` cells, a host what its UDP
//! sources' excess leaves (`backlog.rs`) — but a limit may be set past the
//! machine's memory, and a run that fills such a queue grows until it is
//! killed. So the worst case of all of them full at once, at
//! [`QUEUED_UNIT_BYTES`] a queued cell or packet, is bounded here by
//! [`MAX_QUEUED_BYTES`] before the run starts, naming the key that sizes
//! most of it and the most it may be here.

use super::backlog::Waiting;
use super::tcp::Sizes;
use super::{err, ScenarioError};
use crate::net::drop::DropSpec;
use crate::net::trim_fifo::TrimFifo;
use crate::net::Limit;
use crate::scenario::model::{App, FabricModel, FlowModel, PortModel, UDP_HEADER_BYTES};
use crate::scenario::schema::Scenario;
use crate::scenario::stop::Stop;
use crate::scenario::Network;
use crate::transport::tcp::TcpConfig;
use std::collections::BTreeMap;

/// Memory of one queued cell or packet; defined beside the host backlog,
/// which prices its own bound with it (so this module depends on that one
/// and not the other way round).
pub use super::backlog::QUEUED_UNIT_BYTES;

/// Most memory all the queues of a run may hold together, full at once:
/// 8 GB, half of a 16-GB machine's, so that a run that fills every queue
/// still fits beside the rest (docs/performance.md, "What bounds a
/// validated run's memory"). A bound on the worst case: the built-ins come
/// to at most 56 % of it (eqds-perm-1024's 5,120 trimming ports, each
/// counted as full of 64-B headers), and use far less.
pub const MAX_QUEUED_BYTES: u64 = 8_000_000_000;

/// The fewest bytes of a packet the run's flows send, so the most packets
/// a byte limit holds: a TCP or ARB ACK is `ip.header_bytes`, NDP's and
/// EQDS's headers alone (trimmed, ACK, PULL) their `header_bytes`, a UDP
/// datagram its payload (the last one of a bounded flow what is left) and
/// an IP and a UDP header (RFC 791, RFC 768).
fn fewest_packet_bytes(flows: &[FlowModel], header_bytes: u32) -> u64 {
    let least = flows.iter().map(|f| match &f.app {
        App::Tcp | App::Arb(_) => header_bytes,
        App::Ndp(c) => c.header,
        App::Eqds(c) => c.header,
        App::Cbr { payload, .. } => {
            let last = f.bytes.map_or(0, |b| (b % *payload as u64) as u32);
            UDP_HEADER_BYTES + if last > 0 { last.min(*payload) } else { *payload }
        }
    });
    least.min().unwrap_or(header_bytes).max(1) as u64
}

/// How a key's limit is written, to say the most it may be in its words.
#[derive(Clone, Copy, PartialEq)]
enum Words {
    Cells,
    Packets,
    /// Bytes, each queue holding at most one packet per `least` (the run's
    /// fewest packet bytes) for each of its `sides` byte limits.
    Bytes {
        least: u64,
        sides: u64,
    },
    /// N2 + N3 cells, the key the larger of the two: the most it may be is
    /// what is left beside the other (`other`, named `name`).
    CellsAbove {
        other: u64,
        name: &'static str,
    },
    /// A host's backlog: its sources' rates, with no one limit per queue.
    Rate,
    /// A window in packets (NDP's and EQDS's).
    Window,
    /// A TCP window in bytes, this many of them a queued unit.
    WindowBytes(f64),
}

/// The queues one key sizes.
struct Part {
    queues: u64,
    /// The most units one of them holds (the largest, for a host's backlog).
    each: f64,
    total: f64,
    words: Words,
}

/// The words of an N2 + N3 allowance of `sum` cells, named by the larger part.
fn above(sum: u64, n2: u64) -> Words {
    let n3 = sum - n2;
    if n2 > n3 {
        Words::CellsAbove { other: n3, name: "N3" }
    } else {
        Words::CellsAbove { other: n2, name: "N2" }
    }
}

/// Adds one queue of `units` to `key`'s part.
fn add(parts: &mut BTreeMap<String, Part>, key: String, units: f64, words: Words) {
    let p = parts.entry(key).or_insert(Part { queues: 0, each: 0.0, total: 0.0, words });
    p.queues += 1;
    p.each = p.each.max(units);
    p.total += units;
}

/// The key that sizes port `i`'s queue (as `ports.rs` reads it). Port `i`
/// is link `i / 2`'s (`ports.rs`: two a link, in link order): a map from
/// port names, 331k of them for a k = 48 tree, took 340 ms to build and
/// 100 ms more to free, without a question (`stop.rs`).
fn port_key(s: &Scenario, i: usize) -> String {
    let l = &s.links[i / 2];
    match (&l.buffer, s.credit.enabled) {
        (_, true) => (if s.credit.n2 > s.credit.n3 { "credit.n2" } else { "credit.n3" }).to_string(),
        (Some(_), false) => format!("link[{}-{}].buffer", l.ends[0], l.ends[1]),
        (None, false) => "switch.buffer".to_string(),
    }
}

/// What each windowed flow may have sent and not yet had acknowledged,
/// waiting at its host or in the network, in units: its window, or all of
/// its bytes if fewer. An NDP source sends `ndp.initial_window` packets at
/// once, unpulled (N7): 2 × 10^6 of them held 0.9 GB in a 1-ms run, and
/// 2 × 10^7 ended in an allocation failure (issue 38's fuzz round).
fn windows(
    parts: &mut BTreeMap<String, Part>,
    atm: bool,
    flows: &[FlowModel],
    sizes: &Sizes,
    tcp: &TcpConfig,
    stop: &mut Stop,
) -> Result<(), ScenarioError> {
    // A segment of a full MSS is one packet, or its cells on ATM.
    let cells = if atm { sizes.encap.cells(sizes.max_ip()) as f64 } else { 1.0 };
    for f in flows {
        stop.tick()?;
        let segments = |window: u64, mss: u64| {
            let w = window.div_ceil(mss.max(1));
            f.bytes.map_or(w, |b| w.min(b.div_ceil(mss.max(1)))) as f64
        };
        match &f.app {
            App::Tcp => {
                let units = segments(f.window.unwrap_or(tcp.snd_buf), tcp.mss as u64) * cells;
                let key = if f.window.is_some() { format!("flow[{}].window", f.name) } else { "tcp.window".into() };
                add(parts, key, units, Words::WindowBytes(tcp.mss as f64 / cells));
            }
            App::Ndp(c) => {
                add(parts, "ndp.initial_window".into(), segments(c.initial_window as u64 * c.mss as u64, c.mss as u64), Words::Window)
            }
            App::Eqds(c) => {
                let mss = (c.mtu - c.header) as u64;
                add(parts, "eqds.cwnd".into(), segments(c.cwnd as u64 * mss, mss), Words::Window)
            }
            App::Arb(_) | App::Cbr { .. } => {}
        }
    }
    Ok(())
}

/// A trimming port's books count its bytes in 32 bits (`net/trim_fifo.rs`):
/// its data queue is at most [`TrimFifo::MAX_LIMIT_BYTES`]. Checked once the
/// run's queues fit the cap, whose refusal says more (a port this large
/// fits the cap only if the run's packets are long).
fn trimming_ports_count_in_32_bits(s: &Scenario, ports: &[PortModel]) -> Result<(), ScenarioError> {
    for (i, p) in ports.iter().enumerate() {
        let (DropSpec::Trim(_), Limit::Bytes(bytes)) = (p.drop, p.limit) else { continue };
        if bytes > TrimFifo::MAX_LIMIT_BYTES {
            let most = TrimFifo::MAX_LIMIT_BYTES;
            return err(
                port_key(s, i),
                format!("{bytes} B is too large for a trimming port (at most {most} B, 1 GiB; its header queue holds twice as much)"),
            );
        }
    }
    Ok(())
}

/// Refuses a run whose queues, every one full, could hold more than
/// [`MAX_QUEUED_BYTES`] at [`QUEUED_UNIT_BYTES`] a unit. `stop`: asked once
/// a port and a flow (a k = 48 tree's 166k ports, with a TCP permutation's
/// 27,648 flows, took 655 ms without a question).
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    s: &Scenario,
    ports: &[PortModel],
    flows: &[FlowModel],
    sizes: &Sizes,
    tcp: &TcpConfig,
    waits: &[Waiting],
    fabric: Option<&FabricModel>,
    stop: &mut Stop,
) -> Result<(), ScenarioError> {
    let least = fewest_packet_bytes(flows, sizes.header_bytes);
    let mut parts: BTreeMap<String, Part> = BTreeMap::new();
    assert_eq!(ports.len(), 2 * s.links.len(), "two ports a link");
    for (i, p) in ports.iter().enumerate() {
        stop.tick()?;
        let (units, words) = match (p.limit, p.credit) {
            (Limit::Units(n), Some((_, n2))) => (n as f64, above(n, n2)),
            (Limit::Units(n), None) if s.network == Network::Atm => (n as f64, Words::Cells),
            (Limit::Units(n), None) => (n as f64, Words::Packets),
            // A trimming port holds its data queue and a header queue of
            // twice its bytes (NDP N3, `net/trim.rs`).
            (Limit::Bytes(b), _) if matches!(p.drop, DropSpec::Trim(_)) => ((3 * (b / least)) as f64, Words::Bytes { least, sides: 3 }),
            (Limit::Bytes(b), _) => ((b / least) as f64, Words::Bytes { least, sides: 1 }),
            (Limit::Unlimited, _) => continue,
        };
        add(&mut parts, port_key(s, i), units, words);
    }
    for w in waits {
        add(&mut parts, w.key.clone(), w.units, Words::Rate);
    }
    windows(&mut parts, s.network == Network::Atm, flows, sizes, tcp, stop)?;
    if let Some(f) = fabric {
        let c = &f.config;
        for _ in 0..c.geometry.faps {
            add(&mut parts, "fabric.voq.buffer".into(), (c.voq_buffer / least) as f64, Words::Bytes { least, sides: 1 });
        }
        let (buf, n2) = c.llfc;
        let links = c.geometry.link_count() as u64;
        let key = if n2 > buf - n2 { "fabric.llfc.n2" } else { "fabric.llfc.n3" };
        parts.insert(key.into(), Part { queues: links, each: buf as f64, total: links as f64 * buf as f64, words: above(buf, n2) });
    }
    let cap = (MAX_QUEUED_BYTES / QUEUED_UNIT_BYTES) as f64;
    let all: f64 = parts.values().map(|p| p.total).sum();
    if all <= cap {
        return trimming_ports_count_in_32_bits(s, ports);
    }
    let (key, top) = parts.iter().max_by(|a, b| a.1.total.total_cmp(&b.1.total)).expect("a total past the cap has a part");
    let unit = if s.network == Network::Atm { "cells" } else { "packets" };
    let held = match top.words {
        Words::Rate => format!("its UDP sources could leave up to {:.0} {unit} waiting at the host", top.each),
        _ if top.queues == 1 => format!("its queue could hold {:.0} {unit}", top.each),
        _ => format!("its {} queues could hold {:.0} {unit} together ({:.0} each)", top.queues, top.total, top.each),
    };
    // The most the key may be with the others as they are, in its own words.
    let room = ((cap - (all - top.total)) / top.queues as f64).floor();
    let others = format!("the run's other queues alone could hold {:.0}: lower them too", all - top.total);
    let most = match top.words {
        Words::Rate => "send at most the link's rate, fewer bytes or for a shorter duration".to_string(),
        _ if room < 1.0 => others,
        Words::Cells => format!("at most {room:.0} cells here"),
        Words::Packets => format!("at most {room:.0} packets here"),
        Words::Bytes { least, sides } => {
            let trim = if sides > 1 { ", and a trimming port holds headers of twice its bytes" } else { "" };
            format!("at most {:.0} B here (the run's smallest packets are {least} B{trim})", (room / sides as f64).floor() * least as f64)
        }
        Words::CellsAbove { other, name } if room > other as f64 => {
            format!("at most {:.0} here (cells beyond {name} = {other})", room - other as f64)
        }
        Words::CellsAbove { .. } => others,
        Words::Window => format!("at most {room:.0} packets here"),
        Words::WindowBytes(per) => format!("at most {:.0} B here", room * per),
    };
    err(
        key.clone(),
        format!(
            "{held}, and the run's queues {all:.0} in all if every one fills: about {:.1} GB at {QUEUED_UNIT_BYTES} bytes a queued {}, more than the {:.0} GB a run's queues may hold (docs/performance.md); {most}",
            all * QUEUED_UNIT_BYTES as f64 / 1e9,
            &unit[..unit.len() - 1],
            MAX_QUEUED_BYTES as f64 / 1e9,
        ),
    )
}

#[cfg(test)]
#[path = "queue_memory_tests.rs"]
mod tests;
