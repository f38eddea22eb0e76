//! The topology as plain data (named nodes, directed arcs) and the routes
//! over it: today the shortest path in hops, hosts not forwarding.

use super::schema::Topology;
use super::{err, ScenarioError};
use crate::net::{NodeId, PortId};
use std::collections::{HashMap, VecDeque};

mod to_dst;

/// The nodes of a scenario: hosts first, then switches, in file order.
#[derive(Clone, Debug, Default)]
pub struct Nodes {
    pub names: Vec<String>,
    pub is_host: Vec<bool>,
    /// Name to id, so that resolving a scenario of 10^5 flows is not
    /// quadratic in its nodes.
    ids: HashMap<String, u32>,
}

impl Nodes {
    /// Checks the names of `[topology]` (non-empty, no "->", unique).
    pub fn new(t: &Topology) -> Result<Nodes, ScenarioError> {
        let mut nodes = Nodes::default();
        for (list, host, key) in [(&t.hosts, true, "topology.hosts"), (&t.switches, false, "topology.switches")] {
            for n in list {
                if n.is_empty() || n.contains("->") {
                    return err(key, format!("invalid node name '{n}'"));
                }
                if nodes.ids.insert(n.clone(), nodes.names.len() as u32).is_some() {
                    return err(key, format!("node '{n}' is defined twice"));
                }
                nodes.names.push(n.clone());
                nodes.is_host.push(host);
            }
        }
        Ok(nodes)
    }

    /// The id of node `n`, or an error naming `key`.
    pub fn id(&self, key: &str, n: &str) -> Result<NodeId, ScenarioError> {
        match self.ids.get(n) {
            Some(&i) => Ok(NodeId(i)),
            None => err(key, format!("unknown node '{n}'")),
        }
    }

    pub fn is_host(&self, n: NodeId) -> bool {
        self.is_host[n.ix()]
    }

    pub fn name(&self, n: NodeId) -> &str {
        &self.names[n.ix()]
    }
}

/// The arcs (arc `i` is port `i`, from `.0` to `.1`) with each node's
/// outgoing arcs listed in arc order, for routing many flows.
pub struct Graph<'a> {
    arcs: &'a [(NodeId, NodeId)],
    is_host: &'a [bool],
    out: Vec<Vec<usize>>,
    /// Each node's incoming arcs (for multipath routes only: built on first use).
    into: Option<Vec<Vec<usize>>>,
}

