//! `atmsim._core`: the Python face of atmsim-core. Thin on purpose: it
//! parses, validates and runs a scenario, and hands back the JSON summary
//! and the traces as plain columns (the Python side makes numpy arrays).

use atmsim_core::atm::aal5::{Encapsulation, CELL_BYTES, CELL_PAYLOAD};
use atmsim_core::capture::CaptureError;
use atmsim_core::time::{secs, Time};
use atmsim_core::trace::{EventKind, PortChange, Traces};
use atmsim_core::{scenario, Leftovers, ScenarioError, Stoppable};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::path::PathBuf;

mod ida;

create_exception!(_core, PyScenarioError, PyValueError, "An invalid scenario: one line, 'key: problem'.");

fn to_py(e: ScenarioError) -> PyErr {
    PyScenarioError::new_err(e.to_string())
}

/// The fully resolved scenario (defaults filled in) as TOML text. The GIL
/// is released while it validates, taken back every so often to run
/// Python's signal handlers (`signals`): Ctrl-C stops a validation of 10^6
/// generated flows at once rather than after it.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn resolve(py: Python<'_>, text: &str, overrides: Vec<String>) -> PyResult<String> {
    let text = text.to_owned();
    let mut stopped: Option<PyErr> = None;
    let resolved = py.allow_threads(|| {
        let s = atmsim_core::parse(&text, &overrides)?;
        Ok(match scenario::validate_stoppable(&s, None, &mut signals(&mut stopped))? {
            Stoppable::Done(_) => Stoppable::Done(scenario::to_toml(&s)),
            Stoppable::Stopped(left) => Stoppable::Stopped(left),
        })
    });
    stopped_or(resolved, stopped)
}

/// What a validation asks every so often with the GIL taken back: Python's
/// signal handlers; their exception is kept in `stopped` and stops it.
fn signals(stopped: &mut Option<PyErr>) -> impl FnMut() -> bool + '_ {
    move || Python::with_gil(|py| py.check_signals().map_err(|e| *stopped = Some(e)).is_ok())
}

/// A validation's result, or the exception that stopped it (what it had
/// built freed on a thread of its own: [`free_elsewhere`]).
fn stopped_or<T>(result: Result<Stoppable<T>, ScenarioError>, stopped: Option<PyErr>) -> PyResult<T> {
    match (result, stopped) {
        (Ok(Stoppable::Done(v)), _) => Ok(v),
        (Ok(Stoppable::Stopped(left)), Some(e)) => {
            free_elsewhere(left);
            Err(e)
        }
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(to_py(e)),
        (Ok(Stoppable::Stopped(_)), None) => unreachable!("a validation stops only on an exception"),
    }
}

/// Frees an interrupted validation's half-built model on a thread of its
/// own, so that the exception reaches Python at once: freed on this one, a
/// k = 16 tree's 10^6 connections held Ctrl-C's exit back by 0.4 s. Not
/// leaked (a notebook goes on after Ctrl-C) and not left to a process exit
/// (the CLI removes its staging folders first). A thread that cannot be
/// started frees it here.
fn free_elsewhere(left: Leftovers) {
    if !left.is_empty() {
        let _ = std::thread::Builder::new().name("atmsim-free".into()).spawn(move || drop(left));
    }
}

/// A run's result as a [`Stoppable`] (a stopped run's world is freed where it stopped).
fn run_or_stopped<T>(run: Option<T>) -> Stoppable<T> {
    run.map_or(Stoppable::Stopped(Leftovers::default()), Stoppable::Done)
}

/// Names as one list of Python strings (each made once, shared by the rows).
fn name_list<'py, S: AsRef<str>>(py: Python<'py>, names: &[S]) -> Bound<'py, PyList> {
    PyList::new_bound(py, names.iter().map(|n| PyString::new_bound(py, n.as_ref())))
}

/// A value stored as little-endian bytes in a column.
trait LeColumn: Copy {
    /// Its numpy dtype.
    const DTYPE: &'static str;
    const SIZE: usize;
    fn write(self, out: &mut [u8]);
}

