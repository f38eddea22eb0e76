//! Rabin's Information Dispersal Algorithm over GF(2^8), as TCP Boston uses
//! it (Rabin 1989; Bestavros & Kim 1997, §2 "Adaptive IDA").
//!
//! A segment of `m` cells is dispersed into up to `N` pieces (one cell
//! payload each) with an N × m matrix whose every m rows are linearly
//! independent; any `m` distinct pieces rebuild the segment by inverting
//! the m × m matrix of their rows. The pieces are computed lazily: AIDA
//! sends only the pieces it needs, the first transmission pieces 0..n and a
//! supplementary one the next unused indices.
//!
//! Two matrices, both with the "every m rows independent" property:
//! - Vandermonde on the points 0..N−1 (row i = (1, i, i², …)): any m rows
//!   form a square Vandermonde matrix on distinct points, whose determinant
//!   is a product of nonzero differences. Row 0 is (1, 0, …, 0), so piece 0
//!   is cell 0 itself. The default.
//! - Cauchy x_ij = 1 / (p_i + q_j) with p_i = i + m and q_j = j (N + m ≤ 256):
//!   every square submatrix of a Cauchy matrix is invertible.
//!
//! This is library code, not on the simulator's per-cell path: the
//! simulator tracks which pieces arrived (see `transport::boston`) and uses
//! this codec when a run asks for real bytes.

use super::gf256::{inv, mul, mul_add_slice, pow};

/// Which dispersal matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatrixKind {
    Vandermonde,
    Cauchy,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdaError {
    /// The parameters do not fit GF(2^8) (N ≤ 256, 1 ≤ m ≤ N; Cauchy N + m ≤ 256).
    Parameters { n: usize, m: usize },
    /// A piece index outside 0..N.
    Index(usize),
    /// Fewer than m distinct pieces: the segment cannot be rebuilt yet.
    TooFewPieces { have: usize, need: usize },
    /// Pieces or cells of different sizes.
    PieceSize,
}

impl std::fmt::Display for IdaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdaError::Parameters { n, m } => write!(f, "IDA needs 1 <= m <= N <= 256 (got N = {n}, m = {m})"),
            IdaError::Index(i) => write!(f, "piece index {i} is outside the dispersal matrix"),
            IdaError::TooFewPieces { have, need } => write!(f, "{have} distinct pieces, {need} needed"),
            IdaError::PieceSize => write!(f, "pieces must all have the same size"),
        }
    }
}

impl std::error::Error for IdaError {}

/// An N × m dispersal matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispersal {
    n: usize,
    m: usize,
    /// Row-major, N rows of m entries.
    rows: Vec<u8>,
}

impl Dispersal {
    pub fn new(kind: MatrixKind, n: usize, m: usize) -> Result<Self, IdaError> {
        let fits = match kind {
            MatrixKind::Vandermonde => n <= 256,
            MatrixKind::Cauchy => n + m <= 256,
        };
        if m == 0 || m > n || !fits {
            return Err(IdaError::Parameters { n, m });
        }
        let mut rows = vec![0u8; n * m];
        for i in 0..n {
            for j in 0..m {
                rows[i * m + j] = match kind {
                    MatrixKind::Vandermonde => pow(i as u8, j as u32),
                    MatrixKind::Cauchy => inv((i + m) as u8 ^ j as u8),
                };
            }
        }
        Ok(Dispersal { n, m, rows })
    }

    /// N, the number of distinct pieces this matrix can make.
    pub fn pieces(&self) -> usize {
        self.n
    }

    /// m, the pieces needed to rebuild a segment.
    pub fn needed(&self) -> usize {
        self.m
    }

    pub fn row(&self, i: usize) -> &[u8] {
        &self.rows[i * self.m..(i + 1) * self.m]
    }

    /// Piece `i` of the cells `cells` (m cells of equal size) into `out`.
    pub fn encode_piece(&self, i: usize, cells: &[&[u8]], out: &mut [u8]) -> Result<(), IdaError> {
        if i >= self.n {
            return Err(IdaError::Index(i));
        }
        if cells.len() != self.m || cells.iter().any(|c| c.len() != out.len()) {
            return Err(IdaError::PieceSize);
        }
        out.fill(0);
        for (j, cell) in cells.iter().enumerate() {
            mul_add_slice(out, self.row(i)[j], cell);
        }
        Ok(())
    }

