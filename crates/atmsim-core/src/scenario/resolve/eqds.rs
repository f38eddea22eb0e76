//! An EQDS flow's parameters (`[eqds]`, transport/eqds/): what the key
//! ranges alone cannot check.

use super::{err, ScenarioError};
use crate::scenario::schema::Scenario;
use crate::transport::eqds::EqdsConfig;

/// `[eqds]`'s configuration for flow `fkey` of `bytes` payload bytes.
pub(super) fn eqds_config(s: &Scenario, fkey: &str, bytes: Option<u64>) -> Result<EqdsConfig, ScenarioError> {
    let cfg = EqdsConfig::from_params(&s.params);
    if bytes.is_none() {
        return err(format!("{fkey}.bytes"), "an EQDS flow needs a size (htsim's EQDS sender counts its backlog down from it)");
    }
    if cfg.paths > 1 << 15 {
        return err("eqds.paths", format!("{} is more than 32768 entropies", cfg.paths));
    }
    if cfg.mtu > u16::MAX as u32 {
        return err("eqds.mss", format!("{} bytes with the header is more than a packet of 65535 bytes", cfg.mtu));
    }
    Ok(cfg)
}
