//! The frame-aware cell discard policies of an ATM output queue (Romanow &
//! Floyd 1995 for PPD and EPD; Jain et al. 1996 for EOM protection;
//! docs/atm.md). All decisions are taken at cell arrival from the queue
//! occupancy `q` (cells, including the one in transmission) and the limit
//! `b`.
//!
//! Each keeps, per (port, VC), whether the current frame is being discarded
//! ([`FrameState`]); a cell is the first of a frame when the previous cell
//! seen on the VC here was an EOM, which with in-order VCs is the cell with
//! `index == 0`. The three share one state machine: what to do with the
//! rest of a frame that lost a cell.

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};

/// The frame-discard runs: topology 1 on a buffer small enough to overflow.
const SMALL: &str = "switch.buffer=48KB";

impl Policy for Ppd {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "ppd",
        selected_by: "switch.policy",
        networks: Networks::Atm,
        about: "Partial Packet Discard (Armitage & Adams 1993; Romanow & Floyd 1995): the rest of a frame that lost a cell, its EOM kept",
        docs: "atm.md",
        keys: &[],
        counters: &["tail", "ppd"],
        goldens: &[
            Golden { scenario: "aron97-topo1-atm", variation: "ppd", overrides: &["switch.policy=ppd", SMALL] },
            Golden { scenario: "morris-kung95-b", variation: "ppd", overrides: &["switch.policy=ppd"] },
        ],
    }];
    type Spec = ();
    fn resolve(_: &str, _: &ResolveCx) -> Result<(), KeyError> {
        Ok(())
    }
    fn build(_: (), units: u64, cx: &PortContext) -> Self {
        Ppd::new(units, cx.num_vcs)
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        Ppd::admit(self, unit, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

const EPD_THRESHOLD: &str = "switch.epd_threshold";

impl Policy for Epd {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "epd",
        selected_by: "switch.policy",
        networks: Networks::Atm,
        about: "Early Packet Discard (Romanow & Floyd 1995): a whole frame refused when its first cell finds the threshold reached",
        docs: "atm.md",
        keys: &[Key {
            name: EPD_THRESHOLD,
            kind: KeyKind::Count { unit: "cells", min: 1, max: u64::MAX },
            default: KeyDefault::Computed("the buffer less the cells of a full frame, at least half the buffer"),
            about: "EPD threshold (Romanow & Floyd give the mechanism, not a threshold), at most the buffer",
        }],
        counters: &["epd", "tail", "ppd"],
        goldens: &[Golden {
            scenario: "aron97-topo1-atm",
            variation: "epd",
            overrides: &["switch.policy=epd", SMALL, "atm.encapsulation=aal5-llc"],
        }],
    }];
    /// The threshold in cells.
    type Spec = u64;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<u64, KeyError> {
        let cells = cx.units;
        let t = cx.params.count(EPD_THRESHOLD).unwrap_or_else(|| cells.saturating_sub(cx.frame_cells).max(cells / 2));
        if t == 0 || t > cells {
            return Err(KeyError::new(EPD_THRESHOLD, format!("must be in 1..={cells} (the buffer in cells)")));
        }
        Ok(t)
    }
    fn build(threshold: u64, units: u64, cx: &PortContext) -> Self {
        Epd::new(units, threshold, cx.num_vcs)
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        Epd::admit(self, unit, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

const EOM_RESERVE: &[Key] = &[Key {
    name: "switch.eom_reserve",
    kind: KeyKind::Count { unit: "cells", min: 0, max: u64::MAX },
    default: KeyDefault::Computed("the scenario's VCs, two per flow"),
    about: "cells kept for EOM cells, smaller than the buffer",
}];

/// EOM protection's parameters for one port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EomProtectSpec {
    pub reserve: u64,
    pub ppd: bool,
}

impl Policy for EomProtect {
    const MECHANISMS: &'static [Mechanism] = &[
        Mechanism {
            name: "eom-protect",
            selected_by: "switch.policy",
            networks: Networks::Atm,
            about: "intelligent tail drop (Jain et al., ATM Forum 96-0177): non-EOM cells up to a reserve short of the limit",
            docs: "atm.md",
            keys: EOM_RESERVE,
            counters: &["eom_reserve", "tail"],
            goldens: &[
                Golden {
                    scenario: "aron97-topo1-atm",
                    variation: "eom",
                    overrides: &["switch.policy=eom-protect", SMALL, "atm.encapsulation=aal5-vcmux"],
                },
                // On ABR with a buffer small enough to overflow.
                Golden {
                    scenario: "jain96-2src",
                    variation: "eom-protect",
                    overrides: &["switch.policy=eom-protect", "switch.buffer=600cells", "abr.tbe=1024"],
                },
            ],
        },
        Mechanism {
            name: "eom-protect-ppd",
            selected_by: "switch.policy",
            networks: Networks::Atm,
            about: "EOM protection with Partial Packet Discard: the rest of a damaged frame dropped too, its EOM kept",
            docs: "atm.md",
            keys: EOM_RESERVE,
            counters: &["eom_reserve", "tail", "ppd"],
            goldens: &[Golden {
                scenario: "aron97-topo1-atm",
                variation: "eom-ppd",
                overrides: &["switch.policy=eom-protect-ppd", SMALL, "atm.encapsulation=aal5-vcmux"],
            }],
        },
    ];
    type Spec = EomProtectSpec;
    fn resolve(name: &str, cx: &ResolveCx) -> Result<EomProtectSpec, KeyError> {
        let reserve = cx.params.count("switch.eom_reserve").unwrap_or(cx.num_vcs as u64);
        if reserve >= cx.units {
            return Err(KeyError::new("switch.eom_reserve", "must be smaller than the buffer"));
        }
        Ok(EomProtectSpec { reserve, ppd: name == "eom-protect-ppd" })
    }
    fn build(spec: EomProtectSpec, units: u64, cx: &PortContext) -> Self {
        EomProtect::new(units, spec.reserve, spec.ppd, cx.num_vcs)
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        EomProtect::admit(self, unit, q)
    }
    fn limit(&self) -> u64 {
        self.limit
    }
}

/// Frame-discard state of one VC at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameState {
    /// Drop the remaining cells of the current frame.
    pub discarding: bool,
    /// EPD: drop the EOM as well.
    pub drop_eom_too: bool,
}

