//! TCP Vegas (Brakmo & Peterson 1994/95, as in the Arizona code ported to
//! ns-2; tcp.md §2), split into the three mechanisms Aron & Druschel switch
//! one by one:
//! - Vegas-RM: a fine-grained retransmission check on duplicate ACKs and on
//!   the first two new ACKs after a retransmission, at most one window
//!   decrease per RTT, decrease to 3/4;
//! - Vegas-SS: slow start that doubles every other RTT and leaves on the
//!   expected/actual rate test;
//! - Vegas-CA: keep between α and β segments queued in the network.
//!
//! Windows are bytes, as in the rest of the TCP; "segments" below are MSS.

use crate::time::{Time, PS_PER_S};

/// Vegas constants (segments) [V94; ns-2 defaults].
pub const ALPHA: i64 = 1;
pub const BETA: i64 = 3;
pub const GAMMA: i64 = 1;

/// The fine-grained RTT estimator and timeout of Vegas-RM (exact clock).
#[derive(Clone, Debug, Default)]
pub struct FineTimer {
    /// 8 × smoothed RTT, 4 × mean deviation, in ps.
    sa: i128,
    sd: i128,
    /// The fine timeout; 0 until the first sample.
    pub v_timeout: Time,
    /// Minimum RTT seen (ps); `Time::MAX` until the first sample.
    pub base_rtt: Time,
}

impl FineTimer {
    pub fn new() -> Self {
        FineTimer { base_rtt: Time::MAX, ..Default::default() }
    }

    /// A sample from a segment sent exactly once.
    pub fn sample(&mut self, rtt: Time) {
        self.base_rtt = self.base_rtt.min(rtt);
        let r = rtt as i128;
        if self.v_timeout == 0 {
            self.sa = 8 * r;
            self.sd = r;
        } else {
            let mut n = r - self.sa / 8;
            self.sa += n;
            n = n.abs() - self.sd / 4;
            self.sd += n;
        }
        // (srtt + 2·dev) × 17/16.
        let mut v = (self.sa / 4 + self.sd) / 2;
        v += v / 16;
        self.v_timeout = v.max(1) as Time;
    }

    /// Has the segment sent at `sent_at` waited longer than the timeout?
    pub fn expired(&self, now: Time, sent_at: Time) -> bool {
        self.v_timeout != 0 && now.saturating_sub(sent_at) >= self.v_timeout
    }
}

/// Vegas-RM state.
#[derive(Clone, Debug, Default)]
pub struct RmState {
    /// First and second new ACK after a retransmission still to check.
    pub worried: u8,
    /// Time of the last window decrease (one per RTT).
    pub t_cwnd_changed: Time,
    /// Window to fall back to when recovery ends.
    pub newcwnd: u64,
    /// After a coarse timeout: no RM action until this is acknowledged
    /// (ns-2 `bug_fix_`).
    pub timeout_recover: Option<u64>,
}

/// Vegas-SS/CA per-RTT state.
#[derive(Clone, Debug, Default)]
pub struct CaState {
    pub begseq: u64,
    pub begtime: Time,
    sum_rtt: Time,
    cnt_rtt: u64,
    inc_flag: bool,
    /// Per-ACK increment chosen once per RTT (bytes).
    pub incr: u64,
    /// Last computed diff (segments queued), for traces.
    pub last_diff: i64,
}

impl CaState {
    pub fn add_sample(&mut self, rtt: Time) {
        self.sum_rtt += rtt;
        self.cnt_rtt += 1;
    }

