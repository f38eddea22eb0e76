//! A three-stage fabric's two inner hops (`fabric/stages.rs`;
//! docs/fabric.md "Three stages"): an FE1 sends each cell up to the FE2s
//! round robin over all its links to them; an FE2 sends it down round robin
//! over its links to the FE3s of the cell's group that reach the cell's
//! FAP; the FE3 then sends it down as a single stage's FE does
//! (`fe_forward`). Once a failure is detected, each hop leaves out the
//! links that failed and those leading to an element that no longer
//! reaches the cell's FAP (`StageState::recount`): per (FE3, FAP) as in one
//! stage, per (FE2, FAP) and per (FE1, FAP) counted back from it.

use super::fabric::Fabric;
use crate::fabric::Cell;

impl Fabric {
    /// Whether a FAP's link up (to FE `fe`) leads to FAP `dst`: in one stage
    /// if that FE reaches it, in three if that FE1 does (by a usable link up
    /// to an FE2 with a usable link down to an FE3 that reaches it).
    pub(super) fn leads_to(&self, fe: u32, dst: u32) -> bool {
        let g = &self.cfg.geometry;
        match g.spine {
            None => self.reach[(fe * g.faps + dst) as usize] > 0,
            Some(_) => self.stages.fe1_reach[(fe * g.faps + dst) as usize] > 0,
        }
    }

    /// FE1 `fe1` sends a cell up its next link, round robin, that is usable
    /// and leads to an FE2 that reaches the cell's FAP; the cell is lost if
    /// none does.
    pub(super) fn fe1_sends(&mut self, fe1: u32, cell: Cell) -> Option<u32> {
        let g = &self.cfg.geometry;
        let fe2s = g.spine.as_ref().map_or(1, |s| s.fe2s);
        let dst = cell.dst_fap as u32;
        let n = g.links_to_fe2s();
        for step in 0..n {
            let j = (self.stages.fe1_next[fe1 as usize] + step) % n;
            let up = g.up_to_fe2(fe1, j);
            if self.links[up as usize].usable && self.stages.fe2_reach[(j % fe2s * g.faps + dst) as usize] > 0 {
                self.stages.fe1_next[fe1 as usize] = (j + 1) % n;
                return self.pass_on(up, cell);
            }
        }
        self.lose_at_element(cell);
        None
    }

    /// FE2 `fe2` sends a cell down its next link to an FE3 of the cell's
    /// group that reaches the cell's FAP; the cell is lost if none does.
    pub(super) fn fe2_sends(&mut self, fe2: u32, cell: Cell) -> Option<u32> {
        let g = &self.cfg.geometry;
        let dst = cell.dst_fap as u32;
        let group = g.group_of(dst);
        let at = (fe2 * g.groups() + group) as usize;
        let n = g.links_to_group();
        for step in 0..n {
            let j = (self.stages.fe2_next[at] + step) % n;
            let (down, fe3) = g.down_to_group(fe2, group, j);
            if self.links[down as usize].usable && self.reach[(fe3 * g.faps + dst) as usize] > 0 {
                self.stages.fe2_next[at] = (j + 1) % n;
                return self.pass_on(down, cell);
            }
        }
        self.lose_at_element(cell);
        None
    }
}
