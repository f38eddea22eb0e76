//! Fabric links failing and slowing (`[[fabric.fail]]`; docs/fabric.md
//! R9): at its time a link direction goes down, and every cell waiting for
//! it or on its wire is lost; until the failure is detected
//! (`fabric.reach.detect`) sprayers and fabric elements go on choosing it,
//! and what they send onto it is lost too; from then on they leave it out,
//! and a fabric element left with no link to a FAP no longer reaches it,
//! so sprayers leave out their links to that element for that FAP. A lost
//! data cell is given up by its stream after `fabric.reassembly_timeout`,
//! and the packets it carried bytes of are discarded; a lost FlowStatus is
//! sent again after the same time (as a periodic refresh would); a lost
//! credit is simply missing. A slowed link keeps its place and its cells.

use super::fabric::Fabric;
use super::World;
use crate::engine::{Event, FabricEvent, Scheduler};
use crate::fabric::stages::Hop;
use crate::fabric::{Cell, CellKind};
use crate::time::Time;

impl Fabric {
    /// A fabric element passes a cell that came by a link whose far end
    /// does `hop` (`fabric/tables.rs`) on to its next
    /// usable link down to the cell's FAP, round robin; None if the cell
    /// was lost (no such link, or a failed one not yet detected).
    /// In three stages the FE1 and FE2 hops come first (`fabric_stages.rs`).
    pub(super) fn fe_forward(&mut self, hop: Hop, cell: Cell) -> Option<u32> {
        let fe = match hop {
            Hop::ToFap(fe) => fe,
            Hop::ToFe2(fe1) => return self.fe1_sends(fe1, cell),
            Hop::ToFe3(fe2) => return self.fe2_sends(fe2, cell),
        };
        let g = &self.cfg.geometry;
        let at = (fe * g.faps + cell.dst_fap as u32) as usize;
        let n = self.tables.links_per_fe;
        let mut k = self.fe_next[at];
        for _ in 0..n {
            let down = self.tables.down_from_fe(g, fe, cell.dst_fap as u32, k);
            // The next in round-robin order, without a division: k < n.
            k = if k + 1 == n { 0 } else { k + 1 };
            if self.links[down as usize].usable {
                self.fe_next[at] = k;
                return self.pass_on(down, cell);
            }
        }
        self.lose_at_element(cell);
        None
    }

    /// Follows up the cells lost since the last call: credits owed for
    /// them, a data cell's give-up, a FlowStatus sent again.
    #[inline]
    pub(super) fn follow_losses(&mut self, sched: &mut Scheduler, now: Time) {
        if !(self.dead.is_empty() && self.late_credits.is_empty()) {
            self.follow_each_loss(sched, now);
        }
    }

    fn follow_each_loss(&mut self, sched: &mut Scheduler, now: Time) {
        let timeout = self.cfg.reassembly_timeout;
        for &(link, fwd) in &self.late_credits {
            let delay = self.links[link as usize].delay;
            sched.schedule(now + delay, Event::Fabric(FabricEvent::LinkCredit { link, fwd }));
        }
        self.late_credits.clear();
        for cell in self.dead.drain(..) {
            let ev = match cell.kind {
                CellKind::Data => FabricEvent::GiveUp { voq: cell.voq, cell: cell.seq as u64 | (cell.payload as u64) << 32 },
                CellKind::FlowStatus => FabricEvent::StatusAgain(cell.voq),
                CellKind::Credit => continue,
            };
            sched.schedule(now + timeout, Event::Fabric(ev));
        }
    }

    /// An element queues a cell for its next link; if that link has failed
    /// the cell is lost and its place in the element is free again.
    pub(super) fn pass_on(&mut self, next: u32, cell: Cell) -> Option<u32> {
        let queued = self.enqueue(next, cell);
        if !queued {
            self.forwarded_from(cell.from_link);
        }
        queued.then_some(next)
    }

    /// Balanced input (R9): the egress schedulers of `fap`'s ports grant at
    /// u/n of their credit rate, u of its n links from the fabric usable.
    fn balance_input(&mut self, fap: u32) {
        let g = &self.cfg.geometry;
        let n = g.links;
        let usable = (0..n).filter(|&i| self.links[g.down(fap, i) as usize].usable).count() as u64;
        for port in fap * g.ports..(fap + 1) * g.ports {
            let full = self.full_credit_rates[port as usize];
            // Rates are exact fractions: u/n of one is one, unless it
            // vanishes (no link left: nothing reaches the FAP anyway).
            if let Some(rate) = crate::time::Rate::new(full.bits as u128 * usable as u128, full.ps as u128 * n as u128) {
                self.schedulers[port as usize].set_credit_rate(rate);
            }
        }
    }

