//! Simulated time and link rates.
//!
//! Time is an integer count of picoseconds (`Time`), so that event order never
//! depends on floating-point rounding. A rate is kept as an exact rational
//! (`bits` per `ps` picoseconds): 141.33 Mb/s is 14133 bits per 10^8 ps, and the
//! Aron & Druschel bottleneck "3 µs per 53-byte cell" is 424 bits per 3·10^6 ps.
//! A [`Serializer`] accumulates transmission times in the scaled unit
//! `ps × bits`, so the k-th back-to-back unit ends exactly at
//! `ceil(k · size · ps / bits)` from the start of the busy period: no drift
//! however many cells are sent (e.g. 3 µs per cell at 141.33 Mb/s, Aron & Druschel §4).

/// Simulated time in picoseconds.
pub type Time = u64;

pub const PS_PER_US: Time = 1_000_000;
pub const PS_PER_MS: Time = 1_000_000_000;
pub const PS_PER_S: Time = 1_000_000_000_000;

/// Seconds as `f64`, for reports only (never for event ordering).
pub fn secs(t: Time) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// A link rate: `bits` transmitted every `ps` picoseconds (kept reduced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub bits: u64,
    pub ps: u64,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Rate {
    /// `bits` per `ps` picoseconds, reduced; `None` if either is zero or the
    /// reduced terms do not fit in 64 bits.
    pub fn new(bits: u128, ps: u128) -> Option<Rate> {
        if bits == 0 || ps == 0 {
            return None;
        }
        let g = gcd(bits, ps);
        let (b, p) = (bits / g, ps / g);
        Some(Rate { bits: u64::try_from(b).ok()?, ps: u64::try_from(p).ok()? })
    }

    pub fn bits_per_second(&self) -> f64 {
        self.bits as f64 * PS_PER_S as f64 / self.ps as f64
    }

    /// Exact (rounded-up) time to send `bytes` starting from an idle line.
    pub fn tx_time(&self, bytes: u64) -> Time {
        let num = bytes as u128 * 8 * self.ps as u128;
        num.div_ceil(self.bits as u128) as Time
    }

    /// Whole bytes the line can carry in `t` (for normalisers such as U_max).
    pub fn bytes_in(&self, t: Time) -> f64 {
        t as f64 * self.bits as f64 / self.ps as f64 / 8.0
    }
}

/// The transmitter of one output port: when its line becomes free.
///
/// `busy_scaled` is the end of the current busy period in units of
/// `1 / rate.bits` picoseconds, so back-to-back transmissions add exact
/// integers and never accumulate rounding error.
#[derive(Clone, Debug)]
pub struct Serializer {
    rate: Rate,
    busy_scaled: u128,
    /// `busy_scaled` in picoseconds, rounded up: kept so that asking when
    /// the line is free costs no division (it is asked for every unit).
    free_at: Time,
}

/// ⌈n / d⌉, with the hardware's 64-bit division whenever both fit (the
/// common case: ten simulated seconds at OC-3 scale to about 10^17), and
/// the exact 128-bit one otherwise. Same result either way.
#[inline]
fn div_ceil_u128(n: u128, d: u128) -> u128 {
    if n <= u64::MAX as u128 && d <= u64::MAX as u128 {
        (n as u64).div_ceil(d as u64) as u128
    } else {
        n.div_ceil(d)
    }
}

impl Serializer {
    pub fn new(rate: Rate) -> Self {
        Serializer { rate, busy_scaled: 0, free_at: 0 }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Time the line becomes idle (rounded up to the next picosecond).
    #[inline]
    pub fn free_at(&self) -> Time {
        self.free_at
    }

    /// Starts sending `bytes` at `now` or, if the line is busy, right after the
    /// current unit; returns the time its last bit leaves.
    #[inline]
    pub fn send(&mut self, now: Time, bytes: u64) -> Time {
        let now_scaled = now as u128 * self.rate.bits as u128;
        if now_scaled > self.busy_scaled {
            self.busy_scaled = now_scaled;
        }
        self.busy_scaled += bytes as u128 * 8 * self.rate.ps as u128;
        self.free_at = div_ceil_u128(self.busy_scaled, self.rate.bits as u128) as Time;
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_microsecond_cells_do_not_drift_over_1e8_cells() {
        let rate = Rate::new(424, 3 * PS_PER_US as u128).unwrap();
        let mut s = Serializer::new(rate);
        let mut end = 0;
        for _ in 0..100_000_000u64 {
            end = s.send(0, 53);
        }
        assert_eq!(end, 100_000_000 * 3 * PS_PER_US);
    }

    #[test]
    fn non_integral_cell_time_is_exact_at_the_kth_slot() {
        // OC-3 cell rate: 149.76 Mb/s payload container, 2.8312... µs per cell.
        let rate = Rate::new(149_760_000, PS_PER_S as u128).unwrap();
        let mut s = Serializer::new(rate);
        let k: u128 = 100_000_000;
        let mut end = 0;
        for _ in 0..k {
            end = s.send(0, 53);
        }
        let exact = (k * 424 * PS_PER_S as u128).div_ceil(149_760_000) as u64;
        assert_eq!(end, exact);
    }

    #[test]
    fn idle_line_restarts_at_now() {
        let rate = Rate::new(424, 3 * PS_PER_US as u128).unwrap();
        let mut s = Serializer::new(rate);
        assert_eq!(s.send(0, 53), 3 * PS_PER_US);
        assert_eq!(s.send(10 * PS_PER_US, 53), 13 * PS_PER_US);
        assert_eq!(s.send(11 * PS_PER_US, 53), 16 * PS_PER_US);
    }

    #[test]
    fn fast_and_wide_division_agree() {
        for &(n, d) in &[(0u128, 1u128), (7, 3), (u64::MAX as u128, 3), (u64::MAX as u128 + 1, 3), (1 << 100, 14133), (10, u64::MAX as u128 + 5)] {
            assert_eq!(div_ceil_u128(n, d), n.div_ceil(d), "{n} / {d}");
        }
    }

    #[test]
    fn rate_is_reduced_and_rejects_zero() {
        assert_eq!(Rate::new(14_133_000_000, 100 * PS_PER_S as u128).unwrap().bits, 14133);
        assert!(Rate::new(0, 5).is_none());
    }
}
