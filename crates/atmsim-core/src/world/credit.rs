//! Per-VC transmissions and credit flow control between the two ends of a
//! link (Morris & Kung 1995 §II; the N23 scheme of Kung et al. 1994).
//!
//! A per-VC port takes one `PortEvent::Free` per transmission: when a data
//! cell's last bit has left, its buffer slot is free, the receiving end's
//! `Fwd_Cnt` advances and every N2 cells a credit is due upstream. In band
//! (the default, as CreditNet did), after the receiver's processing delay a
//! credit cell queues at the port of the reverse direction, goes before any
//! data cell there, takes one cell slot and crosses the link delay; out of
//! band it arrives one processing delay plus one link delay later.

use super::World;
use crate::engine::{CreditEvent, Event, PortEvent};
use crate::net::pervc::CreditCell;
use crate::net::port::Started;
use crate::net::{PortId, VcId};
use crate::scenario::CreditTransport;
use crate::time::Time;

impl World {
    /// A per-VC port's transmission ended: credit the cell that left, then
    /// start the next transmission.
    pub(super) fn port_free(&mut self, p: PortId) {
        let t = self.now;
        if let Some(done) = self.ports[p.ix()].finish_tx(t) {
            if self.services.takes.watching {
                self.departed(p, t, &done);
            }
            // Hosts do not forward: a port leaving a host is the first of
            // every route through it.
            if !self.model.is_host[self.model.ports[p.ix()].from.ix()] {
                if let Some(upstream) = self.vcs.upstream(done.vc, p) {
                    self.forwarded(upstream, done.vc, t);
                }
            } else if done.is_eom() && self.model.host.is_some() {
                // The packet has left the sending host's adapter.
                let h = self.vcs.get(done.vc).src;
                self.adapter_free(h);
            }
        }
        if let Some(st) = self.ports[p.ix()].start_next(t) {
            self.started(p, st);
        }
    }

    /// A per-VC port started a transmission: schedule the port's next
    /// departure, and the pipe, or the credit cell's arrival upstream.
    pub(super) fn started(&mut self, p: PortId, st: Started) {
        match st {
            Started::Cell { unit, free_at, arrive_at, pipe_was_empty } => {
                if self.doomed[unit.vc.ix()] == unit.frame {
                    self.ports[p.ix()].stats.dead_units += 1;
                }
                self.transmitter_free_at(p, free_at);
                if pipe_was_empty {
                    self.sched.schedule(arrive_at, Event::Port(PortEvent::PipeHead(p)));
                }
            }
            Started::Credit { credit, free_at, arrive_at } => {
                self.sched.schedule(free_at, Event::Port(PortEvent::Free(p)));
                let CreditCell { link, vc, fwd } = credit;
                self.sched.schedule(arrive_at, Event::Credit(CreditEvent::Arrive { port: link, vc, fwd }));
            }
        }
    }

    /// Port `p`'s transmitter is free again at `free_at`: its
    /// `PortEvent::Free`. At a host's NIC with nothing waiting, that event
    /// would find nothing to send, so it only takes its place in the order
    /// (the NIC's `deferred_free`): `nic_arrival` schedules it there if a
    /// packet arrives before it, and otherwise the NIC is idle from then on.
    /// (Where a port is watched, the event reports the departure; where a
    /// host is modelled, it frees the adapter; with traces, the NIC's
    /// occupancy is sampled: there it is always scheduled.)
    fn transmitter_free_at(&mut self, p: PortId, free_at: Time) {
        if self.defer_nic_free {
            if let Some(nic) = self.ports[p.ix()].host_nic_mut() {
                if nic.lazy {
                    return;
                }
                if nic.queued() == 0 {
                    nic.deferred_free = Some(self.sched.reserve());
                    return;
                }
            }
        }
        self.sched.schedule(free_at, Event::Port(PortEvent::Free(p)));
    }

    /// Whether host NICs defer their ends of transmission: each an event
    /// only when a packet waits for it, and none at all on a link with a
    /// delay (`HostNic::lazy`: the choice is made when the port is next
    /// looked at); or every end an event (watched ports, traces, modelled
    /// hosts).
    pub(super) fn defer_nic_ends(&mut self, defer: bool) {
        self.defer_nic_free = defer;
        self.eager_nics_defer = false;
        for port in &mut self.ports {
            let delay = port.delay;
            if let Some(nic) = port.host_nic_mut() {
                nic.lazy = defer && delay > 0;
                self.eager_nics_defer |= defer && !nic.lazy;
            }
        }
    }