    /// A cell lost in a fabric element (no link left to its FAP).
    pub(super) fn lose_at_element(&mut self, cell: Cell) {
        self.lost_unreachable += 1;
        self.lose(cell);
        self.forwarded_from(cell.from_link);
    }

    /// A cell left the element's buffer without a link to carry it: its
    /// place is free again, and the link it came by may be owed a credit.
    fn forwarded_from(&mut self, link: u32) {
        if let Some(fwd) = self.links[link as usize].forwarded() {
            self.late_credits.push((link, fwd));
        }
    }
}

impl World {
    /// Follows up the cells the fabric lost since the last call
    /// (`Fabric::follow_losses`).
    pub(super) fn fabric_losses(&mut self) {
        let now = self.now;
        let (f, sched) = self.fabric_and_scheduler();
        f.follow_losses(sched, now);
    }

    /// The `i`-th `[[fabric.fail]]` happens.
    pub(super) fn link_fails(&mut self, i: u32) {
        let f = self.fabric();
        let failure = f.cfg.failures[i as usize].clone();
        for &link in &failure.links {
            match failure.rate {
                Some(rate) => f.links[link as usize].set_rate(rate),
                None => {
                    let mut lost = Vec::new();
                    f.links[link as usize].fail(|cell, in_element| lost.push((cell, in_element)));
                    f.lost_at_failure += lost.len() as u64;
                    // Every link but a FAP's own links into the fabric is sent by an element.
                    let from_element = !f.cfg.geometry.is_up(link);
                    for (cell, in_queue) in lost {
                        f.lose(cell);
                        // A cell waiting at a fabric element held a place there.
                        if from_element && in_queue {
                            f.forwarded_from(cell.from_link);
                        }
                    }
                }
            }
        }
        if failure.rate.is_none() {
            let detect = self.fabric().cfg.detect;
            self.sched.schedule(self.now + detect, Event::Fabric(FabricEvent::Detect(i)));
        }
        self.fabric_losses();
    }

    /// A failure is detected: its links are left out from now on.
    pub(super) fn failure_detected(&mut self, i: u32) {
        let f = self.fabric();
        let links = f.cfg.failures[i as usize].links.clone();
        for link in links {
            let f = self.fabric();
            if !f.links[link as usize].usable {
                continue;
            }
            f.links[link as usize].usable = false;
            f.all_usable = false;
            let g = &f.cfg.geometry;
            if g.to_fap(link) {
                let (fap, _) = g.fap_and_index(link);
                let at = (g.fe_of(link) * g.faps + fap) as usize;
                f.reach[at] -= 1;
                if f.cfg.balanced_input {
                    f.balance_input(fap);
                }
            }
        }
        let f = self.fabric();
        if f.cfg.geometry.spine.is_some() {
            let links = &f.links;
            f.stages.recount(&f.cfg.geometry, &f.reach, |l| links[l as usize].usable);
        }
    }

    /// A stream gives up a lost data cell; packets it completes go on.
    pub(super) fn give_up(&mut self, voq: u32, cell: u64) {
        let f = self.fabric();
        f.streams[voq as usize].give_up(cell as u32, (cell >> 32) as u16);
        let port = f.cfg.geometry.voq_ends(voq).1;
        let egress = f.egress[port as usize];
        self.reassembled(voq, egress);
    }

    /// A VOQ whose FlowStatus was lost reports its state again.
    pub(super) fn status_again(&mut self, voq: u32) {
        let f = self.fabric();
        let v = &mut f.voqs[voq as usize];
        v.statuses = v.statuses.wrapping_add(1);
        let seq = v.statuses << 2 | v.state as u32;
        let (src_fap, port) = f.cfg.geometry.voq_ends(voq);
        let dst_fap = f.cfg.geometry.fap_of_port(port) as u8;
        let cell = Cell { voq, seq, from_link: 0, payload: f.cfg.control_bytes as u16, dst_fap, kind: CellKind::FlowStatus };
        f.spray(src_fap, cell);
        self.start_waking();
        self.fabric_losses();
    }
}
