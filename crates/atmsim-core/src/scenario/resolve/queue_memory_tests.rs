use super::{MAX_QUEUED_BYTES, QUEUED_UNIT_BYTES};
use crate::scenario::test_support::check;
use crate::scenario::{parse, validate, Model, ScenarioError};

/// Queued units the cap allows: 6.25 × 10^7.
const CAP: u64 = MAX_QUEUED_BYTES / QUEUED_UNIT_BYTES;

/// The most `key` may be as a refusal says ("at most N cells here"), checked: N is taken, one unit
/// (`step`) more refused. `with(v)` is the scenario with the key at `v` (refused at 1,000 times the cap).
fn the_most(key: &str, with: impl Fn(u64) -> Result<Model, ScenarioError>, step: u64) -> u64 {
    let e = with(CAP * 1000).unwrap_err();
    assert_eq!(e.key, key, "{e}");
    let n: u64 = e.problem.split("at most ").nth(1).and_then(|t| t.split(' ').next()).and_then(|t| t.parse().ok()).expect("at most N");
    assert!(with(n).is_ok(), "{key} at {n}");
    refused(with(n + step), key, &format!("at most {n} "));
    n
}

fn refused(r: Result<Model, ScenarioError>, key: &str, most: &str) {
    let e = r.err().unwrap_or_else(|| panic!("{key}: taken"));
    assert_eq!(e.key, key, "{e}");
    assert!(e.problem.contains(most) && e.problem.contains("docs/performance.md") && !e.problem.contains('\n'), "{e}");
}

#[test]
fn the_switch_buffer_of_every_port_counts_at_the_cap_taken_past_it_refused() {
    // BASE's switch X has two bounded ports (X->A, X->B): half the cap each, less what f1's window may hold.
    let n = the_most("switch.buffer", |v| check(&[&format!("switch.buffer={v}cells")]), 1);
    assert!(n <= CAP / 2 && n > CAP / 2 - 2000, "{n}");
    // A link's own buffer is its key, and the other port's share leaves it the rest.
    let m = the_most("link[X-B].buffer", |v| check(&["switch.buffer=1000cells", &format!("link.X-B.buffer={v}cells")]), 1);
    assert_eq!(m, 2 * n - 1000);
}

#[test]
fn a_router_buffer_in_bytes_counts_its_smallest_packets() {
    // BASE's TCP flow: its ACKs, 40 bytes, are the smallest packets; 2 ports of about CAP / 2 packets each.
    let n = the_most("switch.buffer", |v| check(&["network=packet", &format!("switch.buffer={v}B")]), 40);
    assert!(n % 40 == 0 && n <= CAP / 2 * 40 && n > (CAP / 2 - 100) * 40, "{n}");
    refused(check(&["network=packet", "switch.buffer=100GB"]), "switch.buffer", "(the run's smallest packets are 40 B)");
    // A UDP flow's last datagram, what its bytes leave, is its smallest: 10 B of payload, 38 B.
    let udp = ["network=packet", "flow.f1.kind=udp", "flow.f1.rate=1Mbps", "flow.f1.datagram=1000B", "flow.f1.bytes=100010B"];
    refused(check(&[&udp[..], &["switch.buffer=100GB"]].concat()), "switch.buffer", "the run's smallest packets are 38 B");
    refused(check(&["network=packet", &format!("switch.buffer={}packets", CAP)]), "switch.buffer", "packets here");
}

#[test]
fn a_credit_buffer_names_n3_beyond_n2() {
    let on = ["credit.enabled=true", "credit.n2=10"];
    let n = the_most("credit.n3", |v| check(&[&on[..], &[&format!("credit.n3={}", v.min(1 << 31))]].concat()), 1);
    assert!(n <= CAP / 2 - 10 && n > CAP / 2 - 2000, "{n}");
    refused(check(&[&on[..], &["credit.n3=100000000"]].concat()), "credit.n3", "here (cells beyond N2 = 10)");
}

#[test]
fn a_host_backlog_counts_with_the_switches() {
    // 282.66 Mb/s of 9,100-B datagrams into A's 141.33-Mb/s link for 15 s leaves about 6.1 × 10^6 cells
    // waiting at A (2^23 after 20.5 s: backlog.rs's test), under a host's own cap; beside X's two ports of
    // 2.5 × 10^7 cells each the run's queues fit, of 3 × 10^7 each they pass the cap, and the buffer, the
    // larger part, is named.
    let udp = ["flow.f1.kind=udp", "flow.f1.rate=282.66Mbps", "flow.f1.datagram=9100B", "duration=15s"];
    assert!(check(&udp).is_ok());
    assert!(check(&[&udp[..], &["switch.buffer=25000000cells"]].concat()).is_ok());
    refused(check(&[&udp[..], &["switch.buffer=30000000cells"]].concat()), "switch.buffer", "cells here");
}

