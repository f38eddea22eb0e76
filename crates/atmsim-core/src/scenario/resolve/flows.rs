//! `[[flow]]`: what each flow sends, from where to where, and its routes.

use super::arb::arb_config;
use super::eqds::eqds_config;
use super::tcp::Sizes;
use super::{err, time, ScenarioError};
use crate::scenario::model::{App, FlowModel, PortModel, UDP_HEADER_BYTES};
use crate::scenario::routing::{Graph, Nodes, Router};
use crate::scenario::schema::{FlowKind, FlowSpec, Scenario};
use crate::scenario::stop::Stop;
use crate::scenario::units::{parse_bytes, parse_rate};
use crate::scenario::Network;
use crate::transport::eqds::hash_choice;

use crate::scenario::generators::MAX_FLOW_BYTES;
use crate::time::Time;

/// Most shortest paths the NDP and EQDS flows of a run may hold together, each way counted (each such
/// flow owns every shortest path between its hosts). A path costs about 100 bytes through validation
/// and the run (200,000 flows across the pods of a k = 16 tree, 128 paths each: 2.2 GB validated,
/// 2.7 GB run), so this bound is about 3.4 GB; a k = 16 tree's 1,047,552-flow all-to-all, 1.3 × 10^8
/// paths, took more than 8 GB and failed an allocation in validation. A k = 64 tree's permutation
/// (2,048 paths a flow) reaches it at its 16,662nd flow, with 4.4 GB validated (docs/performance.md).
pub const MAX_PATHS: usize = 1 << 25;

#[cfg(test)]
thread_local! {
    /// [`MAX_PATHS`], lowered by a test on its own thread to reach it with a small tree.
    pub static PATH_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_PATHS) };
}

fn path_budget() -> usize {
    #[cfg(test)]
    return PATH_BUDGET.with(|b| b.get());
    #[cfg(not(test))]
    MAX_PATHS
}

