//! The ABR source end system (TM 4.0 §5.10.4, source rules 1-11; explained
//! rule by rule in Jain et al., "Source behavior for ATM ABR traffic
//! management", IEEE Communications Magazine, Nov. 1996).
//!
//! A plain value per ABR VC. The world asks it when the VC may send next
//! ([`AbrSource::next_opportunity`]) and, at that time, which cell to send
//! given what is waiting ([`AbrSource::send`]); backward RM cells update the
//! allowed cell rate ([`AbrSource::on_brm`]). Cells that find ACR low wait
//! at the source: Jain et al.'s "most of the queues are at the source"
//! (slides "Observations I").

use super::{cell_spacing, Direction, RmCell};
use crate::time::Time;

/// The parameters of one ABR connection, as the slide "Simulation
/// Parameters" lists them (rates in cells/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbrParams {
    /// Peak, minimum and initial cell rates.
    pub pcr: f64,
    pub mcr: f64,
    pub icr: f64,
    /// Rate increase factor (of PCR, per backward RM cell without CI/NI).
    pub rif: f64,
    /// Rate decrease factor (of ACR, per backward RM cell with CI).
    pub rdf: f64,
    /// Cells between forward RM cells: one FRM then `nrm - 1` other cells.
    pub nrm: u32,
    /// Fewest in-rate cells between FRMs once `trm` has elapsed.
    pub mrm: u32,
    /// Upper bound on the time between FRMs (given `mrm` cells were sent).
    pub trm: Time,
    /// Transient buffer exposure (cells): what the source may send into the
    /// network before feedback must have come back.
    pub tbe: u32,
    /// FRMs sent without a backward RM before rule 6 cuts ACR: ⌈TBE/Nrm⌉.
    pub crm: u32,
    /// Cutoff decrease factor of rule 6 (0 disables the rule).
    pub cdf: f64,
    /// ACR decrease time factor: idle longer than this resets ACR to ICR.
    pub adtf: Time,
    /// Tagged cell rate: out-of-rate FRMs when ACR is below it.
    pub tcr: f64,
}

impl AbrParams {
    /// CRM as TM 4.0 derives it from TBE: ⌈TBE/Nrm⌉.
    pub fn crm_of(tbe: u32, nrm: u32) -> u32 {
        tbe.div_ceil(nrm)
    }
}

/// What the source sends at an opportunity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SourceCell {
    /// A forward RM cell (its fields as sent; `out_of_rate` if CLP = 1).
    Frm(RmCell),
    /// The turned-around RM cell that was waiting (TM 4.0 mode).
    Brm,
    /// One data cell.
    Data,
}

/// Counters of what the source did, for traces and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AbrSourceStats {
    pub frm_sent: u64,
    pub out_of_rate_frm_sent: u64,
    pub brm_sent: u64,
    pub data_sent: u64,
    pub brm_received: u64,
    /// Backward RM cells with CI set (rule 8's decrease by RDF).
    pub brm_with_ci: u64,
    /// Rule 5 resets of ACR to ICR after idling longer than ADTF.
    pub adtf_resets: u64,
    /// Rule 6 cuts by CDF for lack of backward RM cells.
    pub crm_cuts: u64,
}

/// One ABR source end system.
#[derive(Clone, Debug)]
pub struct AbrSource {
    p: AbrParams,
    acr: f64,
    /// In-rate cells sent since the last in-rate FRM.
    cells_since_frm: u32,
    /// When the last in-rate FRM left (None before the first: rule 2).
    last_frm: Option<Time>,
    /// In-rate FRMs sent since the last backward RM cell with BN = 0.
    frm_since_brm: u32,
    /// A BRM was sent in rate since the last in-rate FRM (rule 3b).
    brm_since_frm: bool,
    last_in_rate: Option<Time>,
    last_out_of_rate: Option<Time>,
    pub stats: AbrSourceStats,
}

impl AbrSource {
    /// A source at connection setup: ACR = ICR (rule 2), within [MCR, PCR].
    pub fn new(p: AbrParams) -> Self {
        AbrSource {
            p,
            acr: p.icr.clamp(p.mcr, p.pcr),
            cells_since_frm: 0,
            last_frm: None,
            frm_since_brm: 0,
            brm_since_frm: false,
            last_in_rate: None,
            last_out_of_rate: None,
            stats: AbrSourceStats::default(),
        }
    }

    pub fn params(&self) -> &AbrParams {
        &self.p
    }

    /// The allowed cell rate (cells/s).
    pub fn acr(&self) -> f64 {
        self.acr
    }

    /// Earliest time of the next in-rate cell: one 1/ACR after the last one
    /// (rule 1), at once before the first. No opportunity is banked: an idle
    /// source's next cell goes at `max(now, this)`. Never at ACR = 0.
    fn next_in_rate(&self) -> Time {
        match self.last_in_rate {
            None => 0,
            Some(_) if self.acr <= 0.0 => Time::MAX,
            Some(t) => t.saturating_add(cell_spacing(self.acr)),
        }
    }

