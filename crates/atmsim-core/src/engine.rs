//! The event queue: a binary heap ordered by (time, insertion number).
//!
//! Ties at equal time are broken by insertion order, so a run depends only on
//! the scenario and its seed. Events are small plain enums grouped by the
//! component that owns them; the heap stays small because a link has at most
//! one pending event (the head of its pipe) and timers are per host, not per
//! segment.

use crate::net::{FlowId, HostId, NodeId, PortId, VcId};
use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

/// A pending event and its place in the order: time, then insertion
/// number, packed into one integer so that the heap compares once.
/// (Two 64-bit words rather than a `u128`, whose 16-byte alignment would
/// pad an entry from 40 to 48 bytes.)
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    at: Time,
    seq: u64,
    event: Event,
}

impl Scheduled {
    fn new(at: Time, seq: u64, event: Event) -> Self {
        Scheduled { at, seq, event }
    }

    fn at(&self) -> Time {
        self.at
    }

    #[inline]
    fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.seq as u128
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Scheduled>,
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
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        let s = Scheduled::new(at, self.next_seq, event);
        self.next_seq += 1;
        if self.root_taken {
            self.root_taken = false;
            // Overwriting the root through `PeekMut` sifts it down on drop.
            *self.heap.peek_mut().expect("a taken root is still in the heap") = s;
        } else {
            self.heap.push(s);
        }
    }

    /// Hands out the earliest event if it is due no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.root_taken {
            self.root_taken = false;
            self.heap.pop();
        }
        let s = self.heap.peek()?;
        if s.at() > until {
            return None;
        }
        self.root_taken = true;
        self.executed += 1;
        Some((s.at(), s.event))
    }

    /// Number of events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }
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
        let order: Vec<_> = std::iter::from_fn(|| s.pop_until(10)).map(|(_, e)| e).collect();
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
        let add = |s: &mut Scheduler, r: &mut std::collections::BTreeSet<(u64, u64)>, seq: &mut u64, at: u64| {
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
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
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
    fn events_stay_small() {
        // The heap moves events around on every push and pop.
        assert!(std::mem::size_of::<Event>() <= 24, "{}", std::mem::size_of::<Event>());
        assert_eq!(std::mem::size_of::<Scheduled>(), 40);
    }
}
