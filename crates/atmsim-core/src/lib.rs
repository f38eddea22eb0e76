//! atmsim-core: a cell-accurate discrete-event simulator of TCP over ATM
//! and, on the same topologies, over packet networks.
//!
//! Module map (ARCHITECTURE.md has the path of a cell through it):
//! - [`base`]: the floor: typed ids, units (cells or packets), the frame header;
//! - [`time`]: integer picosecond time, exact rates and serializers;
//! - [`engine`]: the event queue;
//! - [`net`]: ids, units, routes, output ports (queue + transmitter + pipe),
//!   the drop layer (`net::drop`: tail, PPD, EPD, EOM protection, RED, random
//!   drop, line loss);
//! - [`atm`]: AAL5 SAR, ABR, TCP Boston's partial reassembly;
//! - [`coding`]: GF(2^8) and Rabin's IDA (TCP Boston);
//! - [`transport`]: the BSD TCP, with congestion control apart;
//! - [`host`]: the optional host/adapter model (Morris & Kung);
//! - [`send_jitter`]: an optional random per-packet processing time at ideal hosts;
//! - [`capture`]: packet captures as pcap files (`--pcap`);
//! - [`ledger`]: the fate of every frame (accounting, losses);
//! - [`stats`], [`trace`]: derived statistics and time series;
//! - [`scenario`]: TOML schema, overrides, validation;
//! - [`source`]: traffic sources that are not transports (datagrams);
//! - [`rng`]: random streams handed out from the run's seed;
//! - [`world`]: the arenas and the event loop that wire it all and run it;
//!   [`summary`]: results.

pub mod atm;
pub mod base;
pub mod capture;
pub mod coding;
pub mod engine;
pub mod fabric;
pub mod host;
pub mod ledger;
pub mod net;
pub mod ring;
pub mod rng;
pub mod scenario;
pub mod send_jitter;
pub mod source;
pub mod stats;
pub mod summary;
pub mod time;
pub mod trace;
pub mod transport;
pub mod world;

pub use scenario::{Leftovers, Model, Scenario, ScenarioError, Stoppable};
pub use summary::Summary;
pub use world::World;

/// Every registered mechanism: the scenario's (drop policies, TCP variants,
/// read by `scenario::registry`) and the run's services (`world::SERVICES`),
/// each declared in its own file.
pub fn mechanisms() -> impl Iterator<Item = &'static base::mechanism::Mechanism> {
    scenario::registry::mechanisms().chain(world::SERVICES.iter().copied())
}

/// [`mechanisms`] as JSON (`atmsim.registry()`).
pub fn registry_json() -> String {
    scenario::registry::to_json(mechanisms())
}

/// Parses a scenario with every registered mechanism's keys (the services'
/// too, which the scenario layer does not know) and applies overrides.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    scenario::parse_with(text, overrides, world::SERVICES)
}

/// Parses, overrides and validates a scenario for a run, with the limits
/// of its traces if they are on.
fn model_for(text: &str, overrides: &[String], seed: Option<u64>, trace: bool) -> Result<Model, ScenarioError> {
    match model_stoppable(text, overrides, seed, trace, &mut || true)? {
        Stoppable::Done(model) => Ok(model),
        Stoppable::Stopped(_) => unreachable!("never told to stop"),
    }
}

/// [`model_for`], asking `go_on()` every so often as it validates
/// (`scenario/stop.rs`): `Stopped`, with what had been built, if it said
/// stop. Then [`run_model_observed`] runs the model.
pub fn model_stoppable(
    text: &str,
    overrides: &[String],
    seed: Option<u64>,
    trace: bool,
    go_on: &mut dyn FnMut() -> bool,
) -> Result<Stoppable<Model>, ScenarioError> {
    let model = match scenario::validate_stoppable(&parse(text, overrides)?, seed, go_on)? {
        Stoppable::Done(model) => model,
        stopped => return Ok(stopped),
    };
    if trace {
        scenario::check_trace_rows(&model)?;
    }
    Ok(Stoppable::Done(model))
}

/// Parses, overrides and validates a scenario, then runs it.
pub fn run_text(
    text: &str,
    overrides: &[String],
    seed: Option<u64>,
    trace: bool,
) -> Result<(Summary, Option<trace::Traces>), ScenarioError> {
    Ok(run_text_observed(text, overrides, seed, trace, |_, _| true)?.expect("an observer that never stops"))
}

