//! A receiving host's EQDS pull pacer (htsim `EqdsPullPacer`; rule E6 of
//! docs/fabrics.md). Every interval while any list is non-empty, one PULL
//! goes to: the retransmit list first (round robin), else the active list
//! (round robin; a flow whose target is fully pulled moves to the idle
//! list), else the idle list ("slow" pulls, up to one maximum window of
//! credit beyond the target).

use super::queue::FrontInline;
use super::sink::EqdsSink;
use crate::net::FlowId;

#[derive(Clone, Debug, Default)]
pub struct EqdsPacer {
    rtx: FrontInline<FlowId>,
    active: FrontInline<FlowId>,
    idle: FrontInline<FlowId>,
    /// A tick is scheduled (htsim `_active`).
    ticking: bool,
}

impl EqdsPacer {
    /// Flow `f` joins the active list; true if a tick must be scheduled now.
    pub fn request_pull(&mut self, f: FlowId) -> bool {
        // htsim aborts if the flow is already there; it cannot be, as its
        // sink's `in_pull` guards the call.
        if !self.active.contains(&f) {
            self.active.push_back(f);
        }
        self.wake()
    }

    /// Flow `f` joins the retransmit list; true if a tick must be scheduled now.
    pub fn request_retransmit(&mut self, f: FlowId) -> bool {
        self.rtx.push_back(f);
        self.wake()
    }

    fn wake(&mut self) -> bool {
        let was = self.ticking;
        self.ticking = true;
        !was
    }

    /// One tick: the list and flow served next, taken off its list; None
    /// when every list is empty (the pacer stops until a request). The
    /// caller pulls that flow's sink, then calls [`EqdsPacer::pulled`].
    pub fn pick(&mut self) -> Option<(List, FlowId)> {
        let picked = if let Some(f) = self.rtx.pop_front() {
            Some((List::Rtx, f))
        } else if let Some(f) = self.active.pop_front() {
            Some((List::Active, f))
        } else {
            self.idle.pop_front().map(|f| (List::Idle, f))
        };
        if picked.is_none() {
            self.ticking = false;
        }
        picked
    }

    /// Flow `f`, taken from `list`, was just pulled: where it goes next.
    /// `max_slow` is a flow's maximum window in whole quanta (htsim
    /// `quantize_floor`): slow pulls stop there.
    pub fn pulled(&mut self, list: List, f: FlowId, s: &mut EqdsSink, max_slow: u32) {
        match list {
            List::Rtx => {
                if s.rtx_backlog() > 0 {
                    self.rtx.push_back(f);
                }
            }
            List::Active => {
                if s.backlog() > 0 {
                    self.active.push_back(f);
                } else {
                    s.in_pull = false;
                    s.in_slow_pull = true;
                    self.idle.push_back(f);
                }
            }
            List::Idle => {
                if !s.in_slow_pull {
                    s.in_pull = false;
                    s.in_slow_pull = true;
                }
                if s.backlog() == 0 && s.slow_credit() < max_slow {
                    self.idle.push_back(f);
                } else {
                    s.in_pull = false;
                    s.in_slow_pull = false;
                }
            }
        }
    }
}

/// The pacer's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    Rtx,
    Active,
    Idle,
}
