//! EQDS wiring (`transport/eqds/`): each host's NIC (E3), whose turns are
//! `TransportEvent::EqdsNic`s at the end of each packet it sends; each
//! receiving host's pull pacer (E6), whose ticks are `EqdsPull`s a fixed
//! interval apart (a gap lane of the scheduler); each flow's retransmission
//! timer (E11), one pending `EqdsRto` per flow in the scheduler's far heap,
//! re-armed lazily when the timer moves later.

use super::World;
use crate::engine::{Event, TransportEvent};
use crate::net::{EqdsHeader, EqdsKind, FlowId, FrameHeader, HostId, VcId, VcRole};
use crate::time::{Rate, Time};
use crate::transport::eqds::{EqdsNic, EqdsPacer, EqdsSink, EqdsSource, NicTurn, Timeout};

/// The EQDS state of a run beside its flows.
pub(super) struct EqdsHosts {
    pub nics: Vec<EqdsNic>,
    pub pacers: Vec<EqdsPacer>,
    /// Per host, its line rate and its pacer's interval.
    pub line: Vec<Rate>,
    pub spacing: Vec<Time>,
    /// Per flow, its sender and receiver if it is an EQDS flow.
    pub ends: Vec<Option<EqdsEnds>>,
    /// A flow's maximum window in whole quanta (slow pulls stop there).
    pub max_slow: u32,
    pub header: u32,
}

/// An EQDS flow's sender and receiver, kept here in one array rather than
/// boxed in the flow's record: reaching them reads no line of that record
/// and follows no pointer (0.27 of the 1,024-host permutation's L2-size
/// misses a packet-hop were those two reads).
pub(super) struct EqdsEnds {
    pub source: EqdsSource,
    pub sink: EqdsSink,
}

/// Flow `f`'s sender and receiver, if the run has EQDS hosts and `f` is
/// an EQDS flow.
pub(super) fn flow_ends(hosts: Option<&EqdsHosts>, f: usize) -> Option<&EqdsEnds> {
    hosts.and_then(|e| e.ends[f].as_ref())
}

// Whether a flow has ends is told by a flag inside them (a niche), not by
// a tag a cache line ahead of them.
const _: () = assert!(std::mem::size_of::<Option<EqdsEnds>>() == std::mem::size_of::<EqdsEnds>());

impl World {
    fn eqds(&mut self, f: FlowId) -> (&mut EqdsSource, &mut EqdsSink) {
        let ends = self.hosts_eqds().ends[f.ix()].as_mut().expect("an EQDS flow");
        (&mut ends.source, &mut ends.sink)
    }

    fn hosts_eqds(&mut self) -> &mut EqdsHosts {
        self.eqds_hosts.as_mut().expect("a run with EQDS flows")
    }

    fn src_host(&self, f: FlowId) -> HostId {
        self.vcs.get(self.vcs.payload_of(f)).src
    }

    /// An EQDS flow starts: its speculative window goes out as fast as its
    /// NIC allows (E4).
    pub(super) fn eqds_open(&mut self, f: FlowId) {
        let h = self.src_host(f);
        while self.eqds(f).0.starting_more() {
            if !self.eqds_try_nic(f, h) {
                break;
            }
        }
        self.eqds_arm_rto(f);
    }

    /// Asks the NIC for a turn (htsim `requestSending`): sends at once if it
    /// is idle (true if a packet left), else waits for its turn.
    fn eqds_try_nic(&mut self, f: FlowId, h: HostId) -> bool {
        let now = self.now;
        if !self.hosts_eqds().nics[h.ix()].request(now, f) {
            self.eqds(f).0.blocked_on_nic = true;
            self.eqds_arm_nic(h);
            return false;
        }
        match self.eqds(f).0.send_packet(now) {
            Some(p) => {
                self.eqds_nic_sends(h, self.vcs.payload_of(f), p);
                true
            }
            None => false,
        }
    }

    /// htsim `sendIfPermitted`: one attempt, if credit and data allow.
    fn eqds_send_if_permitted(&mut self, f: FlowId) {
        if self.eqds(f).0.wants_nic() {
            let h = self.src_host(f);
            self.eqds_try_nic(f, h);
        }
        self.eqds_arm_rto(f);
    }

    /// Packet `p` leaves host `h`'s NIC on `vc` now; the NIC is busy for its time on the line.
    fn eqds_nic_sends(&mut self, h: HostId, vc: VcId, p: EqdsHeader) {
        let now = self.now;
        let e = self.hosts_eqds();
        let bytes = (p.len + e.header) as u64;
        e.nics[h.ix()].tx_end = now + e.line[h.ix()].tx_time(bytes);
        self.eqds_arm_nic(h);
        self.transmit(vc, FrameHeader::Eqds(p));
    }

    fn eqds_arm_nic(&mut self, h: HostId) {
        let now = self.now;
        let nic = &mut self.hosts_eqds().nics[h.ix()];
        if !nic.pending && nic.has_work() {
            nic.pending = true;
            let at = nic.tx_end.max(now);
            self.sched.schedule(at, Event::Transport(TransportEvent::EqdsNic(h)));
        }
    }

    /// A control packet joins host `h`'s NIC (htsim `sendControlPacket`):
    /// it goes at once if the NIC is idle.
    fn eqds_control(&mut self, h: HostId, vc: VcId, p: EqdsHeader) {
        let now = self.now;
        let nic = &mut self.hosts_eqds().nics[h.ix()];
        nic.push_control(vc, p);
        if nic.busy(now) {
            self.eqds_arm_nic(h);
        } else {
            self.eqds_nic_turn(h);
        }
    }

