//! Validation: a parsed [`Scenario`] resolved into a [`Model`], one small
//! function per section, each failing with a [`ScenarioError`] that names the
//! offending key. Sections are checked in a fixed order (network and TCP,
//! trace interval, topology, credit, switches and links, flows, trace port,
//! report, hosts), so a scenario with several problems always reports the
//! same one first.

mod abr;
mod arb;
mod backlog;
mod eqds;
mod flows;
mod ports;
mod queue_memory;
mod tcp;

use super::model::{FlowModel, Model, PortModel};
use super::routing::Nodes;
use super::schema::{HostKind, Scenario};
use super::stop::{Stop, Stoppable};
use super::units::{parse_rate, parse_time};
use super::{err, ScenarioError};
use crate::host::HostModel;
use crate::net::PortId;
use crate::time::Time;

/// Checks a parsed scenario and resolves it into a [`Model`].
pub fn validate(s: &Scenario, seed: Option<u64>) -> Result<Model, ScenarioError> {
    match validate_stoppable(s, seed, &mut || true)? {
        Stoppable::Done(model) => Ok(model),
        Stoppable::Stopped(_) => unreachable!("never told to stop"),
    }
}

/// [`validate`], asking `go_on()` every so often (`stop.rs`): `Stopped` if
/// it said stop (Ctrl-C during a workload of 10^6 flows), with what had
/// been built, for the caller to free where it costs no one a wait.
pub fn validate_stoppable(s: &Scenario, seed: Option<u64>, go_on: &mut dyn FnMut() -> bool) -> Result<Stoppable<Model>, ScenarioError> {
    let mut stop = Stop::new(go_on);
    match resolve_model(s, seed, &mut stop) {
        Err(_) if stop.stopped() => Ok(Stoppable::Stopped(stop.leftovers())),
        model => model.map(Stoppable::Done),
    }
}

fn resolve_model(s: &Scenario, seed: Option<u64>, stop: &mut Stop) -> Result<Model, ScenarioError> {
    seed_in_range(seed)?;
    // A generated topology validates as if written out.
    let written = s;
    let generated = match super::fabric::expand(s)? {
        Some(fabric) => Some(fabric),
        None => super::fattree::expand(s, stop)?,
    };
    // The large parts built below are kept (`Stop::keep`): if the validation
    // stops, they go to its caller unfreed.
    let generated = stop.keep(generated);
    let tree_hosts = generated.as_ref().map(|g| g.topology.hosts.len() as u32);
    let s = generated.as_ref().unwrap_or(s);
    // So does a workload's matrix, as if its flows were written out.
    let duration = positive_time("duration", &s.duration)?;
    stop.now()?;
    let workload = super::workload::expand(s, tree_hosts, seed.unwrap_or(s.seed), duration, stop)?;
    let workload = stop.keep(workload);
    stop.now()?;
    let s = workload.as_ref().map_or(s, |w| &w.scenario);
    let sizes = tcp::sizes(s)?;
    let (tcp, tick) = tcp::tcp(s, &sizes)?;
    let trace_interval = positive_time("trace.interval", &s.trace.interval)?;
    at_most_per_run("tcp.tick", &s.tcp.tick, duration, tick, MAX_TICKS)?;
    at_most_per_run("trace.interval", &s.trace.interval, duration, trace_interval, MAX_SAMPLES)?;
    let nodes = stop.keep(Nodes::new(&s.topology)?);
    let ports = ports::ports(s, &nodes, &sizes, stop)?;
    let mut ports = stop.keep(ports);
    port_rates(s, &mut ports)?;
    switch_latency(s, &nodes, &mut ports)?;
    let seed = seed.unwrap_or(s.seed);
    occupancy_percentiles(s, &nodes, &ports)?;
    let flows = flows::flows(s, &nodes, &ports, &sizes, seed, stop)?;
    let flows = stop.keep(flows);
    stop.now()?;
    if workload.is_none() {
        flows::start_within_the_run(&flows, duration)?;
    }
    let waits = backlog::host_backlog(s.network, sizes.encap, &flows, &ports, duration)?;
    // A key of the schema's sections that does nothing here (`inert.rs`).
    let kinds: Vec<_> = s.flows.iter().map(|f| f.kind).collect();
    stop.now()?;
    super::inert::refuse(s, &kinds)?;
    stop.now()?;
    arb::accumulation_without_arb_flows(s)?;
    let trace_port = match &s.trace.port {
        Some(name) => Some(port_named("trace.port", &ports, name)?),
        None => None,
    };
    let trace_port_rows = port_rows(s)?;
    let bottleneck = bottleneck(s, &nodes, &ports, &flows)?;
    let host = host(s)?;
    let send_jitter = time("host.send_jitter", &s.host.send_jitter)?;
    let abr = abr::abr(s, &ports, &nodes.is_host)?;
    abr::pcr_fits_links(s, &flows, &ports)?;
    let boston = super::boston::resolve(s, sizes.encap.cells(sizes.max_ip()))?;
    let port_names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    let host_names: Vec<&str> = nodes.names.iter().zip(&nodes.is_host).filter(|(_, &h)| h).map(|(n, _)| n.as_str()).collect();
    let capture = super::capture::resolve(s, &port_names, &host_names)?;
    let fabric = super::fabric::resolve(written, &nodes, &ports, sizes.mtu, duration)?;
    if fabric.as_ref().is_some_and(|f| f.config.voq_ecn_above.is_some()) {
        super::fabric_ecn::check_senders(s)?;
    }
    stop.now()?;
    queue_memory::check(s, &ports, &flows, &sizes, &tcp, &waits, fabric.as_ref(), stop)?;
    let (nodes, ports, flows) = (nodes.into_inner(), ports.into_inner(), flows.into_inner());
    let model = Model {
        abr,
        host,
        send_jitter,
        name: s.name.clone(),
        network: s.network,
        duration,
        run_to_duration: stop_rule(s, &flows)?,
        seed,
        seed_use: s.seed_randomizes,
        encap: sizes.encap,
        header_bytes: sizes.header_bytes,
        tcp,
        tick,
        node_names: nodes.names,
        is_host: nodes.is_host,
        ports,
        flows,
        bottleneck,
        trace_interval,
        trace_port,
        trace_port_rows,
        credit_transport: s.credit.transport,
        boston,
        capture,
        fabric,
        input_round_robin: ports::input_round_robin(s)?,
        measure: measure(s, duration)?,
        params: s.params.clone(),
        triggers: workload.as_ref().and_then(|w| w.triggers.clone()),
        jobs: workload.into_inner().map(|w| w.jobs).unwrap_or_default(),
    };
    if model.capture.is_some() {
        super::capture::check(&model)?;
    }
    Ok(model)
}

