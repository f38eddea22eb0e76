"""Runs many simulations over worker processes.

Results come back in job order and each run depends only on its scenario
text, overrides and seed, so the output is identical for any worker count.
With a cache directory each result is stored under a hash of the resolved
scenario and seed, so an interrupted sweep resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from . import _core


@dataclass(frozen=True)
class Job:
    scenario: str  # TOML text
    overrides: tuple = ()
    seed: Optional[int] = None
    trace: bool = False
    tag: tuple = field(default=(), compare=False)

    def key(self) -> str:
        resolved = _core.resolve(self.scenario, list(self.overrides))
        return hashlib.sha256(f"{resolved}\nseed={self.seed}\ntrace={self.trace}".encode()).hexdigest()[:24]


def _run_one(job: Job):
    summary, traces = _core.run(job.scenario, list(job.overrides), job.seed, job.trace)
    s = json.loads(summary)
    return (s, traces) if job.trace else s


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def run_jobs(jobs: Sequence[Job], workers: Optional[int] = None, progress: Optional[bool] = None,
             cache_dir: Optional[Path] = None, label: str = "simulating") -> list:
    """Runs `jobs`; returns their summaries (or (summary, traces) for traced jobs) in order."""
    workers = workers or default_workers()
    results: list = [None] * len(jobs)
    todo = []
    for i, job in enumerate(jobs):
        if cache_dir is not None and not job.trace:
            path = Path(cache_dir) / f"{job.key()}.json"
            if path.exists():
                results[i] = json.loads(path.read_text())
                continue
        todo.append(i)
    show = sys.stderr.isatty() if progress is None else progress

    def store(i, r):
        results[i] = r
        if cache_dir is not None and not jobs[i].trace:
            Path(cache_dir).mkdir(parents=True, exist_ok=True)
            tmp = Path(cache_dir) / f".{jobs[i].key()}.tmp"
            tmp.write_text(json.dumps(r))
            tmp.replace(Path(cache_dir) / f"{jobs[i].key()}.json")

    from rich.progress import Progress

    with Progress(disable=not show, transient=True) as bar:
        task = bar.add_task(label, total=len(todo))
        if workers <= 1 or len(todo) <= 1:
            for i in todo:
                store(i, _run_one(jobs[i]))
                bar.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                # Longest first keeps both workers busy to the end.
                order = sorted(todo, key=lambda i: -_cost(jobs[i]))
                futures = {pool.submit(_run_one, jobs[i]): i for i in order}
                for fut in futures:
                    store(futures[fut], fut.result())
                    bar.advance(task)
    return results


def _cost(job: Job) -> float:
    """A rough run-time estimate: ATM runs cost ~50x packet runs."""
    return 50.0 if 'network = "atm"' in job.scenario and "network=packet" not in job.overrides else 1.0