    /// Earliest time of an out-of-rate FRM: only while ACR < TCR (rule 11),
    /// one every 1/TCR.
    fn next_out_of_rate(&self) -> Time {
        if self.acr >= self.p.tcr || self.p.tcr <= 0.0 {
            return Time::MAX;
        }
        match self.last_out_of_rate {
            None => 0,
            Some(t) => t.saturating_add(cell_spacing(self.p.tcr)),
        }
    }

    /// When the source may send its next cell (in rate or, at a low ACR, an
    /// out-of-rate FRM). The world sends at `max(now, this)` when a cell
    /// waits; a later rate increase moves it earlier.
    pub fn next_opportunity(&self) -> Time {
        self.next_in_rate().min(self.next_out_of_rate())
    }

    /// Is an in-rate FRM due (rules 2 and 3a)?
    fn frm_due(&self, now: Time) -> bool {
        let Some(last) = self.last_frm else { return true };
        self.cells_since_frm + 1 >= self.p.nrm || (self.cells_since_frm >= self.p.mrm && now.saturating_sub(last) >= self.p.trm)
    }

    /// The cell to send at `now` (not before [`Self::next_opportunity`]),
    /// given whether a data cell and a turned-around RM cell wait. `None`
    /// when nothing is to be sent; the opportunity is then not used.
    pub fn send(&mut self, now: Time, data_waiting: bool, brm_waiting: bool) -> Option<SourceCell> {
        if self.next_in_rate() <= now {
            let cell = if self.frm_due(now) {
                SourceCell::Frm(self.forward_rm(now))
            } else if brm_waiting && (!self.brm_since_frm || !data_waiting) {
                self.brm_since_frm = true;
                self.stats.brm_sent += 1;
                SourceCell::Brm
            } else if data_waiting {
                self.stats.data_sent += 1;
                SourceCell::Data
            } else {
                return None;
            };
            if !matches!(cell, SourceCell::Frm(_)) {
                self.cells_since_frm += 1;
            }
            self.last_in_rate = Some(now);
            return Some(cell);
        }
        if self.next_out_of_rate() <= now && (data_waiting || brm_waiting) {
            // Rule 11: a CLP = 1 FRM so feedback can raise a rate too low
            // for any in-rate FRM to get out; no data goes out of rate.
            self.last_out_of_rate = Some(now);
            self.stats.out_of_rate_frm_sent += 1;
            return Some(SourceCell::Frm(RmCell { out_of_rate: true, ..self.rm_fields() }));
        }
        None
    }

    /// An in-rate FRM at `now`: rules 5 and 6 adjust ACR, then the cell
    /// carries CCR = ACR (rule 7) and the counters restart.
    fn forward_rm(&mut self, now: Time) -> RmCell {
        if let Some(last) = self.last_frm {
            // Rule 5: use it or lose it, for a source idle longer than ADTF.
            if self.acr > self.p.icr && now - last > self.p.adtf {
                self.acr = self.p.icr.max(self.p.mcr);
                self.stats.adtf_resets += 1;
            }
        }
        // Rule 6: CRM FRMs went out without any backward RM cell coming
        // back: cut ACR by CDF, again at every further FRM.
        if self.frm_since_brm >= self.p.crm && self.p.cdf > 0.0 {
            self.acr = (self.acr - self.acr * self.p.cdf).max(self.p.mcr);
            self.stats.crm_cuts += 1;
        }
        self.last_frm = Some(now);
        self.cells_since_frm = 0;
        self.brm_since_frm = false;
        self.frm_since_brm += 1;
        self.stats.frm_sent += 1;
        self.rm_fields()
    }

    /// The fields of a forward RM cell (rule 10).
    fn rm_fields(&self) -> RmCell {
        RmCell {
            dir: Direction::Forward,
            bn: false,
            ci: false,
            ni: false,
            er: self.p.pcr,
            ccr: self.acr,
            mcr: self.p.mcr,
            out_of_rate: false,
        }
    }

    /// A backward RM cell of this VC reached the source (rules 8 and 9).
    pub fn on_brm(&mut self, cell: &RmCell) {
        debug_assert_eq!(cell.dir, Direction::Backward);
        self.stats.brm_received += 1;
        if cell.ci {
            self.stats.brm_with_ci += 1;
            self.acr = (self.acr - self.acr * self.p.rdf).max(self.p.mcr);
        } else if !cell.ni {
            self.acr = (self.acr + self.p.rif * self.p.pcr).min(self.p.pcr);
        }
        self.acr = cell.er.min(self.acr).max(self.p.mcr);
        if !cell.bn {
            self.frm_since_brm = 0;
        }
    }
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
