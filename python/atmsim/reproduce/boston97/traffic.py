"""boston97 Fig. 7 (§4.3, footnotes 8-9): the traffic of one source and of
16 sources over time, at the switch input, on the bottleneck and accepted
by the receiver; 64 kB window, 512-cell (27 kB) buffer, 9180-byte packets.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.reproduce.harness import figure, summary_of

from .common import HEADER, LINE_BPS, cap, metrics

L, B, W = 9180, 512, 64
PLOT_S = 100


def _runs(g):
    return {k: [g.run(p, L, B, W, s, sources=n, per_second=True) for p in ("reno", "boston") for s in g.seeds]
            for k, n in (("one", 1), ("sixteen", 16))}


def _series(s: dict, sources: int, seconds: int) -> pd.DataFrame:
    """Bytes per second at the switch input, on the bottleneck and accepted by the receiver."""
    def col(key, scale):
        out = np.zeros(seconds)
        for b in s["boston"][:sources]:
            v = np.asarray(b.get(key, []), dtype=float)[:seconds]
            if key == "bytes_accepted_by_s":  # cumulative at each second's last arrival: per-second increments
                v = np.diff(np.concatenate([[0.0], np.maximum.accumulate(v)]))
            out[: len(v)] += v * scale
        return out
    return pd.DataFrame({"t_s": np.arange(seconds), "switch_input_Bps": col("cells_sent_per_s", 53),
                         "bottleneck_Bps": col("cells_received_per_s", 53),
                         "accepted_Bps": col("bytes_accepted_by_s", L / (L - HEADER))})


@figure("fig7", runs=_runs)
def fig7(c, runs):
    """One source and 16 sources: bytes per second at three places over the first 100 s (§4.3, Fig. 7)."""
    sec = c.grid.seconds
    rows, series = [], []
    for k, pairs in runs.items():
        for run, r in pairs:
            s = summary_of(r)
            rows.append({"case": k, **run.tag, **metrics(s, L, run.tag["sources"], sec)})
            d = _series(s, run.tag["sources"], int(min(PLOT_S, sec)))
            d["case"], d["protocol"], d["seed"] = k, run.tag["protocol"], run.tag["seed"]
            series.append(d)
    df = pd.DataFrame(rows)
    pts = df.drop(columns=["seed"]).groupby(["case", "protocol"], sort=False).median(numeric_only=True).reset_index()
    ts = pd.concat(series)
    c.write("fig7", pts, df)
    ts.to_csv(c.out / "fig7_series.csv", index=False)
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    first = ts[ts.seed == c.grid.seeds[0]]
    fig, axes = plt.subplots(3, 2, figsize=(10, 7), sharex=True)
    for j, case in enumerate(("one", "sixteen")):
        for i, (colname, label) in enumerate((("switch_input_Bps", "switch input"), ("bottleneck_Bps", "bottleneck link"),
                                              ("accepted_Bps", "accepted by receiver"))):
            ax = axes[i, j]
            for p, style in (("reno", "--"), ("boston", "-")):
                d = first[(first.case == case) & (first.protocol == p)]
                ax.plot(d.t_s, d[colname], style, lw=0.8, label=p)
            ax.set_ylabel(f"{label} (B/s)", fontsize=7)
            ax.grid(alpha=0.3)
        axes[0, j].set_title("one source" if case == "one" else "16 sources")
        axes[2, j].set_xlabel("time (s)")
    axes[0, 0].legend(fontsize=7)
    save(fig, c.out / "fig7.png")

    P = {(r.case, r.protocol): r for r in pts.itertuples()}
    one_b, one_r, six_b, six_r = P["one", "boston"], P["one", "reno"], P["sixteen", "boston"], P["sixteen", "reno"]
    c.claim("fig7", "c1", "one source: Boston's cell drop rate 2.3 %, Reno's packet drop rate 4.9 %", "value", "2.3 %, 4.9 % (§4.3)",
            {"boston_clr": one_b.clr, "reno_plr": one_r.plr}, 0.012 <= one_b.clr <= 0.035 and 0.025 <= one_r.plr <= 0.075,
            "Boston CLR in [1.2, 3.5] % and Reno PLR in [2.5, 7.5] %",
            deviation="one source: our access-link reading releases a packet's cells into the switch as its bytes arrive, so a source that has filled the buffer loses about one cell in ten spread over every frame; the paper's numbers suggest whole packets arriving in bursts (not modelled; docs/boston97.md §5)")
    more = one_b.cells_sent / one_r.cells_sent - 1
    c.claim("fig7", "c2", "one source: Boston generated 3.2 % more traffic than Reno", "value", "3.2 % (§4.3)", more, 0 <= more <= 0.08,
            "Boston's cells into the switch / Reno's - 1 in [0, 0.08]",
            deviation="one source: Boston sends less than Reno here; both spend the run in timeouts (about 300 each in 700 s) under the spread losses, and which of Boston's savings outweighs its partial resends is not isolated; our access-link reading releases a packet's cells into the switch as its bytes arrive, so a source that has filled the buffer loses about one cell in ten spread over every frame; the paper's numbers suggest whole packets arriving in bursts (not modelled; docs/boston97.md §5)")
    ok3 = 0.781 <= one_r.eta <= 0.881 and 0.846 <= one_b.eta <= cap(L) and one_b.eta > one_r.eta
    c.claim("fig7", "c3", "one source: effective throughput 83.1 % (Reno), 89.6 % (Boston)", "value", "83.1 %, 89.6 % (footnote 8)",
            {"reno": one_r.eta, "boston": one_b.eta}, ok3, "eta_Reno in [78.1, 88.1] %, eta_Boston in [84.6, 90.2] %, Boston > Reno",
            deviation="one source: several damaged segments per window defeat fast retransmit for both protocols, which recover by timeouts and deliver about the same; our access-link reading releases a packet's cells into the switch as its bytes arrive, so a source that has filled the buffer loses about one cell in ten spread over every frame; the paper's numbers suggest whole packets arriving in bursts (not modelled; docs/boston97.md §5)")
    ratio = one_b.eta / one_r.eta if one_r.eta else float("inf")
    c.claim("fig7", "c4", "one source: Boston's effective throughput 7.83 % above Reno's", "value", "1.0783 (footnote 8)", ratio,
            1.02 <= ratio <= 1.15, "eta_Boston / eta_Reno in [1.02, 1.15]",
            deviation='one source: Boston and Reno deliver about the same, for the reason of fig7.c3')
    wb, wr = one_b.window_segments, one_r.window_segments
    c.claim("fig7", "c5", "one source: average window 3.02 segments (Boston), 2.57 (Reno)", "value", "27.7 kB, 23.9 kB (footnote 9)",
            {"boston_segments": wb, "reno_segments": wr, "boston_kB": wb * L / 1000, "reno_kB": wr * L / 1000},
            wb > wr and abs(wb / 3.02 - 1) <= 0.3 and abs(wr / 2.57 - 1) <= 0.3,
            "Boston > Reno, each within +-30 % of 3.02 / 2.57 segments", "window: time average of min(cwnd, peer window)")
    t1 = first[first.case == "one"].groupby("protocol")[["switch_input_Bps", "bottleneck_Bps", "accepted_Bps"]].sum()
    rel = {k: abs(t1.loc["boston", k] / t1.loc["reno", k] - 1) if t1.loc["reno", k] else float("inf") for k in t1.columns}
    c.claim("fig7", "c6", "one source: no visible difference in bytes at the input and on the link, a big gap at the receiver", "shape",
            "Fig. 7(a)", rel, rel["switch_input_Bps"] <= 0.05 and rel["bottleneck_Bps"] <= 0.05 and rel["accepted_Bps"] >= 0.05,
            "over 0-100 s input and link bytes differ by <= 5 %, accepted bytes by >= 5 % (first seed)",
            deviation="one source: the receiver-side gap is smaller than the paper's because both protocols spend the run in timeouts, for the reason of fig7.c3")
    ok7 = 0.709 <= six_b.eta <= 0.869 and 0.511 <= six_r.eta <= 0.671 and six_b.eta - six_r.eta >= 0.10
    c.claim("fig7", "c7", "16 sources: effective throughput 78.9 % (Boston), 59.1 % (Reno)", "value", "78.9 %, 59.1 % (§4.3)",
            {"boston": six_b.eta, "reno": six_r.eta}, ok7, "eta_Boston in [70.9, 86.9] %, eta_Reno in [51.1, 67.1] %, gap >= 10 points",
            deviation="16 sources: Reno fast-retransmits almost never with 7-packet windows (a damaged frame sends no ACK, so three duplicates rarely arrive) and recovers by timeouts, which puts both levels below the paper's (docs/boston97.md §5)")
    g1, g16 = one_b.eta - one_r.eta, six_b.eta - six_r.eta
    c.claim("fig7", "c8", "the gap between Boston and Reno grows with the number of sources", "shape", "19.8 vs 6.5 points (§4.3)",
            {"one": g1, "sixteen": g16}, g16 > g1, "(eta_Boston - eta_Reno) with 16 sources > with 1 source")
    a = {"7.83%": 89.6 / 83.1 - 1, "kB_per_segment_boston": 27.7 / 3.02, "kB_per_segment_reno": 23.9 / 2.57,
         "line_MB_700s": LINE_BPS * 700 / 8 / 1e6, "cell_payload_MB": LINE_BPS * 700 / 8 * 48 / 53 / 1e6,
         "packets_MB": LINE_BPS * 700 / 8 * cap(L) / 1e6}
    ok9 = abs(a["7.83%"] - 0.0783) < 0.0005 and abs(a["kB_per_segment_boston"] / 9.18 - 1) <= 0.02 \
        and abs(a["kB_per_segment_reno"] / 9.18 - 1) <= 0.02 and abs(a["packets_MB"] / 120 - 1) <= 0.02
    c.claim("fig7", "c9", "footnote arithmetic: 7.83 %, 3.02 and 2.57 segments of 9180 B, 120 MB in 700 s", "analytic",
            "footnotes 8-9, §4.3", a, ok9, "each within 2 % (the 7.83 % to rounding)",
            "23.9 kB / 2.57 = 9.30 kB per segment, 1.3 % above 9.18 kB; 120 MB is the bottleneck's capacity in 700 s, "
            "not what a run transfers.")
