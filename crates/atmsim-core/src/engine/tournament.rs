//! The earliest of the gap lanes' fronts, kept as a tournament
//! ([`super::Scheduler`]): NDP's Fig. 22 takes nearly every event from a
//! lane, and comparing all six fronts at every event cost about 50
//! instructions of it (docs/performance.md).

/// Slots of the lanes' fronts: [`MAX_LANES`](super::MAX_LANES), a power of
/// two, so that the tournament is a complete binary tree of three levels.
pub(super) const LANE_SLOTS: usize = 8;
const _: () = assert!(super::MAX_LANES <= LANE_SLOTS && LANE_SLOTS.is_power_of_two());

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

    /// Slot `i`'s key in `keys` changed: replays its path. Each winner
    /// just decided is carried on in a register and only its rival is read
    /// back: reading a winner straight after storing it, as one wider load
    /// with its neighbours, missed the processor's store forwarding and
    /// stalled every event that left a lane (`perf annotate`:
    /// docs/performance.md, "The tournament's stall").
    #[inline(always)]
    pub(super) fn update(&mut self, keys: &[u128; LANE_SLOTS], i: usize) {
        let earlier = |a: usize, b: usize| if keys[b & (LANE_SLOTS - 1)] < keys[a & (LANE_SLOTS - 1)] { b } else { a };
        // Each comparison keeps its operands in slot order (the left
        // candidate first), so ties go as they always did.
        let in_order = |left_is_new: bool, new: usize, rival: usize| if left_is_new { earlier(new, rival) } else { earlier(rival, new) };
        let pair = (i >> 1) & 3;
        let pair_winner = earlier(2 * pair, 2 * pair + 1);
        self.pairs[pair] = pair_winner as u8;
        let quad = pair >> 1;
        let quad_winner = in_order(pair & 1 == 0, pair_winner, self.pairs[pair ^ 1] as usize);
        self.quads[quad] = quad_winner as u8;
        self.best = in_order(quad == 0, quad_winner, self.quads[quad ^ 1] as usize) as u8;
    }
}
