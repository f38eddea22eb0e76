//! Fabric links' ends of transmission and arrivals, one event per group
//! (issue 36; docs/performance.md). Every start on a fabric link needs two
//! things to happen later: its transmitter frees (a cell time on) and the
//! cell reaches the far end (that plus the link's delay). Each used to be an
//! event of its own; links started at one instant in a busy fabric end, and
//! their cells arrive, at one instant too, and those events came out of the
//! scheduler one after the other, nothing between them. Such a run is now
//! one event: a *group*, the links in the order their events would have run.
//!
//! Exactness: events run in (time, insertion number) order, and the number
//! is handed out as events are scheduled. A link joins the group due at its
//! instant only if nothing else was scheduled at that instant since the
//! group was (its own event would have come next after the group's last
//! member there, with no other event between: the order of every event,
//! and every output, is unchanged; only the count of events drops). This
//! holds because every event the fabric schedules between members is
//! checked against the open groups' instants (`Fabric::scheduling_at`),
//! and anything else scheduled between (a host's packet, a timer, a NIC's
//! reserved place) is seen by the scheduler's count of numbers handed out
//! having moved: then no open group takes another member.

use super::fabric::Fabric;
use super::World;
use crate::engine::{Event, FabricEvent};
use crate::time::Time;

/// Groups that may still take members, at most (their instants differ: a
/// full cell's end, rounded down or up, a control cell's, and the arrivals
/// one link delay after each).
const OPEN: usize = 8;

/// What a group's links are due for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Due {
    /// Their transmitters free: each starts its next cell (R6).
    End,
    /// The cell at the head of each one's wire reaches the far end.
    Arrival,
}

#[derive(Debug)]
pub(super) struct Groups {
    /// Per group, its links in order (kept, cleared, for reuse: no
    /// allocation per cell once the run is warm).
    links: Vec<Vec<u32>>,
    /// Groups not pending.
    free: Vec<u32>,
    /// Groups that may take members: (instant, what for, index).
    open: [(Time, Due, u32); OPEN],
    /// The next slot of `open` to reuse.
    next_open: usize,
    /// The scheduler's count of insertion numbers handed out just after the
    /// fabric's last check: if it moved since, something the fabric did not
    /// check was scheduled, and no open group may take a member.
    mark: u64,
}

impl Groups {
    pub(super) fn new() -> Groups {
        Groups { links: Vec::new(), free: Vec::new(), open: [(Time::MAX, Due::End, 0); OPEN], next_open: 0, mark: 0 }
    }

    /// No open group takes another member.
    fn close_all(&mut self) {
        for o in &mut self.open {
            o.0 = Time::MAX;
        }
    }

    /// Something is scheduled at `at` that is not a member of a group
    /// there: no open group at that instant may take another member (the
    /// new event would run between).
    pub(super) fn not_a_member(&mut self, at: Time, allocated: u64) {
        if allocated != self.mark {
            self.close_all();
        }
        for o in &mut self.open {
            if o.0 == at {
                o.0 = Time::MAX;
            }
        }
        // The caller schedules one event next.
        self.mark = allocated + 1;
    }

    /// `link`'s event due at `at`: the open group there for the same, or
    /// None when a new group must be scheduled (`open_new`).
    fn join(&mut self, at: Time, due: Due, link: u32, allocated: u64) -> bool {
        if allocated != self.mark {
            self.close_all();
            return false;
        }
        for o in &mut self.open {
            if o.0 == at {
                if o.1 == due {
                    self.links[o.2 as usize].push(link);
                    return true;
                }
                // Another kind's group at this instant: the new one runs after it.
                o.0 = Time::MAX;
            }
        }
        false
    }

    /// A new group of `link` alone, open for more, due at `at`; its index.
    fn open_new(&mut self, at: Time, due: Due, link: u32, allocated: u64) -> u32 {
        let g = self.free.pop().unwrap_or_else(|| {
            self.links.push(Vec::new());
            self.links.len() as u32 - 1
        });
        self.links[g as usize].push(link);
        self.open[self.next_open] = (at, due, g);
        self.next_open = (self.next_open + 1) % OPEN;
        // The group's own event is scheduled next.
        self.mark = allocated + 1;
        g
    }
}

impl Fabric {
    /// The fabric schedules an event at `at` that joins no group (a link
    /// credit, a give-up): call before scheduling it.
    pub(super) fn scheduling_at(&mut self, at: Time, allocated: u64) {
        self.groups.not_a_member(at, allocated);
    }
}

impl World {
    /// `link`'s end of transmission or arrival, due at `at`: into the open
    /// group there, or a new group's event.
    pub(super) fn due(&mut self, at: Time, due: Due, link: u32) {
        let allocated = self.sched.allocated();
        let groups = &mut self.fabric().groups;
        if groups.join(at, due, link, allocated) {
            return;
        }
        let g = groups.open_new(at, due, link, allocated);
        let ev = match due {
            Due::End => FabricEvent::LinkFree(g),
            Due::Arrival => FabricEvent::LinkHead(g),
        };
        self.sched.schedule(at, Event::Fabric(ev));
    }

    /// A group's event: each of its links in order, as their own events
    /// would have run.
    pub(super) fn group_due(&mut self, g: u32, due: Due) {
        let mut links = std::mem::take(&mut self.fabric().groups.links[g as usize]);
        for &link in &links {
            match due {
                Due::End => {
                    self.fabric().links[link as usize].busy = false;
                    self.fabric_start(link);
                }
                Due::Arrival => self.fabric_arrival(link),
            }
        }
        links.clear();
        let groups = &mut self.fabric().groups;
        groups.links[g as usize] = links;
        groups.free.push(g);
    }
}
