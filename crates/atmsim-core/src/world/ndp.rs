//! NDP wiring (`transport/ndp/`): a flow's start, what its sender and
//! receiver answer to each packet, and the receiving hosts' pull pacers,
//! whose ticks are `TransportEvent::PullTick`s a fixed spacing apart (a gap
//! lane of the scheduler, `world/build.rs`, rather than the general heap).

use super::{Endpoints, World};
use crate::engine::{Event, TransportEvent};
use crate::net::{FlowId, FrameHeader, HostId, NdpHeader, NdpKind, VcRole};
use crate::transport::ndp::{NdpSink, NdpSource};

impl World {
    fn ndp(&mut self, f: FlowId) -> (&mut NdpSource, &mut NdpSink) {
        match &mut self.flows[f.ix()].endpoints {
            Endpoints::Ndp { source, sink } => (&mut **source, &mut **sink),
            _ => unreachable!("an NDP flow"),
        }
    }

    /// An NDP flow starts: its first window goes out unpulled (N7).
    pub(super) fn ndp_open(&mut self, f: FlowId) {
        let Endpoints::Ndp { source, .. } = &mut self.flows[f.ix()].endpoints else { unreachable!("an NDP flow") };
        source.start(&mut self.ndp_buf);
        self.ndp_send(self.vcs.payload_of(f));
    }

    /// Sends the packets the sender left in `ndp_buf`, and empties it. Read
    /// in place, by index (sending touches no NDP buffer), rather than
    /// taken out of the world and put back around every packet the
    /// sender answers (ndp-in-out 0.2 s: `ndp_deliver` 16.52 -> 14.57 M instructions).
    fn ndp_send(&mut self, vc: crate::net::VcId) {
        for i in 0..self.ndp_buf.len() {
            let h = self.ndp_buf[i];
            self.transmit(vc, FrameHeader::Ndp(h));
        }
        self.ndp_buf.clear();
    }

    /// A packet of NDP flow `f` reached the end of its VC.
    pub(super) fn ndp_deliver(&mut self, f: FlowId, role: VcRole, h: NdpHeader) {
        if role == VcRole::Reply {
            let Endpoints::Ndp { source, .. } = &mut self.flows[f.ix()].endpoints else { unreachable!("an NDP flow") };
            let out = &mut self.ndp_buf;
            let completed = match h.kind {
                NdpKind::Ack => source.on_ack(&h, out),
                NdpKind::Nack => {
                    source.on_nack(&h, out);
                    false
                }
                NdpKind::Pull => {
                    source.on_pull(&h, out);
                    false
                }
                NdpKind::Data | NdpKind::Trimmed => unreachable!("data on a reply VC"),
            };
            if completed {
                // A completion may start other flows (triggers), whose first
                // windows pass through the buffer: this answer's packets wait
                // outside it meanwhile.
                let answer = std::mem::take(&mut self.ndp_buf);
                self.completed(f);
                self.ndp_buf = answer;
            }
            self.ndp_send(self.vcs.payload_of(f));
            return;
        }
        let (_, sink) = self.ndp(f);
        let answer = match h.kind {
            NdpKind::Data => sink.on_data(&h),
            NdpKind::Trimmed => sink.on_trimmed(&h),
            _ => unreachable!("control packets on a data VC"),
        };
        let released = sink.has_everything();
        let reply =
            if answer.kind == NdpKind::Nack { self.vcs.nack_of(f).expect("an NDP flow has a NACK VC") } else { self.vcs.reply_of(f) };
        let host = self.vcs.get(reply).src;
        let now = self.now;
        let pacer = self.pacers[host.ix()].as_mut().expect("a receiving NDP host has a pacer");
        let (answer, tick) = pacer.send(now, f, answer);
        if released {
            // Its waiting pulls would send nothing new (N10).
            pacer.flush(f);
        }
        if let Some(at) = tick {
            self.sched.schedule(at, Event::Transport(TransportEvent::PullTick(host)));
        }
        self.transmit(reply, FrameHeader::Ndp(answer));
    }

    /// Host `h`'s pull pacer ticks: its next PULL leaves (N9–N10).
    pub(super) fn pull_tick(&mut self, h: HostId) {
        let now = self.now;
        let pacer = self.pacers[h.ix()].as_mut().expect("a pacer ticks");
        let (pull, next) = pacer.tick(now);
        if let Some(at) = next {
            self.sched.schedule(at, Event::Transport(TransportEvent::PullTick(h)));
        }
        if let Some((f, pull)) = pull {
            self.transmit(self.vcs.reply_of(f), FrameHeader::Ndp(pull));
        }
    }
}
