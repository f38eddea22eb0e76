//! Routes as codes that units carry: where a unit goes next is read from
//! its own bits and a small table of every node's exits, never from a list
//! of every route's hops (on the 1,024-host fat tree, every flow's 64 paths
//! each way made that list 3.7 MB, read at random once per packet-hop).
//!
//! A route is its first port, where its source puts the unit, and a code for
//! the rest (`Unit::route`): per later hop, lowest first, the port's index
//! among its node's output ports ([`Exits`], each node's in port order), in
//! [`HOP_BITS`] bits. A unit entering a pipe moves its code on by one hop
//! (`Unit::onward`, a shift), so the code a route starts with is shifted up
//! by one ([`Exits::start`]); leaving port p's pipe, the unit reads the low
//! bits and takes that exit of p's far node (`Port::far_exits` says where
//! the node's exits start). A route ending at a host needs no end mark: every
//! port into a host leads to the end block. A node's step just past its
//! exits (31 at most) is an escape: the bits above it number an escaped
//! hop that names the next port and the code after it, 0 the end of a route
//! that stops short of a host (the VBR background's one-port VC). Hops are
//! escaped only where a code runs out of room (more than five hops after
//! the first) or an index does not fit (ports 31 and up of a node), so a
//! fat tree's hops read the node's exits alone, a table of a few entries
//! per port that stays in cache.

use crate::base::{NodeId, PortId, HOP_BITS};

/// The exit that ends a route.
pub const END: PortId = PortId(u32::MAX);
/// The exit that reads the rest of the code as an escaped hop (or [`END`]).
pub const ESCAPE: PortId = PortId(u32::MAX - 1);
/// The low bits of a code: the step to take next.
pub const STEP: u32 = (1 << HOP_BITS) - 1;
/// Every code stays below this, so that a unit can carry it shifted up by
/// the hop it is about to take.
const ROOM: u32 = 1 << (32 - HOP_BITS);

/// Every node's exits and the escaped hops of every route.
#[derive(Clone, Debug, Default)]
pub struct Exits {
    /// Every node's exits (a host's: the end block, [`END`] alone, shared),
    /// each followed by [`ESCAPE`].
    exits: Vec<PortId>,
    /// Per port: where its far node's exits start in `exits`.
    far: Vec<u32>,
    /// Per port: its step at its own node (an index too large to be a
    /// step is escaped: `u32::MAX`).
    step: Vec<u32>,
    /// Per port: the escape step of its own node, just past its exits.
    escape: Vec<u32>,
    /// Escaped hops: the port a unit enters and the code after it.
    /// Entry 0 stands for the end of a route and is never read.
    escapes: Vec<(PortId, u32)>,
}

/// Does a unit whose route code `route` names `next` among the far node's
/// exits (beyond the ports: [`END`] or an escape) end its route there? It
/// does at [`END`], and at an escape when its code holds no further hop.
/// (The code by value: a reference to the unit would keep it in memory on
/// the per-unit path.)
#[inline(always)]
pub fn ends_route(next: PortId, route: u32) -> bool {
    next == END || route >> HOP_BITS == 0
}

impl Exits {
    /// The exits of a network whose port `p` leads from `ends[p].0` to
    /// `ends[p].1`, where `is_host[n]` tells whether node n is a host.
    pub fn new(ends: &[(NodeId, NodeId)], is_host: &[bool]) -> Exits {
        let nodes = is_host.len();
        let mut degree = vec![0u32; nodes];
        let mut step = vec![u32::MAX; ends.len()];
        for (p, &(from, _)) in ends.iter().enumerate() {
            if degree[from.ix()] < STEP {
                step[p] = degree[from.ix()];
            }
            degree[from.ix()] += 1;
        }
        // Each switch's block: its exits in port order, then the escape.
        let mut start = vec![0u32; nodes];
        let mut next = 2;
        for n in (0..nodes).filter(|&n| !is_host[n]) {
            start[n] = next;
            next += degree[n].min(STEP) + 1;
        }
        let mut exits = vec![ESCAPE; next as usize];
        exits[0] = END;
        for (p, &(from, _)) in ends.iter().enumerate() {
            if !is_host[from.ix()] && step[p] != u32::MAX {
                exits[(start[from.ix()] + step[p]) as usize] = PortId(p as u32);
            }
        }
        let far = ends.iter().map(|&(_, to)| start[to.ix()]).collect();
        let escape = ends.iter().map(|&(from, _)| degree[from.ix()].min(STEP)).collect();
        Exits { exits, far, step, escape, escapes: vec![(END, 0)] }
    }

    /// Where port `p`'s far node's exits start (`Port::far_exits`).
    pub fn far(&self, p: PortId) -> u32 {
        self.far[p.ix()]
    }

