//! Entropy and paths (rule E10 of docs/fabrics.md; htsim
//! `EqdsSrc::nextEntropy`, `penalizePath`; `FatTreeSwitch::getNextHop`).
//!
//! A packet carries an entropy value; each switch picks its next hop among
//! its equal-cost up-links by a salted hash of (flow, entropy), one random
//! salt per switch. Routes stay plain data here: for each entropy value the
//! sender may use, [`entropy_paths`] replays those hash choices once over
//! the flow's shortest paths and keeps the index of the path they select,
//! so a packet costs one table read. The hash is a 64-bit mix rather than
//! htsim's FreeBSD hash (its draws differ anyway, docs/fabrics.md §2.3).
//!
//! The sender cycles through the entropy indices 0..n as index XOR a random
//! mask, redrawn at each wrap; an index with a penalty is skipped once (its
//! penalty falls by 1). Penalties come from NACKs, capped at 1. htsim needs n
//! to be a power of two (it masks with n - 1); any other n cycles the same
//! way over the next power of two, passing over the indices from n up.

use crate::base::PortId;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// htsim caps a path's penalty at 1 (`_max_penalty`).
const MAX_PENALTY: u8 = 1;

/// The next hop a switch with salt `salt` picks among `choices` for packets
/// of flow `flow` with entropy `entropy`.
pub fn hash_choice(salt: u64, flow: u64, entropy: u16, choices: usize) -> usize {
    let mut x = salt ^ flow.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (entropy as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x % choices as u64) as usize
}

/// For each entropy value in `entropies`, the index into `paths` of the
/// path the switches' hashes select: at each hop where the paths that
/// share the route so far part, the switch there (`salt_of` its port)
/// picks one of their next ports in order of first appearance.
pub fn entropy_paths(paths: &[Vec<PortId>], salt_of: impl Fn(PortId) -> u64, flow: u64, entropies: &[u16]) -> Vec<u16> {
    if paths.is_empty() {
        return vec![0; entropies.len()];
    }
    let mut tree = Partings::default();
    let root = tree.build(paths, &salt_of, (0..paths.len() as u16).collect(), 0);
    entropies.iter().map(|&e| tree.path(root, flow, e)).collect()
}

/// A flow's paths as the tree of the switches' choices, built once per
/// flow: a parting (where the paths that share the route so far go
/// different ways) holds the salt of the switch there and its branches in
/// order of first appearance; a node that one path reaches is that path.
/// Each entropy value then costs a hash per parting, where replaying the
/// choices scanned every remaining path at every hop (1.5 G of the 2.3 G
/// instructions that set up the 1,024-host permutation at 128 entropy
/// values a flow, its flows having 64 paths each).
#[derive(Default)]
struct Partings {
    nodes: Vec<Node>,
    branches: Vec<u32>,
}

#[derive(Clone, Copy)]
enum Node {
    Path(u16),
    Parting { salt: u64, first: u32, count: u32 },
}

impl Partings {
    /// The node for the paths `cands` (indices into `paths`, in order),
    /// which share their first `hop` ports.
    fn build(&mut self, paths: &[Vec<PortId>], salt_of: &impl Fn(PortId) -> u64, cands: Vec<u16>, mut hop: usize) -> u32 {
        loop {
            // One path, or (not so for distinct shortest paths) paths that never part.
            if cands.len() == 1 || cands.iter().any(|&c| hop >= paths[c as usize].len()) {
                self.nodes.push(Node::Path(cands[0]));
                return self.nodes.len() as u32 - 1;
            }
            let mut ways: Vec<(PortId, Vec<u16>)> = Vec::new();
            for &c in &cands {
                let port = paths[c as usize][hop];
                match ways.iter_mut().find(|w| w.0 == port) {
                    Some(w) => w.1.push(c),
                    None => ways.push((port, vec![c])),
                }
            }
            if ways.len() == 1 {
                hop += 1;
                continue;
            }
            let (first, count) = (self.branches.len() as u32, ways.len() as u32);
            self.branches.resize(self.branches.len() + ways.len(), 0);
            let me = self.nodes.len() as u32;
            self.nodes.push(Node::Parting { salt: salt_of(ways[0].0), first, count });
            for (i, (_, way)) in ways.into_iter().enumerate() {
                let child = self.build(paths, salt_of, way, hop + 1);
                self.branches[first as usize + i] = child;
            }
            return me;
        }
    }

