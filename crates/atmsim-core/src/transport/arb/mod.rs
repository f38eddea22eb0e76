//! ARB, the Adaptive Rate-Based transport of Chang, Huynh & Gray ("Adaptive
//! rate-based congestion control versus TCP-SS", §2): a sender that paces
//! one burst of Bs bits every Bt = Bs/Rs, marks a data packet as a rate
//! request every measurement interval M, and adapts Rs to the rate Rr that
//! the receiver reports back (additive increase Rinc, reduction to θ·Rr,
//! halving on a timeout or a loss). The paper's reference [7], which holds
//! the details, was never published; every rule the paper does not state is
//! marked "our choice" here and in `docs/arb.md`.
//!
//! | file | what |
//! | --- | --- |
//! | `rate.rs` | the three operating regions: a plain value fed with replies, timeouts and losses |
//! | `sender.rs` | pacing, requests, outstanding-request timeouts, go-back on a NAK |
//! | `receiver.rs` | in-order delivery, the measured rate Rr, queueing-accumulation detection, NAKs |
//! | `accumulation.rs` | the accumulation rule's threshold under its two readings (`arb.accumulation`) |
//!
//!
//! Its two packets are headers of their own in the frame record
//! (`base::ArbData`, `base::ArbReply`, variants of `FrameHeader`).

pub mod accumulation;
pub mod rate;
pub mod receiver;
pub mod sender;

pub use crate::base::{ArbData, ArbReply};
pub use accumulation::Accumulation;
pub use rate::{RateControl, Region};
pub use receiver::ArbReceiver;
pub use sender::ArbSender;

use crate::time::Time;

/// Resolution of the rate field of a reply: 0.001 b/s. Comparisons of
/// Rr with Ra forgive this rounding (a receiver that saw exactly what was
/// sent reports Rr = Ra).
pub const RR_UNIT: f64 = 1e-3;

impl ArbReply {
    /// Rr in bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rr as f64 * RR_UNIT
    }
}

/// ARB header flags, beside TCP's SYN and ACK bits (`net::flags`).
pub mod flags {
    /// A data packet that asks the receiver for its rate.
    pub const REQUEST: u8 = 1 << 4;
    /// A rate reply (or NAK) from the receiver.
    pub const REPLY: u8 = 1 << 5;
    /// The receiver has a gap: data from `seq` on is missing.
    pub const LOSS: u8 = 1 << 6;
    /// The queueing accumulated along the path exceeds the receiver's
    /// threshold: the sender must reduce its rate (R2) even when Rr is
    /// within ΔR of Ra (`receiver.rs`, issue 24).
    pub const ACCUM: u8 = 1 << 7;
}

/// Which rate the reply is compared with (the paper's pseudo-code uses the
/// measured Ra, its prose the allowed Rs; they agree for a greedy sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareWith {
    Ra,
    Rs,
}

/// One ARB connection's parameters, resolved (rates in bits per second of
/// packets on the wire, headers included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArbConfig {
    /// Payload bytes of a full data packet.
    pub payload: u32,
    /// Header bytes of every packet (a reply is a header alone).
    pub header_bytes: u32,
    /// Additive increase step Rinc (its maximum when adaptive).
    pub rinc: f64,
    /// Reduction factor θ applied to Rr in region R2.
    pub theta: f64,
    /// Sensitivity threshold ΔR.
    pub delta_r: f64,
    /// Measurement interval M between rate requests.
    pub interval: Time,
    /// Time to wait for the reply to a request (Tout).
    pub timeout: Time,
    /// Highest allowed rate (the access link's by default).
    pub rmax: f64,
    /// Initial rate.
    pub r_init: f64,
    /// Lowest allowed rate: keeps a sender alive after repeated halvings.
    pub r_min: f64,
    /// Halve Rinc on R2 (down to Rinc/4), reset it on R3, double it back on increases.
    pub adaptive_rinc: bool,
    pub compare_with: CompareWith,
    /// Queueing-accumulation threshold, in packet times of the rate `accumulation` names.
    pub k_acc: f64,
    /// Which rate `k_acc` counts packet times at (`accumulation.rs`).
    pub accumulation: Accumulation,
}

