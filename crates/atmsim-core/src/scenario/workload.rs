//! `[workload]`: the scenario's flows replaced by a connection matrix's
//! (`workload.matrix`, read by `matrix.rs`, checked by `matrix_check.rs`) or
//! a generated pattern's (`workload.pattern`, `generators.rs`), written out
//! as `[[flow]]`s that then validate as if written by hand: matrix node N is
//! host hN (as htsim numbers hosts and `fattree.rs` names them), and each
//! flow is named as htsim's mains name them, `Eqds_SRC_DST` (`Ndp_`, `Tcp_`
//! by kind), a pair's k-th repeat with `_k` after it.

use super::generators::generate;
use super::matrix::{parse, LineError, Matrix, Start};
use super::matrix_check::check;
use super::model::{JobModel, TriggerPlan};
use super::schema::{FlowKind, FlowSpec, Scenario};
use super::stop::Stop;
use super::{err, ScenarioError};
use crate::net::FlowId;
use crate::time::{secs, Time};
use std::collections::HashMap;

/// The largest matrix file read (about a million connection lines).
pub const MAX_MATRIX_BYTES: u64 = 64 << 20;

/// A scenario with its workload written out as flows, and what the flows
/// alone cannot say: their triggers and the collectives they form.
pub struct Expanded {
    pub scenario: Scenario,
    pub triggers: Option<TriggerPlan>,
    pub jobs: Vec<JobModel>,
}

/// The transport of a workload's flows (None without a workload): its
/// `kind` (`replace_flows` writes the replaced flows' kind there).
pub fn kind(s: &Scenario) -> Option<Result<FlowKind, ScenarioError>> {
    let w = s.workload.as_ref()?;
    let kind = match w.kind.as_deref() {
        Some("eqds") => FlowKind::Eqds,
        Some("ndp") => FlowKind::Ndp,
        Some("tcp") => FlowKind::Tcp,
        Some(k) => {
            return Some(err(
                "workload.kind",
                format!("\"{k}\": a matrix's flows are \"eqds\", \"ndp\" or \"tcp\" (flows that start and finish)"),
            ))
        }
        None => {
            return Some(err(
                "workload.kind",
                "the scenario has no [[flow]] to take the matrix's transport from: set workload.kind (\"eqds\", \"ndp\" or \"tcp\")",
            ))
        }
    };
    Some(Ok(kind))
}

/// Why a `[[flow]]` beside a `[workload]` is refused (issue 38, rule 1).
const REPLACED: &str = "does nothing here: the [workload] gives the scenario's flows and replaces every [[flow]]";

/// `[workload]` meeting `[[flow]]`s in the scenario's TOML table, once the
/// overrides are applied (`file_has_workload`: the text itself wrote one).
/// A workload's flows replace the scenario's (docs/fabrics.md), so `--set
/// workload.*` on a scenario whose file writes flows drops them, keeping the
/// one transport they share as `workload.kind` unless that is set (`atmsim
/// show` then prints what runs). Any other meeting leaves flows that would do
/// nothing and is refused: a file that writes both, or `--set flow...`
/// beside a workload.
pub(super) fn replace_flows(table: &mut toml::Table, file_has_workload: bool, overrides: &[String]) -> Result<(), ScenarioError> {
    // Only a matrix or a pattern gives flows (a workload of neither is refused later, naming it).
    let Some(toml::Value::Table(w)) = table.get("workload").filter(|w| w.get("matrix").or_else(|| w.get("pattern")).is_some()) else {
        return Ok(());
    };
    let Some(toml::Value::Array(flows)) = table.get("flow").filter(|f| f.as_array().is_some_and(|a| !a.is_empty())) else {
        return Ok(());
    };
    if let Some(key) = super::set_in(overrides, "flow") {
        return err(key, format!("{REPLACED}: set the flows or a workload, not both"));
    }
    if file_has_workload {
        return err("flow", format!("{REPLACED}: remove the [[flow]]s or the [workload] (the workload's transport is workload.kind)"));
    }
    let kinds: Vec<&str> = flows.iter().map(|f| f.get("kind").and_then(toml::Value::as_str).unwrap_or("tcp")).collect();
    let inherited = match kinds.iter().find(|k| **k != kinds[0]) {
        _ if w.contains_key("kind") => None,
        None if ["eqds", "ndp", "tcp"].contains(&kinds[0]) => Some(kinds[0].to_string()),
        // Named by the key that set the workload (workload.kind, which the message names too, is not set).
        None => {
            let why = format!("the scenario's flows are \"{}\", which a matrix's flows cannot be", kinds[0]);
            return err(set_workload(overrides), format!("{why}: set workload.kind (\"eqds\", \"ndp\" or \"tcp\")"));
        }
        Some(other) => {
            let why = format!("the scenario's flows are of more than one kind ({} and {other})", kinds[0]);
            return err(set_workload(overrides), format!("{why}: set workload.kind to the kind of the matrix's flows"));
        }
    };
    if let (Some(kind), Some(toml::Value::Table(w))) = (inherited, table.get_mut("workload")) {
        w.insert("kind".into(), toml::Value::String(kind));
    }
    table.remove("flow");
    Ok(())
}

