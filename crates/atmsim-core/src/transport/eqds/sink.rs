//! EQDS's receiver (htsim `EqdsSink`; rules E5, E8, E9, E11 of
//! docs/fabrics.md). It keeps the highest pull target it was told, a
//! retransmit backlog (a trimmed packet adds one MTU of quanta), and the
//! packets held beyond a gap; it ACKs selectively (cumulative ACK and a
//! 64-packet bitmap) on the first packet, on request, on a duplicate, when
//! the gap drains after a request, and above 16,384 bytes accepted.

use super::{quanta_ceil, EqdsConfig};
use crate::base::{EqdsHeader, EqdsKind};
use std::collections::BTreeMap;

/// Eight counts: one cache line of the sink's state (`repr(C)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SinkStats {
    pub bytes_received: u64,
    pub acks_sent: u64,
    pub pulls_sent: u64,
    pub trimmed: u64,
    pub nacks_sent: u64,
    pub duplicates: u64,
    pub bytes_duplicate: u64,
    pub rts_received: u64,
}

/// What an arrival asks of the receiving host's pull pacer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacerRequest {
    /// Join the active list (a higher pull target).
    pub pull: bool,
    /// Join the retransmit list.
    pub retransmit: bool,
}

/// An answer and how it leaves: through the NIC's control queue, or
/// straight onto the line (htsim sends the ACK of a duplicate header so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub header: EqdsHeader,
    pub via_nic: bool,
}

/// Three cache lines (`repr(C)`, line-aligned): the numbers and flags
/// every packet and every pull reads, then the held packets and the reply
/// paths an arrival reads, then the counts.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct EqdsSink {
    expected: u32,
    highest_pull_target: u32,
    latest_pull: u32,
    retx_backlog: u32,
    header: u32,
    mtu: u32,
    credit_per_pull: u32,
    pull_path: u16,
    mask: u16,
    pub in_pull: bool,
    pub in_slow_pull: bool,
    ack_request: bool,
    accepted_bytes: u64,
    received_bytes: u64,
    delivered: u64,
    /// Packets beyond the gap: number and payload bytes.
    held: BTreeMap<u32, u32>,
    /// Per entropy index, the reverse path ACKs and NACKs take; PULLs take
    /// `pull_path` (htsim's sink never advances its own entropy).
    reply_paths: Vec<u16>,
    ack_threshold: u64,
    /// The flow's payload bytes.
    size: u64,
    pub stats: SinkStats,
}

impl EqdsSink {
    pub fn new(cfg: &EqdsConfig, size: u64, reply_paths: Vec<u16>, pull_path: u16) -> EqdsSink {
        // The sender's entropy indices are its values' low bits (entropy.rs).
        let mask = (reply_paths.len().max(1).next_power_of_two() - 1) as u16;
        EqdsSink {
            header: cfg.header,
            mtu: cfg.mtu,
            ack_threshold: cfg.ack_threshold,
            credit_per_pull: cfg.credit_per_pull,
            expected: 0,
            held: BTreeMap::new(),
            ack_request: false,
            received_bytes: 0,
            accepted_bytes: 0,
            retx_backlog: 0,
            latest_pull: 0,
            highest_pull_target: 0,
            in_pull: false,
            in_slow_pull: false,
            delivered: 0,
            size,
            reply_paths,
            pull_path,
            mask,
            stats: SinkStats::default(),
        }
    }

    pub fn bytes_delivered(&self) -> u64 {
        self.delivered
    }

    pub fn held_out_of_order(&self) -> u64 {
        self.held.values().map(|&l| l as u64).sum()
    }

    pub fn has_everything(&self) -> bool {
        self.delivered >= self.size
    }

    /// Quanta targeted but not yet pulled.
    pub fn backlog(&self) -> u32 {
        self.highest_pull_target.saturating_sub(self.latest_pull)
    }

    /// Quanta pulled beyond the target ("slow" pulls).
    pub fn slow_credit(&self) -> u32 {
        self.latest_pull.saturating_sub(self.highest_pull_target)
    }

    pub fn rtx_backlog(&self) -> u32 {
        self.retx_backlog
    }