    /// The path entropy value `e` of flow `flow` takes from node `at`.
    fn path(&self, mut at: u32, flow: u64, e: u16) -> u16 {
        loop {
            match self.nodes[at as usize] {
                Node::Path(p) => return p,
                Node::Parting { salt, first, count } => {
                    at = self.branches[first as usize + hash_choice(salt, flow, e, count as usize)];
                }
            }
        }
    }
}

/// What a sender keeps per entropy index: the path it hashes to and its
/// penalty, side by side so that a packet reads one line for both.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    path: u16,
    penalty: u8,
}

/// A sender's entropy cycle (E10), the fields each packet reads first
/// (`repr(C)`) and the generator, read once a cycle, last.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Entropy {
    slots: Vec<Slot>,
    /// Entropy indices, and the power of two the cycle runs over.
    span: u32,
    n: u16,
    index: u16,
    xor: u16,
    /// The upper bits of every entropy value, drawn once.
    upper: u16,
    rng: ChaCha8Rng,
}

impl Entropy {
    /// The bytes before the generator: what each packet reads.
    pub const HOT_BYTES: usize = std::mem::offset_of!(Entropy, rng);

    pub fn new(n: u32, mut rng: ChaCha8Rng) -> Entropy {
        assert!((1..=1 << 15).contains(&n), "1 to 32768 entropies");
        let span = n.next_power_of_two();
        let upper = rng.gen_range(0..0xffff_u32) as u16;
        let xor = rng.gen_range(0..span) as u16;
        Entropy { slots: vec![Slot::default(); n as usize], span, n: n as u16, index: 0, xor, upper, rng }
    }

    /// Per entropy index, the path it hashes to ([`entropy_paths`]).
    pub fn set_paths(&mut self, paths: &[u16]) {
        for (slot, &p) in self.slots.iter_mut().zip(paths) {
            slot.path = p;
        }
    }

    /// The path entropy index `i` hashes to.
    pub fn path(&self, i: u16) -> u16 {
        self.slots[i as usize].path
    }

    fn mask(&self) -> u16 {
        (self.span - 1) as u16
    }

    /// The full entropy value of index `i` (the upper bits as drawn).
    pub fn value(&self, i: u16) -> u16 {
        i | (self.upper & !self.mask())
    }

    /// The index of entropy value `e`.
    pub fn index_of(&self, e: u16) -> u16 {
        e & self.mask()
    }

    pub fn count(&self) -> u16 {
        self.n
    }

    fn advance(&mut self) {
        self.index += 1;
        if self.index as u32 == self.span {
            self.index = 0;
            self.xor = self.rng.gen_range(0..self.span) as u16;
        }
    }

    /// The next entropy index to send with, skipping penalised ones once.
    pub fn next_index(&mut self) -> u16 {
        loop {
            let e = (self.index ^ self.xor) & self.mask();
            self.advance();
            if e >= self.n {
                continue; // beyond n (not a power of two): not an entropy
            }
            let slot = &mut self.slots[e as usize];
            if slot.penalty > 0 {
                slot.penalty -= 1;
                continue;
            }
            return e;
        }
    }

