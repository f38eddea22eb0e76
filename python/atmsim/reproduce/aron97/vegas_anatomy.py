"""aron97 probe `vegas-anatomy` (no paper claim): how Vegas-AFR's start-up
differs between the ATM and the packet network of topology 1, and what
decides its shares afterwards.

Backs the notes of fig6.c2, fig7.c6 (Vegas above packet-Vegas on ATM),
fig6.fair, fig8.fair and fig12.fair (Vegas-AFR's unfair points). One traced
run per (network, tick, buffer, seed); per flow, read from the window
and event traces (`atmsim.flowtrace`):

- how its slow start ended: `ss_exit_t`, the first window row where
  ssthresh falls below its initial value, and `ss_exit_by` = "vegas-ss" if
  that happened before the flow lost anything (Vegas-SS's rate test, [AD97
  §5]), "loss" otherwise (a fast retransmit or a timeout after drops);
  `ss_exit_cwnd_segs`, cwnd just before that row;
- the initial overshoot (`overshoot_lost`, flowtrace), its coarse timeouts,
  the time of its last loss, its losses in the second half of the run
  (t > half the duration), cwnd at mid-run and at the end, its share of
  all bytes and of the bytes acknowledged in the second half;
- per run, the same summed or ranged over the 8 flows, and Jain's index of
  the bytes acknowledged in the second half.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.reproduce.harness import figure, per_run

from .common import MSS, SEG, Spec

VEGAS_ANATOMY_KS_FULL, VEGAS_ANATOMY_KS_QUICK = [9, 21, 60], [9, 21]
VEGAS_ANATOMY_FINE_K = 9  # the 10 ms tick at this buffer only: fig12.fair's failing point


def _runs(g) -> list[Spec]:
    ks = VEGAS_ANATOMY_KS_QUICK if g.quick else VEGAS_ANATOMY_KS_FULL
    out = []
    for net in ["atm", "packet"]:
        settings = [("500ms", k) for k in ks] + [("10ms", VEGAS_ANATOMY_FINE_K)]
        out += [Spec(1, net, "vegas-afr", k, seed, tick=tick, trace=True, duration=g.duration)
                for tick, k in settings for seed in g.seeds]
    return out


def _jain(x) -> float:
    x = np.asarray(x, float)
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if (x ** 2).sum() > 0 else float("nan")


@per_run
def vegas_anatomy_of(spec: Spec, result) -> tuple[pd.DataFrame, dict]:
    """(per-flow table, run row) of one traced Vegas run (see the module's docstring), read from its traces
    once per run (`harness.per_run`: five figures' notes quote the same runs, probe_notes.py, and so do their
    remakes without a seed). The objects are shared between callers, who only read them (pd.concat and
    pd.DataFrame copy)."""
    from atmsim import flowtrace

    s, tr = result
    win, ev = (pd.DataFrame({k: np.asarray(v) for k, v in tr[t].items()}) for t in ("window", "events"))
    win, ev = (flowtrace._numbered(df, s["flows"]) for df in (win, ev))
    end = s["end_time_s"]
    half = end / 2
    table, curves, _, = flowtrace.anatomy(win, ev, s["flows"], MSS, end, 0.005)
    rows = []
    for f in table.flow:
        w = win[win.flow == f].sort_values("t", kind="stable")
        e = ev[ev.flow == f]
        loss = e[e.kind == "loss"].t
        drop = w.ssthresh.to_numpy() < w.ssthresh.iloc[0]
        i = int(np.argmax(drop)) if drop.any() else None
        t_exit = float(w.t.iloc[i]) if i is not None else float("nan")
        t_first = float(loss.min()) if len(loss) else float("inf")
        rows.append({"ss_exit_t": t_exit,
                     "ss_exit_by": "" if i is None else ("vegas-ss" if t_exit < t_first else "loss"),
                     "ss_exit_cwnd_segs": float(w.cwnd.iloc[max(i - 1, 0)]) / MSS if i is not None else float("nan"),
                     "t_last_loss": float(loss.max()) if len(loss) else float("nan"),
                     "losses_second_half": int((loss > half).sum()),
                     "cwnd_half_segs": float(flowtrace.at(w, "cwnd", [half])[0]) / MSS,
                     "cwnd_end_segs": float(flowtrace.at(w, "cwnd", [end])[0]) / MSS})
    table = pd.concat([table, pd.DataFrame(rows)], axis=1)
    c = curves.set_index("t")
    t_half = c.index[np.searchsorted(c.index, half)]
    late = (c.iloc[-1] - c.loc[t_half]).to_numpy(float)
    table["share_second_half"] = late / late.sum() if late.sum() > 0 else np.nan
    loss_all = ev[ev.kind == "loss"].t
    t0 = float(loss_all.min()) if len(loss_all) else float("inf")
    run = {"network": spec.net, "tick": spec.tick, "k": spec.k, "seed": spec.seed, "E": s["effective_throughput"],
           "fairness": s["fairness"], "fairness_second_half": _jain(late), "timeouts": int(table.timeouts.sum()),
           "overshoot_lost": int(table.overshoot_lost.sum()),
           "flows_exit_by_vegas_ss": int((table.ss_exit_by == "vegas-ss").sum()),
           "flows_exit_by_loss": int((table.ss_exit_by == "loss").sum()),
           "median_exit_cwnd_segs": float(table.ss_exit_cwnd_segs.median()),
           "t_first_loss": t0 if np.isfinite(t0) else float("nan"),
           "t_last_loss": float(loss_all.max()) if len(loss_all) else float("nan"),
           "losses_second_half": int(table.losses_second_half.sum()),
           "min_share": float(table.share.min()), "max_share": float(table.share.max()),
           "min_cwnd_end_segs": float(table.cwnd_end_segs.min()), "max_cwnd_end_segs": float(table.cwnd_end_segs.max())}
    for col, v in [("network", spec.net), ("tick", spec.tick), ("k", spec.k), ("seed", spec.seed)][::-1]:
        table.insert(0, col, v)
    return table, run


@figure("vegas-anatomy", runs=_runs)
def vegas_anatomy(c, runs):
    """Not a paper figure: Vegas-AFR's start-up and shares on both networks (topology 1), from traces.
    Writes vegas-anatomy.csv (one row per run), vegas-anatomy_flows.csv (per flow) and a plot of
    each flow's share against its window at the end of the run. No claim; the findings back the
    notes of fig6.c2, fig7.c6 and the .fair rows (docs/reproductions.md)."""
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    flows, run_rows = [], []
    for spec, result in runs:
        table, run = vegas_anatomy_of(spec, result)
        flows.append(table)
        run_rows.append(run)
    fl = pd.concat(flows, ignore_index=True)
    pr = pd.DataFrame(run_rows)
    c.table(pr, "vegas-anatomy")
    c.table(fl, "vegas-anatomy_flows")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, net in zip(axes, ["atm", "packet"]):
        for (tick, k), g in fl[fl.network == net].groupby(["tick", "k"]):
            ax.plot(g.cwnd_end_segs, g.share, "o", ms=3, label=f"{tick}, {k * SEG / 1000:.1f} KB")
        ax.set_xlabel("cwnd at the end of the run (segments)")
        ax.set_ylabel("share of the bytes delivered")
        ax.set_title(f"Vegas-AFR, topology 1, {'ATM' if net == 'atm' else 'packet network'}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("aron97 vegas-anatomy (not in the paper)", fontsize=10)
    save(fig, c.out / "vegas-anatomy.png")
