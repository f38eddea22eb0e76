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

use super::schema::{AtmSection, FlowKind, Network, Scenario, TcpSection, TopologyKind};
use super::schema_fabric::FabricSection;
use super::schema_hosts::{CreditSection, HostSection};
use super::schema_packet::RouterSection;
use super::schema_switch::SwitchSection;
use super::schema_trace::TraceSection;
use super::units::{parse_rate, parse_time};
use super::{registry, ScenarioError};
use crate::scenario::schema_hosts::HostKind;
use std::borrow::Cow;

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

/// The sections [`inert`] names, as TOML tables: the whole scenario and a
/// copy of it were serialised, flows and all (a 186,000-flow workload: 0.8
/// s of its 2 s validation, with no question whether to stop, `stop.rs`).
fn tables(s: &Sections) -> toml::Table {
    match toml::Value::try_from(s) {
        Ok(toml::Value::Table(t)) => t,
        _ => unreachable!("sections serialise as a table"),
    }
}

/// The sections whose keys may do nothing, as the scenario names them.
#[derive(Default, serde::Serialize)]
struct Sections<'s> {
    atm: Cow<'s, AtmSection>,
    tcp: Cow<'s, TcpSection>,
    switch: Cow<'s, SwitchSection>,
    router: Cow<'s, RouterSection>,
    credit: Cow<'s, CreditSection>,
    host: Cow<'s, HostSection>,
    trace: Cow<'s, TraceSection>,
}

