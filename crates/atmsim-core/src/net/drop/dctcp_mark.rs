//! DCTCP's switch (Alizadeh et al., "Data Center TCP", SIGCOMM 2010 §3.1;
//! RFC 8257 §3.1): "mark arriving packets with the CE codepoint if the queue
//! occupancy is greater than K upon arrival" — the instantaneous queue, not
//! RED's average, one threshold, no randomness.
//!
//! Here the occupancy is the packets the port holds when the packet arrives,
//! counting the one in transmission; a packet finding more than K is marked
//! if it is ECN-capable. A packet that is not ECN-capable (a pure ACK) is
//! admitted unmarked below the buffer limit [choice]: the paper's switch
//! only marks, and a DCTCP port would otherwise drop the reverse path's
//! ACKs at K. Every packet is dropped at the buffer limit (tail drop).
//!
//! Peers differ in where they look: htsim's `ECNQueue` marks at dequeue
//! when the bytes queued (the departing packet included) exceed K; ns-3's
//! usual DCTCP set-up, a `RedQueueDisc` with MinTh = MaxTh = K and weight 1,
//! marks at enqueue when the queue disc already holds K packets or more
//! (not counting the one the device is sending).

use super::{Action, DropReason, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::Unit;
use crate::time::{Serializer, Time};

/// K's default: 20 packets, Alizadeh et al.'s setting at 1 Gb/s (§4.1).
pub const DEFAULT_K: u64 = 20;

impl Policy for DctcpMark {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "dctcp",
        selected_by: "router.policy",
        networks: Networks::Packet,
        about: "DCTCP's switch (Alizadeh et al. 2010 §3.1; RFC 8257): CE on an ECN-capable packet that finds more than K packets queued",
        docs: "packet.md",
        keys: &[Key {
            name: "router.dctcp.k",
            kind: KeyKind::Count { unit: "packets", min: 1, max: u64::MAX },
            default: KeyDefault::Value("20"),
            about: "marking threshold K on the instantaneous queue, below the buffer (Alizadeh et al.: 20 at 1 Gb/s, 65 at 10 Gb/s)",
        }],
        counters: &["tail", "units_marked"],
        goldens: &[Golden {
            // RFC 3168's NewReno over a step-marking switch: one halving per
            // window of marks, the response DCTCP refines.
            scenario: "aron97-topo1-packet",
            variation: "dctcp-mark-newreno",
            overrides: &["router.policy=dctcp", "switch.buffer=60packets", "router.dctcp.k=15", "tcp.variant=newreno", "tcp.ecn=true"],
        }],
    }];
    type Spec = u64;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<u64, KeyError> {
        let k = cx.params.count("router.dctcp.k").unwrap_or(DEFAULT_K);
        if k >= cx.units {
            let problem = format!("{k} packets is not below the buffer ({} packets): no packet would be marked", cx.units);
            return Err(KeyError::new("router.dctcp.k", problem));
        }
        Ok(k)
    }
    fn build(k: u64, units: u64, _: &PortContext) -> Self {
        DctcpMark { k, limit: units }
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        DctcpMark::admit(self, q, unit.is_ecn_capable())
    }
    fn limit(&self) -> u64 {
        self.limit
    }
    fn may_mark(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DctcpMark {
    /// Mark when more than this many packets are queued.
    pub k: u64,
    /// At most this many packets, counting the one in transmission.
    pub limit: u64,
}

impl DctcpMark {
    /// A packet arrives to `q` packets (counting the one in transmission);
    /// `ect`: it is ECN-capable.
    #[inline]
    pub fn admit(&self, q: u64, ect: bool) -> Action {
        if q >= self.limit {
            Action::Drop(DropReason::Tail)
        } else if q > self.k && ect {
            Action::Mark
        } else {
            Action::Admit
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_an_ect_packet_that_finds_more_than_k() {
        let m = DctcpMark { k: 5, limit: 10 };
        assert_eq!(m.admit(5, true), Action::Admit, "K packets: not more than K");
        assert_eq!(m.admit(6, true), Action::Mark);
        assert_eq!(m.admit(9, true), Action::Mark);
        assert_eq!(m.admit(10, true), Action::Drop(DropReason::Tail), "a full buffer drops");
        assert_eq!(m.admit(0, true), Action::Admit);
    }

    #[test]
    fn a_packet_that_is_not_ecn_capable_passes_unmarked_until_the_buffer_is_full() {
        let m = DctcpMark { k: 5, limit: 10 };
        assert_eq!(m.admit(9, false), Action::Admit);
        assert_eq!(m.admit(10, false), Action::Drop(DropReason::Tail));
    }
}
