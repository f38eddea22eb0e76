//! EQDS (Olteanu et al., "An edge-queued datagram service for all datacenter
//! traffic", NSDI 2022) as htsim implements it at commit 841d9e7
//! (docs/fabrics.md, rules E1–E13): receiver-issued credit in 512-B quanta
//! over trimming switches, a speculative first window, per-packet entropy.
//!
//! | file | what |
//! | --- | --- |
//! | `source.rs` | the sender: credit (E2, E4), pull target (E5), NACKs (E8), ACK requests (E9), completion (E12) |
//! | `timer.rs` | the sender's send records and its fixed retransmission timer (E11) |
//! | `sink.rs` | the receiver: SACKs (E9), NACKs and retransmit backlog (E8), RTS (E11), pulls (E2) |
//! | `pacer.rs` | a receiving host's pull pacer: retransmit, active and idle lists (E6) |
//! | `nic.rs` | a sending host's NIC: round robin over its sources, 20 control packets per data packet (E3) |
//! | `queue.rs` | a FIFO with its front element inline, for the NIC's and the pacer's queues |
//! | `entropy.rs` | the sender's entropy cycle and penalties, and the path each entropy hashes to (E10) |

mod entropy;
mod nic;
mod pacer;
mod queue;
mod sink;
mod source;
mod timer;

pub use entropy::{entropy_paths, hash_choice, Entropy};
pub use nic::{EqdsNic, NicTurn};
pub use pacer::{EqdsPacer, List};
pub use sink::EqdsSink;
pub use source::{EqdsSource, SourceStats, Timeout};

use crate::base::mechanism::{Bound, Golden, Key, KeyDefault, KeyKind, Mechanism, Networks, Params, U32};
use crate::time::{Rate, Time};

/// Credit is counted in quanta of this many bytes (E2: htsim `PULL_QUANTUM`).
pub const QUANTUM: u64 = 512;

/// Bytes to whole quanta, rounded up as htsim's `quantize_ceil` does it:
/// (bytes + 511) / 512 in C integers, so a negative count rounds toward zero.
pub fn quanta_ceil(bytes: i64) -> i64 {
    (bytes + QUANTUM as i64 - 1) / QUANTUM as i64
}

/// EQDS's parameters, as its keys set them (htsim `main_eqds.cpp`'s
/// defaults, docs/fabrics.md §2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EqdsConfig {
    /// Bytes on the wire of a full packet, header included (E1: 4,150 =
    /// `eqds.mss` + `eqds.header_bytes`).
    pub mtu: u32,
    /// Header bytes; control packets and trimmed data are this size (E1: 64).
    pub header: u32,
    /// The speculative window and maximum window, in MTUs (E4: 50).
    pub cwnd: u32,
    /// Entropy values a sender cycles through, a power of two (E10: 64).
    pub paths: u32,
    /// The pull pacer's interval multiplier (E6: 0.99).
    pub pull_interval: f64,
    /// The MTU the pacer's interval counts (E6: 4,160, see [`MECHANISM`]).
    pub pacer_mtu: u32,
    /// Quanta per pull (E2: 8).
    pub credit_per_pull: u32,
    /// Bytes accepted since the last ACK above which an ACK goes (E9: 16,384).
    pub ack_threshold: u64,
    /// The retransmission timeout's fixed part in µs and its multiple of one
    /// switch queue's drain time (E11: 150 µs + 6 drains).
    pub rto_base_us: f64,
    pub rto_drains: f64,
}

impl EqdsConfig {
    pub fn from_params(p: &Params) -> EqdsConfig {
        EqdsConfig {
            mtu: (p.count("eqds.mss").unwrap_or(4086) + p.count("eqds.header_bytes").unwrap_or(64)).min(u32::MAX as u64) as u32,
            header: p.count("eqds.header_bytes").unwrap_or(64) as u32,
            cwnd: p.count("eqds.cwnd").unwrap_or(50) as u32,
            paths: p.count("eqds.paths").unwrap_or(64) as u32,
            pull_interval: p.real("eqds.pull_interval", 0.99),
            pacer_mtu: p.count("eqds.pacer_mtu").unwrap_or(4160) as u32,
            credit_per_pull: p.count("eqds.credit_per_pull").unwrap_or(8) as u32,
            ack_threshold: p.count("eqds.ack_threshold").unwrap_or(16384),
            rto_base_us: p.real("eqds.rto_base_us", 150.0),
            rto_drains: p.real("eqds.rto_queue_drains", 6.0),
        }
    }

    /// Payload bytes of a full packet (E1: 4,086).
    pub fn mss(&self) -> u32 {
        self.mtu - self.header
    }