impl<'s> Sections<'s> {
    fn of(s: &'s Scenario) -> Self {
        Sections {
            atm: Cow::Borrowed(&s.atm),
            tcp: Cow::Borrowed(&s.tcp),
            switch: Cow::Borrowed(&s.switch),
            router: Cow::Borrowed(&s.router),
            credit: Cow::Borrowed(&s.credit),
            host: Cow::Borrowed(&s.host),
            trace: Cow::Borrowed(&s.trace),
        }
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
    let (set, default) = (tables(&Sections::of(s)), tables(&Sections::default()));
    for i in inert(s, kinds) {
        let defaults = default.get(i.section).and_then(|v| v.as_table());
        if let Some((k, _)) = named(&set, i.section, &i.keys).into_iter().find(|(k, v)| !same(v, defaults.and_then(|d| d.get(k.as_str()))))
        {
            return Err(ScenarioError { key: format!("{}.{k}", i.section), problem: format!("does nothing here: {}", i.why) });
        }
    }
    Ok(())
}

/// `[fabric]` where the topology is not the fabric: refused by the first key
/// set off its default, named in full (`fabric.voq.buffer`), not by the
/// section's name, which told the user neither what they wrote nor why; a
/// `[fabric]` that only restates defaults is no error (rule 1), and show
/// leaves it out.
pub(super) fn fabric_elsewhere(s: &Scenario) -> Result<(), ScenarioError> {
    let Some(f) = s.fabric.as_ref().filter(|_| s.topology.kind != TopologyKind::Fabric) else { return Ok(()) };
    let (set, default) = (toml::Value::try_from(f), toml::Value::try_from(FabricSection::default()));
    let (Ok(set), Ok(default)) = (set, default) else { unreachable!("a section serialises") };
    let Some(key) = off_default("fabric", &set, Some(&default)) else { return Ok(()) };
    let topology = match s.topology.kind {
        TopologyKind::Fattree => "topology.kind = \"fattree\" builds a fat tree of switches",
        _ => "this scenario's hosts, switches and links are written out",
    };
    Err(ScenarioError {
        key,
        problem: format!(
            "does nothing here: it configures a scheduled cell fabric, and {topology} (topology.kind = \"fabric\" generates a fabric)"
        ),
    })
}

/// The first key below `path` whose value is not its default, if any.
fn off_default(path: &str, value: &toml::Value, default: Option<&toml::Value>) -> Option<String> {
    match (value, default) {
        (toml::Value::Table(t), Some(toml::Value::Table(d))) => {
            t.iter().find_map(|(k, v)| off_default(&format!("{path}.{k}"), v, d.get(k)))
        }
        (v, d) => (!same(v, d)).then(|| path.to_string()),
    }
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

#[cfg(test)]
mod tests {
    use crate::scenario::schema_fabric::FabricSection;
    use crate::scenario::schema_keys::{keys, shape, Shape};
    use crate::scenario::test_support::BASE;
    use crate::scenario::{parse, to_toml, validate, ScenarioError};
    use toml::Value;

    /// A value of `shape` other than `default`: a number one more, a quantity's number one more
    /// ("400Gbps" -> "401Gbps"), a word changed, a list of one item.
    fn off(shape: &Shape, default: Option<&Value>) -> Value {
        match (shape, default) {
            (Shape::Optional(inner), d) => off(inner, d),
            (Shape::Int, Some(Value::Integer(n))) => Value::Integer(n + 1),
            (Shape::Int, _) => Value::Integer(2),
            (Shape::Real, Some(Value::Float(x))) => Value::Float(x + 0.5),
            (Shape::Real, _) => Value::Float(0.5),
            (Shape::Bool, Some(Value::Boolean(b))) => Value::Boolean(!b),
            (Shape::Bool, _) => Value::Boolean(true),
            (Shape::Text, Some(Value::String(t))) => {
                let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
                Value::String(match t[..digits].parse::<u64>() {
                    Ok(n) => format!("{}{}", n + 1, &t[digits..]),
                    Err(_) => format!("{t}-other"),
                })
            }
            (Shape::Text, _) => Value::String("1B".into()),
            (Shape::List(item), _) => Value::Array(vec![off(item, None)]),
            (Shape::Table(fields), d) => Value::Table(fields.iter().map(|(k, s)| (k.clone(), off(s, d.and_then(|d| d.get(k))))).collect()),
        }
    }

    /// `[fabric]` with `key` (dotted, from "fabric.") set to `value`, as a file writes it.
    fn fabric_with(key: &str, value: Value) -> String {
        let mut v = value;
        for part in key.split('.').skip(1).collect::<Vec<_>>().into_iter().rev() {
            v = Value::Table([(part.to_string(), v)].into_iter().collect());
        }
        toml::to_string(&[("fabric".to_string(), v)].into_iter().collect::<toml::Table>()).unwrap()
    }

    fn check(text: &str) -> Result<String, ScenarioError> {
        let s = parse(text, &[])?;
        validate(&s, None).map(|_| to_toml(&s))
    }

    #[test]
    fn every_fabric_key_off_its_default_is_refused_by_its_own_name_where_the_topology_is_not_a_fabric() {
        // Issue 38: `fabric.voq.buffer` on a written topology was refused as "fabric: does nothing
        // here", naming neither the key nor what the scenario's topology is. Every key the section's
        // type declares (traced from its Deserialize, not listed by hand), on a written topology and
        // a generated fat tree.
        let fattree = include_str!("../../../../python/atmsim/scenarios/ndp-in-out.toml");
        let default = Value::try_from(FabricSection::default()).unwrap();
        let all = keys("fabric", &shape::<FabricSection>());
        assert!(all.len() >= 30, "{all:?}");
        for (key, shape) in &all {
            let d = key.split('.').skip(1).try_fold(&default, |t, k| t.get(k));
            let written = fabric_with(key, off(shape, d));
            for (base, topology) in [(BASE, "written out"), (fattree, "fat tree")] {
                let e = check(&format!("{base}\n{written}")).expect_err(&written);
                assert_eq!(&e.key, key, "{written}: {e}");
                assert!(
                    e.problem.starts_with("does nothing here: it configures a scheduled cell fabric") && e.problem.contains(topology),
                    "{e}"
                );
                assert!(!e.to_string().contains('\n'), "{e}");
            }
        }
        // And as --set writes it, for a key of a nested table.
        let e = validate(&parse(BASE, &["fabric.voq.buffer=1MB".into()]).unwrap(), None).unwrap_err();
        assert_eq!(e.key, "fabric.voq.buffer", "{e}");
    }

    #[test]
    fn a_fabric_section_that_restates_its_defaults_is_no_error_and_show_leaves_it_out() {
        for (key, _) in keys("fabric", &shape::<FabricSection>()) {
            let d = key.split('.').skip(1).try_fold(&Value::try_from(FabricSection::default()).unwrap(), |t, k| t.get(k)).cloned();
            let Some(d) = d.filter(|d| !d.is_table()) else { continue }; // keys without a default are never restated
            let shown = check(&format!("{BASE}\n{}", fabric_with(&key, d))).unwrap();
            assert!(!shown.contains("fabric"), "{key}: {shown}");
        }
    }
}
