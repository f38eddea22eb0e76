"""aron97: fairness. Segregation with simultaneous starts (§3 last ¶), how
the fairness of fig3 moves with settings the paper does not state (delayed
ACKs, timer phases, a random send time at the hosts), and where the unfair
shares of one run come from (per-flow anatomy of its traces).
"""
from __future__ import annotations

import numpy as np

from atmsim.claims import above, below, check
from atmsim.reproduce.harness import figure, per_run

from .common import MSS, SEG, Spec, table

def _segregation_runs(g) -> list[Spec]:
    """Lite over ATM at small buffers, all 8 senders starting at t = 0, and the staggered starts of fig3."""
    ks = [3, 9] if g.quick else [3, 6, 9]
    return g.specs([1], ["atm"], ["lite"], ks=ks, simultaneous=True) + g.specs([1], ["atm"], ["lite"], ks=ks)


@figure("segregation", runs=_segregation_runs)
def segregation(c, runs):
    """Why the paper staggers the starts (§3 last ¶; no figure in the paper)."""
    df = table(runs)
    pts = df.groupby(["simultaneous", "k"])["fairness"].median().unstack(0)
    pts.columns = ["staggered" if not s else "simultaneous" for s in pts.columns]
    pts.reset_index().pipe(c.table, "segregation")
    df.pipe(c.table, "segregation_runs")
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(5, 3.5))
    pts.plot(ax=ax, marker="o")
    ax.set_ylabel("Jain's fairness index")
    ax.set_xlabel("buffer (k x 9168 B)")
    save(fig, c.out / "segregation.png")
    gain = float((pts["staggered"] - pts["simultaneous"]).min())
    mn = float(df[df.simultaneous]["fairness"].min())
    c.claim("c1", statement="with simultaneous starts small buffers segregate the senders; staggering removes most of it", kind="shape",
            paper_value="§3 last ¶", ours={"median_jfi": pts.to_dict(), "min_simultaneous": mn},
            holds=check(("min over points of median JFI staggered - simultaneous", gain, above(0)),
                  ("min JFI of the simultaneous runs", mn, below(0.79))), rule="")


# --------------------------------------------------------------------------- fairness-sensitivity

SENS_KS_FULL, SENS_KS_QUICK = [9, 21, 45], [21]


def _sensitivity_runs(g) -> list[Spec]:
    ks = SENS_KS_QUICK if g.quick else SENS_KS_FULL
    base = g.specs([1], ["atm", "packet"], ["lite"], ks=ks)
    delack = g.specs([1], ["atm", "packet"], ["lite"], ks=ks, delayed_ack=True)
    # Without timer phases every seed is the same run: one seed.
    aligned = [s for s in g.specs([1], ["atm", "packet"], ["lite"], ks=ks, timer_phase=False) if s.seed == g.seeds[0]]
    return base + delack + aligned


@figure("fairness-sensitivity", runs=_sensitivity_runs)
def fairness_sensitivity(c, runs):
    """Not a paper figure: how the fairness deviation (fig3.fair) moves with
    two settings the paper does not state, delayed ACKs and the hosts'
    timer phases. No claim is made; the csv and plot back the closing note."""
    df = table(runs)
    df["setting"] = ["timers aligned" if not s.timer_phase else ("delayed ACK" if s.delayed_ack else "baseline") for s, _ in runs]
    pts = df.groupby(["setting", "network", "k"])[["fairness", "E", "timeouts"]].median().reset_index()
    c.write("fairness-sensitivity", pts, df)
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for (setting, net), g in pts.groupby(["setting", "network"]):
        ax.plot(g.k * SEG / 1000, g.fairness, "-" if net == "atm" else "--", marker="o", label=f"{setting}, {net}")
    ax.axhline(0.79, color="k", lw=0.5, ls=":")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("effective switch buffer size (KB)")
    ax.set_ylabel("Jain's fairness index (median)")
    ax.set_title("topology 1, TCP-Lite: fairness sensitivity (not in the paper)", fontsize=9)
    ax.legend(fontsize=7)
    save(fig, c.out / "fairness-sensitivity.png")


# --------------------------------------------------------------------------- fairness-anatomy

ANATOMY_JITTER = "3us"  # one cell time: a point of phase-sensitivity
ANATOMY_SETTINGS = {"shipped": {}, "jitter": {"send_jitter": ANATOMY_JITTER}, "tick10ms": {"tick": "10ms"}}
ANATOMY_LABELS = {"shipped": "as shipped (500 ms tick)", "jitter": f"send_jitter {ANATOMY_JITTER}", "tick10ms": "10 ms tick"}
CURVE_STEP = 0.005  # s: grid of the delivered-bytes curves and of the window measures


def _anatomy_runs(g) -> dict:
    """Traced Lite ATM runs at 192.5K per setting and seed; as shipped at seed 1 it is fig4's run."""
    return {name: [Spec(1, "atm", "lite", 21, seed, trace=True, duration=g.duration, **kw) for seed in g.seeds]
            for name, kw in ANATOMY_SETTINGS.items()}