macro_rules! le_column {
    ($t:ty, $dtype:literal) => {
        impl LeColumn for $t {
            const DTYPE: &'static str = $dtype;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
le_column!(f64, "<f8");
le_column!(u64, "<u8");
le_column!(u32, "<u4");
le_column!(u8, "|u1");

impl LeColumn for bool {
    const DTYPE: &'static str = "|b1";
    const SIZE: usize = 1;
    fn write(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
}

/// One column as (numpy dtype, little-endian bytes, labels or None): a few
/// bytes a row, where a Python list took 30 to 40 and long to build (a
/// port log holds millions of rows). The vector is freed once copied.
fn column<'py, T: LeColumn>(py: Python<'py>, v: Vec<T>) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = PyBytes::new_bound_with(py, v.len() * T::SIZE, |out| {
        for (chunk, &x) in out.chunks_exact_mut(T::SIZE).zip(&v) {
            x.write(chunk);
        }
        Ok(())
    })?;
    Ok(PyTuple::new_bound(py, [T::DTYPE.into_py(py), bytes.into_any().unbind(), py.None()]))
}

/// A column of codes with the labels they stand for, in code order.
fn coded<'py>(py: Python<'py>, codes: Vec<u8>, labels: &[&str]) -> PyResult<Bound<'py, PyTuple>> {
    let c = column(py, codes)?;
    Ok(PyTuple::new_bound(py, [c.get_item(0)?, c.get_item(1)?, name_list(py, labels).into_any()]))
}

/// The traces as columns (`column`: dtype, bytes, labels; Python's
/// `atmsim.trace_columns.decode` makes them numpy arrays); `names` holds
/// the flow, port and VC names the index columns refer to (atmsim's tables
/// show the names). The core's vectors are freed as they are copied.
fn traces_to_py(py: Python<'_>, t: Traces) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new_bound(py);
    let n = PyDict::new_bound(py);
    n.set_item("flow", name_list(py, &t.names.flows))?;
    n.set_item("port", name_list(py, &t.names.ports))?;
    n.set_item("vc_flow", name_list(py, &t.names.vc_flows))?;
    n.set_item("vc_direction", name_list(py, &t.names.vc_directions))?;
    n.set_item("fabric_node", name_list(py, &t.names.fabric_nodes))?;
    out.set_item("names", n)?;
    let w = PyDict::new_bound(py);
    w.set_item("t", column(py, t.window.t)?)?;
    w.set_item("flow", column(py, t.window.flow)?)?;
    w.set_item("cwnd", column(py, t.window.cwnd)?)?;
    w.set_item("ssthresh", column(py, t.window.ssthresh)?)?;
    w.set_item("snd_wnd", column(py, t.window.snd_wnd)?)?;
    w.set_item("unacked", column(py, t.window.unacked)?)?;
    out.set_item("window", w)?;
    let q = PyDict::new_bound(py);
    q.set_item("t", column(py, t.queue.t)?)?;
    q.set_item("port", column(py, t.queue.port)?)?;
    q.set_item("occupancy", column(py, t.queue.occupancy)?)?;
    out.set_item("queue", q)?;
    let e = PyDict::new_bound(py);
    e.set_item("t", column(py, t.events.t)?)?;
    e.set_item("flow", column(py, t.events.flow)?)?;
    let kinds: Vec<&str> = EventKind::ALL.iter().map(|k| k.name()).collect();
    e.set_item("kind", coded(py, t.events.kind.into_iter().map(|k| k as u8).collect(), &kinds)?)?;
    e.set_item("seq", column(py, t.events.seq)?)?;
    out.set_item("events", e)?;
    let p = PyDict::new_bound(py);
    p.set_item("t", column(py, t.port.t)?)?;
    p.set_item("vc", column(py, t.port.vc)?)?;
    p.set_item("frame", column(py, t.port.frame)?)?;
    p.set_item("eom", column(py, t.port.eom)?)?;
    let changes: Vec<&str> = PortChange::ALL.iter().map(|c| c.name()).collect();
    p.set_item("change", coded(py, t.port.change.into_iter().map(|c| c as u8).collect(), &changes)?)?;
    out.set_item("port", p)?;
    if !t.rate.is_empty() {
        // ARB senders' rates (Chang, Huynh & Gray): only when a flow is ARB.
        let r = PyDict::new_bound(py);
        r.set_item("t", column(py, t.rate.t)?)?;
        r.set_item("flow", column(py, t.rate.flow)?)?;
        r.set_item("rate_bps", column(py, t.rate.rate_bps)?)?;
        r.set_item("region", column(py, t.rate.region)?)?;
        r.set_item("rinc_bps", column(py, t.rate.rinc_bps)?)?;
        out.set_item("rate", r)?;
    }
    if !t.abr.is_empty() {
        let a = PyDict::new_bound(py);
        a.set_item("t", column(py, t.abr.t)?)?;
        a.set_item("flow", column(py, t.abr.flow)?)?;
        a.set_item("acr_cells_per_s", column(py, t.abr.acr_cells_per_s)?)?;
        a.set_item("waiting", column(py, t.abr.waiting)?)?;
        out.set_item("abr", a)?;
    }
    if !t.fabric.is_empty() {
        // A scheduled cell fabric's devices every trace.interval.
        let f = PyDict::new_bound(py);
        f.set_item("t", column(py, t.fabric.t)?)?;
        f.set_item("node", column(py, t.fabric.node)?)?;
        f.set_item("voq_bytes", column(py, t.fabric.voq_bytes)?)?;
        f.set_item("largest_voq_bytes", column(py, t.fabric.largest_voq_bytes)?)?;
        f.set_item("queued_cells", column(py, t.fabric.queued_cells)?)?;
        f.set_item("largest_link_cells", column(py, t.fabric.largest_link_cells)?)?;
        f.set_item("reassembly_bytes", column(py, t.fabric.reassembly_bytes)?)?;
        out.set_item("fabric", f)?;
    }
    Ok(out)
}

