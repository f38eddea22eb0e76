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
    if !cfg.paths.is_power_of_two() || cfg.paths > 1 << 15 {
        return err("eqds.paths", format!("{} is not a power of two from 1 to 32768 (htsim masks entropies with paths - 1)", cfg.paths));
    }
    if cfg.mtu > u16::MAX as u32 {
        return err("eqds.mtu", format!("{} bytes is more than a packet of 65535 bytes", cfg.mtu));
    }
    if cfg.header >= cfg.mtu {
        return err("eqds.header_bytes", format!("{} bytes leaves no payload in an MTU of {} bytes", cfg.header, cfg.mtu));
    }
    Ok(cfg)
}
