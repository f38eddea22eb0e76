//! The SACK sender's scoreboard (RFC 6675 §3, §4): which bytes above the
//! cumulative ACK the receiver has reported, and the routines RFC 6675
//! defines on it — `Update()`, `IsLost()` and `SetPipe()`.
//!
//! It is a sorted list of disjoint SACKed ranges [start, end) above
//! `snd_una` (RFC 6675 marks octets; ranges give the same answers). Its
//! length is bounded by the holes of one window (one range per segment at
//! worst); the vector grows to that high-water mark and is reused, so ACKs
//! do not allocate once it is reached. Nothing here runs per cell.

use super::THRESH;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// SACKed ranges, sorted.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// Forgets every SACK (RFC 2018 §8, RFC 6675 §5.1: on a retransmission
    /// timeout, as the receiver may have reneged).
    pub fn clear(&mut self) {
        self.sacked.clear();
    }

    /// `Update()` (RFC 6675 §4, §5): forgets what the cumulative ACK `una`
    /// covers and marks the reported blocks, clipped to [una, snd_max)
    /// (blocks outside it are old or invalid, RFC 2018 §4 and §8). Returns
    /// the bytes newly SACKed: an ACK with any is a duplicate ACK in RFC
    /// 6675's sense (§2). A block already known adds nothing.
    pub fn update(&mut self, una: u64, snd_max: u64, blocks: &[(u64, u64)]) -> u64 {
        let gone = self.sacked.partition_point(|&(_, e)| e <= una);
        self.sacked.drain(..gone);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(una);
        }
        blocks.iter().map(|&(s, e)| self.mark(s.max(una), e.min(snd_max))).sum()
    }

    /// Marks [s, e); returns the bytes not marked before.
    fn mark(&mut self, s: u64, e: u64) -> u64 {
        if s >= e {
            return 0;
        }
        // Ranges that overlap or touch [s, e) are merged into it.
        let lo = self.sacked.partition_point(|&(_, re)| re < s);
        let hi = self.sacked.partition_point(|&(rs, _)| rs <= e);
        let covered: u64 = self.sacked[lo..hi].iter().map(|&(rs, re)| re.min(e).saturating_sub(rs.max(s))).sum();
        let (ns, ne) = if lo < hi { (s.min(self.sacked[lo].0), e.max(self.sacked[hi - 1].1)) } else { (s, e) };
        if lo < hi {
            self.sacked[lo] = (ns, ne);
            self.sacked.drain(lo + 1..hi);
        } else {
            self.sacked.insert(lo, (ns, ne));
        }
        (e - s) - covered
    }

    /// `IsLost(seq)` (RFC 6675 §4): DupThresh discontiguous SACKed ranges
    /// above `seq`, or more than (DupThresh − 1) × SMSS SACKed bytes above
    /// it.
    pub fn is_lost(&self, seq: u64, mss: u64) -> bool {
        let i = self.sacked.partition_point(|&(_, e)| e <= seq + 1);
        let above = &self.sacked[i..];
        let bytes: u64 = above.iter().map(|&(s, e)| e - s.max(seq + 1)).sum();
        above.len() >= THRESH as usize || bytes > (THRESH as u64 - 1) * mss
    }

    /// One past the highest SACKed byte, if any.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|&(_, e)| e)
    }

    /// The end of the SACKed range holding `seq`, if it is SACKed.
    pub fn sacked_until(&self, seq: u64) -> Option<u64> {
        let i = self.sacked.partition_point(|&(_, e)| e <= seq);
        self.sacked.get(i).filter(|&&(s, _)| s <= seq).map(|&(_, e)| e)
    }

    /// The first un-SACKed hole [a, b) with a ≥ `from`, below `until`.
    pub fn hole_from(&self, from: u64, until: u64) -> Option<(u64, u64)> {
        let a = self.sacked_until(from).unwrap_or(from);
        if a >= until {
            return None;
        }
        let i = self.sacked.partition_point(|&(s, _)| s <= a);
        let b = self.sacked.get(i).map_or(until, |&(s, _)| s.min(until));
        Some((a, b))
    }

    /// The last un-SACKed byte below `snd_max` and at or above `una`.
    pub fn highest_unsacked(&self, una: u64, snd_max: u64) -> Option<u64> {
        let mut top = snd_max;
        for &(s, e) in self.sacked.iter().rev() {
            if e < top {
                break;
            }
            top = top.min(s);
        }
        (top > una).then(|| top - 1)
    }

    /// `SetPipe()` (RFC 6675 §4): the bytes between `una` and `snd_max`
    /// believed in the network. Each un-SACKed byte counts once if it is not
    /// lost, and once more if it was retransmitted (below `high_rxt`, one
    /// past HighRxt). IsLost is the same for every byte of a hole (the
    /// SACKed data above them are the same), so holes are counted whole.
    pub fn pipe(&self, una: u64, snd_max: u64, high_rxt: u64, mss: u64) -> u64 {
        let mut pipe = 0;
        let mut at = una;
        while let Some((a, b)) = self.hole_from(at, snd_max) {
            if !self.is_lost(a, mss) {
                pipe += b - a;
            }
            pipe += high_rxt.min(b).saturating_sub(a);
            at = b;
        }
        pipe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    /// Segment k covers [1 + 100k, 101 + 100k).
    fn seg(k: u64) -> (u64, u64) {
        (1 + k * MSS, 1 + (k + 1) * MSS)
    }

    fn board(blocks: &[(u64, u64)]) -> Scoreboard {
        let mut b = Scoreboard::default();
        b.update(1, 1 + 20 * MSS, blocks);
        b
    }

    #[test]
    fn update_merges_and_counts_only_new_bytes() {
        let mut b = Scoreboard::default();
        assert_eq!(b.update(1, 2001, &[seg(2)]), MSS);
        assert_eq!(b.update(1, 2001, &[seg(2)]), 0, "a repeated block is no news");
        assert_eq!(b.update(1, 2001, &[(seg(2).0, seg(3).1), seg(5)]), 2 * MSS);
        assert_eq!(b.ranges(), [(201, 401), (501, 601)]);
        // A block filling the gap between two ranges merges all three.
        assert_eq!(b.update(1, 2001, &[seg(4)]), MSS);
        assert_eq!(b.ranges(), [(201, 601)]);
        // Overlapping reports count the overlap once.
        assert_eq!(b.update(1, 2001, &[(501, 801), (701, 901)]), 300);
        assert_eq!(b.ranges(), [(201, 901)]);
    }

    #[test]
    fn update_clips_to_the_window_and_forgets_what_the_ack_covers() {
        let mut b = board(&[seg(2), seg(5)]);
        assert_eq!(b.update(1, 2001, &[(1901, 2101)]), 100, "beyond snd_max is clipped");
        b.update(351, 2001, &[]);
        assert_eq!(b.ranges(), [(501, 601), (1901, 2001)]);
        assert_eq!(b.update(351, 2001, &[(201, 301)]), 0, "a block below snd_una is old news");
        b.update(551, 2001, &[]);
        assert_eq!(b.ranges(), [(551, 601), (1901, 2001)], "a partly covered range is cut");
        b.clear();
        assert_eq!(b.highest_sacked(), None);
    }

    #[test]
    fn is_lost_needs_three_segments_or_three_ranges_above() {
        // Two full segments SACKed above segment 0: not lost; three: lost.
        assert!(!board(&[seg(1), seg(2)]).is_lost(1, MSS));
        assert!(board(&[seg(1), seg(2), seg(3)]).is_lost(1, MSS));
        assert!(board(&[(seg(1).0, seg(3).1)]).is_lost(1, MSS));
        // Three discontiguous small ranges are enough (DupThresh sequences).
        assert!(board(&[(101, 111), (201, 211), (301, 311)]).is_lost(1, MSS));
        assert!(!board(&[(101, 111), (201, 211)]).is_lost(1, MSS));
        // Only what lies above counts.
        let b = board(&[seg(1), seg(2), seg(3)]);
        assert!(!b.is_lost(seg(1).1, MSS), "segment 2 has only one above it");
    }

    #[test]
    fn holes_and_the_highest_unsacked_byte() {
        let b = board(&[seg(2), seg(3), seg(6)]);
        assert_eq!(b.hole_from(1, 2001), Some((1, 201)));
        assert_eq!(b.hole_from(250, 2001), Some((401, 601)), "from inside a SACKed range");
        assert_eq!(b.hole_from(401, 601), Some((401, 601)));
        assert_eq!(b.hole_from(701, 701), None);
        assert_eq!(b.highest_unsacked(1, 2001), Some(2000));
        assert_eq!(b.highest_unsacked(1, 701), Some(600), "the top segment is SACKed");
        assert_eq!(board(&[(1, 701)]).highest_unsacked(1, 701), None);
    }

    #[test]
    fn pipe_counts_unlost_holes_and_retransmissions() {
        // 10 segments out, 0 lost, 1..=4 SACKed: segment 0 is lost, the
        // five above 4 are in flight.
        let b = board(&[(seg(1).0, seg(4).1)]);
        let max = seg(9).1;
        assert_eq!(b.pipe(1, max, 0, MSS), 5 * MSS);
        // Segment 0 retransmitted: it counts again.
        assert_eq!(b.pipe(1, max, seg(0).1, MSS), 6 * MSS);
        // Nothing SACKed: everything is in flight (RFC 5681's FlightSize).
        assert_eq!(board(&[]).pipe(1, max, 0, MSS), 10 * MSS);
        // A retransmitted segment not lost counts twice (RFC 6675 §4 note).
        let b = board(&[seg(1)]);
        assert_eq!(b.pipe(1, max, seg(0).1, MSS), 10 * MSS);
    }

    #[test]
    fn pipe_with_two_losses_in_one_window() {
        // Segments 0 and 3 lost, 1, 2, 4, 5, 6 SACKed, 7..9 not yet.
        let b = board(&[seg(1), seg(2), (seg(4).0, seg(6).1)]);
        let max = seg(9).1;
        // 0 and 3 are lost (3 segments above each), 7..9 are not.
        assert!(b.is_lost(seg(3).0, MSS));
        assert_eq!(b.pipe(1, max, 0, MSS), 3 * MSS);
        assert_eq!(b.pipe(1, max, seg(0).1, MSS), 4 * MSS);
        assert_eq!(b.pipe(1, max, seg(3).1, MSS), 5 * MSS);
    }
}
