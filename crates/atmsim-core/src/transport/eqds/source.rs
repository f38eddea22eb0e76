//! EQDS's sender (htsim `EqdsSrc`; rules E2, E4, E5, E8, E9, E11, E12 of
//! docs/fabrics.md). It sends its first window on speculative credit, then
//! only on pull credit; every data packet tells the receiver its pull
//! target. A NACKed packet is queued for retransmission and its entropy
//! penalised. Packets leave through the host's NIC (`nic.rs`), which calls
//! [`EqdsSource::time_to_send`] when it is the source's turn.

use super::entropy::Entropy;
use super::timer::SendRecords;
use super::{quanta_ceil, EqdsConfig, QUANTUM};
use crate::base::{EqdsHeader, EqdsKind};
use crate::time::Time;
use std::collections::BTreeMap;

/// The counts every send, ACK and pull adds to first (`repr(C)` keeps them
/// in one line of the source's state).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SourceStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub acks: u64,
    pub pulls: u64,
    pub nacks: u64,
    pub packets_retransmitted: u64,
    pub bytes_retransmitted: u64,
    pub rts_sent: u64,
    pub timeouts: u64,
}

/// What the sender does when its timer expires (E11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// The packet is queued; ask the NIC to send it.
    Resend,
    /// Send this RTS through the NIC's control queue.
    Rts(EqdsHeader),
    Nothing,
}

/// The fields in the order a packet reads them, `repr(C)` to keep them so
/// and line-aligned: what every send, ACK and pull reads (credit, backlog,
/// the retransmit queue, the flags) fills the first cache line, the send
/// records and a send's numbers the next two, the flow's size, its timer
/// event and the entropy cycle's position the fourth; the cycle's random
/// generator (read once a cycle) and the counts follow. In the
/// compiler's own order a packet read a field or two from each of more
/// lines (issue 34).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct EqdsSource {
    credit_pull: i64,
    credit_spec: i64,
    /// Bytes still to send, headers included (E5's backlog).
    backlog: i64,
    unsent: u64,
    rtx: BTreeMap<u32, u32>,
    /// Quanta of pull credit received (the highest pull number).
    pull: u32,
    speculating: bool,
    /// The NIC knows this source wants to send.
    pub blocked_on_nic: bool,
    done: bool,
    records: SendRecords,
    pull_target: u32,
    highest_sent: u32,
    mss: u32,
    header: u32,
    maxwnd: i64,
    mtu: u32,
    rts_sent: u32,
    size: u64,
    /// When the world's pending timer event for this flow is due
    /// (`Time::MAX`: none; `world/eqds.rs`), kept in a line every event of
    /// the flow reads anyway rather than in an array of its own.
    pub timer_event_due: Time,
    /// The entropy cycle and, per entropy index, the path it hashes to (E10).
    entropy: Entropy,
    pub stats: SourceStats,
    last_rts: Option<Time>,
}

impl EqdsSource {
    pub fn new(cfg: &EqdsConfig, size: u64, rto: Time, mut entropy: Entropy, paths: Vec<u16>) -> EqdsSource {
        let maxwnd = cfg.cwnd as i64 * cfg.mtu as i64;
        let mss = cfg.mss();
        EqdsSource {
            mss,
            header: cfg.header,
            mtu: cfg.mtu,
            maxwnd,
            size,
            credit_pull: 0,
            credit_spec: maxwnd,
            speculating: true,
            backlog: (size.div_ceil(mss as u64) * cfg.header as u64 + size) as i64,
            unsent: size,
            highest_sent: 0,
            pull: 0,
            pull_target: 0,
            rtx: BTreeMap::new(),
            blocked_on_nic: false,
            done: false,
            rts_sent: 0,
            last_rts: None,
            timer_event_due: Time::MAX,
            records: SendRecords::new(rto),
            entropy: {
                entropy.set_paths(&paths);
                entropy
            },
            stats: SourceStats::default(),
        }
    }

    fn credit(&self) -> i64 {
        self.credit_pull + self.credit_spec
    }

