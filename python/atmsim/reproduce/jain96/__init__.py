"""Jain, Kalyanaraman, Goyal, Fahmy, Lu & Srinidhi, "TCP/IP over ABR" (ATM
Forum 96-0177R1, slides): its experiments as a `harness.Paper`.

Claim IDs jain96.FIGURE.cN. Figures: infinite-buffers and finite-buffers
(the two "Fixed Capacity" slides), summary-table (the "Simulation Results:
Summary" slide), tbe-sweep (Observations II), tail-drop and fast-retransmit.
"""
from atmsim.reproduce.harness import Paper

from .buffers import finite_buffers, infinite_buffers
from .common import Grid, grid, own_maximum, slide_product
from .drops import fast_retransmit, tail_drop
from .table import summary_table, tbe_sweep

PAPER = Paper("jain96", (infinite_buffers, finite_buffers, summary_table, tbe_sweep, tail_drop, fast_retransmit), grid,
              test_options=("seeds", "duration"))

__all__ = ["PAPER", "Grid", "grid", "own_maximum", "slide_product"]
