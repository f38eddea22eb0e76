//! `occupancy.percentiles` (world/services/occupancy.rs): it only adds the
//! ports' occupancy maximum and percentiles to the summary, and they are
//! what the port log's arrivals and departures give.

use atmsim_core::run_text;

fn builtin(name: &str) -> String {
    let path = format!("{}/../../python/atmsim/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// The summary as JSON without its wall time, and without the occupancy
/// fields when `strip` says so.
fn summary_json(text: &str, sets: &[&str], strip: bool) -> serde_json::Value {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut s = run_text(text, &sets, None, false).unwrap().0;
    s.wall_s = 0.0;
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    if strip {
        for p in v["ports"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().retain(|k, _| !k.starts_with("occupancy_units_"));
        }
    }
    v
}

#[test]
fn the_percentiles_only_add_fields_to_the_ports() {
    for (name, sets) in [
        ("ndp-in-out", &["duration=20ms", "measure.from=10ms", "measure.to=20ms"][..]),
        ("aron97-topo1-packet", &["duration=2s"][..]),
        ("aron97-topo1-atm", &["duration=1s"][..]),
    ] {
        let text = builtin(name);
        let plain = summary_json(&text, sets, false);
        let on: Vec<&str> = sets.iter().copied().chain(["occupancy.percentiles=true"]).collect();
        let with = summary_json(&text, &on, false);
        let switch_ports = with["ports"].as_array().unwrap().iter().filter(|p| p.get("occupancy_units_p50").is_some()).count();
        assert!(switch_ports > 0, "{name}: no port has percentiles");
        assert_eq!(summary_json(&text, &on, true), plain, "{name}: the run changed");
        for p in with["ports"].as_array().unwrap().iter().filter(|p| p.get("occupancy_units_p50").is_some()) {
            let q = |k: &str| p[k].as_u64().unwrap();
            let ordered = [
                q("occupancy_units_p50"),
                q("occupancy_units_p90"),
                q("occupancy_units_p99"),
                q("occupancy_units_p999"),
                q("occupancy_units_max"),
            ];
            assert!(ordered.windows(2).all(|w| w[0] <= w[1]), "{name} {}: {ordered:?}", p["name"]);
            if p["unit"] != "bytes" {
                assert_eq!(q("occupancy_units_max"), q("peak_occupancy"), "{name} {}: the most units held", p["name"]);
            }
        }
    }
}

#[test]
fn the_percentiles_are_the_port_logs() {
    // The bottleneck of topology 1 on the packet network, a drop-tail FIFO:
    // its log records each accepted packet's arrival and departure.
    let text = builtin("aron97-topo1-packet");
    let sets: Vec<String> = ["duration=2s", "trace.port=R1->R2", "occupancy.percentiles=true"].iter().map(|s| s.to_string()).collect();
    let (summary, traces) = run_text(&text, &sets, None, true).unwrap();
    let log = traces.unwrap().port;
    let mut changes: Vec<(f64, i64)> = Vec::new();
    for (i, &t) in log.t.iter().enumerate() {
        match log.change[i] {
            atmsim_core::trace::PortChange::Arrive => changes.push((t, 1)),
            atmsim_core::trace::PortChange::Depart => changes.push((t, -1)),
            atmsim_core::trace::PortChange::Drop => {}
        }
    }
    // Departures before arrivals at one instant (a unit leaving as another comes).
    changes.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let horizon = summary.duration_s;
    let (mut level, mut last, mut time_at) = (0i64, 0.0, vec![0.0f64; 1]);
    for &(t, d) in changes.iter().filter(|c| c.0 <= horizon) {
        time_at[level as usize] += t - last;
        (level, last) = (level + d, t);
        if time_at.len() <= level as usize {
            time_at.resize(level as usize + 1, 0.0);
        }
    }
    time_at[level as usize] += horizon - last;
    let total: f64 = time_at.iter().sum();
    let percentile = |p: f64| {
        let mut below = 0.0;
        time_at.iter().position(|&t| {
            below += t;
            below >= p * total * (1.0 - 1e-12)
        })
    };
    let port = summary.ports.iter().find(|p| p.name == "R1->R2").unwrap();
    let o = port.occupancy_units.as_ref().expect("the bottleneck is a FIFO switch port");
    eprintln!(
        "R1->R2 over {horizon} s: max {}, p50 {}, p90 {}, p99 {}, p99.9 {} packets",
        o.occupancy_units_max, o.occupancy_units_p50, o.occupancy_units_p90, o.occupancy_units_p99, o.occupancy_units_p999
    );
    assert_eq!(o.occupancy_units_max as usize, time_at.len() - 1);
    assert_eq!(
        [o.occupancy_units_p50, o.occupancy_units_p90, o.occupancy_units_p99, o.occupancy_units_p999].map(|x| Some(x as usize)),
        [0.5, 0.9, 0.99, 0.999].map(percentile)
    );
    assert!(o.occupancy_units_p50 < o.occupancy_units_max, "the queue moves: {o:?}");
}

#[test]
fn each_ndp_receiver_reports_its_pull_queues_peak() {
    // Fig. 21: h124..h127 receive. B, C and D each get a quarter of A's
    // uplink, so every ACK finds the pacer's spacing (a full packet at line
    // rate, N9) passed and carries its pull: no PULL ever waits. E = h127
    // receives at its line rate from A and F: its pulls queue (N10).
    let sets: Vec<String> = ["duration=20ms", "measure.from=10ms", "measure.to=20ms"].iter().map(|s| s.to_string()).collect();
    let s = run_text(&builtin("ndp-in-out"), &sets, None, false).unwrap().0;
    let hosts: Vec<&str> = s.pull_queues.iter().map(|q| q.host.as_str()).collect();
    assert_eq!(hosts, ["h124", "h125", "h126", "h127"]);
    let peaks: Vec<u64> = s.pull_queues.iter().map(|q| q.peak_pulls_waiting).collect();
    eprintln!("peak pulls waiting: {peaks:?}");
    assert_eq!(peaks[..3], [0, 0, 0]);
    assert!(peaks[3] > 0, "E's pulls never waited");
}