const FABRIC: &str = include_str!("../../../../../python/atmsim/scenarios/fabric-incast.toml");

fn fabric(sets: &[&str]) -> Result<Model, ScenarioError> {
    let o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    validate(&parse(FABRIC, &o)?, None)
}

#[test]
fn a_fabric_voq_buffer_and_its_link_credit_count_too() {
    assert!(fabric(&[]).is_ok());
    // fabric-incast's 16 FAPs: 16 VOQ buffers.
    refused(fabric(&["fabric.voq.buffer=100GB"]), "fabric.voq.buffer", "B here");
    refused(fabric(&["fabric.llfc.n3=1000000000"]), "fabric.llfc.n3", "(cells beyond N2 = ");
    // N2 + N3 past what a signed counter holds was taken (a link's credit balance wrapped negative).
    refused(fabric(&["fabric.llfc.n3=9223372036854775807"]), "fabric.llfc.n3", "here");
}

/// ndp-in-out (NDP on a k = 8 fat tree of trimming switches) with one key set.
fn ndp(set: String) -> Result<Model, ScenarioError> {
    validate(&parse(include_str!("../../../../../python/atmsim/scenarios/ndp-in-out.toml"), &[set])?, None)
}

#[test]
fn a_trimming_port_counts_its_header_queue() {
    // k = 8: 640 switch ports, each 3 × its bytes over NDP's 64-B headers.
    let n = the_most("switch.buffer", |v| ndp(format!("switch.buffer={v}B")), 64);
    assert!(n % 64 == 0 && n <= CAP / 640 / 3 * 64 && n > CAP / 640 / 3 * 64 - 64 * 100, "{n}");
    refused(ndp("switch.buffer=1GB".into()), "switch.buffer", "(the run's smallest packets are 64 B, and a trimming port");
}

#[test]
fn a_window_counts_what_it_may_leave_at_its_host() {
    // NDP sends its initial window at once, unpulled: 2 × 10^7 packets once ended in an allocation failure.
    assert!(ndp("ndp.initial_window=23".into()).is_ok());
    refused(ndp("ndp.initial_window=20000000".into()), "ndp.initial_window", "packets here");
    // A TCP window counts its segments, cells on ATM: 1 GiB is 117,632 of 9,128 B, about 2.26 × 10^7 cells,
    // past the cap beside X's two ports of 2.1 × 10^7 cells each; the flow's own window is named as its key.
    let buffers = ["link.A-X.buffer=21000000cells", "link.X-B.buffer=21000000cells"];
    assert!(check(&buffers).is_ok());
    refused(check(&[&buffers[..], &["flow.f1.window=1GiB"]].concat()), "flow[f1].window", "B here");
    refused(check(&[&buffers[..], &["tcp.window=1GiB"]].concat()), "tcp.window", "B here");
    // A flow's bytes bound it as well as its window.
    assert!(check(&[&buffers[..], &["tcp.window=1GiB", "flow.f1.bytes=100MB"]].concat()).is_ok());
}

#[test]
fn a_trimming_port_past_a_gibibyte_is_refused_where_the_cap_would_take_it() {
    // One NDP flow (64-B headers) and one large port: 3 x 1.2 GB / 64 B fits the cap, 32-bit books do not.
    let with = |buffer: &str| {
        let link = format!("link.X-B.buffer={buffer}");
        check(&["network=packet", "router.policy=trim", "flow.f1.kind=ndp", "switch.buffer=100000B", &link])
    };
    assert!(with("1073741824B").is_ok(), "{:?}", with("1073741824B").err());
    let e = with("1200000000B").unwrap_err();
    assert_eq!(e.key, "link[X-B].buffer", "{e}");
    assert!(e.problem.contains("too large for a trimming port (at most 1073741824 B"), "{e}");
}

#[test]
fn the_largest_fat_tree_is_checked_in_seconds() {
    // k = 64: 196,608 links, 393,216 ports. Each port's key was found by comparing the port's name
    // with every port's, about 1.5 × 10^11 comparisons: `atmsim validate eqds-one --set topology.k=64`
    // took 7 min 17 s to refuse its 1-MB trimming buffers.
    let text = r#"
name = "t"
network = "packet"
duration = "1ms"
[router]
policy = "trim"
[switch]
buffer = "1MB"
[topology]
kind = "fattree"
k = 64
rate = "100Gbps"
delay = "1us"
[report]
bottleneck = "h0->tor0"
[[flow]]
name = "f"
kind = "eqds"
src = "h0"
dst = "h13"
bytes = "1000B"
"#;
    let started = std::time::Instant::now();
    let e = validate(&parse(text, &[]).unwrap(), None).unwrap_err();
    assert_eq!(e.key, "switch.buffer", "{e}");
    assert!(e.problem.contains("its 327680 queues"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
}
