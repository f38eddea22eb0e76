"""Morris & Kung 1995, "Impact of ATM Switching and Flow Control on TCP
Performance: Measurements on an Experimental Switch" (GLOBECOM'95): its
figures as a `harness.Paper`.

Claim IDs morris-kung95.FIGURE.cN. Figures: fig3, fig4, fig5 (no flow
control, §IV), fig6 (the paper's predicted buffer curve, §IV), fig8,
fig8-tcp-udp, fig9 (credit flow control, §V) and credit-buffer (an
extension of §V's last paragraph).
"""
from atmsim.reproduce.harness import Paper

from .buffers import fig3, fig4, fig5, in_congestion_avoidance
from .pauses import pauses_and_bursts
from .common import MTUS, Grid, cells, credit_overrides, g_max, goodput, grid, window_cells_kib
from .credit import credit_buffer, credit_buffer_needed, fig8, fig8_tcp_udp, fig9
from .prediction import fig6

PAPER = Paper("morris-kung95", (fig3, fig4, fig5, fig6, fig8, fig8_tcp_udp, fig9, credit_buffer), grid,
              test_options=("seeds", "duration"))

__all__ = ["PAPER", "MTUS", "Grid", "cells", "credit_buffer_needed", "credit_overrides", "g_max", "goodput", "grid",
           "in_congestion_avoidance", "pauses_and_bursts", "window_cells_kib"]