/// `stop`: whether the run goes on to `duration` after its last bounded
/// flow is done. Refused unless every flow is bounded: a run with an
/// unbounded flow always lasts `duration`, so the key would do nothing.
fn stop_rule(s: &Scenario, flows: &[FlowModel]) -> Result<bool, ScenarioError> {
    let Some(rule) = s.stop else { return Ok(false) };
    if let Some(f) = flows.iter().find(|f| f.bytes.is_none()) {
        return err("stop", format!("does nothing here: flow {} has no bounded size, so the run always lasts its duration", f.name));
    }
    Ok(rule == super::schema::StopRule::Duration)
}

/// Periodic events a run may take per host (coarse ticks) and queue samples
/// it may take (per port): enough for any study (a 1 µs tick over 100 s),
/// small enough that a typo like "1ps" fails here instead of spinning or
/// filling memory.
const MAX_TICKS: u64 = 100_000_000;
const MAX_SAMPLES: u64 = 10_000_000;
/// Bytes the sampled traces (queue, ABR, fabric) may hold in all (1 GB),
/// whatever the number of ports: a sample is one 20-byte row per bounded
/// port and per ABR source, and one 48-byte row per fabric device.
const MAX_SAMPLED_BYTES: u64 = 1_000_000_000;
/// The largest seed: a scenario file's `seed` is a TOML integer, signed
/// 64-bit (TOML 1.0, "Integer"), so a larger seed given to a run (`--seed`,
/// the API) could not be written into the scenario that reproduces it.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// A run's seed, from `--seed` or the API, in the range a scenario file holds.
fn seed_in_range(seed: Option<u64>) -> Result<(), ScenarioError> {
    match seed {
        Some(n) if n > MAX_SEED => {
            err("seed", format!("must be a whole number from 0 to {MAX_SEED}, not {n} (more than a TOML integer holds)"))
        }
        _ => Ok(()),
    }
}

/// Most rows a port log may be allowed (`trace.port_rows`): 0.9 GB in the
/// core at 18 bytes a row, under the 1-GB bar of every structure a run
/// holds (docs/performance.md, "Memory").
pub const MAX_PORT_ROWS: u64 = 50_000_000;

