//! The event queue: a binary min-heap ordered by (time, insertion number).
//!
//! Ties at equal time are broken by insertion order, so a run depends only on
//! the scenario and its seed. Events are small plain enums grouped by the
//! component that owns them; the heap stays small because a link has at most
//! one pending event (the head of its pipe) and timers are per host, not per
//! segment.

use crate::net::{FlowId, HostId, NodeId, PortId, VcId};
use crate::time::Time;

/// Events of output ports (the forwarding path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
pub enum CreditEvent {
    /// A credit for `vc` carrying the receiver's `fwd` count reaches the
    /// sending side of `port`'s link.
    Arrive { port: PortId, vc: VcId, fwd: u64 },
    /// The receiver of `link` has processed a credit for `vc`: the in-band
    /// credit cell queues at the port of the reverse direction.
    Emit { link: PortId, vc: VcId, fwd: u64 },
}

/// Events of the host/adapter model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
pub enum TransportEvent {
    /// A host's coarse TCP timer (BSD `tcp_slowtimo`).
    SlowTick(HostId),
    /// A host's delayed-ACK timer (BSD `tcp_fasttimo`, 200 ms).
    FastTick(HostId),
    /// A flow's application starts (SYN goes out).
    Open(FlowId),
    /// An ARB sender's pacing timer: the next burst is due (Chang et al. §2).
    ArbWake(FlowId),
}

/// Events of traffic sources that are not transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceEvent {
    /// A datagram source sends its next datagram.
    Send(FlowId),
}

/// Events of ABR end systems (TM 4.0; `world/abr.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbrEvent {
    /// The ABR source of a VC reaches its next send opportunity (1/ACR).
    Send(VcId),
    /// The VBR background sends its next cell.
    Vbr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Port(PortEvent),
    Credit(CreditEvent),
    Host(HostEvent),
    Transport(TransportEvent),
    Source(SourceEvent),
    Abr(AbrEvent),
    /// Periodic sampling of queue occupancy for traces.
    TraceSample,
}

/// An event as the heap holds it: three whole words. The heap's root is
/// written by one event and read back by the next, often a few nanoseconds
/// later; an enum written field by field (a tag, an id) and read back in
/// wider loads makes every such read wait for the stores to drain (a failed
/// store-to-load forward). Words written and read as words never do.
#[derive(Clone, Copy, Debug)]
struct Packed([u64; 3]);

impl Packed {
    #[inline(always)]
    fn of(event: Event) -> Packed {
        let one = |code: u64, id: u32| Packed([code, id as u64, 0]);
        match event {
            Event::Port(PortEvent::PipeHead(p)) => one(0, p.0),
            Event::Port(PortEvent::Free(p)) => one(1, p.0),
            Event::Port(PortEvent::InputSlot(n)) => one(2, n.0),
            Event::Credit(CreditEvent::Arrive { port, vc, fwd }) => {
                Packed([3, port.0 as u64 | (vc.0 as u64) << 32, fwd])
            }
            Event::Credit(CreditEvent::Emit { link, vc, fwd }) => {
                Packed([4, link.0 as u64 | (vc.0 as u64) << 32, fwd])
            }
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

    #[inline(always)]
    fn event(self) -> Event {
        let [code, a, b] = self.0;
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

/// A pending event and its place in the order: time, then insertion
/// number, compared as one integer.
/// (Two 64-bit words rather than a `u128`, whose 16-byte alignment would
/// pad an entry from 40 to 48 bytes.)
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    at: Time,
    seq: u64,
    event: Packed,
}

impl Scheduled {
    #[inline(always)]
    fn new(at: Time, seq: u64, event: Event) -> Self {
        Scheduled {
            at,
            seq,
            event: Packed::of(event),
        }
    }

    fn at(&self) -> Time {
        self.at
    }

    #[inline]
    fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.seq as u128
    }
}

/// A binary min-heap of pending events in (time, insertion) order. The sifts
/// move a hole and compare keys only; the entry being placed stays in
/// registers until it is written once, where it ends (see [`Packed`]).
#[derive(Default)]
pub struct Scheduler {
    heap: Vec<Scheduled>,
    /// The root of the heap has been handed out by [`Scheduler::pop_until`]
    /// but is still in place: the next `schedule` overwrites it and sifts
    /// down once, instead of a pop's sift plus a push's. Most events schedule
    /// exactly one successor (the next unit of a pipe), so this fuses the pop
    /// and the push of nearly every event. The order of events is that of
    /// the (time, insertion) key alone, whatever the heap's inner layout.
    root_taken: bool,
    next_seq: u64,
    executed: u64,
}

impl Scheduler {
    /// Inlined everywhere, so that the event is packed from constants and
    /// registers where it is made.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: Event) {
        let s = Scheduled::new(at, self.next_seq, event);
        self.next_seq += 1;
        if self.root_taken {
            self.root_taken = false;
            sift_down(&mut self.heap, 0, s);
        } else {
            self.heap.push(s);
            let last = self.heap.len() - 1;
            sift_up(&mut self.heap, last, s);
        }
    }

    /// Hands out the earliest event if it is due no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.root_taken {
            self.root_taken = false;
            let last = self.heap.pop().expect("a taken root is still in the heap");
            if !self.heap.is_empty() {
                sift_down(&mut self.heap, 0, last);
            }
        }
        let s = self.heap.first()?;
        if s.at() > until {
            return None;
        }
        self.root_taken = true;
        self.executed += 1;
        Some((s.at(), s.event.event()))
    }

    /// Number of events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }
}

