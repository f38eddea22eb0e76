"""What the morris-kung95 figures share: the paper's link and packet
parameters (from the core), the grid, and goodput.

Setup of the paper (§III): Alpha hosts with OSF/1 (4.3-Reno) TCP, a 64 KB
window, 9180-byte MTU (RFC 1577: LLC/SNAP + AAL5, so 192 cells a packet),
OC-3 lines (149.76 Mb/s of cell payload containers) into the CreditNet
switch and a "53 Mb/s" output (53/155.52 of the OC-3 cell slots); per-VC
queues; without flow control 682 cells (32 KiB of payload) per VC, with
credit flow control N2 + N3 = 100 cells per VC (§V).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import atmsim
from atmsim import _core
from atmsim.reproduce.harness import Run

B_FULL = [8, 16, 24, 32, 40, 48, 52, 56, 60, 64, 72, 80]  # KiB of payload per VC (Fig. 3's x-axis)
B_QUICK = [16, 32, 48, 56, 64, 72]
MTUS = [1500, 4352, 9180]

# The link, cell and packet parameters, as the simulator derives them from config (a).
_A = atmsim.model_facts("morris-kung95-a")
ENCAPSULATION = _A["encapsulation"]  # aal5-llc
MTU = _A["segment_ip_bytes"]  # 9180
MSS = _A["mss"]  # 9140
HEADER = _A["header_bytes"]  # 40: IP and TCP headers
CELL_PAYLOAD = _A["cell_payload"]  # 48
CELL_BITS = _A["cell_bytes"] * 8
PACKET_CELLS = _A["segment_cells"]  # 192 cells for a 9180-byte packet
CELL_RATE_53 = _A["ports"][_A["bottleneck"]]["rate_bps"] / CELL_BITS  # 120,370.4 cells/s at the 53 Mb/s port
# Cells/s on an OC-3 line as the analytic claims write it: the line's 149.76 Mb/s / 424 b is 353,207.55.
OC3_CELLS = 353207.5
BUFFER_A = 682  # cells: the 32 KiB per-VC buffer without flow control (§IV)
WARMUP_S = 1.0  # statistics over [1 s, end] (catalogue 2.2)


def cells(L: int) -> int:
    """Cells for an L-byte IP packet (LLC/SNAP + AAL5, as the simulator segments it)."""
    return _core.aal5_cells(L, ENCAPSULATION)


def g_max(L: int) -> float:
    """Payload bytes/s a saturated 53 Mb/s port carries in L-byte packets."""
    return CELL_RATE_53 / cells(L) * (L - HEADER)


def window_cells_kib(L: int, window: int = 65535) -> float:
    """Cell payload (KiB) of a window's worth of full segments."""
    return window // (L - HEADER) * cells(L) * CELL_PAYLOAD / 1024


def credit_overrides(tcp_rate="13MB/s"):
    # With credit the hosts move 13 MB/s (software credit in the driver, §III).
    return ["credit.enabled=true", f"host.tcp_rate={tcp_rate}"]


@dataclass(frozen=True)
class Grid:
    """Seeds and simulated time (full, quick, or a test grid)."""

    quick: bool
    seeds: tuple
    duration: str

    def run(self, config: str, overrides=(), seed: int = 1, trace: bool = False, tag=None) -> Run:
        """A run of config (a), (b) or the Fig. 6 script; the grid's duration unless the overrides set one."""
        o = tuple(overrides)
        if not any(x.startswith("duration=") for x in o):
            o += (f"duration={self.duration}",)
        return Run(f"morris-kung95-{config}", o, seed, trace, tag)

    def pair(self, config: str, overrides=(), seed: int = 1, tag=None, warm: float = WARMUP_S) -> list:
        """The run and the same run stopped at `warm` s (runs are deterministic: the second is the first's
        prefix), so that statistics over [warm, end] are differences of their summaries."""
        return [self.run(config, overrides, seed, tag=tag), self.run(config, tuple(overrides) + (f"duration={warm:g}s",), seed, tag=tag)]


def grid(quick: bool, seeds: Optional[list] = None, duration: Optional[str] = None) -> Grid:
    """The grid of `reproduce morris-kung95`; seeds and duration replace it for tests."""
    if duration:
        atmsim.resolve("morris-kung95-a", [f"duration={duration}"])  # ScenarioError "duration: ..." if bad
    return Grid(quick, tuple(seeds or ([1] if quick else [1, 2, 3])), duration or ("10s" if quick else "20s"))


def goodput(s: dict, s0: Optional[dict] = None, flow=None) -> float:
    """Payload bytes per second delivered between the end of `s0` (the same run stopped at the warm-up;
    None: from 0) and the end of `s`."""
    def delivered(x):
        fl = x["flows"] if flow is None else [x["flows"][flow]]
        return sum(f["bytes_delivered"] for f in fl)

    if s0 is None:
        return delivered(s) / s["end_time_s"]
    return (delivered(s) - delivered(s0)) / (s["end_time_s"] - s0["end_time_s"])


def pairs(runs) -> list:
    """(run, summary, warm-up summary) from a list of `Grid.pair` runs."""
    return [(r, s, s0) for (r, s), (_, s0) in zip(runs[::2], runs[1::2])]