    /// A NACK (or ECN echo) for entropy value `e`.
    pub fn penalize(&mut self, e: u16) {
        let i = (e & self.mask()) as usize;
        let p = &mut self.slots[i].penalty;
        *p = (*p + 1).min(MAX_PENALTY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn each_cycle_uses_every_index_once_and_a_penalty_skips_once() {
        let mut e = Entropy::new(8, ChaCha8Rng::seed_from_u64(3));
        let mut cycle: Vec<u16> = (0..8).map(|_| e.next_index()).collect();
        cycle.sort();
        assert_eq!(cycle, (0..8).collect::<Vec<_>>());
        e.penalize(e.value(5));
        e.penalize(e.value(5)); // capped at 1
        let next16: Vec<u16> = (0..15).map(|_| e.next_index()).collect();
        assert_eq!(next16.iter().filter(|&&i| i == 5).count(), 1, "skipped once in two cycles: {next16:?}");
        assert_eq!(Entropy::new(1, ChaCha8Rng::seed_from_u64(3)).next_index(), 0, "-paths 1: one entropy");
        let mut seven = Entropy::new(7, ChaCha8Rng::seed_from_u64(4));
        let mut cycle: Vec<u16> = (0..14).map(|_| seven.next_index()).collect();
        cycle.sort();
        assert_eq!(cycle, (0..7).flat_map(|i| [i, i]).collect::<Vec<_>>(), "7 entropies: each once a cycle");
    }

    /// The choices replayed as the tree replaces them: at every hop, every
    /// remaining path scanned (the reference).
    fn by_scan(paths: &[Vec<PortId>], salt_of: impl Fn(PortId) -> u64, flow: u64, entropies: &[u16]) -> Vec<u16> {
        let mut next: Vec<PortId> = Vec::new();
        entropies
            .iter()
            .map(|&e| {
                let mut cands: Vec<usize> = (0..paths.len()).collect();
                let mut hop = 0;
                while cands.len() > 1 {
                    next.clear();
                    for &c in &cands {
                        if !next.contains(&paths[c][hop]) {
                            next.push(paths[c][hop]);
                        }
                    }
                    if next.len() > 1 {
                        let pick = next[hash_choice(salt_of(next[0]), flow, e, next.len())];
                        cands.retain(|&c| paths[c][hop] == pick);
                    }
                    hop += 1;
                }
                cands.first().map_or(0, |&c| c as u16)
            })
            .collect()
    }

    #[test]
    fn the_tree_of_partings_picks_what_a_scan_of_every_path_picks() {
        // Distinct paths of one length through random fan-outs (1 to 5 ways
        // at each of 5 hops, ports numbered so that branches of different
        // switches may share numbers), in a shuffled order.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut draw = |n: u64| rng.gen_range(0..n);
        for case in 0..200u64 {
            let mut paths: Vec<Vec<PortId>> = vec![vec![PortId(0)]];
            for _ in 0..5 {
                paths = paths
                    .into_iter()
                    .flat_map(|p| {
                        let ways = 1 + draw(5) as u32;
                        let base = draw(6) as u32;
                        (0..ways).map(move |w| [p.clone(), vec![PortId(base + w)]].concat())
                    })
                    .collect();
            }
            paths.truncate(1 + draw(300) as usize);
            for i in (1..paths.len()).rev() {
                paths.swap(i, draw(i as u64 + 1) as usize);
            }
            let entropies: Vec<u16> = (0..128).map(|_| draw(65_536) as u16).collect();
            let salt = |p: PortId| (p.0 as u64).wrapping_mul(0x9e37_79b9) ^ case;
            assert_eq!(entropy_paths(&paths, salt, case, &entropies), by_scan(&paths, salt, case, &entropies), "case {case}");
        }
        assert_eq!(entropy_paths(&[], |_| 0, 1, &[3, 4]), [0, 0], "no path: index 0, as before");
    }

    #[test]
    fn hashes_select_a_path_per_entropy_and_spread_over_all() {
        // Two up-links at the first switch (ports 1, 2), two at the next (3, 4 and 5, 6).
        let p = |v: &[u32]| v.iter().map(|&x| PortId(x)).collect::<Vec<_>>();
        let paths = vec![p(&[0, 1, 3, 9]), p(&[0, 1, 4, 9]), p(&[0, 2, 5, 9]), p(&[0, 2, 6, 9])];
        let entropies: Vec<u16> = (0..64).collect();
        let chosen = entropy_paths(&paths, |port| port.0 as u64 * 77, 5, &entropies);
        for i in 0..4 {
            assert!(chosen.contains(&i), "path {i} never chosen: {chosen:?}");
        }
        // The same entropy always selects the same path.
        assert_eq!(chosen, entropy_paths(&paths, |port| port.0 as u64 * 77, 5, &entropies));
        assert_eq!(entropy_paths(&paths[..1], |_| 0, 5, &[7]), [0]);
    }
}
