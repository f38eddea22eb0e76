//! ABR runs end to end (Jain et al. 1996, the built-in `jain96-2src`):
//! the accounting identity holds with RM cells, ERICA keeps the bottleneck
//! near its target, and the cells queue at the sources rather than in the
//! switch.

use std::path::Path;

fn scenario() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/atmsim/scenarios/jain96-2src.toml");
    std::fs::read_to_string(p).unwrap()
}

fn run(sets: &[&str]) -> atmsim_core::Summary {
    let o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    atmsim_core::run_text(&scenario(), &o, Some(1), false).expect("runs").0
}

fn cells_identity_holds(s: &atmsim_core::Summary) {
    let a = &s.accounting;
    assert!(a.balanced, "{a:?}");
    assert_eq!(a.cells_sent, a.cells_delivered + a.cells_dropped + a.cells_in_flight);
    let port_drops: u64 = s.ports.iter().map(|p| p.units_dropped).sum();
    assert_eq!(port_drops, a.cells_dropped, "every drop at a port is a counted cell, RM cells too");
}

#[test]
fn without_loss_erica_paces_the_sources_near_the_target_and_queues_stay_at_the_sources() {
    let s = run(&["duration=\"1s\"", "switch.buffer=\"8192 cells\""]);
    cells_identity_holds(&s);
    assert_eq!(s.cell_loss_ratio, 0.0);
    let abr = s.abr.as_ref().expect("ABR summary");
    assert_eq!((abr.erica_variant, abr.turnaround), ("full", "immediate"));
    assert!(abr.rm_cells_sent > 0 && abr.rm_cells_dropped == 0);
    let bn = s.ports.iter().find(|p| p.name == "SW1->SW2").unwrap();
    // ERICA aims at 90 % of the line; start-up keeps the mean below it.
    assert!(bn.busy_fraction > 0.6 && bn.busy_fraction < 0.95, "{}", bn.busy_fraction);
    let waiting: f64 = abr.sources.iter().filter(|x| x.direction == "data").map(|x| x.mean_waiting_cells).sum();
    assert!(waiting > bn.mean_occupancy, "cells wait at the sources ({waiting}) more than in the switch ({})", bn.mean_occupancy);
    assert!(s.fairness > 0.99);
}

#[test]
fn rm_cells_lost_in_a_small_buffer_stay_in_the_accounting_identity() {
    let s = run(&["duration=\"1s\"", "switch.buffer=\"256 cells\""]);
    cells_identity_holds(&s);
    let abr = s.abr.as_ref().unwrap();
    assert!(abr.rm_cells_dropped > 0, "a 256-cell buffer drops RM cells too: {abr:?}");
    assert!(s.cell_loss_ratio > 0.0);
}

#[test]
fn the_ack_direction_is_abr_too_and_the_erica_variant_is_recorded() {
    let s = run(&["duration=\"0.3s\"", "abr.erica.variant=\"basic\"", "abr.turnaround=\"tm4\""]);
    cells_identity_holds(&s);
    let abr = s.abr.as_ref().unwrap();
    assert_eq!((abr.erica_variant, abr.turnaround), ("basic", "tm4"));
    assert_eq!(abr.sources.iter().filter(|x| x.direction == "ack").count(), 2);
    assert!(abr.sources.iter().all(|x| x.brm_received > 0), "TM 4.0 turnaround returns RM cells on both directions");
}

