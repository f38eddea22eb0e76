"""Mechanism probes for the morris-kung95 deviations: each runs one point
of a figure with traces and returns the numbers that explain it. No claims:
these are the measurements the deviation notes cite, and the figures declare
the same runs and quote the same measures.

    python -m atmsim.reproduce.morris_kung95.anatomy fig3   # MTU 1500 at a 64 KiB buffer: losses with the full window out

Extra arguments are `--set` overrides (KEY=VALUE) applied to every run."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from atmsim.reproduce import probes as probe_plumbing
from atmsim.reproduce.harness import Run

from .common import CELL_PAYLOAD, HEADER, cells


@dataclass(frozen=True)
class Probe:
    """One traced run of a morris-kung95 config (seed 1) and the measure that reads it:
    `measure(summary, traces)`, traces as `atmsim.run` gives them."""

    config: str
    overrides: tuple
    measure: Callable

    def run(self) -> Run:
        return Run(f"morris-kung95-{self.config}", self.overrides, 1, True)


def full_window_probe(L: int = 1500, b_kib: int = 64, duration: str = "20s", extra=()) -> Probe:
    """Config (a) at MTU L and a per-VC buffer of b_kib KiB, no flow control."""
    o = (f"ip.mtu={L}B", f"tcp.mss={L - HEADER}B", f"switch.buffer={b_kib * 1024 // CELL_PAYLOAD}cells", f"duration={duration}") + tuple(extra)
    return Probe("a", o, lambda s, tr: _full_window(s, tr, L, b_kib))


def _full_window(s: dict, tr: dict, L: int, b_kib: int) -> dict:
    """The window against the buffer in cells; per loss, the window then (segments); per timeout, how long
    the sender had been silent when it fired."""
    mss = L - HEADER
    segs = 65535 // mss
    w, ev = tr["window"], tr["events"]
    loss = ev[ev.kind == "loss"].t.to_numpy()
    i = np.maximum(np.searchsorted(w.t.to_numpy(), loss, side="right") - 1, 0)
    sends = np.sort(ev[ev.kind.isin(["send", "retransmit"])].t.to_numpy())
    to = ev[ev.kind == "timeout"].t.to_numpy()
    j = np.searchsorted(sends, to) - 1
    silent = to - sends[np.maximum(j, 0)]
    f = s["flows"][0]
    return {
        "L": L, "buffer_cells": b_kib * 1024 // CELL_PAYLOAD, "window_segments": segs, "window_cells": segs * cells(L),
        "losses": len(loss), "loss_episodes": f["loss_episodes"], "multiple_loss_episodes": f["multiple_loss_episodes"],
        "cwnd_at_loss_segments": sorted({round(float(x), 2) for x in w.cwnd.to_numpy()[i] / mss}),
        "unacked_at_loss_segments": sorted({round(float(x), 2) for x in w.unacked.to_numpy()[i] / mss}),
        "fast_retransmits": f["fast_retransmits"], "timeouts": f["timeouts"],
        "silent_before_timeout_s": [round(float(x), 3) for x in silent],
        "goodput_MBps": f["bytes_delivered"] / s["end_time_s"] / 1e6,
    }


def probes(what: str, extra=()) -> dict:
    """The probes of one figure by label: what `python -m atmsim.reproduce.morris_kung95.anatomy WHAT` runs."""
    if what == "fig3":
        return {"1500@64KiB": full_window_probe(extra=tuple(extra))}
    raise ValueError(f"unknown probe {what!r}: fig3")


runs, measure, main = probe_plumbing.bind(probes, "python -m atmsim.reproduce.morris_kung95.anatomy")

if __name__ == "__main__":
    main()