fn per_vc(num_vcs: usize) -> Box<[FrameState]> {
    vec![FrameState::default(); num_vcs].into_boxed_slice()
}

/// Partial Packet Discard [Romanow & Floyd 95]: after a cell of a frame is
/// dropped, drop the frame's remaining cells but keep its EOM if there is
/// room, so the next frame reassembles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ppd {
    pub limit: u64,
    vcs: Box<[FrameState]>,
}

impl Ppd {
    pub fn new(limit: u64, num_vcs: usize) -> Self {
        Ppd { limit, vcs: per_vc(num_vcs) }
    }

    #[inline]
    pub fn admit(&mut self, cell: &Unit, q: u64) -> Action {
        rest_of_frame(&mut self.vcs[cell.vc.ix()], cell, q, self.limit, 0, true)
    }
}

/// Early Packet Discard [RF95]: refuse a whole frame (EOM included) when
/// the queue holds at least `threshold` cells at its first cell; PPD once a
/// frame has been admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Epd {
    pub limit: u64,
    pub threshold: u64,
    vcs: Box<[FrameState]>,
}

impl Epd {
    pub fn new(limit: u64, threshold: u64, num_vcs: usize) -> Self {
        Epd { limit, threshold, vcs: per_vc(num_vcs) }
    }

    #[inline]
    pub fn admit(&mut self, cell: &Unit, q: u64) -> Action {
        let st = &mut self.vcs[cell.vc.ix()];
        if cell.is_first() && !st.discarding && q >= self.threshold {
            // Refuse the whole frame, EOM included (a one-cell frame is
            // refused entirely here).
            let eom = cell.is_eom();
            st.discarding = !eom;
            st.drop_eom_too = !eom;
            return Action::Drop(DropReason::Epd);
        }
        rest_of_frame(st, cell, q, self.limit, 0, true)
    }
}

/// "Intelligent tail drop" (Jain et al.): non-EOM cells need
/// q < b − reserve, EOM cells q < b; optionally with PPD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EomProtect {
    pub limit: u64,
    pub reserve: u64,
    pub ppd: bool,
    vcs: Box<[FrameState]>,
}

impl EomProtect {
    pub fn new(limit: u64, reserve: u64, ppd: bool, num_vcs: usize) -> Self {
        EomProtect { limit, reserve, ppd, vcs: per_vc(num_vcs) }
    }

    #[inline]
    pub fn admit(&mut self, cell: &Unit, q: u64) -> Action {
        rest_of_frame(&mut self.vcs[cell.vc.ix()], cell, q, self.limit, self.reserve, self.ppd)
    }
}

