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
//! checked against the open groups' instants (`Fabric::schedule_link_credit`, `fabric_link.rs`),
//! and anything else scheduled between (a host's packet, a timer, a NIC's
//! reserved place) is seen by the scheduler's count of numbers handed out
//! having moved: then no open group takes another member.

use super::World;
use crate::engine::{Event, FabricEvent, Scheduler};
use crate::time::Time;

/// Groups that may still take members, at most (their instants differ: a
/// full cell's end and its arrival, a control cell's, ...). Every link
/// started scans them: `fabric-perm` 50 µs under callgrind took 1,811.1 M
/// instructions with 2 (1,412,842 events), 1,789.6 M with 4 (1,325,535
/// events), 1,800.4 M with 8 (1,314,357 events).
const OPEN: usize = 4;

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
    /// Off, every end and arrival is an event of its own (tests).
    joining: bool,
}

impl Groups {
    pub(super) fn new() -> Groups {
        Groups { links: Vec::new(), free: Vec::new(), open: [(Time::MAX, Due::End, 0); OPEN], next_open: 0, mark: 0, joining: true }
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
    #[inline(always)]
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

    /// `link`'s event due at `at`: into the open group there, or a new
    /// group's event scheduled now.
    #[inline(always)]
    pub(super) fn place(&mut self, sched: &mut Scheduler, at: Time, due: Due, link: u32) {
        let allocated = sched.allocated();
        if self.joining && self.join(at, due, link, allocated) {
            return;
        }
        let g = self.open_new(at, due, link, allocated);
        let ev = match due {
            Due::End => FabricEvent::LinkFree(g),
            Due::Arrival => FabricEvent::LinkHead(g),
        };
        sched.schedule(at, Event::Fabric(ev));
    }

    /// The links of group `g`, handed over for its event (`give_back` after).
    pub(super) fn take(&mut self, g: u32) -> Vec<u32> {
        std::mem::take(&mut self.links[g as usize])
    }

    /// Group `g`'s links, cleared, and its index, for reuse.
    pub(super) fn give_back(&mut self, g: u32, mut links: Vec<u32>) {
        links.clear();
        self.links[g as usize] = links;
        self.free.push(g);
    }

    /// A new group of `link` alone, open for more, due at `at`; its index.
    #[inline(always)]
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

impl World {
    /// Groups take more than one link (as runs are), or none (each end and
    /// arrival its own event, in the same order: the tests' reference).
    #[cfg(test)]
    pub(super) fn group_fabric_dues(&mut self, on: bool) {
        self.fabric().groups.joining = on;
    }

    /// A group's event: each of its links in order, as their own events
    /// would have run.
    pub(super) fn group_due(&mut self, g: u32, due: Due) {
        let (now, done) = (self.now, self.unfinished == 0);
        let (f, sched) = self.fabric_and_scheduler();
        let links = f.groups.take(g);
        match due {
            // Ends touch only the fabric and the scheduler: found once for the group.
            Due::End => {
                for &link in &links {
                    f.links[link as usize].busy = false;
                    f.start(sched, now, link);
                    // As below; a start delivers nothing, so only a run already done stops here.
                    if done {
                        break;
                    }
                }
            }
            Due::Arrival => {
                let mut i = 0;
                while i < links.len() {
                    // Arrivals need only the fabric until one completes a packet.
                    let (f, sched) = self.fabric_and_scheduler();
                    let mut completed = None;
                    while completed.is_none() && i < links.len() {
                        completed = f.arrival(sched, now, links[i]);
                        i += 1;
                    }
                    if let Some((voq, egress)) = completed {
                        self.reassembled(voq, egress);
                    }
                    // The run stops after the event that delivers its last finite
                    // transfer (`run_observed`): the later members' events would not
                    // have run. Only the world's part of an arrival delivers.
                    if self.unfinished == 0 {
                        break;
                    }
                }
            }
        }
        self.fabric().groups.give_back(g, links);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a group's or another event's run looks like: (time, 0 end / 1
    /// arrival / 2 another event, link or id).
    type Item = (Time, u8, u32);

    /// Runs `steps` items of a made-up fabric: after each item (a group's
    /// member, or another event) come a few ends and arrivals, events
    /// the fabric checks (a link credit), events it does not (a host's),
    /// and reserved places, at gaps that often coincide. Returns every
    /// item in the order run, and the number of events.
    fn run(joining: bool, steps: usize) -> (Vec<Item>, u64) {
        let mut sched = Scheduler::default();
        let mut groups = Groups::new();
        groups.joining = joining;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut draw = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut out = Vec::new();
        let mut next_id = 0u32;
        let mut act = |now: Time, sched: &mut Scheduler, groups: &mut Groups, draw: &mut dyn FnMut(u64) -> u64| {
            for _ in 0..draw(4) {
                let at = now + [10, 11, 25, 26, 15][draw(5) as usize];
                match draw(10) {
                    0 => {
                        sched.schedule(at, Event::Fabric(FabricEvent::StatusAgain(next_id)));
                        next_id += 1;
                    }
                    1 => {
                        groups.not_a_member(at, sched.allocated());
                        sched.schedule(at, Event::Fabric(FabricEvent::CreditSlot(next_id)));
                        next_id += 1;
                    }
                    2 => {
                        sched.reserve();
                    }
                    k => groups.place(sched, at, if k < 6 { Due::End } else { Due::Arrival }, draw(40) as u32),
                }
            }
        };
        act(0, &mut sched, &mut groups, &mut draw);
        while out.len() < steps {
            let Some((now, ev)) = sched.pop_until(Time::MAX) else { break };
            match ev {
                Event::Fabric(FabricEvent::LinkFree(g) | FabricEvent::LinkHead(g)) => {
                    let kind = matches!(ev, Event::Fabric(FabricEvent::LinkHead(_))) as u8;
                    let links = groups.take(g);
                    for &l in &links {
                        out.push((now, kind, l));
                        act(now, &mut sched, &mut groups, &mut draw);
                    }
                    groups.give_back(g, links);
                }
                Event::Fabric(FabricEvent::StatusAgain(id) | FabricEvent::CreditSlot(id)) => {
                    out.push((now, 2, id));
                    act(now, &mut sched, &mut groups, &mut draw);
                }
                e => panic!("not scheduled here: {e:?}"),
            }
        }
        (out, sched.executed())
    }

    #[test]
    fn grouped_ends_and_arrivals_run_in_the_order_of_one_event_each() {
        let (grouped, fewer) = (run(true, 20_000), run(false, 20_000));
        assert_eq!(grouped.0.len(), 20_000);
        assert!(grouped.1 * 10 < fewer.1 * 9, "groups of more than one link: {} events against {}", grouped.1, fewer.1);
        assert_eq!(grouped.0, fewer.0, "every end, arrival and other event in the same order");
    }

    #[test]
    fn same_instant_arrivals_on_different_links_run_in_start_order() {
        // Links 7, 3 and 5 start at 0 in that order (as `fabric_start` does:
        // the end, then the arrival): one event for the ends, one for the
        // arrivals, each with the links in start order.
        let mut sched = Scheduler::default();
        let mut groups = Groups::new();
        for link in [7, 3, 5] {
            groups.place(&mut sched, 100, Due::End, link);
            groups.place(&mut sched, 150, Due::Arrival, link);
        }
        // A host's event at 150 comes after the three arrivals; link 9's
        // arrival, scheduled after it, after that.
        sched.schedule(150, Event::Fabric(FabricEvent::StatusAgain(0)));
        groups.place(&mut sched, 150, Due::Arrival, 9);
        let mut order = Vec::new();
        while let Some((t, ev)) = sched.pop_until(Time::MAX) {
            match ev {
                Event::Fabric(FabricEvent::LinkFree(g) | FabricEvent::LinkHead(g)) => {
                    let links = groups.take(g);
                    order.push((t, links.clone()));
                    groups.give_back(g, links);
                }
                _ => order.push((t, Vec::new())),
            }
        }
        assert_eq!(order, [(100, vec![7, 3, 5]), (150, vec![7, 3, 5]), (150, vec![]), (150, vec![9])]);
        assert_eq!(sched.executed(), 4);
    }

    /// A built-in scenario with the given overrides, its ends and arrivals
    /// grouped (as runs are) or each its own event.
    fn summary(text: &str, sets: &[&str], joining: bool) -> crate::summary::Summary {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let m = crate::scenario::validate(&crate::scenario::parse(text, &sets).unwrap(), None).unwrap();
        let mut w = World::new(m, false);
        w.group_fabric_dues(joining);
        w.run();
        let (mut s, _) = w.finish();
        s.wall_s = 0.0;
        s
    }

    /// Both ways: every output the same but the event count, which groups lower.
    fn same_but_events(text: &str, sets: &[&str]) -> crate::summary::Summary {
        let (grouped, single) = (summary(text, sets, true), summary(text, sets, false));
        assert!(grouped.events < single.events, "{sets:?}: {} events against {}", grouped.events, single.events);
        let json = |mut s: crate::summary::Summary| {
            s.events = 0;
            s.to_json()
        };
        let grouped_json = json(grouped.clone());
        assert_eq!(grouped_json, json(single), "{sets:?}");
        grouped
    }

    #[test]
    fn fabric_runs_change_nothing_but_the_event_count() {
        let incast = include_str!("../../../../python/atmsim/scenarios/fabric-incast.toml");
        let s = same_but_events(incast, &[]);
        // Same-instant arrivals in start order: the cells of a packet that
        // reach the egress together are taken in sequence, at most one held
        // (main's value, and the golden's).
        let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(v["fabric"]["reorder_depth_max"], 1);
        // A failure and its detection, a slowed link, packing (the golden variations).
        same_but_events(incast, &["fabric.fail=[{link = \"fap1.l0\", at = \"100us\"}]", "fabric.reach.detect=2us", "duration=300us"]);
        same_but_events(
            incast,
            &[
                "fabric.fail=[{link = \"fap0.l3\", at = \"100us\", rate = \"10Gbps\", dir = \"down\"}]",
                "fabric.packing=continuous",
                "duration=300us",
            ],
        );
        let perm = include_str!("../../../../python/atmsim/scenarios/fabric-perm.toml");
        same_but_events(perm, &["duration=20us"]);
        same_but_events(perm, &["duration=20us", "fabric.spray=least-loaded"]);
        let three = include_str!("../../../../python/atmsim/scenarios/fabric-3stage.toml");
        same_but_events(three, &["duration=5us"]);
    }
}