    /// The run ended with the clock at `bound` (exclusive): lazy NICs make
    /// the choices their ends of transmission before it would have made,
    /// so that the books read as if each end had been an event.
    pub(super) fn nic_ends_at_the_end(&mut self, bound: Time) {
        if self.defer_nic_free {
            for port in &mut self.ports {
                port.nic_ends_before(bound);
            }
        }
    }

    /// A packet arrives at host NIC `p`: its deferred end of transmission,
    /// if any, has passed (the NIC went idle with nothing waiting, as that
    /// event would have found it), or is scheduled in its place, where it
    /// will find this packet waiting.
    pub(super) fn nic_arrival(&mut self, p: PortId) {
        let Some(nic) = self.ports[p.ix()].host_nic_mut() else { return };
        let Some(seq) = nic.deferred_free.take() else { return };
        let (_, end) = nic.in_tx.expect("a deferred end of a transmission in progress");
        if self.sched.has_passed(end, seq) {
            nic.in_tx = None;
        } else {
            self.sched.schedule_reserved(end, seq, Event::Port(PortEvent::Free(p)));
        }
    }

    /// A cell of `vc` that crossed `link` leaves the receiver's buffer at
    /// `left` (now, or later for a host adapter that drains at a fixed
    /// rate, in order): the receiver counts it and, every N2 cells, sends a
    /// credit upstream after its processing delay.
    /// Only per-VC ports run credit: the test is inlined on every cell's
    /// path, the rest is not.
    #[inline]
    pub(super) fn forwarded(&mut self, link: PortId, vc: VcId, left: Time) {
        if self.ports[link.ix()].is_per_vc() {
            self.credit_forwarded(link, vc, left);
        }
    }

    fn credit_forwarded(&mut self, link: PortId, vc: VcId, left: Time) {
        let port = &mut self.ports[link.ix()];
        let Some(credit) = port.per_vc_mut().and_then(|pv| pv.credit.as_mut()) else {
            return;
        };
        if let Some(fwd) = credit.forwarded(vc.ix()) {
            let ready = left + self.model.ports[link.ix()].credit_delay;
            match self.model.credit_transport {
                CreditTransport::OutOfBand => {
                    let at = ready + port.delay;
                    self.sched.schedule(at, Event::Credit(CreditEvent::Arrive { port: link, vc, fwd }));
                }
                CreditTransport::InBand if ready == self.now => self.emit_credit(link, vc, fwd),
                CreditTransport::InBand => self.sched.schedule(ready, Event::Credit(CreditEvent::Emit { link, vc, fwd })),
            }
        }
    }

    /// An in-band credit cell for `link` queues at the reverse port.
    pub(super) fn emit_credit(&mut self, link: PortId, vc: VcId, fwd: u64) {
        let rev = self.reverse[link.ix()];
        if let Some(st) = self.ports[rev.ix()].send_credit(self.now, CreditCell { link, vc, fwd }) {
            self.started(rev, st);
        }
    }

    /// A credit reached the sending side of `port`'s link.
    pub(super) fn credit_arrives(&mut self, port: PortId, vc: VcId, fwd: u64) {
        if let Some(st) = self.ports[port.ix()].on_credit(self.now, vc.ix(), fwd) {
            self.started(port, st);
        }
    }
}

#[cfg(test)]
mod tests {
    /// NDP Fig. 21 for 5 ms, with the host NICs' ends of transmission
    /// deferred (as runs are) and always scheduled (as with traces on).
    fn fig21(defer: bool) -> crate::summary::Summary {
        let text = include_str!("../../../../python/atmsim/scenarios/ndp-in-out.toml");
        let s = crate::scenario::parse(text, &["duration=5ms", "measure.from=1ms", "measure.to=5ms"].map(String::from)).unwrap();
        let m = crate::scenario::validate(&s, None).unwrap();
        let mut w = super::World::new(m, false);
        assert!(w.defer_nic_free, "deferred in a plain run");
        w.defer_nic_ends(defer);
        w.run();
        let (mut summary, _) = w.finish();
        summary.wall_s = 0.0;
        summary
    }

    #[test]
    fn deferring_a_nics_end_of_transmission_changes_nothing_but_the_event_count() {
        let (deferred, scheduled) = (fig21(true), fig21(false));
        assert!(deferred.events < scheduled.events * 9 / 10, "{} against {}", deferred.events, scheduled.events);
        let json = |mut s: crate::summary::Summary| {
            s.events = 0;
            s.to_json()
        };
        assert_eq!(json(deferred), json(scheduled));
    }
}
