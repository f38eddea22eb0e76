"""Aron & Druschel 1997, "End-to-End TCP Congestion Control over ATM
Networks" (Rice TR97-273): its figures as a `harness.Paper`.

Claim IDs aron97.FIGURE.cN. Every claim is computed from our runs (or, for
`analytic` claims, from the paper's parameters) by the acceptance rule
written beside it; nothing is hard-coded.
"""
from atmsim.reproduce.harness import Paper

from .common import (K_FULL, K_QUICK, MSS, SEG, U_MAX_ATM, U_MAX_PACKET, VARIANTS, Grid, Spec, grid, medians, row,
                     series, table, total_variation)
from .fairness import access_offsets_figure, fairness_anatomy, fairness_sensitivity, phase_sensitivity, segregation
from .lite import FIG3_COLUMNS, fig3, fig3_claims, fig3_points
from .traces import fig4, fig5
from .transfers import fig10, fig11
from .variants import fig6, fig7, fig8, fig12
from .vegas_anatomy import vegas_anatomy

PAPER = Paper("aron97", (fig3, fig4, fig5, fig6, fig7, fig8, fig10, fig11, fig12, segregation, fairness_sensitivity,
                        phase_sensitivity, access_offsets_figure, fairness_anatomy, vegas_anatomy),
              grid, test_options=("ks", "seeds", "duration"))

__all__ = ["PAPER", "FIG3_COLUMNS", "K_FULL", "K_QUICK", "MSS", "SEG", "U_MAX_ATM", "U_MAX_PACKET", "VARIANTS", "Grid",
           "Spec", "fig3_claims", "fig3_points", "grid", "medians", "row", "series", "table", "total_variation"]
