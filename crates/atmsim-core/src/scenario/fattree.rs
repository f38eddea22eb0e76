//! `[topology] kind = "fattree"`: the hosts, switches and links of a k-ary
//! fat tree, generated as htsim's `FatTreeTopology` builds them
//! (docs/fabrics.md, A1), into the scenario's `[topology]` and `[[link]]`,
//! which then validate as if written by hand.
//!
//! Three tiers: k pods of k/2 ToR switches and k/2 aggregation switches, and
//! (k/2)² core switches; host h sits under ToR ⌊h/(k/2)⌋, in pod
//! ⌊h/(k²/4)⌋; every ToR links to every aggregation switch of its pod; the
//! aggregation switch at position j of its pod links to cores j, j + k/2,
//! j + 2·k/2, ... (htsim: `core = podpos + aggs_per_pod · l`). Two tiers
//! (leaf-spine): k ToRs of k/2 hosts, each linked to all k/2 aggregation
//! switches. Links are listed hosts first, then ToR–aggregation, then
//! aggregation–core, each in switch order, so that the shortest paths of a
//! flow come out in htsim's order (`FatTreeTopology::get_paths`: by
//! aggregation switch, then by core).

use super::schema::{LinkSpec, Scenario, Topology, TopologyKind};
use super::stop::{Kept, Stop};
use super::{err, ScenarioError};

/// The largest radix generated (a k = 64 tree has 65,536 hosts and 5,120 switches).
const MAX_K: u32 = 64;

/// The scenario with its topology written out (a copy: the scenario as
/// written, with `kind = "fattree"`, is what `atmsim show` prints).
/// `stop`: asked once a link (a k = 48 tree's 83k links took 124 ms,
/// before the validation's first question).
pub fn expand(s: &Scenario, stop: &mut Stop) -> Result<Option<Scenario>, ScenarioError> {
    let t = &s.topology;
    if t.kind == TopologyKind::Explicit {
        for (set, key) in [
            (t.k.is_some(), "topology.k"),
            (t.tiers.is_some(), "topology.tiers"),
            (t.host_count.is_some(), "topology.host_count"),
            (t.rate.is_some(), "topology.rate"),
            (t.delay.is_some(), "topology.delay"),
        ] {
            if set {
                return err(key, "does nothing here: it shapes a generated topology (topology.kind = \"fattree\")");
            }
        }
        return Ok(None);
    }
    if !t.hosts.is_empty() || !t.switches.is_empty() || !s.links.is_empty() {
        let key = if !t.hosts.is_empty() {
            "topology.hosts"
        } else if !t.switches.is_empty() {
            "topology.switches"
        } else {
            "link"
        };
        return err(key, "does nothing here: topology.kind = \"fattree\" generates the hosts, switches and links");
    }
    let tiers = t.tiers.unwrap_or(3);
    if tiers != 2 && tiers != 3 {
        return err("topology.tiers", format!("must be 2 or 3, not {tiers}"));
    }
    let capacity = |k: u32| if tiers == 3 { k * k * k / 4 } else { k * k / 2 };
    let k = match (t.k, t.host_count) {
        (Some(k), _) if k < 2 || k % 2 != 0 || k > MAX_K => return err("topology.k", format!("must be even, 2 to {MAX_K}, not {k}")),
        (Some(k), _) => k,
        (None, Some(n)) => match (1..=MAX_K / 2).map(|h| 2 * h).find(|&k| capacity(k) >= n) {
            Some(k) => k,
            None => return err("topology.host_count", format!("more hosts than a k = {MAX_K} tree holds ({})", capacity(MAX_K))),
        },
        (None, None) => return err("topology.k", "a fat tree needs k or topology.host_count"),
    };
    let hosts = t.host_count.unwrap_or(capacity(k));
    if hosts == 0 || hosts > capacity(k) {
        return err("topology.host_count", format!("must be 1 to {} (what a {tiers}-tier, k = {k} tree holds), not {hosts}", capacity(k)));
    }
    let (Some(rate), Some(delay)) = (&t.rate, &t.delay) else {
        let key = if t.rate.is_none() { "topology.rate" } else { "topology.delay" };
        return err(key, "a fat tree needs every link's rate and delay (topology.rate, topology.delay)");
    };
    // Checked here, under the keys written: the generated links would name a link the user never wrote.
    super::units::parse_rate(rate).or_else(|p| err("topology.rate", p))?;
    super::units::parse_time(delay).or_else(|p| err("topology.delay", p))?;
    let tree = if tiers == 3 { three_tier(k, hosts, stop)? } else { leaf_spine(k, hosts, stop)? };
    let mut links = stop.keep(Vec::with_capacity(tree.links.len()));
    for (a, b) in tree.links.iter() {
        stop.tick()?;
        links.push(LinkSpec { ends: [a.clone(), b.clone()], rate: rate.clone(), delay: delay.clone(), buffer: None });
    }
    let mut out = s.clone();
    out.links = links.into_inner();
    out.topology = Topology {
        kind: TopologyKind::Explicit,
        hosts: tree.hosts,
        switches: tree.switches,
        port_rate: t.port_rate.clone(),
        k: None,
        tiers: None,
        host_count: None,
        rate: None,
        delay: None,
        switch_latency: t.switch_latency.clone(),
    };
    Ok(Some(out))
}