impl<'a> Graph<'a> {
    pub fn new(arcs: &'a [(NodeId, NodeId)], is_host: &'a [bool]) -> Graph<'a> {
        let mut out = vec![Vec::new(); is_host.len()];
        for (i, &(from, _)) in arcs.iter().enumerate() {
            out[from.ix()].push(i);
        }
        Graph { arcs, is_host, out, into: None }
    }

    /// Each node's incoming arcs (built on first use).
    fn into(&mut self) -> &Vec<Vec<usize>> {
        let (arcs, nodes) = (self.arcs, self.is_host.len());
        self.into.get_or_insert_with(|| {
            let mut into = vec![Vec::new(); nodes];
            for (i, &(_, to)) in arcs.iter().enumerate() {
                into[to.ix()].push(i);
            }
            into
        })
    }

    /// Hops from every node to `dst` (reached only through switches), by
    /// a breadth-first search over the arcs backwards.
    fn hops_to(&mut self, dst: NodeId) -> Vec<u32> {
        let (arcs, is_host) = (self.arcs, self.is_host);
        let into = self.into();
        let mut hops = vec![u32::MAX; is_host.len()];
        hops[dst.ix()] = 0;
        let mut frontier = VecDeque::from([dst]);
        while let Some(v) = frontier.pop_front() {
            if v != dst && is_host[v.ix()] {
                continue;
            }
            for &i in &into[v.ix()] {
                let u = arcs[i].0;
                if hops[u.ix()] == u32::MAX {
                    hops[u.ix()] = hops[v.ix()] + 1;
                    frontier.push_back(u);
                }
            }
        }
        hops
    }

    /// Every shortest path from `src` to `dst` through switches, in the
    /// order of a depth-first walk taking each node's arcs in arc order
    /// (for a generated fat tree, htsim's order); `Err(n)` if there are more
    /// than `most`.
    pub fn all_shortest_paths(&mut self, src: NodeId, dst: NodeId, most: usize) -> Result<Vec<Vec<PortId>>, usize> {
        let hops = self.hops_to(dst);
        let mut paths = Vec::new();
        if hops[src.ix()] == u32::MAX {
            return Ok(paths);
        }
        // Depth-first over arcs that bring `dst` one hop nearer.
        let mut stack: Vec<(NodeId, usize)> = vec![(src, 0)];
        let mut path: Vec<PortId> = Vec::new();
        while let Some((u, next)) = stack.pop() {
            if u == dst {
                paths.push(path.clone());
                if paths.len() > most {
                    return Err(paths.len());
                }
                path.pop();
                continue;
            }
            let arcs = &self.out[u.ix()];
            let step = arcs[next..].iter().position(|&i| {
                let v = self.arcs[i].1;
                hops[v.ix()] + 1 == hops[u.ix()] && (v == dst || !self.is_host[v.ix()])
            });
            match step {
                Some(k) => {
                    let i = arcs[next + k];
                    stack.push((u, next + k + 1));
                    stack.push((self.arcs[i].1, 0));
                    path.push(PortId(i as u32));
                }
                None => {
                    path.pop();
                }
            }
        }
        Ok(paths)
    }

    /// Breadth-first shortest path from `src` to `dst`, not forwarding
    /// through hosts. Ties go to the arc listed first, so to the link listed
    /// first in the file.
    pub fn shortest_path(&self, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        self.path(&self.search(src, Some(dst)), src, dst)
    }

    /// The arc each node is first reached by in a breadth-first search from
    /// `src`, not forwarding through hosts (other than `src`). With `stop`,
    /// the search ends when that node is first reached: the arc it was
    /// reached by is the one a full search would keep.
    fn search(&self, src: NodeId, stop: Option<NodeId>) -> Vec<Option<usize>> {
        let mut via: Vec<Option<usize>> = vec![None; self.is_host.len()];
        let mut seen = vec![false; self.is_host.len()];
        let mut frontier = VecDeque::from([src]);
        seen[src.ix()] = true;
        while let Some(u) = frontier.pop_front() {
            if u != src && self.is_host[u.ix()] {
                continue;
            }
            for &i in &self.out[u.ix()] {
                let to = self.arcs[i].1;
                if !seen[to.ix()] {
                    seen[to.ix()] = true;
                    via[to.ix()] = Some(i);
                    if Some(to) == stop {
                        return via;
                    }
                    frontier.push_back(to);
                }
            }
        }
        via
    }

    /// The ports from `root` to `dst` along a search's arcs (None if the
    /// search never reached `dst`).
    fn path(&self, via: &[Option<usize>], root: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let mut path = Vec::new();
        let mut cur = dst;
        while cur != root {
            let i = via[cur.ix()]?;
            path.push(PortId(i as u32));
            cur = self.arcs[i].0;
        }
        path.reverse();
        Some(path)
    }
}

/// Routes many flows over one [`Graph`]. A host with one link reaches every
/// node through the switch at its other end, and its breadth-first search
/// after that first hop is the search rooted at that switch (the host itself
/// forwards nothing), so one search tree per such switch serves every host
/// behind it, whichever destination it sends to: a dumbbell of 10^5 flows is
/// routed in two searches instead of 10^5. Other sources search on their own.
pub struct Router<'a> {
    graph: Graph<'a>,
    trees: HashMap<NodeId, Vec<Option<usize>>>,
    /// Per switch, hops to each root an ECMP route's destination was
    /// counted from (`ecmp_route`, `routing/to_dst.rs`), and the entries
    /// they hold, cleared when they pass [`MAX_HOP_ENTRIES`].
    hops: HashMap<NodeId, Vec<u32>>,
    hop_entries: usize,
    /// Each node's place among the switches, and their number.
    switch_index: Vec<u32>,
    switches: usize,
    /// Whether two shortest paths may join the same ends (None: not yet known).
    ties: Option<bool>,
}

/// ECMP's cache of hop counts: 64 MB at most, whatever the flows.
const MAX_HOP_ENTRIES: usize = 1 << 24;

