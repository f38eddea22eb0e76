//! Events as the scheduler stores them: two whole words.

use super::{AbrEvent, CreditEvent, Event, HostEvent, PortEvent, SourceEvent, TransportEvent};
use crate::net::{FlowId, HostId, NodeId, PortId, VcId};

/// An event as the heap holds it: two whole words, the variant's code in
/// the low bits of the first (with a credit count above it) and the ids in
/// the second, so that a scheduled event, with its time and insertion
/// number, is 32 bytes: half a cache line, in the heap and in the gap
/// lanes, whose fronts a long chain of links reads from the second-level
/// cache. The heap's root is
/// written by one event and read back by the next, often a few nanoseconds
/// later; an enum written field by field (a tag, an id) and read back in
/// wider loads makes every such read wait for the stores to drain (a failed
/// store-to-load forward). Words written and read as words never do.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packed(pub(super) [u64; 2]);

/// Bits of the variant's code in the first word.
const CODE_BITS: u32 = 5;

/// A credit count must fit above the code: 2^59 cells forwarded on one VC
/// over one link is beyond any run (at 10^10 cells a second, 1,800 years).
pub const MAX_CREDIT_COUNT: u64 = u64::MAX >> CODE_BITS;

impl Packed {
    #[inline(always)]
    pub(super) fn of(event: Event) -> Packed {
        let one = |code: u64, id: u32| Packed([code, id as u64]);
        let credit = |code: u64, port: PortId, vc: VcId, fwd: u64| {
            assert!(fwd <= MAX_CREDIT_COUNT, "a credit count beyond 2^59");
            Packed([code | fwd << CODE_BITS, port.0 as u64 | (vc.0 as u64) << 32])
        };
        match event {
            Event::Port(PortEvent::PipeHead(p)) => one(0, p.0),
            Event::Port(PortEvent::Free(p)) => one(1, p.0),
            Event::Port(PortEvent::InputSlot(n)) => one(2, n.0),
            Event::Credit(CreditEvent::Arrive { port, vc, fwd }) => credit(3, port, vc, fwd),
            Event::Credit(CreditEvent::Emit { link, vc, fwd }) => credit(4, link, vc, fwd),
            Event::Host(HostEvent::AdapterLoaded(h)) => one(5, h.0),
            Event::Host(HostEvent::AdapterFree(h)) => one(6, h.0),
            Event::Host(HostEvent::Deliver(h)) => one(7, h.0),
            Event::Host(HostEvent::JitterRelease(h)) => one(8, h.0),
            Event::Transport(TransportEvent::SlowTick(h)) => one(9, h.0),
            Event::Transport(TransportEvent::FastTick(h)) => one(10, h.0),
            Event::Transport(TransportEvent::Open(f)) => one(11, f.0),
            Event::Transport(TransportEvent::ArbWake(f)) => one(12, f.0),
            Event::Source(SourceEvent::Send(f)) => one(13, f.0),
            Event::Abr(AbrEvent::Send(vc)) => one(14, vc.0),
            Event::Abr(AbrEvent::Vbr) => one(15, 0),
            Event::TraceSample => one(16, 0),
        }
    }

    /// The port of a pipe head (code 0, nothing above it), without
    /// decoding the rest.
    #[inline(always)]
    pub(super) fn pipe_head(self) -> Option<PortId> {
        (self.0[0] == 0).then_some(PortId(self.0[1] as u32))
    }

    #[inline(always)]
    pub(super) fn event(self) -> Event {
        let [first, a] = self.0;
        let (code, b) = (first & ((1 << CODE_BITS) - 1), first >> CODE_BITS);
        let id = a as u32;
        let (lo, hi) = (a as u32, (a >> 32) as u32);
        match code {
            0 => Event::Port(PortEvent::PipeHead(PortId(id))),
            1 => Event::Port(PortEvent::Free(PortId(id))),
            2 => Event::Port(PortEvent::InputSlot(NodeId(id))),
            3 => Event::Credit(CreditEvent::Arrive {
                port: PortId(lo),
                vc: VcId(hi),
                fwd: b,
            }),
            4 => Event::Credit(CreditEvent::Emit {
                link: PortId(lo),
                vc: VcId(hi),
                fwd: b,
            }),
            5 => Event::Host(HostEvent::AdapterLoaded(HostId(id))),
            6 => Event::Host(HostEvent::AdapterFree(HostId(id))),
            7 => Event::Host(HostEvent::Deliver(HostId(id))),
            8 => Event::Host(HostEvent::JitterRelease(HostId(id))),
            9 => Event::Transport(TransportEvent::SlowTick(HostId(id))),
            10 => Event::Transport(TransportEvent::FastTick(HostId(id))),
            11 => Event::Transport(TransportEvent::Open(FlowId(id))),
            12 => Event::Transport(TransportEvent::ArbWake(FlowId(id))),
            13 => Event::Source(SourceEvent::Send(FlowId(id))),
            14 => Event::Abr(AbrEvent::Send(VcId(id))),
            15 => Event::Abr(AbrEvent::Vbr),
            _ => Event::TraceSample,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_packing() {
        let all = [
            Event::Port(PortEvent::PipeHead(PortId(7))),
            Event::Port(PortEvent::Free(PortId(u32::MAX))),
            Event::Port(PortEvent::InputSlot(NodeId(3))),
            Event::Credit(CreditEvent::Arrive {
                port: PortId(u32::MAX),
                vc: VcId(u32::MAX - 1),
                fwd: MAX_CREDIT_COUNT,
            }),
            Event::Credit(CreditEvent::Emit {
                link: PortId(1),
                vc: VcId(2),
                fwd: 3,
            }),
            Event::Host(HostEvent::AdapterLoaded(HostId(4))),
            Event::Host(HostEvent::AdapterFree(HostId(5))),
            Event::Host(HostEvent::Deliver(HostId(6))),
            Event::Host(HostEvent::JitterRelease(HostId(7))),
            Event::Transport(TransportEvent::SlowTick(HostId(8))),
            Event::Transport(TransportEvent::FastTick(HostId(9))),
            Event::Transport(TransportEvent::Open(FlowId(10))),
            Event::Transport(TransportEvent::ArbWake(FlowId(11))),
            Event::Source(SourceEvent::Send(FlowId(12))),
            Event::Abr(AbrEvent::Send(VcId(13))),
            Event::Abr(AbrEvent::Vbr),
            Event::TraceSample,
        ];
        for e in all {
            assert_eq!(Packed::of(e).event(), e);
        }
        let codes: std::collections::BTreeSet<u64> =
            all.iter().map(|&e| Packed::of(e).0[0] & 31).collect();
        assert_eq!(codes.len(), all.len(), "one code per variant");
    }
}
