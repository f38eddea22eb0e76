//! SACK loss recovery: RFC 6675's conservative algorithm over the blocks of
//! RFC 2018's option. The scoreboard (`scoreboard.rs`) says what the
//! receiver holds; a duplicate ACK is one that SACKs new data; loss recovery
//! starts on the third, or as soon as the first hole `IsLost`, halves the
//! window once, and then sends whatever `NextSeg()` picks while cwnd − pipe
//! ≥ 1 SMSS, until the ACK covers RecoveryPoint.
//!
//! The sender drives it through [`CongestionControl::on_sack_ack`]
//! (`sender/sack.rs`), because SACK decides *which* segment goes out, not
//! only how many. Window growth outside recovery is the variant's growth
//! (Lite: BSD slow start and congestion avoidance).
//!
//! Sequence numbers here are "one past" where RFC 6675 names the last byte:
//! `recovery_point` = HighData + 1 at entry, `high_rxt` = HighRxt + 1,
//! `rescue_rxt` = RescueRxt + 1, `snd_una` = HighACK + 1.
//!
//! [`CongestionControl::on_sack_ack`]: crate::transport::tcp::congestion::CongestionControl::on_sack_ack

use super::scoreboard::Scoreboard;
use super::{AckOutcome, DupOutcome, LossRecovery, Recovery, THRESH};
use crate::base::mechanism::Golden;
use crate::transport::tcp::congestion::{declare, on_lite, topology1, AckCtx, NewAckAction, TcpVariant, Window};

/// What an ACK means for a SACK sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackStep {
    /// Not in loss recovery (the growth has opened the window if data were
    /// acknowledged): send as usual.
    Normal,
    /// Loss recovery begins (RFC 6675 §5 step 4): retransmit the segment at
    /// `snd_una` (step 4.3), then send by [`Sack::next_seg`] (step 4.5).
    Enter,
    /// In loss recovery (steps B and C): send by [`Sack::next_seg`] while
    /// cwnd − pipe ≥ 1 SMSS.
    Recover,
    /// The ACK covers RecoveryPoint: loss recovery ends (step A); send as
    /// usual.
    Exit,
}

/// `NextSeg()`'s answer (RFC 6675 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit [seq, seq + len): rule 1 (a lost hole), 3 (any hole below
    /// the highest SACK) or 4 (the rescue retransmission).
    Retransmit { seq: u64, len: u64, rule: u8 },
    /// Rule 2: one segment of new data at `snd_max`.
    New,
}

#[derive(Clone, Debug, Default)]
pub struct Sack {
    board: Scoreboard,
    in_recovery: bool,
    /// RecoveryPoint + 1: `snd_max` when recovery began or at the last
    /// timeout (0 at first).
    recovery_point: u64,
    /// HighRxt + 1.
    high_rxt: u64,
    /// RescueRxt + 1.
    rescue_rxt: u64,
    /// Bytes limited transmit sent on this run of duplicate ACKs: not part
    /// of the FlightSize that sets ssthresh (RFC 5681 §3.2, RFC 3042 §2).
    limited: u64,
}

impl Sack {
    pub fn board(&self) -> &Scoreboard {
        &self.board
    }

    /// RFC 6675 §5 for one ACK (`c.snd_una` already the new cumulative ACK,
    /// `c.acked` the bytes it newly covers) carrying SACK `blocks`.
    pub fn on_ack(&mut self, w: &mut Window, c: &AckCtx, blocks: &[(u64, u64)]) -> SackStep {
        // "Upon the receipt of any ACK containing SACK information, the
        // scoreboard MUST be updated via the Update () routine"; a
        // cumulative ACK resets DupAcks.
        let newly = self.board.update(c.snd_una, c.snd_max, blocks);
        if c.acked > 0 {
            w.dupacks = 0;
            self.limited = 0;
        }
        if self.in_recovery {
            // (A): a cumulative ACK beyond RecoveryPoint ends recovery; the
            // scoreboard above it is kept. Otherwise (B): the scoreboard is
            // updated; the sender recomputes pipe and sends (C).
            if c.snd_una >= self.recovery_point {
                self.in_recovery = false;
                return SackStep::Exit;
            }
            return SackStep::Recover;
        }
        // §2: a duplicate ACK SACKs data not SACKed before (whether or not it
        // also moves the cumulative ACK), with data outstanding.
        if newly == 0 || c.snd_max <= c.snd_una {
            return SackStep::Normal;
        }
        w.dupacks += 1;
        // §5.1: after a timeout no new recovery until HighACK ≥ RecoveryPoint.
        if c.snd_una < self.recovery_point {
            return SackStep::Normal;
        }
        // Steps (1)-(2): DupThresh duplicates, or the first hole is lost.
        if w.dupacks < THRESH && !self.board.is_lost(c.snd_una, w.mss) {
            return SackStep::Normal;
        }
        // (4.1) RecoveryPoint = HighData; (4.2) ssthresh = cwnd =
        // FlightSize / 2, at least 2 SMSS (RFC 5681 §3.1 eq. 4), the data
        // limited transmit sent left out (RFC 5681 §3.2; none unless
        // `tcp.limited_transmit`: the BSD sender has none).
        self.recovery_point = c.snd_max;
        let cut = w.reduced_flight(c.snd_max - c.snd_una - std::mem::take(&mut self.limited));
        w.ssthresh = w.loss_ssthresh(c, cut);
        w.cwnd = w.ssthresh;
        self.in_recovery = true;
        self.high_rxt = c.snd_una;
        self.rescue_rxt = c.snd_una;
        SackStep::Enter
    }

