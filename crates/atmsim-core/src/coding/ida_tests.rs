//! Tests of the IDA codec: the worked example, every m-subset of a small
//! matrix, random erasure patterns (property tests), and a cross-check
//! against the `reed-solomon-erasure` crate (an independent GF(2^8)
//! implementation with the same field and Vandermonde points).

use super::*;
use crate::coding::gf256;
use proptest::prelude::*;

fn cells_of(data: &[u8], cell: usize) -> Vec<&[u8]> {
    data.chunks(cell).collect()
}

#[test]
fn worked_example_vandermonde_n5_m3() {
    // Points 0..4, 4-byte cells; the pieces and the inverse of rows {1, 3, 4}
    // were computed bit-serially, independently of this code.
    let d = Dispersal::new(MatrixKind::Vandermonde, 5, 3).unwrap();
    assert_eq!(d.row(3), &[1, 3, 5]);
    assert_eq!(d.row(4), &[1, 4, 16]);
    let data = [0x01, 0x02, 0x03, 0x04, 0x10, 0x20, 0x30, 0x40, 0xAA, 0xBB, 0xCC, 0xDD];
    let pieces = d.disperse(&data, 4, &[0, 1, 2, 3, 4]).unwrap();
    let hex: Vec<u32> = pieces.iter().map(|p| u32::from_be_bytes([p[0], p[1], p[2], p[3]])).collect();
    assert_eq!(hex, vec![0x01020304, 0xbb99ff99, 0xb39474d7, 0x090f884a, 0x33fd9f48]);
    assert_eq!(d.decoder(&[1, 3, 4]).unwrap(), vec![245, 105, 157, 41, 52, 29, 221, 93, 128]);
    let got = d.reconstruct(&[(4, &pieces[4]), (1, &pieces[1]), (3, &pieces[3])], 12).unwrap();
    assert_eq!(got, data);
}

#[test]
fn every_m_subset_rebuilds_the_segment() {
    for kind in [MatrixKind::Vandermonde, MatrixKind::Cauchy] {
        let (n, m, cell) = (8, 4, 48);
        let d = Dispersal::new(kind, n, m).unwrap();
        let data: Vec<u8> = (0..m * cell - 5).map(|k| (k * 37 + 11) as u8).collect();
        let all: Vec<usize> = (0..n).collect();
        let pieces = d.disperse(&data, cell, &all).unwrap();
        let mut subsets = 0;
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != m {
                continue;
            }
            subsets += 1;
            let chosen: Vec<(usize, &[u8])> = (0..n).filter(|i| mask >> i & 1 == 1).map(|i| (i, &pieces[i][..])).collect();
            assert_eq!(d.reconstruct(&chosen, data.len()).unwrap(), data, "{kind:?} subset {mask:#b}");
        }
        assert_eq!(subsets, 70);
    }
}

#[test]
fn fewer_than_m_distinct_pieces_cannot_rebuild() {
    let d = Dispersal::new(MatrixKind::Vandermonde, 6, 3).unwrap();
    let data = vec![7u8; 100];
    let p = d.disperse(&data, 48, &[0, 2, 5]).unwrap();
    // A duplicate adds nothing.
    let err = d.reconstruct(&[(0, &p[0]), (2, &p[1]), (2, &p[1])], 100).unwrap_err();
    assert_eq!(err, IdaError::TooFewPieces { have: 2, need: 3 });
    assert_eq!(d.reconstruct(&[(0, &p[0]), (2, &p[1]), (5, &p[2])], 100).unwrap(), data);
}

#[test]
fn parameters_outside_the_field_are_refused() {
    assert!(Dispersal::new(MatrixKind::Vandermonde, 256, 192).is_ok());
    assert_eq!(Dispersal::new(MatrixKind::Vandermonde, 257, 3), Err(IdaError::Parameters { n: 257, m: 3 }));
    assert_eq!(Dispersal::new(MatrixKind::Vandermonde, 4, 5), Err(IdaError::Parameters { n: 4, m: 5 }));
    assert_eq!(Dispersal::new(MatrixKind::Vandermonde, 4, 0), Err(IdaError::Parameters { n: 4, m: 0 }));
    assert!(Dispersal::new(MatrixKind::Cauchy, 200, 56).is_ok());
    assert!(Dispersal::new(MatrixKind::Cauchy, 200, 57).is_err());
    let d = Dispersal::new(MatrixKind::Vandermonde, 4, 2).unwrap();
    assert_eq!(d.disperse(&[1, 2, 3], 2, &[4]), Err(IdaError::Index(4)));
}

#[test]
fn a_one_cell_segment_is_copied_into_every_piece() {
    let d = Dispersal::new(MatrixKind::Vandermonde, 10, 1).unwrap();
    let p = d.disperse(b"hello", 48, &[0, 7, 9]).unwrap();
    assert!(p.iter().all(|x| &x[..5] == b"hello" && x[5..].iter().all(|&b| b == 0)));
}

