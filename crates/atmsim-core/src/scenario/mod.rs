//! Scenarios: the TOML schema, `--set` overrides, validation with precise
//! errors, and the resolved [`Model`] the simulator is built from.
//!
//! Every problem is reported as one [`ScenarioError`] naming the key
//! (`link[R1-R2].rate: rate '0Mbps' must be positive`) before anything runs.
//!
//! - [`schema`]: the file as written ([`Scenario`]);
//! - [`overrides`]: `--set key=value`, applied before deserialising;
//! - [`resolve`]: [`validate`], one function per section, into a [`Model`];
//! - [`routing`]: the topology graph and the routes over it;
//! - [`model`]: the resolved [`Model`] the simulator reads;
//! - [`units`]: quantities with units ("30ms", "192.5KB", "3us/cell").

pub mod model;
mod overrides;
mod resolve;
pub mod routing;
pub mod schema;
pub mod units;

pub use model::*;
pub use resolve::validate;
pub use schema::*;

use std::fmt;

/// An invalid scenario: the offending key and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub key: String,
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.problem)
    }
}
impl std::error::Error for ScenarioError {}

fn err<T>(key: impl Into<String>, problem: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { key: key.into(), problem: problem.into() })
}

/// Parses TOML text and applies `key=value` overrides.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| ScenarioError {
        key: "scenario".into(),
        problem: format!("invalid TOML: {}", e.message()),
    })?;
    for o in overrides {
        overrides::apply_override(&mut table, o)?;
    }
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." || path.is_empty() { "scenario".to_string() } else { path };
        ScenarioError { key, problem: e.into_inner().to_string().replace('\n', " ").trim().to_string() }
    })
}

/// The fully resolved scenario as TOML (defaults filled in).
pub fn to_toml(s: &Scenario) -> String {
    toml::to_string(s).expect("a valid scenario serialises")
}

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests {
    use super::test_support::BASE;
    use super::*;

    #[test]
    fn resolved_toml_round_trips() {
        let s = parse(BASE, &[]).unwrap();
        let text = to_toml(&s);
        let again = parse(&text, &[]).unwrap();
        assert_eq!(to_toml(&again), text);
        assert!(text.contains("delayed_ack"), "defaults are filled in");
    }
}
