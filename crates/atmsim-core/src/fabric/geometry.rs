//! Which fabric link joins which FAP to which fabric element (FE), as plain
//! arithmetic on ids. A single-stage fabric (Ramon's "FE2" mode): each of
//! the `faps` FAPs has `links` fabric links, link i going to FE i mod
//! `fes`, so each FAP has `links / fes` links to every FE and consecutive
//! links alternate FEs. Each physical link has two directions:
//!
//! - up: FAP f's link i, FAP → FE, id f·links + i;
//! - down: the same link FE → FAP, id faps·links + f·links + i.
//!
//! Host-facing ports: FAP f serves egress ports f·ports .. (f + 1)·ports,
//! one host each.
//!
//! Three stages (`spine`, `stages.rs`): the FAPs fall into groups of
//! `group_faps`, each with its own `fes` FE13 devices (global FE id
//! group·fes + i mod fes), joined through FE2s; the links above keep their
//! ids and the FE2 links follow them. One stage is one group of all FAPs.

use crate::time::Time;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub faps: u32,
    pub fes: u32,
    /// Fabric links per FAP (a multiple of `fes`).
    pub links: u32,
    /// Host-facing ports per FAP.
    pub ports: u32,
    /// One-way delay of FAP link i, both directions (`link_delay` plus its
    /// share of `link_skew`).
    pub delays: Vec<Time>,
    /// Traffic classes per egress port: a VOQ per (source FAP, port, class).
    pub tcs: u32,
    /// FAPs per group of FEs (all of them in one stage).
    pub group_faps: u32,
    /// The FE2 stage of a three-stage fabric.
    pub spine: Option<super::stages::Spine>,
}

impl Geometry {
    /// Link i's delay: `delay` + `skew`·i/(links − 1), rounded down, so the
    /// delays spread evenly over 0 … skew.
    pub fn new(faps: u32, fes: u32, links: u32, ports: u32, delay: Time, skew: Time) -> Geometry {
        let delays = (0..links as u64).map(|i| delay + if links > 1 { skew * i / (links as u64 - 1) } else { 0 }).collect();
        Geometry { faps, fes, links, ports, delays, tcs: 1, group_faps: faps, spine: None }
    }

    /// Links of both directions.
    pub fn link_count(&self) -> usize {
        2 * (self.faps * self.links) as usize + self.spine.as_ref().map_or(0, |s| 2 * s.links_one_way() as usize)
    }

    pub fn up(&self, fap: u32, i: u32) -> u32 {
        fap * self.links + i
    }

    pub fn down(&self, fap: u32, i: u32) -> u32 {
        self.faps * self.links + fap * self.links + i
    }

    pub fn is_up(&self, link: u32) -> bool {
        link < self.faps * self.links
    }

    /// (FAP, index at the FAP) of a link of either direction.
    pub fn fap_and_index(&self, link: u32) -> (u32, u32) {
        let l = link % (self.faps * self.links);
        (l / self.links, l % self.links)
    }

    /// A FAP link down from the fabric (FE to FAP).
    pub fn to_fap(&self, link: u32) -> bool {
        (self.faps * self.links..2 * self.faps * self.links).contains(&link)
    }

    /// The FE (FE13 in three stages) a FAP link joins.
    pub fn fe_of(&self, link: u32) -> u32 {
        let (fap, i) = self.fap_and_index(link);
        fap / self.group_faps * self.fes + i % self.fes
    }

    /// FEs facing the FAPs (FE13s in three stages).
    pub fn fe_count(&self) -> u32 {
        self.faps / self.group_faps * self.fes
    }

    pub fn delay(&self, link: u32) -> Time {
        match &self.spine {
            Some(s) if link >= 2 * self.faps * self.links => s.delay,
            _ => self.delays[self.fap_and_index(link).1 as usize],
        }
    }

    /// Links per FAP to each FE.
    pub fn links_per_fe(&self) -> u32 {
        self.links / self.fes
    }

    /// The k-th down link from FE `fe` (global id, of `fap`'s group) to FAP
    /// `fap` (k < links_per_fe).
    pub fn down_from_fe(&self, fe: u32, fap: u32, k: u32) -> u32 {
        self.down(fap, fe % self.fes + k * self.fes)
    }

    /// The FAP of an egress port.
    pub fn fap_of_port(&self, port: u32) -> u32 {
        port / self.ports
    }

    pub fn port_count(&self) -> u32 {
        self.faps * self.ports
    }

    /// The VOQ (and reassembly stream) of (source FAP, egress port).
    pub fn voq(&self, src_fap: u32, port: u32, tc: u32) -> u32 {
        (src_fap * self.port_count() + port) * self.tcs + tc
    }

    /// (source FAP, egress port) of a VOQ.
    pub fn voq_ends(&self, voq: u32) -> (u32, u32) {
        let pair = voq / self.tcs;
        (pair / self.port_count(), pair % self.port_count())
    }

    /// The traffic class of a VOQ.
    pub fn voq_tc(&self, voq: u32) -> u32 {
        voq % self.tcs
    }

    /// VOQs of the whole fabric (and reassembly streams).
    pub fn voq_count(&self) -> u32 {
        self.faps * self.port_count() * self.tcs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_alternate_elements_and_directions_pair_up() {
        let g = Geometry::new(4, 3, 6, 2, 50_000, 5_000);
        assert_eq!(g.link_count(), 48);
        for fap in 0..4 {
            for i in 0..6 {
                let (up, down) = (g.up(fap, i), g.down(fap, i));
                assert!(g.is_up(up) && !g.is_up(down));
                assert_eq!(g.fap_and_index(up), (fap, i));
                assert_eq!(g.fap_and_index(down), (fap, i));
                assert_eq!(g.fe_of(up), i % 3);
                assert_eq!(g.fe_of(up), g.fe_of(down));
                assert_eq!(g.delay(up), g.delay(down));
            }
            // Every FE reaches every FAP over links_per_fe down links, all distinct.
            let mut seen = std::collections::BTreeSet::new();
            for fe in 0..3 {
                for k in 0..g.links_per_fe() {
                    let l = g.down_from_fe(fe, fap, k);
                    assert_eq!((g.fap_and_index(l).0, g.fe_of(l)), (fap, fe));
                    seen.insert(l);
                }
            }
            assert_eq!(seen.len(), 6);
        }
        // Skew spreads the delays evenly from 0 to the skew.
        assert_eq!(g.delays, vec![50_000, 51_000, 52_000, 53_000, 54_000, 55_000]);
        assert_eq!(g.voq_ends(g.voq(3, 5, 0)), (3, 5));
        let g = Geometry { tcs: 3, ..g };
        let v = g.voq(3, 5, 2);
        assert_eq!((g.voq_ends(v), g.voq_tc(v)), ((3, 5), 2));
        assert_eq!(g.voq_count(), 4 * 8 * 3, "FAPs × ports × classes");
        assert_eq!(g.fap_of_port(5), 2);
    }
}
