//! `[capture]`: which ports and hosts a run with captures on (`atmsim run
//! --pcap DIR`) writes as pcap files (docs/captures.md). The section only
//! names them; nothing is recorded unless the run asks for captures.

pub use super::model::CaptureModel;
use super::model::{App, Model, Network};
use super::schema::Scenario;
pub use super::schema_capture::{DEFAULT_MAX_BYTES, DEFAULT_SNAPLEN};
use super::units::parse_bytes;
use super::{err, ScenarioError};
use crate::net::{HostId, PortId};

const MIN_SNAPLEN: u32 = 64;
const MAX_SNAPLEN: u32 = 262_144;
/// Room for the files' headers and a few packets.
const MIN_MAX_BYTES: u64 = 4096;

/// Resolves `[capture]` (None when the section is absent).
pub(super) fn resolve(s: &Scenario, port_names: &[&str], host_names: &[&str]) -> Result<Option<CaptureModel>, ScenarioError> {
    let Some(c) = &s.capture else { return Ok(None) };
    let ports = indices("capture.ports", &c.ports, port_names, " (use \"A->B\")")?.into_iter().map(PortId).collect::<Vec<_>>();
    let hosts = indices("capture.hosts", &c.hosts, host_names, "")?.into_iter().map(HostId).collect::<Vec<_>>();
    if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&c.snaplen) {
        return err("capture.snaplen", format!("{} is outside {MIN_SNAPLEN}..={MAX_SNAPLEN} bytes", c.snaplen));
    }
    let max_bytes = match parse_bytes(&c.max_bytes) {
        Ok(n) if n >= MIN_MAX_BYTES => n,
        Ok(_) => {
            return err("capture.max_bytes", format!("'{}' is less than {MIN_MAX_BYTES} bytes (the pcap files of a run)", c.max_bytes))
        }
        Err(e) => return err("capture.max_bytes", e),
    };
    if ports.is_empty() && hosts.is_empty() {
        // Named by the key written (`--set capture.snaplen=128` alone created the section), as any key
        // that does nothing here is (issue 38, rule 1); the values above are checked first.
        return err(
            c.written.as_deref().unwrap_or("capture"),
            "does nothing here: [capture] names no port and no host (set capture.ports or capture.hosts)",
        );
    }
    Ok(Some(CaptureModel { ports, hosts, snaplen: c.snaplen, max_bytes }))
}

/// The position of each of `names` in `known`, each named once.
fn indices(key: &str, names: &[String], known: &[&str], hint: &str) -> Result<Vec<u32>, ScenarioError> {
    let mut out = Vec::new();
    for name in names {
        match known.iter().position(|k| k == name).map(|i| i as u32) {
            Some(i) if !out.contains(&i) => out.push(i),
            Some(_) => return err(key, format!("'{name}' is named twice")),
            None => return err(key, format!("no {} named '{name}'{hint}", if hint.is_empty() { "host" } else { "port" })),
        }
    }
    Ok(out)
}

impl CaptureModel {
    /// What `--pcap` captures when the scenario has no `[capture]`: every
    /// host that sends or receives a flow, and the bottleneck port.
    pub fn default_for(m: &Model) -> CaptureModel {
        let mut host_of = Vec::with_capacity(m.is_host.len());
        let mut n = 0;
        for &h in &m.is_host {
            host_of.push(h.then_some(HostId(n)));
            n += h as u32;
        }
        let mut hosts: Vec<HostId> = m.flows.iter().flat_map(|f| [f.src, f.dst]).filter_map(|node| host_of[node.ix()]).collect();
        hosts.sort();
        hosts.dedup();
        let max_bytes = parse_bytes(DEFAULT_MAX_BYTES).expect("a valid default");
        CaptureModel { ports: vec![m.bottleneck], hosts, snaplen: DEFAULT_SNAPLEN, max_bytes }
    }
}

