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
#[derive(Debug, PartialEq, Eq)]
pub struct StageState {
    /// Per FE1, its next link up.
    pub fe1_next: Vec<u32>,
    /// Per (FE2, group), its next link down to that group.
    pub fe2_next: Vec<u32>,
    /// Per (FE2, FAP), its usable links down to an FE3 that reaches the FAP.
    pub fe2_reach: Vec<u32>,
    /// Per (FE1, FAP), its usable links up to an FE2 that reaches the FAP:
    /// a FAP sprays on its links to an FE1 only while this is above 0.
    pub fe1_reach: Vec<u32>,
}

impl StageState {
    pub fn new(g: &Geometry) -> StageState {
        match &g.spine {
            None => StageState { fe1_next: Vec::new(), fe2_next: Vec::new(), fe2_reach: Vec::new(), fe1_reach: Vec::new() },
            Some(s) => StageState {
                fe1_next: vec![0; s.fe13s as usize],
                fe2_next: vec![0; (s.fe2s * g.groups()) as usize],
                fe2_reach: vec![g.links_to_group(); (s.fe2s * g.faps) as usize],
                fe1_reach: vec![g.links_to_fe2s(); (s.fe13s * g.faps) as usize],
            },
        }
    }

    /// The reach counts again after a failure is detected, from the FE3s'
    /// reach per FAP (`reach`, per (FE3, FAP): its usable links down to it)
    /// and which links are usable: an FE2 reaches a FAP by a usable link
    /// down to an FE3 that does, an FE1 by a usable link up to an FE2 that
    /// does (the reachability Ramon's elements exchange, counted from the
    /// FAPs back to the FE1s).
    pub fn recount(&mut self, g: &Geometry, reach: &[u32], usable: impl Fn(u32) -> bool) {
        let s = g.spine();
        for fe2 in 0..s.fe2s {
            for dst in 0..g.faps {
                let n = (0..g.links_to_group())
                    .map(|j| g.down_to_group(fe2, g.group_of(dst), j))
                    .filter(|&(l, fe3)| usable(l) && reach[(fe3 * g.faps + dst) as usize] > 0);
                self.fe2_reach[(fe2 * g.faps + dst) as usize] = n.count() as u32;
            }
        }
        for fe1 in 0..s.fe13s {
            for dst in 0..g.faps {
                let n = (0..g.links_to_fe2s())
                    .filter(|&j| usable(g.up_to_fe2(fe1, j)) && self.fe2_reach[(j % s.fe2s * g.faps + dst) as usize] > 0);
                self.fe1_reach[(fe1 * g.faps + dst) as usize] = n.count() as u32;
            }
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
    fn reach_is_counted_back_from_the_faps_through_usable_links() {
        // 8 FAPs in 2 groups, 2 FE13s per group (4 links per FAP: 2 to each), 3 FE2s, 2 links each way.
        let g = Geometry::new(8, 2, 4, 1, 0, 0).three_stages(4, 3, 2, 0);
        let mut st = StageState::new(&g);
        let mut reach = vec![g.links_per_fe(); (g.fe_count() * g.faps) as usize];
        let all = |_| true;
        st.recount(&g, &reach, all);
        assert_eq!(st, StageState::new(&g), "nothing failed: every count full");
        // FE3 2 (group 1) loses its links down to FAP 5: each FE2 keeps its links to FE3 3.
        reach[(2 * 8 + 5) as usize] = 0;
        st.recount(&g, &reach, all);
        assert!((0..3).all(|fe2| st.fe2_reach[(fe2 * 8 + 5) as usize] == 2));
        assert!((0..4).all(|fe1| st.fe1_reach[(fe1 * 8 + 5) as usize] == 6));
        // And FE2 1's links down to FE3 3 fail: FE2 1 no longer reaches FAP 5, so every FE1 has 4 of its 6 links up left.
        let dead: Vec<u32> =
            (0..g.links_to_group()).map(|j| g.down_to_group(1, 1, j)).filter(|&(_, fe3)| fe3 == 3).map(|(l, _)| l).collect();
        st.recount(&g, &reach, |l| !dead.contains(&l));
        assert_eq!(st.fe2_reach[(8 + 5) as usize], 0);
        assert!((0..4).all(|fe1| st.fe1_reach[(fe1 * 8 + 5) as usize] == 4));
        // FAP 4 of the same group is reached as before through FE3 2, and FAP 0 of the other group by all.
        assert_eq!(st.fe2_reach[(8 + 4) as usize], 2);
        assert!((0..4).all(|fe1| st.fe1_reach[(fe1 * 8) as usize] == 6));
        // FE1 0's links up to FE2 0 fail too: it reaches FAP 5 by FE2 2's two links only.
        let up0: Vec<u32> = (0..g.links_to_fe2s()).map(|j| g.up_to_fe2(0, j)).filter(|&l| g.hop_after(l) == Hop::ToFe3(0)).collect();
        st.recount(&g, &reach, |l| !dead.contains(&l) && !up0.contains(&l));
        assert_eq!((st.fe1_reach[5], st.fe1_reach[8 + 5]), (2, 4));
    }

    #[test]
    fn one_stage_is_one_group_and_its_elements_send_straight_down() {
        let g = Geometry::new(4, 3, 6, 2, 50_000, 0);
        assert_eq!((g.groups(), g.fe_count(), g.link_count()), (1, 3, 48));
        assert_eq!(g.hop_after(g.up(2, 4)), Hop::ToFap(1));
    }
}