/// For a run with traces on: refuses a `trace.interval` whose samples
/// would hold more than [`MAX_SAMPLED_BYTES`], or, where set, one longer
/// than the run, whose traces would hold only their sample at 0, before
/// anything happened (issue 38, rule 1; the default never refuses a run).
/// (A run without traces takes no samples.)
pub fn check_trace_rows(m: &Model) -> Result<(), ScenarioError> {
    let default = parse_time(&super::schema_trace::TraceSection::default().interval).expect("the default parses");
    if m.trace_interval > m.duration && m.trace_interval != default {
        return err(
            "trace.interval",
            format!(
                "{} s is longer than the run ({} s): its traces would hold only their sample at 0 (use a shorter period)",
                crate::time::secs(m.trace_interval),
                crate::time::secs(m.duration)
            ),
        );
    }
    let samples = m.duration / m.trace_interval;
    let abr_sources = if m.abr.is_some() { m.flows.len() as u64 } else { 0 };
    let queues = m.ports.iter().filter(|p| p.limit != crate::net::Limit::Unlimited).count() as u64 + abr_sources;
    let devices = m.fabric.as_ref().map_or(0, |f| crate::fabric::nodes::count(&f.config.geometry)) as u64;
    let bytes = samples.saturating_mul(20 * queues + 48 * devices);
    if bytes > MAX_SAMPLED_BYTES {
        let what = if devices > 0 { format!("{queues} queues and {devices} fabric devices") } else { format!("{queues} queues") };
        return err(
            "trace.interval",
            format!(
                "{} s samples {what} {samples} times with traces on: {:.1} GB of traces; at most {:.0} GB (use a longer period or a shorter duration)",
                crate::time::secs(m.trace_interval),
                bytes as f64 / 1e9,
                MAX_SAMPLED_BYTES as f64 / 1e9
            ),
        );
    }
    Ok(())
}

/// `trace.port_rows`: positive, and only with a port to log (a cap of
/// nothing would have no effect). The rows a run logs are not estimated
/// before it: how many units reach a port depends on the run (flows that
/// start late or finish early, drops, a workload's triggers), and an estimate
/// from the line's capacity over the whole duration refused runs that fit
/// (eqds-one's 2-MB flow traced over 5 s) while runs with many drops passed
/// it. The cap holds in the run instead: a log that reaches it stops the run
/// (`World::port_log_overflow`).
fn port_rows(s: &Scenario) -> Result<u64, ScenarioError> {
    match (s.trace.port_rows, &s.trace.port) {
        (0, _) => err("trace.port_rows", "must be positive (rows of the port log)"),
        // The cap is itself bounded (issue 38, rule 3: a cap of 2^63 - 1 rows caps nothing).
        (n, _) if n > MAX_PORT_ROWS => err(
            "trace.port_rows",
            format!("{n} rows would hold {:.1} GB in memory (18 bytes a row); at most {MAX_PORT_ROWS}", n as f64 * 18e-9),
        ),
        // Restating the default does nothing wrong (the rule of every key).
        // Set without trace.port, it is refused as doing nothing (`inert.rs`).
        _ => Ok(s.trace.port_rows),
    }
}

/// Refuses a period that would fire more than `max` times in `duration`.
fn at_most_per_run(key: &str, text: &str, duration: Time, period: Time, max: u64) -> Result<(), ScenarioError> {
    let n = duration / period;
    if n > max {
        return err(
            key,
            format!("'{text}' fires {n} times in the run's duration; at most {max} (use a longer period or a shorter duration)"),
        );
    }
    Ok(())
}

fn time(key: &str, s: &str) -> Result<Time, ScenarioError> {
    parse_time(s).or_else(|p| err(key, p))
}

fn positive_time(key: &str, s: &str) -> Result<Time, ScenarioError> {
    let t = time(key, s)?;
    if t == 0 {
        return err(key, "must be positive");
    }
    Ok(t)
}

fn port_named(key: &str, ports: &[PortModel], name: &str) -> Result<PortId, ScenarioError> {
    match ports.iter().position(|p| p.name == name) {
        Some(i) => Ok(PortId(i as u32)),
        None => err(key, format!("no port named '{name}' (use \"A->B\")")),
    }
}

/// `report.bottleneck`, or by default the switch port crossed by most flows
/// (ties: the slowest, then the first listed).
fn bottleneck(s: &Scenario, nodes: &Nodes, ports: &[PortModel], flows: &[FlowModel]) -> Result<PortId, ScenarioError> {
    if let Some(name) = &s.report.bottleneck {
        return port_named("report.bottleneck", ports, name);
    }
    // Flows crossing each port, counted in one pass over the routes (a route
    // crosses a port at most once).
    let mut crossing = vec![0usize; ports.len()];
    for f in flows {
        for p in &f.data_route {
            crossing[p.ix()] += 1;
        }
    }
    Ok((0..ports.len())
        .filter(|&p| !nodes.is_host(ports[p].from))
        .max_by_key(|&p| (crossing[p], std::cmp::Reverse(ports[p].rate.bits_per_second() as u64), std::cmp::Reverse(p)))
        .map(|p| PortId(p as u32))
        .unwrap_or(flows[0].data_route[0]))
}

