//! The BSD round-trip estimator and retransmission timer value
//! (4.4BSD-Lite `tcp_input.c` `tcp_xmit_timer`, `tcp_timer.c`; Jacobson
//! 1988; Karn & Partridge 1987).
//!
//! Time is counted in coarse ticks. One segment is timed at a time: `t_rtt`
//! is 0 when nothing is timed, else 1 + the ticks elapsed since the timed
//! segment (`t_rtseq`) was sent. Karn's rule is the caller's: `t_rtt` is
//! zeroed on timeout and fast retransmit, so retransmitted data never gives
//! a sample.
//!
//! `srtt` is kept ×8 and `rttvar` ×4 as in BSD; with Brakmo & Peterson's
//! 1995 fixes (Aron & Druschel's "Lite.4") both keep `extra_bits` = 2 more
//! fraction bits and the RTO is floored at the last sample + 2 ticks.

/// Backoff multipliers of BSD `tcp_backoff[]`.
pub const BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];
pub const MAX_RXTSHIFT: u32 = 12;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Ticks since the timed segment was sent, plus one; 0 = none timed.
    pub t_rtt: u32,
    pub t_rtseq: u64,
    /// Smoothed RTT in ticks × 2^(3 + extra_bits); 0 = no estimate yet.
    pub srtt: i64,
    /// Mean deviation in ticks × 2^(2 + extra_bits).
    pub rttvar: i64,
    pub extra_bits: u32,
    /// Lower bound of the RTO, ticks (TCPTV_MIN = 2).
    pub rttmin: u32,
    /// Upper bound of the RTO, ticks (TCPTV_REXMTMAX = 128).
    pub rxtmax: u32,
    /// Brakmo–Peterson: floor the RTO at the last sample + 2 ticks.
    pub floor_at_sample: bool,
    pub last_sample: u32,
    /// Current retransmission timeout in ticks (`t_rxtcur`).
    pub rxtcur: u32,
}

impl RttEstimator {
    pub fn new(bp95: bool, rttmin: u32, rxtmax: u32) -> Self {
        let extra_bits = if bp95 { 2 } else { 0 };
        RttEstimator {
            t_rtt: 0,
            t_rtseq: 0,
            srtt: 0,
            // TCPTV_SRTTDFLT (3 s = 6 ticks) << 2.
            rttvar: 24 << extra_bits,
            extra_bits,
            rttmin,
            rxtmax,
            floor_at_sample: bp95,
            last_sample: 0,
            // ((0 >> 2) + (6 << 2)) >> 1 = 12 ticks (6 s), `tcp_newtcpcb`.
            rxtcur: 12u32.clamp(rttmin, rxtmax),
        }
    }

    /// `TCP_REXMTVAL`: srtt + 4 × rttvar, in ticks.
    pub fn rexmtval(&self) -> u32 {
        (((self.srtt >> 3) + self.rttvar) >> self.extra_bits).max(0) as u32
    }

    fn floor(&self) -> u32 {
        if self.floor_at_sample && self.last_sample > 0 {
            self.rttmin.max(self.last_sample + 2)
        } else {
            self.rttmin
        }
    }

    /// `TCPT_RANGESET` with the lower bound of this profile.
    pub fn range(&self, v: u32) -> u32 {
        v.clamp(self.floor(), self.rxtmax.max(self.floor()))
    }

    /// A valid sample of `rtt` ticks (the value of `t_rtt`, ≥ 1).
    pub fn sample(&mut self, rtt: u32) {
        let x = self.extra_bits;
        let rtt = rtt.max(1) as i64;
        if self.srtt != 0 {
            let mut delta = ((rtt - 1) << x) - (self.srtt >> 3);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.rttvar >> 2;
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            // First sample: srtt = rtt, variance = rtt / 2 (BSD: rtt << 3, rtt << 1).
            self.srtt = rtt << (3 + x);
            self.rttvar = rtt << (1 + x);
        }
        self.t_rtt = 0;
        self.last_sample = rtt as u32;
        self.rxtcur = self.range(self.rexmtval());
    }

    /// The timer value after `shift` consecutive timeouts.
    pub fn backed_off(&self, shift: u32) -> u32 {
        self.range(self.rexmtval() * BACKOFF[shift.min(MAX_RXTSHIFT) as usize])
    }

    /// After the fourth consecutive timeout BSD distrusts the estimate: it
    /// folds srtt into rttvar and forgets srtt (`tcp_timers`).
    pub fn forget_after_backoff(&mut self) {
        self.rttvar += self.srtt >> 3;
        self.srtt = 0;
    }

    /// Smoothed RTT in ticks (for reports).
    pub fn srtt_ticks(&self) -> f64 {
        self.srtt as f64 / (1u64 << (3 + self.extra_bits)) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_rto_is_six_seconds() {
        let e = RttEstimator::new(false, 2, 128);
        assert_eq!(e.rxtcur, 12);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(false, 2, 128);
        e.sample(2);
        assert_eq!(e.srtt, 16);
        assert_eq!(e.rttvar, 4);
        // srtt + 4·rttvar = 2 + 4 = 6 ticks.
        assert_eq!(e.rxtcur, 6);
    }

    #[test]
    fn bsd_update_gains() {
        let mut e = RttEstimator::new(false, 2, 128);
        e.sample(5); // srtt 40, rttvar 10
        e.sample(1); // delta = 0 - 5 = -5 -> srtt 35; |delta| - 2 = 3 -> rttvar 13
        assert_eq!(e.srtt, 35);
        assert_eq!(e.rttvar, 13);
        assert_eq!(e.rexmtval(), 4 + 13);
    }

    #[test]
    fn rto_clamped_to_min_and_max() {
        let mut e = RttEstimator::new(false, 2, 128);
        for _ in 0..40 {
            e.sample(1);
        }
        // BSD's integer rttvar settles at 3 (3 >> 2 == 0): a 3-tick RTO.
        assert_eq!(e.rxtcur, 3);
        assert_eq!(e.range(0), 2);
        e.sample(200);
        assert_eq!(e.rxtcur, 128);
    }

    #[test]
    fn backoff_doubles_and_saturates_at_64x_and_max() {
        let mut e = RttEstimator::new(false, 2, 128);
        e.sample(1);
        e.sample(1);
        let base = e.rexmtval();
        assert_eq!(e.backed_off(1), (base * 2).max(2));
        assert_eq!(e.backed_off(2), (base * 4).max(2));
        assert_eq!(e.backed_off(12), (base * 64).clamp(2, 128));
    }

    #[test]
    fn bp95_floors_rto_at_sample_plus_two() {
        let mut e = RttEstimator::new(true, 2, 128);
        for _ in 0..50 {
            e.sample(3);
        }
        assert!(e.rxtcur >= 5, "{}", e.rxtcur);
        assert!((e.srtt_ticks() - 2.0).abs() < 0.3, "{}", e.srtt_ticks());
    }
}
