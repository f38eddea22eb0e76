//! The fabric's devices in one numbering, for the fabric trace: the FAPs
//! first, then the fabric elements facing them (FE13s in three stages),
//! then the FE2s; and which device transmits on each link, so that a
//! link's queue counts in the buffer of the device that holds it.

use super::Geometry;

/// Devices of the fabric: FAPs, FEs (FE13s), FE2s.
pub fn count(g: &Geometry) -> u32 {
    g.faps + g.fe_count() + g.spine.as_ref().map_or(0, |s| s.fe2s)
}

/// Each device's name in numbering order: `fap3`, `fe5` (an FE13 in three
/// stages), `fe2_7`.
pub fn names(g: &Geometry) -> Vec<String> {
    let faps = (0..g.faps).map(|i| format!("fap{i}"));
    let fes = (0..g.fe_count()).map(|i| format!("fe{i}"));
    let fe2s = (0..g.spine.as_ref().map_or(0, |s| s.fe2s)).map(|i| format!("fe2_{i}"));
    faps.chain(fes).chain(fe2s).collect()
}

/// The device whose transmitter sends on `link`: a FAP for its links into
/// the fabric, the FE (FE3) for a link down to a FAP, the FE1 for a link up
/// to an FE2, the FE2 for a link down to an FE3.
pub fn sender(g: &Geometry, link: u32) -> u32 {
    if g.is_up(link) {
        return g.fap_and_index(link).0;
    }
    if g.to_fap(link) {
        return g.faps + g.fe_of(link);
    }
    let s = g.spine.as_ref().expect("a link past the FAP links is an FE2 link");
    let r = link - s.base;
    if r < s.links_one_way() {
        // Up: (fe1 · fe2s + fe2) · fe2_links + k (`Geometry::up_to_fe2`).
        g.faps + r / (s.fe2s * s.fe2_links)
    } else {
        // Down: (fe3 · fe2s + fe2) · fe2_links + k (`Geometry::down_to_group`).
        g.faps + g.fe_count() + (r - s.links_one_way()) / s.fe2_links % s.fe2s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::stages::Hop;

    #[test]
    fn one_stage_links_are_sent_by_their_fap_or_fe() {
        let g = Geometry::new(4, 2, 4, 1, 0, 0);
        assert_eq!(count(&g), 6);
        assert_eq!(names(&g), ["fap0", "fap1", "fap2", "fap3", "fe0", "fe1"]);
        for fap in 0..4 {
            for i in 0..4 {
                assert_eq!(sender(&g, g.up(fap, i)), fap);
                // FAP link i joins FE i mod fes (R1), which sends down it.
                assert_eq!(sender(&g, g.down(fap, i)), 4 + i % 2);
            }
        }
    }

    #[test]
    fn three_stage_links_are_sent_by_the_element_that_forwards_onto_them() {
        let g = Geometry::new(8, 2, 4, 1, 0, 0).three_stages(4, 3, 2, 0);
        assert_eq!(count(&g), 8 + 4 + 3);
        assert_eq!(names(&g).last().map(String::as_str), Some("fe2_2"));
        for fe1 in 0..g.fe_count() {
            for j in 0..g.links_to_fe2s() {
                let up = g.up_to_fe2(fe1, j);
                assert_eq!(sender(&g, up), 8 + fe1);
                // The link leads to an FE2 whose links down are sent by it.
                let Hop::ToFe3(fe2) = g.hop_after(up) else { panic!("an up link leads to an FE2") };
                for group in 0..g.groups() {
                    for k in 0..g.links_to_group() {
                        let (down, _) = g.down_to_group(fe2, group, k);
                        assert_eq!(sender(&g, down), 8 + 4 + fe2);
                    }
                }
            }
        }
    }
}
