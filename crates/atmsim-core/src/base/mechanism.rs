//! How a mechanism declares itself: one [`Mechanism`] value, written in the
//! mechanism's own file, says everything the rest of atmsim needs to know
//! about it outside the hot path — the name a scenario selects it by, the
//! key that selects it, the networks it runs on, its keys (type, unit,
//! default, range, one line of docs), the counters it adds to the summary,
//! the docs page that defines it and the variations that pin it in the
//! goldens. The registries (`net::drop::POLICIES`, ...) list these values one
//! line each; the choices in error messages, the key reference checked
//! against docs/scenarios.md, the unknown-key and inert-key checks and the
//! golden matrix are all read from them, so nothing else lists mechanisms by
//! hand (`tests/test_registry.py`, `tests/golden.rs`).
//!
//! Plain data only: this floor imports nothing, so a mechanism in any layer
//! can declare itself with it.

use std::collections::BTreeMap;

/// One mechanism a scenario can select.
#[derive(Debug)]
pub struct Mechanism {
    /// Its name as a scenario writes it (`switch.policy = "epd"`).
    pub name: &'static str,
    /// The key whose value selects it: `switch.policy`, `router.policy`,
    /// `tcp.variant`, `flow.kind`, or a section (`[abr]`) for a service.
    pub selected_by: &'static str,
    /// The networks it runs on.
    pub networks: Networks,
    /// One line: what it does, with its source.
    pub about: &'static str,
    /// The docs page (and anchor) that defines it, relative to `docs/`.
    pub docs: &'static str,
    /// The keys that configure it (and nothing else).
    pub keys: &'static [Key],
    /// What it adds to the summary: drop reasons (`drops_by_reason.*`) and
    /// per-port or per-flow fields.
    pub counters: &'static [&'static str],
    /// Variations of built-in scenarios that pin it in the goldens.
    pub goldens: &'static [Golden],
}

/// Where a mechanism runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Networks {
    Atm,
    Packet,
    Both,
}

impl Networks {
    /// Does it run on `network` ("atm" or "packet")?
    pub fn includes(self, network: &str) -> bool {
        matches!((self, network), (Networks::Both, _) | (Networks::Atm, "atm") | (Networks::Packet, "packet"))
    }

    /// As a scenario writes the network it needs.
    pub fn needs(self) -> &'static str {
        match self {
            Networks::Atm => "network = \"atm\"",
            Networks::Packet => "network = \"packet\"",
            Networks::Both => "either network",
        }
    }
}

/// One key of a mechanism: its full dotted name and what it holds.
#[derive(Debug)]
pub struct Key {
    /// `switch.epd_threshold`, `router.red.min_th`.
    pub name: &'static str,
    pub kind: KeyKind,
    /// The default as TOML writes it (`"0.9"`, `"true"`), or how it is
    /// computed when it depends on the scenario.
    pub default: KeyDefault,
    /// One line of docs.
    pub about: &'static str,
}

/// A key's type, unit and range.
#[derive(Clone, Copy, Debug)]
pub enum KeyKind {
    Bool,
    /// A whole number of `unit` (cells, packets), `min` to `max`: `max` is
    /// the largest the mechanism stores ([`U32`] for a u32 field), so a value
    /// past it is refused rather than wrapped (issue 38: ndp.mss = 2^32
    /// was taken as 0).
    Count {
        unit: &'static str,
        min: u64,
        max: u64,
    },
    /// A real number in a range (`lo`, `hi`; each bound open or closed).
    Real {
        lo: Bound,
        hi: Bound,
    },
    /// One of these names (a string in the scenario).
    Choice(&'static [&'static str]),
}

/// The `max` of a count a mechanism keeps in a u32.
pub const U32: u64 = u32::MAX as u64;

/// One end of a real range.
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    Open(f64),
    Closed(f64),
    None,
}

