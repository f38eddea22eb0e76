//! A small valid scenario (A -> X -> B on ATM) for the tests of every part.

use super::{parse, validate, Model, ScenarioError};

pub const BASE: &str = r#"
name = "t"
network = "atm"
duration = "1s"
[tcp]
mss = "9128B"
[topology]
hosts = ["A", "B"]
switches = ["X"]
[[link]]
ends = ["A", "X"]
rate = "141.33Mbps"
delay = "1us"
[[link]]
ends = ["X", "B"]
rate = "141.33Mbps"
delay = "1ms"
[[flow]]
name = "f1"
src = "A"
dst = "B"
"#;

/// BASE with these overrides, parsed and validated.
pub fn check(overrides: &[&str]) -> Result<Model, ScenarioError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    validate(&parse(BASE, &o)?, None)
}

/// The key of the error BASE with these overrides gives.
pub fn key_of(overrides: &[&str]) -> String {
    check(overrides).unwrap_err().key
}
