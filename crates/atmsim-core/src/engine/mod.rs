//! The event queue: pending events in (time, insertion number) order, in a
//! timing wheel of the near events, a binary heap of the far ones (timers)
//! and, on large networks, in gap lanes beside them (see [`Scheduler`]).
//!
//! Ties at equal time are broken by insertion order, so a run depends only on
//! the scenario and its seed. Events are small plain enums grouped by the
//! component that owns them; few are pending because a link has at most one
//! pending event (the head of its pipe) and timers are per host, not per
//! segment.

use crate::net::PortId;
use crate::ring::Ring;
use crate::time::Time;
use heap::{place, sift_down};
use packed::Packed;
use tournament::{Tournament, LANE_SLOTS};
use wheel::Wheel;

mod events;
mod fabric_event;
mod heap;
mod packed;
mod tournament;
mod wheel;

pub use events::{AbrEvent, CreditEvent, Event, HostEvent, PortEvent, SourceEvent, TransportEvent};
pub use fabric_event::FabricEvent;

/// An event handed out by [`Scheduler::next_until`].
#[derive(Clone, Copy, Debug)]
pub struct Popped(Packed);

impl Popped {
    /// The port, if the event is a pipe head.
    #[inline(always)]
    pub fn pipe_head(self) -> Option<PortId> {
        self.0.pipe_head()
    }

    /// The group, if the event is a fabric group's (`FabricEvent::LinkFree`
    /// or `LinkHead`), and whether it is the arrivals'.
    #[inline(always)]
    pub fn fabric_group(self) -> Option<(u32, bool)> {
        self.0.fabric_group()
    }

    pub fn event(self) -> Event {
        self.0.event()
    }
}

/// A pending event and its place in the order: time, then insertion
/// number, compared as one integer.
/// (Two 64-bit words rather than a `u128`, whose 16-byte alignment would
/// pad an entry from 32 to 48 bytes.)
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    at: Time,
    seq: u64,
    event: Packed,
}

impl Scheduled {
    #[inline(always)]
    fn new(at: Time, seq: u64, event: Event) -> Self {
        Scheduled { at, seq, event: Packed::of(event) }
    }

    fn at(&self) -> Time {
        self.at
    }

    #[inline]
    fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.seq as u128
    }
}

/// The horizon of the near events until one is declared
/// ([`Scheduler::set_far_from`]): about a millisecond.
const UNDECLARED_HORIZON: Time = 1 << 30;

/// At most this many gap lanes (see [`Scheduler::add_lane`]): the next
/// event is chosen among their fronts, the wheel's first and the far heap's
/// root.
pub const MAX_LANES: usize = 8;

/// The number of near events from which events go to the gap lanes. The
/// wheel's insert and search cost the same however many wait, but its
/// buckets' lines are more than a lane's ring touches: on the 1,024-host
/// EQDS permutation, thousands waiting, the wheel alone took 46 % more
/// instructions than with lanes from 32 on; from 1,024 on, 0.5 % fewer,
/// while the 16-FAP fabric and the 127 -> 1 incast, a few hundred waiting,
/// gained 5.5 % and 10.7 % over lanes from 32 (docs/performance.md,
/// "Session 37"). Which structure holds an event changes no order, only
/// the cost.
const LANES_FROM: usize = 1024;

/// Events scheduled a fixed `gap` after the event being executed. Executed
/// events come in time order and insertion numbers grow, so such events
/// arrive in (time, insertion) order: a plain queue keeps them sorted.
struct Lane {
    gap: Time,
    queue: Ring<Scheduled>,
}

/// Where the event handed out last still waits: nowhere (the wheel's
/// events leave it when handed out), the far heap's root, or the front of
/// lane `i` (`Taken(Taken::LANE + i)`).
/// One word, written and read whole (an enum with a lane's index would be
/// written as a tag and a payload and read back in one wider load: see
/// `packed.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Taken(usize);

impl Taken {
    const NONE: Taken = Taken(0);
    /// The wheel's first (never left waiting: taken out when handed out).
    const NEAR: Taken = Taken(1);
    const FAR: Taken = Taken(2);
    const LANE: usize = 3;
}

