//! Per-VC buffer accounting on a shared FIFO, the "UBR+" switch policies
//! of the Ohio State group (Goyal, Jain, Kalyanaraman, Fahmy & Vandalore,
//! "Improving the performance of TCP over the ATM-UBR service", Computer
//! Communications 21(10), 1998, §4) and of Heinanen & Kilkki ("A fair
//! buffer allocation scheme", 1995): EPD decides whether a new frame may
//! enter from the total occupancy alone; these also ask whether the frame's
//! VC holds more than its fair share of the buffer.
//!
//! With `X` cells in the buffer (counting the one in transmission), `Y_i`
//! of them VC i's, `N_a` VCs with a cell in the buffer, `K` the buffer and
//! `R` a threshold, the first cell of VC i's frame is refused, and with it
//! the whole frame (EOM included, as EPD does), when `X >= R` and
//! - Selective Drop: `Y_i · N_a / X > Z`, VC i holds more than Z times the
//!   fair share `X / N_a`;
//! - Fair Buffer Allocation: `Y_i · N_a / X > Z · (K − R) / (X − R)`, a
//!   bound that falls from infinity at `X = R` to Z at a full buffer, so a
//!   VC is allowed less beyond its share the fuller the buffer is.
//!
//! A frame admitted at its first cell goes on as under EPD: a cell that
//! finds the buffer full is lost and dooms the rest of its frame (PPD).
//!
//! The occupancy per VC is kept here, not by the port: a FIFO port knows
//! only how many units it holds (`net/fifo.rs`), and since units leave a
//! FIFO in the order they entered, the VCs of the admitted units in that
//! order, less the oldest ones whenever the port holds fewer, are the VCs
//! of the units in the buffer. So these policies need a FIFO port (the
//! scenario checks it).

use super::frame::{rest_of_frame, FrameState};
use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Bound, Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};
use std::collections::VecDeque;

/// R and Z (Goyal et al. 1998 §4 name them). Defaults [choice]: R = 0.9 of
/// the buffer, near the top as EPD's threshold is; Z = 0.8, a VC is refused
/// a little below its fair share; `validation/ubr_plus.py` measures the
/// sensitivity to both.
const KEYS: &[Key] = &[
    Key {
        name: "switch.fair_share.r",
        kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::Closed(1.0) },
        default: KeyDefault::Value("0.9"),
        about: "occupancy, as a share of the buffer, from which frames are tested (R)",
    },
    Key {
        name: "switch.fair_share.z",
        kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::None },
        default: KeyDefault::Value("0.8"),
        about: "how many times its fair share a VC may hold and still start a frame (Z)",
    },
];

/// UBR+ pinned on a buffer small enough that the policies refuse frames.
const UBR_PLUS_BUFFER: &str = "switch.buffer=96KB";
const LLC: &str = "atm.encapsulation=aal5-llc";

impl Policy for FairShare {
    const MECHANISMS: &'static [Mechanism] = &[
        Mechanism {
            name: "selective-drop",
            selected_by: "switch.policy",
            networks: Networks::Atm,
            about: "Selective Drop (Goyal et al. 1998 §4): EPD that refuses a new frame only of a VC above Z times its fair share",
            docs: "policies.md",
            keys: KEYS,
            counters: &["selective_drop", "tail", "ppd"],
            goldens: &[Golden { scenario: "aron97-topo1-atm", variation: "selective-drop", overrides: &["switch.policy=selective-drop", UBR_PLUS_BUFFER, LLC] }],
        },
        Mechanism {
            name: "fba",
            selected_by: "switch.policy",
            networks: Networks::Atm,
            about: "Fair Buffer Allocation (Heinanen & Kilkki 1995): Selective Drop with a bound that tightens as the buffer fills",
            docs: "policies.md",
            keys: KEYS,
            counters: &["fba", "tail", "ppd"],
            goldens: &[Golden { scenario: "aron97-topo1-atm", variation: "fba", overrides: &["switch.policy=fba", UBR_PLUS_BUFFER, LLC] }],
        },
    ];
    type Spec = FairShareConfig;
    /// R as a share of each port's buffer; the per-VC accounting needs a FIFO port.
    fn resolve(name: &str, cx: &ResolveCx) -> Result<FairShareConfig, KeyError> {
        if !cx.fifo {
            return Err(KeyError::new(
                "switch.policy",
                "selective drop and FBA share one FIFO buffer; they need switch.queueing = \"fifo\"",
            ));
        }
        let rule = if name == "fba" { FairShareRule::FairBufferAllocation } else { FairShareRule::SelectiveDrop };
        let r = cx.params.real("switch.fair_share.r", 0.9);
        let threshold = ((r * cx.units as f64).round() as u64).clamp(1, cx.units);
        Ok(FairShareConfig { rule, threshold, z: cx.params.real("switch.fair_share.z", 0.8) })
    }
    fn build(config: FairShareConfig, units: u64, cx: &PortContext) -> Self {
        FairShare::new(units, config, cx.num_vcs)
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        FairShare::admit(self, unit, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

/// Which per-VC test a port applies at a frame's first cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FairShareRule {
    SelectiveDrop,
    FairBufferAllocation,
}

/// The parameters of a fair-share policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FairShareConfig {
    pub rule: FairShareRule,
    /// R: the occupancy (cells) from which frames are tested.
    pub threshold: u64,
    /// Z: how far beyond its fair share a VC may go.
    pub z: f64,
}