#[test]
fn a_run_is_deterministic() {
    let a = run(&["duration=\"0.3s\"", "switch.buffer=\"512 cells\""]);
    let b = run(&["duration=\"0.3s\"", "switch.buffer=\"512 cells\""]);
    let (mut a, mut b) = (a, b);
    a.wall_s = 0.0;
    b.wall_s = 0.0;
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn vbr_background_takes_priority_and_erica_gives_abr_the_rest() {
    let s = run(&["duration=\"1s\"", "switch.buffer=\"2048 cells\"", "abr.vbr.port=\"SW1->SW2\""]);
    cells_identity_holds(&s);
    let abr = s.abr.as_ref().unwrap();
    // 0.8 x 366,792 cells/s on during [2, 102) ms, [202, 302) ms, ... of 1 s: 5 periods.
    let expected = 5.0 * 0.1 * 0.8 * 155.52e6 / 424.0;
    assert!((abr.vbr_cells_sent as f64 - expected).abs() <= 5.0, "{} vs {expected}", abr.vbr_cells_sent);
    assert_eq!(abr.vbr_cells_dropped, 0, "VBR has strict priority and its own queue");
    let without = run(&["duration=\"1s\"", "switch.buffer=\"2048 cells\""]);
    let payload = |s: &atmsim_core::Summary| s.flows.iter().map(|f| f.bytes_delivered).sum::<u64>();
    assert!(payload(&s) < payload(&without), "ABR gets less with VBR taking half the time 80 % of the line");
}

#[test]
fn random_cell_loss_drops_about_its_probability_of_the_cells_at_its_port() {
    let sets = ["duration=\"1s\"", "switch.buffer=\"8192 cells\"", "abr.loss.port=\"SW1->SW2\"", "abr.loss.probability=1e-3"];
    let s = run(&sets);
    cells_identity_holds(&s);
    let bn = s.ports.iter().find(|p| p.name == "SW1->SW2").unwrap();
    let random = *bn.drops_by_reason.get("random").unwrap_or(&0);
    assert_eq!(random, bn.units_dropped, "no overflow in 8192 cells: every loss is random");
    let expected = bn.units_in as f64 * 1e-3;
    assert!((random as f64 - expected).abs() < 5.0 * expected.sqrt(), "{random} vs {expected}");
    let again = run(&sets);
    assert_eq!(again.ports.iter().find(|p| p.name == "SW1->SW2").unwrap().units_dropped, random, "its own stream, same seed");
}

/// The bottleneck's busy fraction and mean queue (cells) over [2 s, 4 s]
/// of a lossless run: the difference of a 4-s and a 2-s run (a run's first
/// two seconds are the same run).
fn steady_state(variant: &str) -> (f64, f64) {
    let window = |d: &str| {
        let s = run(&[variant, "switch.buffer=\"100000 cells\"", d]);
        cells_identity_holds(&s);
        assert_eq!(s.cell_loss_ratio, 0.0);
        let bn = s.ports.iter().find(|p| p.name == s.bottleneck).expect("the bottleneck").clone();
        (bn.busy_fraction, bn.mean_occupancy)
    };
    let (busy2, q2) = window("duration=\"2s\"");
    let (busy4, q4) = window("duration=\"4s\"");
    ((4.0 * busy4 - 2.0 * busy2) / 2.0, (4.0 * q4 - 2.0 * q2) / 2.0)
}

#[test]
fn erica_plus_loads_the_line_and_holds_the_queue_near_its_target() {
    // ERICA aims at 90 % of the line and keeps no queue; ERICA+ aims at
    // the whole line, its target set by the queue: at T0 = 500 us the
    // target queue is 500 us of the 155.52 Mb/s line, 183 cells.
    let (erica_busy, erica_queue) = steady_state("abr.erica.variant=full");
    let (plus_busy, plus_queue) = steady_state("abr.erica.variant=plus");
    let q0 = 500e-6 * 155.52e6 / 424.0;
    assert!((0.88..0.92).contains(&erica_busy) && erica_queue < 0.1 * q0, "ERICA: {erica_busy}, {erica_queue}");
    assert!(plus_busy > 0.97, "ERICA+ loads the line: {plus_busy}");
    assert!((0.7 * q0..1.3 * q0).contains(&plus_queue), "ERICA+ holds the queue near {q0:.0} cells: {plus_queue}");
}

#[test]
fn efci_switches_mark_data_cells_and_the_sources_get_ci_back() {
    // Binary feedback (abr.switch = "efci") with TM 4.0's RIF = RDF = 1/16:
    // the bottleneck marks data cells above 256 cells, the destinations
    // turn the marks into CI, and the sources decrease on it; no ER is
    // computed. Relative rate marking adds CI in backward RM cells.
    let efci = ["abr.switch=efci", "abr.rif=0.0625", "abr.rdf=0.0625", "switch.buffer=\"100000 cells\"", "duration=\"1s\""];
    let ci_received =
        |s: &atmsim_core::Summary| s.abr.as_ref().unwrap().sources.iter().map(|x| x.brm_with_ci.expect("EFCI runs count CI")).sum::<u64>();
    let s = run(&efci);
    cells_identity_holds(&s);
    let abr = s.abr.as_ref().unwrap();
    assert_eq!((abr.erica_variant, abr.switch, abr.erica_intervals), ("none", Some("efci"), 0));
    let bn = s.ports.iter().find(|p| p.name == "SW1->SW2").unwrap();
    assert!(bn.units_marked.unwrap_or(0) > 1000, "the bottleneck marks: {:?}", bn.units_marked);
    assert!(ci_received(&s) > 100, "CI comes back: {}", ci_received(&s));
    let host_ports = s.ports.iter().filter(|p| p.name.starts_with(['S', 'D']) && !p.name.starts_with("SW"));
    assert!(host_ports.clone().count() > 0 && host_ports.clone().all(|p| p.units_marked.is_none()), "only switch ports mark");
    let mut both = efci.to_vec();
    both.push("abr.efci.backward_ci=true");
    let r = run(&both);
    cells_identity_holds(&r);
    assert!(ci_received(&r) > ci_received(&s), "relative rate marking adds CI: {} vs {}", ci_received(&r), ci_received(&s));
    let erica = run(&["switch.buffer=\"100000 cells\"", "duration=\"1s\""]);
    assert!(erica.abr.as_ref().unwrap().sources[0].brm_with_ci.is_none() && erica.abr.as_ref().unwrap().switch.is_none());
}
