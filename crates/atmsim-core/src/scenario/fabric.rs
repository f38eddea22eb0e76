//! `topology.kind = "fabric"`: the hosts of a scheduled cell fabric and the
//! one switch, "fabric", that stands for it in routes (from a host's point
//! of view the fabric is one big switch; docs/fabric.md), generated into
//! `[topology]` and `[[link]]` so that they validate as if written by hand;
//! and `[fabric]` resolved into a [`FabricModel`], every parameter checked
//! against the ones it relates to.

use super::model::{FabricModel, PortModel};
use super::routing::Nodes;
use super::schema::{HostKind, LinkSpec, Network, Scenario, Topology, TopologyKind};
use super::schema_fabric::FabricSection;
use super::units::{parse_bytes, parse_rate, parse_time, short_float};
use super::{err, ScenarioError};
use crate::fabric::{CrsThresholds, FabricConfig, Geometry};
use crate::net::{Limit, PortId};
use crate::time::{Rate, Time};

/// The name of the switch that stands for the fabric.
pub const FABRIC_NODE: &str = "fabric";

/// Most FAPs (a cell names its destination FAP in one byte).
pub const MAX_FAPS: u32 = 256;

/// Most VOQs (faps² × ports_per_fap), and most fabric links or elements.
pub const MAX_VOQS: u64 = 1 << 22;
pub const MAX_LINKS: u32 = 1024;

fn section(s: &Scenario) -> FabricSection {
    s.fabric.clone().unwrap_or_default()
}

/// Every Credit is a control cell, and control cells go before data on a
/// FAP's links: a FAP whose ports all grant at their pace (port rate × (1 +
/// overspeed) / credit_worth credits a second each) must fit those cells on
/// its links, or they queue without end (fabric-incast with 1-B credits held
/// 4 GB after 60 s of wall time and had not finished 20 ms).
fn credits_fit(f: &FabricSection, port_rate: Rate, link_rate: Rate, credit_worth: u64, wire: u64) -> Result<(), ScenarioError> {
    let granted = f.ports_per_fap as f64 * port_rate.bits_per_second() * (1.0 + f.scheduler.overspeed);
    let links = f.fap_links as f64 * link_rate.bits_per_second();
    if granted * wire as f64 > links * credit_worth as f64 {
        let least = (granted * wire as f64 / links).ceil();
        if least > 8191.0 {
            // No credit may be worth that much: the links (or ports) are what to change, not fabric.credit_worth.
            let key = if f.port_rate != FabricSection::default().port_rate { "fabric.port_rate" } else { "fabric.link_rate" };
            let (gbps, most) = (granted * wire as f64 / 8191.0 / 1e9, links / 1e9);
            return err(key, format!("a FAP's {} links carry {most:.1} Gb/s, less than the {gbps:.1} Gb/s of Credit cells its {} ports grant even at the largest credit (8,191 B): faster or more links, or fewer or slower ports", f.fap_links, f.ports_per_fap));
        }
        return err(
            "fabric.credit_worth",
            format!(
                "{credit_worth} B: a FAP's {} ports granting at their rate would send {:.1} Gb/s of Credit cells ({wire} B each on the wire), more than its {} links carry ({:.1} Gb/s); at least {least} B here",
                f.ports_per_fap,
                granted * wire as f64 / credit_worth as f64 / 1e9,
                f.fap_links,
                links / 1e9
            ),
        );
    }
    Ok(())
}

