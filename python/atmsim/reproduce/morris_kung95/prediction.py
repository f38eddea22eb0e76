"""morris-kung95 Fig. 6: the predicted buffer curve (§IV ¶8-10, Figs. 6-7).

The paper's argument for why a window one packet too large damages two
packets (tail drop), and why Partial Packet Discard still damages packet
i+1: packets of 192 cells arrive at three times the output's rate into a
two-packet buffer. It is computed as a fluid (exact fractions) and run cell
by cell (scenario morris-kung95-fig6, whose script starts 2 packet times
before the paper's t = 0).
"""
from __future__ import annotations

from fractions import Fraction

import pandas as pd

import atmsim
from atmsim.claims import above, at_most, check, within
from atmsim.reproduce.harness import figure

_FIG6 = atmsim.model_facts("morris-kung95-fig6")
PACKET_CELLS = _FIG6["segment_cells"]  # 192: a 9180-byte IP packet
_OUT = _FIG6["ports"][_FIG6["bottleneck"]]
CELL_TIME_S = float(Fraction(_FIG6["cell_bytes"] * 8 * _OUT["rate_ps"], _OUT["rate_bits"]) / 10**12)  # 9 µs at the output
FIG6_UNIT_S = PACKET_CELLS * CELL_TIME_S  # one packet time at the output of the scenario
FIG6_SHIFT = 2  # the scenario's script starts 2 units before the paper's t = 0
FIG6_STARTS = [-2, Fraction(-5, 3), -1, 0, 1, 2, Fraction(7, 3), 3, 4, 5, 6, 7]  # paper time
FIG6_I = 6  # packet i, the extra packet, is the 7th of the script


