//! TCP Boston in the world (Bestavros & Kim 1997), and the measurements of
//! its evaluation for Boston and Reno alike.
//!
//! Reno is the project's TCP, untouched; this file only decides how many
//! cells a data frame of a Boston flow has (m pieces first, m − r after a
//! partial ACK reported r), keeps the cells of damaged frames at the
//! destination, closes frames there (rebuilt segment to TCP, or a partial
//! ACK: a duplicate ACK carrying r), and hands each ACK's r to the
//! sender's piece bookkeeping before Reno sees the ACK.
//!
//! Every frame still gets exactly one fate in its VC's ledger: delivered
//! when it completed its segment (a SYN: when it arrived whole), discarded when it
//! closed short; so the accounting identity is the usual one.

use super::service::{ServiceKind, Takes};
use super::{Endpoints, World};
use crate::atm::partial::PartialReassembler;
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::coding::Dispersal;
use crate::ledger::Fate;
use crate::net::{FlowId, FrameHeader, Segment, Unit, VcId, VcRole, VcTable, CELL_PAYLOAD};
use crate::scenario::{App, Model};

/// A cell's payload bytes, as an array length.
const PAYLOAD: usize = CELL_PAYLOAD as usize;
use crate::summary::BostonFlowSummary;
use crate::time::{secs, Time, PS_PER_S};
use crate::transport::boston::payload::{pieces, segment_bytes};
use crate::transport::boston::sender::PieceSender;
use crate::transport::boston::store::PieceStore;
use crate::transport::boston::BostonConfig;
use crate::transport::tcp::Reply;
use std::collections::{BTreeMap, VecDeque};

/// A piece held in payload mode: its index and its 48 bytes.
type HeldPiece = (usize, [u8; PAYLOAD]);

/// What the destination knows of a data frame: its segment and pieces.
struct FrameInfo {
    seg: Segment,
    m: u16,
    first_piece: u16,
    /// The pieces' bytes (payload mode only), 48 per cell.
    bytes: Vec<u8>,
}

#[derive(Default)]
struct BostonFlow {
    sender: Option<PieceSender>,
    store: PieceStore,
    partial: PartialReassembler,
    /// Data frames from `frames_base` on, by frame number.
    frames: VecDeque<FrameInfo>,
    frames_base: u32,
    /// ACK frames on the reply VC, and the segment length and r each
    /// carries.
    acks: VecDeque<(u32, u32, u16)>,
    /// Payload mode: the pieces held per segment (sequence number, length).
    held_bytes: BTreeMap<(u64, u32), Vec<HeldPiece>>,
    stats: BostonFlowSummary,
    /// Time-average window: the last value and when it was set.
    window: Option<(Time, u64)>,
    window_area: f64,
}

pub(super) struct Boston {
    cfg: BostonConfig,
    /// IP + TCP header bytes ahead of the payload in a segment's cells.
    header: u32,
    flows: Vec<BostonFlow>,
    /// Payload mode: a dispersal matrix per m.
    matrices: Vec<Option<Dispersal>>,
}

impl Boston {
    pub(super) fn new(cfg: BostonConfig, header: u32, tcp_flows: &[bool]) -> Self {
        let flows = tcp_flows
            .iter()
            .map(|&tcp| BostonFlow {
                sender: (tcp && cfg.aida).then(|| PieceSender::new(cfg.pieces, cfg.redundancy)),
                ..Default::default()
            })
            .collect();
        Boston { matrices: vec![None; 257], flows, cfg, header }
    }

    fn matrix(&mut self, m: u16) -> &Dispersal {
        let (kind, n) = (self.cfg.matrix, self.cfg.pieces as usize);
        self.matrices[m as usize].get_or_insert_with(|| Dispersal::new(kind, n, m as usize).expect("validated N"))
    }
}

