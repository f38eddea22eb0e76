"""Reading a port log (`trace.port`): occupancy at every change, drops,
peaks and troughs, overflow episodes.

The core logs each unit's arrival, departure and drop at one port (see
`PortLog` in trace.rs). In a run's tables (`atmsim.run(...).traces["port"]`,
`trace_port.csv`) each unit's VC is named by its `flow` and `direction`
("data" or "reply"); the raw columns of `atmsim._core.run` number it (`vc`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

_ORDER = {"depart": 0, "drop": 1, "arrive": 2}


def occupancy(log: pd.DataFrame, vc: int | None = None, flow: str | None = None,
              direction: str | None = None) -> pd.DataFrame:
    """Occupancy (units) after every change, in time order; departures come
    first at equal times, as the port drains before it admits. Columns t, q,
    change, frame, eom and the VC's columns. `log` is a DataFrame or the raw
    column dict; only the units of VC number `vc` (raw columns), or of `flow`
    and `direction` (a run's tables), count if given."""
    if isinstance(log, dict):
        log = pd.DataFrame({k: np.asarray(v) for k, v in log.items()})
    d = log
    for col, want in (("vc", vc), ("flow", flow), ("direction", direction)):
        if want is not None:
            d = d[d[col] == want]
    d = d.assign(_o=d.change.map(_ORDER)).sort_values(["t", "_o"], kind="stable").drop(columns="_o")
    step = np.where(d.change == "arrive", 1, np.where(d.change == "depart", -1, 0))
    return d.assign(q=np.cumsum(step)).reset_index(drop=True)


def value_at(occ: pd.DataFrame, t) -> np.ndarray:
    """Occupancy just after time(s) t (0 before the first change)."""
    i = np.searchsorted(occ.t.to_numpy(), np.atleast_1d(t), side="right") - 1
    q = occ.q.to_numpy()
    return np.where(i >= 0, q[np.maximum(i, 0)], 0)


def extrema(occ: pd.DataFrame, min_swing: float):
    """Peaks and troughs of the occupancy that stand out by at least
    `min_swing` units from the extremum before them (a zig-zag filter: cell
    by cell jitter of +-1 is not a peak). Returns two arrays of row indices
    into `occ` (peaks, troughs), each at the first time the extreme value is
    reached."""
    q = occ.q.to_numpy()
    peaks, troughs = [], []
    if len(q) == 0:
        return np.array(peaks, int), np.array(troughs, int)
    hi = lo = 0  # candidate extremum indices
    rising = None
    for i in range(1, len(q)):
        if q[i] > q[hi]:
            hi = i
        if q[i] < q[lo]:
            lo = i
        if rising is not False and q[hi] - q[i] >= min_swing:
            if rising is True:
                peaks.append(hi)
            rising, lo = False, i
        elif rising is not True and q[i] - q[lo] >= min_swing:
            if rising is False:
                troughs.append(lo)
            rising, hi = True, i
    return np.array(peaks, int), np.array(troughs, int)


def episodes(drop_times: np.ndarray, gap: float) -> list[np.ndarray]:
    """Groups sorted drop times into episodes: consecutive drops closer than
    `gap` seconds belong together. Returns index arrays."""
    if len(drop_times) == 0:
        return []
    cut = np.where(np.diff(drop_times) >= gap)[0] + 1
    return np.split(np.arange(len(drop_times)), cut)
