//! Cell discard policies of an ATM output queue (Romanow & Floyd 1995;
//! Jain et al. 1996 for EOM protection; docs/atm.md). All decisions
//! are taken at cell arrival from the queue occupancy `q` (cells, including
//! the one in transmission) and the limit `b`.
//!
//! Tail drop needs no state. The frame-aware policies keep, per (port, VC),
//! whether the current frame is being discarded ([`VcDiscard`]); a cell is
//! the first of a frame when the previous cell seen on the VC here was an EOM,
//! which with in-order VCs is the cell with `index == 0`.

use crate::net::Unit;

/// Why a unit was dropped (per-port counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room (plain tail drop, or a router's byte/packet limit).
    Tail = 0,
    /// Partial Packet Discard: the rest of a frame that already lost a cell.
    Ppd = 1,
    /// Early Packet Discard: a whole frame refused at its first cell.
    Epd = 2,
    /// A non-EOM cell refused to keep room for EOM cells.
    EomReserve = 3,
    /// A loss the scenario scripts (`flow.drop_segments`), for tests and
    /// teaching: the whole frame is dropped at the sender's adapter.
    Scripted = 4,
    /// Random drop (push-out): a packet chosen at random when the buffer
    /// overflowed (Mankin 1990; RFC 1254).
    RandomDrop = 5,
    /// An early drop by RED (Floyd & Jacobson 1993).
    Red = 6,
    /// Independent random cell loss on a line (`[abr.loss]`: the scattered
    /// loss of Jain et al.'s fast-retransmit experiment).
    Random = 7,
}

impl DropReason {
    pub const COUNT: usize = 8;
    pub const NAMES: [&'static str; 8] = ["tail", "ppd", "epd", "eom_reserve", "scripted", "random_drop", "red", "random"];
}

/// The discard policy of one port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscardPolicy {
    /// Accept iff q < b ("drop-tail" in Aron & Druschel).
    Tail,
    /// Partial Packet Discard [Romanow & Floyd 95]: after a cell of a frame is
    /// dropped, drop the frame's remaining cells but keep its EOM if there is
    /// room, so the next frame reassembles.
    Ppd,
    /// Early Packet Discard [RF95]: refuse a whole frame (EOM included) when
    /// the queue holds at least `threshold` cells at its first cell; PPD once a
    /// frame has been admitted.
    Epd { threshold: u64 },
    /// "Intelligent tail drop" (Jain et al.): non-EOM cells need
    /// q < b − reserve, EOM cells q < b; optionally with PPD.
    EomProtect { reserve: u64, ppd: bool },
}

/// Frame-discard state of one VC at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VcDiscard {
    /// Drop the remaining cells of the current frame.
    pub discarding: bool,
    /// EPD: drop the EOM as well.
    pub drop_eom_too: bool,
}

impl DiscardPolicy {
    pub fn needs_vc_state(&self) -> bool {
        !matches!(self, DiscardPolicy::Tail)
    }