/// The VCs of the units in a FIFO buffer, oldest first, and their counts.
#[derive(Clone, Debug, Default)]
struct VcOccupancy {
    order: VecDeque<u32>,
    count: Box<[u32]>,
    active: u32,
}

impl VcOccupancy {
    fn new(num_vcs: usize) -> Self {
        VcOccupancy { order: VecDeque::new(), count: vec![0; num_vcs].into_boxed_slice(), active: 0 }
    }

    /// The buffer holds `q` units: the oldest of the rest have left.
    #[inline]
    fn left_but(&mut self, q: u64) {
        while self.order.len() as u64 > q {
            let vc = self.order.pop_front().expect("more entries than q") as usize;
            self.count[vc] -= 1;
            self.active -= (self.count[vc] == 0) as u32;
        }
    }

    #[inline]
    fn entered(&mut self, vc: u32) {
        self.order.push_back(vc);
        let c = &mut self.count[vc as usize];
        self.active += (*c == 0) as u32;
        *c += 1;
    }
}

/// Selective Drop or Fair Buffer Allocation on one FIFO port.
#[derive(Clone, Debug)]
pub struct FairShare {
    pub limit: u64,
    pub config: FairShareConfig,
    occupancy: VcOccupancy,
    frames: Box<[FrameState]>,
}

impl FairShare {
    pub fn new(limit: u64, config: FairShareConfig, num_vcs: usize) -> Self {
        FairShare { limit, config, occupancy: VcOccupancy::new(num_vcs), frames: vec![FrameState::default(); num_vcs].into_boxed_slice() }
    }

    /// Is VC `vc`'s share too large for a new frame, with `x` cells queued?
    fn over_share(&self, vc: usize, x: u64) -> bool {
        let FairShareConfig { rule, threshold: r, z } = self.config;
        if x < r || x == 0 {
            return false;
        }
        let load_ratio = self.occupancy.count[vc] as f64 * self.occupancy.active as f64 / x as f64;
        match rule {
            FairShareRule::SelectiveDrop => load_ratio > z,
            // At X = R the bound is infinite: nothing is refused yet.
            FairShareRule::FairBufferAllocation => x > r && load_ratio > z * (self.limit - r) as f64 / (x - r) as f64,
        }
    }

    #[inline(never)]
    pub fn admit(&mut self, cell: &Unit, q: u64) -> Action {
        self.occupancy.left_but(q);
        let vc = cell.vc.ix();
        let refused = match self.config.rule {
            FairShareRule::SelectiveDrop => DropReason::SelectiveDrop,
            FairShareRule::FairBufferAllocation => DropReason::Fba,
        };
        let action = if cell.is_first() && !self.frames[vc].discarding && self.over_share(vc, q) {
            let eom = cell.is_eom();
            let st = &mut self.frames[vc];
            st.discarding = !eom;
            st.drop_eom_too = !eom;
            Action::Drop(refused)
        } else {
            match rest_of_frame(&mut self.frames[vc], cell, q, self.limit, 0, true) {
                // The rest of a frame refused whole at its first cell (the
                // state machine names it as EPD's): counted as the refusal.
                Action::Drop(DropReason::Epd) => Action::Drop(refused),
                other => other,
            }
        };
        if action == Action::Admit {
            self.occupancy.entered(vc as u32);
        }
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cell(vc: u32, index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(vc), 0, index, ncells, 53)
    }

    fn policy(rule: FairShareRule, limit: u64, threshold: u64, z: f64) -> FairShare {
        FairShare::new(limit, FairShareConfig { rule, threshold, z }, 3)
    }

    /// Fills a buffer with `n` one-cell frames of `vc`, as the port would
    /// (each admitted), the buffer at `q` before each.
    fn fill(p: &mut FairShare, vc: u32, n: u64, q: &mut u64) {
        for _ in 0..n {
            assert_eq!(p.admit(&cell(vc, 0, 1), *q), Action::Admit);
            *q += 1;
        }
    }

