//! `[capture]` as written (resolved in `capture.rs`; docs/captures.md).

use serde::{Deserialize, Serialize};

/// The section as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// Output ports ("A->B"): the packets (ATM: the AAL5 PDUs) leaving them.
    #[serde(default)]
    pub ports: Vec<String>,
    /// Hosts: the IP packets they send and receive, as tcpdump on the host.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Bytes kept of each packet (headers first; the payload is zeros).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
}

fn default_snaplen() -> u32 {
    DEFAULT_SNAPLEN
}

/// Bytes kept of each packet unless `capture.snaplen` says otherwise.
pub const DEFAULT_SNAPLEN: u32 = 96;
