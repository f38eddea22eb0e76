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
/// The exact end of the busy period is `free_at - slack / rate.bits`
/// picoseconds (`0 <= slack < rate.bits`): `free_at` rounded up to the next
/// picosecond, and the part of a picosecond it overshoots kept exactly, in
/// units of `1 / rate.bits` ps. Back-to-back transmissions add whole
/// picoseconds and carry the remainder, so they never accumulate rounding
/// error and a send costs additions only (the quotient and remainder of the
/// last size sent are kept: a cell line sends one size).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Serializer {
    free_at: Time,
    slack: u64,
    /// `last_bytes · 8 · rate.ps = last_q · rate.bits + last_r`.
    last_bytes: u64,
    last_q: u64,
    last_r: u64,
    /// Read only when the size of the unit changes.
    rate: Rate,
}

impl Serializer {
    pub fn new(rate: Rate) -> Self {
        Serializer { rate, free_at: 0, slack: 0, last_bytes: 0, last_q: 0, last_r: 0 }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The same line at another rate from its current end on: the next
    /// unit starts no sooner than the one under way ends (to the whole
    /// picosecond) and takes the new rate's time.
    pub fn at_rate(&self, rate: Rate) -> Serializer {
        Serializer { free_at: self.free_at, ..Serializer::new(rate) }
    }

    /// Time the line becomes idle (rounded up to the next picosecond).
    #[inline]
    pub fn free_at(&self) -> Time {
        self.free_at
    }

    /// The transmission time of `bytes`: whole picoseconds and the
    /// remainder in `1 / rate.bits` ps.
    #[inline]
    fn tx(&mut self, bytes: u64) -> (u64, u64) {
        if bytes != self.last_bytes {
            let scaled = bytes as u128 * 8 * self.rate.ps as u128;
            let bits = self.rate.bits as u128;
            self.last_bytes = bytes;
            self.last_q = (scaled / bits) as u64;
            self.last_r = (scaled % bits) as u64;
        }
        (self.last_q, self.last_r)
    }

    /// Takes back a queued unit of `bytes` that has not started: every
    /// later unit (and the end of the busy period) moves up by its
    /// transmission time, which it returns (exact on lines whose rate
    /// divides into whole picoseconds per bit; else truncated by < 1 ps).
    pub fn unsend(&mut self, bytes: u64) -> Time {
        let (q, r) = self.tx(bytes);
        // New exact end: free_at - q - (slack + r) / bits.
        let t = self.slack + r;
        if t >= self.rate.bits {
            self.free_at -= q + 1;
            self.slack = t - self.rate.bits;
        } else {
            self.free_at -= q;
            self.slack = t;
        }
        q
    }

    /// Starts sending `bytes` at `now` or, if the line is busy, right after the
    /// current unit; returns the time its last bit leaves.
    #[inline]
    pub fn send(&mut self, now: Time, bytes: u64) -> Time {
        // The line is idle iff the exact end is at or before `now`, i.e.
        // (slack < bits) iff `now >= free_at`.
        if now >= self.free_at {
            self.free_at = now;
            self.slack = 0;
        }
        let (q, r) = self.tx(bytes);
        // New exact end: free_at + q + (r - slack) / bits.
        if r > self.slack {
            self.free_at += q + 1;
            self.slack = self.rate.bits - (r - self.slack);
        } else {
            self.free_at += q;
            self.slack -= r;
        }
        self.free_at
    }

    /// [`Serializer::send`] of another unit of the size sent last, while
    /// the line is still busy (a frame's cells queued at once): no idle
    /// test, no size test; the same end as `send(now, last size)`.
    #[inline(always)]
    pub fn send_again(&mut self, now: Time) -> Time {
        debug_assert!(now < self.free_at && self.last_bytes > 0);
        // As in `send`: carry a picosecond when the remainder exceeds the slack.
        // (Subtracting before adding: `slack + bits` may exceed 2^64.)
        let carry = self.last_r > self.slack;
        self.free_at += self.last_q + carry as u64;
        self.slack = if carry { self.slack + (self.rate.bits - self.last_r) } else { self.slack - self.last_r };
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
    fn unsend_moves_the_free_time_back() {
        let rate = Rate::new(424, 3 * PS_PER_US as u128).unwrap();
        let mut s = Serializer::new(rate);
        s.send(0, 53);
        s.send(0, 53);
        assert_eq!(s.unsend(53), 3 * PS_PER_US);
        assert_eq!(s.free_at(), 3 * PS_PER_US);
        assert_eq!(s.send(0, 53), 6 * PS_PER_US);
    }

    proptest::proptest! {
        /// Against the definition: the end of the busy period in
        /// `ps × bits`, a 128-bit integer, divided and rounded up.
        #[test]
        fn matches_the_exact_scaled_sum(bits in 1u64..1_000_000_000_000, ps in 1u64..10_000_000_000,
                                        ops in proptest::collection::vec((0u64..3_000_000, 1u64..10_000, 0u8..8), 1..60)) {
            let rate = Rate { bits, ps };
            let mut s = Serializer::new(rate);
            let (mut busy, mut now, mut sent) = (0u128, 0u64, Vec::new());
            for (gap, bytes, op) in ops {
                if op == 0 && sent.len() > 1 {
                    let b: u64 = sent.pop().unwrap();
                    let scaled = b as u128 * 8 * ps as u128;
                    busy -= scaled;
                    proptest::prop_assert_eq!(s.unsend(b) as u128, scaled / bits as u128);
                } else {
                    now += gap;
                    busy = busy.max(now as u128 * bits as u128) + bytes as u128 * 8 * ps as u128;
                    proptest::prop_assert_eq!(s.send(now, bytes) as u128, busy.div_ceil(bits as u128));
                    sent.push(bytes);
                }
                proptest::prop_assert_eq!(s.free_at() as u128, busy.div_ceil(bits as u128));
            }
        }

        /// A frame's cells sent at once: `send_again` is `send` of the
        /// size sent last, on the busy line.
        #[test]
        fn send_again_is_send_on_a_busy_line(bits in 1u64..u64::MAX, ps in 1u64..10_000_000_000,
                                             bytes in 1u64..10_000, now in 0u64..1_000_000, n in 1usize..300) {
            let (mut once, mut again) = (Serializer::new(Rate { bits, ps }), Serializer::new(Rate { bits, ps }));
            proptest::prop_assert_eq!(once.send(now, bytes), again.send(now, bytes));
            for _ in 1..n {
                proptest::prop_assert_eq!(again.send_again(now), once.send(now, bytes));
            }
            proptest::prop_assert_eq!((again.free_at, again.slack), (once.free_at, once.slack));
        }
    }

    #[test]
    fn rate_is_reduced_and_rejects_zero() {
        assert_eq!(Rate::new(14_133_000_000, 100 * PS_PER_S as u128).unwrap().bits, 14133);
        assert!(Rate::new(0, 5).is_none());
    }
}