impl ServiceKind for Boston {
    const MECHANISM: Mechanism = Mechanism {
        name: "boston",
        selected_by: "[boston]",
        networks: Networks::Atm,
        about: "TCP Boston (Bestavros & Kim 1997): IDA-coded pieces, partial reassembly and partial ACKs, measured as the paper does",
        docs: "boston97.md",
        keys: &[],
        counters: &["boston"],
        goldens: &[Golden { scenario: "boston97", variation: "", overrides: &[] }],
    };

    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        let tcp: Vec<bool> = model.flows.iter().map(|f| f.app == App::Tcp).collect();
        model.boston.clone().map(|c| Boston::new(c, model.header_bytes, &tcp))
    }

    fn takes(&self) -> Takes {
        Takes { at_source: true, at_destination: true, ..Takes::default() }
    }

    /// The frame's pieces.
    fn cut_frame(w: &mut World, _: usize, vc: VcId, seg: &FrameHeader, first_transmission: bool, ncells: u32) -> u32 {
        w.boston_frame(vc, seg, first_transmission, ncells)
    }
}

fn bin(now: Time) -> usize {
    (now / PS_PER_S) as usize
}

fn bump(bins: &mut Vec<u64>, i: usize, by: u64) {
    if bins.len() <= i {
        bins.resize(i + 1, 0);
    }
    bins[i] += by;
}

impl World {
    /// A frame of `seg` is about to go onto `vc` with `ncells` cells: a
    /// Boston data frame carries the pieces the sender's bookkeeping
    /// chooses instead. Returns the frame's cells.
    pub(super) fn boston_frame(&mut self, vc: VcId, frame_header: &FrameHeader, first: bool, ncells: u32) -> u32 {
        let v = self.vcs.get(vc);
        let (f, role, header) = (v.flow.ix(), v.role, v.header_bytes);
        // A Boston flow is TCP; its ACKs (and a datagram flow's frames) keep their cells.
        let Some(seg) = frame_header.tcp() else { return ncells };
        let frame = self.ledgers[vc.ix()].next_frame;
        let now = self.now;
        let b = self.services.boston_mut().expect("a Boston scenario");
        if role != VcRole::Data {
            return ncells;
        }
        let (payload, per_second) = (b.cfg.payload, b.cfg.per_second);
        let flow = &mut b.flows[f];
        let mut info = FrameInfo { seg: *seg, m: ncells as u16, first_piece: 0, bytes: Vec::new() };
        let cells = match &mut flow.sender {
            Some(s) if seg.len > 0 => {
                let t = s.transmit(seg.seq, seg.len, ncells as u16);
                info.first_piece = t.first_piece;
                t.ncells as u32
            }
            _ => ncells,
        };
        let st = &mut flow.stats;
        st.frames_sent += 1;
        st.cells_sent += cells as u64;
        if !first && seg.len > 0 {
            st.frames_retransmitted += 1;
            st.cells_retransmitted += cells as u64;
        }
        if per_second {
            bump(&mut st.cells_sent_per_s, bin(now), cells as u64);
        }
        if flow.sender.is_some() {
            if flow.frames.is_empty() {
                flow.frames_base = frame;
            }
            if payload && seg.len > 0 {
                let bytes = segment_bytes(f as u32, seg.seq, seg.len, header, info.m);
                let (first_piece, m) = (info.first_piece, info.m);
                info.bytes = pieces(b.matrix(m), &bytes, first_piece, cells as u16);
            }
            b.flows[f].frames.push_back(info);
        }
        cells
    }

