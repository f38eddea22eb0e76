//! TCP Boston end to end (Bestavros & Kim 1997): short runs of the 16-source
//! star of the paper's Fig. 4, checking what must hold in any run.

use atmsim_core::run_text;

fn scenario() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/atmsim/scenarios/boston97.toml")).unwrap()
}

fn run(overrides: &[&str]) -> atmsim_core::Summary {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    run_text(&scenario(), &o, Some(1), false).unwrap().0
}

/// 512-byte packets (11 cells): cheap to rebuild with IDA.
const SMALL: [&str; 4] = ["duration=30s", "tcp.mss=472B", "ip.mtu=512B", "tcp.window=61360B"];

#[test]
fn payload_mode_rebuilds_every_segment_from_its_pieces() {
    let mut o = SMALL.to_vec();
    o.extend(["boston.payload=true", "boston.pieces=256"]);
    let s = run(&o);
    let checked: u64 = s.boston.iter().map(|b| b.payload_checked).sum();
    let partial: u64 = s.boston.iter().map(|b| b.partial_acks).sum();
    assert!(s.cell_loss_ratio > 0.01, "the run must lose cells to test anything");
    assert!(checked > 1000 && partial > 100, "checked {checked}, partial ACKs {partial}");
    assert!(s.boston.iter().all(|b| b.payload_mismatches == 0));
    assert!(s.accounting.balanced);
}

#[test]
fn retransmissions_carry_only_the_missing_pieces() {
    let s = run(&["duration=60s"]);
    let (frames, cells): (u64, u64) = s.boston.iter().fold((0, 0), |a, b| (a.0 + b.frames_retransmitted, a.1 + b.cells_retransmitted));
    assert!(frames > 50);
    // A 9180-byte packet is 192 cells; partial ACKs make most
    // retransmissions shorter.
    assert!((cells as f64 / frames as f64) < 150.0, "{cells} cells in {frames} retransmitted frames");
    assert!(s.accounting.balanced);
}

/// First transmissions of data are frames of `cells` cells, SYNs one cell:
/// how many one-cell frames does that leave (None if the cells do not fit)?
fn one_cell_frames(s: &atmsim_core::Summary, cells: u64) -> Option<u64> {
    let frames: u64 = s.boston.iter().map(|x| x.frames_sent - x.frames_retransmitted).sum();
    let sent: u64 = s.boston.iter().map(|x| x.cells_sent - x.cells_retransmitted).sum();
    let short = (cells * frames).checked_sub(sent)?;
    (short % (cells - 1) == 0).then_some(short / (cells - 1))
}

#[test]
fn reno_measured_the_same_way_sends_whole_frames_and_no_partial_acks() {
    let s = run(&["duration=60s", "boston.aida=false"]);
    assert!(s.boston.iter().all(|b| b.partial_acks == 0));
    // 16 SYNs (and any SYN retransmissions), every data frame 192 cells.
    assert!(one_cell_frames(&s, 192).is_some_and(|n| (16..32).contains(&n)));
    assert!(s.accounting.balanced);
}

#[test]
fn redundancy_sends_extra_pieces_up_front_and_is_deterministic() {
    let a = run(&["duration=20s", "boston.redundancy=8"]);
    let b = run(&["duration=20s", "boston.redundancy=8"]);
    assert_eq!(a.to_json().replace(&format!("{}", a.wall_s), ""), b.to_json().replace(&format!("{}", b.wall_s), ""));
    assert!(one_cell_frames(&a, 200).is_some_and(|n| (16..32).contains(&n)));
    assert!(a.accounting.balanced);
}

/// No segment is delivered without m distinct pieces: the data cells that
/// crossed the network bound the segments delivered, also when the 64
/// spare pieces of a 192-cell segment run out and indices are reused.
#[test]
fn every_delivered_segment_took_m_cells_across_the_network() {
    for n in ["boston.pieces=256", "boston.pieces=65535"] {
        let s = run(&["duration=60s", "switch.buffer=64cells", n]);
        let crossed: u64 = s.boston.iter().map(|b| b.cells_sent - b.cells_dropped).sum();
        let segments: u64 = s.flows.iter().map(|f| f.bytes_delivered / 9140).sum();
        assert!(segments > 10 && segments * 192 <= crossed, "{n}: {segments} segments from {crossed} cells");
        assert!(s.accounting.balanced);
    }
}

#[test]
fn round_robin_input_service_keeps_each_vc_in_order_and_the_books_balanced() {
    // Payload mode rebuilds every segment from the bytes of its cells: a
    // switch that reordered the cells of a VC, or lost one while it waited
    // in an input port, would fail the rebuild or the accounting (cells
    // still waiting at the run's end count as in flight).
    let mut o = SMALL.to_vec();
    o.extend(["duration=10s", "boston.payload=true", "boston.pieces=256", "switch.input_service=round-robin"]);
    let rr = run(&o);
    assert!(rr.cell_loss_ratio > 0.01, "the run must lose cells to test anything");
    assert!(rr.boston.iter().map(|b| b.payload_checked).sum::<u64>() > 300);
    assert!(rr.boston.iter().all(|b| b.payload_mismatches == 0));
    assert!(rr.accounting.balanced);
    // One slot event per cell slot with arrivals: more events than the
    // arrival-order switch over the same cell-hops' worth of traffic.
    o.push("switch.input_service=arrival");
    let arrival = run(&o);
    assert!(rr.events > arrival.events + arrival.events / 10, "{} vs {}", rr.events, arrival.events);
}
