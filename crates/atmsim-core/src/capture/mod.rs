//! Packet captures (`atmsim run --pcap DIR`, `[capture]`): compact rows
//! recorded during the run only when captures are on, written as pcap
//! records as the run goes (`write.rs`, with the `pcap-file` crate; headers
//! in `headers.rs`): a recording flushes its rows when it holds
//! `FLUSH_ROWS`, so a capture's memory is bounded whatever the run's length
//! (`/usr/bin/time -v` on a 60 s run of jain96-5src, 741 MB of files: 1.26
//! GB resident when they were built in memory at the end, 77 MB written as
//! it goes), and the files are capped in bytes (`capture.max_bytes`).
//! docs/captures.md says what each file holds.
//!
//! Rows are recorded where the port log (`trace.port`) records its
//! changes: the world's one `watching` flag sends a port's offers and
//! per-VC departures here, so a run without captures pays nothing more than
//! it paid for the port log. Hosts are recorded per packet (sent onto the
//! link, delivered intact), never per cell.

pub mod headers;
pub mod write;

use crate::net::{FrameHeader, HostId, PortId, Unit, VcId};
use crate::time::Time;
use std::io;
use std::path::{Path, PathBuf};
use write::{CaptureFile, Encoder, PcapOut, FILE_HEADER_BYTES, RECORD_HEADER_BYTES};

/// Rows a recording holds before it writes those that are final (about
/// 3 MB a recording).
pub const FLUSH_ROWS: usize = 1 << 16;

/// One captured packet (or AAL5 PDU): when, on which VC, its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Packets leaving a port: when their last bit left; at a host: when
    /// the packet was handed to the link, or arrived intact.
    pub t: Time,
    pub vc: VcId,
    pub seg: FrameHeader,
    /// Frame number on the VC (to find a row again after a push-out).
    pub frame: u32,
    /// AAL5 PDUs at a port: cells of this PDU that crossed the port, and
    /// whether they are exactly the cells of the EOM's frame (no cell of it
    /// lost upstream, nothing merged from a frame whose EOM was lost).
    /// Packets: 1 and true.
    pub cells: u16,
    pub intact: bool,
    /// Host captures: true for a packet the host sent.
    pub sent: bool,
}

/// What one file captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    Port(PortId),
    Host(HostId),
}

#[derive(Debug)]
pub struct Recording {
    pub point: Point,
    /// Rows not written yet (all of them without a file to write to).
    pub rows: Vec<Row>,
    /// ATM ports: per VC, cells seen since its last EOM, and whether they
    /// began with the first cell of the frame now ending.
    open: Vec<(u16, bool, u32)>,
    out: Option<PcapOut>,
    /// Rows held when it next writes.
    flush_at: usize,
}

/// A file that could not be written, and why.
#[derive(Debug)]
pub struct WriteFailure {
    pub path: PathBuf,
    pub error: io::Error,
}

/// Why captures failed: a scenario they cannot be made of, or a file.
#[derive(Debug)]
pub enum CaptureError {
    Scenario(crate::scenario::ScenarioError),
    Write(WriteFailure),
}

impl From<crate::scenario::ScenarioError> for CaptureError {
    fn from(e: crate::scenario::ScenarioError) -> Self {
        CaptureError::Scenario(e)
    }
}

impl From<WriteFailure> for CaptureError {
    fn from(f: WriteFailure) -> Self {
        CaptureError::Write(f)
    }
}

/// Every recording of a run, and which port or host feeds which.
#[derive(Debug)]
pub struct Capture {
    pub recordings: Vec<Recording>,
    port_slot: Vec<Option<u32>>,
    host_slot: Vec<Option<u32>>,
    atm: bool,
    /// Set by `write_to`: rows are then written as they become final.
    encoder: Option<Encoder>,
    /// Rows a recording holds before it writes (`FLUSH_ROWS`).
    flush_rows: usize,
    /// Bytes of the files so far, and their cap (`capture.max_bytes`).
    bytes: u64,
    max_bytes: u64,
    /// The instant the files reached their cap (nothing more is written;
    /// the run stops: `World::cap_reached`).
    pub full_at: Option<Time>,
    /// A write that failed (nothing more is written; the run stops).
    pub failed: Option<WriteFailure>,
    /// The files, once `finish` has closed them.
    files: Vec<CaptureFile>,
}

