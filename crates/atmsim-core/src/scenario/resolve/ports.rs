//! `[credit]`, `[switch]`, `[router]` and `[[link]]`: the output ports of
//! the network, two per link, with their buffer limits and discard policies.

use super::tcp::Sizes;
use super::{err, time, ScenarioError};
use crate::base::mechanism::Mechanism;
use crate::net::drop::{self, DropSpec, ResolveCx};
use crate::net::{Limit, CELL_PAYLOAD};
use crate::scenario::model::{Network, PortModel};
use crate::scenario::registry;
use crate::scenario::routing::Nodes;
use crate::scenario::schema::{InputServiceName, QueueingName, Scenario};
use crate::scenario::stop::Stop;
use crate::scenario::units::{parse_buffer, parse_rate, BufferSize};
use crate::time::Time;

/// Credit flow control as every link applies it.
struct Credit {
    /// (N2 + N3, N2) when enabled.
    config: Option<(u64, u64)>,
    switch_delay: Time,
    host_delay: Time,
}

/// `[credit]`: N23 needs ATM and a switch that never drops.
fn credit(s: &Scenario) -> Result<Credit, ScenarioError> {
    let config = if s.credit.enabled {
        if s.network != Network::Atm {
            return err("credit.enabled", "credit flow control needs network = \"atm\"");
        }
        if s.credit.n2 == 0 {
            return err("credit.n2", "must be at least 1");
        }
        if s.switch.policy != "tail" {
            return err("switch.policy", "credit-controlled VCs never drop; use \"tail\"");
        }
        // N2 + N3 cells of buffer per VC: a real switch has at most millions.
        let buf = s.credit.n2.checked_add(s.credit.n3).filter(|&b| b <= MAX_CREDIT_BUFFER);
        let Some(buf) = buf else {
            return err("credit.n3", format!("credit.n2 + credit.n3 is too large (at most {MAX_CREDIT_BUFFER} cells per VC)"));
        };
        Some((buf, s.credit.n2))
    } else {
        None
    };
    let switch_delay = time("credit.switch_delay", &s.credit.switch_delay)?;
    let host_delay = time("credit.host_delay", &s.credit.host_delay)?;
    Ok(Credit { config, switch_delay, host_delay })
}

/// The largest per-VC credit buffer (N2 + N3 cells) a scenario may ask for.
const MAX_CREDIT_BUFFER: u64 = 1 << 32;

/// The output ports, two per link (`A->B`, then `B->A`), in link order.
/// `stop`: asked once a link, a k = 48 tree's 83k links taking 260 to 430 ms
/// (the interrupt waited for them); what was built is kept (`Stop::keep`).
pub(super) fn ports(s: &Scenario, nodes: &Nodes, sizes: &Sizes, stop: &mut Stop) -> Result<Vec<PortModel>, ScenarioError> {
    let credit = credit(s)?;
    let policy = policy(s)?;
    let num_vcs = 2 * s.flows.len();
    let mut ports = stop.keep(Vec::with_capacity(2 * s.links.len()));
    // The (sender, receiver) pairs seen so far, a set, so that 10^5 links are not checked pairwise;
    // of node ids, not port names: freeing a k = 48 tree's 166k names held the next question 25 ms.
    let mut pairs = std::collections::HashSet::with_capacity(2 * s.links.len());
    for l in &s.links {
        stop.tick()?;
        let lkey = format!("link[{}-{}]", l.ends[0], l.ends[1]);
        let a = nodes.id(&format!("{lkey}.ends"), &l.ends[0])?;
        let b = nodes.id(&format!("{lkey}.ends"), &l.ends[1])?;
        if a == b {
            return err(format!("{lkey}.ends"), "a link needs two different nodes");
        }
        let rate = parse_rate(&l.rate).or_else(|p| err(format!("{lkey}.rate"), p))?;
        let delay = time(&format!("{lkey}.delay"), &l.delay)?;
        for (from, to) in [(a, b), (b, a)] {
            let name = format!("{}->{}", nodes.name(from), nodes.name(to));
            if !pairs.insert((from, to)) {
                return err(format!("{lkey}.ends"), format!("duplicate link {name}"));
            }
            let sender_is_host = nodes.is_host(from);
            let (limit, drop) = if sender_is_host {
                (Limit::Unlimited, DropSpec::Tail(()))
            } else {
                let (key, text) = match &l.buffer {
                    Some(b) => (format!("{lkey}.buffer"), b.as_str()),
                    None => ("switch.buffer".to_string(), s.switch.buffer.as_str()),
                };
                switch_limit(s, policy, &key, text, sizes, num_vcs)?
            };
            let limit = match (credit.config, sender_is_host) {
                // With credit a switch's VC queue is the receiver buffer of
                // the upstream link: N2 + N3 cells, never overrun.
                (Some((b, _)), false) => Limit::Units(b),
                _ => limit,
            };
            let credit_delay = if nodes.is_host(to) { credit.host_delay } else { credit.switch_delay };
            ports.push(PortModel {
                name,
                from,
                to,
                rate,
                delay,
                limit,
                drop,
                per_vc: credit.config.is_some() || (!sender_is_host && s.switch.queueing == QueueingName::PerVc),
                credit: credit.config,
                credit_delay,
            });
        }
    }
    Ok(ports.into_inner())
}

