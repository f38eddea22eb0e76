//! Every mechanism a scenario can select, read from the registries of the
//! layers below (one line per mechanism there): the one place the scenario
//! layer learns what exists. Error messages list choices from here, the
//! declared keys are read generically (`params.rs`), the golden matrix and
//! the key reference in docs/scenarios.md are checked against it
//! (`tests/golden.rs`, `tests/test_registry.py`, through [`to_json`]).

use crate::base::mechanism::{choices, range, Key, KeyDefault, KeyKind, Mechanism};

/// Every registered mechanism the scenario layer can see: the drop
/// policies and the TCP variants (the crate's `mechanisms` adds the services).
pub fn mechanisms() -> impl Iterator<Item = &'static Mechanism> {
    crate::net::drop::policies()
        .chain(crate::transport::tcp::congestion::variants().map(|v| &v.mechanism))
        .chain(std::iter::once(&crate::transport::ndp::MECHANISM))
        .chain(std::iter::once(&crate::transport::eqds::MECHANISM))
        .chain(super::generators::PATTERNS.iter())
}

/// The mechanisms selected by the key `selected_by` (`switch.policy`).
pub fn selectable_by(selected_by: &str) -> impl Iterator<Item = &'static Mechanism> + '_ {
    mechanisms().filter(move |m| m.selected_by == selected_by)
}

/// The mechanism `name` selected by `selected_by`, or the error that lists the choices.
pub fn find(selected_by: &str, name: &str) -> Result<&'static Mechanism, super::ScenarioError> {
    selectable_by(selected_by).find(|m| m.name == name).ok_or_else(|| super::ScenarioError {
        key: selected_by.to_string(),
        problem: format!("unknown choice \"{name}\" (choose {})", choices(selectable_by(selected_by).map(|m| m.name))),
    })
}

/// Every declared key of `mechanisms`, once (a key several mechanisms share
/// is declared alike by each).
pub fn keys_of<'a>(mechanisms: impl Iterator<Item = &'a Mechanism> + 'a) -> impl Iterator<Item = &'a Key> + 'a {
    let mut seen: Vec<&'static str> = Vec::new();
    mechanisms.flat_map(|m| m.keys.iter()).filter(move |k| {
        let first = !seen.contains(&k.name);
        seen.push(k.name);
        first
    })
}

/// Every declared key of the scenario's registries.
pub fn keys() -> impl Iterator<Item = &'static Key> {
    keys_of(mechanisms())
}

/// The tables only declared keys live in (`router.red`, `switch.fair_share`):
/// the parents of keys three or more levels deep.
pub fn owned_tables<'a>(keys: impl Iterator<Item = &'a Key>) -> Vec<&'a str> {
    let mut out: Vec<&str> = keys.filter(|k| k.name.matches('.').count() >= 2).map(|k| &k.name[..k.name.rfind('.').unwrap()]).collect();
    out.sort();
    out.dedup();
    out
}

/// `mechanisms` as JSON, for the Python package and its docs test
/// (`atmsim._core.registry()`, through the crate's `registry_json`).
pub fn to_json<'a>(mechanisms: impl Iterator<Item = &'a Mechanism>) -> String {
    use serde_json::{json, Value};
    let key = |k: &Key| -> Value {
        let (kind, unit, range) = match k.kind {
            KeyKind::Bool => ("bool", "", String::new()),
            KeyKind::Count { unit, min, max } if max == u64::MAX => ("count", unit, format!(">= {min}")),
            KeyKind::Count { unit, min, max } => ("count", unit, format!("{min} to {max}")),
            KeyKind::Real { lo, hi } => ("real", "", range(lo, hi)),
            KeyKind::Choice(names) => ("choice", "", format!("one of {}", choices(names.iter().copied()))),
        };
        let (default, computed) = match k.default {
            KeyDefault::Value(v) => (v, false),
            KeyDefault::Computed(v) => (v, true),
        };
        let choices: &[&str] = match k.kind {
            KeyKind::Choice(names) => names,
            _ => &[],
        };
        json!({"name": k.name, "kind": kind, "unit": unit, "range": range, "default": default, "computed": computed, "about": k.about, "choices": choices})
    };
    let all: Vec<Value> = mechanisms
        .map(|m| {
            json!({
                "name": m.name,
                "selected_by": m.selected_by,
                "networks": m.networks.needs(),
                "about": m.about,
                "docs": m.docs,
                "keys": m.keys.iter().map(key).collect::<Vec<_>>(),
                "counters": m.counters,
                "goldens": m.goldens.iter().map(|g| json!({"scenario": g.scenario, "variation": g.variation, "overrides": g.overrides})).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_string(&all).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_registered_once_per_key_that_selects_it() {
        let mut seen: Vec<(&str, &str)> = mechanisms().map(|m| (m.selected_by, m.name)).collect();
        let n = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), n, "a (key, name) registered twice");
    }

    #[test]
    fn keys_shared_by_mechanisms_are_declared_alike() {
        for m in mechanisms() {
            for k in m.keys {
                let first = keys().find(|x| x.name == k.name).unwrap();
                assert_eq!(format!("{first:?}"), format!("{k:?}"), "{} declared differently by {}", k.name, m.name);
            }
        }
    }

    #[test]
    fn an_unknown_choice_lists_the_registered_ones() {
        let e = find("switch.policy", "fifo").unwrap_err();
        assert_eq!(e.key, "switch.policy");
        for m in selectable_by("switch.policy") {
            assert!(e.problem.contains(&format!("\"{}\"", m.name)), "{e}");
        }
    }
}
