//! Golden outputs: every built-in scenario, seeds 1–3, must give exactly the
//! summary it gave when the goldens were recorded (the wall time set to 0), and
//! seed 1 with traces on the same traces (by digest); a matrix of variations
//! and of runs with captures on must give the same summaries, traces and pcap
//! files (by digest). A refactoring of the core that changes any result, event
//! count, trace or capture fails here.
//!
//! Re-record after an intended change of behaviour with
//! `ATMSIM_BLESS=1 cargo test --release -p atmsim-core --test golden`
//! and say in the commit why the numbers moved.

use std::path::{Path, PathBuf};

const SEEDS: [u64; 3] = [1, 2, 3];

fn scenarios() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/atmsim/scenarios");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("built-in scenarios")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name)
}

/// FNV-1a over the serialized traces: a digest, not a security hash.
fn digest(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

fn check(file: &str, actual: &str) -> Option<String> {
    let path = golden_path(file);
    if std::env::var_os("ATMSIM_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing golden {}", path.display()));
    (expected != actual).then(|| file.to_string())
}

fn one(name: &str, text: &str, seed: u64, trace: bool) -> Option<String> {
    let (mut summary, traces) = atmsim_core::run_text(text, &[], Some(seed), trace).expect("built-in scenario runs");
    summary.wall_s = 0.0;
    let mut text_out = summary.to_json();
    text_out.push('\n');
    if trace {
        let t = serde_json::to_vec(&traces.expect("traces on")).unwrap();
        check(&format!("{name}.s{seed}.traces"), &format!("{}\n", digest(&t)))
    } else {
        check(&format!("{name}.s{seed}.json"), &text_out)
    }
}

