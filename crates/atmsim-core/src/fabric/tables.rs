//! The geometry's answers that every cell asks, computed once when the
//! fabric is built: what the far end of each link is, the fabric element a
//! FAP's link joins, where each element's links down lie among a FAP's
//! links, and the egress port of each VOQ. `geometry.rs` answers them by division and remainder
//! on ids (a few tens of cycles each on this machine's processors, several
//! per cell-hop); a table answers by one load (issue 36, docs/performance.md).

use super::stages::Hop;
use super::Geometry;

/// What the device at the far end of a link does with a cell that arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarEnd {
    /// A FAP takes it (reassembly, or a control cell's work).
    Fap,
    /// A fabric element passes it on.
    Element(Hop),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tables {
    /// Per link, its far end.
    pub far: Vec<FarEnd>,
    /// Per link up from a FAP (ids below `faps · links`), the FE it joins.
    pub fe_of_up: Vec<u32>,
    /// Per FE, its place among the FEs of its group (`fe mod fes`): its
    /// k-th link down to FAP f is f's link `fe_local + k · fes` (R1).
    pub fe_local: Vec<u32>,
    /// Per VOQ, its egress port.
    pub voq_port: Vec<u32>,
    /// Each FE's links down to one FAP (a division every cell-hop otherwise).
    pub links_per_fe: u32,
}

impl Tables {
    pub fn new(g: &Geometry) -> Tables {
        let far = (0..g.link_count() as u32).map(|l| if g.to_fap(l) { FarEnd::Fap } else { FarEnd::Element(g.hop_after(l)) }).collect();
        let fe_of_up = (0..g.faps * g.links).map(|l| g.fe_of(l)).collect();
        let fe_local = (0..g.fe_count()).map(|fe| fe % g.fes).collect();
        let voq_port = (0..g.voq_count()).map(|v| g.voq_ends(v).1).collect();
        Tables { far, fe_of_up, fe_local, voq_port, links_per_fe: g.links_per_fe() }
    }

    /// FE `fe`'s k-th link down to FAP `fap` (`Geometry::down_from_fe`).
    #[inline]
    pub fn down_from_fe(&self, g: &Geometry, fe: u32, fap: u32, k: u32) -> u32 {
        g.down(fap, self.fe_local[fe as usize] + k * g.fes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table entry is what the geometry's arithmetic answers, in one
    /// stage and in three, with several classes.
    #[test]
    fn tables_answer_as_the_geometry_does() {
        let one = Geometry { tcs: 3, ..Geometry::new(4, 3, 6, 2, 50_000, 5_000) };
        let three = Geometry::new(8, 2, 4, 2, 50_000, 0).three_stages(4, 3, 2, 100_000);
        for g in [one, three] {
            let t = Tables::new(&g);
            assert_eq!(t.far.len(), g.link_count());
            for l in 0..g.link_count() as u32 {
                let want = if g.to_fap(l) { FarEnd::Fap } else { FarEnd::Element(g.hop_after(l)) };
                assert_eq!(t.far[l as usize], want, "link {l}");
                if g.is_up(l) {
                    assert_eq!(t.fe_of_up[l as usize], g.fe_of(l));
                }
            }
            let n = g.links_per_fe();
            for fe in 0..g.fe_count() {
                for fap in 0..g.faps {
                    for k in 0..n {
                        assert_eq!(t.down_from_fe(&g, fe, fap, k), g.down_from_fe(fe, fap, k));
                    }
                }
            }
            assert_eq!(t.links_per_fe, g.links_per_fe());
            for v in 0..g.voq_count() {
                assert_eq!(t.voq_port[v as usize], g.voq_ends(v).1);
            }
        }
    }
}