    fn ack(&mut self, data: &EqdsHeader, base: u32, via_nic: bool) -> Answer {
        let mut sack = 0u64;
        for (&p, _) in self.held.range(base..base.saturating_add(64)) {
            sack |= 1 << (p - base);
        }
        self.stats.acks_sent += 1;
        let header = EqdsHeader {
            kind: EqdsKind::Ack,
            psn: base,
            cum_ack: self.expected,
            sack,
            len: 0,
            pull: 0,
            path: self.reply_paths[(data.ev & self.mask) as usize],
            ev: data.ev,
            ar: false,
            last: false,
        };
        Answer { header, via_nic }
    }

    /// The bitmap's base for an ACK of packet `psn` (htsim `sackBitmapBase`).
    fn base(&self, psn: u32) -> u32 {
        (psn as i64 - 63).max(self.expected as i64 + 1) as u32
    }

    fn pull_target(&mut self, pt: u32, req: &mut PacerRequest) {
        if pt > self.highest_pull_target {
            self.highest_pull_target = pt;
            if self.retx_backlog == 0 && !self.in_pull {
                self.in_pull = true;
                req.pull = true;
            }
        }
    }

    fn is_duplicate(&self, psn: u32) -> bool {
        psn < self.expected || self.held.contains_key(&psn)
    }

    /// Packet `psn` of `len` bytes is in the window: in order, or held.
    fn accept(&mut self, psn: u32, len: u32) {
        if psn == self.expected {
            self.delivered += len as u64;
            self.expected += 1;
            while let Some(l) = self.held.remove(&self.expected) {
                self.delivered += l as u64;
                self.expected += 1;
            }
        } else {
            self.held.insert(psn, len);
        }
    }

    /// A full data packet (E9).
    pub fn on_data(&mut self, h: &EqdsHeader) -> (Option<Answer>, PacerRequest) {
        let mut req = PacerRequest::default();
        self.stats.bytes_received += h.len as u64;
        self.accepted_bytes += (h.len + self.header) as u64;
        self.pull_target(h.pull, &mut req);
        if self.is_duplicate(h.psn) {
            self.stats.duplicates += 1;
            self.stats.bytes_duplicate += h.len as u64;
            self.accepted_bytes = 0;
            return (Some(self.ack(h, self.base(h.psn), true)), req);
        }
        let mut force = self.received_bytes == 0;
        self.received_bytes += h.len as u64;
        if h.ar {
            force = true;
            self.ack_request = true;
        }
        let in_order = h.psn == self.expected;
        self.accept(h.psn, h.len);
        if in_order && self.held.is_empty() && self.ack_request {
            force = true;
            self.ack_request = false;
        }
        if force || self.accepted_bytes > self.ack_threshold {
            self.accepted_bytes = 0;
            let base = if h.ar { h.psn } else { self.base(h.psn) };
            return (Some(self.ack(h, base, true)), req);
        }
        (None, req)
    }

    /// A trimmed packet's header (E8): a NACK, and its MTU of quanta added
    /// to the retransmit backlog.
    pub fn on_trimmed(&mut self, h: &EqdsHeader) -> (Answer, PacerRequest) {
        let mut req = PacerRequest::default();
        self.stats.trimmed += 1;
        if self.is_duplicate(h.psn) {
            return (self.ack(h, h.psn, false), req);
        }
        self.pull_target(h.pull, &mut req);
        let was_retransmitting = self.retx_backlog > 0;
        self.retx_backlog += quanta_ceil(self.mtu as i64) as u32;
        req.retransmit = !was_retransmitting;
        self.stats.nacks_sent += 1;
        let nack = EqdsHeader {
            kind: EqdsKind::Nack,
            psn: h.psn,
            cum_ack: 0,
            sack: 0,
            len: 0,
            pull: 0,
            path: self.reply_paths[(h.ev & self.mask) as usize],
            ev: h.ev,
            ar: false,
            last: false,
        };
        (Answer { header: nack, via_nic: true }, req)
    }

