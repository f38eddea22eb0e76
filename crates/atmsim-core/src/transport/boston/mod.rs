//! TCP Boston (Bestavros & Kim 1997): Reno whose segments travel as
//! dispersed cells (Rabin's IDA, [`crate::coding::ida`]), so that every cell
//! of a damaged frame that reaches the receiver still counts.
//!
//! The protocol is split into plain values, each with one job:
//! - [`sender::PieceSender`]: which dispersed pieces of a segment a
//!   transmission carries (the first m, or the m − r still missing after a
//!   partial ACK reported r), and the r each ACK reports;
//! - [`store::PieceStore`]: the receiver's pieces per pending segment (how
//!   many distinct ones, hence when the segment can be rebuilt);
//! - [`crate::atm::partial::PartialReassembler`]: when a frame closes at the
//!   destination AAL, without discarding its cells;
//! - [`payload`]: the bytes of a segment and its pieces, in payload mode.
//!
//! Reno itself (window, fast retransmit, timeouts) is the project's BSD TCP
//! unchanged: a partial ACK is, in Reno's eyes, a duplicate ACK (§3,
//! footnote 6): it neither advances the window nor grows cwnd, and three of
//! them trigger a fast retransmit, which Boston turns into a frame of
//! m − r fresh pieces. `world/boston.rs` wires these values.

pub mod payload;
pub mod sender;
pub mod store;

use crate::coding::MatrixKind;

/// TCP Boston's parameters, the scenario's `[boston]` section as written
/// (it carries no derived quantity, so the file names this type directly;
/// `scenario/boston.rs` checks it against the rest of the scenario).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BostonConfig {
    /// TCP Boston (AIDA and partial ACKs) or plain Reno measured the same way.
    pub aida: bool,
    /// Extra pieces a first transmission carries beyond m (the spatial
    /// redundancy n − m; off in the paper's runs, §3 last paragraph). A
    /// frame holds at most 4096 cells, so m plus this is checked against it
    /// unless N is smaller.
    pub redundancy: u16,
    /// N: distinct pieces per segment. Payload mode rebuilds bytes over
    /// GF(2^8), so N ≤ 256 there; counting pieces allows up to 65535 (a
    /// GF(2^16) dispersal), the paper's "N ≫ m" for 192-cell segments.
    pub pieces: u16,
    /// The dispersal matrix: "vandermonde" or "cauchy".
    pub matrix: MatrixKind,
    /// Carry real bytes, rebuild each segment with IDA and compare it with
    /// what was sent (a mismatch fails the run's accounting).
    pub payload: bool,
    /// Record per-second series (cells sent, cells received, bytes
    /// accepted) per flow in the summary, for the paper's Fig. 7.
    pub per_second: bool,
}

impl Default for BostonConfig {
    fn default() -> Self {
        BostonConfig { aida: true, redundancy: 0, pieces: 256, matrix: MatrixKind::Vandermonde, payload: false, per_second: false }
    }
}
