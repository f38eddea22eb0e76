//! AAL5 segmentation and reassembly (ITU-T I.363.5; RFC 2684 encapsulations).
//!
//! Segmentation: an IP datagram of L bytes becomes `ceil((L + E) / 48)` cells,
//! E being the encapsulation overhead (LLC/SNAP prefix, AAL5 trailer); the last
//! cell carries EOM (AUU = 1). Aron & Druschel's simulator added neither, so
//! their 9168-byte packet is exactly 191 cells ([`Encapsulation::Raw48`]).
//!
//! Reassembly is strict: cells of a VC are appended until an EOM; the PDU is
//! delivered only if no cell is missing. AAL5 has no per-cell sequence number,
//! so a lost EOM merges the rest of its frame with the next frame and the CRC
//! fails on both — two frames lost for one cell (Jain et al., "Tail drop").
//! The simulator decides "corrupt" from the cells' frame/index metadata; the
//! test `abstract_verdicts_match_byte_exact_crc` checks that a byte-exact AAL5
//! receiver (real trailer, real CRC-32) reaches the same verdicts.

use crate::net::Unit;
pub use crate::net::{CELL_BYTES, CELL_PAYLOAD};

pub const AAL5_TRAILER: u32 = 8;
pub const LLC_SNAP: u32 = 8;

/// How IP datagrams are put into AAL5 frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encapsulation {
    /// No trailer, no LLC; pad only to a whole cell (x-sim as read from
    /// Aron & Druschel §3).
    Raw48,
    /// AAL5 trailer, VC-multiplexed (null encapsulation, RFC 2684).
    #[serde(rename = "aal5-vcmux")]
    Aal5VcMux,
    /// AAL5 trailer with the 8-byte LLC/SNAP prefix (RFC 1483/2684, RFC 1577).
    Aal5Llc,
}

impl Encapsulation {
    pub fn overhead(self) -> u32 {
        match self {
            Encapsulation::Raw48 => 0,
            Encapsulation::Aal5VcMux => AAL5_TRAILER,
            Encapsulation::Aal5Llc => AAL5_TRAILER + LLC_SNAP,
        }
    }

    /// Cells needed for an IP datagram of `ip_len` bytes (at least one).
    pub fn cells(self, ip_len: u32) -> u32 {
        (ip_len + self.overhead()).div_ceil(CELL_PAYLOAD).max(1)
    }

    pub fn name(self) -> &'static str {
        match self {
            Encapsulation::Raw48 => "raw48",
            Encapsulation::Aal5VcMux => "aal5-vcmux",
            Encapsulation::Aal5Llc => "aal5-llc",
        }
    }
}

/// What the receiver's AAL5 does with an arriving cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The frame is still open.
    Pending,
    /// The EOM closed an intact frame: hand the segment up.
    Deliver,
    /// The EOM closed a damaged buffer holding cells of frames
    /// `first..=last` (more than one when an EOM was lost).
    Discard { first: u32, last: u32 },
}

/// Strict AAL5 reassembly state of one VC at the destination.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reassembler {
    open: bool,
    first: u32,
    last: u32,
    next_index: u16,
    corrupt: bool,
}

impl Reassembler {
    #[inline]
    pub fn on_cell(&mut self, c: &Unit) -> Verdict {
        if !self.open {
            self.open = true;
            self.first = c.frame;
            self.corrupt = c.index() != 0;
        } else if c.frame != self.last || c.index() != self.next_index {
            // A cell (possibly the previous frame's EOM) is missing.
            self.corrupt = true;
        }
        self.last = c.frame;
        self.next_index = c.index() + 1;
        if !c.is_eom() {
            return Verdict::Pending;
        }
        self.open = false;
        if self.corrupt {
            Verdict::Discard { first: self.first, last: self.last }
        } else {
            Verdict::Deliver
        }
    }

    /// The frames whose cells sit in the open buffer, if any.
    pub fn open_frames(&self) -> Option<(u32, u32)> {
        self.open.then_some((self.first, self.last))
    }
}

