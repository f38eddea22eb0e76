//! The keys that mechanisms declare (`base::mechanism::Key`), read
//! generically: taken out of the scenario's TOML before the sections are
//! deserialised, each checked against its declared type and range, and
//! handed to the mechanisms as [`Params`]; written back by `atmsim show`. A
//! new mechanism's keys therefore need no field in the schema, and a key of
//! a mechanism the scenario does not select is refused
//! ([`refuse_inert`]): it would do nothing.

use super::registry;
use super::serde_words::number_in_quotes;
use super::units::short_float;
use super::ScenarioError;
use crate::base::mechanism::{range, Bound, Key, KeyDefault, KeyKind, Mechanism, ParamValue, Params};

/// Takes every key `mechanisms` declare that the table sets out of it, checked.
pub(super) fn take(table: &mut toml::Table, mechanisms: &[&'static Mechanism]) -> Result<Params, ScenarioError> {
    let mut params = Params::default();
    for key in registry::keys_of(mechanisms.iter().copied()) {
        let path: Vec<&str> = key.name.split('.').collect();
        let (last, parents) = path.split_last().expect("a dotted key name");
        let Some(parent) = table_at(table, parents, key.name)? else { continue };
        if let Some(value) = parent.remove(*last) {
            params.0.insert(key.name, checked(key, &value)?);
            drop_emptied(table, parents);
        }
    }
    // A table only mechanism keys live in (`[router.red]`) holds nothing else.
    for owned in registry::owned_tables(registry::keys_of(mechanisms.iter().copied())) {
        let path: Vec<&str> = owned.split('.').collect();
        let (last, parents) = path.split_last().expect("a dotted table name");
        let Some(parent) = table_at(table, parents, owned)? else { continue };
        match parent.get(*last) {
            Some(toml::Value::Table(t)) if t.is_empty() => {
                parent.remove(*last);
            }
            Some(toml::Value::Table(t)) => {
                let stray = t.keys().next().expect("a non-empty table");
                let known: Vec<&str> =
                    registry::keys_of(mechanisms.iter().copied()).filter_map(|k| k.name.strip_prefix(owned)?.strip_prefix('.')).collect();
                return Err(problem(format!("{owned}.{stray}"), format!("unknown key (keys here: {})", known.join(", "))));
            }
            Some(_) => return Err(problem(owned, "must be a table of keys")),
            None => {}
        }
    }
    Ok(params)
}

/// Removes the tables along `path` that taking a key left empty, deepest
/// first: a section that only held declared keys (`[toy]`) is not one the
/// schema must know.
fn drop_emptied(table: &mut toml::Table, path: &[&str]) {
    for depth in (1..=path.len()).rev() {
        let (last, parents) = path[..depth].split_last().expect("depth >= 1");
        let Ok(Some(parent)) = table_at(table, parents, "") else { return };
        if parent.get(*last).and_then(|v| v.as_table()).is_some_and(|t| t.is_empty()) {
            parent.remove(*last);
        }
    }
}

/// The table at `path` inside `table`, if there is one.
fn table_at<'t>(table: &'t mut toml::Table, path: &[&str], key: &str) -> Result<Option<&'t mut toml::Table>, ScenarioError> {
    let mut cur = table;
    for (i, part) in path.iter().enumerate() {
        cur = match cur.get_mut(*part) {
            None => return Ok(None),
            Some(toml::Value::Table(t)) => t,
            Some(_) => return Err(problem(path[..=i].join("."), format!("must be a table (it holds {key})"))),
        };
    }
    Ok(Some(cur))
}

/// What a count key takes, in words: "a whole number of cells, at least 1",
/// "... 1 to 4294967295"; a number naming one of a kind ("host number", 0
/// up and bounded only by the scenario) as the numbers it names ("a whole
/// number of host number, at least 0" named neither the hosts nor the end).
fn count_words(unit: &str, min: u64, max: u64) -> String {
    match unit.strip_suffix(" number") {
        Some(thing) if min == 0 && max == u64::MAX => {
            format!("a {unit}, from 0 to the number of {thing}s less one ({thing}s are numbered from 0)")
        }
        _ if max == u64::MAX => format!("a whole number of {unit}, at least {min}"),
        _ => format!("a whole number of {unit}, {min} to {max}"),
    }
}

