//! Scenarios: the TOML schema, `--set` overrides, validation with precise
//! errors, and the resolved [`Model`] the simulator is built from.
//!
//! Every problem is reported as one [`ScenarioError`] naming the key
//! (`link[R1-R2].rate: rate '0Mbps' must be positive`) before anything runs.
//!
//! - [`schema`]: the file as written ([`Scenario`]);
//! - `overrides`: `--set key=value`, applied before deserialising;
//! - `resolve`: [`validate`], one function per section, into a [`Model`];
//! - [`routing`]: the topology graph and the routes over it;
//! - [`model`]: the resolved [`Model`] the simulator reads;
//! - [`boston`]: `[boston]`, TCP Boston and its measurements;
//! - [`capture`]: `[capture]`, the ports and hosts written as pcap files;
//! - [`units`]: quantities with units ("30ms", "192.5KB", "3us/cell").

pub mod abr_schema;
pub mod boston;
pub mod capture;
pub mod fabric;
mod fabric_ecn;
mod fabric_fail;
pub mod fattree;
pub mod generators;
mod inert;
pub mod matrix;
pub mod matrix_check;
pub mod model;
mod overrides;
mod params;
pub mod registry;
mod resolve;
pub mod routing;
pub mod schema;
pub mod schema_capture;
pub mod schema_fabric;
pub mod schema_hosts;
#[cfg(test)]
pub(crate) mod schema_keys;
pub mod schema_packet;
pub mod schema_switch;
pub mod schema_trace;
pub mod schema_workload;
mod serde_words;
pub mod stop;
pub mod units;
pub mod workload;

pub use model::*;
pub use resolve::{check_trace_rows, validate, validate_stoppable};
pub use schema::*;
pub use stop::{Leftovers, Stoppable};

use crate::base::mechanism::Mechanism;
use std::fmt;

/// An invalid scenario: the offending key and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub key: String,
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    /// One line, whatever the user wrote: control characters that came from
    /// the input (a newline inside a value) are shown escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one_line = |s: &str| -> String {
            s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
        };
        write!(f, "{}: {}", one_line(&self.key), one_line(&self.problem))
    }
}
impl std::error::Error for ScenarioError {}

fn err<T>(key: impl Into<String>, problem: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { key: key.into(), problem: problem.into() })
}

/// Parses TOML text and applies `key=value` overrides, with the keys of the
/// scenario's own registries (the crate's `parse` adds the services').
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse_with(text, overrides, &[])
}

/// A file's TOML error in the user's words. An integer past what a TOML
/// integer holds (signed 64-bit, TOML 1.0 "Integer") fails as the file is
/// read, before any key is: it is named by its line (`key = digits`, under
/// the last `[section]` above it) with the range, as `--set` names it
/// (`serde_words.rs`), rather than as "number too large to fit in target type".
fn toml_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let whole = || ScenarioError { key: "scenario".into(), problem: format!("invalid TOML: {}", e.message()) };
    let Some(at) = e.span().map(|s| s.start).filter(|_| e.message().contains("too large")) else { return whole() };
    let start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("");
    let Some((key, value)) = line.split_once('=') else { return whole() };
    let key = key.trim().trim_matches('"');
    let section =
        text[..start].lines().rev().map(str::trim).find(|l| l.starts_with('[')).map(|l| l.trim_matches(|c| c == '[' || c == ']').trim());
    let key = section.map_or(key.to_string(), |s| format!("{s}.{key}"));
    let value = value.split('#').next().unwrap_or("").trim();
    let range = if key == "seed" { format!("from 0 to {}", i64::MAX) } else { format!("of at most {}", i64::MAX) };
    ScenarioError { key, problem: format!("must be a whole number {range}, not {value} (more than a TOML integer holds)") }
}

