//! The core's IDA codec (`coding/ida.rs`) for the Python tests that check it
//! against an independent GF(2^8) implementation: three thin calls, no logic.

use atmsim_core::coding::ida::{Dispersal, MatrixKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn dispersal(kind: &str, n: usize, m: usize) -> PyResult<Dispersal> {
    let kind = match kind {
        "vandermonde" => MatrixKind::Vandermonde,
        "cauchy" => MatrixKind::Cauchy,
        other => return Err(PyValueError::new_err(format!("matrix: unknown '{other}' (vandermonde, cauchy)"))),
    };
    Dispersal::new(kind, n, m).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The N × m dispersal matrix, one `bytes` per row.
#[pyfunction]
pub fn ida_matrix<'py>(py: Python<'py>, kind: &str, n: usize, m: usize) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let d = dispersal(kind, n, m)?;
    Ok((0..n).map(|i| PyBytes::new_bound(py, d.row(i))).collect())
}

/// Pieces `indices` of `segment` cut into m cells of `cell` bytes.
#[pyfunction]
pub fn ida_disperse<'py>(
    py: Python<'py>,
    kind: &str,
    n: usize,
    m: usize,
    segment: &[u8],
    cell: usize,
    indices: Vec<usize>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let pieces = dispersal(kind, n, m)?.disperse(segment, cell, &indices).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(pieces.iter().map(|p| PyBytes::new_bound(py, p)).collect())
}

/// The first `len` bytes of the segment rebuilt from `(index, piece)` pairs.
#[pyfunction]
pub fn ida_reconstruct<'py>(
    py: Python<'py>,
    kind: &str,
    n: usize,
    m: usize,
    pieces: Vec<(usize, Vec<u8>)>,
    len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let refs: Vec<(usize, &[u8])> = pieces.iter().map(|(i, p)| (*i, p.as_slice())).collect();
    let out = dispersal(kind, n, m)?.reconstruct(&refs, len).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new_bound(py, &out))
}
