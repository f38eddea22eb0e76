//! `occupancy.percentiles = true`: each switch port's occupancy over time,
//! in units (packets on a packet network, cells on ATM), as a
//! time-weighted histogram: how long the port held exactly i units, for
//! each i up to the most it held. From it, per port, the most units held
//! and the occupancy percentiles p50, p90, p99 and p99.9, where the p-th
//! percentile is the smallest x such that the port held at most x units
//! for at least a fraction p of the run (docs/metrics.md).
//!
//! A service rather than a part of the port: a run without the key pays
//! nothing on its per-unit path, and the port's code is untouched. It
//! watches every offer (`World::offered`), after which the units a FIFO or
//! a strict trimming port holds are the newest entries of its pipe, each
//! with its departure known: an accepted unit leaves after every other (a
//! FIFO: its departure joins the end of the list), and any other change
//! (a header placed ahead of waiting data, a data packet trimmed or
//! evicted) is read back from the pipe. The departures still to come are
//! kept in order, so the histogram is brought up to date lazily, at the
//! next offer and at the end: exact to the picosecond, with no event and no
//! allocation per unit once the port has reached its largest occupancy.
//! Ports of other disciplines (per-VC, priority, the exact trimming
//! service) and host ports get no percentiles.

use super::super::service::{ServiceKind, Takes};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyKind, Mechanism, Networks};
use crate::net::port::{Discipline, Offer, Port};
use crate::net::{Limit, PortId, VcTable};
use crate::scenario::Model;
use crate::summary::{OccupancyUnits, PortSummary};
use crate::time::Time;
use std::collections::VecDeque;

/// The time-weighted histogram of one port's occupancy in units.
#[derive(Clone, Debug, Default)]
pub(crate) struct OccupancyHistogram {
    /// When the histogram was last brought up to date, and the units held
    /// since then.
    last: Time,
    level: usize,
    /// The departures after `last` of the units held, in order.
    pending: VecDeque<Time>,
    /// Picoseconds during which the port held exactly i units.
    time_at: Vec<Time>,
}

impl OccupancyHistogram {
    /// Brings the histogram up to `now`: each departure until then ends a
    /// stretch at the level before it.
    fn advance(&mut self, now: Time) {
        while let Some(&leaves) = self.pending.front() {
            if leaves > now {
                break;
            }
            self.stay_until(leaves);
            self.level -= 1;
            self.pending.pop_front();
        }
        self.stay_until(now);
    }

    fn stay_until(&mut self, t: Time) {
        if self.time_at.len() <= self.level {
            self.time_at.resize(self.level + 1, 0);
        }
        self.time_at[self.level] += t - self.last;
        self.last = t;
    }

    /// A unit joins at `now`, leaving at `leaves`, after every unit held.
    pub(crate) fn arrive(&mut self, now: Time, leaves: Time) {
        self.advance(now);
        debug_assert!(self.pending.back().is_none_or(|&b| b <= leaves));
        self.level += 1;
        self.pending.push_back(leaves);
    }

    /// At `now` the port holds the units leaving at `departures` (in order).
    pub(crate) fn held(&mut self, now: Time, departures: impl Iterator<Item = Time>) {
        self.advance(now);
        self.pending.clear();
        self.pending.extend(departures);
        self.level = self.pending.len();
    }

    /// The most units held at once, and the percentiles p50, p90, p99 and
    /// p99.9 over [0, `horizon`] (units still held then count until then).
    pub(crate) fn summary(&mut self, horizon: Time) -> OccupancyUnits {
        self.advance(horizon.max(self.last));
        let total: u128 = self.time_at.iter().map(|&t| t as u128).sum();
        // The smallest x held at most for at least per_mille/1000 of the time.
        let percentile = |per_mille: u128| {
            let mut below = 0u128;
            for (x, &t) in self.time_at.iter().enumerate() {
                below += t as u128;
                if 1000 * below >= per_mille * total {
                    return x as u64;
                }
            }
            self.time_at.len().saturating_sub(1) as u64
        };
        OccupancyUnits {
            occupancy_units_max: self.time_at.len().saturating_sub(1).max(self.level) as u64,
            occupancy_units_p50: percentile(500),
            occupancy_units_p90: percentile(900),
            occupancy_units_p99: percentile(990),
            occupancy_units_p999: percentile(999),
        }
    }
}

/// The histograms of every switch port with a FIFO or strict trimming
/// discipline (None for the others).
pub(in crate::world) struct PortOccupancy {
    ports: Vec<Option<OccupancyHistogram>>,
}

/// Units a port holds after an offer, if it keeps them as the newest
/// entries of its pipe.
fn units_held(port: &Port) -> Option<usize> {
    match &port.discipline {
        Discipline::Fifo(f) => Some(f.len()),
        Discipline::TrimFifo(t) => Some(t.len()),
        _ => None,
    }
}

