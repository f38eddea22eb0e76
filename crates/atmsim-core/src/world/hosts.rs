//! Handing segments between transports and links, through the Morris &
//! Kung host/adapter model when the scenario models hosts (CPU at R_host per
//! packet, a one-packet transmit adapter loaded over the bus, a
//! store-and-forward receive adapter), or directly for ideal hosts, after a
//! random per-packet processing time if the scenario asks for one.

use super::World;
use crate::engine::{Event, HostEvent};
use crate::net::{FrameHeader, HostId, VcId};

impl World {
    /// A host sends a segment on `vc`. Ideal hosts without processing time
    /// (most runs) put it straight onto the link, with no host record read:
    /// inlined into every caller, so a packet sent costs one call less.
    #[inline(always)]
    pub(super) fn transmit(&mut self, vc: VcId, seg: FrameHeader) {
        if self.plain_hosts {
            self.segment_onto_link(vc, seg);
            return;
        }
        self.transmit_through_host(vc, seg);
    }

    /// [`World::transmit`] where hosts are modelled or jitter: after the
    /// host's random processing time if it has one, then as `transmit_now`.
    #[inline(never)]
    fn transmit_through_host(&mut self, vc: VcId, seg: FrameHeader) {
        let h = self.vcs.get(vc).src;
        if let Some(jitter) = self.hosts[h.ix()].jitter.as_mut() {
            if let Some(at) = jitter.submit(self.now, vc, seg) {
                self.sched.schedule(at, Event::Host(HostEvent::JitterRelease(h)));
            }
            return;
        }
        self.transmit_now(vc, seg);
    }

    /// A packet's random processing time has passed.
    pub(super) fn jitter_release(&mut self, h: HostId) {
        let ((vc, seg), next) = self.hosts[h.ix()].jitter.as_mut().expect("a jittered host").release();
        if let Some(at) = next {
            self.sched.schedule(at, Event::Host(HostEvent::JitterRelease(h)));
        }
        self.transmit_now(vc, seg);
    }

    /// Straight onto the link, or through the host's CPU and one-packet
    /// adapter when hosts are modelled. Inlined into its two callers: one
    /// call less per packet sent.
    #[inline(always)]
    fn transmit_now(&mut self, vc: VcId, seg: FrameHeader) {
        let v = self.vcs.get(vc);
        let (h, ip_len) = (v.src, seg.ip_len(v.header_bytes));
        match self.hosts[h.ix()].pipe.as_mut() {
            None => {
                self.segment_onto_link(vc, seg);
            }
            Some(pipe) => {
                pipe.submit(self.now, vc, seg, ip_len);
                if let Some(at) = pipe.load(self.now) {
                    self.sched.schedule(at, Event::Host(HostEvent::AdapterLoaded(h)));
                }
            }
        }
    }

    /// The transmit adapter has loaded a packet: its cells go out.
    pub(super) fn adapter_loaded(&mut self, h: HostId) {
        let (vc, seg) = self.hosts[h.ix()].pipe.as_mut().expect("host model").loaded(self.now);
        let Some(first) = self.segment_onto_link(vc, seg) else { return };
        // Free when the last unit leaves the first port, if the port knows
        // it already (FIFO); a per-VC port reports it with its `PortEvent::Free`.
        let port = &self.ports[first.ix()];
        if !port.is_per_vc() {
            self.sched.schedule(port.last_departure(), Event::Host(HostEvent::AdapterFree(h)));
        }
    }

    /// The transmit adapter is empty again: load the next processed packet.
    pub(super) fn adapter_free(&mut self, h: HostId) {
        let pipe = self.hosts[h.ix()].pipe.as_mut().expect("host model");
        pipe.adapter_busy = false;
        if let Some(at) = pipe.load(self.now) {
            self.sched.schedule(at, Event::Host(HostEvent::AdapterLoaded(h)));
        }
    }

    /// An intact packet reaches the destination host: to the transport at
    /// once, or after the adapter's bus transfer and the CPU. Inlined into
    /// `frame_arrived`, out of line already: one call less per packet received.
    #[inline(always)]
    pub(super) fn deliver(&mut self, vc: VcId, seg: &FrameHeader) {
        // A capture takes part at the sources too (`Services::capture`): the
        // flag first, so that a run without one walks no list of services
        // per packet received (`frame_arrived`: ndp-in-out 0.2 s 17.48 ->
        // 16.99 M instructions, eqds-incast-128 27.44 -> 26.64 M).
        if self.services.takes.at_source {
            if let Some(c) = self.services.capture_mut() {
                c.at_host(self.vcs.get(vc).dst, self.now, vc, seg, false);
            }
        }
        if self.plain_hosts {
            return self.hand_to_transport(vc, seg);
        }
        let v = self.vcs.get(vc);
        let (h, ip_len) = (v.dst, seg.ip_len(v.header_bytes));
        match self.hosts[h.ix()].pipe.as_mut() {
            None => self.hand_to_transport(vc, seg),
            Some(pipe) => {
                let (at, head) = pipe.receive(self.now, vc, *seg, ip_len);
                if head {
                    self.sched.schedule(at, Event::Host(HostEvent::Deliver(h)));
                }
            }
        }
    }

    /// The host's CPU has processed a received packet.
    pub(super) fn host_delivers(&mut self, h: HostId) {
        let ((vc, seg), next) = self.hosts[h.ix()].pipe.as_mut().expect("host model").deliver();
        if let Some(at) = next {
            self.sched.schedule(at, Event::Host(HostEvent::Deliver(h)));
        }
        self.hand_to_transport(vc, &seg);
    }
}