/// Can every packet of the model be written with true IPv4 headers? A TCP
/// header is 20 bytes plus options in 4-byte words (at most 40), so the
/// model's `ip.header_bytes` must be 40 plus a multiple of 4, at most 80;
/// and an IPv4 total length is 16 bits.
pub fn check(m: &Model) -> Result<(), ScenarioError> {
    let tcp = m.flows.iter().any(|f| f.app == App::Tcp);
    let hb = m.header_bytes;
    if tcp && (!hb.is_multiple_of(4) || hb > 80) {
        return err(
            "ip.header_bytes",
            format!("{hb} cannot be written as IPv4 + TCP headers in a capture (40 plus a multiple of 4, at most 80)"),
        );
    }
    let mtu = m.tcp.mss as u64 + hb as u64;
    if mtu > u16::MAX as u64 {
        return err("ip.mtu", format!("packets of {mtu} bytes are longer than an IPv4 packet can be (65535) in a capture"));
    }
    if m.network == Network::Atm && m.flows.len() * 2 > (u16::MAX as usize - 32) {
        return err("capture", "too many VCs for 16-bit VCIs");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, key_of};

    #[test]
    fn names_are_checked_and_keyed() {
        assert_eq!(key_of(&["capture.ports=[\"Q->B\"]"]), "capture.ports");
        assert_eq!(key_of(&["capture.hosts=[\"X\"]"]), "capture.hosts"); // a switch, not a host
        assert_eq!(key_of(&["capture.hosts=[\"A\", \"A\"]"]), "capture.hosts");
        assert_eq!(key_of(&["capture.snaplen=10", "capture.hosts=[\"A\"]"]), "capture.snaplen");
        // A section that names nothing: the key written, checked after its value (capture.snaplen=0 was "capture").
        assert_eq!(key_of(&["capture.snaplen=96"]), "capture.snaplen");
        assert_eq!(key_of(&["capture.snaplen=0"]), "capture.snaplen");
        assert_eq!(key_of(&["capture.max_bytes=1B"]), "capture.max_bytes");
        assert_eq!(key_of(&["capture.hosts=[]", "capture.snaplen=128"]), "capture.hosts");
        let file = |extra: &str| crate::scenario::parse(&format!("{}{extra}", crate::scenario::test_support::BASE), &[]);
        assert_eq!(crate::scenario::validate(&file("[capture]\nsnaplen = 128\n").unwrap(), None).unwrap_err().key, "capture.snaplen");
        assert_eq!(crate::scenario::validate(&file("[capture]\n").unwrap(), None).unwrap_err().key, "capture");
        assert_eq!(key_of(&["capture.colour=1"]), "capture.colour");
        assert_eq!(key_of(&["capture.max_bytes=100B", "capture.hosts=[\"A\"]"]), "capture.max_bytes");
        assert_eq!(key_of(&["capture.max_bytes=lots", "capture.hosts=[\"A\"]"]), "capture.max_bytes");
        assert_eq!(check(&["capture.max_bytes=10MB", "capture.hosts=[\"A\"]"]).unwrap().capture.unwrap().max_bytes, 10_000_000);
        let m = check(&["capture.ports=[\"X->B\"]", "capture.hosts=[\"B\"]"]).unwrap();
        let c = m.capture.unwrap();
        assert_eq!((c.ports.len(), c.hosts.len(), c.snaplen), (1, 1, super::DEFAULT_SNAPLEN));
        assert_eq!(m.ports[c.ports[0].ix()].name, "X->B");
    }

    #[test]
    fn headers_must_fit_ipv4_and_tcp() {
        let e = check(&["ip.header_bytes=50", "capture.hosts=[\"A\"]"]).unwrap_err();
        assert_eq!(e.key, "ip.header_bytes", "{e}");
        assert!(check(&["ip.header_bytes=48", "capture.hosts=[\"A\"]"]).is_ok());
        // Without [capture] the same scenario is valid: nothing is captured.
        assert!(check(&["ip.header_bytes=50"]).is_ok());
    }

    #[test]
    fn default_is_the_flow_hosts_and_the_bottleneck() {
        let m = check(&[]).unwrap();
        let c = super::CaptureModel::default_for(&m);
        assert_eq!(c.ports, vec![m.bottleneck]);
        assert_eq!(c.hosts.len(), 2);
    }
}
