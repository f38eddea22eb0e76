//! A fabric link's start (`Fabric::start`): the next cell chosen,
//! its end and arrival placed in the groups due at their instants
//! (`fabric_group.rs`), the link credit owed upstream; and the links given
//! a cell while idle, started in turn. Plain functions of the fabric and
//! the scheduler, so that a group's event finds the fabric once.

use super::fabric::{Fabric, ARRIVAL_QUEUE};
use super::fabric_group::Due;
use super::World;
use crate::engine::{Event, FabricEvent, Scheduler};
use crate::fabric::CellKind;
use crate::time::Time;

impl Fabric {
    /// Starts the links that were given a cell while idle, in the order
    /// they were given it.
    #[inline]
    pub(super) fn start_waking(&mut self, sched: &mut Scheduler, now: Time) {
        if !self.waking.is_empty() {
            self.start_each_waking(sched, now);
        }
    }

    fn start_each_waking(&mut self, sched: &mut Scheduler, now: Time) {
        // A start queues nothing, so the list does not change under the loop.
        for i in 0..self.waking.len() {
            let link = self.waking[i];
            self.start(sched, now, link);
        }
        self.waking.clear();
    }

    /// Starts a link's next cell if it can; schedules its end and its
    /// arrival, each into the group due at its instant (`fabric_group.rs`:
    /// the links started at one instant end, and their cells arrive,
    /// together, in the order they started). Both come a fixed gap after the
    /// start for a full cell (its time; that plus the link's delay), so the
    /// scheduler keeps them in its gap lanes, in O(1) (`gaps`). A cell
    /// leaving a fabric element frees its place there: the link it came in
    /// by gets its credit back.
    pub(super) fn start(&mut self, sched: &mut Scheduler, now: Time, link: u32) {
        let l = &mut self.links[link as usize];
        let header = self.cfg.cell_header;
        let Some((cell, end, queue)) = l.start(now, header) else { return };
        // What the link put at the back of its queue's wire (`FabricLink::start`).
        let arrive_at = end + l.delay;
        self.peak_resident = self.peak_resident.max(l.resident());
        self.groups.place(sched, end, Due::End, link);
        self.groups.place(sched, arrive_at, Due::Arrival, link | (queue as u32) << ARRIVAL_QUEUE);
        if self.cfg.geometry.is_up(link) {
            let counts = &mut self.up_counts[link as usize];
            counts.data_cells += (cell.kind == CellKind::Data) as u64;
            counts.wire_bytes += (cell.payload as u32 + header) as u64;
        } else {
            let from = &mut self.links[cell.from_link as usize];
            if let Some(fwd) = from.forwarded() {
                let at = now + from.delay;
                self.schedule_link_credit(sched, at, cell.from_link, fwd);
            }
        }
    }

    /// A link credit for `link` carrying `fwd`, due at `at`: no member of
    /// a group, so the open group at that instant takes no more (the credit
    /// runs between).
    pub(super) fn schedule_link_credit(&mut self, sched: &mut Scheduler, at: Time, link: u32, fwd: u64) {
        self.groups.not_a_member(at, sched.allocated());
        sched.schedule(at, Event::Fabric(FabricEvent::LinkCredit { link, fwd }));
    }
}

impl World {
    /// Starts the links that were given a cell while idle.
    pub(super) fn start_waking(&mut self) {
        let now = self.now;
        let (f, sched) = self.fabric_and_scheduler();
        f.start_waking(sched, now);
    }

    /// Starts a link's next cell if it can (`Fabric::start`).
    pub(super) fn fabric_start(&mut self, link: u32) {
        let now = self.now;
        let (f, sched) = self.fabric_and_scheduler();
        f.start(sched, now, link);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::MAX_LANES;

    /// Every gap the fabric declares gets a lane (beyond `MAX_LANES` a
    /// gap would be ignored, and its events would sift through the heap):
    /// the full cells' and the control cells' ends and arrivals first.
    #[test]
    fn the_fabric_gaps_fit_the_lanes_cells_first() {
        for name in ["fabric-perm", "fabric-incast", "fabric-3stage"] {
            let text =
                std::fs::read_to_string(format!("{}/../../python/atmsim/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let m = crate::scenario::validate(&crate::scenario::parse(&text, &[]).unwrap(), None).unwrap();
            let fm = m.fabric.as_ref().unwrap();
            let gaps = super::super::fabric::gaps(&m, fm);
            assert!(gaps.len() <= MAX_LANES, "{name}: {gaps:?}");
            let cfg = &fm.config;
            let (cell, control) = (
                cfg.link_rate.tx_time((cfg.cell_payload + cfg.cell_header) as u64),
                cfg.link_rate.tx_time((cfg.control_bytes + cfg.cell_header) as u64),
            );
            let delay = cfg.geometry.delays[0];
            assert_eq!(gaps[..4], [cell, cell + delay, control, control + delay], "{name}");
        }
    }
}
