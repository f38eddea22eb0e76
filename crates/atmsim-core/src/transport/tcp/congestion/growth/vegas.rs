//! Vegas-SS and Vegas-CA (Brakmo, O'Malley & Peterson 1994; Brakmo &
//! Peterson 1995, as in the Arizona code ported to ns-2 `tcp-vegas.cc`):
//! once per RTT compare the expected rate cwnd/BaseRTT with the actual one
//! and choose a per-ACK increment; apply it on each ACK while the window is
//! in use. Slow start doubles every other RTT and ends when the difference
//! exceeds γ; avoidance keeps between α and β segments queued.
//!
//! Windows are bytes, as in the rest of the TCP; "segments" below are MSS.

use super::{Growth, WindowGrowth};
use crate::base::mechanism::Golden;
use crate::time::{Time, PS_PER_S};
use crate::transport::tcp::congestion::recovery::{vegas_rm::VegasRm, Recovery};
use crate::transport::tcp::congestion::{EcnUse, declare, topology1, with_afr, AckCtx, TcpVariant, Window};

/// Vegas constants (segments): Brakmo et al. 1994; ns-2 defaults.
pub const ALPHA: i64 = 1;
pub const BETA: i64 = 3;
pub const GAMMA: i64 = 1;

/// Vegas-SS/CA state.
#[derive(Clone, Debug)]
pub struct Vegas {
    /// Minimum RTT seen (ps), BaseRTT; `Time::MAX` until the first sample.
    pub base_rtt: Time,
    /// The per-RTT round: ends with the ACK covering `begseq`.
    pub begseq: u64,
    pub begtime: Time,
    sum_rtt: Time,
    cnt_rtt: u64,
    /// Vegas-SS grows in the rounds where this is true; toggled at each
    /// decision in slow start.
    inc_flag: bool,
    /// Per-ACK increment chosen once per RTT (bytes).
    pub incr: u64,
    /// Last computed diff (segments queued), for traces.
    pub last_diff: i64,
}

impl Default for Vegas {
    fn default() -> Self {
        Self::new()
    }
}

impl Vegas {
    pub fn new() -> Self {
        Vegas {
            base_rtt: Time::MAX,
            begseq: 0,
            begtime: 0,
            sum_rtt: 0,
            cnt_rtt: 0,
            // Set, as ns-2's `v_inc_flag_ = 1`: the first decision (the first
            // data ACK) toggles it off and holds the initial window for the
            // second round trip, so Vegas sends 2, 2, 4, 4, 8, ... [AD97 §5.3:
            // "4 segments in the first two RTTs"].
            inc_flag: true,
            incr: 0,
            last_diff: 0,
        }
    }

    /// An exact RTT sample (a segment sent once): BaseRTT is the minimum,
    /// and the round averages its samples.
    pub fn sample(&mut self, rtt: Time) {
        self.base_rtt = self.base_rtt.min(rtt);
        self.add_sample(rtt);
    }

    /// A sample for this round's average only.
    pub fn add_sample(&mut self, rtt: Time) {
        self.sum_rtt += rtt;
        self.cnt_rtt += 1;
    }