/// Like [`run_text`], calling `observe(simulated time reached, duration)`
/// every [`world::OBSERVE_EVERY`] events (progress reports, interruption);
/// `Ok(None)` if `observe` stopped the run.
pub fn run_text_observed(
    text: &str,
    overrides: &[String],
    seed: Option<u64>,
    trace: bool,
    observe: impl FnMut(time::Time, time::Time) -> bool,
) -> Result<Option<(Summary, Option<trace::Traces>)>, ScenarioError> {
    run_model_observed(model_for(text, overrides, seed, trace)?, trace, observe)
}

/// [`run_text_observed`] of a model already validated ([`model_stoppable`]).
pub fn run_model_observed(
    model: Model,
    trace: bool,
    mut observe: impl FnMut(time::Time, time::Time) -> bool,
) -> Result<Option<(Summary, Option<trace::Traces>)>, ScenarioError> {
    let mut world = World::new(model, trace);
    let whole = run_capped(&mut world, &mut observe)?;
    Ok(whole.then(|| world.finish()))
}

/// Runs `world` observed; a port log or pcap files that reached their cap
/// (`trace.port_rows`, `capture.max_bytes`) is an error naming the key,
/// never output silently cut short.
fn run_capped(world: &mut World, observe: &mut dyn FnMut(time::Time, time::Time) -> bool) -> Result<bool, ScenarioError> {
    let whole = world.run_observed(observe);
    match world.port_log_overflow().or_else(|| world.capture_overflow()) {
        Some(e) => Err(e),
        None => Ok(whole),
    }
}

/// What a run with captures returns: the summary, the traces if asked for,
/// and the pcap files.
pub type CapturedRun = (Summary, Option<trace::Traces>, Vec<capture::write::CaptureFile>);

/// As [`run_text`], with packet captures on (`[capture]`, or by default
/// every host of a flow and the bottleneck port): also the pcap files.
pub fn run_text_capture(text: &str, overrides: &[String], seed: Option<u64>, trace: bool) -> Result<CapturedRun, ScenarioError> {
    Ok(run_text_capture_observed(text, overrides, seed, trace, |_, _| true)?.expect("an observer that never stops"))
}

/// [`run_text_capture`] observed as [`run_text_observed`] is: `Ok(None)`
/// if `observe` stopped the run (no files are written then).
pub fn run_text_capture_observed(
    text: &str,
    overrides: &[String],
    seed: Option<u64>,
    trace: bool,
    observe: impl FnMut(time::Time, time::Time) -> bool,
) -> Result<Option<CapturedRun>, ScenarioError> {
    run_text_capture_to(text, overrides, seed, trace, None, observe).map_err(|e| match e {
        capture::CaptureError::Scenario(e) => e,
        capture::CaptureError::Write(f) => unreachable!("files in memory are written without failure: {f:?}"),
    })
}

/// [`run_text_capture_observed`] with the pcap files written into `dir` as
/// the run goes (a fixed buffer each, so memory stays bounded however long
/// the run), or kept in memory without `dir`. A file that cannot be written
/// stops the run (`CaptureError::Write`); `Ok(None)` if `observe` stopped
/// it. Files left in `dir` by a run that did not end are the caller's to
/// remove.
pub fn run_text_capture_to(
    text: &str,
    overrides: &[String],
    seed: Option<u64>,
    trace: bool,
    dir: Option<&std::path::Path>,
    observe: impl FnMut(time::Time, time::Time) -> bool,
) -> Result<Option<CapturedRun>, capture::CaptureError> {
    run_model_capture_to(model_for(text, overrides, seed, trace)?, trace, dir, observe)
}

/// [`run_text_capture_to`] of a model already validated ([`model_stoppable`]).
pub fn run_model_capture_to(
    model: Model,
    trace: bool,
    dir: Option<&std::path::Path>,
    mut observe: impl FnMut(time::Time, time::Time) -> bool,
) -> Result<Option<CapturedRun>, capture::CaptureError> {
    let mut world = World::new(model, trace);
    world.enable_capture_to(dir)?;
    let whole = run_capped(&mut world, &mut observe);
    if let Some(f) = world.take_capture_failure() {
        return Err(f.into());
    }
    if !whole? {
        return Ok(None);
    }
    // The rows written at the end may reach the cap too.
    world.close_captures()?;
    if let Some(e) = world.capture_overflow() {
        return Err(e.into());
    }
    Ok(Some(world.finish_with_captures()))
}
