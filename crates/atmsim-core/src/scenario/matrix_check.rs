//! A parsed matrix checked against the topology and itself: node numbers
//! within the fat tree's hosts, ids once each, and triggers that are all
//! defined, all fire and form no cycle (a flow that waits, through
//! triggers, on its own completion would never start), resolved into the
//! model's [`TriggerPlan`]. htsim stops on most of these with an assertion
//! or leaves the flows waiting forever; here each is a [`LineError`].

use super::matrix::{LineError, Matrix, Start, TriggerKind};
use super::model::{TriggerModel, TriggerPlan};
use super::stop::Stop;
use crate::net::FlowId;
use std::collections::HashMap;

fn at<T>(line: usize, problem: impl Into<String>) -> Result<T, LineError> {
    Err(LineError { line, problem: problem.into() })
}

/// One item of a long loop (`Stop::tick`), its interruption as a line's error
/// (the validation, told to stop, takes any error for the interruption).
fn tick(stop: &mut Stop) -> Result<(), LineError> {
    stop.tick().map_err(|e| LineError { line: 0, problem: e.problem })
}

/// Checks `m` against a fat tree of `hosts` hosts; its triggers as a plan
/// (None when no flow waits on a trigger nor activates one). `stop`: asked
/// once a connection and a trigger: a k = 16 tree's shift all-to-all, 10^6
/// connections each with its trigger, took 1.2 s here without a question.
pub fn check(m: &Matrix, hosts: u32, stop: &mut Stop) -> Result<Option<TriggerPlan>, LineError> {
    if m.nodes > hosts {
        return at(m.nodes_line, format!("Nodes {}: the scenario's fat tree has {hosts} hosts (h0 to h{})", m.nodes, hosts - 1));
    }
    let mut ids = HashMap::with_capacity(m.conns.len());
    for c in &m.conns {
        tick(stop)?;
        for node in [c.src, c.dst] {
            if node >= m.nodes {
                return at(c.line, format!("node {node} is beyond Nodes {} (nodes 0 to {})", m.nodes, m.nodes - 1));
            }
        }
        if let Some(id) = c.id {
            if let Some(first) = ids.insert(id, c.line) {
                return at(c.line, format!("id {id} is given twice (also at line {first})"));
            }
        }
    }
    let uses = m.conns.iter().any(|c| matches!(c.start, Start::Trigger(_)) || c.send_done.is_some() || c.recv_done.is_some());
    if m.triggers.is_empty() && !uses {
        return Ok(None);
    }
    let mut index = HashMap::with_capacity(m.triggers.len());
    for (i, t) in m.triggers.iter().enumerate() {
        tick(stop)?;
        if let Some(first) = index.insert(t.id, i) {
            return at(t.line, format!("trigger {} is defined twice (also at line {})", t.id, m.triggers[first].line));
        }
    }
    let n = m.conns.len();
    // Kept: told to stop, its 10^6 target lists are freed by the caller (`Stop::keep`).
    let mut plan = stop.keep(TriggerPlan {
        waits_on: vec![None; n],
        on_sent: vec![None; n],
        on_received: vec![None; n],
        triggers: m.triggers.iter().map(|t| TriggerModel { kind: t.kind, targets: Vec::new() }).collect(),
    });
    let mut activations = vec![0u64; m.triggers.len()];
    for (f, c) in m.conns.iter().enumerate() {
        tick(stop)?;
        // The plan itself, so that its fields are borrowed apart.
        let plan = &mut *plan;
        let find = |id: u32| match index.get(&id) {
            Some(&i) => Ok(i as u32),
            None => at(c.line, format!("trigger {id} is not defined (no 'trigger id {id} ...' line)")),
        };
        if let Start::Trigger(t) = c.start {
            let i = find(t)?;
            plan.waits_on[f] = Some(i);
            plan.triggers[i as usize].targets.push(FlowId(f as u32));
        }
        for (slot, id) in [(&mut plan.on_sent[f], c.send_done), (&mut plan.on_received[f], c.recv_done)] {
            if let Some(id) = id {
                let i = find(id)?;
                *slot = Some(i);
                activations[i as usize] += 1;
            }
        }
    }
    for (t, def) in m.triggers.iter().enumerate() {
        tick(stop)?;
        let (targets, acts) = (plan.triggers[t].targets.len() as u64, activations[t]);
        let id = def.id;
        if targets == 0 {
            return at(def.line, format!("trigger {id} starts no flow (no connection says 'trigger {id}')"));
        }
        let problem = match def.kind {
            TriggerKind::Oneshot if acts == 0 => "never fires: no connection's send_done_trigger or recv_done_trigger names it".to_string(),
            TriggerKind::Oneshot if acts > 1 => {
                format!("a oneshot trigger fires once, but {acts} completions activate it (htsim stops there); use 'barrier count {acts}'")
            }
            TriggerKind::Barrier(c) if acts < c as u64 => {
                format!("never fires: a barrier of count {c}, and only {acts} completions activate it")
            }
            TriggerKind::Barrier(c) if acts > c as u64 => {
                format!("a barrier of count {c} fires once, but {acts} completions activate it (htsim stops there)")
            }
            TriggerKind::Multishot if acts < targets => {
                format!("a multishot trigger starts one flow per activation: {acts} activations for {targets} flows, so some never start")
            }
            _ => continue,
        };
        return at(def.line, format!("trigger {id} {problem}"));
    }
    cycle_free(m, &plan, stop)?;
    Ok(Some(plan.into_inner()))
}