    /// Once per RTT (an ACK covering `begseq`): choose the increment, maybe
    /// leave slow start or shrink the window. `outstanding` counts segments
    /// still unacknowledged after this ACK, `sent_since` the segments sent
    /// since `begseq` was recorded.
    pub fn once_per_rtt(&mut self, w: &mut Window, now: Time, outstanding: f64, sent_since: f64, snd_nxt: u64) {
        let mss = w.mss;
        let sampled = self.cnt_rtt > 0;
        let rtt = self.sum_rtt.checked_div(self.cnt_rtt).unwrap_or_else(|| now - self.begtime);
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
        if rtt > 0 {
            // BaseRTT is the smallest *measured* round trip [BP95 §3.2]. A round
            // without an exact sample (its segments were all retransmitted, or
            // two rounds ended close together) falls back on the time since the
            // round began, which is no round trip: two rounds ending 1.1 ms
            // apart once set BaseRTT to 1.1 ms on a 60 ms path, after which
            // Vegas-CA judged every window too large and the sender crawled at
            // 3 segments for 19 s (aron97 fig10, 10 MB, Vegas-AFR over ATM).
            if sampled && (rtt < self.base_rtt || sent_since <= 1.0) {
                self.base_rtt = rtt;
            }
            let base = self.base_rtt as f64 / PS_PER_S as f64;
            let r = rtt as f64 / PS_PER_S as f64;
            // ns-2 counts one more outstanding segment (its `t_seqno_ -
            // last_ack_`), which shifts diff by one against α, β, γ.
            let expected = (outstanding + 1.0) / base;
            let actual = sent_since / r;
            // C's int() cast, as ns-2.
            let diff = ((expected - actual) * base + 0.5).trunc() as i64;
            self.last_diff = diff;
            if w.cwnd < w.ssthresh {
                // Vegas slow start: grow only every other RTT.
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0;
                } else if diff > GAMMA {
                    w.ssthresh = 2 * mss;
                    w.cwnd = (w.cwnd - w.cwnd / 8).max(2 * mss);
                    self.incr = 0;
                } else {
                    self.incr = mss;
                }
            } else if diff > BETA {
                w.cwnd = w.cwnd.saturating_sub(mss).max(2 * mss);
                self.incr = 0;
            } else if diff < ALPHA {
                self.incr = (mss * mss / w.cwnd).max(1);
            } else {
                self.incr = 0;
            }
        }
        self.begseq = snd_nxt;
        self.begtime = now;
    }

    /// Per ACK: apply the chosen increment while the window is in use (at
    /// most two segments beyond what is outstanding).
    pub fn per_ack(&mut self, w: &mut Window, outstanding: f64) {
        let mss = w.mss;
        if self.incr == mss && w.cwnd >= w.ssthresh {
            self.incr = 0;
        }
        if self.incr > 0 && (w.cwnd as f64) - (outstanding + 1.0) * mss as f64 <= 2.0 * mss as f64 {
            w.cwnd = (w.cwnd + self.incr).min(w.max_cwnd);
        }
    }
}

