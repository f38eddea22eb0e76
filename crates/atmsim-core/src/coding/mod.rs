//! Erasure coding for TCP Boston: GF(2^8) arithmetic and Rabin's
//! Information Dispersal Algorithm on real bytes.

pub mod gf256;
pub mod ida;

pub use ida::{Dispersal, IdaError, MatrixKind};
