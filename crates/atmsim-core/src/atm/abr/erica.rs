//! ERICA, the explicit-rate switch algorithm Jain et al. run in "TCP/IP over
//! ABR" (slide "Simulation Parameters": "ERICA modified", target utilisation
//! 90 %, averaging interval min{100 cells, 1000 µs}).
//!
//! One [`Erica`] per switch output port. It measures, over each averaging
//! interval, the ABR cells arriving for the port (data and RM) and the
//! higher-priority (VBR) cells the port carries; at the end of the interval
//! it computes the ABR capacity (target utilisation × line rate − VBR use),
//! the overload factor z = ABR input rate / ABR capacity, the number of
//! active VCs and the fair share. Forward RM cells tell it each VC's current
//! cell rate (CCR); backward RM cells of the same VCs, as they pass the
//! switch on their way back, get their ER field lowered to the VC's share.
//!
//! Two versions (the slides do not say what their modification was):
//! - [`EricaVariant::Full`], the default: the algorithm as Jain,
//!   Kalyanaraman, Goyal, Fahmy and Viswanathan describe it completely in
//!   ATM Forum/96-1172 (Aug. 1996), with the max-allocation term that
//!   equalises rates under low load and the limiter that stops a VC below
//!   the fair share jumping above it;
//! - [`EricaVariant::Basic`], the first ERICA (ATM Forum/95-0178, Feb.
//!   1995): ER = min(max(fair share, CCR/z), ABR capacity);
//! - [`EricaVariant::Plus`], ERICA+ (Jain et al., 96-1172 and
//!   Kalyanaraman's dissertation, §6.14-6.19): the full version whose
//!   target is no longer a constant fraction of the line but the whole ABR
//!   capacity (line less VBR) times f(q), a function of the port's queue q
//!   ([`QueueControl`]): above 1 (up to b) while the queue is below its
//!   target Q0 = T0 × ABR capacity, so a short queue lets the sources load
//!   the line fully, and below 1 (down to QDLF) above it, so a long queue
//!   is drained. Of the two curves published for f, this is the simpler
//!   one, without hysteresis, the one the authors chose.
//!
//! Choices: the interval also ends when `interval_time` has elapsed, checked
//! when a cell arrives (an interval without cells simply lasts longer, which
//! averages the same rates); a VC whose FRM has not reached the port yet
//! counts with CCR = 0 (so it gets at least the fair share).

use crate::time::{secs, Time};

/// Which ERICA runs (recorded in the run's metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EricaVariant {
    Basic,
    #[default]
    Full,
    Plus,
}

impl EricaVariant {
    pub fn name(self) -> &'static str {
        match self {
            EricaVariant::Basic => "basic",
            EricaVariant::Full => "full",
            EricaVariant::Plus => "plus",
        }
    }
}

/// The parameters of ERICA at one port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EricaConfig {
    pub variant: EricaVariant,
    /// Target utilisation U of the line by ABR and higher classes together.
    pub target_utilization: f64,
    /// The averaging interval ends after this many ABR cells ...
    pub interval_cells: u32,
    /// ... or this much time, whichever comes first.
    pub interval_time: Time,
    /// Half-width of the band around z = 1 within which the full version
    /// also offers the previous interval's largest allocation.
    pub delta: f64,
    /// The first backward RM cell of a VC in an interval computes its ER;
    /// later ones in the same interval reuse it.
    pub one_feedback_per_interval: bool,
    /// ERICA+'s queue control (used by [`EricaVariant::Plus`] only).
    pub queue_control: QueueControl,
}

/// ERICA+'s queue control function (Kalyanaraman, §6.16, Fig. 6.6): with
/// the target queue Q0 = `target_delay` × ABR capacity (in cells),
/// f(q) = b·Q0 / ((b − 1)·q + Q0) for q ≤ Q0 (from b at an empty queue to 1
/// at Q0) and f(q) = max(QDLF, a·Q0 / ((a − 1)·q + Q0)) above (from 1 down
/// towards 0, bounded by QDLF). Published values: a = 1.15, b = 1.05,
/// QDLF = 0.5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueControl {
    pub target_delay: Time,
    pub a: f64,
    pub b: f64,
    pub qdlf: f64,
}

