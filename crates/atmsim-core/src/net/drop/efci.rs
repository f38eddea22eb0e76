//! EFCI marking: a binary-feedback ABR switch port sets the explicit
//! forward congestion indication in the header of the data cells it
//! forwards while its queue is long (ATM Forum TM 4.0 §5.10.6 and its
//! informative Appendix I.3, "EFCI marking" switches). The destination
//! turns the last EFCI it saw into CI in the backward RM cell (TM 4.0
//! §5.10.3), and the source lowers its rate by RDF on CI (its rule 8).
//!
//! The queue is judged with hysteresis: the port becomes congested when its
//! occupancy reaches `high` and stays so until it falls to `low` or below
//! (`low == high`: a single threshold). Marking is independent of whether
//! the cell is admitted, which the policy behind decides; RM and VBR cells
//! are never marked (EFCI is a data cell's field).

use super::{Action, DropPolicy};
use crate::net::Unit;
use crate::time::{Serializer, Time};

#[derive(Clone, Debug)]
pub struct EfciMarking {
    /// Occupancy (cells, counting the one in transmission) at which the
    /// port turns congested.
    pub high: u64,
    /// Occupancy at or below which it turns uncongested again.
    pub low: u64,
    congested: bool,
    /// The port's own policy, which admits or drops the cell.
    pub inner: DropPolicy,
}

impl EfciMarking {
    pub fn new(high: u64, low: u64, inner: DropPolicy) -> Self {
        debug_assert!(low <= high);
        EfciMarking { high, low, congested: false, inner }
    }

    /// Congested as of the last unit offered (relative rate marking reads
    /// it for the backward RM cells of the VCs through this port).
    pub fn is_congested(&self) -> bool {
        self.congested
    }

    #[inline(never)]
    pub fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action {
        if q >= self.high {
            self.congested = true;
        } else if q <= self.low {
            self.congested = false;
        }
        match self.inner.admit(unit, q, now, line) {
            Action::Admit if self.congested && !unit.is_frameless() => Action::Mark,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drop::{DropReason, Tail};
    use crate::net::VcId;

    #[test]
    fn marks_data_cells_between_the_thresholds_with_hysteresis() {
        let line = Serializer::new(crate::time::Rate::new(1, 1).unwrap());
        let mut e = EfciMarking::new(10, 4, DropPolicy::Tail(Tail { limit: 20 }));
        let cell = Unit::new(VcId(0), 0, 0, 1, 53);
        // Rising: unmarked below `high`, marked from it.
        assert_eq!(e.admit(&cell, 9, 0, &line), Action::Admit);
        assert_eq!(e.admit(&cell, 10, 0, &line), Action::Mark);
        assert!(e.is_congested());
        // Falling: still marked above `low`, unmarked at it.
        assert_eq!(e.admit(&cell, 5, 0, &line), Action::Mark);
        assert_eq!(e.admit(&cell, 4, 0, &line), Action::Admit);
        assert!(!e.is_congested());
        assert_eq!(e.admit(&cell, 9, 0, &line), Action::Admit);
        // A full buffer still drops; RM and VBR cells are never marked.
        assert_eq!(e.admit(&cell, 20, 0, &line), Action::Drop(DropReason::Tail));
        assert_eq!(e.admit(&Unit::rm(VcId(0), 1), 15, 0, &line), Action::Admit);
        assert_eq!(e.admit(&Unit::vbr(VcId(0)), 15, 0, &line), Action::Admit);
    }
}