/// The scenario with the fabric's hosts and links written out, if its
/// topology is a fabric.
pub fn expand(s: &Scenario) -> Result<Option<Scenario>, ScenarioError> {
    if s.topology.kind != TopologyKind::Fabric {
        super::inert::fabric_elsewhere(s)?;
        return Ok(None);
    }
    let t = &s.topology;
    for (set, key) in [
        (!t.hosts.is_empty(), "topology.hosts"),
        (!t.switches.is_empty(), "topology.switches"),
        (!s.links.is_empty(), "link"),
        (t.k.is_some(), "topology.k"),
        (t.tiers.is_some(), "topology.tiers"),
        (t.host_count.is_some(), "topology.host_count"),
        (t.rate.is_some(), "topology.rate"),
        (t.delay.is_some(), "topology.delay"),
        (t.switch_latency.is_some(), "topology.switch_latency"),
        (!t.port_rate.is_empty(), "topology.port_rate"),
    ] {
        if set {
            return err(key, "does nothing here: topology.kind = \"fabric\" generates the hosts and their links from [fabric]");
        }
    }
    let f = section(s);
    if f.faps == 0 || f.faps > MAX_FAPS {
        return err("fabric.faps", format!("must be 1 to {MAX_FAPS}, not {}", f.faps));
    }
    if f.ports_per_fap == 0 {
        return err("fabric.ports_per_fap", "must be at least 1");
    }
    // One VOQ and one reassembly stream per (FAP, egress port): bounded so
    // that their arenas fit a machine (about 100 bytes each).
    let voqs = f.faps as u64 * f.faps as u64 * f.ports_per_fap as u64;
    if voqs > MAX_VOQS {
        return err(
            "fabric.ports_per_fap",
            format!("{} FAPs of {} ports make {voqs} VOQs (faps² × ports_per_fap), more than {MAX_VOQS}", f.faps, f.ports_per_fap),
        );
    }
    // The generated links carry these two: checked here, so that an error names the key written.
    rate("fabric.port_rate", &f.port_rate)?;
    parse_time(&f.port_delay).or_else(|p| err("fabric.port_delay", p))?;
    let hosts = f.faps * f.ports_per_fap;
    let mut out = s.clone();
    out.links = (0..hosts)
        .map(|h| LinkSpec {
            ends: [format!("h{h}"), FABRIC_NODE.to_string()],
            rate: f.port_rate.clone(),
            delay: f.port_delay.clone(),
            buffer: None,
        })
        .collect();
    out.topology = Topology {
        kind: TopologyKind::Explicit,
        hosts: (0..hosts).map(|h| format!("h{h}")).collect(),
        switches: vec![FABRIC_NODE.to_string()],
        ..t.clone()
    };
    Ok(Some(out))
}

fn bytes(key: &str, text: &str) -> Result<u64, ScenarioError> {
    parse_bytes(text).or_else(|p| err(key, p))
}

/// A threshold in bytes that may be negative ("-38KB").
fn signed_bytes(key: &str, text: &str) -> Result<i64, ScenarioError> {
    let (sign, rest) = match text.trim().strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, text),
    };
    let b = bytes(key, rest)?;
    match i64::try_from(b) {
        Ok(b) if b < 1 << 40 => Ok(sign * b),
        _ => err(key, format!("'{text}' is beyond any buffer (at most 1 TB)")),
    }
}

fn rate(key: &str, text: &str) -> Result<Rate, ScenarioError> {
    parse_rate(text).or_else(|p| err(key, p))
}

/// A rate times (1 + ppm/10^6), exactly.
pub fn scaled(r: Rate, ppm: u64) -> Option<Rate> {
    Rate::new(r.bits as u128 * (1_000_000 + ppm as u128), r.ps as u128 * 1_000_000)
}

/// A fraction of a rate (ppm/10^6), exactly.
pub fn fraction(r: Rate, ppm: u64) -> Option<Rate> {
    Rate::new(r.bits as u128 * ppm as u128, r.ps as u128 * 1_000_000)
}

