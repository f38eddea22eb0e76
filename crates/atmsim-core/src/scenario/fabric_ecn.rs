//! `fabric.voq.ecn_above`: ECN marking at the ingress VOQs (docs/fabric.md
//! "ECN at the VOQs"). A scheduled fabric holds its backlog in the VOQs, not
//! in the switch ports a DCTCP sender's marks come from (Alizadeh et al.
//! 2010 §3.1; RFC 8257 §3.1), so a fabric without marking leaves DCTCP a TCP
//! limited by its window. Broadcom's DNX marks ECN at the VOQs (by their
//! latency, in its documentation; not public in detail); our reading is
//! DCTCP's own rule on the VOQ's bytes: CE on an ECN-capable packet that
//! finds more than K bytes in its VOQ.

use super::schema::{FlowKind, Scenario};
use super::schema_fabric::FabricSection;
use super::units::parse_bytes;
use super::{err, ScenarioError};
use crate::transport::tcp::congestion::{variant, EcnUse};

const KEY: &str = "fabric.voq.ecn_above";

/// The marking threshold in bytes, if set: above 0 and below the FAP's VOQ
/// buffer.
pub(super) fn ecn_above(f: &FabricSection, voq_buffer: u64) -> Result<Option<u64>, ScenarioError> {
    let Some(text) = &f.voq.ecn_above else { return Ok(None) };
    let k = parse_bytes(text).or_else(|p| err(KEY, p))?;
    if k == 0 || k >= voq_buffer {
        return err(KEY, format!("must be above 0 B and below fabric.voq.buffer ({voq_buffer} B), not {k} B"));
    }
    Ok(Some(k))
}

/// Marking is on: some flow of the scenario as resolved (a workload's
/// written out) must send ECN-capable packets (TCP with `tcp.ecn` or a
/// DCTCP variant), or it would mark nothing.
pub(super) fn check_senders(s: &Scenario) -> Result<(), ScenarioError> {
    let tcp = s.flows.iter().any(|fl| fl.kind == FlowKind::Tcp);
    let ect = s.tcp.ecn || variant(&s.tcp.variant).is_some_and(|v| v.ecn == EcnUse::Dctcp);
    if !(tcp && ect) {
        return err(KEY, "does nothing here: no flow sends ECN-capable packets (TCP flows with tcp.ecn = true or a DCTCP tcp.variant)");
    }
    Ok(())
}
