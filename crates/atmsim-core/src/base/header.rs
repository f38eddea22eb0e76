//! The per-frame header the simulator carries: one [`FrameHeader`] per
//! frame, kept once in its VC's ledger (not in its cells), whose variant is
//! the transport's own header: a TCP segment, an ARB data packet or rate
//! reply, a datagram. The network sees only its sequence number, its
//! payload length and its IP length; each transport reads its own variant.

/// TCP header flags carried by a segment, and the ECN field of the IP
/// header around it (RFC 3168 §5), which the model keeps in the same byte.
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    /// ECN-Echo (RFC 3168 §6.1): on a SYN (with CWR) the sender asks for
    /// ECN, on the SYN-ACK the receiver agrees; on an ACK, a CE mark seen.
    pub const ECE: u8 = 4;
    /// Congestion Window Reduced (RFC 3168 §6.1.2): the sender reduced its
    /// window; the receiver stops echoing.
    pub const CWR: u8 = 8;
    /// IP ECN field ECT(0): an ECN-capable transport sent the packet
    /// (RFC 3168 §5, §6.1.2). Set by the sender on new data; a unit of the
    /// frame carries it as `Unit::ecn_capable` through the network.
    pub const ECT: u8 = 16;
    /// IP ECN field CE: a router marked the packet (RFC 3168 §5), copied
    /// from the delivered unit's `Unit::is_congested` when its frame reaches
    /// the receiver, and set in a capture's copy of a marked packet.
    pub const CE: u8 = 32;
}

/// A TCP segment's header as the simulator needs it (no checksum or urgent
/// data; of the options only SACK's, by size and reference). Sequence
/// numbers are 64-bit and never wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Advertised receive window in bytes.
    pub wnd: u32,
    pub flags: u8,
    /// TCP option bytes beyond the fixed header, padded to 4 (0 except with
    /// SACK: SACK-permitted on the SYNs, the SACK option on ACKs; docs/tcp.md
    /// "SACK"). They count in the packet's length and its cells.
    pub opt: u8,
    /// The SACK option of an ACK, by reference: its number in the receiver's
    /// option log (`sack_option.rs`), 0 when there is none. The blocks stay
    /// out of the header every cell copies.
    pub sack: u32,
}

impl Segment {
    /// IP datagram length: payload, the fixed IP and TCP headers
    /// (`header_bytes`) and the TCP options.
    #[inline]
    pub fn ip_len(&self, header_bytes: u32) -> u32 {
        self.len + header_bytes + self.opt as u32
    }
}

/// An ARB data packet (Chang, Huynh & Gray §2): `len` payload bytes from
/// `seq`, sent at `sent_at` (the receiver measures delays from it), a rate
/// request when `request` names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArbData {
    pub seq: u64,
    pub len: u32,
    pub sent_at: u64,
    pub request: Option<u32>,
}

/// An ARB rate reply, or a NAK (`loss`): a header alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArbReply {
    /// The receiver's next expected byte.
    pub expected: u64,
    /// The rate Rr the receiver measured, in units of
    /// `transport::arb::RR_UNIT` b/s.
    pub rr: u64,
    /// The request answered (0: none, a NAK sent on a gap).
    pub request: u32,
    /// Data from `expected` on is missing.
    pub loss: bool,
    /// The queueing-accumulation rule fired: the sender must cut.
    pub accumulated: bool,
}

/// A datagram of a one-way source: `len` payload bytes from byte `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    pub seq: u64,
    pub len: u32,
}

/// What an NDP packet is (Handley et al., SIGCOMM 2017; htsim `ndppacket.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NdpKind {
    /// A data packet, full (`len` payload bytes from `seq`).
    Data,
    /// A data packet trimmed to its header by a switch on the way: its
    /// payload is gone, its header tells the receiver what was sent.
    Trimmed,
    /// The receiver's acknowledgement of the data packet at `seq`.
    Ack,
    /// The receiver's negative acknowledgement of the trimmed packet at `seq`.
    Nack,
    /// A pull: lets the sender send up to pull number `pull_no`.
    Pull,
}

/// An NDP packet's header. Sequence numbers count payload bytes from 1, as
/// htsim's (`seq` is a data packet's first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdpHeader {
    pub kind: NdpKind,
    /// Data: its first byte; ACK and NACK: the first byte of the packet they answer.
    pub seq: u64,
    /// The receiver's cumulative ACK (ACK, NACK, PULL): every byte up to it has arrived.
    pub cum_ack: u64,
    /// Data: payload bytes.
    pub len: u32,
    /// ACK, NACK and PULL: the receiver's pull number, cumulative per
    /// connection (N11); meaningful on an ACK or NACK only when `pull` is set.
    pub pull_no: u32,
    /// Which of the flow's paths the packet takes (an index into its VC's
    /// routes, `net::VcTable`).
    pub path: u16,
    /// ACK and NACK: the path of the data packet they answer (the sender's
    /// per-path feedback, N16).
    pub data_path: u16,
    /// An ACK or NACK that carries a pull (N9), or a data packet that is the
    /// flow's last (the receiver then knows where the flow ends).
    pub flag: bool,
}

/// What an EQDS packet is (Olteanu et al., NSDI 2022; htsim `eqdspacket.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EqdsKind {
    /// A data packet: `len` payload bytes, packet number `psn`.
    Data,
    /// A data packet trimmed to its header on the way (E8).
    Trimmed,
    /// A request to send: the sender's retransmit backlog, on a timeout (E11).
    Rts,
    /// A selective ACK: cumulative ACK and a 64-packet bitmap (E9).
    Ack,
    /// The receiver's answer to a trimmed packet (E8).
    Nack,
    /// Credit: the receiver's cumulative pull number, in 512-B quanta (E2).
    Pull,
}

