//! The sections of `schema.rs` that only packet networks use, in their own
//! file: `[router]` (its drop policy) and `[arb]` (the parameters
//! of every ARB flow, `flow.kind = "arb"`; Chang, Huynh & Gray §2). Rates
//! are bits per second of packets on the wire; "auto" derives a value from
//! the flow's path as written in `docs/arb.md`.

use serde::{Deserialize, Serialize};

/// `[router]`: what only the IP routers of `network = "packet"` have.
///
/// The buffer of a router port stays `switch.buffer` (bytes or packets), so
/// that one scenario runs on both networks by flipping `network` alone:
/// Aron & Druschel (§4, Fig. 3) compare ATM and packet networks at the same
/// "effective buffer size" in payload bytes (`switch.buffer = "192528B"` is
/// B/48 cells on ATM and B bytes on a router). Only keys whose meaning
/// differs between cells and packets are split: the frame discard keys stay
/// in `[switch]` and are refused on a packet network.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RouterSection {
    /// What a full router port does with an arriving packet: a drop policy
    /// registered under `router.policy` (`net/drop/mod.rs`: "tail",
    /// "random-drop", "red", "drop-front", "dctcp", "trim"); its keys
    /// (`router.include_arrival`, `[router.red]`, `[router.dctcp]`) are declared by the policy.
    pub policy: String,
}

impl Default for RouterSection {
    fn default() -> Self {
        RouterSection { policy: "tail".into() }
    }
}

/// `[arb]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArbSection {
    /// Additive increase step Rinc (the paper: 900 b/s one-way, 2.5 kb/s
    /// and "500" two-way).
    pub rinc: String,
    /// Multiplicative reduction factor θ applied to the reported rate (0.95).
    pub theta: f64,
    /// Measurement interval M between rate requests.
    pub interval: String,
    /// Sensitivity threshold ΔR, or "auto": the rate that queues two
    /// packets at each bounded queue of the path over one interval.
    pub delta_r: String,
    /// Time to wait for a reply (Tout), or "auto": 2M plus two
    /// propagation round trips.
    pub timeout: String,
    /// Highest rate Rmax, or "auto": the sender's access link.
    pub rmax: String,
    /// Initial rate, or "auto": one full packet per second.
    pub r_init: String,
    /// Lowest rate, or "auto": one full packet per 10 s.
    pub r_min: String,
    /// Halve Rinc on a reduction, reset it on a timeout, double it back on increases.
    pub adaptive_rinc: bool,
    /// Compare the reply with "ra" (measured rate: the paper's pseudo-code)
    /// or "rs" (allowed rate: its prose).
    pub compare_with: String,
    /// Queueing-accumulation threshold, in packet times of the rate
    /// `accumulation` names.
    pub k_acc: f64,
    /// What `k_acc` counts: "queue", packets of the bottleneck's queue (packet
    /// times at the path's slowest line), or "own-rate", packet times at the
    /// connection's own measured rate (`transport/arb/accumulation.rs`).
    pub accumulation: String,
}

impl Default for ArbSection {
    fn default() -> Self {
        ArbSection {
            rinc: "900bps".into(),
            theta: 0.95,
            interval: "2s".into(),
            delta_r: "auto".into(),
            timeout: "auto".into(),
            rmax: "auto".into(),
            r_init: "auto".into(),
            r_min: "auto".into(),
            adaptive_rinc: true,
            compare_with: "ra".into(),
            k_acc: 3.0,
            accumulation: "queue".into(),
        }
    }
}