impl PortOccupancy {
    /// What port `p` did with a unit offered at `now`.
    pub(in crate::world) fn offered(&mut self, p: PortId, port: &Port, now: Time, offer: &Offer) {
        let Some(h) = &mut self.ports[p.ix()] else { return };
        match *offer {
            Offer::Dropped(_) => {}
            Offer::Accepted { arrive_at, .. } => h.arrive(now, arrive_at - port.delay),
            _ => match units_held(port) {
                Some(held) => {
                    let pipe = &port.pipe;
                    h.held(now, pipe.iter_from(pipe.len() - held).map(|f| f.arrive_at - port.delay));
                }
                // A port that queues outside its pipe (per-VC, priority, exact trimming): none.
                None => self.ports[p.ix()] = None,
            },
        }
    }

    /// Each watched port's maximum and percentiles into its summary.
    pub(in crate::world) fn fill(&mut self, horizon: Time, ports: &mut [PortSummary]) {
        for (h, s) in self.ports.iter_mut().zip(ports) {
            if let Some(h) = h {
                s.occupancy_units = Some(h.summary(horizon));
            }
        }
    }
}

impl ServiceKind for PortOccupancy {
    const MECHANISM: Mechanism = Mechanism {
        name: "occupancy-percentiles",
        selected_by: "occupancy.percentiles",
        networks: Networks::Both,
        about: "per switch port (FIFO or strict trimming), the most units held and the time-weighted occupancy percentiles p50, p90, p99 and p99.9 in units",
        docs: "metrics.md",
        keys: &[Key {
            name: "occupancy.percentiles",
            kind: KeyKind::Bool,
            default: KeyDefault::Value("false"),
            about: "report each switch port's occupancy maximum and percentiles in units",
        }],
        counters: &["occupancy_units_max", "occupancy_units_p50", "occupancy_units_p90", "occupancy_units_p99", "occupancy_units_p999"],
        goldens: &[
            Golden {
                scenario: "ndp-in-out",
                variation: "occupancy-percentiles",
                overrides: &["occupancy.percentiles=true", "duration=20ms", "measure.from=10ms", "measure.to=20ms"],
            },
            Golden { scenario: "aron97-topo1-packet", variation: "occupancy-percentiles", overrides: &["occupancy.percentiles=true", "duration=3s"] },
        ],
    };

    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        model.params.bool("occupancy.percentiles", false).then(|| PortOccupancy {
            ports: model.ports.iter().map(|p| (p.limit != Limit::Unlimited && !model.is_host[p.from.ix()]).then(OccupancyHistogram::default)).collect(),
        })
    }

    fn takes(&self) -> Takes {
        // Every offer goes the general way, past `World::offered`.
        Takes { at_port: true, watching: true, ..Takes::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_weighs_each_level_by_its_time() {
        // Two units at 0 leaving at 3 and 6, one at 10 leaving at 13; over [0, 20]:
        // 2 units for 3, 1 for 3, 0 for 4, 1 for 3, 0 for 7.
        let mut h = OccupancyHistogram::default();
        h.arrive(0, 3);
        h.arrive(0, 6);
        h.arrive(10, 13);
        let s = h.summary(20);
        assert_eq!(h.time_at, [11, 6, 3]);
        assert_eq!(s.occupancy_units_max, 2);
        // At most 0 units 55 % of the time, at most 1 for 85 %, at most 2 always.
        assert_eq!((s.occupancy_units_p50, s.occupancy_units_p90, s.occupancy_units_p99, s.occupancy_units_p999), (0, 2, 2, 2));
        let mut h = OccupancyHistogram::default();
        h.arrive(0, 3);
        h.arrive(0, 6);
        h.arrive(10, 13);
        // Over [0, 10]: 0 units for 4, 1 for 3, 2 for 3: at most 0 for 40 %, at most 1 for 70 %.
        assert_eq!(h.summary(10).occupancy_units_p50, 1);
    }

    #[test]
    fn units_still_held_at_the_end_count_until_then() {
        let mut h = OccupancyHistogram::default();
        h.arrive(0, 100);
        h.held(0, [100, 200].into_iter());
        let s = h.summary(50);
        assert_eq!((s.occupancy_units_max, s.occupancy_units_p50), (2, 2));
        assert_eq!(h.time_at, [0, 0, 50]);
    }

    /// The histogram against a scan: random arrivals at a FIFO of one unit
    /// per `tx` ps, the time at each level counted picosecond by
    /// picosecond from the arrival and departure instants.
    #[test]
    fn the_histogram_is_the_count_of_every_instant() {
        let (mut h, mut x, tx) = (OccupancyHistogram::default(), 7u64, 5u64);
        let (mut now, mut free_at) = (0u64, 0u64);
        let mut stays = Vec::new();
        for _ in 0..2_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            now += (x >> 59) % 9;
            free_at = free_at.max(now) + tx;
            h.arrive(now, free_at);
            stays.push((now, free_at));
        }
        let horizon = now + 3;
        h.summary(horizon);
        let mut scan = vec![0u64; h.time_at.len()];
        for t in 0..horizon {
            scan[stays.iter().filter(|&&(a, d)| a <= t && t < d).count()] += 1;
        }
        assert_eq!(h.time_at, scan);
    }
}
