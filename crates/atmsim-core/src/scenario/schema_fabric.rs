//! `[fabric]` as written: a scheduled cell fabric between the hosts
//! (`topology.kind = "fabric"`; resolved in `fabric.rs`, run by
//! `world/fabric.rs`; docs/fabric.md). The defaults are those of
//! docs/fabric.md's table, each with its public source or marked ours.

use serde::{Deserialize, Serialize};

/// `[fabric]`: the fabric's shape, links and cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FabricSection {
    /// Ingress/egress packet processors (FAPs), at most 256.
    pub faps: u32,
    /// Fabric elements of the single stage (in three stages: FE13s per group).
    pub fes: u32,
    /// 1: FAP → FE → FAP; 3: FAP → FE1 → FE2 → FE3 → FAP (docs/fabric.md "Three stages").
    pub stages: u32,
    /// Three stages: FAPs per group, each group with its own `fes` FE13s (a divisor of `faps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_faps: Option<u32>,
    /// Three stages: FE2 elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fe2s: Option<u32>,
    /// Three stages: links between each FE13 and each FE2 (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fe2_links: Option<u32>,
    /// Host-facing ports per FAP, one host each.
    pub ports_per_fap: u32,
    /// Rate of a host-facing port (and of its host's link).
    pub port_rate: String,
    /// One-way delay of a host's link to its FAP.
    pub port_delay: String,
    /// Fabric links per FAP, spread evenly over the FEs (a multiple of `fes`).
    pub fap_links: u32,
    /// Rate of every fabric link.
    pub link_rate: String,
    /// One-way delay of a fabric link.
    pub link_delay: String,
    /// Extra delay spread evenly over each FAP's links, 0 … skew.
    pub link_skew: String,
    /// Largest payload of a cell (VSC256: 256 B).
    pub cell_payload: String,
    /// Header bytes every cell adds on the wire.
    pub cell_header: String,
    /// "off", or "continuous": the packets one credit releases are cut as one stream.
    pub packing: String,
    /// How a FAP picks each cell's link: "round-robin", or "least-loaded"
    /// (the link with the fewest cells waiting for it or held in its far end).
    pub spray: String,
    /// Bytes one credit is worth (Broadcom SDK: 1 to 8,191; default 4,096).
    pub credit_worth: String,
    /// Payload bytes of a control cell (FlowStatus, Credit).
    pub control_bytes: String,
    /// Traffic classes per egress port, 1 to 8: a VOQ per (source FAP,
    /// port, class), a flow's class its `tc`.
    pub tcs: u32,
    /// Per traffic class, the cell priority its data crosses the fabric
    /// at: 0 (lowest) to 2; control cells use 3, the top of Jericho's four
    /// (default: every class at 0).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub class_priorities: Vec<u32>,
    pub voq: VoqSection,
    pub crs: CrsSection,
    pub scheduler: SchedulerSection,
    pub llfc: LlfcSection,
    /// How long a stream waits for a lost cell before it gives up the
    /// packets it belonged to (not public: ours).
    pub reassembly_timeout: String,
    pub reach: ReachSection,
    /// Fabric links that fail or slow down during the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fail: Vec<FailSpec>,
}

/// `[fabric.reach]`: reachability after a link failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReachSection {
    /// From a link's failure to the sprayers and fabric elements leaving it
    /// out (inferred from the SDK's reachability watchdog).
    pub detect: String,
    /// Balanced input (ours, docs/fabric.md R9): once a failure is detected,
    /// a FAP left with u of its n links from the fabric grants credits at
    /// u/n of its ports' credit rate, so that no more is sent toward it than
    /// its share of the fabric and the elements' queues toward it stay short.
    pub balanced_input: bool,
}

impl Default for ReachSection {
    fn default() -> Self {
        ReachSection { detect: "100us".into(), balanced_input: false }
    }
}

