//! Traces: columnar time series, recorded only when asked for. Recording is
//! a few `Vec::push`es per ACK or per sample; nothing per cell.

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct WindowTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<u64>,
    pub ssthresh: Vec<u64>,
    pub snd_wnd: Vec<u64>,
    pub unacked: Vec<u64>,
}

/// ARB senders' rates (Chang, Huynh & Gray Figs. 7, 10, 11): one row per
/// reply, timeout or NAK.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RateTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    /// The allowed rate Rs after the change, in bits/s.
    pub rate_bps: Vec<f64>,
    /// The operating region (1, 2 or 3).
    pub region: Vec<u32>,
    pub rinc_bps: Vec<f64>,
}

impl RateTrace {
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// A scheduled cell fabric's buffers every `trace.interval` (the queue
/// trace's period): one row per device (`fabric/nodes.rs`). A FAP's row
/// has its VOQs' bytes (all, and the largest VOQ's), the cells waiting for
/// its links into the fabric and the bytes its egress holds in
/// reassembly; an element's row has the cells waiting for its links (its
/// buffer), the VOQ and reassembly columns 0.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FabricTrace {
    pub t: Vec<f64>,
    pub node: Vec<u32>,
    pub voq_bytes: Vec<u64>,
    pub largest_voq_bytes: Vec<u64>,
    pub queued_cells: Vec<u64>,
    /// The most cells waiting for any one of the device's links.
    pub largest_link_cells: Vec<u64>,
    pub reassembly_bytes: Vec<u64>,
}

impl FabricTrace {
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueTrace {
    pub t: Vec<f64>,
    pub port: Vec<u32>,
    pub occupancy: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Timeout,
    FastRetransmit,
    Retransmit,
    Loss,
    /// A new data segment sent.
    Send,
    /// A coarse-timer check (the host's slow tick).
    Tick,
}

impl EventKind {
    /// Every kind, in the order of their codes (`kind as u8`).
    pub const ALL: [EventKind; 6] =
        [EventKind::Timeout, EventKind::FastRetransmit, EventKind::Retransmit, EventKind::Loss, EventKind::Send, EventKind::Tick];

    pub fn name(self) -> &'static str {
        match self {
            EventKind::Timeout => "timeout",
            EventKind::FastRetransmit => "fast_retransmit",
            EventKind::Retransmit => "retransmit",
            EventKind::Loss => "loss",
            EventKind::Send => "send",
            EventKind::Tick => "tick",
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct EventTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub kind: Vec<EventKind>,
    /// Sequence number concerned (retransmissions and losses), else 0.
    pub seq: Vec<u64>,
}

/// What happened to a unit at the logged port (`trace.port`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PortChange {
    /// Accepted into the buffer: occupancy + 1.
    Arrive,
    /// Its last bit left the line: occupancy - 1.
    Depart,
    /// Discarded on arrival: occupancy unchanged.
    Drop,
}

impl PortChange {
    /// Every change, in the order of their codes (`change as u8`).
    pub const ALL: [PortChange; 3] = [PortChange::Arrive, PortChange::Depart, PortChange::Drop];

    pub fn name(self) -> &'static str {
        match self {
            PortChange::Arrive => "arrive",
            PortChange::Depart => "depart",
            PortChange::Drop => "drop",
        }
    }
}

/// Every change at one port, unit by unit (Morris & Kung Figs. 5 and 9 plot
/// occupancy "at every change"). Rows are in the order the simulator learnt
/// of them: a FIFO port knows a unit's departure time when it accepts it, so
/// sort by time (departures first at equal times, as the port drains) before
/// summing the changes into an occupancy.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PortLog {
    pub t: Vec<f64>,
    pub vc: Vec<u32>,
    /// The AAL5 frame (or packet) number within its VC.
    pub frame: Vec<u32>,
    pub eom: Vec<bool>,
    pub change: Vec<PortChange>,
    /// Most rows it takes (`trace.port_rows`; None: no cap): the rows
    /// beyond are not recorded, and `full_at` says when the first was lost.
    #[serde(skip)]
    pub cap: Option<usize>,
    #[serde(skip)]
    pub full_at: Option<f64>,
    /// The log could not grow at `full_at`: the memory ran out before its cap.
    #[serde(skip)]
    pub out_of_memory: bool,
}

