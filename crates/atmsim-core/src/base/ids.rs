//! Typed ids: each arena of the world (ports, nodes, hosts, flows, VCs) is
//! indexed by its own id type, so an index of one cannot name another.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[cfg_attr(test, derive(proptest_derive::Arbitrary))]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn ix(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(/// An output port (one direction of a link) in the world's arena.
    PortId);
id!(/// A node (host, ATM switch or IP router).
    NodeId);
id!(/// A host, the subset of nodes that run TCP.
    HostId);
id!(/// One flow: a TCP connection (a sender, a receiver and two VCs) or a
    /// one-way source.
    FlowId);
id!(/// One direction of a connection: an ATM virtual circuit, or on the
    /// packet network the path its packets follow.
    VcId);
