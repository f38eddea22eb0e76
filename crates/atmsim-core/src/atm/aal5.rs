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

pub const CELL_BYTES: u32 = 53;
pub const CELL_PAYLOAD: u32 = 48;
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
    let pad = (48 - (sdu.len() + 8) % 48) % 48;
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
    if n < 48 || n % 48 != 0 {
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
        (0..n)
            .map(|index| Unit::new(VcId(0), frame, index, n, 53))
            .collect()
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
