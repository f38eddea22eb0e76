//! Flows started by other flows' completions (a connection matrix's
//! triggers, `scenario/matrix_check.rs`; htsim `Trigger`): a flow's sender
//! done (its last byte acknowledged, the moment the flow counts as
//! complete) activates its `send_done_trigger`, its receiver holding every
//! byte in order its `recv_done_trigger`; a trigger that fires opens the
//! flows waiting on it at once (htsim runs a fired trigger's targets at
//! the same instant, `EventList::triggerIsPending`). A oneshot trigger fires
//! at its activation, a barrier at its count-th, a multishot trigger starts
//! its next waiting flow at each. Runs without triggers carry none of this.

use super::World;
use crate::engine::{Event, TransportEvent};
use crate::net::{FlowId, VcId};
use crate::scenario::matrix::TriggerKind;
use crate::scenario::{FlowModel, TriggerPlan};
use crate::time::Time;

/// What the triggers of a run have done so far.
pub(super) struct TriggerState {
    /// Per trigger: activations so far.
    activations: Vec<u32>,
    /// Per flow: when it started (a flow started by a trigger), and whether
    /// its receiver's completion has been signalled.
    started_at: Vec<Option<Time>>,
    received: Vec<bool>,
}

impl TriggerState {
    pub(super) fn new(plan: &TriggerPlan) -> Box<TriggerState> {
        let flows = plan.waits_on.len();
        Box::new(TriggerState { activations: vec![0; plan.triggers.len()], started_at: vec![None; flows], received: vec![false; flows] })
    }
}

/// Does flow `f` wait for a trigger (so it gets no first event)?
pub(super) fn waits(plan: Option<&TriggerPlan>, f: usize) -> bool {
    plan.is_some_and(|p| p.waits_on[f].is_some())
}

impl World {
    /// A flow's sender is done (`World::completed`).
    pub(super) fn sender_done(&mut self, f: FlowId) {
        if let Some(t) = self.model.triggers.as_ref().and_then(|p| p.on_sent[f.ix()]) {
            self.activate(t);
        }
    }

    /// A segment went to the transport at the end of `vc`: if its flow's
    /// receiver now holds every byte and something waits on that, activate it.
    /// Inlined into its two callers: one call less per packet received.
    #[inline(always)]
    pub(super) fn hand_to_transport(&mut self, vc: VcId, seg: &crate::net::FrameHeader) {
        self.deliver_to_transport(vc, seg);
        if self.triggers.is_none() {
            return;
        }
        let f = self.vcs.get(vc).flow;
        let Some(t) = self.model.triggers.as_ref().and_then(|p| p.on_received.get(f.ix()).copied().flatten()) else { return };
        let flow = &self.flows[f.ix()];
        let state = self.triggers.as_mut().expect("checked above");
        if !state.received[f.ix()]
            && flow.bytes.is_some_and(|b| flow.delivered(super::eqds::flow_ends(self.eqds_hosts.as_deref(), f.ix())) >= b)
        {
            state.received[f.ix()] = true;
            self.activate(t);
        }
    }

    fn activate(&mut self, t: u32) {
        let plan = self.model.triggers.as_ref().expect("a run with triggers");
        let trigger = &plan.triggers[t as usize];
        let state = self.triggers.as_mut().expect("a run with triggers");
        let n = &mut state.activations[t as usize];
        *n += 1;
        // Validation guarantees enough activations and no more than a oneshot or barrier takes.
        let start: &[FlowId] = match trigger.kind {
            TriggerKind::Oneshot => &trigger.targets,
            TriggerKind::Barrier(count) if *n == count => &trigger.targets,
            TriggerKind::Barrier(_) => &[],
            TriggerKind::Multishot => trigger.targets.get(*n as usize - 1..*n as usize).unwrap_or(&[]),
        };
        for &g in start {
            state.started_at[g.ix()] = Some(self.now);
            self.sched.schedule(self.now, Event::Transport(TransportEvent::Open(g)));
        }
    }

    /// Did flow `f` start in the run? A flow waiting for a trigger only if the trigger fired
    /// (every other flow starts before the run's end: validation refuses a later start).
    pub(super) fn ever_started(&self, f: usize) -> bool {
        !waits(self.model.triggers.as_ref(), f) || self.triggers.as_ref().is_some_and(|s| s.started_at[f].is_some())
    }

    /// When flow `f` (model `m`) started: its trigger's firing, else its start time.
    pub(super) fn started_at(&self, f: usize, m: &FlowModel) -> Time {
        self.triggers.as_ref().and_then(|s| s.started_at[f]).unwrap_or(m.start)
    }
}

/// The collectives of the run (`[workload]`'s ring all-reduce) as
/// nccl-tests reports them: per job, its completion time t from its first
/// flow's start to its last flow's completion, algbw = S/t (S the bytes each
/// rank reduces) and busbw = algbw · 2(n − 1)/n (n ranks); null while any
/// of its flows is incomplete.
impl World {
    pub(super) fn job_summaries(&self) -> serde_json::Value {
        let jobs: Vec<serde_json::Value> = self
            .model
            .jobs
            .iter()
            .map(|j| {
                let first = j.flows.iter().map(|f| self.started_at(f.ix(), &self.model.flows[f.ix()])).min().unwrap_or(0);
                let done: Option<Vec<Time>> = j.flows.iter().map(|f| self.flows[f.ix()].completed_at).collect();
                let t = done.and_then(|d| d.into_iter().max()).map(|end| crate::time::secs(end - first));
                let algbw = t.filter(|&t| t > 0.0).map(|t| j.bytes as f64 / t);
                let n = j.ranks as f64;
                serde_json::json!({
                    "name": j.name,
                    "flows": j.flows.len(),
                    "ranks": j.ranks,
                    "bytes": j.bytes,
                    "completion_time_s": t,
                    "algbw_bytes_per_s": algbw,
                    "busbw_bytes_per_s": algbw.map(|a| a * 2.0 * (n - 1.0) / n),
                })
            })
            .collect();
        serde_json::Value::Array(jobs)
    }
}

#[cfg(test)]
mod tests;