def anatomy_of(spec, result):
    """(per-flow table, acked-bytes curves, timeout episodes, summary) of one traced aron97 run, read from
    its traces once per run (`harness.per_run`: the figures made again without a seed, and five notes,
    read the same runs); the tables are copies, since figures add columns to them."""
    table, curves, eps, s = _anatomy(spec, result)
    return table.copy(), curves.copy(), eps.copy(), s


@per_run
def _anatomy(spec, result):
    import pandas as pd

    from atmsim import flowtrace

    s, tr = result
    win, ev = (pd.DataFrame({k: np.asarray(v) for k, v in tr[t].items()}) for t in ("window", "events"))
    table, curves, eps = flowtrace.anatomy(win, ev, s["flows"], MSS, s["end_time_s"], CURVE_STEP)
    return table, curves, eps, s


def _run_row(setting, seed, table, s) -> dict:
    """One run in a line: E, Jain, and the flows with the smallest and the largest share."""
    lo, hi = table.loc[table.share.idxmin()], table.loc[table.share.idxmax()]
    rest = table.drop(index=lo.name).bytes_delivered.to_numpy(float)
    return {"setting": setting, "seed": seed, "E": s["effective_throughput"], "fairness": s["fairness"],
            "timeouts": int(table.timeouts.sum()), "backoffs": int(table.backoffs.sum()),
            "stall_s": float(table.stall_s.sum()), "backoff_s": float(table.backoff_s.sum()),
            "overshoot_lost": int(table.overshoot_lost.sum()), "retx_lost": int(table.retx_lost.sum()),
            "min_flow": int(lo.flow), "min_share": float(lo.share), "min_stall_s": float(lo.stall_s),
            "min_backoff_s": float(lo.backoff_s), "min_retx_lost": int(lo.retx_lost),
            "fairness_without_min": float(rest.sum() ** 2 / (len(rest) * (rest ** 2).sum())) if rest.any() else float("nan"),
            "max_flow": int(hi.flow), "max_share": float(hi.share),
            "max_stall_s": float(hi.stall_s), "max_mean_cwnd_segs": float(hi.mean_cwnd_segs),
            "max_largest_window_share": float(hi.largest_window_share),
            "others_mean_cwnd_segs": float(table.drop(index=hi.name).mean_cwnd_segs.mean())}


