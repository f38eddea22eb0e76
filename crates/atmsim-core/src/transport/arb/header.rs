//! ARB's two packets as typed headers (Chang, Huynh & Gray §2): a data
//! packet, which may ask for the receiver's rate, and a rate reply (or NAK).
//! The sender and the receiver read and write these; only the two
//! conversions here know how they travel in a frame's header record (the
//! simulator's one per-frame header, `Segment`, kept once per frame in the
//! ledger): a data packet's send time in `ack` and its request id in `wnd`;
//! a reply's Rr in `ack` (in units of [`RR_UNIT`] b/s), the request id it
//! answers in `wnd` (0 for a NAK sent on a gap), the receiver's next
//! expected byte in `seq`, and the LOSS and ACCUM flags.

use super::{flags, RR_UNIT};
use crate::net::Segment;
use crate::time::Time;

/// A data packet: `len` payload bytes from `seq`, sent at `sent_at` (the
/// receiver measures delays from it), a rate request when `request` names
/// one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArbData {
    pub seq: u64,
    pub len: u32,
    pub sent_at: Time,
    pub request: Option<u32>,
}

/// A rate reply, or a NAK (`loss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArbReply {
    /// The receiver's next expected byte.
    pub expected: u64,
    /// The rate Rr the receiver measured, in units of [`RR_UNIT`] b/s.
    pub rr: u64,
    /// The request answered (0: none, a NAK sent on a gap).
    pub request: u32,
    /// Data from `expected` on is missing.
    pub loss: bool,
    /// The queueing-accumulation rule fired: the sender must cut.
    pub accumulated: bool,
}

impl ArbReply {
    /// Rr in bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rr as f64 * RR_UNIT
    }
}

impl ArbData {
    pub fn to_frame(self) -> Segment {
        let (wnd, flags) = match self.request {
            Some(id) => (id, flags::REQUEST),
            None => (0, 0),
        };
        Segment { seq: self.seq, ack: self.sent_at, len: self.len, wnd, flags, opt: 0, sack: 0 }
    }

    pub fn of_frame(seg: &Segment) -> ArbData {
        let request = (seg.flags & flags::REQUEST != 0).then_some(seg.wnd);
        ArbData { seq: seg.seq, len: seg.len, sent_at: seg.ack, request }
    }
}

impl ArbReply {
    pub fn to_frame(self) -> Segment {
        let f = flags::REPLY | if self.loss { flags::LOSS } else { 0 } | if self.accumulated { flags::ACCUM } else { 0 };
        Segment { seq: self.expected, ack: self.rr, len: 0, wnd: self.request, flags: f, opt: 0, sack: 0 }
    }

    pub fn of_frame(seg: &Segment) -> ArbReply {
        ArbReply {
            expected: seg.seq,
            rr: seg.ack,
            request: seg.wnd,
            loss: seg.flags & flags::LOSS != 0,
            accumulated: seg.flags & flags::ACCUM != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_header_comes_back_from_its_frame() {
        for request in [None, Some(7)] {
            let d = ArbData { seq: 451, len: 450, sent_at: 123_456, request };
            assert_eq!(ArbData::of_frame(&d.to_frame()), d);
        }
        for (loss, accumulated) in [(false, false), (true, false), (false, true), (true, true)] {
            let r = ArbReply { expected: 1351, rr: 4_000_000, request: 3, loss, accumulated };
            assert_eq!(ArbReply::of_frame(&r.to_frame()), r);
            assert!(r.to_frame().flags & flags::REPLY != 0 && r.to_frame().len == 0, "a reply is a header alone");
        }
        assert_eq!(ArbReply { expected: 1, rr: 4_000_000, request: 0, loss: false, accumulated: false }.rate_bps(), 4000.0);
    }
}
