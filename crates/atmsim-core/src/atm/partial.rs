//! Partial reassembly at the destination AAL (Bestavros & Kim §3): the
//! cells of a damaged frame are kept, not discarded, and the transport is
//! told when each frame closes so it can use them.
//!
//! A frame closes at its EOM cell, or, when the EOM was lost, at the first
//! cell of a later frame. Cells of a VC arrive in order, so by then every
//! cell of the closed frame has arrived or died. Which frame and which
//! piece each cell belongs to is known from per-cell metadata: the
//! idealisation of the paper's footnote 7 ("every cell that makes it
//! through is used"); a real AAL5 would need the header cell.

use crate::net::Unit;

/// Frames closed by one arriving cell: the open frame whose EOM was lost,
/// and the cell's own frame if the cell is its EOM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Closed {
    pub orphan: Option<u32>,
    pub this: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PartialReassembler {
    open: Option<u32>,
}

impl PartialReassembler {
    #[inline]
    pub fn on_cell(&mut self, c: &Unit) -> Closed {
        let orphan = self.open.filter(|&f| f != c.frame);
        self.open = (!c.is_eom()).then_some(c.frame);
        Closed { orphan, this: c.is_eom().then_some(c.frame) }
    }

    /// The frame whose cells are arriving, if its EOM has not.
    pub fn open_frame(&self) -> Option<u32> {
        self.open
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cell(frame: u32, index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(0), frame, index, ncells, 53)
    }

    #[test]
    fn an_intact_frame_closes_at_its_eom() {
        let mut r = PartialReassembler::default();
        assert_eq!(r.on_cell(&cell(0, 0, 3)), Closed::default());
        assert_eq!(r.on_cell(&cell(0, 1, 3)), Closed::default());
        assert_eq!(r.on_cell(&cell(0, 2, 3)), Closed { orphan: None, this: Some(0) });
        assert_eq!(r.open_frame(), None);
    }

    #[test]
    fn a_damaged_frame_still_closes_at_its_eom() {
        let mut r = PartialReassembler::default();
        r.on_cell(&cell(4, 1, 3));
        assert_eq!(r.on_cell(&cell(4, 2, 3)), Closed { orphan: None, this: Some(4) });
    }

    #[test]
    fn a_lost_eom_closes_the_frame_at_the_next_frames_first_cell() {
        let mut r = PartialReassembler::default();
        r.on_cell(&cell(0, 0, 3));
        r.on_cell(&cell(0, 1, 3));
        assert_eq!(r.on_cell(&cell(2, 1, 3)), Closed { orphan: Some(0), this: None });
        // A one-cell frame after a lost EOM closes both at once.
        assert_eq!(r.on_cell(&cell(3, 0, 1)), Closed { orphan: Some(2), this: Some(3) });
    }
}