    /// A cell at the end of its route in a Boston scenario. Returns true if
    /// it was handled here (a Boston data cell), false to go on with strict
    /// AAL5 reassembly.
    pub(super) fn boston_cell(&mut self, unit: &Unit) -> bool {
        let v = self.vcs.get(unit.vc);
        let (f, role) = (v.flow, v.role);
        let delivered = match &self.flows[f.ix()].endpoints {
            Endpoints::Tcp { receiver, .. } => receiver.stats.bytes_delivered,
            Endpoints::Datagram(_) | Endpoints::Arb { .. } | Endpoints::Ndp { .. } | Endpoints::Eqds => return false,
        };
        let now = self.now;
        let b = self.services.boston_mut().expect("a Boston scenario");
        let flow = &mut b.flows[f.ix()];
        match role {
            VcRole::Reply => {
                while flow.acks.front().is_some_and(|a| a.0 < unit.frame) {
                    flow.acks.pop_front();
                }
                let (len, held) = flow.acks.front().filter(|a| a.0 == unit.frame).map_or((0, 0), |a| (a.1, a.2));
                if let (Some(s), true) = (&mut flow.sender, unit.is_eom()) {
                    s.on_ack(self.ledgers[unit.vc.ix()].record(unit.frame).header.tcp().expect("a TCP ACK").ack, len, held);
                }
                false
            }
            VcRole::Stream => false,
            VcRole::Data => {
                if b.cfg.per_second {
                    let st = &mut flow.stats;
                    bump(&mut st.cells_received_per_s, bin(now), 1);
                    let i = bin(now);
                    if st.bytes_accepted_by_s.len() <= i {
                        st.bytes_accepted_by_s.resize(i + 1, delivered);
                    }
                    st.bytes_accepted_by_s[i] = delivered;
                }
                if flow.sender.is_none() {
                    return false;
                }
                self.boston_data_cell(f, unit);
                true
            }
        }
    }

    /// A Boston data cell: keep its piece, close frames, rebuild segments.
    fn boston_data_cell(&mut self, f: FlowId, unit: &Unit) {
        let b = self.services.boston_mut().expect("a Boston scenario");
        let flow = &mut b.flows[f.ix()];
        let closed = flow.partial.on_cell(unit);
        if let Some(k) = unit.frame.checked_sub(flow.frames_base).map(|k| k as usize).filter(|&k| k < flow.frames.len()) {
            let info = &flow.frames[k];
            if info.seg.len > 0 {
                let piece = ((info.first_piece as usize + unit.index() as usize) % b.cfg.pieces as usize) as u16;
                flow.store.add(info.seg.seq, info.seg.len, piece);
                if b.cfg.payload {
                    let mut cell = [0u8; PAYLOAD];
                    cell.copy_from_slice(&info.bytes[unit.index() as usize * PAYLOAD..][..PAYLOAD]);
                    flow.held_bytes.entry((info.seg.seq, info.seg.len)).or_default().push((piece as usize, cell));
                }
            }
        }
        for frame in [closed.orphan, closed.this].into_iter().flatten() {
            self.boston_close(f, unit.vc, frame);
        }
    }

    /// A data frame closed at the destination: its segment is rebuilt and
    /// goes to TCP, or the receiver sends a partial ACK.
    fn boston_close(&mut self, f: FlowId, vc: VcId, frame: u32) {
        let b = self.services.boston_mut().expect("a Boston scenario");
        let flow = &mut b.flows[f.ix()];
        let k = (frame - flow.frames_base) as usize;
        let info = &flow.frames[k];
        let (seg, m) = (info.seg, info.m);
        let (seq, len) = (seg.seq, seg.len);
        let ledger = &self.ledgers[vc.ix()];
        // A data segment is delivered when its pieces suffice, whatever
        // frame brought them; a frame without data (SYN) when it is whole.
        let complete = if len > 0 { flow.store.held(seq, len) >= m } else { ledger.arrived(frame) == ledger.record(frame).ncells };
        // Everything before this frame has closed or died on the way.
        flow.frames_base += k as u32 + 1;
        flow.frames.drain(..=k);
        if complete {
            if len > 0 {
                flow.store.forget(seq, len);
                if b.cfg.payload {
                    let ok = Self::boston_check(b, f, seq, len, m);
                    let st = &mut b.flows[f.ix()].stats;
                    st.payload_checked += 1;
                    st.payload_mismatches += !ok as u64;
                }
            }
            self.ledgers[vc.ix()].resolve(frame, Fate::Delivered);
            let reply = self.vcs.reply_of(f);
            let before = self.ledgers[reply.ix()].next_frame;
            self.deliver(vc, &FrameHeader::Tcp(seg));
            self.boston_annotate(f, before);
        } else {
            if let Some(l) = self.ledgers[vc.ix()].resolve(frame, Fate::Discarded) {
                self.record_loss(vc, l);
            }
            let Endpoints::Tcp { receiver, .. } = &mut self.flows[f.ix()].endpoints else { unreachable!("a TCP flow") };
            if receiver.rcv_nxt == 0 {
                return;
            }
            let ack = receiver.make_ack(Reply::Ack);
            let reply = self.vcs.reply_of(f);
            let before = self.ledgers[reply.ix()].next_frame;
            self.services.boston_mut().unwrap().flows[f.ix()].stats.partial_acks += 1;
            self.transmit(reply, FrameHeader::Tcp(ack));
            self.boston_annotate(f, before);
        }
    }