/// Every flow, in file order; a scenario needs at least one.
pub(super) fn flows(
    s: &Scenario,
    nodes: &Nodes,
    ports: &[PortModel],
    sizes: &Sizes,
    seed: u64,
    stop: &mut Stop,
) -> Result<Vec<FlowModel>, ScenarioError> {
    let arcs: Vec<_> = ports.iter().map(|p| (p.from, p.to)).collect();
    let mut router = Router::new(Graph::new(&arcs, &nodes.is_host));
    // ECMP: the switches' salts, the ones EQDS's entropies hash with (E10).
    let salts = crate::rng::switch_salts(seed, nodes.names.len());
    // Room for every flow at once: grown by doubling, a copy of 5 × 10^5 flows (or a set's rehash)
    // held the loop for 0.2 to 0.4 s between two questions (k = 16, 10^6 connections). Kept:
    // freeing what was built when told to stop is the caller's (`Stop::keep`).
    let mut flows = stop.keep(Vec::with_capacity(s.flows.len()));
    // Names seen so far: a set, so that 10^5 flows are not compared pairwise.
    let mut names = std::collections::HashSet::with_capacity(s.flows.len());
    // Asked once, not per flow: per NDP or EQDS flow it scanned every flow, so a matrix's 10^6 flows took
    // 10^12 steps (a 1,024-host all-to-all ran for hours in validation).
    let ndp_beside_eqds = s.flows.iter().any(|g| g.kind == FlowKind::Ndp) && s.flows.iter().any(|g| g.kind == FlowKind::Eqds);
    let mut paths = 0;
    for f in &s.flows {
        stop.tick()?;
        let fkey = format!("flow[{}]", f.name);
        if !names.insert(f.name.as_str()) {
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
            // Sequence numbers count bytes from 1 in 64 bits: u64::MAX once wrapped the
            // transfer's end round to 0 and the flow sent nothing.
            if b > MAX_FLOW_BYTES {
                return err(format!("{fkey}.bytes"), format!("{} is too large (at most 2^62 bytes; use \"unbounded\")", f.bytes));
            }
            Some(b)
        };
        // A flow of one route takes the shortest path its switches' hashes
        // pick (ECMP per flow; each direction a flow of its own to the hash,
        // as EQDS's are, and entropy 0); NDP and EQDS flows own every path.
        let fix = 2 * flows.len() as u64;
        let (data_route, ack_route) = if matches!(f.kind, FlowKind::Ndp | FlowKind::Eqds) {
            (router.route(src, dst), router.route(dst, src))
        } else {
            (
                router.ecmp_route(src, dst, |n, choices| hash_choice(salts[n.ix()], fix, 0, choices)),
                router.ecmp_route(dst, src, |n, choices| hash_choice(salts[n.ix()], fix + 1, 0, choices)),
            )
        };
        let data_route = data_route
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.dst"), problem: format!("'{}' is unreachable from '{}'", f.dst, f.src) })?;
        let ack_route = ack_route
            .ok_or_else(|| ScenarioError { key: format!("{fkey}.src"), problem: format!("'{}' is unreachable from '{}'", f.src, f.dst) })?;
        let (mut data_paths, mut ack_paths) = (Vec::new(), Vec::new());
        let (app, send_at) = match f.kind {
            FlowKind::Ndp | FlowKind::Eqds => {
                let name = if f.kind == FlowKind::Ndp { "NDP" } else { "EQDS" };
                if f.rate.is_some() || f.datagram.is_some() || !f.send_at.is_empty() || f.window.is_some() || !f.drop_segments.is_empty() {
                    let keys = if f.kind == FlowKind::Ndp { "[ndp]" } else { "[eqds]" };
                    return err(
                        format!("{fkey}.kind"),
                        format!("an {name} flow takes src, dst, start and bytes (its other keys are in {keys})"),
                    );
                }
                if s.network != Network::Packet {
                    return err(format!("{fkey}.kind"), format!("{name} flows need network = \"packet\""));
                }
                if ndp_beside_eqds {
                    return err(format!("{fkey}.kind"), "NDP and EQDS flows cannot share a run (their hosts' NICs differ)");
                }
                let most = u16::MAX as usize + 1;
                let many = |n: usize| ScenarioError {
                    key: format!("{fkey}.dst"),
                    problem: format!("more than {most} shortest paths ({n} and more)"),
                };
                data_paths = router.all_paths(src, dst, most).map_err(many)?;
                ack_paths = router.all_paths(dst, src, most).map_err(many)?;
                paths += data_paths.len() + ack_paths.len();
                if paths > path_budget() {
                    let key = match &s.workload {
                        Some(w) if w.matrix.is_some() => "workload.matrix".to_string(),
                        Some(_) => "workload.pattern".to_string(),
                        None => fkey.clone(),
                    };
                    return err(
                        key,
                        format!(
                            "the first {} flows hold more than {} shortest paths (an {name} flow holds every one each way, {} here), \
                             about 100 bytes each, more than a run may hold (docs/performance.md): fewer flows, or flows over fewer paths",
                            flows.len() + 1,
                            path_budget(),
                            data_paths.len() + ack_paths.len()
                        ),
                    );
                }
                if f.kind == FlowKind::Ndp {
                    let cfg = crate::transport::ndp::NdpConfig::from_params(&s.params);
                    let full = cfg.mss as u64 + cfg.header as u64;
                    if full > sizes.mtu {
                        let key = if s.params.get("ndp.mss").is_some() { "ndp.mss" } else { "ndp.header_bytes" };
                        return err(
                            key,
                            format!("a full NDP packet (ndp.mss + ndp.header_bytes = {full} bytes) must fit ip.mtu ({} bytes)", sizes.mtu),
                        );
                    }
                    (App::Ndp(cfg), Vec::new())
                } else {
                    (App::Eqds(eqds_config(s, &fkey, bytes, sizes.mtu)?), Vec::new())
                }
            }
            FlowKind::Arb => {
                if f.rate.is_some() || f.datagram.is_some() || !f.send_at.is_empty() {
                    return err(format!("{fkey}.rate"), "rate, datagram and send_at are for kind = \"udp\"");
                }
                if s.network != Network::Packet {
                    return err(format!("{fkey}.kind"), "ARB flows need network = \"packet\"");
                }
                let mss = sizes.mss as u32;
                (App::Arb(arb_config(&s.arb, ports, &data_route, &ack_route, mss, sizes.header_bytes)?), Vec::new())
            }
            _ => app(f, &fkey, sizes)?,
        };
        let mut drop_segments = f.drop_segments.clone();
        drop_segments.sort_unstable();
        drop_segments.dedup();
        let window = match &f.window {
            None => None,
            Some(w) => {
                let b = parse_bytes(w).or_else(|p| err(format!("{fkey}.window"), p))?;
                if f.kind != FlowKind::Tcp || b < sizes.mss || b > 1 << 30 {
                    return err(format!("{fkey}.window"), "a TCP flow's window, one segment to 1 GiB");
                }
                Some(b)
            }
        };
        let (data_route, ack_route) = match (data_paths.first(), ack_paths.first()) {
            (Some(d), Some(a)) => (d.clone(), a.clone()),
            _ => (data_route, ack_route),
        };
        flows.push(FlowModel {
            name: f.name.clone(),
            app,
            src,
            dst,
            start,
            bytes,
            drop_segments,
            send_at,
            data_route,
            ack_route,
            window,
            data_paths,
            ack_paths,
        });
    }
    if flows.is_empty() {
        return err("flow", "a scenario needs at least one flow");
    }
    Ok(flows.into_inner())
}

