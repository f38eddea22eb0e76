//! ERICA's measurement and feedback, case by case, on a line of 100,000
//! cells/s with target utilisation 0.9 (ABR capacity 90,000 cells/s).

use super::*;
use crate::time::PS_PER_US;

const LINE: f64 = 100_000.0;

fn cfg(variant: EricaVariant) -> EricaConfig {
    EricaConfig {
        variant,
        target_utilization: 0.9,
        interval_cells: 100,
        interval_time: 1000 * PS_PER_US,
        delta: 0.1,
        one_feedback_per_interval: false,
        queue_control: QueueControl::default(),
    }
}

#[test]
fn erica_plus_fraction_runs_from_b_through_one_at_the_target_down_to_qdlf() {
    let qc = QueueControl::default();
    let q0 = 50.0;
    assert!(close(qc.fraction(0.0, q0), 1.05) && close(qc.fraction(q0, q0), 1.0));
    assert!(close(qc.fraction(2.0 * q0, q0), 1.15 / 1.3));
    assert_eq!(qc.fraction(1e9, q0), 0.5, "bounded by QDLF");
    let f: Vec<f64> = (0..400).map(|q| qc.fraction(q as f64, q0)).collect();
    assert!(f.windows(2).all(|w| w[1] <= w[0]), "a longer queue never raises the target");
}

#[test]
fn erica_plus_offers_more_than_the_line_fraction_on_a_short_queue_and_less_on_a_long_one() {
    // One interval of 50,000 cells/s of ABR input; the queue at its end decides the target.
    let capacity_after = |queue: u64| {
        let mut e = Erica::new(cfg(EricaVariant::Plus), LINE, 2);
        e.observe_queue(queue);
        timed_interval(&mut e, 0, 50);
        e.measurement().abr_capacity
    };
    // Q0 = 500 us of 100,000 cells/s = 50 cells.
    assert!(close(capacity_after(0), 1.05 * LINE));
    assert!(close(capacity_after(50), LINE));
    assert!(close(capacity_after(10_000), 0.5 * LINE));
    // ERICA's constant target, for comparison.
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    e.observe_queue(10_000);
    timed_interval(&mut e, 0, 50);
    assert!(close(e.measurement().abr_capacity, 0.9 * LINE), "ERICA ignores the queue");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// `n` ABR cells alternating over VCs 0 and 1, evenly spread over the
/// 1000 µs after `t0`, then one cell at `t0 + 1000 µs` that ends the interval.
fn timed_interval(e: &mut Erica, t0: Time, n: u64) {
    for k in 0..n {
        e.on_abr_cell(t0 + k * 1000 * PS_PER_US / n, (k % 2) as usize);
    }
    e.on_abr_cell(t0 + 1000 * PS_PER_US, 0);
}

#[test]
fn before_any_interval_the_whole_target_capacity_is_offered() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    assert_eq!(e.on_brm(0, 0, 1e9), 90_000.0);
    assert_eq!(e.on_brm(0, 0, 5_000.0), 5_000.0, "ER is only ever lowered");
}

#[test]
fn the_interval_ends_after_interval_cells() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    for k in 1..=100u64 {
        e.on_abr_cell(k * 8 * PS_PER_US, (k % 2) as usize);
    }
    assert_eq!(e.intervals, 1);
    let m = e.measurement();
    // 100 cells in 800 µs = 125,000 cells/s against 90,000.
    assert!(close(m.z, 125_000.0 / 90_000.0), "{m:?}");
    assert_eq!((m.n_active, m.abr_capacity, m.fair_share), (2, 90_000.0, 45_000.0));
}

#[test]
fn the_interval_ends_after_interval_time_if_cells_are_few() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    for k in 1..=50u64 {
        e.on_abr_cell(k * 20 * PS_PER_US, 0);
    }
    assert_eq!(e.intervals, 1, "closed at 1000 µs, before counting the 50th cell");
    let m = e.measurement();
    assert!(close(m.z, 49_000.0 / 90_000.0), "{m:?}");
    assert_eq!(m.n_active, 1);
}