    /// Decides the fate of `cell` arriving to a queue holding `q` of `b` cells.
    #[inline]
    pub fn decide(&self, st: Option<&mut VcDiscard>, cell: &Unit, q: u64, b: u64) -> Result<(), DropReason> {
        let (ppd, reserve) = match *self {
            DiscardPolicy::Tail => {
                return if q < b { Ok(()) } else { Err(DropReason::Tail) };
            }
            DiscardPolicy::Ppd => (true, 0),
            DiscardPolicy::Epd { .. } => (true, 0),
            DiscardPolicy::EomProtect { reserve, ppd } => (ppd, reserve),
        };
        let st = st.expect("frame-aware policy without per-VC state");
        let eom = cell.is_eom();
        if let DiscardPolicy::Epd { threshold } = *self {
            if cell.is_first() && !st.discarding && q >= threshold {
                // Refuse the whole frame, EOM included (a one-cell frame is
                // refused entirely here).
                st.discarding = !eom;
                st.drop_eom_too = !eom;
                return Err(DropReason::Epd);
            }
        }
        if st.discarding {
            if st.drop_eom_too {
                if eom {
                    *st = VcDiscard::default();
                }
                return Err(DropReason::Epd);
            }
            if !eom {
                return Err(DropReason::Ppd);
            }
            // Keep the EOM so the next frame is delimited; if there is no room
            // stay in discard mode: the next frame is lost to the merge anyway.
            if q < b {
                st.discarding = false;
                return Ok(());
            }
            return Err(DropReason::Tail);
        }
        let limit = if eom { b } else { b.saturating_sub(reserve) };
        if q < limit {
            return Ok(());
        }
        if ppd {
            // A lost middle cell dooms the rest of its frame; a lost EOM dooms
            // the next frame (merged at reassembly), so discard it here
            // (our choice; Romanow & Floyd leave the lost-EOM case open).
            st.discarding = true;
        }
        Err(if !eom && reserve > 0 && q < b { DropReason::EomReserve } else { DropReason::Tail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    fn cell(index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(0), 0, index, ncells, 53)
    }

    /// Runs the cells of frames through a policy with the queue at `q[i]`.
    fn run(p: DiscardPolicy, cells: &[(u16, u16, u64)], b: u64) -> Vec<bool> {
        let mut st = VcDiscard::default();
        cells.iter().map(|&(i, n, q)| p.decide(Some(&mut st), &cell(i, n), q, b).is_ok()).collect()
    }

    #[test]
    fn tail_drop_is_stateless() {
        let p = DiscardPolicy::Tail;
        assert!(p.decide(None, &cell(0, 3), 9, 10).is_ok());
        assert_eq!(p.decide(None, &cell(1, 3), 10, 10), Err(DropReason::Tail));
        assert!(p.decide(None, &cell(2, 3), 9, 10).is_ok());
    }

    #[test]
    fn ppd_drops_rest_of_frame_but_keeps_eom() {
        // Frame of 4: cell 1 finds the queue full; 2 is dropped though there
        // is room; the EOM is kept; the next frame is accepted.
        let r = run(DiscardPolicy::Ppd, &[(0, 4, 0), (1, 4, 10), (2, 4, 0), (3, 4, 0), (0, 2, 0), (1, 2, 0)], 10);
        assert_eq!(r, vec![true, false, false, true, true, true]);
    }

    #[test]
    fn ppd_eom_to_full_queue_dooms_next_frame_then_recovers() {
        let r = run(DiscardPolicy::Ppd, &[(0, 2, 10), (1, 2, 10), (0, 2, 0), (1, 2, 0), (0, 1, 0)], 10);
        // First frame: both dropped (EOM found no room) -> discarding stays on,
        // second frame's first cell dropped, its EOM kept; third frame fine.
        assert_eq!(r, vec![false, false, false, true, true]);
    }

    #[test]
    fn epd_refuses_whole_frame_at_threshold_including_eom() {
        let p = DiscardPolicy::Epd { threshold: 5 };
        let r = run(p, &[(0, 3, 5), (1, 3, 0), (2, 3, 0), (0, 2, 4), (1, 2, 9)], 10);
        assert_eq!(r, vec![false, false, false, true, true]);
    }

    #[test]
    fn epd_single_cell_frame_is_a_whole_frame() {
        let p = DiscardPolicy::Epd { threshold: 5 };
        let r = run(p, &[(0, 1, 7), (0, 1, 1)], 10);
        assert_eq!(r, vec![false, true]);
    }

    #[test]
    fn epd_threshold_equal_to_limit_behaves_like_ppd() {
        let p = DiscardPolicy::Epd { threshold: 10 };
        let r = run(p, &[(0, 3, 9), (1, 3, 10), (2, 3, 0)], 10);
        assert_eq!(r, vec![true, false, true]);
    }

    #[test]
    fn eom_protection_keeps_eoms_while_memory_remains() {
        let p = DiscardPolicy::EomProtect { reserve: 2, ppd: false };
        let mut st = VcDiscard::default();
        assert_eq!(p.decide(Some(&mut st), &cell(0, 3), 8, 10), Err(DropReason::EomReserve));
        assert!(p.decide(Some(&mut st), &cell(2, 3), 9, 10).is_ok());
        assert_eq!(p.decide(Some(&mut st), &cell(2, 3), 10, 10), Err(DropReason::Tail));
    }

    #[test]
    fn eom_protection_with_ppd_drops_the_rest_of_a_damaged_frame_but_its_eom() {
        let p = DiscardPolicy::EomProtect { reserve: 2, ppd: true };
        let mut st = VcDiscard::default();
        // The first cell finds the queue above b - reserve: refused, and the frame is damaged.
        assert_eq!(p.decide(Some(&mut st), &cell(0, 3), 8, 10), Err(DropReason::EomReserve));
        // Its middle cell would fit now, but PPD drops it: the receiver would discard it.
        assert_eq!(p.decide(Some(&mut st), &cell(1, 3), 0, 10), Err(DropReason::Ppd));
        // The EOM is kept, so the next frame is delimited, and the next frame is admitted.
        assert!(p.decide(Some(&mut st), &cell(2, 3), 0, 10).is_ok());
        assert!(p.decide(Some(&mut st), &cell(0, 2), 0, 10).is_ok());
    }

    #[test]
    fn tail_drop_losing_only_the_eom() {
        // The frame's first cells pass and only its EOM is dropped: under tail
        // drop the next frame is offered normally (the merge dooms it later).
        let r = run(DiscardPolicy::Tail, &[(0, 3, 0), (1, 3, 0), (2, 3, 10), (0, 2, 0)], 10);
        assert_eq!(r, vec![true, true, false, true]);
    }
}
