//! The VC table: every virtual circuit (on a packet network, every one-way
//! path) with its ends, its route and what it carries, as plain data.
//!
//! A connection-oriented transport opens two VCs, one for data and one for
//! its replies (TCP's ACKs); a one-way source (a datagram stream, later a VBR
//! background source) opens one. Nothing in the simulator derives one VC
//! from another by arithmetic: the table says which VC answers which.

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
    /// Where its route starts in the table's list of hops
    /// ([`VcTable::hop`]): the first unit position of its units.
    pub first_hop: u32,
    /// A multipath VC (a flow that owns every shortest path, sprayed per
    /// packet): where each of its routes starts in the list of hops, route
    /// 0 being `ports`. Empty for a VC of one route.
    pub routes: Box<[u32]>,
}

impl Vc {
    /// Does this VC carry a flow's payload (data or stream)?
    #[inline]
    pub fn carries_payload(&self) -> bool {
        self.role != VcRole::Reply
    }
}

/// Ends each route in [`VcTable`]'s list of hops (no port has this id).
const ROUTE_END: PortId = PortId(u32::MAX);

/// All VCs of a run, and per flow its payload VC and, if any, its reply VC.
#[derive(Clone, Debug, Default)]
pub struct VcTable {
    vcs: Vec<Vc>,
    /// Every VC's route, one after the other, each followed by
    /// [`ROUTE_END`]: a unit's position in this list names the port it is
    /// at, and the next position the port after (`Unit::hop`).
    hops: Vec<PortId>,
    /// Per flow: (payload VC, reply VC).
    of_flow: Vec<(VcId, Option<VcId>)>,
    /// Per flow with one (NDP), the VC of its NACKs: replies a host's NIC
    /// serves with data rather than ahead of it (N6). Flows in order.
    nacks: Vec<(FlowId, VcId)>,
}

impl VcTable {
    /// Opens the VCs of the next flow: a payload VC along `forward`, and a
    /// reply VC along `backward` if given. Flows must be opened in order.
    pub fn open(&mut self, flow: FlowId, src: HostId, dst: HostId, forward: (Vec<PortId>, u32), backward: Option<(Vec<PortId>, u32)>) {
        assert_eq!(flow.ix(), self.of_flow.len(), "flows are opened in order");
        let role = if backward.is_some() { VcRole::Data } else { VcRole::Stream };
        let data = self.push(Vc { src, dst, flow, role, ports: forward.0, header_bytes: forward.1, first_hop: 0, routes: Box::new([]) });
        let reply = backward.map(|(ports, header_bytes)| {
            self.push(Vc { src: dst, dst: src, flow, role: VcRole::Reply, ports, header_bytes, first_hop: 0, routes: Box::new([]) })
        });
        self.of_flow.push((data, reply));
    }

    /// Opens the VCs of the next flow, a two-way transport that sprays its
    /// packets over every path in `forward` (data) and `backward` (replies):
    /// one VC for data and, back, one for ACKs and PULLs and one for NACKs
    /// ([`VcTable::nack_of`]), each with its ledger, whose units name their
    /// route by where they start in the list of hops.
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
        let vc = |src, dst, role, ports: &Vec<PortId>| Vc {
            src,
            dst,
            flow,
            role,
            ports: ports.clone(),
            header_bytes,
            first_hop: 0,
            routes: Box::new([]),
        };
        let data = self.push_routes(vc(src, dst, VcRole::Data, &forward[0]), forward);
        let reply = self.push_routes(vc(dst, src, VcRole::Reply, &backward[0]), backward);
        let nack = self.push_routes(vc(dst, src, VcRole::Reply, &backward[0]), backward);
        self.of_flow.push((data, Some(reply)));
        self.nacks.push((flow, nack));
    }

    /// The VC that carries flow `f`'s NACKs, if it has one.
    pub fn nack_of(&self, f: FlowId) -> Option<VcId> {
        self.nacks.binary_search_by_key(&f, |&(g, _)| g).ok().map(|i| self.nacks[i].1)
    }

    fn push_routes(&mut self, mut vc: Vc, routes: &[Vec<PortId>]) -> VcId {
        let starts: Vec<u32> = routes
            .iter()
            .map(|r| {
                let start = u32::try_from(self.hops.len()).expect("fewer than 2^32 hops in all routes");
                self.hops.extend_from_slice(r);
                self.hops.push(ROUTE_END);
                start
            })
            .collect();
        vc.first_hop = starts[0];
        vc.routes = starts.into_boxed_slice();
        self.vcs.push(vc);
        VcId(self.vcs.len() as u32 - 1)
    }

    /// Where route `path` of `vc` starts: its first port and its position
    /// in the list of hops (route 0 for a VC of one route).
    #[inline]
    pub fn route_start(&self, vc: VcId, path: u16) -> (PortId, u32) {
        let v = &self.vcs[vc.ix()];
        match v.routes.get(path as usize) {
            Some(&start) if path > 0 => (self.hops[start as usize], start),
            _ => (v.ports[0], v.first_hop),
        }
    }

    /// Is position `hop` the first of its route?
    #[inline]
    pub fn is_first_hop(&self, hop: u32) -> bool {
        hop == 0 || self.hops[hop as usize - 1] == ROUTE_END
    }

    /// How many routes `vc` has.
    pub fn route_count(&self, vc: VcId) -> usize {
        self.vcs[vc.ix()].routes.len().max(1)
    }

    fn push(&mut self, mut vc: Vc) -> VcId {
        vc.first_hop = u32::try_from(self.hops.len()).expect("fewer than 2^32 hops in all routes");
        self.hops.extend_from_slice(&vc.ports);
        self.hops.push(ROUTE_END);
        self.vcs.push(vc);
        VcId(self.vcs.len() as u32 - 1)
    }

    /// The port at position `hop` of the list of hops, or `None` at the
    /// end of a route.
    #[inline]
    pub fn hop(&self, hop: u32) -> Option<PortId> {
        let p = self.hops[hop as usize];
        (p != ROUTE_END).then_some(p)
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

    #[test]
    fn two_way_and_one_way_flows_get_their_own_vcs() {
        let mut t = VcTable::default();
        t.open(FlowId(0), HostId(0), HostId(1), (vec![PortId(0), PortId(1)], 40), Some((vec![PortId(2), PortId(3)], 40)));
        t.open(FlowId(1), HostId(2), HostId(1), (vec![PortId(4)], 28), None);
        t.open(FlowId(2), HostId(1), HostId(0), (vec![PortId(2)], 40), Some((vec![PortId(1)], 40)));
        assert_eq!(t.len(), 5);
        assert_eq!(t.payload_of(FlowId(1)), VcId(2));
        assert_eq!(t.get(VcId(2)).role, VcRole::Stream);
        assert_eq!(t.payload_of(FlowId(2)), VcId(3));
        assert_eq!(t.reply_of(FlowId(2)), VcId(4));
        let reply = t.get(t.reply_of(FlowId(0)));
        assert_eq!((reply.src, reply.dst, reply.role), (HostId(1), HostId(0), VcRole::Reply));
        assert!(!reply.carries_payload());
        // Each route's hops in order from its first position, then its end.
        for vc in t.iter() {
            let hops: Vec<_> = (vc.first_hop..).map_while(|h| t.hop(h)).collect();
            assert_eq!(hops, vc.ports);
        }
        assert_eq!(t.get(VcId(2)).first_hop, 6);
        assert_eq!(t.hop(t.get(VcId(2)).first_hop + 1), None);
    }
}
