//! An EQDS flow's parameters (`[eqds]`, transport/eqds/): what the key
//! ranges alone cannot check.

use super::{err, ScenarioError};
use crate::scenario::schema::Scenario;
use crate::transport::eqds::EqdsConfig;

/// `[eqds]`'s configuration for flow `fkey` of `bytes` payload bytes, on a
/// network whose packets are at most `ip_mtu` bytes.
pub(super) fn eqds_config(s: &Scenario, fkey: &str, bytes: Option<u64>, ip_mtu: u64) -> Result<EqdsConfig, ScenarioError> {
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
    // As NDP's: a packet larger than the network's MTU (issue 38, rule 2;
    // eqds.mss = 60000 ran on eqds-one's 9,180-byte MTU).
    if cfg.mtu as u64 > ip_mtu {
        let key = if s.params.get("eqds.mss").is_some() { "eqds.mss" } else { "eqds.header_bytes" };
        let problem = format!("a full EQDS packet (eqds.mss + eqds.header_bytes = {} bytes) must fit ip.mtu ({ip_mtu} bytes)", cfg.mtu);
        return err(key, problem);
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::check;

    /// BASE on a packet network with its one flow an EQDS flow, and these overrides.
    fn eqds(more: &[&str]) -> Result<crate::scenario::Model, crate::scenario::ScenarioError> {
        let mut o = vec!["network=\"packet\"", "router.policy=\"trim\"", "switch.buffer=\"145250B\"", "flow.f1.kind=\"eqds\""];
        o.extend_from_slice(more);
        check(&o)
    }

    #[test]
    fn bad_eqds_flows_name_the_key_and_the_problem() {
        let e = eqds(&[]).unwrap_err();
        assert_eq!(e.key, "flow[f1].bytes", "{e:?}");
        assert!(e.problem.contains("needs a size"), "{e:?}");
        assert!(eqds(&["flow.f1.bytes=\"2000000B\""]).is_ok());
        let e = eqds(&["flow.f1.bytes=\"2000000B\"", "eqds.paths=40000"]).unwrap_err();
        assert_eq!((e.key.as_str(), e.problem.as_str()), ("eqds.paths", "40000 is more than 32768 entropies"));
        let e = eqds(&["flow.f1.bytes=\"2000000B\"", "eqds.mss=65500"]).unwrap_err();
        assert_eq!(e.key, "eqds.mss", "{e:?}");
        let e = eqds(&["flow.f1.bytes=\"2000000B\"", "flow.f1.rate=\"1Mbps\""]).unwrap_err();
        assert!(e.problem.contains("its other keys are in [eqds]"), "{e:?}");
        let e = check(&["flow.f1.kind=\"eqds\"", "flow.f1.bytes=\"2000000B\""]).unwrap_err();
        assert_eq!(e.problem, "EQDS flows need network = \"packet\"", "{e:?}");
    }

    #[test]
    fn a_full_eqds_packet_must_fit_the_ip_mtu() {
        let e = eqds(&["flow.f1.bytes=\"2000000B\"", "ip.mtu=\"4149B\"", "tcp.mss=\"1000B\""]).unwrap_err();
        assert_eq!(e.key, "eqds.header_bytes", "{e}");
        assert!(e.problem.contains("(eqds.mss + eqds.header_bytes = 4150 bytes) must fit ip.mtu (4149 bytes)"), "{e}");
        assert_eq!(
            eqds(&["flow.f1.bytes=\"2000000B\"", "ip.mtu=\"4150B\"", "tcp.mss=\"1000B\"", "eqds.mss=4087"]).unwrap_err().key,
            "eqds.mss"
        );
        assert!(eqds(&["flow.f1.bytes=\"2000000B\"", "ip.mtu=\"4150B\"", "tcp.mss=\"1000B\""]).is_ok());
    }
}