    /// An RTS (E11): its backlog joins the retransmit backlog; it takes a
    /// packet number and is ACKed at once.
    pub fn on_rts(&mut self, h: &EqdsHeader) -> (Answer, PacerRequest) {
        let mut req = PacerRequest::default();
        self.stats.rts_received += 1;
        self.pull_target(h.pull, &mut req);
        let was_retransmitting = self.retx_backlog > 0;
        self.retx_backlog += h.cum_ack;
        if !was_retransmitting {
            if !self.in_pull {
                self.in_pull = true;
                req.pull = true;
            }
            req.retransmit = true;
        }
        if self.is_duplicate(h.psn) {
            self.stats.duplicates += 1;
            self.accepted_bytes = 0;
            return (self.ack(h, h.psn, true), req);
        }
        let in_order = h.psn == self.expected;
        self.accept(h.psn, 0);
        if in_order && self.held.is_empty() {
            self.ack_request = false;
        }
        self.accepted_bytes = 0;
        (self.ack(h, h.psn, true), req)
    }

    /// The pacer's credit for this flow (E2): one PULL of 8 quanta, paid
    /// first from the retransmit backlog.
    pub fn pull(&mut self) -> EqdsHeader {
        self.retx_backlog = self.retx_backlog.saturating_sub(self.credit_per_pull);
        self.latest_pull += self.credit_per_pull;
        self.stats.pulls_sent += 1;
        EqdsHeader {
            kind: EqdsKind::Pull,
            psn: 0,
            cum_ack: 0,
            sack: 0,
            len: 0,
            pull: self.latest_pull,
            path: self.pull_path,
            ev: 0,
            ar: false,
            last: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::mechanism::Params;

    fn data(psn: u32, pull: u32, ar: bool) -> EqdsHeader {
        EqdsHeader { kind: EqdsKind::Data, psn, cum_ack: 0, sack: 0, len: 4086, pull, path: 0, ev: 5, ar, last: false }
    }

    #[test]
    fn acks_on_the_first_packet_on_request_and_past_16384_bytes_with_a_sack_bitmap() {
        let cfg = EqdsConfig::from_params(&Params::default());
        let mut k = EqdsSink::new(&cfg, 10 * 4086, vec![0, 1, 2, 3, 4, 5, 6, 7], 0);
        let (a, req) = k.on_data(&data(0, 90, false));
        assert!(a.is_some() && req.pull, "the first packet is ACKed; its target puts the flow on the active list");
        // Packets 2..=4 beyond the gap at 1: no ACK until 16,384 B are accepted (4 x 4,150).
        for psn in 2..=4 {
            assert_eq!(k.on_data(&data(psn, 90, false)).0, None);
        }
        let a = k.on_data(&data(5, 90, false)).0.unwrap().header;
        assert_eq!((a.cum_ack, a.psn, a.sack, a.path), (1, 2, 0b1111, 5));
        // A trimmed packet: a NACK and 9 quanta of retransmit backlog.
        let (n, req) = k.on_trimmed(&EqdsHeader { kind: EqdsKind::Trimmed, ..data(1, 90, false) });
        assert!(n.via_nic && n.header.kind == EqdsKind::Nack && req.retransmit && k.rtx_backlog() == 9);
        // The retransmission (AR) fills the gap: ACKed at once, cumulative 6.
        let a = k.on_data(&data(1, 90, true)).0.unwrap().header;
        assert_eq!((a.cum_ack, k.bytes_delivered()), (6, 6 * 4086));
        // Pulls pay the retransmit backlog first, 8 quanta each.
        assert_eq!((k.pull().pull, k.rtx_backlog(), k.pull().pull, k.rtx_backlog()), (8, 1, 16, 0));
        assert_eq!(k.backlog(), 90 - 16);
    }

    #[test]
    fn layout_of_the_sink_in_three_cache_lines() {
        // The lines the struct's comment names: every packet's and pull's
        // numbers in the first, held packets and reply paths in the second.
        use std::mem::{offset_of, size_of};
        assert_eq!((size_of::<EqdsSink>(), offset_of!(EqdsSink, held), offset_of!(EqdsSink, stats)), (192, 64, 128));
    }
}
