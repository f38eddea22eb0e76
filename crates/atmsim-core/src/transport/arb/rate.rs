//! The three operating regions of ARB's sender (Chang, Huynh & Gray §2,
//! "algorithm to process a response" and "algorithm to handle time-out"):
//! - R1, the reported rate Rr is close to what the sender sent: keep the
//!   rate, and add Rinc when Rr has kept up while already in R1;
//! - R2, Rr is clearly (more than ΔR) below, or the receiver's
//!   queueing-accumulation rule fired: send at θ·Rr;
//! - R3, a reply timed out or the receiver reported a loss: halve the rate.
//!
//! A plain value: each call takes what happened and updates Rs.

use super::{ArbConfig, CompareWith, RR_UNIT};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    R1 = 1,
    R2 = 2,
    R3 = 3,
}

#[derive(Clone, Debug)]
pub struct RateControl {
    cfg: ArbConfig,
    /// The allowed sending rate Rs.
    pub rs: f64,
    /// The current additive increase step.
    pub rinc: f64,
    pub region: Region,
    /// The last rate the receiver reported (none before the first reply).
    pub last_rr: Option<f64>,
}

impl RateControl {
    pub fn new(cfg: &ArbConfig) -> Self {
        RateControl { cfg: *cfg, rs: cfg.r_init.clamp(cfg.r_min, cfg.rmax), rinc: cfg.rinc, region: Region::R1, last_rr: None }
    }

    /// Our choice: Rinc halves on R2 and falls to its minimum on R3 (the
    /// paper: "reduce Rinc if necessary", "reduce to minimum"), and doubles
    /// back on every increase; the minimum is a quarter of the configured step.
    fn rinc_min(&self) -> f64 {
        self.cfg.rinc / 4.0
    }

    /// A reply reports `rr` for a request sent when the sender had measured
    /// `ra` over the interval before it; `accumulated` is its ACCUM flag.
    ///
    /// An ACCUM reply forces the reduction whatever the ΔR band says: the
    /// accumulation rule exists for the case where Rr stays within ΔR of the
    /// sending rate, so that the sender holds while the queue builds [CHG §2:
    /// "when an accumulation of network delay is greater than the threshold,
    /// the sender will be forced to reduce the sending rate"]. Compared with
    /// ΔR only, the rule's Rr·(1 − A/Mr) cut the sender once A exceeded
    /// Mr·ΔR/Rr (2H packet times with the automatic ΔR), whatever its own
    /// threshold below that (issue 24). A forced reduction never raises Rs.
    pub fn on_reply(&mut self, rr: f64, ra: f64, accumulated: bool) {
        self.last_rr = Some(rr);
        let reference = match self.cfg.compare_with {
            CompareWith::Ra => ra,
            CompareWith::Rs => self.rs,
        };
        if accumulated || rr < reference - self.cfg.delta_r {
            let cut = self.cfg.theta * rr;
            let cut = if accumulated { cut.min(self.rs) } else { cut };
            self.rs = cut.clamp(self.cfg.r_min, self.cfg.rmax);
            self.region = Region::R2;
            if self.cfg.adaptive_rinc {
                self.rinc = (self.rinc / 2.0).max(self.rinc_min());
            }
            return;
        }
        // Rr equal to the reference up to the reply's resolution keeps up.
        if rr + RR_UNIT >= reference && self.region == Region::R1 {
            let raised = match self.cfg.compare_with {
                CompareWith::Ra => self.rs.max(ra + self.rinc),
                CompareWith::Rs => self.rs + self.rinc,
            };
            self.rs = raised.min(self.cfg.rmax);
            if self.cfg.adaptive_rinc {
                self.rinc = (2.0 * self.rinc).min(self.cfg.rinc);
            }
        }
        self.region = Region::R1;
    }

