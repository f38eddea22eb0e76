"""Figures in the style of the papers (matplotlib, Agg)."""
from __future__ import annotations

import contextlib
import contextvars
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from atmsim.errors import InputError  # noqa: E402

STYLE = {"atm": "-", "packet": "--"}
MARKERS = {"lite": "o", "lite-afr": "s", "vegas-rm": "^", "vegas-rm-afr": "v", "vegas": "D", "vegas-afr": "*",
           "lite-iw2": "x", "newreno": "P", "sack": "h"}


_DRAWN = contextvars.ContextVar("atmsim_plotting_drawn", default=True)


@contextlib.contextmanager
def undrawn():
    """Within it, `save` closes a figure without drawing it: for a figure body made again only for its claims
    (harness.py's remakes without a seed or under another reading, into a folder thrown away after). Laying out
    and drawing the pngs was most of such remakes' time (boston97: more than half of its figure phase)."""
    token = _DRAWN.set(False)
    try:
        yield
    finally:
        _DRAWN.reset(token)


def save(fig, path):
    if _DRAWN.get():
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    plt.close(fig)


def throughput_vs_buffer(ax, df, series, label_fmt, x="buffer_kb"):
    """One line per series key (tuple of column values), E (median) against x."""
    for key, g in df.groupby(series, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values(x)
        d = dict(zip(series, key))
        ax.plot(g[x], g["E"], STYLE.get(d.get("network"), "-"), marker=MARKERS.get(d.get("variant"), "o"),
                ms=4, label=label_fmt(d))
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("effective switch buffer size (KB)")
    ax.set_ylabel("effective throughput")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def window_trace(ax, win, events, flow, title, t_end):
    """App. A of Aron & Druschel: ssthresh dashed, send window, cwnd, unacked;
    marks for segments sent, ACKs, timer checks, timeouts, retransmissions."""
    w = win[win.flow == flow]
    kb = 1 / 1024
    ax.step(w.t, w.ssthresh.clip(upper=w.snd_wnd.max()) * kb, "k--", lw=0.8, where="post", label="ssthresh")
    ax.step(w.t, w.snd_wnd * kb, color="0.35", lw=2, where="post", label="send window")
    ax.step(w.t, w.cwnd * kb, color="0.7", lw=1.5, where="post", label="congestion window")
    ax.step(w.t, w.unacked * kb, "k-", lw=0.6, where="post", label="unacked data")
    top = w.snd_wnd.max() * kb * 1.02
    e = events[events.flow == flow]
    for kind, y, m, c in [("send", 1.06, "|", "0.5"), ("tick", 1.10, ".", "0.3"), ("retransmit", 1.14, "x", "r"),
                          ("timeout", 1.18, "v", "b"), ("fast_retransmit", 1.14, "+", "m")]:
        sel = e[e.kind == kind]
        ax.plot(sel.t, [top * y] * len(sel), m, color=c, ms=4, ls="none", label=kind.replace("_", " "))
    acks = w.t
    ax.plot(acks, [top * 1.02] * len(acks), "|", color="0.8", ms=3, ls="none", label="ACK")
    ax.set_xlim(0, t_end)
    ax.set_ylim(0, top * 1.22)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("KB")
    ax.set_title(title, fontsize=9)
    # Below the axes in one row: the trace fills the panel's whole width and height, a legend inside covers it.
    ax.legend(fontsize=7, ncol=len(ax.get_legend_handles_labels()[0]), loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False, handletextpad=0.3,
              columnspacing=1.2)


#: The columns plot_run reads from each trace.
TRACE_COLUMNS = {"window": ("t", "flow", "cwnd"), "queue": ("t", "port", "occupancy"), "events": ("t", "flow", "kind"),
                 "port": ("t", "change")}


def _trace(d: Path, name: str):
    """DIR/trace_<name>.csv (empty if absent), checked: InputError naming the file if it cannot be read
    or lacks a column the plot needs."""
    import pandas as pd

    path = d / f"trace_{name}.csv"
    if not path.exists():
        return pd.DataFrame()
    try:
        # Flows and ports are named in the traces ("f1", "S->B"): read names as text.
        df = pd.read_csv(path, dtype={"flow": str, "port": str, "direction": str})
        with open(path, "rb") as f:  # every line atmsim writes ends: a file that does not was cut short
            if f.seek(0, 2) and (f.seek(-1, 2), f.read(1))[1] != b"\n":
                raise ValueError("cut short: its last line has no end")
        missing = [c for c in TRACE_COLUMNS[name] if c not in df.columns]
        if missing:
            raise ValueError(f"no column {', '.join(missing)}")
        for c in TRACE_COLUMNS[name]:
            if c not in ("flow", "port", "kind", "change"):
                pd.to_numeric(df[c])  # ValueError for text in a number column
    except (OSError, ValueError) as e:  # pandas' ParserError and EmptyDataError are ValueErrors
        raise InputError(f"{path}: not a trace written by `atmsim run --out` ({' '.join(str(e).split())})") from None
    return df


#: Ports drawn in colour and named in the queue panel's legend: the highest ones, at most this many.
NAMED_PORTS = 8


def queue_plan(queue, summary: dict) -> list[tuple[str, str, bool]]:
    """Which ports the queue panel draws: every port whose queue ever held anything, as (port, unit,
    named), highest peak first. Its unit is the port's limit's (cells, packets or bytes; the
    summary's `ports`). Named (in colour, in the legend): at most NAMED_PORTS of those whose peak
    is at least a tenth of the highest of their unit; the others are drawn in grey under one entry."""
    unbounded = "cells" if summary.get("network") == "atm" else "packets"
    units = {p.get("name"): p.get("unit") or unbounded for p in summary.get("ports", []) if isinstance(p, dict)}
    if not len(queue):
        return []
    peaks = queue.groupby("port", sort=False).occupancy.max()
    peaks = peaks[peaks > 0].sort_values(ascending=False, kind="stable")
    top: dict = {}
    for port, peak in peaks.items():
        top.setdefault(units.get(port, unbounded), peak)
    plan, named = [], 0
    for port, peak in peaks.items():
        unit = units.get(port, unbounded)
        big = peak >= top[unit] / 10 and named < NAMED_PORTS
        named += big
        plan.append((port, unit, bool(big)))
    return plan


def _outside_legend(ax, **kw):
    """A legend right of the axes, never over the data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, fontsize=7, frameon=False, **kw)


def run_figure(d):
    """The figure of a run written by `atmsim run --out DIR` (see plot_run)."""
    import json

    import numpy as np
    from matplotlib.lines import Line2D

    d = Path(d)
    s = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    bad = [k for k, t in (("scenario", str), ("seed", int), ("effective_throughput", (int, float)),
                          ("fairness", (int, float))) if not isinstance(s.get(k), t)]
    if bad:
        raise InputError(f"{d / 'summary.json'}: not a summary written by `atmsim run --out` "
                         f"({', '.join(bad)} missing or of the wrong type)")
    win, queue, events, port = (_trace(d, name) for name in ("window", "queue", "events", "port"))
    plan = queue_plan(queue, s)
    units = list(dict.fromkeys(u for _, u, _ in plan)) or [None]  # a panel per unit (cells, packets, bytes)
    panels = 1 + len(units) + (1 if len(port) else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(10, 2.7 * panels), sharex=True, layout="constrained")
    colours = plt.get_cmap("tab10").colors
    ax = axes[0]
    flows = list(dict.fromkeys(win.flow)) if len(win) else []
    for i, (f, g) in enumerate(win.groupby("flow", sort=False) if len(win) else []):
        colour = colours[i % len(colours)] if len(flows) <= len(colours) else None
        line, = ax.step(g.t, g.cwnd / 1000, where="post", lw=0.8, label=f, color=colour)
        for kind, marker in (("timeout", "x"), ("fast_retransmit", "v")):
            e = events[(events.flow == f) & (events.kind == kind)] if len(events) else events
            if len(e):
                y = np.interp(e.t, g.t, g.cwnd) / 1000
                ax.plot(e.t, y, marker, color=line.get_color(), ms=5)
    ax.set_ylabel("congestion window (KB)")
    ax.set_title(f"{s['scenario']} seed {s['seed']}: effective throughput {s['effective_throughput']:.3f}, "
                 f"Jain's fairness index {s['fairness']:.3f}", fontsize=9)
    if len(win):
        marks = [Line2D([], [], color="k", marker="x", ls="none", label="timeout"),
                 Line2D([], [], color="k", marker="v", ls="none", label="fast retransmit")]
        handles = (ax.get_legend_handles_labels()[0] if len(flows) <= len(colours) else []) + marks
        _outside_legend(ax, handles=handles, ncol=2 if len(handles) > 8 else 1)
    for ax, unit in zip(axes[1:], units):
        ax.set_ylabel("queue" if unit is None else f"queue ({unit})")
        mine = [(name, big) for name, u, big in plan if u == unit]
        for i, (name, big) in enumerate(n for n in mine if n[1]):
            g = queue[queue.port == name]
            ax.step(g.t, g.occupancy, where="post", lw=0.9, color=colours[i % len(colours)], label=name)
        rest = [name for name, big in mine if not big]
        for name in rest:
            g = queue[queue.port == name]
            ax.step(g.t, g.occupancy, where="post", lw=0.5, color="0.7", zorder=1)
        handles = ax.get_legend_handles_labels()[0]
        if rest:
            peak = queue[queue.port.isin(rest)].occupancy.max()
            handles.append(Line2D([], [], color="0.7", lw=0.5, label=f"{len(rest)} other port{'s' * (len(rest) > 1)} "
                                  f"(peak {peak:,} {unit[:-1] if peak == 1 else unit})"))
        if handles:
            _outside_legend(ax, handles=handles)
    if len(port):
        from atmsim import portlog

        occ = portlog.occupancy(port)
        axes[-1].step(occ.t, occ.q, where="post", lw=0.6, color="k")
        drops = occ[occ.change == "drop"]
        axes[-1].plot(drops.t, drops.q, ".", color="r", ms=3, label="drop")
        axes[-1].set_ylabel(f"logged port ({'cells' if s.get('network') == 'atm' else 'packets'})")
        _outside_legend(axes[-1])
    axes[-1].set_xlabel("time (s)")
    return fig


#: The file `plot_run` writes into a run's folder.
PNG = "run.png"


def plot_run(d) -> Path:
    """One figure of a run written by `atmsim run --out DIR`: each flow's
    congestion window with its timeouts and fast retransmits marked, the
    queues sampled at trace.interval (a panel per unit: the limits' cells,
    packets or bytes; the ports that ever held anything, the highest named),
    and the logged port at every change (if `trace.port` was set). Legends
    sit right of the panels.
    Written to DIR/run.png."""
    fig = run_figure(d)
    fig.savefig(Path(d) / PNG, dpi=110)
    plt.close(fig)
    return Path(d) / PNG
