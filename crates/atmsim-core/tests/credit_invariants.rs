//! Whole-run invariants of credit flow control (docs/credit.md, C6): a
//! property test that credit-controlled VCs never drop a cell, the credit
//! round trip's bound on a greedy VC, and how a lone TCP, two TCPs and a UDP
//! source share a credit-controlled bottleneck.

mod common;

use atmsim_core::run_text;
use common::random_scenario;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn credit_scenario(flows: usize, rate_mbps: u32, delay_us: u32, n2: u64, n3: u64, window_kib: u32, delack: bool) -> String {
    let mut t = random_scenario(true, flows, 100, "tail", rate_mbps, delay_us, 9140, "lite", delack);
    t = t.replace("window = \"64KiB\"", &format!("window = \"{window_kib}KiB\""));
    t = t.replace("[topology]", &format!("[credit]\nenabled = true\nn2 = {n2}\nn3 = {n3}\n[topology]"));
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, rng_seed: RngSeed::Fixed(23), .. ProptestConfig::default() })]

    /// Credit-controlled VCs never lose a cell, whatever the load: every
    /// per-VC queue stays within N2 + N3 and back-pressure holds the data at
    /// the sending hosts instead.
    #[test]
    fn credit_controlled_vcs_never_drop(
        flows in 1usize..6,
        rate in 5u32..100,
        delay in 1u32..3000,
        n2 in 1u64..20,
        n3 in 1u64..200,
        window in prop::sample::select(vec![16u32, 64, 256]),
        delack in any::<bool>(),
        hosts_modelled in any::<bool>(),
        in_band in any::<bool>(),
        seed in 1u64..1000,
    ) {
        let mut text = credit_scenario(flows, rate, delay, n2, n3, window, delack);
        if !in_band {
            text = text.replace("enabled = true", "enabled = true\ntransport = \"out-of-band\"");
        }
        if hosts_modelled {
            text = text.replace("[topology]", "[host]\nmodel = \"adapter\"\ntcp_rate = \"3MB/s\"\n[topology]");
        }
        let (s, _) = run_text(&text, &[], Some(seed), false).unwrap();
        prop_assert_eq!(s.accounting.cells_dropped, 0);
        prop_assert!(s.accounting.balanced, "{:?}", s.accounting);
        prop_assert!(s.accounting.queues_within_limits);
        // Tiny credit buffers over long links may legitimately deliver
        // nothing in 300 ms; the cells they sent are all accounted for.
        prop_assert_eq!(s.accounting.cells_sent, s.accounting.cells_delivered + s.accounting.cells_in_flight);
    }
}

/// A greedy source, a 100-cell credit buffer and a long second link: one
/// credit round trip of RTT_cells cell times (credit cell + data cell + two
/// propagation delays) lets through N2 + N3 cells per RTT_cells + N2 cell
/// times (Morris & Kung 1995 §II; Kung et al. 1994). In band, each credit cell takes a slot on
/// the reverse line; one is sent per N2 cells forwarded.
fn credit_bound_scenario(transport: &str) -> String {
    format!(
        r#"name = "credit-bound"
network = "atm"
duration = "4s"
[atm]
encapsulation = "aal5-llc"
[ip]
mtu = "9180B"
[switch]
buffer = "100cells"
[credit]
enabled = true
n2 = 10
n3 = 90
switch_delay = "0us"
host_delay = "0us"
transport = "{transport}"
[topology]
hosts = ["A", "B"]
switches = ["S"]
[[link]]
ends = ["A", "S"]
rate = "424000000/40bps"
delay = "1us"
[[link]]
ends = ["S", "B"]
rate = "424000000/40bps"
delay = "5ms"
[[flow]]
name = "greedy"
kind = "udp"
src = "A"
dst = "B"
rate = "20Mbps"
datagram = "9152B"
"#
    )
}

