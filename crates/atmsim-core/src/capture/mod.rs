//! Packet captures (`atmsim run --pcap DIR`, `[capture]`): compact rows
//! recorded during the run only when captures are on, turned into pcap files
//! at the end (`write.rs`, with the `pcap-file` crate; headers in
//! `headers.rs`). docs/captures.md says what each file holds.
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

#[derive(Clone, Debug)]
pub struct Recording {
    pub point: Point,
    pub rows: Vec<Row>,
    /// ATM ports: per VC, cells seen since its last EOM, and whether they
    /// began with the first cell of the frame now ending.
    open: Vec<(u16, bool, u32)>,
}

/// Every recording of a run, and which port or host feeds which.
#[derive(Clone, Debug)]
pub struct Capture {
    pub recordings: Vec<Recording>,
    port_slot: Vec<Option<u32>>,
    host_slot: Vec<Option<u32>>,
    atm: bool,
}

impl Capture {
    pub fn new(ports: &[PortId], hosts: &[HostId], num_ports: usize, num_hosts: usize, num_vcs: usize, atm: bool) -> Self {
        let mut port_slot = vec![None; num_ports];
        let mut host_slot = vec![None; num_hosts];
        let mut recordings = Vec::new();
        for &p in ports {
            port_slot[p.ix()] = Some(recordings.len() as u32);
            let open = if atm { vec![(0, false, 0); num_vcs] } else { Vec::new() };
            recordings.push(Recording { point: Point::Port(p), rows: Vec::new(), open });
        }
        for &h in hosts {
            host_slot[h.ix()] = Some(recordings.len() as u32);
            recordings.push(Recording { point: Point::Host(h), rows: Vec::new(), open: Vec::new() });
        }
        Capture { recordings, port_slot, host_slot, atm }
    }

    pub fn watches_port(&self, p: PortId) -> bool {
        self.port_slot[p.ix()].is_some()
    }

    /// A unit's last bit leaves captured port `p` at `t`; `seg` is its
    /// frame's segment header (from the ledger; `None` for RM and VBR
    /// cells, which carry no IP packet). On ATM the PDU is recorded when its
    /// EOM cell leaves.
    pub fn departs(&mut self, p: PortId, t: Time, unit: &Unit, seg: Option<FrameHeader>) {
        let Some(slot) = self.port_slot[p.ix()] else { return };
        let Some(seg) = seg else { return };
        let rec = &mut self.recordings[slot as usize];
        if !self.atm {
            rec.rows.push(Row { t, vc: unit.vc, seg, frame: unit.frame, cells: 1, intact: true, sent: false });
            return;
        }
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
            rec.rows.push(Row { t, vc: unit.vc, seg, frame: unit.frame, cells, intact, sent: false });
            *open = (0, false, 0);
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

    /// Host `h` hands a packet to its link (`sent`) or receives one intact.
    pub fn at_host(&mut self, h: HostId, t: Time, vc: VcId, seg: &FrameHeader, sent: bool) {
        if let Some(slot) = self.host_slot[h.ix()] {
            self.recordings[slot as usize].rows.push(Row { t, vc, seg: *seg, frame: 0, cells: 1, intact: true, sent });
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
            c.departs(PortId(1), 10 + i as u64, &cell(0, 0, i, 3), seg(0));
            c.departs(PortId(0), 10, &cell(0, 0, i, 3), seg(0)); // not captured
        }
        // Frame 1 lost its first cell upstream; frame 2 lost its EOM, so
        // its cells merge with frame 3.
        c.departs(PortId(1), 20, &cell(0, 1, 1, 2), seg(1));
        c.departs(PortId(1), 30, &cell(0, 2, 0, 2), seg(2));
        c.departs(PortId(1), 31, &cell(0, 3, 0, 2), seg(3));
        c.departs(PortId(1), 32, &cell(0, 3, 1, 2), seg(3));
        let rows = &c.recordings[0].rows;
        let got: Vec<(Time, u32, u16, bool)> = rows.iter().map(|r| (r.t, r.frame, r.cells, r.intact)).collect();
        assert_eq!(got, vec![(12, 0, 3, true), (20, 1, 1, false), (32, 3, 3, false)]);
    }

    #[test]
    fn an_evicted_packet_disappears_and_those_behind_move_up() {
        let mut c = Capture::new(&[PortId(0)], &[], 1, 0, 1, false);
        for f in 0..4 {
            c.departs(PortId(0), 100 * (f as u64 + 1), &cell(0, f, 0, 1), seg(f));
        }
        c.evicted(PortId(0), &cell(0, 1, 0, 1), 100);
        let got: Vec<(Time, u32)> = c.recordings[0].rows.iter().map(|r| (r.t, r.frame)).collect();
        assert_eq!(got, vec![(100, 0), (200, 2), (300, 3)]);
    }
}