@figure("fairness-anatomy", runs=_anatomy_runs)
def fairness_anatomy(c, runs):
    """Not a paper figure: where the unfair shares of topology 1 come from (Lite, ATM, 192.5K), as
    shipped, with a one-cell-time send_jitter and with a 10 ms tick. Per flow and run: bytes delivered,
    coarse timeouts and the time stalled and backed off around them, segments lost in the initial
    slow-start overshoot and retransmissions lost, mean window and the share of time it holds the
    largest window; per run the smallest and largest shares; the plot shows the first seed's
    acknowledged bytes over time. No claim (docs/reproductions.md has the findings)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from atmsim.plotting import save

    tables, episodes, per_run = [], [], []
    fig, axes = plt.subplots(2, len(runs), figsize=(5 * len(runs), 7))
    for col, (setting, pairs) in enumerate(runs.items()):
        for i, (spec, result) in enumerate(pairs):
            table, curves, eps, s = anatomy_of(spec, result)
            per_run.append(_run_row(setting, spec.seed, table, s))
            for df in (table, eps):
                df.insert(0, "seed", spec.seed)
                df.insert(0, "setting", setting)
            tables.append(table)
            episodes.append(eps)
            if i:
                continue
            ax = axes[0][col]
            for f in range(len(table)):
                ax.plot(curves.t, curves[f"flow{f}"] / 1e6, lw=1, label=f"S{f + 1}")
                e = eps[eps.flow == f]
                ax.plot(e.t_first, np.interp(e.t_first, curves.t, curves[f"flow{f}"]) / 1e6, "kx", ms=4)
            ax.set_title(f"{ANATOMY_LABELS[setting]}, seed {spec.seed}: E {s['effective_throughput']:.3f}, "
                         f"Jain {s['fairness']:.3f}", fontsize=8)
            ax.set_xlabel("t (s); x: first timeout of a stall")
            ax.set_ylabel("acknowledged MB")
            ax.legend(fontsize=6, ncol=2)
            ax = axes[1][col]
            x = table.flow + 1
            ax.bar(x, table.stall_s - table.backoff_s, label="stalled until the first timeout and after the last")
            ax.bar(x, table.backoff_s, bottom=table.stall_s - table.backoff_s, label="between repeated timeouts (backoff)")
            ax.set_xlabel("sender")
            ax.set_xticks(x)
            ax.set_ylabel("s stalled around coarse timeouts")
            ax.set_ylim(0, max(1.0, float(table.stall_s.max()) * 1.25))
            ax.legend(fontsize=7)
    fig.suptitle("aron97 topology 1, TCP-Lite over ATM, 192.5K (not in the paper)", fontsize=10)
    save(fig, c.out / "fairness-anatomy.png")
    c.table(pd.DataFrame(per_run), "fairness-anatomy")
    c.table(pd.concat(tables, ignore_index=True), "fairness-anatomy_flows")
    c.table(pd.concat(episodes, ignore_index=True), "fairness-anatomy_episodes")


# --------------------------------------------------------------------------- phase-sensitivity

CELL_NS = 3000  # one cell time on every link of the aron97 scenarios (53 bytes at 424/3 Mb/s)
JITTER_CELLS = [0, 0.25, 1, 3]
PHASE_KS_FULL, PHASE_KS_QUICK = [9, 21, 45], [21]


OFFSET_NS = [0, 50, 300, 1000, 3000]  # access-offsets: spread of the static access-delay offsets


def _jitter(cells) -> str:
    return f"{round(cells * CELL_NS)}ns" if cells else ""  # "": the scenario's 0, shared with fig3's runs


def _phase_runs(g) -> list[Spec]:
    ks = PHASE_KS_QUICK if g.quick else PHASE_KS_FULL
    return [sp for x in JITTER_CELLS for sp in g.specs([1], ["atm", "packet"], ["lite"], ks=ks, send_jitter=_jitter(x))]


@figure("phase-sensitivity", runs=_phase_runs)
def phase_sensitivity(c, runs):
    """Not a paper figure: E and Jain's index of Lite on topology 1 (both networks) against a random
    per-packet send time at the hosts, uniform in [0, X], X in cell times (host.send_jitter). The
    shipped scenarios have X = 0. No claim; the csv and plot back docs/hosts.md and reproductions.md."""
    cells = {_jitter(x): x for x in JITTER_CELLS}
    _tie_breaking(c, "phase-sensitivity", runs, "jitter_cells", [cells[sp.send_jitter] for sp, _ in runs],
                  "host.send_jitter X (cell times of 3 us)", "random send time at the hosts", ylow=0.4)


def _tie_breaking(c, name, runs, xcol, xs, xlabel, what, ylow, log=False):
    """The two tie-breaking sensitivity figures: medians of E, Jain's index and timeouts per
    (network, k, x) with Jain's range over the seeds, as csv and a two-panel plot."""
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    df = table(runs)
    df.insert(5, xcol, xs)
    by = ["network", "k", xcol]
    pts = df.groupby(by)[["E", "fairness", "timeouts"]].median()
    pts["fairness_min"] = df.groupby(by)["fairness"].min()
    pts["fairness_max"] = df.groupby(by)["fairness"].max()
    pts = pts.reset_index()
    c.write(name, pts, df)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for (net, k), g in pts.groupby(["network", "k"]):
        ls = "-" if net == "atm" else "--"
        x = g[xcol].clip(lower=10) if log else g[xcol]  # a log axis draws 0 at 10
        axes[0].plot(x, g.E, ls, marker="o", label=f"{net}, {k * SEG / 1000:.1f} KB")
        (line,) = axes[1].plot(x, g.fairness, ls, marker="o", label=f"{net}, {k * SEG / 1000:.1f} KB")
        axes[1].fill_between(x, g.fairness_min, g.fairness_max, color=line.get_color(), alpha=0.12)
    axes[1].axhline(0.79, color="k", lw=0.5, ls=":")
    axes[1].axhline(0.95, color="k", lw=0.5, ls=":")
    axes[0].set_ylabel("effective throughput E (median)")
    axes[1].set_ylabel("Jain's index (median; band: min-max over seeds)")
    axes[1].set_ylim(ylow, 1.02)
    for ax in axes:
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.legend(fontsize=7)
    fig.suptitle(f"aron97 topology 1, TCP-Lite: {what} (not in the paper)", fontsize=9)
    save(fig, c.out / f"{name}.png")


# --------------------------------------------------------------------------- access-offsets

def _offset_runs(g) -> list[Spec]:
    ks = PHASE_KS_QUICK if g.quick else PHASE_KS_FULL
    return [sp for ns in OFFSET_NS for sp in g.specs([1], ["atm", "packet"], ["lite"], ks=ks, access_offset_ps=ns * 1000)]


@figure("access-offsets", runs=_offset_runs)
def access_offsets_figure(c, runs):
    """Not a paper figure: E and Jain's index of Lite on topology 1 (both networks) when each
    sender's 1 us access link is made longer by a static amount drawn uniformly in [0, U) per
    seed, U from 0 to one cell time: the arrival ties at R1 broken once for the whole run (the
    other way of breaking them beside phase-sensitivity's per-packet send_jitter). No claim; the
    csv and plot back docs/reproductions.md."""
    _tie_breaking(c, "access-offsets", runs, "offset_ns", [sp.access_offset_ps // 1000 for sp, _ in runs],
                  "spread U of the static access-delay offsets (ns; 0 drawn at 10)", "static access-delay offsets",
                  ylow=0.2, log=True)