    /// The receiver sent ACK frames from `first` on: each carries the
    /// pieces held of the segment its ACK number names (0 if none).
    fn boston_annotate(&mut self, f: FlowId, first: u32) {
        let reply = self.vcs.reply_of(f);
        let next = self.ledgers[reply.ix()].next_frame;
        let Endpoints::Tcp { receiver, .. } = &self.flows[f.ix()].endpoints else { return };
        let rcv_nxt = receiver.rcv_nxt;
        let flow = &mut self.services.boston_mut().unwrap().flows[f.ix()];
        flow.store.forget_below(rcv_nxt);
        if !flow.held_bytes.is_empty() {
            flow.held_bytes = flow.held_bytes.split_off(&(rcv_nxt, 0));
        }
        let (len, held) = flow.store.most_held_at(rcv_nxt).unwrap_or((0, 0));
        for frame in first..next {
            flow.acks.push_back((frame, len, held));
        }
    }

    /// Payload mode: rebuild the segment from the pieces held and compare
    /// it with the bytes the application sent.
    fn boston_check(b: &mut super::boston::Boston, f: FlowId, seq: u64, len: u32, m: u16) -> bool {
        let held = b.flows[f.ix()].held_bytes.remove(&(seq, len)).unwrap_or_default();
        let pieces: Vec<(usize, &[u8])> = held.iter().map(|(i, c)| (*i, &c[..])).collect();
        let header = b.header;
        let Ok(got) = b.matrix(m).reconstruct(&pieces, m as usize * PAYLOAD) else { return false };
        got == segment_bytes(f.0, seq, len, header, m)
    }

    /// A TCP sender's window changed: the time-average window.
    pub(super) fn boston_window(&mut self, f: FlowId, w: u64) {
        let now = self.now;
        let flow = &mut self.services.boston_mut().unwrap().flows[f.ix()];
        match flow.window {
            Some((t, last)) => flow.window_area += last as f64 * secs(now - t),
            None => flow.stats.window_since_s = secs(now),
        }
        flow.window = Some((now, w));
    }

    /// The per-flow Boston block of the summary.
    pub(super) fn boston_summary(&mut self) -> Vec<BostonFlowSummary> {
        let now = self.now;
        let Some(b) = self.services.boston_mut() else { return Vec::new() };
        let mut out = Vec::new();
        for (i, flow) in b.flows.iter_mut().enumerate() {
            let area = flow.window.map_or(0.0, |(t, w)| flow.window_area + w as f64 * secs(now - t));
            let span = secs(now) - flow.stats.window_since_s;
            let mut s = std::mem::take(&mut flow.stats);
            s.mean_window_bytes = if span > 0.0 { area / span } else { 0.0 };
            let led = &self.ledgers[self.vcs.payload_of(FlowId(i as u32)).ix()];
            s.frames_lost = led.frames_dropped + led.frames_discarded;
            s.cells_dropped = led.cells_dropped;
            out.push(s);
        }
        out
    }
}
