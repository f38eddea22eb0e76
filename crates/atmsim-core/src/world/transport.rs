//! Transports and sources at the ends of the network: TCP senders and
//! receivers (plain values driven segment by segment, tick by tick), their
//! per-host timers, and datagram sources.

use super::{Endpoints, World};
use crate::engine::{Event, SourceEvent, TransportEvent};
use crate::net::{FlowId, FrameHeader, HostId, Segment, VcId, VcRole};
use crate::scenario::FAST_TICK;
use crate::time::secs;
use crate::trace::EventKind;
use crate::transport::tcp::{Reply, SenderEvent, TcpSender};

impl World {
    fn sender(&self, f: FlowId) -> &TcpSender {
        match &self.flows[f.ix()].endpoints {
            Endpoints::Tcp { sender, .. } => sender,
            _ => unreachable!("a TCP flow"),
        }
    }

    fn sender_mut(&mut self, f: FlowId) -> &mut TcpSender {
        match &mut self.flows[f.ix()].endpoints {
            Endpoints::Tcp { sender, .. } => sender,
            _ => unreachable!("a TCP flow"),
        }
    }

    /// A TCP flow's application starts: the SYN goes out.
    pub(super) fn open(&mut self, f: FlowId) {
        if matches!(self.flows[f.ix()].endpoints, Endpoints::Ndp { .. }) {
            return self.ndp_open(f);
        }
        if matches!(self.flows[f.ix()].endpoints, Endpoints::Eqds) {
            return self.eqds_open(f);
        }
        let mut out = std::mem::take(&mut self.seg_buf);
        let now = self.now;
        self.sender_mut(f).open(now, &mut out);
        self.after_sender(f, None, out);
    }

    /// A segment reached the transport at the end of `vc`. Inlined into
    /// its callers (the reception's `frame_arrived` above all): NDP's and
    /// EQDS's packets go straight to their transports, and the rest, with
    /// their larger frame, one call away. The header by reference, down
    /// from the reception: by value, the whole header was copied once more
    /// on the way to be matched (ndp-in-out 0.2 s 327.84 -> 326.48 M
    /// instructions, eqds-incast-128 629.49 -> 627.30 M).
    #[inline(always)]
    pub(super) fn deliver_to_transport(&mut self, vc: VcId, header: &FrameHeader) {
        let v = self.vcs.get(vc);
        let (f, role) = (v.flow, v.role);
        match header {
            FrameHeader::Ndp(h) => self.ndp_deliver(f, role, *h),
            FrameHeader::Eqds(h) => self.eqds_deliver(f, role, *h),
            _ => self.deliver_to_other(f, role, *header),
        }
    }

    /// [`World::deliver_to_transport`] for TCP, ARB and datagrams.
    #[inline(never)]
    fn deliver_to_other(&mut self, f: FlowId, role: VcRole, header: FrameHeader) {
        if matches!(self.flows[f.ix()].endpoints, Endpoints::Arb { .. }) {
            return self.arb_deliver(f, role, header);
        }
        let flow = &mut self.flows[f.ix()];
        if let Endpoints::Datagram(source) = &mut flow.endpoints {
            if source.delivered(header.payload_len()) && flow.completed_at.is_none() {
                self.completed(f);
            }
            return;
        }
        let FrameHeader::Tcp(seg) = header else { unreachable!("a TCP flow carries TCP segments: {header:?}") };
        match (&mut flow.endpoints, role) {
            (Endpoints::Datagram(_), _) => unreachable!("handled above"),
            (Endpoints::Tcp { receiver, .. }, VcRole::Data | VcRole::Stream) => {
                let reply = receiver.on_segment(&seg);
                let done = flow.completed_at.is_none() && flow.bytes.is_some_and(|b| receiver.stats.bytes_delivered >= b);
                let earlier = receiver.take_state_change_ack();
                let ack = (reply != Reply::Nothing).then(|| receiver.make_ack(reply));
                if done {
                    self.completed(f);
                }
                if let Some(earlier) = earlier {
                    self.transmit(self.vcs.reply_of(f), FrameHeader::Tcp(earlier));
                }
                if let Some(ack) = ack {
                    self.transmit(self.vcs.reply_of(f), FrameHeader::Tcp(ack));
                }
            }
            (Endpoints::Tcp { sender, receiver }, VcRole::Reply) => {
                let mut out = std::mem::take(&mut self.seg_buf);
                // The ACK's SACK option, if any, waits in the receiver's log.
                let blocks = receiver.sack_blocks(seg.sack);
                let ev = sender.on_ack_with_sack(self.now, &seg, blocks.as_slice(), &mut out);
                self.after_sender(f, ev, out);
            }
            (Endpoints::Arb { .. }, _) => unreachable!("handled by arb_deliver"),
            (Endpoints::Ndp { .. }, _) => unreachable!("handled by ndp_deliver"),
            (Endpoints::Eqds, _) => unreachable!("handled by eqds_deliver"),
        }
    }

