//! The sections of `schema.rs` that only packet networks use, in their own
//! file: `[router]` (drop tail or random drop) and `[arb]` (the parameters
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
    /// What a full router port does with an arriving packet.
    pub policy: RouterPolicyName,
    /// Random drop: is the arriving packet a candidate victim with the
    /// waiting ones (default), or only waiting packets?
    #[serde(skip_serializing_if = "is_true")]
    pub include_arrival: bool,
    #[serde(skip_serializing_if = "RedSection::is_default")]
    pub red: RedSection,
}

/// `[router.red]`: RED's thresholds (packets), maximum drop probability and
/// queue weight; Floyd & Jacobson's (1993) values by default; and ECN.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedSection {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    /// Mark instead of drop (RFC 3168 §7; ns-2's `setbit_`): an early drop
    /// of an ECN-capable packet (`tcp.ecn = true`) sets CE and admits it;
    /// drops above `max_th` and to a full buffer stay drops.
    pub ecn: bool,
    /// Gentle RED (Floyd 2000): between `max_th` and `2·max_th` the drop
    /// probability rises from `max_p` to 1 (early drops, marked with
    /// `ecn`), forced drops only above `2·max_th`. Off [choice]: Floyd &
    /// Jacobson 1993 have no gentle mode (ns-2 2.35 and ns-3 default it on).
    /// Left out of the written scenario when off, so that existing files
    /// read back unchanged.
    #[serde(skip_serializing_if = "is_false")]
    pub gentle: bool,
}

impl Default for RedSection {
    fn default() -> Self {
        RedSection { min_th: 5.0, max_th: 15.0, max_p: 0.02, w_q: 0.002, ecn: false, gentle: false }
    }
}

impl RedSection {
    pub fn is_default(&self) -> bool {
        *self == RedSection::default()
    }
}

impl Default for RouterSection {
    fn default() -> Self {
        RouterSection { policy: RouterPolicyName::Tail, include_arrival: true, red: RedSection::default() }
    }
}

/// `router.policy`. A name enum rather than the core's `DropSpec`
/// because some policies carry parameters, which are keys of `[router]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouterPolicyName {
    /// Drop the arriving packet if it does not fit in the buffer (bytes or
    /// packets, counting the packet in transmission).
    #[default]
    Tail,
    /// Random drop (Mankin 1990; RFC 1254; Chang, Huynh & Gray §4.2): a
    /// full port discards a packet chosen at random (`net/drop/random_drop.rs`).
    RandomDrop,
    /// RED (Floyd & Jacobson 1993): early random drops from the average
    /// queue, parameters in `[router.red]` (`net/drop/red.rs`).
    Red,
    /// Drop from front (ns-2's `drop_front_`; Lakshman, Neidhardt & Ott
    /// 1996): a full port discards its oldest waiting packet
    /// (`net/drop/drop_front.rs`).
    DropFront,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
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
    /// Queueing-accumulation threshold in packet times at the measured rate.
    pub k_acc: f64,
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
        }
    }
}

impl ArbSection {
    pub fn is_default(&self) -> bool {
        *self == ArbSection::default()
    }
}