/// Runs one simulation: returns (summary JSON, traces dict). The GIL is
/// released while the simulation runs; every `OBSERVE_EVERY` events (about
/// a tenth of a second) it is taken back for a moment, to run Python's
/// signal handlers (Ctrl-C, SIGTERM stop the run with their exception) and
/// to call `progress(simulated_s, duration_s)` if given (its exception
/// stops the run too).
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new(), seed=None, trace=false, progress=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    trace: bool,
    progress: Option<PyObject>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let text = text.to_owned();
    let mut stopped: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let model = match atmsim_core::model_stoppable(&text, &overrides, seed, trace, &mut signals(&mut stopped))? {
            Stoppable::Done(model) => model,
            Stoppable::Stopped(left) => return Ok(Stoppable::Stopped(left)),
        };
        atmsim_core::run_model_observed(model, trace, observer(&progress, &mut stopped)).map(run_or_stopped)
    });
    let (summary, traces) = stopped_or(result, stopped)?;
    let tr = match traces {
        Some(t) => traces_to_py(py, t)?,
        None => PyDict::new_bound(py),
    };
    Ok((summary.to_json(), tr))
}

/// What a run does every `OBSERVE_EVERY` events with the GIL taken back:
/// Python's signal handlers, then `progress`; an exception from either is
/// kept in `stopped` and stops the run.
fn observer<'a>(progress: &'a Option<PyObject>, stopped: &'a mut Option<PyErr>) -> impl FnMut(Time, Time) -> bool + 'a {
    move |now: Time, duration: Time| {
        Python::with_gil(|py| {
            let called = py.check_signals().and_then(|()| match progress {
                Some(f) => f.call1(py, (secs(now), secs(duration))).map(drop),
                None => Ok(()),
            });
            called.map_err(|e| *stopped = Some(e)).is_ok()
        })
    }
}

/// Runs one simulation with packet captures on, the pcap files written into
/// `directory` as the run goes (bounded memory however long the run):
/// (summary JSON, traces dict, [file names]). The GIL is released while it
/// runs, taken back as [`run`] does (signals, `progress`). A file that
/// cannot be written raises OSError naming it; the files of a run that did
/// not end are left for the caller to remove.
#[pyfunction]
#[pyo3(signature = (text, directory, overrides=Vec::new(), seed=None, trace=false, progress=None))]
fn run_capture<'py>(
    py: Python<'py>,
    text: &str,
    directory: PathBuf,
    overrides: Vec<String>,
    seed: Option<u64>,
    trace: bool,
    progress: Option<PyObject>,
) -> PyResult<(String, Bound<'py, PyDict>, Vec<String>)> {
    let text = text.to_owned();
    let mut stopped: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let model = match atmsim_core::model_stoppable(&text, &overrides, seed, trace, &mut signals(&mut stopped))? {
            Stoppable::Done(model) => model,
            Stoppable::Stopped(left) => return Ok(Stoppable::Stopped(left)),
        };
        atmsim_core::run_model_capture_to(model, trace, Some(&directory), observer(&progress, &mut stopped)).map(run_or_stopped)
    });
    let result = result.map_err(|e| match e {
        CaptureError::Scenario(e) => to_py(e),
        CaptureError::Write(f) => {
            // As Python's own OSError: errno, the system's words (without
            // Rust's " (os error N)"), the file.
            let errno = f.error.raw_os_error().unwrap_or(0);
            let text = f.error.to_string();
            let why = text.split(" (os error").next().unwrap_or(&text).to_owned();
            PyOSError::new_err((errno, why, f.path))
        }
    })?;
    let (summary, traces, files) = stopped_or(Ok(result), stopped)?;
    let tr = match traces {
        Some(t) => traces_to_py(py, t)?,
        None => PyDict::new_bound(py),
    };
    Ok((summary.to_json(), tr, files.into_iter().map(|f| f.name).collect()))
}