/// `[fabric]` resolved against the ports built from the generated links.
pub fn resolve(
    s: &Scenario,
    nodes: &Nodes,
    ports: &[PortModel],
    mtu_wire: u64,
    duration: Time,
) -> Result<Option<FabricModel>, ScenarioError> {
    if s.topology.kind != TopologyKind::Fabric {
        // Every flow is in class 0 of a network without classes: only another is refused.
        if let Some(f) = s.flows.iter().find(|f| f.tc.is_some_and(|tc| tc > 0)) {
            return err(
                format!("flow[{}].tc", f.name),
                "does nothing here: traffic classes are a scheduled fabric's (topology.kind = \"fabric\")",
            );
        }
        return Ok(None);
    }
    if s.network != Network::Packet {
        return err("topology.kind", "\"fabric\" needs network = \"packet\": hosts send packets, the fabric cuts them into its own cells");
    }
    // Morris & Kung's adapter pipeline is not wired through the fabric's VOQs: a run with it lost
    // track of bytes (fabric-incast: 30 MB sent, 2.97 MB delivered, 14.4 MB in flight, the rest nowhere).
    if s.host.model == HostKind::Adapter {
        return err(
            "host.model",
            "\"adapter\" is not modelled on a scheduled fabric (topology.kind = \"fabric\"): its hosts are ideal (host.model = \"ideal\")",
        );
    }
    let f = section(s);
    // With no FE a FAP's links lead nowhere: named as fabric.fes (it was refused as fabric.fap_links).
    if f.fes == 0 || f.fes > MAX_LINKS {
        return err(
            "fabric.fes",
            format!("must be 1 to {MAX_LINKS} (each fabric element takes at least one of a FAP's links), not {}", f.fes),
        );
    }
    if f.fap_links == 0 || !f.fap_links.is_multiple_of(f.fes) || f.fap_links > MAX_LINKS {
        return err(
            "fabric.fap_links",
            format!("must be a positive multiple of fabric.fes ({}) up to {MAX_LINKS}, not {}", f.fes, f.fap_links),
        );
    }
    let link_rate = rate("fabric.link_rate", &f.link_rate)?;
    let port_rate = rate("fabric.port_rate", &f.port_rate)?;
    let link_delay = parse_time(&f.link_delay).or_else(|p| err("fabric.link_delay", p))?;
    let skew = parse_time(&f.link_skew).or_else(|p| err("fabric.link_skew", p))?;
    if skew > 0 && f.fap_links == 1 {
        return err("fabric.link_skew", "does nothing here: with one link per FAP there is nothing to spread it over");
    }
    let cell_payload = bytes("fabric.cell_payload", &f.cell_payload)?;
    if !(1..=16_384).contains(&cell_payload) {
        return err("fabric.cell_payload", format!("must be 1 B to 16 KB, not {cell_payload} B"));
    }
    let cell_header = bytes("fabric.cell_header", &f.cell_header)?;
    if cell_header > 1024 {
        return err("fabric.cell_header", format!("must be at most 1 KB, not {cell_header} B"));
    }
    let packing = match f.packing.as_str() {
        "off" => false,
        "continuous" => true,
        other => return err("fabric.packing", format!("must be \"off\" or \"continuous\", not \"{other}\"")),
    };
    let least_loaded = match f.spray.as_str() {
        "round-robin" => false,
        "least-loaded" => true,
        other => return err("fabric.spray", format!("must be \"round-robin\" or \"least-loaded\", not \"{other}\"")),
    };
    let credit_worth = bytes("fabric.credit_worth", &f.credit_worth)?;
    if !(1..=8191).contains(&credit_worth) {
        return err("fabric.credit_worth", format!("must be 1 to 8,191 bytes (the Broadcom SDK's range), not {credit_worth}"));
    }
    let control_bytes = bytes("fabric.control_bytes", &f.control_bytes)?;
    if !(1..=cell_payload).contains(&control_bytes) {
        return err("fabric.control_bytes", format!("must be 1 B to a cell's payload ({cell_payload} B), not {control_bytes} B"));
    }
    let voq_buffer = bytes("fabric.voq.buffer", &f.voq.buffer)?;
    if voq_buffer < mtu_wire {
        return err("fabric.voq.buffer", format!("must hold at least one largest packet ({mtu_wire} B), not {voq_buffer} B"));
    }
    let voq_ecn_above = super::fabric_ecn::ecn_above(&f, voq_buffer)?;
    let c = &f.crs;
    let crs = CrsThresholds {
        off_to_slow: signed_bytes("fabric.crs.off_to_slow", &c.off_to_slow)?,
        off_to_norm: signed_bytes("fabric.crs.off_to_norm", &c.off_to_norm)?,
        norm_to_slow: signed_bytes("fabric.crs.norm_to_slow", &c.norm_to_slow)?,
        satisfied_backoff: signed_bytes("fabric.crs.satisfied_backoff", &c.satisfied_backoff)?,
        satisfied_backlog: signed_bytes("fabric.crs.satisfied_backlog", &c.satisfied_backlog)?,
        empty_off: signed_bytes("fabric.crs.empty_off", &c.empty_off)?,
        max_empty_balance: signed_bytes("fabric.crs.max_empty_balance", &c.max_empty_balance)?,
    };
    if crs.off_to_slow > 0 {
        return err(
            "fabric.crs.off_to_slow",
            "must be at most 0 B: above it a VOQ holding fewer bytes would never ask for credit and keep its packets for good",
        );
    }
    for (key, v) in [("fabric.crs.satisfied_backoff", crs.satisfied_backoff), ("fabric.crs.satisfied_backlog", crs.satisfied_backlog)] {
        if v < 0 {
            return err(key, "must be at least 0 B: below it a VOQ with packets and no credit would count as satisfied and never ask");
        }
    }
    if crs.off_to_norm < crs.off_to_slow {
        return err("fabric.crs.off_to_norm", "must be at least fabric.crs.off_to_slow (NORM asks more than SLOW)");
    }
    if i64::try_from(voq_buffer).is_ok_and(|b| crs.off_to_norm >= b) {
        // Qsize never exceeds the FAP's VOQ buffer (and CrBal is above minus one packet).
        return err(
            "fabric.crs.off_to_norm",
            format!("must be below fabric.voq.buffer ({voq_buffer} B): a VOQ never holds more, so it would never turn NORM"),
        );
    }
    if crs.norm_to_slow > crs.off_to_norm {
        return err("fabric.crs.norm_to_slow", "must be at most fabric.crs.off_to_norm (else a VOQ would leave NORM as it enters it)");
    }
    if crs.max_empty_balance < 0 || crs.max_empty_balance < crs.empty_off {
        return err(
            "fabric.crs.max_empty_balance",
            "must be at least 0 and at least fabric.crs.empty_off (an empty queue could never turn OFF)",
        );
    }
    if !(c.slow_rate > 0.0 && c.slow_rate <= 1.0) {
        return err("fabric.crs.slow_rate", format!("must be in (0, 1] (a fraction of the port rate), not {}", short_float(c.slow_rate)));
    }
    let sc = &f.scheduler;
    if !(0.0..=1.0).contains(&sc.overspeed) {
        return err("fabric.scheduler.overspeed", format!("must be 0 to 1, not {}", short_float(sc.overspeed)));
    }
    credits_fit(&f, port_rate, link_rate, credit_worth, control_bytes + cell_header)?;
    let egress_stop = bytes("fabric.scheduler.egress_stop", &sc.egress_stop)?;
    let egress: Vec<PortId> = (0..f.faps * f.ports_per_fap)
        .map(|h| {
            let name = format!("{FABRIC_NODE}->h{h}");
            PortId(ports.iter().position(|p| p.name == name).expect("generated") as u32)
        })
        .collect();
    let buffer = ports[egress[0].ix()].limit;
    let room = match buffer {
        Limit::Bytes(b) => Some(b),
        Limit::Units(n) => Some(n.saturating_mul(mtu_wire)),
        Limit::Unlimited => None,
    };
    if egress_stop == 0 || room.is_some_and(|r| egress_stop >= r) {
        // The buffer in the user's words ("Bytes(1000000)" before: issue 38, rule 7).
        let held = match (buffer, room) {
            (Limit::Units(n), Some(r)) => format!("{n} packets, {r} B"),
            (_, Some(r)) => format!("{r} B"),
            (_, None) => "unbounded".to_string(),
        };
        return err(
            "fabric.scheduler.egress_stop",
            format!("must be above 0 and below the egress port's buffer ({held}), not {egress_stop} B: at the buffer it would never pause"),
        );
    }
    if s.router.policy == "trim" {
        return err("router.policy", "\"trim\" is not for a fabric's egress ports (they are FIFOs the credit scheduler keeps short)");
    }
    let llfc_n3 = match f.llfc.n3 {
        Some(0) => return err("fabric.llfc.n3", "must be at least 1"),
        Some(n) => n,
        // Enough for a round trip: the cells a link sends while its first
        // cell crosses and its credit comes back, plus one.
        None => {
            let cell_time = link_rate.tx_time(cell_payload + cell_header).max(1);
            let worst = link_delay + skew;
            (2 * worst + cell_time).div_ceil(cell_time) + 1
        }
    };
    if f.llfc.n2 == 0 || f.llfc.n2 > 1_000_000 {
        return err("fabric.llfc.n2", format!("must be 1 to 1,000,000, not {}", f.llfc.n2));
    }
    let geometry = stages(&f, Geometry::new(f.faps, f.fes, f.fap_links, f.ports_per_fap, link_delay, skew), link_delay)?;
    let reassembly_timeout = parse_time(&f.reassembly_timeout).or_else(|p| err("fabric.reassembly_timeout", p))?;
    if reassembly_timeout == 0 {
        return err("fabric.reassembly_timeout", "must be above 0");
    }
    let detect = parse_time(&f.reach.detect).or_else(|p| err("fabric.reach.detect", p))?;
    let failures = super::fabric_fail::failures(&f, &geometry, link_rate)?;
    if let Some(n) = f.fail.iter().position(|spec| parse_time(&spec.at).is_ok_and(|t| t >= duration)) {
        return err(format!("fabric.fail[{n}].at"), "does nothing here: it is at or after the run's end (duration)");
    }
    // Cells are lost only when a link goes down: without such a failure
    // these two keys do nothing.
    if !failures.iter().any(|l| l.rate.is_none()) {
        let defaults = super::schema_fabric::FabricSection::default();
        if f.reach.detect != defaults.reach.detect {
            return err("fabric.reach.detect", "does nothing here: no [[fabric.fail]] takes a link down");
        }
        if f.reassembly_timeout != defaults.reassembly_timeout {
            return err("fabric.reassembly_timeout", "does nothing here: no [[fabric.fail]] takes a link down, so no cell is lost");
        }
    }
    // Balanced input acts on a FAP that loses links from the fabric.
    let down_toward_a_fap = failures.iter().any(|l| l.rate.is_none() && l.links.iter().any(|&k| geometry.to_fap(k)));
    if f.reach.balanced_input && !down_toward_a_fap {
        return err(
            "fabric.reach.balanced_input",
            "does nothing here: no [[fabric.fail]] takes down a link toward a FAP (a link down with dir \"both\" or \"down\")",
        );
    }
    let (tcs, class_weights) = classes(s, &f)?;
    let class_priorities = class_priorities(&f)?;
    let ppm = |x: f64| (x * 1e6).round() as u64;
    let mut port_of_node = vec![u32::MAX; nodes.names.len()];
    for (g, p) in egress.iter().enumerate() {
        port_of_node[ports[p.ix()].to.ix()] = g as u32;
    }
    let mut config = FabricConfig {
        geometry,
        link_rate,
        cell_payload: cell_payload as u32,
        cell_header: cell_header as u32,
        packing,
        least_loaded,
        credit_worth: credit_worth as u32,
        control_bytes: control_bytes as u32,
        voq_buffer,
        voq_ecn_above,
        crs,
        overspeed_ppm: ppm(sc.overspeed),
        egress_stop,
        slow_ppm: ppm(c.slow_rate),
        llfc: (f.llfc.n2 + llfc_n3, f.llfc.n2),
        reassembly_timeout,
        detect,
        balanced_input: f.reach.balanced_input,
        failures,
        strict: f.scheduler.strict,
        weights: class_weights,
        class_priorities,
    };
    if scaled(port_rate, config.overspeed_ppm).is_none() || fraction(port_rate, config.slow_ppm).is_none() {
        return err("fabric.port_rate", "cannot be scaled exactly by the overspeed and slow rate (write it in whole bits per second)");
    }
    let tc_of_flow = if s.workload.is_some() { Vec::new() } else { s.flows.iter().map(|fl| fl.tc.unwrap_or(0) as u8).collect() };
    config.geometry.tcs = tcs;
    Ok(Some(FabricModel { config, egress, port_of_node, tc_of_flow }))
}

