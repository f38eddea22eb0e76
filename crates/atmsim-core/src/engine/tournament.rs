//! The earliest of the gap lanes' fronts, kept as a tournament
//! ([`super::Scheduler`]): NDP's Fig. 22 takes nearly every event from a
//! lane, and comparing all six fronts at every event cost about 50
//! instructions of it (docs/performance.md).

/// Slots of the lanes' fronts: [`MAX_LANES`] rounded up to a power of two,
/// so that the tournament is a complete binary tree of three levels.
pub(super) const LANE_SLOTS: usize = 8;

/// Which of eight keys is the least, kept as a tournament: the winner of
/// each pair of slots, of each pair of pairs, and of the whole. When one
/// key changes only its path is replayed: three comparisons, each the
/// earlier of two candidates (keys are unique: insertion numbers are; the
/// only ties are between empty slots, u128::MAX, where either will do).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tournament {
    pairs: [u8; 4],
    quads: [u8; 2],
    best: u8,
}

impl Default for Tournament {
    /// Every key equal (all slots empty): the first of each pair wins.
    fn default() -> Self {
        Tournament { pairs: [0, 2, 4, 6], quads: [0, 4], best: 0 }
    }
}

impl Tournament {
    /// The slot whose key is the least.
    #[inline(always)]
    pub(super) fn winner(&self) -> usize {
        self.best as usize & (LANE_SLOTS - 1)
    }

    /// Slot `i`'s key in `keys` changed: replays its path.
    #[inline(always)]
    pub(super) fn update(&mut self, keys: &[u128; LANE_SLOTS], i: usize) {
        let earlier = |a: usize, b: usize| if keys[b & (LANE_SLOTS - 1)] < keys[a & (LANE_SLOTS - 1)] { b } else { a };
        let pair = (i >> 1) & 3;
        self.pairs[pair] = earlier(2 * pair, 2 * pair + 1) as u8;
        let quad = pair >> 1;
        self.quads[quad] = earlier(self.pairs[2 * quad] as usize, self.pairs[2 * quad + 1] as usize) as u8;
        self.best = earlier(self.quads[0] as usize, self.quads[1] as usize) as u8;
    }
}