    /// The time its timer expires, if it runs.
    pub fn timer(&self) -> Option<Time> {
        self.records.timer.map(|(due, _)| due)
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Could it send now if the NIC let it (htsim `sendIfPermitted`'s checks)?
    pub fn wants_nic(&self) -> bool {
        if self.credit() <= 0 || self.blocked_on_nic {
            return false;
        }
        !self.rtx.is_empty() || (self.backlog > 0 && self.unsent > 0)
    }

    /// At the start, more to send on its speculative credit (E4)?
    pub fn starting_more(&self) -> bool {
        !self.blocked_on_nic && self.credit() > 0 && self.unsent > 0
    }

    /// Spends credit for `bytes`; false if only speculative credit is left
    /// and speculation is over: that credit burns so that the pull target
    /// can advance (E4). Returns (sent, speculative).
    fn spend(&mut self, bytes: i64) -> (bool, bool) {
        if self.credit_pull > 0 {
            self.credit_pull -= bytes;
            (true, false)
        } else if self.speculating && self.credit_spec > 0 {
            self.credit_spec -= bytes;
            (true, true)
        } else {
            self.credit_spec -= bytes;
            (false, false)
        }
    }

    /// E5: what to ask the receiver for, in quanta, counting from the
    /// pulls already received.
    fn compute_pull_target(&self) -> u32 {
        let want = self.backlog.min(self.maxwnd + self.mtu as i64).min(self.maxwnd) - self.credit();
        // htsim adds the (possibly negative) quanta to an unsigned count,
        // which wraps when credit exceeds what is left to send and the
        // pulls received do not cover it (a flow smaller than its
        // speculative credit): the target is then far above any pull, so
        // the receiver pulls the flow at every pacer tick from then on. A
        // flow under one ToR, whose first ACK ends speculation before its
        // window is out, sends the rest on those pulls alone. The count
        // wraps here at 2^32 quanta (2 TB) instead of 2^64: the same order.
        (self.pull as i64 + quanta_ceil(want)) as u32
    }

    fn data(&mut self, kind: EqdsKind, psn: u32, len: u32, ar: bool) -> EqdsHeader {
        let e = self.entropy.next_index();
        let last = kind == EqdsKind::Data && self.unsent == 0;
        EqdsHeader {
            kind,
            psn,
            cum_ack: 0,
            sack: 0,
            len,
            pull: self.pull_target,
            path: self.entropy.path(e),
            ev: self.entropy.value(e),
            ar,
            last,
        }
    }

    /// One packet: a queued retransmission first, else new data. None if
    /// the credit left is speculative and speculation is over.
    pub fn send_packet(&mut self, now: Time) -> Option<EqdsHeader> {
        if let Some((&psn, &bytes)) = self.rtx.first_key_value() {
            if !self.spend(bytes as i64).0 {
                return None;
            }
            self.rtx.pop_first();
            let len = bytes - self.header;
            self.stats.packets_retransmitted += 1;
            self.stats.bytes_retransmitted += len as u64;
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += len as u64;
            self.records.sent(psn, bytes, now);
            return Some(self.data(EqdsKind::Data, psn, len, true));
        }
        if self.unsent == 0 {
            return None;
        }
        let len = self.unsent.min(self.mss as u64) as u32;
        let bytes = (len + self.header) as i64;
        if !self.spend(bytes).0 {
            return None;
        }
        self.backlog -= bytes;
        self.unsent -= len as u64;
        self.pull_target = self.compute_pull_target();
        let psn = self.highest_sent;
        self.highest_sent += 1;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        self.records.sent(psn, bytes as u32, now);
        let ar = self.backlog == 0 || self.credit_pull < 0;
        Some(self.data(EqdsKind::Data, psn, len, ar))
    }

    /// The NIC's turn for this source (htsim `timeToSend`): the packet it
    /// sends, if any, and whether it asks for another turn.
    pub fn time_to_send(&mut self, now: Time) -> (Option<EqdsHeader>, bool) {
        self.blocked_on_nic = false;
        if (self.unsent == 0 && self.rtx.is_empty()) || self.credit() <= 0 {
            return (None, false);
        }
        let Some(h) = self.send_packet(now) else { return (None, false) };
        let again = self.credit() > 0 && (self.unsent > 0 || !self.rtx.is_empty());
        self.blocked_on_nic = again;
        (Some(h), again)
    }

    fn stop_speculating(&mut self) {
        self.speculating = false;
    }

    /// Cumulative ACK `cum` (packets): is the flow complete (E12)?
    fn check_finished(&mut self, cum: u32) -> bool {
        if !self.done && (cum as u64 - self.rts_sent as u64) * self.mss as u64 >= self.size {
            self.done = true;
            return true;
        }
        false
    }

    /// An ACK arrived (E9): returns true if it completed the flow.
    pub fn on_ack(&mut self, h: &EqdsHeader, now: Time) -> bool {
        self.stats.acks += 1;
        let cum = h.cum_ack;
        while self.rtx.first_key_value().is_some_and(|(&p, _)| p < cum) {
            self.rtx.pop_first();
        }
        self.records.remove_below(cum, now);
        let mut bits = h.sack;
        let mut psn = h.psn;
        while bits > 0 {
            if bits & 1 == 1 {
                self.records.remove(psn, now);
            }
            psn += 1;
            bits >>= 1;
        }
        let completed = self.check_finished(cum);
        self.stop_speculating();
        completed
    }

    /// A NACK arrived (E8): the packet is queued again, its entropy penalised.
    pub fn on_nack(&mut self, h: &EqdsHeader, now: Time) {
        self.stats.nacks += 1;
        // htsim aborts on a NACK for a packet it no longer tracks; here it is ignored.
        if let Some(bytes) = self.records.remove(h.psn, now) {
            self.rtx.insert(h.psn, bytes);
        }
        self.entropy.penalize(h.ev);
        self.stop_speculating();
    }

    /// A PULL arrived (E2): its new quanta become pull credit.
    pub fn on_pull(&mut self, h: &EqdsHeader) {
        self.stats.pulls += 1;
        if h.pull > self.pull {
            self.credit_pull += (h.pull - self.pull) as i64 * QUANTUM as i64;
            self.pull = h.pull;
        }
        self.stop_speculating();
    }

    /// The timer expired at `now` (E11).
    pub fn on_timeout(&mut self, now: Time) -> Timeout {
        let Some((psn, bytes)) = self.records.expire(now) else { return Timeout::Nothing };
        self.stats.timeouts += 1;
        let queued = !self.rtx.is_empty();
        self.rtx.insert(psn, bytes);
        if queued || self.credit() <= 0 {
            return self.rts(now).map_or(Timeout::Nothing, Timeout::Rts);
        }
        Timeout::Resend
    }

    /// An RTS, at most one per RTO (htsim's `_rtt` is the minimum RTO).
    fn rts(&mut self, now: Time) -> Option<EqdsHeader> {
        if self.last_rts.is_some_and(|t| now - t < self.records.rto()) {
            return None;
        }
        let psn = self.highest_sent;
        self.highest_sent += 1;
        self.rts_sent += 1;
        self.stats.rts_sent += 1;
        self.last_rts = Some(now);
        self.records.sent(psn, self.header, now);
        let mut h = self.data(EqdsKind::Rts, psn, 0, true);
        // htsim's RTS asks for one full packet's credit, whatever is queued.
        h.cum_ack = quanta_ceil(self.mtu as i64) as u32;
        Some(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::mechanism::Params;
    use rand::SeedableRng;

    fn source(size: u64) -> EqdsSource {
        let cfg = EqdsConfig { cwnd: 2, ..EqdsConfig::from_params(&Params::default()) };
        let entropy = Entropy::new(4, rand_chacha::ChaCha8Rng::seed_from_u64(1));
        EqdsSource::new(&cfg, size, 1000, entropy, vec![0, 1, 2, 3])
    }

    fn reply(kind: EqdsKind, psn: u32, cum_ack: u32, pull: u32) -> EqdsHeader {
        EqdsHeader { kind, psn, cum_ack, sack: 0, len: 0, pull, path: 0, ev: 0, ar: false, last: false }
    }

    #[test]
    fn speculates_its_window_then_sends_only_on_pull_credit() {
        let mut s = source(10 * 4086);
        // Two MTUs of speculative credit: two packets, then none.
        let first = s.send_packet(0).unwrap();
        assert_eq!((first.psn, first.len, first.ar), (0, 4086, false));
        // E5: min(backlog, cwnd + MTU, maxwnd) = 8,300 less 4,150 of credit left: 9 quanta.
        assert_eq!(first.pull, 9);
        assert!(s.send_packet(1).is_some() && !s.wants_nic());
        // A PULL ends speculation: 8 quanta pay for one packet (4,096 < 4,150), sent with AR.
        s.on_pull(&reply(EqdsKind::Pull, 0, 0, 8));
        let p = s.send_packet(2).unwrap();
        assert!(p.ar && !s.wants_nic(), "pull credit below zero asks for an ACK");
        // A NACK queues packet 1 again; the next pull resends it first.
        s.on_nack(&reply(EqdsKind::Nack, 1, 0, 0), 3);
        s.on_pull(&reply(EqdsKind::Pull, 0, 0, 24));
        let r = s.send_packet(4).unwrap();
        assert_eq!((r.psn, r.ar, s.stats.packets_retransmitted), (1, true, 1));
        assert!(!s.on_ack(&reply(EqdsKind::Ack, 3, 3, 0), 5) && !s.is_done());
    }

    #[test]
    fn a_target_below_zero_wraps_as_htsims_unsigned_count() {
        // One 4,150-B packet against 8,300 B of credit: (0 - 4,150 + 511) / 512 = -7
        // quanta, which the unsigned count wraps far above any pull.
        let mut s = source(4086);
        assert_eq!(s.send_packet(0).unwrap().pull, 0u32.wrapping_sub(7));
        // Once the pulls received cover it, the count comes back below the wrap.
        let mut s = source(3 * 4086);
        s.send_packet(0);
        s.on_pull(&reply(EqdsKind::Pull, 0, 0, 16));
        // Backlog 4,150 against credit 4,042 + 4,150: 16 + (-4,042 + 511) / 512 = 16 - 6.
        assert_eq!(s.send_packet(0).unwrap().pull, 10);
    }

    #[test]
    fn a_timeout_with_no_credit_sends_an_rts_once_per_rto() {
        let mut s = source(10 * 4086);
        s.send_packet(0);
        s.send_packet(0);
        s.on_pull(&reply(EqdsKind::Pull, 0, 0, 0)); // speculation over, no credit
        assert_eq!(s.timer(), Some(1000));
        let Timeout::Rts(rts) = s.on_timeout(1000) else { panic!("an RTS") };
        assert_eq!((rts.kind, rts.psn, rts.cum_ack, rts.len), (EqdsKind::Rts, 2, 9, 0));
        assert_eq!(s.on_timeout(1000), Timeout::Nothing, "at most one RTS per RTO");
        // Completion counts packet numbers less the RTSs: 10 packets + 1 RTS.
        assert!(s.on_ack(&reply(EqdsKind::Ack, 11, 11, 0), 2000) && s.is_done());
    }

    #[test]
    fn layout_of_a_packets_fields_by_cache_line() {
        // The lines the struct's comment names: a field moved across a
        // line boundary costs a cache miss a packet on a large network.
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<EqdsSource>(), 64);
        assert!(offset_of!(EqdsSource, done) < 64, "every event's fields in the first line");
        assert_eq!(offset_of!(EqdsSource, records), 64, "the timer and the send records next");
        assert!(offset_of!(EqdsSource, rts_sent) < 3 * 64, "a send's numbers in the third line");
        assert_eq!((offset_of!(EqdsSource, size), offset_of!(EqdsSource, timer_event_due)), (192, 200));
        assert!(offset_of!(EqdsSource, entropy) + Entropy::HOT_BYTES <= 4 * 64, "the entropy cycle's position in the fourth");
    }
}
