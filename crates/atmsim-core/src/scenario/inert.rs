//! The keys of the schema's own sections (`[atm]`, `[tcp]`, `[switch]`,
//! `[router]`, `[credit]`, `[host]`, `[trace]`) that do nothing in a scenario
//! as resolved, in one table
//! ([`inert`]) read both ways: validation refuses such a key set off its
//! default ([`refuse`]; issue 38, rule 1: a key whose value has no effect is
//! an error), and `atmsim show` leaves it out ([`hide`]), so what show
//! prints is what takes effect. A registered mechanism's keys follow the
//! same rule in `params::refuse_inert`; `[arb]` is left to `overrides.rs`
//! and `resolve/arb.rs`, since an ARB scenario's file keeps its own `[arb]`
//! for the runs that make its flows ARB. Before: eqds-one and fabric-incast
//! took `tcp.variant`, `tcp.window`, ... silently; morris-kung95-a ran
//! `credit.transport = "out-of-band"` with credit off as if unset; and show
//! printed `[credit]`, the adapters' rates and `tcp.afr_predictor` where they
//! did nothing, but left `trace.port_rows` out where a port was logged; it
//! also printed `[router]` on ATM networks, `[switch]`'s ATM keys and
//! `[credit]` on packet networks, and `[credit]` with credit off.

use super::schema::{FlowKind, Network, Scenario};
use super::units::{parse_rate, parse_time};
use super::{registry, ScenarioError};
use crate::scenario::schema_hosts::HostKind;

/// Keys of one section that do nothing here.
enum Keys {
    Only(&'static [&'static str]),
    AllBut(&'static [&'static str]),
}

struct Inert {
    section: &'static str,
    keys: Keys,
    why: String,
}

/// Every key of the schema's sections that does nothing in `s`, whose
/// flows are of `kinds`, with why in the user's words.
fn inert(s: &Scenario, kinds: &[FlowKind]) -> Vec<Inert> {
    let mut out = Vec::new();
    let tcp = kinds.iter().any(|k| matches!(k, FlowKind::Tcp | FlowKind::Arb));
    if !tcp {
        // Only the MSS, which sizes the other kinds' packets too, takes effect.
        out.push(Inert {
            section: "tcp",
            keys: Keys::AllBut(&["mss"]),
            why: "no flow of this scenario is TCP (its [tcp] keys configure TCP flows)".into(),
        });
    } else if let Some(v) = registry::find("tcp.variant", &s.tcp.variant)
        .ok()
        .and_then(|m| crate::transport::tcp::congestion::variant(m.name))
        .filter(|v| !v.afr)
    {
        out.push(Inert {
            section: "tcp",
            keys: Keys::Only(&["afr_predictor"]),
            why: format!("AFR runs with an \"-afr\" variant, and tcp.variant = \"{}\"", v.name()),
        });
    }
    match s.network {
        Network::Packet => {
            // A packet network's links carry IP packets whole: no cells, no AAL5.
            out.push(Inert { section: "atm", keys: Keys::AllBut(&[]), why: "it is for ATM cells, and network = \"packet\"".into() });
            // Its switching nodes are IP routers: `switch.buffer` sizes their ports; queueing, the
            // drop policy and input service are ATM switches' (a router drops by router.policy).
            out.push(Inert {
                section: "switch",
                keys: Keys::AllBut(&["buffer"]),
                why: "it is for ATM switches, and network = \"packet\" (routers take switch.buffer alone; they drop by router.policy)"
                    .into(),
            });
            // N23 credit runs per VC on ATM links (Morris & Kung's CreditNet).
            out.push(Inert {
                section: "credit",
                keys: Keys::AllBut(&[]),
                why: "credit flow control is for ATM links, and network = \"packet\"".into(),
            });
        }
        Network::Atm => {
            // No IP router runs on an ATM network: its switches drop by switch.policy.
            out.push(Inert {
                section: "router",
                keys: Keys::AllBut(&[]),
                why: "it is for IP routers, and network = \"atm\" (its switches drop by switch.policy)".into(),
            });
            if !s.credit.enabled {
                // `enabled = false` restates the default, so it is never refused, only left out of show.
                out.push(Inert {
                    section: "credit",
                    keys: Keys::AllBut(&[]),
                    why: "credit flow control is off (set credit.enabled = true to use it)".into(),
                });
            }
        }
    }
    match s.host.model {
        // Morris & Kung's hosts (§III) have a CPU and a bus; ideal hosts have neither.
        HostKind::Ideal => out.push(Inert {
            section: "host",
            keys: Keys::Only(&["tcp_rate", "bus_rate"]),
            why: "hosts are ideal (host.model = \"adapter\" uses it)".into(),
        }),
        HostKind::Adapter => out.push(Inert {
            section: "host",
            keys: Keys::Only(&["send_jitter"]),
            why: "it is for ideal hosts (host.model = \"ideal\"), and host.model = \"adapter\"".into(),
        }),
    }
    if s.trace.port.is_none() {
        out.push(Inert {
            section: "trace",
            keys: Keys::Only(&["port_rows"]),
            why: "it caps the port log, but no port is logged (set trace.port)".into(),
        });
    }
    out
}