/// `[host]`: ideal hosts, or Morris & Kung's CPU and adapter pipeline.
/// `[measure]`: a window within the run.
fn measure(s: &Scenario, duration: Time) -> Result<Option<(Time, Time)>, ScenarioError> {
    let Some(m) = &s.measure else { return Ok(None) };
    let (from, to) = (time("measure.from", &m.from)?, time("measure.to", &m.to)?);
    // Each problem named by the key that has it: a window from past the end is measure.from's.
    if from >= duration {
        return err("measure.from", format!("'{}' is at or past the run's end (duration {})", m.from, s.duration));
    }
    if to <= from {
        return err("measure.to", format!("'{}' must be later than measure.from ('{}')", m.to, m.from));
    }
    if to > duration {
        return err("measure.to", format!("'{}' is past the run's end (duration {})", m.to, s.duration));
    }
    Ok(Some((from, to)))
}

/// `topology.switch_latency`: a unit reaches a switch's output queue that
/// long after its arrival (htsim's `FatTreeSwitch` sends every packet
/// through a pipe of the switch latency before its egress queue). A pure
/// delay in front of the queue is the same as a longer link into the
/// switch, so it is added to the delay of every port whose far end is a
/// switch: exact to the picosecond, no event more.
fn switch_latency(s: &Scenario, nodes: &Nodes, ports: &mut [PortModel]) -> Result<(), ScenarioError> {
    let Some(text) = &s.topology.switch_latency else { return Ok(()) };
    let latency = time("topology.switch_latency", text)?;
    for p in ports.iter_mut().filter(|p| !nodes.is_host(p.to)) {
        p.delay += latency;
    }
    Ok(())
}

/// `occupancy.percentiles` (`world/services/occupancy.rs`) watches switch
/// ports that keep their units in their pipe: refused where there is none
/// (every switch port per-VC, or trimming with the exact service).
fn occupancy_percentiles(s: &Scenario, nodes: &Nodes, ports: &[PortModel]) -> Result<(), ScenarioError> {
    if !s.params.bool("occupancy.percentiles", false) {
        return Ok(());
    }
    let exact_trim = s.params.choice("router.trim_service", "strict") == "exact";
    let unwatched =
        |p: &PortModel| nodes.is_host(p.from) || p.per_vc || (exact_trim && matches!(p.drop, crate::net::drop::DropSpec::Trim(_)));
    if ports.iter().all(unwatched) {
        return err(
            "occupancy.percentiles",
            "does nothing here: no switch port is a FIFO or a strictly served trimming port (per-VC queues and router.trim_service = \"exact\" keep units outside the pipe it reads)",
        );
    }
    Ok(())
}

/// `[[topology.port_rate]]`: one direction of a link at its own rate.
fn port_rates(s: &Scenario, ports: &mut [PortModel]) -> Result<(), ScenarioError> {
    for (i, pr) in s.topology.port_rate.iter().enumerate() {
        let p = port_named(&format!("topology.port_rate[{i}].port"), ports, &pr.port)?;
        ports[p.ix()].rate = parse_rate(&pr.rate).or_else(|e| err(format!("topology.port_rate[{i}].rate"), e))?;
    }
    Ok(())
}