/// A generated tree: its nodes and its links (by end names), in order.
struct Tree {
    hosts: Vec<String>,
    switches: Vec<String>,
    /// Kept: what an interrupted validation built is freed by its caller (`Stop::keep`).
    links: Kept<Vec<(String, String)>>,
}

fn names(prefix: &str, n: u32) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The three-tier tree of radix `k` with its first `hosts` hosts.
fn three_tier(k: u32, hosts: u32, stop: &mut Stop) -> Result<Tree, ScenarioError> {
    let half = k / 2;
    let (tors, aggs, cores) = (k * half, k * half, half * half);
    let mut links = stop.keep(Vec::with_capacity((3 * hosts) as usize));
    for h in 0..hosts {
        stop.tick()?;
        links.push((format!("h{h}"), format!("tor{}", h / half)));
    }
    for tor in 0..tors {
        let pod = tor / half;
        for agg in pod * half..(pod + 1) * half {
            stop.tick()?;
            links.push((format!("tor{tor}"), format!("agg{agg}")));
        }
    }
    for agg in 0..aggs {
        let podpos = agg % half;
        for l in 0..half {
            stop.tick()?;
            links.push((format!("agg{agg}"), format!("core{}", podpos + half * l)));
        }
    }
    let switches = [names("tor", tors), names("agg", aggs), names("core", cores)].concat();
    Ok(Tree { hosts: names("h", hosts), switches, links })
}

/// The two-tier (leaf-spine) tree of radix `k`: k ToRs of k/2 hosts, each
/// linked to every one of the k/2 aggregation switches.
fn leaf_spine(k: u32, hosts: u32, stop: &mut Stop) -> Result<Tree, ScenarioError> {
    let half = k / 2;
    let mut links = stop.keep(Vec::with_capacity((hosts + k * half) as usize));
    for h in 0..hosts {
        stop.tick()?;
        links.push((format!("h{h}"), format!("tor{}", h / half)));
    }
    for tor in 0..k {
        for agg in 0..half {
            stop.tick()?;
            links.push((format!("tor{tor}"), format!("agg{agg}")));
        }
    }
    Ok(Tree { hosts: names("h", hosts), switches: [names("tor", k), names("agg", half)].concat(), links })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_rate_or_delay_is_named_by_its_topology_key() {
        // Each was named by the first generated link, "link[h0-tor0].rate", a key no one wrote.
        let tree = |set: &str| {
            let text = "name = \"t\"\nnetwork = \"packet\"\nduration = \"1ms\"\n[topology]\nkind = \"fattree\"\nk = 4\n\
                        rate = \"10Gbps\"\ndelay = \"1us\"\n[[flow]]\nname = \"f\"\nsrc = \"h0\"\ndst = \"h13\"\n";
            crate::scenario::validate(&crate::scenario::parse(text, &[set.to_string()]).unwrap(), None).map(|_| ())
        };
        assert!(tree("topology.rate=1Gbps").is_ok());
        for (set, key, problem) in [
            ("topology.rate=10Gbs", "topology.rate", "unknown rate unit 'Gbs'"),
            ("topology.rate=0bps", "topology.rate", "must be positive"),
            ("topology.rate=-1Gbps", "topology.rate", "must be positive"),
            ("topology.delay=-1us", "topology.delay", "must not be negative"),
            ("topology.delay=1e9s", "topology.delay", "unknown time unit"),
            ("topology.delay=0.5ps", "topology.delay", "not a whole number"),
        ] {
            let e = tree(set).unwrap_err();
            assert_eq!((e.key.as_str(), e.problem.contains(problem)), (key, true), "{set}: {e}");
        }
    }

    #[test]
    fn a_k8_tree_has_htsims_shape() {
        let mut go_on = || true;
        let mut stop = Stop::new(&mut go_on);
        let t = three_tier(8, 128, &mut stop).unwrap();
        assert_eq!((t.hosts.len(), t.switches.len()), (128, 80), "NDP's 128-host tree: 80 switches");
        // 128 host links, 32 ToRs × 4 aggs, 32 aggs × 4 cores.
        assert_eq!(t.links.len(), 128 + 128 + 128);
        assert_eq!(t.links[127], ("h127".to_string(), "tor31".to_string()));
        assert!(
            t.links.contains(&("tor31".to_string(), "agg31".to_string())) && !t.links.contains(&("tor31".to_string(), "agg27".to_string()))
        );
        // Aggregation switch 5 (position 1 of pod 1) reaches cores 1, 5, 9, 13.
        let cores: Vec<&str> = t.links.iter().filter(|(a, _)| a == "agg5").map(|(_, c)| c.as_str()).collect();
        assert_eq!(cores, ["core1", "core5", "core9", "core13"]);
        let ls = leaf_spine(4, 8, &mut stop).unwrap();
        assert_eq!((ls.switches.len(), ls.links.len()), (6, 8 + 8));
    }
}
