//! ARB flows in the world (Chang, Huynh & Gray §2): the sender's pacing
//! wake-ups, data to the receiver, and rate replies and NAKs back. One
//! wake-up event is pending per sender; a rate increase that brings the next
//! burst forward schedules an earlier one and the later one is ignored.

use super::{Endpoints, World};
use crate::engine::{Event, TransportEvent};
use crate::net::{FlowId, FrameHeader, VcRole};
use crate::time::secs;
use crate::trace::EventKind;
use crate::transport::arb::sender::ReplyOutcome;
use crate::transport::arb::{ArbReceiver, ArbSender};

impl World {
    fn arb(&mut self, f: FlowId) -> (&mut ArbSender, &mut ArbReceiver) {
        match &mut self.flows[f.ix()].endpoints {
            Endpoints::Arb { sender, receiver } => (sender, receiver),
            _ => unreachable!("an ARB flow"),
        }
    }

    /// Schedules the sender's next wake-up if it needs an earlier one.
    fn arb_reschedule(&mut self, f: FlowId) {
        let now = self.now;
        if let Some(at) = self.arb(f).0.wake_needed(now) {
            self.sched.schedule(at, Event::Transport(TransportEvent::ArbWake(f)));
        }
    }

    /// The pacing timer of an ARB sender.
    pub(super) fn arb_wake(&mut self, f: FlowId) {
        let now = self.now;
        let sender = self.arb(f).0;
        if !sender.is_current_wake(now) {
            return;
        }
        let timeouts = sender.stats.timeouts;
        let seg = sender.on_wake(now);
        let timed_out = sender.stats.timeouts > timeouts;
        if timed_out {
            self.arb_trace(f, Some((EventKind::Timeout, 0)));
        }
        if let Some(seg) = seg {
            let data_vc = self.vcs.payload_of(f);
            if let Some(tr) = &mut self.traces {
                let kind = if seg.seq < self.ledgers[data_vc.ix()].max_seq_sent { EventKind::Retransmit } else { EventKind::Send };
                tr.event(secs(now), f.0, kind, seg.seq);
            }
            self.transmit(data_vc, FrameHeader::ArbData(seg));
        }
        self.arb_reschedule(f);
    }

    /// A segment reached one end of an ARB flow: data at the receiver, or a
    /// reply at the sender.
    pub(super) fn arb_deliver(&mut self, f: FlowId, role: VcRole, header: FrameHeader) {
        let now = self.now;
        match (role, header) {
            (VcRole::Data | VcRole::Stream, FrameHeader::ArbData(data)) => {
                let receiver = self.arb(f).1;
                let reply = receiver.on_data(now, &data);
                let delivered = receiver.stats.bytes_delivered;
                let flow = &self.flows[f.ix()];
                if flow.completed_at.is_none() && flow.bytes.is_some_and(|b| delivered >= b) {
                    self.completed(f);
                }
                if let Some(reply) = reply {
                    self.transmit(self.vcs.reply_of(f), FrameHeader::ArbReply(reply));
                }
            }
            (VcRole::Reply, FrameHeader::ArbReply(reply)) => {
                let outcome = self.arb(f).0.on_reply(now, &reply);
                let event = match outcome {
                    ReplyOutcome::WentBack(seq) => Some((EventKind::FastRetransmit, seq)),
                    _ => None,
                };
                self.arb_trace(f, event);
                self.arb_reschedule(f);
            }
            (_, other) => unreachable!("an ARB flow carries ARB packets: {other:?}"),
        }
    }

    /// Records the sender's rate (and an event) when traces are on.
    fn arb_trace(&mut self, f: FlowId, event: Option<(EventKind, u64)>) {
        if self.traces.is_none() {
            return;
        }
        let t = secs(self.now);
        let rc = &self.arb(f).0.rc;
        let (rs, region, rinc) = (rc.rs, rc.region as u32, rc.rinc);
        let tr = self.traces.as_mut().expect("traces on");
        tr.rate.t.push(t);
        tr.rate.flow.push(f.0);
        tr.rate.rate_bps.push(rs);
        tr.rate.region.push(region);
        tr.rate.rinc_bps.push(rinc);
        if let Some((kind, seq)) = event {
            tr.event(t, f.0, kind, seq);
        }
    }
}
