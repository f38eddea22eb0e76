//! The source rules of TM 4.0 §5.10.4, one case each.

use super::*;
use crate::atm::abr::cells_per_second;
use crate::time::{PS_PER_MS, PS_PER_S};

/// The slide "Simulation Parameters" (Jain et al. 96-0177R1), TBE 512.
fn slide() -> AbrParams {
    AbrParams {
        pcr: cells_per_second(155.52e6),
        mcr: 0.0,
        icr: cells_per_second(10e6),
        rif: 1.0,
        rdf: 1.0 / 512.0,
        nrm: 32,
        mrm: 2,
        trm: 100 * PS_PER_MS,
        tbe: 512,
        crm: AbrParams::crm_of(512, 32),
        cdf: 0.5,
        adtf: 500 * PS_PER_MS,
        tcr: 10.0,
    }
}

fn brm(er: f64) -> RmCell {
    RmCell { dir: Direction::Backward, bn: false, ci: false, ni: false, er, ccr: 0.0, mcr: 0.0, out_of_rate: false }
}

/// Sends `n` cells back to back with data always waiting; returns the kinds.
fn burst(s: &mut AbrSource, n: usize) -> Vec<SourceCell> {
    (0..n)
        .map(|_| {
            let t = s.next_opportunity();
            s.send(t, true, false).expect("data waits")
        })
        .collect()
}

#[test]
fn crm_is_tbe_over_nrm_rounded_up() {
    assert_eq!(AbrParams::crm_of(512, 32), 16);
    assert_eq!(AbrParams::crm_of(128, 32), 4);
    assert_eq!(AbrParams::crm_of(100, 32), 4);
}

#[test]
fn rule_2_starts_at_icr_with_a_forward_rm_cell() {
    let mut s = AbrSource::new(slide());
    assert_eq!(s.acr(), slide().icr);
    assert_eq!(s.next_opportunity(), 0);
    match s.send(0, true, false) {
        Some(SourceCell::Frm(c)) => {
            assert_eq!((c.dir, c.bn, c.ci, c.ni, c.out_of_rate), (Direction::Forward, false, false, false, false));
            assert_eq!((c.er, c.ccr, c.mcr), (slide().pcr, slide().icr, 0.0), "rule 10: ER = PCR, CCR = ACR");
        }
        other => panic!("first cell must be an FRM, got {other:?}"),
    }
}

#[test]
fn rule_1_spaces_in_rate_cells_by_one_over_acr_and_banks_nothing() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, false);
    let gap = s.next_opportunity();
    assert_eq!(gap, cell_spacing(slide().icr));
    assert_eq!(gap, 42_400_000, "10 Mb/s = one 424-bit cell every 42.4 us");
    // Idle for a long time: the next cell goes when asked, the one after
    // that one spacing later (no burst of saved-up opportunities).
    let late = 10 * PS_PER_MS;
    assert_eq!(s.send(late, true, false), Some(SourceCell::Data));
    assert_eq!(s.next_opportunity(), late + gap);
    assert_eq!(s.send(late + gap - 1, true, false), None, "not before the spacing");
}

#[test]
fn rule_3a_one_forward_rm_every_nrm_cells() {
    let mut s = AbrSource::new(slide());
    let kinds = burst(&mut s, 3 * 32);
    for (i, k) in kinds.iter().enumerate() {
        assert_eq!(matches!(k, SourceCell::Frm(_)), i % 32 == 0, "cell {i}: {k:?}");
    }
    assert_eq!((s.stats.frm_sent, s.stats.data_sent), (3, 93), "RM overhead 1/32");
}

#[test]
fn rule_3a_trm_forces_an_frm_after_mrm_cells() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, false);
    let t1 = s.next_opportunity();
    assert_eq!(s.send(t1, true, false), Some(SourceCell::Data));
    // One cell since the FRM (< Mrm = 2): no FRM even after Trm.
    let t2 = 200 * PS_PER_MS;
    assert_eq!(s.send(t2, true, false), Some(SourceCell::Data));
    // Two cells now and Trm elapsed since the FRM at 0: FRM.
    let t3 = s.next_opportunity();
    assert!(matches!(s.send(t3, true, false), Some(SourceCell::Frm(_))));
}

#[test]
fn rule_3b_backward_rm_once_per_frm_interval_unless_no_data_waits() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, true); // the first cell is the FRM
    let t = s.next_opportunity();
    assert_eq!(s.send(t, true, true), Some(SourceCell::Brm));
    let t = s.next_opportunity();
    assert_eq!(s.send(t, true, true), Some(SourceCell::Data), "one BRM already since the FRM, data waits");
    let t = s.next_opportunity();
    assert_eq!(s.send(t, false, true), Some(SourceCell::Brm), "no data waits: a second BRM may go");
    let t = s.next_opportunity();
    assert_eq!(s.send(t, false, false), None, "nothing waits: the opportunity is not used");
    assert_eq!(s.next_opportunity(), t, "and stays open");
}