@figure("fig6", runs=lambda g: {p: [g.run("fig6", (f"switch.policy={p}",), 1, True)] for p in ("tail", "ppd")})
def fig6(c, runs):
    """The paper's argument computed as a fluid (fluid.py) and run cell by
    cell (the morris-kung95-fig6 scenario), with tail drop and with PPD."""
    from atmsim import fluid, portlog

    cap = Fraction(2)
    white = cap - Fraction(2, 3)  # the highest level at which a whole packet still fits (rises 2/3)
    fl = {p: fluid.buffer_curve(FIG6_STARTS, cap=cap, ppd=p == "ppd") for p in ("tail", "ppd")}
    unlimited = fluid.buffer_curve(FIG6_STARTS)
    rows, cell = [], {}
    for pol, [(_, (s, tr))] in runs.items():
        occ = portlog.occupancy(tr["port"])
        occ["t_paper"] = occ.t / FIG6_UNIT_S - FIG6_SHIFT
        occ["fluid"] = fluid.value_at(fl[pol], occ.t_paper.to_numpy()) * PACKET_CELLS
        cell[pol] = occ
        lost = occ[occ.change == "drop"].groupby("frame").size().reindex(range(len(FIG6_STARTS)), fill_value=0)
        for k, t0 in enumerate(FIG6_STARTS):
            rows.append({"policy": pol, "packet": k, "t_paper": float(t0), "cells_lost": int(lost[k]),
                         "fluid_lost_cells": float(fl[pol].lost[k] * PACKET_CELLS)})
    df = pd.DataFrame(rows)
    df.pipe(c.table, "fig6")
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, pol in zip(axes, ("tail", "ppd")):
        occ = cell[pol]
        ax.step(occ.t_paper, occ.q / PACKET_CELLS, where="post", color="0.6", lw=2, label="cell run")
        for run, style, lab in ((unlimited, "--", "fluid, unlimited buffer"), (fl[pol], "-", "fluid, 2-packet buffer")):
            ax.plot([float(t) for t, _ in run.points], [float(q) for _, q in run.points], style, color="k", lw=1, label=lab)
        ax.plot([float(t) for t in FIG6_STARTS], [0.05] * len(FIG6_STARTS), "o", color="k", ms=4)
        ax.plot([3], [float(white)], "o", mfc="white", mec="k", ms=7)
        ax.axhline(2, color="k", lw=0.5, ls=":")
        ax.set_xlim(-0.2, 6)
        ax.set_xlabel("time (packet times at the output)")
        ax.set_title("tail drop" if pol == "tail" else "partial packet discard")
    axes[0].set_ylabel("switch buffer (packets)")
    axes[0].legend(fontsize=7, loc="upper left")
    save(fig, c.out / "fig6.png")

    lost = {pol: df[df.policy == pol].set_index("packet").cells_lost for pol in ("tail", "ppd")}
    damaged = {pol: [k - FIG6_I for k, v in lost[pol].items() if v > 0] for pol in lost}
    tail_i, tail_i1 = int(lost["tail"][FIG6_I]), int(lost["tail"][FIG6_I + 1])
    others = len([k for k in damaged["tail"] if k not in (0, 1)])
    c.claim("c1", statement="in this way two packets are damaged", kind="analytic", paper_value="packets i and i+1 (§IV, Fig. 6)",
            ours={"damaged_relative_to_i": damaged["tail"], "cells_lost_i": tail_i, "cells_lost_i+1": tail_i1,
             "fluid_lost_packets": [str(fl["tail"].lost[FIG6_I]), str(fl["tail"].lost[FIG6_I + 1])]},
            holds=check(("packets other than i and i+1 that lose cells", others, at_most(0)), ("cells lost from i", tail_i, within(63, 65)),
                  ("cells lost from i+1", tail_i1, within(63, 65))),
            rule="cell run, tail drop (fluid: 1/3 packet each)")

    def delta(pol):
        """Queue when packet i+1 starts to arrive minus the white-circle level (Fig. 7)."""
        t3 = FIG6_STARTS[FIG6_I + 1]
        q_fluid = next(q for t, q in fl[pol].points if t == t3)
        q_cell = int(portlog.value_at(cell[pol], (float(t3) + FIG6_SHIFT) * FIG6_UNIT_S)[0])
        return q_fluid - white, q_cell / PACKET_CELLS - float(white)

    # The fluid values are exact fractions; "exact" here is to half a cell (the cell run's resolution).
    half_cell = 0.5 / PACKET_CELLS
    d_tail, d_tail_cells = delta("tail")
    c.claim("c2", statement="the delta value in Fig. 6 is greater than zero", kind="analytic", paper_value="Δ > 0 (§IV, Fig. 7)",
            ours={"delta_fluid": str(d_tail), "delta_cell_run_packets": d_tail_cells},
            holds=check(("fluid Δ (packets)", float(d_tail), within(1 / 3 - half_cell, 1 / 3 + half_cell)), ("cell run Δ (packets)", d_tail_cells, above(0))),
            rule="the fluid's exact fraction to half a cell (the cell run's resolution)")
    d_ppd, d_ppd_cells = delta("ppd")
    p_i, p_i1 = int(lost["ppd"][FIG6_I]), int(lost["ppd"][FIG6_I + 1])
    c.claim("c3", statement="with PPD the switch has more space for packet i+1 but still drops part of it", kind="analytic", paper_value="§IV, Fig. 7",
            ours={"delta_ppd_fluid": str(d_ppd), "delta_ppd_cell_run_packets": d_ppd_cells, "cells_lost_i": p_i, "cells_lost_i+1": p_i1},
            holds=check(("fluid Δ_PPD (packets)", float(d_ppd), within(1 / 6 - half_cell, 1 / 6 + half_cell)),
                  ("Δ - Δ_PPD (packets)", float(d_tail - d_ppd), above(0)),
                  ("cell run: cells lost from i", p_i, within(92, 96)), ("from i+1", p_i1, within(47, 51))),
            rule="the fluid's exact fraction to half a cell; Δ_PPD in (0, Δ)")
    diff = {pol: float((cell[pol].q - cell[pol].fluid).abs()[cell[pol].t_paper >= 0].max()) for pol in cell}
    c.claim("c4", statement="the computed curves beside the cell run", kind="shape", paper_value="Fig. 6",
            ours={f"max_abs_diff_cells_{k}": v for k, v in diff.items()},
            holds=check(("max |cell run - fluid| from paper time 0 on, both policies (cells)", max(diff.values()), at_most(2))), rule="fig6.png")
