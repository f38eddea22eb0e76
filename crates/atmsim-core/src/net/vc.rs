//! The VC table: every virtual circuit (on a packet network, every one-way
//! path) with its ends, its route and what it carries, as plain data.
//!
//! A connection-oriented transport opens two VCs, one for data and one for
//! its replies (TCP's ACKs); a one-way source (a datagram stream, later a VBR
//! background source) opens one. Nothing in the simulator derives one VC
//! from another by arithmetic: the table says which VC answers which.

use crate::net::route::Exits;
use crate::net::{FlowId, HostId, PortId, VcId};

/// What a VC carries for its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcRole {
    /// The data direction of a two-way transport (TCP segments).
    Data,
    /// The reply direction of a two-way transport (TCP ACKs).
    Reply,
    /// A one-way stream with no reply VC (datagram sources).
    Stream,
}

/// One VC: where it starts and ends, the output ports it crosses in order
/// (its route, plain data), the flow it belongs to and its role.
#[derive(Clone, Debug)]
pub struct Vc {
    pub src: HostId,
    pub dst: HostId,
    pub flow: FlowId,
    pub role: VcRole,
    pub ports: Vec<PortId>,
    /// IP + transport header bytes of its datagrams.
    pub header_bytes: u32,
    /// Each of its routes as a unit starts it: the first port and the code
    /// the unit carries into it (`net/route.rs`). Route 0 is `ports`; a multipath VC (a
    /// flow that owns every shortest path, sprayed per packet) has one per
    /// path.
    pub routes: Box<[(PortId, u32)]>,
}

impl Vc {
    /// Does this VC carry a flow's payload (data or stream)?
    #[inline]
    pub fn carries_payload(&self) -> bool {
        self.role != VcRole::Reply
    }
}

/// All VCs of a run, and per flow its payload VC and, if any, its reply VC.
#[derive(Clone, Debug)]
pub struct VcTable {
    vcs: Vec<Vc>,
    /// Every node's exits, in which the routes' codes name their ports.
    exits: Exits,
    /// Per flow: (payload VC, reply VC).
    of_flow: Vec<(VcId, Option<VcId>)>,
    /// Per flow with one (NDP), the VC of its NACKs: replies a host's NIC
    /// serves with data rather than ahead of it (N6). Flows in order.
    nacks: Vec<(FlowId, VcId)>,
}

impl VcTable {
    /// An empty table for a network of these exits.
    pub fn new(exits: Exits) -> VcTable {
        VcTable { vcs: Vec::new(), exits, of_flow: Vec::new(), nacks: Vec::new() }
    }

    /// Opens the VCs of the next flow: a payload VC along `forward`, and a
    /// reply VC along `backward` if given. Flows must be opened in order.
    pub fn open(&mut self, flow: FlowId, src: HostId, dst: HostId, forward: (Vec<PortId>, u32), backward: Option<(Vec<PortId>, u32)>) {
        assert_eq!(flow.ix(), self.of_flow.len(), "flows are opened in order");
        let role = if backward.is_some() { VcRole::Data } else { VcRole::Stream };
        let data = self.push(Vc { src, dst, flow, role, ports: forward.0, header_bytes: forward.1, routes: Box::new([]) }, None);
        let reply = backward.map(|(ports, header_bytes)| {
            self.push(Vc { src: dst, dst: src, flow, role: VcRole::Reply, ports, header_bytes, routes: Box::new([]) }, None)
        });
        self.of_flow.push((data, reply));
    }

    /// Opens the VCs of the next flow, a two-way transport that sprays its
    /// packets over every path in `forward` (data) and `backward` (replies):
    /// one VC for data and, back, one for ACKs and PULLs and one for NACKs
    /// ([`VcTable::nack_of`]), each with its ledger, whose units start on
    /// the route their transport picks ([`VcTable::route_start`]).
    pub fn open_multipath(
        &mut self,
        flow: FlowId,
        src: HostId,
        dst: HostId,
        forward: &[Vec<PortId>],
        backward: &[Vec<PortId>],
        header_bytes: u32,
    ) {
        assert_eq!(flow.ix(), self.of_flow.len(), "flows are opened in order");
        let vc =
            |src, dst, role, ports: &Vec<PortId>| Vc { src, dst, flow, role, ports: ports.clone(), header_bytes, routes: Box::new([]) };
        let data = self.push(vc(src, dst, VcRole::Data, &forward[0]), Some(forward));
        let reply = self.push(vc(dst, src, VcRole::Reply, &backward[0]), Some(backward));
        let nack = self.push(vc(dst, src, VcRole::Reply, &backward[0]), Some(backward));
        self.of_flow.push((data, Some(reply)));
        self.nacks.push((flow, nack));
    }

    /// The VC that carries flow `f`'s NACKs, if it has one.
    pub fn nack_of(&self, f: FlowId) -> Option<VcId> {
        self.nacks.binary_search_by_key(&f, |&(g, _)| g).ok().map(|i| self.nacks[i].1)
    }

    /// Adds `vc` with its routes coded: `ports` alone, or every one of
    /// `multipath` (whose first is `ports`).
    fn push(&mut self, mut vc: Vc, multipath: Option<&[Vec<PortId>]>) -> VcId {
        let routes = multipath.unwrap_or(std::slice::from_ref(&vc.ports));
        vc.routes = routes.iter().map(|r| self.exits.start(r)).collect();
        self.vcs.push(vc);
        VcId(self.vcs.len() as u32 - 1)
    }