/// The key of `[workload]` an override set (the workload a scenario's flows make way for).
fn set_workload(overrides: &[String]) -> &str {
    super::set_in(overrides, "workload").unwrap_or("workload.kind")
}

/// `s` with its workload's flows (None: no workload, the flows as written).
/// `tree_hosts`: the hosts of its generated fat tree, if it has one.
/// `duration`: the run's, past which a connection's start is refused.
/// `stop`: asked as the connections are written out as flows (`stop.rs`).
pub fn expand(
    s: &Scenario,
    tree_hosts: Option<u32>,
    seed: u64,
    duration: Time,
    stop: &mut Stop,
) -> Result<Option<Expanded>, ScenarioError> {
    let Some(w) = &s.workload else {
        if s.flows.is_empty() {
            return err("flow", "a scenario needs at least one [[flow]], or a [workload]");
        }
        return Ok(None);
    };
    let key = match (&w.matrix, &w.pattern) {
        (Some(_), Some(_)) => return err("workload.pattern", "workload.matrix and workload.pattern both give the flows: set one"),
        (None, None) => {
            // `--set workload.kind=tcp` alone (or a file's [workload] of a kind only): named by that key.
            let (key, nothing) = if w.kind.is_some() { ("workload.kind", "does nothing here: the [workload] ") } else { ("workload", "") };
            return err(key, format!("{nothing}gives no flows: set workload.matrix (a connection matrix file) or workload.pattern"));
        }
        (Some(_), None) => "workload.matrix",
        (None, Some(_)) => "workload.pattern",
    };
    if !s.flows.is_empty() {
        return err("flow", format!("{REPLACED}: remove the [[flow]]s or the [workload]"));
    }
    let Some(hosts) = tree_hosts else {
        return err(key, "needs a generated topology (topology.kind = \"fattree\" or \"fabric\"): a matrix's node N is its host hN");
    };
    let kind = kind(s).expect("a workload")?;
    let (matrix, triggers, jobs) = match (&w.matrix, &w.pattern) {
        (Some(path), _) => {
            let in_file = |e: LineError| {
                let at = if e.line == 0 { String::new() } else { format!(" line {}", e.line) };
                ScenarioError { key: key.into(), problem: format!("'{path}'{at}: {}", e.problem) }
            };
            let text = read(path).map_err(|why| ScenarioError { key: key.into(), problem: format!("'{path}': {why}") })?;
            let m = parse(&text).map_err(in_file)?;
            let triggers = check(&m, hosts, stop).map_err(in_file)?;
            // A connection that starts at or past the run's end would never start: refused like a
            // written flow's start (issue 38, rule 1). One started by a trigger may still not be
            // reached in the run: `fairness` counts the flows that started (`world/finish.rs`).
            if let Some(c) = m.conns.iter().find(|c| matches!(c.start, Start::At(t) if t >= duration)) {
                let Start::At(t) = c.start else { unreachable!("just matched") };
                return Err(in_file(LineError {
                    line: c.line,
                    problem: format!(
                        "its connection starts at {} s, at or past the run's end (duration {} s): it would never start",
                        secs(t),
                        secs(duration)
                    ),
                }));
            }
            (m, triggers, Vec::new())
        }
        (None, Some(pattern)) => {
            let (m, jobs) = generate(pattern, &s.params, hosts, seed)?;
            stop.now()?;
            let triggers = check(&m, hosts, stop).map_err(|e| ScenarioError { key: key.into(), problem: e.problem })?;
            (m, triggers, jobs)
        }
        (None, None) => unreachable!("checked above"),
    };
    let jobs = jobs
        .into_iter()
        .map(|(name, flows, bytes, ranks)| JobModel { name, flows: flows.into_iter().map(|f| FlowId(f as u32)).collect(), bytes, ranks })
        .collect();
    stop.now()?;
    let mut scenario = s.clone();
    scenario.flows = flows(&matrix, kind, stop)?;
    Ok(Some(Expanded { scenario, triggers, jobs }))
}