    /// What a unit placed on `route` (a path of ports, the last one into
    /// its destination) starts with: the first port and the code it carries
    /// into that port.
    pub fn start(&mut self, route: &[PortId]) -> (PortId, u32) {
        let last = *route.last().expect("a route has a port");
        // Stopping short of a host: escape 0 at the far node of the last port.
        let mut code = if self.exits[self.far[last.ix()] as usize] == END { 0 } else { self.escape_step_at(last) };
        for &p in route[1..].iter().rev() {
            let (step, escape) = (self.step[p.ix()], self.escape[p.ix()]);
            let longer = (u64::from(code) << HOP_BITS) | u64::from(step);
            if step < escape && longer < u64::from(ROOM) {
                code = longer as u32;
                continue;
            }
            let k = self.escapes.len() as u64;
            self.escapes.push((p, code));
            code = u32::try_from((k << HOP_BITS) | u64::from(escape)).ok().filter(|&c| c < ROOM).expect("fewer than 2^22 escaped hops");
        }
        (route[0], code << HOP_BITS)
    }

    /// The escape step of the node port `last` leads to.
    fn escape_step_at(&self, last: PortId) -> u32 {
        let far = self.far[last.ix()] as usize;
        self.exits[far..].iter().position(|&e| e == ESCAPE).expect("every node's exits end in an escape") as u32
    }

    /// The exit at position `at` of the table (a far node's start plus a
    /// step): a port, [`END`] or [`ESCAPE`].
    #[inline(always)]
    pub fn exit(&self, at: u32) -> PortId {
        self.exits[at as usize]
    }

    /// The escaped hop of `code`, whose step reached [`ESCAPE`] (not the
    /// end): the port the unit enters and the code it carries into it.
    #[cold]
    pub fn escaped(&self, code: u32) -> (PortId, u32) {
        let (port, after) = self.escapes[(code >> HOP_BITS) as usize];
        (port, after << HOP_BITS)
    }

    /// The ports a unit placed on `(first, code)` crosses, read as the
    /// forwarding path reads them (tests).
    pub fn walk(&self, (first, mut code): (PortId, u32)) -> Vec<PortId> {
        let (mut at, mut route) = (first, vec![first]);
        loop {
            code >>= HOP_BITS;
            let next = self.exit(self.far(at) + (code & STEP));
            if next == ESCAPE && code >> HOP_BITS == 0 || next == END {
                return route;
            }
            (at, code) = if next == ESCAPE { self.escaped(code) } else { (next, code) };
            route.push(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A chain of `n` switches, each linked to the next both ways, with a
    /// host at either end (nodes n, n + 1), and `fan` more hosts on switch
    /// 0. Ports in link order.
    fn network(n: u32, fan: u32) -> (Vec<(NodeId, NodeId)>, Vec<bool>) {
        let mut links = vec![(n, 0), (n + 1, n - 1)];
        links.extend((0..n - 1).map(|i| (i, i + 1)));
        links.extend((0..fan).map(|h| (0, n + 2 + h)));
        let ends = links.iter().flat_map(|&(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))]).collect();
        let is_host = (0..n + 2 + fan).map(|i| i >= n).collect();
        (ends, is_host)
    }

    fn port(ends: &[(NodeId, NodeId)], a: u32, b: u32) -> PortId {
        PortId(ends.iter().position(|&e| e == (NodeId(a), NodeId(b))).unwrap() as u32)
    }

    /// The route from host n + 1 into switch n - 1, down the chain to
    /// switch 0, and to `to`, a host on it.
    fn route(ends: &[(NodeId, NodeId)], n: u32, to: u32) -> Vec<PortId> {
        let mut r = vec![port(ends, n + 1, n - 1)];
        r.extend((1..n).rev().map(|i| port(ends, i, i - 1)));
        r.push(port(ends, 0, to));
        r
    }

    #[test]
    fn a_fat_tree_route_needs_no_escape() {
        // Five hops after the first, through switches of 16 ports: all in the code.
        let (ends, is_host) = network(5, 14);
        let mut exits = Exits::new(&ends, &is_host);
        let r = route(&ends, 5, 7 + 13);
        assert_eq!(r.len(), 6);
        let start = exits.start(&r);
        assert_eq!(exits.escapes.len(), 1, "only the end");
        assert_eq!(exits.walk(start), r);
    }

    #[test]
    fn a_route_stopping_short_of_a_host_ends_by_escape() {
        // The VBR background's VC: one port between two switches.
        let (ends, is_host) = network(3, 0);
        let mut exits = Exits::new(&ends, &is_host);
        let one = [port(&ends, 0, 1)];
        let start = exits.start(&one);
        assert_eq!(exits.walk(start), one);
    }

    proptest! {
        #[test]
        fn every_route_walks_back_to_its_ports(n in 1u32..100, fan in 0u32..70, leaf in 0u32..70) {
            // Routes of any length down the chain, to any host of switch 0's
            // up to 72 ports: the code, escapes and all, gives the same
            // ports back.
            let leaf = leaf % (fan + 1);
            let (ends, is_host) = network(n, fan);
            let mut exits = Exits::new(&ends, &is_host);
            let to = if leaf == 0 { n } else { n + 1 + leaf };
            let r = route(&ends, n, to);
            let start = exits.start(&r);
            prop_assert_eq!(exits.walk(start), r);
        }
    }
}
