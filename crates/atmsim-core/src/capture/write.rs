//! Captures as pcap files (nanosecond timestamps, magic 0xa1b23c4d), written
//! with the `pcap-file` crate as the run goes (`Capture` flushes its rows
//! here): LINKTYPE_RAW (101, bare IPv4) for hosts and packet-network ports,
//! LINKTYPE_SUNATM (123: a 4-byte direction/VPI/VCI header before each AAL5
//! PDU) for ATM ports. A file goes to disk through a fixed buffer
//! (`FILE_BUFFER`), or into memory (`run_text_capture`, the goldens).

use super::headers::{host_ip, ip_packet, sunatm, VcWire, LLC_SNAP_IPV4};
use super::{Point, Row};
use crate::atm::aal5::{Encapsulation, AAL5_TRAILER, CELL_PAYLOAD};
use crate::net::{VcRole, VcTable};
use crate::scenario::{App, Model, Network};
use crate::time::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_SUNATM: u32 = 123;

/// One pcap file, written: its bytes when it was written to memory, its
/// path when it was written to disk (then `bytes` is empty).
#[derive(Clone, Debug)]
pub struct CaptureFile {
    /// `port-A-B.pcap` or `host-A.pcap`.
    pub name: String,
    pub linktype: u32,
    pub packets: u64,
    pub bytes: Vec<u8>,
    pub path: Option<PathBuf>,
}

/// Bytes a file on disk gathers before they are written: with the rows a
/// recording holds before it flushes (`FLUSH_ROWS` in `mod.rs`), what bounds
/// a capture's memory whatever the run's length.
pub const FILE_BUFFER: usize = 1 << 16;

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

/// What turns a row into a pcap record, taken from the model once so the
/// capture writes as the run goes.
#[derive(Debug)]
pub struct Encoder {
    wires: Vec<Option<VcWire>>,
    encap: Encapsulation,
    atm: bool,
    pub snaplen: u32,
}

impl Encoder {
    pub fn new(m: &Model, vcs: &VcTable, snaplen: u32) -> Self {
        Encoder { wires: wires(m, vcs), encap: m.encap, atm: m.network == Network::Atm, snaplen }
    }

    /// Does the VC carry IP packets (the VBR background does not)?
    pub fn encodes(&self, row: &Row) -> bool {
        self.wires[row.vc.ix()].is_some()
    }

    /// ATM ports hold AAL5 PDUs; hosts and packet ports IP packets.
    pub fn linktype(&self, point: Point) -> u32 {
        if self.atm && matches!(point, Point::Port(_)) {
            LINKTYPE_SUNATM
        } else {
            LINKTYPE_RAW
        }
    }

    /// One record of a VC that `encodes`: its original length and captured bytes.
    pub fn record(&self, row: &Row, point: Point) -> (u32, Vec<u8>) {
        let wire = self.wires[row.vc.ix()].as_ref().expect("a VC that carries IP");
        let snap = self.snaplen as usize;
        if self.linktype(point) != LINKTYPE_SUNATM {
            return ip_packet(wire, &row.seg, snap);
        }
        let llc = self.encap == Encapsulation::Aal5Llc;
        let mut b = sunatm(llc, 0, vci(row.vc.ix())).to_vec();
        if !row.intact {
            // A PDU that lost cells upstream: the length a reassembler would
            // find; its bytes are not known, so they are zeros.
            let trailer = if self.encap == Encapsulation::Raw48 { 0 } else { AAL5_TRAILER };
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
}

/// Where a pcap file's bytes go.
#[derive(Debug)]
enum Out {
    Memory(Vec<u8>),
    File(BufWriter<File>),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Memory(v) => v.write(buf),
            Out::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Memory(_) => Ok(()),
            Out::File(f) => f.flush(),
        }
    }
}

fn io_error(e: PcapError) -> io::Error {
    match e {
        PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// One pcap file being written.
#[derive(Debug)]
pub struct PcapOut {
    name: String,
    linktype: u32,
    path: Option<PathBuf>,
    packets: u64,
    writer: PcapWriter<Out>,
}

/// The 24 bytes of a pcap file's header; each record adds 16 and its data.
pub const FILE_HEADER_BYTES: u64 = 24;
pub const RECORD_HEADER_BYTES: u64 = 16;

impl PcapOut {
    /// Opens `dir/name` (created or truncated), or a file in memory without `dir`.
    pub fn open(name: String, linktype: u32, snaplen: u32, dir: Option<&Path>) -> io::Result<PcapOut> {
        let (out, path) = match dir {
            None => (Out::Memory(Vec::new()), None),
            Some(d) => {
                let path = d.join(&name);
                let f = File::create(&path)?;
                (Out::File(BufWriter::with_capacity(FILE_BUFFER, f)), Some(path))
            }
        };
        let header = PcapHeader {
            snaplen,
            datalink: DataLink::from(linktype),
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..Default::default()
        };
        let writer = PcapWriter::with_header(out, header).map_err(io_error)?;
        Ok(PcapOut { name, linktype, path, packets: 0, writer })
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends one record.
    pub fn write(&mut self, t: Time, orig: u32, data: &[u8]) -> io::Result<()> {
        let ts = Duration::from_nanos(t / 1000);
        self.writer.write_packet(&PcapPacket::new(ts, orig, data)).map_err(io_error)?;
        self.packets += 1;
        Ok(())
    }

    /// The file, complete: its buffer written out.
    pub fn close(self) -> io::Result<CaptureFile> {
        let (name, linktype, packets, path) = (self.name, self.linktype, self.packets, self.path);
        let bytes = match self.writer.into_writer() {
            Out::Memory(v) => v,
            Out::File(f) => {
                f.into_inner().map_err(|e| e.into_error())?;
                Vec::new()
            }
        };
        Ok(CaptureFile { name, linktype, packets, bytes, path })
    }
}

pub fn file_name(m: &Model, point: Point) -> String {
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
