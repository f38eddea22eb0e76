//! Three stages (Ramon's FE13 mode, docs/fabric.md "Three stages"): FAP →
//! FE1 → FE2 → FE3 → FAP, as plain arithmetic on ids. The FAPs fall into
//! groups of `group_faps`; each group has its own `fes` FE13 devices, which
//! act as stage 1 for the cells their FAPs send and as stage 3 for the
//! cells to them. Every FE13 has `fe2_links` links to each of the `fe2s`
//! FE2s. The FAP links keep the ids of `geometry.rs` (their FE13 is
//! group·fes + i mod fes); the FE2 links follow them, from `base` =
//! 2·faps·links:
//!
//! - up: FE13 e's k-th link to FE2 s, FE1 → FE2, id base + (e·fe2s + s)·fe2_links + k;
//! - down: the same link FE2 → FE3, id base + one_way + (e·fe2s + s)·fe2_links + k.
//!
//! `StageState` holds the inner hops' round-robin pointers and reach counts
//! (used by `world/fabric_stages.rs`).

use super::Geometry;
use crate::time::Time;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spine {
    pub fe2s: u32,
    /// Links between each FE13 and each FE2.
    pub fe2_links: u32,
    /// FE13 devices in all (groups × fes).
    pub fe13s: u32,
    /// Id of the first FE2 link.
    pub base: u32,
    /// One-way delay of every FE2 link.
    pub delay: Time,
}

impl Spine {
    /// FE2 links of one direction.
    pub fn links_one_way(&self) -> u32 {
        self.fe13s * self.fe2s * self.fe2_links
    }
}

/// Where the element at the far end of a link into the fabric sends a cell next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Down to the cell's FAP, from this FE (FE3 in three stages).
    ToFap(u32),
    /// Up to an FE2, from this FE1.
    ToFe2(u32),
    /// Down to an FE3 of the cell's group, from this FE2.
    ToFe3(u32),
}

impl Geometry {
    /// This single stage made the first and third of three: groups of
    /// `group_faps` FAPs (a divisor of `faps`), `fe2s` FE2s, `fe2_links`
    /// links between each FE13 and each FE2, each of one-way `delay`.
    pub fn three_stages(mut self, group_faps: u32, fe2s: u32, fe2_links: u32, delay: Time) -> Geometry {
        self.group_faps = group_faps;
        let fe13s = self.fe_count();
        self.spine = Some(Spine { fe2s, fe2_links, fe13s, base: 2 * self.faps * self.links, delay });
        self
    }

    fn spine(&self) -> &Spine {
        self.spine.as_ref().expect("three stages")
    }

    pub fn groups(&self) -> u32 {
        self.faps / self.group_faps
    }

    pub fn group_of(&self, fap: u32) -> u32 {
        fap / self.group_faps
    }

    /// What the element a link leads to does with a cell that came by it
    /// (any link but a FAP's link from the fabric).
    pub fn hop_after(&self, link: u32) -> Hop {
        let Some(s) = &self.spine else { return Hop::ToFap(self.fe_of(link)) };
        if link < s.base {
            return Hop::ToFe2(self.fe_of(link));
        }
        let r = link - s.base;
        if r < s.links_one_way() {
            Hop::ToFe3(r / s.fe2_links % s.fe2s)
        } else {
            Hop::ToFap((r - s.links_one_way()) / s.fe2_links / s.fe2s)
        }
    }

    /// Links from an FE1 up to the FE2s.
    pub fn links_to_fe2s(&self) -> u32 {
        let s = self.spine();
        s.fe2s * s.fe2_links
    }

    /// FE1 `fe1`'s j-th link up (j < links_to_fe2s): consecutive j alternate FE2s.
    pub fn up_to_fe2(&self, fe1: u32, j: u32) -> u32 {
        let s = self.spine();
        s.base + (fe1 * s.fe2s + j % s.fe2s) * s.fe2_links + j / s.fe2s
    }

    /// Links from an FE2 down to one group's FE3s.
    pub fn links_to_group(&self) -> u32 {
        self.fes * self.spine().fe2_links
    }