/// The state machine the three share, for a cell not refused at the start
/// of its frame: a frame being discarded loses its cells (its EOM too
/// after EPD); otherwise the cell needs room (`b - reserve` unless it is an
/// EOM), and with `ppd` a refused cell dooms the rest of its frame.
#[inline]
pub(super) fn rest_of_frame(st: &mut FrameState, cell: &Unit, q: u64, b: u64, reserve: u64, ppd: bool) -> Action {
    let eom = cell.is_eom();
    if st.discarding {
        if st.drop_eom_too {
            if eom {
                *st = FrameState::default();
            }
            return Action::Drop(DropReason::Epd);
        }
        if !eom {
            return Action::Drop(DropReason::Ppd);
        }
        // Keep the EOM so the next frame is delimited; if there is no room
        // stay in discard mode: the next frame is lost to the merge anyway.
        if q < b {
            st.discarding = false;
            return Action::Admit;
        }
        return Action::Drop(DropReason::Tail);
    }
    let limit = if eom { b } else { b.saturating_sub(reserve) };
    if q < limit {
        return Action::Admit;
    }
    if ppd {
        // A lost middle cell dooms the rest of its frame; a lost EOM dooms
        // the next frame (merged at reassembly), so discard it here
        // (our choice; Romanow & Floyd leave the lost-EOM case open).
        st.discarding = true;
    }
    Action::Drop(if !eom && reserve > 0 && q < b { DropReason::EomReserve } else { DropReason::Tail })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cell(index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(0), 0, index, ncells, 53)
    }

    /// PPD or EPD on one VC.
    enum P {
        Ppd(Ppd),
        Epd(Epd),
    }

    impl P {
        fn admit(&mut self, c: &Unit, q: u64) -> Action {
            match self {
                P::Ppd(p) => p.admit(c, q),
                P::Epd(p) => p.admit(c, q),
            }
        }
    }

    /// Runs the cells of frames through a policy with the queue at `q[i]`.
    fn run(mut p: P, cells: &[(u16, u16, u64)]) -> Vec<bool> {
        cells.iter().map(|&(i, n, q)| p.admit(&cell(i, n), q) == Action::Admit).collect()
    }

    #[test]
    fn ppd_drops_rest_of_frame_but_keeps_eom() {
        // Frame of 4: cell 1 finds the queue full; 2 is dropped though there
        // is room; the EOM is kept; the next frame is accepted.
        let r = run(P::Ppd(Ppd::new(10, 1)), &[(0, 4, 0), (1, 4, 10), (2, 4, 0), (3, 4, 0), (0, 2, 0), (1, 2, 0)]);
        assert_eq!(r, vec![true, false, false, true, true, true]);
    }

    #[test]
    fn ppd_eom_to_full_queue_dooms_next_frame_then_recovers() {
        let r = run(P::Ppd(Ppd::new(10, 1)), &[(0, 2, 10), (1, 2, 10), (0, 2, 0), (1, 2, 0), (0, 1, 0)]);
        // First frame: both dropped (EOM found no room) -> discarding stays on,
        // second frame's first cell dropped, its EOM kept; third frame fine.
        assert_eq!(r, vec![false, false, false, true, true]);
    }

    #[test]
    fn ppd_names_why_each_cell_went() {
        let mut p = Ppd::new(10, 1);
        assert_eq!(p.admit(&cell(0, 3), 10), Action::Drop(DropReason::Tail));
        assert_eq!(p.admit(&cell(1, 3), 0), Action::Drop(DropReason::Ppd));
        assert_eq!(p.admit(&cell(2, 3), 0), Action::Admit);
    }

    #[test]
    fn epd_refuses_whole_frame_at_threshold_including_eom() {
        let r = run(P::Epd(Epd::new(10, 5, 1)), &[(0, 3, 5), (1, 3, 0), (2, 3, 0), (0, 2, 4), (1, 2, 9)]);
        assert_eq!(r, vec![false, false, false, true, true]);
    }

    #[test]
    fn epd_single_cell_frame_is_a_whole_frame() {
        let r = run(P::Epd(Epd::new(10, 5, 1)), &[(0, 1, 7), (0, 1, 1)]);
        assert_eq!(r, vec![false, true]);
    }

    #[test]
    fn epd_threshold_equal_to_limit_behaves_like_ppd() {
        let r = run(P::Epd(Epd::new(10, 10, 1)), &[(0, 3, 9), (1, 3, 10), (2, 3, 0)]);
        assert_eq!(r, vec![true, false, true]);
    }

    #[test]
    fn eom_protection_keeps_eoms_while_memory_remains() {
        let mut p = EomProtect::new(10, 2, false, 1);
        assert_eq!(p.admit(&cell(0, 3), 8), Action::Drop(DropReason::EomReserve));
        assert_eq!(p.admit(&cell(2, 3), 9), Action::Admit);
        assert_eq!(p.admit(&cell(2, 3), 10), Action::Drop(DropReason::Tail));
        // Without PPD a refused cell dooms nothing: the next cell with room enters.
        assert_eq!(p.admit(&cell(0, 3), 8), Action::Drop(DropReason::EomReserve));
        assert_eq!(p.admit(&cell(1, 3), 0), Action::Admit);
    }

    #[test]
    fn eom_protection_with_ppd_drops_the_rest_of_a_damaged_frame_but_its_eom() {
        let mut p = EomProtect::new(10, 2, true, 1);
        // The first cell finds the queue above b - reserve: refused, and the frame is damaged.
        assert_eq!(p.admit(&cell(0, 3), 8), Action::Drop(DropReason::EomReserve));
        // Its middle cell would fit now, but PPD drops it: the receiver would discard it.
        assert_eq!(p.admit(&cell(1, 3), 0), Action::Drop(DropReason::Ppd));
        // The EOM is kept, so the next frame is delimited, and the next frame is admitted.
        assert_eq!(p.admit(&cell(2, 3), 0), Action::Admit);
        assert_eq!(p.admit(&cell(0, 2), 0), Action::Admit);
    }
}
