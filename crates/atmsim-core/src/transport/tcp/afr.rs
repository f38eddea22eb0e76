//! Adaptive Fast Retransmit (Aron & Druschel §5.1.1, Fig. 9).
//!
//! A 2-bit saturating predictor learns whether a connection's losses come as
//! pairs of consecutive segments (the ATM pattern: one congested instant
//! damages the frames of several cells in a row) or as single segments (the
//! packet pattern). States 0–1 retransmit one segment on a fast retransmit,
//! states 2–3 the lost segment and its successor.
//!
//! An episode opens at a fast retransmission of segment X = [u, u + len) and
//! is classified by the first later ACK that advances snd_una: consecutive
//! if it stops exactly at u + len while X's successor had been sent before
//! the retransmission, single otherwise. Timeouts do not update the state.
//! These episode rules are our choice: the paper describes the predictor
//! (two consecutive-loss episodes before doubling, two single ones before
//! reverting) but not how an episode is delimited.
//!
//! Also our choice: the fast retransmission that later repairs the successor
//! of a consecutive episode belongs to that episode and opens none of its
//! own. Counted as a new, single episode, every two-segment loss would count
//! once consecutive and once single and the predictor could never leave
//! states 0–1 — contradicting the paper's "mostly in state 3 on ATM
//! networks" (§5.1.1).

use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Predictor {
    /// consecutive → s + 1, single → s − 1, clamped to 0..=3 (default).
    Saturating,
    /// Textbook 2-bit predictor: a contrary outcome in a weak state jumps to
    /// the opposite strong state (1 –C→ 3, 2 –S→ 0).
    Hysteresis,
}

#[derive(Clone, Debug)]
pub struct Afr {
    pub predictor: Predictor,
    pub state: u8,
    /// The open episode: first byte and end of the retransmitted segment,
    /// and whether its successor had been sent.
    open: Option<(u64, u64, bool)>,
    /// Whether the open episode's retransmission was doubled.
    doubled: bool,
    /// First byte of the successor of the last consecutive episode: its
    /// repair continues that episode.
    continuation: Option<u64>,
    since: Time,
    /// Time spent in each state (ps), for "mostly in state 3 on ATM".
    pub time_in: [Time; 4],
    pub episodes_consecutive: u64,
    pub episodes_single: u64,
    /// Successor retransmissions sent, and those that turned out needless
    /// (the successor had arrived: the episode was single).
    pub extra_retransmits: u64,
    pub needless_extra: u64,
}

impl Afr {
    pub fn new(predictor: Predictor) -> Self {
        Afr {
            predictor,
            state: 0,
            open: None,
            doubled: false,
            continuation: None,
            since: 0,
            time_in: [0; 4],
            episodes_consecutive: 0,
            episodes_single: 0,
            extra_retransmits: 0,
            needless_extra: 0,
        }
    }

    /// In a "double" state?
    pub fn doubles(&self) -> bool {
        self.state >= 2
    }

    /// A fast retransmission of the segment at `snd_una` is due, whichever
    /// recovery decided on it: open an episode and answer how many segments
    /// to send — 2 (the segment and its successor) in a double state when
    /// the successor has been sent, else 1. The window reduction is the
    /// recovery's, made once as for a single retransmission.
    pub fn fast_retransmit(&mut self, snd_una: u64, snd_max: u64, mss: u64) -> u8 {
        let end = (snd_una + mss).min(snd_max);
        let successor_sent = snd_max > end;
        let double = self.doubles() && successor_sent;
        self.open_episode(snd_una, end, successor_sent, double);
        if double {
            2
        } else {
            1
        }
    }

    /// A fast retransmission of [u, end) was made; `successor_sent` tells
    /// whether the segment after it had been transmitted; `doubled` whether
    /// AFR resent that successor too.
    pub fn open_episode(&mut self, u: u64, end: u64, successor_sent: bool, doubled: bool) {
        if self.continuation.take() == Some(u) {
            return;
        }
        if self.open.is_none() {
            self.open = Some((u, end, successor_sent));
            self.doubled = doubled;
            if doubled {
                self.extra_retransmits += 1;
            }
        }
    }

    /// An ACK advanced snd_una to `ack` at `now`: classify the open episode.
    pub fn on_advance(&mut self, ack: u64, now: Time) {
        let Some((_, end, successor_sent)) = self.open.take() else {
            return;
        };
        let consecutive = ack == end && successor_sent;
        self.continuation = consecutive.then_some(end);
        if consecutive {
            self.episodes_consecutive += 1;
        } else {
            self.episodes_single += 1;
            if self.doubled {
                self.needless_extra += 1;
            }
        }
        let s = self.state;
        let next = match (self.predictor, consecutive) {
            (Predictor::Saturating, true) => (s + 1).min(3),
            (Predictor::Saturating, false) => s.saturating_sub(1),
            (Predictor::Hysteresis, true) => match s {
                0 => 1,
                _ => 3,
            },
            (Predictor::Hysteresis, false) => match s {
                3 => 2,
                _ => 0,
            },
        };
        self.set_state(next, now);
    }

