//! The per-frame header the simulator carries: a TCP segment's.

/// TCP header flags carried by a segment.
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
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

#[cfg(test)]
mod tests {
    use super::Segment;

    #[test]
    fn option_bytes_count_in_the_ip_length_and_the_header_stays_small() {
        assert_eq!(Segment { opt: 20, ..Default::default() }.ip_len(40), 60, "a 2-block SACK ACK");
        assert_eq!(Segment { len: 9128, ..Default::default() }.ip_len(40), 9168);
        // Every frame record in the ledger keeps one: the SACK fields fit in what was padding.
        assert!(std::mem::size_of::<Segment>() <= 32, "{}", std::mem::size_of::<Segment>());
    }
}
