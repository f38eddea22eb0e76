//! The result of one run, serialised as the `--json` summary.

use crate::stats::EpisodeCounts;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    /// "tcp" or "udp".
    pub kind: &'static str,
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_retransmitted: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub segments_lost: u64,
    pub loss_episodes: u64,
    pub single_loss_episodes: u64,
    pub multiple_loss_episodes: u64,
    pub consecutive_loss_episodes: u64,
    /// Episodes by number of lost segments: [1, 2, ..., 7, ≥8].
    pub loss_episode_sizes: [u64; 8],
    pub completion_time_s: Option<f64>,
    /// A TCP flow's last smoothed RTT, cwnd and ssthresh; null for the
    /// other kinds, which have none of them.
    pub srtt_s: Option<f64>,
    pub cwnd: Option<u64>,
    pub ssthresh: Option<u64>,
    pub aborted: bool,
    /// AFR (when enabled): seconds spent in predictor states 0..3, the
    /// successor retransmissions it sent and those that proved needless.
    pub afr_time_in_states_s: Option<[f64; 4]>,
    pub afr_extra_retransmits: u64,
    pub afr_needless_extra: u64,
    /// An ARB flow's allowed rate Rs at the end, in bits/s (ARB flows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arb_rate_bps: Option<f64>,
    /// ECN (`tcp.ecn`, RFC 3168 §6.1; TCP flows only): data segments that
    /// arrived marked CE, ACKs with ECE at the sender, the window
    /// reductions they caused (at most one per window of data), and data
    /// segments sent with CWR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_ce_received: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_echoes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_reductions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_cwr_sent: Option<u64>,
    /// DCTCP flows (RFC 8257 §3.3): the sender's α at the end, its estimate
    /// of the fraction of its bytes marked, and the windows it was updated
    /// over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dctcp_alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dctcp_alpha_updates: Option<u64>,
    /// NDP flows: the receiver's trimmed headers (each NACKed), the sender's
    /// ACKs, NACKs and PULLs received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndp: Option<NdpCounts>,
    /// EQDS flows: the receiver's trimmed headers, the sender's ACKs,
    /// NACKs and PULLs received, its RTSs sent and timeouts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eqds: Option<EqdsCounts>,
    /// Payload bytes delivered in order within `[measure]`'s window, over
    /// its length, in bits/s (when the scenario has a `[measure]` window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goodput_bps: Option<f64>,
    /// A completed flow's FCT over its unloaded ideal (NDP, EQDS, TCP on a packet network; `world/fct.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_slowdown: Option<f64>,
}

/// FCT slowdown percentiles (nearest rank) of one flow-size class.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FctClass {
    pub class: &'static str,
    pub flows: u64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
}

/// An NDP flow's counts (docs/fabrics.md, A7).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct NdpCounts {
    pub trimmed: u64,
    pub acks: u64,
    pub nacks: u64,
    pub pulls: u64,
}

/// An EQDS flow's counts (docs/fabrics.md, EQDS).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct EqdsCounts {
    pub trimmed: u64,
    pub acks: u64,
    pub nacks: u64,
    pub pulls: u64,
    pub rts: u64,
    pub timeouts: u64,
}