fn host(s: &Scenario) -> Result<Option<HostModel>, ScenarioError> {
    Ok(match s.host.model {
        HostKind::Ideal => None,
        HostKind::Adapter => Some(HostModel {
            tcp_rate: parse_rate(&s.host.tcp_rate).or_else(|p| err("host.tcp_rate", p))?,
            bus_rate: parse_rate(&s.host.bus_rate).or_else(|p| err("host.bus_rate", p))?,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::check_trace_rows;
    use crate::scenario::test_support::check;

    #[test]
    fn periods_that_would_run_away_are_refused() {
        for (set, key) in [("tcp.tick=1ps", "tcp.tick"), ("trace.interval=1ps", "trace.interval"), ("trace.interval=1ns", "trace.interval")]
        {
            let e = check(&[set, "duration=10s"]).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.problem.contains("at most"), "{e}");
        }
        assert!(check(&["tcp.tick=1us", "duration=100s"]).is_ok());
        assert!(check(&["trace.interval=1us", "duration=10s"]).is_ok());
    }

    #[test]
    fn trace_rows_count_every_bounded_port() {
        // The base scenario bounds its two switch ports: 10^7 samples are 2 * 10^7 rows, 0.4 GB.
        assert!(check(&["trace.interval=1us", "duration=10s"]).is_ok());
        // 200 bounded ports sampled 10^6 times would be 2 * 10^8 rows, 4 GB.
        let mut sets = vec!["trace.interval=10us".to_string(), "duration=10s".to_string()];
        let chain = crate::scenario::test_support::check_many_ports(100, &mut sets).expect("valid without traces");
        let e = check_trace_rows(&chain).unwrap_err();
        assert_eq!(e.key, "trace.interval", "{e}");
        assert!(e.problem.contains("200 queues") && e.problem.contains("4.0 GB of traces; at most 1 GB"), "{e}");
        sets[0] = "trace.interval=1ms".into();
        assert!(check_trace_rows(&crate::scenario::test_support::check_many_ports(100, &mut sets).unwrap()).is_ok());
    }

    #[test]
    fn the_port_log_cap_is_refused_only_where_it_cannot_hold() {
        // Nothing is estimated before the run (the cap holds in it: world/mod.rs port_log_cap_tests): X->B's line
        // could carry 666,651 rows a second, 4 * 10^8 in 600 s, and the run is not refused for that.
        assert!(check(&["trace.port=X->B", "duration=600s"]).and_then(|m| check_trace_rows(&m)).is_ok());
        // A flow that starts at 599 s logs at most a second's rows: refused by the estimate, though it fits.
        let late = check(&["trace.port=X->B", "duration=600s", "flow.f1.start=599s"]).unwrap();
        assert!(check_trace_rows(&late).is_ok());
        // A cap with no port is a key without effect; 0 holds nothing.
        assert_eq!(check(&["trace.port_rows=10"]).unwrap_err().key, "trace.port_rows");
        assert!(check(&["trace.port_rows=20000000"]).is_ok(), "restating the default is not an error");
        assert_eq!(check(&["trace.port=X->B", "trace.port_rows=0"]).unwrap_err().key, "trace.port_rows");
        // The cap has a cap: at it, taken; past it (2^63 - 1, the most TOML writes, was taken: no bound), refused.
        assert!(check(&["trace.port=X->B", "trace.port_rows=50000000"]).is_ok());
        for past in ["50000001", "9223372036854775807"] {
            let e = check(&["trace.port=X->B", &format!("trace.port_rows={past}")]).unwrap_err();
            assert!(e.key == "trace.port_rows" && e.problem.contains("at most 50000000"), "{e}");
        }
    }

    #[test]
    fn a_run_seed_has_the_range_a_scenario_file_holds() {
        use super::{validate, MAX_SEED};
        use crate::scenario::{parse, test_support::BASE};
        let s = parse(BASE, &[]).unwrap();
        assert!(validate(&s, Some(MAX_SEED)).is_ok());
        for past in [MAX_SEED + 1, u64::MAX] {
            let e = validate(&s, Some(past)).unwrap_err();
            assert!(e.key == "seed" && e.problem.contains("from 0 to 9223372036854775807"), "{e}");
        }
        // The file's own seed: the same range, the same words (serde_words.rs).
        assert!(check(&["seed=9223372036854775807"]).is_ok());
        assert_eq!(check(&["seed=9223372036854775808"]).unwrap_err().key, "seed");
    }

    #[test]
    fn a_measure_window_names_the_key_at_fault() {
        // BASE runs 1 s. A window from past the end was measure.to's ("must be later than measure.from").
        for (sets, line) in [
            (["measure.from=2s", "measure.to=3s"], "measure.from: '2s' is at or past the run's end (duration 1s)"),
            (["measure.from=5ms", "measure.to=1ms"], "measure.to: '1ms' must be later than measure.from ('5ms')"),
            (["measure.from=5ms", "measure.to=2s"], "measure.to: '2s' is past the run's end (duration 1s)"),
        ] {
            assert_eq!(check(&sets).unwrap_err().to_string(), line);
        }
        // One of the two set: the other is missing, beside the one set.
        let e = check(&["measure.from=1ms"]).unwrap_err();
        assert_eq!(e.to_string(), "measure.to: missing: it has no default, so the scenario must give it beside measure.from");
    }

    #[test]
    fn base_scenario_is_valid_and_routed() {
        let m = check(&[]).unwrap();
        assert_eq!(m.flows[0].data_route.len(), 2);
        assert_eq!(m.flows[0].ack_route.len(), 2);
        assert_eq!(m.ports[m.bottleneck.ix()].name, "X->B");
    }
}