#[test]
fn the_largest_boston_segment_rebuilds_from_its_spare_pieces() {
    // A 9180-byte packet plus AAL5 trailer is 192 cells: 64 spare pieces.
    let d = Dispersal::new(MatrixKind::Vandermonde, 256, 192).unwrap();
    let data: Vec<u8> = (0..9180u32).map(|k| (k.wrapping_mul(2654435761) >> 13) as u8).collect();
    let idx: Vec<usize> = (64..256).collect();
    let p = d.disperse(&data, 48, &idx).unwrap();
    let pieces: Vec<(usize, &[u8])> = idx.iter().zip(&p).map(|(&i, x)| (i, &x[..])).collect();
    assert_eq!(d.reconstruct(&pieces, data.len()).unwrap(), data);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random segment, random N and m, a random erasure pattern keeping at
    /// least m pieces: always rebuilt; keeping fewer: always refused.
    #[test]
    fn random_erasures(m in 1usize..24, extra in 0usize..24, len_frac in 0.0f64..1.0, seed in any::<u64>(), cauchy in any::<bool>()) {
        let n = m + extra;
        let kind = if cauchy { MatrixKind::Cauchy } else { MatrixKind::Vandermonde };
        let d = Dispersal::new(kind, n, m).unwrap();
        let len = ((m * 48) as f64 * len_frac) as usize;
        let mut x = seed | 1;
        let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let all: Vec<usize> = (0..n).collect();
        let pieces = d.disperse(&data, 48, &all).unwrap();
        let kept: Vec<(usize, &[u8])> = all.iter().filter(|_| next() % 3 != 0).map(|&i| (i, &pieces[i][..])).collect();
        match d.reconstruct(&kept, len) {
            Ok(got) => { prop_assert!(kept.len() >= m); prop_assert_eq!(got, data); }
            Err(e) => { prop_assert!(kept.len() < m); prop_assert_eq!(e, IdaError::TooFewPieces { have: kept.len(), need: m }); }
        }
    }

    #[test]
    fn inverse_times_matrix_is_identity(m in 1usize..16, shift in 0usize..200) {
        let d = Dispersal::new(MatrixKind::Vandermonde, 256, m).unwrap();
        let idx: Vec<usize> = (0..m).map(|k| (shift + 3 * k) % 256).collect();
        let a: Vec<u8> = idx.iter().flat_map(|&i| d.row(i).to_vec()).collect();
        let prod = mat_mul(&d.decoder(&idx).unwrap(), &a, m, m, m);
        for i in 0..m { for j in 0..m { prop_assert_eq!(prod[i * m + j], (i == j) as u8); } }
    }
}

mod cross_check {
    //! Against `reed-solomon-erasure` (crates.io), a port of Backblaze's
    //! JavaReedSolomon: same field (0x11D), and its encoding matrix is our
    //! Vandermonde matrix on points 0..N−1 times the inverse of its top
    //! m × m block, so parity shards must agree byte for byte.
    use super::*;
    use reed_solomon_erasure::galois_8::{self as rse, ReedSolomon};

    #[test]
    fn field_operations_agree_for_every_pair() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(gf256::mul(a, b), rse::mul(a, b));
                if b != 0 {
                    assert_eq!(gf256::div(a, b), rse::div(a, b));
                }
            }
            assert_eq!(gf256::pow(a, 5), rse::exp(a, 5));
        }
    }

    /// Our dispersal in systematic form gives the same parity shards as the
    /// library, and the library rebuilds from our pieces.
    #[test]
    fn systematic_form_matches_the_library_byte_for_byte() {
        for &(m, parity) in &[(3usize, 2usize), (11, 5), (32, 16), (192, 64)] {
            let n = m + parity;
            let d = Dispersal::new(MatrixKind::Vandermonde, n, m).unwrap();
            let top: Vec<u8> = (0..m).flat_map(|i| d.row(i).to_vec()).collect();
            let all: Vec<u8> = (0..n).flat_map(|i| d.row(i).to_vec()).collect();
            let systematic = mat_mul(&all, &invert(&top, m).unwrap(), n, m, m);
            let data: Vec<u8> = (0..m * 48).map(|k| (k * 131 + m) as u8).collect();
            let mut shards: Vec<Vec<u8>> = data.chunks(48).map(|c| c.to_vec()).collect();
            shards.resize(n, vec![0u8; 48]);
            ReedSolomon::new(m, parity).unwrap().encode(&mut shards).unwrap();
            let cells = cells_of(&data, 48);
            for (p, shard) in shards.iter().enumerate().skip(m) {
                let mut ours = vec![0u8; 48];
                for (j, cell) in cells.iter().enumerate() {
                    gf256::mul_add_slice(&mut ours, systematic[p * m + j], cell);
                }
                assert_eq!(&ours, shard, "m = {m}, parity shard {p}");
            }
        }
    }

    /// Any m of n: erase the same random pieces from our Rabin pieces and
    /// from the library's shards; both rebuild the same segment.
    #[test]
    fn both_rebuild_after_the_same_erasures() {
        let (m, parity) = (11usize, 6usize);
        let n = m + parity;
        let d = Dispersal::new(MatrixKind::Vandermonde, n, m).unwrap();
        let rs = ReedSolomon::new(m, parity).unwrap();
        let data: Vec<u8> = (0..m * 48).map(|k| (k * 7 + 3) as u8).collect();
        let all: Vec<usize> = (0..n).collect();
        let pieces = d.disperse(&data, 48, &all).unwrap();
        let mut x = 0x9E37_79B9u32;
        for _ in 0..200 {
            let mut lost = [false; 17];
            for _ in 0..parity {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                lost[x as usize % n] = true;
            }
            let kept: Vec<(usize, &[u8])> = all.iter().filter(|&&i| !lost[i]).map(|&i| (i, &pieces[i][..])).collect();
            assert_eq!(d.reconstruct(&kept, data.len()).unwrap(), data);
            let mut shards: Vec<Vec<u8>> = data.chunks(48).map(|c| c.to_vec()).collect();
            shards.resize(n, vec![0u8; 48]);
            rs.encode(&mut shards).unwrap();
            let mut holes: Vec<Option<Vec<u8>>> = shards.into_iter().enumerate().map(|(i, s)| (!lost[i]).then_some(s)).collect();
            rs.reconstruct_data(&mut holes).unwrap();
            let rebuilt: Vec<u8> = holes[..m].iter().flat_map(|s| s.clone().unwrap()).collect();
            assert_eq!(rebuilt, data);
        }
    }
}
