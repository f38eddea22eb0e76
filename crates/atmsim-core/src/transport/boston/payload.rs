//! Payload mode: the bytes a Boston segment carries, the pieces a
//! transmission sends, and the check of a rebuilt segment.
//!
//! The application's stream is a fixed pseudo-random byte sequence (a
//! function of flow and stream offset), so the receiver can tell whether the
//! segment it rebuilt from pieces is the one that was sent without the
//! sender keeping a copy.

use crate::atm::aal5::CELL_PAYLOAD;
use crate::coding::Dispersal;

/// Byte `offset` of flow `flow`'s application stream (splitmix64).
pub fn stream_byte(flow: u32, offset: u64) -> u8 {
    let mut z = offset.wrapping_add((flow as u64) << 48).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u8
}

/// The m·48 bytes a segment's cells carry: the IP packet's payload bytes
/// (TCP sequence numbers count from 1) after `header` header bytes, zero
/// padded; headers are zeros here (only the payload is checked).
pub fn segment_bytes(flow: u32, seq: u64, len: u32, header: u32, m: u16) -> Vec<u8> {
    let mut b = vec![0u8; m as usize * CELL_PAYLOAD as usize];
    for k in 0..len as usize {
        b[header as usize + k] = stream_byte(flow, seq - 1 + k as u64);
    }
    b
}

/// The pieces `first, first + 1, …` (modulo N), `count` of them, of a
/// segment's bytes, concatenated (48 bytes each).
pub fn pieces(d: &Dispersal, bytes: &[u8], first: u16, count: u16) -> Vec<u8> {
    let c = CELL_PAYLOAD as usize;
    let cells: Vec<&[u8]> = bytes.chunks(c).collect();
    let mut out = vec![0u8; count as usize * c];
    for k in 0..count as usize {
        let i = (first as usize + k) % d.pieces();
        d.encode_piece(i, &cells, &mut out[k * c..(k + 1) * c]).expect("pieces of a whole segment");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::MatrixKind;

    #[test]
    fn pieces_from_two_transmissions_rebuild_the_segment() {
        let (len, header, m) = (472u32, 40u32, 11u16);
        let d = Dispersal::new(MatrixKind::Vandermonde, 256, m as usize).unwrap();
        let seg = segment_bytes(3, 1001, len, header, m);
        assert_eq!(seg[40], stream_byte(3, 1000));
        // First transmission: pieces 0..11, of which 4 arrive; the
        // retransmission carries 7 fresh ones, 11..18.
        let first = pieces(&d, &seg, 0, 11);
        let second = pieces(&d, &seg, 11, 7);
        let mut got: Vec<(usize, &[u8])> = [1usize, 4, 5, 9].iter().map(|&i| (i, &first[i * 48..(i + 1) * 48])).collect();
        got.extend((0..7).map(|k| (11 + k, &second[k * 48..(k + 1) * 48])));
        assert_eq!(d.reconstruct(&got, seg.len()).unwrap(), seg);
    }
}