/// A written flow whose start is at or past the run's end never sends a
/// byte: refused, naming its start (issue 38, rule 1: a key whose value has
/// no effect). Such starts were once the way to leave a source out of a
/// run, and counted its zero in `fairness`; `--set flow.NAME=off` leaves it
/// out instead (`overrides.rs`). A workload's connections are checked where
/// their matrix is read (`workload.rs`), naming its line.
pub(super) fn start_within_the_run(flows: &[FlowModel], duration: Time) -> Result<(), ScenarioError> {
    if let Some(f) = flows.iter().find(|f| f.start >= duration) {
        return err(
            format!("flow[{}].start", f.name),
            format!(
                "{} s is at or past the run's end (duration {} s): the flow would never start (start it earlier, or leave it out with --set flow.{}=off)",
                crate::time::secs(f.start),
                crate::time::secs(duration),
                f.name
            ),
        );
    }
    // So is a scripted datagram at or past the end: it would never be sent
    // (its times count from the flow's start, `world/build.rs`).
    for f in flows {
        if let Some((k, &t)) = f.send_at.iter().enumerate().find(|(_, &t)| f.start.saturating_add(t) >= duration) {
            return err(
                format!("flow[{}].send_at[{k}]", f.name),
                format!(
                    "{} s after the flow's start ({} s) is at or past the run's end (duration {} s): the datagram would never be sent",
                    crate::time::secs(t),
                    crate::time::secs(f.start),
                    crate::time::secs(duration)
                ),
            );
        }
    }
    Ok(())
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
        FlowKind::Arb | FlowKind::Ndp | FlowKind::Eqds => unreachable!("resolved by flows()"),
    };
    Ok((app, send_at))
}

#[cfg(test)]
mod tests {
    use crate::scenario::test_support::{check, BASE};
    use crate::scenario::{parse, validate};

    #[test]
    fn a_transfer_beyond_2_62_bytes_is_refused_not_wrapped() {
        let e = crate::scenario::test_support::check(&["flow.f1.bytes=18446744073709551615B"]).unwrap_err();
        assert_eq!(e.key, "flow[f1].bytes", "{e}");
        assert!(e.problem.contains("unbounded"), "{e}");
        assert!(crate::scenario::test_support::check(&["flow.f1.bytes=4611686018427387904B"]).is_ok());
    }

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

    #[test]
    fn an_ndp_packet_must_fit_the_mtu_rather_than_wrap() {
        let text = include_str!("../../../../../python/atmsim/scenarios/ndp-in-out.toml");
        let bad = |o: &[&str]| {
            let o: Vec<String> = o.iter().map(|x| x.to_string()).collect();
            validate(&parse(text, &o).unwrap(), None).unwrap_err()
        };
        let e = bad(&["ndp.mss=70000"]);
        assert_eq!(e.key, "ndp.mss", "{e}");
        assert!(e.problem.contains("70064 bytes") && e.problem.contains("ip.mtu (9180 bytes)"), "{e}");
        assert_eq!(bad(&["ndp.header_bytes=200"]).key, "ndp.header_bytes");
        assert!(validate(&parse(text, &["ndp.mss=9116".into()]).unwrap(), None).is_ok(), "9,116 + 64 = 9,180 fits");
    }

