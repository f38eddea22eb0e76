"""`atmsim plot DIR` (run.png, plotting.run_figure): each axis names its unit,
the queue panel names only the ports that carried a queue, in distinct colours,
and no legend lies over the data (issue 27)."""
import pandas as pd
import pytest

import atmsim
from atmsim.cli import _write_run
from atmsim.plotting import plt, queue_plan, run_figure


def written(tmp_path, scenario, *sets):
    r = atmsim.run(scenario, list(sets), trace=True)
    _write_run(tmp_path, r.summary, r.traces, "csv")
    return r


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize("scenario, unit", [("aron97-topo2-packet", "bytes"), ("aron97-topo1-atm", "cells")])
def test_the_queue_axis_names_the_limits_unit_and_the_legend_the_ports_that_queued(tmp_path, scenario, unit):
    r = written(tmp_path, scenario, "duration=1s")
    assert {p["unit"] for p in r.summary["ports"] if p["limit"] is not None} == {unit}
    fig = run_figure(tmp_path)
    try:
        ax = fig.axes[1]
        assert ax.get_ylabel() == f"queue ({unit})"
        peaks = pd.read_csv(tmp_path / "trace_queue.csv").groupby("port").occupancy.max()
        held = peaks[peaks > 0]
        big = sorted(held[held >= held.max() / 10].index)
        texts = legend_texts(ax)
        assert sorted(t for t in texts if "other port" not in t) == big
        rest = len(held) - len(big)
        assert rest > 0 and texts[-1].startswith(f"{rest} other ports (peak ")
        assert len(peaks) > len(texts), "ports that never held anything are not listed"
        colours = [tuple(line.get_color()) if not isinstance(line.get_color(), str) else line.get_color()
                   for line in ax.get_lines() if line.get_label() in big]
        assert len(colours) == len(big) == len(set(colours)), "one distinct colour per named port"
        fig.canvas.draw()
        for a in fig.axes[:2]:
            box, axes_box = a.get_legend().get_window_extent(), a.get_window_extent()
            assert box.x0 >= axes_box.x1, "the legend is right of the panel, not over its data"
        assert "Jain's fairness index" in fig.axes[0].get_title() and "E =" not in fig.axes[0].get_title()
        assert fig.axes[0].get_ylabel() == "congestion window (KB)"
    finally:
        plt.close(fig)


def test_one_port_carrying_traffic_among_twelve_is_the_only_one_named():
    t = [0.0, 0.01, 0.02]
    rows = [(x, f"P{i}", (500 if i == 3 else 1) * (k % 2)) for i in range(12) for k, x in enumerate(t)]
    rows += [(x, "idle", 0) for x in t]
    queue = pd.DataFrame(rows, columns=["t", "port", "occupancy"])
    summary = {"network": "atm", "ports": [{"name": f"P{i}", "unit": "cells"} for i in range(12)]}
    plan = queue_plan(queue, summary)
    assert [p for p, _, named in plan if named] == ["P3"]
    assert len(plan) == 12 and "idle" not in [p for p, _, _ in plan]


def test_ports_of_two_units_are_drawn_in_two_panels(tmp_path):
    # A scenario may limit some ports in bytes and others in packets: never one axis for both.
    import json

    written(tmp_path, "aron97-topo2-packet", "duration=1s")
    s = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    for p in s["ports"]:
        if p["name"] == "R1->R2":
            p["unit"] = "packets"
    (tmp_path / "summary.json").write_text(json.dumps(s), encoding="utf-8")
    fig = run_figure(tmp_path)
    try:
        # A panel per unit, the unit of the highest queue first (here R1->R2's, in "packets").
        assert [a.get_ylabel() for a in fig.axes] == ["congestion window (KB)", "queue (packets)", "queue (bytes)"]
        assert legend_texts(fig.axes[1]) == ["R1->R2"]
        assert legend_texts(fig.axes[2])[0] == "R2->R3"
    finally:
        plt.close(fig)


def test_aron97_window_traces_keep_their_legend_off_the_curves():
    # Figs. 4 and 5 had their legend in the lower right corner, over the windows of the last seconds.
    from atmsim.plotting import window_trace

    t = [0.0, 1.0, 2.0]
    win = pd.DataFrame({"t": t, "flow": 0, "ssthresh": 65536, "snd_wnd": 65536, "cwnd": [1e3, 6e4, 2e3],
                        "unacked": [0, 5e4, 1e3]})
    events = pd.DataFrame({"t": [0.5, 1.5, 1.6], "flow": 0, "kind": ["send", "timeout", "tick"]})
    fig, ax = plt.subplots(figsize=(11, 4.5))
    try:
        window_trace(ax, win, events, 0, "trace", 2.0)
        fig.tight_layout()
        fig.canvas.draw()
        legend, panel = ax.get_legend().get_window_extent(), ax.get_window_extent()
        assert legend.y1 <= panel.y0, "below the axes"
        labels = legend_texts(ax)
        assert len(labels) == 10 and ax.get_legend()._ncols == len(labels), "one row"
        renderer = fig.canvas.get_renderer()
        assert ax.get_tightbbox(renderer).y0 >= 0, "and inside the figure"
    finally:
        plt.close(fig)
