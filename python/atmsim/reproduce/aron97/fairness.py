"""aron97: fairness. Segregation with simultaneous starts (§3 last ¶), and
how the fairness of fig3 moves with two settings the paper does not state.
"""
from __future__ import annotations

from atmsim.reproduce.harness import figure

from .common import SEG, Spec, table

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
    below = bool((pts["simultaneous"] < pts["staggered"]).all())
    mn = float(df[df.simultaneous]["fairness"].min())
    c.claim("segregation", "c1", "with simultaneous starts small buffers segregate the senders; staggering removes most of it", "shape",
            "§3 last ¶", {"median_jfi": pts.to_dict(), "min_simultaneous": mn}, below and mn < 0.79,
            "median JFI simultaneous < staggered at each point, and min JFI of simultaneous runs < 0.79")


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
