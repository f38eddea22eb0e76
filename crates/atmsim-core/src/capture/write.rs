//! Captures as pcap files (nanosecond timestamps, magic 0xa1b23c4d), written
//! with the `pcap-file` crate after the run: LINKTYPE_RAW (101, bare IPv4)
//! for hosts and packet-network ports, LINKTYPE_SUNATM (123: a 4-byte
//! direction/VPI/VCI header before each AAL5 PDU) for ATM ports.

use super::headers::{host_ip, ip_packet, sunatm, VcWire, LLC_SNAP_IPV4};
use super::{Capture, Point, Row};
use crate::atm::aal5::{Encapsulation, AAL5_TRAILER, CELL_PAYLOAD};
use crate::net::{VcRole, VcTable};
use crate::scenario::{App, Model, Network};
use crate::time::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::time::Duration;

pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_SUNATM: u32 = 123;

/// One pcap file, in memory.
#[derive(Clone, Debug)]
pub struct CaptureFile {
    /// `port-A-B.pcap` or `host-A.pcap`.
    pub name: String,
    pub linktype: u32,
    pub packets: u64,
    pub bytes: Vec<u8>,
}

/// The VCI of a VC in the captures: 32 + its index (VCIs 0-31 are reserved
/// by ITU-T I.361 and the ATM Forum), on VPI 0.
pub fn vci(vc: usize) -> u16 {
    32 + vc as u16
}

/// TCP ports: a flow's sender uses 1024 + its index, its receiver 33000 + it.
fn ports_of(flow: usize) -> (u16, u16) {
    let f = (flow % 30000) as u16;
    (1024 + f, 33000 + f)
}

/// How each VC's packets look (None: the VBR background, which carries no IP).
fn wires(m: &Model, vcs: &VcTable) -> Vec<Option<VcWire>> {
    vcs.iter()
        .map(|v| {
            let f = m.flows.get(v.flow.ix())?;
            let rcv_buf = f.window.unwrap_or(m.tcp.rcv_buf);
            let wscale = (0..14u8).find(|&s| (65535u64 << s) >= rcv_buf).unwrap_or(14);
            let (snd, rcv) = ports_of(v.flow.ix());
            let reply = v.role == VcRole::Reply;
            let (src_port, dst_port) = if reply { (rcv, snd) } else { (snd, rcv) };
            Some(VcWire {
                src_ip: host_ip(v.src.0),
                dst_ip: host_ip(v.dst.0),
                src_port,
                dst_port,
                tcp: f.app == App::Tcp,
                reply,
                header_bytes: v.header_bytes,
                wscale,
                sender_wnd: rcv_buf.min(u32::MAX as u64) as u32,
            })
        })
        .collect()
}

fn file_name(m: &Model, point: Point) -> String {
    let clean = |s: &str| {
        s.replace("->", "-").chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect::<String>()
    };
    match point {
        Point::Port(p) => format!("port-{}.pcap", clean(&m.ports[p.ix()].name)),
        Point::Host(h) => {
            let name = m.node_names.iter().zip(&m.is_host).filter(|(_, &is)| is).nth(h.ix()).expect("a host").0;
            format!("host-{}.pcap", clean(name))
        }
    }
}

/// One record: its original length and captured bytes.
fn record(m: &Model, wire: &VcWire, vc: usize, row: &Row, atm_port: bool, snap: usize) -> (u32, Vec<u8>) {
    if !atm_port {
        return ip_packet(wire, &row.seg, snap);
    }
    let llc = m.encap == Encapsulation::Aal5Llc;
    let mut b = sunatm(llc, 0, vci(vc)).to_vec();
    if !row.intact {
        // A PDU that lost cells upstream: the length a reassembler would
        // find; its bytes are not known, so they are zeros.
        let trailer = if m.encap == Encapsulation::Raw48 { 0 } else { AAL5_TRAILER };
        let orig = 4 + row.cells as u32 * CELL_PAYLOAD - trailer;
        b.resize((orig as usize).min(snap), 0);
        return (orig, b);
    }
    if llc {
        b.extend_from_slice(&LLC_SNAP_IPV4);
    }
    let head = b.len();
    let (ip_len, ip) = ip_packet(wire, &row.seg, snap.saturating_sub(head));
    b.extend_from_slice(&ip);
    (head as u32 + ip_len, b)
}

/// Every recording of `c` as a pcap file, packets in time order, up to
/// `end` (a FIFO port knows departures beyond the end of the run).
pub fn files(c: &Capture, m: &Model, vcs: &VcTable, snaplen: u32, end: Time) -> Vec<CaptureFile> {
    let wires = wires(m, vcs);
    c.recordings
        .iter()
        .map(|rec| {
            let atm_port = m.network == Network::Atm && matches!(rec.point, Point::Port(_));
            let linktype = if atm_port { LINKTYPE_SUNATM } else { LINKTYPE_RAW };
            let header = PcapHeader {
                snaplen,
                datalink: DataLink::from(linktype),
                ts_resolution: TsResolution::NanoSecond,
                endianness: Endianness::Little,
                ..Default::default()
            };
            let mut w = PcapWriter::with_header(Vec::new(), header).expect("writing to memory");
            let mut rows: Vec<&Row> = rec.rows.iter().filter(|r| r.t <= end && wires[r.vc.ix()].is_some()).collect();
            rows.sort_by_key(|r| r.t);
            for row in &rows {
                let wire = wires[row.vc.ix()].as_ref().expect("filtered");
                let (orig, data) = record(m, wire, row.vc.ix(), row, atm_port, snaplen as usize);
                let ts = Duration::from_nanos(row.t / 1000);
                w.write_packet(&PcapPacket::new(ts, orig, &data)).expect("writing to memory");
            }
            CaptureFile { name: file_name(m, rec.point), linktype, packets: rows.len() as u64, bytes: w.into_writer() }
        })
        .collect()
}
