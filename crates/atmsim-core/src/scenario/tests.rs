//! Validation errors name the key and the problem, before anything runs.

use super::*;

const BASE: &str = r#"
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

fn check(overrides: &[&str]) -> Result<Model, ScenarioError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    validate(&parse(BASE, &o)?, None)
}

fn key_of(overrides: &[&str]) -> String {
    check(overrides).unwrap_err().key
}

#[test]
fn base_scenario_is_valid_and_routed() {
    let m = check(&[]).unwrap();
    assert_eq!(m.flows[0].data_route.len(), 2);
    assert_eq!(m.flows[0].ack_route.len(), 2);
    assert_eq!(m.ports[m.bottleneck.ix()].name, "X->B");
}

#[test]
fn unknown_key_is_named() {
    assert_eq!(key_of(&["tcp.colour=5"]), "tcp.colour");
    let e = check(&["bogus=1"]).unwrap_err();
    assert!(e.problem.contains("unknown field"), "{e}");
}

#[test]
fn unit_typo_is_named() {
    let e = check(&["switch.buffer=12XB"]).unwrap_err();
    assert_eq!(e.key, "switch.buffer");
    assert!(e.problem.contains("12XB"), "{e}");
}

#[test]
fn zero_or_negative_rate() {
    assert_eq!(key_of(&["link.A-X.rate=0Mbps"]), "link[A-X].rate");
    assert_eq!(key_of(&["link.0.rate=-5Mbps"]), "link[A-X].rate");
}

#[test]
fn unreachable_destination() {
    let text = BASE.replace("hosts = [\"A\", \"B\"]", "hosts = [\"A\", \"B\", \"C\"]").replace("dst = \"B\"", "dst = \"C\"");
    let e = validate(&parse(&text, &[]).unwrap(), None).unwrap_err();
    assert_eq!(e.key, "flow[f1].dst");
    assert!(e.problem.contains("unreachable"), "{e}");
}

#[test]
fn buffer_smaller_than_a_cell() {
    let e = check(&["switch.buffer=40B"]).unwrap_err();
    assert_eq!(e.key, "switch.buffer");
    assert!(e.problem.contains("smaller than one cell"), "{e}");
}

#[test]
fn mss_larger_than_mtu_allows() {
    let e = check(&["tcp.mss=9141B"]).unwrap_err();
    assert_eq!(e.key, "tcp.mss");
    assert!(e.problem.contains("mtu"), "{e}");
}

#[test]
fn bad_enum_value_and_bad_types() {
    assert_eq!(key_of(&["network=frame-relay"]), "network");
    assert_eq!(key_of(&["tcp.initial_window=\"two\""]), "tcp.initial_window");
    assert_eq!(key_of(&["flow.f1.start=5 parsecs"]), "flow[f1].start");
    assert_eq!(key_of(&["flow.f9.start=5ms"]), "flow.f9");
}

#[test]
fn override_syntax() {
    assert!(check(&["novalue"]).is_err());
    let m = check(&["switch.buffer=96cells", "flow.f1.bytes=1MB", "duration=2s"]).unwrap();
    assert_eq!(m.ports[1].limit, Limit::Units(96));
    assert_eq!(m.flows[0].bytes, Some(1_000_000));
    assert_eq!(m.duration, 2 * crate::time::PS_PER_S);
}

#[test]
fn packet_network_limits() {
    let m = check(&["network=packet", "switch.buffer=192528B"]).unwrap();
    assert_eq!(m.ports[1].limit, Limit::Bytes(192_528));
    assert_eq!(key_of(&["network=packet", "switch.buffer=100cells"]), "switch.buffer");
    assert_eq!(key_of(&["network=packet", "switch.buffer=1000B"]), "switch.buffer");
}

#[test]
fn effective_buffer_is_payload_bytes() {
    let m = check(&["switch.buffer=192528B"]).unwrap();
    assert_eq!(m.ports[1].limit, Limit::Units(21 * 191));
}

#[test]
fn resolved_toml_round_trips() {
    let s = parse(BASE, &[]).unwrap();
    let text = to_toml(&s);
    let again = parse(&text, &[]).unwrap();
    assert_eq!(to_toml(&again), text);
    assert!(text.contains("delayed_ack"), "defaults are filled in");
}