    /// Host `h`'s NIC finished its packet: the next turn.
    pub(super) fn eqds_nic_event(&mut self, h: HostId) {
        self.hosts_eqds().nics[h.ix()].pending = false;
        self.eqds_nic_turn(h);
    }

    fn eqds_nic_turn(&mut self, h: HostId) {
        let now = self.now;
        let mut f = match self.hosts_eqds().nics[h.ix()].turn() {
            None => return,
            Some(NicTurn::Control) => return self.eqds_send_control(h),
            Some(NicTurn::Data(f)) => f,
        };
        loop {
            let (p, again) = self.eqds(f).0.time_to_send(now);
            let nic = &mut self.hosts_eqds().nics[h.ix()];
            nic.served(again && p.is_some());
            if let Some(p) = p {
                self.eqds_nic_sends(h, self.vcs.payload_of(f), p);
                self.eqds_arm_rto(f);
                return;
            }
            // htsim `cantSend`: the next source gets its chance at once,
            // else a control packet goes.
            match nic.front() {
                Some(next) => f = next,
                None => {
                    if !nic.control.is_empty() {
                        self.eqds_send_control(h);
                    }
                    return;
                }
            }
        }
    }

    fn eqds_send_control(&mut self, h: HostId) {
        let (vc, p) = self.hosts_eqds().nics[h.ix()].control.pop_front().expect("a control packet waits");
        self.eqds_nic_sends(h, vc, p);
    }

    /// A packet of EQDS flow `f` reached the end of its VC.
    pub(super) fn eqds_deliver(&mut self, f: FlowId, role: VcRole, p: EqdsHeader) {
        let now = self.now;
        if role == VcRole::Reply {
            let (source, _) = self.eqds(f);
            if source.is_done() {
                return;
            }
            match p.kind {
                EqdsKind::Ack => {
                    if source.on_ack(&p, now) {
                        self.completed(f);
                        return;
                    }
                }
                EqdsKind::Nack => source.on_nack(&p, now),
                EqdsKind::Pull => source.on_pull(&p),
                _ => unreachable!("data on a reply VC"),
            }
            return self.eqds_send_if_permitted(f);
        }
        let (_, sink) = self.eqds(f);
        let (answer, req) = match p.kind {
            EqdsKind::Data => sink.on_data(&p),
            EqdsKind::Trimmed => {
                let (a, r) = sink.on_trimmed(&p);
                (Some(a), r)
            }
            EqdsKind::Rts => {
                let (a, r) = sink.on_rts(&p);
                (Some(a), r)
            }
            _ => unreachable!("control packets on a data VC"),
        };
        let reply = self.vcs.reply_of(f);
        let h = self.vcs.get(reply).src;
        if req.pull && self.hosts_eqds().pacers[h.ix()].request_pull(f) {
            self.sched.schedule(now, Event::Transport(TransportEvent::EqdsPull(h)));
        }
        if let Some(a) = answer {
            if a.via_nic {
                self.eqds_control(h, reply, a.header);
            } else {
                self.transmit(reply, FrameHeader::Eqds(a.header));
            }
        }
        if req.retransmit && self.hosts_eqds().pacers[h.ix()].request_retransmit(f) {
            self.sched.schedule(now, Event::Transport(TransportEvent::EqdsPull(h)));
        }
    }

    /// Host `h`'s pull pacer ticks: one PULL, then the next tick (E6).
    pub(super) fn eqds_pull_tick(&mut self, h: HostId) {
        let e = self.eqds_hosts.as_mut().expect("a run with EQDS flows");
        let Some((list, f)) = e.pacers[h.ix()].pick() else { return };
        let (max_slow, spacing) = (e.max_slow, e.spacing[h.ix()]);
        let sink = &mut e.ends[f.ix()].as_mut().expect("an EQDS flow").sink;
        let pull = sink.pull();
        e.pacers[h.ix()].pulled(list, f, sink, max_slow);
        self.sched.schedule(self.now + spacing, Event::Transport(TransportEvent::EqdsPull(h)));
        let reply = self.vcs.reply_of(f);
        self.eqds_control(h, reply, pull);
    }

    /// Keeps one timer event pending at or before flow `f`'s timer.
    fn eqds_arm_rto(&mut self, f: FlowId) {
        let source = self.eqds(f).0;
        let Some(due) = source.timer() else { return };
        if due < source.timer_event_due {
            source.timer_event_due = due;
            self.sched.schedule(due, Event::Transport(TransportEvent::EqdsRto(f)));
        }
    }

    /// Flow `f`'s timer event (E11).
    pub(super) fn eqds_rto(&mut self, f: FlowId) {
        let now = self.now;
        let (source, _) = self.eqds(f);
        if source.timer_event_due != now {
            return; // superseded by an earlier one
        }
        source.timer_event_due = Time::MAX;
        if source.is_done() || source.timer().is_none_or(|due| due > now) {
            return self.eqds_arm_rto(f);
        }
        match source.on_timeout(now) {
            Timeout::Resend => self.eqds_send_if_permitted(f),
            Timeout::Rts(p) => {
                let h = self.src_host(f);
                self.eqds_control(h, self.vcs.payload_of(f), p);
            }
            Timeout::Nothing => {}
        }
        self.eqds_arm_rto(f);
    }
}
