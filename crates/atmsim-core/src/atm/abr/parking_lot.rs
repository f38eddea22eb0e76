//! ERICA with TM 4.0 sources and destinations converging to the max-min fair
//! rates of a two-bottleneck parking lot, whose shares we compute by hand.
//!
//! Four greedy ABR VCs on two lines of 100,000 cells/s (target utilisation
//! 0.9, so 90,000 cells/s of ABR capacity each):
//!
//! ```text
//!   A: line 0 -> line 1      B: line 0 only      C, D: line 1 only
//! ```
//!
//! Max-min fairness (Bertsekas & Gallager, §6.5.2, the progressive filling):
//! line 1 is shared by A, C and D, each 90,000 / 3 = 30,000 cells/s; line 0
//! then leaves B 90,000 − 30,000 = 60,000 cells/s.
//!
//! The harness is a fluid network with no propagation delay and no queues:
//! each cell a source sends is counted at once by the ERICA of every line of
//! its VC; each forward RM cell is turned around by the destination and its
//! backward RM cell passes the lines in reverse order back to the source.
//! What is tested is the feedback loop of the three components.

use super::destination::{AbrDestination, Turnaround};
use super::erica::{Erica, EricaConfig, EricaVariant};
use super::source::{AbrParams, AbrSource, SourceCell};
use crate::time::{Time, PS_PER_MS, PS_PER_S, PS_PER_US};

const LINE: f64 = 100_000.0;

fn params() -> AbrParams {
    AbrParams {
        pcr: LINE,
        mcr: 0.0,
        icr: LINE / 10.0,
        rif: 1.0 / 16.0,
        rdf: 1.0 / 16.0,
        nrm: 32,
        mrm: 2,
        trm: 100 * PS_PER_MS,
        tbe: 512,
        crm: 16,
        cdf: 0.5,
        adtf: 500 * PS_PER_MS,
        tcr: 10.0,
    }
}

/// Runs the parking lot for `until`; returns each VC's cells sent in the
/// last `window` and its final ACR.
fn run(variant: EricaVariant, until: Time, window: Time) -> Vec<(f64, f64)> {
    let cfg = EricaConfig {
        queue_control: Default::default(),
        variant,
        target_utilization: 0.9,
        interval_cells: 100,
        interval_time: 1000 * PS_PER_US,
        delta: 0.1,
        one_feedback_per_interval: false,
    };
    let routes: [&[usize]; 4] = [&[0, 1], &[0], &[1], &[1]];
    let mut lines = [Erica::new(cfg, LINE, 4), Erica::new(cfg, LINE, 4)];
    let mut sources: Vec<AbrSource> = (0..4).map(|_| AbrSource::new(params())).collect();
    let mut dests: Vec<AbrDestination> = (0..4).map(|_| AbrDestination::new(Turnaround::Immediate)).collect();
    let mut recent = [0u64; 4];
    loop {
        let (vc, now) = (0..4).map(|v| (v, sources[v].next_opportunity())).min_by_key(|&(v, t)| (t, v)).unwrap();
        if now >= until {
            break;
        }
        let cell = sources[vc].send(now, true, false).expect("a greedy source always sends");
        if now >= until - window {
            recent[vc] += 1;
        }
        for &l in routes[vc] {
            lines[l].on_abr_cell(now, vc);
        }
        if let SourceCell::Frm(frm) = cell {
            for &l in routes[vc] {
                lines[l].on_frm(vc, frm.ccr);
            }
            let mut brm = dests[vc].on_frm(&frm).expect("immediate turnaround");
            for &l in routes[vc].iter().rev() {
                brm.er = lines[l].on_brm(now, vc, brm.er);
            }
            sources[vc].on_brm(&brm);
        }
    }
    (0..4).map(|v| (recent[v] as f64 / (window as f64 / PS_PER_S as f64), sources[v].acr())).collect()
}

/// Within 3 % of the hand-computed shares, both as sent and as ACR.
fn assert_max_min(variant: EricaVariant) {
    let fair = [30_000.0, 60_000.0, 30_000.0, 30_000.0];
    let got = run(variant, 2 * PS_PER_S, 200 * PS_PER_MS);
    for (v, ((rate, acr), want)) in got.iter().zip(fair).enumerate() {
        assert!((rate - want).abs() <= 0.03 * want, "{variant:?} VC {v}: sent {rate:.0} cells/s, fair {want}");
        assert!((acr - want).abs() <= 0.03 * want, "{variant:?} VC {v}: ACR {acr:.0}, fair {want}");
    }
}

#[test]
fn basic_erica_converges_to_the_max_min_fair_rates() {
    assert_max_min(EricaVariant::Basic);
}

/// The full version settles on the max-min *shape* (A = C = D, B takes the
/// rest of line 0) but may hold each line's load anywhere inside the band
/// 1 ± delta around the target: there it offers every VC the previous
/// interval's largest allocation, which is a fixed point (measured here:
/// line 1 at 1.072 × target, 32,160 cells/s each instead of 30,000).
#[test]
fn full_erica_converges_to_max_min_shares_with_load_inside_its_band() {
    let got = run(EricaVariant::Full, 2 * PS_PER_S, 200 * PS_PER_MS);
    let rate: Vec<f64> = got.iter().map(|&(r, _)| r).collect();
    for v in [2, 3] {
        assert!((rate[v] - rate[0]).abs() <= 0.01 * rate[0], "line 1 shared equally: {rate:?}");
    }
    let load1 = (rate[0] + rate[2] + rate[3]) / 90_000.0;
    let load0 = (rate[0] + rate[1]) / 90_000.0;
    for load in [load0, load1] {
        assert!((0.9..=1.1).contains(&load), "load {load} outside 1 ± delta: {rate:?}");
    }
    assert!(rate[1] > 1.5 * rate[0], "B, bottlenecked only on line 0, takes what A leaves: {rate:?}");
}