    /// FE2 `fe2`'s j-th link down to group `group` (j < links_to_group),
    /// and the FE3 it reaches: consecutive j alternate FE3s.
    pub fn down_to_group(&self, fe2: u32, group: u32, j: u32) -> (u32, u32) {
        let s = self.spine();
        let fe3 = group * self.fes + j % self.fes;
        (s.base + s.links_one_way() + (fe3 * s.fe2s + fe2) * s.fe2_links + j / self.fes, fe3)
    }
}

/// The round-robin pointers and reach counts of the inner hops (empty in one stage).
pub struct StageState {
    /// Per FE1, its next link up.
    pub fe1_next: Vec<u32>,
    /// Per (FE2, group), its next link down to that group.
    pub fe2_next: Vec<u32>,
    /// Per FAP, the FE3s of its group with a usable link down to it.
    pub fe3s_reaching: Vec<u32>,
}

impl StageState {
    pub fn new(g: &Geometry) -> StageState {
        match &g.spine {
            None => StageState { fe1_next: Vec::new(), fe2_next: Vec::new(), fe3s_reaching: Vec::new() },
            Some(s) => StageState {
                fe1_next: vec![0; s.fe13s as usize],
                fe2_next: vec![0; (s.fe2s * g.groups()) as usize],
                fe3s_reaching: vec![g.fes; g.faps as usize],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_fe2_reaches_every_fe3_and_every_link_maps_back() {
        // 8 FAPs in 2 groups of 4, 2 FE13s per group, 4 links per FAP,
        // 3 FE2s with 2 links to each FE13.
        let g = Geometry::new(8, 2, 4, 1, 50_000, 0).three_stages(4, 3, 2, 70_000);
        let s = g.spine.clone().unwrap();
        assert_eq!((g.groups(), g.fe_count(), s.fe13s, s.base, s.links_one_way()), (2, 4, 4, 64, 24));
        assert_eq!(g.link_count(), 64 + 48);
        // FAP links: FAP 5 (group 1) link 3 joins FE13 1·2 + 3 mod 2 = 3.
        assert_eq!(g.fe_of(g.up(5, 3)), 3);
        assert_eq!(g.hop_after(g.up(5, 3)), Hop::ToFe2(3));
        assert_eq!(g.down_from_fe(3, 5, 1), g.down(5, 3));
        assert!(g.to_fap(g.down(5, 3)) && !g.to_fap(g.up(5, 3)));
        let mut all = BTreeSet::new();
        for fe1 in 0..4 {
            let ups: Vec<u32> = (0..g.links_to_fe2s()).map(|j| g.up_to_fe2(fe1, j)).collect();
            // Consecutive links alternate FE2s.
            let fe2s: Vec<Hop> = ups.iter().map(|&l| g.hop_after(l)).collect();
            assert_eq!(fe2s, [0, 1, 2, 0, 1, 2].map(Hop::ToFe3));
            all.extend(ups);
        }
        for fe2 in 0..3 {
            for group in 0..2 {
                let mut fe3s = Vec::new();
                for j in 0..g.links_to_group() {
                    let (link, fe3) = g.down_to_group(fe2, group, j);
                    assert_eq!(g.hop_after(link), Hop::ToFap(fe3));
                    assert!(!g.to_fap(link) && !g.is_up(link) && g.delay(link) == 70_000);
                    fe3s.push(fe3);
                    all.insert(link);
                }
                let first = group * 2;
                assert_eq!(fe3s, vec![first, first + 1, first, first + 1]);
            }
        }
        // Every FE2 link of both directions, each once, and nothing beyond.
        assert_eq!(all.len(), 48);
        assert_eq!((*all.first().unwrap(), *all.last().unwrap()), (64, 111));
    }

    #[test]
    fn one_stage_is_one_group_and_its_elements_send_straight_down() {
        let g = Geometry::new(4, 3, 6, 2, 50_000, 0);
        assert_eq!((g.groups(), g.fe_count(), g.link_count()), (1, 3, 48));
        assert_eq!(g.hop_after(g.up(2, 4)), Hop::ToFap(1));
    }
}