/// Every flow starts eventually: the flows started at a time, then those
/// their completions start, and so on, reach every flow (Kahn's order).
fn cycle_free(m: &Matrix, plan: &TriggerPlan, stop: &mut Stop) -> Result<(), LineError> {
    let mut remaining: Vec<u64> = plan.triggers.iter().map(|t| if let TriggerKind::Barrier(c) = t.kind { c as u64 } else { 1 }).collect();
    let mut next_target = vec![0usize; plan.triggers.len()];
    let mut started = vec![false; m.conns.len()];
    let mut ready: Vec<usize> = (0..m.conns.len()).filter(|&f| plan.waits_on[f].is_none()).collect();
    while let Some(f) = ready.pop() {
        tick(stop)?;
        started[f] = true;
        for t in [plan.on_sent[f], plan.on_received[f]].into_iter().flatten() {
            let (t, trig) = (t as usize, &plan.triggers[t as usize]);
            let fired: &[FlowId] = match trig.kind {
                TriggerKind::Multishot => {
                    let k = next_target[t];
                    next_target[t] += 1;
                    trig.targets.get(k..=k).unwrap_or(&[])
                }
                _ => {
                    remaining[t] = remaining[t].saturating_sub(1);
                    if remaining[t] == 0 && next_target[t] == 0 {
                        next_target[t] = 1;
                        &trig.targets
                    } else {
                        &[]
                    }
                }
            };
            ready.extend(fired.iter().map(|g| g.ix()));
        }
    }
    match (0..m.conns.len()).find(|&f| !started[f]) {
        None => Ok(()),
        Some(f) => {
            let c = &m.conns[f];
            let Start::Trigger(id) = c.start else { unreachable!("a flow started at a time starts") };
            at(c.line, format!("this flow waits on trigger {id}, which only the completion of flows waiting on it can fire (a cycle)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::matrix::parse;
    use super::*;

    fn problem(body: &str, hosts: u32) -> (usize, String) {
        let e = check(&parse(body).unwrap(), hosts, &mut Stop::new(&mut || true)).unwrap_err();
        (e.line, e.problem)
    }

    #[test]
    fn a_chain_of_triggers_is_planned() {
        let m = parse("Nodes 4\nConnections 3\nTriggers 2\n0->1 id 1 start 0 size 9 send_done_trigger 1\n1->2 id 2 trigger 1 size 9 recv_done_trigger 2\n2->3 id 3 trigger 2 size 9\ntrigger id 1 oneshot\ntrigger id 2 barrier count 1\n").unwrap();
        let plan = check(&m, 16, &mut Stop::new(&mut || true)).unwrap().expect("triggers");
        assert_eq!(plan.waits_on, vec![None, Some(0), Some(1)]);
        assert_eq!((plan.on_sent[0], plan.on_received[1]), (Some(0), Some(1)));
        assert_eq!(plan.triggers[1].targets, vec![FlowId(2)]);
        assert_eq!(check(&parse("Nodes 4\nConnections 1\n0->1 start 0 size 9\n").unwrap(), 4, &mut Stop::new(&mut || true)).unwrap(), None);
    }

    #[test]
    fn every_inconsistency_names_its_line() {
        let h = "Nodes 16\nConnections 2\n";
        let t1 = "Nodes 16\nConnections 2\nTriggers 1\n";
        let t2 = "Nodes 16\nConnections 2\nTriggers 2\n";
        for (head, body, hosts, line, words) in [
            (h, "0->1 start 0 size 1\n1->2 start 0 size 1\n", 8, 1, "fat tree has 8 hosts"),
            (h, "0->16 start 0 size 1\n1->2 start 0 size 1\n", 16, 3, "node 16 is beyond Nodes 16"),
            (h, "0->1 id 4 start 0 size 1\n1->2 id 4 start 0 size 1\n", 16, 4, "id 4 is given twice (also at line 3)"),
            (h, "0->1 id 1 start 0 size 1\n1->2 id 2 trigger 9 size 1\n", 16, 4, "trigger 9 is not defined"),
            (t1, "0->1 id 1 start 0 size 1\n1->2 id 2 trigger 1 size 1\ntrigger id 1 oneshot\n", 16, 6, "never fires"),
            (t1, "0->1 id 1 start 0 size 1 send_done_trigger 1\n1->2 id 2 start 0 size 1\ntrigger id 1 oneshot\n", 16, 6, "starts no flow"),
            (
                t2,
                "0->1 id 1 trigger 2 size 1 send_done_trigger 1\n1->2 id 2 trigger 1 size 1 send_done_trigger 2\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n",
                16,
                4,
                "(a cycle)",
            ),
            (
                t1,
                "0->1 id 1 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n1->2 id 2 trigger 1 size 1\ntrigger id 1 oneshot\n",
                16,
                6,
                "fires once, but 2 completions",
            ),
            (t1, "0->1 id 1 start 0 size 1 send_done_trigger 1\n1->2 id 2 trigger 1 size 1\ntrigger id 1 barrier count 2\n", 16, 6, "only 1 completions"),
            (
                t2,
                "0->1 id 1 start 0 size 1 send_done_trigger 1\n1->2 id 2 trigger 1 size 1\ntrigger id 1 oneshot\ntrigger id 1 oneshot\n",
                16,
                7,
                "defined twice",
            ),
        ] {
            let (l, p) = problem(&format!("{head}{body}"), hosts);
            assert_eq!(l, line, "{body}: {p}");
            assert!(p.contains(words), "{body}: {p}");
        }
    }
}