/// What the cell drops seen so far tell about one VC's receiver, for the
/// dead-cell count (docs/atm.md, A7): which frame is known to be lost.
///
/// A dropped cell dooms its own frame. A dropped EOM also dooms the next
/// frame, but only through a merge: strict reassembly (ITU-T I.363.5) keeps
/// appending cells until an EOM arrives, so the next frame fails its length
/// and CRC checks only if the receiver's buffer holds some cell when that
/// frame's first cell arrives. That holds if a cell of the frame that lost
/// its EOM is still on its way (it went past the port that dropped the EOM),
/// or if the buffer was already holding cells of earlier frames whose EOMs
/// were lost. A frame dropped whole (EPD, a scripted loss, a frame whose
/// first cells were dropped at one switch and its EOM at the next) leaves
/// nothing to merge with: the next frame reassembles.
///
/// Touched only when a cell is dropped: no allocation, no search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeWatch {
    /// The receiver's buffer is known to hold cells of frames `from..into`
    /// when `into`'s first cell arrives (`NO_FRAME`: no merge known).
    from: u32,
    into: u32,
    /// Frames of `from..into` that lost their EOM while some of their
    /// cells went on: the merge stands while one of them has a cell left.
    live: u32,
    /// A cell of `into` itself was dropped: it is doomed on its own account.
    into_hit: bool,
}

/// No frame (frames count from 0).
pub const NO_FRAME: u32 = u32::MAX;

impl Default for MergeWatch {
    fn default() -> Self {
        MergeWatch { from: NO_FRAME, into: NO_FRAME, live: 0, into_hit: false }
    }
}

impl MergeWatch {
    /// A cell of `frame` was dropped: `eom` if it was the frame's last cell,
    /// `gone` if no cell of the frame is left on its way to the receiver
    /// (every one of them dropped, here or at an earlier hop). `doomed` is
    /// the frame the VC's dead-cell count follows now; returns the one it
    /// follows from now on.
    #[inline]
    pub fn dropped(&mut self, frame: u32, eom: bool, gone: bool, doomed: u32) -> u32 {
        if eom && self.into == frame {
            // Earlier frames' cells wait in the buffer: this frame's cells,
            // if any, join them, and so will the next frame's.
            self.live += u32::from(!gone);
            self.into = frame + 1;
            self.into_hit = false;
            return frame + 1;
        }
        if eom && !gone {
            // Cells of this frame went on without their EOM.
            *self = MergeWatch { from: frame, into: frame + 1, live: 1, into_hit: false };
            return frame + 1;
        }
        if !gone {
            self.into_hit |= frame == self.into;
            return frame;
        }
        // No cell of `frame` is left: it dooms nothing more. If it is a frame
        // that lost its EOM upstream while these cells went on, the merge
        // loses them; with no frame's cells left to merge with, the next
        // frame is no longer doomed (unless it lost a cell itself).
        if !eom && self.from <= frame && frame < self.into {
            self.live -= 1;
            if self.live == 0 {
                let (into, hit) = (self.into, self.into_hit);
                *self = MergeWatch::default();
                if doomed == into && !hit {
                    return frame;
                }
            }
        }
        doomed
    }
}

/// CRC-32 as used by AAL5 (CRC-32/BZIP2: poly 0x04C11DB7, init and final
/// XOR 0xFFFFFFFF, MSB first). Used by byte-exact checks, not on the hot path.
pub fn crc32_aal5(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= (b as u32) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 { (crc << 1) ^ 0x04C1_1DB7 } else { crc << 1 };
        }
    }
    !crc
}

/// Builds a real AAL5 CPCS-PDU (SDU, pad, UU, CPI, length, CRC).
pub fn build_pdu(sdu: &[u8], uu: u8, cpi: u8) -> Vec<u8> {
    let payload = CELL_PAYLOAD as usize;
    let pad = (payload - (sdu.len() + 8) % payload) % payload;
    let mut pdu = Vec::with_capacity(sdu.len() + pad + 8);
    pdu.extend_from_slice(sdu);
    pdu.resize(sdu.len() + pad, 0);
    pdu.push(uu);
    pdu.push(cpi);
    pdu.extend_from_slice(&(sdu.len() as u16).to_be_bytes());
    let crc = crc32_aal5(&pdu);
    pdu.extend_from_slice(&crc.to_be_bytes());
    pdu
}