/// Variations that exercise every mechanism the built-in scenarios leave
/// at their defaults: (scenario, golden name, overrides). Two simulated
/// seconds each, seed 2, traces on.
const MATRIX: &[(&str, &str, &[&str])] = &[
    ("aron97-topo1-atm", "lite-afr", &["tcp.variant=lite-afr"]),
    ("aron97-topo1-atm", "tahoe", &["tcp.variant=tahoe"]),
    ("aron97-topo1-atm", "newreno", &["tcp.variant=newreno"]),
    ("aron97-topo1-atm", "vegas-rm", &["tcp.variant=vegas-rm"]),
    ("aron97-topo1-atm", "vegas-rm-afr", &["tcp.variant=vegas-rm-afr", "tcp.afr_predictor=hysteresis"]),
    ("aron97-topo1-atm", "vegas", &["tcp.variant=vegas"]),
    ("aron97-topo1-atm", "vegas-afr-10ms", &["tcp.variant=vegas-afr", "tcp.tick=10ms"]),
    ("aron97-topo1-atm", "lite-orig", &["tcp.bp95=false", "tcp.delayed_ack=false"]),
    ("aron97-topo1-atm", "ppd", &["switch.policy=ppd", "switch.buffer=48KB"]),
    ("aron97-topo1-atm", "epd", &["switch.policy=epd", "switch.buffer=48KB", "atm.encapsulation=aal5-llc"]),
    ("aron97-topo1-atm", "eom", &["switch.policy=eom-protect", "switch.buffer=48KB", "atm.encapsulation=aal5-vcmux"]),
    ("aron97-topo1-atm", "per-vc", &["switch.queueing=per-vc", "switch.buffer=48KB"]),
    ("aron97-topo2-packet", "vegas-afr", &["tcp.variant=vegas-afr", "switch.buffer=48KB"]),
    ("aron97-topo2-packet", "newreno", &["tcp.variant=newreno", "tcp.tick=100ms"]),
    ("aron97-topo1-packet", "tahoe-cells", &["tcp.variant=tahoe", "switch.buffer=21packets"]),
    ("aron97-topo1-packet", "sack", &["tcp.variant=sack"]),
    ("aron97-topo1-atm", "sack", &["tcp.variant=sack", "switch.buffer=48KB"]),
    ("morris-kung95-a", "oob", &["credit.transport=out-of-band"]),
    ("morris-kung95-b", "ppd", &["switch.policy=ppd"]),
    // Random drop (Chang et al.'s gateway) on a small buffer, so that it evicts often.
    ("aron97-topo1-packet", "random-drop", &["router.policy=random-drop", "switch.buffer=3packets"]),
    // Drop from front on the same small buffer.
    ("aron97-topo1-packet", "drop-front", &["router.policy=drop-front", "switch.buffer=3packets"]),
    // RED (Floyd & Jacobson's defaults) on a buffer large enough that early drops dominate.
    ("aron97-topo1-packet", "red", &["router.policy=red", "switch.buffer=60packets"]),
    // RED with ECN (RFC 3168) and ECN TCP on the same buffer: early drops become CE marks.
    ("aron97-topo1-packet", "red-ecn", &["router.policy=red", "switch.buffer=60packets", "router.red.ecn=true", "tcp.ecn=true"]),
    // Gentle RED (Floyd 2000) with ECN on the same buffer: early drops, marked, up to 2·max_th.
    (
        "aron97-topo1-packet",
        "red-ecn-gentle",
        &["router.policy=red", "switch.buffer=60packets", "router.red.ecn=true", "tcp.ecn=true", "router.red.gentle=true"],
    ),
    // The cell-slot fabric with round-robin input service (Bestavros & Kim §4.1) on a topology
    // where several inputs feed one output in the same slot.
    ("aron97-topo1-atm", "input-rr", &["switch.input_service=round-robin", "switch.buffer=48KB"]),
    // ABR with scattered cell loss at the bottleneck (Jain et al., "Effect of Fast Retransmit").
    ("jain96-2src", "abr-loss", &["abr.loss.port=\"SW1->SW2\"", "abr.loss.probability=0.001", "tcp.variant=lite"]),
    // ABR with the on/off VBR background at strict priority (the two-class port).
    ("jain96-5src", "vbr", &["abr.vbr.port=\"SW1->SW2\"", "abr.vbr.rate=\"124.416Mbps\""]),
    // EOM protection with PPD on UBR: the rest of a damaged frame is dropped, EOMs kept.
    ("aron97-topo1-atm", "eom-ppd", &["switch.policy=eom-protect-ppd", "switch.buffer=48KB", "atm.encapsulation=aal5-vcmux"]),
    // Selective Drop and Fair Buffer Allocation (UBR+) on a buffer small enough that they refuse frames.
    ("aron97-topo1-atm", "selective-drop", &["switch.policy=selective-drop", "switch.buffer=96KB", "atm.encapsulation=aal5-llc"]),
    ("aron97-topo1-atm", "fba", &["switch.policy=fba", "switch.buffer=96KB", "atm.encapsulation=aal5-llc"]),
    // Intelligent tail drop (EOM protection) on ABR with a buffer small enough to overflow.
    ("jain96-2src", "eom-protect", &["switch.policy=eom-protect", "switch.buffer=600cells", "abr.tbe=1024"]),
    // Binary-feedback ABR: EFCI switches, destinations turning EFCI into CI, TM 4.0's RIF = RDF = 1/16;
    // then with relative rate marking (CI in backward RM cells) as well.
    ("jain96-2src", "efci", &["abr.switch=efci", "abr.rif=0.0625", "abr.rdf=0.0625"]),
    ("jain96-2src", "efci-backward-ci", &["abr.switch=efci", "abr.rif=0.0625", "abr.rdf=0.0625", "abr.efci.backward_ci=true"]),
];

/// Runs with packet captures on (`--pcap`), every capture file pinned by its
/// digest: the pcap writer, the headers it synthesises and the choice of what
/// is captured. (scenario, golden name, overrides), 2 s, seed 2.
const CAPTURES: &[(&str, &str, &[&str])] = &[
    ("aron97-topo1-atm", "capture", &[]),
    ("aron97-topo1-packet", "capture", &["capture.ports=[\"R1->R2\"]", "capture.hosts=[\"S1\", \"D1\"]"]),
    ("morris-kung95-a", "capture", &[]),
];