impl Capture {
    pub fn new(ports: &[PortId], hosts: &[HostId], num_ports: usize, num_hosts: usize, num_vcs: usize, atm: bool) -> Self {
        let mut port_slot = vec![None; num_ports];
        let mut host_slot = vec![None; num_hosts];
        let mut recordings = Vec::new();
        for &p in ports {
            port_slot[p.ix()] = Some(recordings.len() as u32);
            let open = if atm { vec![(0, false, 0); num_vcs] } else { Vec::new() };
            recordings.push(Recording { point: Point::Port(p), rows: Vec::new(), open, out: None, flush_at: FLUSH_ROWS });
        }
        for &h in hosts {
            host_slot[h.ix()] = Some(recordings.len() as u32);
            recordings.push(Recording { point: Point::Host(h), rows: Vec::new(), open: Vec::new(), out: None, flush_at: FLUSH_ROWS });
        }
        let (encoder, bytes, max_bytes, full_at, failed, files) = (None, 0, u64::MAX, None, None, Vec::new());
        let flush_rows = FLUSH_ROWS;
        Capture { recordings, port_slot, host_slot, atm, encoder, flush_rows, bytes, max_bytes, full_at, failed, files }
    }

    /// Opens one pcap file per recording, named by `names`, in `dir` (in
    /// memory without one), written as the run goes, at most `max_bytes`
    /// in all.
    pub fn write_to(&mut self, encoder: Encoder, names: Vec<String>, dir: Option<&Path>, max_bytes: u64) -> Result<(), WriteFailure> {
        for (rec, name) in self.recordings.iter_mut().zip(names) {
            let path = dir.map(|d| d.join(&name)).unwrap_or_default();
            let out =
                PcapOut::open(name, encoder.linktype(rec.point), encoder.snaplen, dir).map_err(|error| WriteFailure { path, error })?;
            rec.out = Some(out);
            self.bytes += FILE_HEADER_BYTES;
        }
        (self.encoder, self.max_bytes) = (Some(encoder), max_bytes);
        Ok(())
    }

    /// Adds a row to recording `slot` at simulated time `now`.
    fn push(&mut self, slot: usize, row: Row, now: Time) {
        let rec = &mut self.recordings[slot];
        rec.rows.push(row);
        if rec.rows.len() >= rec.flush_at {
            self.flush(slot, now);
        }
    }

    /// Writes the rows of recording `slot` whose packets left by `horizon`,
    /// in time order (rows of one instant in the order they were recorded),
    /// and forgets them. They are final: a row recorded later is timed at
    /// or after the instant being simulated, and a push-out moves only
    /// packets still waiting, so the files are those one sort of every row
    /// at the end would give (the goldens pin it).
    fn flush(&mut self, slot: usize, horizon: Time) {
        let Some(enc) = &self.encoder else { return };
        let rec = &mut self.recordings[slot];
        rec.rows.sort_by_key(|r| r.t);
        let n = rec.rows.partition_point(|r| r.t <= horizon);
        if let (Some(out), None, None) = (rec.out.as_mut(), self.full_at, self.failed.as_ref()) {
            for row in rec.rows[..n].iter().filter(|r| enc.encodes(r)) {
                let (orig, data) = enc.record(row, rec.point);
                let size = RECORD_HEADER_BYTES + data.len() as u64;
                if self.bytes + size > self.max_bytes {
                    self.full_at = Some(horizon);
                    break;
                }
                if let Err(error) = out.write(row.t, orig, &data) {
                    self.failed = Some(WriteFailure { path: out.path().map(Path::to_path_buf).unwrap_or_default(), error });
                    break;
                }
                self.bytes += size;
            }
        }
        rec.rows.drain(..n);
        // Rows still to leave (a long queue) are kept; flushing again only
        // when they have doubled keeps the sorting linear in the rows.
        rec.flush_at = self.flush_rows.max(2 * rec.rows.len());
    }

    /// The end of the run at `end`: writes what left by then (a FIFO port
    /// knows departures beyond it, which are not written) and closes the
    /// files.
    pub fn finish(&mut self, end: Time) -> Result<(), WriteFailure> {
        for slot in 0..self.recordings.len() {
            self.flush(slot, end);
        }
        if let Some(f) = self.failed.take() {
            return Err(f);
        }
        for rec in &mut self.recordings {
            if let Some(out) = rec.out.take() {
                let path = out.path().map(Path::to_path_buf).unwrap_or_default();
                self.files.push(out.close().map_err(|error| WriteFailure { path, error })?);
            }
        }
        Ok(())
    }

    /// The files `finish` closed.
    pub fn take_files(&mut self) -> Vec<CaptureFile> {
        std::mem::take(&mut self.files)
    }

    /// Bytes of the files written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Keeps every row in memory until `finish` (tests that read them).
    #[cfg(test)]
    pub fn keep_rows(&mut self) {
        self.flush_every(usize::MAX);
    }

    /// Writes when a recording holds `rows` rows (tests).
    #[cfg(test)]
    pub fn flush_every(&mut self, rows: usize) {
        self.flush_rows = rows;
        for rec in &mut self.recordings {
            rec.flush_at = rows;
        }
    }

    pub fn watches_port(&self, p: PortId) -> bool {
        self.port_slot[p.ix()].is_some()
    }