/// The matrix's connections as `[[flow]]`s, in file order.
fn flows(m: &Matrix, kind: FlowKind, stop: &mut Stop) -> Result<Vec<FlowSpec>, ScenarioError> {
    let prefix = match kind {
        FlowKind::Eqds => "Eqds",
        FlowKind::Ndp => "Ndp",
        _ => "Tcp",
    };
    let mut seen: HashMap<(u32, u32), u32> = HashMap::with_capacity(m.conns.len());
    // Kept: told to stop, the flows written so far (10^6 of them, each five strings) are freed by
    // the caller (`Stop::keep`), not here.
    let mut flows = stop.keep(Vec::with_capacity(m.conns.len()));
    for c in &m.conns {
        stop.tick()?;
        let n = seen.entry((c.src, c.dst)).or_insert(0);
        *n += 1;
        let repeat = if *n > 1 { format!("_{n}") } else { String::new() };
        let start = match c.start {
            Start::At(ps) => ps,
            // Started by its trigger (`world/triggers.rs`); 0 until then.
            Start::Trigger(_) => 0,
        };
        flows.push(FlowSpec {
            name: format!("{prefix}_{}_{}{repeat}", c.src, c.dst),
            src: format!("h{}", c.src),
            dst: format!("h{}", c.dst),
            start: format!("{start}ps"),
            bytes: format!("{}B", c.size),
            drop_segments: Vec::new(),
            kind,
            rate: None,
            datagram: None,
            window: None,
            send_at: Vec::new(),
            tc: None,
        });
    }
    Ok(flows.into_inner())
}

/// The text of a matrix file, or why not, in words.
fn read(path: &str) -> Result<String, String> {
    use std::io::Read;
    let why = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "cannot be read (permission denied)".to_string(),
        _ => format!("cannot be read ({})", e.to_string().split(" (os error").next().unwrap_or_default()),
    };
    let file = std::fs::File::open(path).map_err(why)?;
    if file.metadata().map_err(why)?.is_dir() {
        return Err("is a folder, not a connection matrix file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_MATRIX_BYTES + 1).read_to_end(&mut bytes).map_err(why)?;
    if bytes.len() as u64 > MAX_MATRIX_BYTES {
        return Err(format!("is larger than {} MiB (a connection matrix is text of a few bytes a flow)", MAX_MATRIX_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|_| "is not text (a connection matrix is UTF-8 text, htsim's .cm format)".to_string())
}

#[cfg(test)]
mod tests;
