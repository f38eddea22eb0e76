//! Hops to a destination for ECMP routes (`Router::ecmp_route`), counted
//! over the switches only and shared by every host behind one switch.
//!
//! A route forwards through switches alone, so a node's hops to `dst` are
//! what matters for the switches; a host's follow from its links (a source
//! host's hops are one more than the nearest of its neighbours'). A host
//! whose one incoming link comes from switch S is reached only through S:
//! its hops from any switch are that switch's hops to S plus one. So one
//! breadth-first search rooted at S serves every host behind it, and the
//! search stores a count per switch rather than per node: a k = 64 fat
//! tree's permutation needs 2,048 searches of 5,120 entries, where a search
//! per destination host over its 70,656 nodes took 131,072 (about 90 % of
//! its validation; docs/performance.md).

use super::Graph;
use crate::net::NodeId;
use std::collections::VecDeque;

/// Where the hops to a destination are counted from: a switch S and 1 for
/// a host that only S links into, else the destination itself and 0.
pub(super) fn root_of(g: &mut Graph, dst: NodeId) -> (NodeId, u32) {
    let (arcs, is_host) = (g.arcs, g.is_host);
    match g.into()[dst.ix()].as_slice() {
        &[only] if !is_host[arcs[only].0.ix()] => (arcs[only].0, 1),
        _ => (dst, 0),
    }
}

/// Each switch's place among the switches (u32::MAX for a host).
pub(super) fn switch_index(is_host: &[bool]) -> (Vec<u32>, usize) {
    let mut n = 0u32;
    let index = is_host
        .iter()
        .map(|&h| {
            if h {
                return u32::MAX;
            }
            n += 1;
            n - 1
        })
        .collect();
    (index, n as usize)
}

/// Per switch (by `index`), its hops to `root` through switches only
/// (u32::MAX: none), by a breadth-first search over the arcs backwards;
/// the root is a switch, or a host, which forwards only its own.
pub(super) fn switch_hops(g: &mut Graph, root: NodeId, index: &[u32], switches: usize) -> Vec<u32> {
    let mut hops = vec![u32::MAX; switches];
    let root_is_host = g.is_host[root.ix()];
    if !root_is_host {
        hops[index[root.ix()] as usize] = 0;
    }
    let hops_of = |hops: &[u32], v: NodeId| if v == root { 0 } else { hops[index[v.ix()] as usize] };
    let mut frontier = VecDeque::from([root]);
    let (arcs, is_host) = (g.arcs, g.is_host);
    let into = g.into();
    while let Some(v) = frontier.pop_front() {
        let next = hops_of(&hops, v) + 1;
        for &i in &into[v.ix()] {
            let u = arcs[i].0;
            if is_host[u.ix()] || u == root {
                continue;
            }
            let slot = &mut hops[index[u.ix()] as usize];
            if *slot == u32::MAX {
                *slot = next;
                frontier.push_back(u);
            }
        }
    }
    hops
}

/// A destination's hops, read from its root's search.
pub(super) struct ToDst<'a> {
    pub dst: NodeId,
    pub offset: u32,
    pub hops: &'a [u32],
    pub index: &'a [u32],
}

impl ToDst<'_> {
    /// A switch's hops to the destination (u32::MAX: unreachable).
    pub fn switch(&self, v: NodeId) -> u32 {
        self.hops[self.index[v.ix()] as usize].saturating_add(self.offset)
    }

    /// A node's hops as a route's next hop: the destination 0, a switch its
    /// own, another host none (it forwards nothing).
    pub fn next_hop(&self, g: &Graph, v: NodeId) -> u32 {
        match (v == self.dst, g.is_host[v.ix()]) {
            (true, _) => 0,
            (false, true) => u32::MAX,
            (false, false) => self.switch(v),
        }
    }

    /// A source host's hops: one more than its nearest next hop's.
    pub fn source(&self, g: &Graph, src: NodeId) -> u32 {
        let nearest = g.out[src.ix()].iter().map(|&i| self.next_hop(g, g.arcs[i].1)).min().unwrap_or(u32::MAX);
        nearest.saturating_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Graph, Router};
    use crate::net::{NodeId, PortId};

    /// The ECMP route as it was found before the searches were shared: the
    /// hops of every node to `dst` by a search rooted at `dst` itself, and
    /// each node's choice among its arcs one hop nearer.
    fn by_own_search(g: &mut Graph, src: NodeId, dst: NodeId, mut pick: impl FnMut(NodeId, usize) -> usize) -> Option<Vec<PortId>> {
        let hops = g.hops_to(dst);
        if hops[src.ix()] == u32::MAX {
            return None;
        }
        let nearer = |u: NodeId, i: usize| {
            let v = g.arcs[i].1;
            hops[v.ix()].wrapping_add(1) == hops[u.ix()] && (v == dst || !g.is_host[v.ix()])
        };
        let (mut path, mut u) = (Vec::new(), src);
        while u != dst {
            let choices = g.out[u.ix()].iter().filter(|&&i| nearer(u, i)).count();
            let k = if choices > 1 { pick(u, choices) } else { 0 };
            let i = g.out[u.ix()].iter().copied().filter(|&i| nearer(u, i)).nth(k).unwrap();
            path.push(PortId(i as u32));
            u = g.arcs[i].1;
        }
        Some(path)
    }

    /// On random graphs of hosts (single- and multi-homed, some linked to
    /// each other) and switches with parallel paths, every pair's route by
    /// the shared searches is the route by a search of its own, whatever the
    /// choices; and a fat tree's hosts behind one switch share one search.
    #[test]
    fn a_search_per_switch_routes_as_a_search_per_destination() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut routed = 0;
        for case in 0..400u64 {
            let (hosts, switches) = (rng.gen_range(2..10usize), rng.gen_range(1..8usize));
            let n = hosts + switches;
            let is_host: Vec<bool> = (0..n).map(|i| i < hosts).collect();
            let mut arcs = Vec::new();
            for h in 0..hosts {
                // Most hosts hang off one switch; some off two, or another host.
                for _ in 0..1 + (rng.gen_range(0..4) == 0) as usize {
                    let to = if rng.gen_range(0..8) == 0 { rng.gen_range(0..n) } else { hosts + rng.gen_range(0..switches) };
                    if to != h {
                        arcs.extend([(NodeId(h as u32), NodeId(to as u32)), (NodeId(to as u32), NodeId(h as u32))]);
                    }
                }
            }
            for _ in 0..rng.gen_range(0..3 * switches) {
                let (a, b) = (hosts + rng.gen_range(0..switches), hosts + rng.gen_range(0..switches));
                if a != b {
                    arcs.extend([(NodeId(a as u32), NodeId(b as u32)), (NodeId(b as u32), NodeId(a as u32))]);
                }
            }
            let mut reference = Graph::new(&arcs, &is_host);
            let mut router = Router::new(Graph::new(&arcs, &is_host));
            for s in 0..hosts {
                for d in (0..hosts).filter(|&d| d != s) {
                    let (s, d) = (NodeId(s as u32), NodeId(d as u32));
                    let pick = |u: NodeId, c: usize| (u.0 as usize * 7 + case as usize) % c;
                    let want = by_own_search(&mut reference, s, d, pick);
                    routed += want.is_some() as u32;
                    assert_eq!(router.ecmp_route(s, d, pick), want, "case {case}: {arcs:?} {s:?} -> {d:?}");
                }
            }
        }
        assert!(routed > 2_000, "most pairs reachable: {routed}");
    }
}
