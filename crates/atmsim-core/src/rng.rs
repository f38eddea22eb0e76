//! Random streams handed out from the run's seed.
//!
//! Each random mechanism draws from its own stream, named by what owns it
//! (the hosts' timer phases, one port, one host, one flow), so adding a new
//! random mechanism never changes the draws of an existing one. All streams
//! are ChaCha8 keyed by the seed and told apart by ChaCha's stream number;
//! the timer phases use stream 0, which is the plain `seed_from_u64(seed)`
//! generator earlier versions drew them from, so their draws are unchanged.

use crate::base::{FlowId, HostId, PortId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Who owns a random stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Every host's coarse-timer phase, drawn in host order.
    TimerPhases,
    /// A port's own mechanism (random drop, RED).
    Port(PortId),
    /// A host's own mechanism (random processing time).
    Host(HostId),
    /// A flow's own mechanism (on/off source periods).
    Flow(FlowId),
    /// A flow's receiving end (NDP's sink spraying its ACKs).
    FlowReceiver(FlowId),
    /// Every switch's hash salt, drawn in node order (EQDS's ECMP, E10, and
    /// per-flow ECMP).
    SwitchSalts,
    /// A generated traffic matrix (`[workload]`'s permutation).
    Workload,
}

impl Stream {
    fn number(self) -> u64 {
        match self {
            Stream::TimerPhases => 0,
            Stream::Port(p) => 1 << 32 | p.0 as u64,
            Stream::Host(h) => 2 << 32 | h.0 as u64,
            Stream::Flow(f) => 3 << 32 | f.0 as u64,
            Stream::FlowReceiver(f) => 4 << 32 | f.0 as u64,
            Stream::SwitchSalts => 5 << 32,
            Stream::Workload => 6 << 32,
        }
    }
}

/// The generator of `stream` for a run with `seed`.
pub fn stream(seed: u64, stream: Stream) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream.number());
    rng
}

/// One hash salt per node of the run, drawn in node order from
/// [`Stream::SwitchSalts`] (only switches hash: EQDS's entropies, E10, and
/// ECMP's choice of one route per flow).
pub fn switch_salts(seed: u64, nodes: usize) -> Vec<u64> {
    use rand::Rng;
    let mut rng = stream(seed, Stream::SwitchSalts);
    (0..nodes).map(|_| rng.gen()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn draws(mut r: ChaCha8Rng) -> Vec<u64> {
        (0..8).map(|_| r.gen_range(0..1_000_000_000)).collect()
    }

    #[test]
    fn timer_phases_are_the_plain_seeded_generator() {
        assert_eq!(draws(stream(7, Stream::TimerPhases)), draws(ChaCha8Rng::seed_from_u64(7)));
    }

    #[test]
    fn streams_are_independent_of_each_other_and_of_the_seed() {
        let all = [
            draws(stream(7, Stream::TimerPhases)),
            draws(stream(7, Stream::Port(PortId(0)))),
            draws(stream(7, Stream::Port(PortId(1)))),
            draws(stream(7, Stream::Host(HostId(0)))),
            draws(stream(7, Stream::Flow(FlowId(0)))),
            draws(stream(8, Stream::Port(PortId(0)))),
        ];
        for i in 0..all.len() {
            for j in 0..i {
                assert_ne!(all[i], all[j], "streams {i} and {j}");
            }
        }
        assert_eq!(draws(stream(7, Stream::Port(PortId(1)))), all[2], "a stream is a pure function of seed and owner");
    }
}