/// Places `item` at `hole` or below: the earlier child moves up while it
/// is earlier than `item`. (Keys are unique: insertion numbers are.)
#[inline(always)]
fn sift_down(heap: &mut [Scheduled], mut hole: usize, item: Scheduled) {
    let key = item.key();
    let n = heap.len();
    loop {
        let left = 2 * hole + 1;
        if left >= n {
            break;
        }
        let mut child = left;
        let mut child_key = heap[left].key();
        if left + 1 < n {
            let right_key = heap[left + 1].key();
            if right_key < child_key {
                child = left + 1;
                child_key = right_key;
            }
        }
        if key < child_key {
            break;
        }
        heap[hole] = heap[child];
        hole = child;
    }
    heap[hole] = item;
}

/// Places `item` at `hole` or above: parents later than `item` move down.
#[inline(always)]
fn sift_up(heap: &mut [Scheduled], mut hole: usize, item: Scheduled) {
    let key = item.key();
    while hole > 0 {
        let parent = (hole - 1) / 2;
        if heap[parent].key() < key {
            break;
        }
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = item;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(f: u32) -> Event {
        Event::Transport(TransportEvent::Open(FlowId(f)))
    }

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut s = Scheduler::default();
        s.schedule(5, open(2));
        s.schedule(3, open(0));
        s.schedule(5, open(3));
        s.schedule(3, open(1));
        let order: Vec<_> = std::iter::from_fn(|| s.pop_until(10))
            .map(|(_, e)| e)
            .collect();
        assert_eq!(order, vec![open(0), open(1), open(2), open(3)]);
        assert_eq!(s.executed(), 4);
    }

    #[test]
    fn a_successor_scheduled_in_place_keeps_the_order() {
        // Each popped event schedules zero, one or two successors: the order
        // must be that of (time, insertion) alone.
        let mut s = Scheduler::default();
        let mut reference = std::collections::BTreeSet::new();
        let mut seq = 0u64;
        let add = |s: &mut Scheduler,
                   r: &mut std::collections::BTreeSet<(u64, u64)>,
                   seq: &mut u64,
                   at: u64| {
            s.schedule(at, open(*seq as u32));
            r.insert((at, *seq));
            *seq += 1;
        };
        for at in [7, 3, 3, 9, 1] {
            add(&mut s, &mut reference, &mut seq, at);
        }
        let mut x = 12345u64;
        while let Some((t, ev)) = s.pop_until(10_000) {
            let first = reference.pop_first().unwrap();
            assert_eq!((t, ev), (first.0, open(first.1 as u32)));
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..(x >> 62) % 3 {
                if seq < 2000 {
                    add(&mut s, &mut reference, &mut seq, t + (x >> 40) % 7);
                }
            }
        }
        assert!(reference.is_empty());
    }

    #[test]
    fn does_not_pop_past_the_horizon() {
        let mut s = Scheduler::default();
        s.schedule(11, Event::TraceSample);
        assert!(s.pop_until(10).is_none());
        assert_eq!(s.executed(), 0);
    }

    #[test]
    fn every_event_survives_packing() {
        let all = [
            Event::Port(PortEvent::PipeHead(PortId(7))),
            Event::Port(PortEvent::Free(PortId(u32::MAX))),
            Event::Port(PortEvent::InputSlot(NodeId(3))),
            Event::Credit(CreditEvent::Arrive {
                port: PortId(u32::MAX),
                vc: VcId(u32::MAX - 1),
                fwd: u64::MAX,
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
            all.iter().map(|&e| Packed::of(e).0[0]).collect();
        assert_eq!(codes.len(), all.len(), "one code per variant");
    }

    #[test]
    fn events_stay_small() {
        // The heap moves events around on every push and pop.
        assert!(
            std::mem::size_of::<Event>() <= 24,
            "{}",
            std::mem::size_of::<Event>()
        );
        assert_eq!(std::mem::size_of::<Scheduled>(), 40);
    }
}