    /// A unit's last bit leaves captured port `p` at `t` (at or after
    /// `now`, the instant simulated); `seg` is its frame's segment header
    /// (from the ledger; `None` for RM and VBR cells, which carry no IP
    /// packet). On ATM the PDU is recorded when its EOM cell leaves.
    pub fn departs(&mut self, p: PortId, now: Time, t: Time, unit: &Unit, seg: Option<FrameHeader>) {
        let Some(slot) = self.port_slot[p.ix()] else { return };
        let Some(seg) = seg else { return };
        let slot = slot as usize;
        if !self.atm {
            self.push(slot, Row { t, vc: unit.vc, seg, frame: unit.frame, cells: 1, intact: true, sent: false }, now);
            return;
        }
        let rec = &mut self.recordings[slot];
        let open = &mut rec.open[unit.vc.ix()];
        if open.0 == 0 {
            *open = (0, unit.is_first(), unit.frame);
        }
        open.0 = open.0.saturating_add(1);
        // Cells of an earlier frame (its EOM lost upstream) merge into this PDU.
        open.1 &= open.2 == unit.frame;
        if unit.is_eom() {
            let (cells, clean, _) = *open;
            // (At the EOM, the frame's length is its index + 1.)
            let intact = clean && cells == unit.index() + 1;
            *open = (0, false, 0);
            self.push(slot, Row { t, vc: unit.vc, seg, frame: unit.frame, cells, intact, sent: false }, now);
        }
    }

    /// A random-drop port evicted `victim`, a packet recorded as leaving:
    /// it never leaves, and every packet recorded behind it leaves `shift`
    /// earlier.
    pub fn evicted(&mut self, p: PortId, victim: &Unit, shift: Time) {
        let Some(slot) = self.port_slot[p.ix()] else { return };
        let rows = &mut self.recordings[slot as usize].rows;
        let ix = rows.iter().rposition(|r| r.vc == victim.vc && r.frame == victim.frame).expect("an evicted packet was recorded");
        rows.remove(ix);
        for r in &mut rows[ix..] {
            r.t -= shift;
        }
    }

    /// Host `h` hands a packet to its link (`sent`) or receives one intact,
    /// now (`t`).
    pub fn at_host(&mut self, h: HostId, t: Time, vc: VcId, seg: &FrameHeader, sent: bool) {
        if let Some(slot) = self.host_slot[h.ix()] {
            self.push(slot as usize, Row { t, vc, seg: *seg, frame: 0, cells: 1, intact: true, sent }, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(vc: u32, frame: u32, index: u16, ncells: u16) -> Unit {
        Unit::new(VcId(vc), frame, index, ncells, 53)
    }

    /// The segment header the ledger keeps for a frame.
    fn seg(frame: u32) -> Option<FrameHeader> {
        Some(FrameHeader::Tcp(crate::net::Segment { seq: frame as u64, ..Default::default() }))
    }

    #[test]
    fn atm_pdus_are_recorded_at_their_eom_and_damage_is_noticed() {
        let mut c = Capture::new(&[PortId(1)], &[], 2, 0, 2, true);
        for i in 0..3 {
            c.departs(PortId(1), 0, 10 + i as u64, &cell(0, 0, i, 3), seg(0));
            c.departs(PortId(0), 0, 10, &cell(0, 0, i, 3), seg(0)); // not captured
        }
        // Frame 1 lost its first cell upstream; frame 2 lost its EOM, so
        // its cells merge with frame 3.
        c.departs(PortId(1), 0, 20, &cell(0, 1, 1, 2), seg(1));
        c.departs(PortId(1), 0, 30, &cell(0, 2, 0, 2), seg(2));
        c.departs(PortId(1), 0, 31, &cell(0, 3, 0, 2), seg(3));
        c.departs(PortId(1), 0, 32, &cell(0, 3, 1, 2), seg(3));
        let rows = &c.recordings[0].rows;
        let got: Vec<(Time, u32, u16, bool)> = rows.iter().map(|r| (r.t, r.frame, r.cells, r.intact)).collect();
        assert_eq!(got, vec![(12, 0, 3, true), (20, 1, 1, false), (32, 3, 3, false)]);
    }

    #[test]
    fn an_evicted_packet_disappears_and_those_behind_move_up() {
        let mut c = Capture::new(&[PortId(0)], &[], 1, 0, 1, false);
        for f in 0..4 {
            c.departs(PortId(0), 0, 100 * (f as u64 + 1), &cell(0, f, 0, 1), seg(f));
        }
        c.evicted(PortId(0), &cell(0, 1, 0, 1), 100);
        let got: Vec<(Time, u32)> = c.recordings[0].rows.iter().map(|r| (r.t, r.frame)).collect();
        assert_eq!(got, vec![(100, 0), (200, 2), (300, 3)]);
    }
}