#[test]
fn rule_5_idle_longer_than_adtf_resets_acr_to_icr() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, false);
    s.on_brm(&brm(slide().pcr));
    assert_eq!(s.acr(), slide().pcr, "RIF = 1: one BRM takes ACR to PCR");
    // Cells keep going but the next FRM comes after ADTF: reset.
    let t = s.next_opportunity();
    s.send(t, true, false);
    s.send(t + 10 * PS_PER_MS, true, false);
    let at = 600 * PS_PER_MS;
    match s.send(at, true, false) {
        Some(SourceCell::Frm(c)) => assert_eq!(c.ccr, slide().icr, "rule 7: CCR after rule 5"),
        other => panic!("Trm elapsed with 2 cells: FRM expected, got {other:?}"),
    }
    assert_eq!((s.acr(), s.stats.adtf_resets), (slide().icr, 1));
}

#[test]
fn rule_5_does_not_apply_within_adtf() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, false);
    s.on_brm(&brm(slide().pcr));
    burst(&mut s, 40);
    assert_eq!((s.acr(), s.stats.adtf_resets), (slide().pcr, 0));
}

#[test]
fn rule_6_cuts_by_cdf_at_every_frm_after_crm_without_feedback() {
    let p = AbrParams { tbe: 128, crm: AbrParams::crm_of(128, 32), icr: slide().pcr, ..slide() };
    let mut s = AbrSource::new(p);
    // FRMs 1..=4 go at ICR; from the 5th on each halves ACR (CDF 0.5).
    burst(&mut s, 4 * 32);
    assert_eq!(s.acr(), p.pcr);
    let mut expected = p.pcr;
    for _ in 0..3 {
        match burst(&mut s, 32)[0] {
            SourceCell::Frm(c) => {
                expected *= 0.5;
                assert_eq!(c.ccr, expected, "CCR carries the cut rate");
            }
            other => panic!("FRM expected, got {other:?}"),
        }
    }
    assert_eq!(s.stats.crm_cuts, 3);
}

#[test]
fn rule_6_counter_resets_on_a_brm_with_bn_0_only() {
    let p = AbrParams { tbe: 64, crm: AbrParams::crm_of(64, 32), icr: slide().pcr, ..slide() };
    let mut s = AbrSource::new(p);
    burst(&mut s, 2 * 32);
    s.on_brm(&RmCell { bn: true, ..brm(p.pcr) });
    burst(&mut s, 32);
    assert_eq!(s.stats.crm_cuts, 1, "a switch-generated BRM (BN = 1) does not reset the count");
    s.on_brm(&brm(p.pcr));
    burst(&mut s, 2 * 32);
    assert_eq!(s.stats.crm_cuts, 1, "a BRM with BN = 0 does");
}

#[test]
fn rule_8_ci_decreases_by_rdf_ni_holds_otherwise_increase_by_rif_pcr() {
    let p = AbrParams { rif: 1.0 / 16.0, ..slide() };
    let mut s = AbrSource::new(p);
    s.on_brm(&brm(p.pcr));
    assert_eq!(s.acr(), p.icr + p.pcr / 16.0);
    let before = s.acr();
    s.on_brm(&RmCell { ni: true, ..brm(p.pcr) });
    assert_eq!(s.acr(), before, "NI: no increase");
    s.on_brm(&RmCell { ci: true, ..brm(p.pcr) });
    assert_eq!(s.acr(), before - before / 512.0, "CI: ACR × (1 − RDF)");
    for _ in 0..40 {
        s.on_brm(&brm(p.pcr));
    }
    assert_eq!(s.acr(), p.pcr, "never above PCR");
}

#[test]
fn rule_9_explicit_rate_caps_acr_but_not_below_mcr() {
    let p = AbrParams { mcr: 1000.0, ..slide() };
    let mut s = AbrSource::new(p);
    s.on_brm(&brm(50_000.0));
    assert_eq!(s.acr(), 50_000.0);
    s.on_brm(&brm(10.0));
    assert_eq!(s.acr(), 1000.0, "MCR floor");
}

#[test]
fn rule_11_out_of_rate_frms_at_tcr_when_acr_is_below_it() {
    let mut s = AbrSource::new(slide());
    s.send(0, true, false);
    s.on_brm(&brm(0.0));
    assert_eq!(s.acr(), 0.0);
    let mut sent = Vec::new();
    let mut now = 1;
    while now < PS_PER_S {
        let t = s.next_opportunity().max(now);
        if t >= PS_PER_S {
            break;
        }
        sent.push((t, s.send(t, true, false).expect("an out-of-rate FRM")));
        now = t + 1;
    }
    assert_eq!(sent.len(), 10, "TCR = 10 cells/s");
    assert!(sent.iter().all(|(_, c)| matches!(c, SourceCell::Frm(RmCell { out_of_rate: true, .. }))), "no data out of rate");
    assert_eq!(sent[1].0 - sent[0].0, 100 * PS_PER_MS);
    // Feedback raises the rate again: in-rate cells resume.
    s.on_brm(&brm(slide().pcr));
    let t = s.next_opportunity();
    assert!(t <= now, "the raised rate applies at once");
    assert_eq!(s.send(t.max(now), true, false), Some(SourceCell::Data));
}
