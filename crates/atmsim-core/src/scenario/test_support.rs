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

/// BASE with these overrides, parsed and validated; BASE writes `[abr]` or
/// `[boston]` when an override sets a key of it (a section's presence turns
/// its mechanism on, which `--set` alone may not do).
pub fn check(overrides: &[&str]) -> Result<Model, ScenarioError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut text = BASE.to_string();
    for section in ["abr", "boston"] {
        if overrides.iter().any(|x| x.starts_with(&format!("{section}."))) {
            text += &format!("\n[{section}]\n");
        }
    }
    validate(&parse(&text, &o)?, None)
}

/// The key of the error BASE with these overrides gives.
pub fn key_of(overrides: &[&str]) -> String {
    check(overrides).unwrap_err().key
}

/// A flow across a chain of `switches` ATM switches (2 x `switches`
/// bounded ports), with these overrides.
pub fn check_many_ports(switches: usize, overrides: &mut [String]) -> Result<Model, ScenarioError> {
    let names: Vec<String> = (1..=switches).map(|i| format!("S{i}")).collect();
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let mut text = format!(
        "name = \"chain\"\nnetwork = \"atm\"\nduration = \"1s\"\n[topology]\nhosts = [\"A\", \"B\"]\nswitches = [{}]\n",
        quoted.join(", ")
    );
    let ends = std::iter::once("A".to_string()).chain(names.iter().cloned()).chain(std::iter::once("B".to_string())).collect::<Vec<_>>();
    for pair in ends.windows(2) {
        text += &format!("[[link]]\nends = [\"{}\", \"{}\"]\nrate = \"141.33Mbps\"\ndelay = \"1us\"\n", pair[0], pair[1]);
    }
    text += "[[flow]]\nname = \"f1\"\nsrc = \"A\"\ndst = \"B\"\n";
    validate(&parse(&text, overrides)?, None)
}

/// An explicit topology with no nodes (tests fill in what they need).
pub fn explicit() -> super::schema::Topology {
    super::schema::Topology {
        kind: Default::default(),
        hosts: Vec::new(),
        switches: Vec::new(),
        k: None,
        tiers: None,
        host_count: None,
        rate: None,
        delay: None,
        switch_latency: None,
        port_rate: Vec::new(),
    }
}