/// Pending events in (time, insertion) order: a timing wheel of the near
/// events (`wheel.rs`), and beside it up to [`MAX_LANES`] *gap lanes*,
/// queues of the events scheduled a fixed time after the current one, the
/// gaps the network declares: a busy link's next cell reaches the far end
/// one cell time (whole picoseconds, rounded down or up) after the last, so
/// on a large network nearly every event joins a lane's back in O(1). The
/// lanes are used once the wheel holds [`LANES_FROM`] events. Events due
/// beyond any pipe head (the transports' coarse timers) wait in a far heap
/// of their own ([`Scheduler::set_far_from`]), so the wheel's lap need only
/// be longer than a pipe head's delay. The next event is the earliest of
/// the wheel's first, the far heap's root and the lanes' fronts, so the
/// order is exactly that of one heap; only the cost changes. The far
/// heap's sifts move a hole and place the new entry once, from registers
/// (see [`Packed`]).
pub struct Scheduler {
    /// The near events: a timing wheel whose lap is longer than `far_from`.
    near: Wheel,
    /// Events due `far_from` or more after they were scheduled.
    far: Vec<Scheduled>,
    /// Beyond the gaps of the network's pipe heads (see
    /// [`Scheduler::set_far_from`]); never, until declared.
    far_from: Time,
    /// The key of `far`'s root (`u128::MAX` when it is empty).
    far_key: u128,
    lanes: Vec<Lane>,
    /// Per lane, the key of its front (`u128::MAX` when empty, and past
    /// [`MAX_LANES`]), side by side: choosing reads no lane's ring.
    lane_fronts: [u128; LANE_SLOTS],
    /// The earliest front, as a tournament over the slots.
    lane_best: Tournament,
    /// Events in the lanes (the lanes are not looked at while none).
    in_lanes: usize,
    /// The wheel's first is handed out without a look elsewhere when it is
    /// due before this: never later than the far heap's root and every
    /// lane's front (their earliest time once a lane's front has left or
    /// while no lane is in use; 0, the full comparison, from a move of the
    /// far root with lanes in use until then). One comparison of times
    /// instead of three keys'; ties take the full comparison. Kept with
    /// lanes in use, not 0 throughout: the 16-FAP fabric takes about four
    /// events in five from the wheel while its lanes hold some
    /// (docs/performance.md, "Session 40").
    near_alone_before: Time,
    /// Events go to the lanes once the wheel holds this many
    /// ([`LANES_FROM`] unless set: [`Scheduler::set_lanes_from`]).
    lanes_from: usize,
    /// The time of the event handed out last (the gaps count from it).
    now: Time,
    /// Where the event handed out last still waits: its place is taken
    /// back at the next `pop_until`, or, for the far heap's root,
    /// overwritten by the next event into that heap (one sift instead of a
    /// pop's sift plus a push's).
    taken: Taken,
    next_seq: u64,
    /// The insertion number of the event handed out last (with `now`,
    /// its place in the order: see [`Scheduler::has_passed`]).
    now_seq: u64,
    executed: u64,
    /// The pipe head that reached place [`Scheduler::reveal_at`] of its
    /// lane when the event handed out last left it: it is due within a few
    /// events, so the world may ask the processor for its data ahead
    /// (`World::warm`).
    revealed: Option<PortId>,
    /// The place in a lane (0: its front) at which a pipe head is revealed.
    reveal_at: usize,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler {
            near: Wheel::new(UNDECLARED_HORIZON),
            far: Vec::new(),
            far_key: u128::MAX,
            far_from: Wheel::new(UNDECLARED_HORIZON).horizon(),
            lanes: Vec::new(),
            lane_fronts: [u128::MAX; LANE_SLOTS],
            lane_best: Tournament::default(),
            in_lanes: 0,
            near_alone_before: Time::MAX,
            lanes_from: LANES_FROM,
            now: 0,
            taken: Taken::NONE,
            next_seq: 0,
            now_seq: 0,
            executed: 0,
            revealed: None,
            reveal_at: 0,
        }
    }
}

impl Scheduler {
    /// Declares a gap after which events are often scheduled (a link's
    /// cell or packet time). Before the first event; beyond [`MAX_LANES`]
    /// gaps, or a gap already declared, it is ignored. Changes no order.
    pub fn add_lane(&mut self, gap: Time) {
        assert_eq!(self.executed, 0, "lanes are declared before the run");
        if gap > 0 && self.lanes.len() < MAX_LANES && self.lanes.iter().all(|l| l.gap != gap) {
            self.lanes.push(Lane { gap, queue: Ring::new() });
        }
    }

    /// Sets the number of near events from which events go to the lanes
    /// ([`LANES_FROM`] by default). A speed setting, changing no order;
    /// before the first event.
    pub fn set_lanes_from(&mut self, n: usize) {
        assert_eq!(self.executed, 0, "the lanes' threshold is set before the run");
        self.lanes_from = n;
    }