    /// Sends what a TCP sender produced and records traces.
    fn after_sender(&mut self, f: FlowId, ev: Option<SenderEvent>, mut out: Vec<Segment>) {
        let t = secs(self.now);
        let data_vc = self.vcs.payload_of(f);
        if let (Some(_), Some(ev)) = (&self.traces, ev) {
            let kind = match ev {
                SenderEvent::Timeout => EventKind::Timeout,
                SenderEvent::FastRetransmit => EventKind::FastRetransmit,
            };
            let una = self.sender(f).snd_una;
            self.traces.as_mut().unwrap().event(t, f.0, kind, una);
        }
        for seg in out.drain(..) {
            if let Some(tr) = &mut self.traces {
                if seg.len > 0 {
                    let kind = if seg.seq < self.ledgers[data_vc.ix()].max_seq_sent { EventKind::Retransmit } else { EventKind::Send };
                    tr.event(t, f.0, kind, seg.seq);
                }
            }
            self.transmit(data_vc, FrameHeader::Tcp(seg));
        }
        self.seg_buf = out;
        if self.services.boston_mut().is_some() {
            let s = self.sender(f);
            let w = s.cc.cwnd().min(s.snd_wnd);
            self.boston_window(f, w);
        }
        if self.traces.is_some() {
            let s = self.sender(f);
            let (cwnd, ssthresh, snd_wnd, unacked) = (s.cc.cwnd(), s.cc.ssthresh(), s.send_window(), s.unacked());
            let Some(traces) = &mut self.traces else { return };
            let w = &mut traces.window;
            w.t.push(t);
            w.flow.push(f.0);
            w.cwnd.push(cwnd);
            w.ssthresh.push(ssthresh);
            w.snd_wnd.push(snd_wnd);
            w.unacked.push(unacked);
        }
    }

    /// A host's coarse timer: every TCP sender's retransmit timer
    /// (`tcp_slowtimo`).
    pub(super) fn slow_tick(&mut self, h: HostId) {
        for k in 0..self.hosts[h.ix()].senders.len() {
            let f = self.hosts[h.ix()].senders[k];
            if let Some(tr) = &mut self.traces {
                tr.event(secs(self.now), f.0, EventKind::Tick, 0);
            }
            let mut out = std::mem::take(&mut self.seg_buf);
            let now = self.now;
            let ev = self.sender_mut(f).on_slow_tick(now, &mut out);
            self.after_sender(f, ev, out);
        }
        self.sched.schedule(self.now + self.model.tick, Event::Transport(TransportEvent::SlowTick(h)));
    }

    /// A host's delayed-ACK timer (`tcp_fasttimo`).
    pub(super) fn fast_tick(&mut self, h: HostId) {
        for k in 0..self.hosts[h.ix()].receivers.len() {
            let f = self.hosts[h.ix()].receivers[k];
            let Endpoints::Tcp { receiver, .. } = &mut self.flows[f.ix()].endpoints else { unreachable!("a TCP flow") };
            if receiver.on_fast_tick() {
                let ack = receiver.make_ack(Reply::Ack);
                self.transmit(self.vcs.reply_of(f), FrameHeader::Tcp(ack));
            }
        }
        self.sched.schedule(self.now + FAST_TICK, Event::Transport(TransportEvent::FastTick(h)));
    }

    /// A datagram source sends, and says when it sends next.
    pub(super) fn datagram_send(&mut self, f: FlowId) {
        let Endpoints::Datagram(source) = &mut self.flows[f.ix()].endpoints else { unreachable!("a datagram flow") };
        let Some((seg, next)) = source.send(self.now) else { return };
        if let Some(next) = next {
            self.sched.schedule(next, Event::Source(SourceEvent::Send(f)));
        }
        self.transmit(self.vcs.payload_of(f), seg);
    }
}