/// [`parse`], knowing the mechanisms of the layers above too (`services`):
/// every declared key is read and checked (`params.rs`), and a key of a
/// mechanism that does not run here is refused.
pub fn parse_with(text: &str, overrides: &[String], services: &[&'static Mechanism]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| toml_error(text, &e))?;
    let written: Vec<&str> = SWITCHED_ON_BY_SECTION.iter().copied().filter(|sec| table.contains_key(*sec)).collect();
    let file_has_workload = table.contains_key("workload");
    for o in overrides {
        overrides::apply_override(&mut table, o)?;
    }
    workload::replace_flows(&mut table, file_has_workload, overrides)?;
    // `--set abr.x=...` on a scenario without `[abr]` would create the section and so turn ABR on:
    // a key set never switches its mechanism on by being set (issue 38, rule 1).
    if let Some(section) = SWITCHED_ON_BY_SECTION.iter().find(|sec| table.contains_key(**sec) && !written.contains(sec)) {
        return err(
            set_in(overrides, section).unwrap_or(section),
            format!(
                "does nothing here: this scenario has no [{section}] section, so that mechanism is off, and --set does not turn it on (write [{section}] into the scenario)"
            ),
        );
    }
    let mechanisms: Vec<&'static Mechanism> = registry::mechanisms().chain(services.iter().copied()).collect();
    let params = params::take(&mut table, &mechanisms)?;
    let capture_key = written_in(&table, "capture", overrides);
    let named = item_names(&table);
    let value = toml::Value::Table(table);
    let mut scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = name_items(&e.path().to_string(), &named);
        let key = if path == "." || path.is_empty() { "scenario".to_string() } else { path };
        let problem = e.into_inner().to_string().replace('\n', " ");
        // "scenario: missing field `name`" (an empty file) named neither the key nor what to do.
        if let Some(field) = problem.trim().strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
            let key = if key == "scenario" { field.to_string() } else { format!("{key}.{field}") };
            // `--set measure.from=1ms` alone: "measure.to: missing" named the key not set and not the one set.
            let parent = |k: &str| k.rsplit_once('.').map(|(p, _)| p.to_string());
            let set = overrides.iter().filter_map(|o| o.split_once('=')).map(|(k, _)| k.trim());
            let beside = set.into_iter().find(|k| parent(k).is_some() && parent(k) == parent(&key)).map(|k| format!(" beside {k}"));
            let problem = format!("missing: it has no default, so the scenario must give it{}", beside.unwrap_or_default());
            return ScenarioError { key, problem };
        }
        ScenarioError { key, problem: serde_words::in_words(problem.trim()) }
    })?;
    scenario.params = params;
    if let Some(c) = scenario.capture.as_mut() {
        c.written = capture_key;
    }
    params::refuse_inert(&scenario.params, &selected(&scenario)?, &mechanisms)?;
    arb_set_without_arb_flows(text, overrides, services, &scenario)?;
    Ok(scenario)
}

/// `--set arb.KEY=...` where no flow is ARB: `[arb]` configures ARB flows
/// alone, so a value other than the one the scenario had does nothing and
/// is refused (issue 38, rule 1; `atmsim show` writes no `[arb]` there). The
/// file's own `[arb]` is taken: the arb-* scenarios write theirs and run
/// TCP-SS by turning their flows to TCP (`resolve/arb.rs`).
fn arb_set_without_arb_flows(text: &str, overrides: &[String], services: &[&'static Mechanism], s: &Scenario) -> Result<(), ScenarioError> {
    let is_arb = |o: &&String| o.split_once('=').is_some_and(|(k, _)| k.trim().split('.').next() == Some("arb"));
    let Some(first) = overrides.iter().find(is_arb) else { return Ok(()) };
    if flow_kinds(s).contains(&FlowKind::Arb) {
        return Ok(());
    }
    let others: Vec<String> = overrides.iter().filter(|o| !is_arb(o)).cloned().collect();
    if parse_with(text, &others, services)?.arb == s.arb {
        return Ok(()); // it restates what the scenario has
    }
    let key = first.split_once('=').map_or(first.as_str(), |(k, _)| k.trim());
    err(key, "does nothing here: no flow of this scenario is ARB (flow.NAME.kind = \"arb\"), and [arb] configures ARB flows alone")
}

/// The first key of `section` that `overrides` set (`"abr.crm"` for `abr.crm=16`).
pub(super) fn set_in<'a>(overrides: &'a [String], section: &str) -> Option<&'a str> {
    overrides.iter().filter_map(|o| o.split_once('=')).map(|(k, _)| k.trim()).find(|k| k.split('.').next() == Some(section))
}

