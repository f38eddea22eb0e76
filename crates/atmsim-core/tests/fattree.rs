//! Fat trees and leaf-spines (docs/fabrics.md): switch latency, ECMP per
//! flow for flows of one route, and the leaf-spine built-in against its
//! closed form.

use atmsim_core::run_text;
use atmsim_core::summary::Summary;

fn run(text: &str, overrides: &[&str]) -> Summary {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    run_text(text, &overrides, None, false).unwrap().0
}

/// One NDP packet of 1,000 B from h0 to h15 across a k = 4 tree (five
/// switches each way): its completion time is the data's way there and
/// the ACK's way back, nothing queued.
const ONE_PACKET: &str = r#"
name = "one-packet"
network = "packet"
duration = "1ms"
[router]
policy = "trim"
[switch]
buffer = "72000B"
[topology]
kind = "fattree"
k = 4
rate = "10Gbps"
delay = "1us"
[[flow]]
name = "f"
kind = "ndp"
src = "h0"
dst = "h15"
bytes = "1000B"
"#;

#[test]
fn switch_latency_adds_exactly_once_per_switch_hop() {
    let fct = |latency: &str| {
        let s = run(ONE_PACKET, &[&format!("topology.switch_latency={latency}")]);
        s.flows[0].completion_time_s.expect("the packet is acknowledged")
    };
    let (zero, some) = (fct("0ns"), fct("350ns"));
    // Five switches on the way there, five on the ACK's way back.
    let added = some - zero;
    assert!((added - 10.0 * 350e-9).abs() < 1e-12, "{added} s added; 3.5 µs expected");
    // The unloaded ideal counts it too: the lone packet's slowdown stays 1.
    let s = run(ONE_PACKET, &["topology.switch_latency=350ns"]);
    let slowdown = s.flows[0].fct_slowdown.expect("a completed NDP flow has a slowdown");
    assert!((slowdown - 1.0).abs() < 1e-9, "{slowdown}");
}

/// A k = 8 tree (128 hosts, 16 per pod) carrying `per_host` TCP flows from
/// every host to hosts of other pods (drawn by a fixed LCG).
fn tcp_spread(per_host: u32, duration: &str) -> String {
    let mut text = format!(
        "name = \"ecmp\"\nnetwork = \"packet\"\nduration = \"{duration}\"\n[switch]\nbuffer = \"100 packets\"\n\
         [topology]\nkind = \"fattree\"\nk = 8\nrate = \"10Gbps\"\ndelay = \"1us\"\n"
    );
    let mut x: u64 = 1;
    for h in 0..128u32 {
        for j in 0..per_host {
            let dst = loop {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let d = ((x >> 33) % 128) as u32;
                if d / 16 != h / 16 {
                    break d;
                }
            };
            text += &format!("[[flow]]\nname = \"f{h}-{j}\"\nsrc = \"h{h}\"\ndst = \"h{dst}\"\nbytes = \"20000B\"\n");
        }
    }
    text
}