    /// Where route `path` of `vc` starts: its first port and the code a
    /// unit carries into it (route 0 for a path the VC does not have).
    #[inline]
    pub fn route_start(&self, vc: VcId, path: u16) -> (PortId, u32) {
        let routes = &self.vcs[vc.ix()].routes;
        *routes.get(path as usize).unwrap_or(&routes[0])
    }

    /// How many routes `vc` has.
    pub fn route_count(&self, vc: VcId) -> usize {
        self.vcs[vc.ix()].routes.len()
    }

    /// Every node's exits: where a unit's code takes it next.
    #[inline(always)]
    pub fn exits(&self) -> &Exits {
        &self.exits
    }

    /// The port before `p` on `vc`'s route, if `p` is on it and not its
    /// first. Only for a VC of one route: a unit of a multipath VC may
    /// have reached `p` from any of several ports (`None`); such VCs run on
    /// packet networks, whose ports are never per-VC (credit needs ATM).
    pub fn upstream(&self, vc: VcId, p: PortId) -> Option<PortId> {
        let v = &self.vcs[vc.ix()];
        if v.routes.len() > 1 {
            return None;
        }
        let at = v.ports.iter().position(|&q| q == p)?;
        at.checked_sub(1).map(|i| v.ports[i])
    }

    #[inline]
    pub fn get(&self, vc: VcId) -> &Vc {
        &self.vcs[vc.ix()]
    }

    /// The VC that carries flow `f`'s payload.
    #[inline]
    pub fn payload_of(&self, f: FlowId) -> VcId {
        self.of_flow[f.ix()].0
    }

    /// The VC that carries flow `f`'s replies (panics for one-way flows).
    #[inline]
    pub fn reply_of(&self, f: FlowId) -> VcId {
        self.of_flow[f.ix()].1.expect("a two-way flow")
    }

    pub fn len(&self) -> usize {
        self.vcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vcs.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Vc> {
        self.vcs.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NodeId;

    #[test]
    fn two_way_and_one_way_flows_get_their_own_vcs() {
        // Hosts 0, 1, 2 around switch 3: ports 0-2 from the hosts, 3-5 to them.
        let ends: Vec<_> = (0..3).map(|h| (NodeId(h), NodeId(3))).chain((0..3).map(|h| (NodeId(3), NodeId(h)))).collect();
        let mut t = VcTable::new(Exits::new(&ends, &[true, true, true, false]));
        t.open(FlowId(0), HostId(0), HostId(1), (vec![PortId(0), PortId(4)], 40), Some((vec![PortId(1), PortId(3)], 40)));
        t.open(FlowId(1), HostId(2), HostId(1), (vec![PortId(2), PortId(4)], 28), None);
        t.open(FlowId(2), HostId(1), HostId(0), (vec![PortId(1), PortId(3)], 40), Some((vec![PortId(0), PortId(4)], 40)));
        assert_eq!(t.len(), 5);
        assert_eq!(t.payload_of(FlowId(1)), VcId(2));
        assert_eq!(t.get(VcId(2)).role, VcRole::Stream);
        assert_eq!(t.payload_of(FlowId(2)), VcId(3));
        assert_eq!(t.reply_of(FlowId(2)), VcId(4));
        let reply = t.get(t.reply_of(FlowId(0)));
        assert_eq!((reply.src, reply.dst, reply.role), (HostId(1), HostId(0), VcRole::Reply));
        assert!(!reply.carries_payload());
        // Each route's code walks its ports in order.
        for vc in t.iter() {
            assert_eq!(t.exits().walk(vc.routes[0]), vc.ports);
        }
        assert_eq!((t.upstream(VcId(2), PortId(4)), t.upstream(VcId(2), PortId(2))), (Some(PortId(2)), None));
    }

    #[test]
    fn a_multipath_vc_starts_each_unit_on_the_path_it_picks() {
        // Host 0 -> switches 2 or 3 -> host 1: ports 0 (0->2), 1 (0->3),
        // 2 (2->1), 3 (3->1), and back 4 (1->2), 5 (1->3), 6 (2->0), 7 (3->0).
        let ends = [(0, 2), (0, 3), (2, 1), (3, 1), (1, 2), (1, 3), (2, 0), (3, 0)].map(|(a, b)| (NodeId(a), NodeId(b)));
        let mut t = VcTable::new(Exits::new(&ends, &[true, true, false, false]));
        let forward = [vec![PortId(0), PortId(2)], vec![PortId(1), PortId(3)]];
        let backward = [vec![PortId(4), PortId(6)], vec![PortId(5), PortId(7)]];
        t.open_multipath(FlowId(0), HostId(0), HostId(1), &forward, &backward, 64);
        assert_eq!((t.route_count(VcId(0)), t.nack_of(FlowId(0))), (2, Some(VcId(2))));
        for (path, ports) in forward.iter().enumerate() {
            assert_eq!(t.exits().walk(t.route_start(VcId(0), path as u16)), *ports);
        }
        assert_eq!(t.route_start(VcId(0), 7), t.route_start(VcId(0), 0));
        assert_eq!(t.upstream(VcId(0), PortId(2)), None, "reached from either port");
    }
}
