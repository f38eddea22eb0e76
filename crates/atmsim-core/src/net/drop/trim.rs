//! Packet trimming (NDP, Handley et al. SIGCOMM 2017 §3.1; htsim's
//! `CompositeQueue::receivePacket`, rule N2 of docs/fabrics.md): a full
//! data packet that does not fit its port's data queue is not dropped but
//! cut to its header, which the port queues in a header queue served first
//! (`net/trim.rs`). Which packet loses its payload is a coin: with
//! probability ½ the most recently queued data packet (the arrival then
//! takes its place), otherwise the arrival. The decision is this policy's;
//! the trimming port carries it out and counts it.

use super::{Action, Policy, PortContext, ResolveCx};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyError, KeyKind, Mechanism, Networks};
use crate::net::Unit;
use crate::rng::{stream, Stream};
use crate::time::{Serializer, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

impl Policy for TrimPolicy {
    const MECHANISMS: &'static [Mechanism] = &[Mechanism {
        name: "trim",
        selected_by: "router.policy",
        networks: Networks::Packet,
        about: "packet trimming (NDP; htsim CompositeQueue): a data packet that does not fit is cut to its header, which a header queue serves first",
        docs: "fabrics.md",
        keys: &[Key {
            name: "router.trim_service",
            kind: KeyKind::Choice(&["strict", "exact"]),
            default: KeyDefault::Value("\"strict\""),
            about: "how the header queue goes first: \"strict\" places each header ahead of the waiting data when it arrives (one event per packet-hop); \"exact\" decides at each end of transmission, serving data once in every 100,001 services at which both queues wait, as htsim (N4)",
        }],
        counters: &["trimmed", "header_queue"],
        goldens: &[
            Golden { scenario: "ndp-in-out", variation: "short", overrides: &["duration=2ms", "measure.from=1ms", "measure.to=2ms"] },
            Golden {
                scenario: "ndp-in-out",
                variation: "exact-service",
                overrides: &["duration=2ms", "measure.from=1ms", "measure.to=2ms", "router.trim_service=\"exact\""],
            },
        ],
    }];
    type Spec = TrimService;
    const BYTES: bool = true;
    fn resolve(_: &str, cx: &ResolveCx) -> Result<TrimService, KeyError> {
        Ok(match cx.params.choice("router.trim_service", "strict") {
            "exact" => TrimService::Exact,
            _ => TrimService::Strict,
        })
    }
    /// `units`: the data queue's limit in bytes (a trimming port's buffer
    /// is always in bytes, `scenario/resolve/ports.rs`).
    fn build(_: TrimService, units: u64, cx: &PortContext) -> Self {
        TrimPolicy {
            limit_bytes: units,
            rng: stream(cx.seed, Stream::Port(cx.port)),
            trimmed: 0,
            header_drops: 0,
            over_limit_by_replacement: 0,
        }
    }
    #[inline]
    fn admit(&mut self, unit: &Unit, q: u64, _: Time, _: &Serializer) -> Action {
        self.decide(unit, q)
    }
    fn limit(&self) -> u64 {
        self.limit_bytes
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("trimmed", self.trimmed), ("header_queue", self.header_drops)]
    }
}

/// How a trimming port serves its header queue first (`router.trim_service`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimService {
    /// Each header placed ahead of the waiting data as it arrives
    /// (`net/trim_fifo.rs`): one event per packet-hop.
    Strict,
    /// The next packet chosen at each end of transmission, with htsim's
    /// 100,000 : 1 cycle (`net/trim.rs`, N4): two events per packet-hop.
    Exact,
}

#[derive(Clone, Debug)]
pub struct TrimPolicy {
    /// Data bytes the port may hold, the one in transmission included.
    pub limit_bytes: u64,
    rng: ChaCha8Rng,
    /// Packets trimmed here (arrivals and queued ones).
    pub trimmed: u64,
    /// Headers (trimmed packets and control packets) dropped because the
    /// header queue was full (N3).
    pub header_drops: u64,
    /// The most data bytes a replacement left held above the limit (0 if
    /// none did): N2 cuts the newest waiting packet and queues the arrival
    /// without testing the limit again (htsim `CompositeQueue::receivePacket`),
    /// so a short packet (an EQDS flow's last) giving its place to a full
    /// one leaves the queue over its limit, as htsim's. The accounting's
    /// check of queue limits allows this much (`world/finish.rs`).
    pub over_limit_by_replacement: u64,
}

impl TrimPolicy {
    /// A policy of `limit_bytes` drawing from a stream of `seed` (tests).
    #[cfg(test)]
    pub fn seeded(limit_bytes: u64, seed: u64) -> TrimPolicy {
        TrimPolicy {
            limit_bytes,
            rng: stream(seed, Stream::Port(crate::net::PortId(0))),
            trimmed: 0,
            header_drops: 0,
            over_limit_by_replacement: 0,
        }
    }

    /// The fate of a full data packet arriving to a data queue holding `q`
    /// bytes: admitted if it fits (N2: "the queued data bytes plus its size
    /// fit the limit"); otherwise one uniform draw trims the newest queued
    /// packet ([`Action::Trim`] with `newest`) or the arrival.
    #[inline]
    pub fn decide(&mut self, unit: &Unit, q: u64) -> Action {
        if q + unit.wire_bytes as u64 <= self.limit_bytes {
            return Action::Admit;
        }
        Action::Trim { newest: self.rng.gen_bool(0.5) }
    }

    /// The newest waiting packet gave its place to the arrival: the data
    /// queue now holds `q` bytes.
    pub fn replaced(&mut self, q: u64) {
        if q > self.limit_bytes {
            self.over_limit_by_replacement = self.over_limit_by_replacement.max(q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{PortId, VcId};

    #[test]
    fn a_packet_that_fits_is_admitted_and_one_that_does_not_is_a_coin() {
        let cx = PortContext { limit: crate::net::Limit::Bytes(72_000), num_vcs: 1, seed: 13, port: PortId(0), packet_time: 1 };
        let mut p = <TrimPolicy as Policy>::build(TrimService::Strict, 72_000, &cx);
        let pkt = Unit::new(VcId(0), 0, 0, 1, 9064);
        // htsim's q = 8 packets is 8 × 9,000 = 72,000 B: 6 queued and this
        // one fit (63,448 B), 7 and this one (72,512 B) do not.
        assert_eq!(p.decide(&pkt, 6 * 9064), Action::Admit);
        let mut newest = 0;
        for _ in 0..10_000 {
            match p.decide(&pkt, 7 * 9064) {
                Action::Trim { newest: true } => newest += 1,
                Action::Trim { newest: false } => {}
                other => panic!("{other:?}"),
            }
        }
        assert!((4_800..5_200).contains(&newest), "a fair coin: {newest} of 10,000");
    }
}
