//! `[atm]`, `[ip]` and `[tcp]`: packet sizes on the wire and the TCP
//! configuration.

use super::{err, positive_time, ScenarioError};
use crate::atm::aal5::Encapsulation;
use crate::scenario::registry;
use crate::scenario::schema::{Network, Scenario};
use crate::scenario::units::parse_bytes;
use crate::time::Time;
use crate::transport::tcp::congestion::EcnUse;
use crate::transport::tcp::{congestion, TcpConfig};

/// The sizes every section after `[tcp]` needs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sizes {
    /// IP + TCP header bytes per segment.
    pub header_bytes: u32,
    pub mtu: u64,
    pub mss: u64,
    pub encap: Encapsulation,
}

impl Sizes {
    /// The largest IP packet: a full segment with its headers.
    pub fn max_ip(&self) -> u32 {
        self.mss as u32 + self.header_bytes
    }
}

/// `ip.header_bytes`, `ip.mtu`, `tcp.mss` and `atm.encapsulation`.
pub(super) fn sizes(s: &Scenario) -> Result<Sizes, ScenarioError> {
    let header_bytes = s.ip.header_bytes;
    if header_bytes < 40 {
        return err("ip.header_bytes", "must be at least 40 (IP and TCP headers)");
    }
    let mtu = parse_bytes(&s.ip.mtu).or_else(|p| err("ip.mtu", p))?;
    if mtu > 65495 {
        // IPv4's total length is a 16-bit field (RFC 791 §3.1), and a
        // segment may add up to 40 bytes of TCP options (SACK) to the MTU.
        return err(
            "ip.mtu",
            format!("{mtu} bytes leaves no room for 40 bytes of TCP options in an IPv4 packet (65535 bytes at most): at most 65495"),
        );
    }
    let mss = parse_bytes(&s.tcp.mss).or_else(|p| err("tcp.mss", p))?;
    if mss == 0 {
        return err("tcp.mss", "must be positive");
    }
    if mss + header_bytes as u64 > mtu {
        return err("tcp.mss", format!("{mss} + {header_bytes} header bytes exceeds ip.mtu {mtu}"));
    }
    if mss > 65495 {
        return err("tcp.mss", "larger than an AAL5 PDU can carry");
    }
    Ok(Sizes { header_bytes, mtu, mss, encap: s.atm.encapsulation })
}

/// The rest of `[tcp]`: the configuration of every connection and the
/// coarse timer tick.
pub(super) fn tcp(s: &Scenario, sizes: &Sizes) -> Result<(TcpConfig, Time), ScenarioError> {
    let mss = sizes.mss;
    let window = parse_bytes(&s.tcp.window).or_else(|p| err("tcp.window", p))?;
    if window < mss {
        return err("tcp.window", "smaller than one segment");
    }
    if window > 1 << 30 {
        return err("tcp.window", "larger than RFC 1323 window scaling allows (1 GiB)");
    }
    let tick = positive_time("tcp.tick", &s.tcp.tick)?;
    let declared = registry::find("tcp.variant", &s.tcp.variant)?;
    let variant = congestion::variant(declared.name).expect("a registered variant");
    let initial_window = s.tcp.initial_window.unwrap_or(variant.initial_window);
    if initial_window == 0 {
        return err("tcp.initial_window", "must be at least one segment");
    }
    // tcp.rttmin_ticks = 0 was named as tcp.rxtmax_ticks ("must be >= tcp.rttmin_ticks >= 1").
    if s.tcp.rttmin_ticks == 0 {
        return err("tcp.rttmin_ticks", "must be at least 1 (coarse ticks), not 0");
    }
    if s.tcp.rxtmax_ticks < s.tcp.rttmin_ticks {
        return err("tcp.rxtmax_ticks", format!("must be at least tcp.rttmin_ticks ({}), not {}", s.tcp.rttmin_ticks, s.tcp.rxtmax_ticks));
    }
    // A variant declares the networks it runs on (DCTCP: packet networks, whose routers set CE).
    let network = if s.network == Network::Packet { "packet" } else { "atm" };
    if !declared.networks.includes(network) {
        return err("tcp.variant", format!("\"{}\" needs {}", declared.name, declared.networks.needs()));
    }
    let dctcp = variant.ecn == EcnUse::Dctcp;
    if s.tcp.ecn && s.network != Network::Packet {
        // On ATM a CE mark would be a cell's EFCI (TM 4.0), not the IP
        // header's: ECN here is the routers' (RFC 3168 §5).
        return err("tcp.ecn", "ECN marks packets at routers; it needs network = \"packet\"");
    }
    if s.tcp.limited_transmit && !variant.sack_option {
        return err(
            "tcp.limited_transmit",
            format!("sends by the SACK scoreboard's pipe (RFC 6675 §5): it needs a SACK variant, and tcp.variant = \"{}\"", variant.name()),
        );
    }
    let config = TcpConfig {
        variant,
        afr: variant.afr.then_some(s.tcp.afr_predictor),
        bp95: s.tcp.bp95,
        mss: mss as u32,
        snd_buf: window,
        rcv_buf: window,
        initial_window,
        delayed_ack: s.tcp.delayed_ack,
        rttmin_ticks: s.tcp.rttmin_ticks,
        rxtmax_ticks: s.tcp.rxtmax_ticks,
        give_up: s.tcp.give_up,
        // DCTCP runs on ECN whatever `tcp.ecn` says (RFC 8257 §3).
        ecn: s.tcp.ecn || dctcp,
        limited_transmit: s.tcp.limited_transmit,
    };
    Ok((config, tick))
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::check;

    #[test]
    fn an_mtu_beyond_ipv4s_total_length_is_refused() {
        let e = check(&["ip.mtu=65496B"]).unwrap_err();
        assert_eq!(e.key, "ip.mtu", "{e}");
        assert!(check(&["ip.mtu=65495B"]).is_ok());
    }

    #[test]
    fn the_retransmit_bounds_name_the_key_that_is_wrong() {
        assert_eq!(check(&["tcp.rttmin_ticks=0"]).unwrap_err().to_string(), "tcp.rttmin_ticks: must be at least 1 (coarse ticks), not 0");
        let e = check(&["tcp.rttmin_ticks=5", "tcp.rxtmax_ticks=4"]).unwrap_err();
        assert_eq!(e.to_string(), "tcp.rxtmax_ticks: must be at least tcp.rttmin_ticks (5), not 4");
    }

    #[test]
    fn ecn_needs_a_packet_network() {
        let e = check(&["tcp.ecn=true"]).unwrap_err();
        assert_eq!(e.key, "tcp.ecn", "{e}");
        assert!(check(&["tcp.ecn=true", "network=packet"]).unwrap().tcp.ecn);
    }

    #[test]
    fn limited_transmit_needs_a_sack_variant() {
        let e = check(&["tcp.limited_transmit=true"]).unwrap_err();
        assert_eq!(e.key, "tcp.limited_transmit", "{e}");
        assert!(e.problem.contains("\"lite\""), "{e}");
        assert!(check(&["tcp.limited_transmit=true", "tcp.variant=sack"]).unwrap().tcp.limited_transmit);
        assert!(!check(&["tcp.variant=sack"]).unwrap().tcp.limited_transmit);
    }

    #[test]
    fn mss_larger_than_mtu_allows() {
        let e = check(&["tcp.mss=9141B"]).unwrap_err();
        assert_eq!(e.key, "tcp.mss");
        assert!(e.problem.contains("mtu"), "{e}");
    }
}