impl ArbConfig {
    /// Bits of a full data packet on the wire: the burst size Bs (one packet).
    pub fn packet_bits(&self) -> f64 {
        8.0 * (self.payload + self.header_bytes) as f64
    }
}

/// Picoseconds in `seconds` (rounded): pacing intervals from rates.
pub(crate) fn ps(seconds: f64) -> Time {
    (seconds * 1e12).round() as Time
}

#[cfg(test)]
pub(crate) fn test_config() -> ArbConfig {
    use crate::time::PS_PER_MS;
    ArbConfig {
        payload: 450,
        header_bytes: 50,
        rinc: 900.0,
        theta: 0.95,
        delta_r: 4000.0,
        interval: 2000 * PS_PER_MS,
        timeout: 8000 * PS_PER_MS,
        rmax: 10e6,
        r_init: 4000.0,
        r_min: 400.0,
        adaptive_rinc: true,
        compare_with: CompareWith::Ra,
        k_acc: 3.0,
        accumulation: Accumulation::OwnRate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;

    const S: Time = 1000 * PS_PER_MS;

    /// Issue 24: a standing queue above the accumulation threshold must cut
    /// the sender even when the lowered Rr stays within ΔR of Ra (the hold
    /// band of R1 the rule exists to break: "the sender will be forced to
    /// reduce the sending rate", [CHG §2]). Sender at 8 kb/s (a 4000-bit
    /// packet every 0.5 s), M = 2 s, ΔR = 4 kb/s, k_acc = 1 (0.5 s at 8 kb/s);
    /// the first packet meets an empty path (0.1 s), every later one a
    /// standing 0.6 s of queueing, replies take 50 ms. The second request
    /// measures Rr = Ra = 8 kb/s over an interval of constant delay with
    /// A = 0.6 s above the threshold: the reply reports 8000 (1 - 0.6/2) =
    /// 5600 b/s, inside the band [Ra - ΔR, Ra), yet the sender must go to R2.
    #[test]
    fn accumulation_above_threshold_cuts_the_sender_inside_the_hold_band() {
        let mut cfg = test_config();
        cfg.k_acc = 1.0;
        let mut s = ArbSender::new(&cfg, None, 0);
        s.rc.rs = 8000.0;
        let mut r = ArbReceiver::new(&cfg);
        let mut replies: Vec<(Time, ArbReply)> = Vec::new();
        let mut after: Vec<(u32, Region, f64)> = Vec::new();
        for k in 0..=10u64 {
            let t = k * S / 2;
            replies.sort_by_key(|(at, _)| *at);
            while replies.first().is_some_and(|(at, _)| *at <= t) {
                let (at, rep) = replies.remove(0);
                s.on_reply(at, &rep);
                after.push((rep.request, s.rc.region, s.rc.rs));
            }
            // Every 0.5 s while the rate is 8 kb/s (the last wake, after
            // the cut, finds no burst due).
            let Some(seg) = s.on_wake(t) else { break };
            let delay = if k == 0 { S / 10 } else { 7 * S / 10 };
            if let Some(rep) = r.on_data(t + delay, &seg) {
                replies.push((t + delay + S / 20, rep));
            }
        }
        // Request 1 (sent at 2 s) meets the growing delay: no accumulation
        // cut (A = 0.6 s < 1 packet time at 6154 b/s), a hold.
        assert_eq!(after[0], (1, Region::R1, 8000.0));
        // Request 2 (sent at 4 s): A = 0.6 s > 0.5 s, reported 5600 b/s.
        assert_eq!(after[1].0, 2);
        assert_eq!(after[1].1, Region::R2, "accumulation above the threshold forces a cut");
        assert!((after[1].2 - 0.95 * 5600.0).abs() < 1e-6, "Rs = θ·Rr, got {}", after[1].2);
    }
}
