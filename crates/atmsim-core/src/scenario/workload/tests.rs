//! A workload's flows written out, and every way its input can be wrong.

use crate::scenario::{validate, FlowKind, ScenarioError};

const EQDS_ONE: &str = include_str!("../../../../../python/atmsim/scenarios/eqds-one.toml");

fn with(sets: &[&str]) -> Result<crate::scenario::Model, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    validate(&crate::parse(EQDS_ONE, &sets)?, None)
}

/// A matrix file in the temporary folder, removed when the test is done with it.
struct MatrixFile(std::path::PathBuf);

impl std::fmt::Display for MatrixFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.display())
    }
}

impl Drop for MatrixFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn matrix_file(name: &str, text: &str) -> MatrixFile {
    let path = std::env::temp_dir().join(format!("atmsim-workload-{}-{name}.cm", std::process::id()));
    std::fs::write(&path, text).unwrap();
    MatrixFile(path)
}

#[test]
fn a_matrix_replaces_the_flows_named_as_htsim_names_them() {
    let path =
        matrix_file("names", "Nodes 16\nConnections 3\n0->13 start 0 size 2000000\n3->1 start 1000000 size 5\n0->13 start 0 size 7\n");
    let m = with(&[&format!("workload.matrix={path}")]).unwrap();
    let names: Vec<&str> = m.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["Eqds_0_13", "Eqds_3_1", "Eqds_0_13_2"]);
    assert_eq!((m.flows[1].start, m.flows[1].bytes), (1_000_000, Some(5)), "start in picoseconds");
    assert_eq!(m.node_names[m.flows[1].src.ix()], "h3");
    assert!(m.triggers.is_none());
    let ndp = with(&[&format!("workload.matrix={path}"), "workload.kind=ndp"]).unwrap();
    assert!(ndp.flows[0].name == "Ndp_0_13" && matches!(ndp.flows[0].app, crate::scenario::App::Ndp(_)));
}

#[test]
fn a_pattern_generates_flows_and_refuses_keys_it_does_not_read() {
    let m = with(&["workload.pattern=incast", "workload.senders=3", "workload.receiver=9"]).unwrap();
    assert_eq!(m.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["Eqds_0_9", "Eqds_1_9", "Eqds_2_9"]);
    let ring = with(&["workload.pattern=ring_allreduce", "workload.group=4"]).unwrap();
    assert_eq!((ring.flows.len(), ring.jobs.len(), ring.jobs[0].ranks), (4 * 4 * 6, 4, 4));
    for (set, key) in [
        (vec!["workload.pattern=incast", "workload.bucket=5"], "workload.bucket"),
        (vec!["workload.pattern=permutation", "workload.group=4"], "workload.group"),
        (vec!["workload.pattern=ring_allreduce", "workload.senders=2"], "workload.senders"),
        (vec!["workload.senders=2"], "workload.senders"),
        (vec!["workload.pattern=alltoall"], "workload.pattern"),
        (vec!["workload.pattern=incast", "workload.matrix=x.cm"], "workload.pattern"),
        (vec!["workload.kind=eqds"], "workload.kind"),
        (vec!["workload.pattern=incast", "workload.kind=udp"], "workload.kind"),
        (vec!["workload.pattern=shift_all_to_all", "workload.group=17"], "workload.group"),
    ] {
        assert_eq!(with(&set).unwrap_err().key, key, "{set:?}");
    }
}