/// `fabric.tcs`, the scheduler's class keys and the flows' `tc`, checked:
/// the class count and the weights of the classes not in strict priority.
fn classes(s: &Scenario, f: &FabricSection) -> Result<(u32, Vec<u32>), ScenarioError> {
    let sc = &f.scheduler;
    if !(1..=8).contains(&f.tcs) {
        return err("fabric.tcs", format!("must be 1 to 8, not {}", f.tcs));
    }
    if f.tcs == 1 && (sc.strict != 0 || !sc.weights.is_empty()) {
        let key = if sc.strict != 0 { "fabric.scheduler.strict" } else { "fabric.scheduler.weights" };
        return err(key, "does nothing here: there is one traffic class (fabric.tcs = 1)");
    }
    if sc.strict > f.tcs {
        return err("fabric.scheduler.strict", format!("must be at most fabric.tcs ({}), not {}", f.tcs, sc.strict));
    }
    let weighted = (f.tcs - sc.strict) as usize;
    if !sc.weights.is_empty() && (sc.weights.len() != weighted || sc.weights.contains(&0)) {
        return err(
            "fabric.scheduler.weights",
            format!("must give {weighted} weights of at least 1 (one per class below the {} strict ones)", sc.strict),
        );
    }
    for fl in &s.flows {
        if let Some(tc) = fl.tc.filter(|&tc| tc >= f.tcs) {
            return err(format!("flow[{}].tc", fl.name), format!("must be below fabric.tcs ({}), not {tc}", f.tcs));
        }
    }
    // Under a workload the generated flows are all in class 0.
    let used = s.workload.is_none() && s.flows.iter().any(|fl| fl.tc.is_some_and(|tc| tc > 0));
    if f.tcs > 1 && !used {
        return err("fabric.tcs", "does nothing here: every flow is in class 0 (give a [[flow]] a tc above 0)");
    }
    let weights = if sc.weights.is_empty() { vec![1; weighted] } else { sc.weights.clone() };
    Ok((f.tcs, weights))
}

