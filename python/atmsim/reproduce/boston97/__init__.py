"""Bestavros & Kim 1997, "TCP Boston: A Fragmentation-tolerant TCP
Protocol for ATM Networks" (INFOCOM'97): its evaluation as a
`harness.Paper`.

Claim IDs boston97.FIGURE.cN. Figures: fig5, table1, fig6, windows, epd
(16 sources against the buffer, §4.2) and fig7 (one and 16 sources over
time, §4.3). Every row also gives its verdict at N = 256 dispersed pieces, the catalogue's
reading before its amendment (`N_256`, common.py; docs/boston97.md §3), and in the full run its verdict
with cell access links, the text's reading of the access (`CELL_ACCESS`; docs/boston97.md, "The access links").
"""
from atmsim.reproduce.harness import Paper

from .common import CELL_ACCESS, N_256, Grid, cap, cells, grid, metrics, window_packets
from .loss import epd, fig5, fig6, table1, windows
from .traffic import fig7

PAPER = Paper("boston97", (fig5, table1, fig6, windows, fig7, epd), grid, test_options=("seeds", "duration"), readings=(N_256, CELL_ACCESS))

__all__ = ["PAPER", "Grid", "cap", "cells", "grid", "metrics", "window_packets"]
