//! NDP's receiver (htsim `NdpSink::receivePacket`, `send_ack`, `send_nack`;
//! rule N8 of docs/fabrics.md): every full packet is acknowledged and every
//! header NACKed, each answer asking for one more pull (the pull number
//! counts up per connection); the answers are sprayed over the reverse
//! paths as the sender sprays data (N15). Out-of-order packets are held and
//! counted toward the cumulative ACK when the gap fills.

use super::paths::PathChoice;
use crate::base::{NdpHeader, NdpKind};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SinkStats {
    /// Payload bytes of full packets received, duplicates included.
    pub bytes_received: u64,
    /// Payload bytes received again (a packet already held or acknowledged).
    pub bytes_duplicate: u64,
    /// Headers of trimmed packets received (each NACKed).
    pub trimmed: u64,
    pub acks_sent: u64,
    pub nacks_sent: u64,
}

#[derive(Clone, Debug)]
pub struct NdpSink {
    /// Every byte up to here has arrived (sequence numbers count from 1).
    pub cum_ack: u64,
    /// Packets beyond the cumulative ACK, (seq, len), in sequence order.
    held: VecDeque<(u64, u32)>,
    /// The last byte of the flow, once its last packet has arrived.
    last_byte: Option<u64>,
    pull_no: u32,
    paths: PathChoice,
    pub stats: SinkStats,
}

impl NdpSink {
    pub fn new(paths: PathChoice) -> NdpSink {
        NdpSink { cum_ack: 0, held: VecDeque::new(), last_byte: None, pull_no: 0, paths, stats: SinkStats::default() }
    }

    /// Payload bytes delivered in order.
    pub fn bytes_delivered(&self) -> u64 {
        self.cum_ack
    }

    /// Payload bytes held beyond a gap.
    pub fn held_out_of_order(&self) -> u64 {
        self.held.iter().map(|&(_, l)| l as u64).sum()
    }

    /// Has every byte of the flow arrived?
    pub fn has_everything(&self) -> bool {
        self.last_byte == Some(self.cum_ack)
    }

    fn answer(&mut self, kind: NdpKind, data: &NdpHeader) -> NdpHeader {
        self.pull_no += 1;
        NdpHeader {
            kind,
            seq: data.seq,
            cum_ack: self.cum_ack,
            len: 0,
            pull_no: self.pull_no,
            path: self.paths.next_path(),
            data_path: data.path,
            flag: true,
        }
    }

    /// A full packet arrived: it is held or acknowledged, and its ACK asks
    /// for a pull.
    pub fn on_data(&mut self, h: &NdpHeader) -> NdpHeader {
        let (seq, len) = (h.seq, h.len);
        self.stats.bytes_received += len as u64;
        if h.flag {
            self.last_byte = Some(seq - 1 + len as u64);
        }
        if seq <= self.cum_ack {
            self.stats.bytes_duplicate += len as u64;
        } else if seq == self.cum_ack + 1 {
            self.cum_ack += len as u64;
            while let Some(&(s, l)) = self.held.front() {
                if s != self.cum_ack + 1 {
                    break;
                }
                self.cum_ack += l as u64;
                self.held.pop_front();
            }
        } else {
            // Beyond a gap: kept in order (the common case appends).
            let at = self.held.partition_point(|&(s, _)| s < seq);
            if self.held.get(at).is_some_and(|&(s, _)| s == seq) {
                self.stats.bytes_duplicate += len as u64;
            } else {
                self.held.insert(at, (seq, len));
            }
        }
        self.stats.acks_sent += 1;
        self.answer(NdpKind::Ack, h)
    }

    /// A trimmed packet's header arrived: its NACK asks for a pull.
    pub fn on_trimmed(&mut self, h: &NdpHeader) -> NdpHeader {
        self.stats.trimmed += 1;
        self.stats.nacks_sent += 1;
        self.answer(NdpKind::Nack, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::ndp::Strategy;
    use rand::SeedableRng;

    fn data(seq: u64, len: u32, last: bool) -> NdpHeader {
        NdpHeader { kind: NdpKind::Data, seq, cum_ack: 0, len, pull_no: 0, path: 3, data_path: 0, flag: last }
    }

    #[test]
    fn acks_count_pulls_up_and_the_gap_fills_in_order() {
        let mut k = NdpSink::new(PathChoice::new(4, Strategy::Perm, rand_chacha::ChaCha8Rng::seed_from_u64(2)));
        let a = k.on_data(&data(1, 100, false));
        assert_eq!((a.kind, a.cum_ack, a.pull_no, a.data_path, a.flag), (NdpKind::Ack, 100, 1, 3, true));
        k.on_data(&data(201, 100, false));
        k.on_data(&data(301, 50, true));
        assert_eq!((k.cum_ack, k.held_out_of_order()), (100, 150));
        assert!(!k.has_everything());
        let n = k.on_trimmed(&data(101, 100, false));
        assert_eq!((n.kind, n.pull_no), (NdpKind::Nack, 4));
        let a = k.on_data(&data(101, 100, false));
        assert_eq!((a.cum_ack, k.held_out_of_order()), (350, 0));
        assert!(k.has_everything());
        k.on_data(&data(201, 100, false));
        assert_eq!((k.stats.bytes_received, k.stats.bytes_duplicate, k.stats.trimmed), (450, 100, 1));
    }
}
