"""Runs many simulations over worker processes.

Why it looks like this:
- Each run depends only on its scenario text, overrides and seed, and results
  are put back in job order, so a sweep's output is identical for any worker
  count.
- Workers are started with the `spawn` method: the parent may hold threads
  (rich's progress refresher), and forking a threaded process can deadlock.
  The job function is a module-level function of plain data, so it pickles.
- A spawned worker re-imports the parent's main script (as `__mp_main__`):
  the `atmsim` script's one import is `atmsim._entry`, not the CLI, and this
  module imports only `_core` and stdlib at top level, so workers load the
  core and not click, rich, pandas or matplotlib (a test checks it).
- With a cache directory each finished run is written at once to
  `<cache_dir>/<sha256(resolved scenario + seed)>.json`; a sweep that is
  interrupted (Ctrl-C, crash, machine reboot) resumes where it stopped, and
  the key is the *resolved* text, so two spellings of the same scenario share
  a result while any change to a default invalidates it; a scenario with a
  connection matrix adds the hash of the matrix file's contents
  (`workload.matrix_digest`), so an edited matrix is run again.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from . import _core
from .seed_range import seed as _seed



@dataclass(frozen=True)
class Job:
    """One simulation: scenario TOML text, `--set` overrides, seed (None: the scenario's)."""

    scenario: str  # TOML text
    overrides: tuple = ()
    seed: Optional[int] = None
    trace: bool = False
    tag: tuple = field(default=(), compare=False)

    def __post_init__(self):
        # One "key=value" string is one override, not its characters.
        ov = self.overrides
        object.__setattr__(self, "overrides", (ov,) if isinstance(ov, str) else tuple(ov))

    def key(self) -> str:
        """Cache key: sha256 of the resolved scenario text and the seed (and of the contents of the
        connection matrix it names: the text names the file, an edit must not reuse a stale run)."""
        from .workload import matrix_digest

        resolved = _core.resolve(self.scenario, list(self.overrides))
        return cache_key(resolved, self.seed, matrix_digest(resolved))


@functools.lru_cache(maxsize=1)
def core_fingerprint() -> str:
    """A hash of the compiled core: results cached by another build are not reused."""
    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def cache_key(resolved: str, seed: Optional[int], matrix: Optional[str] = None) -> str:
    tail = f"#matrix={matrix}\n" if matrix else ""
    return hashlib.sha256(f"{resolved}\n#seed={seed}\n#core={core_fingerprint()}\n{tail}".encode()).hexdigest()


def check_seed(seed: Optional[int]) -> None:
    """A seed in the one range of seeds (`seed_range.py`), as an input error rather than an OverflowError."""
    if seed is not None:
        try:
            _seed(seed)
        except ValueError as e:
            raise _core.ScenarioError(str(e)) from None


@dataclass(frozen=True)
class RunFailed:
    """The result of a job that failed, with `run_jobs(..., keep_going=True)`:
    its one-line reason ("key: problem" for an invalid scenario)."""

    reason: str


def _run_one_or_reason(job: Job):
    """Runs in a worker: the job's result, or RunFailed with the one-line
    reason of its failure (so the other jobs go on)."""
    try:
        return _run_one(job)
    except Exception as e:  # noqa: BLE001 - any failure of one run is that run's result
        return RunFailed(" ".join(str(e).split()) or type(e).__name__)


def _run_one(job: Job):
    """Runs in a worker: returns the summary dict, or (summary, traces) for a traced job."""
    check_seed(job.seed)
    summary, traces = _core.run(job.scenario, list(job.overrides), job.seed, job.trace)
    s = json.loads(summary)
    return (s, traces) if job.trace else s


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


#: Local worker processes per CPU at most: more only add memory (each worker holds a copy of the
#: core and its runs) and contention, never speed.
MAX_WORKERS_PER_CPU = 4


def check_workers(workers: Optional[int]) -> None:
    """Refuses a local pool far larger than the machine (before any work: `--workers 1000` on 2 CPUs
    once spawned 74 processes and 1.4 GB)."""
    from atmsim.errors import InputError

    limit = MAX_WORKERS_PER_CPU * default_workers()
    if workers is not None and workers > limit:
        raise InputError(f"--workers: {workers} is more than {MAX_WORKERS_PER_CPU} per CPU on this machine "
                         f"({default_workers()} CPUs, at most {limit}); use --scheduler for a cluster")


#: What every run summary holds, with its type: a cached entry without them is damaged, not a result.
_NUM = (int, float, type(None))  # a ratio of nothing is null in JSON
SUMMARY_SHAPE = {"scenario": str, "seed": int, "network": str, "effective_throughput": _NUM,
                 "effective_throughput_common": _NUM, "fairness": _NUM, "cell_loss_ratio": _NUM,
                 "dead_cell_share": _NUM, "accounting": dict, "flows": list, "ports": list}


def summary_problem(s) -> Optional[str]:
    """None if `s` has the shape of a run summary, else what is wrong (a cache entry of the wrong shape)."""
    if not isinstance(s, dict):
        return f"a JSON {type(s).__name__}, not a run summary"
    for k, t in SUMMARY_SHAPE.items():
        if k not in s:
            return f"no '{k}'"
        if not isinstance(s[k], t) or isinstance(s[k], bool):
            return f"'{k}' is a {type(s[k]).__name__}"
    if "balanced" not in s["accounting"] or not all(isinstance(f, dict) for f in s["flows"]):
        return "accounting or flows malformed"
    return None


class _Cache:
    """One JSON file per untraced run; written atomically (tmp file + os.replace)."""

    def __init__(self, root: Optional[Path]):
        self.root = Path(root) if root is not None else None

    def path(self, job: Job) -> Optional[Path]:
        if self.root is None or job.trace:
            return None  # traces are large and cheap to recompute for the few traced runs
        return self.root / f"{job.key()}.json"

    def load(self, job: Job):
        p = self.path(job)
        if p is None or not p.exists():
            return None
        if p.is_dir():  # not ours to remove (it may hold the user's files), and no result can replace it
            from atmsim.errors import InputError

            raise InputError(f"run cache: {p}: is a folder, not a cached run; move it away, or run with --no-cache")
        try:
            hit = json.loads(p.read_text(encoding="utf-8"))
            problem = summary_problem(hit)
        except (OSError, ValueError) as e:  # a torn or unreadable file
            problem = " ".join(str(e).split()) or type(e).__name__
        if problem is None:
            return hit
        print(f"atmsim: cache: {p}: damaged entry ({problem}); running that point again", file=sys.stderr, flush=True)
        return None

    def check(self) -> None:
        """Before any run: the cache folder is made if needed and must take a file (a probe file is
        made and removed), or one line names it (InputError, exit 2) - not the hidden temporary file
        of the first result, after that run."""
        if self.root is None:
            return
        from atmsim.errors import InputError

        probe = self.root / f".atmsim-probe-{os.getpid()}"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            os.unlink(probe)
        except OSError as e:
            why = e.strerror or " ".join(str(e).split())
            if isinstance(e, FileExistsError) and not self.root.is_dir():
                why = "exists and is not a directory"
            raise InputError(f"run cache: {self.root}: cannot be written ({why}); make it writable, "
                             "or run with --no-cache") from None

    def store(self, job: Job, result) -> None:
        p = self.path(job)
        if p is None:
            return
        from atmsim.errors import OutputError

        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(result), encoding="utf-8")
            os.replace(tmp, p)
        except OSError as e:  # changed under the running command (a full disk): named by the cache folder
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise OutputError(f"run cache: {self.root}: cannot be written ({e.strerror or e})") from None