    /// Cuts `segment` into m cells of `cell` bytes (the last padded with
    /// zeros; the true length travels in the TCP/IP header) and returns the
    /// pieces `indices`, each `cell` bytes.
    pub fn disperse(&self, segment: &[u8], cell: usize, indices: &[usize]) -> Result<Vec<Vec<u8>>, IdaError> {
        if segment.len() > self.m * cell {
            return Err(IdaError::PieceSize);
        }
        let mut padded = segment.to_vec();
        padded.resize(self.m * cell, 0);
        let cells: Vec<&[u8]> = padded.chunks(cell).collect();
        indices
            .iter()
            .map(|&i| {
                let mut out = vec![0u8; cell];
                self.encode_piece(i, &cells, &mut out).map(|_| out)
            })
            .collect()
    }

    /// The inverse of the m × m matrix of rows `indices` (m distinct
    /// indices), by Gauss–Jordan elimination.
    pub fn decoder(&self, indices: &[usize]) -> Result<Vec<u8>, IdaError> {
        let m = self.m;
        if indices.len() != m {
            return Err(IdaError::TooFewPieces { have: indices.len(), need: m });
        }
        let mut a = Vec::with_capacity(m * m);
        for &i in indices {
            if i >= self.n {
                return Err(IdaError::Index(i));
            }
            a.extend_from_slice(self.row(i));
        }
        // Any m distinct rows are independent by construction: a singular
        // submatrix would be a bug in the matrix, not an input error.
        Ok(invert(&a, m).expect("every m rows of a dispersal matrix are independent"))
    }

    /// Rebuilds the first `len` bytes of the segment from pieces
    /// `(index, bytes)`. Duplicates carry no information and are ignored;
    /// of the distinct indices the m smallest are used, so decoding is
    /// deterministic.
    pub fn reconstruct(&self, pieces: &[(usize, &[u8])], len: usize) -> Result<Vec<u8>, IdaError> {
        let mut chosen: Vec<(usize, &[u8])> = pieces.to_vec();
        chosen.sort_by_key(|p| p.0);
        chosen.dedup_by_key(|p| p.0);
        if chosen.len() < self.m {
            return Err(IdaError::TooFewPieces { have: chosen.len(), need: self.m });
        }
        chosen.truncate(self.m);
        let size = chosen[0].1.len();
        if chosen.iter().any(|p| p.1.len() != size) || len > self.m * size {
            return Err(IdaError::PieceSize);
        }
        let indices: Vec<usize> = chosen.iter().map(|p| p.0).collect();
        let dec = self.decoder(&indices)?;
        let mut out = vec![0u8; self.m * size];
        for j in 0..self.m {
            let cell = &mut out[j * size..(j + 1) * size];
            for (t, p) in chosen.iter().enumerate() {
                mul_add_slice(cell, dec[j * self.m + t], p.1);
            }
        }
        out.truncate(len);
        Ok(out)
    }
}

/// Inverts an m × m matrix over GF(2^8) (row-major); `None` if singular.
pub fn invert(a: &[u8], m: usize) -> Option<Vec<u8>> {
    let mut a = a.to_vec();
    let mut b = vec![0u8; m * m];
    for i in 0..m {
        b[i * m + i] = 1;
    }
    for col in 0..m {
        let pivot = (col..m).find(|&r| a[r * m + col] != 0)?;
        if pivot != col {
            for k in 0..m {
                a.swap(pivot * m + k, col * m + k);
                b.swap(pivot * m + k, col * m + k);
            }
        }
        let s = inv(a[col * m + col]);
        for k in 0..m {
            a[col * m + k] = mul(a[col * m + k], s);
            b[col * m + k] = mul(b[col * m + k], s);
        }
        for r in 0..m {
            let f = a[r * m + col];
            if r != col && f != 0 {
                for k in 0..m {
                    a[r * m + k] ^= mul(f, a[col * m + k]);
                    b[r * m + k] ^= mul(f, b[col * m + k]);
                }
            }
        }
    }
    Some(b)
}

/// m × m matrix product (row-major), for tests and the systematic form.
pub fn mat_mul(a: &[u8], b: &[u8], rows: usize, inner: usize, cols: usize) -> Vec<u8> {
    let mut c = vec![0u8; rows * cols];
    for i in 0..rows {
        for k in 0..inner {
            let f = a[i * inner + k];
            for j in 0..cols {
                c[i * cols + j] ^= mul(f, b[k * cols + j]);
            }
        }
    }
    c
}

#[cfg(test)]
#[path = "ida_tests.rs"]
mod tests;