    /// Declares the gap beyond which events wait in the far heap: longer
    /// than any pipe head can be due after the event that schedules it (a
    /// link's largest unit time plus its delay), so that only the
    /// transports' coarse timers and the like go there, and the wheel's
    /// lap need be no longer, its buckets no wider. A speed setting: the
    /// next event is the earliest of all either way. Before the first
    /// event.
    pub fn set_far_from(&mut self, gap: Time) {
        assert_eq!(self.executed, 0, "the far horizon is declared before the run");
        self.far_from = gap.max(1);
        // The wheel's buckets as narrow as a lap longer than the horizon
        // allows; the events already waiting (a fabric's failures) go to
        // the heap or the new wheel as if scheduled now.
        let waiting = std::mem::replace(&mut self.near, Wheel::new(self.far_from)).drain();
        for s in waiting {
            if s.at.wrapping_sub(self.now) >= self.far_from {
                place(&mut self.far, &mut self.taken, Taken::FAR, s);
                self.far_root_moved();
            } else {
                self.near.push(s);
            }
        }
    }

    /// The far heap's root changed: its key, and the time before which the
    /// wheel's first goes alone.
    #[inline(always)]
    fn far_root_moved(&mut self) {
        self.far_key = self.far.first().map_or(u128::MAX, Scheduled::key);
        // With lanes in use, until the next lane's front leaves
        // (`take_lane_front`): every event takes the full comparison.
        self.near_alone_before = if self.in_lanes > 0 { 0 } else { (self.far_key >> 64) as Time };
    }

