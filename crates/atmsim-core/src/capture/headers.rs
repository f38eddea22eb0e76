//! Real headers for the packets of the model: IPv4 (RFC 791), TCP (RFC 793)
//! or UDP (RFC 768), the LLC/SNAP prefix of RFC 2684 and the SunATM
//! pseudo-header (VPI/VCI) of LINKTYPE_SUNATM. The payload is zeros: the
//! model carries lengths, not bytes, so checksums are exact all the same
//! (zeros add nothing to the Internet checksum).

use crate::net::{flags, FrameHeader};

/// How one VC's packets look on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcWire {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    /// TCP (else UDP: datagram sources and ARB, whose packets are not TCP).
    pub tcp: bool,
    /// The receiver's ACK direction of a TCP flow.
    pub reply: bool,
    /// IP + transport header bytes of the model (`ip.header_bytes`).
    pub header_bytes: u32,
    /// The window scale the model assumes agreed (docs/tcp.md B10): the
    /// window field of a segment other than a SYN is `wnd >> wscale`.
    pub wscale: u8,
    /// The window a TCP sender's segments advertise: the model's sender
    /// receives no data and leaves its window at 0, a real one advertises
    /// its empty receive buffer (`tcp.window`); the capture writes that.
    pub sender_wnd: u32,
}

/// A host's address: 10.0.0.1 for the first host of `[topology]`, then on.
pub fn host_ip(host: u32) -> [u8; 4] {
    (0x0a00_0001u32 + host).to_be_bytes()
}