    /// New data sent by limited transmit before recovery (`sender/sack.rs`).
    pub fn limited_sent(&mut self, len: u64) {
        self.limited += len;
    }

    /// `SetPipe()`: bytes in flight by the scoreboard.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, mss: u64) -> u64 {
        self.board.pipe(snd_una, snd_max, self.high_rxt, mss)
    }

    /// The segment at `snd_una` that step 4.3 retransmits: up to one MSS,
    /// not into SACKed data.
    pub fn first_hole(&self, snd_una: u64, snd_max: u64, mss: u64) -> Option<(u64, u64)> {
        self.board.hole_from(snd_una, snd_max).map(|(a, b)| (a, (b - a).min(mss)))
    }

    /// `NextSeg()` (RFC 6675 §4, rules 1-4); `new_data`: unsent data exist
    /// and the peer's window takes a segment of it.
    pub fn next_seg(&self, snd_una: u64, snd_max: u64, mss: u64, new_data: bool) -> Option<NextSeg> {
        let top = self.board.highest_sacked().unwrap_or(snd_una);
        // (1.a) above HighRxt, (1.b) below the highest SACKed byte. IsLost
        // never holds higher up when it fails lower, so the first such hole
        // decides rule (1), and is rule (3)'s answer.
        let hole = self.board.hole_from(self.high_rxt.max(snd_una), top);
        if let Some((a, b)) = hole {
            if self.board.is_lost(a, mss) {
                return Some(NextSeg::Retransmit { seq: a, len: (b - a).min(mss), rule: 1 });
            }
        }
        if new_data {
            return Some(NextSeg::New);
        }
        if let Some((a, b)) = hole {
            return Some(NextSeg::Retransmit { seq: a, len: (b - a).min(mss), rule: 3 });
        }
        // (4) One rescue per recovery, if HighACK > RescueRxt: a segment
        // ending at the highest un-SACKed byte.
        if snd_una > self.rescue_rxt {
            if let Some(x) = self.board.highest_unsacked(snd_una, snd_max) {
                let below = self.board.ranges().iter().rev().find(|&&(_, e)| e <= x).map_or(snd_una, |&(_, e)| e);
                let seq = (x + 1).saturating_sub(mss).max(below).max(snd_una);
                return Some(NextSeg::Retransmit { seq, len: x + 1 - seq, rule: 4 });
            }
        }
        None
    }

    /// A retransmission of [seq, seq + len) went out: step 4.3 (`rule` 0)
    /// sets HighRxt and RescueRxt to it, C.2 (rules 1 and 3) sets HighRxt,
    /// rule 4 sets RescueRxt = RecoveryPoint and leaves HighRxt.
    pub fn retransmitted(&mut self, seq: u64, len: u64, rule: u8) {
        match rule {
            0 => {
                self.high_rxt = seq + len;
                self.rescue_rxt = seq + len;
            }
            4 => self.rescue_rxt = self.recovery_point,
            _ => self.high_rxt = self.high_rxt.max(seq + len),
        }
    }
}