impl Default for QueueControl {
    fn default() -> Self {
        QueueControl { target_delay: 500 * crate::time::PS_PER_US, a: 1.15, b: 1.05, qdlf: 0.5 }
    }
}

impl QueueControl {
    /// f(q) for a queue of `q` cells and a target of `q0` cells.
    pub fn fraction(&self, q: f64, q0: f64) -> f64 {
        if q0 <= 0.0 {
            return self.qdlf;
        }
        if q <= q0 {
            self.b * q0 / ((self.b - 1.0) * q + q0)
        } else {
            (self.a * q0 / ((self.a - 1.0) * q + q0)).max(self.qdlf)
        }
    }
}

/// The load measured over the last complete averaging interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// Cells/s left for ABR: max(0, U × line − higher-priority rate).
    pub abr_capacity: f64,
    /// ABR input rate / ABR capacity (tiny when idle, infinite with no
    /// capacity left).
    pub z: f64,
    pub n_active: u32,
    pub fair_share: f64,
}

/// z for an interval without ABR input: any VC's share is then the capacity.
const IDLE_Z: f64 = 1e-9;

/// ERICA at one output port.
#[derive(Clone, Debug)]
pub struct Erica {
    cfg: EricaConfig,
    line_cells_per_s: f64,
    start: Time,
    abr_cells: u32,
    higher_cells: u64,
    seen: Vec<bool>,
    seen_list: Vec<u32>,
    ccr: Vec<f64>,
    /// ER given to each VC in this interval (`one_feedback_per_interval`).
    fed_back: Vec<Option<f64>>,
    fed_list: Vec<u32>,
    m: Measurement,
    max_alloc_previous: f64,
    max_alloc_current: f64,
    /// The port's queue (cells, the one in transmission counted) when a
    /// cell last arrived (ERICA+ only).
    queue: u64,
    pub intervals: u64,
}

impl Erica {
    /// ERICA for a line of `line_cells_per_s` carrying `num_vcs` VCs (ids
    /// index its per-VC arrays). Before the first interval ends it offers
    /// the whole target capacity, as an idle port would.
    pub fn new(cfg: EricaConfig, line_cells_per_s: f64, num_vcs: usize) -> Self {
        let capacity = cfg.target_utilization * line_cells_per_s;
        Erica {
            cfg,
            line_cells_per_s,
            start: 0,
            abr_cells: 0,
            higher_cells: 0,
            seen: vec![false; num_vcs],
            seen_list: Vec::with_capacity(num_vcs),
            ccr: vec![0.0; num_vcs],
            fed_back: vec![None; num_vcs],
            fed_list: Vec::with_capacity(num_vcs),
            m: Measurement { abr_capacity: capacity, z: IDLE_Z, n_active: 1, fair_share: capacity },
            max_alloc_previous: 0.0,
            max_alloc_current: 0.0,
            queue: 0,
            intervals: 0,
        }
    }

    pub fn config(&self) -> &EricaConfig {
        &self.cfg
    }

    /// The last complete interval's measurement.
    pub fn measurement(&self) -> Measurement {
        self.m
    }

    /// Ends the interval if its time is up (before counting a cell at `now`).
    #[inline]
    fn tick(&mut self, now: Time) {
        if now.saturating_sub(self.start) >= self.cfg.interval_time {
            self.close(now);
        }
    }

    /// An ABR cell (data or RM, forward direction) of `vc` arrives for this
    /// port's line.
    #[inline]
    pub fn on_abr_cell(&mut self, now: Time, vc: usize) {
        self.tick(now);
        self.abr_cells += 1;
        if !self.seen[vc] {
            self.seen[vc] = true;
            self.seen_list.push(vc as u32);
        }
        if self.abr_cells >= self.cfg.interval_cells {
            self.close(now);
        }
    }

