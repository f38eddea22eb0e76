//! The events, small plain enums grouped by the component that owns them.

#[cfg(test)]
use super::packed;
use super::FabricEvent;
use crate::net::{FlowId, HostId, NodeId, PortId, VcId};

/// Events of output ports (the forwarding path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum PortEvent {
    /// The unit at the head of a port's pipe reaches the node at the far end.
    PipeHead(PortId),
    /// A per-VC port's transmitter is free: start the next cell.
    Free(PortId),
    /// A slot of a round-robin switch ends: its input ports' cells move to
    /// the output buffers (`net/input_rr.rs`).
    InputSlot(NodeId),
}

/// Events of credit flow control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum CreditEvent {
    /// A credit for `vc` carrying the receiver's `fwd` count reaches the
    /// sending side of `port`'s link.
    Arrive {
        port: PortId,
        vc: VcId,
        #[cfg_attr(test, proptest(strategy = "0..=packed::MAX_CREDIT_COUNT"))]
        fwd: u64,
    },
    /// The receiver of `link` has processed a credit for `vc`: the in-band
    /// credit cell queues at the port of the reverse direction.
    Emit {
        link: PortId,
        vc: VcId,
        #[cfg_attr(test, proptest(strategy = "0..=packed::MAX_CREDIT_COUNT"))]
        fwd: u64,
    },
}

/// Events of the host/adapter model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum HostEvent {
    /// A host's transmit adapter has loaded a packet: cells go out.
    AdapterLoaded(HostId),
    /// The last cell of the packet in a host's transmit adapter has left.
    AdapterFree(HostId),
    /// A received packet reaches the transport after the bus and the CPU.
    Deliver(HostId),
    /// A packet's random processing time at an ideal host has passed.
    JitterRelease(HostId),
}

/// Events of transports (TCP timers and connection opening).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum TransportEvent {
    /// A host's coarse TCP timer (BSD `tcp_slowtimo`).
    SlowTick(HostId),
    /// A host's delayed-ACK timer (BSD `tcp_fasttimo`, 200 ms).
    FastTick(HostId),
    /// A flow's application starts (SYN goes out).
    Open(FlowId),
    /// An ARB sender's pacing timer: the next burst is due (Chang et al. §2).
    ArbWake(FlowId),
    /// A receiving host's NDP pull pacer may send its next PULL (N9).
    PullTick(HostId),
    /// A host's EQDS NIC finished sending: its next packet may go (E3).
    EqdsNic(HostId),
    /// A receiving host's EQDS pull pacer may send its next PULL (E6).
    EqdsPull(HostId),
    /// An EQDS flow's retransmission timer may be due (E11).
    EqdsRto(FlowId),
}

/// Events of traffic sources that are not transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum SourceEvent {
    /// A datagram source sends its next datagram.
    Send(FlowId),
}

/// Events of ABR end systems (TM 4.0; `world/abr.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum AbrEvent {
    /// The ABR source of a VC reaches its next send opportunity (1/ACR).
    Send(VcId),
    /// The VBR background sends its next cell.
    Vbr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(proptest_derive::Arbitrary))]
pub enum Event {
    Port(PortEvent),
    Credit(CreditEvent),
    Host(HostEvent),
    Transport(TransportEvent),
    Source(SourceEvent),
    Abr(AbrEvent),
    Fabric(FabricEvent),
    /// Periodic sampling of queue occupancy for traces.
    TraceSample,
    /// The start or end of the `[measure]` window: every flow's delivered
    /// bytes are noted.
    Measure,
}