def run_jobs(jobs: Sequence[Job], workers: Optional[int] = None, progress: Optional[bool] = None,
             cache_dir: Optional[Path] = None, label: str = "simulating", scheduler: Optional[str] = None,
             keep_going: bool = False, spill_dir: Optional[Path] = None) -> list:
    """Runs `jobs`; returns their summaries (or (summary, traces) for traced jobs, the traces' columns as
    numpy arrays: `trace_columns.decode`) in job order.

    spill_dir: if given, each traced run's columns go into a folder of it as
    soon as the run returns, and its traces are read back from there table by
    table (`trace_columns.SpilledTraces`), so the traces of many runs are not
    all held in memory at once.

    keep_going: a job that fails gives `RunFailed(reason)` in its place (not
    cached) and the others go on; otherwise its exception propagates.
    workers: processes (default os.cpu_count()); 1 runs inline in this process.
    scheduler: instead of local processes, the address of a running
    dask.distributed scheduler ("tcp://host:8786"), or "local:N" for a
    LocalCluster of N worker processes (with its dashboard). Results are the
    same whatever runs them.
    progress: rich progress bar on stderr; default only when stderr is a terminal.
    cache_dir: if given, finished runs are stored there and reused on the next call.
    """
    if scheduler is None:
        check_workers(workers)
    workers = default_workers() if workers is None else max(1, int(workers))
    for job in jobs:
        check_seed(job.seed)
    cache = _Cache(cache_dir)
    cache.check()
    results: list = [None] * len(jobs)
    todo = []
    for i, job in enumerate(jobs):
        hit = cache.load(job)
        if hit is None:
            todo.append(i)
        else:
            results[i] = hit
    show = sys.stderr.isatty() if progress is None else progress

    from concurrent.futures import as_completed

    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    plain = _PlainProgress(label, len(todo)) if not show else None

    run_one = _run_one_or_reason if keep_going else _run_one

    def done(i, r):
        if jobs[i].trace and isinstance(r, tuple):  # the core's columns (bytes) as numpy arrays, or on disk
            from atmsim import trace_columns

            tr = trace_columns.decode(r[1]) if spill_dir is None else trace_columns.spill(Path(spill_dir) / f"run-{i}", r[1])
            r = (r[0], tr)
        results[i] = r
        if not isinstance(r, RunFailed):
            cache.store(jobs[i], r)
        if plain is not None:
            plain.advance()

    if not todo:
        return results
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("eta"), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=not show, transient=True) as bar:
        task = bar.add_task(label, total=len(todo))
        if scheduler is not None:
            _run_on_dask(scheduler, jobs, todo, done, lambda: bar.advance(task), run_one)
        elif workers == 1 or len(todo) <= 1:
            for i in todo:
                done(i, run_one(jobs[i]))
                bar.advance(task)
        else:
            pool = _pool(workers)
            # Longest first keeps every worker busy to the end; the order of
            # completion does not matter because results go back by index.
            order = sorted(todo, key=lambda i: -_cost(jobs[i]))
            futures = {pool.submit(run_one, jobs[i]): i for i in order}
            try:
                for fut in as_completed(futures):
                    # Popped, not looked up: a future keeps its result (a traced run's columns) while referenced.
                    done(futures.pop(fut), fut.result())
                    bar.advance(task)
            except BaseException:
                for fut in futures:
                    fut.cancel()
                shutdown_pool()
                raise
    return results