    /// A timeout ends any open episode without a verdict.
    pub fn on_timeout(&mut self) {
        self.open = None;
        self.continuation = None;
    }

    fn set_state(&mut self, s: u8, now: Time) {
        self.time_in[self.state as usize] += now - self.since;
        self.since = now;
        self.state = s;
    }

    /// Closes the time accounting at the end of a run.
    pub fn finish(&mut self, now: Time) {
        let s = self.state;
        self.set_state(s, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episode(a: &mut Afr, consecutive: bool, t: Time) {
        a.open_episode(100, 200, true, a.doubles());
        a.on_advance(if consecutive { 200 } else { 300 }, t);
    }

    #[test]
    fn saturating_predictor_through_all_transitions() {
        let mut a = Afr::new(Predictor::Saturating);
        let mut path = vec![a.state];
        for c in [true, true, true, true, false, false, false, false, true] {
            episode(&mut a, c, 0);
            path.push(a.state);
        }
        assert_eq!(path, vec![0, 1, 2, 3, 3, 2, 1, 0, 0, 1]);
    }

    #[test]
    fn two_consecutive_episodes_needed_before_doubling() {
        let mut a = Afr::new(Predictor::Saturating);
        episode(&mut a, true, 0);
        assert!(!a.doubles());
        episode(&mut a, true, 0);
        assert!(a.doubles());
        episode(&mut a, false, 0);
        assert!(!a.doubles(), "from the weak double state one single episode reverts");
    }

    #[test]
    fn the_successors_repair_continues_the_consecutive_episode() {
        let mut a = Afr::new(Predictor::Saturating);
        a.open_episode(100, 200, true, false);
        a.on_advance(200, 0); // X repaired, X+1 still missing: consecutive
        assert_eq!(a.state, 1);
        a.open_episode(200, 300, true, false); // the repair of X+1
        a.on_advance(900, 0);
        assert_eq!(a.state, 1, "not a second, single episode");
        a.open_episode(900, 1000, true, false); // a later, unrelated loss
        a.on_advance(2000, 0);
        assert_eq!(a.state, 0);
    }

    #[test]
    fn hysteresis_predictor_jumps_from_weak_states() {
        let mut a = Afr::new(Predictor::Hysteresis);
        episode(&mut a, true, 0); // 0 -> 1
        episode(&mut a, true, 0); // 1 -> 3
        assert_eq!(a.state, 3);
        episode(&mut a, false, 0); // 3 -> 2
        episode(&mut a, false, 0); // 2 -> 0
        assert_eq!(a.state, 0);
    }

    #[test]
    fn successor_not_sent_is_single_and_needless_extra_counted() {
        let mut a = Afr::new(Predictor::Saturating);
        a.state = 3;
        a.open_episode(100, 200, true, true);
        a.on_advance(300, 10);
        assert_eq!(a.state, 2);
        assert_eq!(a.extra_retransmits, 1);
        assert_eq!(a.needless_extra, 1);
        a.open_episode(100, 200, false, false);
        a.on_advance(200, 20);
        assert_eq!(a.state, 1, "successor never sent: not consecutive");
    }

    #[test]
    fn fast_retransmit_doubles_only_in_double_states_with_the_successor_sent() {
        let mut a = Afr::new(Predictor::Saturating);
        assert_eq!(a.fast_retransmit(100, 1000, 100), 1, "state 0");
        a.on_advance(200, 0); // consecutive: 1
        a.open_episode(500, 600, true, false);
        a.on_advance(600, 0); // consecutive: 2
        assert!(a.doubles());
        assert_eq!(a.fast_retransmit(1000, 1100, 100), 1, "nothing sent after the segment");
        a.on_advance(1100, 0); // single: back to 1
        a.state = 3;
        assert_eq!(a.fast_retransmit(2000, 2150, 100), 2, "a partial successor counts");
        assert_eq!(a.extra_retransmits, 1);
    }

    #[test]
    fn time_in_states() {
        let mut a = Afr::new(Predictor::Saturating);
        episode(&mut a, true, 10);
        episode(&mut a, true, 30);
        a.finish(100);
        assert_eq!(a.time_in, [10, 20, 70, 0]);
    }
}