/// `switch.input_service`: round-robin service runs in cell slots, so it
/// needs ATM; credit-controlled VCs keep their receive buffers per link and
/// are not parked in input ports.
pub(super) fn input_round_robin(s: &Scenario) -> Result<bool, ScenarioError> {
    if s.switch.input_service == InputServiceName::Arrival {
        return Ok(false);
    }
    if s.network != Network::Atm {
        return err("switch.input_service", "\"round-robin\" serves cell slots; it needs network = \"atm\"");
    }
    if s.credit.enabled {
        return err("switch.input_service", "\"round-robin\" is not modelled with credit flow control (credit.enabled = true)");
    }
    Ok(true)
}

/// The drop policy of the switching nodes' output ports: `switch.policy` on
/// ATM, `router.policy` on a packet network, each a registered policy
/// (`net/drop/mod.rs`) that runs on the network (a policy's keys set while
/// another runs were refused as the scenario was read, `params.rs`).
fn policy(s: &Scenario) -> Result<&'static Mechanism, ScenarioError> {
    let switch = registry::find("switch.policy", &s.switch.policy)?;
    let router = registry::find("router.policy", &s.router.policy)?;
    let network = match s.network {
        Network::Atm => "atm",
        Network::Packet => "packet",
    };
    if s.network == Network::Packet && s.switch.queueing == QueueingName::PerVc {
        return err("switch.queueing", "per-VC queueing needs network = \"atm\"");
    }
    for m in [switch, router] {
        if !m.networks.includes(network) {
            return err(m.selected_by, format!("\"{}\" needs {}", m.name, m.networks.needs()));
        }
    }
    Ok(if s.network == Network::Atm { switch } else { router })
}

/// The buffer limit and discard policy of a switch (or router) output port.
fn switch_limit(
    s: &Scenario,
    policy: &'static Mechanism,
    key: &str,
    text: &str,
    sizes: &Sizes,
    num_vcs: usize,
) -> Result<(Limit, DropSpec), ScenarioError> {
    let size = parse_buffer(text).or_else(|p| err(key, p))?;
    let (limit, frame_cells) = match s.network {
        Network::Atm => (atm_limit(key, text, size)?, sizes.encap.cells(sizes.max_ip()) as u64),
        Network::Packet => (router_limit(policy, key, text, size, sizes.max_ip())?, 0),
    };
    let units = match limit {
        Limit::Units(n) => n,
        _ => 0,
    };
    let cx = ResolveCx { units, frame_cells, num_vcs, fifo: s.switch.queueing == QueueingName::Fifo, params: &s.params };
    let spec = drop::resolve(policy.selected_by, policy.name, &cx).expect("a registered policy resolves");
    let spec = spec.map_err(|e| ScenarioError { key: e.key, problem: e.problem })?;
    Ok((limit, spec))
}

/// An ATM switch port: a limit in cells.
fn atm_limit(key: &str, text: &str, size: BufferSize) -> Result<Limit, ScenarioError> {
    let cells = match size {
        // "Effective" buffer: payload bytes, 48 per cell (Aron §4).
        BufferSize::Bytes(b) => b / CELL_PAYLOAD as u64,
        BufferSize::Cells(c) => c,
        BufferSize::Packets(_) => return err(key, "an ATM switch buffer is given in bytes or cells, not packets"),
    };
    if cells == 0 {
        return err(key, format!("'{text}' is smaller than one cell (48 payload bytes)"));
    }
    Ok(Limit::Units(cells))
}

