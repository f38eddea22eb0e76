//! `[[flow]]`: what each flow sends, from where to where, and its routes.

use super::tcp::Sizes;
use super::{err, time, ScenarioError};
use crate::scenario::model::{App, FlowModel, PortModel, UDP_HEADER_BYTES};
use crate::scenario::routing::{shortest_path, Nodes};
use crate::scenario::schema::{FlowKind, FlowSpec, Scenario};
use crate::scenario::units::{parse_bytes, parse_rate};
use crate::time::Time;

/// Every flow, in file order; a scenario needs at least one.
pub(super) fn flows(s: &Scenario, nodes: &Nodes, ports: &[PortModel], sizes: &Sizes) -> Result<Vec<FlowModel>, ScenarioError> {
    let arcs: Vec<_> = ports.iter().map(|p| (p.from, p.to)).collect();
    let mut flows = Vec::new();
    for f in &s.flows {
        let fkey = format!("flow[{}]", f.name);
        if s.flows.iter().filter(|g| g.name == f.name).count() > 1 {
            return err(fkey, "flow name used twice");
        }
        let src = nodes.id(&format!("{fkey}.src"), &f.src)?;
        let dst = nodes.id(&format!("{fkey}.dst"), &f.dst)?;
        if !nodes.is_host(src) {
            return err(format!("{fkey}.src"), format!("'{}' is a switch, not a host", f.src));
        }
        if !nodes.is_host(dst) || src == dst {
            return err(format!("{fkey}.dst"), format!("'{}' must be another host", f.dst));
        }
        let start = time(&format!("{fkey}.start"), &f.start)?;
        let bytes = if f.bytes == "unbounded" {
            None
        } else {
            let b = parse_bytes(&f.bytes).or_else(|p| err(format!("{fkey}.bytes"), p))?;
            if b == 0 {
                return err(format!("{fkey}.bytes"), "must be positive");
            }
            Some(b)
        };
        let data_route = shortest_path(&arcs, &nodes.is_host, src, dst)
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.dst"), problem: format!("'{}' is unreachable from '{}'", f.dst, f.src) })?;
        let ack_route = shortest_path(&arcs, &nodes.is_host, dst, src)
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.src"), problem: format!("'{}' is unreachable from '{}'", f.src, f.dst) })?;
        let (app, send_at) = app(f, &fkey, sizes)?;
        let mut drop_segments = f.drop_segments.clone();
        drop_segments.sort_unstable();
        drop_segments.dedup();
        flows.push(FlowModel { name: f.name.clone(), app, src, dst, start, bytes, drop_segments, send_at, data_route, ack_route });
    }
    if flows.is_empty() {
        return err("flow", "a scenario needs at least one flow");
    }
    Ok(flows)
}

/// A TCP transfer, or a UDP source at a constant rate or at scripted times.
fn app(f: &FlowSpec, fkey: &str, sizes: &Sizes) -> Result<(App, Vec<Time>), ScenarioError> {
    let mut send_at = Vec::new();
    let app = match f.kind {
        FlowKind::Tcp => {
            if f.rate.is_some() || f.datagram.is_some() || !f.send_at.is_empty() {
                return err(format!("{fkey}.rate"), "rate, datagram and send_at are for kind = \"udp\"");
            }
            App::Tcp
        }
        FlowKind::Udp => {
            let rate = match (&f.rate, f.send_at.is_empty()) {
                (Some(_), false) => return err(format!("{fkey}.send_at"), "give either rate or send_at, not both"),
                (None, true) => return err(format!("{fkey}.rate"), "a udp flow needs a rate (or send_at)"),
                (Some(r), true) => Some(parse_rate(r).or_else(|p| err(format!("{fkey}.rate"), p))?),
                (None, false) => None,
            };
            for (k, t) in f.send_at.iter().enumerate() {
                let at = time(&format!("{fkey}.send_at[{k}]"), t)?;
                if send_at.last().is_some_and(|&prev| at < prev) {
                    return err(format!("{fkey}.send_at[{k}]"), "times must be ascending");
                }
                send_at.push(at);
            }
            let udp = UDP_HEADER_BYTES as u64;
            let payload = match &f.datagram {
                Some(d) => parse_bytes(d).or_else(|p| err(format!("{fkey}.datagram"), p))?,
                // The IP size of a full TCP segment with 40 header bytes.
                None => sizes.mss + 40 - udp,
            };
            if payload == 0 || payload.checked_add(udp).is_none_or(|ip| ip > sizes.mtu) {
                return err(format!("{fkey}.datagram"), format!("must be 1..={} bytes (ip.mtu)", sizes.mtu - udp));
            }
            App::Cbr { payload: payload as u32, rate }
        }
    };
    Ok((app, send_at))
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, BASE};
    use crate::scenario::{parse, validate};

    #[test]
    fn a_datagram_larger_than_the_mtu_is_refused_not_wrapped() {
        for d in ["18446744073709551615B", "18446744073709551600B", "9153B"] {
            let e = check(&["flow.f1.kind=udp", "flow.f1.rate=1Mbps", &format!("flow.f1.datagram={d}")]).unwrap_err();
            assert_eq!(e.key, "flow[f1].datagram", "{d}: {e}");
        }
        assert!(check(&["flow.f1.kind=udp", "flow.f1.rate=1Mbps", "flow.f1.datagram=9152B"]).is_ok());
    }

    #[test]
    fn unreachable_destination() {
        let text = BASE.replace("hosts = [\"A\", \"B\"]", "hosts = [\"A\", \"B\", \"C\"]").replace("dst = \"B\"", "dst = \"C\"");
        let e = validate(&parse(&text, &[]).unwrap(), None).unwrap_err();
        assert_eq!(e.key, "flow[f1].dst");
        assert!(e.problem.contains("unreachable"), "{e}");
    }
}
