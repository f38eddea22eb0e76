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
    /// Most bytes the pcap files of a run may hold together: a run whose
    /// files reach it stops, naming the key (they are written as the run
    /// goes, or held in memory by `atmsim.run(capture=True)`).
    #[serde(default = "default_max_bytes")]
    pub max_bytes: String,
    /// The first of its keys written (an override's first, else the
    /// file's), to name a section that captures nothing by the key that
    /// made it: set by `scenario::parse_with`.
    #[serde(skip)]
    pub written: Option<String>,
}

fn default_snaplen() -> u32 {
    DEFAULT_SNAPLEN
}

fn default_max_bytes() -> String {
    DEFAULT_MAX_BYTES.into()
}

/// The pcap files' cap unless `capture.max_bytes` says otherwise: a 60 s
/// run of jain96-5src writes 741 MB (its 11 default files).
pub const DEFAULT_MAX_BYTES: &str = "2GB";

/// Bytes kept of each packet unless `capture.snaplen` says otherwise.
pub const DEFAULT_SNAPLEN: u32 = 96;