impl FlowSummary {
    pub fn set_episodes(&mut self, c: &EpisodeCounts) {
        self.loss_episodes = c.episodes;
        self.single_loss_episodes = c.single;
        self.multiple_loss_episodes = c.multiple;
        self.consecutive_loss_episodes = c.consecutive;
        self.loss_episode_sizes = c.by_size;
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PortSummary {
    pub name: String,
    /// What occupancy and limit count: "cells", "packets" or "bytes".
    pub unit: &'static str,
    pub limit: Option<u64>,
    pub units_in: u64,
    pub units_dropped: u64,
    pub drops_by_reason: std::collections::BTreeMap<&'static str, u64>,
    pub peak_occupancy: u64,
    /// At a trimming port, the most bytes its header queue held (N3; its
    /// `peak_occupancy` is the data queue's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_header_bytes: Option<u64>,
    pub mean_occupancy: f64,
    pub dead_units: u64,
    /// Share of the time the line was sending (data and credit cells).
    pub busy_fraction: f64,
    /// In-band credit cells sent on this line (for the other direction).
    pub credit_cells: u64,
    /// Units admitted with congestion marked (EFCI on cells, ECN's CE on
    /// packets); only at a port whose policy marks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units_marked: Option<u64>,
    /// The port's drop policy's own counters, each named in its
    /// mechanism's `counters` (`net/drop/`), written as fields of the port:
    /// e.g. RED with ECN's `red_forced_drops` (average queue at or above
    /// `max_th`), which stay drops of ECN-capable packets too; the rest of
    /// `drops_by_reason.red` are early drops of packets that were not
    /// ECN-capable.
    #[serde(flatten)]
    pub policy_counters: std::collections::BTreeMap<&'static str, u64>,
    /// `occupancy.percentiles`: the most units held and the time-weighted
    /// percentiles, at FIFO and strict trimming switch ports.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub occupancy_units: Option<OccupancyUnits>,
}

/// A port's occupancy in units (packets or cells, even where `unit` says
/// bytes): the most held at once and the p-th percentiles, the smallest x
/// such that the port held at most x units for at least a fraction p of the
/// run (`world/services/occupancy.rs`).
#[derive(Clone, Debug, Serialize)]
pub struct OccupancyUnits {
    pub occupancy_units_max: u64,
    pub occupancy_units_p50: u64,
    pub occupancy_units_p90: u64,
    pub occupancy_units_p99: u64,
    pub occupancy_units_p999: u64,
}

/// A host under the Morris–Kung host model (`host.model = "adapter"`).
#[derive(Clone, Debug, Serialize)]
pub struct HostSummary {
    pub name: String,
    /// Time-average IP bytes TCP has sent but the host still holds before
    /// its transmit adapter (socket and CPU queue, bus transfer).
    pub mean_tx_backlog_bytes: f64,
}

/// An NDP receiving host's pull queue (N10): the most PULLs that waited
/// in its pacer's queues at once.
#[derive(Clone, Debug, Serialize)]
pub struct PullQueueSummary {
    pub host: String,
    pub peak_pulls_waiting: u64,
}

/// The terms of the accounting identity (docs/metrics.md):
/// bytes sent = delivered + held out of order + duplicate + dropped in
/// queues + discarded at reassembly + in flight; and per VC, cells sent =
/// delivered + dropped + in flight.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Accounting {
    pub bytes_sent: u64,
    pub bytes_delivered: u64,
    pub bytes_held_out_of_order: u64,
    pub bytes_duplicate: u64,
    pub bytes_dropped_in_queues: u64,
    pub bytes_discarded_at_reassembly: u64,
    /// Payload cut off by trimming switches (NDP), whose headers reached
    /// the receiver; the sender owes it again.
    #[serde(skip_serializing_if = "is_zero")]
    pub bytes_trimmed: u64,
    pub bytes_in_flight: u64,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
    pub cells_in_flight: u64,
    pub queues_within_limits: bool,
    pub balanced: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub network: &'static str,
    pub duration_s: f64,
    pub end_time_s: f64,
    pub events: u64,
    pub unit_hops: u64,
    pub wall_s: f64,
    pub effective_throughput: f64,
    pub effective_throughput_common: f64,
    pub u_max_bytes: f64,
    /// Jain's index over the flows the run started (`world/finish.rs`).
    pub fairness: f64,
    /// Flows that never started: a workload's flows waiting for a trigger
    /// that did not fire within the run (absent when every flow started).
    #[serde(skip_serializing_if = "is_zero")]
    pub flows_not_started: u64,
    pub bottleneck: String,
    pub dead_cell_share: f64,
    pub cell_loss_ratio: f64,
    pub frames_discarded_at_reassembly: u64,
    pub flows: Vec<FlowSummary>,
    pub ports: Vec<PortSummary>,
    /// Empty unless hosts are modelled.
    pub hosts: Vec<HostSummary>,
    /// Each NDP receiving host's pull queue (N10), in host order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pull_queues: Vec<PullQueueSummary>,
    pub accounting: Accounting,
    /// The ABR service (only when the scenario has `[abr]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abr: Option<AbrSummary>,
    /// Per TCP flow, TCP Boston's measurements (scenarios with `[boston]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boston: Vec<BostonFlowSummary>,
    /// FCT slowdown by flow-size class, over the completed flows that have one (`world/fct.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fct_slowdown: Vec<FctClass>,
    /// Only in runs with captures on (`--pcap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureSummary>,
    /// The blocks of services that report one of their own
    /// (`ServiceKind::summary_block`), each under the service's name.
    #[serde(flatten)]
    pub services: std::collections::BTreeMap<&'static str, serde_json::Value>,
}

/// The pcap files of a run and, per TCP flow, the counters of its sender a
/// capture at its host can be checked against (docs/captures.md).
#[derive(Clone, Debug, Serialize)]
pub struct CaptureSummary {
    pub files: Vec<CaptureFileSummary>,
    pub tcp: Vec<CaptureTcpCounters>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CaptureFileSummary {
    pub name: String,
    /// 101 (LINKTYPE_RAW, IPv4) or 123 (LINKTYPE_SUNATM, AAL5 PDUs).
    pub linktype: u32,
    pub packets: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct CaptureTcpCounters {
    pub flow: String,
    pub syns_sent: u64,
    /// Data segments, first transmissions and retransmissions.
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    /// SYN-ACKs and ACKs that reached the sender.
    pub segments_received: u64,
    /// BSD's `tcps_rcvdupack`.
    pub dup_acks: u64,
}

/// One ABR source end system at the end of a run (`[abr]`).
#[derive(Clone, Debug, Serialize)]
pub struct AbrSourceSummary {
    pub flow: String,
    /// "data" (the TCP sender's VC) or "ack" (the receiver's).
    pub direction: &'static str,
    pub acr_cells_per_s: f64,
    /// Time-average data cells waiting at the source for ACR, the share of
    /// the run with at least one waiting, the most at once, and at the end.
    pub mean_waiting_cells: f64,
    pub waiting_fraction: f64,
    pub peak_waiting_cells: u64,
    pub cells_waiting_at_end: u64,
    pub frm_sent: u64,
    pub brm_received: u64,
    pub data_cells_sent: u64,
    /// TM 4.0 source rule 5 (ADTF) resets and rule 6 (CRM) cuts.
    pub adtf_resets: u64,
    pub crm_cuts: u64,
    /// Backward RM cells received with CI set (runs of EFCI switches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brm_with_ci: Option<u64>,
}

/// The ABR service of a run: which ERICA ran, RM cells (also counted in the
/// accounting's cells), and every source.
#[derive(Clone, Debug, Serialize)]
pub struct AbrSummary {
    /// "none" in runs of EFCI switches.
    pub erica_variant: &'static str,
    /// "efci" in runs of binary-feedback switches (absent: ERICA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch: Option<&'static str>,
    pub turnaround: &'static str,
    pub rm_cells_sent: u64,
    pub rm_cells_delivered: u64,
    pub rm_cells_dropped: u64,
    /// VBR background cells (in the accounting's cells too).
    pub vbr_cells_sent: u64,
    pub vbr_cells_dropped: u64,
    pub erica_intervals: u64,
    pub sources: Vec<AbrSourceSummary>,
    pub end_s: f64,
}

/// One flow measured as Bestavros & Kim do (§4.1): frames and cells by
/// transmission kind, partial ACKs, the time-average window, and, with
/// `boston.per_second`, the traffic of their Fig. 7.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BostonFlowSummary {
    pub frames_sent: u64,
    pub frames_retransmitted: u64,
    /// Frames that reached the receiver incomplete or not at all.
    pub frames_lost: u64,
    pub cells_sent: u64,
    pub cells_retransmitted: u64,
    pub cells_dropped: u64,
    pub partial_acks: u64,
    /// Payload mode: segments rebuilt by IDA and checked, and mismatches.
    pub payload_checked: u64,
    pub payload_mismatches: u64,
    /// Time average of min(cwnd, peer window) from the flow's start.
    pub mean_window_bytes: f64,
    pub window_since_s: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells_sent_per_s: Vec<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells_received_per_s: Vec<u64>,
    /// Bytes delivered in order to the application by the end of each second.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bytes_accepted_by_s: Vec<u64>,
}

impl Summary {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("summary serialises")
    }
}