#[test]
fn a_bad_matrix_file_is_one_line_naming_file_and_line() {
    let missing = std::env::temp_dir().join("atmsim-no-such-matrix.cm").display().to_string();
    let e = with(&[&format!("workload.matrix={missing}")]).unwrap_err();
    assert_eq!((e.key.as_str(), e.problem.clone()), ("workload.matrix", format!("'{missing}': no such file")));
    let beyond = matrix_file("beyond", "Nodes 16\nConnections 1\n0->16 start 0 size 5\n");
    let e = with(&[&format!("workload.matrix={beyond}")]).unwrap_err();
    assert_eq!(e.problem, format!("'{beyond}' line 3: node 16 is beyond Nodes 16 (nodes 0 to 15)"));
    let big = matrix_file("big", "Nodes 128\nConnections 1\n0->1 start 0 size 5\n");
    assert!(with(&[&format!("workload.matrix={big}")])
        .unwrap_err()
        .problem
        .contains("line 1: Nodes 128: the scenario's fat tree has 16 hosts"));
    let binary = matrix_file("binary", "Nodes 16\n\u{0}\u{ff}");
    std::fs::write(&binary.0, [b'N', 0xff, 0xfe]).unwrap();
    assert!(with(&[&format!("workload.matrix={binary}")]).unwrap_err().problem.contains("is not text"));
    let dir = std::env::temp_dir().display().to_string();
    assert!(with(&[&format!("workload.matrix={dir}")]).unwrap_err().problem.contains("is a folder"));
}

#[test]
fn a_matrix_needs_a_fat_tree_and_a_kind() {
    let path = matrix_file("kinds", "Nodes 2\nConnections 1\n0->1 start 0 size 5\n");
    let base = crate::scenario::test_support::BASE;
    let e = validate(&crate::parse(base, &[format!("workload.matrix={path}")]).unwrap(), None).unwrap_err();
    assert!(e.key == "workload.matrix" && e.problem.contains("needs a generated topology"), "{e}");
    // Mixed kinds: which one the matrix's flows are is not guessed.
    let mixed = format!("{EQDS_ONE}\n[[flow]]\nname = \"t\"\nkind = \"tcp\"\nsrc = \"h1\"\ndst = \"h2\"\n");
    let e = crate::parse(&mixed, &[format!("workload.matrix={path}")]).and_then(|s| validate(&s, None)).unwrap_err();
    assert!(e.key == "workload.matrix" && e.problem.contains("more than one kind") && e.problem.contains("workload.kind"), "{e}");
    // Flows of a kind a matrix's cannot be (fabric-incast's UDP): named by the key set, not workload.kind.
    let udp = EQDS_ONE.replace("kind = \"eqds\"", "kind = \"udp\"");
    let e = crate::parse(&udp, &[format!("workload.matrix={path}")]).unwrap_err();
    assert_eq!(e.to_string(), "workload.matrix: the scenario's flows are \"udp\", which a matrix's flows cannot be: set workload.kind (\"eqds\", \"ndp\" or \"tcp\")");
    let s = crate::parse(&mixed, &[format!("workload.matrix={path}"), "workload.kind=tcp".into()]).unwrap();
    assert_eq!(validate(&s, None).unwrap().flows.len(), 1);
    assert_eq!(crate::scenario::workload::kind(&s).unwrap().unwrap(), FlowKind::Tcp);
}

#[test]
fn a_file_named_like_a_number_is_a_file_and_other_values_are_refused_in_words() {
    let e = with(&["workload.matrix=9"]).unwrap_err();
    assert_eq!((e.key.as_str(), e.problem.as_str()), ("workload.matrix", "'9': no such file"));
    let e = with(&["workload.matrix=true"]).unwrap_err();
    assert_eq!(e.key, "workload.matrix");
    assert!(e.problem.contains("must be the path of a connection matrix file"), "{e}");
}