/// The key of `section` the user wrote first, in full: an override's, else
/// the file's first (None: the section is not written).
fn written_in(table: &toml::Table, section: &str, overrides: &[String]) -> Option<String> {
    let keys = table.get(section)?.as_table()?.keys();
    set_in(overrides, section).map(str::to_string).or_else(|| keys.into_iter().next().map(|k| format!("{section}.{k}")))
}

/// Sections whose presence turns their mechanism on (ABR, TCP Boston).
const SWITCHED_ON_BY_SECTION: [&str; 2] = ["abr", "boston"];

/// The mechanisms a scenario selects by name: its switching nodes' drop
/// policy (`switch.policy` on ATM, `router.policy` on a packet network)
/// and its TCP variant.
fn selected(s: &Scenario) -> Result<Vec<&'static Mechanism>, ScenarioError> {
    let policy = match s.network {
        Network::Atm => registry::find("switch.policy", &s.switch.policy)?,
        Network::Packet => registry::find("router.policy", &s.router.policy)?,
    };
    let mut selected = vec![policy, registry::find("tcp.variant", &s.tcp.variant)?];
    // A workload's flows replace the scenario's (`workload::replace_flows`): their kind is the workload's.
    let kinds = flow_kinds(s);
    if kinds.contains(&FlowKind::Ndp) {
        selected.push(registry::find("flow.kind", "ndp")?);
    }
    if kinds.contains(&FlowKind::Eqds) {
        selected.push(registry::find("flow.kind", "eqds")?);
    }
    if let Some(pattern) = s.workload.as_ref().and_then(|w| w.pattern.as_deref()) {
        selected.push(registry::find("workload.pattern", pattern)?);
    }
    Ok(selected)
}

/// The names of the `[[flow]]` and `[[link]]` items (a flow's name, a link's
/// ends "A-B"), to name them in errors as validation does.
fn item_names(table: &toml::Table) -> Vec<(&'static str, Vec<Option<String>>)> {
    let name = |v: &toml::Value, array: &str| match array {
        "flow" => v.get("name")?.as_str().map(str::to_string),
        _ => Some(v.get("ends")?.as_array()?.iter().map(|e| e.as_str()).collect::<Option<Vec<_>>>()?.join("-")),
    };
    ["flow", "link"]
        .into_iter()
        .map(|a| (a, table.get(a).and_then(|v| v.as_array()).map_or_else(Vec::new, |items| items.iter().map(|v| name(v, a)).collect())))
        .collect()
}

