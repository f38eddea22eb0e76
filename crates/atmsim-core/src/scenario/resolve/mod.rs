//! Validation: a parsed [`Scenario`] resolved into a [`Model`], one small
//! function per section, each failing with a [`ScenarioError`] that names the
//! offending key. Sections are checked in a fixed order (network and TCP,
//! trace interval, topology, credit, switches and links, flows, trace port,
//! report, hosts), so a scenario with several problems always reports the
//! same one first.

mod flows;
mod ports;
mod tcp;

use super::model::{FlowModel, Model, PortModel};
use super::routing::Nodes;
use super::schema::{HostKind, Scenario};
use super::units::{parse_rate, parse_time};
use super::{err, ScenarioError};
use crate::host::HostModel;
use crate::net::PortId;
use crate::time::Time;

/// Checks a parsed scenario and resolves it into a [`Model`].
pub fn validate(s: &Scenario, seed: Option<u64>) -> Result<Model, ScenarioError> {
    let duration = positive_time("duration", &s.duration)?;
    let sizes = tcp::sizes(s)?;
    let (tcp, tick) = tcp::tcp(s, &sizes)?;
    let trace_interval = positive_time("trace.interval", &s.trace.interval)?;
    let nodes = Nodes::new(&s.topology)?;
    let ports = ports::ports(s, &nodes, &sizes)?;
    let flows = flows::flows(s, &nodes, &ports, &sizes)?;
    let trace_port = match &s.trace.port {
        Some(name) => Some(port_named("trace.port", &ports, name)?),
        None => None,
    };
    let bottleneck = bottleneck(s, &nodes, &ports, &flows)?;
    let host = host(s)?;
    let boston = super::boston::resolve(s, sizes.encap.cells(sizes.max_ip()))?;
    Ok(Model {
        host,
        name: s.name.clone(),
        network: s.network,
        duration,
        seed: seed.unwrap_or(s.seed),
        seed_use: s.seed_randomizes,
        encap: sizes.encap,
        header_bytes: sizes.header_bytes,
        tcp,
        tick,
        node_names: nodes.names,
        is_host: nodes.is_host,
        ports,
        flows,
        bottleneck,
        trace_interval,
        trace_port,
        credit_transport: s.credit.transport,
        boston,
    })
}

fn time(key: &str, s: &str) -> Result<Time, ScenarioError> {
    parse_time(s).or_else(|p| err(key, p))
}

fn positive_time(key: &str, s: &str) -> Result<Time, ScenarioError> {
    let t = time(key, s)?;
    if t == 0 {
        return err(key, "must be positive");
    }
    Ok(t)
}

fn port_named(key: &str, ports: &[PortModel], name: &str) -> Result<PortId, ScenarioError> {
    match ports.iter().position(|p| p.name == name) {
        Some(i) => Ok(PortId(i as u32)),
        None => err(key, format!("no port named '{name}' (use \"A->B\")")),
    }
}

/// `report.bottleneck`, or by default the switch port crossed by most flows
/// (ties: the slowest, then the first listed).
fn bottleneck(s: &Scenario, nodes: &Nodes, ports: &[PortModel], flows: &[FlowModel]) -> Result<PortId, ScenarioError> {
    if let Some(name) = &s.report.bottleneck {
        return port_named("report.bottleneck", ports, name);
    }
    let crossing = |p: usize| flows.iter().filter(|f| f.data_route.contains(&PortId(p as u32))).count();
    Ok((0..ports.len())
        .filter(|&p| !nodes.is_host(ports[p].from))
        .max_by_key(|&p| (crossing(p), std::cmp::Reverse(ports[p].rate.bits_per_second() as u64), std::cmp::Reverse(p)))
        .map(|p| PortId(p as u32))
        .unwrap_or(flows[0].data_route[0]))
}

/// `[host]`: ideal hosts, or Morris & Kung's CPU and adapter pipeline.
fn host(s: &Scenario) -> Result<Option<HostModel>, ScenarioError> {
    Ok(match s.host.model {
        HostKind::Ideal => None,
        HostKind::Adapter => Some(HostModel {
            tcp_rate: parse_rate(&s.host.tcp_rate).or_else(|p| err("host.tcp_rate", p))?,
            bus_rate: parse_rate(&s.host.bus_rate).or_else(|p| err("host.bus_rate", p))?,
        }),
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::check;

    #[test]
    fn base_scenario_is_valid_and_routed() {
        let m = check(&[]).unwrap();
        assert_eq!(m.flows[0].data_route.len(), 2);
        assert_eq!(m.flows[0].ack_route.len(), 2);
        assert_eq!(m.ports[m.bottleneck.ix()].name, "X->B");
    }
}