/// `[[fabric.fail]]`: one fabric link failing or slowing at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailSpec {
    /// "fapF.lI": FAP F's link I (0-based).
    pub link: String,
    /// When.
    pub at: String,
    /// "0": the link goes down; a rate ("10Gbps"): it slows to that rate.
    #[serde(default = "zero")]
    pub rate: String,
    /// "both" (default), "up" (FAP to FE) or "down" (FE to FAP).
    #[serde(default = "both")]
    pub dir: String,
}

fn zero() -> String {
    "0".into()
}

fn both() -> String {
    "both".into()
}

impl Default for FabricSection {
    fn default() -> Self {
        FabricSection {
            faps: 16,
            fes: 6,
            stages: 1,
            group_faps: None,
            fe2s: None,
            fe2_links: None,
            ports_per_fap: 4,
            port_rate: "400Gbps".into(),
            port_delay: "100ns".into(),
            fap_links: 18,
            link_rate: "106.25Gbps".into(),
            link_delay: "50ns".into(),
            link_skew: "0ns".into(),
            cell_payload: "256B".into(),
            cell_header: "16B".into(),
            packing: "off".into(),
            spray: "round-robin".into(),
            credit_worth: "4096B".into(),
            control_bytes: "8B".into(),
            tcs: 1,
            class_priorities: Vec::new(),
            voq: VoqSection::default(),
            crs: CrsSection::default(),
            scheduler: SchedulerSection::default(),
            llfc: LlfcSection::default(),
            reassembly_timeout: "10us".into(),
            reach: ReachSection::default(),
            fail: Vec::new(),
        }
    }
}

/// `[fabric.voq]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoqSection {
    /// VOQ bytes per FAP, all its VOQs together; a packet that does not fit is dropped.
    pub buffer: String,
    /// CE on an ECN-capable packet that finds more than this many bytes in
    /// its VOQ (DCTCP's instantaneous rule, applied at the ingress VOQ); unset: no marking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_above: Option<String>,
}

impl Default for VoqSection {
    fn default() -> Self {
        VoqSection { buffer: "64MB".into(), ecn_above: None }
    }
}

/// `[fabric.crs]`: the credit-request thresholds on Qsize − CrBal (the SDK's
/// 100G slow-enabled profile rounded up to 4,096-B credits); a threshold may
/// be negative ("-38KB").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrsSection {
    pub off_to_slow: String,
    pub off_to_norm: String,
    pub norm_to_slow: String,
    pub satisfied_backoff: String,
    pub satisfied_backlog: String,
    pub empty_off: String,
    pub max_empty_balance: String,
    /// A SLOW VOQ's credit rate as a fraction of the port rate (not public: ours).
    pub slow_rate: f64,
}

impl Default for CrsSection {
    fn default() -> Self {
        CrsSection {
            off_to_slow: "0B".into(),
            off_to_norm: "40960B".into(),
            norm_to_slow: "40960B".into(),
            satisfied_backoff: "40960B".into(),
            satisfied_backlog: "40960B".into(),
            empty_off: "0B".into(),
            max_empty_balance: "4096B".into(),
            slow_rate: 0.1,
        }
    }
}

/// `[fabric.scheduler]`: the egress port's credit scheduler (not public: ours).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerSection {
    /// Credits at the port rate × (1 + overspeed).
    pub overspeed: f64,
    /// No credit while the egress port holds this many bytes or more.
    pub egress_stop: String,
    /// The highest classes served in strict priority (the highest first).
    pub strict: u32,
    /// Weights of the other classes, lowest class first, served by weighted
    /// round robin once no strict class asks (default: equal).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<u32>,
}

impl Default for SchedulerSection {
    fn default() -> Self {
        SchedulerSection { overspeed: 0.01, egress_stop: "16KB".into(), strict: 0, weights: Vec::new() }
    }
}

/// `[fabric.llfc]`: link-level credit on every fabric link (N23 per link).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlfcSection {
    /// A credit back every N2 cells the far end forwards.
    pub n2: u64,
    /// Extra cells of buffer beyond N2 per link; default: enough for one
    /// link round trip at the link rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n3: Option<u64>,
}

impl Default for LlfcSection {
    fn default() -> Self {
        LlfcSection { n2: 10, n3: None }
    }
}