impl LossRecovery for Sack {
    const VARIANTS: &'static [TcpVariant] = &[TcpVariant {
        sack_option: true,
        ..on_lite(
            declare(
            "sack",
            "Lite's slow start and congestion avoidance with SACK (RFC 2018 option, RFC 6675 loss recovery)",
            &[
                Golden { scenario: "aron97-topo1-packet", variation: "sack", overrides: &["tcp.variant=sack"] },
                topology1("sack", &["tcp.variant=sack", "switch.buffer=48KB"]),
            ],
        ),
            || Recovery::Sack(Sack::default()),
        )
    }];

    /// A duplicate ACK in RFC 5681's sense, without blocks, is no duplicate
    /// for a SACK sender (RFC 6675 §2): the sender calls
    /// [`Sack::on_ack`] with the blocks instead.
    fn on_dup_ack(&mut self, _w: &mut Window, _c: &AckCtx) -> DupOutcome {
        DupOutcome::Nothing
    }

    /// A new ACK without blocks.
    fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, _dupacks: u32) -> AckOutcome {
        let none = NewAckAction::Nothing;
        match self.on_ack(w, c, &[]) {
            SackStep::Normal => AckOutcome::GROW,
            SackStep::Exit => AckOutcome { action: none, grow: false, left_recovery: true },
            SackStep::Enter | SackStep::Recover => AckOutcome { action: none, grow: false, left_recovery: false },
        }
    }

    /// RFC 6675 §5.1: the scoreboard is cleared (RFC 2018 §8: the receiver
    /// may have reneged), recovery ends and RecoveryPoint = HighData.
    fn on_timeout(&mut self, c: &AckCtx) {
        self.board.clear();
        self.in_recovery = false;
        self.recovery_point = c.snd_max;
        self.limited = 0;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::testutil::{cc, ctx, MSS};
    use crate::transport::tcp::congestion::{CongestionControl, variant};

    /// Segment k covers [1 + k MSS, 1 + (k + 1) MSS).
    fn seg(k: u64) -> (u64, u64) {
        (1 + k * MSS, 1 + (k + 1) * MSS)
    }

    fn sack(cc: &CongestionControl) -> &Sack {
        cc.sack().expect("a SACK controller")
    }

    /// An ACK at `una` (acknowledging `acked` new bytes) with 10 segments
    /// sent.
    fn ack(cc: &mut CongestionControl, una: u64, acked: u64, blocks: &[(u64, u64)]) -> SackStep {
        cc.on_sack_ack(&AckCtx { acked, ..ctx(una, seg(9).1) }, blocks)
    }

    /// cwnd 20 segments, 10 outstanding, segment 0 lost: three duplicate
    /// ACKs SACK segments 1, 2, 3.
    fn recovering() -> CongestionControl {
        let mut cc = cc(variant("sack").unwrap());
        cc.w.cwnd = 20 * MSS;
        assert_eq!(ack(&mut cc, 1, 0, &[seg(1)]), SackStep::Normal);
        assert_eq!(ack(&mut cc, 1, 0, &[(seg(1).0, seg(2).1)]), SackStep::Normal);
        assert_eq!(ack(&mut cc, 1, 0, &[(seg(1).0, seg(3).1)]), SackStep::Enter);
        cc
    }

    #[test]
    fn enters_on_the_third_duplicate_with_half_the_flight() {
        let cc = recovering();
        assert!(cc.in_recovery());
        assert_eq!((cc.ssthresh(), cc.cwnd()), (5 * MSS, 5 * MSS), "FlightSize 10 / 2, not cwnd / 2");
        assert_eq!(sack(&cc).recovery_point, seg(9).1);
    }

    #[test]
    fn enters_at_once_when_the_first_hole_is_lost() {
        // The ACKs for segments 1 and 2 were lost: one ACK SACKs 1..=3.
        let mut cc = cc(variant("sack").unwrap());
        assert_eq!(ack(&mut cc, 1, 0, &[(seg(1).0, seg(3).1)]), SackStep::Enter);
        assert_eq!(cc.dupacks(), 1);
    }

    #[test]
    fn repeated_blocks_are_not_duplicate_acks() {
        let mut cc = cc(variant("sack").unwrap());
        for _ in 0..5 {
            assert_eq!(ack(&mut cc, 1, 0, &[seg(4)]), SackStep::Normal);
        }
        assert_eq!(cc.dupacks(), 1, "only the first ACK SACKed anything new");
        // Nor is an ACK without blocks (RFC 5681's duplicate).
        assert_eq!(ack(&mut cc, 1, 0, &[]), SackStep::Normal);
        assert_eq!(cc.dupacks(), 1);
    }

    #[test]
    fn a_cumulative_ack_resets_the_count_and_grows_outside_recovery() {
        let mut cc = cc(variant("sack").unwrap());
        cc.w.cwnd = 20 * MSS;
        // Half segments, so that nothing counts as lost yet.
        let (a, half) = (seg(5).0, MSS / 2);
        ack(&mut cc, 1, 0, &[(a, a + half)]);
        ack(&mut cc, 1, 0, &[(a, a + 2 * half)]);
        assert_eq!(cc.dupacks(), 2);
        // Segments 0..=1 arrive: a cumulative ACK that also SACKs more.
        assert_eq!(ack(&mut cc, seg(2).0, 2 * MSS, &[(a, a + 3 * half)]), SackStep::Normal);
        assert_eq!(cc.dupacks(), 1, "reset, then counted: it SACKs new data");
        assert_eq!(cc.cwnd(), 21 * MSS, "slow start");
    }

    #[test]
    fn next_seg_rule_1_lost_holes_then_rule_2_new_data() {
        // Segments 0 and 4 lost; 1..=3 and 5..=7 SACKed.
        let mut cc = recovering();
        cc.sack_mut().unwrap().retransmitted(seg(0).0, MSS, 0);
        ack(&mut cc, 1, 0, &[(seg(5).0, seg(7).1), (seg(1).0, seg(3).1)]);
        let max = seg(9).1;
        let s = sack(&cc);
        // Pipe: 0 retransmitted (lost, counted once), 4 lost, 8 and 9 in flight.
        assert_eq!(s.pipe(1, max, MSS), 3 * MSS);
        assert_eq!(s.next_seg(1, max, MSS, true), Some(NextSeg::Retransmit { seq: seg(4).0, len: MSS, rule: 1 }));
        cc.sack_mut().unwrap().retransmitted(seg(4).0, MSS, 1);
        let s = sack(&cc);
        assert_eq!(s.pipe(1, max, MSS), 4 * MSS);
        assert_eq!(s.next_seg(1, max, MSS, true), Some(NextSeg::New), "8, 9 are not lost");
        assert_eq!(s.next_seg(1, max, MSS, false), None, "no hole below the highest SACK; no rescue yet");
    }

    #[test]
    fn next_seg_rule_3_a_hole_not_yet_lost_when_no_new_data() {
        // Segment 0 retransmitted; 1 and 3 SACKed: 2 is a hole with only
        // one segment SACKed above it.
        let mut cc = recovering();
        let s = cc.sack_mut().unwrap();
        s.board.clear();
        s.board.update(1, seg(9).1, &[seg(1), seg(3)]);
        s.retransmitted(seg(0).0, MSS, 0);
        let s = sack(&cc);
        let max = seg(9).1;
        assert!(!s.board().is_lost(seg(2).0, MSS));
        assert_eq!(s.next_seg(1, max, MSS, true), Some(NextSeg::New));
        assert_eq!(s.next_seg(1, max, MSS, false), Some(NextSeg::Retransmit { seq: seg(2).0, len: MSS, rule: 3 }));
    }

    #[test]
    fn next_seg_rule_4_one_rescue_per_recovery() {
        let mut cc = recovering();
        cc.sack_mut().unwrap().retransmitted(seg(0).0, MSS, 0);
        let max = seg(9).1;
        // A partial ACK up to segment 4 (0 repaired): HighACK > RescueRxt.
        assert_eq!(ack(&mut cc, seg(4).0, 4 * MSS, &[]), SackStep::Recover);
        assert_eq!(cc.cwnd(), 5 * MSS, "no growth in recovery");
        let s = sack(&cc);
        let rescue = NextSeg::Retransmit { seq: seg(9).0, len: MSS, rule: 4 };
        assert_eq!(s.next_seg(seg(4).0, max, MSS, false), Some(rescue), "the highest un-SACKed segment");
        cc.sack_mut().unwrap().retransmitted(seg(9).0, MSS, 4);
        let s = sack(&cc);
        assert_eq!(s.high_rxt, seg(0).1, "a rescue leaves HighRxt");
        assert_eq!(s.next_seg(seg(4).0, max, MSS, false), None);
    }

    #[test]
    fn the_ack_beyond_the_recovery_point_ends_recovery() {
        let mut cc = recovering();
        assert_eq!(ack(&mut cc, seg(5).0, 5 * MSS, &[]), SackStep::Recover);
        assert_eq!(ack(&mut cc, seg(9).1, 5 * MSS, &[]), SackStep::Exit);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd(), cc.ssthresh());
        ack(&mut cc, seg(9).1, MSS, &[]);
        assert_eq!(cc.cwnd(), 6 * MSS, "slow start again (cwnd == ssthresh)");
    }

    #[test]
    fn a_timeout_clears_the_scoreboard_and_holds_off_recovery() {
        let mut cc = recovering();
        cc.on_timeout(&ctx(1, seg(9).1));
        assert!(!cc.in_recovery());
        assert_eq!(sack(&cc).board().ranges(), []);
        // Duplicates before HighACK reaches the old HighData start nothing.
        for k in 1..6 {
            assert_eq!(ack(&mut cc, seg(1).0, 0, &[(seg(2).0, seg(k + 2).1)]), SackStep::Normal);
        }
        assert_eq!(ack(&mut cc, seg(9).1, 0, &[]), SackStep::Normal);
    }
}