/// A key's default.
#[derive(Clone, Copy, Debug)]
pub enum KeyDefault {
    /// A value, as TOML writes it.
    Value(&'static str),
    /// Computed from the scenario, in words.
    Computed(&'static str),
}

/// A golden variation: (built-in scenario, variation name, overrides); two
/// simulated seconds, seed 2, traces on (`tests/golden.rs`).
#[derive(Debug)]
pub struct Golden {
    pub scenario: &'static str,
    pub variation: &'static str,
    pub overrides: &'static [&'static str],
}

/// A key's value as read from a scenario, already checked against its
/// [`KeyKind`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    Bool(bool),
    Count(u64),
    Real(f64),
    Choice(&'static str),
}

/// The mechanism keys a scenario sets, by full name (checked against their
/// declarations by the scenario layer); a mechanism reads its own with
/// [`Params::bool`], [`Params::count`] and [`Params::real`], falling back to
/// its default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params(pub BTreeMap<&'static str, ParamValue>);

impl Params {
    pub fn get(&self, key: &str) -> Option<ParamValue> {
        self.0.get(key).copied()
    }

    pub fn bool(&self, key: &str, default: bool) -> bool {
        match self.get(key) {
            Some(ParamValue::Bool(b)) => b,
            _ => default,
        }
    }

    pub fn count(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(ParamValue::Count(n)) => Some(n),
            _ => None,
        }
    }

    /// The name a choice key is set to, or `default`.
    pub fn choice(&self, key: &str, default: &'static str) -> &'static str {
        match self.get(key) {
            Some(ParamValue::Choice(c)) => c,
            _ => default,
        }
    }

    pub fn real(&self, key: &str, default: f64) -> f64 {
        match self.get(key) {
            Some(ParamValue::Real(x)) => x,
            _ => default,
        }
    }
}

/// A problem with one key, in the user's words (the scenario layer turns it
/// into its `ScenarioError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    pub key: String,
    pub problem: String,
}

impl KeyError {
    pub fn new(key: impl Into<String>, problem: impl Into<String>) -> Self {
        KeyError { key: key.into(), problem: problem.into() }
    }
}

/// The choices of a key as an error message lists them: `"a", "b" or "c"`.
pub fn choices<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.into_iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// A real range in words: "in (0, 1]", "> 0".
pub fn range(lo: Bound, hi: Bound) -> String {
    match (lo, hi) {
        (Bound::None, Bound::None) => "(any finite value)".into(),
        (Bound::Open(l), Bound::None) => format!("> {l}"),
        (Bound::Closed(l), Bound::None) => format!(">= {l}"),
        (Bound::None, Bound::Open(h)) => format!("< {h}"),
        (Bound::None, Bound::Closed(h)) => format!("<= {h}"),
        (lo, hi) => {
            let (l, open_l) = match lo {
                Bound::Open(l) => (l, '('),
                Bound::Closed(l) => (l, '['),
                Bound::None => unreachable!("matched above"),
            };
            let (h, close_h) = match hi {
                Bound::Open(h) => (h, ')'),
                Bound::Closed(h) => (h, ']'),
                Bound::None => unreachable!("matched above"),
            };
            format!("in {open_l}{l}, {h}{close_h}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_as_written() {
        assert_eq!(range(Bound::Open(0.0), Bound::Closed(1.0)), "in (0, 1]");
        assert_eq!(range(Bound::Open(0.0), Bound::None), "> 0");
    }

    #[test]
    fn choices_read_as_a_sentence() {
        assert_eq!(choices([]), "");
        assert_eq!(choices(["tail"]), "\"tail\"");
        assert_eq!(choices(["tail", "ppd", "epd"]), "\"tail\", \"ppd\" or \"epd\"");
    }

    #[test]
    fn params_fall_back_to_their_defaults() {
        let mut p = Params::default();
        p.0.insert("router.red.ecn", ParamValue::Bool(true));
        p.0.insert("switch.epd_threshold", ParamValue::Count(7));
        assert!(p.bool("router.red.ecn", false) && !p.bool("router.red.gentle", false));
        assert_eq!((p.count("switch.epd_threshold"), p.count("switch.eom_reserve")), (Some(7), None));
        assert_eq!(p.real("switch.fair_share.z", 0.8), 0.8);
    }

    #[test]
    fn networks_name_what_they_need() {
        assert!(Networks::Atm.includes("atm") && !Networks::Atm.includes("packet") && Networks::Both.includes("packet"));
        assert_eq!(Networks::Packet.needs(), "network = \"packet\"");
    }
}
