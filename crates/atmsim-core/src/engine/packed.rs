//! Events as the scheduler stores them: two whole words.

use super::{AbrEvent, CreditEvent, Event, FabricEvent, HostEvent, PortEvent, SourceEvent, TransportEvent};
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

/// How many codes [`Packed::of`] hands out (0..CODES); the test derives
/// every variant from the enum itself and checks that this is the set.
const CODES: u64 = 30;
const _: () = assert!(CODES <= 1 << CODE_BITS);

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
            Event::Transport(TransportEvent::PullTick(h)) => one(17, h.0),
            Event::Measure => one(18, 0),
            Event::Transport(TransportEvent::EqdsNic(h)) => one(19, h.0),
            Event::Transport(TransportEvent::EqdsPull(h)) => one(20, h.0),
            Event::Transport(TransportEvent::EqdsRto(f)) => one(21, f.0),
            Event::Fabric(FabricEvent::LinkFree(l)) => one(22, l),
            Event::Fabric(FabricEvent::LinkHead(l)) => one(23, l),
            Event::Fabric(FabricEvent::CreditSlot(p)) => one(24, p),
            Event::Fabric(FabricEvent::LinkCredit { link, fwd }) => {
                assert!(fwd <= MAX_CREDIT_COUNT, "a credit count beyond 2^59");
                Packed([25 | fwd << CODE_BITS, link as u64])
            }
            Event::Fabric(FabricEvent::Fail(i)) => one(26, i),
            Event::Fabric(FabricEvent::Detect(i)) => one(27, i),
            Event::Fabric(FabricEvent::GiveUp { voq, cell }) => {
                assert!(cell <= MAX_CREDIT_COUNT, "a cell's number and size fit 59 bits");
                Packed([28 | cell << CODE_BITS, voq as u64])
            }
            Event::Fabric(FabricEvent::StatusAgain(v)) => one(29, v),
        }
    }

    /// The port of a pipe head (code 0, nothing above it), without
    /// decoding the rest.
    #[inline(always)]
    pub(super) fn pipe_head(self) -> Option<PortId> {
        (self.0[0] == 0).then_some(PortId(self.0[1] as u32))
    }

    /// A fabric group's event (codes 22 and 23): the group, and whether its
    /// links are due for their arrivals (else their ends), without
    /// decoding the rest.
    #[inline(always)]
    pub(super) fn fabric_group(self) -> Option<(u32, bool)> {
        let code = self.0[0].wrapping_sub(22);
        (code < 2).then_some((self.0[1] as u32, code == 1))
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
            3 => Event::Credit(CreditEvent::Arrive { port: PortId(lo), vc: VcId(hi), fwd: b }),
            4 => Event::Credit(CreditEvent::Emit { link: PortId(lo), vc: VcId(hi), fwd: b }),
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
            16 => Event::TraceSample,
            17 => Event::Transport(TransportEvent::PullTick(HostId(id))),
            18 => Event::Measure,
            19 => Event::Transport(TransportEvent::EqdsNic(HostId(id))),
            20 => Event::Transport(TransportEvent::EqdsPull(HostId(id))),
            21 => Event::Transport(TransportEvent::EqdsRto(FlowId(id))),
            22 => Event::Fabric(FabricEvent::LinkFree(id)),
            23 => Event::Fabric(FabricEvent::LinkHead(id)),
            24 => Event::Fabric(FabricEvent::CreditSlot(id)),
            25 => Event::Fabric(FabricEvent::LinkCredit { link: id, fwd: b }),
            26 => Event::Fabric(FabricEvent::Fail(id)),
            27 => Event::Fabric(FabricEvent::Detect(id)),
            28 => Event::Fabric(FabricEvent::GiveUp { voq: id, cell: b }),
            29 => Event::Fabric(FabricEvent::StatusAgain(id)),
            // Only `of` writes codes, and it writes no other: a variant
            // given a code there and forgotten here fails the test below.
            _ => unreachable!("event code {code} was never written by Packed::of"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;

    /// Every variant of [`Event`], drawn from the enum's own derived
    /// `Arbitrary` (no list written by hand, so a new variant is drawn as
    /// soon as it exists), survives packing, and the codes written are
    /// exactly 0..CODES, one per variant. 20,000 draws with a fixed seed:
    /// the rarest variant (1 in 31) is missed with probability below 1e-300.
    #[test]
    fn every_event_survives_packing() {
        let mut runner = TestRunner::deterministic();
        let strategy = proptest::arbitrary::any::<Event>();
        let mut codes = BTreeSet::new();
        for _ in 0..20_000 {
            let e = strategy.new_tree(&mut runner).unwrap().current();
            let packed = Packed::of(e);
            assert_eq!(packed.event(), e);
            assert_eq!(
                packed.pipe_head(),
                match e {
                    Event::Port(PortEvent::PipeHead(p)) => Some(p),
                    _ => None,
                }
            );
            assert_eq!(
                packed.fabric_group(),
                match e {
                    Event::Fabric(FabricEvent::LinkFree(g)) => Some((g, false)),
                    Event::Fabric(FabricEvent::LinkHead(g)) => Some((g, true)),
                    _ => None,
                }
            );
            codes.insert(packed.0[0] & ((1 << CODE_BITS) - 1));
        }
        assert_eq!(codes, (0..CODES).collect::<BTreeSet<_>>(), "codes written: one per variant, 0..CODES");
        // The largest ids and credit count fit too.
        for e in [
            Event::Credit(CreditEvent::Arrive { port: PortId(u32::MAX), vc: VcId(u32::MAX), fwd: MAX_CREDIT_COUNT }),
            Event::Credit(CreditEvent::Emit { link: PortId(u32::MAX), vc: VcId(u32::MAX), fwd: MAX_CREDIT_COUNT }),
            Event::Host(HostEvent::Deliver(HostId(u32::MAX))),
        ] {
            assert_eq!(Packed::of(e).event(), e);
        }
    }

    #[test]
    #[should_panic(expected = "never written")]
    fn a_code_no_variant_has_is_unreachable() {
        Packed([CODES, 0]).event();
    }
}
