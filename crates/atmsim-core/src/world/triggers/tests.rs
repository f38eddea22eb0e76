//! A completion starts its dependants, on a run: EQDS on htsim's 16-host tree.

use crate::world::World;

const EQDS_ONE: &str = include_str!("../../../../../python/atmsim/scenarios/eqds-one.toml");

/// The world after running eqds-one with its flows from `matrix` (written to a file of its own).
fn run(name: &str, matrix: &str) -> World {
    let path = std::env::temp_dir().join(format!("atmsim-triggers-{}-{name}.cm", std::process::id()));
    std::fs::write(&path, matrix).unwrap();
    let set = vec![format!("workload.matrix={}", path.display())];
    let model = crate::scenario::validate(&crate::parse(EQDS_ONE, &set).unwrap(), None).unwrap();
    std::fs::remove_file(&path).unwrap();
    let mut w = World::new(model, false);
    w.run();
    w
}

fn done(w: &World, f: usize) -> u64 {
    w.flows[f].completed_at.unwrap_or_else(|| panic!("flow {f} completes"))
}

fn started(w: &World, f: usize) -> u64 {
    w.started_at(f, &w.model.flows[f])
}

#[test]
fn a_flow_starts_when_its_trigger_flow_is_sent_or_received() {
    let chain = |key| {
        format!("Nodes 16\nConnections 2\nTriggers 1\n0->13 id 1 start 0 size 200000 {key} 1\n13->0 id 2 trigger 1 size 200000\ntrigger id 1 oneshot\n")
    };
    let sent = run("sent", &chain("send_done_trigger"));
    assert_eq!(started(&sent, 1), done(&sent, 0), "opened at the instant the first flow completes");
    // The second flow, alone on an idle network, takes as long as it would from 0.
    let alone = run("alone", "Nodes 16\nConnections 1\n13->0 start 0 size 200000\n");
    let (fct, fct_alone) = ((done(&sent, 1) - started(&sent, 1)) as f64, done(&alone, 0) as f64);
    assert!((fct / fct_alone - 1.0).abs() < 0.01, "{fct} against {fct_alone}");
    // The receiver holds the last byte before its ACK reaches the sender.
    let received = run("received", &chain("recv_done_trigger"));
    let (start, first_done) = (started(&received, 1), done(&received, 0));
    assert!(start > 0 && start < first_done, "started at {start}, the first flow done at {first_done}");
    assert!(done(&received, 1) < done(&sent, 1));
}

#[test]
fn a_barrier_waits_for_its_count_and_a_multishot_starts_one_flow_each() {
    let barrier = run(
        "barrier",
        "Nodes 16\nConnections 3\nTriggers 1\n0->13 id 1 start 0 size 100000 send_done_trigger 1\n1->13 id 2 start 0 size 300000 send_done_trigger 1\n13->5 id 3 trigger 1 size 1000\ntrigger id 1 barrier count 2\n",
    );
    assert_eq!(started(&barrier, 2), done(&barrier, 0).max(done(&barrier, 1)));
    let multi = run(
        "multi",
        "Nodes 16\nConnections 4\nTriggers 1\n0->13 id 1 start 0 size 100000 send_done_trigger 1\n1->13 id 2 start 0 size 300000 send_done_trigger 1\n13->5 id 3 trigger 1 size 1000\n13->6 id 4 trigger 1 size 1000\ntrigger id 1 multishot\n",
    );
    let (first, second) = (done(&multi, 0).min(done(&multi, 1)), done(&multi, 0).max(done(&multi, 1)));
    assert_eq!((started(&multi, 2), started(&multi, 3)), (first, second));
    assert!(first < second);
}

#[test]
fn fairness_is_over_the_flows_that_started() {
    // The third flow waits for the first, which cannot finish its 100 MB in the run's 1 ms: it never
    // starts, and counting its zero made the index lower the shorter the run (issue 38).
    let w = run(
        "unstarted",
        "Nodes 16\nConnections 3\nTriggers 1\n0->13 id 1 start 0 size 100000000 send_done_trigger 1\n1->5 id 2 start 0 size 300000\n13->6 id 3 trigger 1 size 1000\ntrigger id 1 oneshot\n",
    );
    let (s, _) = w.finish();
    let delivered: Vec<f64> = s.flows.iter().map(|f| f.bytes_delivered as f64).collect();
    assert!(delivered[0] > 0.0 && delivered[1] > 0.0 && delivered[2] == 0.0, "{delivered:?}");
    assert_eq!(s.flows_not_started, 1);
    assert_eq!(s.fairness, crate::stats::jain_fairness(&delivered[..2]));
    assert!(s.fairness > crate::stats::jain_fairness(&delivered));
}
