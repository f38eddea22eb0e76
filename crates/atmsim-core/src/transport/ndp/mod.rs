//! NDP (Handley et al., "Re-architecting datacenter networks and stacks
//! for low latency and high performance", SIGCOMM 2017) as htsim implements
//! it at commit 841d9e7 (docs/fabrics.md, rules N1–N17): a receiver-driven
//! transport over trimming switches (`net/trim.rs`).
//!
//! | file | what |
//! | --- | --- |
//! | `source.rs` | the sender: the first window unpulled (N7), one packet per pull (N11–N12), NACKed packets resent first (N13) |
//! | `sink.rs` | the receiver: an ACK for every full packet, a NACK for every header, each asking for a pull (N8) |
//! | `pacer.rs` | a receiving host's pull pacer and fair pull queue (N9–N10) |
//! | `paths.rs` | per-packet path choice over the flow's shortest paths: "perm" and "pull" (N15–N16) |
//!
//! What htsim computes but never acts on is left out: its retransmission
//! timer (N14: the hook returns at once unless `RESEND_ON_TIMEOUT` is
//! defined, and nothing defines it), so a header dropped at a full header
//! queue is never recovered, here as there.

mod pacer;
mod paths;
mod sink;
mod source;

pub use pacer::PullPacer;
pub use paths::{PathChoice, Strategy};
pub use sink::NdpSink;
pub use source::{NdpSource, SourceStats};

use crate::base::mechanism::{Bound, Key, KeyDefault, KeyKind, Mechanism, Networks, Params, U32};
use crate::time::{Rate, Time};

/// NDP's parameters, as its keys set them (htsim's defaults in the
/// reference runs, docs/fabrics.md §2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpConfig {
    /// Payload bytes of a full packet (N1: 9,000).
    pub mss: u32,
    /// Header bytes on the wire of every packet; a trimmed packet, an ACK,
    /// a NACK and a PULL are this size (N1: 64).
    pub header: u32,
    /// Packets sent unpulled at the start (N7: 23 in the reference runs).
    pub initial_window: u32,
    /// Pull rate as a multiple of the line rate (N9: 1).
    pub pull_rate: f64,
    pub strategy: Strategy,
    /// A NACK draws a path from the cycle before the resend draws the one
    /// it takes (N13; htsim's `NdpSrc::processNack` calls `choose_route`
    /// for the packet it queues, and `send_packet` calls it again when the
    /// packet goes, so each retransmission moves the cycle on twice).
    pub nack_draws_path: bool,
}

impl NdpConfig {
    pub fn from_params(p: &Params) -> NdpConfig {
        NdpConfig {
            mss: p.count("ndp.mss").unwrap_or(9000) as u32,
            header: p.count("ndp.header_bytes").unwrap_or(64) as u32,
            initial_window: p.count("ndp.initial_window").unwrap_or(23) as u32,
            pull_rate: p.real("ndp.pull_rate", 1.0),
            strategy: match p.choice("ndp.paths", "perm") {
                "pull" => Strategy::Pull,
                _ => Strategy::Perm,
            },
            nack_draws_path: p.bool("ndp.nack_draws_path", true),
        }
    }

    /// The pacer's spacing on a host whose line runs at `line`: one full
    /// packet's time on the wire, divided by the pull rate (N9: 7.2512 µs
    /// at 10 Gb/s).
    pub fn pull_spacing(&self, line: Rate) -> Time {
        let full = line.tx_time((self.mss + self.header) as u64);
        (full as f64 / self.pull_rate).round() as Time
    }
}

/// NDP's declaration: selected by a flow's `kind`, its keys under `[ndp]`.
pub const MECHANISM: Mechanism = Mechanism {
    name: "ndp",
    selected_by: "flow.kind",
    networks: Networks::Packet,
    about: "NDP (Handley et al. 2017) as htsim implements it: receiver-driven pulls over trimming switches, per-packet spraying",
    docs: "fabrics.md",
    keys: &[
        Key {
            name: "ndp.mss",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: U32 },
            default: KeyDefault::Value("9000"),
            about: "payload bytes of a full packet (N1)",
        },
        Key {
            name: "ndp.header_bytes",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: U32 },
            default: KeyDefault::Value("64"),
            about: "header bytes of every packet; a trimmed packet, an ACK, a NACK and a PULL are this size (N1)",
        },
        Key {
            name: "ndp.initial_window",
            kind: KeyKind::Count { unit: "packets", min: 1, max: U32 },
            default: KeyDefault::Value("23"),
            about: "packets sent at the start without a pull (N7; htsim's library default is 15, its reference runs 23)",
        },
        Key {
            name: "ndp.pull_rate",
            kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::Closed(100.0) },
            default: KeyDefault::Value("1.0"),
            about: "the pull pacer's rate as a multiple of the receiver's line rate (N9)",
        },
        Key {
            name: "ndp.paths",
            kind: KeyKind::Choice(&["perm", "pull"]),
            default: KeyDefault::Value("\"perm\""),
            about: "per-packet path choice: \"perm\" cycles through a random permutation of the paths (N15), \"pull\" also skips paths with many NACKs (N16)",
        },
        Key {
            name: "ndp.nack_draws_path",
            kind: KeyKind::Bool,
            default: KeyDefault::Value("true"),
            about: "a NACK takes a path from the cycle and the resend takes another, as htsim does (N13); false: one, when resent",
        },
    ],
    counters: &[],
    goldens: &[
        Golden { scenario: "ndp-in-out", variation: "pull-paths", overrides: &["duration=2ms", "measure.from=1ms", "measure.to=2ms", "ndp.paths=\"pull\""] },
        Golden { scenario: "ndp-failure", variation: "nack-draws-once", overrides: &["duration=3ms", "measure.from=1ms", "measure.to=3ms", "ndp.nack_draws_path=false"] },
    ],
};

use crate::base::mechanism::Golden;