    #[test]
    fn a_flow_that_would_start_at_or_past_the_end_is_refused() {
        // Before: taken, and the flow sent nothing (aron97-topo1-atm for 1 s with f8 at 2 s: 0 segments).
        for start in ["1s", "2s", "100000s"] {
            let e = check(&["duration=1s", &format!("flow.f1.start={start}")]).unwrap_err();
            assert_eq!(e.key, "flow[f1].start", "{start}: {e}");
            assert!(e.problem.contains("at or past the run's end (duration 1 s)") && e.problem.contains("flow.f1=off"), "{e}");
        }
        assert!(check(&["duration=1s", "flow.f1.start=999999999999ps"]).is_ok(), "a picosecond before the end starts");
    }

    #[test]
    fn a_scripted_datagram_at_or_past_the_end_is_refused() {
        // Before: taken, and the datagram was never sent (issue 38, rule 1).
        let udp = |at: &str| -> Vec<String> {
            ["duration=1s", "flow.f1.kind=udp", "flow.f1.start=0.5s", &format!("flow.f1.send_at=[\"0.1s\", \"{at}\"]")]
                .map(String::from)
                .to_vec()
        };
        for at in ["0.5s", "2s"] {
            let o = udp(at);
            let e = check(&o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap_err();
            assert_eq!(e.key, "flow[f1].send_at[1]", "{at}: {e}");
            assert!(e.problem.contains("at or past the run's end (duration 1 s)"), "{e}");
        }
        let o = udp("499999999999ps");
        assert!(check(&o.iter().map(String::as_str).collect::<Vec<_>>()).is_ok(), "a picosecond before the end is sent");
    }

    #[test]
    fn the_paths_of_ndp_and_eqds_flows_are_bounded_naming_what_gave_the_flows() {
        // A k = 16 tree's 1,024-host all-to-all (1,047,552 EQDS flows, 1.3 × 10^8 paths) took more than
        // 8 GB in validation and ended in a failed allocation. Here the bound is lowered to reach it on
        // eqds-one's k = 4 tree, whose flow h0 -> h13 holds 4 paths each way.
        let text = include_str!("../../../../../python/atmsim/scenarios/eqds-one.toml");
        let with = |o: &[&str], budget: usize| {
            super::PATH_BUDGET.with(|b| b.set(budget));
            let o: Vec<String> = o.iter().map(|x| x.to_string()).collect();
            let r = validate(&parse(text, &o).unwrap(), None);
            super::PATH_BUDGET.with(|b| b.set(super::MAX_PATHS));
            r
        };
        assert!(with(&[], 8).is_ok());
        let e = with(&[], 7).unwrap_err();
        assert_eq!(e.key, "flow[Eqds_0_13]", "{e}");
        assert!(e.problem.contains("more than 7 shortest paths (an EQDS flow holds every one each way, 8 here)"), "{e}");
        let path = std::env::temp_dir().join(format!("atmsim-paths-{}.cm", std::process::id()));
        std::fs::write(&path, "Nodes 16\nConnections 3\n0->13 start 0 size 1000\n1->14 start 0 size 1000\n2->15 start 0 size 1000\n")
            .unwrap();
        let matrix = with(&[&format!("workload.matrix={}", path.display())], 20);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(matrix.unwrap_err().key, "workload.matrix");
        assert_eq!(with(&["workload.pattern=permutation", "workload.kind=ndp"], 100).unwrap_err().key, "workload.pattern");
        assert!(with(&["workload.pattern=permutation"], super::MAX_PATHS).is_ok());
    }

    #[test]
    fn a_flow_window_of_its_own() {
        use crate::scenario::test_support::{check, key_of};
        assert_eq!(check(&["flow.f1.window=64KB"]).unwrap().flows[0].window, Some(64_000));
        assert_eq!(check(&[]).unwrap().flows[0].window, None);
        assert_eq!(key_of(&["flow.f1.window=1KB"]), "flow[f1].window");
    }
}