/// `flow[0].kind` as `flow[f1].kind` (and `link[2]` as `link[A-B]`) when the item has a name.
fn name_items(path: &str, named: &[(&'static str, Vec<Option<String>>)]) -> String {
    for (array, names) in named {
        let Some(rest) = path.strip_prefix(array).and_then(|r| r.strip_prefix('[')) else { continue };
        let Some((ix, tail)) = rest.split_once(']') else { continue };
        if let Some(Some(name)) = ix.parse::<usize>().ok().and_then(|i| names.get(i)) {
            return format!("{array}[{name}]{tail}");
        }
    }
    path.to_string()
}

/// The fully resolved scenario as TOML: every mechanism that takes effect
/// with its defaults filled in, and none that does not (DESIGN, `atmsim
/// show`: "defaults filled in for every mechanism that takes effect"). An
/// `[arb]` at its defaults was left out though ARB flows ran, and a
/// `[fabric]` at its defaults though the fabric was the topology.
pub fn to_toml(s: &Scenario) -> String {
    let mut shown = s.clone();
    if s.topology.kind == TopologyKind::Fabric && s.fabric.is_none() {
        shown.fabric = Some(Default::default());
    } else if s.topology.kind != TopologyKind::Fabric {
        // Restated defaults elsewhere (anything else is refused: `inert::fabric_elsewhere`).
        shown.fabric = None;
    }
    let toml::Value::Table(mut table) = toml::Value::try_from(&shown).expect("a valid scenario serialises") else {
        unreachable!("a scenario is a table")
    };
    let kinds = flow_kinds(s);
    // `[arb]` configures ARB flows alone (the arb-* scenarios keep theirs when their flows run as TCP).
    if !kinds.contains(&FlowKind::Arb) {
        table.remove("arb");
    }
    // Without TCP flows (or ARB ones, whose sources share its timers) only `tcp.mss`, which sizes
    // the other kinds' packets too, takes effect; that and every other key of the schema's
    // sections that does nothing here (`[credit]` with credit off, ...) is left out (`inert.rs`).
    let tcp = kinds.iter().any(|k| matches!(k, FlowKind::Tcp | FlowKind::Arb));
    inert::hide(&mut table, s, &kinds);
    // A section with nothing in it says nothing (`[report]` without a bottleneck on a fabric);
    // `[abr]` and `[boston]` are filled in below, their presence being their mechanism.
    table.retain(|k, v| !v.as_table().is_some_and(|t| t.is_empty()) || SWITCHED_ON_BY_SECTION.contains(&k));
    let in_effect: Vec<&'static Mechanism> =
        selected(s).unwrap_or_default().into_iter().filter(|m| tcp || m.selected_by != "tcp.variant").collect();
    params::put_back(&mut table, &params::with_defaults(&s.params, &in_effect));
    toml::to_string(&table).expect("a valid scenario serialises")
}

/// The kinds of the flows that run: a workload's, or those written.
fn flow_kinds(s: &Scenario) -> Vec<FlowKind> {
    match workload::kind(s) {
        Some(Ok(kind)) => vec![kind],
        Some(Err(_)) | None => s.flows.iter().map(|f| f.kind).collect(),
    }
}

#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests {
    #[test]
    fn setting_a_key_of_an_absent_section_does_not_turn_its_mechanism_on() {
        // Topology 1 runs UBR: abr.* would have made it an ABR scenario (E 0.366 -> 0.805).
        let text = BASE;
        for (set, key) in
            [("abr.efci.backward_ci=false", "abr.efci.backward_ci"), ("abr.tbe=512", "abr.tbe"), ("boston.aida=false", "boston.aida")]
        {
            let e = super::parse(text, &[set.to_string()]).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.problem.contains("does nothing here"), "{e}");
        }
        // A section the file writes takes overrides as before.
        let with_abr = format!("{text}\n[abr]\n");
        assert!(super::parse(&with_abr, &["abr.tbe=1024".to_string()]).is_ok());
    }

    #[test]
    fn an_arb_key_set_where_no_flow_is_arb_is_refused() {
        // arb-bursty's flows are TCP-SS: its [arb] waits for flow.fN.kind=arb, and arb.theta=0.5 did nothing.
        let text = include_str!("../../../../python/atmsim/scenarios/arb-bursty.toml");
        let set = |o: &[&str]| parse(text, &o.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        let e = set(&["arb.theta=0.5"]).unwrap_err();
        assert_eq!(e.key, "arb.theta", "{e}");
        assert!(e.problem.starts_with("does nothing here: no flow of this scenario is ARB"), "{e}");
        assert!(set(&["arb.theta=0.95"]).is_ok(), "restating what the scenario has is not an error");
        let arb: Vec<String> = (1..=5).map(|k| format!("flow.f{k}.kind=arb")).collect();
        let with_arb: Vec<&str> = arb.iter().map(String::as_str).chain(["arb.theta=0.5"]).collect();
        assert_eq!(set(&with_arb).unwrap().arb.theta, 0.5);
        // The file's own [arb] is taken with TCP flows (the TCP-SS runs of the arb-* scenarios).
        assert!(set(&[]).is_ok());
    }

    #[test]
    fn an_error_is_one_line_whatever_the_input() {
        let e = super::ScenarioError { key: "ip.mtu".into(), problem: "unknown size unit '0' in '0\n0\r\t'".into() };
        assert_eq!(e.to_string(), "ip.mtu: unknown size unit '0' in '0\\n0\\r\\t'");
    }

    use super::test_support::{key_of, BASE};
    use super::*;

    #[test]
    fn type_errors_name_flows_and_links_as_validation_does() {
        assert_eq!(key_of(&["flow.f1.kind=nope"]), "flow[f1].kind");
        assert_eq!(key_of(&["link.X-B.rate=[1]"]), "link[X-B].rate");
        assert_eq!(key_of(&["flow.0.start=1.5"]), "flow[f1].start");
    }

    #[test]
    fn a_missing_key_is_named_as_the_user_writes_it() {
        let e = parse("", &[]).unwrap_err();
        assert_eq!((e.key.as_str(), e.problem.as_str()), ("name", "missing: it has no default, so the scenario must give it"));
        let no_rate = BASE.replacen("rate = ", "# rate = ", 1);
        let e = parse(&no_rate, &[]).unwrap_err();
        assert!(e.key.starts_with("link[") && e.key.ends_with("].rate"), "{e}");
    }

    #[test]
    fn resolved_toml_round_trips() {
        let s = parse(BASE, &[]).unwrap();
        let text = to_toml(&s);
        let again = parse(&text, &[]).unwrap();
        assert_eq!(to_toml(&again), text);
        assert!(text.contains("delayed_ack"), "defaults are filled in");
        // An ATM network has no router, and credit is off: neither is shown.
        assert!(text.contains("[switch]") && !text.contains("[router]") && !text.contains("[credit]"), "{text}");
    }

    #[test]
    fn show_of_a_packet_scenario_round_trips() {
        let o: Vec<String> = ["network=packet", "switch.buffer=21packets"].map(String::from).to_vec();
        let text = to_toml(&parse(BASE, &o).unwrap());
        assert!(text.contains("[router]\npolicy = \"tail\""), "{text}");
        // Routers, not ATM switches: `[switch]` holds the buffer alone, and no `[credit]`.
        assert!(text.contains("[switch]\nbuffer = \"21packets\"\n\n"), "{text}");
        assert!(!text.contains("[credit]") && !text.contains("queueing") && !text.contains("input_service"), "{text}");
        // No cells on a packet network: `[atm]` does nothing there, is not shown, and is refused off its default.
        assert!(!text.contains("[atm]"), "{text}");
        let cells = [o.clone(), vec!["atm.encapsulation=aal5-vcmux".to_string()]].concat();
        assert_eq!(validate(&parse(BASE, &cells).unwrap(), None).unwrap_err().key, "atm.encapsulation");
        let again = parse(&text, &[]).unwrap();
        assert_eq!(to_toml(&again), text);
        validate(&again, None).unwrap();
    }

    #[test]
    fn an_integer_past_toml_in_a_file_is_named_by_its_key_with_the_range() {
        let base = "name = \"t\"\nseed = 9223372036854775808\n";
        let e = parse(base, &[]).unwrap_err();
        assert_eq!(e.key, "seed", "{e}");
        assert_eq!(
            e.problem,
            "must be a whole number from 0 to 9223372036854775807, not 9223372036854775808 (more than a TOML integer holds)"
        );
        let e = parse("name = \"t\"\n[trace]\nport_rows = 18446744073709551616 # rows\n", &[]).unwrap_err();
        assert_eq!(e.key, "trace.port_rows", "{e}");
        assert!(e.problem.contains("at most 9223372036854775807, not 18446744073709551616"), "{e}");
        // Any other TOML error is the parser's, naming the scenario.
        assert_eq!(parse("name = ", &[]).unwrap_err().key, "scenario");
    }

    #[test]
    fn show_of_every_built_in_scenario_round_trips() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/atmsim/scenarios");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let file = std::fs::read_to_string(&path).unwrap();
            // Aron & Druschel's scenarios also run with the network flipped.
            let nets: &[&str] = if name.starts_with("aron97") { &["atm", "packet"] } else { &[] };
            for o in std::iter::once(None).chain(nets.iter().map(|n| Some(format!("network={n}")))) {
                let s = parse(&file, &o.iter().cloned().collect::<Vec<_>>()).unwrap();
                let text = to_toml(&s);
                assert_eq!(to_toml(&parse(&text, &[]).unwrap()), text, "{name} {o:?}");
                validate(&s, None).unwrap_or_else(|e| panic!("{name} {o:?}: {e}"));
            }
        }
    }
}
