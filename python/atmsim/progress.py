"""Progress of one long run: the simulated time it has reached.

`atmsim.run(..., progress=RunProgress(label))` is called by the core every
2^20 events (about a tenth of a second). For the first QUIET seconds it
shows nothing, so short runs print exactly what they always printed; after
that, in a terminal, a rich bar of simulated time with its ETA (rich is
imported only then), and otherwise (a pipe, CI, a log) one plain line on
stderr every PERIOD seconds.
"""
from __future__ import annotations

import sys
import time


class RunProgress:
    QUIET = 3.0
    PERIOD = 5.0

    def __init__(self, label: str, terminal: bool | None = None, clock=time.monotonic, stream=None):
        self.label, self.clock = label, clock
        self.stream = sys.stderr if stream is None else stream
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.t0 = clock()
        self.last = None  # when the last plain line was written
        self.bar = None

    def __call__(self, simulated_s: float, duration_s: float) -> None:
        now = self.clock()
        elapsed = now - self.t0
        if elapsed < self.QUIET:
            return
        if self.terminal:
            self._bar(simulated_s, duration_s)
        elif self.last is None or now - self.last >= self.PERIOD:
            self.last = now
            self.stream.write(self.line(simulated_s, duration_s, elapsed) + "\n")
            self.stream.flush()

    def line(self, simulated_s: float, duration_s: float, elapsed: float) -> str:
        done = simulated_s / duration_s if duration_s > 0 else 1.0
        eta = f", about {elapsed / done * (1 - done):.0f} s left" if done > 0 else ""
        return (f"atmsim: {self.label}: simulated {simulated_s:.3f} s of {duration_s:.3f} s ({done:.0%}), "
                f"{elapsed:.0f} s elapsed{eta}")

    def _bar(self, simulated_s: float, duration_s: float) -> None:
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                TextColumn("{task.completed:.2f}/{task.total:.2f} s simulated"), TimeElapsedColumn(),
                                TextColumn("eta"), TimeRemainingColumn(), console=Console(file=self.stream),
                                transient=True)
            self.task = self.bar.add_task(self.label, total=duration_s)
            self.bar.start()
        self.bar.update(self.task, completed=simulated_s)

    def close(self) -> None:
        """Removes the bar, if one was shown (a finished or interrupted run)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