#[test]
fn flows_beside_a_workload_are_refused_as_doing_nothing() {
    // Under a [workload] every [[flow]] key was accepted and silently ignored (issue 38, rule 1).
    let both = format!("{EQDS_ONE}\n[workload]\npattern = \"incast\"\nkind = \"eqds\"\n");
    let e = crate::parse(&both, &[]).unwrap_err();
    assert!(e.key == "flow" && e.problem.starts_with("does nothing here: the [workload] gives"), "{e}");
    // --set on the flows beside a workload, whichever wrote the workload.
    let e = crate::parse(EQDS_ONE, &["workload.pattern=incast".into(), "flow.0.bytes=5MB".into()]).unwrap_err();
    assert_eq!(e.key, "flow.0.bytes", "{e}");
    let only_workload = EQDS_ONE.split("[[flow]]").next().unwrap().to_string() + "\n[workload]\npattern = \"incast\"\nkind = \"eqds\"\n";
    assert!(validate(&crate::parse(&only_workload, &[]).unwrap(), None).is_ok());
    let e = crate::parse(&only_workload, &[r#"flow=[{name = "x", src = "h1", dst = "h2"}]"#.into()]).unwrap_err();
    assert!(e.key == "flow" && e.problem.contains("not both"), "{e}");
    // The resolver refuses them too, however the scenario was made.
    let mut s = crate::parse(EQDS_ONE, &[]).unwrap();
    s.workload = crate::parse(&only_workload, &[]).unwrap().workload;
    assert_eq!(validate(&s, None).unwrap_err().key, "flow");
}

#[test]
fn a_workload_set_on_a_scenario_replaces_its_flows_and_shows_what_runs() {
    let s = crate::parse(EQDS_ONE, &["workload.pattern=incast".into(), "workload.senders=3".into()]).unwrap();
    assert!(s.flows.is_empty(), "the file's flows are replaced, not kept beside the workload");
    let shown = crate::scenario::to_toml(&s);
    assert!(shown.contains("kind = \"eqds\"") && !shown.contains("[[flow]]"), "{shown}");
    let again = validate(&crate::parse(&shown, &[]).unwrap(), None).unwrap();
    assert_eq!(again.flows.len(), 3);
    assert_eq!(with(&["workload.pattern=incast", "workload.senders=3"]).unwrap().flows.len(), 3);
}

#[test]
fn a_connection_that_starts_at_or_past_the_end_is_refused_naming_its_line() {
    // eqds-one runs 1 ms: a connection at 1 ms (10^9 ps) or later would never start (issue 38, rule 1).
    let late = matrix_file("late", "Nodes 16\nConnections 2\n0->13 start 0 size 5\n3->1 start 1000000000 size 5\n");
    let e = with(&[&format!("workload.matrix={late}")]).unwrap_err();
    assert_eq!(e.key, "workload.matrix");
    assert_eq!(
        e.problem,
        format!("'{late}' line 4: its connection starts at 0.001 s, at or past the run's end (duration 0.001 s): it would never start")
    );
    assert!(with(&[&format!("workload.matrix={late}"), "duration=1000001ns"]).is_ok());
}

#[test]
fn a_large_matrix_validates_in_linear_time() {
    // Every EQDS flow scanned every flow for NDP ones: 64,512 flows took 28 s to validate, a 1,024-host
    // ring all-reduce (2 × 10^6 flows) was still validating after 2 hours.
    let n = 100_000;
    let mut text = format!("Nodes 16\nConnections {n}\n");
    for i in 0..n {
        text += &format!("{}->{} start 0 size 1000\n", i % 16, (i + 1) % 16);
    }
    let path = matrix_file("large", &text);
    let started = std::time::Instant::now();
    let m = with(&[&format!("workload.matrix={path}"), "switch.buffer=20000B"]).unwrap();
    assert_eq!(m.flows.len(), n);
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
}

#[test]
fn a_long_validation_asks_whether_to_go_on_and_stops_when_told() {
    // Ctrl-C waited for the whole validation (`scenario/stop.rs`): a k = 8 tree's 16,256-connection
    // all-to-all asks at each phase (and every 20 ms), and stops at the first no.
    let sets: Vec<String> = ["topology.k=8", "report.bottleneck=h0->tor0", "workload.pattern=shift_all_to_all", "workload.kind=tcp"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let s = crate::parse(EQDS_ONE, &sets).unwrap();
    let mut asked = 0;
    let whole = crate::scenario::validate_stoppable(&s, None, &mut || {
        asked += 1;
        true
    });
    let Ok(crate::Stoppable::Done(whole)) = whole else { panic!("never told to stop") };
    assert_eq!(whole.flows.len(), 128 * 127);
    assert!(asked >= 6, "{asked}");
    let mut asked = 0;
    let mut stop_at_third = || {
        asked += 1;
        asked < 3
    };
    let stopped = crate::scenario::validate_stoppable(&s, None, &mut stop_at_third).unwrap();
    // Stopped after its workload was written out: the flows are handed back unfreed.
    assert!(matches!(stopped, crate::Stoppable::Stopped(ref left) if !left.is_empty()));
    assert_eq!(asked, 3);
}
