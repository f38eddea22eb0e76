//! The ABR destination end system (TM 4.0 §5.10.5): it remembers the EFCI
//! bit of the last data cell and turns every forward RM cell around.
//!
//! Two ways to send the turned-around cell back (a choice TM 4.0 leaves to
//! the implementation, and which matters for TCP, whose ACK VC is lightly
//! loaded): in `Immediate` mode, the usual one in 1996 simulators and our
//! default for Jain et al., the backward RM cell takes the next cell slot of
//! the destination's output line, ahead of its data; in `Tm4` mode it waits
//! as an in-rate cell of the reverse VC's own source (source rule 3b), and a
//! newer one overwrites one still waiting (destination rule 4).

use super::{Direction, RmCell};

/// How turned-around RM cells leave the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Turnaround {
    #[default]
    Immediate,
    Tm4,
}

/// Counters of one destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AbrDestinationStats {
    pub frm_received: u64,
    pub brm_returned: u64,
    /// Waiting turned-around cells replaced by a newer one (`Tm4` mode).
    pub overwritten: u64,
}

/// The destination end of one ABR VC.
#[derive(Clone, Debug, Default)]
pub struct AbrDestination {
    pub mode: Turnaround,
    /// EFCI of the last data cell received (rule 1).
    efci: bool,
    /// The turned-around cell waiting for the reverse source (`Tm4`).
    waiting: Option<RmCell>,
    pub stats: AbrDestinationStats,
}

impl AbrDestination {
    pub fn new(mode: Turnaround) -> Self {
        AbrDestination { mode, ..Default::default() }
    }

    /// A data cell arrived carrying `efci` (rule 1), set by a binary-feedback
    /// switch (`abr.switch = "efci"`; ERICA signals by explicit rate instead).
    pub fn on_data(&mut self, efci: bool) {
        self.efci = efci;
    }

    /// A forward RM cell arrived (rule 2): turned around with DIR = 1, CI set
    /// if the last data cell carried EFCI (whose memory is then cleared), the
    /// other fields unchanged and BN = 0. In `Immediate` mode the cell is
    /// returned to send now; in `Tm4` mode it waits ([`Self::take_waiting`]),
    /// replacing an older one (rule 4).
    pub fn on_frm(&mut self, frm: &RmCell) -> Option<RmCell> {
        debug_assert_eq!(frm.dir, Direction::Forward);
        self.stats.frm_received += 1;
        let mut brm = RmCell { dir: Direction::Backward, bn: false, ..*frm };
        if self.efci {
            brm.ci = true;
            self.efci = false;
        }
        match self.mode {
            Turnaround::Immediate => {
                self.stats.brm_returned += 1;
                Some(brm)
            }
            Turnaround::Tm4 => {
                if self.waiting.replace(brm).is_some() {
                    self.stats.overwritten += 1;
                }
                None
            }
        }
    }

    /// Is a turned-around cell waiting for the reverse source (`Tm4`)?
    pub fn has_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// The reverse source sends the waiting cell (its rule 3b chose a BRM).
    pub fn take_waiting(&mut self) -> Option<RmCell> {
        let c = self.waiting.take();
        if c.is_some() {
            self.stats.brm_returned += 1;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frm(er: f64, ccr: f64) -> RmCell {
        RmCell { dir: Direction::Forward, bn: false, ci: false, ni: false, er, ccr, mcr: 5.0, out_of_rate: false }
    }

    #[test]
    fn immediate_mode_turns_the_cell_around_with_fields_kept() {
        let mut d = AbrDestination::new(Turnaround::Immediate);
        let f = RmCell { ni: true, ..frm(1000.0, 700.0) };
        let b = d.on_frm(&f).expect("returned at once");
        assert_eq!(b, RmCell { dir: Direction::Backward, ..f });
        assert!(!d.has_waiting());
        assert_eq!(d.stats.brm_returned, 1);
    }

    #[test]
    fn efci_of_the_last_data_cell_sets_ci_once() {
        let mut d = AbrDestination::new(Turnaround::Immediate);
        d.on_data(true);
        assert!(d.on_frm(&frm(1.0, 1.0)).unwrap().ci);
        assert!(!d.on_frm(&frm(1.0, 1.0)).unwrap().ci, "memory cleared by the turnaround");
        d.on_data(true);
        d.on_data(false);
        assert!(!d.on_frm(&frm(1.0, 1.0)).unwrap().ci, "only the last data cell counts");
    }

    #[test]
    fn tm4_mode_holds_one_cell_and_a_newer_one_overwrites_it() {
        let mut d = AbrDestination::new(Turnaround::Tm4);
        assert_eq!(d.on_frm(&frm(1000.0, 1.0)), None);
        assert_eq!(d.on_frm(&frm(2000.0, 2.0)), None);
        assert_eq!(d.stats.overwritten, 1);
        let b = d.take_waiting().expect("one waits");
        assert_eq!((b.dir, b.er, b.ccr), (Direction::Backward, 2000.0, 2.0));
        assert_eq!(d.take_waiting(), None);
        assert_eq!(d.stats.brm_returned, 1);
    }
}