impl<'a> Router<'a> {
    pub fn new(graph: Graph<'a>) -> Router<'a> {
        let (switch_index, switches) = to_dst::switch_index(graph.is_host);
        Router { graph, trees: HashMap::new(), hops: HashMap::new(), hop_entries: 0, switch_index, switches, ties: None }
    }

    /// Can two shortest paths join the same two nodes? Not when the
    /// switches and their links form a forest and every host has one link
    /// (the path between two nodes of a tree is unique): then every flow's
    /// one route is its only shortest path, and ECMP has nothing to choose.
    fn may_tie(&mut self) -> bool {
        let g = &self.graph;
        *self.ties.get_or_insert_with(|| {
            if (0..g.is_host.len()).any(|n| g.is_host[n] && g.out[n].len() > 1) {
                return true;
            }
            // Union-find over the switch-to-switch links (each link is two
            // arcs; one of them, from the lower id, stands for it).
            let mut parent: Vec<usize> = (0..g.is_host.len()).collect();
            fn root(parent: &mut [usize], mut n: usize) -> usize {
                while parent[n] != n {
                    parent[n] = parent[parent[n]];
                    n = parent[n];
                }
                n
            }
            for &(a, b) in g.arcs.iter().filter(|(a, b)| a.0 < b.0 && !g.is_host[a.ix()] && !g.is_host[b.ix()]) {
                let (ra, rb) = (root(&mut parent, a.ix()), root(&mut parent, b.ix()));
                if ra == rb {
                    return true;
                }
                parent[ra] = rb;
            }
            false
        })
    }

    /// ECMP: the shortest path from `src` to `dst` that each node on the
    /// way selects among its arcs one hop nearer `dst` (in arc order, so in
    /// the order of [`Router::all_paths`]) with `pick(node, choices)`, as a
    /// switch hashing a flow does; the one shortest path where there is no
    /// choice anywhere (`Router::route`, without a search per destination).
    pub fn ecmp_route(&mut self, src: NodeId, dst: NodeId, mut pick: impl FnMut(NodeId, usize) -> usize) -> Option<Vec<PortId>> {
        if !self.may_tie() {
            return self.route(src, dst);
        }
        let (root, offset) = to_dst::root_of(&mut self.graph, dst);
        if !self.hops.contains_key(&root) {
            if self.hop_entries + self.switches > MAX_HOP_ENTRIES {
                self.hops.clear();
                self.hop_entries = 0;
            }
            let hops = to_dst::switch_hops(&mut self.graph, root, &self.switch_index, self.switches);
            self.hop_entries += hops.len();
            self.hops.insert(root, hops);
        }
        let g = &self.graph;
        let to = to_dst::ToDst { dst, offset, hops: &self.hops[&root], index: &self.switch_index };
        let mut left = to.source(g, src);
        if left == u32::MAX {
            return None;
        }
        // Arcs one hop nearer `dst`, through switches only.
        let nearer = |left: u32, i: usize| to.next_hop(g, g.arcs[i].1) == left - 1;
        let mut path = Vec::with_capacity(left as usize);
        let mut u = src;
        while u != dst {
            let choices = g.out[u.ix()].iter().filter(|&&i| nearer(left, i)).count();
            let k = if choices > 1 { pick(u, choices) } else { 0 };
            let i = g.out[u.ix()].iter().copied().filter(|&i| nearer(left, i)).nth(k).expect("a node off dst has a nearer arc");
            path.push(PortId(i as u32));
            u = g.arcs[i].1;
            left -= 1;
        }
        Some(path)
    }

    /// Every shortest path from `src` to `dst` ([`Graph::all_shortest_paths`]).
    pub fn all_paths(&mut self, src: NodeId, dst: NodeId, most: usize) -> Result<Vec<Vec<PortId>>, usize> {
        self.graph.all_shortest_paths(src, dst, most)
    }

    /// The same path as [`Graph::shortest_path`].
    pub fn route(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let g = &self.graph;
        let &[first] = g.out[src.ix()].as_slice() else {
            return g.shortest_path(src, dst);
        };
        let root = g.arcs[first].1;
        if g.is_host[root.ix()] || root == dst {
            return g.shortest_path(src, dst);
        }
        let via = self.trees.entry(root).or_insert_with(|| g.search(root, None));
        let mut path = g.path(via, root, dst)?;
        path.insert(0, PortId(first as u32));
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortest_path(arcs: &[(NodeId, NodeId)], is_host: &[bool], src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        Graph::new(arcs, is_host).shortest_path(src, dst)
    }

    /// The router's cached trees give exactly the per-flow search's paths,
    /// ties included, on random graphs of hosts (most single-homed) and
    /// switches.
    #[test]
    fn router_paths_equal_the_per_flow_search() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let (hosts, switches) = (rng.gen_range(2..8usize), rng.gen_range(1..6usize));
            let n = hosts + switches;
            let is_host: Vec<bool> = (0..n).map(|i| i < hosts).collect();
            let mut arcs = Vec::new();
            for _ in 0..rng.gen_range(1..3 * n) {
                let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
                if a != b && (!is_host[a] || !is_host[b]) {
                    arcs.push((NodeId(a as u32), NodeId(b as u32)));
                    arcs.push((NodeId(b as u32), NodeId(a as u32)));
                }
            }
            let graph = Graph::new(&arcs, &is_host);
            let mut router = Router::new(Graph::new(&arcs, &is_host));
            for s in 0..hosts {
                for d in 0..hosts {
                    if s != d {
                        let (s, d) = (NodeId(s as u32), NodeId(d as u32));
                        assert_eq!(router.route(s, d), graph.shortest_path(s, d), "{arcs:?} {s:?} -> {d:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_shortest_path_of_a_fat_tree_in_htsims_order() {
        // k = 4: hosts h0 (pod 0) and h15 (pod 3) are joined by (k/2)² = 4
        // paths, by aggregation switch then core; hosts under one ToR by one.
        let (nodes, arcs, is_host) = k4_tree();
        let id = |n: &str| NodeId(nodes.iter().position(|x| x == n).unwrap() as u32);
        let mut g = Graph::new(&arcs, &is_host);
        let paths = g.all_shortest_paths(id("h0"), id("h15"), 100).unwrap();
        let via = |p: &Vec<PortId>| [1, 2, 3].map(|k| nodes[arcs[p[k].ix()].0.ix()].clone()).join(",");
        assert_eq!(paths.iter().map(via).collect::<Vec<_>>(), ["tor0,agg0,core0", "tor0,agg0,core2", "tor0,agg1,core1", "tor0,agg1,core3"]);
        assert!(paths.iter().all(|p| p.len() == 6 && Some(p.clone()) == Some(p.clone())));
        assert_eq!(g.all_shortest_paths(id("h0"), id("h1"), 100).unwrap().len(), 1);
        assert_eq!(g.all_shortest_paths(id("h0"), id("h2"), 100).unwrap().len(), 2);
        assert_eq!(g.all_shortest_paths(id("h0"), id("h15"), 3), Err(4));
        assert_eq!(g.shortest_path(id("h0"), id("h15")).as_ref(), Some(&paths[0]));
    }

    #[test]
    fn an_ecmp_route_is_the_path_the_switches_hashes_select() {
        // Hop by hop, each node choosing among its arcs one hop nearer, is
        // the same choice as EQDS's replay of the hashes over every path
        // (entropy 0), for every pair of hosts and flow numbers.
        use crate::transport::eqds::{entropy_paths, hash_choice};
        let (nodes, arcs, is_host) = k4_tree();
        let salts: Vec<u64> = (0..nodes.len() as u64).map(|n| n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 77).collect();
        let mut router = Router::new(Graph::new(&arcs, &is_host));
        let mut of_h0_h15 = std::collections::HashSet::new();
        for (src, dst) in (0..16).flat_map(|s| (0..16).map(move |d| (s, d))).filter(|(s, d)| s != d) {
            let (src, dst) = (NodeId(src), NodeId(dst));
            let paths = router.all_paths(src, dst, 100).unwrap();
            for flow in 0..8u64 {
                let route = router.ecmp_route(src, dst, |n, c| hash_choice(salts[n.ix()], flow, 0, c)).unwrap();
                let chosen = entropy_paths(&paths, |p| salts[arcs[p.ix()].0.ix()], flow, &[0])[0];
                assert_eq!(route, paths[chosen as usize]);
                if (src, dst) == (NodeId(0), NodeId(15)) {
                    of_h0_h15.insert(route);
                }
            }
        }
        assert!(of_h0_h15.len() > 1, "flows of one pair of hosts take different paths");
        // Where the switches form a tree no node chooses: the one shortest path.
        let (arcs, is_host) = graph();
        let mut router = Router::new(Graph::new(&arcs, &is_host));
        let route = router.ecmp_route(NodeId(0), NodeId(1), |_, _| panic!("no choice on a tree"));
        assert_eq!(route, router.route(NodeId(0), NodeId(1)));
    }

    /// The k = 4 fat tree as `scenario/fattree.rs` lists it: its node names,
    /// arcs (both directions of each link) and which nodes are hosts.
    fn k4_tree() -> (Vec<String>, Vec<(NodeId, NodeId)>, Vec<bool>) {
        let nodes: Vec<String> = (0..16)
            .map(|h| format!("h{h}"))
            .chain((0..8).map(|t| format!("tor{t}")))
            .chain((0..8).map(|a| format!("agg{a}")))
            .chain((0..4).map(|c| format!("core{c}")))
            .collect();
        let id = |n: &str| NodeId(nodes.iter().position(|x| x == n).unwrap() as u32);
        let mut arcs = Vec::new();
        let mut link = |a: &str, b: &str| {
            arcs.push((id(a), id(b)));
            arcs.push((id(b), id(a)));
        };
        for h in 0..16 {
            link(&format!("h{h}"), &format!("tor{}", h / 2));
        }
        for t in 0..8 {
            for a in (t / 2) * 2..(t / 2) * 2 + 2 {
                link(&format!("tor{t}"), &format!("agg{a}"));
            }
        }
        for a in 0..8 {
            for l in 0..2 {
                link(&format!("agg{a}"), &format!("core{}", a % 2 + 2 * l));
            }
        }
        let is_host: Vec<bool> = (0..nodes.len()).map(|i| i < 16).collect();
        (nodes, arcs, is_host)
    }

    fn ids(v: &[u32]) -> Vec<PortId> {
        v.iter().map(|&i| PortId(i)).collect()
    }

    /// A(0) - X(2) - B(1), and a host C(3) hanging off A and B.
    fn graph() -> (Vec<(NodeId, NodeId)>, Vec<bool>) {
        let (a, b, x, c) = (NodeId(0), NodeId(1), NodeId(2), NodeId(3));
        let arcs = vec![(a, x), (x, a), (x, b), (b, x), (a, c), (c, a), (c, b), (b, c)];
        (arcs, vec![true, true, false, true])
    }

    #[test]
    fn shortest_path_goes_through_switches_not_hosts() {
        let (arcs, is_host) = graph();
        assert_eq!(shortest_path(&arcs, &is_host, NodeId(0), NodeId(1)), Some(ids(&[0, 2])));
        assert_eq!(shortest_path(&arcs, &is_host, NodeId(1), NodeId(0)), Some(ids(&[3, 1])));
        // A host is a destination, never a transit node.
        assert_eq!(shortest_path(&arcs, &is_host, NodeId(0), NodeId(3)), Some(ids(&[4])));
    }

    #[test]
    fn unreachable_is_none() {
        let (arcs, mut is_host) = graph();
        is_host.push(true);
        assert_eq!(shortest_path(&arcs, &is_host, NodeId(0), NodeId(4)), None);
    }

    #[test]
    fn node_names_are_checked() {
        let t = |h: &[&str], s: &[&str]| Topology {
            hosts: h.iter().map(|x| x.to_string()).collect(),
            switches: s.iter().map(|x| x.to_string()).collect(),
            ..crate::scenario::test_support::explicit()
        };
        let nodes = Nodes::new(&t(&["A", "B"], &["X"])).unwrap();
        assert_eq!(nodes.id("k", "X").unwrap(), NodeId(2));
        assert_eq!(nodes.id("k", "Y").unwrap_err().key, "k");
        assert_eq!(Nodes::new(&t(&["A"], &["A"])).unwrap_err().key, "topology.switches");
        assert_eq!(Nodes::new(&t(&["A->B"], &[])).unwrap_err().key, "topology.hosts");
    }
}
