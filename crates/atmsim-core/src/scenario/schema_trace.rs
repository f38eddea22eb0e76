//! `[trace]` as written: what a run with traces on records besides the
//! per-ACK window and event traces (resolved in `resolve/mod.rs`).

use serde::{Deserialize, Serialize};

/// `[trace]`: time series recorded when traces are on.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSection {
    /// Sampling interval of queue occupancy traces.
    pub interval: String,
    /// A port ("A->B") whose every occupancy change (arrival, departure,
    /// drop) is logged, per cell or packet, when traces are on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// Most rows the port log may hold (default [`DEFAULT_PORT_ROWS`]): the
    /// log is held in memory until the run ends, so a run whose log would
    /// exceed it is refused before it starts, and one that reaches it (more
    /// drops than the estimate counts) stops with the same key named.
    pub port_rows: u64,
}

/// Rows of a port log unless `trace.port_rows` says otherwise: 18 bytes a
/// row in the core and about 60 in Python's tables, so a little over 1 GB
/// at most whatever the duration (a 10 s run of topology 1's bottleneck
/// logs about 4 million).
pub const DEFAULT_PORT_ROWS: u64 = 20_000_000;

impl Default for TraceSection {
    fn default() -> Self {
        TraceSection { interval: "10ms".into(), port: None, port_rows: DEFAULT_PORT_ROWS }
    }
}
