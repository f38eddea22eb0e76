//! Per-packet path choice over a flow's shortest paths (htsim
//! `NdpSrc::choose_route`, `permute_paths`, `count_feedback`; rules N15–N16
//! of docs/fabrics.md).
//!
//! "perm" (SCATTER_PERMUTE): the paths in a random order; each packet takes
//! the next, and after a full cycle the order is shuffled again. "pull"
//! (PULL_BASED): the same cycle, skipping paths judged bad by their NACKs.
//! htsim's skip rule, read from its code: a path's avoid count rises by one
//! on each feedback that finds it bad and falls by one on each that does not;
//! the cycle passes over a path whenever its count is positive (the count is
//! re-armed at each visit, so a positive count skips it every time until
//! feedback for it lowers the count — docs/fabrics.md's "skipped r times"
//! describes the intent, not what the code does).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How a flow picks each packet's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Perm,
    Pull,
}

/// Feedback on a path, for "pull".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    Ack,
    Nack,
}

#[derive(Clone, Debug)]
pub struct PathChoice {
    /// Path indices in the current cycle's order.
    order: Vec<u16>,
    /// Position in `order` of the path used last.
    at: usize,
    rng: ChaCha8Rng,
    strategy: Strategy,
    /// Per path ("pull"): ACKs and NACKs counted, and the avoid count.
    acks: Vec<u32>,
    nacks: Vec<u32>,
    avoid: Vec<u32>,
}

impl PathChoice {
    /// A choice among `paths` paths, shuffled once before the first packet
    /// (htsim `set_paths` permutes them, then `choose_route` advances before
    /// it reads).
    pub fn new(paths: usize, strategy: Strategy, rng: ChaCha8Rng) -> PathChoice {
        assert!((1..=u16::MAX as usize + 1).contains(&paths), "1 to 65,536 paths");
        let n = if strategy == Strategy::Pull { paths } else { 0 };
        let mut c = PathChoice {
            order: (0..paths).map(|p| p as u16).collect(),
            at: 0,
            rng,
            strategy,
            acks: vec![0; n],
            nacks: vec![0; n],
            avoid: vec![0; n],
        };
        c.permute();
        c
    }

    /// htsim's shuffle: for i in 0..n, swap a uniform pick of the first
    /// n − i entries with entry n − 1 − i.
    fn permute(&mut self) {
        let n = self.order.len();
        for i in 0..n {
            let ix = self.rng.gen_range(0..n - i);
            self.order.swap(ix, n - 1 - i);
        }
    }

    fn advance(&mut self) -> u16 {
        self.at += 1;
        if self.at == self.order.len() {
            self.permute();
            self.at = 0;
        }
        self.order[self.at]
    }

    /// The next packet's path.
    pub fn next_path(&mut self) -> u16 {
        if self.order.len() == 1 {
            return 0;
        }
        let mut p = self.advance();
        if self.strategy == Strategy::Pull {
            // A path with a positive avoid count is passed over (at least one
            // path is not: the count of every path is lowered by feedback that
            // finds it good, and the cycle stops at the first good one).
            let mut tries = 0;
            while self.avoid[p as usize] > 0 && tries < self.order.len() {
                p = self.advance();
                tries += 1;
            }
        }
        p
    }

    /// Feedback for a packet sent on `path` ("pull" counts it; htsim
    /// `count_feedback`: a path with more than 100 answers whose NACK
    /// ratio, in percent of its ACKs, is above 1.25 × the mean ratio and
    /// above 30 is bad).
    pub fn feedback(&mut self, path: u16, fb: Feedback) {
        if self.strategy != Strategy::Pull || self.order.len() == 1 {
            return;
        }
        let p = path as usize;
        match fb {
            Feedback::Ack => self.acks[p] += 1,
            Feedback::Nack => self.nacks[p] += 1,
        }
        let n = self.acks.len() as u64;
        let acks_mean = self.acks.iter().map(|&a| a as u64).sum::<u64>() / n;
        let nacks_mean = self.nacks.iter().map(|&a| a as u64).sum::<u64>() / n;
        let ratio = if self.acks[p] > 10 { self.nacks[p] as u64 * 100 / self.acks[p] as u64 } else { 0 };
        let mean_ratio = (nacks_mean * 100).checked_div(acks_mean).unwrap_or(100);
        if self.acks[p] as u64 + self.nacks[p] as u64 > 100 && ratio as f64 > mean_ratio as f64 * 1.25 && ratio > 30 {
            self.avoid[p] += 1;
        } else {
            self.avoid[p] = self.avoid[p].saturating_sub(1);
        }
    }

    /// Paths with a positive avoid count.
    pub fn avoided(&self) -> usize {
        self.avoid.iter().filter(|&&a| a > 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn perm_uses_every_path_once_per_cycle() {
        let mut c = PathChoice::new(16, Strategy::Perm, ChaCha8Rng::seed_from_u64(13));
        // As htsim's, the cycle advances before it reads: the first
        // permutation's first path is never used, and its other 15 come first.
        let first: std::collections::BTreeSet<u16> = (0..15).map(|_| c.next_path()).collect();
        assert_eq!(first.len(), 15);
        for _ in 0..5 {
            let mut cycle: Vec<u16> = (0..16).map(|_| c.next_path()).collect();
            cycle.sort_unstable();
            assert_eq!(cycle, (0..16).collect::<Vec<u16>>());
        }
        assert_eq!(PathChoice::new(1, Strategy::Perm, ChaCha8Rng::seed_from_u64(1)).next_path(), 0);
    }

    #[test]
    fn pull_avoids_a_path_with_many_nacks_until_feedback_clears_it() {
        let mut c = PathChoice::new(4, Strategy::Pull, ChaCha8Rng::seed_from_u64(13));
        for _ in 0..200 {
            for p in 0..4 {
                c.feedback(p, Feedback::Ack);
            }
            c.feedback(2, Feedback::Nack);
        }
        assert_eq!(c.avoided(), 1);
        assert!((0..40).all(|_| c.next_path() != 2), "path 2 is passed over");
        // Good news about path 2 lowers its count (here: NACKs stop and its ratio falls below 30).
        for _ in 0..2000 {
            c.feedback(2, Feedback::Ack);
        }
        assert_eq!(c.avoided(), 0);
        assert!((0..8).any(|_| c.next_path() == 2));
    }
}