/// An EQDS packet's header. Packet numbers count from 0 (htsim's epsn);
/// an RTS takes a packet number as data does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EqdsHeader {
    pub kind: EqdsKind,
    /// Data, trimmed and RTS: the packet number; ACK: the bitmap's first
    /// packet number; NACK: the packet number it answers.
    pub psn: u32,
    /// ACK: the next packet number expected in order; RTS: the retransmit
    /// backlog it asks credit for, in quanta.
    pub cum_ack: u32,
    /// ACK: bit i set if packet `psn + i` is held beyond a gap.
    pub sack: u64,
    /// Data: payload bytes.
    pub len: u32,
    /// Data and RTS: the pull target (E5); PULL: the pull number; both in quanta.
    pub pull: u32,
    /// Which of its VC's routes the packet takes (the path its entropy hashes to, E10).
    pub path: u16,
    /// Data: the entropy index it was sent with; ACK and NACK: the answered
    /// packet's (the sender penalises it, E8).
    pub ev: u16,
    /// Data: ACK requested (AR, E9); ACK: ECN echo (never set: no switch marks).
    pub ar: bool,
    /// Data: the flow's last packet.
    pub last: bool,
}

/// What a frame carries ahead of its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameHeader {
    Tcp(Segment),
    ArbData(ArbData),
    ArbReply(ArbReply),
    Datagram(Datagram),
    Ndp(NdpHeader),
    Eqds(EqdsHeader),
}

impl FrameHeader {
    /// The first payload byte's sequence number (a reply's: the byte it
    /// expects next).
    #[inline]
    pub fn seq(&self) -> u64 {
        match self {
            FrameHeader::Tcp(s) => s.seq,
            FrameHeader::ArbData(d) => d.seq,
            FrameHeader::ArbReply(r) => r.expected,
            FrameHeader::Datagram(d) => d.seq,
            FrameHeader::Ndp(n) => n.seq,
            FrameHeader::Eqds(e) => e.psn as u64,
        }
    }

    /// Payload bytes.
    #[inline]
    pub fn payload_len(&self) -> u32 {
        match self {
            FrameHeader::Tcp(s) => s.len,
            FrameHeader::ArbData(d) => d.len,
            FrameHeader::ArbReply(_) => 0,
            FrameHeader::Datagram(d) => d.len,
            FrameHeader::Ndp(n) => n.len,
            FrameHeader::Eqds(e) => e.len,
        }
    }

    /// Sent ECN-capable (a TCP data segment with ECT, RFC 3168 §6.1.2).
    #[inline]
    pub fn is_ect(&self) -> bool {
        matches!(self, FrameHeader::Tcp(s) if s.flags & flags::ECT != 0)
    }

    /// The header as its receiver sees it after a router marked the packet
    /// CE (RFC 3168 §5): a TCP segment gets [`flags::CE`]; other transports
    /// have no ECN.
    #[inline]
    pub fn congestion_experienced(self) -> FrameHeader {
        match self {
            FrameHeader::Tcp(s) => FrameHeader::Tcp(Segment { flags: s.flags | flags::CE, ..s }),
            other => other,
        }
    }

    /// IP datagram length: payload, the fixed headers (`header_bytes`) and
    /// a TCP segment's options.
    #[inline]
    pub fn ip_len(&self, header_bytes: u32) -> u32 {
        match self {
            FrameHeader::Tcp(s) => s.ip_len(header_bytes),
            _ => self.payload_len() + header_bytes,
        }
    }

    /// The TCP segment, if this is one.
    /// Which of its VC's routes the frame takes (0 for a flow of one route).
    #[inline]
    pub fn path(&self) -> u16 {
        match self {
            FrameHeader::Ndp(n) => n.path,
            FrameHeader::Eqds(e) => e.path,
            _ => 0,
        }
    }

    #[inline]
    pub fn tcp(&self) -> Option<&Segment> {
        match self {
            FrameHeader::Tcp(s) => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_bytes_count_in_the_ip_length_and_the_header_stays_small() {
        assert_eq!(Segment { opt: 20, ..Default::default() }.ip_len(40), 60, "a 2-block SACK ACK");
        assert_eq!(Segment { len: 9128, ..Default::default() }.ip_len(40), 9168);
        // Every frame record in the ledger keeps one: the SACK fields fit in what was padding.
        assert!(std::mem::size_of::<Segment>() <= 32, "{}", std::mem::size_of::<Segment>());
    }

    #[test]
    fn the_network_sees_the_same_three_numbers_of_every_header() {
        let tcp = FrameHeader::Tcp(Segment { seq: 9, len: 100, opt: 12, ..Default::default() });
        let data = FrameHeader::ArbData(ArbData { seq: 451, len: 450, sent_at: 7, request: Some(3) });
        let reply = FrameHeader::ArbReply(ArbReply { expected: 1351, rr: 4, request: 3, loss: false, accumulated: true });
        let datagram = FrameHeader::Datagram(Datagram { seq: 1, len: 1000 });
        let seen: Vec<_> = [tcp, data, reply, datagram].iter().map(|h| (h.seq(), h.payload_len(), h.ip_len(28))).collect();
        assert_eq!(seen, [(9, 100, 140), (451, 450, 478), (1351, 0, 28), (1, 1000, 1028)]);
        assert!(tcp.tcp().is_some() && reply.tcp().is_none());
        // Kept once per frame in the ledger: a tag beside the largest header.
        assert!(std::mem::size_of::<FrameHeader>() <= 40, "{}", std::mem::size_of::<FrameHeader>());
    }
}