    /// Inlined everywhere, so that the event is packed from constants and
    /// registers where it is made.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: Event) {
        let s = Scheduled::new(at, self.next_seq, event);
        self.next_seq += 1;
        let gap = at.wrapping_sub(self.now);
        // (An event due before `now`, which a caller should not schedule
        // but one heap would run next, has a huge gap: it goes here, and
        // still runs next.)
        if gap >= self.far_from {
            place(&mut self.far, &mut self.taken, Taken::FAR, s);
            self.far_root_moved();
            return;
        }
        let lane = if self.near.len() >= self.lanes_from { self.lanes.iter().position(|l| l.gap == gap) } else { None };
        if let Some(i) = lane {
            self.in_lanes += 1;
            let queue = &mut self.lanes[i].queue;
            if queue.is_empty() {
                self.lane_fronts[i] = s.key();
                self.lane_best.update(&self.lane_fronts, i);
                // A new front can only be earlier than the others.
                self.near_alone_before = self.near_alone_before.min(at);
            }
            queue.push_back(s);
        } else {
            self.near.push(s);
        }
    }

    /// The front of lane `i` was handed out last: it leaves, and the lane's
    /// next front takes its place in the tournament. Out of line, so that
    /// a run without lanes (topology 1) keeps the loop's code small.
    #[inline(never)]
    fn take_lane_front(&mut self, i: usize) {
        let queue = &mut self.lanes[i].queue;
        queue.drop_front();
        let front = queue.front();
        self.lane_fronts[i] = front.map_or(u128::MAX, Scheduled::key);
        self.revealed = (self.reveal_at < queue.len()).then(|| queue.get(self.reveal_at).event).and_then(|e| e.pipe_head());
        self.lane_best.update(&self.lane_fronts, i);
        self.in_lanes -= 1;
        // The earliest of the others, exactly (an empty lane's key, like an
        // empty far heap's, is u128::MAX).
        self.near_alone_before = (self.far_key.min(self.lane_fronts[self.lane_best.winner()]) >> 64) as Time;
    }

    /// Reveals each pipe head when it reaches place `k` of its lane (0:
    /// its front; each pop moves every event up one place, so each is
    /// revealed once, when a pop leaves it there): the larger `k`, the
    /// earlier the world hears of it. A hint, changing no order.
    pub fn reveal_at(&mut self, k: usize) {
        self.reveal_at = k;
    }

    /// The pipe head revealed since the last call, if any (lanes run on
    /// large networks only): a hint, changing no order.
    #[inline(always)]
    pub fn take_revealed(&mut self) -> Option<PortId> {
        self.revealed.take()
    }

    /// Takes the insertion number the next [`Scheduler::schedule`] would
    /// give, for an event that may never be needed: scheduled later with
    /// [`Scheduler::schedule_reserved`], it takes the place in the order it
    /// would have had if scheduled now, and every other event keeps its own.
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedules `event` at `at` with the insertion number `seq` taken by
    /// [`Scheduler::reserve`]; it must not have passed
    /// ([`Scheduler::has_passed`]). Into the wheel or the far heap, never a
    /// lane: a lane's events must arrive in order.
    pub fn schedule_reserved(&mut self, at: Time, seq: u64, event: Event) {
        debug_assert!(seq < self.next_seq && !self.has_passed(at, seq), "a reserved place still ahead");
        let s = Scheduled { at, seq, event: Packed::of(event) };
        if at.wrapping_sub(self.now) >= self.far_from {
            place(&mut self.far, &mut self.taken, Taken::FAR, s);
            self.far_root_moved();
        } else {
            self.near.push(s);
        }
    }

    /// Insertion numbers handed out so far (by [`Scheduler::schedule`] and
    /// [`Scheduler::reserve`]): a caller can tell whether anything was
    /// scheduled between two of its own calls.
    #[inline(always)]
    pub fn allocated(&self) -> u64 {
        self.next_seq
    }

    /// Would an event at `at` with insertion number `seq` have been handed
    /// out already (it comes before the one handed out last, or is it)?
    #[inline]
    pub fn has_passed(&self, at: Time, seq: u64) -> bool {
        (at, seq) <= (self.now, self.now_seq)
    }

    /// Hands out the earliest event if it is due no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        self.next_until(until).map(|(t, e)| (t, e.event()))
    }

    /// [`Scheduler::pop_until`] for the event loop: the event as stored,
    /// so that a pipe head, nearly every event, is recognised by one test.
    #[inline]
    pub fn next_until(&mut self, until: Time) -> Option<(Time, Popped)> {
        // (Read, and written only when something waits: the wheel's events
        // leave nothing behind.)
        let taken = self.taken;
        if taken != Taken::NONE {
            self.taken = Taken::NONE;
        }
        if taken == Taken::FAR {
            let last = self.far.pop().expect("a taken root is still in the far heap");
            if !self.far.is_empty() {
                sift_down(&mut self.far, 0, last);
            }
            self.far_root_moved();
        } else if taken != Taken::NONE {
            self.take_lane_front(taken.0 - Taken::LANE);
        }
        // The earliest of the wheel's first, the far heap's root and the
        // lanes' fronts (no key is u128::MAX: no event is due at the end of
        // time). Nearly always the wheel's, due before the far heap's root
        // with no lane in use: tested first, by its time alone
        // (`near_alone_before`; ndp-in-out 0.2 s 415.3 -> 405.9 M
        // instructions, topology 1 3 s 441.6 -> 426.9 M).
        let near = self.near.first(self.now);
        if let Some(b) = near {
            if self.near.front(b).at < self.near_alone_before {
                return self.hand_out_near(until, b);
            }
        }
        let near_key = near.map_or(u128::MAX, |b| self.near.front(b).key());
        let mut best_key = near_key;
        let mut taken = Taken::NEAR;
        if self.far_key < best_key {
            best_key = self.far_key;
            taken = Taken::FAR;
        }
        if self.in_lanes > 0 {
            let i = self.lane_best.winner();
            let key = self.lane_fronts[i];
            if key < best_key {
                best_key = key;
                taken = Taken(Taken::LANE + i);
            }
        }
        if best_key == u128::MAX {
            return None;
        }
        let s = if taken == Taken::NEAR {
            return self.hand_out_near(until, near.expect("an event in the wheel"));
        } else if taken == Taken::FAR {
            self.far[0]
        } else {
            *self.lanes[taken.0 - Taken::LANE].queue.front().expect("a lane's front")
        };
        if s.at() > until {
            return None;
        }
        // It stays where it waits until the next call (see `taken`).
        self.taken = taken;
        Some(self.handed(s))
    }

    /// Hands out the first event of the wheel's bucket `b`, taking it out,
    /// if it is due no later than `until`.
    #[inline(always)]
    fn hand_out_near(&mut self, until: Time, b: usize) -> Option<(Time, Popped)> {
        let s = *self.near.front(b);
        if s.at() > until {
            return None;
        }
        self.near.pop_front(b);
        Some(self.handed(s))
    }

    #[inline(always)]
    fn handed(&mut self, s: Scheduled) -> (Time, Popped) {
        self.now = s.at();
        self.now_seq = s.seq;
        self.executed += 1;
        (s.at(), Popped(s.event))
    }

    /// Number of events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }
}

#[cfg(test)]
mod tests;