    /// No reply within Tout, or the receiver reported a loss: Rs becomes
    /// min(Rs/2, Rr) (the paper's pseudo-code; its prose: "cut by half").
    pub fn on_timeout_or_loss(&mut self, rr: Option<f64>) {
        if rr.is_some() {
            self.last_rr = rr;
        }
        let half = 0.5 * self.rs;
        let cut = self.last_rr.map_or(half, |r| half.min(r));
        self.rs = cut.clamp(self.cfg.r_min, self.cfg.rmax);
        self.region = Region::R3;
        if self.cfg.adaptive_rinc {
            self.rinc = self.rinc_min();
        }
    }

    /// The burst period Bt = Bs / Rs in seconds, with Bs one full packet.
    pub fn burst_period(&self) -> f64 {
        self.cfg.packet_bits() / self.rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::arb::test_config;

    #[test]
    fn increase_only_when_already_in_r1_and_rr_keeps_up() {
        let mut rc = RateControl::new(&test_config());
        rc.on_reply(4000.0, 4000.0, false);
        assert_eq!((rc.rs, rc.region), (4900.0, Region::R1));
        // Within ΔR below Ra: R1, no change.
        rc.on_reply(4500.0, 4900.0, false);
        assert_eq!((rc.rs, rc.region), (4900.0, Region::R1));
    }

    #[test]
    fn clearly_lower_rr_cuts_to_theta_rr_and_halves_rinc() {
        let mut rc = RateControl::new(&test_config());
        rc.rs = 20000.0;
        rc.on_reply(10000.0, 20000.0, false);
        assert_eq!(rc.region, Region::R2);
        assert!((rc.rs - 9500.0).abs() < 1e-9);
        assert_eq!(rc.rinc, 450.0);
        // Leaving R2 goes to R1 without an increase, the next reply increases.
        rc.on_reply(9500.0, 9500.0, false);
        assert_eq!((rc.rs, rc.region), (9500.0, Region::R1));
        rc.on_reply(9500.0, 9500.0, false);
        assert_eq!(rc.rs, 9950.0);
        assert_eq!(rc.rinc, 900.0, "doubled back, capped at the configured step");
    }

    #[test]
    fn timeout_halves_but_not_above_last_rr_and_not_below_rmin() {
        let mut rc = RateControl::new(&test_config());
        rc.rs = 16000.0;
        rc.on_timeout_or_loss(None);
        assert_eq!((rc.rs, rc.region, rc.rinc), (8000.0, Region::R3, 225.0));
        rc.on_timeout_or_loss(Some(3000.0));
        assert_eq!(rc.rs, 3000.0);
        for _ in 0..20 {
            rc.on_timeout_or_loss(None);
        }
        assert_eq!(rc.rs, 400.0);
    }

    #[test]
    fn prose_form_compares_with_rs_and_caps_at_rmax() {
        let mut cfg = test_config();
        cfg.compare_with = CompareWith::Rs;
        cfg.rmax = 5000.0;
        let mut rc = RateControl::new(&cfg);
        rc.on_reply(4000.0, 1000.0, false);
        assert_eq!(rc.rs, 4900.0);
        rc.on_reply(4900.0, 1000.0, false);
        assert_eq!(rc.rs, 5000.0);
        assert!((rc.burst_period() - 0.8).abs() < 1e-12);
    }

    #[test]
    fn accumulation_forces_r2_inside_the_band_and_never_raises() {
        let mut rc = RateControl::new(&test_config());
        rc.rs = 8000.0;
        // 5600 is within ΔR (4000) of Ra: a hold without the flag ...
        rc.on_reply(5600.0, 8000.0, false);
        assert_eq!((rc.rs, rc.region), (8000.0, Region::R1));
        // ... a cut to θ·Rr with it, Rinc halved as on any R2.
        rc.on_reply(5600.0, 8000.0, true);
        assert_eq!(rc.region, Region::R2);
        assert!((rc.rs - 5320.0).abs() < 1e-9);
        assert_eq!(rc.rinc, 450.0);
        // A flagged Rr above the current rate does not raise it.
        rc.on_reply(7000.0, 8000.0, true);
        assert_eq!((rc.rs, rc.region), (5320.0, Region::R2));
    }
}