/// The Wilson–Hilferty approximation of the chi-square quantile with `df`
/// degrees of freedom at the standard normal's `z`.
fn chi2_quantile(df: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

/// Flows per aggregation-to-core port (the up-links into the core) of a
/// resolved model, grouped by pod: a pod's 16 such ports each carry an
/// inter-pod flow from that pod with probability 1/16 when its ToR's and
/// its aggregation switch's hashes are uniform.
fn flows_per_core_uplink(text: &str, seed: Option<u64>) -> (Vec<Vec<u64>>, Vec<Vec<String>>) {
    let m = atmsim_core::scenario::validate(&atmsim_core::parse(text, &[]).unwrap(), seed).unwrap();
    let mut count = vec![0u64; m.ports.len()];
    let mut routes = Vec::new();
    for f in &m.flows {
        assert!(f.data_paths.is_empty(), "a TCP flow keeps one route");
        let names: Vec<String> = f.data_route.iter().map(|p| m.ports[p.ix()].name.clone()).collect();
        assert_eq!(names.len(), 6, "an inter-pod route crosses five switches");
        for p in &f.data_route {
            count[p.ix()] += 1;
        }
        routes.push(names);
    }
    let mut by_pod = vec![Vec::new(); 8];
    for (i, p) in m.ports.iter().enumerate() {
        let (from, to) = (&m.node_names[p.from.ix()], &m.node_names[p.to.ix()]);
        if from.starts_with("agg") && to.starts_with("core") {
            let agg: usize = from[3..].parse().unwrap();
            by_pod[agg / 4].push(count[i]);
        }
    }
    (by_pod, routes)
}

#[test]
fn ecmp_spreads_tcp_flows_over_the_core_as_a_multinomial() {
    let text = tcp_spread(16, "1ms");
    for seed in [None, Some(2), Some(3)] {
        let (by_pod, routes) = flows_per_core_uplink(&text, seed);
        // 16 flows from each of 16 hosts per pod: 256 per pod, 16 expected per up-link.
        let mut chi2 = 0.0;
        for ports in &by_pod {
            assert_eq!(ports.len(), 16);
            let n: u64 = ports.iter().sum();
            assert_eq!(n, 256);
            let expected = n as f64 / 16.0;
            chi2 += ports.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum::<f64>();
        }
        // 8 pods × (16 − 1) degrees of freedom; the 0.1 % and 99.9 % quantiles.
        let (lo, hi) = (chi2_quantile(120.0, -3.0902), chi2_quantile(120.0, 3.0902));
        eprintln!("seed {seed:?}: chi-square {chi2:.1} over 120 degrees of freedom, band [{lo:.1}, {hi:.1}]");
        assert!(chi2 > lo && chi2 < hi, "chi-square {chi2} outside [{lo}, {hi}]");
        // Deterministic per seed: resolving again gives the same routes.
        assert_eq!(routes, flows_per_core_uplink(&text, seed).1);
    }
    assert_ne!(flows_per_core_uplink(&text, Some(2)).1, flows_per_core_uplink(&text, Some(3)).1, "the salts follow the seed");
}

#[test]
fn tcp_flows_on_ecmp_routes_keep_their_own_books() {
    // Two flows from every host, 20,000 B each, on a k = 8 tree (its losses
    // recovered within the 5 s, BSD timers included): every flow
    // completes and the accounting identity holds per run.
    let s = run(&tcp_spread(2, "5s"), &[]);
    assert_eq!(s.flows.len(), 256);
    for f in &s.flows {
        assert!(f.completion_time_s.is_some(), "{} did not complete", f.name);
        assert_eq!(f.bytes_delivered, 20_000, "{}", f.name);
    }
    assert!(s.accounting.balanced);
}

#[test]
fn an_ndp_permutation_on_a_leaf_spine_runs_at_its_hosts_line_rate() {
    // Each host sends one flow and receives one. Its uplink carries its own
    // data, MSS + 64 B a packet, and an ACK of 64 B for each packet it
    // receives, at the same rate (N1, N8; the pulls ride on the ACKs, N9),
    // so a flow's payload rate is 10 Gb/s x 9,000 / 9,128 = 9.8598 Gb/s
    // when the non-blocking fabric loses nothing to the spraying.
    let path = format!("{}/../../python/atmsim/scenarios/leafspine-ndp-perm.toml", env!("CARGO_MANIFEST_DIR"));
    let s = run(&std::fs::read_to_string(path).unwrap(), &[]);
    let closed_form = 10e9 * 9000.0 / 9128.0;
    assert_eq!(s.flows.len(), 32);
    for f in &s.flows {
        let rate = f.goodput_bps.expect("measured over [10 ms, 50 ms]");
        eprintln!("{}: {:.4} Gb/s ({:+.3} %)", f.name, rate / 1e9, (rate / closed_form - 1.0) * 100.0);
        assert!((rate / closed_form - 1.0).abs() <= 0.001, "{}: {rate} b/s against {closed_form}", f.name);
    }
    assert!(s.accounting.balanced);
}