/// The scenario's sections as TOML tables.
fn tables(s: &Scenario) -> toml::Table {
    match toml::Value::try_from(s) {
        Ok(toml::Value::Table(t)) => t,
        _ => unreachable!("a scenario serialises as a table"),
    }
}

/// The keys of `section` in `t` that `keys` names.
fn named<'t>(t: &'t toml::Table, section: &str, keys: &Keys) -> Vec<(&'t String, &'t toml::Value)> {
    let Some(toml::Value::Table(sec)) = t.get(section) else { return Vec::new() };
    sec.iter()
        .filter(|(k, _)| match keys {
            Keys::Only(names) => names.contains(&k.as_str()),
            Keys::AllBut(names) => !names.contains(&k.as_str()),
        })
        .collect()
}

/// Does `value` say what `default` says? Times and rates compare as
/// quantities ("0s" is "0us").
fn same(value: &toml::Value, default: Option<&toml::Value>) -> bool {
    match (value, default) {
        (_, None) => false,
        (toml::Value::String(a), Some(toml::Value::String(b))) => {
            a == b
                || matches!((parse_time(a), parse_time(b)), (Ok(x), Ok(y)) if x == y)
                || matches!((parse_rate(a), parse_rate(b)), (Ok(x), Ok(y)) if x == y)
        }
        (a, Some(b)) => a == b,
    }
}

/// Refuses a key of [`inert`] set to other than its default.
pub(super) fn refuse(s: &Scenario, kinds: &[FlowKind]) -> Result<(), ScenarioError> {
    let mut d = s.clone();
    (d.atm, d.tcp, d.switch, d.router, d.credit, d.host, d.trace) = Default::default();
    let (set, default) = (tables(s), tables(&d));
    for i in inert(s, kinds) {
        let defaults = default.get(i.section).and_then(|v| v.as_table());
        if let Some((k, _)) = named(&set, i.section, &i.keys).into_iter().find(|(k, v)| !same(v, defaults.and_then(|d| d.get(k.as_str()))))
        {
            return Err(ScenarioError { key: format!("{}.{k}", i.section), problem: format!("does nothing here: {}", i.why) });
        }
    }
    Ok(())
}

/// Leaves the keys of [`inert`] out of `table`, `s` as TOML (for `atmsim
/// show`), and a section left empty (`[atm]` on a packet network).
pub(super) fn hide(table: &mut toml::Table, s: &Scenario, kinds: &[FlowKind]) {
    for i in inert(s, kinds) {
        let Some(toml::Value::Table(sec)) = table.get_mut(i.section) else { continue };
        sec.retain(|k, _| match &i.keys {
            Keys::Only(names) => !names.contains(&k),
            Keys::AllBut(names) => names.contains(&k),
        });
        if sec.is_empty() {
            table.remove(i.section);
        }
    }
}
