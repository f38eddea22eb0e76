//! The threshold of ARB's queueing-accumulation rule (`receiver.rs`): how
//! much queueing A = d − d_min a request may meet before the receiver forces
//! its sender down. [CHG §2] gives the rule in words only ("when an
//! accumulation of network delay is greater than the threshold, the sender
//! will be forced to reduce the sending rate"); the one number is in §3.3:
//! "when the queue length is greater than 3 packets, senders detect this
//! pre-congestion signal and cut back their rate". Two readings of `k_acc`
//! (3), selected by `arb.accumulation` (docs/arb.md §2):
//!
//! - `queue`: k_acc packets of the bottleneck's queue, i.e. k_acc packet
//!   times at the bottleneck's service rate. The receiver cannot count a
//!   queue, only time it; the bottleneck's rate is the slowest line of the
//!   connection's data route, which the simulator knows from the route (a
//!   modelling choice: [CHG] do not say how a receiver would learn it; a real
//!   one would be configured or probe it);
//! - `own-rate`: k_acc packet times at the connection's own measured rate
//!   Rr, the reading before issue 37. With N connections at a fair share of
//!   the line it lets the queue reach about k_acc·N packets before a cut, and
//!   equals the `queue` reading only when one connection has the whole line.

/// Which quantity `k_acc` counts in packet times of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Accumulation {
    /// Packets of the bottleneck's queue: packet times at `bottleneck_bps`.
    Queue { bottleneck_bps: f64 },
    /// Packet times at the connection's own measured rate.
    OwnRate,
}

impl Accumulation {
    /// The names `arb.accumulation` takes, in the order error messages list them.
    pub const NAMES: [&'static str; 2] = ["queue", "own-rate"];

    /// The reading named `name` for a connection whose slowest line runs at
    /// `bottleneck_bps`; None for a name not in [`Self::NAMES`].
    pub fn named(name: &str, bottleneck_bps: f64) -> Option<Self> {
        match name {
            "queue" => Some(Accumulation::Queue { bottleneck_bps }),
            "own-rate" => Some(Accumulation::OwnRate),
            _ => None,
        }
    }

    /// The queueing delay (seconds) above which the receiver forces a cut:
    /// `k_acc` packets of `packet_bits` at the reading's rate, `rr` being the
    /// connection's measured rate (b/s, positive).
    pub fn threshold(self, k_acc: f64, packet_bits: f64, rr: f64) -> f64 {
        let rate = match self {
            Accumulation::Queue { bottleneck_bps } => bottleneck_bps,
            Accumulation::OwnRate => rr,
        };
        k_acc * packet_bits / rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The efficiency runs of [CHG §3]: 500-byte packets (4000 bits) on a
    // 50 kb/s line, a packet time of 80 ms.
    const PACKET: f64 = 4000.0;
    const LINE: f64 = 50e3;

    #[test]
    fn the_queue_reading_is_k_packets_of_the_bottleneck_whatever_the_connections_rate() {
        let q = Accumulation::named("queue", LINE).unwrap();
        // Three packets of 80 ms, for a connection at a third of the line, at the whole line, or starved.
        for rr in [LINE / 3.0, LINE, 400.0] {
            assert!((q.threshold(3.0, PACKET, rr) - 0.24).abs() < 1e-12, "rr = {rr}");
        }
        // On the fairness topology's 800 kb/s gateway, 1000-byte packets: 3 x 10 ms.
        let q = Accumulation::named("queue", 800e3).unwrap();
        assert!((q.threshold(3.0, 8000.0, 160e3) - 0.03).abs() < 1e-12);
    }

    #[test]
    fn the_own_rate_reading_scales_with_the_connections_rate() {
        let own = Accumulation::named("own-rate", LINE).unwrap();
        // A third of the line: 3 packet times at 16.7 kb/s = 0.72 s, nine packets of the line's queue.
        assert!((own.threshold(3.0, PACKET, LINE / 3.0) - 0.72).abs() < 1e-12);
        // The whole line: the two readings agree.
        let q = Accumulation::named("queue", LINE).unwrap();
        assert_eq!(own.threshold(3.0, PACKET, LINE), q.threshold(3.0, PACKET, LINE));
        // Half the line: twice the queue reading.
        assert!((own.threshold(3.0, PACKET, LINE / 2.0) - 2.0 * q.threshold(3.0, PACKET, LINE / 2.0)).abs() < 1e-12);
    }

    #[test]
    fn only_the_listed_names_are_readings() {
        for name in Accumulation::NAMES {
            assert!(Accumulation::named(name, LINE).is_some(), "{name}");
        }
        for name in ["Queue", "own_rate", "ownrate", ""] {
            assert_eq!(Accumulation::named(name, LINE), None, "{name:?}");
        }
    }
}