/// `fabric.class_priorities`: one cell priority per class, 0 to 2 (3 is
/// the control cells'); refused where it orders nothing (one class, or
/// every class at one priority other than the default 0).
fn class_priorities(f: &FabricSection) -> Result<Vec<u8>, ScenarioError> {
    let p = &f.class_priorities;
    let top = crate::fabric::PRIORITIES as u32 - 2;
    if p.is_empty() || p.iter().all(|&x| x == 0) && p.len() == f.tcs as usize {
        return Ok(Vec::new());
    }
    if f.tcs == 1 {
        return err("fabric.class_priorities", "does nothing here: there is one traffic class (fabric.tcs = 1)");
    }
    if p.len() != f.tcs as usize || p.iter().any(|&x| x > top) {
        return err(
            "fabric.class_priorities",
            format!("must give {} priorities, one per class, each 0 to {top} ({} is the control cells')", f.tcs, top + 1),
        );
    }
    if p.iter().all(|&x| x == p[0]) {
        return err(
            "fabric.class_priorities",
            "does nothing here: every class is at one priority (their data cells cross the fabric alike)",
        );
    }
    Ok(p.iter().map(|&x| x as u8).collect())
}

/// `fabric.stages` and the keys of a three-stage shape, each refused where
/// it does nothing; the FE2 links take `fabric.link_delay`.
fn stages(f: &FabricSection, g: Geometry, delay: Time) -> Result<Geometry, ScenarioError> {
    let three = [("fabric.group_faps", f.group_faps), ("fabric.fe2s", f.fe2s), ("fabric.fe2_links", f.fe2_links)];
    match f.stages {
        1 => {
            if let Some((key, _)) = three.iter().find(|(_, v)| v.is_some()) {
                return err(*key, "does nothing here: it shapes a three-stage fabric (fabric.stages = 3)");
            }
            return Ok(g);
        }
        3 => {}
        n => return err("fabric.stages", format!("must be 1 or 3, not {n}")),
    }
    let Some(group) = f.group_faps.filter(|&n| n >= 1 && f.faps.is_multiple_of(n)) else {
        return err(
            "fabric.group_faps",
            match f.group_faps {
                Some(n) => format!("three stages need FAPs per group, a divisor of fabric.faps ({}), not {n}", f.faps),
                None => format!("three stages need FAPs per group, a divisor of fabric.faps ({}): set it", f.faps),
            },
        );
    };
    let Some(fe2s) = f.fe2s.filter(|&n| n >= 1) else {
        // The value as written ("not Some(0)", "not None" before: issue 38, rule 7).
        let not = f.fe2s.map_or(": set it".to_string(), |n| format!(", not {n}"));
        return err("fabric.fe2s", format!("three stages need at least one FE2{not}"));
    };
    let fe2_links = f.fe2_links.unwrap_or(1);
    // Each FE13 sprays over its links up: bounded as a FAP's links are, and
    // all of them together as the link arena's ids (u32) allow.
    let per_fe13 = fe2s as u64 * fe2_links as u64;
    let all = 2 * per_fe13 * (f.faps / group * f.fes) as u64;
    if fe2_links == 0 || per_fe13 > MAX_LINKS as u64 || all > MAX_VOQS {
        return err(
            "fabric.fe2_links",
            format!(
                "must be at least 1, with fe2s × fe2_links up to {MAX_LINKS} per FE13 and {MAX_VOQS} FE2 links in all, not {fe2_links}"
            ),
        );
    }
    Ok(g.three_stages(group, fe2s, fe2_links, delay))
}
