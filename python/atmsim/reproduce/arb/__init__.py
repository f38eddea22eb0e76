"""Chang, Huynh & Gray, "Adaptive Rate-Based Congestion Control versus
TCP-SS: A Performance Comparison": its figures as a `harness.Paper`.

Claim IDs arb.FIGURE.cN (and the analytic checks arb.fig6.a1-a5). Figures:
fig6-fig11 (network efficiency, §3), fig12-fig15 (fairness, §4), fig16, fig17
(bias against bursty traffic, §4.4) and fig16-arb (ARB there: argued, not
simulated, in the paper).
"""
from atmsim.reproduce.harness import Paper

from .bursty import fig16, fig16_arb, fig17
from .common import OWN_RATE, RTT_WITH_QUEUE, grid
from .efficiency import fig6, fig7, fig8, fig9, fig10, fig11
from .fairness import fig12, fig13, fig14, fig15

PAPER = Paper("arb", (fig6, fig7, fig8, fig9, fig10, fig11, fig12, fig13, fig14, fig15, fig16, fig17, fig16_arb), grid,
              test_options=("seeds",), readings=(OWN_RATE, RTT_WITH_QUEUE))

__all__ = ["PAPER", "grid"]