fn matrix_one(scenario: &str, variation: &str, sets: &[&str]) -> Option<String> {
    let text = scenarios().into_iter().find(|(n, _)| n == scenario).expect("built-in scenario").1;
    let mut overrides: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    overrides.push("duration=2s".into());
    let (mut summary, traces) = atmsim_core::run_text(&text, &overrides, Some(2), true).expect("variation runs");
    summary.wall_s = 0.0;
    let t = serde_json::to_vec(&traces.expect("traces on")).unwrap();
    let mut out = summary.to_json();
    out.push_str(&format!("\ntraces {}\n", digest(&t)));
    check(&format!("matrix/{scenario}.{variation}.json"), &out)
}

fn capture_one(scenario: &str, variation: &str, sets: &[&str]) -> Option<String> {
    let text = scenarios().into_iter().find(|(n, _)| n == scenario).expect("built-in scenario").1;
    let mut overrides: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    overrides.push("duration=2s".into());
    let (mut summary, _, files) = atmsim_core::run_text_capture(&text, &overrides, Some(2), false).expect("capture runs");
    summary.wall_s = 0.0;
    let mut out = summary.to_json();
    out.push('\n');
    for f in &files {
        out.push_str(&format!("{} linktype {} packets {} digest {}\n", f.name, f.linktype, f.packets, digest(&f.bytes)));
    }
    check(&format!("matrix/{scenario}.{variation}.json"), &out)
}

#[test]
fn captures_match_their_goldens() {
    std::fs::create_dir_all(golden_path("matrix")).unwrap();
    let diffs: Vec<String> = CAPTURES.iter().filter_map(|(s, v, sets)| capture_one(s, v, sets)).collect();
    assert!(diffs.is_empty(), "captures differ from their goldens: {diffs:?}");
}

#[test]
fn variations_match_their_goldens() {
    std::fs::create_dir_all(golden_path("matrix")).unwrap();
    let diffs: Vec<String> = MATRIX.iter().filter_map(|(s, v, sets)| matrix_one(s, v, sets)).collect();
    assert!(diffs.is_empty(), "outputs differ from their goldens: {diffs:?}");
}

#[test]
fn built_in_scenarios_match_their_goldens() {
    let jobs: Vec<(String, String, u64, bool)> = scenarios()
        .into_iter()
        .flat_map(|(n, t)| {
            let mut v: Vec<_> = SEEDS.iter().map(|&s| (n.clone(), t.clone(), s, false)).collect();
            v.push((n, t, 1, true));
            v
        })
        .collect();
    // Two threads: the scenarios are independent and the machine has two cores.
    let mid = jobs.len() / 2;
    let (a, b) = jobs.split_at(mid);
    let (a, b) = (a.to_vec(), b.to_vec());
    let h = std::thread::spawn(move || a.iter().filter_map(|(n, t, s, tr)| one(n, t, *s, *tr)).collect::<Vec<_>>());
    let mut diffs: Vec<String> = b.iter().filter_map(|(n, t, s, tr)| one(n, t, *s, *tr)).collect();
    diffs.extend(h.join().unwrap());
    assert!(diffs.is_empty(), "outputs differ from their goldens: {diffs:?}");
}

#[test]
fn an_observer_stops_a_captured_run_as_it_stops_any_run() {
    // Ctrl-C in Python reaches a captured run through this observer, as it reaches `run_text_observed`.
    let text = scenarios().into_iter().find(|(n, _)| n == "aron97-topo1-atm").expect("built-in scenario").1;
    // 10 s of topology 1: about 2.1 million events, observed twice.
    let overrides = vec!["duration=10s".to_string()];
    let mut calls = 0;
    let whole = atmsim_core::run_text_capture_observed(&text, &overrides, Some(2), false, |_, _| {
        calls += 1;
        true
    });
    let whole = whole.expect("a valid scenario").expect("an observer that never stops");
    assert!(calls >= 1, "the run is long enough to be observed");
    let stopped = atmsim_core::run_text_capture_observed(&text, &overrides, Some(2), false, |_, _| false);
    assert!(stopped.unwrap().is_none(), "the run went on after its observer said stop");
    let (summary, _, files) = atmsim_core::run_text_capture(&text, &overrides, Some(2), false).unwrap();
    assert_eq!((whole.0.events, whole.2.len()), (summary.events, files.len()));
}