    /// Once per RTT (an ACK covering `begseq`): choose the increment, maybe
    /// leave slow start or shrink the window. `outstanding` counts segments
    /// still unacknowledged after this ACK, `sent_since` the segments sent
    /// since `begseq` was recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn once_per_rtt(
        &mut self,
        now: Time,
        timer: &mut FineTimer,
        cwnd: &mut u64,
        ssthresh: &mut u64,
        mss: u64,
        outstanding: f64,
        sent_since: f64,
        snd_nxt: u64,
    ) {
        let rtt = if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt } else { now - self.begtime };
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
        if rtt > 0 {
            if rtt < timer.base_rtt || sent_since <= 1.0 {
                timer.base_rtt = rtt;
            }
            let base = timer.base_rtt as f64 / PS_PER_S as f64;
            let r = rtt as f64 / PS_PER_S as f64;
            let expected = (outstanding + 1.0) / base;
            let actual = sent_since / r;
            let diff = ((expected - actual) * base + 0.5).trunc() as i64;
            self.last_diff = diff;
            if *cwnd < *ssthresh {
                // Vegas slow start: grow only every other RTT.
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0;
                } else if diff > GAMMA {
                    *ssthresh = 2 * mss;
                    *cwnd = (*cwnd - *cwnd / 8).max(2 * mss);
                    self.incr = 0;
                } else {
                    self.incr = mss;
                }
            } else if diff > BETA {
                *cwnd = cwnd.saturating_sub(mss).max(2 * mss);
                self.incr = 0;
            } else if diff < ALPHA {
                self.incr = (mss * mss / *cwnd).max(1);
            } else {
                self.incr = 0;
            }
        }
        self.begseq = snd_nxt;
        self.begtime = now;
    }

    /// Per ACK: apply the chosen increment while the window is in use.
    pub fn per_ack(&mut self, cwnd: &mut u64, ssthresh: u64, mss: u64, outstanding: f64, max_cwnd: u64) {
        if self.incr == mss && *cwnd >= ssthresh {
            self.incr = 0;
        }
        if self.incr > 0 && (*cwnd as f64) - (outstanding + 1.0) * mss as f64 <= 2.0 * mss as f64 {
            *cwnd = (*cwnd + self.incr).min(max_cwnd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;

    const MSS: u64 = 1000;

    #[test]
    fn fine_timer_first_sample_and_base_rtt() {
        let mut t = FineTimer::new();
        assert!(!t.expired(10 * PS_PER_S, 0), "no timeout before a sample");
        t.sample(100 * PS_PER_MS);
        // sa = 800 ms, sd = 100 ms -> (200 + 100)/2 = 150 ms, ×17/16.
        assert_eq!(t.v_timeout, 150 * PS_PER_MS + 150 * PS_PER_MS / 16);
        t.sample(60 * PS_PER_MS);
        assert_eq!(t.base_rtt, 60 * PS_PER_MS);
        assert!(t.expired(300 * PS_PER_MS, 0));
    }

    /// expected − actual, in segments: with baseRTT 100 ms, a 10-segment
    /// window and an RTT of 150 ms, Vegas sees 10 − 10·100/150 ≈ 3.3 → 3
    /// segments queued (with ns-2's +1 on outstanding: 11 − 6.67 → 4).
    #[test]
    fn rate_difference_in_segments() {
        let mut timer = FineTimer::new();
        timer.sample(100 * PS_PER_MS);
        let mut ca = CaState::default();
        ca.add_sample(150 * PS_PER_MS);
        let (mut cwnd, mut ssthresh) = (10 * MSS, 2 * MSS);
        ca.once_per_rtt(PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 10.0, 10.0, 0);
        assert_eq!(ca.last_diff, 4);
        assert_eq!(cwnd, 9 * MSS, "diff > beta: one segment less");
        // Within [alpha, beta]: hold.
        ca.add_sample(120 * PS_PER_MS);
        ca.once_per_rtt(2 * PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 9.0, 9.0, 0);
        assert_eq!(ca.last_diff, 3);
        assert_eq!(ca.incr, 0);
        // Below alpha: +1 segment per RTT, spread over the ACKs.
        ca.add_sample(100 * PS_PER_MS);
        ca.once_per_rtt(3 * PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 9.0, 10.0, 0);
        assert!(ca.last_diff < ALPHA);
        assert_eq!(ca.incr, MSS * MSS / (9 * MSS));
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_exits_on_gamma() {
        let mut timer = FineTimer::new();
        timer.sample(100 * PS_PER_MS);
        let mut ca = CaState::default();
        let (mut cwnd, mut ssthresh) = (2 * MSS, 1 << 30);
        ca.add_sample(100 * PS_PER_MS);
        ca.once_per_rtt(PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 1.0, 2.0, 0);
        assert_eq!(ca.incr, MSS, "grow this RTT");
        ca.add_sample(100 * PS_PER_MS);
        ca.once_per_rtt(2 * PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 1.0, 2.0, 0);
        assert_eq!(ca.incr, 0, "hold the next");
        cwnd = 16 * MSS;
        ca.add_sample(200 * PS_PER_MS);
        ca.once_per_rtt(3 * PS_PER_S, &mut timer, &mut cwnd, &mut ssthresh, MSS, 16.0, 16.0, 0);
        assert_eq!(ssthresh, 2 * MSS, "queue building: leave slow start");
        assert_eq!(cwnd, 14 * MSS);
    }
}
