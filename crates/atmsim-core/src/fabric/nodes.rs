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

/// The device at the far end of `link`: the FE (FE1) a FAP's link up
/// reaches, the FAP a link down reaches, the FE2 an FE1's link up reaches,
/// the FE3 an FE2's link down reaches.
pub fn receiver(g: &Geometry, link: u32) -> u32 {
    if g.is_up(link) {
        return g.faps + g.fe_of(link);
    }
    if g.to_fap(link) {
        return g.fap_and_index(link).0;
    }
    let s = g.spine.as_ref().expect("a link past the FAP links is an FE2 link");
    let r = link - s.base;
    if r < s.links_one_way() {
        g.faps + g.fe_count() + r / s.fe2_links % s.fe2s
    } else {
        g.faps + (r - s.links_one_way()) / (s.fe2s * s.fe2_links)
    }
}

/// Every link direction into or out of the device numbered `node`.
pub fn links_of(g: &Geometry, node: u32) -> Vec<u32> {
    (0..g.link_count() as u32).filter(|&l| sender(g, l) == node || receiver(g, l) == node).collect()
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
    fn each_link_joins_two_devices_of_neighbouring_stages_and_its_reverse_joins_them_back() {
        let g = Geometry::new(8, 2, 4, 1, 0, 0).three_stages(4, 3, 2, 0);
        let (faps, fes) = (8, 8 + g.fe_count());
        let half = g.faps * g.links;
        for l in 0..g.link_count() as u32 {
            let (from, to) = (sender(&g, l), receiver(&g, l));
            // FAP -> FE13 -> FE2 -> FE13 -> FAP: exactly one end is an FE13.
            assert!((from < faps) as u8 + (to < faps) as u8 <= 1 && (from >= fes) as u8 + (to >= fes) as u8 <= 1, "link {l}");
            let reverse = if l < 2 * half {
                (l + half) % (2 * half)
            } else {
                g.spine.as_ref().map(|s| s.base + (l - s.base + s.links_one_way()) % (2 * s.links_one_way())).unwrap()
            };
            assert_eq!((sender(&g, reverse), receiver(&g, reverse)), (to, from), "link {l}");
        }
        // A whole FE2: 4 FE13s x 2 links, both ways; a FAP: its 4 links both ways.
        assert_eq!(links_of(&g, fes).len(), 16);
        assert_eq!(
            links_of(&g, 3),
            [g.up(3, 0), g.up(3, 1), g.up(3, 2), g.up(3, 3), g.down(3, 0), g.down(3, 1), g.down(3, 2), g.down(3, 3)]
        );
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