impl WindowGrowth for Vegas {
    const VARIANTS: &'static [TcpVariant] = &[
        TcpVariant {
            mechanism: declare(
                "vegas",
                "TCP Vegas (Brakmo & Peterson 1995): its slow start, congestion avoidance and retransmission mechanism",
                &[topology1("vegas", &["tcp.variant=vegas"])],
            ),
            growth: |_| Growth::Vegas(Vegas::new()),
            recovery: || Recovery::VegasRm(VegasRm::default()),
            afr: false,
            initial_window: 2,
            sack_option: false,
            ecn: EcnUse::Optional,
        },
        TcpVariant {
            mechanism: with_afr(
                "vegas-afr",
                "Vegas with Adaptive Fast Retransmit (Aron & Druschel's Vegas-AFR)",
                &[
                    topology1("vegas-afr-10ms", &["tcp.variant=vegas-afr", "tcp.tick=10ms"]),
                    Golden { scenario: "aron97-topo2-packet", variation: "vegas-afr", overrides: &["tcp.variant=vegas-afr", "switch.buffer=48KB"] },
                ],
            ),
            growth: |_| Growth::Vegas(Vegas::new()),
            recovery: || Recovery::VegasRm(VegasRm::default()),
            afr: true,
            initial_window: 2,
            sack_option: false,
            ecn: EcnUse::Optional,
        },
    ];

    /// Decide once per RTT, apply per ACK.
    fn on_ack(&mut self, w: &mut Window, c: &AckCtx) {
        if let Some(rtt) = c.rtt_sample {
            self.sample(rtt);
        }
        let outstanding = (c.snd_nxt - c.snd_una) as f64 / w.mss as f64;
        if c.snd_una > self.begseq {
            let sent_since = (c.snd_nxt.saturating_sub(self.begseq)) as f64 / w.mss as f64;
            self.once_per_rtt(w, c.now, outstanding, sent_since, c.snd_nxt);
        }
        self.per_ack(w, outstanding);
    }

    /// Two segments, ns-2's `v_slowstart_`.
    fn restart_window(&self, mss: u64) -> u64 {
        2 * mss
    }

    /// Vegas's own rate test decides when to leave slow start.
    fn on_window_cut(&mut self, _w: &mut Window, _newcwnd: u64) {}

    /// ns-2 `tcp-vegas.cc` sets ssthresh to 2 segments when recovery ends,
    /// so Vegas continues in avoidance rather than slow start.
    fn on_recovery_exit(&mut self, w: &mut Window) {
        w.ssthresh = 2 * w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_MS;
    use crate::transport::tcp::congestion::{CongestionControl, variant};

    const MSS: u64 = 1000;

    fn window(cwnd: u64, ssthresh: u64) -> Window {
        Window { cwnd, ssthresh, mss: MSS, max_cwnd: 1 << 30, dupacks: 0, decrease: (1, 2) }
    }

    #[test]
    fn base_rtt_is_the_minimum_sample() {
        let mut v = Vegas::new();
        v.sample(100 * PS_PER_MS);
        v.sample(60 * PS_PER_MS);
        assert_eq!(v.base_rtt, 60 * PS_PER_MS);
        v.sample(80 * PS_PER_MS);
        assert_eq!(v.base_rtt, 60 * PS_PER_MS);
    }

    #[test]
    fn a_round_without_a_sample_never_sets_base_rtt() {
        // Two rounds end 1 ms apart and the second has no exact sample (its
        // segments were retransmitted): the 1 ms since it began is no round
        // trip and must not become BaseRTT, even when one segment was sent.
        let mut v = Vegas::new();
        v.sample(60 * PS_PER_MS);
        let mut w = window(4 * MSS, 2 * MSS);
        v.once_per_rtt(&mut w, PS_PER_S, 2.0, 3.0, 0);
        v.once_per_rtt(&mut w, PS_PER_S + PS_PER_MS, 0.0, 1.0, 0);
        assert_eq!(v.base_rtt, 60 * PS_PER_MS);
        // A measured round with one segment sent still resets it (ns-2's rule).
        v.add_sample(70 * PS_PER_MS);
        v.once_per_rtt(&mut w, 2 * PS_PER_S, 0.0, 1.0, 0);
        assert_eq!(v.base_rtt, 70 * PS_PER_MS);
    }

    /// expected − actual, in segments: with baseRTT 100 ms, a 10-segment
    /// window and an RTT of 150 ms, Vegas sees 10 − 10·100/150 ≈ 3.3 → 3
    /// segments queued (with ns-2's +1 on outstanding: 11 − 6.67 → 4).
    #[test]
    fn rate_difference_in_segments() {
        let mut v = Vegas::new();
        v.base_rtt = 100 * PS_PER_MS;
        v.add_sample(150 * PS_PER_MS);
        let mut w = window(10 * MSS, 2 * MSS);
        v.once_per_rtt(&mut w, PS_PER_S, 10.0, 10.0, 0);
        assert_eq!(v.last_diff, 4);
        assert_eq!(w.cwnd, 9 * MSS, "diff > beta: one segment less");
        // Within [alpha, beta]: hold.
        v.add_sample(120 * PS_PER_MS);
        v.once_per_rtt(&mut w, 2 * PS_PER_S, 9.0, 9.0, 0);
        assert_eq!(v.last_diff, 3);
        assert_eq!(v.incr, 0);
        // Below alpha: +1 segment per RTT, spread over the ACKs.
        v.add_sample(100 * PS_PER_MS);
        v.once_per_rtt(&mut w, 3 * PS_PER_S, 9.0, 10.0, 0);
        assert!(v.last_diff < ALPHA);
        assert_eq!(v.incr, MSS * MSS / (9 * MSS));
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_exits_on_gamma() {
        let mut v = Vegas::new();
        v.base_rtt = 100 * PS_PER_MS;
        let mut w = window(2 * MSS, 1 << 30);
        v.add_sample(100 * PS_PER_MS);
        v.once_per_rtt(&mut w, PS_PER_S, 1.0, 2.0, 0);
        assert_eq!(v.incr, 0, "the first decision holds");
        v.add_sample(100 * PS_PER_MS);
        v.once_per_rtt(&mut w, 2 * PS_PER_S, 1.0, 2.0, 0);
        assert_eq!(v.incr, MSS, "grow the next RTT");
        v.add_sample(100 * PS_PER_MS);
        v.once_per_rtt(&mut w, 3 * PS_PER_S, 3.0, 4.0, 0);
        assert_eq!(v.incr, 0, "hold the one after");
        w.cwnd = 16 * MSS;
        v.add_sample(200 * PS_PER_MS);
        v.once_per_rtt(&mut w, 4 * PS_PER_S, 16.0, 16.0, 0);
        assert_eq!(w.ssthresh, 2 * MSS, "queue building: leave slow start");
        assert_eq!(w.cwnd, 14 * MSS);
    }

    /// Segments sent per round trip by a sender that opens with 2 segments,
    /// loses nothing and sees a constant 60 ms RTT (no queueing, so diff = 0
    /// and slow start never ends). Sequence numbers start at 1, as after the
    /// SYN; each ACK covers one segment and the sender then fills the window.
    fn segments_per_round(rounds: usize) -> Vec<u64> {
        let rtt = 60 * PS_PER_MS;
        let mut v = Vegas::new();
        let mut w = window(2 * MSS, 1 << 30);
        let (mut una, mut nxt) = (1, 1);
        let mut sent = vec![];
        let mut round = vec![];
        while nxt - una + MSS <= w.cwnd {
            nxt += MSS;
            round.push(nxt);
        }
        for r in 1..=rounds {
            sent.push(round.len() as u64);
            let mut next = vec![];
            for (i, end) in round.into_iter().enumerate() {
                una = end;
                let now = r as u64 * rtt + i as u64 * PS_PER_MS / 1000;
                let c = AckCtx {
                    now,
                    snd_una: una,
                    snd_nxt: nxt,
                    snd_max: nxt,
                    snd_wnd: 1 << 30,
                    acked: MSS,
                    rtt_sample: Some(rtt),
                    ..Default::default()
                };
                v.on_ack(&mut w, &c);
                while nxt - una + MSS <= w.cwnd {
                    nxt += MSS;
                    next.push(nxt);
                }
            }
            round = next;
        }
        sent
    }

    /// [AD97 §5.3]: Vegas sends "two segments in the first RTT ... and 4
    /// segments in the first two RTTs (as Vegas does exponential increase
    /// every other RTT)": 2, 2, 4, 4, 8, ... as ns-2's `tcp-vegas.cc`, whose
    /// `v_inc_flag_` starts at 1 so that the first decision (the first data
    /// ACK) holds. Starting the flag at 0 grew in the first decision and sent
    /// 2, 4, 4, 8, ..., as fast as Lite with an initial window of 2 for the
    /// first 6 segments (aron97 fig11 at 50K).
    #[test]
    fn slow_start_holds_in_the_second_round_trip() {
        assert_eq!(segments_per_round(6), vec![2, 2, 4, 4, 8, 8]);
    }

    #[test]
    fn no_sample_in_the_round_uses_the_time_since_it_began() {
        let mut v = Vegas::new();
        v.base_rtt = 100 * PS_PER_MS;
        v.begtime = PS_PER_S;
        let mut w = window(10 * MSS, 2 * MSS);
        // 10 segments in 100 ms against 11 expected: diff 1, within [α, β].
        v.once_per_rtt(&mut w, PS_PER_S + 100 * PS_PER_MS, 10.0, 10.0, 7);
        assert_eq!(v.last_diff, 1);
        assert_eq!((v.begseq, v.begtime), (7, PS_PER_S + 100 * PS_PER_MS));
    }

    #[test]
    fn per_ack_applies_the_increment_only_while_the_window_is_used() {
        let mut v = Vegas::new();
        let mut w = window(10 * MSS, 2 * MSS);
        v.incr = 100;
        v.per_ack(&mut w, 7.0); // 10 − (7 + 1) = 2 segments spare: grow
        assert_eq!(w.cwnd, 10 * MSS + 100);
        v.per_ack(&mut w, 7.0); // now more than 2 spare: hold
        assert_eq!(w.cwnd, 10 * MSS + 100);
        // A slow-start increment stops once cwnd reaches ssthresh.
        v.incr = MSS;
        w.ssthresh = w.cwnd;
        v.per_ack(&mut w, 9.0);
        assert_eq!(v.incr, 0);
        assert_eq!(w.cwnd, 10 * MSS + 100);
    }

    #[test]
    fn recovery_exit_continues_in_avoidance_and_a_cut_keeps_ssthresh() {
        let mut v = Vegas::new();
        let mut w = window(8 * MSS, 30 * MSS);
        v.on_window_cut(&mut w, 6 * MSS);
        assert_eq!(w.ssthresh, 30 * MSS);
        v.on_recovery_exit(&mut w);
        assert_eq!(w.ssthresh, 2 * MSS);
    }

    #[test]
    fn vegas_initial_window_and_timeout_window_are_two() {
        assert_eq!(variant("vegas").unwrap().initial_window, 2);
        let mut cc = CongestionControl::new(variant("vegas").unwrap(), MSS, 2, 1 << 30, true, None);
        cc.w.cwnd = 10 * MSS;
        cc.on_timeout(&AckCtx { snd_una: 1, snd_nxt: 10 * MSS, snd_max: 10 * MSS, snd_wnd: 1_000_000, ..Default::default() });
        assert_eq!(cc.cwnd(), 2 * MSS);
        assert_eq!(cc.ssthresh(), 5 * MSS);
    }
}