/// The value the user wrote, in their form or a short one: a TOML number as
/// written (a float in the shortest form that reads back, `1e308`, never its
/// 309 digits), text in quotes, a list or a table by name.
fn written(value: &toml::Value) -> String {
    match value {
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(x) => short_float(*x),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::String(t) if t.trim().parse::<f64>().is_ok() => number_in_quotes(t),
        toml::Value::String(t) => format!("\"{t}\""),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

/// A key's value, checked against its declaration.
fn checked(key: &Key, value: &toml::Value) -> Result<ParamValue, ScenarioError> {
    match (key.kind, value) {
        (KeyKind::Bool, toml::Value::Boolean(b)) => Ok(ParamValue::Bool(*b)),
        (KeyKind::Bool, v) => Err(problem(key.name, format!("must be true or false, not {}", written(v)))),
        (KeyKind::Count { min, max, .. }, toml::Value::Integer(n)) if (min..=max).contains(&(*n as u64)) && *n >= 0 => {
            Ok(ParamValue::Count(*n as u64))
        }
        (KeyKind::Count { unit, min, max }, v) => {
            Err(problem(key.name, format!("must be {}, not {}", count_words(unit, min, max), written(v))))
        }
        (KeyKind::Choice(names), toml::Value::String(v)) if names.contains(&v.as_str()) => {
            Ok(ParamValue::Choice(names.iter().find(|n| **n == v.as_str()).expect("just checked")))
        }
        (KeyKind::Choice(names), v) => {
            Err(problem(key.name, format!("must be one of {}, not {}", crate::base::mechanism::choices(names.iter().copied()), written(v))))
        }
        (KeyKind::Real { lo, hi }, v) => {
            let x = match v {
                toml::Value::Float(x) => *x,
                toml::Value::Integer(n) => *n as f64,
                _ => f64::NAN,
            };
            let above = match lo {
                Bound::Open(l) => x > l,
                Bound::Closed(l) => x >= l,
                Bound::None => true,
            };
            let below = match hi {
                Bound::Open(h) => x < h,
                Bound::Closed(h) => x <= h,
                Bound::None => true,
            };
            if x.is_finite() && above && below {
                Ok(ParamValue::Real(x))
            } else {
                Err(problem(key.name, format!("must be a number {}, not {}", range(lo, hi), written(v))))
            }
        }
    }
}

/// Does `value` only restate the key's default?
fn is_default(key: &Key, value: ParamValue) -> bool {
    let KeyDefault::Value(text) = key.default else { return false };
    match value {
        ParamValue::Bool(b) => text.parse::<bool>() == Ok(b),
        ParamValue::Count(n) => text.parse::<u64>() == Ok(n),
        ParamValue::Real(x) => text.parse::<f64>() == Ok(x),
        ParamValue::Choice(c) => text.trim_matches('"') == c,
    }
}

/// Refuses a key set to other than its default when no mechanism it
/// belongs to runs: it would do nothing in this scenario. A mechanism runs
/// if it is among `selected`, or if the key that selects it is one of its
/// own keys (a service turned on by a key) and the scenario sets it.
pub(super) fn refuse_inert(params: &Params, selected: &[&Mechanism], mechanisms: &[&'static Mechanism]) -> Result<(), ScenarioError> {
    let switched_on = |m: &Mechanism| {
        m.keys.iter().any(|k| k.name == m.selected_by)
            && params.get(m.selected_by).is_some_and(|v| !is_default(key_named(mechanisms, m.selected_by), v))
    };
    let running: Vec<&Mechanism> = selected.iter().copied().chain(mechanisms.iter().copied().filter(|m| switched_on(m))).collect();
    for (name, value) in &params.0 {
        if running.iter().any(|m| m.keys.iter().any(|k| k.name == *name)) || is_default(key_named(mechanisms, name), *value) {
            continue;
        }
        let owners: Vec<String> = mechanisms
            .iter()
            .filter(|m| m.keys.iter().any(|k| k.name == *name))
            .map(|m| format!("{} = \"{}\"", m.selected_by, m.name))
            .collect();
        let selected: Vec<String> = selected.iter().map(|m| format!("{} = \"{}\"", m.selected_by, m.name)).collect();
        return Err(problem(
            *name,
            format!("does nothing here: it configures {}, and this scenario has {}", owners.join(" or "), selected.join(", ")),
        ));
    }
    Ok(())
}

fn key_named(mechanisms: &[&'static Mechanism], name: &str) -> &'static Key {
    let keys: &'static [Key] =
        mechanisms.iter().map(|m| m.keys).find(|keys| keys.iter().any(|k| k.name == name)).expect("params hold declared keys only");
    keys.iter().find(|k| k.name == name).expect("just found")
}

/// The keys a scenario set, with the default of every other key of the
/// mechanisms in effect that has one as a value (a default computed from
/// the scenario, such as `switch.epd_threshold`'s, is left unwritten).
pub(super) fn with_defaults(params: &Params, in_effect: &[&'static Mechanism]) -> Params {
    let mut all = params.clone();
    for key in registry::keys_of(in_effect.iter().copied()) {
        let KeyDefault::Value(text) = key.default else { continue };
        if all.0.contains_key(key.name) {
            continue;
        }
        let value: toml::Value =
            format!("v = {text}").parse::<toml::Table>().ok().and_then(|mut t| t.remove("v")).expect("a declared default is TOML");
        all.0.insert(key.name, checked(key, &value).expect("a declared default is in its range"));
    }
    all
}

/// Writes the keys a scenario set back into its TOML (for `atmsim show`).
pub(super) fn put_back(table: &mut toml::Table, params: &Params) {
    for (name, value) in &params.0 {
        let path: Vec<&str> = name.split('.').collect();
        let (last, parents) = path.split_last().expect("a dotted key name");
        let mut cur = &mut *table;
        for part in parents {
            let next = cur.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            cur = next.as_table_mut().expect("declared keys live in tables");
        }
        let v = match *value {
            ParamValue::Bool(b) => toml::Value::Boolean(b),
            ParamValue::Count(n) => toml::Value::Integer(n as i64),
            ParamValue::Real(x) => toml::Value::Float(x),
            ParamValue::Choice(c) => toml::Value::String(c.to_string()),
        };
        cur.insert(last.to_string(), v);
    }
}

fn problem(key: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
    ScenarioError { key: key.into(), problem: problem.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_key_is_checked_against_its_kind() {
        // Every key of every registered mechanism: a value of the wrong type
        // is refused naming the key, and its default (when it is a value)
        // reads back as a default.
        for key in registry::keys() {
            let wrong = toml::Value::String("x".into());
            assert_eq!(checked(key, &wrong).unwrap_err().key, key.name);
            if let KeyDefault::Value(text) = key.default {
                let v: toml::Value = format!("v = {text}").parse::<toml::Table>().unwrap().remove("v").unwrap();
                let value = checked(key, &v).unwrap_or_else(|e| panic!("{}: its default {text} is refused: {e}", key.name));
                assert!(is_default(key, value), "{}", key.name);
            }
        }
    }

    #[test]
    fn a_count_is_whole_and_at_least_its_minimum() {
        let key = Key {
            name: "switch.x",
            kind: KeyKind::Count { unit: "cells", min: 1, max: u64::MAX },
            default: KeyDefault::Value("1"),
            about: "",
        };
        assert_eq!(checked(&key, &toml::Value::Integer(3)), Ok(ParamValue::Count(3)));
        for bad in [toml::Value::Integer(0), toml::Value::Integer(-1), toml::Value::Float(2.5)] {
            assert!(checked(&key, &bad).unwrap_err().problem.contains("whole number of cells"), "{bad}");
        }
    }

    #[test]
    fn a_count_kept_in_a_u32_is_refused_past_it_rather_than_wrapped() {
        // ndp.mss = 4294967296 was taken, as 0.
        let key = Key {
            name: "ndp.mss",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: crate::base::mechanism::U32 },
            default: KeyDefault::Value("9000"),
            about: "",
        };
        assert_eq!(checked(&key, &toml::Value::Integer(4_294_967_295)), Ok(ParamValue::Count(4_294_967_295)));
        let e = checked(&key, &toml::Value::Integer(4_294_967_296)).unwrap_err();
        assert_eq!(e.problem, "must be a whole number of bytes, 1 to 4294967295, not 4294967296", "{e}");
    }

    #[test]
    fn a_refused_value_is_echoed_as_written_and_a_host_number_by_its_hosts() {
        let receiver = registry::keys().find(|k| k.name == "workload.receiver").expect("declared");
        // "must be a whole number of host number, at least 0" named neither the hosts nor the value.
        let e = checked(receiver, &toml::Value::Integer(-1)).unwrap_err();
        assert_eq!(e.key, "workload.receiver");
        assert_eq!(e.problem, "must be a host number, from 0 to the number of hosts less one (hosts are numbered from 0), not -1");
        // A number in quotes is text, and said so.
        let e = checked(receiver, &toml::Value::String("3".into())).unwrap_err();
        assert!(e.problem.ends_with("not the text \"3\" (a number in quotes is text: write it without the quotes)"), "{e}");
        // A huge number as the user wrote it (1e308), never its 309 digits.
        let pull = registry::keys().find(|k| k.name == "eqds.pull_interval").expect("declared");
        let e = checked(pull, &toml::Value::Float(1e308)).unwrap_err();
        assert!(e.problem.ends_with(", not 1e308"), "{e}");
        assert_eq!((short_float(0.5), short_float(2.0), short_float(-1e-300)), ("0.5".into(), "2".into(), "-1e-300".into()));
    }
}
