"""What the jain96 figures share: the slides' parameters, the grid, and the
measures of the slide "Performance Metrics" (throughput per source and
total, CLR, Jain's fairness index).

Jain, Kalyanaraman, Goyal, Fahmy, Lu & Srinidhi, "TCP/IP over ABR" (ATM
Forum 96-0177R1, slides). Built-in scenarios jain96-2src and jain96-5src:
n ABR sources -> SW1 -> SW2 -> n destinations, 155.52 Mb/s links of 5 ms,
ERICA at every switch port, TCP with 100 ms ticks and no fast retransmit.
Our readings of the slides are in docs/jain96.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import atmsim
from atmsim.reproduce.harness import Run

MAX_SLIDE = 103.32  # Mb/s: "Maximum TCP throughput" (slide "Infinite Buffers & Fixed Capacity")
MAX_TABLE = 58.4  # Mb/s: the summary table's "% of Max" normaliser (its 100.0 row)

_F = atmsim.model_facts("jain96-2src")
SEGMENT_CELLS = _F["segment_cells"]  # 12: a 568-byte AAL5 PDU (512 + 56) padded to 576 bytes
MSS = _F["mss"]  # 512
LINE_BPS = _F["ports"][_F["bottleneck"]]["rate_bps"]  # 155.52 Mb/s
CELLS_PER_S = LINE_BPS / 424


def own_maximum(target=0.9, nrm=32, startup=1.0) -> float:
    """Mb/s of TCP payload at ERICA's target with our overheads: one RM cell
    per Nrm cells, 12 cells per 512-byte segment; times a start-up factor."""
    return target * CELLS_PER_S * (nrm - 1) / nrm / SEGMENT_CELLS * MSS * 8 / 1e6 * startup


def slide_product(line_mbps: float, rm=True, startup=True) -> float:
    """The slide's product of overheads (155 x 0.9 x 48/53 x 512/568 x 31/32 x 0.9)."""
    v = line_mbps * 0.9 * 48 / 53 * 512 / 568
    return v * (31 / 32 if rm else 1) * (0.9 if startup else 1)


@dataclass(frozen=True)
class Grid:
    quick: bool
    seeds: tuple
    duration: str

    def run(self, n: int, tbe: int, buffer: int, seed: int, *, policy="tail", variant="timeout-only",
            vbr: float = 0.0, loss: float = 0.0, trace=False, log_port=False, tag=None) -> Run:
        """One run of the n-source configuration; `vbr` > 0: the VBR background
        on SW1->SW2 at that fraction of the line while on (100 ms on, 100 ms off, from 2 ms)."""
        o = [f"duration={self.duration}", f"abr.tbe={tbe}", f'switch.buffer="{buffer} cells"',
             f"switch.policy={policy}", f"tcp.variant={variant}"]
        if vbr:
            o += ['abr.vbr.port="SW1->SW2"', f'abr.vbr.rate="{vbr * LINE_BPS / 1e6:.6f}Mbps"']
        if loss:
            o += ['abr.loss.port="SW1->SW2"', f"abr.loss.probability={loss}"]
        if log_port:
            o.append('trace.port="SW1->SW2"')
        return Run(f"jain96-{n}src", tuple(o), seed, trace, tag)


def grid(quick: bool, seeds: Optional[list] = None, duration: Optional[str] = None) -> Grid:
    """Full: 3 seeds, 3 s (the slides give no duration; 3 s makes slow start
    about a tenth of the run, the slide's "x 0.9 TCP window startup"); quick: 1 seed."""
    if duration:
        atmsim.resolve("jain96-2src", [f"duration={duration}"])
    return Grid(quick, tuple(seeds or ([1] if quick else [1, 2, 3])), duration or "3s")


def throughputs(s: dict) -> list[float]:
    """Mb/s of payload delivered to each application (T1..Tn)."""
    return [f["bytes_delivered"] * 8 / s["end_time_s"] / 1e6 for f in s["flows"]]


def total(s: dict) -> float:
    return sum(throughputs(s))


def clr(s: dict) -> float:
    """Cells dropped / cells the sources' hosts put on their links (data,
    forward RM, and the turned-around RM cells of the ACK direction): the
    slides' CLR, over the forward direction where all loss is."""
    sent = sum(p["units_in"] for p in s["ports"] if p["name"].startswith("S") and p["name"].endswith("->SW1"))
    dropped = sum(p["units_dropped"] for p in s["ports"])
    return dropped / sent if sent else 0.0


def fairness(xs) -> float:
    xs = list(xs)
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else 1.0


def row(s: dict, **key) -> dict:
    """The summary table's columns for one run."""
    t = throughputs(s)
    acc = s["accounting"]
    out = dict(key)
    out.update({f"T{i + 1}": round(x, 3) for i, x in enumerate(t)})
    out.update(total=total(s), pct_58_4=100 * total(s) / MAX_TABLE, pct_103_32=100 * total(s) / MAX_SLIDE,
               clr_pct=100 * clr(s), fairness=fairness(t), timeouts=sum(f["timeouts"] for f in s["flows"]),
               bytes_dropped_in_switch=acc["bytes_dropped_in_queues"],
               bytes_discarded_at_aal5=acc["bytes_discarded_at_reassembly"],
               bytes_duplicate=acc["bytes_duplicate"], rm_cells_dropped=s["abr"]["rm_cells_dropped"],
               vbr_cells=s["abr"]["vbr_cells_sent"],
               erica=s["abr"]["erica_variant"])
    return out


def frames(tr: dict) -> dict:
    """A traced run's raw columns as DataFrames (window, queue, events, port,
    abr), flows, ports and VCs by name (`atmsim.trace_frames`)."""
    return atmsim.trace_frames(tr)