/// Byte-exact check of a reassembled buffer (strict reassembly: I.363.5 length and CRC-32 checks).
pub fn pdu_is_valid(buf: &[u8]) -> bool {
    let n = buf.len();
    if n < CELL_PAYLOAD as usize || !n.is_multiple_of(CELL_PAYLOAD as usize) {
        return false;
    }
    let len = u16::from_be_bytes([buf[n - 6], buf[n - 5]]) as usize;
    if len == 0 || len > n - 8 || n - 8 - len > 47 {
        return false;
    }
    let crc = u32::from_be_bytes([buf[n - 4], buf[n - 3], buf[n - 2], buf[n - 1]]);
    crc32_aal5(&buf[..n - 4]) == crc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cells_of(frame: u32, n: u16) -> Vec<Unit> {
        (0..n).map(|index| Unit::new(VcId(0), frame, index, n, 53)).collect()
    }

    #[test]
    fn cells_per_frame_and_padding() {
        // Cells per datagram: 8-byte trailer, padding to 48 (I.363.5); LLC/SNAP adds 8 (RFC 2684).
        assert_eq!(Encapsulation::Raw48.cells(9168), 191);
        assert_eq!(Encapsulation::Raw48.cells(40), 1);
        assert_eq!(Encapsulation::Aal5VcMux.cells(9168), 192);
        assert_eq!(Encapsulation::Aal5Llc.cells(40), 2);
        assert_eq!(Encapsulation::Aal5VcMux.cells(40), 1);
        assert_eq!(Encapsulation::Aal5Llc.cells(552), 12);
        assert_eq!(Encapsulation::Aal5Llc.cells(9180), 192);
        assert_eq!(Encapsulation::Aal5Llc.cells(4352), 91);
        // Padding: PDU is a multiple of 48 with 0..47 pad bytes.
        for len in [1usize, 40, 47, 48, 552, 9168] {
            let pdu = build_pdu(&vec![7u8; len], 0, 0);
            assert_eq!(pdu.len() % 48, 0);
            assert!(pdu.len() - len - 8 <= 47);
        }
    }

    #[test]
    fn crc_matches_i363_5_test_pdus() {
        assert_eq!(crc32_aal5(b"123456789"), 0xFC89_1918);
        let zeros = build_pdu(&[0u8; 40], 0, 0);
        assert_eq!(&zeros[44..], &0x864D_7F99u32.to_be_bytes());
        let ones = build_pdu(&[0xFFu8; 40], 0, 0);
        assert_eq!(&ones[44..], &0xC55E_457Au32.to_be_bytes());
        let seq: Vec<u8> = (1..=40).collect();
        assert_eq!(&build_pdu(&seq, 0, 0)[44..], &0xBF67_1ED0u32.to_be_bytes());
        assert_eq!(&build_pdu(&seq, 0x11, 0x22)[44..], &0xACBA_602Au32.to_be_bytes());
    }

    #[test]
    fn intact_frame_is_delivered_at_its_eom() {
        let mut r = Reassembler::default();
        let c = cells_of(0, 3);
        assert_eq!(r.on_cell(&c[0]), Verdict::Pending);
        assert_eq!(r.on_cell(&c[1]), Verdict::Pending);
        assert_eq!(r.on_cell(&c[2]), Verdict::Deliver);
        assert_eq!(r.open_frames(), None);
    }

    #[test]
    fn missing_middle_cell_loses_exactly_that_frame() {
        let mut r = Reassembler::default();
        let a = cells_of(0, 3);
        let b = cells_of(1, 2);
        r.on_cell(&a[0]);
        assert_eq!(r.on_cell(&a[2]), Verdict::Discard { first: 0, last: 0 });
        r.on_cell(&b[0]);
        assert_eq!(r.on_cell(&b[1]), Verdict::Deliver);
    }

    #[test]
    fn lost_eom_merges_two_frames() {
        let mut r = Reassembler::default();
        let a = cells_of(0, 3);
        let b = cells_of(1, 3);
        let c = cells_of(2, 1);
        r.on_cell(&a[0]);
        r.on_cell(&a[1]);
        // a[2] (EOM) lost.
        for x in &b[..2] {
            assert_eq!(r.on_cell(x), Verdict::Pending);
        }
        assert_eq!(r.on_cell(&b[2]), Verdict::Discard { first: 0, last: 1 });
        assert_eq!(r.on_cell(&c[0]), Verdict::Deliver);
    }

    /// Cells of frames of `sizes` cross `hops` ports in a pipeline (port h
    /// handles cell i at time i + (h − 1)·delay; at equal times the later
    /// port first if `later_first`); `fate[i]` is 0 if cell i passes every
    /// port, h if port h drops it. The drops go through a [`MergeWatch`] as
    /// in `World::unit_dropped`. Returns, per cell, whether the last port
    /// counted it dead; per frame, whether the receiver discarded it; per
    /// cell that arrived, whether it is dead by the definition (an earlier
    /// cell of its frame dropped, or the receiver's buffer holding cells of
    /// earlier frames when its frame's first surviving cell arrives).
    fn pipeline(sizes: &[u16], hops: u8, delay: usize, fate: &[u8], later_first: bool) -> (Vec<bool>, Vec<bool>, Vec<bool>) {
        let cells: Vec<Unit> = sizes.iter().enumerate().flat_map(|(f, &n)| cells_of(f as u32, n)).collect();
        let mut events: Vec<(usize, i32, u8, usize)> = Vec::new();
        for (i, &x) in fate.iter().enumerate() {
            for h in 1..=if x == 0 { hops } else { x } {
                events.push((i + (h as usize - 1) * delay, if later_first { -(h as i32) } else { h as i32 }, h, i));
            }
        }
        events.sort();
        let (mut watch, mut doomed) = (MergeWatch::default(), NO_FRAME);
        let mut dropped = vec![0u16; sizes.len()];
        let mut dead = vec![false; cells.len()];
        for (_, _, h, i) in events {
            let c = &cells[i];
            let f = c.frame as usize;
            if fate[i] == h {
                dropped[f] += 1;
                doomed = watch.dropped(c.frame, c.is_eom(), dropped[f] == sizes[f], doomed);
            } else if h == hops {
                dead[i] = doomed == c.frame;
            }
        }
        let mut r = Reassembler::default();
        let mut lost = vec![false; sizes.len()];
        let mut expected = vec![false; cells.len()];
        let mut merged = vec![false; sizes.len()];
        let mut seen = vec![false; sizes.len()];
        for (i, c) in cells.iter().enumerate() {
            let f = c.frame as usize;
            if fate[i] != 0 {
                continue;
            }
            if !seen[f] {
                seen[f] = true;
                merged[f] = r.open_frames().is_some();
            }
            let own = (0..i).any(|j| cells[j].frame == c.frame && fate[j] != 0);
            expected[i] = own || merged[f];
            if let Verdict::Discard { first, last } = r.on_cell(c) {
                for g in first..=last {
                    lost[g as usize] = true;
                }
            }
        }
        assert_eq!(r.open_frames(), None, "the last frame closes the buffer");
        (dead, lost, expected)
    }

    /// Every fate of every cell (pass, or dropped at one of the ports) over
    /// a few short frames, then a frame that gets through: a cell the last
    /// port counts dead belongs to a frame the receiver discards (a frame
    /// dropped whole, or whose cells before the EOM were all dropped at this
    /// or an earlier hop, merges nothing); with one port, the count is
    /// exactly the cells of frames known lost when they cross it.
    #[test]
    fn dead_cells_belong_to_frames_the_receiver_discards() {
        fn patterns(n: usize, hops: u8) -> impl Iterator<Item = Vec<u8>> {
            let k = hops as usize + 1;
            (0..k.pow(n as u32)).map(move |mut x| {
                (0..n)
                    .map(|_| {
                        let d = (x % k) as u8;
                        x /= k;
                        d
                    })
                    .collect()
            })
        }
        for (sizes, hops) in [(&[2u16, 1, 3, 2, 1][..], 1u8), (&[2, 1, 3, 2, 1], 2), (&[2, 1, 2, 1], 3)] {
            let n: usize = sizes[..sizes.len() - 1].iter().map(|&s| s as usize).sum();
            for mut fate in patterns(n, hops) {
                fate.push(0);
                for delay in [1, 2, 5] {
                    for later_first in [false, true] {
                        let (dead, lost, expected) = pipeline(sizes, hops, delay, &fate, later_first);
                        let frame = |i: usize| {
                            let mut k = i;
                            sizes
                                .iter()
                                .position(|&s| {
                                    if k < s as usize {
                                        true
                                    } else {
                                        k -= s as usize;
                                        false
                                    }
                                })
                                .unwrap()
                        };
                        for i in 0..dead.len() {
                            assert!(!dead[i] || lost[frame(i)], "hops {hops} delay {delay} fates {fate:?}: cell {i} dead, frame delivered");
                            if hops == 1 && fate[i] == 0 {
                                assert_eq!(dead[i], expected[i], "fates {fate:?}: cell {i}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The cases of issue 24, drop by drop: (frame, EOM?, no cell of the
    /// frame left?) and the frame the dead-cell count then follows.
    #[test]
    fn a_lost_eom_dooms_the_next_frame_only_if_cells_wait_to_merge() {
        let run = |drops: &[(u32, bool, bool)]| {
            let (mut w, mut doomed) = (MergeWatch::default(), NO_FRAME);
            drops
                .iter()
                .map(|&(f, eom, gone)| {
                    doomed = w.dropped(f, eom, gone, doomed);
                    doomed
                })
                .collect::<Vec<_>>()
        };
        // EPD refuses frame 4 (3 cells) whole: only frame 4 is doomed.
        assert_eq!(run(&[(4, false, false), (4, false, false), (4, true, true)]), [4, 4, 4]);
        // A one-cell frame refused whole leaves the count where it was.
        assert_eq!(run(&[(4, true, true)]), [NO_FRAME]);
        // Tail drop or PPD with a full buffer: frame 4's first cells went on,
        // its EOM is lost, frame 5 merges with them.
        assert_eq!(run(&[(4, true, false)]), [5]);
        // PPD: a middle cell lost, the rest discarded, the EOM kept: frame 4 only.
        assert_eq!(run(&[(4, false, false), (4, false, false)]), [4, 4]);
        // Frame 4's first cells dropped at switch 1, its EOM at switch 2:
        // nothing of frame 4 reaches the receiver, frame 5 is intact.
        assert_eq!(run(&[(4, false, false), (4, false, false), (4, true, true)]), [4, 4, 4]);
        // Frame 4 loses its EOM with cells gone on; frame 5 is refused whole
        // (EOM included): frame 6 merges with frame 4's cells.
        assert_eq!(run(&[(4, true, false), (5, false, false), (5, true, true)]), [5, 5, 6]);
        // Frame 4's EOM dropped at switch 1 while its first cell went on;
        // that cell is then dropped at switch 2: frame 5 is intact again.
        assert_eq!(run(&[(4, true, false), (4, false, true)]), [5, 4]);
        // ... unless frame 5 lost a cell of its own meanwhile.
        assert_eq!(run(&[(4, true, false), (5, false, false), (4, false, true)]), [5, 5, 5]);
        // Two frames lost their EOMs with cells gone on: the merge into
        // frame 6 stands while either frame has a cell left.
        assert_eq!(run(&[(4, true, false), (5, true, false), (4, false, true), (5, false, true)]), [5, 6, 6, 5]);
    }

    /// Every loss pattern of up to two cells over three short frames: the
    /// metadata verdicts equal those of a receiver that checks real AAL5
    /// trailers and CRCs.
    #[test]
    fn abstract_verdicts_match_byte_exact_crc() {
        let sdus: Vec<Vec<u8>> = vec![(0..100).collect(), (0..40).map(|x| x * 3).collect(), (0..200).map(|x| x as u8 ^ 0x5A).collect()];
        let pdus: Vec<Vec<u8>> = sdus.iter().map(|s| build_pdu(s, 0, 0)).collect();
        let mut all: Vec<(Unit, &[u8])> = Vec::new();
        for (f, pdu) in pdus.iter().enumerate() {
            let n = (pdu.len() / 48) as u16;
            for (i, u) in cells_of(f as u32, n).into_iter().enumerate() {
                all.push((u, &pdu[i * 48..(i + 1) * 48]));
            }
        }
        let n = all.len();
        for drop_a in 0..n {
            for drop_b in drop_a..n {
                let mut abs = Reassembler::default();
                let mut buf: Vec<u8> = Vec::new();
                let mut delivered_abs = Vec::new();
                let mut delivered_crc = Vec::new();
                for (k, (u, payload)) in all.iter().enumerate() {
                    if k == drop_a || k == drop_b {
                        continue;
                    }
                    if abs.on_cell(u) == Verdict::Deliver {
                        delivered_abs.push(u.frame);
                    }
                    buf.extend_from_slice(payload);
                    if u.is_eom() {
                        if pdu_is_valid(&buf) {
                            delivered_crc.push(u.frame);
                        }
                        buf.clear();
                    }
                }
                assert_eq!(delivered_abs, delivered_crc, "drops {drop_a},{drop_b}");
            }
        }
    }
}