const ENCAPSULATIONS: [Encapsulation; 3] = [Encapsulation::Raw48, Encapsulation::Aal5VcMux, Encapsulation::Aal5Llc];

/// Cells of one AAL5 frame carrying an IP datagram of `ip_len` bytes under
/// `encapsulation` ("raw48", "aal5-vcmux" or "aal5-llc"), as the simulator
/// segments it.
#[pyfunction]
fn aal5_cells(ip_len: u32, encapsulation: &str) -> PyResult<u32> {
    ENCAPSULATIONS
        .iter()
        .find(|e| e.name() == encapsulation)
        .map(|e| e.cells(ip_len))
        .ok_or_else(|| PyScenarioError::new_err(format!("encapsulation: unknown '{encapsulation}' (raw48, aal5-vcmux, aal5-llc)")))
}

/// What the simulator derives from a scenario before running it: segment
/// sizes on the wire, cells per segment, exact link rates (`bits` per `ps`
/// picoseconds) and U_max, the payload the bottleneck carries in full
/// segments in the simulated time (the summary's `u_max_bytes`).
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn model_facts<'py>(py: Python<'py>, text: &str, overrides: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let text = text.to_owned();
    let mut stopped: Option<PyErr> = None;
    let m = py.allow_threads(|| scenario::validate_stoppable(&atmsim_core::parse(&text, &overrides)?, None, &mut signals(&mut stopped)));
    let m = stopped_or(m, stopped)?;
    let out = PyDict::new_bound(py);
    let ip = m.tcp.mss + m.header_bytes;
    out.set_item("network", if m.network == scenario::Network::Atm { "atm" } else { "packet" })?;
    out.set_item("encapsulation", m.encap.name())?;
    out.set_item("duration_s", atmsim_core::time::secs(m.duration))?;
    out.set_item("cell_bytes", CELL_BYTES)?;
    out.set_item("cell_payload", CELL_PAYLOAD)?;
    out.set_item("mss", m.tcp.mss)?;
    out.set_item("header_bytes", m.header_bytes)?;
    out.set_item("segment_ip_bytes", ip)?;
    out.set_item("segment_cells", m.encap.cells(ip))?;
    out.set_item("segment_wire_bytes", m.wire_bytes_of(m.tcp.mss))?;
    out.set_item("bottleneck", &m.ports[m.bottleneck.ix()].name)?;
    let ports = PyDict::new_bound(py);
    for p in &m.ports {
        let d = PyDict::new_bound(py);
        d.set_item("rate_bits", p.rate.bits)?;
        d.set_item("rate_ps", p.rate.ps)?;
        d.set_item("rate_bps", p.rate.bits_per_second())?;
        ports.set_item(&p.name, d)?;
    }
    out.set_item("ports", ports)?;
    out.set_item("u_max_bytes", m.u_max_bytes())?;
    Ok(out)
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Every registered mechanism (drop policies, TCP variants) with its keys,
/// counters, goldens and docs page, as JSON (`atmsim.registry()`).
#[pyfunction]
fn registry() -> String {
    atmsim_core::registry_json()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type_bound::<PyScenarioError>())?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_capture, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(aal5_cells, m)?)?;
    m.add_function(wrap_pyfunction!(model_facts, m)?)?;
    m.add_function(wrap_pyfunction!(ida::ida_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(ida::ida_disperse, m)?)?;
    m.add_function(wrap_pyfunction!(ida::ida_reconstruct, m)?)?;
    Ok(())
}