    /// The pull pacer's interval on a line of rate `line`: the pacer's MTU
    /// plus Ethernet's 38 bytes of framing, times the multiplier (E6:
    /// 332.48 ns at 100 Gb/s; htsim truncates to whole picoseconds).
    pub fn pull_spacing(&self, line: Rate) -> Time {
        let bits = 8.0 * (self.pacer_mtu.max(46) + 38) as f64;
        (self.pull_interval * bits * line.ps as f64 / line.bits as f64) as Time
    }

    /// The fixed retransmission timeout (E11): the base plus the drains of a
    /// switch queue of `queue_bytes` at `line` (219.72 µs with 145,250 B at 100 Gb/s).
    pub fn rto(&self, queue_bytes: u64, line: Rate) -> Time {
        let drain = queue_bytes as f64 * 8.0 * line.ps as f64 / line.bits as f64;
        (self.rto_base_us * 1e6 + self.rto_drains * drain).round() as Time
    }
}

/// EQDS's declaration: selected by a flow's `kind`, its keys under `[eqds]`.
pub const MECHANISM: Mechanism = Mechanism {
    name: "eqds",
    selected_by: "flow.kind",
    networks: Networks::Packet,
    about: "EQDS (Olteanu et al. 2022) as htsim implements it: receiver credit in 512-B quanta, a speculative first window, entropy-hashed spraying over trimming switches",
    docs: "fabrics.md",
    keys: &[
        Key {
            name: "eqds.mss",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: U32 },
            default: KeyDefault::Value("4086"),
            about: "payload bytes of a full packet: htsim's -mtu 4150 less the header (E1); with the header at most ip.mtu",
        },
        Key {
            name: "eqds.header_bytes",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: U32 },
            default: KeyDefault::Value("64"),
            about: "header bytes; ACKs, NACKs, PULLs, RTSs and trimmed packets are this size (E1)",
        },
        Key {
            name: "eqds.cwnd",
            kind: KeyKind::Count { unit: "packets", min: 1, max: U32 },
            default: KeyDefault::Value("50"),
            about: "the speculative first window and the maximum window, in MTUs (E4)",
        },
        Key {
            name: "eqds.paths",
            kind: KeyKind::Count { unit: "entropies", min: 1, max: U32 },
            default: KeyDefault::Value("64"),
            about: "entropy values each sender cycles through, up to 32768 (E10; htsim's -paths, a power of two there)",
        },
        Key {
            name: "eqds.pull_interval",
            kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::Closed(100.0) },
            default: KeyDefault::Value("0.99"),
            about: "the pull pacer's interval as a multiple of one MTU frame's time, 38 B of framing included (E6)",
        },
        Key {
            name: "eqds.pacer_mtu",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: U32 },
            default: KeyDefault::Value("4160"),
            about: "the MTU the pull pacer's interval counts: htsim's main_eqds builds the pacers before any sender sets the MTU to 4,150, so they count the library's 4,096 + 64 (E6)",
        },
        Key {
            name: "eqds.credit_per_pull",
            kind: KeyKind::Count { unit: "quanta", min: 1, max: U32 },
            default: KeyDefault::Value("8"),
            about: "512-B quanta of credit per PULL (E2)",
        },
        Key {
            name: "eqds.ack_threshold",
            kind: KeyKind::Count { unit: "bytes", min: 1, max: u64::MAX },
            default: KeyDefault::Value("16384"),
            about: "bytes accepted since the last ACK above which the receiver ACKs (E9)",
        },
        Key {
            name: "eqds.rto_base_us",
            kind: KeyKind::Real { lo: Bound::Open(0.0), hi: Bound::None },
            default: KeyDefault::Value("150.0"),
            about: "the fixed part of the retransmission timeout, in µs (E11)",
        },
        Key {
            name: "eqds.rto_queue_drains",
            kind: KeyKind::Real { lo: Bound::Closed(0.0), hi: Bound::None },
            default: KeyDefault::Value("6.0"),
            about: "the retransmission timeout's multiple of one switch queue's drain time at the sender's line rate (E11)",
        },
    ],
    counters: &[],
    goldens: &[Golden { scenario: "eqds-incast", variation: "short", overrides: &["duration=300us"] }],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn htsims_pull_interval_and_timeout_at_100_gbps() {
        let c = EqdsConfig::from_params(&Params::default());
        let line = Rate::new(100_000_000_000, 1_000_000_000_000).unwrap();
        assert_eq!(c.mss(), 4086);
        assert_eq!(c.pull_spacing(line), 332_481, "0.99 x 8 x 4,198 B / 100 Gb/s, truncated");
        assert_eq!(EqdsConfig { pacer_mtu: 4150, ..c }.pull_spacing(line), 331_689, "0.99 x 8 x 4,188 B");
        assert_eq!(c.rto(35 * 4150, line), 219_720_000, "150 us + 6 x 145,250 B drains");
        assert_eq!((quanta_ceil(4150), quanta_ceil(-100), quanta_ceil(-1100)), (9, 0, -1));
    }
}
