//! The segmenter: bytes into variable-size cells (DNX's VSC256: at most
//! `payload` bytes each, every cell paying `header` bytes on the wire).
//! Without packing a packet of L bytes is ⌈L/P⌉ cells, the last carrying
//! what is left; with continuous packet-cell packing the packets dequeued
//! together are cut as one stream, so only the run's last cell is short
//! (docs/fabric.md R2). The caller chooses the run: one packet, or every
//! packet a credit released.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segmenter {
    pub payload: u32,
    pub header: u32,
}

impl Segmenter {
    /// Cells of a run of `bytes`: (cells, payload of the last).
    pub fn cells_of(&self, bytes: u64) -> (u64, u32) {
        let p = self.payload as u64;
        let cells = bytes.div_ceil(p);
        (cells, (bytes - (cells.saturating_sub(1)) * p) as u32)
    }

    /// Calls `emit` with each cell's payload, in order.
    pub fn cut(&self, bytes: u64, mut emit: impl FnMut(u16)) {
        let (cells, last) = self.cells_of(bytes);
        for _ in 1..cells {
            emit(self.payload as u16);
        }
        if cells > 0 {
            emit(last as u16);
        }
    }

    /// Wire bytes of a run of `bytes`.
    pub fn wire_bytes(&self, bytes: u64) -> u64 {
        bytes + self.cells_of(bytes).0 * self.header as u64
    }

    /// The fabric efficiency E(L) = L / (L + h·⌈L/P⌉) of packets of L bytes
    /// without packing (docs/fabric.md, F1).
    pub fn efficiency(&self, len: u64) -> f64 {
        len as f64 / self.wire_bytes(len) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VSC256: Segmenter = Segmenter { payload: 256, header: 16 };

    #[test]
    fn packets_cut_into_full_cells_and_a_short_last() {
        for (len, cells, last) in [(1, 1, 1), (64, 1, 64), (256, 1, 256), (257, 2, 1), (1500, 6, 220), (4150, 17, 54), (9000, 36, 40)] {
            assert_eq!(VSC256.cells_of(len), (cells, last), "{len}");
            let mut sizes = Vec::new();
            VSC256.cut(len, |s| sizes.push(s as u64));
            assert_eq!(sizes.len() as u64, cells);
            assert_eq!(sizes.iter().sum::<u64>(), len);
            assert!(sizes[..sizes.len() - 1].iter().all(|&s| s == 256));
        }
        assert_eq!(VSC256.cells_of(0), (0, 0));
    }

    #[test]
    fn efficiency_is_the_closed_form_of_the_cell_tax() {
        // docs/fabric.md F1's examples, to three places.
        for (len, e) in [(64, 0.800), (256, 0.941), (257, 0.889), (1500, 0.940), (4150, 0.938), (9000, 0.940)] {
            assert!((VSC256.efficiency(len) - e).abs() < 5e-4, "E({len}) = {}", VSC256.efficiency(len));
        }
        // Packed, a long run tends to P/(P + h).
        let run = 1_000 * 4150;
        assert!((run as f64 / VSC256.wire_bytes(run) as f64 - 256.0 / 272.0).abs() < 272.0 / run as f64);
    }
}