/// An IP router port: a limit in bytes or packets, at least one full packet;
/// in packets for any policy but tail drop.
fn router_limit(policy: &Mechanism, key: &str, text: &str, size: BufferSize, max_ip: u32) -> Result<Limit, ScenarioError> {
    let limit = match size {
        BufferSize::Bytes(b) if b < max_ip as u64 => {
            return err(key, format!("'{text}' cannot hold one full packet ({max_ip} bytes)"));
        }
        BufferSize::Bytes(b) => Limit::Bytes(b),
        BufferSize::Packets(0) => return err(key, "must hold at least one packet"),
        BufferSize::Packets(n) => Limit::Units(n),
        BufferSize::Cells(_) => return err(key, "a router buffer is given in bytes or packets, not cells"),
    };
    if drop::in_bytes(policy.selected_by, policy.name) {
        if !matches!(limit, Limit::Bytes(_)) {
            return err(key, format!("router.policy = \"{}\" needs a buffer in bytes (htsim's q packets is q × MSS bytes)", policy.name));
        }
    } else if policy.name != "tail" && !matches!(limit, Limit::Units(_)) {
        return err(key, format!("router.policy = \"{}\" needs a buffer in packets", policy.name));
    }
    Ok(limit)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stop_that_says_stop_ends_a_large_trees_ports_at_the_first_question() {
        // A k = 48 tree's 166k ports took 260 to 430 ms without a question: Ctrl-C waited for them.
        // With the time to ask already past, the stop is noticed at the first clock reading.
        use crate::scenario::routing::Nodes;
        use crate::scenario::stop::{Stop, ASK_AFTER};
        let text = include_str!("../../../../../python/atmsim/scenarios/eqds-one.toml");
        let s = crate::parse(text, &["topology.k=48".into(), "report.bottleneck=h0->tor0".into()]).unwrap();
        let mut go_on = || true;
        let tree = crate::scenario::fattree::expand(&s, &mut Stop::new(&mut go_on)).unwrap().expect("a fat tree");
        let nodes = Nodes::new(&tree.topology).unwrap();
        let sizes = super::super::tcp::sizes(&tree).unwrap();
        let mut asked = 0;
        let mut say_stop = || {
            asked += 1;
            false
        };
        let mut stop = Stop::new(&mut say_stop);
        std::thread::sleep(ASK_AFTER);
        let e = super::ports(&tree, &nodes, &sizes, &mut stop).unwrap_err();
        assert_eq!((e.key.as_str(), e.problem.as_str()), ("validation", "interrupted"));
        assert!(!stop.leftovers().is_empty(), "the ports built so far are handed back, not freed");
        drop(stop);
        assert_eq!(asked, 1);
    }

    #[test]
    fn a_credit_buffer_that_would_wrap_is_refused() {
        let e = crate::scenario::test_support::check(&[
            "credit.enabled=true",
            "credit.n2=9223372036854775807",
            "credit.n3=9223372036854775807",
        ])
        .unwrap_err();
        assert_eq!(e.key, "credit.n3", "{e}");
        assert!(e.problem.contains("too large"), "{e}");
    }

    #[test]
    fn credit_keys_without_credit_are_refused_and_defaults_restated_are_not() {
        use crate::scenario::test_support::{check, key_of};
        for (set, key) in [
            ("credit.n2=5", "credit.n2"),
            ("credit.n3=200", "credit.n3"),
            ("credit.switch_delay=1us", "credit.switch_delay"),
            ("credit.host_delay=0s", "credit.host_delay"),
            ("credit.transport=out-of-band", "credit.transport"),
        ] {
            assert_eq!(key_of(&[set]), key, "{set}");
            assert!(check(&["credit.enabled=true", set]).is_ok(), "{set} with credit on");
        }
        let e = check(&["credit.transport=out-of-band"]).unwrap_err();
        assert!(e.problem.contains("credit.enabled = true"), "{e}");
        // Restated defaults, in any unit, as the morris-kung95 scenarios write them.
        assert!(check(&[
            "credit.n2=10",
            "credit.n3=90",
            "credit.switch_delay=0s",
            "credit.host_delay=0.005ms",
            "credit.transport=in-band"
        ])
        .is_ok());
    }

    use crate::net::drop::{DropSpec, EomProtectSpec, FairShareConfig, FairShareRule};
    use crate::net::Limit;
    use crate::scenario::test_support::{check, key_of};

    #[test]
    fn unit_typo_is_named() {
        let e = check(&["switch.buffer=12XB"]).unwrap_err();
        assert_eq!(e.key, "switch.buffer");
        assert!(e.problem.contains("12XB"), "{e}");
    }

    #[test]
    fn buffer_smaller_than_a_cell() {
        let e = check(&["switch.buffer=40B"]).unwrap_err();
        assert_eq!(e.key, "switch.buffer");
        assert!(e.problem.contains("smaller than one cell"), "{e}");
    }

    #[test]
    fn eom_protection_with_ppd_is_a_policy_name() {
        let m = check(&["switch.policy=eom-protect-ppd", "switch.eom_reserve=4"]).unwrap();
        let switch_port = m.ports.iter().find(|p| matches!(p.drop, DropSpec::EomProtect(_))).unwrap();
        assert_eq!(switch_port.drop, DropSpec::EomProtect(EomProtectSpec { reserve: 4, ppd: true }));
        let m = check(&["switch.policy=eom-protect", "switch.eom_reserve=4"]).unwrap();
        assert!(m.ports.iter().any(|p| p.drop == DropSpec::EomProtect(EomProtectSpec { reserve: 4, ppd: false })));
    }

    #[test]
    fn selective_drop_and_fba_take_r_as_a_share_of_each_buffer() {
        let m = check(&["switch.policy=selective-drop", "switch.buffer=1000cells", "switch.fair_share.z=1.5"]).unwrap();
        let sd = FairShareConfig { rule: FairShareRule::SelectiveDrop, threshold: 900, z: 1.5 };
        assert!(m.ports.iter().any(|p| p.drop == DropSpec::FairShare(sd)));
        let m = check(&["switch.policy=fba", "switch.buffer=1000cells", "switch.fair_share.r=0.5"]).unwrap();
        let fba = FairShareConfig { rule: FairShareRule::FairBufferAllocation, threshold: 500, z: 0.8 };
        assert!(m.ports.iter().any(|p| p.drop == DropSpec::FairShare(fba)));
        for (bad, key) in [
            ("switch.fair_share.r=0", "switch.fair_share.r"),
            ("switch.fair_share.r=1.5", "switch.fair_share.r"),
            ("switch.fair_share.z=0", "switch.fair_share.z"),
            ("switch.fair_share.z=inf", "switch.fair_share.z"),
            ("switch.queueing=per-vc", "switch.policy"),
        ] {
            assert_eq!(key_of(&["switch.policy=fba", bad]), key, "{bad}");
        }
        // The parameters without their policy, or on a packet network, are refused.
        assert_eq!(key_of(&["switch.policy=epd", "switch.fair_share.z=1"]), "switch.fair_share.z");
        assert_eq!(key_of(&["network=packet", "switch.buffer=192528B", "switch.fair_share.r=0.5"]), "switch.fair_share.r");
        // Restating a default does nothing wrong; an unknown key in the policy's table is named.
        assert!(check(&["switch.policy=epd", "switch.fair_share.z=0.8"]).is_ok());
        assert_eq!(key_of(&["switch.policy=fba", "switch.fair_share.q=1"]), "switch.fair_share.q");
        assert_eq!(key_of(&["network=packet", "switch.buffer=192528B", "switch.policy=fba"]), "switch.policy");
    }

    #[test]
    fn packet_network_limits() {
        let m = check(&["network=packet", "switch.buffer=192528B"]).unwrap();
        assert_eq!(m.ports[1].limit, Limit::Bytes(192_528));
        assert_eq!(key_of(&["network=packet", "switch.buffer=100cells"]), "switch.buffer");
        assert_eq!(key_of(&["network=packet", "switch.buffer=1000B"]), "switch.buffer");
    }

    #[test]
    fn atm_only_keys_are_refused_on_a_packet_network() {
        let packet = |o: &str| key_of(&["network=packet", "switch.buffer=192528B", o]);
        assert_eq!(packet("switch.policy=ppd"), "switch.policy");
        assert_eq!(packet("switch.epd_threshold=100"), "switch.epd_threshold");
        assert_eq!(packet("switch.eom_reserve=4"), "switch.eom_reserve");
        assert_eq!(packet("switch.policy=eom-protect-ppd"), "switch.policy");
        assert_eq!(packet("switch.queueing=per-vc"), "switch.queueing");
        assert!(check(&["network=packet", "switch.buffer=192528B", "switch.policy=tail", "router.policy=tail"]).is_ok());
        assert_eq!(key_of(&["router.policy=red"]), "router.policy");
        assert_eq!(key_of(&["router.policy=random-drop"]), "router.policy");
        assert_eq!(key_of(&["network=packet", "switch.buffer=192528B", "router.policy=random-drop"]), "switch.buffer");
        let m = check(&["network=packet", "switch.buffer=20packets", "router.policy=random-drop", "router.include_arrival=false"]).unwrap();
        let random_drop = DropSpec::RandomDrop(false);
        let tail = DropSpec::Tail(());
        assert_eq!(m.ports.iter().map(|p| p.drop).collect::<Vec<_>>(), vec![tail, random_drop, random_drop, tail]);
        let m = check(&["network=packet", "switch.buffer=20packets", "router.policy=drop-front"]).unwrap();
        assert_eq!(
            m.ports.iter().map(|p| p.drop).collect::<Vec<_>>(),
            vec![DropSpec::Tail(()), DropSpec::DropFront(()), DropSpec::DropFront(()), DropSpec::Tail(())]
        );
        assert_eq!(key_of(&["network=packet", "switch.buffer=192528B", "router.policy=drop-front"]), "switch.buffer");
        assert_eq!(key_of(&["router.policy=drop-front"]), "router.policy");
        let m = check(&["network=packet", "switch.buffer=20packets", "router.policy=red", "router.red.max_th=12"]).unwrap();
        let max_th = |d: DropSpec| match d {
            DropSpec::Red(r) => Some(r.max_th),
            _ => None,
        };
        assert_eq!(m.ports.iter().map(|p| max_th(p.drop)).collect::<Vec<_>>(), vec![None, Some(12.0), Some(12.0), None]);
        assert_eq!(
            key_of(&["network=packet", "switch.buffer=20packets", "router.policy=red", "router.red.min_th=20"]),
            "router.red.min_th"
        );
        // Against the buffer (rule 2): a min_th the average queue never reaches is refused, a max_th past it is a slope.
        let red = |min, max| check(&["network=packet", "switch.buffer=20packets", "router.policy=red", min, max]);
        let e = red("router.red.min_th=20", "router.red.max_th=40").unwrap_err();
        assert_eq!(e.key, "router.red.min_th", "{e}");
        assert!(e.problem.contains("not below the buffer (20 packets)"), "{e}");
        assert!(red("router.red.min_th=19", "router.red.max_th=40").is_ok());
        assert_eq!(key_of(&["router.limit=5"]), "router.limit");
        // A key of a policy that does not run here does nothing: refused.
        assert_eq!(key_of(&["network=packet", "switch.buffer=20packets", "router.include_arrival=false"]), "router.include_arrival");
        assert_eq!(key_of(&["router.red.ecn=true"]), "router.red.ecn");
    }

    #[test]
    fn round_robin_input_service_needs_atm_without_credit() {
        assert!(!check(&[]).unwrap().input_round_robin);
        assert!(check(&["switch.input_service=round-robin"]).unwrap().input_round_robin);
        let packet = ["network=packet", "switch.buffer=192528B", "switch.input_service=round-robin"];
        assert_eq!(key_of(&packet), "switch.input_service");
        assert_eq!(key_of(&["credit.enabled=true", "switch.input_service=round-robin"]), "switch.input_service");
        assert_eq!(key_of(&["switch.input_service=fair"]), "switch.input_service");
    }

    #[test]
    fn one_buffer_key_for_both_networks() {
        // Aron & Druschel's flip: the same scenario with network = "packet".
        let atm = check(&["switch.buffer=192528B"]).unwrap();
        let packet = check(&["switch.buffer=192528B", "network=packet"]).unwrap();
        assert_eq!((atm.ports[1].limit, packet.ports[1].limit), (Limit::Units(4011), Limit::Bytes(192_528)));
        assert_eq!(packet.ports[1].drop, DropSpec::Tail(()));
    }

    #[test]
    fn the_default_buffer_flips_between_networks() {
        // No switch.buffer: 512 cells on ATM, their 24,576 payload bytes on a packet network.
        assert_eq!(check(&[]).unwrap().ports[1].limit, Limit::Units(512));
        assert_eq!(check(&["network=packet"]).unwrap().ports[1].limit, Limit::Bytes(24_576));
    }

    #[test]
    fn effective_buffer_is_payload_bytes() {
        let m = check(&["switch.buffer=192528B"]).unwrap();
        assert_eq!(m.ports[1].limit, Limit::Units(21 * 191));
    }
}
