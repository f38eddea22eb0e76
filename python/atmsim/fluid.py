"""Fluid model of one switch buffer fed by whole packets: the calculation
behind Morris & Kung's Fig. 6 ("predicted, not measured").

Time is in packet times at the output (the output drains 1 packet per unit
while the buffer is not empty); a packet arrives at `speedup` packets per
unit, so it takes 1/speedup units. Arithmetic is exact (fractions): the curve
is piecewise linear and every breakpoint is returned.

Discard, as in the paper's argument (§IV, Figs. 6-7):
- tail: a full buffer admits input only as fast as the output drains it, the
  rest is lost;
- ppd: once a packet has lost data, the rest of it is discarded too (its EOM
  cell is negligible in a fluid).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F
from typing import Optional, Sequence


@dataclass
class FluidRun:
    points: list  # [(t, q)] breakpoints, q in packets
    lost: list  # packets' worth lost, per arriving packet


def buffer_curve(starts: Sequence, q0=F(0), speedup=F(3), cap: Optional[F] = None, ppd=False) -> FluidRun:
    """Buffer content over time for packets starting to arrive at `starts`
    (ascending, not overlapping), from content `q0` at starts[0]."""
    a = F(speedup)
    dur = 1 / a
    t, q = F(starts[0]), F(q0)
    pts, lost = [(t, q)], []

    def drain_until(t_end):
        nonlocal t, q
        if q > 0 and t + q < t_end:  # empties first
            t, q = t + q, F(0)
            pts.append((t, q))
        q = max(F(0), q - (t_end - t))
        t = t_end
        pts.append((t, q))

    for s in starts:
        s = F(s)
        if s < t:
            raise ValueError("packet arrivals overlap")
        drain_until(s)
        e = s + dur
        if cap is None or q + (a - 1) * dur <= cap:
            q += (a - 1) * dur
            t = e
            pts.append((t, q))
            lost.append(F(0))
            continue
        full = t + (cap - q) / (a - 1)  # the buffer fills here
        pts.append((full, F(cap)))
        if ppd:  # the rest of the packet is discarded; the buffer drains
            lost.append(a * (e - full))
            t, q = full, F(cap)
            drain_until(e)
        else:  # admitted at the output rate, the excess lost
            lost.append((a - 1) * (e - full))
            t, q = e, F(cap)
            pts.append((t, q))
    drain_until(t + q)  # and the buffer empties after the last packet
    return FluidRun(pts, lost)


def value_at(run: FluidRun, t):
    """The curve at time(s) t (packets), by linear interpolation."""
    import numpy as np

    ts = np.array([float(x) for x, _ in run.points])
    qs = np.array([float(y) for _, y in run.points])
    return np.interp(t, ts, qs)
