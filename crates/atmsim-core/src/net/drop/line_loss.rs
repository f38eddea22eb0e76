//! Independent random loss of the cells entering a port, before its own
//! drop policy sees them: the scattered cell loss of Jain et al.'s
//! fast-retransmit experiment (`[abr.loss]`). Cells of the VBR background
//! are never lost (they are not the experiment's subject). Draws come from
//! the port's own stream, one per cell offered.

use super::{Action, DropPolicy, DropReason};
use crate::net::{PortId, Unit};
use crate::rng::{stream, Stream};
use crate::time::{Serializer, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
pub struct LineLoss {
    probability: f64,
    rng: ChaCha8Rng,
    /// The port's policy for the cells that are not lost.
    pub inner: DropPolicy,
}

impl LineLoss {
    pub fn new(probability: f64, seed: u64, port: PortId, inner: DropPolicy) -> Self {
        LineLoss { probability, rng: stream(seed, Stream::Port(port)), inner }
    }

    #[inline(never)]
    pub fn admit(&mut self, unit: &Unit, q: u64, now: Time, line: &Serializer) -> Action {
        if !unit.is_vbr() && self.rng.gen::<f64>() < self.probability {
            return Action::Drop(DropReason::Random);
        }
        self.inner.admit(unit, q, now, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drop::Tail;
    use crate::net::VcId;

    #[test]
    fn a_lost_cell_never_reaches_the_policy_behind_and_vbr_cells_are_never_lost() {
        let line = Serializer::new(crate::time::Rate::new(1, 1).unwrap());
        let mut l = LineLoss::new(0.25, 9, PortId(1), DropPolicy::Tail(Tail { limit: 5 }));
        let cell = Unit::new(VcId(0), 0, 0, 1, 53);
        let lost = (0..4000).filter(|_| l.admit(&cell, 0, 0, &line) == Action::Drop(DropReason::Random)).count();
        assert!((800..1200).contains(&lost), "{lost}");
        // A full buffer behind: what is not lost is refused by tail drop.
        assert!((0..100).all(|_| matches!(l.admit(&cell, 5, 0, &line), Action::Drop(DropReason::Random | DropReason::Tail))));
        let mut never = LineLoss::new(1.0, 9, PortId(1), DropPolicy::Unlimited);
        assert_eq!(never.admit(&Unit::vbr(VcId(3)), 0, 0, &line), Action::Admit);
        assert_eq!(never.admit(&cell, 0, 0, &line), Action::Drop(DropReason::Random));
    }
}