    #[test]
    fn selective_drop_refuses_the_frame_of_a_vc_above_its_share_only() {
        // R = 6 of 10; VC 0 holds 5 cells, VC 1 holds 1: X = 6, N_a = 2,
        // fair share 3. VC 0's load ratio 5·2/6 = 1.67 > Z = 1; VC 1's 0.33.
        let mut p = policy(FairShareRule::SelectiveDrop, 10, 6, 1.0);
        let mut q = 0;
        fill(&mut p, 0, 5, &mut q);
        fill(&mut p, 1, 1, &mut q);
        assert_eq!(p.admit(&cell(0, 0, 3), q), Action::Drop(DropReason::SelectiveDrop));
        // The whole frame goes, its EOM too, though there is room.
        assert_eq!(p.admit(&cell(0, 1, 3), q), Action::Drop(DropReason::SelectiveDrop));
        assert_eq!(p.admit(&cell(0, 2, 3), q), Action::Drop(DropReason::SelectiveDrop));
        // VC 1 and VC 2 (no cell queued) are under their share: admitted.
        assert_eq!(p.admit(&cell(1, 0, 1), q), Action::Admit);
        assert_eq!(p.admit(&cell(2, 0, 1), q + 1), Action::Admit);
    }

    #[test]
    fn below_the_threshold_every_frame_enters_and_a_full_buffer_still_drops() {
        let mut p = policy(FairShareRule::SelectiveDrop, 10, 8, 0.5);
        let mut q = 0;
        fill(&mut p, 0, 7, &mut q);
        // X = 7 < R: VC 0's frame enters though it holds the whole buffer.
        assert_eq!(p.admit(&cell(0, 0, 4), 7), Action::Admit);
        // A middle cell finding the buffer full is lost, and the rest of the
        // frame but its EOM with it (PPD).
        assert_eq!(p.admit(&cell(0, 1, 4), 10), Action::Drop(DropReason::Tail));
        assert_eq!(p.admit(&cell(0, 2, 4), 9), Action::Drop(DropReason::Ppd));
        assert_eq!(p.admit(&cell(0, 3, 4), 9), Action::Admit);
    }

    #[test]
    fn occupancy_follows_the_fifo_as_units_leave() {
        let mut p = policy(FairShareRule::SelectiveDrop, 10, 2, 1.0);
        let mut q = 0;
        fill(&mut p, 0, 4, &mut q);
        fill(&mut p, 1, 1, &mut q);
        // VC 0's four cells left (the oldest): the buffer holds VC 1's one,
        // and X = 1 < R lets VC 1's frame in. Then at X = R = 2 VC 0 holds
        // nothing, so its frame enters too.
        assert_eq!(p.admit(&cell(1, 0, 1), 1), Action::Admit);
        assert_eq!(p.occupancy.count[0], 0);
        assert_eq!(p.occupancy.active, 1);
        assert_eq!(p.admit(&cell(0, 0, 1), 2), Action::Admit);
        assert_eq!((p.occupancy.count[1], p.occupancy.count[0], p.occupancy.active), (2, 1, 2));
    }

    #[test]
    fn fair_buffer_allocation_tightens_as_the_buffer_fills() {
        // K = 20, R = 10, Z = 1; VC 0 holds 10 of X = 12 cells, VC 1 the
        // other 2. VC 0's load ratio 10·2/12 = 1.67 is above Z (SD refuses)
        // but below FBA's bound at X = 12, 1·10/2 = 5.
        let mut fba = policy(FairShareRule::FairBufferAllocation, 20, 10, 1.0);
        let mut sd = policy(FairShareRule::SelectiveDrop, 20, 10, 1.0);
        for p in [&mut fba, &mut sd] {
            let mut q = 0;
            fill(p, 0, 10, &mut q);
            fill(p, 1, 2, &mut q);
        }
        assert_eq!(fba.admit(&cell(0, 0, 1), 12), Action::Admit);
        assert_eq!(sd.admit(&cell(0, 0, 1), 12), Action::Drop(DropReason::SelectiveDrop));
        // VC 1 fills the buffer to X = 19: the bound falls to 10/9 = 1.11,
        // and VC 0's ratio, 11·2/19 = 1.16, is now above it; VC 1's is not.
        let mut q = 13;
        fill(&mut fba, 1, 6, &mut q);
        assert_eq!(fba.admit(&cell(0, 0, 1), 19), Action::Drop(DropReason::Fba));
        assert_eq!(fba.admit(&cell(1, 0, 1), 19), Action::Admit);
    }
}
