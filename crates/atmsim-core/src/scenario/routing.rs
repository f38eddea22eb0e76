//! The topology as plain data (named nodes, directed arcs) and the routes
//! over it: today the shortest path in hops, hosts not forwarding.

use super::schema::Topology;
use super::{err, ScenarioError};
use crate::net::{NodeId, PortId};
use std::collections::VecDeque;

/// The nodes of a scenario: hosts first, then switches, in file order.
#[derive(Clone, Debug, Default)]
pub struct Nodes {
    pub names: Vec<String>,
    pub is_host: Vec<bool>,
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
                if nodes.names.contains(n) {
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
        match self.names.iter().position(|x| x == n) {
            Some(i) => Ok(NodeId(i as u32)),
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

/// Breadth-first shortest path from `src` to `dst` over the arcs (arc `i`
/// is port `i`, from `.0` to `.1`), not forwarding through hosts. Ties go to
/// the arc listed first, so to the link listed first in the file.
pub fn shortest_path(arcs: &[(NodeId, NodeId)], is_host: &[bool], src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
    let n = is_host.len();
    let mut via: Vec<Option<usize>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut frontier = VecDeque::from([src]);
    seen[src.ix()] = true;
    while let Some(u) = frontier.pop_front() {
        if u == dst {
            break;
        }
        if u != src && is_host[u.ix()] {
            continue;
        }
        for (i, &(from, to)) in arcs.iter().enumerate() {
            if from == u && !seen[to.ix()] {
                seen[to.ix()] = true;
                via[to.ix()] = Some(i);
                frontier.push_back(to);
            }
        }
    }
    if !seen[dst.ix()] {
        return None;
    }
    let mut path = Vec::new();
    let mut cur = dst;
    while cur != src {
        let i = via[cur.ix()]?;
        path.push(PortId(i as u32));
        cur = arcs[i].0;
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        };
        let nodes = Nodes::new(&t(&["A", "B"], &["X"])).unwrap();
        assert_eq!(nodes.id("k", "X").unwrap(), NodeId(2));
        assert_eq!(nodes.id("k", "Y").unwrap_err().key, "k");
        assert_eq!(Nodes::new(&t(&["A"], &["A"])).unwrap_err().key, "topology.switches");
        assert_eq!(Nodes::new(&t(&["A->B"], &[])).unwrap_err().key, "topology.hosts");
    }
}