#[test]
fn credit_round_trip_bounds_a_greedy_vc() {
    // 40 µs cells, 5 ms each way: RTT_cells = 250 + 2 in band, 250 + 1 out of band.
    for (transport, rtt_cells) in [("in-band", 252.0), ("out-of-band", 251.0)] {
        let (s, _) = run_text(&credit_bound_scenario(transport), &[], None, false).unwrap();
        assert!(s.accounting.balanced);
        assert_eq!(s.accounting.cells_dropped, 0);
        let port = |n: &str| s.ports.iter().find(|p| p.name == n).unwrap().clone();
        let expected = 100.0 / (rtt_cells + 10.0);
        let got = port("S->B").busy_fraction;
        eprintln!("{transport}: busy {got:.5} expected {expected:.5}");
        assert!((got / expected - 1.0).abs() < 0.01, "{transport}: {got} vs {expected}");
        let credits = port("B->S").credit_cells;
        if transport == "in-band" {
            assert_eq!(credits, s.accounting.cells_delivered / 10, "one credit cell per N2 cells forwarded");
            let slot_share = port("B->S").busy_fraction;
            assert!((slot_share / (credits as f64 * 40e-6 / 4.0) - 1.0).abs() < 1e-3, "credit cells take slots");
        } else {
            assert_eq!(credits, 0);
            assert_eq!(port("B->S").busy_fraction, 0.0);
        }
    }
}

#[test]
fn credit_gives_a_lone_tcp_the_whole_bottleneck_and_round_robin_shares_it() {
    // Two hosts each with a 2x faster access link into a 20 Mb/s bottleneck.
    let text = credit_scenario(2, 20, 100, 10, 90, 64, true).replace("duration = \"300ms\"", "duration = \"3s\"");
    let (s, _) = run_text(&text, &[], Some(1), false).unwrap();
    assert_eq!(s.accounting.cells_dropped, 0);
    let bn = s.ports.iter().find(|p| p.name == "X->Y").unwrap();
    assert!(bn.busy_fraction > 0.95, "bottleneck busy {}", bn.busy_fraction);
    assert!(s.fairness > 0.99, "round robin shares: {}", s.fairness);
    // Without credit, a 100-cell per-VC buffer cannot hold a 64 KB window.
    let no_credit = text.replace("enabled = true", "enabled = false").replace("[switch]", "[switch]\nqueueing = \"per-vc\"");
    let (n, _) = run_text(&no_credit, &[], Some(1), false).unwrap();
    assert!(n.accounting.cells_dropped > 0);
    assert!(n.accounting.bytes_delivered < s.accounting.bytes_delivered / 2);
}

#[test]
fn udp_source_keeps_its_rate_under_credit_and_tcp_takes_the_rest() {
    let mut text = credit_scenario(2, 20, 100, 10, 90, 64, true).replace("duration = \"300ms\"", "duration = \"3s\"");
    // Flow f1 becomes an 8 Mb/s constant-rate UDP source.
    text = text.replace("name = \"f1\"", "name = \"f1\"\nkind = \"udp\"\nrate = \"8Mbps\"");
    let (s, _) = run_text(&text, &[], Some(1), false).unwrap();
    assert!(s.accounting.balanced, "{:?}", s.accounting);
    assert_eq!(s.accounting.cells_dropped, 0);
    let udp = &s.flows[1];
    assert_eq!(udp.kind, "udp");
    let udp_rate = udp.bytes_delivered as f64 * 8.0 / 3.0;
    assert!((udp_rate / 8e6 - 1.0).abs() < 0.02, "udp {udp_rate}");
    let tcp_rate = s.flows[0].bytes_delivered as f64 * 8.0 / 3.0;
    // The bottleneck carries 20 Mb/s of cells; TCP gets most of the remainder.
    assert!(tcp_rate > 0.8 * (20e6 * 48.0 / 53.0 * 9140.0 / 9216.0 - 8e6), "tcp {tcp_rate}");
}