impl PortLog {
    pub fn push(&mut self, t: f64, vc: u32, frame: u32, eom: bool, change: PortChange) {
        if self.full_at.is_some() || self.cap.is_some_and(|cap| self.t.len() >= cap) {
            self.full_at.get_or_insert(t);
            return;
        }
        // The log is most of a traced run's memory: at a memory limit (a container's, `ulimit -v`)
        // its growth failing stops the run with one line, where an infallible push aborted the
        // process with the allocator's message and a backtrace (issue 38).
        if self.t.len() == self.t.capacity() && !self.grow() {
            self.out_of_memory = true;
            self.full_at = Some(t);
            return;
        }
        self.t.push(t);
        self.vc.push(vc);
        self.frame.push(frame);
        self.eom.push(eom);
        self.change.push(change);
    }

    /// Room for as many rows again (at least 4,096), in every column, or false.
    fn grow(&mut self) -> bool {
        let more = self.t.len().max(4096);
        self.t.try_reserve(more).is_ok()
            && self.vc.try_reserve(more).is_ok()
            && self.frame.try_reserve(more).is_ok()
            && self.eom.try_reserve(more).is_ok()
            && self.change.try_reserve(more).is_ok()
    }
}

/// ABR sources sampled with the queues (`[abr]` runs only): each data VC's
/// allowed cell rate and the data cells waiting at its source.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AbrTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub acr_cells_per_s: Vec<f64>,
    pub waiting: Vec<u64>,
}

impl AbrTrace {
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// The names behind the index columns, as the summary spells them: flows
/// (`flow` columns), ports (`QueueTrace::port`) and, per VC, the flow it
/// belongs to ("vbr" for the ABR background) and its direction ("data" or
/// "reply"). Filled in at the end of the run; the columns stay indices while
/// recording, and outputs (the Python tables, csv) show the names.
#[derive(Clone, Debug, Default)]
pub struct TraceNames {
    pub flows: Vec<String>,
    pub ports: Vec<String>,
    pub vc_flows: Vec<String>,
    pub vc_directions: Vec<&'static str>,
    /// The fabric's devices (`FabricTrace::node`).
    pub fabric_nodes: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Traces {
    pub window: WindowTrace,
    pub queue: QueueTrace,
    pub events: EventTrace,
    pub port: PortLog,
    /// Absent from the serialised traces when no flow is ARB.
    #[serde(skip_serializing_if = "RateTrace::is_empty")]
    pub rate: RateTrace,
    #[serde(skip_serializing_if = "AbrTrace::is_empty")]
    pub abr: AbrTrace,
    /// Absent when the network is not a scheduled cell fabric.
    #[serde(skip_serializing_if = "FabricTrace::is_empty")]
    pub fabric: FabricTrace,
    /// Not serialised: the recorded columns are what the golden digests pin.
    #[serde(skip)]
    pub names: TraceNames,
}

impl Traces {
    pub fn event(&mut self, t: f64, flow: u32, kind: EventKind, seq: u64) {
        self.events.t.push(t);
        self.events.flow.push(flow);
        self.events.kind.push(kind);
        self.events.seq.push(seq);
    }
}

#[cfg(test)]
mod tests {
    use super::{EventKind, PortChange};

    #[test]
    fn the_code_lists_are_in_code_order() {
        // Python decodes a trace's kind and change columns by these lists.
        assert!(EventKind::ALL.iter().enumerate().all(|(i, &k)| k as usize == i));
        assert!(PortChange::ALL.iter().enumerate().all(|(i, &c)| c as usize == i));
    }
}