/// Internet checksum (RFC 1071) of `bytes`, starting from `sum`.
fn checksum(mut sum: u32, bytes: &[u8]) -> u16 {
    for pair in bytes.chunks(2) {
        sum += u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The IP packet of `seg` on `v`: its true length (`ip.header_bytes`, TCP
/// option bytes such as a SACK option's, and payload) and its first `snap`
/// bytes at most.
pub fn ip_packet(v: &VcWire, header: &FrameHeader, snap: usize) -> (u32, Vec<u8>) {
    let ip_len = header.ip_len(v.header_bytes);
    let mut b = Vec::with_capacity(v.header_bytes as usize);
    let proto = if v.tcp { 6 } else { 17 };
    // IPv4: version 4, 20 bytes, DF set and identification 0 (RFC 6864).
    b.extend_from_slice(&[0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0]);
    b[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    b[1] = ecn_field(header);
    b.extend_from_slice(&v.src_ip);
    b.extend_from_slice(&v.dst_ip);
    let c = checksum(0, &b);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    let l4_len = ip_len - 20;
    let start = b.len();
    b.extend_from_slice(&v.src_port.to_be_bytes());
    b.extend_from_slice(&v.dst_port.to_be_bytes());
    if let (true, Some(seg)) = (v.tcp, header.tcp()) {
        let syn = seg.flags & flags::SYN != 0;
        // The receiver sends no data: after its SYN (byte 0) its ACKs carry
        // sequence number 1, which the model leaves at 0.
        let seq = if v.reply && !syn { 1 } else { seg.seq };
        // The model's extra header bytes and its option bytes (a SACK
        // option's blocks are not kept per segment: written as NOPs of
        // their true length).
        let opts = v.header_bytes - 40 + seg.opt as u32;
        let mut fl = 0u8;
        if syn {
            fl |= 0x02;
        }
        if seg.flags & flags::ACK != 0 {
            fl |= 0x10;
        }
        // RFC 3168 §6.1: ECE and CWR, the header's bits 9 and 8.
        if seg.flags & flags::ECE != 0 {
            fl |= 0x40;
        }
        if seg.flags & flags::CWR != 0 {
            fl |= 0x80;
        }
        let wnd = if v.reply { seg.wnd } else { v.sender_wnd };
        // RFC 1323: a SYN's window is never scaled.
        let wnd = if syn { wnd } else { wnd >> v.wscale };
        b.extend_from_slice(&(seq as u32).to_be_bytes());
        b.extend_from_slice(&(seg.ack as u32).to_be_bytes());
        b.push((((20 + opts) / 4) as u8) << 4);
        b.push(fl);
        b.extend_from_slice(&(wnd.min(u16::MAX as u32) as u16).to_be_bytes());
        b.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
        b.resize(b.len() + opts as usize, 1); // NOP options
    } else {
        b.extend_from_slice(&(l4_len as u16).to_be_bytes());
        b.extend_from_slice(&[0, 0]); // no UDP checksum (allowed on IPv4)
    }
    if v.tcp {
        let mut pseudo = Vec::with_capacity(12);
        pseudo.extend_from_slice(&v.src_ip);
        pseudo.extend_from_slice(&v.dst_ip);
        pseudo.extend_from_slice(&[0, proto]);
        pseudo.extend_from_slice(&(l4_len as u16).to_be_bytes());
        let partial = !checksum(0, &pseudo) as u32;
        let c = checksum(partial, &b[start..]);
        b[start + 16..start + 18].copy_from_slice(&c.to_be_bytes());
    }
    b.resize((ip_len as usize).min(snap), 0);
    (ip_len, b)
}

/// The ECN field, the two low bits of the IPv4 TOS byte (RFC 3168 §5):
/// CE (11) on a packet a router marked, ECT(0) (10) on one an ECN-capable
/// transport sent, Not-ECT (00) otherwise.
fn ecn_field(header: &FrameHeader) -> u8 {
    match header.tcp() {
        Some(s) if s.flags & flags::CE != 0 => 0b11,
        Some(s) if s.flags & flags::ECT != 0 => 0b10,
        _ => 0,
    }
}

/// The RFC 2684 LLC/SNAP header of a routed IPv4 PDU.
pub const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];

/// The SunATM pseudo-header: direction (0x80: sent) and traffic type (2:
/// LLC-multiplexed, 0: unknown, left to Wireshark's heuristics), VPI, VCI.
pub fn sunatm(llc: bool, vpi: u8, vci: u16) -> [u8; 4] {
    let [hi, lo] = vci.to_be_bytes();
    [0x80 | if llc { 0x02 } else { 0x00 }, vpi, hi, lo]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Segment;

    fn wire(tcp: bool, reply: bool, header_bytes: u32) -> VcWire {
        VcWire {
            src_ip: host_ip(0),
            dst_ip: host_ip(1),
            src_port: 1024,
            dst_port: 33000,
            tcp,
            reply,
            header_bytes,
            wscale: 4,
            sender_wnd: 524_288,
        }
    }

    #[test]
    fn ipv4_and_tcp_headers_are_true_to_the_segment() {
        let seg = Segment { seq: 9129, ack: 1, len: 9128, wnd: 0, flags: flags::ACK, ..Segment::default() };
        let (len, b) = ip_packet(&wire(true, false, 40), &FrameHeader::Tcp(seg), 96);
        assert_eq!((len, b.len()), (9168, 96));
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 9168);
        assert_eq!(checksum(0, &b[..20]), 0, "IP header checksum verifies");
        assert_eq!(&b[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
        assert_eq!(u32::from_be_bytes(b[24..28].try_into().unwrap()), 9129);
        assert_eq!(u32::from_be_bytes(b[28..32].try_into().unwrap()), 1);
        assert_eq!((b[32] >> 4, b[33]), (5, 0x10));
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 32768, "the sender's receive buffer, scaled");
        // The TCP checksum over pseudo-header, header and the zero payload verifies.
        let mut all = vec![10, 0, 0, 1, 10, 0, 0, 2, 0, 6];
        all.extend_from_slice(&((9168u32 - 20) as u16).to_be_bytes());
        all.extend_from_slice(&b[20..]);
        assert_eq!(checksum(0, &all), 0);
    }

    #[test]
    fn acks_windows_options_and_udp() {
        let ack = Segment { seq: 0, ack: 5000, len: 0, wnd: 524_288, flags: flags::ACK, ..Segment::default() };
        let (len, b) = ip_packet(&wire(true, true, 48), &FrameHeader::Tcp(ack), 96);
        assert_eq!((len, b.len()), (48, 48));
        assert_eq!(u32::from_be_bytes(b[24..28].try_into().unwrap()), 1, "the receiver's ACKs follow its SYN");
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 32768, "524288 >> 4");
        assert_eq!((b[32] >> 4, &b[40..48]), (7, &[1u8; 8][..]));
        let synack = Segment { flags: flags::SYN | flags::ACK, ack: 1, ..ack };
        let (_, b) = ip_packet(&wire(true, true, 40), &FrameHeader::Tcp(synack), 96);
        assert_eq!((u32::from_be_bytes(b[24..28].try_into().unwrap()), b[33]), (0, 0x12));
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 65535, "a SYN's window is not scaled");
        let (len, b) = ip_packet(&wire(false, false, 28), &FrameHeader::Datagram(crate::net::Datagram { seq: 1, len: 1000 }), 96);
        assert_eq!((len, b[9], u16::from_be_bytes([b[24], b[25]])), (1028, 17, 1008));
    }

    #[test]
    fn ecn_marks_are_in_the_ip_ecn_field_and_the_tcp_flags() {
        let data = Segment { seq: 1, ack: 1, len: 1000, flags: flags::ACK | flags::ECT | flags::CWR, ..Segment::default() };
        let (_, b) = ip_packet(&wire(true, false, 40), &FrameHeader::Tcp(data), 60);
        assert_eq!((b[1] & 3, b[33]), (0b10, 0x90), "ECT(0); ACK and CWR");
        assert_eq!(checksum(0, &b[..20]), 0, "the IP checksum covers the ECN field");
        let marked = FrameHeader::Tcp(data).congestion_experienced();
        assert_eq!(ip_packet(&wire(true, false, 40), &marked, 60).1[1] & 3, 0b11, "CE");
        let echo = Segment { ack: 1001, flags: flags::ACK | flags::ECE, ..Segment::default() };
        let (_, b) = ip_packet(&wire(true, true, 40), &FrameHeader::Tcp(echo), 60);
        assert_eq!((b[1] & 3, b[33]), (0, 0x50), "a pure ACK is Not-ECT; ACK and ECE");
    }
}