# One worker pool per process: `reproduce all` and sweeps call run_jobs
# several times, and starting a pool of spawned interpreters costs more than
# many short runs. Workers start on demand (no more than there are jobs),
# and exit with this process.
_POOL: Optional[tuple] = None


def _pool(workers: int):
    """The process's worker pool of `workers` processes (made, or remade for
    another size, on first use)."""
    global _POOL
    if _POOL is not None and _POOL[0] == workers:
        return _POOL[1]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    shutdown_pool()
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_exit_with_parent, initargs=(os.getpid(),))
    _POOL = (workers, executor)
    return executor


def shutdown_pool() -> None:
    """Stops the worker pool, if any (queued runs are cancelled)."""
    global _POOL
    if _POOL is not None:
        _POOL[1].shutdown(wait=True, cancel_futures=True)
        _POOL = None


atexit.register(shutdown_pool)


def _dask_client(scheduler: str):
    """A dask.distributed client for `scheduler` (an address, or local:N), and
    the LocalCluster to close after, if one was started."""
    from atmsim.errors import InputError

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--scheduler: needs dask.distributed: pip install 'atmsim[dask]'") from None
    if scheduler.startswith("local:"):
        n = scheduler.split(":", 1)[1]
        if not n.isdigit() or not 1 <= int(n) <= 1024:
            raise InputError(f"--scheduler: '{scheduler}' needs 1..1024 workers, as local:N")
        cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True)
        print(f"atmsim: Dask dashboard at {cluster.dashboard_link}", file=sys.stderr, flush=True)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"--scheduler: cannot reach '{scheduler}' ({' '.join(str(e).split())})") from None


def _run_on_dask(scheduler: str, jobs, todo, done, advance, run_one=None) -> None:
    """Runs jobs[i] for i in todo on a Dask cluster; results go back by index,
    so the order of completion does not matter."""
    from distributed import as_completed

    client, cluster = _dask_client(scheduler)
    try:
        order = sorted(todo, key=lambda i: -_cost(jobs[i]))
        futures = {client.submit(run_one or _run_one, jobs[i], pure=False): i for i in order}
        for fut in as_completed(futures):
            done(futures.pop(fut), fut.result())  # popped: a held future holds its result
            advance()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


class _PlainProgress:
    """Without a terminal (a pipe, CI, a log): one plain line on stderr at
    most every PERIOD seconds, so a long reproduction never looks hung."""

    PERIOD = 10.0

    def __init__(self, label: str, total: int):
        import time

        self.label, self.total, self.n = label, total, 0
        self.t0 = self.last = time.monotonic()

    def advance(self) -> None:
        import time

        self.n += 1
        now = time.monotonic()
        if now - self.last >= self.PERIOD and self.n < self.total:
            self.last = now
            el = now - self.t0
            eta = el / self.n * (self.total - self.n)
            print(f"atmsim: {self.label}: {self.n}/{self.total} runs, {el:.0f} s elapsed, about {eta:.0f} s left",
                  file=sys.stderr, flush=True)


def _exit_with_parent(parent: int) -> None:
    """Worker initializer: exit when the parent process is gone (killed by
    SIGKILL, say), instead of waiting for work forever."""
    import threading
    import time

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _cost(job: Job) -> float:
    """A rough run-time estimate for scheduling only: an ATM run costs ~50x a packet run."""
    net = next((o.split("=", 1)[1].strip().strip('"') for o in reversed(job.overrides) if o.startswith("network=")), None)
    if net is None:
        net = "atm" if 'network = "atm"' in job.scenario else "packet"
    return 50.0 if net == "atm" else 1.0