    /// A higher-priority (VBR, CBR) cell goes out on this port's line.
    #[inline]
    pub fn on_higher_priority_cell(&mut self, now: Time) {
        self.tick(now);
        self.higher_cells += 1;
    }

    /// The port's queue now (ERICA+ measures it as cells arrive).
    #[inline]
    pub fn observe_queue(&mut self, cells: u64) {
        self.queue = cells;
    }

    /// Does this port's ERICA need the queue ([`Erica::observe_queue`])?
    #[inline]
    pub fn controls_queue(&self) -> bool {
        self.cfg.variant == EricaVariant::Plus
    }

    /// A forward RM cell of `vc` tells the port its current cell rate.
    pub fn on_frm(&mut self, vc: usize, ccr: f64) {
        self.ccr[vc] = ccr;
    }

    /// End of an averaging interval: the new capacity, load and fair share.
    fn close(&mut self, now: Time) {
        let delta = secs(now - self.start);
        if delta <= 0.0 {
            return; // a zero-length interval measures nothing; keep counting
        }
        let higher_rate = self.higher_cells as f64 / delta;
        let abr_capacity = match self.cfg.variant {
            EricaVariant::Plus => {
                // The whole line less VBR, times f(q) around the target queue.
                let total = (self.line_cells_per_s - higher_rate).max(0.0);
                let q0 = secs(self.cfg.queue_control.target_delay) * total;
                self.cfg.queue_control.fraction(self.queue as f64, q0) * total
            }
            EricaVariant::Basic | EricaVariant::Full => (self.cfg.target_utilization * self.line_cells_per_s - higher_rate).max(0.0),
        };
        let input_rate = self.abr_cells as f64 / delta;
        let z = if abr_capacity <= 0.0 {
            f64::INFINITY
        } else if input_rate <= 0.0 {
            IDLE_Z
        } else {
            input_rate / abr_capacity
        };
        let n_active = (self.seen_list.len() as u32).max(1);
        self.m = Measurement { abr_capacity, z, n_active, fair_share: abr_capacity / n_active as f64 };
        self.max_alloc_previous = self.max_alloc_current;
        self.max_alloc_current = self.m.fair_share;
        for &v in &self.seen_list {
            self.seen[v as usize] = false;
        }
        self.seen_list.clear();
        for &v in &self.fed_list {
            self.fed_back[v as usize] = None;
        }
        self.fed_list.clear();
        self.start = now;
        self.abr_cells = 0;
        self.higher_cells = 0;
        self.intervals += 1;
    }

    /// A backward RM cell of `vc` (whose forward cells use this port) passes
    /// the switch at `now` carrying `er_field`: the ER it leaves with, never
    /// above what it came with.
    pub fn on_brm(&mut self, now: Time, vc: usize, er_field: f64) -> f64 {
        self.tick(now);
        if self.cfg.one_feedback_per_interval {
            if let Some(er) = self.fed_back[vc] {
                return er_field.min(er);
            }
        }
        let er = self.explicit_rate(self.ccr[vc]);
        if self.cfg.one_feedback_per_interval {
            self.fed_back[vc] = Some(er);
            self.fed_list.push(vc as u32);
        }
        er_field.min(er)
    }

    /// The rate ERICA offers a VC whose current cell rate is `ccr`.
    fn explicit_rate(&mut self, ccr: f64) -> f64 {
        let Measurement { abr_capacity, z, fair_share, .. } = self.m;
        let vc_share = ccr / z;
        match self.cfg.variant {
            EricaVariant::Basic => fair_share.max(vc_share).min(abr_capacity),
            EricaVariant::Full | EricaVariant::Plus => {
                let mut er =
                    if z > 1.0 + self.cfg.delta { fair_share.max(vc_share) } else { fair_share.max(vc_share).max(self.max_alloc_previous) };
                self.max_alloc_current = self.max_alloc_current.max(er);
                if er > fair_share && ccr < fair_share {
                    er = fair_share; // no sudden jump from below the fair share
                }
                er.min(abr_capacity)
            }
        }
    }
}

#[cfg(test)]
#[path = "erica_tests.rs"]
mod tests;