#[test]
fn vbr_use_is_taken_off_the_abr_capacity() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    for k in 0..36u64 {
        e.on_higher_priority_cell(k * 25 * PS_PER_US);
    }
    for k in 0..50u64 {
        e.on_abr_cell(k * 20 * PS_PER_US, 1);
    }
    e.on_abr_cell(1000 * PS_PER_US, 1);
    let m = e.measurement();
    assert!(close(m.abr_capacity, 90_000.0 - 36_000.0), "{m:?}");
    assert!(close(m.z, 50_000.0 / 54_000.0));
}

#[test]
fn no_capacity_left_means_er_zero() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    for k in 0..100u64 {
        e.on_higher_priority_cell(k * 10 * PS_PER_US);
    }
    e.on_abr_cell(1000 * PS_PER_US, 0);
    assert_eq!(e.measurement().abr_capacity, 0.0);
    e.on_frm(0, 50_000.0);
    assert_eq!(e.on_brm(1000 * PS_PER_US, 0, 1e9), 0.0);
}

#[test]
fn overload_gives_the_larger_of_fair_share_and_ccr_over_z() {
    let mut e = Erica::new(cfg(EricaVariant::Full), LINE, 2);
    for k in 1..=100u64 {
        e.on_abr_cell(k * 8 * PS_PER_US, (k % 2) as usize);
    }
    let z = 125_000.0 / 90_000.0;
    e.on_frm(0, 75_000.0);
    e.on_frm(1, 50_000.0);
    assert!(close(e.on_brm(800 * PS_PER_US, 0, 1e9), 75_000.0 / z), "54,000: above the fair share");
    assert!(close(e.on_brm(800 * PS_PER_US, 1, 1e9), 45_000.0), "36,000 < fair share 45,000");
}

/// An overloaded interval in which VC 0 was given 54,000, then a nearly
/// loaded one (z = 85,000 / 90,000, inside the band 1 ± 0.1).
fn after_a_54000_allocation(variant: EricaVariant) -> Erica {
    let mut e = Erica::new(cfg(variant), LINE, 2);
    for k in 1..=100u64 {
        e.on_abr_cell(k * 8 * PS_PER_US, (k % 2) as usize);
    }
    e.on_frm(0, 75_000.0);
    e.on_brm(800 * PS_PER_US, 0, 1e9);
    timed_interval(&mut e, 800 * PS_PER_US, 85);
    assert!(close(e.measurement().z, 85_000.0 / 90_000.0));
    e
}

#[test]
fn near_load_the_full_version_also_offers_the_previous_largest_allocation() {
    let mut e = after_a_54000_allocation(EricaVariant::Full);
    e.on_frm(1, 46_000.0);
    let vc_share = 46_000.0 / (85_000.0 / 90_000.0);
    assert!(vc_share < 54_000.0);
    assert!(close(e.on_brm(1800 * PS_PER_US, 1, 1e9), 54_000.0));
}

#[test]
fn a_vc_below_the_fair_share_is_not_lifted_above_it() {
    let mut e = after_a_54000_allocation(EricaVariant::Full);
    e.on_frm(1, 20_000.0);
    assert!(close(e.on_brm(1800 * PS_PER_US, 1, 1e9), 45_000.0));
}

#[test]
fn the_basic_version_has_neither_max_allocation_nor_limiter() {
    let mut e = after_a_54000_allocation(EricaVariant::Basic);
    e.on_frm(1, 46_000.0);
    assert!(close(e.on_brm(1800 * PS_PER_US, 1, 1e9), 46_000.0 * 90_000.0 / 85_000.0));
    e.on_frm(1, 20_000.0);
    assert!(close(e.on_brm(1800 * PS_PER_US, 1, 1e9), 45_000.0));
}

#[test]
fn one_feedback_per_interval_reuses_the_first_er_of_the_interval() {
    let mut e = Erica::new(EricaConfig { one_feedback_per_interval: true, ..cfg(EricaVariant::Basic) }, LINE, 2);
    for k in 1..=100u64 {
        e.on_abr_cell(k * 8 * PS_PER_US, 0);
    }
    e.on_frm(0, 90_000.0);
    let first = e.on_brm(800 * PS_PER_US, 0, 1e9);
    e.on_frm(0, 10.0);
    assert_eq!(e.on_brm(801 * PS_PER_US, 0, 1e9), first, "same interval: same ER");
    timed_interval(&mut e, 800 * PS_PER_US, 100);
    assert_ne!(e.on_brm(1800 * PS_PER_US, 0, 1e9), first, "a new interval computes again");
}
